//! The per-account message limit (spec: 60 per hour, `[notify] max_per_hour`), a sliding
//! window of send times kept in redb so a restart does not reset it. Checked and counted in one
//! transaction. Every endpoint that sends email or messages counts here
//! ([`crate::notify::send::Notifier::count_one`]): `notification/send`, `client_link/send` with
//! channels and a forwarded `error/report`.

use serde::{Deserialize, Serialize};
use serde_json::json;

use foundation::error::{Code, Error};
use foundation::store::{Store, Table};

const WINDOW_SECS: i64 = 3600;

/// Send times per account.
pub(crate) const RATE_TABLE: Table = Table::new("notification_rate");

/// The unix times of an account's notifications in the last hour, oldest first.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Window {
    sent_at: Vec<i64>,
}

/// Counts one message for `account` at `now`, or refuses with 429 `rate_limited` when the last
/// hour already holds `max` (at least 1).
pub fn take(store: &Store, account: &str, now: i64, max: usize) -> Result<(), Error> {
    store.write(|tx| {
        let mut w: Window = tx.record(RATE_TABLE, account)?.unwrap_or_default();
        w.sent_at.retain(|t| now - t < WINDOW_SECS);
        if w.sent_at.len() >= max {
            // Room for one more once the oldest `len - max + 1` have left the window.
            let leaves = w.sent_at.get(w.sent_at.len() - max).copied().unwrap_or(now);
            let retry = (leaves + WINDOW_SECS - now).max(1);
            return Err(Error::new(
                Code::RateLimited,
                format!("At most {max} messages per hour; try again in {retry} s."),
            )
            .details(json!({
                "rate_limit_max": max,
                "rate_limit_count": w.sent_at.len(),
            }))
            .retry_after(retry.unsigned_abs()));
        }
        w.sent_at.push(now);
        tx.put_record(RATE_TABLE, account, &w)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The spec's default of messages an account may send per hour.
    use crate::notify::config::SPEC_NOTIFICATIONS_PER_HOUR as MAX_PER_HOUR;

    #[test]
    fn the_sixty_first_in_an_hour_waits_for_the_oldest_to_leave() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.redb")).unwrap();
        for i in 0..MAX_PER_HOUR as i64 {
            take(&store, "a", 1000 + i, MAX_PER_HOUR).unwrap();
        }
        let e = take(&store, "a", 1100, MAX_PER_HOUR).unwrap_err();
        assert_eq!(e.code, Code::RateLimited);
        let d = e.details.unwrap();
        assert_eq!(d["rate_limit_count"], 60);
        assert_eq!(d["retry_after_seconds"], 1000 + 3600 - 1100);
        take(&store, "b", 1100, MAX_PER_HOUR).unwrap();
        take(&store, "a", 1000 + 3600, MAX_PER_HOUR).unwrap();
    }
}
