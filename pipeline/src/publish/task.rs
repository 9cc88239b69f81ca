//! The `publish` task: the worker hands a due publish request to the publisher through its
//! group's profile and returns what each platform answered (the job core completes the job, or
//! fails it with `publish_failed` and gives the credit back when no platform took the post).

use crate::core::jobs::{Engine, JobFailure};
use crate::core::model::{Job, PostResult};
use crate::publish::groups;
use crate::publish::publisher::Publisher;
use crate::publish::record::PublishRecord;

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
    Ok(publisher.post(&record, profile.as_deref()))
}
