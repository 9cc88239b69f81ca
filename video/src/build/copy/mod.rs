//! Overlay copy: the few words a scene's overlay sets, chosen for the moment by text analysis
//! (offline, extractive, deterministic) and the rules every copy obeys, whoever wrote it.
//!
//! - **HOOK, KEY POINT, DATA**: a quotation of the scene when it has a short one, else its best
//!   key phrase ([`keyphrase`], RAKE over stop-word-delimited candidates, weighted by the
//!   whole script's word frequencies).
//! - **STAT**: the number with its unit ([`number`]: "40%", "3 in 5", "$1,200", "2 hours",
//!   "70 phần trăm" set as "70%") and a short label: the words that follow it in its clause, or
//!   the scene's key phrase.
//! - **CALL TO ACTION**: the scene's last imperative clause ([`imperative`]), cut before a
//!   purpose or relative clause ("to …", "để …", "that …"), else its key phrase.
//!
//! [`check`] holds the rules (also applied to copy a chat model proposes, see
//! `build::llm`): not empty, at most [`MAX_WORDS`] words, never ending on a function word
//! (English or Vietnamese, [`words::FUNCTION_WORDS`]), never the scene's spoken sentence word
//! for word, and a STAT's copy opens with its number.

mod imperative;
mod keyphrase;
mod number;
pub mod words;

pub(crate) use keyphrase::DocStats;
pub use words::normalized;

use foundation::document::SceneType;

/// The most words overlay copy has (a poster sets at most 3 lines of 4).
pub const MAX_WORDS: usize = 8;
/// The most words of a call to action's imperative.
const IMPERATIVE_MAX: usize = 6;
/// The most words of a STAT's label.
const LABEL_MAX: usize = 4;
/// Words that open a subordinate clause: an imperative stops before them.
const CLAUSE_OPENERS: &[&str] = &[
    "to", "that", "so", "because", "which", "who", "when", "if", "while", "để", "vì", "mà", "khi",
    "nếu", "thì", "rằng",
];

/// Why a piece of copy breaks the rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    #[error("the copy is empty")]
    Empty,
    #[error("the copy has {0} words, more than {MAX_WORDS}")]
    TooLong(usize),
    #[error("the copy ends on the function word {0:?}")]
    EndsOnFunctionWord(String),
    #[error("the copy repeats the spoken sentence word for word")]
    RepeatsCaption,
    #[error("a STAT's copy does not open with a number")]
    NoNumber,
}

/// Checks `copy` for a scene of `scene_type` whose narration (and caption) is `spoken`.
pub fn check(copy: &str, scene_type: SceneType, spoken: &str) -> Result<(), Violation> {
    let w = words::normalized(copy);
    let Some(last) = copy.split_whitespace().last() else {
        return Err(Violation::Empty);
    };
    if w.is_empty() {
        return Err(Violation::Empty);
    }
    if w.len() > MAX_WORDS {
        return Err(Violation::TooLong(w.len()));
    }
    if words::is_function_word(last) {
        return Err(Violation::EndsOnFunctionWord(words::norm(last)));
    }
    if repeats(&w, spoken) {
        return Err(Violation::RepeatsCaption);
    }
    if scene_type == SceneType::Stat
        && !copy.split_whitespace().next().is_some_and(words::is_number)
    {
        return Err(Violation::NoNumber);
    }
    Ok(())
}

/// Whether `copy` (normalised words) is the whole of `spoken` or of one of its sentences.
fn repeats(copy: &[String], spoken: &str) -> bool {
    copy == words::normalized(spoken).as_slice()
        || crate::build::script::split_sentences(spoken)
            .iter()
            .any(|s| copy == words::normalized(s).as_slice())
}

/// The overlay copy of a scene of `scene_type` that says `text`, in the context of the whole
/// script (`doc`). Empty only when the scene has no word worth setting.
pub fn choose(text: &str, scene_type: SceneType, doc: &DocStats) -> String {
    let candidates = match scene_type {
        SceneType::Stat => stat(text, doc),
        SceneType::CallToAction => call_to_action(text, doc),
        _ => quotation(text)
            .into_iter()
            .chain(phrases(text, doc))
            .collect(),
    };
    candidates
        .iter()
        .map(|c| c.join(" "))
        .find(|c| check(c, scene_type, text).is_ok())
        .or_else(|| shortened(candidates.first()?, scene_type, text))
        .unwrap_or_default()
}

/// The best candidate cut down from its end until it passes the rules, if it ever does.
fn shortened(words: &[String], scene_type: SceneType, text: &str) -> Option<String> {
    (1..words.len())
        .rev()
        .map(|n| words::trim_function_end(&words[..n]).join(" "))
        .find(|c| check(c, scene_type, text).is_ok())
}

/// The key phrases of `text`, best first, as word lists.
fn key_phrases(text: &str, doc: &DocStats) -> Vec<Vec<String>> {
    keyphrase::ranked(text, doc)
        .into_iter()
        .map(|p| words::trim_end(&p.words))
        .filter(|p| !p.is_empty())
        .collect()
}

/// A short quotation of the scene (2 to [`MAX_WORDS`] words), or its key phrase.
fn quotation(text: &str) -> Option<Vec<String>> {
    for (open, close) in [('“', '”'), ('"', '"'), ('«', '»')] {
        let Some(a) = text.find(open) else { continue };
        let rest = &text[a + open.len_utf8()..];
        let Some(b) = rest.find(close) else { continue };
        let q: Vec<String> = rest[..b]
            .split_whitespace()
            .map(|w| words::clean(w).to_string())
            .filter(|w| !w.is_empty())
            .collect();
        let q = words::trim_function_end(&q);
        if q.len() >= 2 && q.len() <= MAX_WORDS {
            return Some(q);
        }
        if q.len() > MAX_WORDS {
            return key_phrases(&rest[..b], &DocStats::default())
                .into_iter()
                .next();
        }
    }
    None
}

/// STAT: the number with its unit, then a label.
fn stat(text: &str, doc: &DocStats) -> Vec<Vec<String>> {
    let raw: Vec<&str> = text.split_whitespace().collect();
    let Some(found) = number::find(text) else {
        return phrases(text, doc);
    };
    let shown: Vec<String> = found
        .display()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut after: Vec<String> = Vec::new();
    let mut closed = words::ends_clause(raw[found.end - 1]);
    for w in raw.iter().skip(found.end) {
        if closed || after.len() == LABEL_MAX {
            break;
        }
        after.push(words::clean(w).to_string());
        closed = words::ends_clause(w);
    }
    let after = words::trim_end(&after);
    let mut labels: Vec<Vec<String>> = Vec::new();
    if !after.is_empty() {
        labels.push(after);
    }
    labels.extend(
        keyphrase::ranked(text, doc)
            .into_iter()
            .map(|p| p.words.into_iter().take(LABEL_MAX).collect::<Vec<_>>())
            .map(|l| words::trim_end(&l)),
    );
    labels.push(Vec::new());
    labels
        .into_iter()
        .map(|l| shown.iter().cloned().chain(l).collect())
        .collect()
}

/// CALL TO ACTION: the imperative's core, then the scene's phrases.
fn call_to_action(text: &str, doc: &DocStats) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    if let Some(imp) = imperative::find(text) {
        let core = words::trim_end(&imperative_core(&imp));
        if !core.is_empty() {
            out.push(core);
        }
    }
    out.extend(phrases(text, doc));
    out
}

/// An imperative's verb and object: its words up to the first function word that
/// follows a content word after the verb, at most [`IMPERATIVE_MAX`] words ("Write a simple
/// plan for next week" → "Write a simple plan").
fn imperative_core(imp: &[String]) -> Vec<String> {
    let mut seen_content = false;
    let mut end = imp.len();
    for (i, w) in imp.iter().enumerate().skip(1) {
        let stop = words::is_function_word(w) || CLAUSE_OPENERS.contains(&words::norm(w).as_str());
        if stop && seen_content {
            end = i;
            break;
        }
        seen_content |= !stop && !words::is_stop(w);
    }
    imp[..end.min(IMPERATIVE_MAX)].to_vec()
}

/// HOOK, KEY POINT, DATA and the fallback of the others: key phrases of two words or more,
/// then the scene's clauses condensed, then single-word key phrases.
fn phrases(text: &str, doc: &DocStats) -> Vec<Vec<String>> {
    let (long, single): (Vec<_>, Vec<_>) = key_phrases(text, doc)
        .into_iter()
        .partition(|p| p.len() >= 2);
    let mut clauses: Vec<Vec<String>> = imperative::clauses(text)
        .iter()
        .map(|c| words::trim_ends(c))
        .map(|c| words::trim_end(&c[..c.len().min(keyphrase::MAX_PHRASE)]))
        .filter(|c| c.len() >= 2)
        .collect();
    let content = |c: &Vec<String>| c.iter().filter(|w| !words::is_stop(w)).count();
    clauses.sort_by_key(|c| std::cmp::Reverse(content(c)));
    long.into_iter().chain(clauses).chain(single).collect()
}

/// A STAT copy split into its number (with unit) and its label, as overlays set them.
pub fn split_stat(copy: &str) -> (String, String) {
    let raw: Vec<&str> = copy.split_whitespace().collect();
    match raw.first() {
        Some(first) if words::is_number(first) => {
            let n = number::read_at(&raw, 0);
            (n.display(), raw[n.end..].join(" "))
        }
        Some(first) => (first.to_string(), raw[1..].join(" ")),
        None => (String::new(), String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(text: &str, ty: SceneType) -> String {
        choose(text, ty, &DocStats::default())
    }

    #[test]
    fn the_demo_script_gets_phrases_not_cut_sentences() {
        assert_eq!(
            chosen(
                "Most small businesses post videos that nobody finishes watching.",
                SceneType::Hook
            ),
            "small businesses post videos"
        );
        assert_eq!(
            chosen(
                "Do these three things consistently and your videos will start working for you.",
                SceneType::CallToAction
            ),
            "Do these three things consistently"
        );
    }

    #[test]
    fn vietnamese_copy_keeps_its_compound_and_never_ends_on_a_preposition() {
        // The opening poster once read "VIỆT BẮT ĐẦU NGÀY MỚI BẰNG": cut inside "người Việt"
        // and ended on "bằng" (by, with).
        let copy = chosen(
            "Người Việt bắt đầu ngày mới bằng một ly cà phê sữa đá.",
            SceneType::Hook,
        );
        assert_eq!(check(&copy, SceneType::Hook, "x"), Ok(()), "{copy}");
        assert!(!copy.to_lowercase().ends_with("bằng"), "{copy}");
        assert!(!copy.starts_with("Việt"), "starts mid-phrase: {copy}");
    }

    #[test]
    fn stats_are_numbers_with_units_and_a_label() {
        for (text, want) in [
            (
                "Teams that post weekly grow 3.5% faster each month.",
                "3.5% faster each month",
            ),
            ("Revenue grew 40% in 2024, a record.", "40% in 2024"),
            ("We saved $1,200 per month.", "$1,200 per month"),
            (
                "Nearly 3 in 5 shoppers watch a video first.",
                "3 in 5 shoppers watch a video",
            ),
            (
                "Khoảng 70 phần trăm khách hàng xem video.",
                "70% khách hàng xem video",
            ),
            ("Sales grew 40%.", "40% Sales grew"),
        ] {
            let got = chosen(text, SceneType::Stat);
            assert_eq!(got, want, "{text}");
            assert_eq!(check(&got, SceneType::Stat, text), Ok(()));
        }
        assert_eq!(
            split_stat("3 in 5 shoppers"),
            ("3 in 5".into(), "shoppers".into())
        );
        assert_eq!(
            split_stat("70 phần trăm khách"),
            ("70%".into(), "khách".into())
        );
    }

    #[test]
    fn calls_to_action_are_imperatives() {
        assert_eq!(
            chosen(
                "Hãy theo dõi kênh để nhận mẹo mỗi tuần.",
                SceneType::CallToAction
            ),
            "Hãy theo dõi kênh"
        );
        assert_eq!(
            chosen("Subscribe now.", SceneType::CallToAction),
            "Subscribe"
        );
        assert_eq!(
            chosen(
                "Follow us for a new tip every Monday.",
                SceneType::CallToAction
            ),
            "Follow us for a new tip"
        );
    }

    #[test]
    fn quotations_are_kept_when_short() {
        assert_eq!(
            chosen(
                "She said “never stop shipping small things” and left.",
                SceneType::KeyPoint
            ),
            "never stop shipping small things"
        );
    }

    #[test]
    fn the_rules() {
        let spoken = "Short clips reach people.";
        assert_eq!(check("", SceneType::Hook, spoken), Err(Violation::Empty));
        assert_eq!(
            check("videos that", SceneType::Hook, spoken),
            Err(Violation::EndsOnFunctionWord("that".into()))
        );
        assert_eq!(
            check("những video của", SceneType::Hook, spoken),
            Err(Violation::EndsOnFunctionWord("của".into()))
        );
        assert_eq!(
            check("SHORT CLIPS REACH PEOPLE", SceneType::KeyPoint, spoken),
            Err(Violation::RepeatsCaption)
        );
        assert_eq!(
            check("a b c d e f g h i", SceneType::Hook, spoken),
            Err(Violation::TooLong(9))
        );
        assert_eq!(
            check("many shoppers", SceneType::Stat, spoken),
            Err(Violation::NoNumber)
        );
        assert_eq!(check("short clips", SceneType::KeyPoint, spoken), Ok(()));
    }
}
