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
    #[schema(
        pattern = r"^[ \t\n]*([Hh][Tt][Tt][Pp][Ss]?://[a-z][a-z0-9-]{0,30}(\.[a-z][a-z0-9-]{0,30}){1,3}(/[A-Za-z0-9._~-]{0,30}){0,3}|[^\s]+([ \t\n]+[^\s]+){4,})[ \t\n]*$"
    )]
    pub content: String,
    /// The format (default `blog`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<ContentType>,
    /// The language of the piece (default `English`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    /// Webhook target: https in production, http or https in dev mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(
        format = "uri",
        pattern = r"^[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9.-]+(:[1-9][0-9]{0,3})?(/[A-Za-z0-9._~/-]*)?$"
    )]
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
}
