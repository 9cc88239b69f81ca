//! Media for a video: B-roll search (`search_broll`) and image generation (`create_image`). Uses `ingest`, `build`, `render`
//! and `foundation`.

pub mod images;
pub mod search;
pub mod thumbs;
