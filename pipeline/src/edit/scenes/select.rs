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

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa::openapi::schema::{Object, ObjectBuilder, SchemaType, Type};

use foundation::document::VideoDocument;
use foundation::error::{Code, Error, Result};

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

/// A scene reference as sent: a string or a number. Its schema is the field's
/// ([`scene_text_field`], [`display_id_field`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum SceneValue {
    Text(String),
    Number(f64),
}

impl SceneValue {
    /// The reference as text, trimmed; a number as written.
    fn text(&self) -> String {
        match self {
            SceneValue::Text(s) => s.trim().to_string(),
            SceneValue::Number(n) => n.to_string(),
        }
    }
}

/// Schema of a scene reference read as text (`voice_file`, or `value` with `by: voice_file` or
/// `by: text`): a string that is not blank once trimmed, or a number.
pub(crate) fn scene_text_field() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Number]))
        .pattern(Some("\\S"))
        .build()
}

/// Schema of a display id (`scene_id`, or `value` with `by: id`): a whole number from 1, sent
/// as a number or as a string of digits.
pub(crate) fn display_id_field() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Integer, Type::String]))
        .minimum(Some(1))
        .maximum(Some(u32::MAX))
        .pattern(Some("^[1-9][0-9]{0,8}$"))
        .build()
}

/// Schema of `min_score` (read for `by: text` only).
pub(crate) fn min_score_field() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Number)
        .minimum(Some(0.0))
        .maximum(Some(1.0))
        .default(Some(DEFAULT_MIN_SCORE.into()))
        .build()
}

/// `by: voice_file`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum VoiceFileBy {
    VoiceFile,
}

/// `by: id`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum IdBy {
    Id,
}

/// `by: text`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TextBy {
    Text,
}

/// The scene named by its stable `voice_file` in `value`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ByVoiceFile {
    pub by: VoiceFileBy,
    #[schema(schema_with = scene_text_field)]
    pub value: SceneValue,
}

/// The scene named by its display id in `value` (unstable after a reorder).
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ById {
    pub by: IdBy,
    #[schema(schema_with = display_id_field)]
    pub value: SceneValue,
}

/// The scene whose text best matches `value`, scoring at least `min_score`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ByText {
    pub by: TextBy,
    #[schema(schema_with = scene_text_field)]
    pub value: SceneValue,
    #[schema(schema_with = min_score_field)]
    pub min_score: Option<f64>,
}

impl ByVoiceFile {
    pub(crate) fn selector(&self) -> Result<Selector> {
        Selector::of(SelectBy::VoiceFile, &self.value, None, "value")
    }
}

impl ById {
    pub(crate) fn selector(&self) -> Result<Selector> {
        Selector::of(SelectBy::Id, &self.value, None, "value")
    }
}

impl ByText {
    pub(crate) fn selector(&self) -> Result<Selector> {
        Selector::of(SelectBy::Text, &self.value, self.min_score, "value")
    }
}

/// A body's `by`, which picks its form: sent (`missing_field`), and one of [`SelectBy`]'s names
/// in any case (`invalid_by`).
pub(crate) fn by_form(sent: &serde_json::Map<String, Value>) -> Result<&'static str> {
    match sent.get("by").filter(|v| !v.is_null()) {
        None => Err(Error::missing("by")),
        Some(Value::String(s)) if SelectBy::NAMES.iter().any(|n| n.eq_ignore_ascii_case(s)) => {
            Ok("by")
        }
        Some(_) => Err(Error::new(
            Code::InvalidBy,
            format!("`by` must be one of: {}.", SelectBy::NAMES.join(", ")),
        )
        .param("by")),
    }
}

/// Which way a body names its scene: exactly one of `voice_file`, `scene_id`, or `by` (with
/// `value`). None sent is `missing_field`, several `invalid_field`, both naming `voice_file`.
pub(crate) fn exactly_one_form(sent: &serde_json::Map<String, Value>) -> Result<&'static str> {
    let given: Vec<&'static str> = ["voice_file", "scene_id", "by"]
        .into_iter()
        .filter(|k| sent.get(*k).is_some_and(|v| !v.is_null()))
        .collect();
    match given.as_slice() {
        ["by"] => by_form(sent),
        [one] => Ok(one),
        _ => Err(Error::new(
            if given.is_empty() {
                Code::MissingField
            } else {
                Code::InvalidField
            },
            "Send exactly one of `voice_file`, `scene_id`, or `by` with `value`.",
        )
        .param("voice_file")),
    }
}

/// `id` trimmed, when it is a topic id; else `invalid_id`.
pub(crate) fn checked_topic_id(id: &str) -> Result<String> {
    foundation::ids::checked_topic_id(id, Code::InvalidId, "id")
}

/// A display id: a whole number from 0, sent as a number or as a string of digits.
fn display_id(sent: &SceneValue, name: &str) -> Result<u32> {
    let id = match sent {
        SceneValue::Number(n) if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(n) => {
            Some(*n as u32)
        }
        SceneValue::Number(_) => None,
        SceneValue::Text(s) => s.trim().parse::<u32>().ok(),
    };
    id.ok_or_else(|| invalid_value(name, format!("`{name}` must be a scene number.")))
}

impl Selector {
    /// The scene `sent` as field `name` names, read as `by` says (`min_score` for text only,
    /// from 0 to 1). Blank is `missing_field`.
    pub(crate) fn of(
        by: SelectBy,
        sent: &SceneValue,
        min_score: Option<f64>,
        name: &str,
    ) -> Result<Selector> {
        let text = sent.text();
        if text.is_empty() {
            return Err(Error::missing(name));
        }
        Ok(match by {
            SelectBy::VoiceFile => Selector::VoiceFile(text),
            SelectBy::Id => Selector::Id(display_id(sent, name)?),
            SelectBy::Text => Selector::Text {
                query: text,
                min_score: match min_score {
                    None => DEFAULT_MIN_SCORE,
                    Some(x) if (0.0..=1.0).contains(&x) => x,
                    Some(_) => {
                        return Err(invalid_value(
                            "min_score",
                            "`min_score` must be from 0 to 1.",
                        ));
                    }
                },
            },
        })
    }

    /// scene_inspector's `scene_id`: a display id, or none when blank.
    pub(crate) fn scene_id(sent: &SceneValue) -> Result<Option<Selector>> {
        if sent.text().is_empty() {
            return Ok(None);
        }
        display_id(sent, "scene_id").map(|id| Some(Selector::Id(id)))
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

    /// The selector of a modify_scene body made of `body`, a video id and one field edit.
    fn by_value(mut body: Value) -> Result<Selector> {
        body["id"] = json!("wcABCDEFGH");
        body["fields"] = json!([{"field_name": "quote", "value": "q"}]);
        let read = foundation::fields::body::read::<crate::edit::scenes::parse::ModifySceneRequest>;
        read(&body).map(|m| m.selector)
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
    fn a_display_id_is_a_number_or_digits_and_blank_is_none() {
        let id = |v: SceneValue| Selector::scene_id(&v);
        assert_eq!(id(SceneValue::Number(2.0)).unwrap(), Some(Selector::Id(2)));
        assert_eq!(
            id(SceneValue::Text(" 7 ".into())).unwrap(),
            Some(Selector::Id(7))
        );
        assert_eq!(id(SceneValue::Text(" ".into())).unwrap(), None);
        for bad in [SceneValue::Text("two".into()), SceneValue::Number(1.5)] {
            assert_eq!(
                code_param(id(bad)),
                (Code::InvalidValue, Some("scene_id".into()))
            );
        }
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
