//! Records kept in the store, and the status object built from a [`Job`]. Each record is a
//! serde document; new fields get `#[serde(default)]` so older rows keep loading.
//!
//! The enumerations a client sends (`source`, `output_type`, `language`, `video_length`)
//! derive [`utoipa::ToSchema`], so the OpenAPI document lists their wire names; their
//! `Choice` readers are in `ingest::create` (this module sits below `error`, so it reads
//! nothing itself).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::error::Code;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    #[default]
    Free,
    Trial,
    Paid,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Account {
    pub name: String,
    pub plan: Plan,
    pub credits: i64,
    /// Unix seconds.
    pub created_at: i64,
    #[serde(default)]
    pub email: Option<String>,
    /// The account's industry: the default `industry` of its production plan entries.
    #[serde(default)]
    pub industry: Option<String>,
    /// Videos the account means to publish each week (the roadmap's slots); `None` is the
    /// roadmap's default.
    #[serde(default)]
    pub weekly_quota: Option<u32>,
    /// The Telegram chat notifications go to (set by `reelsmith accounts set
    /// --telegram-chat-id`); `None`: the messaging channel is not connected.
    #[serde(default)]
    pub telegram_chat_id: Option<String>,
    /// The account's sub-industry (narrows the template library).
    #[serde(default)]
    pub sub_industry: Option<String>,
    /// The account holder's name (the account's own `name` is its id, `company_id`).
    #[serde(default)]
    pub contact_name: Option<String>,
    #[serde(default)]
    pub location: Option<String>,
    /// Unix seconds after which charged work answers 402 `account_expired`; `None` never expires.
    #[serde(default)]
    pub valid_to: Option<i64>,
}

/// Where a video's narration comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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

/// What a job delivers: the script, the reviewable scenes, or the rendered MP4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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

/// The narration language of idea and blog sources (`en`/`vi` are accepted too, in any case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub enum Language {
    English,
    Vietnamese,
}

/// Reads any name [`Choice::parse`](crate::fields::Choice::parse) takes: a request body's
/// `Vietnamese`, `vi` or `VI` as well as the stored `Vietnamese`.
impl<'de> Deserialize<'de> for Language {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::fields::Choice;
        let s = std::borrow::Cow::<str>::deserialize(d)?;
        Language::parse(&s).ok_or_else(|| serde::de::Error::unknown_variant(&s, Language::NAMES))
    }
}

impl Language {
    /// The wire name (`English`, `Vietnamese`): the video's `language`, the document's, and the
    /// name a writer's prompt and a voice pick take.
    pub fn name(self) -> &'static str {
        match self {
            Language::English => "English",
            Language::Vietnamese => "Vietnamese",
        }
    }
}

/// The length of an idea or blog video: about 90 s, or up to about 3 minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum VideoLength {
    Short,
    Normal,
}

/// How an audio source's sound is treated before transcription.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdjustMode {
    #[serde(alias = "none")]
    Off,
    #[serde(alias = "normalise")]
    Normalize,
    Denoise,
    TrimSilence,
}

/// The `adjust` settings of an audio source, validated (ranges: `ingest::adjust`). The stored
/// form of `VideoRequest::adjust` and the object form of the request: every field is optional
/// there and takes its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Adjust {
    pub mode: AdjustMode,
    /// normalize: EBU R128 integrated loudness target (LUFS).
    #[schema(minimum = -30, maximum = -10)]
    pub target_lufs: f64,
    /// denoise: how far noise-only passages are pulled down.
    #[schema(minimum = 0, maximum = 1)]
    pub denoise_strength: f64,
    /// trim_silence: level (dBFS) below which is silence.
    #[schema(minimum = -80, maximum = -20)]
    pub silence_threshold_db: f64,
    /// trim_silence: shorter pauses are kept (ms).
    #[schema(minimum = 100, maximum = 5000)]
    pub min_silence_ms: f64,
    /// trim_silence: pause left on each side of a cut (ms).
    #[schema(minimum = 0, maximum = 1000)]
    pub keep_silence_ms: f64,
}

impl Default for Adjust {
    fn default() -> Self {
        Adjust {
            mode: AdjustMode::Normalize,
            target_lufs: -16.0,
            denoise_strength: 0.6,
            silence_threshold_db: -45.0,
            min_silence_ms: 600.0,
            keep_silence_ms: 150.0,
        }
    }
}

/// `adjust` as a client sends it: a mode name, or an object of settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum AdjustInput {
    Mode(AdjustMode),
    Settings(Adjust),
}

impl AdjustInput {
    /// The settings it stands for; `None` when the mode is `off`.
    pub fn settings(self) -> Option<Adjust> {
        let adjust = match self {
            AdjustInput::Mode(mode) => Adjust {
                mode,
                ..Adjust::default()
            },
            AdjustInput::Settings(a) => a,
        };
        (adjust.mode != AdjustMode::Off).then_some(adjust)
    }
}

/// Reads a stored `adjust`: today's [`Adjust`], or a row from before it was typed, which kept
/// the client's raw value (a mode name or a partial object). A row that no longer reads gets no
/// treatment rather than making the whole job unreadable.
fn stored_adjust<'de, D>(d: D) -> std::result::Result<Option<Adjust>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let Some(raw) = Option::<Value>::deserialize(d)? else {
        return Ok(None);
    };
    match serde_json::from_value::<AdjustInput>(raw) {
        Ok(input) => Ok(input.settings()),
        Err(e) => {
            tracing::warn!(error = %e, "a stored adjust no longer reads; it is ignored");
            Ok(None)
        }
    }
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
    /// Parsed once at `create_video`; never `off` (that is `None`).
    #[serde(default, deserialize_with = "stored_adjust")]
    pub adjust: Option<Adjust>,
    /// An uploaded `video_file`/`audio_file`, relative to the data directory
    /// (`uploads/{token}.{ext}`); the build task moves it into the video's folder.
    #[serde(default)]
    pub media_file: Option<String>,
    /// `Some(false)` when GStreamer could not read the upload at `create_video`: the build
    /// task fails at once with `media_decode_failed` instead of probing again.
    #[serde(default)]
    pub media_decodable: Option<bool>,
    /// The music bed asked for (`auto` when not given); copied into the document.
    #[serde(default)]
    pub music: crate::document::Music,
}

/// Where a job stands: `processing` until it is `completed` or `failed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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

/// A stored failure's code; one no longer in the table reads as `internal_error`, so the job
/// (and every list it is in) still reads.
fn stored_code<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
    let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
    Ok(Code::from_wire(&name).unwrap_or(Code::Internal))
}

/// Where a video job stands within `processing` or `completed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobStage {
    /// The scenes are built and can be reviewed and edited; `export_video` renders them.
    ScenesReadyForReview,
    /// The MP4 is being rendered.
    RenderingVideo,
}

/// Why a job failed: the same `{code, message}` in the status object and the webhook.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct JobError {
    /// A stable error code (see the spec's error table).
    #[schema(value_type = String, example = "narration_too_long")]
    #[serde(deserialize_with = "stored_code")]
    pub code: Code,
    /// A clear message for people; never internal paths or library text.
    pub message: String,
}

/// One job (a video, a written piece or a publish request): the status object's state and the
/// bookkeeping every kind shares, plus what only its kind has ([`JobPayload`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(from = "JobRow", into = "JobRow")]
pub struct Job {
    pub topic_id: String,
    pub account: String,
    pub output_type: OutputType,
    pub status: JobStatus,
    pub stage: Option<JobStage>,
    pub step: u8,
    pub progress: f64,
    pub notes: Option<String>,
    pub input_truncated_from: Option<usize>,
    pub review_url: Option<String>,
    pub video_url: Option<String>,
    pub error: Option<JobError>,
    pub metadata: Value,
    pub callback_url: Option<String>,
    pub idempotency_key: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    /// `video.processing` has been queued for delivery.
    pub processing_fired: bool,
    /// A terminal event (`completed`/`failed`) has been queued for this run.
    /// Export resets it so the rendered video fires `completed` again.
    pub terminal_fired: bool,
    pub title: String,
    /// Credits taken when the job was accepted; given back in the transaction that records
    /// a failure (then 0).
    pub credits_charged: i64,
    /// What the job makes, and the state only that kind of job has.
    pub payload: JobPayload,
}

/// What a job makes, with the state only that kind of job has.
#[derive(Debug, Clone)]
pub enum JobPayload {
    Video(VideoJob),
    Content(WrittenJob),
    Publish(PublishJob),
}

/// A video's own state.
#[derive(Debug, Clone, Default)]
pub struct VideoJob {
    /// The validated `create_video` request (absent only in rows older than it).
    pub request: Option<VideoRequest>,
    /// `export_video` was accepted once.
    pub export_requested: bool,
    /// The fingerprint ([`crate::document::VideoDocument::fingerprint`]) of the document
    /// `video_url` was rendered from: an export of the same document answers the snapshot, an
    /// export of an edited one renders again.
    pub rendered_document: Option<String>,
}

/// A written piece's own state.
#[derive(Debug, Clone, Default)]
pub struct WrittenJob {
    /// The writer stage reached (`details.status`).
    pub stage: Option<WriterStage>,
    /// Every writer stage reached so far, in order (`details.stages`).
    pub stages: Vec<StageMark>,
    /// What the job wrote, once it completed.
    pub written: Option<WrittenResult>,
}

/// A publish request's own state.
#[derive(Debug, Clone, Default)]
pub struct PublishJob {
    /// One result per platform, once the publisher reported (`result.posts[]`).
    pub posts: Vec<PostResult>,
}

impl Job {
    /// A new job of `account` in `processing` at step 1, made at `t`; the callers set what
    /// their kind starts with beyond that.
    pub fn new(topic_id: String, account: &str, payload: JobPayload, t: i64) -> Job {
        Job {
            topic_id,
            account: account.to_string(),
            output_type: OutputType::Text,
            status: JobStatus::Processing,
            stage: None,
            step: 1,
            progress: 0.0,
            notes: None,
            input_truncated_from: None,
            review_url: None,
            video_url: None,
            error: None,
            metadata: Value::Null,
            callback_url: None,
            idempotency_key: None,
            created_at: t,
            updated_at: t,
            processing_fired: false,
            terminal_fired: false,
            title: String::new(),
            credits_charged: 0,
            payload,
        }
    }

    /// What the job makes.
    pub fn kind(&self) -> JobType {
        match self.payload {
            JobPayload::Video(_) => JobType::Video,
            JobPayload::Content(_) => JobType::Content,
            JobPayload::Publish(_) => JobType::Publish,
        }
    }

    /// A video job's own state.
    pub fn video_job(&self) -> Option<&VideoJob> {
        match &self.payload {
            JobPayload::Video(v) => Some(v),
            _ => None,
        }
    }

    /// A video job's own state, to change.
    pub fn video_job_mut(&mut self) -> Option<&mut VideoJob> {
        match &mut self.payload {
            JobPayload::Video(v) => Some(v),
            _ => None,
        }
    }

    /// The `create_video` request of a video job.
    pub fn request(&self) -> Option<&VideoRequest> {
        self.video_job()?.request.as_ref()
    }

    /// A written-content job's own state.
    pub fn written_job(&self) -> Option<&WrittenJob> {
        match &self.payload {
            JobPayload::Content(w) => Some(w),
            _ => None,
        }
    }

    /// What a written-content job wrote, once it completed.
    pub fn written(&self) -> Option<&WrittenResult> {
        self.written_job()?.written.as_ref()
    }

    /// A publish job's results, one per platform (none for other jobs).
    pub fn posts(&self) -> &[PostResult] {
        match &self.payload {
            JobPayload::Publish(p) => &p.posts,
            _ => &[],
        }
    }
}

impl From<JobRow> for Job {
    fn from(r: JobRow) -> Job {
        let payload = match r.kind {
            JobType::Video => JobPayload::Video(VideoJob {
                request: r.request,
                export_requested: r.export_requested,
                rendered_document: r.rendered_document,
            }),
            JobType::Content => JobPayload::Content(WrittenJob {
                stage: r.writer_stage,
                stages: r.writer_stages,
                written: r.written,
            }),
            JobType::Publish => JobPayload::Publish(PublishJob { posts: r.posts }),
        };
        Job {
            topic_id: r.topic_id,
            account: r.account,
            output_type: r.output_type,
            status: r.status,
            stage: r.stage,
            step: r.step,
            progress: r.progress,
            notes: r.notes,
            input_truncated_from: r.input_truncated_from,
            review_url: r.review_url,
            video_url: r.video_url,
            error: r.error,
            metadata: r.metadata,
            callback_url: r.callback_url,
            idempotency_key: r.idempotency_key,
            created_at: r.created_at,
            updated_at: r.updated_at,
            processing_fired: r.processing_fired,
            terminal_fired: r.terminal_fired,
            title: r.title,
            credits_charged: r.credits_charged,
            payload,
        }
    }
}

impl From<Job> for JobRow {
    fn from(j: Job) -> JobRow {
        let kind = j.kind();
        let (video, written, publish) = match j.payload {
            JobPayload::Video(v) => (v, WrittenJob::default(), PublishJob::default()),
            JobPayload::Content(w) => (VideoJob::default(), w, PublishJob::default()),
            JobPayload::Publish(p) => (VideoJob::default(), WrittenJob::default(), p),
        };
        JobRow {
            topic_id: j.topic_id,
            account: j.account,
            kind,
            request: video.request,
            output_type: j.output_type,
            status: j.status,
            stage: j.stage,
            step: j.step,
            progress: j.progress,
            notes: j.notes,
            input_truncated_from: j.input_truncated_from,
            review_url: j.review_url,
            video_url: j.video_url,
            error: j.error,
            metadata: j.metadata,
            callback_url: j.callback_url,
            idempotency_key: j.idempotency_key,
            created_at: j.created_at,
            updated_at: j.updated_at,
            processing_fired: j.processing_fired,
            terminal_fired: j.terminal_fired,
            export_requested: video.export_requested,
            rendered_document: video.rendered_document,
            title: j.title,
            credits_charged: j.credits_charged,
            writer_stage: written.stage,
            writer_stages: written.stages,
            written: written.written,
            posts: publish.posts,
        }
    }
}

/// A job as stored: one flat JSON object, every kind's fields side by side (the row every
/// data directory already holds). [`Job`] reads and writes itself through it, so the rows are
/// the same bytes before and after the payload was split out.
#[derive(Serialize, Deserialize)]
struct JobRow {
    pub topic_id: String,
    pub account: String,
    /// What the job makes; rows from before written content are videos.
    #[serde(default)]
    pub kind: JobType,
    /// The validated `create_video` request; `None` for written content, whose request lives
    /// in its own folder's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<VideoRequest>,
    pub output_type: OutputType,
    pub status: JobStatus,
    #[serde(default)]
    pub stage: Option<JobStage>,
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
    /// `export_video` was accepted once.
    #[serde(default)]
    pub export_requested: bool,
    /// The fingerprint ([`crate::document::VideoDocument::fingerprint`]) of the document
    /// `video_url` was rendered from: an export of the same document answers the snapshot, an
    /// export of an edited one renders again.
    #[serde(default)]
    pub rendered_document: Option<String>,
    #[serde(default)]
    pub title: String,
    /// Credits taken when the job was accepted; given back in the transaction that records
    /// a failure (then 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub credits_charged: i64,
    /// Written content: the writer stage reached (`details.status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer_stage: Option<WriterStage>,
    /// Written content: every writer stage reached so far, in order (`details.stages`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writer_stages: Vec<StageMark>,
    /// Written content: what the job wrote, once it completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<WrittenResult>,
    /// Publish: one result per platform, once the publisher reported (`result.posts[]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub posts: Vec<PostResult>,
}

/// What one platform answered to a publish job (`result.posts[]` of its status object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PostResult {
    /// The platform, e.g. `youtube`.
    pub platform: String,
    pub success: bool,
    /// The public page of the post (the feed publisher's post page, or the platform's).
    #[schema(format = "uri")]
    pub post_url: Option<String>,
    /// The post's id on the platform.
    pub post_id: Option<String>,
    /// Why the platform refused the post, for people; `null` on success.
    pub error: Option<String>,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// The writer stages of a written-content job, in the order they are walked
/// (`details.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum WriterStage {
    Queued,
    Processing,
    Researching,
    #[serde(rename = "Deep research completed")]
    DeepResearchCompleted,
    #[serde(rename = "Checking media")]
    CheckingMedia,
    Completed,
}

impl WriterStage {
    /// `details.step` of the stage: 1 (queued) to 6 (completed).
    pub fn step(self) -> u8 {
        match self {
            WriterStage::Queued => 1,
            WriterStage::Processing => 2,
            WriterStage::Researching => 3,
            WriterStage::DeepResearchCompleted => 4,
            WriterStage::CheckingMedia => 5,
            WriterStage::Completed => 6,
        }
    }

    /// The progress shown at the stage.
    pub fn progress(self) -> f64 {
        match self {
            WriterStage::Queued => 0.0,
            WriterStage::Processing => 0.1,
            WriterStage::Researching => 0.25,
            WriterStage::DeepResearchCompleted => 0.5,
            WriterStage::CheckingMedia => 0.8,
            WriterStage::Completed => 1.0,
        }
    }
}

/// A writer stage and when it was reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StageMark {
    pub status: WriterStage,
    #[schema(format = DateTime)]
    pub at: String,
}

/// The format of a written piece (`content_type` of `create_content`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ContentType {
    Blog,
    Facebook,
    X,
    Linkedin,
}

impl ContentType {
    pub const NAMES: &'static [&'static str] = &["blog", "facebook", "x", "linkedin"];

    pub fn parse(s: &str) -> Option<ContentType> {
        match s {
            "blog" => Some(ContentType::Blog),
            "facebook" => Some(ContentType::Facebook),
            "x" => Some(ContentType::X),
            "linkedin" => Some(ContentType::Linkedin),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ContentType::Blog => "blog",
            ContentType::Facebook => "facebook",
            ContentType::X => "x",
            ContentType::Linkedin => "linkedin",
        }
    }
}

/// An image picked for a written piece.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PieceImage {
    /// A public URL of the image.
    #[schema(format = "uri")]
    pub url: String,
    /// What it shows (its library or stock title).
    pub title: String,
    /// Where it came from: `reelsmith_library`, `pexels`, …
    pub source: String,
    /// The section or post it illustrates (its heading or keyword).
    pub for_part: String,
}

/// A written piece: the result of `create_content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ContentPiece {
    pub content_type: ContentType,
    pub language: Language,
    pub title: String,
    /// The whole piece as Markdown (for x, the posts separated by blank lines).
    pub markdown: String,
    /// The piece as sanitised HTML (blog).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// x: the thread's posts, numbered, each at most 280 characters; other formats: empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub posts: Vec<String>,
    /// Images picked for the piece (Checking media).
    pub images: Vec<PieceImage>,
    /// Words of the piece (whitespace-separated).
    pub word_count: usize,
    /// Characters of the piece as posted (x: of the longest post).
    pub characters: usize,
    /// Which writer wrote it: `extractive` or `openai`.
    pub writer: String,
    /// The page it was read from, for a URL source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub source_url: Option<String>,
}

/// What a written-content job produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WrittenResult {
    /// `create_content`: the piece.
    Content(Box<ContentPiece>),
    /// `enhance_script`: the tightened script.
    Script(EnhancedScript),
}

/// The result of `enhance_script`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EnhancedScript {
    /// The tightened script, ready for `create_video` (80 to 500 words).
    pub script: String,
    pub words_before: usize,
    pub words_after: usize,
    /// Which writer tightened it: `extractive` or `openai`.
    pub writer: String,
}

impl Job {
    /// The spec's status object (without `request_id`, added by the API); also the webhook's
    /// `data`.
    pub fn status_object(&self) -> StatusObject {
        let written = self.written_job();
        StatusObject {
            object: StatusTag::Status,
            id: self.topic_id.clone(),
            topic_id: self.topic_id.clone(),
            kind: self.kind(),
            status: self.status,
            stage: self.stage,
            progress: (self.progress * 1000.0).round() / 1000.0,
            output_type: self.output_type,
            details: StatusDetails {
                step: self.step,
                status: written.and_then(|w| w.stage),
                notes: self.notes.clone(),
                input_truncated_from: self.input_truncated_from,
                stages: written.map(|w| w.stages.clone()).unwrap_or_default(),
            },
            result: StatusResult {
                review_url: self.review_url.clone(),
                video_url: self.video_url.clone(),
                content: match self.written() {
                    Some(WrittenResult::Content(piece)) => Some(piece.as_ref().clone()),
                    _ => None,
                },
                script: match self.written() {
                    Some(WrittenResult::Script(s)) => Some(s.clone()),
                    _ => None,
                },
                error: match (self.kind(), &self.error) {
                    (JobType::Content, Some(e)) => Some(e.message.clone()),
                    _ => None,
                },
                posts: match self.kind() {
                    JobType::Publish => Some(self.posts().to_vec()),
                    _ => None,
                },
                request_ids: None,
            },
            error: self.error.clone(),
            metadata: match &self.metadata {
                Value::Object(m) => m.clone(),
                _ => Map::new(),
            },
            created_at: crate::time::iso(self.created_at),
            updated_at: crate::time::iso(self.updated_at),
        }
    }
}

/// The `object` name of a [`StatusObject`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusTag {
    Status,
}

/// The kind of job a status object describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobType {
    #[default]
    Video,
    /// Written content (`create_content`, `enhance_script`).
    Content,
    /// A publish request (`publish`): its id is the request id, its result `posts[]`.
    Publish,
}

/// A job's status (`object: status`): the reply of `create_video`, `status` and
/// `export_video`, and the `data` of every webhook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StatusObject {
    pub object: StatusTag,
    /// The topic id.
    pub id: String,
    /// The topic id again (the spec names it both ways).
    pub topic_id: String,
    #[serde(rename = "type")]
    pub kind: JobType,
    pub status: JobStatus,
    /// The stage, when one applies.
    pub stage: Option<JobStage>,
    /// 0 to 1; at least 0.85 while rendering, 1 at scenes ready.
    #[schema(minimum = 0, maximum = 1)]
    pub progress: f64,
    pub output_type: OutputType,
    pub details: StatusDetails,
    pub result: StatusResult,
    /// `{code, message}` when the job failed, else `null`.
    pub error: Option<JobError>,
    /// The request's `metadata`, echoed.
    pub metadata: Map<String, Value>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// `details` of a status object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StatusDetails {
    /// The pipeline step reached (1 to 7; written content 1 to 6, one per writer stage).
    #[schema(minimum = 0, maximum = 7)]
    pub step: u8,
    /// Written content: the writer stage (Queued, Processing, Researching, Deep research
    /// completed, Checking media, Completed). Branch on the top-level `status`, not on this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<WriterStage>,
    /// What the job is doing now, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The original word count when idea or blog input was truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_truncated_from: Option<usize>,
    /// Written content: every writer stage reached so far, in order, with its time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageMark>,
}

/// `result` of a status object: the links the job has produced so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StatusResult {
    /// The review page (scene or script editor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub review_url: Option<String>,
    /// The rendered MP4, once there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub video_url: Option<String>,
    /// `create_content`: the written piece, once it is fully written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<ContentPiece>,
    /// `enhance_script`: the tightened script, once it is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<EnhancedScript>,
    /// Written content: why the job failed, for people (also in `error.message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Publish: one result per platform (empty until the publisher reported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub posts: Option<Vec<PostResult>>,
    /// A publish call polled by its own `id`: the request ids it made, whose `posts` are
    /// gathered above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_ids: Option<Vec<String>>,
}

/// Work a job waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// Steps 2–5: script, voice, media, scenes.
    Build,
    /// Steps 6–7: render the MP4.
    Render,
    /// Written content: read, research, write, pick media.
    Write,
    /// A publish request: hand the post to the publisher (at `not_before` when scheduled).
    Publish,
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
    /// Unix seconds before which no worker claims the entry (a scheduled publish); the entry
    /// lives in redb, so the schedule survives a restart or a crash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<i64>,
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
    /// Unix milliseconds of the next attempt, when set (a compressed schedule needs them);
    /// rows written before it existed use `next_at`.
    #[serde(default)]
    pub next_at_ms: Option<i64>,
}

impl Delivery {
    /// When the next attempt is due, unix milliseconds.
    pub(crate) fn due_at_ms(&self) -> i64 {
        self.next_at_ms.unwrap_or(self.next_at * 1000)
    }

    /// Where the retry schedule counts from, unix milliseconds: the event's creation (`seq`
    /// has it to the nanosecond), or a later `created_at` (a redelivery starts it again).
    pub(crate) fn created_at_ms(&self) -> i64 {
        ((self.seq / 1_000_000) as i64).max(self.created_at * 1000)
    }
}

// ---- The request fields these enums are read from (`fields::Choice`) -------------------------

impl crate::fields::Choice for Source {
    const NAMES: &'static [&'static str] = Source::NAMES;
    const CODE: crate::error::Code = crate::error::Code::InvalidSource;
    fn parse(s: &str) -> Option<Self> {
        Source::parse(s)
    }
}

impl crate::fields::Choice for OutputType {
    const NAMES: &'static [&'static str] = &["text", "scene", "video"];
    const CODE: crate::error::Code = crate::error::Code::InvalidOutputType;
    fn parse(s: &str) -> Option<Self> {
        OutputType::parse(s)
    }
}

impl crate::fields::Choice for Language {
    const NAMES: &'static [&'static str] = &["English", "Vietnamese"];
    const CODE: crate::error::Code = crate::error::Code::InvalidLanguage;
    fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "english" | "en" => Some(Language::English),
            "vietnamese" | "vi" => Some(Language::Vietnamese),
            _ => None,
        }
    }
}

impl crate::fields::Choice for VideoLength {
    const NAMES: &'static [&'static str] = &["short", "normal"];
    const CODE: crate::error::Code = crate::error::Code::InvalidVideoLength;
    fn parse(s: &str) -> Option<Self> {
        match s {
            "short" => Some(VideoLength::Short),
            "normal" => Some(VideoLength::Normal),
            _ => None,
        }
    }
}

impl crate::fields::Choice for ContentType {
    const NAMES: &'static [&'static str] = ContentType::NAMES;
    const CODE: crate::error::Code = crate::error::Code::InvalidContentType;
    fn parse(s: &str) -> Option<Self> {
        ContentType::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request_with(adjust: Value) -> VideoRequest {
        serde_json::from_value(json!({
            "source": "audio_url", "language": "English", "video_length": "short",
            "research_enabled": true, "faceless": false, "wait_for_render": false,
            "adjust": adjust,
        }))
        .unwrap()
    }

    #[test]
    fn stored_adjust_reads_typed_rows_and_raw_legacy_rows() {
        let typed = Adjust {
            mode: AdjustMode::TrimSilence,
            keep_silence_ms: 50.0,
            ..Adjust::default()
        };
        let row = request_with(serde_json::to_value(&typed).unwrap());
        assert_eq!(row.adjust, Some(typed));
        assert_eq!(
            request_with(json!("denoise")).adjust.map(|a| a.mode),
            Some(AdjustMode::Denoise)
        );
        let partial = request_with(json!({"mode": "normalize", "target_lufs": -20}));
        assert_eq!(partial.adjust.map(|a| a.target_lufs), Some(-20.0));
        assert_eq!(request_with(json!("off")).adjust, None);
        assert_eq!(request_with(json!(null)).adjust, None);
        // A row that no longer reads loses its treatment, not the job.
        assert_eq!(request_with(json!({"volume": 3})).adjust, None);
    }

    #[test]
    fn a_stored_row_reads_its_stage_and_failure_code_as_enums_and_writes_them_back_unchanged() {
        let row = json!({
            "topic_id": "t1", "account": "a", "output_type": "video", "status": "failed",
            "stage": "rendering_video", "step": 6, "progress": 0.9, "created_at": 0,
            "updated_at": 0,
            "error": { "code": "narration_too_long", "message": "The narration is too long." },
        });
        let job: Job = serde_json::from_value(row.clone()).unwrap();
        assert_eq!(job.stage, Some(JobStage::RenderingVideo));
        assert_eq!(
            job.error.as_ref().map(|e| e.code),
            Some(Code::NarrationTooLong)
        );
        let written = serde_json::to_value(&job).unwrap();
        assert_eq!(written["stage"], row["stage"]);
        assert_eq!(written["error"], row["error"]);
        let mut unknown = row;
        unknown["error"]["code"] = json!("no_such_code");
        let job: Job = serde_json::from_value(unknown).unwrap();
        assert_eq!(job.error.map(|e| e.code), Some(Code::Internal));
    }

    /// A publish job's stored row, every field as `JobRow` writes it.
    fn publish_row() -> Value {
        json!({
            "topic_id": "pub_1", "account": "a", "kind": "publish", "output_type": "text",
            "status": "completed", "stage": null, "step": 2, "progress": 1.0, "notes": null,
            "input_truncated_from": null, "review_url": null, "video_url": null, "error": null,
            "metadata": {"k": "v"}, "callback_url": null, "idempotency_key": null,
            "created_at": 1, "updated_at": 2, "processing_fired": false, "terminal_fired": true,
            "export_requested": false, "rendered_document": null, "title": "",
            "credits_charged": 3,
            "posts": [{"platform": "youtube", "success": true, "post_url": "https://x.test/p",
                       "post_id": "p1", "error": null}],
        })
    }

    #[test]
    fn a_stored_job_row_reads_into_its_payload_and_writes_back_the_same_json() {
        let row = publish_row();
        let job: Job = serde_json::from_value(row.clone()).unwrap();
        assert_eq!(job.kind(), JobType::Publish);
        assert_eq!(job.posts()[0].post_id.as_deref(), Some("p1"));
        assert!(job.request().is_none() && job.written().is_none());
        assert_eq!(serde_json::to_value(&job).unwrap(), row);
    }

    #[test]
    fn a_row_without_a_kind_is_a_video_and_keeps_its_render_state() {
        let mut row = publish_row();
        let fields = row.as_object_mut().unwrap();
        fields.remove("kind");
        fields.remove("posts");
        fields.insert("export_requested".into(), json!(true));
        fields.insert("rendered_document".into(), json!("fp1"));
        let job: Job = serde_json::from_value(row.clone()).unwrap();
        assert_eq!(job.kind(), JobType::Video);
        let video = job.video_job().unwrap();
        assert!(video.export_requested);
        assert_eq!(video.rendered_document.as_deref(), Some("fp1"));
        assert!(job.posts().is_empty());
        row["kind"] = json!("video");
        assert_eq!(serde_json::to_value(&job).unwrap(), row);
    }

    #[test]
    fn a_content_job_says_content_with_its_writer_stage_and_failure() {
        let mut job: Job = serde_json::from_value(json!({
            "topic_id": "t2", "account": "a", "kind": "content", "output_type": "text",
            "status": "failed", "step": 3, "progress": 0.25, "created_at": 0, "updated_at": 0,
            "writer_stage": "Researching",
            "writer_stages": [{"status": "Queued", "at": "1970-01-01T00:00:00Z"},
                              {"status": "Researching", "at": "1970-01-01T00:00:01Z"}],
        }))
        .unwrap();
        assert!(job.request().is_none());
        job.error = Some(JobError {
            code: Code::ContentFetchFailed,
            message: "The page at the URL could not be reached.".into(),
        });
        let v = serde_json::to_value(job.status_object()).unwrap();
        assert_eq!(v["type"], "content");
        assert_eq!(v["details"]["status"], "Researching");
        assert_eq!(v["details"]["stages"][1]["status"], "Researching");
        assert_eq!(
            v["result"]["error"],
            "The page at the URL could not be reached."
        );
        assert_eq!(v["error"]["code"], "content_fetch_failed");
        // Stored rows of content jobs carry no video request.
        let row = serde_json::to_value(&job).unwrap();
        assert!(row.get("request").is_none());
    }

    #[test]
    fn the_status_object_has_the_specs_fields_and_omits_empty_results() {
        let mut job: Job = serde_json::from_value(json!({
            "topic_id": "t1", "account": "a", "output_type": "scene", "status": "processing",
            "step": 2, "progress": 0.12345, "created_at": 0, "updated_at": 60,
            "request": {
                "source": "text", "language": "English", "video_length": "short",
                "research_enabled": true, "faceless": false, "wait_for_render": false,
            },
        }))
        .unwrap();
        job.metadata = json!({"k": 1});
        let v = serde_json::to_value(job.status_object()).unwrap();
        assert_eq!(v["object"], "status");
        assert_eq!(
            (v["id"].as_str(), v["topic_id"].as_str()),
            (Some("t1"), Some("t1"))
        );
        assert_eq!(v["type"], "video");
        assert_eq!(v["progress"], 0.123);
        assert_eq!(v["stage"], Value::Null);
        assert_eq!(v["error"], Value::Null);
        assert_eq!(v["details"], json!({"step": 2}));
        assert_eq!(v["result"], json!({}));
        assert_eq!(v["metadata"], json!({"k": 1}));
        assert_eq!(v["updated_at"], "1970-01-01T00:01:00Z");
        job.review_url = Some("https://r".into());
        job.input_truncated_from = Some(1200);
        let v = serde_json::to_value(job.status_object()).unwrap();
        assert_eq!(v["result"], json!({"review_url": "https://r"}));
        assert_eq!(v["details"]["input_truncated_from"], 1200);
    }
}
