//! The record of one publish request (table `publish_requests`, keyed by its request id),
//! written in the transaction that creates its job: what goes out, to which platforms of
//! which group, and when. The job itself is the job core's (`type: publish`).

use serde::{Deserialize, Serialize};

use crate::publish::platform::Platform;
use foundation::store::{Store, StoreResult, Table, Tx};

/// request id → [`PublishRecord`].
pub(crate) const PUBLISH_REQUESTS: Table = Table::new("publish_requests");

/// What a post carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PostContent {
    /// A rendered video (`topic_id`) or a downloaded one (`video_url`): its public MP4.
    Video {
        #[serde(default)]
        topic_id: Option<String>,
        video_url: String,
    },
    /// A written piece (`topic_id` of written content): its sanitised HTML and images.
    Article {
        topic_id: String,
        html: String,
        #[serde(default)]
        image_urls: Vec<String>,
    },
    /// Plain text (`text`).
    Text { text: String },
}

/// One publish request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishRecord {
    pub request_id: String,
    /// The `publish` call it came from (`id` of the 202).
    pub publish_id: String,
    pub account: String,
    pub channel_group: u32,
    pub platforms: Vec<Platform>,
    pub title: String,
    pub description: String,
    pub content: PostContent,
    #[serde(default)]
    pub photo_urls: Vec<String>,
    /// Unix seconds it is due (`None`: at once).
    #[serde(default)]
    pub scheduled_at: Option<i64>,
    /// The IANA time zone the schedule is shown in.
    pub timezone: String,
    pub created_at: i64,
}

impl PublishRecord {
    pub fn load(store: &Store, request_id: &str) -> StoreResult<Option<PublishRecord>> {
        store.record(PUBLISH_REQUESTS, request_id)
    }

    pub fn put(&self, tx: &mut Tx) -> StoreResult<()> {
        tx.put_record(PUBLISH_REQUESTS, &self.request_id, self)
    }

    /// The public video of a video post.
    pub fn video_url(&self) -> Option<&str> {
        match &self.content {
            PostContent::Video { video_url, .. } => Some(video_url),
            _ => None,
        }
    }

    /// The images of the post: the article's own, then `photo_urls`.
    pub fn images(&self) -> Vec<String> {
        let mut out = match &self.content {
            PostContent::Article { image_urls, .. } => image_urls.clone(),
            _ => Vec::new(),
        };
        out.extend(self.photo_urls.iter().cloned());
        out
    }
}

/// Every publish request of `account`, newest first.
pub(crate) fn of_account(store: &Store, account: &str) -> StoreResult<Vec<PublishRecord>> {
    let mut out: Vec<PublishRecord> = store
        .records::<PublishRecord>(PUBLISH_REQUESTS)?
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| r.account == account)
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.created_at));
    Ok(out)
}
