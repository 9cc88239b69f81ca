//! `create_video`: the bodies as a client sends them ([`forms`]), read into one
//! [`CreateVideoRequest`], and [`validate`], which applies every rule and limit of the spec and
//! turns it into an [`Accepted`] job or a client error with the code DESIGN.md §3 names.

mod forms;

pub use forms::{CreateVideoForm, CreateVideoJson, CreateVideoUpload};

use serde_json::{Map, Value};

use crate::build::script::{MAX_WORD_CHARS, overlong_word, spoken_words, word_count};
use foundation::config::{Mode, Settings};
use foundation::document::Music;
use foundation::error::{Code, Error, Result};
use foundation::fetch::{FetchError, Fetcher};
use foundation::ids;
use foundation::jobs::Accepted;
use foundation::language;
use foundation::model::{Adjust, Language, OutputType, Source, VideoLength, VideoRequest};

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

/// A `create_video` request, read from either body ([`CreateVideoJson`],
/// [`CreateVideoUpload`]) or made here (the CLI's one-shot video, a plan entry's or a template's
/// script filled in), and checked by [`validate`] against the settings and the outside world.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CreateVideoRequest {
    /// Default `text`.
    pub source: Option<Source>,
    pub script_text: Option<String>,
    pub idea_text: Option<String>,
    pub blog_text: Option<String>,
    pub video_url: Option<String>,
    pub audio_url: Option<String>,
    pub output_type: Option<OutputType>,
    pub language: Option<Language>,
    pub video_length: Option<VideoLength>,
    pub research_enabled: Option<bool>,
    pub faceless: Option<bool>,
    /// The treatment of an audio source's sound; never `off` (that is `None`).
    pub adjust: Option<Adjust>,
    pub wait_for_render: Option<bool>,
    pub music: Option<Music>,
    pub callback_url: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    /// A production plan entry of the account (see [`CreateVideoPlanEntry`](forms::CreateVideoPlanEntry)).
    pub topic_id: Option<String>,
    /// source=idea: a template id, applied (and taken) before [`validate`].
    pub template: Option<String>,
    /// `script_text` was made here (a plan entry's script, or a template's), not sent. The
    /// 80-word minimum is a rule of what clients send; a template's script may be shorter.
    pub script_from_plan: bool,
}

impl CreateVideoRequest {
    /// The rules between fields that a body's schema does not carry, and the values a schema
    /// cannot check (a music track id, a topic id, the metadata's size, `adjust`'s ranges).
    fn checked(mut self) -> Result<Self> {
        let source = self.source.unwrap_or(Source::Text);
        let output_type = self.output_type.unwrap_or(OutputType::Scene);
        check_output_type(source, output_type)?;
        check_faceless(self.faceless.unwrap_or(false), source, output_type)?;
        if let Some(adjust) = &self.adjust {
            crate::ingest::adjust::check_ranges(adjust)?;
        }
        self.adjust = crate::ingest::adjust::for_source(self.adjust, source)?;
        if let Some(music) = self.music.take() {
            let named = String::from(music);
            self.music = Some(crate::render::sound::library::read(&named, "music")?);
        }
        self.topic_id = self.topic_id.as_deref().map(checked_topic_id).transpose()?;
        if let Some(m) = &self.metadata {
            check_metadata_size(m)?;
        }
        Ok(self)
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

/// A `topic_id` field's value, when it is a topic id (`invalid_topic_id` otherwise).
pub fn checked_topic_id(t: &str) -> Result<String> {
    ids::checked_topic_id(t, Code::InvalidTopicId, "topic_id")
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
            if !uploaded {
                return Err(forms::needs_multipart(source));
            }
            Ok(Payload::default())
        }
    }
}

/// The pattern of [`callback_url_schema`].
const CALLBACK_URL_PATTERN: &str =
    r"^[Hh][Tt][Tt][Pp][Ss]?://([^\s/?#@]*@)?[A-Za-z0-9._~-]+(:[0-9]*)?([/?#\\]\S*)?$";

/// The documented shape of every `callback_url` (`create_video`, `create_content`,
/// `enhance_script`): an http(s) URL with an ASCII host name or IPv4 address, any port, path,
/// query and fragment. What [`validate_callback`] also checks (that it parses; https and a
/// public host in production) is in the description.
///
/// It leaves out IPv6 literals and non-ASCII host names, which the server takes too. A looser
/// pattern, the prefix alone, said no less than the server, but most values generated from it
/// do not parse, so fuzzing saw such an operation refuse nearly every valid case. No
/// `format: uri` either: an RFC 3986 URI is ASCII, while the server takes what a browser takes
/// (other characters percent-encoded), and fuzzing found one such URL accepted.
pub fn callback_url_schema() -> utoipa::openapi::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .pattern(Some(CALLBACK_URL_PATTERN))
        .description(Some(
            "Webhook target: https (and a public host) in production, http or https in dev mode.",
        ))
        .build()
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

    fn read(body: &Value) -> Result<CreateVideoRequest> {
        foundation::fields::body::read::<CreateVideoJson>(body)
    }

    fn code_of(body: Value) -> (Code, Option<String>) {
        let e = read(&body).unwrap_err();
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
        let req = read(&json!({
            "source": "text", "script_text": "A script.", "language": "Klingon",
            "video_length": "epic", "adjust": "off", "metadata": {"a": 1},
        }))
        .unwrap();
        assert_eq!(
            (req.language, req.video_length, req.adjust),
            (None, None, None)
        );
        assert_eq!(req.metadata.unwrap()["a"], 1);
        let req = read(&json!({
            "source": "audio_url", "audio_url": "https://media.example/a.m4a",
            "adjust": {"mode": "denoise", "denoise_strength": 0.2},
        }))
        .unwrap();
        assert_eq!(req.adjust.map(|a| a.denoise_strength), Some(0.2));
        let req =
            read(&json!({"source": "idea", "idea_text": "An idea.", "language": "vi"})).unwrap();
        assert_eq!(req.language, Some(Language::Vietnamese));
    }

    #[tokio::test]
    async fn every_callback_the_server_accepts_matches_the_documented_pattern() {
        let fetcher = Fetcher::new(&[], "test");
        let pattern = regex::Regex::new(CALLBACK_URL_PATTERN).unwrap();
        for accepted in [
            "https://hooks.example.com/reelsmith?token=a1&kind=content",
            "HTTP://user:pw@Hooks.Example.COM:8443/a\\b#done",
            // What fuzzing found accepted against `format: uri`.
            "https://IdqQ:8?\u{ac}w\u{eb}\u{100}\u{b0}\u{99}\u{81}\u{85b67}\u{8}",
            "http://10.0.0.1:/x",
            "https://t3.n5o",
        ] {
            assert!(
                validate_callback(accepted, Mode::Dev, &fetcher)
                    .await
                    .is_ok(),
                "the server refuses {accepted:?}"
            );
            assert!(
                pattern.is_match(accepted),
                "the pattern refuses {accepted:?}"
            );
        }
        for refused in [
            "ftp://hooks.example.com/",
            "hooks.example.com/x",
            "https://",
        ] {
            assert!(
                validate_callback(refused, Mode::Dev, &fetcher)
                    .await
                    .is_err()
            );
            assert!(
                !pattern.is_match(refused),
                "the pattern accepts {refused:?}"
            );
        }
    }
}
