//! The signed no-login link of an account's pages: `{app_url}/link/{payload}.{signature}`. The
//! payload is the [`LinkClaims`] as base64url JSON, the signature HMAC-SHA256 over it with the
//! server secret (domain-separated from review links). [`open`] tells a tampered link (403)
//! from an expired one (410). `client_link/send` mints them; `notification/send` links the
//! setup page with one.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use foundation::error::Code;

/// How long a link opens when `ttl_days` is absent (the setup link's lifetime too).
pub(crate) const DEFAULT_TTL_DAYS: i64 = 7;

foundation::document::wire_enum! {
    /// The page a link opens.
    pub enum LinkType: Code::InvalidLinkType {
        Record = "record",
        ContentPlan = "content_plan",
        Setup = "setup",
        SocialDashboard = "social_dashboard",
        PublishSchedule = "publish_schedule",
    }
}

foundation::document::wire_enum! {
    /// The record page's layout: the full page or the player alone.
    pub enum RecordPage: Code::InvalidField {
        Record = "record.html",
        Record2 = "record2.html",
    }
}

/// What a link grants, signed into it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkClaims {
    /// The account whose pages it opens.
    pub a: String,
    pub t: LinkType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub i: Option<String>,
    pub p: RecordPage,
    /// Expiry, unix seconds.
    pub e: i64,
}

/// Why a link does not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkRefused {
    /// Malformed or not signed by us (403).
    Tampered,
    /// Signed by us but past its expiry (410).
    Expired,
}

fn mac(secret: &str) -> hmac::Hmac<Sha256> {
    let mut m = hmac::Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes keys of any length");
    m.update(b"client_link:");
    m
}

/// The token of `claims`: `{base64url JSON}.{hex HMAC}`.
pub fn sign(secret: &str, claims: &LinkClaims) -> String {
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).expect("claims serialise"));
    let mut m = mac(secret);
    m.update(payload.as_bytes());
    format!("{payload}.{}", hex::encode(m.finalize().into_bytes()))
}

/// The claims of a token, checked: signature first (constant time), then expiry.
pub fn open(secret: &str, token: &str, now: i64) -> Result<LinkClaims, LinkRefused> {
    let (payload, sig) = token.split_once('.').ok_or(LinkRefused::Tampered)?;
    let sig = hex::decode(sig).map_err(|_| LinkRefused::Tampered)?;
    let mut m = mac(secret);
    m.update(payload.as_bytes());
    m.verify_slice(&sig).map_err(|_| LinkRefused::Tampered)?;
    let bytes = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| LinkRefused::Tampered)?;
    let claims: LinkClaims = serde_json::from_slice(&bytes).map_err(|_| LinkRefused::Tampered)?;
    if claims.e <= now {
        return Err(LinkRefused::Expired);
    }
    Ok(claims)
}

/// The signed link of `account`'s `setup` page (what it can be sent and how each channel
/// stands), valid [`DEFAULT_TTL_DAYS`]: `setup_url` of `notification/send`.
pub fn setup_url(secret: &str, app_url: &str, account: &str, now: i64) -> String {
    let claims = LinkClaims {
        a: account.to_string(),
        t: LinkType::Setup,
        i: None,
        p: RecordPage::Record,
        e: now + DEFAULT_TTL_DAYS * 86_400,
    };
    format!("{app_url}/link/{}", sign(secret, &claims))
}
