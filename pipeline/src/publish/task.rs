//! The `publish` task: the worker hands a due publish request to the publisher through its
//! group's profile and returns what each platform answered (the job core completes the job, or
//! fails it with `publish_failed` and gives the credit back when no platform took the post).

use crate::publish::connections::{self, CONNECTIONS, Connection, REFRESH_SECS};
use crate::publish::groups;
use crate::publish::publisher::Publisher;
use crate::publish::record::PublishRecord;
use foundation::jobs::{Engine, JobFailure};
use foundation::model::{Job, PostResult};
use foundation::time::now;

pub fn publish(
    engine: &Engine,
    publisher: &dyn Publisher,
    job: &Job,
) -> Result<Vec<PostResult>, JobFailure> {
    let store = &engine.store;
    let record = PublishRecord::load(store, &job.topic_id)?
        .ok_or_else(|| JobFailure::internal("publish record missing"))?;
    let group = groups::record(store, &record.account, record.channel_group)?;
    if record.channel_group != 0 && group.is_none() {
        // The group was deleted while the post waited in the schedule.
        return Ok(record
            .platforms
            .iter()
            .map(|p| PostResult {
                platform: p.as_str().into(),
                success: false,
                post_url: None,
                post_id: None,
                error: Some("The channel group was deleted before the post went out.".into()),
            })
            .collect());
    }
    let profile = group.and_then(|g| g.profile_key);
    refresh_handles(engine, publisher, &record, profile.as_deref());
    Ok(publisher.post(&record, profile.as_deref()))
}

/// Reads the handle and display name of each account the post goes out as again, when they
/// are older than [`REFRESH_SECS`] (best effort: a failure keeps the old ones).
fn refresh_handles(
    engine: &Engine,
    publisher: &dyn Publisher,
    record: &PublishRecord,
    profile: Option<&str>,
) {
    for p in &record.platforms {
        let k = connections::key(&record.account, record.channel_group, *p);
        let Ok(Some(mut c)) = engine.store.record::<Connection>(CONNECTIONS, &k) else {
            continue;
        };
        if now() - c.refreshed_at < REFRESH_SECS {
            continue;
        }
        match publisher.linked_account(profile, *p) {
            Ok(found) => {
                if let Some(up) = found.filter(|u| !u.username.is_empty()) {
                    c.username = up.username;
                    c.display_name = up.display_name;
                }
                c.refreshed_at = now();
                if let Err(e) = engine.store.write(|tx| tx.put_record(CONNECTIONS, &k, &c)) {
                    tracing::warn!(error = %e, "connection refresh not stored");
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, platform = p.as_str(), "connection refresh failed")
            }
        }
    }
}
