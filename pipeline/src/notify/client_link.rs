//! `POST /v1/client_link/send`: a signed no-login `magic_url` to one of the account's pages
//! (the token: [`crate::notify::link`]), optionally announced through the notification
//! channels.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::notify::channel::{Outgoing, Sender};
use crate::notify::link::DEFAULT_TTL_DAYS;
pub use crate::notify::link::{LinkClaims, LinkRefused, LinkType, RecordPage, open, sign};
use crate::notify::send::{DeliveryStatus, NOT_CONNECTED, Notifier};
use foundation::error::{Code, Error};
use foundation::fields::Body;
use foundation::model::Account;

/// `ttl_days` when absent ([`DEFAULT_TTL_DAYS`]), and its bounds (values outside are clamped).
pub(crate) const MIN_TTL_DAYS: i64 = 1;
pub(crate) const MAX_TTL_DAYS: i64 = 30;
/// Longest `topic_id`.
pub(crate) const MAX_TOPIC_ID: usize = 64;

/// Which channels announce the link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Channels {
    pub telegram: bool,
    pub sms: bool,
    pub email: bool,
}

/// A validated request.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkRequest {
    pub link_type: LinkType,
    pub topic_id: Option<String>,
    pub ttl_days: i64,
    pub channels: Channels,
    pub page: RecordPage,
}

fn invalid(code: Code, param: &str, msg: impl Into<String>) -> Error {
    Error::new(code, msg).param(param)
}

/// Read by `foundation::fields::body::read` into a [`LinkRequest`].
impl Body for ClientLinkBody {
    type Valid = LinkRequest;
    const CODES: &'static [(&'static str, Code)] = &[
        ("link_type", Code::InvalidLinkType),
        ("topic_id", Code::InvalidTopicId),
        ("channels", Code::InvalidChannels),
    ];

    fn validate(self) -> Result<LinkRequest, Error> {
        let topic_id = match self.link_type {
            LinkType::Record => Some(record_topic(self.topic_id)?),
            _ => None,
        };
        let channels = self.channels.map_or(Channels::default(), |c| Channels {
            telegram: c.telegram.unwrap_or(false),
            sms: c.sms.unwrap_or(false),
            email: c.email.unwrap_or(false),
        });
        Ok(LinkRequest {
            link_type: self.link_type,
            topic_id,
            ttl_days: self
                .ttl_days
                .unwrap_or(DEFAULT_TTL_DAYS)
                .clamp(MIN_TTL_DAYS, MAX_TTL_DAYS),
            channels,
            page: self.page.unwrap_or(RecordPage::Record),
        })
    }
}

/// The `topic_id` a record link needs: 1 to 64 letters, digits, `_` or `-`.
fn record_topic(topic_id: Option<String>) -> Result<String, Error> {
    let t = topic_id.ok_or_else(|| Error::missing("topic_id"))?;
    let ok = (1..=MAX_TOPIC_ID).contains(&t.len())
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !ok {
        return Err(invalid(
            Code::InvalidTopicId,
            "topic_id",
            "`topic_id` must be 1 to 64 letters, digits, `_` or `-`.",
        ));
    }
    Ok(t)
}

/// One channel's result.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChannelResult {
    pub status: DeliveryStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Per channel results, present when any channel was asked for.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LinkResults {
    pub telegram: ChannelResult,
    pub sms: ChannelResult,
    pub email: ChannelResult,
}

/// The reply of `client_link/send` (`request_id` is added by the HTTP layer).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClientLinkReply {
    /// Always `client_link`.
    pub object: String,
    pub link_type: LinkType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic_id: Option<String>,
    pub magic_url: String,
    pub expires_in_days: i64,
    /// Whether any channel delivered the link.
    pub notified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub results: Option<LinkResults>,
}

fn skipped(reason: &str) -> ChannelResult {
    ChannelResult {
        status: DeliveryStatus::Skipped,
        reason: Some(reason.into()),
    }
}

/// The spec's 500 `client_link_failed`: the email channel was asked for and the key's account
/// has no email on file, so there is no one to send the link to. Checked before anything is
/// minted or sent.
fn check_email_on_file(account: &Account, c: &Channels) -> Result<(), Error> {
    let has_email = account
        .email
        .as_deref()
        .is_some_and(|e| !e.trim().is_empty());
    if c.email && !has_email {
        return Err(Error::new(
            Code::ClientLinkFailed,
            "The email channel was requested, but this account has no email on file. Set one with `reelsmith accounts set --email`, or leave `channels.email` out.",
        )
        .param("channels"));
    }
    Ok(())
}

/// Mints the link and announces it on the requested channels. Announcing counts one message
/// against the account's hourly limit (429 `rate_limited`: nothing is sent, no link returned).
pub async fn send(
    notifier: &Notifier,
    (secret, app_url, now): (&str, &str, i64),
    account: &Account,
    req: LinkRequest,
) -> Result<ClientLinkReply, Error> {
    check_email_on_file(account, &req.channels)?;
    let claims = LinkClaims {
        a: account.name.clone(),
        t: req.link_type,
        i: req.topic_id.clone(),
        p: req.page,
        e: now + req.ttl_days * 86_400,
    };
    let magic_url = format!("{app_url}/link/{}", sign(secret, &claims));
    let c = req.channels;
    let results = if c.telegram || c.sms || c.email {
        Some(announce(notifier, account, &c, &magic_url, req.ttl_days).await?)
    } else {
        None
    };
    let notified = results
        .as_ref()
        .is_some_and(|r| [r.telegram.status, r.email.status].contains(&DeliveryStatus::Sent));
    Ok(ClientLinkReply {
        object: "client_link".into(),
        link_type: req.link_type,
        topic_id: req.topic_id,
        magic_url,
        expires_in_days: req.ttl_days,
        notified,
        results,
    })
}

/// A channel's sender and the account's recipient on it, when asked for and connected.
type Target = Option<(Arc<dyn Sender>, String)>;

/// Sends the link on each requested, connected channel (one message against the limit when
/// any is); the others are `skipped` with their reason.
async fn announce(
    notifier: &Notifier,
    account: &Account,
    c: &Channels,
    magic_url: &str,
    ttl_days: i64,
) -> Result<LinkResults, Error> {
    let target = |on: bool, to: Option<&str>, sender: &Option<Arc<dyn Sender>>| -> Target {
        match (on, to, sender) {
            (true, Some(to), Some(s)) => Some((s.clone(), to.to_string())),
            _ => None,
        }
    };
    let tg = target(
        c.telegram,
        notifier.chat_of(account),
        &notifier.senders.telegram,
    );
    let em = target(c.email, notifier.email_of(account), &notifier.senders.email);
    if tg.is_some() || em.is_some() {
        notifier.count_one(&account.name).await?;
    }
    let msg = Outgoing {
        subject: "Your link".into(),
        message: format!("Open your page (valid {ttl_days} days, no sign-in): {magic_url}"),
        parse_mode: None,
        media: None,
    };
    let deliver = |target: Target, on: bool| {
        let msg = msg.clone();
        async move {
            match target {
                Some((s, to)) => {
                    let o = Notifier::deliver(s, to, msg).await;
                    ChannelResult {
                        status: o.status,
                        reason: o.reason,
                    }
                }
                None if on => skipped(NOT_CONNECTED),
                None => skipped("not_requested"),
            }
        }
    };
    Ok(LinkResults {
        telegram: deliver(tg, c.telegram).await,
        sms: skipped(if c.sms {
            "sms_not_configured"
        } else {
            "not_requested"
        }),
        email: deliver(em, c.email).await,
    })
}

/// The body of `POST /v1/client_link/send`.
#[derive(Deserialize, ToSchema)]
pub struct ClientLinkBody {
    link_type: LinkType,
    /// Required for `record`, ignored otherwise.
    #[schema(pattern = "^[A-Za-z0-9_-]{1,64}$")]
    topic_id: Option<String>,
    /// Days the link stays valid; clamped to 1–30, 7 when absent.
    ttl_days: Option<i64>,
    /// Channels that announce the link; none: mint only.
    channels: Option<ChannelsBody>,
    /// The record page's layout.
    page: Option<RecordPage>,
}

/// `{telegram?, sms?, email?}` booleans.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChannelsBody {
    telegram: Option<bool>,
    sms: Option<bool>,
    email: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use foundation::fields::body;
    use serde_json::json;

    #[test]
    fn every_rule_answers_with_its_code() {
        let cases = [
            (json!({}), Code::MissingField, "link_type"),
            (
                json!({"link_type": "inbox"}),
                Code::InvalidLinkType,
                "link_type",
            ),
            (
                json!({"link_type": "record"}),
                Code::MissingField,
                "topic_id",
            ),
            (
                json!({"link_type": "record", "topic_id": "a/b"}),
                Code::InvalidTopicId,
                "topic_id",
            ),
            (
                json!({"link_type": "record", "topic_id": "a".repeat(65)}),
                Code::InvalidTopicId,
                "topic_id",
            ),
            (
                json!({"link_type": "setup", "channels": [true]}),
                Code::InvalidChannels,
                "channels",
            ),
            (
                json!({"link_type": "setup", "channels": {"fax": true}}),
                Code::InvalidChannels,
                "channels",
            ),
            (
                json!({"link_type": "setup", "channels": {"sms": "yes"}}),
                Code::InvalidChannels,
                "channels",
            ),
        ];
        for (body, code, param) in cases {
            let e = body::read::<ClientLinkBody>(&body).unwrap_err();
            assert_eq!((e.code, e.param.as_deref()), (code, Some(param)), "{body}");
        }
        let r = body::read::<ClientLinkBody>(
            &json!({"link_type": "setup", "topic_id": "??", "ttl_days": 90}),
        )
        .unwrap();
        assert_eq!((r.topic_id, r.ttl_days), (None, 30));
        assert_eq!(
            body::read::<ClientLinkBody>(&json!({"link_type": "setup", "ttl_days": 0}))
                .unwrap()
                .ttl_days,
            1
        );
    }

    #[test]
    fn a_link_opens_until_it_expires_and_never_when_altered() {
        let claims = LinkClaims {
            a: "default".into(),
            t: LinkType::Record,
            i: Some("rs_1".into()),
            p: RecordPage::Record,
            e: 1000,
        };
        let token = sign("secret", &claims);
        assert_eq!(open("secret", &token, 999), Ok(claims.clone()));
        assert_eq!(open("secret", &token, 1000), Err(LinkRefused::Expired));
        assert_eq!(open("other", &token, 0), Err(LinkRefused::Tampered));
        let mut forged = claims;
        forged.e = 9_999_999;
        let (_, sig) = token.split_once('.').unwrap();
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&forged).unwrap());
        assert_eq!(
            open("secret", &format!("{payload}.{sig}"), 0),
            Err(LinkRefused::Tampered)
        );
        assert_eq!(open("secret", "nonsense", 0), Err(LinkRefused::Tampered));
    }
}
