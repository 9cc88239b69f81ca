//! `[publish]`: who posts what `publish` sends, and the channel-group cap.

use foundation::config::{Mode, Section};
use serde::Deserialize;

/// Which publisher posts what `publish` sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PublisherKind {
    /// The embedded feed publisher (offline, self-hosted): per channel group an Atom and a JSON
    /// feed and a public page per post, under `{app_url}/feeds/`.
    #[default]
    Feed,
    /// An Ayrshare-style social publishing API (profiles per channel group, `/post`,
    /// analytics).
    Ayrshare,
}

/// Publishing. The feed publisher needs nothing; the connector needs `base_url` and `api_key`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PublishConfig {
    pub publisher: PublisherKind,
    /// Channel groups an account may have, the primary group 0 included (spec:
    /// `channel_group_limit`, a cap per plan; paid accounts only create groups).
    pub channel_group_limit: u32,
    /// The aggregator's API root, e.g. `https://api.ayrshare.com/api`; its host passes the SSRF
    /// guard (a local fake must be in `fetch.allow`).
    pub base_url: String,
    /// Sent as `Authorization: Bearer <api_key>`.
    pub api_key: String,
    pub timeout_secs: u64,
    /// How long an analytics dashboard is reused before it is computed again (the spec calls
    /// it slow).
    pub analytics_cache_secs: u64,
}

impl Default for PublishConfig {
    fn default() -> Self {
        PublishConfig {
            publisher: PublisherKind::Feed,
            channel_group_limit: 5,
            base_url: String::new(),
            api_key: String::new(),
            timeout_secs: 30,
            analytics_cache_secs: 60,
        }
    }
}

impl Section for PublishConfig {
    const NAME: &'static str = "publish";

    fn check(&self, _mode: Mode) -> Result<(), String> {
        if self.publisher == PublisherKind::Ayrshare
            && (self.base_url.is_empty() || self.api_key.is_empty())
        {
            return Err("publish.base_url and publish.api_key are required (ayrshare)".into());
        }
        if self.channel_group_limit == 0 {
            return Err("publish.channel_group_limit must be at least 1 (group 0)".into());
        }
        Ok(())
    }
}
