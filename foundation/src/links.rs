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

/// What a review link's token opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewScope {
    /// The `review_url`'s token: the editor, its stream and socket, edits, export, uploads — and
    /// the player.
    Edit,
    /// The read-only player's token: the player and the stills and clips it shows, nothing that
    /// edits or streams the scene JSON.
    Player,
}

impl ReviewScope {
    /// The signed subject of a topic's token in this scope. The edit scope keeps the bare topic
    /// id, so every `review_url` handed out before scopes existed stays valid.
    fn subject(self, topic: &str) -> std::borrow::Cow<'_, str> {
        match self {
            ReviewScope::Edit => topic.into(),
            ReviewScope::Player => format!("player:{topic}").into(),
        }
    }
}

/// The token of `topic`'s review link in `scope`.
pub fn review_token(secret: &str, topic: &str, scope: ReviewScope) -> String {
    sign(secret, &scope.subject(topic))
}

/// The scope `token` grants on `topic`, or `None` when it is no token of ours for it.
pub fn review_scope(secret: &str, topic: &str, token: &str) -> Option<ReviewScope> {
    [ReviewScope::Edit, ReviewScope::Player]
        .into_iter()
        .find(|s| verify(secret, &s.subject(topic), token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_player_token_is_its_own_and_opens_only_its_topic() {
        let edit = review_token("s", "t1", ReviewScope::Edit);
        let player = review_token("s", "t1", ReviewScope::Player);
        assert_ne!(edit, player);
        assert_eq!(edit, sign("s", "t1"), "old review links stay valid");
        assert_eq!(review_scope("s", "t1", &edit), Some(ReviewScope::Edit));
        assert_eq!(review_scope("s", "t1", &player), Some(ReviewScope::Player));
        assert_eq!(review_scope("s", "t2", &player), None);
        assert_eq!(review_scope("other", "t1", &player), None);
        assert_eq!(review_scope("s", "t1", ""), None);
    }
}
