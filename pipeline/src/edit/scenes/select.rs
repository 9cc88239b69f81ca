//! Finding the scene a request means: by `voice_file` (stable, preferred), by `id` (display
//! order, unstable), or by `text` (fuzzy, with `min_score`). One [`Selector`] is shared by
//! `modify_scene` (`by` + `value`), `scene_geometry` (exactly one form) and `scene_inspector`
//! (`voice_file` preferred); an ambiguous text match answers with the one [`Clarification`].
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

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use foundation::document::VideoDocument;
use foundation::error::{Code, Error, Result};
use foundation::fields::Fields;

/// Default `min_score` for `by=text`.
pub(crate) const DEFAULT_MIN_SCORE: f64 = 0.5;
/// Two text candidates closer than this are ambiguous.
pub(crate) const AMBIGUITY_MARGIN: f64 = 0.05;
/// At most this many candidates are listed in a clarification.
pub(crate) const MAX_CANDIDATES: usize = 5;

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

foundation::document::wire_enum! {
    /// `by`: how `value` names the scene.
    pub enum SelectBy: Code::InvalidBy {
        /// The scene's stable `voice_file` (preferred).
        VoiceFile = "voice_file",
        /// The current display id (unstable after reorder).
        Id = "id",
        /// Fuzzy match on the scene's text, with `min_score`.
        Text = "text",
    }
}

/// A scene reference as sent: a string, or a whole number for display ids.
#[derive(Debug, Clone, PartialEq, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)] // a schema only: references are read by `Selector`
pub enum SceneValue {
    Text(String),
    Number(u32),
}

/// Schema of a scene reference read as text (`voice_file`, or `value` with `by: voice_file` or
/// `by: text`): a string that is not blank once trimmed, or a number.
fn scene_text_schema() -> Value {
    json!({ "type": ["string", "number"], "pattern": "\\S" })
}

/// Schema of a display id (`scene_id`, or `value` with `by: id`): a whole number from 1, sent
/// as a number or as a string of digits.
fn display_id_schema() -> Value {
    json!({
        "type": ["integer", "string"],
        "minimum": 1,
        "maximum": u32::MAX,
        "pattern": "^[1-9][0-9]{0,8}$",
    })
}

/// Schema of `min_score` (read for `by: text` only).
fn min_score_schema() -> Value {
    json!({ "type": "number", "minimum": 0.0, "maximum": 1.0, "default": DEFAULT_MIN_SCORE })
}

/// One form of a selector in a schema: its properties, its required fields, and the selector
/// fields it must not send.
pub(crate) struct SelectorForm {
    pub properties: serde_json::Map<String, Value>,
    pub required: Vec<&'static str>,
    pub forbidden: Vec<&'static str>,
}

fn props(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// The forms [`Selector::by_value`] accepts, one per `by` (modify_scene's selector).
pub(crate) fn by_value_forms() -> Vec<SelectorForm> {
    SelectBy::NAMES
        .iter()
        .map(|by| {
            let mut p = props(json!({
                "by": { "type": "string", "enum": [by] },
                "value": if *by == "id" { display_id_schema() } else { scene_text_schema() },
            }));
            if *by == "text" {
                p.insert("min_score".into(), min_score_schema());
            }
            SelectorForm {
                properties: p,
                required: vec!["by", "value"],
                forbidden: vec![],
            }
        })
        .collect()
}

/// The forms [`Selector::exactly_one`] accepts, one per way of naming the scene (and per `by`
/// for the `by`+`value` form). scene_geometry's schema is a `oneOf` over these.
pub(crate) fn exactly_one_forms() -> Vec<SelectorForm> {
    let mut forms = vec![
        SelectorForm {
            properties: props(json!({ "voice_file": scene_text_schema() })),
            required: vec!["voice_file"],
            forbidden: vec!["scene_id", "by"],
        },
        SelectorForm {
            properties: props(json!({ "scene_id": display_id_schema() })),
            required: vec!["scene_id"],
            forbidden: vec!["voice_file", "by"],
        },
    ];
    for form in by_value_forms() {
        forms.push(SelectorForm {
            forbidden: vec!["voice_file", "scene_id"],
            ..form
        });
    }
    forms
}

/// Wire schema of scene_inspector's optional selector: `voice_file` is preferred over
/// `scene_id` when both are sent.
#[derive(Debug, Clone, PartialEq, ToSchema)]
pub(crate) struct InspectorSelectorFields {
    pub voice_file: Option<String>,
    pub scene_id: Option<SceneValue>,
}

/// The topic id of a body: `id` (or its alias `topic_id`); blank is `missing_field`, anything
/// but a topic id is `invalid_id`.
pub fn topic_id(f: &Fields) -> Result<String> {
    match f.value("id").or_else(|| f.value("topic_id")) {
        None => Err(Error::missing("id")),
        Some(Value::String(s)) if s.trim().is_empty() => Err(Error::missing("id")),
        Some(Value::String(s)) => checked_topic_id(s),
        Some(_) => Err(not_a_topic_id()),
    }
}

/// `id` trimmed, when it is a topic id; else `invalid_id`.
pub(crate) fn checked_topic_id(id: &str) -> Result<String> {
    let id = id.trim();
    if foundation::ids::is_topic_id(id) {
        Ok(id.to_string())
    } else {
        Err(not_a_topic_id())
    }
}

fn not_a_topic_id() -> Error {
    Error::new(Code::InvalidId, "`id` is not a topic id.").param("id")
}

/// Reads `min_score` (absent → default; a number from 0 to 1).
fn min_score(f: &Fields) -> Result<f64> {
    match f.f64("min_score", Code::InvalidValue)? {
        None => Ok(DEFAULT_MIN_SCORE),
        Some(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Some(_) => Err(invalid_value(
            "min_score",
            "`min_score` must be from 0 to 1.",
        )),
    }
}

/// A scene reference field (string or number), trimmed; blank or absent is `missing_field`.
fn scene_value<'a>(f: &Fields<'a>, name: &str) -> Result<(String, Option<&'a Value>)> {
    let value = f.value(name).ok_or_else(|| Error::missing(name))?;
    let text = match value {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        _ => {
            return Err(invalid_value(
                name,
                format!("`{name}` must be a string or a number."),
            ));
        }
    };
    if text.is_empty() {
        return Err(Error::missing(name));
    }
    Ok((text, Some(value)))
}

/// A display id: a whole number, sent as a number or a string.
fn display_id(text: &str, value: Option<&Value>, name: &str) -> Result<u32> {
    text.parse::<u32>()
        .ok()
        .or_else(|| {
            value
                .and_then(Value::as_f64)
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u32::MAX as f64)
                .map(|f| f as u32)
        })
        .ok_or_else(|| invalid_value(name, format!("`{name}` must be a scene number.")))
}

impl Selector {
    /// `by` names how the field `name` is read (`value`, or scene_geometry's own
    /// `voice_file`/`scene_id`).
    fn read(by: SelectBy, f: &Fields, name: &str) -> Result<Selector> {
        let (text, value) = scene_value(f, name)?;
        Ok(match by {
            SelectBy::VoiceFile => Selector::VoiceFile(text),
            SelectBy::Id => Selector::Id(display_id(&text, value, name)?),
            SelectBy::Text => Selector::Text {
                query: text,
                min_score: min_score(f)?,
            },
        })
    }

    /// `by` + `value` (+ `min_score`), both required: modify_scene's selector.
    pub(crate) fn by_value(f: &Fields) -> Result<Selector> {
        let by = f
            .choice::<SelectBy>("by")?
            .ok_or_else(|| Error::missing("by"))?;
        Selector::read(by, f, "value")
    }

    /// Exactly one of `voice_file`, `scene_id`, or `by` with `value`: scene_geometry's selector.
    pub(crate) fn exactly_one(f: &Fields) -> Result<Selector> {
        let forms = ["voice_file", "scene_id", "by"];
        let count = forms.iter().filter(|k| f.has(k)).count();
        if count != 1 {
            let code = if count == 0 {
                Code::MissingField
            } else {
                Code::InvalidField
            };
            return Err(Error::new(
                code,
                "Send exactly one of `voice_file`, `scene_id`, or `by` with `value`.",
            )
            .param("voice_file"));
        }
        if f.has("voice_file") {
            Selector::read(SelectBy::VoiceFile, f, "voice_file")
        } else if f.has("scene_id") {
            Selector::read(SelectBy::Id, f, "scene_id")
        } else {
            Selector::by_value(f)
        }
    }

    /// `voice_file` (a string) if sent, else `scene_id`, else none; blank counts as absent:
    /// scene_inspector's selector.
    pub fn preferred(f: &Fields) -> Result<Option<Selector>> {
        let blank = |name: &str| {
            f.value(name)
                .and_then(Value::as_str)
                .is_some_and(|s| s.trim().is_empty())
        };
        if !blank("voice_file")
            && let Some(vf) = f.str_or("voice_file", Code::InvalidValue)?
        {
            return Ok(Some(Selector::VoiceFile(vf.trim().to_string())));
        }
        if f.has("scene_id") && !blank("scene_id") {
            return Selector::read(SelectBy::Id, f, "scene_id").map(Some);
        }
        Ok(None)
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

/// A scene the request found, or the clarification an ambiguous text match answers with.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// Scene `index` (into `segments`), with its match score.
    Scene { index: usize, score: f64 },
    /// 200 with candidates; nothing changed.
    Clarify(Clarification),
}

/// Finds the scene `sel` names; an ambiguous text match becomes the clarification body of the
/// endpoint whose `object` is given.
pub fn resolve(doc: &VideoDocument, sel: &Selector, object: &'static str) -> Result<Resolved> {
    Ok(match select(doc, sel)? {
        Selection::Found { index, score } => Resolved::Scene { index, score },
        Selection::Ambiguous(c) => {
            let query = match sel {
                Selector::Text { query, .. } => query.as_str(),
                _ => "",
            };
            Resolved::Clarify(Clarification::new(object, doc, query, &c))
        }
    })
}

/// The 200 body for an ambiguous text match: the candidates, nothing changed. The one
/// clarification block of every endpoint that selects scenes by text.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Clarification {
    /// The endpoint's object name (`scene_modification`, `scene_geometry`).
    pub object: &'static str,
    /// Always `clarification_required`.
    #[schema(example = "clarification_required")]
    pub status: &'static str,
    /// Always true.
    pub clarification_required: bool,
    pub id: String,
    pub topic_id: String,
    /// Always `text`.
    pub by: &'static str,
    /// The query as matched.
    pub value: String,
    /// Always false: nothing changed.
    pub changed: bool,
    pub message: &'static str,
    /// Best first, at most five.
    pub candidates: Vec<ClarificationCandidate>,
}

/// A scene that matched about as well as the best one.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ClarificationCandidate {
    pub voice_file: String,
    pub scene_id: u32,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub score: f64,
    pub text: String,
    pub talking_point: String,
}

impl Clarification {
    pub fn new(
        object: &'static str,
        doc: &VideoDocument,
        query: &str,
        candidates: &[Candidate],
    ) -> Clarification {
        Clarification {
            object,
            status: "clarification_required",
            clarification_required: true,
            id: doc.topic_id.clone(),
            topic_id: doc.topic_id.clone(),
            by: "text",
            value: query.to_string(),
            changed: false,
            message: "Several scenes match this text about equally well; repeat the request with `by: voice_file` and one candidate's voice_file.",
            candidates: candidates
                .iter()
                .map(|c| {
                    let s = &doc.segments[c.index];
                    ClarificationCandidate {
                        voice_file: s.voice_file.clone(),
                        scene_id: s.id,
                        score: round3(c.score),
                        text: s.text.clone(),
                        talking_point: s.talking_point.clone(),
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::document::Segment;
    use serde_json::json;

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

    fn by_value(body: Value) -> Result<Selector> {
        Selector::by_value(&Fields::of(&body).unwrap())
    }

    fn code_param(r: Result<impl std::fmt::Debug>) -> (Code, Option<String>) {
        let e = r.unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn by_and_value_read_every_selector_form() {
        assert_eq!(
            by_value(json!({"by": "id", "value": 3})).unwrap(),
            Selector::Id(3)
        );
        assert_eq!(
            by_value(json!({"by": "id", "value": "3"})).unwrap(),
            Selector::Id(3)
        );
        assert_eq!(
            by_value(json!({"by": "text", "value": "hi", "min_score": 0.7})).unwrap(),
            Selector::Text {
                query: "hi".into(),
                min_score: 0.7
            }
        );
        let cases = [
            (json!({"by": "name", "value": "x"}), Code::InvalidBy, "by"),
            (json!({"value": "x"}), Code::MissingField, "by"),
            (json!({"by": "id"}), Code::MissingField, "value"),
            (
                json!({"by": "id", "value": "x"}),
                Code::InvalidValue,
                "value",
            ),
            (
                json!({"by": "text", "value": "x", "min_score": 2}),
                Code::InvalidValue,
                "min_score",
            ),
            (
                json!({"by": "voice_file", "value": [1]}),
                Code::InvalidValue,
                "value",
            ),
        ];
        for (body, code, param) in cases {
            assert_eq!(
                code_param(by_value(body.clone())),
                (code, Some(param.to_string())),
                "{body}"
            );
        }
    }

    #[test]
    fn geometry_takes_exactly_one_selector_form() {
        let one = |b: Value| Selector::exactly_one(&Fields::of(&b).unwrap());
        assert_eq!(
            one(json!({"voice_file": " v1 "})).unwrap(),
            Selector::VoiceFile("v1".into())
        );
        assert_eq!(one(json!({"scene_id": 2})).unwrap(), Selector::Id(2));
        assert_eq!(
            code_param(one(json!({}))),
            (Code::MissingField, Some("voice_file".into()))
        );
        assert_eq!(
            code_param(one(json!({"voice_file": "a", "scene_id": 1}))),
            (Code::InvalidField, Some("voice_file".into()))
        );
        assert_eq!(
            code_param(one(json!({"scene_id": "x"}))),
            (Code::InvalidValue, Some("scene_id".into()))
        );
        assert_eq!(
            code_param(one(json!({"by": 1, "value": "x"}))),
            (Code::InvalidBy, Some("by".into()))
        );
    }

    #[test]
    fn the_inspector_prefers_voice_file_and_ignores_blanks() {
        let pick = |b: Value| Selector::preferred(&Fields::of(&b).unwrap());
        assert_eq!(
            pick(json!({"voice_file": "v1", "scene_id": 2})).unwrap(),
            Some(Selector::VoiceFile("v1".into()))
        );
        assert_eq!(
            pick(json!({"voice_file": " ", "scene_id": "2"})).unwrap(),
            Some(Selector::Id(2))
        );
        assert_eq!(pick(json!({"scene_id": ""})).unwrap(), None);
        assert_eq!(
            code_param(pick(json!({"voice_file": 5}))),
            (Code::InvalidValue, Some("voice_file".into()))
        );
    }

    #[test]
    fn an_ambiguous_match_resolves_to_one_clarification_block() {
        let d = doc(TEXTS);
        let sel = text("teams publish stories every week", 0.5);
        let Resolved::Clarify(c) = resolve(&d, &sel, "scene_geometry").unwrap() else {
            panic!("expected a clarification");
        };
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["object"], "scene_geometry");
        assert_eq!(v["status"], "clarification_required");
        assert_eq!(v["value"], "teams publish stories every week");
        assert_eq!(v["changed"], false);
        let ids: Vec<&str> = v["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["voice_file"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["v1", "v3"]);
        assert_eq!(
            resolve(&d, &Selector::Id(1), "scene_geometry").unwrap(),
            Resolved::Scene {
                index: 0,
                score: 1.0
            }
        );
    }
}
