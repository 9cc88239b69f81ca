//! Accounts and API keys. Keys are shown once and stored only as SHA-256.

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use crate::error::{Code, Error, Result};
use crate::ids;
use crate::model::{Account, Plan};
use crate::store::{Store, StoreResult, Tx};
use crate::time::now;

pub const DEFAULT_ACCOUNT: &str = "default";
pub const DEFAULT_CREDITS: i64 = 1000;

/// Creates `account` if it does not exist and issues a new key for it.
pub fn create_key(store: &Store, account: &str, plan: Plan, credits: i64) -> StoreResult<String> {
    let key = ids::api_key();
    let hash = ids::hash_api_key(&key);
    store.write(|tx| {
        if tx.account(account)?.is_none() {
            tx.put_account(&Account {
                name: account.to_string(),
                plan,
                credits,
                created_at: now(),
                ..Account::default()
            })?;
        }
        tx.put_key_hash(&hash, account)
    })?;
    Ok(key)
}

/// Account settings to change; `None` leaves a setting as it is, and an empty text clears it.
#[derive(Debug, Clone, Default)]
pub struct SettingsUpdate {
    pub industry: Option<String>,
    pub sub_industry: Option<String>,
    /// The account's email (notifications, client links); empty clears it.
    pub email: Option<String>,
    pub contact_name: Option<String>,
    pub location: Option<String>,
    pub weekly_quota: Option<u32>,
    /// The Telegram chat id notifications go to; empty disconnects Telegram.
    pub telegram_chat_id: Option<String>,
    pub plan: Option<Plan>,
    pub credits: Option<i64>,
    /// `Some(None)` removes the expiry.
    pub valid_to: Option<Option<i64>>,
}

/// Changes settings of an existing account; false when there is no such account.
pub fn update_settings(store: &Store, account: &str, update: SettingsUpdate) -> StoreResult<bool> {
    store.write(|tx| {
        let Some(mut a) = tx.account(account)? else {
            return Ok(false);
        };
        let text = |new: Option<String>, old: &mut Option<String>| {
            if let Some(v) = new {
                *old = Some(v.trim().to_string()).filter(|v| !v.is_empty());
            }
        };
        text(update.industry, &mut a.industry);
        text(update.sub_industry, &mut a.sub_industry);
        text(update.email, &mut a.email);
        text(update.contact_name, &mut a.contact_name);
        text(update.location, &mut a.location);
        text(update.telegram_chat_id, &mut a.telegram_chat_id);
        if let Some(quota) = update.weekly_quota {
            a.weekly_quota = Some(quota);
        }
        if let Some(plan) = update.plan {
            a.plan = plan;
        }
        if let Some(credits) = update.credits {
            a.credits = credits;
        }
        if let Some(valid_to) = update.valid_to {
            a.valid_to = valid_to;
        }
        tx.put_account(&a)?;
        Ok(true)
    })
}

/// On an empty store: creates account `default` (paid, 1000 credits) and
/// writes its key to `<data_dir>/bootstrap-key` with mode 0600. Returns the
/// key when one was created.
pub fn bootstrap(store: &Store, data_dir: &Path) -> std::io::Result<Option<String>> {
    let empty = store.account_count().map_err(std::io::Error::other)? == 0;
    if !empty {
        return Ok(None);
    }
    let key = create_key(store, DEFAULT_ACCOUNT, Plan::Paid, DEFAULT_CREDITS)
        .map_err(std::io::Error::other)?;
    let path = data_dir.join("bootstrap-key");
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut f = opts.open(&path)?;
    writeln!(f, "{key}")?;
    Ok(Some(key))
}

/// The account behind a presented key, if any.
pub fn authenticate(store: &Store, key: &str) -> StoreResult<Option<Account>> {
    store.account_for_key_hash(&ids::hash_api_key(key))
}

/// Whether charged work needs a paid plan or runs on any plan with credits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanNeed {
    Any,
    /// Free and trial plans answer 402 `plan_required`.
    Paid,
}

/// What a charged call asks of its account; [`charge`] is the one check of it.
#[derive(Debug, Clone, Copy)]
pub struct Charge<'a> {
    /// Credits the call takes.
    pub cost: i64,
    pub plan: PlanNeed,
    /// Sent as `details.pricing_url` with every 402, the page where the client upgrades.
    pub pricing_url: &'a str,
}

impl<'a> Charge<'a> {
    /// `cost` credits on any plan.
    pub fn credits(cost: i64, pricing_url: &'a str) -> Charge<'a> {
        Charge {
            cost,
            plan: PlanNeed::Any,
            pricing_url,
        }
    }
}

/// The shared 402 guard: inside `tx` (the transaction that also stores the work's record), checks
/// that `account` has not passed its `valid_to` (`account_expired`), holds the plan the work
/// needs (`plan_required`) and has `charge.cost` credits left (`credit_exhausted`), then takes
/// them. Nothing is taken when a check fails. Returns the credits remaining.
pub fn charge(tx: &mut Tx, account: &str, charge: &Charge) -> Result<i64> {
    let mut a = tx
        .account(account)?
        .ok_or_else(|| Error::internal("authenticated account vanished"))?;
    refusal(&a, charge, now()).map_or(Ok(()), Err)?;
    a.credits -= charge.cost;
    tx.put_account(&a)?;
    Ok(a.credits)
}

/// Why `a` may not do the work `charge` describes at time `at`, if it may not.
fn refusal(a: &Account, charge: &Charge, at: i64) -> Option<Error> {
    let remaining = a.credits.max(0);
    let details = json!({
        "pricing_url": charge.pricing_url,
        "plan": a.plan,
        "credits_remaining": remaining,
        "credits_required": charge.cost,
    });
    if let Some(valid_to) = a.valid_to.filter(|v| *v <= at) {
        let mut details = details;
        details["valid_to"] = json!(crate::time::iso(valid_to));
        return Some(
            Error::new(
                Code::AccountExpired,
                "This account has expired; renew it to continue.",
            )
            .details(details),
        );
    }
    if charge.plan == PlanNeed::Paid && a.plan != Plan::Paid {
        return Some(Error::new(Code::PlanRequired, "This needs a paid plan.").details(details));
    }
    if a.credits < charge.cost {
        return Some(
            Error::new(
                Code::CreditExhausted,
                format!(
                    "This account has {remaining} credits left; this call costs {}.",
                    charge.cost
                ),
            )
            .details(details),
        );
    }
    None
}

/// Gives `credits` back to `account` inside `tx` (a charged job that failed).
pub fn refund(tx: &mut Tx, account: &str, credits: i64) -> StoreResult<()> {
    if let Some(mut a) = tx.account(account)? {
        a.credits += credits;
        tx.put_account(&a)?;
    }
    Ok(())
}

/// `GET /v1/account`: the account as its records say.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AccountReply {
    /// Always `account`.
    #[schema(example = "account")]
    pub object: &'static str,
    /// The account's id.
    pub company_id: String,
    pub plan: Plan,
    pub credits_remaining: i64,
    /// When charged work stops (ISO 8601 UTC); null when the account does not expire.
    pub valid_to: Option<String>,
    pub industry: Option<String>,
    pub sub_industry: Option<String>,
    pub email: Option<String>,
    /// The account holder's name.
    pub name: Option<String>,
    pub location: Option<String>,
    /// The de-duplicated union of the platforms connected in every group, sorted.
    pub connected_platforms: Vec<String>,
    /// The account's channel groups, primary (group 0) first, then by number.
    pub channel_groups: Vec<ChannelGroup>,
}

/// A channel group (spec: Channel group). Built by `publish::groups` from its records; it lives
/// here because `GET /v1/account` carries it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChannelGroup {
    /// 0 is the primary group.
    pub channel_group: u32,
    pub label: String,
    pub is_primary: bool,
    /// `active` while at least one platform is connected, `empty` before.
    #[schema(example = "active")]
    pub status: String,
    pub connected_platforms: Vec<String>,
    pub connected_count: u32,
    /// ISO 8601 UTC.
    pub created_at: String,
}

/// The label of group 0.
pub const PRIMARY_GROUP_LABEL: &str = "Primary";

impl AccountReply {
    /// The reply for `a` with its channel groups (primary first), as `publish::groups` lists
    /// them.
    pub fn of(a: &Account, channel_groups: Vec<ChannelGroup>) -> AccountReply {
        let mut connected: Vec<String> = channel_groups
            .iter()
            .flat_map(|g| g.connected_platforms.iter().cloned())
            .collect();
        connected.sort();
        connected.dedup();
        AccountReply {
            object: "account",
            company_id: a.name.clone(),
            plan: a.plan,
            credits_remaining: a.credits.max(0),
            valid_to: a.valid_to.map(crate::time::iso),
            industry: a.industry.clone(),
            sub_industry: a.sub_industry.clone(),
            email: a.email.clone(),
            name: a.contact_name.clone(),
            location: a.location.clone(),
            connected_platforms: connected,
            channel_groups,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(plan: Plan, credits: i64, valid_to: Option<i64>) -> Account {
        Account {
            name: "a".into(),
            plan,
            credits,
            valid_to,
            ..Account::default()
        }
    }

    fn code(a: &Account, charge: &Charge) -> Option<Code> {
        refusal(a, charge, 1_000).map(|e| e.code)
    }

    #[test]
    fn expiry_comes_before_plan_and_credits() {
        let a = account(Plan::Free, 0, Some(999));
        let paid = Charge {
            cost: 1,
            plan: PlanNeed::Paid,
            pricing_url: "p",
        };
        assert_eq!(code(&a, &paid), Some(Code::AccountExpired));
    }

    #[test]
    fn free_and_trial_plans_need_an_upgrade_for_paid_work() {
        let paid = Charge {
            cost: 1,
            plan: PlanNeed::Paid,
            pricing_url: "p",
        };
        for plan in [Plan::Free, Plan::Trial] {
            assert_eq!(
                code(&account(plan, 9, None), &paid),
                Some(Code::PlanRequired)
            );
        }
        assert_eq!(code(&account(Plan::Paid, 9, None), &paid), None);
    }

    #[test]
    fn too_few_credits_is_credit_exhausted_and_a_future_valid_to_passes() {
        let c = Charge::credits(2, "p");
        assert_eq!(
            code(&account(Plan::Free, 1, None), &c),
            Some(Code::CreditExhausted)
        );
        assert_eq!(code(&account(Plan::Free, 2, Some(1_001)), &c), None);
    }
}
