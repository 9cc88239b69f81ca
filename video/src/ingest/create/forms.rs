//! `create_video`'s bodies as a client sends them, one type per wire shape, each read as a
//! [`Body`]: its schema is derived, and reading checks a body against that same schema.
//!
//! - The JSON body, [`CreateVideoJson`] (component `CreateVideoRequest`), is one form per
//!   `source` (default `text`) and a form that takes its text from a production plan entry.
//!   Each form requires its own text field and types the fields whose rules depend on the
//!   source: `output_type` without `text` for a script, `faceless` only `false` for a video,
//!   `adjust` only `off` for a source that is not audio, `language` and `video_length` only for
//!   an idea or a blog post (other forms do not name them, so they are ignored).
//! - The multipart form, [`CreateVideoUpload`] beside its file ([`CreateVideoForm`]), is for the
//!   sources `video_file` and `audio_file`.
//!
//! Both become a [`CreateVideoRequest`], checked by the rules between fields that a schema does
//! not carry ([`CreateVideoRequest::checked`]).

use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};

use super::{
    BLOG_MAX_WORDS, BLOG_MIN_WORDS, CreateVideoRequest, IDEA_MAX_WORDS, IDEA_MIN_WORDS,
    SCRIPT_MAX_WORDS, SCRIPT_MIN_WORDS,
};
use crate::build::script::{MAX_SPEECH_SECS, MAX_WORD_CHARS};
use foundation::document::Music;
use foundation::error::{Code, Error, Result};
use foundation::fields::Body;
use foundation::model::{AdjustInput, Language, OutputType, Source, VideoLength};

/// The codes of fields whose wrong type or unknown name has a code of its own; every other field
/// answers `invalid_field`.
const CODES: &[(&str, Code)] = &[
    ("source", Code::InvalidSource),
    ("output_type", Code::InvalidOutputType),
    ("language", Code::InvalidLanguage),
    ("video_length", Code::InvalidVideoLength),
    ("research_enabled", Code::InvalidResearchEnabled),
    ("wait_for_render", Code::InvalidWaitForRender),
    ("faceless", Code::InvalidFaceless),
    ("adjust", Code::InvalidAdjust),
    ("music", Code::InvalidMusic),
    ("metadata", Code::InvalidMetadata),
    ("topic_id", Code::InvalidTopicId),
];

/// The body of `POST /v1/create_video` as JSON: one form per `source` (default `text`), each
/// requiring its own text field. Sources `video_file` and `audio_file` are not in a JSON body's
/// `source`: they need the multipart/form-data form (as JSON they answer 415).
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(as = CreateVideoRequest)]
pub enum CreateVideoJson {
    Text(CreateVideoText),
    Idea(CreateVideoIdea),
    Blog(CreateVideoBlog),
    VideoUrl(CreateVideoVideoUrl),
    AudioUrl(CreateVideoAudioUrl),
    PlanEntry(CreateVideoPlanEntry),
}

/// Each form's `source`: only its own names, so a generated client and the reader tell the
/// forms apart by it. Each is a [`wire_enum!`](foundation::document::wire_enum) turned into the
/// [`Source`] it names.
macro_rules! sources {
    ($($(#[$doc:meta])* $name:ident { $($variant:ident = $wire:tt),+ })+) => {$(
        foundation::document::wire_enum! {
            $(#[$doc])*
            pub enum $name { $($variant = $wire),+ }
        }

        impl From<$name> for Source {
            fn from(s: $name) -> Source {
                match s { $($name::$variant => Source::$variant),+ }
            }
        }
    )+};
}

sources! {
    /// A script, narrated as written.
    TextSource { Text = "text" }
    /// An idea, written into a script.
    IdeaSource { Idea = "idea" }
    /// A blog post, written into a script.
    BlogSource { Blog = "blog" }
    /// A video at a public URL.
    VideoUrlSource { VideoUrl = "video_url" }
    /// A recording at a public URL.
    AudioUrlSource { AudioUrl = "audio_url" }
    /// A production plan entry's script (`text`) or idea (`idea`).
    PlanSource { Text = "text", Idea = "idea" }
    /// A video or a recording uploaded with the request.
    UploadSource { VideoFile = "video_file", AudioFile = "audio_file" }
}

foundation::document::wire_enum! {
    /// What a script delivers: the reviewable scenes or the rendered MP4 (the script is already
    /// there, so `text` is not available).
    pub enum ScriptOutput {
        Scene = "scene",
        Video = "video",
    }
}

impl From<ScriptOutput> for OutputType {
    fn from(o: ScriptOutput) -> OutputType {
        match o {
            ScriptOutput::Scene => OutputType::Scene,
            ScriptOutput::Video => OutputType::Video,
        }
    }
}

foundation::document::wire_enum! {
    /// `off`, the one treatment a source that is not audio takes.
    pub enum AdjustOffMode {
        #[serde(alias = "none")]
        Off = "off",
    }
}

/// `adjust` of a source that is not audio: only `off`, as a word or as `{"mode": "off"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum AdjustOff {
    Mode(AdjustOffMode),
    Settings(AdjustOffSettings),
}

/// The object form of [`AdjustOff`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdjustOffSettings {
    pub mode: AdjustOffMode,
}

/// Any JSON object, echoed back in the status object; at most 16 KiB as JSON.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ToSchema)]
#[schema(value_type = Object)]
pub struct Metadata(pub Map<String, Value>);

/// What every form takes besides its source, its text and the fields whose rules depend on the
/// source.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ToSchema)]
pub struct VideoOptions {
    /// idea/blog only (default true); ignored for other sources.
    #[schema(default = true)]
    pub research_enabled: Option<bool>,
    /// Default false.
    #[schema(default = false)]
    pub wait_for_render: Option<bool>,
    #[schema(schema_with = crate::render::sound::library::schema)]
    pub music: Option<Music>,
    #[schema(schema_with = super::callback_url_schema)]
    pub callback_url: Option<String>,
    pub metadata: Option<Metadata>,
    /// source=idea: a template id of `GET /v1/foundation_videos`; the video follows the
    /// template (its scenes in order, the idea after the hook). Any other source answers 400
    /// `invalid_template`, as does an unknown template.
    #[schema(pattern = "^[a-z0-9-]+$")]
    pub template: Option<String>,
}

/// A script, narrated verbatim.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct CreateVideoText {
    /// Default `text`.
    pub source: Option<TextSource>,
    /// Default `scene`.
    pub output_type: Option<ScriptOutput>,
    /// Every scene B-roll, no narrator (default false).
    pub faceless: Option<bool>,
    pub adjust: Option<AdjustOff>,
    #[schema(schema_with = script_text_schema)]
    pub script_text: String,
    /// A production plan entry of the account: the video is made under its topic id.
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: Option<String>,
    #[serde(flatten)]
    pub options: VideoOptions,
}

/// An idea, written into a script first.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct CreateVideoIdea {
    pub source: IdeaSource,
    #[schema(schema_with = idea_text_schema)]
    pub idea_text: String,
    #[serde(flatten)]
    pub written: WrittenOptions,
    #[serde(flatten)]
    pub options: VideoOptions,
}

/// A blog post, written into a script first.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct CreateVideoBlog {
    pub source: BlogSource,
    #[schema(schema_with = blog_text_schema)]
    pub blog_text: String,
    #[serde(flatten)]
    pub written: WrittenOptions,
    #[serde(flatten)]
    pub options: VideoOptions,
}

/// What an idea and a blog post take besides their text: both are written into a script, in a
/// language and to a length.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct WrittenOptions {
    /// Default `scene`; `text` stops at the script.
    pub output_type: Option<OutputType>,
    /// Default `English` (`en` and `vi` are read too).
    pub language: Option<Language>,
    /// Default `short`.
    pub video_length: Option<VideoLength>,
    /// Every scene B-roll, no narrator (default false; not with output_type `text`).
    pub faceless: Option<bool>,
    pub adjust: Option<AdjustOff>,
    /// A production plan entry of the account: the video is made under its topic id.
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: Option<String>,
}

/// A video at a public URL: its speech becomes the narration, its picture the narrator.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct CreateVideoVideoUrl {
    pub source: VideoUrlSource,
    /// Default `scene`; `text` stops at the transcript.
    pub output_type: Option<OutputType>,
    /// Not available for a video source.
    #[schema(schema_with = no_faceless_schema)]
    pub faceless: Option<bool>,
    pub adjust: Option<AdjustOff>,
    #[schema(schema_with = media_url_schema)]
    pub video_url: String,
    /// A production plan entry of the account: the video is made under its topic id.
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: Option<String>,
    #[serde(flatten)]
    pub options: VideoOptions,
}

/// A recording at a public URL: its speech becomes the narration.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct CreateVideoAudioUrl {
    pub source: AudioUrlSource,
    /// Default `scene`; `text` stops at the transcript.
    pub output_type: Option<OutputType>,
    /// Every scene B-roll, no narrator (default false; not with output_type `text`).
    pub faceless: Option<bool>,
    /// Treatment of the recording's sound before it is transcribed.
    pub adjust: Option<AdjustInput>,
    #[schema(schema_with = media_url_schema)]
    pub audio_url: String,
    /// A production plan entry of the account: the video is made under its topic id.
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: Option<String>,
    #[serde(flatten)]
    pub options: VideoOptions,
}

/// A production plan entry's script (source `text`, the default) or idea (source `idea`),
/// taken when the body has no `script_text` or `idea_text` of its own.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct CreateVideoPlanEntry {
    /// Default `text`.
    pub source: Option<PlanSource>,
    /// Default `scene`; `text` (an idea's script) needs source `idea`.
    pub output_type: Option<OutputType>,
    /// Every scene B-roll, no narrator (default false; not with output_type `text`).
    pub faceless: Option<bool>,
    pub adjust: Option<AdjustOff>,
    /// The entry's topic id: the video is made under it (404 `topic_not_found` when the account
    /// has no such entry, 409 `topic_exists` when it already has a video, 409
    /// `script_not_ready` for source text when the entry has no script).
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: String,
    #[serde(flatten)]
    pub options: VideoOptions,
}

/// The fields of the multipart form, for the sources `video_file` and `audio_file` (booleans and
/// `metadata` as JSON text).
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct CreateVideoUpload {
    pub source: UploadSource,
    /// Default `scene`; `text` stops at the transcript.
    pub output_type: Option<OutputType>,
    /// Not available for an uploaded source.
    #[schema(schema_with = no_faceless_schema)]
    pub faceless: Option<bool>,
    /// Treatment of an uploaded recording's sound before it is transcribed; only `off` for a
    /// video.
    pub adjust: Option<AdjustInput>,
    /// A production plan entry of the account: the video is made under its topic id.
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: Option<String>,
    #[serde(flatten)]
    pub options: VideoOptions,
}

/// The multipart form of `create_video`: its fields and the one media file (read apart from
/// the fields, so never deserialised here).
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct CreateVideoForm {
    #[serde(flatten)]
    pub fields: CreateVideoUpload,
    /// source=video_file: the video, at most 100 MB and 5 minutes.
    #[schema(value_type = Option<String>, format = Binary)]
    pub video_file: Option<()>,
    /// source=audio_file: the audio, at most 100 MB and 5 minutes.
    #[schema(value_type = Option<String>, format = Binary)]
    pub audio_file: Option<()>,
}

impl Body for CreateVideoJson {
    type Valid = CreateVideoRequest;
    const CODES: &'static [(&'static str, Code)] = CODES;
    const REQUIRED_LAST: bool = true;

    /// The form `source` names, by the text field only that form requires; a plan entry's form
    /// when a script or idea source sends `topic_id` without its text.
    fn form(sent: &Map<String, Value>) -> Result<Option<&'static str>> {
        let source = source_sent(sent)?;
        let field = match source {
            Source::Text => "script_text",
            Source::Idea => "idea_text",
            Source::Blog => "blog_text",
            Source::VideoUrl => "video_url",
            Source::AudioUrl => "audio_url",
            Source::VideoFile | Source::AudioFile => return Err(needs_multipart(source)),
        };
        let given = |name: &str| sent.get(name).is_some_and(|v| !v.is_null());
        let from_plan =
            matches!(source, Source::Text | Source::Idea) && !given(field) && given("topic_id");
        Ok(Some(if from_plan { "topic_id" } else { field }))
    }

    fn validate(self) -> Result<CreateVideoRequest> {
        let request = match self {
            CreateVideoJson::Text(f) => f.request(),
            CreateVideoJson::Idea(f) => f.request(),
            CreateVideoJson::Blog(f) => f.request(),
            CreateVideoJson::VideoUrl(f) => f.request(),
            CreateVideoJson::AudioUrl(f) => f.request(),
            CreateVideoJson::PlanEntry(f) => f.request(),
        };
        request.checked()
    }
}

impl Body for CreateVideoUpload {
    type Valid = CreateVideoRequest;
    const CODES: &'static [(&'static str, Code)] = CODES;
    const REQUIRED_LAST: bool = true;

    fn validate(self) -> Result<CreateVideoRequest> {
        let mut request = self.options.request(self.source.into());
        request.output_type = self.output_type;
        request.faceless = self.faceless;
        request.adjust = self.adjust.and_then(AdjustInput::settings);
        request.topic_id = self.topic_id;
        request.checked()
    }
}

/// `source` as sent: absent is `text`, another type `invalid_field`, an unknown name
/// `invalid_source`.
fn source_sent(sent: &Map<String, Value>) -> Result<Source> {
    match sent.get("source") {
        None | Some(Value::Null) => Ok(Source::Text),
        Some(Value::String(s)) => Source::NAMES
            .iter()
            .find(|n| n.eq_ignore_ascii_case(s))
            .and_then(|n| Source::parse(n))
            .ok_or_else(|| {
                Error::new(
                    Code::InvalidSource,
                    format!("`source` must be one of: {}.", Source::NAMES.join(", ")),
                )
                .param("source")
            }),
        Some(_) => {
            Err(Error::new(Code::InvalidField, "`source` must be a string.").param("source"))
        }
    }
}

/// A file source sent as JSON: 415, the file needs the multipart form.
pub(super) fn needs_multipart(source: Source) -> Error {
    let field = if source == Source::VideoFile {
        "video_file"
    } else {
        "audio_file"
    };
    Error::new(
        Code::UnsupportedMediaType,
        format!("source {field} needs a multipart/form-data request with the file in `{field}`."),
    )
    .param(field)
}

impl VideoOptions {
    /// A request of `source` with these options and nothing else set.
    fn request(self, source: Source) -> CreateVideoRequest {
        CreateVideoRequest {
            source: Some(source),
            research_enabled: self.research_enabled,
            wait_for_render: self.wait_for_render,
            music: self.music,
            callback_url: self.callback_url,
            metadata: self.metadata.map(|m| m.0),
            template: self.template,
            ..CreateVideoRequest::default()
        }
    }
}

/// The adjustment a source that is not audio asks for: none.
fn no_adjust(_: Option<AdjustOff>) -> Option<foundation::model::Adjust> {
    None
}

impl CreateVideoText {
    fn request(self) -> CreateVideoRequest {
        CreateVideoRequest {
            output_type: self.output_type.map(OutputType::from),
            faceless: self.faceless,
            adjust: no_adjust(self.adjust),
            script_text: Some(self.script_text),
            topic_id: self.topic_id,
            ..self.options.request(Source::Text)
        }
    }
}

impl CreateVideoIdea {
    fn request(self) -> CreateVideoRequest {
        CreateVideoRequest {
            idea_text: Some(self.idea_text),
            ..self
                .written
                .request(self.options.request(self.source.into()))
        }
    }
}

impl CreateVideoBlog {
    fn request(self) -> CreateVideoRequest {
        CreateVideoRequest {
            blog_text: Some(self.blog_text),
            ..self
                .written
                .request(self.options.request(self.source.into()))
        }
    }
}

impl WrittenOptions {
    /// `request` with these options.
    fn request(self, request: CreateVideoRequest) -> CreateVideoRequest {
        CreateVideoRequest {
            output_type: self.output_type,
            language: self.language,
            video_length: self.video_length,
            faceless: self.faceless,
            adjust: no_adjust(self.adjust),
            topic_id: self.topic_id,
            ..request
        }
    }
}

impl CreateVideoVideoUrl {
    fn request(self) -> CreateVideoRequest {
        CreateVideoRequest {
            output_type: self.output_type,
            faceless: self.faceless,
            adjust: no_adjust(self.adjust),
            video_url: Some(self.video_url),
            topic_id: self.topic_id,
            ..self.options.request(self.source.into())
        }
    }
}

impl CreateVideoAudioUrl {
    fn request(self) -> CreateVideoRequest {
        CreateVideoRequest {
            output_type: self.output_type,
            faceless: self.faceless,
            adjust: self.adjust.and_then(AdjustInput::settings),
            audio_url: Some(self.audio_url),
            topic_id: self.topic_id,
            ..self.options.request(self.source.into())
        }
    }
}

impl CreateVideoPlanEntry {
    fn request(self) -> CreateVideoRequest {
        let source = self.source.map_or(Source::Text, Source::from);
        CreateVideoRequest {
            output_type: self.output_type,
            faceless: self.faceless,
            adjust: no_adjust(self.adjust),
            topic_id: Some(self.topic_id),
            ..self.options.request(source)
        }
    }
}

/// Whitespace as [`word_count`](crate::build::script::word_count) splits on (Unicode
/// `White_Space`), as a regex class.
const WS: &str =
    "[\\t\\n\\u000B\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";
/// Anything but [`WS`].
const WORD_CHAR: &str = "[^\\t\\n\\u000B\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";

/// A pattern for a text of `min` words or more (at most `max` when given), counted as
/// [`word_count`](crate::build::script::word_count) does.
fn words_pattern(min: usize, max: Option<usize>) -> String {
    let max = max.map_or(String::new(), |m| (m - 1).to_string());
    format!(
        "^{WS}*({WORD_CHAR}+{WS}+){{{},{max}}}{WORD_CHAR}+{WS}*$",
        min - 1
    )
}

/// A required text of `min` words or more (at most `max` when given).
fn words_schema(min: usize, max: Option<usize>, about: String) -> utoipa::openapi::Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .pattern(Some(words_pattern(min, max)))
        .description(Some(about))
        .build()
}

fn script_text_schema() -> utoipa::openapi::Object {
    words_schema(
        SCRIPT_MIN_WORDS,
        Some(SCRIPT_MAX_WORDS),
        format!(
            "The narration, {SCRIPT_MIN_WORDS} to {SCRIPT_MAX_WORDS} words, used verbatim; each spoken word at most {MAX_WORD_CHARS} characters (400 `invalid_field`). Narration past {MAX_SPEECH_SECS:.0} s, measured as it is spoken, fails the job with `narration_too_long`."
        ),
    )
}

fn idea_text_schema() -> utoipa::openapi::Object {
    words_schema(
        IDEA_MIN_WORDS,
        None,
        format!(
            "At least {IDEA_MIN_WORDS} words; longer than {IDEA_MAX_WORDS} is cut at {IDEA_MAX_WORDS}."
        ),
    )
}

fn blog_text_schema() -> utoipa::openapi::Object {
    words_schema(
        BLOG_MIN_WORDS,
        None,
        format!(
            "At least {BLOG_MIN_WORDS} words; longer than {BLOG_MAX_WORDS} is cut at {BLOG_MAX_WORDS}."
        ),
    )
}

/// `video_url` and `audio_url`.
fn media_url_schema() -> utoipa::openapi::Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .format(Some(utoipa::openapi::SchemaFormat::Custom("uri".into())))
        .pattern(Some("^[Hh][Tt][Tt][Pp][Ss]?://"))
        .description(Some("A public http(s) URL, at most 5 minutes of media."))
        .build()
}

/// `faceless` of a source with a picture of its own: only `false`.
fn no_faceless_schema() -> utoipa::openapi::Object {
    let boolean = ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::Boolean))
        .description(Some(
            "Not available for this source (400 `invalid_faceless`).",
        ))
        .build();
    foundation::schema::constant(boolean, Value::Bool(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body::read;
    use foundation::model::{Adjust, AdjustMode};
    use serde_json::json;

    fn refused<B: Body<Valid = CreateVideoRequest>>(body: Value) -> (Code, Option<String>) {
        let e = read::<B>(&body).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn the_json_body_is_one_form_per_source_each_requiring_its_text() {
        let root = serde_json::to_value(<CreateVideoJson as utoipa::PartialSchema>::schema());
        let forms: Vec<String> = root.unwrap()["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                f["$ref"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            forms,
            [
                "CreateVideoText",
                "CreateVideoIdea",
                "CreateVideoBlog",
                "CreateVideoVideoUrl",
                "CreateVideoAudioUrl",
                "CreateVideoPlanEntry"
            ]
        );
        let mut components = Vec::new();
        <CreateVideoJson as ToSchema>::schemas(&mut components);
        let required = |name: &str| {
            let (_, s) = components.iter().find(|(n, _)| n == name).unwrap();
            let all = serde_json::to_value(s).unwrap()["allOf"].clone();
            let own = all
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b.get("required").is_some());
            own.unwrap()["required"].clone()
        };
        assert_eq!(required("CreateVideoText"), json!(["script_text"]));
        assert_eq!(required("CreateVideoIdea"), json!(["source", "idea_text"]));
        assert_eq!(required("CreateVideoBlog"), json!(["source", "blog_text"]));
        assert_eq!(
            required("CreateVideoAudioUrl"),
            json!(["source", "audio_url"])
        );
        assert_eq!(required("CreateVideoPlanEntry"), json!(["topic_id"]));
        // Each form's `source` lists its wire names.
        let (_, upload) = components.iter().find(|(n, _)| n == "PlanSource").unwrap();
        assert_eq!(
            serde_json::to_value(upload).unwrap()["enum"],
            json!(["text", "idea"])
        );
    }

    #[test]
    fn each_form_reads_into_the_request_of_its_source() {
        let req = read::<CreateVideoJson>(&json!({
            "script_text": "A script.", "output_type": "VIDEO", "music": "none",
            "metadata": {"k": 1}, "wait_for_render": true,
        }))
        .unwrap();
        assert_eq!(req.source, Some(Source::Text));
        assert_eq!(req.script_text.as_deref(), Some("A script."));
        assert_eq!(req.output_type, Some(OutputType::Video));
        assert_eq!(req.music, Some(Music::Off));
        assert_eq!(
            (req.wait_for_render, req.metadata.unwrap()["k"].clone()),
            (Some(true), json!(1))
        );
        let req = read::<CreateVideoJson>(&json!({
            "source": "blog", "blog_text": "A post.", "video_length": "normal", "language": "vi",
        }))
        .unwrap();
        assert_eq!(req.source, Some(Source::Blog));
        assert_eq!(req.video_length, Some(VideoLength::Normal));
        assert_eq!(req.language, Some(Language::Vietnamese));
        let req = read::<CreateVideoJson>(&json!({
            "source": "video_url", "video_url": "https://media.example/v.mp4", "faceless": false,
        }))
        .unwrap();
        assert_eq!(
            req.video_url.as_deref(),
            Some("https://media.example/v.mp4")
        );
    }

    #[test]
    fn a_topic_id_without_the_sources_text_reads_the_plan_entry_form() {
        let req =
            read::<CreateVideoJson>(&json!({"source": "idea", "topic_id": "wcAbc1"})).unwrap();
        assert_eq!((req.source, req.idea_text), (Some(Source::Idea), None));
        assert_eq!(req.topic_id.as_deref(), Some("wcAbc1"));
        let req = read::<CreateVideoJson>(&json!({"topic_id": "wcAbc1", "script_text": "Mine."}))
            .unwrap();
        assert_eq!(req.script_text.as_deref(), Some("Mine."));
        assert_eq!(
            refused::<CreateVideoJson>(json!({"topic_id": "wc-1"})),
            (Code::InvalidTopicId, Some("topic_id".into()))
        );
        // A blog post has no plan entry form: its text is still asked for.
        assert_eq!(
            refused::<CreateVideoJson>(json!({"source": "blog", "topic_id": "wcAbc1"})),
            (Code::MissingField, Some("blog_text".into()))
        );
    }

    #[test]
    fn a_file_source_sent_as_json_needs_the_multipart_form() {
        assert_eq!(
            refused::<CreateVideoJson>(json!({"source": "audio_file"})),
            (Code::UnsupportedMediaType, Some("audio_file".into()))
        );
    }

    #[test]
    fn the_upload_form_takes_a_recordings_treatment_and_no_faceless() {
        let req = read::<CreateVideoUpload>(&json!({"source": "audio_file", "adjust": "denoise"}))
            .unwrap();
        assert_eq!(req.source, Some(Source::AudioFile));
        assert_eq!(
            req.adjust.map(|a| a.mode),
            Some(foundation::model::AdjustMode::Denoise)
        );
        for (body, code) in [
            (
                json!({"source": "video_file", "faceless": true}),
                Code::InvalidFaceless,
            ),
            (
                json!({"source": "video_file", "adjust": "denoise"}),
                Code::InvalidAdjust,
            ),
            (
                json!({"source": "audio_file", "adjust": {"target_lufs": -5}}),
                Code::InvalidAdjust,
            ),
            (json!({"source": "text"}), Code::InvalidSource),
        ] {
            assert_eq!(refused::<CreateVideoUpload>(body.clone()).0, code, "{body}");
        }
    }

    /// `adjust` as a `create_video` body of `source` reads it.
    fn adjust(v: &Value, source: Source) -> Result<Option<Adjust>> {
        let mut b = json!({ "source": source, "adjust": v });
        let (field, text) = match source {
            Source::Text => ("script_text", "A script."),
            Source::VideoUrl => ("video_url", "https://media.example/a.mp4"),
            Source::AudioUrl => ("audio_url", "https://media.example/a.m4a"),
            _ => return Ok(read::<CreateVideoUpload>(&b)?.adjust),
        };
        b[field] = json!(text);
        Ok(read::<CreateVideoJson>(&b)?.adjust)
    }

    #[test]
    fn adjust_reads_its_modes_and_ranges_for_an_audio_source_only() {
        let p = |v: Value, s| adjust(&v, s);
        assert_eq!(p(json!("off"), Source::VideoUrl).unwrap(), None);
        assert_eq!(
            p(json!("normalize"), Source::AudioUrl)
                .unwrap()
                .unwrap()
                .mode,
            AdjustMode::Normalize
        );
        let a = p(
            json!({"mode": "trim_silence", "min_silence_ms": 300, "keep_silence_ms": 50}),
            Source::AudioFile,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (a.mode, a.min_silence_ms, a.keep_silence_ms),
            (AdjustMode::TrimSilence, 300.0, 50.0)
        );
        for (v, s) in [
            (json!("normalize"), Source::VideoUrl),
            (json!({"mode": "denoise"}), Source::Text),
            (json!({"target_lufs": -5}), Source::AudioUrl),
            (json!({"target_lufs": "loud"}), Source::AudioUrl),
            (json!({"denoise_strength": 2}), Source::AudioUrl),
            (json!({"volume": 3}), Source::AudioUrl),
            (json!("louder"), Source::AudioUrl),
            (json!(3), Source::AudioUrl),
        ] {
            assert_eq!(
                p(v.clone(), s).unwrap_err().code,
                Code::InvalidAdjust,
                "{v}"
            );
        }
    }
}
