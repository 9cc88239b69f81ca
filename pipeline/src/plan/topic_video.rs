//! `create_video` with `topic_id`: a production plan entry becomes a video under its own topic
//! id. The entry is looked up here (ingest may not use the plan); the job engine refuses a
//! second video for the topic in the transaction that would create it.

use crate::plan::entry::{PLAN, PlanEntry};
use foundation::error::{Code, Error, Result};
use foundation::model::Source;
use foundation::store::Store;
use video::build::word_count;
use video::ingest::{CreateVideoRequest, SCRIPT_MAX_WORDS};

/// Completes `req` from `account`'s plan entry named by `req.topic_id` (nothing to do without
/// one): source text without `script_text` takes the master script, source idea without
/// `idea_text` the entry's idea, and the entry's language applies. 404 `topic_not_found`
/// when the account has no such entry; 409 `topic_exists` when the topic already has a video;
/// 409 `script_not_ready` when a script is needed and the entry has none; 400
/// `script_too_long` (param `topic_id`) when the master script is over create_video's 500 words
/// (plan scripts may have up to 1000).
pub fn fill_from_plan(store: &Store, account: &str, req: &mut CreateVideoRequest) -> Result<()> {
    let Some(topic) = req.topic_id.clone() else {
        return Ok(());
    };
    let entry: Option<PlanEntry> = store.record(PLAN, &topic)?;
    let Some(entry) = entry.filter(|e| e.account == account) else {
        return Err(Error::new(
            Code::TopicNotFound,
            "No production plan entry with this topic id exists on the account.",
        )
        .param("topic_id"));
    };
    if store.job(&topic)?.is_some() {
        return Err(Error::new(
            Code::TopicExists,
            "This topic already has a video; each topic becomes one video.",
        )
        .param("topic_id"));
    }
    match req.source.unwrap_or(Source::Text) {
        Source::Text if req.script_text.is_none() => {
            let master = entry.master_script().ok_or_else(|| {
                Error::new(
                    Code::ScriptNotReady,
                    "This plan entry has no script yet: send `script_text`, or add scripts to the entry.",
                )
                .param("topic_id")
            })?;
            let n = word_count(&master.text);
            if n > SCRIPT_MAX_WORDS {
                return Err(Error::new(
                    Code::ScriptTooLong,
                    format!(
                        "The entry's master script has {n} words; a video takes at most {SCRIPT_MAX_WORDS}: send a shorter `script_text`."
                    ),
                )
                .param("topic_id"));
            }
            req.script_text = Some(master.text.clone());
            req.script_from_plan = true;
        }
        Source::Idea if req.idea_text.is_none() => req.idea_text = Some(entry.idea_text.clone()),
        _ => {}
    }
    req.language.get_or_insert(entry.language);
    Ok(())
}
