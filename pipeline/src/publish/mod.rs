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

pub mod accounts;
pub mod analytics;
pub mod ayrshare;
pub mod call;
pub mod connections;
pub mod feed;
pub mod groups;
pub mod platform;
pub mod publisher;
pub mod record;
pub mod request;
pub mod schedule;
pub mod settings;
pub mod task;

use std::sync::Arc;

use crate::publish::publisher::Publisher;
use foundation::config::{PublisherKind, Settings};
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
    match settings.publish.publisher {
        PublisherKind::Feed => Arc::new(publisher::FeedPublisher { store, settings }),
        PublisherKind::Ayrshare => Arc::new(ayrshare::Ayrshare::new(&settings, fetcher, runtime)),
    }
}
