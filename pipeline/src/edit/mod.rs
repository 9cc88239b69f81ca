//! Editing a built video: modify_scene branches, overlay edits, edit sessions, scene geometry,
//! scene selection and the editor's realtime messages. Uses `design`, `ingest`, `build`,
//! `render` and `core`.

pub mod overlay_applied;
pub mod overlay_edits;
pub mod overlay_request;
pub mod realtime;
pub mod scenes;
