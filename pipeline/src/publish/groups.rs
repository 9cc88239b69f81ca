//! Channel groups (spec: Channel group, `/v1/channel_groups`). Group 0, the primary group, exists
//! for every account without a record: it cannot be renamed or removed and comes first. New
//! groups take the next number from a per-account counter that only grows, so a number is never
//! given twice, even after its group was deleted. Creating and deleting a group needs a paid
//! plan (402 `plan_required` through the shared guard); an account has at most
//! `publish.channel_group_limit` groups, group 0 included (409 `channel_group_limit`).

use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use crate::publish::connections;
use foundation::accounts::{self, ChannelGroup, Charge, PRIMARY_GROUP_LABEL, PlanNeed};
use foundation::error::{Code, Error, Result};
use foundation::fields::Body;
use foundation::model::Account;
use foundation::store::{Store, StoreResult, Table, Tx};
use foundation::time::{iso, now};

/// `{account}/{number:010}` → [`GroupRecord`] (groups other than 0).
pub(crate) const GROUPS: Table = Table::new("channel_groups");
/// account → the last group number given (never goes down).
pub(crate) const GROUP_COUNTERS: Table = Table::new("channel_group_counters");

/// Labels are at most this many characters.
pub(crate) const LABEL_MAX_CHARS: usize = 40;

/// A channel group other than 0.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GroupRecord {
    pub account: String,
    pub number: u32,
    pub label: String,
    pub created_at: i64,
    /// The connector's profile of this group (`Profile-Key`), when the publisher has profiles.
    #[serde(default)]
    pub profile_key: Option<String>,
}

fn key(account: &str, number: u32) -> String {
    format!("{account}/{number:010}")
}

/// The body of `POST /v1/channel_groups` and `PATCH /v1/channel_groups/{n}`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LabelRequest {
    /// The group's name: 1 to 40 characters, not blank.
    #[schema(min_length = 1, max_length = 40, pattern = r"\S")]
    pub label: String,
}

/// Read by `foundation::fields::body::read`: `label` is required (`missing_field`) and at most 40
/// characters (`invalid_label`).
impl Body for LabelRequest {
    type Valid = LabelRequest;

    fn validate(self) -> Result<Self> {
        let label = self.label.trim().to_string();
        if label.chars().count() > LABEL_MAX_CHARS {
            return Err(Error::new(
                Code::InvalidLabel,
                format!("`label` is longer than {LABEL_MAX_CHARS} characters."),
            )
            .param("label"));
        }
        Ok(LabelRequest { label })
    }
}

/// `GET /v1/channel_groups`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GroupList {
    /// Always `list`.
    #[schema(example = "list")]
    pub object: &'static str,
    /// Primary first, then by number.
    pub data: Vec<ChannelGroup>,
    /// How many groups the account may have, group 0 included.
    pub limit: u32,
    /// The setup page where the account holder connects platforms to a group (no sign-in; the
    /// link is signed for this account).
    #[schema(format = "uri")]
    pub setup_url: String,
    /// The page that lists the account's scheduled posts (signed like `setup_url`).
    #[schema(format = "uri")]
    pub schedule_url: String,
}

/// The records of `account`'s groups other than 0, by number.
pub fn records(store: &Store, account: &str) -> StoreResult<Vec<GroupRecord>> {
    let prefix = format!("{account}/");
    Ok(store
        .records::<GroupRecord>(GROUPS)?
        .into_iter()
        .filter(|(k, _)| k.starts_with(&prefix))
        .map(|(_, g)| g)
        .collect())
}

/// One group's record; `None` for group 0 and for groups that do not exist.
pub fn record(store: &Store, account: &str, number: u32) -> StoreResult<Option<GroupRecord>> {
    store.record(GROUPS, &key(account, number))
}

/// Whether `account` has group `number` (group 0 always).
pub fn exists(store: &Store, account: &str, number: u32) -> StoreResult<bool> {
    Ok(number == 0 || record(store, account, number)?.is_some())
}

/// `number` if `account` has that group, else 404 `invalid_channel_group`.
pub(crate) fn existing(store: &Store, account: &str, number: u32) -> Result<u32> {
    if exists(store, account, number)? {
        Ok(number)
    } else {
        Err(not_found(number))
    }
}

pub fn not_found(number: u32) -> Error {
    Error::new(
        Code::ChannelGroupNotFound,
        format!("Channel group {number} does not exist on this account."),
    )
    .param("channel_group")
}

/// The label of a group (group 0: "Primary"); empty when it does not exist.
pub fn label(store: &Store, account: &str, number: u32) -> StoreResult<String> {
    if number == 0 {
        return Ok(PRIMARY_GROUP_LABEL.into());
    }
    Ok(record(store, account, number)?
        .map(|g| g.label)
        .unwrap_or_default())
}

/// Every group of `a` as the API shows it, primary first.
pub fn list(store: &Store, a: &Account) -> StoreResult<Vec<ChannelGroup>> {
    let connections = connections::all(store, &a.name)?;
    let shown = |number: u32, label: String, created_at: i64| {
        let mut platforms: Vec<String> = connections
            .iter()
            .filter(|c| c.channel_group == number)
            .map(|c| c.platform.as_str().to_string())
            .collect();
        platforms.sort();
        ChannelGroup {
            channel_group: number,
            label,
            is_primary: number == 0,
            status: if platforms.is_empty() {
                "empty"
            } else {
                "active"
            }
            .into(),
            connected_count: platforms.len() as u32,
            connected_platforms: platforms,
            created_at: iso(created_at),
        }
    };
    let mut out = vec![shown(0, PRIMARY_GROUP_LABEL.into(), a.created_at)];
    for g in records(store, &a.name)? {
        out.push(shown(g.number, g.label, g.created_at));
    }
    Ok(out)
}

/// One group as the API shows it, or 404.
pub fn one(store: &Store, a: &Account, number: u32) -> Result<ChannelGroup> {
    list(store, a)?
        .into_iter()
        .find(|g| g.channel_group == number)
        .ok_or_else(|| not_found(number))
}

/// What a new group needs from the publisher before it is stored: a profile, when the
/// publisher keeps one per group (called outside the store's transaction; its result is
/// stored with the group).
pub(crate) type Provision<'a> = &'a dyn Fn(&str) -> Result<Option<String>>;

/// `POST /v1/channel_groups`: checks the plan (402) and the limit (409) and stores the group
/// under the next number, with the profile `provision` made for it.
pub fn create(
    store: &Store,
    a: &Account,
    label: &str,
    limit: u32,
    pricing_url: &str,
    provision: Provision,
) -> Result<ChannelGroup> {
    // Checked before the profile is made (no profile for a refused call), and again inside the
    // transaction that stores the group.
    store.write(|tx| check_create(tx, &a.name, limit, pricing_url))?;
    let profile_key = provision(label)?;
    let number = store.write(|tx| -> Result<u32> {
        check_create(tx, &a.name, limit, pricing_url)?;
        let last: u32 = tx.record(GROUP_COUNTERS, &a.name)?.unwrap_or(0);
        let number = last + 1;
        tx.put_record(GROUP_COUNTERS, &a.name, &number)?;
        tx.put_record(
            GROUPS,
            &key(&a.name, number),
            &GroupRecord {
                account: a.name.clone(),
                number,
                label: label.to_string(),
                created_at: now(),
                profile_key: profile_key.clone(),
            },
        )?;
        Ok(number)
    })?;
    one(store, a, number)
}

/// The plan (402 through the shared guard, nothing charged) and the limit (409).
fn check_create(tx: &mut Tx, account: &str, limit: u32, pricing_url: &str) -> Result<()> {
    paid_plan(tx, account, pricing_url)?;
    let prefix = format!("{account}/");
    let mut count = 1u32;
    let mut n = 1u32;
    let last: u32 = tx.record(GROUP_COUNTERS, account)?.unwrap_or(0);
    while n <= last {
        if tx
            .record::<GroupRecord>(GROUPS, &format!("{prefix}{n:010}"))?
            .is_some()
        {
            count += 1;
        }
        n += 1;
    }
    if count >= limit {
        return Err(Error::new(
            Code::ChannelGroupLimit,
            format!("This account already has its {limit} channel groups."),
        )
        .details(json!({"pricing_url": pricing_url, "limit": limit})));
    }
    Ok(())
}

/// 402 `plan_required` (or `account_expired`) unless the account is on a paid plan.
pub(crate) fn paid_plan(tx: &mut Tx, account: &str, pricing_url: &str) -> Result<()> {
    accounts::charge(
        tx,
        account,
        &Charge {
            cost: 0,
            plan: PlanNeed::Paid,
            pricing_url,
        },
    )
    .map(|_| ())
}

/// `PATCH /v1/channel_groups/{n}`: renames a group; group 0 and missing groups are 404.
pub fn rename(store: &Store, a: &Account, number: u32, label: &str) -> Result<ChannelGroup> {
    store.write(|tx| -> Result<()> {
        let k = key(&a.name, number);
        let mut g: GroupRecord = tx
            .record(GROUPS, &k)?
            .ok_or_else(|| primary_or_missing(number))?;
        g.label = label.to_string();
        tx.put_record(GROUPS, &k, &g)?;
        Ok(())
    })?;
    one(store, a, number)
}

/// `DELETE /v1/channel_groups/{n}`: removes the group and disconnects its accounts in one
/// transaction (402 on a free plan; group 0 and missing groups 404). Posts already published
/// stay: feeds and post pages are kept. Returns the removed record (its profile is the
/// publisher's to delete).
pub fn delete(store: &Store, a: &Account, number: u32, pricing_url: &str) -> Result<GroupRecord> {
    store.write(|tx| -> Result<GroupRecord> {
        let k = key(&a.name, number);
        let g: GroupRecord = tx
            .record(GROUPS, &k)?
            .ok_or_else(|| primary_or_missing(number))?;
        paid_plan(tx, &a.name, pricing_url)?;
        tx.remove_record(GROUPS, &k)?;
        connections::disconnect_group(tx, &a.name, number)?;
        Ok(g)
    })
}

fn primary_or_missing(number: u32) -> Error {
    if number == 0 {
        Error::new(
            Code::ChannelGroupNotFound,
            "Channel group 0 is the primary group; it cannot be renamed or removed.",
        )
        .param("channel_group")
    } else {
        not_found(number)
    }
}
