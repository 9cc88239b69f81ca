//! Wall-clock helpers: unix seconds and ISO 8601 UTC.

use std::time::{SystemTime, UNIX_EPOCH};

pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Unix nanoseconds: orders records made within the same second.
pub fn now_nanos() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

/// `2026-11-20T22:47:44Z`.
pub fn iso(unix: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// Unix seconds of `2026-11-20T22:47:44Z` (RFC 3339) or of a plain date `2026-11-20` (its
/// start, UTC); `None` when `s` is neither.
pub fn parse_iso(s: &str) -> Option<i64> {
    use time::format_description::well_known::Rfc3339;
    if let Ok(t) = time::OffsetDateTime::parse(s, &Rfc3339) {
        return Some(t.unix_timestamp());
    }
    let day =
        time::Date::parse(s, time::macros::format_description!("[year]-[month]-[day]")).ok()?;
    Some(day.midnight().assume_utc().unix_timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_timestamps_parse_to_unix_seconds() {
        assert_eq!(parse_iso("1970-01-02"), Some(86_400));
        assert_eq!(parse_iso("1970-01-01T00:01:00Z"), Some(60));
        assert_eq!(parse_iso(&iso(1_800_000_000)), Some(1_800_000_000));
        assert_eq!(parse_iso("tomorrow"), None);
    }
}
