//! "Deep research": the text read in the Researching stage analysed into what every writer
//! needs — the topic, its keywords, the key points (the extractive writer's sentence ranking,
//! `build::writer::rank_sentences`) and the sentences in their original order.

use std::collections::HashMap;

use crate::content::source::SourceText;
use foundation::model::Language;
use video::build::{is_stopword, rank_sentences};

/// What the writers draw on.
#[derive(Debug, Clone, PartialEq)]
pub struct Research {
    /// The piece's subject: the page title, the idea, or the text's opening words.
    pub topic: String,
    /// Up to six content words, most frequent first.
    pub keywords: Vec<String>,
    /// Sentences of the source, best first.
    pub points: Vec<String>,
    /// Sentences of the source in their original order.
    pub sentences: Vec<String>,
    /// The source was an idea to grow from, not material to draw on.
    pub is_idea: bool,
    pub language: Language,
}

impl Research {
    /// The `i`-th keyword, or `fallback` (used by phrase slots).
    pub fn keyword(&self, i: usize, fallback: &str) -> String {
        self.keywords
            .get(i)
            .cloned()
            .unwrap_or_else(|| fallback.to_string())
    }

    /// Words of the source sentences.
    pub fn words(&self) -> usize {
        self.sentences
            .iter()
            .map(|s| s.split_whitespace().count())
            .sum()
    }
}

/// Analyses `src` for a piece in `language`.
pub(crate) fn analyse(src: &SourceText, language: Language) -> Research {
    let (sentences, scored) = rank_sentences(&src.text);
    let points = scored.iter().map(|(i, _)| sentences[*i].clone()).collect();
    let topic = if src.is_idea {
        tidy_topic(&src.text)
    } else if !src.title.trim().is_empty() {
        tidy_topic(page_title(&src.title))
    } else {
        tidy_topic(&video::build::title(&src.text))
    };
    Research {
        keywords: keywords(&format!("{topic}. {topic}. {}", src.text), 6),
        topic,
        points,
        sentences,
        is_idea: src.is_idea,
        language,
    }
}

/// A page title without its site name ("Solar at home | Energy Weekly" → "Solar at home").
fn page_title(title: &str) -> &str {
    [" | ", " - ", " – ", " — "]
        .iter()
        .fold(title, |t, sep| t.split(sep).next().unwrap_or(t))
}

/// One line, no closing punctuation, first letter upper case.
fn tidy_topic(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let one = one.trim_end_matches(['.', '!', '?', ',', ';', ':']).trim();
    let mut c = one.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Words that never start or end a key phrase beyond `content_words`' stopwords: question
/// words and the verbs and quantifiers ideas are phrased with.
const PHRASE_BREAKS: &[&str] = &[
    "why", "when", "where", "need", "needs", "should", "could", "would", "must", "make", "makes",
    "use", "using", "get", "gets", "best", "way", "ways", "tips", "guide", "things", "more",
    "most", "much", "many", "some", "also", "into", "about", "over", "every", "each", "really",
    "very", "own", "other", "help", "helps", "want", "know", "new", "good", "great", "tại", "sao",
    "cần", "nên", "làm", "thế", "nào", "gì", "để", "vì", "hay", "nhất", "nhiều", "giúp", "hơn",
    "việc", "về", "cách", "nhưng", "vẫn", "còn", "ra", "vào", "lên", "theo",
];

/// Up to `n` key phrases of one or two words (RAKE-style candidates): the text is cut into runs
/// of content words at stopwords and punctuation; a phrase scores the sum of its words'
/// frequencies, so frequent words in pairs rank first; ties go to the more frequent, then the
/// earlier phrase.
pub fn keywords(text: &str, n: usize) -> Vec<String> {
    // Vietnamese syllables are often two letters ("cà phê", "từ xa"); English words that
    // short are rarely keywords.
    let vietnamese = text.chars().any(|c| c.is_alphabetic() && !c.is_ascii());
    let min_chars = if vietnamese { 2 } else { 3 };
    let mut phrases: Vec<Vec<String>> = Vec::new();
    for sentence in video::build::split_sentences(text) {
        let mut run: Vec<String> = Vec::new();
        for raw in sentence.split_whitespace() {
            let w = raw
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            let content = w.chars().count() >= min_chars
                && !is_stopword(&w)
                && !PHRASE_BREAKS.contains(&w.as_str())
                && !w.chars().all(|c| c.is_ascii_digit());
            if content {
                run.push(w);
            }
            let breaks = !content || raw.ends_with([',', ';', ':', '.', '!', '?']);
            if breaks && !run.is_empty() {
                phrases.extend(run.chunks(2).map(<[String]>::to_vec));
                run.clear();
            }
        }
        if !run.is_empty() {
            phrases.extend(run.chunks(2).map(<[String]>::to_vec));
        }
    }
    let mut freq: HashMap<&str, f64> = HashMap::new();
    for p in &phrases {
        for w in p {
            *freq.entry(w).or_default() += 1.0;
        }
    }
    let mut seen: HashMap<String, (f64, usize, usize)> = HashMap::new();
    for (i, p) in phrases.iter().enumerate() {
        let score = p.iter().map(|w| freq[w.as_str()]).sum();
        seen.entry(p.join(" ")).or_insert((score, 0, i)).1 += 1;
    }
    let mut ranked: Vec<(String, (f64, usize, usize))> = seen.into_iter().collect();
    ranked.sort_by(|a, b| {
        b.1.0
            .total_cmp(&a.1.0)
            .then(b.1.1.cmp(&a.1.1))
            .then(a.1.2.cmp(&b.1.2))
    });
    ranked.into_iter().take(n).map(|(p, _)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idea_gives_its_topic_and_keywords() {
        let r = analyse(
            &SourceText {
                title: String::new(),
                text: "why remote teams need weekly rituals".into(),
                url: None,
                is_idea: true,
            },
            Language::English,
        );
        assert_eq!(r.topic, "Why remote teams need weekly rituals");
        assert_eq!(&r.keywords[..2], ["remote teams", "weekly rituals"]);
        assert!(r.is_idea);
        let vi = keywords("cà phê buổi sáng giúp đội làm việc từ xa gắn kết hơn", 4);
        assert_eq!(vi, ["cà phê", "buổi sáng", "từ xa", "gắn kết"]);
    }

    #[test]
    fn a_page_gives_ranked_points_and_its_title() {
        let r = analyse(
            &SourceText {
                title: "Solar at home | Energy Weekly".into(),
                text: "Solar panels cut bills. Cats sleep a lot. Solar panels last long. Panels need sun."
                    .into(),
                url: Some("https://example.com".into()),
                is_idea: false,
            },
            Language::English,
        );
        assert_eq!(r.topic, "Solar at home");
        assert_eq!(r.keywords[0], "solar panels");
        assert_eq!(r.sentences.len(), 4);
        assert_ne!(r.points[0], "Cats sleep a lot.");
    }
}
