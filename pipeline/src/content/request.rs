//! `POST /v1/create_content`: the request as a client sends it ([`CreateContentRequest`], read
//! from its own schema with per-field codes and `param`) and [`validate`], which classifies the
//! `content` (URL, idea or pasted text), checks a URL against the SSRF guard and a
//! `callback_url` like `create_video` does, and prices the job.
//!
//! Rules (documented in the README and the OpenAPI schema):
//! - `content` is required (`missing_field`). A single `http(s)://` URL is read as a web page;
//!   a local host name or a private, loopback or link-local IP literal is
//!   `unsupported_media_url` (param `content`), as for `create_video`'s media URLs; a name that
//!   resolves to such an address (or to nothing) fails the job when the page is read. Other text needs at least 5 words (`input_too_short`);
//!   up to 30 words is an idea the piece grows from, more is pasted text the piece draws on,
//!   cut at 3000 words (`details.input_truncated_from` keeps the original count).
//! - `content_type`: `blog` (default), `facebook`, `x`, `linkedin` (`invalid_content_type`).
//! - `language`: `English` (default) or `Vietnamese` (`invalid_language`).
//! - `metadata`: an object of at most 16 keys and 16 KiB (`invalid_metadata`).
//! - Cost: [`COST`] credit per piece, taken with the job (402 `credit_exhausted`), given back
//!   when the job fails.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::content::record::{ContentInput, PieceRequest};
use foundation::config::Mode;
use foundation::error::{Code, Error, Result};
use foundation::fetch::{FetchError, Fetcher};
use foundation::fields::Body;
use foundation::jobs::AcceptedWriting;
use foundation::model::{ContentType, Language};
use video::build::word_count;
use video::ingest::{
    BLOG_MAX_WORDS, IDEA_MIN_WORDS, check_metadata_size, truncate_words, validate_callback,
};

/// Credits one piece costs.
pub(crate) const COST: i64 = 1;
/// Keys `metadata` may have.
pub(crate) const METADATA_MAX_KEYS: usize = 16;
/// Text of at most this many words is an idea; longer text is material to draw on.
pub(crate) const IDEA_MAX_WORDS: usize = 30;
/// Pasted text is cut at this many words.
pub(crate) const TEXT_MAX_WORDS: usize = BLOG_MAX_WORDS;

/// The body of `POST /v1/create_content`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CreateContentRequest {
    /// A web page URL (its main text is read), an idea (5 to 30 words: the piece grows from
    /// it) or pasted text (more than 30 words, cut at 3000).
    // The pattern says no more than `classify` checks, or fuzzing finds accepted values it
    // refuses: at least 5 words, or one http(s) token (whether that parses as a URL of a public
    // host is left to the server). Words come first: a generator's simplest value, the first
    // branch's, is then an idea the server takes, not `http://0`.
    #[schema(pattern = r"^\s*(\S+(\s+\S+){4,}|[Hh][Tt][Tt][Pp][Ss]?://\S+)\s*$")]
    pub content: String,
    /// The format (default `blog`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<ContentType>,
    /// The language of the piece (default `English`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = video::ingest::callback_url_schema)]
    pub callback_url: Option<String>,
    /// Echoed in the status object: at most 16 keys (and 16 KiB as JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = metadata_schema)]
    pub metadata: Option<Map<String, Value>>,
}

/// The schema of a written-content job's `metadata`: an object of at most 16 keys, or `null`.
pub(crate) fn metadata_schema() -> utoipa::openapi::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
        .max_properties(Some(METADATA_MAX_KEYS))
        .description(Some(
            "Echoed in the status object: at most 16 keys (and 16 KiB as JSON).",
        ))
        .build()
}

/// Read by `foundation::fields::body::read`.
impl Body for CreateContentRequest {
    type Valid = CreateContentRequest;
    const CODES: &'static [(&'static str, Code)] = CONTENT_CODES;

    fn validate(self) -> Result<Self> {
        check_content_metadata(self.metadata.as_ref())?;
        Ok(self)
    }
}

/// The codes of the fields `create_content` and `enhance_script` share, and their own.
pub(crate) const CONTENT_CODES: &[(&str, Code)] = &[
    ("content_type", Code::InvalidContentType),
    ("language", Code::InvalidLanguage),
    ("metadata", Code::InvalidMetadata),
];

/// What `content` is: one http(s) URL, an idea or pasted text (`None`: too few words).
pub fn classify(content: &str) -> Option<ContentInput> {
    let trimmed = content.trim();
    let lower = trimmed.get(..8).unwrap_or(trimmed).to_ascii_lowercase();
    let one_token = !trimmed.contains(char::is_whitespace);
    if one_token
        && (lower.starts_with("http://") || lower.starts_with("https://"))
        && url::Url::parse(trimmed).is_ok_and(|u| u.host().is_some())
    {
        return Some(ContentInput::Url(trimmed.to_string()));
    }
    let n = word_count(trimmed);
    if n < IDEA_MIN_WORDS {
        None
    } else if n <= IDEA_MAX_WORDS {
        Some(ContentInput::Idea(trimmed.to_string()))
    } else {
        Some(ContentInput::Text(
            truncate_words(trimmed, TEXT_MAX_WORDS).trim().to_string(),
        ))
    }
}

/// Validates a request: the job to store and the record of what it asks.
pub async fn validate(
    req: CreateContentRequest,
    mode: Mode,
    fetcher: &Fetcher,
) -> Result<(AcceptedWriting, PieceRequest)> {
    let input = classify(&req.content).ok_or_else(|| {
        Error::new(
            Code::InputTooShort,
            format!(
                "`content` has {} words; send a URL, or at least {IDEA_MIN_WORDS} words.",
                word_count(&req.content)
            ),
        )
        .param("content")
    })?;
    if let ContentInput::Url(url) = &input {
        // What needs no DNS is checked now (local names, private IP literals); the full guard
        // runs when the page is read, and a host that resolves to a private address, or not
        // at all, fails the job then.
        if let Err(FetchError::Blocked(why)) = fetcher.check(url) {
            return Err(Error::new(
                Code::UnsupportedMediaUrl,
                format!("`content` is not an accepted public URL: {why}."),
            )
            .param("content"));
        }
    }
    let n = word_count(&req.content);
    let truncated = matches!(input, ContentInput::Text(_)) && n > TEXT_MAX_WORDS;
    let callback_url = match &req.callback_url {
        None => None,
        Some(u) => Some(validate_callback(u, mode, fetcher).await?),
    };
    Ok((
        AcceptedWriting {
            metadata: Value::Object(req.metadata.unwrap_or_default()),
            callback_url,
            input_truncated_from: truncated.then_some(n),
            cost: COST,
        },
        PieceRequest {
            input,
            content_type: req.content_type.unwrap_or(ContentType::Blog),
            language: req.language.unwrap_or(Language::English),
        },
    ))
}

/// `metadata` of a written-content job: create_video's 16 KiB rule plus at most
/// [`METADATA_MAX_KEYS`] keys (`invalid_metadata`).
pub(crate) fn check_content_metadata(metadata: Option<&Map<String, Value>>) -> Result<()> {
    let Some(m) = metadata else {
        return Ok(());
    };
    check_metadata_size(m)?;
    if m.len() > METADATA_MAX_KEYS {
        return Err(Error::new(
            Code::InvalidMetadata,
            format!("`metadata` has more than {METADATA_MAX_KEYS} keys."),
        )
        .param("metadata"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;
    use serde_json::json;

    fn code_of(body: Value) -> (Code, Option<String>) {
        let e = body::read::<CreateContentRequest>(&body).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn each_field_answers_with_its_code_and_param() {
        let many: Map<String, Value> = (0..17).map(|i| (format!("k{i}"), json!(i))).collect();
        for (body, code, param) in [
            (json!({}), Code::MissingField, "content"),
            (json!({"content": "  "}), Code::MissingField, "content"),
            (json!({"content": 5}), Code::InvalidField, "content"),
            (
                json!({"content": "a b c d e", "content_type": "tiktok"}),
                Code::InvalidContentType,
                "content_type",
            ),
            (
                json!({"content": "a b c d e", "content_type": 1}),
                Code::InvalidContentType,
                "content_type",
            ),
            (
                json!({"content": "a b c d e", "language": "French"}),
                Code::InvalidLanguage,
                "language",
            ),
            (
                json!({"content": "a b c d e", "language": 7}),
                Code::InvalidLanguage,
                "language",
            ),
            (
                json!({"content": "a b c d e", "metadata": many}),
                Code::InvalidMetadata,
                "metadata",
            ),
            (
                json!({"content": "a b c d e", "metadata": "x"}),
                Code::InvalidMetadata,
                "metadata",
            ),
            (
                json!({"content": "a b c d e", "callback_url": 3}),
                Code::InvalidField,
                "callback_url",
            ),
        ] {
            assert_eq!(
                code_of(body.clone()),
                (code, Some(param.to_string())),
                "{body}"
            );
        }
        let ok = body::read::<CreateContentRequest>(&json!({
            "content": "a b c d e", "content_type": "X", "language": "vi",
        }))
        .unwrap();
        assert_eq!(ok.content_type, Some(ContentType::X));
        assert_eq!(ok.language, Some(Language::Vietnamese));
    }

    #[test]
    fn content_is_a_url_an_idea_or_text() {
        assert_eq!(
            classify(" https://example.com/post?id=1 "),
            Some(ContentInput::Url("https://example.com/post?id=1".into()))
        );
        assert_eq!(classify("remote teams need rituals"), None);
        assert!(matches!(
            classify("why remote teams need weekly rituals"),
            Some(ContentInput::Idea(_))
        ));
        let long = "word ".repeat(4000);
        match classify(&long) {
            Some(ContentInput::Text(t)) => assert_eq!(word_count(&t), TEXT_MAX_WORDS),
            other => panic!("{other:?}"),
        }
        // A URL inside a sentence is text, not a page to read.
        assert!(matches!(
            classify("read https://example.com for the full story today"),
            Some(ContentInput::Idea(_))
        ));
    }

    /// A pattern of `CreateContentRequest`'s schema, as the OpenAPI document states it.
    fn documented_pattern(field: &str) -> regex::Regex {
        use utoipa::PartialSchema;
        let schema = serde_json::to_value(CreateContentRequest::schema()).unwrap();
        let pattern = schema["properties"][field]["pattern"].as_str().unwrap();
        regex::Regex::new(pattern).unwrap()
    }

    #[test]
    fn every_content_the_server_accepts_matches_the_documented_pattern() {
        let pattern = documented_pattern("content");
        for accepted in [
            "https://example.com/post?id=1&ref=home#top",
            "HTTP://Blog.Example.COM:8443/2026/11/why-video/",
            "https://user@t3.n5o/a*b/(c)/~d",
            // What fuzzing found accepted against the old, narrower pattern.
            "\n \thtTpS://t3.n5o/GdJqW/68OHE4/L9gRKxvZHRPbJ0LN*",
            "https://[2001:db8::1]/page",
            "five words\rseparated by\u{a0}odd spaces",
            "why remote teams need weekly rituals",
        ] {
            assert!(
                classify(accepted).is_some(),
                "the server refuses {accepted:?}"
            );
            assert!(
                pattern.is_match(accepted),
                "the pattern refuses {accepted:?}"
            );
        }
        for refused in [
            "https://",
            "example.com/post",
            "remote teams need rituals",
            "  ",
        ] {
            assert!(
                classify(refused).is_none(),
                "the server accepts {refused:?}"
            );
            assert!(
                !pattern.is_match(refused),
                "the pattern accepts {refused:?}"
            );
        }
    }

    #[test]
    fn a_callback_with_a_query_matches_the_documented_pattern() {
        let url = "https://hooks.example.com/reelsmith?token=a1&kind=content";
        assert!(url::Url::parse(url).is_ok());
        assert!(documented_pattern("callback_url").is_match(url));
    }
}
