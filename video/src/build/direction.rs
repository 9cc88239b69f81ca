//! Scene direction: what each scene is for and how it should look, decided from its text alone
//! (deterministic, offline; DESIGN.md §2 "writer … scene direction").
//!
//! For every scene of a script this picks the roll (`A-roll` narrator on screen / `B-roll`
//! background only), the creative `scene_type` (HOOK, STAT, KEY POINT, DATA, FACT, CALL TO
//! ACTION), a `pattern` from the canonical [`PATTERNS`] list, a 1–3 word `keyword` for B-roll
//! search, a `talking_point`, and the `quote` an overlay sets (chosen by [`crate::build::copy`]).
//!
//! Rhythm: the first scene is A-roll (the narrator hooks the viewer), then two B-roll scenes
//! for every A-roll one, and the closing call to action is A-roll again; a scene carrying the
//! user's own inline media is B-roll (the media is the point), except the opener. `faceless`
//! makes every scene B-roll.

use crate::build::copy::{self, DocStats};
use crate::build::writer;
use foundation::document::{Roll, SceneType};

/// The canonical scene patterns: the values `pattern` takes, written by scene building and
/// accepted by `modify_scene`'s metadata branch (which matches input case-insensitively, reading
/// spaces and dashes as `_`). The first group names layouts the overlay designer knows and that
/// scene building picks; the second names the narrative role a client or agent may set.
///
/// | pattern | the scene… |
/// |---|---|
/// | `hook_question` | opens with a question |
/// | `hook_statement` | opens with a claim |
/// | `big_number` | sets a number large with its label |
/// | `key_point` | states one idea as a short headline |
/// | `list_item` | is one step of a list ("first", "- …", "2.") |
/// | `comparison` | sets this against that |
/// | `quote_card` | shows a quotation |
/// | `fact_card` | states a plain fact, no overlay |
/// | `data_bar` | makes a data claim without a number |
/// | `call_to_action` | asks the viewer to act |
/// | `typography_only` | shows words only, no background visual (clears `visual`) |
/// | `narrator_only` | shows the narrator alone |
/// | `hook` | opens with a surprise of any kind |
/// | `problem` | names the viewer's problem |
/// | `solution` | answers it |
/// | `problem_solution` | does both |
/// | `stat_reveal` | reveals a number |
/// | `list` | enumerates items |
/// | `step_by_step` | walks through steps in order |
/// | `before_after` | shows a change |
/// | `myth_fact` | debunks a belief |
/// | `quote` | centres on a quotation |
/// | `question_answer` | asks and answers |
/// | `story` | tells an anecdote |
/// | `timeline` | orders events in time |
/// | `definition` | explains a term |
/// | `example` | illustrates a point |
/// | `testimonial` | gives a client's voice |
/// | `summary` | recaps |
pub const PATTERNS: &[&str] = &[
    "hook_question",
    "hook_statement",
    "big_number",
    "key_point",
    "list_item",
    "comparison",
    "quote_card",
    "fact_card",
    "data_bar",
    "call_to_action",
    "typography_only",
    "narrator_only",
    "hook",
    "problem",
    "solution",
    "problem_solution",
    "stat_reveal",
    "list",
    "step_by_step",
    "before_after",
    "myth_fact",
    "quote",
    "question_answer",
    "story",
    "timeline",
    "definition",
    "example",
    "testimonial",
    "summary",
];

/// Whether `p` is a canonical pattern.
#[cfg(test)]
fn is_pattern(p: &str) -> bool {
    PATTERNS.contains(&p)
}

/// Scene types whose overlay is generated during scene building.
pub fn wants_overlay(scene_type: SceneType) -> bool {
    !matches!(scene_type, SceneType::Fact)
}

/// The direction of one scene.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Direction {
    pub roll: Roll,
    pub scene_type: SceneType,
    pub pattern: &'static str,
    pub keyword: String,
    pub talking_point: String,
    /// Words an overlay sets: a key phrase, a number with its unit or an imperative that obeys
    /// [`copy::check`] (may be empty).
    pub quote: String,
}

/// What direction needs to know about one scene.
#[derive(Debug, Clone, Copy)]
pub struct SceneInput<'a> {
    pub text: &'a str,
    /// The user placed their own media on this scene.
    pub has_media: bool,
}

/// Directs every scene of a video.
pub fn direct(scenes: &[SceneInput<'_>], faceless: bool) -> Vec<Direction> {
    let n = scenes.len();
    let doc = DocStats::of(scenes.iter().map(|s| s.text));
    scenes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let scene_type = scene_type(s.text, i, n);
            let roll = if faceless {
                Roll::BRoll
            } else if i == 0 || (scene_type == SceneType::CallToAction && n > 2) {
                Roll::ARoll
            } else if s.has_media {
                Roll::BRoll
            } else if i % 3 == 0 {
                Roll::ARoll
            } else {
                Roll::BRoll
            };
            let pattern = pattern(s.text, scene_type);
            Direction {
                roll,
                scene_type,
                pattern,
                keyword: writer::keyword(s.text),
                talking_point: talking_point(s.text),
                quote: copy::choose(s.text, scene_type, &doc),
            }
        })
        .collect()
}

/// Takes the writer's proposals for overlay copy (one per scene of `texts`, see
/// [`writer::Writer::overlay_copy`]) where they obey [`copy::check`]; a proposal that breaks
/// a rule leaves direction's own choice in place. Returns how many were taken.
pub(crate) fn adopt_copy(
    dirs: &mut [Direction],
    texts: &[&str],
    proposals: &[Option<String>],
) -> usize {
    let mut taken = 0;
    for ((d, text), p) in dirs.iter_mut().zip(texts).zip(proposals) {
        let Some(p) = p.as_deref().map(str::trim) else {
            continue;
        };
        match copy::check(p, d.scene_type, text) {
            Ok(()) if wants_overlay(d.scene_type) => {
                d.quote = p.to_string();
                taken += 1;
            }
            Ok(()) => {}
            Err(v) => tracing::debug!(copy = p, violation = %v, "overlay copy proposal refused"),
        }
    }
    taken
}

/// HOOK first, CALL TO ACTION last (when there are at least two scenes), STAT when the scene
/// states a number, DATA for data claims without one, KEY POINT and FACT otherwise.
pub fn scene_type(text: &str, index: usize, count: usize) -> SceneType {
    if index == 0 {
        SceneType::Hook
    } else if index + 1 == count {
        SceneType::CallToAction
    } else if number_token(text).is_some() {
        SceneType::Stat
    } else if has_any(text, DATA_WORDS) {
        SceneType::Data
    } else if index % 2 == 1 {
        SceneType::KeyPoint
    } else {
        SceneType::Fact
    }
}

const DATA_WORDS: &[&str] = &[
    "data",
    "study",
    "studies",
    "survey",
    "research",
    "report",
    "statistics",
    "percent",
    "majority",
    "average",
    "dữ",
    "nghiên",
    "khảo",
    "thống",
];
const COMPARE_WORDS: &[&str] = &["vs", "versus", "than", "instead", "whereas", "hơn", "thay"];
const LIST_WORDS: &[&str] = &[
    "first", "second", "third", "next", "finally", "step", "tip", "thứ", "bước",
];

fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_whitespace().map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    })
}

fn has_any(text: &str, words: &[&str]) -> bool {
    tokens(text).any(|t| words.contains(&t.as_str()))
}

/// The first word that states a number: digits (`3.5%`, `$1,200`, `2024`, `10x`).
pub(crate) fn number_token(text: &str) -> Option<&str> {
    text.split_whitespace().find(|w| {
        let core = w.trim_matches(|c: char| !c.is_alphanumeric() && !"%$€£".contains(c));
        core.chars().any(|c| c.is_ascii_digit())
            && core.chars().filter(|c| c.is_alphabetic()).count() <= 2
    })
}

fn pattern(text: &str, scene_type: SceneType) -> &'static str {
    let t = text.trim();
    let quoted = t.contains(['“', '"', '«']) && t.matches(['“', '”', '"', '«', '»']).count() >= 2;
    match scene_type {
        SceneType::Hook if t.ends_with('?') || t.contains("? ") => "hook_question",
        SceneType::Hook => "hook_statement",
        SceneType::Stat => "big_number",
        SceneType::CallToAction => "call_to_action",
        SceneType::Data => "data_bar",
        _ if quoted => "quote_card",
        _ if has_any(t, COMPARE_WORDS) => "comparison",
        _ if t.starts_with(['-', '•', '*'])
            || has_any(
                &t.split_whitespace().take(2).collect::<Vec<_>>().join(" "),
                LIST_WORDS,
            ) =>
        {
            "list_item"
        }
        SceneType::Fact => "fact_card",
        _ => "key_point",
    }
}

/// The scene's first sentence as a headline (at most 8 words).
fn talking_point(text: &str) -> String {
    writer::title(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'a>(texts: &[&'a str]) -> Vec<SceneInput<'a>> {
        texts
            .iter()
            .map(|t| SceneInput {
                text: t,
                has_media: false,
            })
            .collect()
    }

    const SCRIPT: &[&str] = &[
        "Why do most small teams never publish a single video?",
        "Editing takes hours and nobody on the team owns it.",
        "Short clips reach people where they already scroll every day.",
        "Teams that post weekly grow 3.5% faster each month.",
        "A recent survey of marketers confirms the same trend.",
        "First, write one script a week and keep it short.",
        "Follow us for a new tip every Monday.",
    ];

    #[test]
    fn types_rolls_and_patterns_of_a_script() {
        let d = direct(&inputs(SCRIPT), false);
        let got: Vec<(&str, &str, &str)> = d
            .iter()
            .map(|d| (d.roll.as_str(), d.scene_type.as_str(), d.pattern))
            .collect();
        assert_eq!(
            got,
            [
                ("A-roll", "HOOK", "hook_question"),
                ("B-roll", "KEY POINT", "key_point"),
                ("B-roll", "FACT", "fact_card"),
                ("A-roll", "STAT", "big_number"),
                ("B-roll", "DATA", "data_bar"),
                ("B-roll", "KEY POINT", "list_item"),
                ("A-roll", "CALL TO ACTION", "call_to_action"),
            ]
        );
        for x in &d {
            assert!(is_pattern(x.pattern), "{x:?}");
            let k = x.keyword.split_whitespace().count();
            assert!((1..=3).contains(&k), "{x:?}");
            assert!(!x.talking_point.is_empty());
        }
        assert_eq!(d[3].quote, "3.5% faster each month");
    }

    #[test]
    fn faceless_is_all_b_roll_and_media_scenes_are_b_roll() {
        let d = direct(&inputs(SCRIPT), true);
        assert!(d.iter().all(|d| d.roll == Roll::BRoll));
        let mut with_media = inputs(SCRIPT);
        with_media[0].has_media = true;
        with_media[3].has_media = true;
        let d = direct(&with_media, false);
        assert_eq!(d[0].roll, Roll::ARoll, "the opener stays A-roll");
        assert_eq!(d[3].roll, Roll::BRoll);
    }

    #[test]
    fn single_and_two_scene_videos() {
        let one = direct(&inputs(&["Just one scene about solar power today."]), false);
        assert_eq!(one[0].scene_type, SceneType::Hook);
        assert_eq!(one[0].roll, Roll::ARoll);
        let two = direct(&inputs(&["Hello there friends.", "Subscribe now."]), false);
        assert_eq!(
            two.iter().map(|d| d.scene_type).collect::<Vec<_>>(),
            [SceneType::Hook, SceneType::CallToAction]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(number_token("no numbers here"), None);
        assert_eq!(number_token("in 2024."), Some("2024."));
        assert_eq!(number_token("the COVID19 era"), None);
        assert_eq!(number_token("grew 10x"), Some("10x"));
    }

    #[test]
    fn the_demo_script_gets_condensed_copy() {
        let script = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/demo-script.txt"),
        )
        .unwrap();
        let drafts = crate::build::script::split_script(&script);
        let texts: Vec<&str> = drafts.iter().map(|d| d.text.as_str()).collect();
        let d = direct(&inputs(&texts), false);
        for (x, text) in d.iter().zip(&texts) {
            println!("{} {:?} <- {text:?}", x.scene_type, x.quote);
            if wants_overlay(x.scene_type) {
                assert_eq!(copy::check(&x.quote, x.scene_type, text), Ok(()), "{text}");
            }
        }
        assert_eq!(d[0].quote, "small businesses post videos");
        assert_eq!(
            d.last().unwrap().quote,
            "Do these three things consistently"
        );
    }

    #[test]
    fn proposals_are_taken_only_when_they_obey_the_rules() {
        let texts = [SCRIPT[0], SCRIPT[1], SCRIPT[3], SCRIPT[6]];
        let mut d = direct(&inputs(&texts), false);
        let before: Vec<String> = d.iter().map(|d| d.quote.clone()).collect();
        let proposals = [
            Some("Small teams never publish".to_string()),
            Some("Editing takes hours and".to_string()),
            Some("faster growth".to_string()),
            Some("Follow us for a new tip every Monday".to_string()),
        ];
        assert_eq!(adopt_copy(&mut d, &texts, &proposals), 1);
        assert_eq!(d[0].quote, "Small teams never publish");
        assert_eq!(d[1].quote, before[1], "ends on a function word");
        assert_eq!(d[2].quote, before[2], "a STAT without its number");
        assert_eq!(d[3].quote, before[3], "the spoken sentence itself");
    }

    #[test]
    fn vietnamese_scenes_are_directed() {
        let d = direct(
            &inputs(&[
                "Bạn có biết vì sao nhiều người bỏ cuộc?",
                "Nghiên cứu cho thấy thói quen nhỏ quan trọng hơn.",
                "Hãy theo dõi kênh để nhận mẹo mỗi tuần.",
            ]),
            false,
        );
        assert_eq!(d[0].pattern, "hook_question");
        assert_eq!(d[1].scene_type, SceneType::Data);
        assert_eq!(d[2].scene_type, SceneType::CallToAction);
        assert!(d.iter().all(|d| !d.keyword.is_empty()));
    }
}
