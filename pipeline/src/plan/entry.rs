//! The production plan entry: its record in its own redb table, the script formats, the
//! workflow phase, and the `production_plan_entry` reply built from it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use foundation::error::{Code, Error, Result};
use foundation::model::Language;
use foundation::store::{Store, Table};
use video::build;

/// topic id → [`PlanEntry`]. Topic ids are one namespace with the jobs table: an entry's
/// video is the job under the same topic id.
pub(crate) const PLAN: Table = Table::new("production_plan");

/// A script format. The declaration order is the fixed order of `scripts_attached`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
pub enum ScriptFormat {
    /// Value Explainer.
    #[serde(rename = "VE")]
    Ve,
    /// Client Q&A.
    #[serde(rename = "QA")]
    Qa,
    /// Point of view.
    #[serde(rename = "POV")]
    Pov,
    /// Case Study.
    #[serde(rename = "CS")]
    Cs,
    /// Myth-Buster.
    #[serde(rename = "MB")]
    Mb,
}

impl ScriptFormat {
    /// The wire names, in the fixed order.
    pub const NAMES: &'static [&'static str] = &["VE", "QA", "POV", "CS", "MB"];

    /// The format named exactly `s` (the names are upper case, as the schema says).
    pub fn parse(s: &str) -> Option<ScriptFormat> {
        Some(match s {
            "VE" => ScriptFormat::Ve,
            "QA" => ScriptFormat::Qa,
            "POV" => ScriptFormat::Pov,
            "CS" => ScriptFormat::Cs,
            "MB" => ScriptFormat::Mb,
            _ => return None,
        })
    }
}

foundation::document::wire_enum! {
    /// Where a plan entry came from: an idea (default) or a template.
    pub enum PlanSource: foundation::error::Code::InvalidSource {
        Idea = "idea",
        Template = "template",
    }
}

/// Where a plan entry stands in the workflow. On creation: `queued`, or `ab_roll` for a
/// template entry that names its template (its A/B-roll plan comes with the template).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WorkflowPhase {
    Queued,
    AbRoll,
}

/// One attached script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Script {
    pub format: ScriptFormat,
    pub text: String,
}

/// A production plan entry as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanEntry {
    pub topic_id: String,
    pub account: String,
    pub idea_text: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub industry: Option<String>,
    pub source: PlanSource,
    #[serde(default)]
    pub template: Option<String>,
    #[serde(default)]
    pub sub_industry: Option<String>,
    #[serde(default)]
    pub core_topics: Option<String>,
    #[serde(default)]
    pub peripheral_topics: Option<String>,
    #[serde(default)]
    pub short_headline: Option<String>,
    #[serde(default)]
    pub recommended: bool,
    /// In the fixed order of [`ScriptFormat`]; empty for an idea without scripts.
    #[serde(default)]
    pub scripts: Vec<Script>,
    /// The master script's format; set exactly when `scripts` is not empty.
    #[serde(default)]
    pub recommended_format: Option<ScriptFormat>,
    pub language: Language,
    pub workflow_phase: WorkflowPhase,
    /// Unix seconds: the request's `week_start`, else the time it was added.
    pub created_at: i64,
    pub updated_at: i64,
    /// Unix nanoseconds of the last write: orders entries of the same `created_at`.
    #[serde(default)]
    pub seq: i128,
}

impl PlanEntry {
    /// The master script: the recommended format's version.
    pub(crate) fn master_script(&self) -> Option<&Script> {
        let format = self.recommended_format?;
        self.scripts.iter().find(|s| s.format == format)
    }

    /// The formats attached, in the fixed order.
    pub fn formats(&self) -> Vec<ScriptFormat> {
        self.scripts.iter().map(|s| s.format).collect()
    }

    /// Script ready: scripts are attached.
    pub fn script_ready(&self) -> bool {
        !self.scripts.is_empty()
    }

    /// What lists show: the short headline, else the idea's first words.
    pub fn title(&self) -> String {
        match self.short_headline.as_deref().map(str::trim) {
            Some(h) if !h.is_empty() => h.to_string(),
            _ => build::title(&self.idea_text),
        }
    }

    /// The `production_plan/add` reply.
    pub fn reply(&self) -> PlanEntryReply {
        let ready = self.script_ready();
        PlanEntryReply {
            object: PlanEntryTag::ProductionPlanEntry,
            added: true,
            topic_id: self.topic_id.clone(),
            workflow_phase: self.workflow_phase,
            industry: self.industry.clone(),
            source: self.source,
            recommended: self.recommended.then_some(true),
            scripts_attached: ready.then(|| self.formats()),
            recommended_format: self.recommended_format,
            script_ready: ready.then_some(true),
        }
    }
}

/// The `object` name of a [`PlanEntryReply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanEntryTag {
    ProductionPlanEntry,
}

/// A production plan entry (`object: production_plan_entry`), the reply of
/// `POST /v1/production_plan/add`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlanEntryReply {
    pub object: PlanEntryTag,
    /// Always true.
    pub added: bool,
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: String,
    pub workflow_phase: WorkflowPhase,
    /// The request's industry, else the account's; `null` when neither is known.
    pub industry: Option<String>,
    pub source: PlanSource,
    /// Present (true) when the idea is flagged recommended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended: Option<bool>,
    /// The attached formats in the fixed order VE, QA, POV, CS, MB; present with scripts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scripts_attached: Option<Vec<ScriptFormat>>,
    /// The master script's format; present with scripts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_format: Option<ScriptFormat>,
    /// Present (true) with scripts: the entry is Script ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_ready: Option<bool>,
}

/// Every entry of `account`, in no particular order.
pub(crate) fn entries_of(store: &Store, account: &str) -> Result<Vec<PlanEntry>> {
    let rows = store.records::<PlanEntry>(PLAN).map_err(|e| {
        Error::new(Code::ReadFailed, "The production plan could not be read.").because(e)
    })?;
    Ok(rows
        .into_iter()
        .map(|(_, e)| e)
        .filter(|e| e.account == account)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_sort_in_the_fixed_order_and_parse_exactly() {
        let mut f = vec![ScriptFormat::Mb, ScriptFormat::Ve, ScriptFormat::Cs];
        f.sort();
        assert_eq!(
            serde_json::to_value(&f).unwrap(),
            serde_json::json!(["VE", "CS", "MB"])
        );
        for name in ScriptFormat::NAMES {
            let f = ScriptFormat::parse(name).unwrap();
            assert_eq!(serde_json::to_value(f).unwrap(), *name);
        }
        assert_eq!(ScriptFormat::parse("ve"), None);
    }
}
