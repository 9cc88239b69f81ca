//! The body of `POST /v1/production_plan/add`: [`AddPlanRequest`], one type that deserialises,
//! derives its OpenAPI schema and validates (`foundation::fields::Body`) with the spec's code and
//! `param` for every field and rule; each script's errors name the script (`scripts[1].text`).
//! The word counts, which JSON Schema cannot say, are in the descriptions.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::plan::entry::{PlanSource, ScriptFormat};
use foundation::error::{Code, Error, Result};
use foundation::fields::Body;
use foundation::model::Language;
use video::build::word_count;
use video::ingest::checked_topic_id;

/// Fewest words in a script.
pub(crate) const SCRIPT_MIN_WORDS: usize = 80;
/// Most words in a script.
pub(crate) const SCRIPT_MAX_WORDS: usize = 1000;
/// The latest `week_start` accepted: 9999-12-31T23:59:59Z.
pub(crate) const MAX_UNIX: i64 = 253_402_300_799;

/// One script of the request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ScriptInput {
    pub format: ScriptFormat,
    /// 80 to 1000 words (split on whitespace).
    #[schema(min_length = 1, pattern = "\\S")]
    pub text: String,
}

/// A production plan entry to add.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AddPlanRequest {
    /// The idea (required, not blank).
    #[schema(min_length = 1, pattern = "\\S")]
    pub idea_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default: the account's industry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub industry: Option<String>,
    /// `idea` (default) or `template`; `template` with a `template` starts in phase `ab_roll`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PlanSource>,
    /// Unix seconds, used as the creation time (default now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 253_402_300_799_i64)]
    pub week_start: Option<i64>,
    /// Default: a new topic id. An entry of the account under this id is updated: its idea
    /// fields are replaced, its scripts kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: Option<String>,
    /// A template id of `GET /v1/foundation_videos` (unknown: 400 `invalid_template`). With
    /// `source=template` and no `scripts`, the entry is seeded with the template's script for
    /// the idea, in the template's format, and a later `create_video {topic_id}` follows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_industry: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_topics: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peripheral_topics: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_headline: Option<String>,
    /// Idea-level flag: shows a Recommended badge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended: Option<bool>,
    /// 1 to 5 scripts of distinct formats, each 80 to 1000 words: the entry is stored Script
    /// ready. 409 `topic_exists` when the topic already has a video or scripts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_items = 1, max_items = 5)]
    pub scripts: Option<Vec<ScriptInput>>,
    /// One of the supplied formats (default the first script's): the master script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_format: Option<ScriptFormat>,
    /// The scripts' language (default English).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
}

impl Body for AddPlanRequest {
    type Valid = AddPlanRequest;
    const CODES: &'static [(&'static str, Code)] = &[
        ("source", Code::InvalidSource),
        ("week_start", Code::InvalidWeekStart),
        ("topic_id", Code::InvalidTopicId),
        ("scripts", Code::InvalidScripts),
        ("recommended_format", Code::InvalidRecommendedFormat),
        ("language", Code::InvalidLanguage),
    ];
    const ITEM_PARAMS: &'static [&'static str] = &["scripts"];

    /// The rules the schema carries no code for: the week's range, the topic id, the scripts'
    /// distinct formats and word counts, and a recommended format among them.
    fn validate(mut self) -> Result<AddPlanRequest> {
        self.idea_text = self.idea_text.trim().to_string();
        if self
            .week_start
            .is_some_and(|t| !(0..=MAX_UNIX).contains(&t))
        {
            return Err(Error::new(
                Code::InvalidWeekStart,
                format!("`week_start` must be an integer of unix seconds from 0 to {MAX_UNIX}."),
            )
            .param("week_start"));
        }
        if let Some(t) = &self.topic_id {
            self.topic_id = Some(checked_topic_id(t)?);
        }
        if let Some(scripts) = &mut self.scripts {
            check_scripts(scripts)?;
        }
        if let Some(r) = self.recommended_format
            && !self.scripts.iter().flatten().any(|s| s.format == r)
        {
            return Err(Error::new(
                Code::InvalidRecommendedFormat,
                "`recommended_format` must be the format of one of the supplied scripts.",
            )
            .param("recommended_format"));
        }
        Ok(self)
    }
}

fn invalid_scripts(param: &str, message: impl Into<String>) -> Error {
    Error::new(Code::InvalidScripts, message).param(param)
}

/// `scripts` (1 to 5 `{format, text}`, checked by the schema): distinct formats, each text 80
/// to 1000 words, trimmed.
fn check_scripts(scripts: &mut [ScriptInput]) -> Result<()> {
    let mut seen = HashSet::new();
    for (i, script) in scripts.iter_mut().enumerate() {
        if !seen.insert(script.format) {
            return Err(invalid_scripts(
                &format!("scripts[{i}].format"),
                "Each script format may appear once.",
            ));
        }
        let param = format!("scripts[{i}].text");
        script.text = script.text.trim().to_string();
        let n = word_count(&script.text);
        if n < SCRIPT_MIN_WORDS {
            return Err(Error::new(
                Code::ScriptTooShort,
                format!("The script has {n} words; at least {SCRIPT_MIN_WORDS} are needed."),
            )
            .param(param));
        }
        if n > SCRIPT_MAX_WORDS {
            return Err(Error::new(
                Code::ScriptTooLong,
                format!("The script has {n} words; at most {SCRIPT_MAX_WORDS} are allowed."),
            )
            .param(param));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body::read;
    use serde_json::{Value, json};

    fn words(n: usize) -> String {
        vec!["word"; n].join(" ")
    }

    fn refused(body: Value) -> (Code, Option<String>) {
        let e = read::<AddPlanRequest>(&body).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn every_rule_answers_with_its_code_and_param() {
        let ok = words(80);
        let cases: Vec<(Value, Code, &str)> = vec![
            (json!({}), Code::MissingField, "idea_text"),
            (json!({"idea_text": "  "}), Code::MissingField, "idea_text"),
            (json!({"idea_text": 3}), Code::InvalidField, "idea_text"),
            (
                json!({"idea_text": "x", "week_start": "monday"}),
                Code::InvalidWeekStart,
                "week_start",
            ),
            (
                json!({"idea_text": "x", "week_start": 1.5}),
                Code::InvalidWeekStart,
                "week_start",
            ),
            (
                json!({"idea_text": "x", "week_start": -1}),
                Code::InvalidWeekStart,
                "week_start",
            ),
            (
                json!({"idea_text": "x", "source": "blog"}),
                Code::InvalidSource,
                "source",
            ),
            (
                json!({"idea_text": "x", "topic_id": "../x"}),
                Code::InvalidTopicId,
                "topic_id",
            ),
            (
                json!({"idea_text": "x", "language": "fr"}),
                Code::InvalidLanguage,
                "language",
            ),
            (
                json!({"idea_text": "x", "recommended": "yes"}),
                Code::InvalidField,
                "recommended",
            ),
            (
                json!({"idea_text": "x", "scripts": []}),
                Code::InvalidScripts,
                "scripts",
            ),
            (
                json!({"idea_text": "x", "scripts": {"format": "VE"}}),
                Code::InvalidScripts,
                "scripts",
            ),
            (
                json!({"idea_text": "x", "scripts": [1, 2, 3, 4, 5, 6]}),
                Code::InvalidScripts,
                "scripts",
            ),
            (
                json!({"idea_text": "x", "scripts": ["VE"]}),
                Code::InvalidScripts,
                "scripts[0]",
            ),
            (
                json!({"idea_text": "x", "scripts": [{"format": "XX", "text": ok}]}),
                Code::InvalidScripts,
                "scripts[0].format",
            ),
            (
                json!({"idea_text": "x", "scripts": [{"format": "VE"}]}),
                Code::InvalidScripts,
                "scripts[0].text",
            ),
            (
                json!({"idea_text": "x", "scripts": [
                    {"format": "VE", "text": ok}, {"format": "VE", "text": ok}]}),
                Code::InvalidScripts,
                "scripts[1].format",
            ),
            (
                json!({"idea_text": "x", "scripts": [
                    {"format": "QA", "text": ok}, {"format": "VE", "text": words(79)}]}),
                Code::ScriptTooShort,
                "scripts[1].text",
            ),
            (
                json!({"idea_text": "x", "scripts": [{"format": "MB", "text": words(1001)}]}),
                Code::ScriptTooLong,
                "scripts[0].text",
            ),
            (
                json!({"idea_text": "x", "scripts": [{"format": "MB", "text": ok}],
                    "recommended_format": "VE"}),
                Code::InvalidRecommendedFormat,
                "recommended_format",
            ),
            (
                json!({"idea_text": "x", "recommended_format": "VE"}),
                Code::InvalidRecommendedFormat,
                "recommended_format",
            ),
        ];
        for (body, code, param) in cases {
            assert_eq!(refused(body.clone()), (code, Some(param.into())), "{body}");
        }
    }

    #[test]
    fn a_full_body_reads_with_its_limits_inclusive() {
        let body = json!({
            "idea_text": " Why solar pays ", "source": "template", "template": "t1",
            "week_start": 1_700_000_000, "topic_id": "wcPlan1", "recommended": true,
            "language": "Vietnamese", "recommended_format": "CS",
            "scripts": [
                {"format": "MB", "text": words(1000)},
                {"format": "CS", "text": words(80)},
            ],
        });
        let r = read::<AddPlanRequest>(&body).unwrap();
        assert_eq!(r.idea_text, "Why solar pays");
        assert_eq!(r.source, Some(PlanSource::Template));
        assert_eq!(r.week_start, Some(1_700_000_000));
        assert_eq!(r.topic_id.as_deref(), Some("wcPlan1"));
        assert_eq!(r.recommended_format, Some(ScriptFormat::Cs));
        assert_eq!(r.language, Some(Language::Vietnamese));
        assert_eq!(r.scripts.unwrap().len(), 2);
    }
}
