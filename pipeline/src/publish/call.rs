//! A `publish` call as a whole: its `id` (the 202's) names the one or two publish requests it
//! made (table `publish_calls`, written with them), and `GET /v1/status/{id}` answers for it
//! with a status object of `type: publish` that sums them up: `processing` while any is,
//! `failed` when every one failed, else `completed`; `result.posts[]` gathers every request's
//! posts and `result.request_ids` names the requests, each pollable on its own.

use serde::{Deserialize, Serialize};

use crate::publish::record::{PUBLISH_REQUESTS, PublishRecord};
use foundation::model::{Job, JobStatus, StatusObject};
use foundation::store::{Store, StoreResult, Table, Tx};
use foundation::time::iso;

/// publish id → [`PublishCall`].
pub(crate) const PUBLISH_CALLS: Table = Table::new("publish_calls");

/// The requests one `publish` call made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PublishCall {
    pub account: String,
    /// In the order of the 202's `request_ids`.
    pub request_ids: Vec<String>,
}

/// Stores the call that made `records` (all of one call), in the transaction that stores them.
pub fn put(tx: &mut Tx, records: &[PublishRecord]) -> StoreResult<()> {
    let Some(first) = records.first() else {
        return Ok(());
    };
    let call = PublishCall {
        account: first.account.clone(),
        request_ids: records.iter().map(|r| r.request_id.clone()).collect(),
    };
    tx.put_record(PUBLISH_CALLS, &first.publish_id, &call)
}

/// The request ids of `account`'s call `publish_id`, or `None` when it has none. Calls made
/// before the table existed are found among the stored requests.
fn request_ids(store: &Store, account: &str, publish_id: &str) -> StoreResult<Option<Vec<String>>> {
    if let Some(call) = store.record::<PublishCall>(PUBLISH_CALLS, publish_id)? {
        return Ok((call.account == account).then_some(call.request_ids));
    }
    let mut older: Vec<PublishRecord> = store
        .records::<PublishRecord>(PUBLISH_REQUESTS)?
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| r.publish_id == publish_id && r.account == account)
        .collect();
    older.sort_by_key(|r| r.created_at);
    Ok((!older.is_empty()).then(|| older.into_iter().map(|r| r.request_id).collect()))
}

/// The status object of `account`'s call `publish_id`, or `None` when the account made no such
/// call.
pub fn status(store: &Store, account: &str, publish_id: &str) -> StoreResult<Option<StatusObject>> {
    let Some(ids) = request_ids(store, account, publish_id)? else {
        return Ok(None);
    };
    let mut jobs = Vec::with_capacity(ids.len());
    for id in &ids {
        jobs.extend(store.job(id)?);
    }
    Ok(summarise(publish_id, ids, &jobs))
}

/// One status object for the call from its requests' jobs.
fn summarise(publish_id: &str, request_ids: Vec<String>, jobs: &[Job]) -> Option<StatusObject> {
    let first = jobs.first()?;
    let status = if jobs.iter().any(|j| j.status == JobStatus::Processing) {
        JobStatus::Processing
    } else if jobs.iter().all(|j| j.status == JobStatus::Failed) {
        JobStatus::Failed
    } else {
        JobStatus::Completed
    };
    let mut s = first.status_object();
    s.id = publish_id.to_string();
    s.topic_id = publish_id.to_string();
    s.status = status;
    let progress = jobs.iter().map(|j| j.progress).sum::<f64>() / jobs.len() as f64;
    s.progress = (progress * 1000.0).round() / 1000.0;
    s.details.step = jobs.iter().map(|j| j.step).min().unwrap_or(first.step);
    s.details.notes = jobs
        .iter()
        .filter(|j| j.status == JobStatus::Processing)
        .find_map(|j| j.notes.clone());
    s.result.posts = Some(jobs.iter().flat_map(|j| j.posts().to_vec()).collect());
    s.result.request_ids = Some(request_ids);
    s.error = match status {
        JobStatus::Failed => jobs.iter().find_map(|j| j.error.clone()),
        _ => None,
    };
    s.created_at = iso(jobs
        .iter()
        .map(|j| j.created_at)
        .min()
        .unwrap_or(first.created_at));
    s.updated_at = iso(jobs
        .iter()
        .map(|j| j.updated_at)
        .max()
        .unwrap_or(first.updated_at));
    Some(s)
}
