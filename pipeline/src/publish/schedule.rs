//! The publishing schedule: an account's publish requests with a `scheduled_date`, as the
//! schedule page under `{app_url}` shows them. The schedule itself is the job queue in redb
//! (a queue entry with `not_before`), so a scheduled post survives a restart or a crash and
//! goes out at its time.

use crate::publish::record;
use foundation::model::JobStatus;
use foundation::store::{Store, StoreResult};
use foundation::time::iso;

/// One scheduled post.
#[derive(Debug, Clone)]
pub struct Scheduled {
    pub request_id: String,
    pub title: String,
    pub platforms: Vec<String>,
    pub channel_group: u32,
    /// ISO 8601 UTC.
    pub at: String,
    /// The same time in the request's time zone, for people.
    pub local: String,
    pub status: JobStatus,
}

/// `at` in time zone `tz`: `2026-12-01 09:30 +07`.
pub(crate) fn local_time(at: i64, tz: &str) -> String {
    let zone = jiff::tz::TimeZone::get(tz).unwrap_or(jiff::tz::TimeZone::UTC);
    jiff::Timestamp::from_second(at)
        .map(|t| {
            t.to_zoned(zone)
                .strftime("%Y-%m-%d %H:%M %Z (%:z)")
                .to_string()
        })
        .unwrap_or_default()
}

/// Every scheduled publish request of `account`, soonest first.
pub fn list(store: &Store, account: &str) -> StoreResult<Vec<Scheduled>> {
    let mut out = Vec::new();
    for r in record::of_account(store, account)? {
        let Some(at) = r.scheduled_at else { continue };
        let status = store
            .job(&r.request_id)?
            .map_or(JobStatus::Processing, |j| j.status);
        out.push(Scheduled {
            title: r.title.clone(),
            platforms: r.platforms.iter().map(|p| p.as_str().to_string()).collect(),
            channel_group: r.channel_group,
            at: iso(at),
            local: local_time(at, &r.timezone),
            status,
            request_id: r.request_id,
        });
    }
    out.sort_by(|a, b| a.at.cmp(&b.at));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_shown_in_its_zone() {
        assert_eq!(
            local_time(1_893_466_800, "Asia/Ho_Chi_Minh"),
            "2030-01-01 10:00 +07 (+07:00)"
        );
    }
}
