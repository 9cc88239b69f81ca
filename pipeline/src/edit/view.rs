//! What the editor page loads: the job's state and every scene as `modify_scene` returns it
//! (the Scene record with word timings), from the edit session's copy while one is open.

use serde::Serialize;
use utoipa::ToSchema;

use crate::core::document::SceneRecord;
use crate::core::model::{Job, OutputType, StatusObject};
use crate::edit::scenes::{Editor, SessionFlag};

crate::core::document::wire_enum! {
    /// Which editor the review link opens.
    pub enum EditorMode {
        /// The scene editor (`output_type` scene or video).
        Scenes = "scenes",
        /// The script editor (`output_type=text`, `view=script`).
        Script = "script",
    }
}

/// `GET /app/editor/{topic_id}/data`'s body.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct EditorView {
    /// Always `editor_view`.
    #[schema(example = "editor_view")]
    pub object: &'static str,
    pub topic_id: String,
    pub title: String,
    pub mode: EditorMode,
    /// The job's status object (progress, `result.video_url` once rendered).
    pub status: StatusObject,
    /// Whether an edit session is open, with its staged write count.
    pub edit_session: SessionFlag,
    /// The scenes in display order (empty while the video is still being built).
    pub scenes: Vec<SceneRecord>,
}

/// The view of `job` (a video).
pub fn view(editor: &Editor, job: &Job) -> crate::Result<EditorView> {
    let doc = editor.document(&job.topic_id)?;
    let scenes = doc
        .as_ref()
        .map(|d| {
            (0..d.segments.len())
                .map(|i| editor.segment_record(d, i))
                .collect()
        })
        .unwrap_or_default();
    let staged_writes = editor.sessions.info(&job.topic_id).map(|i| i.staged_writes);
    Ok(EditorView {
        object: "editor_view",
        topic_id: job.topic_id.clone(),
        title: doc
            .as_ref()
            .map(|d| d.title.clone())
            .unwrap_or_else(|| job.title.clone()),
        mode: if job.output_type == OutputType::Text {
            EditorMode::Script
        } else {
            EditorMode::Scenes
        },
        status: job.status_object(),
        edit_session: SessionFlag {
            active: staged_writes.is_some(),
            staged_writes,
        },
        scenes,
    })
}
