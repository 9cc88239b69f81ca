//! The connection records: a platform connected to one channel group of an account (one record
//! per account, group and platform), and the `channel_group` scope of the read endpoints.
//! Making and listing them is [`crate::publish::accounts`]; deleting a group disconnects its
//! accounts through [`disconnect_group`] in the group's transaction.

use serde::{Deserialize, Serialize};

use crate::publish::platform::Platform;
use foundation::error::{Code, Error, Result};
use foundation::store::{Store, StoreResult, Table, Tx};

/// `{account}/{group:010}/{platform}` → [`Connection`].
pub(crate) const CONNECTIONS: Table = Table::new("connections");

pub fn key(account: &str, group: u32, platform: Platform) -> String {
    format!("{account}/{group:010}/{}", platform.as_str())
}

/// One connected account.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Connection {
    pub account: String,
    pub channel_group: u32,
    pub platform: Platform,
    /// The handle posts go out as.
    pub username: String,
    #[serde(default)]
    pub display_name: String,
    pub connected_at: i64,
    /// When the handle and display name were last read from the publisher (unix seconds).
    #[serde(default)]
    pub refreshed_at: i64,
}

/// Which groups a read covers (the `channel_group` query of the read endpoints).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupScope {
    /// Omitted: every group, each on its own.
    Each,
    /// An integer: that group.
    One(u32),
    /// `all`: every group, summed.
    All,
}

impl GroupScope {
    /// Reads the query value: omitted, `all`, or an integer of at least 0; anything else is 400
    /// `invalid_channel_group`.
    pub fn parse(raw: Option<&str>) -> Result<GroupScope> {
        match raw {
            None => Ok(GroupScope::Each),
            Some(s) if AllGroups::parse(s).is_some() => Ok(GroupScope::All),
            Some(s) => s
                .parse::<u32>()
                .map(GroupScope::One)
                .map_err(|_| invalid_group()),
        }
    }

    pub fn covers(self, group: u32) -> bool {
        match self {
            GroupScope::One(n) => n == group,
            _ => true,
        }
    }

    /// The `channel_group` a reply echoes: the number, `all`, or none when omitted.
    pub fn echo(self) -> Option<GroupEcho> {
        match self {
            GroupScope::Each => None,
            GroupScope::All => Some(GroupEcho::All(AllGroups::All)),
            GroupScope::One(n) => Some(GroupEcho::One(n)),
        }
    }
}

/// The `channel_group` a read asked for, as its reply echoes it (null when omitted: every
/// group).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum GroupEcho {
    /// That group.
    One(u32),
    /// Every group, summed.
    All(AllGroups),
}

foundation::document::wire_enum! {
    /// `all`: every group, summed.
    pub enum AllGroups {
        All = "all",
    }
}

/// 400 `invalid_channel_group`: not an integer of at least 0.
pub fn invalid_group() -> Error {
    Error::new(
        Code::InvalidChannelGroup,
        "`channel_group` must be an integer of at least 0 (or `all` where reads allow it).",
    )
    .param("channel_group")
}

/// Every connection of `account`, by group and platform.
pub fn all(store: &Store, account: &str) -> StoreResult<Vec<Connection>> {
    let prefix = format!("{account}/");
    Ok(store
        .records::<Connection>(CONNECTIONS)?
        .into_iter()
        .filter(|(k, _)| k.starts_with(&prefix))
        .map(|(_, c)| c)
        .collect())
}

/// The platforms connected in one group.
pub(crate) fn in_group(store: &Store, account: &str, group: u32) -> StoreResult<Vec<Connection>> {
    Ok(all(store, account)?
        .into_iter()
        .filter(|c| c.channel_group == group)
        .collect())
}

/// Handles and display names are read again from the publisher after this long, when the
/// account is used (spec: at most every 30 minutes).
pub(crate) const REFRESH_SECS: i64 = 30 * 60;

/// Removes every connection of a group inside `tx` (the group is being deleted).
pub(crate) fn disconnect_group(tx: &mut Tx, account: &str, group: u32) -> StoreResult<()> {
    for p in Platform::ALL {
        tx.remove_record(CONNECTIONS, &key(account, group, p))?;
    }
    Ok(())
}
