//! `create_video`: the request as a client sends it ([`CreateVideoRequest`], read through
//! [`Fields`] with the spec's per-field codes and `param`), and [`validate`], which applies
//! every rule and limit of the spec and turns it into an [`Accepted`] job or a client error
//! with the code DESIGN.md §3 names.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::build::script::{
    MAX_SPEECH_SECS, MAX_WORD_CHARS, overlong_word, spoken_words, word_count,
};
use foundation::config::{Mode, Settings};
use foundation::document::Music;
use foundation::error::{Code, Error, Result};
use foundation::fetch::{FetchError, Fetcher};
use foundation::fields::{Choice, Fields};
use foundation::ids;
use foundation::jobs::Accepted;
use foundation::language;
use foundation::model::{
    Adjust, AdjustInput, Language, OutputType, Source, VideoLength, VideoRequest,
};
use foundation::schema;

pub const SCRIPT_MIN_WORDS: usize = 80;
pub const SCRIPT_MAX_WORDS: usize = 500;
pub const IDEA_MIN_WORDS: usize = 5;
pub const IDEA_MAX_WORDS: usize = 1000;
pub const BLOG_MIN_WORDS: usize = 30;
pub const BLOG_MAX_WORDS: usize = 3000;
pub(crate) const METADATA_MAX_BYTES: usize = 16 * 1024;

/// The first `max` whitespace-separated words of `s`, cut at whitespace.
pub fn truncate_words(s: &str, max: usize) -> &str {
    let mut seen = 0;
    let mut in_word = false;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            if in_word {
                seen += 1;
                if seen == max {
                    return &s[..i];
                }
            }
            in_word = false;
        } else {
            in_word = true;
        }
    }
    s
}

/// The body of `POST /v1/create_video` (JSON, or the fields of the multipart form).
///
/// [`CreateVideoRequest::read`] checks each field's type and value and the rules between
/// fields that need nothing outside the body; [`validate`] then checks URLs and uploads.
///
/// Its derived schema is the field list the multipart form flattens (`CreateVideoFields`); the
/// JSON body is documented by [`CreateVideoJson`], which says the rules between fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(as = CreateVideoFields)]
pub struct CreateVideoRequest {
    /// Where the narration comes from (default `text`).
    pub source: Option<Source>,
    /// source=text: the narration, 80 to 500 words, used verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1)]
    pub script_text: Option<String>,
    /// source=idea: 5 to 1000 words; longer input is cut at 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1)]
    pub idea_text: Option<String>,
    /// source=blog: 30 to 3000 words; longer input is cut at 3000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1)]
    pub blog_text: Option<String>,
    /// source=video_url: a public http(s) URL, at most 5 minutes of media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub video_url: Option<String>,
    /// source=audio_url: a public http(s) URL, at most 5 minutes of media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub audio_url: Option<String>,
    /// `text`, `scene` (default) or `video`; `text` is not available for source=text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_type: Option<OutputType>,
    /// idea/blog only (default English); ignored for other sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    /// idea/blog only (default short); ignored for other sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_length: Option<VideoLength>,
    /// idea/blog only (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub research_enabled: Option<bool>,
    /// Every scene B-roll, no narrator (default false): output scene or video, sources text,
    /// idea, blog and audio_url.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faceless: Option<bool>,
    /// Treatment of an audio source's sound; anything but `off` needs an audio source. Read, it
    /// is never `off` (that reads as `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<AdjustInput>)]
    pub adjust: Option<Adjust>,
    /// Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_render: Option<bool>,
    /// The music bed: `auto` (default; a library track chosen by the script's mood), `none`
    /// (narration only) or a track id of the library (`assets/music/music.json`); anything
    /// else is 400 `invalid_music`. The mix is published at −14 LUFS, true peak ≤ −1 dBTP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub music: Option<Music>,
    /// Webhook target: https in production, http or https in dev mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub callback_url: Option<String>,
    /// Echoed back in the status object; at most 16 KiB as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// A production plan entry of the account: the video takes its topic id, and a missing
    /// `script_text` (source text) or `idea_text` (source idea) is taken from the entry (its
    /// master script, its idea). 404 `topic_not_found` without such an entry, 409
    /// `topic_exists` when the topic already has a video, 409 `script_not_ready` when source
    /// text needs a script the entry does not have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: Option<String>,
    /// source=idea: a template id of `GET /v1/foundation_videos`; the video follows the
    /// template (its scenes in order, the idea after the hook). Documented in the JSON body's
    /// idea form; other sources answer 400 `invalid_template`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub template: Option<String>,
    /// Not on the wire: `script_text` was made here (a plan entry's script, or a template's),
    /// not sent. The 80-word minimum is a rule of what clients send; a template's script may be
    /// shorter.
    #[serde(skip)]
    pub script_from_plan: bool,
}

/// The multipart form of `create_video` (sources `video_file`, `audio_file`): the JSON body's
/// fields as form fields (booleans and `metadata` as JSON text), and the one media file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct CreateVideoForm {
    #[serde(flatten)]
    pub fields: CreateVideoRequest,
    /// source=video_file: the video, at most 100 MB and 5 minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = Binary)]
    pub video_file: Option<Vec<u8>>,
    /// source=audio_file: the audio, at most 100 MB and 5 minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = Binary)]
    pub audio_file: Option<Vec<u8>>,
}

/// The schema of `create_video`'s JSON body, component `CreateVideoRequest`: a `oneOf` by
/// `source`, one form per JSON source ([`json_sources`]), saying what [`CreateVideoRequest::read`]
/// and [`validate`] accept that the body alone can show (word counts, the text field each source
/// needs, `output_type`, `faceless` and `adjust` by source).
pub struct CreateVideoJson;

/// Whitespace as [`word_count`] splits on (Unicode `White_Space`), as a regex class.
const WS: &str =
    "[\\t\\n\\u000B\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";
/// Anything but [`WS`].
const WORD_CHAR: &str = "[^\\t\\n\\u000B\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";

/// A pattern for a text of `min` words or more (at most `max` when given), counted as
/// [`word_count`] does.
fn words_pattern(min: usize, max: Option<usize>) -> String {
    let max = max.map_or(String::new(), |m| (m - 1).to_string());
    format!(
        "^{WS}*({WORD_CHAR}+{WS}+){{{},{max}}}{WORD_CHAR}+{WS}*$",
        min - 1
    )
}

/// One JSON source's form: its name, the field it needs and that field's schema.
struct JsonSource {
    source: Source,
    field: &'static str,
    schema: Value,
}

/// The sources a JSON body can name (`video_file`/`audio_file` need the multipart form).
fn json_sources() -> Vec<JsonSource> {
    let text = |min, max: Option<usize>, about: String| {
        serde_json::json!({
            "type": "string",
            "pattern": words_pattern(min, max),
            "description": about,
        })
    };
    let url = |about: &str| {
        serde_json::json!({
            "type": "string",
            "format": "uri",
            "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://",
            "description": about,
        })
    };
    vec![
        JsonSource {
            source: Source::Text,
            field: "script_text",
            schema: text(
                SCRIPT_MIN_WORDS,
                Some(SCRIPT_MAX_WORDS),
                format!(
                    "The narration, {SCRIPT_MIN_WORDS} to {SCRIPT_MAX_WORDS} words, used verbatim; each spoken word at most {MAX_WORD_CHARS} characters (400 `invalid_field`). Narration past {MAX_SPEECH_SECS:.0} s, measured as it is spoken, fails the job with `narration_too_long`."
                ),
            ),
        },
        JsonSource {
            source: Source::Idea,
            field: "idea_text",
            schema: text(
                IDEA_MIN_WORDS,
                None,
                format!(
                    "At least {IDEA_MIN_WORDS} words; longer than {IDEA_MAX_WORDS} is cut at {IDEA_MAX_WORDS}."
                ),
            ),
        },
        JsonSource {
            source: Source::Blog,
            field: "blog_text",
            schema: text(
                BLOG_MIN_WORDS,
                None,
                format!(
                    "At least {BLOG_MIN_WORDS} words; longer than {BLOG_MAX_WORDS} is cut at {BLOG_MAX_WORDS}."
                ),
            ),
        },
        JsonSource {
            source: Source::VideoUrl,
            field: "video_url",
            schema: url("A public http(s) URL, at most 5 minutes of media."),
        },
        JsonSource {
            source: Source::AudioUrl,
            field: "audio_url",
            schema: url("A public http(s) URL, at most 5 minutes of media."),
        },
    ]
}

fn source_name(source: Source) -> Value {
    serde_json::to_value(source).expect("a source serializes")
}

/// `schema` or `null`.
fn nullable(mut schema: Value) -> Value {
    if let Some(Value::Array(branches)) = schema.get_mut("oneOf") {
        branches.push(serde_json::json!({ "type": "null" }));
        return schema;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some(t) if schema.get("const").is_none() => {
            schema["type"] = serde_json::json!([t, "null"]);
            if let Some(Value::Array(names)) = schema.get_mut("enum") {
                names.push(Value::Null);
            }
            schema
        }
        _ => serde_json::json!({ "oneOf": [schema, { "type": "null" }] }),
    }
}

/// The JSON form of one source.
fn json_form(form: &JsonSource) -> Value {
    use serde_json::json;
    let source = form.source;
    let mut properties = Map::new();
    let mut p = |k: &str, v: Value| {
        properties.insert(k.to_string(), v);
    };
    p(
        "source",
        json!({ "type": "string", "enum": [source_name(source)] }),
    );
    for field in json_sources().iter().map(|f| f.field) {
        p(field, json!({ "type": "string" }));
    }
    p(form.field, form.schema.clone());
    let output_types: Vec<&str> = <OutputType as Choice>::NAMES
        .iter()
        .copied()
        .filter(|t| source != Source::Text || *t != "text")
        .collect();
    p(
        "output_type",
        json!({ "type": "string", "enum": output_types, "default": "scene" }),
    );
    let (language, video_length) = language_and_length_schemas(source);
    p("language", language);
    p("video_length", video_length);
    p(
        "research_enabled",
        json!({ "type": "boolean", "default": true }),
    );
    p(
        "wait_for_render",
        json!({ "type": "boolean", "default": false }),
    );
    let faceless_ok = !matches!(
        source,
        Source::VideoUrl | Source::VideoFile | Source::AudioFile
    );
    p(
        "faceless",
        if faceless_ok {
            json!({ "type": "boolean", "default": false })
        } else {
            json!({ "type": "boolean", "const": false, "description": "Not available for this source." })
        },
    );
    p("adjust", adjust_schema(source));
    p(
        "callback_url",
        json!({
            "type": "string",
            "format": "uri",
            "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://",
            "description": "Webhook target: https (and a public host) in production, http or https in dev mode.",
        }),
    );
    p("metadata", schema::reference(METADATA_SCHEMA));
    p("music", crate::render::sound::library::schema());
    p("topic_id", topic_id_schema());
    if source == Source::Idea {
        p(
            "template",
            json!({
                "type": "string",
                "pattern": "^[a-z0-9-]+$",
                "description": "A template id of `GET /v1/foundation_videos`: the video follows the template, its scenes in order with the idea after the hook (400 `invalid_template` when there is no such template).",
            }),
        );
    }
    form_object(source, form.field, properties, faceless_ok)
}

/// `language` and `video_length`: chosen for an idea or a blog post, ignored otherwise.
fn language_and_length_schemas(source: Source) -> (Value, Value) {
    use serde_json::json;
    if matches!(source, Source::Idea | Source::Blog) {
        (
            json!({ "type": "string", "enum": ["English", "Vietnamese", "en", "vi"], "default": "English" }),
            json!({ "type": "string", "enum": <VideoLength as Choice>::NAMES, "default": "short" }),
        )
    } else {
        let ignored = json!({ "type": "string", "description": "Ignored for this source." });
        (ignored.clone(), ignored)
    }
}

/// `adjust`: the audio adjustments for an audio source, only `off` for any other.
fn adjust_schema(source: Source) -> Value {
    use serde_json::json;
    if source.is_audio() {
        return json!({ "$ref": format!("#/components/schemas/{}", AdjustInput::name()) });
    }
    json!({
        "description": "Only `off` for a source that is not audio.",
        "oneOf": [
            { "type": "string", "enum": ["off"] },
            schema::reference(ADJUST_OFF_SCHEMA),
        ],
    })
}

/// The component of `adjust`'s object form for a source that is not audio.
const ADJUST_OFF_SCHEMA: &str = "AdjustOff";
/// The component of `metadata`.
const METADATA_SCHEMA: &str = "Metadata";

/// The named objects the forms refer to.
fn form_components() -> Vec<(&'static str, Value)> {
    use serde_json::json;
    vec![
        (
            ADJUST_OFF_SCHEMA,
            json!({
                "type": "object",
                "required": ["mode"],
                "properties": { "mode": { "type": "string", "enum": ["off"] } },
                "additionalProperties": false,
            }),
        ),
        (
            METADATA_SCHEMA,
            json!({
                "type": "object",
                "description": format!("Any JSON object, echoed back in the status object; at most {METADATA_MAX_BYTES} bytes as JSON."),
            }),
        ),
    ]
}

/// The form's object schema over `properties`: `field` (and `source`, but for a bare script)
/// required, every other property nullable (`null` reads as absent), and no faceless text.
fn form_object(
    source: Source,
    field: &'static str,
    mut properties: Map<String, Value>,
    faceless_ok: bool,
) -> Value {
    use serde_json::json;
    let mut required = vec![field];
    if source != Source::Text {
        required.insert(0, "source");
    }
    for (name, schema) in properties.iter_mut() {
        if !required.contains(&name.as_str()) {
            *schema = nullable(schema.take());
        }
    }
    let title = format!(
        "CreateVideo{}",
        schema::title(source_name(source).as_str().unwrap_or_default())
    );
    let mut schema = json!({ "title": title, "type": "object", "required": required,
        "properties": properties });
    if faceless_ok && source != Source::Text {
        // faceless needs output_type scene or video.
        schema["not"] = json!({
            "required": ["faceless", "output_type"],
            "properties": {
                "faceless": { "const": true },
                "output_type": { "const": "text" },
            },
        });
    }
    schema
}

fn topic_id_schema() -> Value {
    serde_json::json!({
        "type": "string",
        "pattern": ids::TOPIC_ID_PATTERN,
        "description": "A production plan entry's topic id: the video is made under it (404 \
            `topic_not_found` when the account has no such entry, 409 `topic_exists` when it \
            already has a video).",
    })
}

/// The form that takes its text from a production plan entry: `topic_id` without the text
/// field of source text or idea (the entry's master script, or its idea).
fn plan_form() -> Value {
    use serde_json::json;
    let mut schema = json_form(&json_sources().swap_remove(0));
    let properties = schema["properties"]
        .as_object_mut()
        .expect("a form has properties");
    properties.insert(
        "source".into(),
        nullable(json!({ "type": "string", "enum": ["text", "idea"], "default": "text" })),
    );
    properties.remove("script_text");
    properties.remove("idea_text");
    schema["required"] = json!(["topic_id"]);
    schema["description"] = json!("Source text or idea from a production plan entry.");
    schema["title"] = json!("CreateVideoPlanEntry");
    schema["not"] =
        json!({ "anyOf": [{ "required": ["script_text"] }, { "required": ["idea_text"] }] });
    schema
}

impl utoipa::PartialSchema for CreateVideoJson {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let mut forms: Vec<Value> = json_sources().iter().map(json_form).collect();
        forms.push(plan_form());
        foundation::schema::raw(serde_json::json!({
            "description": "`POST /v1/create_video`'s JSON body: one form per `source` (default \
                `text`), each requiring its own text field. Sources `video_file` and \
                `audio_file` are not in a JSON body's `source`: they need the \
                multipart/form-data form (as JSON they answer 415).",
            "oneOf": forms,
        }))
    }
}

impl ToSchema for CreateVideoJson {
    fn name() -> std::borrow::Cow<'static, str> {
        "CreateVideoRequest".into()
    }

    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        schemas.push((
            AdjustInput::name().into_owned(),
            <AdjustInput as utoipa::PartialSchema>::schema(),
        ));
        <AdjustInput as ToSchema>::schemas(schemas);
        schemas.extend(
            form_components()
                .into_iter()
                .map(|(name, s)| (name.to_string(), schema::raw(s))),
        );
    }
}

impl CreateVideoRequest {
    /// Reads a JSON body, field by field in the order the spec's rules are checked.
    pub fn read(body: &Value) -> Result<Self> {
        let f = Fields::of(body)?;
        let source = choice::<Source>(&f, "source")?;
        let output_type = choice::<OutputType>(&f, "output_type")?;
        check_output_type(
            source.unwrap_or(Source::Text),
            output_type.unwrap_or(OutputType::Scene),
        )?;
        let idea_or_blog = matches!(source, Some(Source::Idea | Source::Blog));
        // Ignored for other sources: only their type is checked there.
        let (language, video_length) = if idea_or_blog {
            (
                choice::<Language>(&f, "language")?,
                choice::<VideoLength>(&f, "video_length")?,
            )
        } else {
            f.str("language")?;
            f.str("video_length")?;
            (None, None)
        };
        let research_enabled = f.bool("research_enabled", Code::InvalidResearchEnabled)?;
        let wait_for_render = f.bool("wait_for_render", Code::InvalidWaitForRender)?;
        let faceless = f.bool("faceless", Code::InvalidFaceless)?;
        check_faceless(
            faceless.unwrap_or(false),
            source.unwrap_or(Source::Text),
            output_type.unwrap_or(OutputType::Scene),
        )?;
        let adjust = crate::ingest::adjust::read(&f)?;
        let music = f
            .str_or("music", Code::InvalidMusic)?
            .map(|m| crate::render::sound::library::read(m, "music"))
            .transpose()?;
        Ok(CreateVideoRequest {
            music,
            source,
            output_type,
            language,
            video_length,
            research_enabled,
            wait_for_render,
            faceless,
            adjust: crate::ingest::adjust::for_source(adjust, source.unwrap_or(Source::Text))?,
            script_text: f.str("script_text")?.map(str::to_string),
            idea_text: f.str("idea_text")?.map(str::to_string),
            blog_text: f.str("blog_text")?.map(str::to_string),
            video_url: f.str("video_url")?.map(str::to_string),
            audio_url: f.str("audio_url")?.map(str::to_string),
            callback_url: f.str("callback_url")?.map(str::to_string),
            metadata: read_metadata(&f)?,
            topic_id: read_topic_id(&f)?,
            template: f.str("template")?.map(str::to_string),
            script_from_plan: false,
        })
    }
}

/// Spec rule 1: every source and output type go together, except text with text.
fn check_output_type(source: Source, output_type: OutputType) -> Result<()> {
    if source == Source::Text && output_type == OutputType::Text {
        return Err(Error::new(
            Code::InvalidOutputType,
            "`output_type` text is not available for source text: the script is already supplied.",
        )
        .param("output_type"));
    }
    Ok(())
}

/// Spec rule 5: `faceless` works with output_type scene or video, for sources text, idea, blog
/// and audio_url.
fn check_faceless(faceless: bool, source: Source, output_type: OutputType) -> Result<()> {
    let media_with_picture = matches!(
        source,
        Source::VideoUrl | Source::VideoFile | Source::AudioFile
    );
    if faceless && (output_type == OutputType::Text || media_with_picture) {
        return Err(Error::new(
            Code::InvalidFaceless,
            "`faceless` works with output_type scene or video, for sources text, idea, blog and audio_url.",
        )
        .param("faceless"));
    }
    Ok(())
}

/// An enumeration field: another type than a string is `invalid_field`, an unknown name the
/// enumeration's own code.
fn choice<E: Choice>(f: &Fields, name: &str) -> Result<Option<E>> {
    f.str(name)?;
    f.choice::<E>(name)
}

/// `topic_id`: a topic id ([`ids::TOPIC_ID_PATTERN`]), else `invalid_topic_id`.
/// Fields that are JSON values, not strings, in a multipart `create_video`.
const FORM_JSON_FIELDS: &[&str] = &[
    "faceless",
    "wait_for_render",
    "research_enabled",
    "script_approved",
    "metadata",
];

/// A text part of a multipart `create_video` as the JSON body would carry it: the fields that
/// are JSON values there are parsed when they parse, everything else stays a string (so
/// validation names the field).
pub fn form_field_value(name: &str, text: &str) -> Value {
    let t = text.trim();
    let json_like = FORM_JSON_FIELDS.contains(&name) || (name == "adjust" && t.starts_with('{'));
    if json_like && let Ok(v) = serde_json::from_str::<Value>(t) {
        return v;
    }
    Value::String(text.to_string())
}

pub fn read_topic_id(f: &Fields) -> Result<Option<String>> {
    f.str_or("topic_id", Code::InvalidTopicId)?
        .map(checked_topic_id)
        .transpose()
}

/// A `topic_id` field's value, when it is a topic id (`invalid_topic_id` otherwise).
pub fn checked_topic_id(t: &str) -> Result<String> {
    ids::checked_topic_id(t, Code::InvalidTopicId, "topic_id")
}

/// `metadata`: an object of at most 16 KiB as JSON (`invalid_metadata` otherwise).
pub fn read_metadata(f: &Fields) -> Result<Option<Map<String, Value>>> {
    let Some(m) = f.object("metadata", Code::InvalidMetadata)? else {
        return Ok(None);
    };
    check_metadata_size(m)?;
    Ok(Some(m.clone()))
}

/// `metadata` is at most 16 KiB as JSON (`invalid_metadata`).
pub fn check_metadata_size(m: &Map<String, Value>) -> Result<()> {
    if serde_json::to_string(m).map_or(0, |s| s.len()) > METADATA_MAX_BYTES {
        return Err(
            Error::new(Code::InvalidMetadata, "`metadata` is larger than 16 KiB.")
                .param("metadata"),
        );
    }
    Ok(())
}

/// A required text of the body: missing or blank is `missing_field`.
fn required<'a>(value: &'a Option<String>, field: &str) -> Result<&'a str> {
    value
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| Error::missing(field))
}

/// 400 `invalid_field` when a spoken word of `field` is over [`MAX_WORD_CHARS`] characters: a
/// voice would spell it out for minutes.
fn check_speakable(field: &str, text: &str) -> Result<()> {
    match overlong_word(text) {
        Some(w) => Err(Error::new(
            Code::InvalidField,
            format!(
                "`{field}` has a word of {} characters; spoken words have at most {MAX_WORD_CHARS}.",
                w.chars().count()
            ),
        )
        .param(field)),
        None => Ok(()),
    }
}

/// A `video_file`/`audio_file` already stored and probed by the API.
#[derive(Debug, Clone)]
pub struct Upload {
    /// Path relative to the data directory.
    pub file: String,
    /// `Some(false)`: GStreamer could not read it; `None`: not known yet.
    pub decodable: Option<bool>,
}

/// The source's text or media, as the job keeps it.
#[derive(Debug, Default)]
struct Payload {
    text: Option<String>,
    media_url: Option<String>,
    input_truncated_from: Option<usize>,
}

/// Validates a `create_video` request under `settings` (the mode, the media length cap);
/// `upload` is the `video_file`/`audio_file` of a multipart request, already stored and probed.
/// Media URLs are checked against the SSRF guard here, before anything is stored, and their
/// header's declared length when it can be read quickly.
pub async fn validate(
    req: CreateVideoRequest,
    settings: &Settings,
    fetcher: &Fetcher,
    upload: Option<Upload>,
) -> Result<Accepted> {
    let mode = settings.mode;
    let source = req.source.unwrap_or(Source::Text);
    let output_type = req.output_type.unwrap_or(OutputType::Scene);
    let faceless = req.faceless.unwrap_or(false);
    if req.template.is_some() {
        // A template is applied (and taken) before validation, for source idea only.
        return Err(Error::new(
            Code::InvalidTemplate,
            "`template` goes with source `idea`: the template's scenes are written for the idea.",
        )
        .param("template"));
    }
    check_output_type(source, output_type)?;
    check_faceless(faceless, source, output_type)?;
    let adjust = crate::ingest::adjust::for_source(req.adjust.clone(), source)?;
    let media = MediaChecks {
        fetcher,
        uploaded: upload.is_some(),
        max_secs: settings
            .section::<crate::ingest::config::MediaConfig>()
            .max_duration_secs,
    };
    let payload = payload(&req, source, &media).await?;
    let callback_url = match &req.callback_url {
        None => None,
        Some(u) => Some(validate_callback(u, mode, fetcher).await?),
    };
    // A script is narrated in its own language; `language` is for an idea or blog post.
    let language = match (source, &payload.text) {
        (Source::Text, Some(script)) => language::detect(script).language(),
        _ => req.language.unwrap_or(Language::English),
    };
    Ok(Accepted {
        request: VideoRequest {
            source,
            text: payload.text,
            media_url: payload.media_url,
            language,
            video_length: req.video_length.unwrap_or(VideoLength::Short),
            research_enabled: req.research_enabled.unwrap_or(true),
            faceless,
            wait_for_render: req.wait_for_render.unwrap_or(false),
            adjust,
            media_decodable: upload.as_ref().and_then(|u| u.decodable),
            media_file: upload.map(|u| u.file),
            music: req.music.unwrap_or_default(),
        },
        output_type,
        metadata: Value::Object(req.metadata.unwrap_or_default()),
        callback_url,
        input_truncated_from: payload.input_truncated_from,
        topic_id: req.topic_id,
    })
}

/// A `script_text` source: 80 to 500 words (fewer for a script made here) and every word
/// speakable. Its length in time is bounded on what the voice really speaks
/// ([`crate::build::script::max_narration_secs`]), never by an estimate here: a script the spec
/// accepts is never refused for its long words.
fn script_payload(req: &CreateVideoRequest) -> Result<Payload> {
    let script = required(&req.script_text, "script_text")?;
    let n = word_count(script);
    if n < SCRIPT_MIN_WORDS && !req.script_from_plan {
        return Err(Error::new(
            Code::ScriptTooShort,
            format!("`script_text` has {n} words; at least {SCRIPT_MIN_WORDS} are needed."),
        )
        .param("script_text"));
    }
    // Media glued inside a token splits it, so the words spoken can outnumber the tokens.
    let spoken = n.max(spoken_words(script).len());
    if spoken > SCRIPT_MAX_WORDS {
        return Err(Error::new(
            Code::ScriptTooLong,
            format!("`script_text` has {spoken} words; at most {SCRIPT_MAX_WORDS} are allowed."),
        )
        .param("script_text"));
    }
    check_speakable("script_text", script)?;
    Ok(Payload {
        text: Some(script.to_string()),
        ..Payload::default()
    })
}

/// The source's payload: the word limits of texts, the guard and probe of media URLs, the
/// presence of an upload.
/// What the checks of a media source need.
struct MediaChecks<'a> {
    fetcher: &'a Fetcher,
    /// Whether the multipart request carried the file.
    uploaded: bool,
    /// The longest media accepted, seconds.
    max_secs: f64,
}

async fn payload(
    req: &CreateVideoRequest,
    source: Source,
    media: &MediaChecks<'_>,
) -> Result<Payload> {
    let MediaChecks {
        fetcher,
        uploaded,
        max_secs,
    } = *media;
    match source {
        Source::Text => script_payload(req),
        Source::Idea | Source::Blog => {
            let (field, value, min, max) = if source == Source::Idea {
                ("idea_text", &req.idea_text, IDEA_MIN_WORDS, IDEA_MAX_WORDS)
            } else {
                ("blog_text", &req.blog_text, BLOG_MIN_WORDS, BLOG_MAX_WORDS)
            };
            let input = required(value, field)?;
            check_speakable(field, input)?;
            let n = word_count(input);
            if n < min {
                return Err(Error::new(
                    Code::InputTooShort,
                    format!("`{field}` has {n} words; at least {min} are needed."),
                )
                .param(field));
            }
            let kept = if n > max {
                truncate_words(input, max)
            } else {
                input
            };
            Ok(Payload {
                text: Some(kept.trim().to_string()),
                input_truncated_from: (n > max).then_some(n),
                ..Payload::default()
            })
        }
        Source::VideoUrl | Source::AudioUrl => {
            let (field, value) = if source == Source::VideoUrl {
                ("video_url", &req.video_url)
            } else {
                ("audio_url", &req.audio_url)
            };
            let url = required(value, field)?;
            fetcher.guard(url).await.map_err(|e| match e {
                FetchError::Blocked(why) => Error::new(
                    Code::UnsupportedMediaUrl,
                    format!("`{field}` is not an accepted public URL: {why}."),
                )
                .param(field),
                other => Error::new(Code::UnsupportedMediaUrl, other.to_string()).param(field),
            })?;
            crate::ingest::media_source::check_url(
                fetcher,
                url,
                (field, source.is_audio()),
                max_secs,
            )
            .await?;
            Ok(Payload {
                media_url: Some(url.trim().to_string()),
                ..Payload::default()
            })
        }
        Source::VideoFile | Source::AudioFile => {
            let field = if source == Source::VideoFile {
                "video_file"
            } else {
                "audio_file"
            };
            if !uploaded {
                return Err(Error::new(
                    Code::UnsupportedMediaType,
                    format!(
                        "source {field} needs a multipart/form-data request with the file in `{field}`."
                    ),
                )
                .param(field));
            }
            Ok(Payload::default())
        }
    }
}

/// A `callback_url`: absolute; https (and a public host) in production, http or https in dev.
pub async fn validate_callback(url: &str, mode: Mode, fetcher: &Fetcher) -> Result<String> {
    let err = |m: &str| Error::new(Code::InvalidCallbackUrl, m.to_string()).param("callback_url");
    let parsed =
        url::Url::parse(url.trim()).map_err(|_| err("`callback_url` must be an absolute URL."))?;
    match (mode, parsed.scheme()) {
        (Mode::Production, "https") => {
            fetcher.guard(url).await.map_err(|e| {
                err(&format!(
                    "`callback_url` is not an accepted public URL: {e}."
                ))
            })?;
        }
        (Mode::Production, _) => return Err(err("`callback_url` must use https.")),
        (Mode::Dev, "http" | "https") => {}
        (Mode::Dev, _) => return Err(err("`callback_url` must use http or https.")),
    }
    Ok(parsed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_fields_become_json_where_the_json_body_has_json() {
        use serde_json::json;
        assert_eq!(form_field_value("faceless", "true"), json!(true));
        assert_eq!(form_field_value("metadata", "{\"a\":1}"), json!({"a": 1}));
        assert_eq!(
            form_field_value("adjust", "{\"mode\":\"denoise\"}"),
            json!({"mode": "denoise"})
        );
        assert_eq!(form_field_value("adjust", "normalize"), json!("normalize"));
        assert_eq!(form_field_value("output_type", "video"), json!("video"));
        // Not JSON stays a string, so validation names the field.
        assert_eq!(form_field_value("faceless", "maybe"), json!("maybe"));
    }

    #[test]
    fn truncation_cuts_at_whitespace() {
        assert_eq!(truncate_words("a b  c d", 2), "a b");
        assert_eq!(truncate_words("a b", 5), "a b");
        assert_eq!(truncate_words("  a\n\nb c ", 2), "  a\n\nb");
        assert_eq!(word_count(truncate_words(&"w ".repeat(1200), 1000)), 1000);
    }
}

#[cfg(test)]
mod request_tests {
    use super::*;
    use serde_json::json;

    fn code_of(body: Value) -> (Code, Option<String>) {
        let e = CreateVideoRequest::read(&body).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn each_field_answers_with_the_specs_code_and_param() {
        for (body, code, param) in [
            (json!({"source": 3}), Code::InvalidField, "source"),
            (json!({"source": "tv"}), Code::InvalidSource, "source"),
            (
                json!({"output_type": "gif"}),
                Code::InvalidOutputType,
                "output_type",
            ),
            (
                json!({"output_type": "text"}),
                Code::InvalidOutputType,
                "output_type",
            ),
            (
                json!({"source": "idea", "language": "fr"}),
                Code::InvalidLanguage,
                "language",
            ),
            (
                json!({"source": "blog", "video_length": "long"}),
                Code::InvalidVideoLength,
                "video_length",
            ),
            (
                json!({"research_enabled": "yes"}),
                Code::InvalidResearchEnabled,
                "research_enabled",
            ),
            (
                json!({"wait_for_render": 1}),
                Code::InvalidWaitForRender,
                "wait_for_render",
            ),
            (
                json!({"faceless": true, "source": "video_url"}),
                Code::InvalidFaceless,
                "faceless",
            ),
            (
                json!({"adjust": "normalize"}),
                Code::InvalidAdjust,
                "adjust",
            ),
            (json!({"script_text": 5}), Code::InvalidField, "script_text"),
            (json!({"metadata": [1]}), Code::InvalidMetadata, "metadata"),
        ] {
            assert_eq!(
                code_of(body.clone()),
                (code, Some(param.to_string())),
                "{body}"
            );
        }
        assert_eq!(code_of(json!([])).0, Code::InvalidJson);
    }

    #[test]
    fn settings_that_do_not_apply_are_ignored_and_adjust_off_reads_as_none() {
        let req = CreateVideoRequest::read(&json!({
            "source": "text", "language": "Klingon", "video_length": "epic",
            "adjust": "off", "metadata": {"a": 1},
        }))
        .unwrap();
        assert_eq!(
            (req.language, req.video_length, req.adjust),
            (None, None, None)
        );
        assert_eq!(req.metadata.unwrap()["a"], 1);
        let req = CreateVideoRequest::read(&json!({
            "source": "audio_url", "adjust": {"mode": "denoise", "denoise_strength": 0.2},
        }))
        .unwrap();
        assert_eq!(req.adjust.map(|a| a.denoise_strength), Some(0.2));
        let req = CreateVideoRequest::read(&json!({"source": "idea", "language": "vi"})).unwrap();
        assert_eq!(req.language, Some(Language::Vietnamese));
    }
}
