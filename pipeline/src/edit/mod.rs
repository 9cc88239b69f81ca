//! Editing a built video: modify_scene branches, overlay edits, edit sessions, scene geometry,
//! scene selection, the document's versions (undo and redo), the editor's realtime messages, the live editor tabs that
//! `scene_inspector` drives, the editor's view and the script view's approval. Uses `design`, `ingest`, `build`,
//! `render` and `foundation`.

pub(crate) mod config;
pub(crate) mod live;
pub(crate) mod overlay_applied;
pub(crate) mod overlay_edits;
pub(crate) mod overlay_request;
pub(crate) mod realtime;
pub(crate) mod scenes;
pub(crate) mod script;
pub(crate) mod versions;
pub(crate) mod view;

// The facade: what the crates above may name.
pub use config::EditConfig;
pub use live::{Answer, Command, Failure, LiveEditors, PROBE_MS, TIMEOUT_MS, clamp_ms};
pub use realtime::Hub;
pub use scenes::arrange::Arranged;
pub use scenes::edit_session::{EditSessionReply, EditSessionRequest};
pub use scenes::geometry::{
    GeometryQuery, Input as GeometryInput, SceneGeometry, SceneGeometryRequest,
    build as build_geometry, overlap,
};
pub use scenes::inspect::{
    Inspection, InspectorAction, InspectorReply, InspectorResult, LiveAnswer, LiveEditorsResult,
    LiveResult, PosterResult, SceneInspectorRequest, ScreenshotResult, StillFile, StillScene,
    Unavailable,
};
pub use scenes::parse::{MAX_TEXT_CHARS, ModifyScene, ModifySceneRequest};
pub use scenes::restore::{Restored, VersionsReply};
pub use scenes::select::{Selection, Selector, select as select_scene};
pub use scenes::{Editor, GeometryReply, ModifySceneReply, Outcome, UploadQueued};
pub use script::ScriptApproval;
pub use versions::Step;
pub use view::{EditorView, PlayerView, player_view, view};
