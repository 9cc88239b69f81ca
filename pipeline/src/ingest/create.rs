//! `create_video` validation: every rule and limit of the spec, turned into
//! a [`VideoRequest`] or a client error with the code DESIGN.md §3 names.

use serde_json::{Map, Value};

use crate::build::script::word_count;
use crate::core::config::Mode;
use crate::core::error::{Code, Error, Result};
use crate::core::fetch::{FetchError, Fetcher};
use crate::core::jobs::Accepted;
use crate::core::model::{Language, OutputType, Source, VideoLength, VideoRequest};

pub const SCRIPT_MIN_WORDS: usize = 80;
pub const SCRIPT_MAX_WORDS: usize = 500;
pub const IDEA_MIN_WORDS: usize = 5;
pub const IDEA_MAX_WORDS: usize = 1000;
pub const BLOG_MIN_WORDS: usize = 30;
pub const BLOG_MAX_WORDS: usize = 3000;
pub const METADATA_MAX_BYTES: usize = 16 * 1024;

/// The first `max` whitespace-separated words of `s`, cut at whitespace.
fn truncate_words(s: &str, max: usize) -> &str {
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

fn opt_str<'a>(body: &'a Map<String, Value>, field: &str) -> Result<Option<&'a str>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => {
            Err(Error::new(Code::InvalidField, format!("`{field}` must be a string.")).param(field))
        }
    }
}

fn opt_bool(body: &Map<String, Value>, field: &str, code: Code) -> Result<Option<bool>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(Error::new(code, format!("`{field}` must be true or false.")).param(field)),
    }
}

fn required_text<'a>(body: &'a Map<String, Value>, field: &str) -> Result<&'a str> {
    match opt_str(body, field)? {
        Some(s) if !s.trim().is_empty() => Ok(s),
        _ => Err(Error::missing(field)),
    }
}

/// Validates a `create_video` JSON body. Media URLs are checked against the
/// SSRF guard here, before anything is stored.
pub async fn validate(body: &Value, mode: Mode, fetcher: &Fetcher) -> Result<Accepted> {
    validate_with_upload(body, mode, fetcher, None).await
}

/// A `video_file`/`audio_file` already stored and probed by the API.
#[derive(Debug, Clone)]
pub struct Upload {
    /// Path relative to the data directory.
    pub file: String,
    /// `Some(false)`: GStreamer could not read it; `None`: not known yet.
    pub decodable: Option<bool>,
}

/// Validates a `create_video` request; `upload` is the `video_file`/`audio_file` of a
/// multipart request, already stored and probed (a path relative to the data directory).
pub async fn validate_with_upload(
    body: &Value,
    mode: Mode,
    fetcher: &Fetcher,
    upload: Option<Upload>,
) -> Result<Accepted> {
    let Some(body) = body.as_object() else {
        return Err(Error::new(
            Code::InvalidJson,
            "The request body must be a JSON object.",
        ));
    };
    let source = match opt_str(body, "source")? {
        None => Source::Text,
        Some(s) => Source::parse(s).ok_or_else(|| {
            Error::new(
                Code::InvalidSource,
                format!("`source` must be one of: {}.", Source::NAMES.join(", ")),
            )
            .param("source")
        })?,
    };
    let output_type = match opt_str(body, "output_type")? {
        None => OutputType::Scene,
        Some(s) => OutputType::parse(s).ok_or_else(|| {
            Error::new(
                Code::InvalidOutputType,
                "`output_type` must be text, scene or video.",
            )
            .param("output_type")
        })?,
    };
    if source == Source::Text && output_type == OutputType::Text {
        return Err(Error::new(
            Code::InvalidOutputType,
            "`output_type` text is not available for source text: the script is already supplied.",
        )
        .param("output_type"));
    }

    let idea_or_blog = matches!(source, Source::Idea | Source::Blog);
    let language = match opt_str(body, "language")? {
        Some(l) if idea_or_blog => match l.to_ascii_lowercase().as_str() {
            "english" | "en" => Language::English,
            "vietnamese" | "vi" => Language::Vietnamese,
            _ => {
                return Err(Error::new(
                    Code::InvalidLanguage,
                    "`language` must be English or Vietnamese.",
                )
                .param("language"));
            }
        },
        _ => Language::English,
    };
    let video_length = match opt_str(body, "video_length")? {
        Some(v) if idea_or_blog => match v {
            "short" => VideoLength::Short,
            "normal" => VideoLength::Normal,
            _ => {
                return Err(Error::new(
                    Code::InvalidVideoLength,
                    "`video_length` must be short or normal.",
                )
                .param("video_length"));
            }
        },
        _ => VideoLength::Short,
    };
    let research_enabled =
        opt_bool(body, "research_enabled", Code::InvalidResearchEnabled)?.unwrap_or(true);
    let wait_for_render =
        opt_bool(body, "wait_for_render", Code::InvalidWaitForRender)?.unwrap_or(false);
    let faceless = opt_bool(body, "faceless", Code::InvalidFaceless)?.unwrap_or(false);
    if faceless
        && (output_type == OutputType::Text
            || matches!(
                source,
                Source::VideoUrl | Source::VideoFile | Source::AudioFile
            ))
    {
        return Err(Error::new(
            Code::InvalidFaceless,
            "`faceless` works with output_type scene or video, for sources text, idea, blog and audio_url.",
        )
        .param("faceless"));
    }
    let adjust = crate::ingest::adjust::parse(body.get("adjust"), source)?
        .map(|a| serde_json::to_value(a).expect("plain struct"));

    // Source payload.
    let mut text = None;
    let mut media_url = None;
    let mut input_truncated_from = None;
    match source {
        Source::Text => {
            let script = required_text(body, "script_text")?;
            let n = word_count(script);
            if n < SCRIPT_MIN_WORDS {
                return Err(Error::new(
                    Code::ScriptTooShort,
                    format!("`script_text` has {n} words; at least {SCRIPT_MIN_WORDS} are needed."),
                )
                .param("script_text"));
            }
            if n > SCRIPT_MAX_WORDS {
                return Err(Error::new(
                    Code::ScriptTooLong,
                    format!("`script_text` has {n} words; at most {SCRIPT_MAX_WORDS} are allowed."),
                )
                .param("script_text"));
            }
            text = Some(script.to_string());
        }
        Source::Idea | Source::Blog => {
            let (field, min, max) = if source == Source::Idea {
                ("idea_text", IDEA_MIN_WORDS, IDEA_MAX_WORDS)
            } else {
                ("blog_text", BLOG_MIN_WORDS, BLOG_MAX_WORDS)
            };
            let input = required_text(body, field)?;
            let n = word_count(input);
            if n < min {
                return Err(Error::new(
                    Code::InputTooShort,
                    format!("`{field}` has {n} words; at least {min} are needed."),
                )
                .param(field));
            }
            let kept = if n > max {
                input_truncated_from = Some(n);
                truncate_words(input, max)
            } else {
                input
            };
            text = Some(kept.trim().to_string());
        }
        Source::VideoUrl | Source::AudioUrl => {
            let field = if source == Source::VideoUrl {
                "video_url"
            } else {
                "audio_url"
            };
            let url = required_text(body, field)?;
            fetcher.guard(url).await.map_err(|e| match e {
                FetchError::Blocked(why) => Error::new(
                    Code::UnsupportedMediaUrl,
                    format!("`{field}` is not an accepted public URL: {why}."),
                )
                .param(field),
                other => Error::new(Code::UnsupportedMediaUrl, other.to_string()).param(field),
            })?;
            crate::ingest::media_source::check_url(fetcher, url, field, source.is_audio()).await?;
            media_url = Some(url.trim().to_string());
        }
        Source::VideoFile | Source::AudioFile => {
            let field = if source == Source::VideoFile {
                "video_file"
            } else {
                "audio_file"
            };
            if upload.is_none() {
                return Err(Error::new(
                    Code::UnsupportedMediaType,
                    format!(
                        "source {field} needs a multipart/form-data request with the file in `{field}`."
                    ),
                )
                .param(field));
            }
        }
    }

    let callback_url = match opt_str(body, "callback_url")? {
        None => None,
        Some(u) => Some(validate_callback(u, mode, fetcher).await?),
    };
    let metadata = match body.get("metadata") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(m @ Value::Object(_)) => {
            if m.to_string().len() > METADATA_MAX_BYTES {
                return Err(
                    Error::new(Code::InvalidMetadata, "`metadata` is larger than 16 KiB.")
                        .param("metadata"),
                );
            }
            m.clone()
        }
        Some(_) => {
            return Err(
                Error::new(Code::InvalidMetadata, "`metadata` must be an object.")
                    .param("metadata"),
            );
        }
    };

    Ok(Accepted {
        request: VideoRequest {
            source,
            text,
            media_url,
            language,
            video_length,
            research_enabled,
            faceless,
            wait_for_render,
            adjust,
            media_decodable: upload.as_ref().and_then(|u| u.decodable),
            media_file: upload.map(|u| u.file),
        },
        output_type,
        metadata,
        callback_url,
        input_truncated_from,
    })
}

async fn validate_callback(url: &str, mode: Mode, fetcher: &Fetcher) -> Result<String> {
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
    fn truncation_cuts_at_whitespace() {
        assert_eq!(truncate_words("a b  c d", 2), "a b");
        assert_eq!(truncate_words("a b", 5), "a b");
        assert_eq!(truncate_words("  a\n\nb c ", 2), "  a\n\nb");
        assert_eq!(word_count(truncate_words(&"w ".repeat(1200), 1000)), 1000);
    }
}
