//! `POST /v1/notification/send`: resolves the account's channels (email when an address is on
//! file and SMTP is configured; Telegram in addition when a chat is connected and a bot token
//! is configured), applies the hourly limit, sends through each [`Sender`] and builds the
//! spec's reply with masked recipients. A channel that is not connected is `skipped` with
//! `reason: not_connected`.

use std::sync::Arc;

use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use crate::notify::channel::{Channel, Outgoing, Refused, Sender, mask_chat_id, mask_email};
use crate::notify::rate;
use crate::notify::request::{AttachmentKind, Notification};
use foundation::error::{Code, Error};
use foundation::fetch::Fetcher;
use foundation::model::Account;
use foundation::store::Store;
use foundation::time::now;

/// How one channel fared (spec: `sent`, `failed` with a reason, `skipped` with a reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    Sent,
    Failed,
    Skipped,
}

/// The `reason` of a channel `skipped` because the account has no recipient on it, or the
/// server has it switched off.
pub(crate) const NOT_CONNECTED: &str = "not_connected";

/// The overall outcome (every channel failing is a 502 instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotificationStatus {
    Sent,
    Partial,
}

/// The email channel's part of the reply.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EmailDelivery {
    pub status: DeliveryStatus,
    /// `j***@example.com`.
    pub recipient_email_masked: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The messaging app's part of the reply.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TelegramDelivery {
    pub status: DeliveryStatus,
    /// `12****89`.
    pub chat_id_masked: Option<String>,
    pub telegram_message_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The reply of `notification/send` (`request_id` is added by the HTTP layer).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct NotificationReply {
    /// Always `notification`.
    pub object: String,
    pub status: NotificationStatus,
    pub subject: String,
    pub media_kind: Option<AttachmentKind>,
    /// The channels that delivered.
    pub delivery: Vec<Channel>,
    pub email: EmailDelivery,
    pub telegram: TelegramDelivery,
    /// Set when only the messaging app is connected: how to add email.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// With `note`: the account's setup page (a signed link, valid 7 days).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub setup_url: Option<String>,
}

/// The configured channels.
#[derive(Clone, Default)]
pub struct Senders {
    pub email: Option<Arc<dyn Sender>>,
    pub telegram: Option<Arc<dyn Sender>>,
}

/// The notification service.
#[derive(Clone)]
pub struct Notifier {
    pub senders: Senders,
    pub store: Arc<Store>,
    pub fetcher: Fetcher,
    /// Messages an account may send per hour, all sending endpoints together
    /// (`[notify] max_per_hour`).
    pub max_per_hour: usize,
    /// Signs the `setup` client link that `setup_url` is (the server's signing secret).
    pub link_secret: String,
    /// `{app_url}`, where the setup page's link lives.
    pub app_url: String,
}

/// One channel's outcome.
pub struct Outcome {
    pub status: DeliveryStatus,
    pub message_id: Option<i64>,
    pub reason: Option<String>,
    /// Whether the channel was tried (false: not connected).
    pub attempted: bool,
}

impl Outcome {
    fn not_connected() -> Outcome {
        Outcome {
            status: DeliveryStatus::Skipped,
            message_id: None,
            reason: Some(NOT_CONNECTED.into()),
            attempted: false,
        }
    }
}

impl Notifier {
    /// Counts one message of `account` against the hourly limit, or refuses with 429
    /// `rate_limited` (with `details` and `Retry-After`). Every sending path calls this before
    /// it sends anything.
    pub(crate) async fn count_one(&self, account: &str) -> Result<(), Error> {
        let (store, name, max) = (self.store.clone(), account.to_string(), self.max_per_hour);
        foundation::blocking::run(move || rate::take(&store, &name, now(), max)).await
    }

    /// The page where `account` sees its channels and how to connect them: a signed `setup`
    /// client link.
    pub fn setup_url(&self, account: &str) -> String {
        crate::notify::link::setup_url(&self.link_secret, &self.app_url, account, now())
    }

    /// The account's email recipient when the email channel is usable.
    pub(crate) fn email_of<'a>(&self, account: &'a Account) -> Option<&'a str> {
        self.senders.email.as_ref()?;
        account.email.as_deref().filter(|e| !e.trim().is_empty())
    }

    /// The account's chat when the messaging channel is usable.
    pub(crate) fn chat_of<'a>(&self, account: &'a Account) -> Option<&'a str> {
        self.senders.telegram.as_ref()?;
        account
            .telegram_chat_id
            .as_deref()
            .filter(|c| !c.trim().is_empty())
    }

    /// Sends through one channel on a blocking thread.
    pub(crate) async fn deliver(sender: Arc<dyn Sender>, to: String, msg: Outgoing) -> Outcome {
        let channel = sender.channel();
        let res = foundation::blocking::spawn(move || sender.send(&to, &msg)).await;
        let (status, message_id, reason) = match res {
            Ok(Ok(sent)) => (DeliveryStatus::Sent, sent.message_id, None),
            Ok(Err(Refused::Skipped(why))) => {
                (DeliveryStatus::Skipped, None, Some(why.to_string()))
            }
            Ok(Err(Refused::Failed(why, cause))) => {
                tracing::warn!(?channel, %cause, "notification channel failed");
                (DeliveryStatus::Failed, None, Some(why.to_string()))
            }
            Err(e) => {
                tracing::error!(?channel, error = %e, "notification sender panicked");
                (DeliveryStatus::Failed, None, Some("internal_error".into()))
            }
        };
        Outcome {
            status,
            message_id,
            reason,
            attempted: true,
        }
    }

    /// `notification/send` for `account`.
    pub async fn send(
        &self,
        account: &Account,
        n: Notification,
    ) -> Result<NotificationReply, Error> {
        if let Some(m) = &n.media {
            let (code, param) = match m.kind {
                AttachmentKind::Photo => (Code::InvalidPhotoUrl, "photo_url"),
                AttachmentKind::Video => (Code::InvalidVideoUrl, "video_url"),
            };
            self.fetcher.guard(&m.url).await.map_err(|e| {
                Error::new(code, format!("`{param}` must be a public http(s) URL."))
                    .param(param)
                    .because(e)
            })?;
        }
        let email_to = self.email_of(account).map(str::to_string);
        let chat = self.chat_of(account).map(str::to_string);
        if email_to.is_none() && chat.is_none() {
            return Err(Error::new(
                Code::NoDeliveryChannel,
                "No delivery channel: add an email address or connect the messaging app.",
            )
            .details(json!({ "setup_url": self.setup_url(&account.name) })));
        }
        self.count_one(&account.name).await?;
        let msg = Outgoing {
            subject: n.subject.clone(),
            message: n.message.clone(),
            parse_mode: n.parse_mode,
            media: n.media.clone(),
        };
        let email = match (&email_to, &self.senders.email) {
            (Some(to), Some(s)) => Self::deliver(s.clone(), to.clone(), msg.clone()).await,
            _ => Outcome::not_connected(),
        };
        let telegram = match (&chat, &self.senders.telegram) {
            (Some(to), Some(s)) => Self::deliver(s.clone(), to.clone(), msg).await,
            _ => Outcome::not_connected(),
        };
        self.reply(&account.name, n, (email_to, email), (chat, telegram))
    }

    fn reply(
        &self,
        account: &str,
        n: Notification,
        (email_to, email): (Option<String>, Outcome),
        (chat, telegram): (Option<String>, Outcome),
    ) -> Result<NotificationReply, Error> {
        let attempted = [email.attempted, telegram.attempted]
            .iter()
            .filter(|a| **a)
            .count();
        let mut delivery = Vec::new();
        if email.status == DeliveryStatus::Sent {
            delivery.push(Channel::Email);
        }
        if telegram.status == DeliveryStatus::Sent {
            delivery.push(Channel::Telegram);
        }
        let email = EmailDelivery {
            status: email.status,
            recipient_email_masked: email_to.as_deref().map(mask_email),
            reason: email.reason,
        };
        let telegram = TelegramDelivery {
            status: telegram.status,
            chat_id_masked: chat.as_deref().map(mask_chat_id),
            telegram_message_id: telegram.message_id,
            reason: telegram.reason,
        };
        if delivery.is_empty() {
            return Err(Error::new(
                Code::NotificationSendFailed,
                "The notification could not be delivered on any channel.",
            )
            .details(json!({ "email": email, "telegram": telegram })));
        }
        let only_telegram = email_to.is_none();
        Ok(NotificationReply {
            object: "notification".into(),
            status: if delivery.len() == attempted {
                NotificationStatus::Sent
            } else {
                NotificationStatus::Partial
            },
            subject: n.subject,
            media_kind: n.media.map(|m| m.kind),
            delivery,
            email,
            telegram,
            note: only_telegram.then(|| {
                "Only the messaging app is connected; add an email address to receive \
                 notifications by email too."
                    .to_string()
            }),
            setup_url: only_telegram.then(|| self.setup_url(account)),
        })
    }
}
