//! The timed word: one word of narration and when it is spoken.
//!
//! Voices produce these, transcription recovers them, the video document stores them, the
//! compositor highlights captions with them and the designer times lines by them. typography is
//! the crate at the bottom, so it owns the one type every other crate uses.

use serde::{Deserialize, Serialize};

/// A word and when it is spoken, in seconds from the start of its scene (or recording).
///
/// Serialised as `{"word", "start", "end"}`: stored video documents and `_words.json` files use
/// exactly these names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct TimedWord {
    /// The word as spoken or displayed, punctuation attached (`"world."`).
    pub word: String,
    /// When it starts being spoken, seconds.
    pub start: f64,
    /// When it stops being spoken, seconds (`start <= end`; a following pause is not part of it).
    pub end: f64,
}

impl TimedWord {
    /// How long the word is spoken, seconds.
    pub fn duration(&self) -> f64 {
        self.end - self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_is_end_minus_start() {
        let w = TimedWord {
            word: "hello".into(),
            start: 1.25,
            end: 1.75,
        };
        assert_eq!(w.duration(), 0.5);
    }

    #[test]
    fn serialises_with_the_stored_field_names() {
        let w = TimedWord {
            word: "Việt".into(),
            start: 0.5,
            end: 0.75,
        };
        let json = serde_json::to_string(&w).unwrap();
        assert_eq!(json, r#"{"word":"Việt","start":0.5,"end":0.75}"#);
        let back: TimedWord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, w);
    }
}
