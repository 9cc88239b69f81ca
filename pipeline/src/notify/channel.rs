//! The delivery channels behind one small [`Sender`] trait, so the notification, client-link and
//! error-report paths send the same way and tests can count on one behaviour per channel.

use serde::Serialize;
use utoipa::ToSchema;

use crate::notify::request::{Media, ParseMode};

/// A delivery channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Email,
    Telegram,
}

/// What goes out: the same for every channel, each renders it its own way.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub subject: String,
    /// Already sanitised when `parse_mode` is HTML.
    pub message: String,
    pub parse_mode: Option<ParseMode>,
    pub media: Option<Media>,
}

/// A delivered message.
#[derive(Debug, Clone, Default)]
pub struct Sent {
    /// The channel's id of the message (Telegram's `message_id`).
    pub message_id: Option<i64>,
}

/// Why a channel did not deliver.
#[derive(Debug, Clone)]
pub enum Refused {
    /// Not attempted: the message breaks the channel's own limit (a short public reason).
    Skipped(&'static str),
    /// Attempted and failed: a short public reason and the internal cause (logged only).
    Failed(&'static str, String),
}

/// One delivery channel. Blocking: called from a blocking thread.
pub trait Sender: Send + Sync {
    fn channel(&self) -> Channel;
    /// Delivers `msg` to `to` (an email address or a chat id).
    fn send(&self, to: &str, msg: &Outgoing) -> Result<Sent, Refused>;
}

/// `j***@example.com`: the first character of the local part, the domain kept.
pub fn mask_email(email: &str) -> String {
    match email.split_once('@') {
        Some((local, domain)) => {
            let first: String = local.chars().take(1).collect();
            format!("{first}***@{domain}")
        }
        None => "***".into(),
    }
}

/// `12****89`: the first and last two characters of a chat id.
pub(crate) fn mask_chat_id(id: &str) -> String {
    let chars: Vec<char> = id.chars().collect();
    if chars.len() <= 4 {
        return "****".into();
    }
    let head: String = chars[..2].iter().collect();
    let tail: String = chars[chars.len() - 2..].iter().collect();
    format!("{head}****{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipients_are_masked() {
        assert_eq!(mask_email("jane@example.com"), "j***@example.com");
        assert_eq!(mask_chat_id("123456789"), "12****89");
        assert_eq!(mask_chat_id("-1001"), "-1****01");
        assert_eq!(mask_chat_id("42"), "****");
    }
}
