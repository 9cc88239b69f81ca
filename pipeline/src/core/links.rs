//! Signed, unguessable tokens for public links (review URLs).

use hmac::{KeyInit, Mac};
use sha2::Sha256;

/// A 32-hex token binding `subject` to the server secret.
pub fn sign(secret: &str, subject: &str) -> String {
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes keys of any length");
    mac.update(b"link:");
    mac.update(subject.as_bytes());
    hex::encode(&mac.finalize().into_bytes()[..16])
}

/// Constant-time check of a token made by [`sign`].
pub fn verify(secret: &str, subject: &str, token: &str) -> bool {
    let expected = sign(secret, subject);
    expected.len() == token.len()
        && expected
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}
