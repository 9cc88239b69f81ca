//! Scene building: a script (or an idea or blog post turned into narration by the writer) is
//! split into scene drafts (`work.rs`; media sources draft theirs in `ingest`), and the one
//! scene assembly (`scenes.rs`) directs, voices, gives B-roll and overlays to the drafts of any
//! source. Uses `render` and `foundation`.

pub mod broll;
pub mod copy;
pub mod direction;
pub mod illustrations;
pub mod llm;
pub mod overlays;
pub mod placement;
pub mod providers;
pub mod scenes;
pub mod script;
pub mod spoken;
pub mod voice;
pub mod work;
pub mod writer;
