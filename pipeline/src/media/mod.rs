//! Media for a video: B-roll search (`search_broll`) and image generation (`create_image`). Uses `ingest`, `build`, `render`
//! and `foundation`.

pub(crate) mod clips;
pub(crate) mod config;
pub(crate) mod images;
pub(crate) mod search;
pub(crate) mod thumbs;

// The facade: what the crates above may name.
pub use config::{ImagesConfig, ImagesKind};
pub use images::{ImageBody, ImageRequest, ImageSet, ImageSetStatus, Images};
pub use search::{Search, SearchBody, SearchReply, SearchRequest};
