//! Connected accounts (spec: Connected account, `GET /v1/accounts`): made on the setup page
//! (`{app_url}/publish/setup/{account}?token=…`), where the account holder picks the platform
//! and the group and gives the handle the publisher posts as. Connecting needs a paid plan
//! (402 through the shared guard) and an existing group.

use serde::Serialize;
use utoipa::ToSchema;

use crate::publish::connections::{CONNECTIONS, Connection, GroupScope, all, invalid_group, key};
use crate::publish::groups;
use crate::publish::platform::Platform;
use crate::publish::publisher::Publisher;
use foundation::error::{Code, Error, Result};
use foundation::store::Store;
use foundation::time::{iso, now};

/// Handles are at most this many characters.
pub(crate) const HANDLE_MAX_CHARS: usize = 60;

/// A connected account as the API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ConnectedAccount {
    pub platform: Platform,
    /// The handle.
    pub username: String,
    /// May be empty.
    pub display_name: String,
    #[schema(example = "connected")]
    pub status: String,
    #[schema(format = DateTime)]
    pub connected_at: String,
    pub channel_group: u32,
    pub channel_group_label: String,
}

/// `GET /v1/accounts`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AccountList {
    /// Always `list`.
    #[schema(example = "list")]
    pub object: &'static str,
    /// The `channel_group` asked for: a number, `all`, or null (every group).
    pub channel_group: Option<crate::publish::connections::GroupEcho>,
    pub data: Vec<ConnectedAccount>,
}

/// `GET /v1/accounts`: the connected accounts of the groups `scope` covers (a missing group is
/// 404).
pub fn list(store: &Store, account: &str, scope: GroupScope) -> Result<AccountList> {
    if let GroupScope::One(n) = scope {
        groups::existing(store, account, n)?;
    }
    let mut data = Vec::new();
    for c in all(store, account)? {
        if scope.covers(c.channel_group) {
            data.push(ConnectedAccount {
                platform: c.platform,
                username: c.username,
                display_name: c.display_name,
                status: "connected".into(),
                connected_at: iso(c.connected_at),
                channel_group_label: groups::label(store, account, c.channel_group)?,
                channel_group: c.channel_group,
            });
        }
    }
    Ok(AccountList {
        object: "list",
        channel_group: scope.echo(),
        data,
    })
}

/// What the setup page's form sends.
#[derive(Debug, Clone)]
pub struct ConnectForm {
    pub platform: Platform,
    pub channel_group: u32,
    pub username: String,
    pub display_name: String,
}

impl ConnectForm {
    /// Reads the form's fields; a message for the page when one is wrong.
    pub fn read(fields: &std::collections::HashMap<String, String>) -> Result<ConnectForm> {
        use foundation::fields::Choice;
        let field = |k: &str| fields.get(k).map(|v| v.trim()).unwrap_or("");
        let platform = Platform::parse(field("platform")).ok_or_else(|| {
            Error::new(Code::InvalidPlatforms, "Pick a platform.").param("platform")
        })?;
        let channel_group = field("channel_group")
            .parse::<u32>()
            .map_err(|_| invalid_group())?;
        let username = field("username").trim_start_matches('@').to_string();
        if username.is_empty() || username.chars().count() > HANDLE_MAX_CHARS {
            return Err(Error::new(
                Code::InvalidField,
                format!("Give the handle to post as (1 to {HANDLE_MAX_CHARS} characters)."),
            )
            .param("username"));
        }
        let display_name: String = field("display_name").chars().take(80).collect();
        Ok(ConnectForm {
            platform,
            channel_group,
            username,
            display_name,
        })
    }
}

/// Connects (or reconnects) a platform in a group: needs a paid plan and an existing group, and
/// with a publisher that links accounts itself (the connector), the platform linked in the
/// group's profile there, whose handle and display name are then the ones kept. Blocks on the
/// publisher: call it off the runtime's threads. Returns what was connected.
pub fn connect(
    store: &Store,
    publisher: &dyn Publisher,
    account: &str,
    form: &ConnectForm,
    pricing_url: &str,
) -> Result<ConnectForm> {
    store.write(|tx| groups::paid_plan(tx, account, pricing_url))?;
    groups::existing(store, account, form.channel_group)?;
    let profile = groups::record(store, account, form.channel_group)?.and_then(|g| g.profile_key);
    let mut form = form.clone();
    if let Some(up) = publisher.linked_account(profile.as_deref(), form.platform)? {
        if !up.username.is_empty() {
            form.username = up.username;
        }
        form.display_name = up.display_name;
    }
    store.write(|tx| -> Result<()> {
        if form.channel_group != 0
            && tx
                .record::<groups::GroupRecord>(
                    groups::GROUPS,
                    &format!("{account}/{:010}", form.channel_group),
                )?
                .is_none()
        {
            return Err(groups::not_found(form.channel_group));
        }
        tx.put_record(
            CONNECTIONS,
            &key(account, form.channel_group, form.platform),
            &Connection {
                account: account.to_string(),
                channel_group: form.channel_group,
                platform: form.platform,
                username: form.username.clone(),
                display_name: form.display_name.clone(),
                connected_at: now(),
                refreshed_at: now(),
            },
        )?;
        Ok(())
    })?;
    Ok(form)
}

/// The pages of an account's publishing under `{app_url}/publish/`: the setup page and the
/// schedule page. Each link is signed for its page and the account (no sign-in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountPage {
    Setup,
    Schedule,
}

impl AccountPage {
    pub fn path(self) -> &'static str {
        match self {
            AccountPage::Setup => "setup",
            AccountPage::Schedule => "schedule",
        }
    }

    fn subject(self, account: &str) -> String {
        format!("publish-{}/{account}", self.path())
    }

    /// `{app_url}/publish/{page}?account=…&token=…`.
    pub fn url(self, secret: &str, app_url: &str, account: &str) -> String {
        let query: String = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("account", account)
            .append_pair(
                "token",
                &foundation::links::sign(secret, &self.subject(account)),
            )
            .finish();
        format!("{app_url}/publish/{}?{query}", self.path())
    }

    /// Whether `token` opens this page for `account`.
    pub fn verify(self, secret: &str, account: &str, token: &str) -> bool {
        foundation::links::verify(secret, &self.subject(account), token)
    }
}
