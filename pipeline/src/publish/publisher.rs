//! The `Publisher` trait every publisher implements, and the embedded feed publisher behind it
//! (`crate::publish::configured` picks the configured one).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::publish::feed;
use crate::publish::platform::Platform;
use crate::publish::record::PublishRecord;
use foundation::config::Settings;
use foundation::error::Result;
use foundation::model::PostResult;
use foundation::store::Store;

/// Where posts go. Calls are synchronous (connectors block on their runtime), so the API calls
/// them on blocking threads and the job worker from its task.
pub trait Publisher: Send + Sync {
    /// `feed` or `ayrshare` (the dashboard says which).
    fn name(&self) -> &'static str;
    /// Makes the profile a new channel group posts through; `None` when the publisher keeps no
    /// profiles (409 `upstream_username_taken` / `profile_limit_reached` from the connector).
    fn provision(&self, account: &str, label: &str) -> Result<Option<String>>;
    /// Removes a deleted group's profile (best effort: the group is gone either way).
    fn remove_profile(&self, profile_key: &str);
    /// Whether a scheduled post is handed over at once with its date (the publisher keeps the
    /// schedule) instead of waiting in our own schedule.
    fn schedules_upstream(&self) -> bool;
    /// Posts `record` to its platforms through the group's profile: one result per platform.
    fn post(&self, record: &PublishRecord, profile_key: Option<&str>) -> Vec<PostResult>;
    /// The account the publisher has linked for `platform` in a group's profile: `None` when
    /// the publisher links nothing itself (the setup page's handle is the account), an error
    /// (`connect_failed`) when the platform is not linked there.
    fn linked_account(
        &self,
        profile_key: Option<&str>,
        platform: Platform,
    ) -> Result<Option<UpstreamAccount>>;
    /// The publisher's own numbers per platform of a group (`None`: it has none of its own; the
    /// feed publisher's numbers are the daemon's counts).
    fn analytics(
        &self,
        profile_key: Option<&str>,
        platforms: &[Platform],
    ) -> Result<Option<BTreeMap<Platform, Value>>>;
}

/// A platform account as the publisher knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamAccount {
    pub username: String,
    pub display_name: String,
}

/// The embedded feed publisher (see [`feed`]).
pub(crate) struct FeedPublisher {
    pub store: Arc<Store>,
    pub settings: Arc<Settings>,
}

impl Publisher for FeedPublisher {
    fn name(&self) -> &'static str {
        "feed"
    }

    fn provision(&self, _account: &str, _label: &str) -> Result<Option<String>> {
        Ok(None)
    }

    fn remove_profile(&self, _profile_key: &str) {}

    fn schedules_upstream(&self) -> bool {
        false
    }

    fn post(&self, record: &PublishRecord, _profile_key: Option<&str>) -> Vec<PostResult> {
        feed::post(&self.store, &self.settings, record).unwrap_or_else(|e| {
            tracing::error!(error = %e, request = %record.request_id, "feed post not stored");
            record
                .platforms
                .iter()
                .map(|p| PostResult {
                    platform: p.as_str().into(),
                    success: false,
                    post_url: None,
                    post_id: None,
                    error: Some("The post could not be stored; try again.".into()),
                })
                .collect()
        })
    }

    fn analytics(
        &self,
        _profile_key: Option<&str>,
        _platforms: &[Platform],
    ) -> Result<Option<BTreeMap<Platform, Value>>> {
        Ok(None)
    }

    fn linked_account(
        &self,
        _profile_key: Option<&str>,
        _platform: Platform,
    ) -> Result<Option<UpstreamAccount>> {
        Ok(None)
    }
}
