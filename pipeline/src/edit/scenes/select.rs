//! Finding the scene a request means: by `voice_file` (stable, preferred), by `id` (display
//! order, unstable), or by `text` (fuzzy, with `min_score`). Shared by `modify_scene` and
//! `scene_geometry`.
//!
//! Text matching. Both sides are normalised (lowercase, punctuation dropped, whitespace
//! collapsed). A scene whose normalised text equals the query scores 1.0. Otherwise the score is
//! the best of:
//! - word overlap (Dice): `2·|Q∩T| / (|Q|+|T|)` over word multisets;
//! - query coverage: `0.8 · |Q∩T| / |Q|` (how much of the query the scene says);
//! - substring: when the normalised text contains the normalised query (at least 3 characters),
//!   `0.75 + 0.25 · len(query)/len(text)`.
//!
//! Scenes scoring at least `min_score` are candidates. No candidate → `scene_not_found`. The
//! best candidate wins unless another scores within [`AMBIGUITY_MARGIN`] of it: then the request
//! is ambiguous and the caller answers with a clarification listing the candidates (200,
//! nothing changed).

use serde_json::{Value, json};

use crate::core::document::VideoDocument;
use crate::core::error::{Code, Error, Result};

/// Default `min_score` for `by=text`.
pub const DEFAULT_MIN_SCORE: f64 = 0.5;
/// Two text candidates closer than this are ambiguous.
pub const AMBIGUITY_MARGIN: f64 = 0.05;
/// At most this many candidates are listed in a clarification.
pub const MAX_CANDIDATES: usize = 5;

/// How a request names its scene.
#[derive(Debug, Clone, PartialEq)]
pub enum Selector {
    VoiceFile(String),
    Id(u32),
    Text { query: String, min_score: f64 },
}

/// A scene that scored as a text candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub index: usize,
    pub score: f64,
}

/// What a selector found.
#[derive(Debug, Clone, PartialEq)]
pub enum Selection {
    /// Scene `index` (into `segments`), with its match score (1.0 for ids).
    Found { index: usize, score: f64 },
    /// Several text candidates scored too close to choose; best first.
    Ambiguous(Vec<Candidate>),
}

fn invalid_value(param: &str, message: impl Into<String>) -> Error {
    Error::new(Code::InvalidValue, message).param(param)
}

/// Reads `min_score` (absent → default; a number from 0 to 1).
pub fn parse_min_score(v: Option<&Value>) -> Result<f64> {
    match v {
        None | Some(Value::Null) => Ok(DEFAULT_MIN_SCORE),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if (0.0..=1.0).contains(&x) => Ok(x),
            _ => Err(invalid_value(
                "min_score",
                "`min_score` must be from 0 to 1.",
            )),
        },
        Some(_) => Err(invalid_value(
            "min_score",
            "`min_score` must be a number from 0 to 1.",
        )),
    }
}

/// Builds a selector from `by`, `value` and `min_score` (`by` names the selector param in
/// errors as `by_param`, since scene_geometry also accepts `voice_file`/`scene_id` directly).
pub fn parse(by: &str, value: Option<&Value>, min_score: Option<&Value>) -> Result<Selector> {
    let value = match value {
        None | Some(Value::Null) => return Err(Error::missing("value")),
        Some(v) => v,
    };
    let text = match value {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        _ => {
            return Err(invalid_value(
                "value",
                "`value` must be a string or a number.",
            ));
        }
    };
    if text.is_empty() {
        return Err(Error::missing("value"));
    }
    match by {
        "voice_file" => Ok(Selector::VoiceFile(text)),
        "id" => text
            .parse::<u32>()
            .ok()
            .or_else(|| {
                value
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u32)
            })
            .map(Selector::Id)
            .ok_or_else(|| {
                invalid_value("value", "With `by: id`, `value` must be a scene number.")
            }),
        "text" => Ok(Selector::Text {
            query: text,
            min_score: parse_min_score(min_score)?,
        }),
        _ => Err(Error::new(
            Code::InvalidBy,
            "`by` must be `voice_file`, `id` or `text`.",
        )
        .param("by")),
    }
}

/// Lowercase words without punctuation.
fn words(s: &str) -> Vec<String> {
    s.split_whitespace()
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// How well `text` matches `query`, 0 to 1 (see the module docs).
pub fn score(query: &str, text: &str) -> f64 {
    let q = words(query);
    let t = words(text);
    if q.is_empty() || t.is_empty() {
        return 0.0;
    }
    let qn = q.join(" ");
    let tn = t.join(" ");
    if qn == tn {
        return 1.0;
    }
    // Multiset intersection size.
    let mut pool = t.clone();
    let mut common = 0usize;
    for w in &q {
        if let Some(i) = pool.iter().position(|x| x == w) {
            pool.swap_remove(i);
            common += 1;
        }
    }
    let dice = 2.0 * common as f64 / (q.len() + t.len()) as f64;
    let coverage = 0.8 * common as f64 / q.len() as f64;
    let substring = if qn.chars().count() >= 3 && tn.contains(&qn) {
        0.75 + 0.25 * qn.chars().count() as f64 / tn.chars().count() as f64
    } else {
        0.0
    };
    // Never report a fuzzy match as exact.
    dice.max(coverage).max(substring).min(0.999)
}

/// Finds the scene `sel` names in `doc`.
pub fn select(doc: &VideoDocument, sel: &Selector) -> Result<Selection> {
    let not_found =
        || Error::new(Code::SceneNotFound, "No scene of this video matches.").param("value");
    match sel {
        Selector::VoiceFile(v) => doc
            .segments
            .iter()
            .position(|s| &s.voice_file == v)
            .map(|index| Selection::Found { index, score: 1.0 })
            .ok_or_else(not_found),
        Selector::Id(id) => doc
            .segments
            .iter()
            .position(|s| s.id == *id)
            .map(|index| Selection::Found { index, score: 1.0 })
            .ok_or_else(not_found),
        Selector::Text { query, min_score } => {
            let mut c: Vec<Candidate> = doc
                .segments
                .iter()
                .enumerate()
                .map(|(index, s)| Candidate {
                    index,
                    score: score(query, &s.text),
                })
                .filter(|c| c.score > 0.0 && c.score >= *min_score)
                .collect();
            c.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
            match c.as_slice() {
                [] => Err(not_found()),
                [best, second, ..] if best.score - second.score < AMBIGUITY_MARGIN => {
                    let top = best.score;
                    c.retain(|x| top - x.score < AMBIGUITY_MARGIN);
                    c.truncate(MAX_CANDIDATES);
                    Ok(Selection::Ambiguous(c))
                }
                [best, ..] => Ok(Selection::Found {
                    index: best.index,
                    score: round3(best.score),
                }),
            }
        }
    }
}

pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The 200 body for an ambiguous text match: the candidates, nothing changed.
pub fn clarification(
    object: &str,
    doc: &VideoDocument,
    query: &str,
    candidates: &[Candidate],
) -> Value {
    let list: Vec<Value> = candidates
        .iter()
        .map(|c| {
            let s = &doc.segments[c.index];
            json!({
                "voice_file": s.voice_file,
                "scene_id": s.id,
                "score": round3(c.score),
                "text": s.text,
                "talking_point": s.talking_point,
            })
        })
        .collect();
    json!({
        "object": object,
        "status": "clarification_required",
        "clarification_required": true,
        "id": doc.topic_id,
        "topic_id": doc.topic_id,
        "by": "text",
        "value": query,
        "changed": false,
        "message": "Several scenes match this text about equally well; repeat the request with `by: voice_file` and one candidate's voice_file.",
        "candidates": list,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::document::Segment;

    fn doc(texts: &[&str]) -> VideoDocument {
        crate::edit::scenes::test_doc(
            "wcT",
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| Segment {
                    voice_file: format!("v{i}"),
                    id: i as u32 + 1,
                    text: t.to_string(),
                    ..Default::default()
                })
                .collect(),
        )
    }

    const TEXTS: &[&str] = &[
        "Short videos reach people quickly.",
        "Teams publish stories every week because clips work.",
        "Simple words make a clear message.",
        "Teams publish stories every week because viewers care.",
    ];

    /// (selector, expected): `Ok(index)`, `Err(code)` or `Amb(indices)`.
    #[derive(Debug)]
    enum Want {
        At(usize),
        Amb(Vec<usize>),
        Fail(Code),
    }

    fn check(sel: Selector, want: Want) {
        let d = doc(TEXTS);
        let got = select(&d, &sel);
        match (&got, &want) {
            (Ok(Selection::Found { index, .. }), Want::At(i)) if index == i => {}
            (Ok(Selection::Ambiguous(c)), Want::Amb(is))
                if c.iter().map(|c| c.index).collect::<Vec<_>>() == *is => {}
            (Err(e), Want::Fail(code)) if e.code == *code => {}
            _ => panic!("{sel:?}: got {got:?}, want {want:?}"),
        }
    }

    fn text(q: &str, min: f64) -> Selector {
        Selector::Text {
            query: q.into(),
            min_score: min,
        }
    }

    #[test]
    fn selection_table() {
        use Want::*;
        check(Selector::VoiceFile("v2".into()), At(2));
        check(
            Selector::VoiceFile("nope".into()),
            Fail(Code::SceneNotFound),
        );
        check(Selector::Id(1), At(0));
        check(Selector::Id(9), Fail(Code::SceneNotFound));
        // Exact (case and punctuation ignored).
        check(text("short VIDEOS reach people quickly", 0.5), At(0));
        // Fuzzy: a fragment of one scene.
        check(text("simple words", 0.5), At(2));
        check(text("clear message simple", 0.5), At(2));
        // Typos and unrelated words stay below the default min_score.
        check(text("bananas in pyjamas", 0.5), Fail(Code::SceneNotFound));
        // Ambiguous: two scenes share the phrase.
        check(
            text("teams publish stories every week", 0.5),
            Amb(vec![1, 3]),
        );
        // ...disambiguated by more words.
        check(
            text("teams publish stories every week because viewers care", 0.5),
            At(3),
        );
        // min_score filters.
        check(text("people quickly", 0.99), Fail(Code::SceneNotFound));
    }

    #[test]
    fn scores_are_ordered() {
        let t = "Teams publish stories every week.";
        assert_eq!(score("teams publish stories every week", t), 1.0);
        assert!(score("teams publish", t) > score("teams", t));
        assert!(score("teams publish", t) >= 0.5);
        assert_eq!(score("", t), 0.0);
        assert!(score("zebra", t) < 0.01);
    }

    #[test]
    fn parsing() {
        assert_eq!(parse("id", Some(&json!(3)), None).unwrap(), Selector::Id(3));
        assert_eq!(
            parse("id", Some(&json!("3")), None).unwrap(),
            Selector::Id(3)
        );
        assert_eq!(
            parse("text", Some(&json!("hi")), Some(&json!(0.7))).unwrap(),
            Selector::Text {
                query: "hi".into(),
                min_score: 0.7
            }
        );
        let code = |r: Result<Selector>| r.unwrap_err().code;
        assert_eq!(
            code(parse("name", Some(&json!("x")), None)),
            Code::InvalidBy
        );
        assert_eq!(code(parse("id", None, None)), Code::MissingField);
        assert_eq!(
            code(parse("id", Some(&json!("x")), None)),
            Code::InvalidValue
        );
        assert_eq!(
            code(parse("text", Some(&json!("x")), Some(&json!(2)))),
            Code::InvalidValue
        );
        assert_eq!(
            code(parse("voice_file", Some(&json!([1])), None)),
            Code::InvalidValue
        );
    }
}
