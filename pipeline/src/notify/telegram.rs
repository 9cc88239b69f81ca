//! The Telegram Bot API connector: `POST {api_base}/bot{token}/sendMessage`, `sendPhoto` or
//! `sendVideo` with a JSON body, answered `{ok, result: {message_id}}`. The subject is the bold
//! first line in the message's own parse mode; a text over Telegram's limits is skipped, not
//! cut.

use serde_json::json;

use crate::notify::channel::{Channel, Outgoing, Refused, Sender, Sent};
use crate::notify::request::{AttachmentKind, MAX_CAPTION_BYTES, ParseMode};
use foundation::connector::{self, Http};

/// Telegram's longest message text (after the subject line is added), bytes.
pub(crate) const MAX_TEXT_BYTES: usize = 4096;

/// The messaging-app channel.
pub struct Telegram {
    pub http: Http,
    pub api_base: String,
    pub token: String,
}

/// The message text with the subject as its bold first line, and the parse mode it is sent in
/// (plain messages go as HTML, escaped, so the subject can be bold).
pub(crate) fn compose(msg: &Outgoing) -> (String, &'static str) {
    match msg.parse_mode {
        Some(ParseMode::Markdown) => (
            format!(
                "*{}*\n{}",
                msg.subject.replace(['*', '_', '`', '['], ""),
                msg.message
            ),
            "Markdown",
        ),
        Some(ParseMode::MarkdownV2) => (
            format!("*{}*\n{}", escape_markdown_v2(&msg.subject), msg.message),
            "MarkdownV2",
        ),
        Some(ParseMode::Html) => (
            format!("<b>{}</b>\n{}", escape_html(&msg.subject), msg.message),
            "HTML",
        ),
        None => (
            format!(
                "<b>{}</b>\n{}",
                escape_html(&msg.subject),
                escape_html(&msg.message)
            ),
            "HTML",
        ),
    }
}

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn escape_markdown_v2(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "_*[]()~`>#+-=|{}.!\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Sender for Telegram {
    fn channel(&self) -> Channel {
        Channel::Telegram
    }

    fn send(&self, to: &str, msg: &Outgoing) -> Result<Sent, Refused> {
        let (text, mode) = compose(msg);
        let (method, body) = match &msg.media {
            None if text.len() > MAX_TEXT_BYTES => {
                return Err(Refused::Skipped("message_too_long"));
            }
            None => (
                "sendMessage",
                json!({"chat_id": to, "text": text, "parse_mode": mode}),
            ),
            Some(_) if text.len() > MAX_CAPTION_BYTES => {
                return Err(Refused::Skipped("caption_too_long"));
            }
            Some(m) => {
                let (method, field) = match m.kind {
                    AttachmentKind::Photo => ("sendPhoto", "photo"),
                    AttachmentKind::Video => ("sendVideo", "video"),
                };
                (
                    method,
                    json!({"chat_id": to, field: m.url, "caption": text, "parse_mode": mode}),
                )
            }
        };
        let url = connector::join(&self.api_base, &format!("bot{}/{method}", self.token));
        let reply = self
            .http
            .post_json(&url, &[], &body)
            .map_err(|e| Refused::Failed("telegram_unreachable", e))?;
        let v = reply.json().unwrap_or_default();
        if reply.status != 200 || v["ok"] != true {
            return Err(Refused::Failed(
                "telegram_rejected",
                format!("HTTP {}: {}", reply.status, reply.snippet()),
            ));
        }
        Ok(Sent {
            message_id: v["result"]["message_id"].as_i64(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notify::request::Media;
    use foundation::testserver;

    fn json_answer(status: u16, v: serde_json::Value) -> testserver::Answer {
        (
            status,
            "application/json".into(),
            v.to_string().into_bytes(),
        )
    }

    fn outgoing(media: Option<Media>) -> Outgoing {
        Outgoing {
            subject: "Done <1>".into(),
            message: "a & b".into(),
            parse_mode: None,
            media,
        }
    }

    #[test]
    fn a_plain_message_goes_as_escaped_html_with_a_bold_subject() {
        assert_eq!(
            compose(&outgoing(None)),
            ("<b>Done &lt;1&gt;</b>\na &amp; b".to_string(), "HTML")
        );
    }

    #[test]
    fn sends_a_photo_with_its_caption_and_reads_the_message_id() {
        let server = testserver::start(|_| {
            json_answer(
                200,
                serde_json::json!({"ok": true, "result": {"message_id": 77}}),
            )
        });
        let (_rt, http) = testserver::http_for(&server);
        let t = Telegram {
            http,
            api_base: server.url(),
            token: "123:abc".into(),
        };
        let media = Media {
            kind: AttachmentKind::Photo,
            url: "https://example.com/a.jpg".into(),
        };
        let sent = t.send("42", &outgoing(Some(media))).unwrap();
        assert_eq!(sent.message_id, Some(77));
        let req = &server.requests()[0];
        assert_eq!(req.path(), "/bot123:abc/sendPhoto");
        let body = req.json();
        assert_eq!(body["photo"], "https://example.com/a.jpg");
        assert_eq!(body["chat_id"], "42");
        assert_eq!(body["caption"], "<b>Done &lt;1&gt;</b>\na &amp; b");
    }

    #[test]
    fn a_rejection_is_a_failure_and_an_oversized_text_is_skipped() {
        let server = testserver::start(|_| {
            json_answer(
                400,
                serde_json::json!({"ok": false, "description": "chat not found"}),
            )
        });
        let (_rt, http) = testserver::http_for(&server);
        let t = Telegram {
            http,
            api_base: server.url(),
            token: "t".into(),
        };
        assert!(matches!(
            t.send("1", &outgoing(None)),
            Err(Refused::Failed("telegram_rejected", _))
        ));
        let mut big = outgoing(None);
        big.message = "x".repeat(4000);
        big.subject = "s".repeat(200);
        assert!(matches!(
            t.send("1", &big),
            Err(Refused::Skipped("message_too_long"))
        ));
    }
}
