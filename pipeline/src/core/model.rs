//! Records kept in the store. Each is a serde document; new fields get
//! `#[serde(default)]` so older rows keep loading.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    Free,
    Trial,
    Paid,
}

impl Plan {
    pub fn parse(s: &str) -> Option<Plan> {
        match s {
            "free" => Some(Plan::Free),
            "trial" => Some(Plan::Trial),
            "paid" => Some(Plan::Paid),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Account {
    pub name: String,
    pub plan: Plan,
    pub credits: i64,
    /// Unix seconds.
    pub created_at: i64,
    #[serde(default)]
    pub email: Option<String>,
}

/// Where a video's narration comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Text,
    Idea,
    Blog,
    VideoUrl,
    VideoFile,
    AudioUrl,
    AudioFile,
}

impl Source {
    pub const NAMES: &'static [&'static str] = &[
        "text",
        "idea",
        "blog",
        "video_url",
        "video_file",
        "audio_url",
        "audio_file",
    ];

    pub fn parse(s: &str) -> Option<Source> {
        Some(match s {
            "text" => Source::Text,
            "idea" => Source::Idea,
            "blog" => Source::Blog,
            "video_url" => Source::VideoUrl,
            "video_file" => Source::VideoFile,
            "audio_url" => Source::AudioUrl,
            "audio_file" => Source::AudioFile,
            _ => return None,
        })
    }

    pub fn is_media(self) -> bool {
        matches!(
            self,
            Source::VideoUrl | Source::VideoFile | Source::AudioUrl | Source::AudioFile
        )
    }

    pub fn is_audio(self) -> bool {
        matches!(self, Source::AudioUrl | Source::AudioFile)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputType {
    Text,
    Scene,
    Video,
}

impl OutputType {
    pub fn parse(s: &str) -> Option<OutputType> {
        match s {
            "text" => Some(OutputType::Text),
            "scene" => Some(OutputType::Scene),
            "video" => Some(OutputType::Video),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            OutputType::Text => "text",
            OutputType::Scene => "scene",
            OutputType::Video => "video",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Language {
    English,
    Vietnamese,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VideoLength {
    Short,
    Normal,
}

/// A validated `create_video` request: everything a worker needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VideoRequest {
    pub source: Source,
    /// Script, idea or blog text (already truncated for idea/blog).
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub media_url: Option<String>,
    pub language: Language,
    pub video_length: VideoLength,
    pub research_enabled: bool,
    pub faceless: bool,
    pub wait_for_render: bool,
    #[serde(default)]
    pub adjust: Option<Value>,
    /// An uploaded `video_file`/`audio_file`, relative to the data directory
    /// (`uploads/{token}.{ext}`); the build task moves it into the video's folder.
    #[serde(default)]
    pub media_file: Option<String>,
    /// `Some(false)` when GStreamer could not read the upload at `create_video`: the build
    /// task fails at once with `media_decode_failed` instead of probing again.
    #[serde(default)]
    pub media_decodable: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    Processing,
    Completed,
    Failed,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Processing => "processing",
            JobStatus::Completed => "completed",
            JobStatus::Failed => "failed",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JobError {
    pub code: String,
    pub message: String,
}

/// One video job: the status object's state plus the bookkeeping behind it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub topic_id: String,
    pub account: String,
    pub request: VideoRequest,
    pub output_type: OutputType,
    pub status: JobStatus,
    #[serde(default)]
    pub stage: Option<String>,
    pub step: u8,
    pub progress: f64,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub input_truncated_from: Option<usize>,
    #[serde(default)]
    pub review_url: Option<String>,
    #[serde(default)]
    pub video_url: Option<String>,
    #[serde(default)]
    pub error: Option<JobError>,
    #[serde(default)]
    pub metadata: Value,
    #[serde(default)]
    pub callback_url: Option<String>,
    #[serde(default)]
    pub idempotency_key: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    /// `video.processing` has been queued for delivery.
    #[serde(default)]
    pub processing_fired: bool,
    /// A terminal event (`completed`/`failed`) has been queued for this run.
    /// Export resets it so the rendered video fires `completed` again.
    #[serde(default)]
    pub terminal_fired: bool,
    /// `export_video` was accepted once; later calls return the snapshot.
    #[serde(default)]
    pub export_requested: bool,
    #[serde(default)]
    pub title: String,
}

impl Job {
    /// The spec's status object (without `request_id`, added by the API).
    pub fn status_object(&self) -> Value {
        let mut details = json!({ "step": self.step });
        if let Some(n) = &self.notes {
            details["notes"] = json!(n);
        }
        if let Some(n) = self.input_truncated_from {
            details["input_truncated_from"] = json!(n);
        }
        let mut result = json!({});
        if let Some(u) = &self.review_url {
            result["review_url"] = json!(u);
        }
        if let Some(u) = &self.video_url {
            result["video_url"] = json!(u);
        }
        json!({
            "object": "status",
            "id": self.topic_id,
            "topic_id": self.topic_id,
            "type": "video",
            "status": self.status.as_str(),
            "stage": self.stage,
            "progress": (self.progress * 1000.0).round() / 1000.0,
            "output_type": self.output_type.as_str(),
            "details": details,
            "result": result,
            "error": self.error,
            "metadata": self.metadata,
            "created_at": crate::core::time::iso(self.created_at),
            "updated_at": crate::core::time::iso(self.updated_at),
        })
    }
}

/// Work a job waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// Steps 2–5: script, voice, media, scenes.
    Build,
    /// Steps 6–7: render the MP4.
    Render,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueueEntry {
    pub task: Task,
    pub enqueued_at: i64,
    /// Unix seconds until which a worker owns the entry; `None` when free.
    #[serde(default)]
    pub lease_until: Option<i64>,
    #[serde(default)]
    pub lease_owner: Option<String>,
    #[serde(default)]
    pub attempts: u32,
}

/// A webhook delivery waiting in the outbox.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Delivery {
    /// The job the event is about; deliveries of one job go out in order.
    #[serde(default)]
    pub topic_id: String,
    /// Creation order (unix nanoseconds), finer than `created_at`.
    #[serde(default)]
    pub seq: i128,
    pub event_id: String,
    pub event_type: String,
    pub url: String,
    /// The exact body that is signed and sent on every attempt.
    pub body: String,
    pub created_at: i64,
    /// Attempts made so far.
    pub attempts: u32,
    /// Unix seconds of the next attempt.
    pub next_at: i64,
}
