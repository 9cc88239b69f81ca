//! Publishing: channel groups, connected accounts, platform settings, the publishers, the
//! `publish` requests and their durable schedule, and analytics. Uses `content`, `notify`,
//! `design`, `media`, `ingest`, `build`, `render` and `foundation`.
//!
//! | file | its job |
//! |---|---|
//! | [`platform`] | the spec's platforms and their wire names |
//! | [`groups`] | channel groups: group 0 always, numbers never reused, the limit, paid plan only |
//! | [`connections`] | the connection records and the `channel_group` scope of reads |
//! | [`accounts`] | connected accounts: the setup page's form, `GET /v1/accounts` |
//! | [`settings`] | platform settings per group, typed and validated |
//! | [`request`] | the typed `publish` request, every code, and the content, platforms and schedule it resolves to |
//! | [`record`] | the record of a publish request (table `publish_requests`) |
//! | [`call`] | a `publish` call's requests (table `publish_calls`) and its summed-up status |
//! | [`publisher`] | the `Publisher` trait, the embedded feed publisher, the configured one |
//! | [`feed`] | Atom and JSON Feed 1.1 per group, post pages with Open Graph tags, view and download counts |
//! | [`ayrshare`] | the Ayrshare-style connector: profiles, `/post`, analytics |
//! | [`task`] | the `publish` task the job worker runs |
//! | [`schedule`] | the scheduled posts (the schedule itself is the job queue's `not_before`) |
//! | [`analytics`] | `GET /v1/analytics`: periods, scopes, the dashboard and its cache |

pub(crate) mod accounts;
pub(crate) mod analytics;
pub(crate) mod ayrshare;
pub(crate) mod call;
pub(crate) mod config;
pub(crate) mod connections;
pub(crate) mod feed;
pub(crate) mod groups;
pub(crate) mod platform;
pub(crate) mod publisher;
pub(crate) mod record;
pub(crate) mod request;
pub(crate) mod schedule;
pub(crate) mod settings;
pub(crate) mod task;

// The facade: what the crates above may name.
pub use accounts::list as connected_accounts;
pub use accounts::{AccountList, AccountPage, ConnectForm, connect as connect_account};
pub use analytics::{AnalyticsCache, AnalyticsQuery, AnalyticsReply, compute as compute_analytics};
pub use call::{put as put_calls, status as call_status};
pub use config::{PublishConfig, PublisherKind};
pub use connections::{GroupScope, all as all_connections, invalid_group};
pub use feed::{
    FEEDS, FeedOwner, FeedUrls, Hit, atom as atom_feed, count as count_hit, feed as read_feed,
    feed_key, json_feed, page_html as post_page_html, post_of as feed_post,
    register as register_feed,
};
pub use groups::{
    GroupList, LabelRequest, create as create_group, delete as delete_group, list as list_groups,
    one as group, rename as rename_group,
};
pub use platform::Platform;
pub use publisher::Publisher;
pub use record::PostContent;
pub use request::{Publish, PublishReply, PublishRequest, Sources, prepare as prepare_publish};
pub use schedule::list as scheduled_posts;
pub use settings::{
    SettingsReply, SettingsRequest, get as platform_settings, set as set_platform_settings,
};

use std::sync::Arc;

use foundation::config::Settings;
use foundation::fetch::Fetcher;
use foundation::store::Store;

/// The configured publisher (`[publish] publisher`): the embedded feed publisher, or the
/// Ayrshare-style connector.
pub fn configured(
    settings: Arc<Settings>,
    store: Arc<Store>,
    fetcher: &Fetcher,
    runtime: tokio::runtime::Handle,
) -> Arc<dyn Publisher> {
    match settings.section::<PublishConfig>().publisher {
        PublisherKind::Feed => Arc::new(publisher::FeedPublisher { store, settings }),
        PublisherKind::Ayrshare => Arc::new(ayrshare::Ayrshare::new(&settings, fetcher, runtime)),
    }
}
