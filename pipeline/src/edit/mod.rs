//! Editing a built video: modify_scene branches, overlay edits, edit sessions, scene geometry,
//! scene selection, the document's versions (undo and redo), the editor's realtime messages, the live editor tabs that
//! `scene_inspector` drives, the editor's view and the script view's approval. Uses `design`, `ingest`, `build`,
//! `render` and `foundation`.

pub mod live;
pub(crate) mod overlay_applied;
pub(crate) mod overlay_edits;
pub(crate) mod overlay_request;
pub mod realtime;
pub mod scenes;
pub mod script;
pub mod versions;
pub mod view;
