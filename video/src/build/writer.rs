//! The writer capability: idea or blog text → narration (DESIGN.md §2, providers).
//!
//! [`Writer`] is the trait; [`Extractive`] the embedded default, deterministic and offline: the
//! spoken writer (`build::spoken`) gives the narration a hook, a body and a call to action at
//! the asked length, its body drawing first on the input's own best sentences (scored by the
//! frequency of their content words, kept in their original order). The OpenAI-compatible chat
//! connector lives in `llm.rs`. Both aim at the same targets: `video_length` short ≈ 90 s
//! (content_type 9), normal ≈ 3 min at most (content_type 10), in spoken words at the
//! narrator's pace ([`crate::build::spoken::target_words`]).

use crate::build::script::split_sentences;
use foundation::document::SceneType;
use foundation::model::{Language, Source, VideoLength};

/// What the writer is asked for.
#[derive(Debug, Clone)]
pub struct WriteRequest<'a> {
    /// The idea or blog text (already truncated to the source's limit).
    pub input: &'a str,
    pub source: Source,
    pub language: Language,
    pub video_length: VideoLength,
    /// Whether the writer may add facts from its own knowledge (connectors) — recorded either way.
    pub research_enabled: bool,
}

impl WriteRequest<'_> {
    /// Spoken words to aim for, at the narrator's pace in the request's language.
    pub(crate) fn target_words(&self) -> usize {
        crate::build::spoken::target_words(self.language, self.video_length)
    }

    /// Hard cap: a tenth over the target (short ≈ 97 s, normal ≈ 3 min at the narrator's pace).
    pub(crate) fn max_words(&self) -> usize {
        self.target_words() + self.target_words() / 10
    }

    /// The spec's content type: 9 short, 10 normal.
    pub fn content_type(&self) -> u8 {
        content_type(self.video_length)
    }
}

/// The spec's content type of a video length.
pub fn content_type(length: VideoLength) -> u8 {
    match length {
        VideoLength::Short => 9,
        VideoLength::Normal => 10,
    }
}

/// Narration and how it was written (recorded in the document).
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub narration: String,
    /// `extractive` or `openai`.
    pub provider: String,
    /// The model that wrote it (connectors).
    pub model: String,
    pub research_enabled: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum WriterError {
    #[error("writer upstream failed: {0}")]
    Upstream(String),
    #[error("the writer returned no usable narration")]
    Empty,
}

/// One scene whose overlay copy a writer may propose.
#[derive(Debug, Clone, Copy)]
pub struct CopyScene<'a> {
    pub text: &'a str,
    pub scene_type: SceneType,
}

/// Idea/blog → narration, and proposals for overlay copy.
pub trait Writer: Send + Sync {
    fn name(&self) -> &'static str;
    fn write(&self, req: &WriteRequest<'_>) -> Result<Written, WriterError>;

    /// Overlay copy for `scenes` (in `language`), one entry per scene, `None` where the writer
    /// proposes nothing. Scene building keeps a proposal only when it obeys
    /// [`crate::build::copy::check`]; otherwise direction's extractive choice stands. The
    /// embedded writer proposes nothing: its choice is direction's.
    fn overlay_copy(&self, scenes: &[CopyScene<'_>], language: &str) -> Vec<Option<String>> {
        let _ = (scenes, language);
        Vec::new()
    }
}

/// The embedded extractive writer.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Extractive;

impl Writer for Extractive {
    fn name(&self) -> &'static str {
        "embedded"
    }

    fn write(&self, req: &WriteRequest<'_>) -> Result<Written, WriterError> {
        if req.input.split_whitespace().count() == 0 {
            return Err(WriterError::Empty);
        }
        let target = req.target_words();
        // A blog post's best sentences make most of the body; an idea is said by the hook.
        let source = if split_sentences(req.input).len() > 1 {
            narrate(req.input, target * 3 / 4)
        } else {
            String::new()
        };
        let narration = crate::build::spoken::narration(
            req.input,
            &source,
            req.language,
            req.video_length,
            target,
        );
        let narration = cap_words(&narration, req.max_words());
        Ok(Written {
            narration,
            provider: "embedded".into(),
            model: String::new(),
            research_enabled: req.research_enabled,
        })
    }
}

/// `text` cut at whole sentences until its estimated speech fits `max_secs`: a writer's words
/// may be long, and the narration is held to its bound
/// ([`crate::build::script::max_narration_secs`]) once really spoken. The estimate errs long,
/// so what it keeps is spoken within the bound.
pub(crate) fn cap_speech(text: &str, max_secs: f64) -> String {
    use crate::build::script::estimated_speech_secs;
    let mut out = text.trim().to_string();
    while estimated_speech_secs(&out) > max_secs {
        let words = out.split_whitespace().count();
        let shorter = cap_words(&out, words * 9 / 10);
        if shorter.split_whitespace().count() >= words {
            break;
        }
        out = shorter;
    }
    out
}

/// At most `max` words, cut after the last whole sentence that fits (or at `max` words when
/// even the first sentence is longer), ending with sentence punctuation.
pub fn cap_words(text: &str, max: usize) -> String {
    if text.split_whitespace().count() <= max {
        return text.trim().to_string();
    }
    let mut out: Vec<&str> = Vec::new();
    let mut n = 0;
    let sents = split_sentences(text);
    for s in &sents {
        let k = s.split_whitespace().count();
        if n + k > max {
            break;
        }
        out.push(s);
        n += k;
    }
    let mut s = if out.is_empty() {
        text.split_whitespace()
            .take(max)
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        out.join(" ")
    };
    if !s.ends_with(['.', '!', '?', '…']) {
        s = s.trim_end_matches([',', ';', ':', '-', '—']).to_string();
        s.push('.');
    }
    s
}

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "for", "with", "by",
    "from", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these",
    "those", "as", "we", "you", "they", "he", "she", "i", "our", "your", "their", "not", "so",
    "do", "does", "can", "will", "just", "than", "then", "there", "what", "which", "who", "how",
    "và", "là", "của", "có", "cho", "không", "những", "các", "một", "được", "trong", "với", "này",
    "đó", "khi", "thì", "mà", "đã", "sẽ", "đang", "rất", "cũng", "như", "người", "bạn",
];

/// Whether `w` (lowercase) is a stopword of the extractive writer (English or Vietnamese).
pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.contains(&w)
}

/// The words of `s` that carry meaning: lowercase, punctuation trimmed, longer than two
/// letters, English and Vietnamese stopwords left out.
pub fn content_words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| w.chars().count() > 2 && !STOPWORDS.contains(&w.as_str()))
}

/// The sentences of `input` with their scores, best first (ties in text order): a sentence
/// scores the input-wide frequency of its content words, damped by its length; the opening
/// sentence frames the piece and weighs more.
pub fn rank_sentences(input: &str) -> (Vec<String>, Vec<(usize, f64)>) {
    let sents = split_sentences(input);
    let mut freq = std::collections::HashMap::<String, usize>::new();
    for w in content_words(input) {
        *freq.entry(w).or_default() += 1;
    }
    let mut scored: Vec<(usize, f64)> = sents
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let words: Vec<String> = content_words(s).collect();
            let score = words.iter().map(|w| freq[w] as f64).sum::<f64>()
                / (words.len().max(1) as f64).sqrt();
            let lead = if i == 0 { 1.5 } else { 1.0 };
            (i, score * lead)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    (sents, scored)
}

/// Narration for `input` of about `target` words. Ends with sentence
/// punctuation so the voice closes naturally.
pub fn narrate(input: &str, target: usize) -> String {
    let (sents, scored) = rank_sentences(input);
    let mut keep = Vec::new();
    let mut words = 0;
    for (i, _) in scored {
        let n = sents[i].split_whitespace().count();
        if words > 0 && words + n > target {
            continue;
        }
        keep.push(i);
        words += n;
        if words >= target {
            break;
        }
    }
    keep.sort_unstable();
    let mut out = keep
        .iter()
        .map(|&i| sents[i].as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if !out.ends_with(['.', '!', '?', '…']) {
        out.push('.');
    }
    out
}

/// A short title: the first sentence, at most 8 words.
pub fn title(text: &str) -> String {
    let first = split_sentences(text).into_iter().next().unwrap_or_default();
    let words: Vec<&str> = first.split_whitespace().take(8).collect();
    words
        .join(" ")
        .trim_end_matches(['.', '!', '?', ',', ';', ':'])
        .to_string()
}

/// 1–3 content words that best describe `text` (for B-roll search).
pub fn keyword(text: &str) -> String {
    let mut freq = std::collections::HashMap::<String, usize>::new();
    let mut order = Vec::new();
    for w in content_words(text) {
        if !freq.contains_key(&w) {
            order.push(w.clone());
        }
        *freq.entry(w).or_default() += 1;
    }
    let mut ranked: Vec<(usize, &String)> = order.iter().enumerate().collect();
    ranked.sort_by(|a, b| {
        (freq[b.1] * 10 + b.1.len())
            .cmp(&(freq[a.1] * 10 + a.1.len()))
            .then(a.0.cmp(&b.0))
    });
    ranked
        .into_iter()
        .take(2)
        .map(|(_, w)| w.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_target() {
        let input = "Solar panels cut power bills. Cats are nice. Solar power works on cloudy days too. \
                     Panels last twenty five years. Solar panels need little care.";
        let out = narrate(input, 15);
        assert!(out.split_whitespace().count() <= 16);
        assert!(out.starts_with("Solar panels cut power bills."));
        assert_eq!(narrate(input, 15), out, "deterministic");
    }

    #[test]
    fn short_input_is_kept_whole() {
        assert_eq!(
            narrate("Why remote teams need rituals", 225),
            "Why remote teams need rituals."
        );
    }

    fn request(input: &str, length: VideoLength, language: Language) -> WriteRequest<'_> {
        WriteRequest {
            input,
            source: Source::Blog,
            language,
            video_length: length,
            research_enabled: true,
        }
    }

    fn blog(sentences: usize, vietnamese: bool) -> String {
        (0..sentences)
            .map(|i| {
                if vietnamese {
                    format!("Câu số {i} nói về năng lượng mặt trời và hóa đơn điện của gia đình.")
                } else {
                    format!(
                        "Sentence {i} explains how solar panels lower the power bills of families."
                    )
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn length_targets_short_and_normal() {
        for vi in [false, true] {
            let language = if vi {
                Language::Vietnamese
            } else {
                Language::English
            };
            let input = blog(300, vi);
            let short = Extractive
                .write(&request(&input, VideoLength::Short, language))
                .unwrap();
            let n = short.narration.split_whitespace().count();
            let req = request(&input, VideoLength::Short, language);
            assert!(
                (req.target_words() * 9 / 10..=req.max_words()).contains(&n),
                "short: {n} words"
            );
            let normal = Extractive
                .write(&request(&input, VideoLength::Normal, language))
                .unwrap();
            let n = normal.narration.split_whitespace().count();
            let req = request(&input, VideoLength::Normal, language);
            assert!(
                (req.target_words() * 9 / 10..=req.max_words()).contains(&n),
                "normal: {n} words"
            );
            assert!(normal.research_enabled);
            assert_eq!(normal.provider, "embedded");
            // Deterministic.
            assert_eq!(
                Extractive
                    .write(&request(&input, VideoLength::Short, language))
                    .unwrap(),
                short
            );
        }
        assert_eq!(
            request("", VideoLength::Short, Language::English).content_type(),
            9
        );
        assert_eq!(
            request("", VideoLength::Normal, Language::English).content_type(),
            10
        );
    }

    #[test]
    fn caps_at_sentence_boundaries() {
        assert_eq!(
            cap_words("One two. Three four five. Six.", 5),
            "One two. Three four five."
        );
        assert_eq!(
            cap_words("one two three four five six", 3),
            "one two three."
        );
        assert_eq!(cap_words("Short.", 10), "Short.");
    }

    #[test]
    fn keywords_and_titles() {
        assert_eq!(
            keyword("Solar panels make solar power cheap"),
            "solar panels"
        );
        assert_eq!(title("Hello world. Next one."), "Hello world");
    }
}

#[cfg(test)]
mod speech_cap_tests {
    use super::*;
    use crate::build::script::{SHORT_NARRATION_MAX_SECS, estimated_speech_secs};

    #[test]
    fn narration_of_long_words_is_cut_at_sentences_to_fit_the_speech_cap() {
        let sentence = format!(
            "{} ends here. ",
            "Supercalifragilisticexpialidocious ".repeat(8)
        );
        let long = sentence.repeat(40);
        let max = SHORT_NARRATION_MAX_SECS;
        assert!(estimated_speech_secs(&long) > max);
        let capped = cap_speech(&long, max);
        assert!(estimated_speech_secs(&capped) <= max);
        assert!(
            capped.ends_with("ends here."),
            "cut at a sentence: {capped}"
        );
        assert_eq!(cap_speech("Short and sweet.", max), "Short and sweet.");
    }
}
