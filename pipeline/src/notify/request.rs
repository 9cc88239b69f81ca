//! The typed `POST /v1/notification/send` request: every rule of the spec read as
//! [`NotificationBody`] (subject and message byte limits, `parse_mode`, the media pair), the HTML subset
//! sanitised, and the OpenAPI schema of the body. The media URLs' DNS part of the SSRF guard
//! runs when the notification is sent (`send.rs`); the rest of the guard runs here.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use foundation::error::{Code, Error};
use foundation::fetch::Fetcher;
use foundation::fields::Body;

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

/// The limit `message` is held to: a caption's when media is attached.
fn message_limit(with_media: bool) -> usize {
    if with_media {
        MAX_CAPTION_BYTES
    } else {
        MAX_MESSAGE_BYTES
    }
}

fn invalid(code: Code, param: &str, msg: impl Into<String>) -> Error {
    Error::new(code, msg).param(param)
}

/// Read by `foundation::fields::body::read`, then [`NotificationBody::check`]ed into a
/// [`Notification`].
impl Body for NotificationBody {
    /// Still to pass the SSRF guard's checks of its media URL ([`NotificationBody::check`]).
    type Valid = NotificationBody;
    const CODES: &'static [(&'static str, Code)] = &[
        ("parse_mode", Code::InvalidParseMode),
        ("photo_url", Code::InvalidPhotoUrl),
        ("video_url", Code::InvalidVideoUrl),
    ];

    /// Every rule but the media URL's guard.
    fn validate(self) -> Result<NotificationBody, Error> {
        let subject_bytes = self.subject.trim().len();
        if subject_bytes > MAX_SUBJECT_BYTES {
            return Err(invalid(
                Code::SubjectTooLong,
                "subject",
                format!("`subject` has {subject_bytes} bytes; the limit is {MAX_SUBJECT_BYTES}."),
            ));
        }
        if self.photo_url.is_some() && self.video_url.is_some() {
            return Err(invalid(
                Code::ConflictingMedia,
                "video_url",
                "Send `photo_url` or `video_url`, not both.",
            ));
        }
        let with_media = self.photo_url.is_some() || self.video_url.is_some();
        let limit = message_limit(with_media);
        let sent_bytes = self.message.len();
        if sent_bytes > limit {
            let what = if with_media {
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
        Ok(self)
    }
}

impl NotificationBody {
    /// The notification, once its media URL passed the guard: a public http(s) URL (its DNS
    /// part runs when it is sent). With `parse_mode: HTML` the message is sanitised.
    pub fn check(self, fetcher: &Fetcher) -> Result<Notification, Error> {
        let media = match (self.photo_url, self.video_url) {
            (Some(u), _) => Some(media(AttachmentKind::Photo, &u, fetcher)?),
            (None, Some(u)) => Some(media(AttachmentKind::Video, &u, fetcher)?),
            (None, None) => None,
        };
        Ok(Notification {
            subject: self.subject.trim().to_string(),
            message: match self.parse_mode {
                Some(ParseMode::Html) => sanitize_html(&self.message),
                _ => self.message,
            },
            parse_mode: self.parse_mode,
            media,
        })
    }
}

/// `url` as the photo or video attached, when the guard lets it through.
fn media(kind: AttachmentKind, url: &str, fetcher: &Fetcher) -> Result<Media, Error> {
    let (code, param) = match kind {
        AttachmentKind::Photo => (Code::InvalidPhotoUrl, "photo_url"),
        AttachmentKind::Video => (Code::InvalidVideoUrl, "video_url"),
    };
    match fetcher.check(url) {
        Ok((parsed, _)) => Ok(Media {
            kind,
            url: parsed.to_string(),
        }),
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
#[derive(Deserialize, ToSchema)]
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
    use foundation::fields::body;
    use serde_json::Value;
    use serde_json::json;

    fn notification(body: &Value, fetcher: &Fetcher) -> Result<Notification, Error> {
        body::read::<NotificationBody>(body)?.check(fetcher)
    }

    fn fetcher() -> Fetcher {
        Fetcher::new(&[], "test")
    }

    fn code(body: Value) -> (Code, Option<String>) {
        let e = notification(&body, &fetcher()).unwrap_err();
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
        let ok = notification(
            &json!({"subject": "é".repeat(100), "message": "x".repeat(4000)}),
            &fetcher(),
        )
        .unwrap();
        assert_eq!(ok.subject.len(), 200);
        assert_eq!(message_limit(ok.media.is_some()), MAX_MESSAGE_BYTES);
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
