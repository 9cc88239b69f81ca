//! Accounts and API keys. Keys are shown once and stored only as SHA-256.

use std::io::Write;
use std::path::Path;

use serde_json::json;

use crate::core::error::{Code, Error, Result};
use crate::core::ids;
use crate::core::model::{Account, Plan};
use crate::core::store::{Store, StoreResult, Tx};
use crate::core::time::now;

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
                email: None,
                industry: None,
                weekly_quota: None,
                telegram_chat_id: None,
            })?;
        }
        tx.put_key_hash(&hash, account)
    })?;
    Ok(key)
}

/// Account settings to change; `None` leaves a setting as it is.
#[derive(Debug, Clone, Default)]
pub struct SettingsUpdate {
    pub industry: Option<String>,
    pub weekly_quota: Option<u32>,
    /// The account's email (notifications, client links); empty clears it.
    pub email: Option<String>,
    /// The Telegram chat id notifications go to; empty disconnects Telegram.
    pub telegram_chat_id: Option<String>,
}

/// Changes settings of an existing account; false when there is no such account.
pub fn update_settings(store: &Store, account: &str, update: SettingsUpdate) -> StoreResult<bool> {
    store.write(|tx| {
        let Some(mut a) = tx.account(account)? else {
            return Ok(false);
        };
        if let Some(industry) = update.industry {
            a.industry = Some(industry).filter(|i| !i.trim().is_empty());
        }
        if let Some(email) = update.email {
            a.email = Some(email.trim().to_string()).filter(|e| !e.is_empty());
        }
        if let Some(chat) = update.telegram_chat_id {
            a.telegram_chat_id = Some(chat.trim().to_string()).filter(|c| !c.is_empty());
        }
        if let Some(quota) = update.weekly_quota {
            a.weekly_quota = Some(quota);
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

/// Takes `cost` credits from `account` inside `tx`: 402 `credit_exhausted` (nothing taken)
/// when fewer are left. Returns the credits remaining.
pub fn charge(tx: &mut Tx, account: &str, cost: i64) -> Result<i64> {
    let mut a = tx
        .account(account)?
        .ok_or_else(|| Error::internal("authenticated account vanished"))?;
    if a.credits < cost {
        return Err(Error::new(
            Code::CreditExhausted,
            format!(
                "This account has {} credits left; this call costs {cost}.",
                a.credits.max(0)
            ),
        )
        .details(json!({ "credits_remaining": a.credits.max(0), "credits_required": cost })));
    }
    a.credits -= cost;
    tx.put_account(&a)?;
    Ok(a.credits)
}

/// Gives `credits` back to `account` inside `tx` (a charged job that failed).
pub fn refund(tx: &mut Tx, account: &str, credits: i64) -> StoreResult<()> {
    if let Some(mut a) = tx.account(account)? {
        a.credits += credits;
        tx.put_account(&a)?;
    }
    Ok(())
}
