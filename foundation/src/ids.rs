//! Identifiers: topic ids, request/event/delivery ids and API keys.
//!
//! Every id is random (from the OS-seeded thread RNG), never derived from
//! user input, so none can be guessed or collide with a client-chosen name.

use rand::Rng;
use sha2::{Digest, Sha256};

use crate::error::{Code, Error, Result};

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn base62(len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| BASE62[rng.random_range(0..BASE62.len())] as char)
        .collect()
}

fn hex_id(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill(&mut buf[..]);
    hex::encode(buf)
}

/// A new topic id: `wc` + 22 base62 characters.
pub fn topic_id() -> String {
    format!("wc{}", base62(22))
}

/// The request schemas' pattern of a topic id (attributes spell it out literally).
pub const TOPIC_ID_PATTERN: &str = "^(wc|topic)[A-Za-z0-9]{1,64}$";

/// Whether `id` is an accepted topic id: the current form (`wc` + alphanumerics)
/// or the legacy form (`topic` + alphanumerics) that scene endpoints accept. The request schemas
/// say the same as [`TOPIC_ID_PATTERN`].
pub fn is_topic_id(id: &str) -> bool {
    let rest = id.strip_prefix("wc").or_else(|| id.strip_prefix("topic"));
    matches!(rest, Some(r) if !r.is_empty() && r.len() <= 64 && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// `id` trimmed, when it is a topic id ([`is_topic_id`]); otherwise `code` naming `param`, the
/// field it was sent in.
pub fn checked_topic_id(id: &str, code: Code, param: &str) -> Result<String> {
    let id = id.trim();
    if is_topic_id(id) {
        return Ok(id.to_string());
    }
    Err(Error::new(
        code,
        format!(
            "`{param}` must be `wc` (or the legacy `topic`) followed by 1 to 64 letters and digits."
        ),
    )
    .param(param))
}

/// `req_` + 24 hex.
pub fn request_id() -> String {
    format!("req_{}", hex_id(12))
}

/// A publish id or publish request id: `pub_` + 24 hex.
pub fn publish_id() -> String {
    format!("pub_{}", hex_id(12))
}

/// `evt_` + 24 hex.
pub fn event_id() -> String {
    format!("evt_{}", hex_id(12))
}

/// A webhook delivery id (hex).
pub(crate) fn delivery_id() -> String {
    hex_id(12)
}

/// An unguessable token for public file names (16 hex).
pub fn file_token() -> String {
    hex_id(8)
}

/// A new API key: `rsk_` + 32 base62.
pub fn api_key() -> String {
    format!("rsk_{}", base62(32))
}

/// How API keys are stored: SHA-256, hex. The key itself is never stored.
pub(crate) fn hash_api_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checked_topic_id_is_trimmed_and_a_bad_one_names_its_field() {
        let ok = checked_topic_id(" wcAbc123 ", Code::InvalidId, "id");
        assert_eq!(ok.unwrap(), "wcAbc123");
        assert_eq!(
            checked_topic_id("topic9", Code::InvalidId, "id").unwrap(),
            "topic9"
        );
        for bad in ["", "wc", "wc-1", "vid123"] {
            let e = checked_topic_id(bad, Code::InvalidTopicId, "topic_id").unwrap_err();
            assert_eq!(
                (e.code, e.param.as_deref()),
                (Code::InvalidTopicId, Some("topic_id"))
            );
        }
    }

    #[test]
    fn shapes() {
        let t = topic_id();
        assert_eq!(t.len(), 24);
        assert!(is_topic_id(&t));
        assert!(request_id().starts_with("req_") && request_id().len() == 28);
        assert!(event_id().starts_with("evt_") && event_id().len() == 28);
        let k = api_key();
        assert_eq!(k.len(), 36);
        assert_eq!(hash_api_key(&k).len(), 64);
        assert_ne!(topic_id(), topic_id());
    }

    #[test]
    fn topic_id_forms() {
        assert!(is_topic_id("topic123abc"));
        assert!(is_topic_id("wcAbc123"));
        assert!(!is_topic_id("wc"));
        assert!(!is_topic_id("wc-123"));
        assert!(!is_topic_id("../etc/passwd"));
        assert!(!is_topic_id("xyz123"));
        assert!(!is_topic_id(""));
    }
}
