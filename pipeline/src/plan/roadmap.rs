//! `GET /v1/roadmap?cycle=`: the weekly production cycle, derived from the account's plan
//! entries and video jobs.
//!
//! - Weeks run Monday 00:00 to Sunday 23:59:59 UTC. Week 1 is the account's first week (the
//!   one it was created in); `current_week` is the number of this week.
//! - A cycle is 4 weeks: cycle 1 is weeks 1–4, cycle 2 weeks 5–8, and so on.
//! - A week's topics are the plan entries created in it (their `week_start`) and the videos
//!   made in it without a plan entry. Each week has `weekly_quota` slots, or more when more
//!   topics fall in it; a topic is `completed` when its video is rendered (an MP4).
//! - A week meets the quota when `weekly_quota` of its topics are completed. `streak` counts
//!   the weeks in a row that met it, ending with the current week when that one already
//!   has, else with the last full week.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::plan::entry::{PlanEntry, entries_of};
use crate::plan::query::{self, Query};
use crate::plan::videos::{jobs_of, title_of};
use foundation::error::{Code, Result};
use foundation::model::{Account, Job, JobStatus};
use foundation::store::Store;
use foundation::time::{iso, now};

/// The weekly quota of an account that has not set one.
pub(crate) const DEFAULT_WEEKLY_QUOTA: u32 = 3;
/// The largest weekly quota an account may set.
pub const MAX_WEEKLY_QUOTA: u32 = 50;
/// Weeks in a cycle.
pub(crate) const CYCLE_WEEKS: i64 = 4;
/// The largest `cycle` accepted (about 770 years).
pub(crate) const MAX_CYCLE: i64 = 10_000;

const DAY: i64 = 86_400;
const WEEK: i64 = 7 * DAY;
/// 1970-01-05, the first Monday of the unix epoch.
const FIRST_MONDAY: i64 = 4 * DAY;

/// Monday 00:00 UTC of the week that holds `t`.
pub(crate) fn week_start_of(t: i64) -> i64 {
    FIRST_MONDAY + (t - FIRST_MONDAY).div_euclid(WEEK) * WEEK
}

/// The query of `GET /v1/roadmap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoadmapQuery {
    /// 1-based.
    pub cycle: i64,
}

impl RoadmapQuery {
    pub fn read(q: &Query) -> Result<Self> {
        let cycle = query::integer(q, "cycle", Code::InvalidCycle, 1..=MAX_CYCLE)?;
        Ok(RoadmapQuery {
            cycle: cycle.unwrap_or(1),
        })
    }
}

/// The `object` name of a [`Roadmap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoadmapTag {
    Roadmap,
}

/// Where a topic in a slot stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlotStatus {
    /// A plan idea without scripts or video.
    Planned,
    /// A plan entry with scripts, no video yet.
    ScriptReady,
    /// Its video is being made, or waits at scenes ready for export.
    InProduction,
    /// Its video is rendered.
    Completed,
    /// Its video failed.
    Failed,
}

/// The topic filling a slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SlotTopic {
    pub topic_id: String,
    pub title: String,
    pub status: SlotStatus,
    /// When the topic entered the plan (or its video was made), ISO 8601.
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// One slot of a week: a topic, or `null` while free.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Slot {
    /// 1-based.
    #[schema(minimum = 1)]
    pub slot: usize,
    pub topic: Option<SlotTopic>,
}

/// One week of the cycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RoadmapWeek {
    /// The week's number, counted from the account's first week (1).
    pub week: i64,
    /// Monday 00:00 UTC.
    #[schema(format = DateTime)]
    pub starts_at: String,
    /// The next Monday 00:00 UTC (exclusive).
    #[schema(format = DateTime)]
    pub ends_at: String,
    /// This is the current week.
    pub current: bool,
    /// Topics of the week whose video is rendered.
    pub completed: usize,
    /// `completed` reached the weekly quota.
    pub met_quota: bool,
    /// `weekly_quota` slots, more when more topics fall in the week; filled in creation order.
    pub slots: Vec<Slot>,
}

/// The weekly production cycle (`object: roadmap`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Roadmap {
    pub object: RoadmapTag,
    /// The cycle shown (weeks `4·(cycle−1)+1` to `4·cycle`).
    #[schema(minimum = 1)]
    pub cycle: i64,
    /// Rendered videos of this cycle's weeks.
    pub total_completed: usize,
    /// Slots of this cycle's weeks.
    pub total_slots: usize,
    /// Videos per week the account aims for (account setting, default 3).
    pub weekly_quota: u32,
    /// The number of the current week (its cycle is `(current_week − 1) / 4 + 1`).
    pub current_week: i64,
    /// Weeks in a row that met the quota, up to the current week (or the last full week).
    pub streak: u32,
    pub weeks: Vec<RoadmapWeek>,
}

/// One topic of the account, placed in its week.
struct Placed {
    week: i64,
    created_at: i64,
    topic: SlotTopic,
}

fn status(entry: Option<&PlanEntry>, job: Option<&Job>) -> SlotStatus {
    match job {
        Some(j) if j.status == JobStatus::Completed && j.video_url.is_some() => {
            SlotStatus::Completed
        }
        Some(j) if j.status == JobStatus::Failed => SlotStatus::Failed,
        Some(_) => SlotStatus::InProduction,
        None if entry.is_some_and(PlanEntry::script_ready) => SlotStatus::ScriptReady,
        None => SlotStatus::Planned,
    }
}

/// Every topic of the account with its week number (counted from `first`, a Monday).
fn placed_topics(store: &Store, account: &str, first: i64) -> Result<Vec<Placed>> {
    let entries = entries_of(store, account)?;
    let jobs = jobs_of(store, account)?;
    let planned: HashSet<&str> = entries.iter().map(|e| e.topic_id.as_str()).collect();
    let by_topic: HashMap<&str, &Job> = jobs.iter().map(|j| (j.topic_id.as_str(), j)).collect();
    let week = |t: i64| (week_start_of(t) - first) / WEEK + 1;
    let mut out = Vec::with_capacity(entries.len() + jobs.len());
    for e in &entries {
        let job = by_topic.get(e.topic_id.as_str()).copied();
        out.push(Placed {
            week: week(e.created_at),
            created_at: e.created_at,
            topic: SlotTopic {
                topic_id: e.topic_id.clone(),
                title: e.title(),
                status: status(Some(e), job),
                created_at: iso(e.created_at),
            },
        });
    }
    for j in jobs
        .iter()
        .filter(|j| !planned.contains(j.topic_id.as_str()))
    {
        out.push(Placed {
            week: week(j.created_at),
            created_at: j.created_at,
            topic: SlotTopic {
                topic_id: j.topic_id.clone(),
                title: title_of(store, j),
                status: status(None, Some(j)),
                created_at: iso(j.created_at),
            },
        });
    }
    out.sort_by(|a, b| (a.created_at, &a.topic.topic_id).cmp(&(b.created_at, &b.topic.topic_id)));
    Ok(out)
}

/// Weeks in a row, ending at `current` (or the week before when `current` has not met the
/// quota yet), whose completed count reached `quota`.
fn streak(completed: &BTreeMap<i64, usize>, quota: u32, current: i64) -> u32 {
    let met = |w: i64| completed.get(&w).copied().unwrap_or(0) >= quota as usize;
    let mut w = if met(current) { current } else { current - 1 };
    let mut n = 0;
    while w >= 1 && met(w) {
        n += 1;
        w -= 1;
    }
    n
}

/// The roadmap of `account` for one cycle.
pub fn roadmap(store: &Store, account: &Account, q: RoadmapQuery) -> Result<Roadmap> {
    let quota = account.weekly_quota.unwrap_or(DEFAULT_WEEKLY_QUOTA).max(1);
    let first = week_start_of(account.created_at);
    let current = (week_start_of(now()) - first) / WEEK + 1;
    let topics = placed_topics(store, &account.name, first)?;
    let mut completed = BTreeMap::<i64, usize>::new();
    for p in topics
        .iter()
        .filter(|p| p.topic.status == SlotStatus::Completed)
    {
        *completed.entry(p.week).or_default() += 1;
    }
    let weeks: Vec<RoadmapWeek> = (1..=CYCLE_WEEKS)
        .map(|i| (q.cycle - 1) * CYCLE_WEEKS + i)
        .map(|week| {
            let in_week: Vec<&Placed> = topics.iter().filter(|p| p.week == week).collect();
            let n = in_week.len().max(quota as usize);
            let done = completed.get(&week).copied().unwrap_or(0);
            let starts = first + (week - 1) * WEEK;
            RoadmapWeek {
                week,
                starts_at: iso(starts),
                ends_at: iso(starts + WEEK),
                current: week == current,
                completed: done,
                met_quota: done >= quota as usize,
                slots: (0..n)
                    .map(|i| Slot {
                        slot: i + 1,
                        topic: in_week.get(i).map(|p| p.topic.clone()),
                    })
                    .collect(),
            }
        })
        .collect();
    Ok(Roadmap {
        object: RoadmapTag::Roadmap,
        cycle: q.cycle,
        total_completed: weeks.iter().map(|w| w.completed).sum(),
        total_slots: weeks.iter().map(|w| w.slots.len()).sum(),
        weekly_quota: quota,
        current_week: current,
        streak: streak(&completed, quota, current),
        weeks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_start_on_monday_utc() {
        // 2024-06-05 (a Wednesday) 12:00 UTC → Monday 2024-06-03.
        assert_eq!(iso(week_start_of(1_717_588_800)), "2024-06-03T00:00:00Z");
        assert_eq!(week_start_of(1_717_372_800), 1_717_372_800);
        assert_eq!(iso(week_start_of(0)), "1969-12-29T00:00:00Z");
    }

    #[test]
    fn the_streak_ends_at_the_current_week_or_the_last_full_one() {
        let done: BTreeMap<i64, usize> = [(1, 3), (2, 1), (3, 3), (4, 4)].into_iter().collect();
        assert_eq!(streak(&done, 3, 4), 2);
        // Week 5 has not met the quota yet: the streak still counts weeks 3 and 4.
        assert_eq!(streak(&done, 3, 5), 2);
        assert_eq!(streak(&done, 3, 6), 0);
        assert_eq!(streak(&done, 1, 4), 4);
    }
}
