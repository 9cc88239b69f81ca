//! The embedded writer: idea or blog text → narration, deterministically and
//! offline. Extractive: sentences are scored by the frequency of their
//! content words across the input, the best are kept in their original
//! order until the length target is reached.

use crate::model::VideoLength;
use crate::script::split_sentences;

/// Narration pace used for length targets, words per minute.
const WORDS_PER_MINUTE: usize = 150;

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "for", "with", "by",
    "from", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these",
    "those", "as", "we", "you", "they", "he", "she", "i", "our", "your", "their", "not", "so",
    "do", "does", "can", "will", "just", "than", "then", "there", "what", "which", "who", "how",
    "và", "là", "của", "có", "cho", "không", "những", "các", "một", "được", "trong", "với",
];

/// Target narration length in words.
pub fn target_words(length: VideoLength) -> usize {
    match length {
        VideoLength::Short => WORDS_PER_MINUTE * 90 / 60,
        VideoLength::Normal => WORDS_PER_MINUTE * 3,
    }
}

fn content_words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| w.chars().count() > 2 && !STOPWORDS.contains(&w.as_str()))
}

/// Narration for `input` of about `target` words. Ends with sentence
/// punctuation so the voice closes naturally.
pub fn narrate(input: &str, target: usize) -> String {
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
            // The opening sentence frames the piece; keep it likely.
            let lead = if i == 0 { 1.5 } else { 1.0 };
            (i, score * lead)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
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

    #[test]
    fn keywords_and_titles() {
        assert_eq!(
            keyword("Solar panels make solar power cheap"),
            "solar panels"
        );
        assert_eq!(title("Hello world. Next one."), "Hello world");
    }
}
