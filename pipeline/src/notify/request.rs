//! The typed `POST /v1/notification/send` request: every rule of the spec read through
//! [`Fields`] (subject and message byte limits, `parse_mode`, the media pair), the HTML subset
//! sanitised, and the OpenAPI schema of the body. The media URLs' DNS part of the SSRF guard
//! runs when the notification is sent (`send.rs`); the rest of the guard runs here.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use foundation::error::{Code, Error};
use foundation::fetch::Fetcher;
use foundation::fields::Fields;

/// Longest `subject`, bytes.
pub(crate) const MAX_SUBJECT_BYTES: usize = 200;
/// Longest `message` as text, bytes.
pub(crate) const MAX_MESSAGE_BYTES: usize = 4000;
/// Longest `message` as the caption of a photo or video, bytes.
pub(crate) const MAX_CAPTION_BYTES: usize = 1024;
/// The tags `parse_mode: HTML` keeps; everything else is removed (its text stays).
pub(crate) const HTML_TAGS: &[&str] = &["b", "i", "u", "s", "code", "pre", "a"];

foundation::document::wire_enum! {
    /// How `message` is formatted.
    pub enum ParseMode: Code::InvalidParseMode {
        Markdown = "Markdown",
        MarkdownV2 = "MarkdownV2",
        Html = "HTML",
    }
}

/// What is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKind {
    Photo,
    Video,
}

/// A photo or video by URL (passed on, never downloaded by us).
#[derive(Debug, Clone, PartialEq)]
pub struct Media {
    pub kind: AttachmentKind,
    pub url: String,
}

/// A validated notification. With `parse_mode: HTML`, `message` is already sanitised.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub subject: String,
    pub message: String,
    pub parse_mode: Option<ParseMode>,
    pub media: Option<Media>,
}

impl Notification {
    /// The limit `message` is held to: a caption's when media is attached.
    pub(crate) fn message_limit(&self) -> usize {
        if self.media.is_some() {
            MAX_CAPTION_BYTES
        } else {
            MAX_MESSAGE_BYTES
        }
    }
}

fn invalid(code: Code, param: &str, msg: impl Into<String>) -> Error {
    Error::new(code, msg).param(param)
}

/// Reads and validates a request body.
pub fn read(body: &Value, fetcher: &Fetcher) -> Result<Notification, Error> {
    let f = Fields::of(body)?;
    let subject = f.required_str("subject")?.trim().to_string();
    if subject.len() > MAX_SUBJECT_BYTES {
        return Err(invalid(
            Code::SubjectTooLong,
            "subject",
            format!(
                "`subject` has {} bytes; the limit is {MAX_SUBJECT_BYTES}.",
                subject.len()
            ),
        ));
    }
    let message = f.required_str("message")?.to_string();
    let sent_bytes = message.len();
    let parse_mode = f.choice::<ParseMode>("parse_mode")?;
    let media = media(&f, fetcher)?;
    let n = Notification {
        subject,
        message: match parse_mode {
            Some(ParseMode::Html) => sanitize_html(&message),
            _ => message,
        },
        parse_mode,
        media,
    };
    let limit = n.message_limit();
    if sent_bytes > limit {
        let what = if n.media.is_some() {
            "as a caption of attached media"
        } else {
            "as text"
        };
        return Err(invalid(
            Code::MessageTooLong,
            "message",
            format!("`message` has {sent_bytes} bytes; the limit {what} is {limit}."),
        ));
    }
    Ok(n)
}

/// `photo_url` or `video_url` (never both), each a public http(s) URL.
fn media(f: &Fields, fetcher: &Fetcher) -> Result<Option<Media>, Error> {
    let photo = f.str_or("photo_url", Code::InvalidPhotoUrl)?;
    let video = f.str_or("video_url", Code::InvalidVideoUrl)?;
    let (kind, url, code, param) = match (photo, video) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                Code::ConflictingMedia,
                "video_url",
                "Send `photo_url` or `video_url`, not both.",
            ));
        }
        (Some(u), None) => (AttachmentKind::Photo, u, Code::InvalidPhotoUrl, "photo_url"),
        (None, Some(u)) => (AttachmentKind::Video, u, Code::InvalidVideoUrl, "video_url"),
        (None, None) => return Ok(None),
    };
    match fetcher.check(url) {
        Ok((parsed, _)) => Ok(Some(Media {
            kind,
            url: parsed.to_string(),
        })),
        Err(e) => Err(invalid(
            code,
            param,
            format!("`{param}` must be a public http(s) URL."),
        )
        .because(e)),
    }
}

/// The HTML subset of the spec: `b, i, u, s, code, pre` and `a` with an http(s) or mailto
/// `href`; every other tag is removed and its text kept.
pub(crate) fn sanitize_html(html: &str) -> String {
    let tags: HashSet<&str> = HTML_TAGS.iter().copied().collect();
    ammonia::Builder::empty()
        .tags(tags)
        .add_tag_attributes("a", ["href"])
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .link_rel(None)
        .clean(html)
        .to_string()
}

/// The body of `POST /v1/notification/send`. Absent and `null` fields are the same.
#[derive(ToSchema)]
#[allow(dead_code)] // a schema: requests are read by [`read`]
pub struct NotificationBody {
    /// Email subject and bold first line of the messaging-app text: at most 200 bytes (UTF-8),
    /// not blank.
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    subject: String,
    /// At most 4000 bytes (UTF-8) as text, 1024 bytes as the caption of a photo or video.
    #[schema(min_length = 1, max_length = 4000, pattern = r"\S")]
    message: String,
    /// `Markdown`, `MarkdownV2` or `HTML` (only b, i, u, s, code, pre, a; the rest is removed).
    parse_mode: Option<ParseMode>,
    /// A public http(s) photo; not with `video_url`.
    #[schema(format = "uri", pattern = "^https?://")]
    photo_url: Option<String>,
    /// A public http(s) video; not with `photo_url`.
    #[schema(format = "uri", pattern = "^https?://")]
    video_url: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fetcher() -> Fetcher {
        Fetcher::new(&[], "test")
    }

    fn code(body: Value) -> (Code, Option<String>) {
        let e = read(&body, &fetcher()).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn every_rule_answers_with_its_code_and_param() {
        let long_subject = "é".repeat(101); // 202 bytes, 101 characters
        let cases = [
            (json!({"message": "m"}), Code::MissingField, "subject"),
            (json!({"subject": "s"}), Code::MissingField, "message"),
            (
                json!({"subject": long_subject, "message": "m"}),
                Code::SubjectTooLong,
                "subject",
            ),
            (
                json!({"subject": "s", "message": "x".repeat(4001)}),
                Code::MessageTooLong,
                "message",
            ),
            (
                json!({"subject": "s", "message": "x".repeat(1025), "photo_url": "https://example.com/a.jpg"}),
                Code::MessageTooLong,
                "message",
            ),
            (
                json!({"subject": "s", "message": "m", "parse_mode": "rtf"}),
                Code::InvalidParseMode,
                "parse_mode",
            ),
            (
                json!({"subject": "s", "message": "m", "photo_url": "https://example.com/a.jpg", "video_url": "https://example.com/a.mp4"}),
                Code::ConflictingMedia,
                "video_url",
            ),
            (
                json!({"subject": "s", "message": "m", "photo_url": "http://127.0.0.1/a.jpg"}),
                Code::InvalidPhotoUrl,
                "photo_url",
            ),
            (
                json!({"subject": "s", "message": "m", "video_url": "ftp://example.com/a.mp4"}),
                Code::InvalidVideoUrl,
                "video_url",
            ),
        ];
        for (body, want, param) in cases {
            assert_eq!(
                code(body.clone()),
                (want, Some(param.to_string())),
                "{body}"
            );
        }
    }

    #[test]
    fn limits_count_bytes_not_characters() {
        let ok = read(
            &json!({"subject": "é".repeat(100), "message": "x".repeat(4000)}),
            &fetcher(),
        )
        .unwrap();
        assert_eq!(ok.subject.len(), 200);
        assert_eq!(ok.message_limit(), MAX_MESSAGE_BYTES);
    }

    #[test]
    fn html_keeps_only_the_allowed_tags() {
        let clean = sanitize_html(
            "<b>bold</b> <script>alert(1)</script><img src=x onerror=y><a href=\"javascript:x\">j</a> \
             <a href=\"https://example.com\" onclick=\"z\">ok</a><div><i>it</i></div>",
        );
        assert_eq!(
            clean,
            "<b>bold</b> <a>j</a> <a href=\"https://example.com\">ok</a><i>it</i>"
        );
    }
}
