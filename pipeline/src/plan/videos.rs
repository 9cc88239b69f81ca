//! `GET /v1/videos?from_record=`: the account's videos, newest first, 20 per page; and the
//! account's jobs and their titles, which the plan and the roadmap read too.
//!
//! Written content shares the jobs table; this is where the list, the plan and the roadmap
//! keep only videos.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::plan::query::{self, Query};
use foundation::document::VideoDocument;
use foundation::error::{Code, Error, Result};
use foundation::model::{Job, JobType, Language};
use foundation::store::Store;
use foundation::time::iso;
use video::build;

/// Videos per page.
pub(crate) const PAGE_SIZE: usize = 20;
/// The largest `from_record` accepted.
pub(crate) const MAX_FROM_RECORD: i64 = 1_000_000_000;

fn read_failed(e: impl std::fmt::Display) -> Error {
    Error::new(Code::ReadFailed, "The account's videos could not be read.").because(e)
}

/// Every video job of `account` (not written content), newest first (ties: by topic id, so
/// pages are stable).
pub(crate) fn jobs_of(store: &Store, account: &str) -> Result<Vec<Job>> {
    let mut jobs: Vec<Job> = store
        .jobs()
        .map_err(read_failed)?
        .into_iter()
        .map(|(_, j)| j)
        .filter(|j| j.account == account && j.kind() == JobType::Video && j.request().is_some())
        .collect();
    jobs.sort_by(|a, b| {
        b.created_at
            .cmp(&a.created_at)
            .then_with(|| b.topic_id.cmp(&a.topic_id))
    });
    Ok(jobs)
}

/// A video's title: its document's, else the first words of its text, else empty.
pub(crate) fn title_of(store: &Store, job: &Job) -> String {
    if !job.title.is_empty() {
        return job.title.clone();
    }
    match store.document::<VideoDocument>(&job.topic_id) {
        Ok(Some(doc)) if !doc.title.is_empty() => doc.title,
        _ => job
            .request()
            .and_then(|r| r.text.as_deref())
            .map(build::title)
            .unwrap_or_default(),
    }
}

/// The query of `GET /v1/videos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VideosQuery {
    /// How many of the newest videos to skip.
    pub from_record: usize,
}

impl VideosQuery {
    pub fn read(q: &Query) -> Result<Self> {
        let from = query::integer(
            q,
            "from_record",
            Code::InvalidFromRecord,
            0..=MAX_FROM_RECORD,
        )?;
        Ok(VideosQuery {
            from_record: from.unwrap_or(0) as usize,
        })
    }
}

/// The `object` name of a [`VideoList`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ListTag {
    List,
}

/// One video of the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VideoItem {
    /// The topic id.
    pub id: String,
    pub title: String,
    pub language: Language,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// A page of the account's videos (`object: list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VideoList {
    pub object: ListTag,
    /// At most 20, newest first.
    pub data: Vec<VideoItem>,
    /// Videos on the account.
    pub total_count: usize,
    /// The offset this page starts at.
    pub from_record: usize,
}

/// A page of `account`'s videos.
pub fn list(store: &Store, account: &str, q: VideosQuery) -> Result<VideoList> {
    let jobs = jobs_of(store, account)?;
    let data = jobs
        .iter()
        .skip(q.from_record)
        .take(PAGE_SIZE)
        .map(|j| VideoItem {
            id: j.topic_id.clone(),
            title: title_of(store, j),
            language: j.request().map_or(Language::English, |r| r.language),
            created_at: iso(j.created_at),
        })
        .collect();
    Ok(VideoList {
        object: ListTag::List,
        data,
        total_count: jobs.len(),
        from_record: q.from_record,
    })
}
