//! `GET /v1/analytics`: `period` (`last_day`, `last_week` default, `last_month`,
//! `last_3months`, `last_year`, or `custom` with `start_date` and `end_date`) and
//! `channel_group` (omitted: every group, maps keyed `platform` for group 0 and `platform@N`
//! for group N; an integer: that group; `all`: every group summed). The dashboard holds real
//! numbers: per platform the posts made in the period and the views and media downloads of
//! their post pages counted by the daemon (people and bots apart), and, with the connector,
//! the aggregator's own analytics per group (`upstream`). Dashboards are cached for
//! `publish.analytics_cache_secs` (the spec calls the endpoint slow).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::publish::connections::{self, GroupScope};
use crate::publish::feed::{self, Counts};
use crate::publish::groups;
use crate::publish::publisher::Publisher;
use foundation::error::{Code, Error, Result};
use foundation::store::Store;
use foundation::time::{iso, now, parse_iso};

foundation::document::wire_enum! {
    /// The reporting window.
    pub enum Period: Code::InvalidPeriod {
        LastDay = "last_day",
        LastWeek = "last_week",
        LastMonth = "last_month",
        Last3months = "last_3months",
        LastYear = "last_year",
        Custom = "custom",
    }
}

impl Period {
    fn days(self) -> i64 {
        match self {
            Period::LastDay => 1,
            Period::LastWeek => 7,
            Period::LastMonth => 30,
            Period::Last3months => 91,
            Period::LastYear => 365,
            Period::Custom => 0,
        }
    }
}

/// The query of `GET /v1/analytics`, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyticsQuery {
    pub period: Period,
    /// Unix seconds, inclusive.
    pub from: i64,
    pub to: i64,
    pub scope: GroupScope,
}

fn bad_date(param: &str) -> Error {
    Error::new(
        Code::InvalidDate,
        format!("`{param}` must be a date (YYYY-MM-DD) or an ISO 8601 date-time."),
    )
    .param(param)
}

impl AnalyticsQuery {
    /// Reads the query parameters.
    pub fn read(q: &HashMap<String, String>, at: i64) -> Result<AnalyticsQuery> {
        let period = match q.get("period").map(String::as_str) {
            None => Period::LastWeek,
            Some(p) => Period::parse(p).ok_or_else(|| {
                Error::new(
                    Code::InvalidPeriod,
                    format!("`period` must be one of: {}.", Period::NAMES.join(", ")),
                )
                .param("period")
            })?,
        };
        let scope = GroupScope::parse(q.get("channel_group").map(String::as_str))?;
        let (from, to) = if period == Period::Custom {
            let date = |k: &str| {
                q.get(k)
                    .ok_or_else(|| Error::missing(k))
                    .and_then(|s| parse_iso(s).ok_or_else(|| bad_date(k)))
            };
            let (from, to) = (date("start_date")?, date("end_date")?);
            if to < from {
                return Err(
                    Error::new(Code::InvalidDate, "`end_date` is before `start_date`.")
                        .param("end_date"),
                );
            }
            // A plain end date covers its whole day.
            (from, to + 86_399)
        } else {
            (at - period.days() * 86_400, at)
        };
        Ok(AnalyticsQuery {
            period,
            from,
            to,
            scope,
        })
    }

    fn cache_key(&self, account: &str) -> String {
        format!(
            "{account}|{:?}|{}|{}|{:?}",
            self.period,
            self.from / 60,
            self.to / 60,
            self.scope
        )
    }
}

/// One platform's numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ToSchema)]
pub struct PlatformStats {
    /// Posts made in the period.
    pub posts: u64,
    /// Post page views by people in the period.
    pub views: u64,
    /// Post page views by robots (crawlers, link previews, scripts).
    pub bot_views: u64,
    /// Media downloads (the video of a post) by people.
    pub downloads: u64,
    pub bot_downloads: u64,
    /// The aggregator's own analytics by channel group (connector only).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    #[schema(value_type = Object)]
    pub upstream: BTreeMap<String, Value>,
}

impl PlatformStats {
    fn add(&mut self, c: &Counts) {
        self.views += c.views;
        self.bot_views += c.bot_views;
        self.downloads += c.downloads;
        self.bot_downloads += c.bot_downloads;
    }
}

/// The dashboard.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Dashboard {
    /// `feed` (the embedded publisher) or `ayrshare`.
    pub publisher: String,
    /// Every platform summed.
    pub totals: PlatformStats,
    /// Keyed `platform` (group 0, one group, or all summed) and `platform@N` (group N when
    /// `channel_group` is omitted).
    pub platforms: BTreeMap<String, PlatformStats>,
    /// When these numbers were computed (ISO 8601 UTC); later calls within the cache time
    /// answer the same.
    #[schema(format = DateTime)]
    pub computed_at: String,
}

/// `{object: analytics, period, channel_group, dashboard}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AnalyticsReply {
    /// Always `analytics`.
    #[schema(example = "analytics")]
    pub object: &'static str,
    pub period: Period,
    /// The number asked for, `all`, or null (every group).
    pub channel_group: Option<crate::publish::connections::GroupEcho>,
    #[schema(format = DateTime)]
    pub start_date: String,
    #[schema(format = DateTime)]
    pub end_date: String,
    pub dashboard: Dashboard,
}

fn key_of(platform: &str, group: u32, scope: GroupScope) -> String {
    match scope {
        GroupScope::Each if group != 0 => format!("{platform}@{group}"),
        _ => platform.to_string(),
    }
}

/// Computes the dashboard (slow: reads every post and count of the account, and asks the
/// connector).
pub fn compute(
    store: &Store,
    publisher: &dyn Publisher,
    account: &str,
    q: &AnalyticsQuery,
) -> Result<AnalyticsReply> {
    if let GroupScope::One(n) = q.scope {
        groups::existing(store, account, n)?;
    }
    let counts = feed::counts_between(store, q.from, q.to)?;
    let mut platforms: BTreeMap<String, PlatformStats> = BTreeMap::new();
    let mut totals = PlatformStats::default();
    for post in feed::posts_of(store, account)? {
        if !q.scope.covers(post.channel_group) {
            continue;
        }
        let made = (q.from..=q.to).contains(&post.published_at);
        let c = counts.get(&post.post_id).copied().unwrap_or_default();
        for p in &post.platforms {
            let s = platforms
                .entry(key_of(p.as_str(), post.channel_group, q.scope))
                .or_default();
            s.posts += u64::from(made);
            s.add(&c);
        }
        totals.posts += u64::from(made);
        totals.add(&c);
    }
    upstream(store, publisher, account, q, &mut platforms)?;
    Ok(AnalyticsReply {
        object: "analytics",
        period: q.period,
        channel_group: q.scope.echo(),
        start_date: iso(q.from),
        end_date: iso(q.to),
        dashboard: Dashboard {
            publisher: publisher.name().into(),
            totals,
            platforms,
            computed_at: iso(now()),
        },
    })
}

/// The connector's analytics of each group in scope, under each connected platform's key.
fn upstream(
    store: &Store,
    publisher: &dyn Publisher,
    account: &str,
    q: &AnalyticsQuery,
    platforms: &mut BTreeMap<String, PlatformStats>,
) -> Result<()> {
    let mut groups_in_scope = vec![0u32];
    groups_in_scope.extend(groups::records(store, account)?.iter().map(|g| g.number));
    for group in groups_in_scope.into_iter().filter(|g| q.scope.covers(*g)) {
        let connected: Vec<_> = connections::in_group(store, account, group)?
            .into_iter()
            .map(|c| c.platform)
            .collect();
        let profile = groups::record(store, account, group)?.and_then(|g| g.profile_key);
        let Some(numbers) = publisher.analytics(profile.as_deref(), &connected)? else {
            return Ok(());
        };
        for (p, v) in numbers {
            platforms
                .entry(key_of(p.as_str(), group, q.scope))
                .or_default()
                .upstream
                .insert(group.to_string(), v);
        }
    }
    Ok(())
}

/// Dashboards computed lately, reused for `ttl`.
pub struct AnalyticsCache {
    ttl: Duration,
    entries: Mutex<HashMap<String, (Instant, AnalyticsReply)>>,
}

impl AnalyticsCache {
    pub fn new(ttl_secs: u64) -> AnalyticsCache {
        AnalyticsCache {
            ttl: Duration::from_secs(ttl_secs),
            entries: Mutex::default(),
        }
    }

    /// The cached dashboard of the query, or a fresh one from `compute`.
    pub fn get(
        &self,
        account: &str,
        q: &AnalyticsQuery,
        compute: impl FnOnce() -> Result<AnalyticsReply>,
    ) -> Result<AnalyticsReply> {
        let key = q.cache_key(account);
        if let Some((at, reply)) = self.entries.lock().expect("cache lock").get(&key)
            && at.elapsed() < self.ttl
        {
            return Ok(reply.clone());
        }
        let reply = compute()?;
        let mut entries = self.entries.lock().expect("cache lock");
        entries.retain(|_, (at, _)| at.elapsed() < self.ttl);
        entries.insert(key, (Instant::now(), reply.clone()));
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> Result<AnalyticsQuery> {
        let m = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        AnalyticsQuery::read(&m, 1_000_000_000)
    }

    #[test]
    fn periods_scopes_and_custom_dates_are_read() {
        let d = q(&[]).unwrap();
        assert_eq!((d.period, d.scope), (Period::LastWeek, GroupScope::Each));
        assert_eq!(d.to - d.from, 7 * 86_400);
        assert_eq!(
            q(&[("channel_group", "all")]).unwrap().scope,
            GroupScope::All
        );
        assert_eq!(
            q(&[("channel_group", "2")]).unwrap().scope,
            GroupScope::One(2)
        );
        assert_eq!(
            q(&[("channel_group", "-1")]).unwrap_err().code,
            Code::InvalidChannelGroup
        );
        assert_eq!(
            q(&[("period", "forever")]).unwrap_err().code,
            Code::InvalidPeriod
        );
        let c = q(&[
            ("period", "custom"),
            ("start_date", "2026-01-01"),
            ("end_date", "2026-01-02"),
        ])
        .unwrap();
        assert_eq!(c.to - c.from, 2 * 86_400 - 1);
        assert_eq!(
            q(&[("period", "custom"), ("start_date", "2026-01-01")])
                .unwrap_err()
                .code,
            Code::MissingField
        );
        assert_eq!(
            q(&[
                ("period", "custom"),
                ("start_date", "x"),
                ("end_date", "2026-01-01")
            ])
            .unwrap_err()
            .code,
            Code::InvalidDate
        );
        assert_eq!(key_of("x", 2, GroupScope::Each), "x@2");
        assert_eq!(key_of("x", 2, GroupScope::All), "x");
    }
}
