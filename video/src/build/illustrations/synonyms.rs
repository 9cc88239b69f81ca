//! The B-roll synonym list (`synonyms.txt`, compiled in): for a query, the phrases a relevant
//! picture may carry in its title or keywords, each with the weight it ranks by.

use std::sync::OnceLock;

use crate::build::broll::tokenize;

/// How a phrase relates to the query (ranking weight).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relation {
    /// The query itself.
    Same,
    /// A synonym from the list.
    Synonym,
    /// A picture that shows the term (right of `>` in the list).
    Shows,
}

impl Relation {
    pub fn weight(self) -> f64 {
        match self {
            Relation::Same => 6.0,
            Relation::Synonym => 4.0,
            Relation::Shows => 3.0,
        }
    }
}

/// One phrase to look for: its tokens, all of which must match.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Phrase {
    pub tokens: Vec<String>,
    pub relation: Relation,
}

/// One line of the list, tokenised.
struct Entry {
    /// The term and its synonyms: a query equal to any of them expands to the whole line.
    names: Vec<Vec<String>>,
    shows: Vec<Vec<String>>,
}

fn entries() -> &'static [Entry] {
    static LIST: OnceLock<Vec<Entry>> = OnceLock::new();
    LIST.get_or_init(|| parse(include_str!("synonyms.txt")))
}

fn parse(text: &str) -> Vec<Entry> {
    let phrases = |s: &str| -> Vec<Vec<String>> {
        s.split(',')
            .map(tokenize)
            .filter(|t| !t.is_empty())
            .collect()
    };
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (left, shows) = l.split_once('>').unwrap_or((l, ""));
            Entry {
                names: phrases(&left.replace('=', ",")),
                shows: phrases(shows),
            }
        })
        .collect()
}

/// The phrases that answer `query`: itself first, then every synonym and picture of each list
/// line it names, each once.
pub(crate) fn expand(query: &str) -> Vec<Phrase> {
    let tokens = tokenize(query);
    if tokens.is_empty() {
        return Vec::new();
    }
    let mut out = vec![Phrase {
        tokens: tokens.clone(),
        relation: Relation::Same,
    }];
    for e in entries().iter().filter(|e| e.names.contains(&tokens)) {
        let more = e
            .names
            .iter()
            .map(|n| (n, Relation::Synonym))
            .chain(e.shows.iter().map(|n| (n, Relation::Shows)));
        for (n, relation) in more {
            if !out.iter().any(|p| &p.tokens == n) {
                out.push(Phrase {
                    tokens: n.clone(),
                    relation,
                });
            }
        }
    }
    out
}

/// Whether a keyword token `have` stands for the query token `want`: the same stem, or its
/// agent noun (`teach` → `teacher`, `bake` → `baker`, `art` → `artist`).
pub(crate) fn token_matches(want: &str, have: &str) -> bool {
    want == have
        || have.strip_prefix(want).is_some_and(|rest| match rest {
            "er" | "or" | "ist" | "ian" => true,
            "r" => want.ends_with('e'),
            _ => false,
        })
}

/// Whether every token of `phrase` is among `tokens`.
pub(crate) fn phrase_in(phrase: &Phrase, tokens: &[String]) -> bool {
    phrase
        .tokens
        .iter()
        .all(|w| tokens.iter().any(|t| token_matches(w, t)))
}

/// Whether a result titled `title` with `keywords` is relevant to `query`: they hold the query
/// or one of its synonyms from the list.
#[cfg(test)]
pub(crate) fn relevant(query: &str, title: &str, keywords: &[String]) -> bool {
    let mut tokens = tokenize(title);
    tokens.extend(keywords.iter().flat_map(|k| tokenize(k)));
    expand(query).iter().any(|p| phrase_in(p, &tokens))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_synonym_expands_like_its_term() {
        let from_term = expand("doctor");
        assert_eq!(from_term[0].relation, Relation::Same);
        assert!(from_term.iter().any(|p| p.tokens == ["physician"]));
        assert!(
            from_term
                .iter()
                .any(|p| p.tokens == ["health", "worker"] && p.relation == Relation::Shows)
        );
        let from_synonym = expand("physician");
        assert!(from_synonym.iter().any(|p| p.tokens == ["doctor"]));
        assert_eq!(expand("zzqx").len(), 1);
        assert!(expand("  ").is_empty());
    }

    #[test]
    fn agent_nouns_match_their_verb() {
        assert!(token_matches("teach", "teacher"));
        assert!(token_matches("art", "artist"));
        assert!(token_matches("bake", "baker"));
        assert!(!token_matches("art", "party"));
        assert!(!token_matches("car", "card"));
    }

    #[test]
    fn relevance_needs_every_word_of_a_phrase() {
        let kw = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(relevant("coffee", "Hot beverage", &kw(&["coffee", "tea"])));
        assert!(relevant("espresso", "Hot beverage", &kw(&["coffee"])));
        assert!(!relevant(
            "stock market",
            "Convenience store",
            &kw(&["market"])
        ));
        assert!(!relevant("coffee", "Bread", &kw(&["loaf"])));
    }
}
