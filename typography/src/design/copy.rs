//! Step 1, copy: which lines a design sets.
//!
//! `typography` sets `quote` (default `text`) as written, split at its forced breaks. Posters are
//! uppercase, at most [`POSTER_MAX_LINES`] lines of at most [`POSTER_MAX_WORDS`] words, written
//! by [`poster_copy`] unless the caller's quote is `exact` (then kept, with [`poster_warnings`]
//! for the rules it breaks). `cta_poster` sets the company name over its contact lines.

use super::{DesignInput, POSTER_MAX_LINES, POSTER_MAX_WORDS, Role};
use crate::split_forced_breaks;

/// Words poster copy drops when enough content words remain (English and Vietnamese).
const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by",
    "from", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these",
    "those", "as", "so", "just", "very", "really", "can", "will", "do", "does", "there", "then",
    "và", "là", "của", "thì", "mà", "cho", "với", "để", "này", "đó", "được", "trong", "khi", "rất",
    "cũng", "đã", "sẽ", "đang", "những", "các", "một",
];

/// The copy of one design, before any size is chosen.
pub(super) struct CopyLines {
    /// Headline lines (for `typography`: the pieces between forced breaks).
    pub head: Vec<String>,
    /// Contact lines set under the headline (`cta_poster` only).
    pub contacts: Vec<String>,
    /// Poster copy rules an `exact` quote breaks.
    pub warnings: Vec<String>,
    /// Whether the designer wrote the copy as free words (not exact, no forced breaks), so
    /// fitting may spread the same words over more lines.
    pub rebalance: bool,
}

impl CopyLines {
    /// Whether there is nothing to set.
    pub fn is_empty(&self) -> bool {
        self.head.iter().all(|l| l.trim().is_empty()) && self.contacts.is_empty()
    }

    /// The headline arrangements fitting tries, in order: as written, then — when the designer
    /// wrote the copy — the same words over more lines (still at most [`POSTER_MAX_LINES`]),
    /// which can set them larger.
    pub fn candidates(&self) -> Vec<Vec<String>> {
        let mut candidates = vec![self.head.clone()];
        if self.rebalance {
            let words: Vec<String> = self
                .head
                .iter()
                .flat_map(|l| l.split_whitespace())
                .map(str::to_string)
                .collect();
            for k in self.head.len() + 1..=POSTER_MAX_LINES.min(words.len()) {
                candidates.push(balance_into(&words, k));
            }
        }
        candidates
    }
}

/// Writes the copy of `input` for `role`.
pub(super) fn write_copy(role: Role, input: &DesignInput<'_>) -> CopyLines {
    let quote = input.quote.filter(|q| !q.trim().is_empty());
    let (head, contacts) = match role {
        Role::Typography => (split_forced_breaks(quote.unwrap_or(input.text)), Vec::new()),
        Role::OpeningPoster => {
            let head = match (input.exact, quote) {
                (true, Some(q)) => exact_lines(q),
                _ => poster_copy(quote.unwrap_or(input.text)),
            };
            (head, Vec::new())
        }
        Role::CtaPoster => cta_copy(input, quote),
    };
    let exact = input.exact && quote.is_some();
    let warnings = if role.is_poster() && exact {
        poster_warnings(&head)
    } else {
        Vec::new()
    };
    let rebalance = match role {
        Role::Typography => false,
        _ => {
            let src = quote.unwrap_or(input.text);
            !exact
                && (role == Role::CtaPoster
                    && quote.is_none()
                    && input.cta.is_some_and(|c| !c.company_name.trim().is_empty())
                    || split_forced_breaks(src).len() <= 1)
        }
    };
    CopyLines {
        head,
        contacts,
        warnings,
        rebalance,
    }
}

/// An `exact` poster quote: its own lines, only uppercased.
fn exact_lines(quote: &str) -> Vec<String> {
    split_forced_breaks(quote)
        .iter()
        .map(|l| l.to_uppercase())
        .collect()
}

/// `cta_poster` copy: the headline (exact quote, quote, company name, else written from the
/// text) and the phone and email lines.
fn cta_copy(input: &DesignInput<'_>, quote: Option<&str>) -> (Vec<String>, Vec<String>) {
    let cta = input.cta.cloned().unwrap_or_default();
    let head = match (input.exact, quote) {
        (true, Some(q)) => exact_lines(q),
        (false, Some(q)) => poster_copy(q),
        _ if !cta.company_name.trim().is_empty() => {
            let words: Vec<String> = cta
                .company_name
                .split_whitespace()
                .map(str::to_uppercase)
                .collect();
            balance(&words)
        }
        _ => poster_copy(input.text),
    };
    let contacts = [cta.phone.trim(), cta.email.trim()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    (head, contacts)
}

/// Splits `words` into at most [`POSTER_MAX_LINES`] balanced lines of at most
/// [`POSTER_MAX_WORDS`] words (extra words are dropped).
fn balance(words: &[String]) -> Vec<String> {
    let n = words.len().min(POSTER_MAX_LINES * POSTER_MAX_WORDS);
    balance_into(&words[..n], n.div_ceil(POSTER_MAX_WORDS))
}

/// Splits `words` into `lines` lines as evenly as possible (earlier lines take the extra word).
fn balance_into(words: &[String], lines: usize) -> Vec<String> {
    let n = words.len();
    if n == 0 || lines == 0 {
        return Vec::new();
    }
    let lines = lines.min(n);
    let mut out = Vec::with_capacity(lines);
    let mut at = 0;
    for i in 0..lines {
        let take = (n - at).div_ceil(lines - i);
        out.push(words[at..at + take].join(" "));
        at += take;
    }
    out
}

/// Poster copy written from `source`: its forced breaks when it has some (each piece cut to
/// four words, at most three pieces), else the first sentence's content words (stopwords
/// dropped when enough remain, at most nine), balanced over at most three lines; uppercase.
pub fn poster_copy(source: &str) -> Vec<String> {
    let clean = |w: &str| {
        w.trim_matches(|c: char| !(c.is_alphanumeric() || "%$€₫+#&".contains(c)))
            .to_string()
    };
    let pieces = split_forced_breaks(source);
    let lines: Vec<String> = if pieces.len() > 1 {
        pieces
            .iter()
            .take(POSTER_MAX_LINES)
            .map(|p| {
                p.split_whitespace()
                    .map(clean)
                    .filter(|w| !w.is_empty())
                    .take(POSTER_MAX_WORDS)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .filter(|l| !l.is_empty())
            .collect()
    } else {
        let first = source
            .split_inclusive(['.', '!', '?', '\n'])
            .map(str::trim)
            .find(|s| s.chars().any(char::is_alphanumeric))
            .unwrap_or("");
        let all: Vec<String> = first
            .split_whitespace()
            .map(clean)
            .filter(|w| !w.is_empty())
            .collect();
        let content: Vec<String> = all
            .iter()
            .filter(|w| !STOPWORDS.contains(&w.to_lowercase().as_str()))
            .cloned()
            .collect();
        let pick = if content.len() >= 2 { content } else { all };
        balance(&pick[..pick.len().min(9)])
    };
    lines.into_iter().map(|l| l.to_uppercase()).collect()
}

/// The poster copy rules `lines` break, as human-readable warnings.
pub fn poster_warnings(lines: &[String]) -> Vec<String> {
    let mut w = Vec::new();
    if lines.len() > POSTER_MAX_LINES {
        w.push(format!(
            "posters use at most {POSTER_MAX_LINES} lines; this copy has {}",
            lines.len()
        ));
    }
    for (i, l) in lines.iter().enumerate() {
        let n = l.split_whitespace().count();
        if n > POSTER_MAX_WORDS {
            w.push(format!(
                "line {} has {n} words; posters use at most {POSTER_MAX_WORDS}",
                i + 1
            ));
        }
        if l.to_uppercase() != *l {
            w.push(format!("line {} is not uppercase", i + 1));
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poster_copy_rules() {
        let c = poster_copy("Most small businesses lose their best customers in the first month.");
        assert!(
            c.len() <= 3 && c.iter().all(|l| l.split_whitespace().count() <= 4),
            "{c:?}"
        );
        assert!(c.iter().all(|l| l.to_uppercase() == *l));
        assert_eq!(c[0].split_whitespace().next(), Some("MOST"));
        assert_eq!(
            poster_copy("one | two three -> four"),
            vec!["ONE", "TWO THREE", "FOUR"]
        );
        assert_eq!(poster_copy("đây là tiếng việt")[0], "ĐÂY TIẾNG VIỆT");
        assert_eq!(
            balance(&["a", "b", "c", "d", "e"].map(String::from)),
            vec!["a b c", "d e"]
        );
        assert!(poster_warnings(&["ONE TWO".into()]).is_empty());
        let w = poster_warnings(&["a b c d e".into(), "X".into(), "Y".into(), "Z".into()]);
        assert_eq!(w.len(), 3, "{w:?}");
    }
}
