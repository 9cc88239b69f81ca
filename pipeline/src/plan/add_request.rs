//! The body of `POST /v1/production_plan/add`: [`AddPlanRequest`], read through [`Fields`] with
//! the spec's code and `param` for every field and rule, and its OpenAPI schema (the same
//! limits as the reader; the word counts, which JSON Schema cannot say, are in the
//! descriptions).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::plan::entry::{PlanSource, ScriptFormat};
use foundation::error::{Code, Error, Result};
use foundation::fields::Fields;
use foundation::model::Language;
use video::build::word_count;
use video::ingest::read_topic_id;

/// Fewest scripts in one request.
pub(crate) const MIN_SCRIPTS: usize = 1;
/// Most scripts in one request (one per format).
pub(crate) const MAX_SCRIPTS: usize = 5;
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

impl AddPlanRequest {
    /// Reads and validates a body: every field's type and every rule of the spec.
    pub fn read(body: &Value) -> Result<Self> {
        let f = Fields::of(body)?;
        let idea_text = f.required_str("idea_text")?.trim().to_string();
        let text = |name: &str| -> Result<Option<String>> { Ok(f.str(name)?.map(str::to_string)) };
        let scripts = read_scripts(f.value("scripts"))?;
        Ok(AddPlanRequest {
            idea_text,
            description: text("description")?,
            industry: text("industry")?,
            source: f.choice::<PlanSource>("source")?,
            week_start: read_week_start(&f)?,
            topic_id: read_topic_id(&f)?,
            template: text("template")?,
            sub_industry: text("sub_industry")?,
            core_topics: text("core_topics")?,
            peripheral_topics: text("peripheral_topics")?,
            short_headline: text("short_headline")?,
            recommended: f.bool("recommended", Code::InvalidField)?,
            recommended_format: read_recommended_format(&f, scripts.as_deref())?,
            scripts,
            language: f.choice::<Language>("language")?,
        })
    }
}

fn read_week_start(f: &Fields) -> Result<Option<i64>> {
    let bad = || {
        Error::new(
            Code::InvalidWeekStart,
            format!("`week_start` must be an integer of unix seconds from 0 to {MAX_UNIX}."),
        )
        .param("week_start")
    };
    match f.i64("week_start", Code::InvalidWeekStart) {
        Ok(Some(t)) if !(0..=MAX_UNIX).contains(&t) => Err(bad()),
        Ok(t) => Ok(t),
        Err(_) => Err(bad()),
    }
}

fn invalid_scripts(param: &str, message: impl Into<String>) -> Error {
    Error::new(Code::InvalidScripts, message).param(param)
}

/// `scripts`: 1 to 5 objects `{format, text}` of distinct formats, each text 80 to 1000 words.
fn read_scripts(value: Option<&Value>) -> Result<Option<Vec<ScriptInput>>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let items = value
        .as_array()
        .filter(|a| (MIN_SCRIPTS..=MAX_SCRIPTS).contains(&a.len()))
        .ok_or_else(|| {
            invalid_scripts(
                "scripts",
                "`scripts` must be an array of 1 to 5 objects `{format, text}`.",
            )
        })?;
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let script = read_script(i, item)?;
        if !seen.insert(script.format) {
            return Err(invalid_scripts(
                &format!("scripts[{i}].format"),
                "Each script format may appear once.",
            ));
        }
        out.push(script);
    }
    Ok(Some(out))
}

fn read_script(i: usize, item: &Value) -> Result<ScriptInput> {
    let Some(obj) = item.as_object() else {
        return Err(invalid_scripts(
            &format!("scripts[{i}]"),
            "Each script must be an object `{format, text}`.",
        ));
    };
    let format = obj
        .get("format")
        .and_then(Value::as_str)
        .and_then(ScriptFormat::parse)
        .ok_or_else(|| {
            invalid_scripts(
                &format!("scripts[{i}].format"),
                format!(
                    "`format` must be one of: {}.",
                    ScriptFormat::NAMES.join(", ")
                ),
            )
        })?;
    let param = format!("scripts[{i}].text");
    let text = obj
        .get("text")
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| invalid_scripts(&param, "Each script needs its `text`."))?;
    let n = word_count(text);
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
    Ok(ScriptInput {
        format,
        text: text.trim().to_string(),
    })
}

/// `recommended_format`: a format name that is among the supplied scripts' formats.
fn read_recommended_format(
    f: &Fields,
    scripts: Option<&[ScriptInput]>,
) -> Result<Option<ScriptFormat>> {
    let Some(value) = f.value("recommended_format") else {
        return Ok(None);
    };
    let supplied = scripts.unwrap_or_default();
    value
        .as_str()
        .and_then(ScriptFormat::parse)
        .filter(|r| supplied.iter().any(|s| s.format == *r))
        .map(Some)
        .ok_or_else(|| {
            Error::new(
                Code::InvalidRecommendedFormat,
                "`recommended_format` must be the format of one of the supplied scripts.",
            )
            .param("recommended_format")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(n: usize) -> String {
        vec!["word"; n].join(" ")
    }

    fn refused(body: Value) -> (Code, Option<String>) {
        let e = AddPlanRequest::read(&body).unwrap_err();
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
        let r = AddPlanRequest::read(&body).unwrap();
        assert_eq!(r.idea_text, "Why solar pays");
        assert_eq!(r.source, Some(PlanSource::Template));
        assert_eq!(r.week_start, Some(1_700_000_000));
        assert_eq!(r.topic_id.as_deref(), Some("wcPlan1"));
        assert_eq!(r.recommended_format, Some(ScriptFormat::Cs));
        assert_eq!(r.language, Some(Language::Vietnamese));
        assert_eq!(r.scripts.unwrap().len(), 2);
    }
}
