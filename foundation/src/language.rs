//! The language of a text the service narrates or designs, between the spec's two: English and
//! Vietnamese. `whatlang` (trigram models, offline, deterministic) decides; nothing here is a
//! hand-made word list.
//!
//! The rules, in order:
//! 1. A text that `whatlang`, over all its languages, places in a third language with a
//!    confidence of at least [`OTHER_CONFIDENCE`] is [`Detected::Other`]: it is narrated as
//!    English, and the job says so in `details.notes`.
//! 2. Otherwise `whatlang` restricted to English and Vietnamese decides. Vietnamese written
//!    without diacritics ("Nguoi Viet bat dau ngay moi") lands here as Vietnamese: its
//!    syllables are Vietnamese, and the Vietnamese voice reads them far closer to what was meant
//!    (tones aside) than the English voice, which spells them out.
//! 3. A text with no letters at all is English (the embedded default).
//!
//! A scene of a mixed script takes the other language's voice only when that language is
//! [`clearly`] its own: a confidence of at least [`CLEAR_CONFIDENCE`] over at least
//! [`CLEAR_MIN_WORDS`] words.

use whatlang::{Detector, Lang};

use crate::model::Language;

/// The least confidence for a third language to win over English and Vietnamese.
pub(crate) const OTHER_CONFIDENCE: f64 = 0.5;
/// The least confidence for a scene to be clearly in the other language.
pub(crate) const CLEAR_CONFIDENCE: f64 = 0.9;
/// The fewest words for a scene to be clearly in the other language.
pub(crate) const CLEAR_MIN_WORDS: usize = 8;

/// What [`detect`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    pub detected: Detected,
    /// 0 to 1: how sure the detector is.
    pub confidence: f64,
}

/// A text's language: one the service narrates, or another (by its English name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    Spoken(Language),
    Other(&'static str),
}

impl Detection {
    /// The language the text is narrated and designed in: a third language is narrated as
    /// English.
    pub fn language(&self) -> Language {
        match self.detected {
            Detected::Spoken(l) => l,
            Detected::Other(_) => Language::English,
        }
    }

    /// The note a job carries when the text is in a language the service does not narrate.
    pub fn note(&self) -> Option<String> {
        match self.detected {
            Detected::Spoken(_) => None,
            Detected::Other(name) => Some(format!(
                "The script looks like {name}, which has no voice here; it is narrated as English."
            )),
        }
    }
}

/// The language of `text` (see the module's rules). Inline media URLs are not words.
pub fn detect(text: &str) -> Detection {
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !w.contains("://"))
        .collect();
    let text = words.join(" ");
    if let Some(info) = whatlang::detect(&text)
        && !matches!(info.lang(), Lang::Eng | Lang::Vie)
        && info.confidence() >= OTHER_CONFIDENCE
    {
        return Detection {
            detected: Detected::Other(info.lang().eng_name()),
            confidence: info.confidence(),
        };
    }
    let two = Detector::with_allowlist(vec![Lang::Eng, Lang::Vie]);
    match two.detect(&text) {
        Some(info) if info.lang() == Lang::Vie => Detection {
            detected: Detected::Spoken(Language::Vietnamese),
            confidence: info.confidence(),
        },
        Some(info) => Detection {
            detected: Detected::Spoken(Language::English),
            confidence: info.confidence(),
        },
        None => Detection {
            detected: Detected::Spoken(Language::English),
            confidence: 0.0,
        },
    }
}

/// The language `text` is clearly in (English or Vietnamese, at least [`CLEAR_CONFIDENCE`] over
/// at least [`CLEAR_MIN_WORDS`] words), if any.
pub fn clearly(text: &str) -> Option<Language> {
    if text.split_whitespace().count() < CLEAR_MIN_WORDS {
        return None;
    }
    let d = detect(text);
    match d.detected {
        Detected::Spoken(l) if d.confidence >= CLEAR_CONFIDENCE => Some(l),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn language(text: &str) -> Language {
        detect(text).language()
    }

    #[test]
    fn one_sentence_of_each_language_is_told_apart() {
        for en in [
            "Start your morning with a short walk.",
            "Coffee in Vietnam starts on the red hills of the Central Highlands.",
            "Three habits make remote teams feel close.",
        ] {
            assert_eq!(language(en), Language::English, "{en}");
        }
        for vi in [
            "Người Việt bắt đầu ngày mới bằng một ly cà phê sữa đá.",
            "Cà phê Việt Nam bắt đầu từ những đồi đất đỏ ở Tây Nguyên.",
            "Hãy thử đi bộ mười phút sau bữa trưa.",
        ] {
            assert_eq!(language(vi), Language::Vietnamese, "{vi}");
        }
    }

    #[test]
    fn vietnamese_without_diacritics_is_vietnamese() {
        for vi in [
            "Nguoi Viet bat dau ngay moi bang mot ly ca phe sua da.",
            "Ca phe Viet Nam bat dau tu nhung doi dat do o Tay Nguyen.",
        ] {
            assert_eq!(language(vi), Language::Vietnamese, "{vi}");
        }
    }

    #[test]
    fn a_third_language_is_narrated_as_english_with_a_note() {
        let d = detect("Le café commence sur les collines rouges du plateau central.");
        assert_eq!(d.detected, Detected::Other("French"));
        assert_eq!(d.language(), Language::English);
        assert!(d.note().unwrap().contains("French"), "{:?}", d.note());
        assert_eq!(detect("Start your morning with a walk.").note(), None);
    }

    #[test]
    fn inline_media_urls_are_not_words() {
        let script = "Người Việt bắt đầu ngày mới bằng cà phê. https://example.com/the-best-english-words-here.png";
        assert_eq!(language(script), Language::Vietnamese);
    }

    #[test]
    fn text_without_letters_is_english() {
        assert_eq!(language(""), Language::English);
        assert_eq!(language("42 17"), Language::English);
    }

    #[test]
    fn a_scene_is_clearly_in_a_language_only_over_enough_words() {
        assert_eq!(
            clearly("Người Việt bắt đầu ngày mới bằng một ly cà phê sữa đá."),
            Some(Language::Vietnamese)
        );
        assert_eq!(
            clearly("Most people start the day with a strong cup of coffee."),
            Some(Language::English)
        );
        assert_eq!(clearly("Cà phê sữa đá."), None, "too few words");
    }
}
