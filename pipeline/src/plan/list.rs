//! `GET /v1/production_plan?page=&week_start=&week_end=`: the account's plan entries, newest
//! first, 20 per page, split into `ideas` (no video yet) and `topics` (a video exists under the
//! entry's topic id, made by `create_video` with `topic_id`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::plan::add_request::MAX_UNIX;
use crate::plan::entry::{PlanEntry, PlanSource, ScriptFormat, WorkflowPhase, entries_of};
use crate::plan::query::{self, Query};
use crate::plan::videos::jobs_of;
use foundation::error::{Code, Error, Result};
use foundation::model::{Job, JobStatus};
use foundation::store::Store;
use foundation::time::iso;

/// Entries per page.
pub(crate) const PAGE_SIZE: usize = 20;
/// The largest `page` accepted.
pub(crate) const MAX_PAGE: i64 = 1_000_000;

/// The query of `GET /v1/production_plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlanQuery {
    /// 0-based page of 20 entries.
    pub page: usize,
    /// Only entries created at or after (unix seconds).
    pub week_start: Option<i64>,
    /// Only entries created at or before (unix seconds).
    pub week_end: Option<i64>,
}

impl PlanQuery {
    pub fn read(q: &Query) -> Result<Self> {
        let page = query::integer(q, "page", Code::InvalidPage, 0..=MAX_PAGE)?;
        let week_start = query::integer(q, "week_start", Code::InvalidWeekStart, 0..=MAX_UNIX)?;
        let week_end = query::integer(q, "week_end", Code::InvalidWeekEnd, 0..=MAX_UNIX)?;
        if let (Some(s), Some(e)) = (week_start, week_end)
            && e < s
        {
            return Err(Error::new(
                Code::InvalidWeekEnd,
                "`week_end` must not be before `week_start`.",
            )
            .param("week_end"));
        }
        Ok(PlanQuery {
            page: page.unwrap_or(0) as usize,
            week_start,
            week_end,
        })
    }

    fn admits(&self, created_at: i64) -> bool {
        self.week_start.is_none_or(|s| created_at >= s)
            && self.week_end.is_none_or(|e| created_at <= e)
    }
}

/// The `object` name of a [`ProductionPlan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProductionPlanTag {
    ProductionPlan,
}

/// One plan entry in the list: an idea, or a topic with its video.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlanItem {
    /// The topic id.
    pub id: String,
    pub topic_id: String,
    /// The short headline, else the idea's first words.
    pub title: String,
    pub idea_text: String,
    pub phase: WorkflowPhase,
    pub source: PlanSource,
    pub industry: Option<String>,
    /// The attached scripts' formats, in the fixed order VE, QA, POV, CS, MB.
    pub formats: Vec<ScriptFormat>,
    /// The master script's format, when scripts are attached.
    pub recommended_format: Option<ScriptFormat>,
    pub script_ready: bool,
    pub recommended: bool,
    /// The entry's creation time (its `week_start`).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// The video's status (topics only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_status: Option<JobStatus>,
    /// The rendered MP4 (topics whose video is rendered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub video_url: Option<String>,
}

/// A page of the production plan (`object: production_plan`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProductionPlan {
    pub object: ProductionPlanTag,
    /// Entries matching the week filters, on every page.
    pub total: usize,
    pub page: usize,
    pub week_start: Option<i64>,
    pub week_end: Option<i64>,
    /// This page's entries without a video, newest first.
    pub ideas: Vec<PlanItem>,
    /// This page's entries with a video, newest first.
    pub topics: Vec<PlanItem>,
}

fn item(e: &PlanEntry, job: Option<&Job>) -> PlanItem {
    PlanItem {
        id: e.topic_id.clone(),
        topic_id: e.topic_id.clone(),
        title: e.title(),
        idea_text: e.idea_text.clone(),
        phase: e.workflow_phase,
        source: e.source,
        industry: e.industry.clone(),
        formats: e.formats(),
        recommended_format: e.recommended_format,
        script_ready: e.script_ready(),
        recommended: e.recommended,
        created_at: iso(e.created_at),
        video_status: job.map(|j| j.status),
        video_url: job.and_then(|j| j.video_url.clone()),
    }
}

/// A page of `account`'s plan.
pub fn list(store: &Store, account: &str, q: PlanQuery) -> Result<ProductionPlan> {
    let mut entries: Vec<PlanEntry> = entries_of(store, account)?
        .into_iter()
        .filter(|e| q.admits(e.created_at))
        .collect();
    entries.sort_by(|a, b| {
        (b.created_at, b.seq, &b.topic_id).cmp(&(a.created_at, a.seq, &a.topic_id))
    });
    let jobs: HashMap<String, Job> = jobs_of(store, account)?
        .into_iter()
        .map(|j| (j.topic_id.clone(), j))
        .collect();
    let (mut ideas, mut topics) = (Vec::new(), Vec::new());
    for e in entries.iter().skip(q.page * PAGE_SIZE).take(PAGE_SIZE) {
        match jobs.get(&e.topic_id) {
            Some(job) => topics.push(item(e, Some(job))),
            None => ideas.push(item(e, None)),
        }
    }
    Ok(ProductionPlan {
        object: ProductionPlanTag::ProductionPlan,
        total: entries.len(),
        page: q.page,
        week_start: q.week_start,
        week_end: q.week_end,
        ideas,
        topics,
    })
}
