//! Scene building: a script (or an idea or blog post turned into narration by the writer) is
//! split into scenes, directed, voiced, given B-roll and overlays, and stored as a video
//! document. Uses `render` and `core`.

pub mod broll;
pub mod direction;
pub mod llm;
pub mod overlays;
pub mod providers;
pub mod script;
pub mod voice;
pub mod work;
pub mod writer;
