//! Key-phrase extraction (RAKE, Rose et al. 2010): a scene's words are cut into candidate
//! phrases at function words, weak words, numbers and clause punctuation; each word scores its
//! degree over its frequency among the candidates (words that live in longer phrases weigh
//! more), raised by how often the whole script uses it; a phrase scores the sum of its words.
//! Candidates longer than [`MAX_PHRASE`] words are read through their best window.

use std::collections::HashMap;

use super::words::{ends_clause, is_number, is_stop, norm};

/// Longest key phrase, in words.
pub(crate) const MAX_PHRASE: usize = 5;
/// Longest key phrase in Vietnamese, in syllables (its words are often two).
pub(crate) const MAX_PHRASE_VI: usize = 6;

/// How often each content word occurs in the whole script (the document context of a scene).
#[derive(Debug, Clone, Default)]
pub struct DocStats {
    freq: HashMap<String, usize>,
}

impl DocStats {
    /// Counts the words of every scene.
    pub fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> DocStats {
        let mut freq = HashMap::new();
        for t in texts {
            for w in t.split_whitespace() {
                if !is_stop(w) && !is_number(w) {
                    *freq.entry(norm(w)).or_default() += 1;
                }
            }
        }
        DocStats { freq }
    }

    fn weight(&self, w: &str) -> f64 {
        1.0 + 0.5 * (self.freq.get(w).copied().unwrap_or(1).max(1) as f64).ln()
    }
}

/// A key phrase: its words as written (punctuation trimmed), its score, where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Phrase {
    pub words: Vec<String>,
    pub score: f64,
    pub start: usize,
}

/// The candidate phrases of `text`: maximal runs of content words (with their word index).
fn candidates(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut run: Vec<String> = Vec::new();
    let mut start = 0;
    for (i, raw) in text.split_whitespace().enumerate() {
        let w = super::words::clean(raw);
        if w.is_empty() || is_stop(w) || is_number(w) {
            if !run.is_empty() {
                out.push((start, std::mem::take(&mut run)));
            }
            continue;
        }
        if run.is_empty() {
            start = i;
        }
        run.push(w.to_string());
        if ends_clause(raw) {
            out.push((start, std::mem::take(&mut run)));
        }
    }
    if !run.is_empty() {
        out.push((start, run));
    }
    out
}

/// The key phrases of `text`, best first (ties keep text order).
pub fn ranked(text: &str, doc: &DocStats) -> Vec<Phrase> {
    let cands = candidates(text);
    let mut freq: HashMap<String, f64> = HashMap::new();
    let mut degree: HashMap<String, f64> = HashMap::new();
    for (_, c) in &cands {
        for w in c {
            *freq.entry(norm(w)).or_default() += 1.0;
            *degree.entry(norm(w)).or_default() += c.len() as f64;
        }
    }
    let score = |w: &String| {
        let k = norm(w);
        degree[&k] / freq[&k] * doc.weight(&k)
    };
    let max = if super::words::is_vietnamese(text) {
        MAX_PHRASE_VI
    } else {
        MAX_PHRASE
    };
    let mut phrases: Vec<Phrase> = cands
        .iter()
        .map(|(start, c)| best_window(*start, c, max, &score))
        .collect();
    phrases.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.start.cmp(&b.start)));
    phrases
}

/// The better of a candidate's first and last `max` words (its ends are real phrase
/// boundaries; a window inside it would cut both).
fn best_window(start: usize, c: &[String], max: usize, score: &dyn Fn(&String) -> f64) -> Phrase {
    let n = c.len().min(max);
    let window = |a: usize| Phrase {
        words: c[a..a + n].to_vec(),
        score: c[a..a + n].iter().map(score).sum(),
        start: start + a,
    };
    let (first, last) = (window(0), window(c.len() - n));
    if last.score > first.score {
        last
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(text: &str) -> String {
        ranked(text, &DocStats::default())[0].words.join(" ")
    }

    #[test]
    fn phrases_are_cut_at_stop_words_and_punctuation() {
        assert_eq!(
            top("Most small businesses post videos that nobody finishes watching."),
            "small businesses post videos"
        );
        assert_eq!(
            top("Editing takes hours, and nobody on the team owns it."),
            "Editing takes hours"
        );
        assert_eq!(
            top("Nghiên cứu cho thấy thói quen nhỏ quan trọng hơn."),
            "thói quen nhỏ quan trọng"
        );
    }

    #[test]
    fn the_script_context_breaks_ties() {
        let text = "Good lighting helps, but clear audio helps more.";
        assert_eq!(top(text), "Good lighting helps");
        let doc = DocStats::of(["audio audio audio", text]);
        assert_eq!(ranked(text, &doc)[0].words.join(" "), "clear audio helps");
    }

    #[test]
    fn long_candidates_are_read_through_a_window() {
        let p = &ranked(
            "alpha beta gamma delta epsilon zeta eta",
            &DocStats::default(),
        )[0];
        assert_eq!(p.words.len(), MAX_PHRASE);
        assert!(ranked("the of and", &DocStats::default()).is_empty());
    }
}
