//! What the editor page loads: the job's state and every scene as `modify_scene` returns it
//! (the Scene record with word timings), from the edit session's copy while one is open. The
//! read-only player's link loads [`PlayerView`] instead: only what the player shows, so that
//! link can never lead to the review link's edit token or to the caller's `metadata`.

use serde::Serialize;
use typography::TimedWord;
use utoipa::ToSchema;

use crate::edit::scenes::{Editor, SessionFlag};
use foundation::document::SceneRecord;
use foundation::model::{Job, JobStage, JobStatus, OutputType, StatusObject};

foundation::document::wire_enum! {
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

/// `GET /app/editor/{topic_id}/data`'s body for the player's token.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PlayerView {
    /// Always `player_view`.
    #[schema(example = "player_view")]
    pub object: &'static str,
    pub topic_id: String,
    pub title: String,
    pub mode: EditorMode,
    pub status: PlayerStatus,
    /// The scenes in display order (empty while the video is still being built).
    pub scenes: Vec<PlayerScene>,
}

/// How far the video is, as the player shows it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PlayerStatus {
    pub status: JobStatus,
    #[schema(example = "scenes_ready_for_review")]
    pub stage: Option<JobStage>,
    #[schema(minimum = 0, maximum = 1)]
    pub progress: f64,
    /// The final MP4, once rendered.
    pub video_url: Option<String>,
}

impl PlayerStatus {
    /// The player's part of a status object.
    fn of(status: StatusObject) -> PlayerStatus {
        PlayerStatus {
            status: status.status,
            stage: status.stage,
            progress: status.progress,
            video_url: status.result.video_url,
        }
    }
}

/// One scene as the player plays it: its clip's selector, length and caption timings.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PlayerScene {
    pub voice_file: String,
    pub duration: f64,
    pub words: Vec<TimedWord>,
}

/// The player's view of `job` (a video).
pub fn player_view(editor: &Editor, job: &Job) -> crate::Result<PlayerView> {
    let doc = editor.document(&job.topic_id)?;
    let scenes = doc
        .as_ref()
        .map(|d| {
            d.segments
                .iter()
                .map(|s| PlayerScene {
                    voice_file: s.voice_file.clone(),
                    duration: s.duration,
                    words: s.words.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(PlayerView {
        object: "player_view",
        topic_id: job.topic_id.clone(),
        title: title(doc.as_ref(), job),
        mode: mode(job),
        status: PlayerStatus::of(job.status_object()),
        scenes,
    })
}

/// The video's title: the document's, else the job's.
fn title(doc: Option<&foundation::document::VideoDocument>, job: &Job) -> String {
    doc.map(|d| d.title.clone())
        .unwrap_or_else(|| job.title.clone())
}

fn mode(job: &Job) -> EditorMode {
    if job.output_type == OutputType::Text {
        EditorMode::Script
    } else {
        EditorMode::Scenes
    }
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
        title: title(doc.as_ref(), job),
        mode: mode(job),
        status: job.status_object(),
        edit_session: SessionFlag {
            active: staged_writes.is_some(),
            staged_writes,
        },
        scenes,
    })
}
