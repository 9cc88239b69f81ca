//! `POST /v1/publish`: the request as a client sends it ([`PublishRequest`], one form per
//! content mode, read as a [`Body`] with every code and `param`, checked into a [`Publish`]) and [`prepare`], which resolves the content, the
//! platforms and the schedule into the records of one to two publish requests.
//!
//! Rules (README, OpenAPI schema):
//! - exactly one of `topic_id`, `text`, `video_url` (`invalid_publish_input`); `video_url`
//!   needs `title` (`missing_field`);
//! - `topic_id` is a video (rendered, else 409 `publish_not_ready`) or written content
//!   (completed, else `publish_not_ready`); unknown ids are 404 `video_not_found`;
//! - `video_url` is downloaded through the SSRF guard before the answer (400 `download_failed`)
//!   and published under `{origin_url}/posts/`;
//! - `platforms`: a list of the spec's platforms (`invalid_platforms`), default every platform
//!   connected in the group; requested platforms that are not connected are `skipped`, and none
//!   left is `no_platforms_connected`;
//! - `channel_group`: an integer of at least 0 (400 `invalid_channel_group`) naming a group of
//!   the account (404 `invalid_channel_group`);
//! - `scheduled_date`: RFC 3339 with an offset (`invalid_scheduled_date`); `timezone` an IANA
//!   name (`invalid_timezone`, default `UTC`), the zone the schedule is shown in;
//! - `photo_urls`: at most 10 public http(s) URLs, each through the SSRF guard
//!   (`invalid_photo_url`, `param` `photo_urls`);
//! - an article (or text) going to photo and text platforms becomes two requests.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::content::request::{check_content_metadata, metadata_schema};
use crate::publish::connections::{self, invalid_group};
use crate::publish::groups;
use crate::publish::platform::Platform;
use crate::publish::record::{PostContent, PublishRecord};
use foundation::config::Settings;
use foundation::error::{Code, Error, Result};
use foundation::fetch::{FetchError, Fetcher};
use foundation::fields::{Body, Choice};
use foundation::ids;
use foundation::jobs::{AcceptedPublish, Engine};
use foundation::model::{JobStatus, JobType, WrittenResult};
use foundation::store::Store;
use foundation::time::now;

/// Credits one call costs.
pub(crate) const COST: i64 = 1;
pub(crate) const TITLE_MAX_CHARS: usize = 200;
pub(crate) const DESCRIPTION_MAX_CHARS: usize = 5000;
pub(crate) const TEXT_MAX_CHARS: usize = 20_000;
pub(crate) const MAX_PHOTOS: usize = 10;

/// The body of `POST /v1/publish`: exactly one of `topic_id`, `text`, `video_url`, each a form
/// of its own with the options they share.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum PublishRequest {
    TopicId(PublishTopicId),
    Text(PublishText),
    VideoUrl(PublishVideoUrl),
}

/// A rendered video or a completed written piece of the account.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct PublishTopicId {
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub topic_id: String,
    /// Overrides the video's or the piece's title.
    #[schema(max_length = 200)]
    pub title: Option<String>,
    #[serde(flatten)]
    pub options: PublishOptions,
}

/// Plain text.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct PublishText {
    #[schema(min_length = 1, max_length = 20000, pattern = r"[^\s]")]
    pub text: String,
    /// Default: the text's first words.
    #[schema(max_length = 200)]
    pub title: Option<String>,
    #[serde(flatten)]
    pub options: PublishOptions,
}

/// A direct video file URL, downloaded then published.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct PublishVideoUrl {
    #[schema(format = "uri", pattern = "^[Hh][Tt][Tt][Pp][Ss]?://")]
    pub video_url: String,
    #[schema(max_length = 200, pattern = r"\S")]
    pub title: String,
    #[serde(flatten)]
    pub options: PublishOptions,
}

/// What every form of the publish body takes besides its content.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ToSchema)]
pub struct PublishOptions {
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    /// Images attached with the text: public http(s) URLs (a loopback, private or link-local
    /// host is `invalid_photo_url`).
    #[schema(max_items = 10)]
    pub photo_urls: Option<Vec<PhotoUrl>>,
    /// Default: every platform connected in the group.
    #[schema(min_items = 1)]
    pub platforms: Option<Vec<Platform>>,
    #[schema(minimum = 0, default = 0)]
    pub channel_group: Option<i64>,
    /// ISO 8601 with its offset; a past date publishes at once.
    #[schema(format = DateTime)]
    pub scheduled_date: Option<String>,
    #[schema(schema_with = timezone_schema)]
    pub timezone: Option<String>,
    #[schema(schema_with = metadata_schema)]
    pub metadata: Option<Map<String, Value>>,
}

/// One of `photo_urls`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[schema(value_type = String, format = "uri", pattern = "^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+")]
pub struct PhotoUrl(pub String);

/// `timezone`: an IANA name, any of [`timezone_names`] (default `UTC`).
fn timezone_schema() -> utoipa::openapi::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(timezone_names()))
        .default(Some(Value::from("UTC")))
        .description(Some("IANA time zone the schedule is shown in."))
        .build()
}

/// A publish call, read and checked: what [`prepare`] resolves.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Publish {
    pub topic_id: Option<String>,
    pub text: Option<String>,
    pub video_url: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub photo_urls: Vec<String>,
    pub platforms: Option<Vec<Platform>>,
    pub channel_group: u32,
    /// Unix seconds.
    pub scheduled_at: Option<i64>,
    pub timezone: String,
    pub metadata: Map<String, Value>,
}

fn invalid(param: &str, message: impl Into<String>) -> Error {
    Error::new(Code::InvalidPublishInput, message).param(param)
}

/// The content modes, of which a call sends exactly one.
const MODES: [&str; 3] = ["topic_id", "text", "video_url"];

impl Body for PublishRequest {
    type Valid = Publish;
    const CODES: &'static [(&'static str, Code)] = &[
        ("topic_id", Code::InvalidPublishInput),
        ("text", Code::InvalidPublishInput),
        ("video_url", Code::InvalidPublishInput),
        ("title", Code::InvalidPublishInput),
        ("description", Code::InvalidPublishInput),
        ("photo_urls", Code::InvalidPhotoUrl),
        ("platforms", Code::InvalidPlatforms),
        ("channel_group", Code::InvalidChannelGroup),
        ("scheduled_date", Code::InvalidScheduledDate),
        ("timezone", Code::InvalidTimezone),
        ("metadata", Code::InvalidMetadata),
    ];

    /// Exactly one mode (`invalid_publish_input`, naming the second one sent, or `text`).
    fn form(sent: &Map<String, Value>) -> Result<Option<&'static str>> {
        let given: Vec<&'static str> = MODES
            .into_iter()
            .filter(|m| sent.get(*m).is_some_and(|v| !v.is_null()))
            .collect();
        match given.as_slice() {
            [one] => Ok(Some(one)),
            _ => Err(invalid(
                given.get(1).copied().unwrap_or("text"),
                "Send exactly one of `topic_id`, `text` or `video_url`.",
            )),
        }
    }

    fn validate(self) -> Result<Publish> {
        let (mut call, title, options) = match self {
            PublishRequest::TopicId(t) => {
                let topic =
                    ids::checked_topic_id(&t.topic_id, Code::InvalidPublishInput, "topic_id")?;
                let call = Publish {
                    topic_id: Some(topic),
                    ..Publish::default()
                };
                (call, t.title, t.options)
            }
            PublishRequest::Text(t) => {
                let text = longest("text", t.text, TEXT_MAX_CHARS)?;
                let call = Publish {
                    text: Some(text),
                    ..Publish::default()
                };
                (call, t.title, t.options)
            }
            PublishRequest::VideoUrl(v) => {
                let call = Publish {
                    video_url: Some(v.video_url),
                    ..Publish::default()
                };
                (call, Some(v.title), v.options)
            }
        };
        let title = title
            .map(|t| longest("title", t, TITLE_MAX_CHARS))
            .transpose()?;
        call.title = title.filter(|t| !t.trim().is_empty());
        call.description = options
            .description
            .map(|d| longest("description", d, DESCRIPTION_MAX_CHARS))
            .transpose()?;
        call.photo_urls = photo_urls(options.photo_urls.unwrap_or_default())?;
        call.platforms = options.platforms.map(platforms).transpose()?;
        call.channel_group = match options.channel_group {
            None => 0,
            Some(n) => u32::try_from(n).map_err(|_| invalid_group())?,
        };
        call.scheduled_at = options
            .scheduled_date
            .as_deref()
            .map(schedule)
            .transpose()?;
        call.timezone = timezone(options.timezone)?;
        check_content_metadata(options.metadata.as_ref())?;
        call.metadata = options.metadata.unwrap_or_default();
        Ok(call)
    }
}

/// `value` when it has at most `max` characters (`invalid_publish_input` otherwise).
fn longest(name: &str, value: String, max: usize) -> Result<String> {
    if value.chars().count() > max {
        return Err(invalid(
            name,
            format!("`{name}` is longer than {max} characters."),
        ));
    }
    Ok(value)
}

/// At most [`MAX_PHOTOS`] http(s) URLs with a host (`invalid_photo_url`).
fn photo_urls(urls: Vec<PhotoUrl>) -> Result<Vec<String>> {
    let bad = || {
        Error::new(
            Code::InvalidPhotoUrl,
            format!("`photo_urls` must be a list of at most {MAX_PHOTOS} http(s) URLs."),
        )
        .param("photo_urls")
    };
    if urls.len() > MAX_PHOTOS {
        return Err(bad());
    }
    urls.into_iter()
        .map(|PhotoUrl(s)| {
            let lower = s.to_ascii_lowercase();
            let ok = (lower.starts_with("http://") || lower.starts_with("https://"))
                && url::Url::parse(&s).is_ok_and(|u| u.host().is_some());
            ok.then_some(s).ok_or_else(bad)
        })
        .collect()
}

/// A non-empty list of platforms, each once (`invalid_platforms`).
fn platforms(sent: Vec<Platform>) -> Result<Vec<Platform>> {
    if sent.is_empty() {
        return Err(Error::new(
            Code::InvalidPlatforms,
            format!(
                "`platforms` must be a non-empty list of: {}.",
                Platform::NAMES.join(", ")
            ),
        )
        .param("platforms"));
    }
    let mut out = Vec::new();
    for p in sent {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Ok(out)
}

/// `scheduled_date` as Unix seconds: RFC 3339 with its offset (`invalid_scheduled_date`).
fn schedule(s: &str) -> Result<i64> {
    s.parse::<jiff::Timestamp>()
        .ok()
        .filter(|_| has_offset(s))
        .map(|t| t.as_second())
        .ok_or_else(|| {
            Error::new(
                Code::InvalidScheduledDate,
                "`scheduled_date` must be an ISO 8601 date-time with its offset, e.g. \
                 2026-12-01T09:30:00+07:00.",
            )
            .param("scheduled_date")
        })
}

/// Whether an RFC 3339 date-time ends with `Z` or a `±hh:mm` offset.
fn has_offset(s: &str) -> bool {
    let s = s.trim();
    s.ends_with(['Z', 'z'])
        || s.len() > 6 && {
            let tail = &s.as_bytes()[s.len() - 6..];
            (tail[0] == b'+' || tail[0] == b'-') && tail[3] == b':'
        }
}

/// An IANA time zone name (`invalid_timezone`), default `UTC`.
fn timezone(name: Option<String>) -> Result<String> {
    match name {
        None => Ok("UTC".into()),
        Some(name) => jiff::tz::TimeZone::get(&name).map(|_| name).map_err(|_| {
            Error::new(
                Code::InvalidTimezone,
                "`timezone` must be an IANA time zone name such as `Asia/Ho_Chi_Minh`.",
            )
            .param("timezone")
        }),
    }
}

/// Every IANA time zone name `timezone` accepts (the schema's enumeration).
pub(crate) fn timezone_names() -> Vec<String> {
    let mut names: Vec<String> = jiff::tz::db()
        .available()
        .map(|n| n.as_str().to_string())
        .filter(|n| jiff::tz::TimeZone::get(n).is_ok())
        .collect();
    if !names.iter().any(|n| n == "UTC") {
        names.push("UTC".into());
    }
    names.sort();
    names
}

/// A platform left out of a publish request, and why.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Skipped {
    pub platform: Platform,
    /// `not_connected`: the platform has no connected account in the group.
    #[schema(example = "not_connected")]
    pub reason: String,
}

/// The 202 of `POST /v1/publish`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PublishReply {
    /// Always `publish`.
    #[schema(example = "publish")]
    pub object: &'static str,
    /// The call's id (`pub_` + 24 hex).
    pub id: String,
    /// One or two request ids; poll each with `GET /v1/status/{request_id}`.
    pub request_ids: Vec<String>,
    /// Always `processing`.
    #[schema(example = "processing")]
    pub status: &'static str,
    /// The platforms the post goes to.
    pub platforms: Vec<Platform>,
    /// Requested platforms left out.
    pub skipped: Vec<Skipped>,
    pub channel_group: u32,
    /// When it goes out (ISO 8601 UTC), or null: at once.
    #[schema(format = DateTime)]
    pub scheduled_date: Option<String>,
    pub timezone: String,
    /// The request's `metadata`, echoed.
    pub metadata: Map<String, Value>,
}

/// A publish call resolved: its records (one or two) and the reply's lists.
#[derive(Debug)]
pub struct Prepared {
    pub publish_id: String,
    pub records: Vec<PublishRecord>,
    pub platforms: Vec<Platform>,
    pub skipped: Vec<Skipped>,
    pub metadata: Map<String, Value>,
    /// A downloaded `video_url`'s folder, removed when the call is refused later.
    pub download_dir: Option<std::path::PathBuf>,
}

impl Prepared {
    /// The jobs the engine stores.
    pub fn accepted(&self) -> Vec<AcceptedPublish> {
        self.records
            .iter()
            .enumerate()
            .map(|(i, r)| AcceptedPublish {
                request_id: r.request_id.clone(),
                metadata: Value::Object(self.metadata.clone()),
                not_before: r.scheduled_at,
                cost: if i == 0 { COST } else { 0 },
            })
            .collect()
    }

    pub fn reply(&self) -> PublishReply {
        let first = &self.records[0];
        PublishReply {
            object: "publish",
            id: self.publish_id.clone(),
            request_ids: self.records.iter().map(|r| r.request_id.clone()).collect(),
            status: "processing",
            platforms: self.platforms.clone(),
            skipped: self.skipped.clone(),
            channel_group: first.channel_group,
            scheduled_date: first.scheduled_at.map(foundation::time::iso),
            timezone: first.timezone.clone(),
            metadata: self.metadata.clone(),
        }
    }
}

/// What [`prepare`] reads.
pub struct Sources<'a> {
    pub store: &'a Store,
    pub engine: &'a Engine,
    pub fetcher: &'a Fetcher,
    pub settings: &'a Settings,
}

/// Resolves a read request of `account`: the group (404), the platforms (skipped,
/// `no_platforms_connected`), the content (404, 409 `publish_not_ready`, a guarded download)
/// and the schedule.
pub async fn prepare(src: &Sources<'_>, account: &str, mut req: Publish) -> Result<Prepared> {
    req.photo_urls = guard_photo_urls(src.fetcher, &req.photo_urls).await?;
    let group = groups::existing(src.store, account, req.channel_group)?;
    let mut connected: Vec<Platform> = connections::in_group(src.store, account, group)?
        .into_iter()
        .map(|c| c.platform)
        .collect();
    // The spec's order of platforms.
    connected.sort();
    let requested = req.platforms.clone().unwrap_or_else(|| connected.clone());
    let (platforms, skipped): (Vec<Platform>, Vec<Platform>) =
        requested.into_iter().partition(|p| connected.contains(p));
    if platforms.is_empty() {
        return Err(Error::new(
            Code::NoPlatformsConnected,
            format!(
                "No requested platform is connected in channel group {group}; connect one on \
                 the setup page."
            ),
        )
        .param("platforms"));
    }
    let publish_id = ids::publish_id();
    let (content, title, download_dir) = content(src, account, &req, &publish_id).await?;
    let scheduled_at = req.scheduled_at.filter(|t| *t > now());
    let record = |platforms: Vec<Platform>| PublishRecord {
        request_id: ids::publish_id(),
        publish_id: publish_id.clone(),
        account: account.to_string(),
        channel_group: group,
        platforms,
        title: title.clone(),
        description: req.description.clone().unwrap_or_default(),
        content: content.clone(),
        photo_urls: req.photo_urls.clone(),
        scheduled_at,
        timezone: req.timezone.clone(),
        created_at: now(),
    };
    let (photo, text): (Vec<Platform>, Vec<Platform>) =
        platforms.iter().partition(|p| p.is_photo());
    let split =
        !matches!(content, PostContent::Video { .. }) && !photo.is_empty() && !text.is_empty();
    let records = if split {
        vec![record(text), record(photo)]
    } else {
        vec![record(platforms.clone())]
    };
    Ok(Prepared {
        publish_id,
        records,
        platforms,
        skipped: skipped
            .into_iter()
            .map(|platform| Skipped {
                platform,
                reason: "not_connected".into(),
            })
            .collect(),
        metadata: req.metadata,
        download_dir,
    })
}

/// Each of `photo_urls` through the SSRF guard, as `notification/send` checks `photo_url`:
/// a loopback, private, link-local or reserved host (by name or once resolved) is 400
/// `invalid_photo_url`. They go into post pages, `og:image` and feeds, never fetched by us.
async fn guard_photo_urls(fetcher: &Fetcher, urls: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(urls.len());
    for url in urls {
        let target = fetcher.guard(url).await.map_err(|e| {
            Error::new(
                Code::InvalidPhotoUrl,
                "Each of `photo_urls` must be a public http(s) URL.",
            )
            .param("photo_urls")
            .because(e)
        })?;
        out.push(target.url.to_string());
    }
    Ok(out)
}

type Resolved = (PostContent, String, Option<std::path::PathBuf>);

/// The post's content and title from the one mode sent.
async fn content(
    src: &Sources<'_>,
    account: &str,
    req: &Publish,
    publish_id: &str,
) -> Result<Resolved> {
    if let Some(topic) = &req.topic_id {
        return topic_content(src, account, topic, req.title.clone());
    }
    if let Some(url) = &req.video_url {
        let (video_url, dir) = download(src, url, publish_id).await?;
        let content = PostContent::Video {
            topic_id: None,
            video_url,
        };
        return Ok((content, req.title.clone().unwrap_or_default(), Some(dir)));
    }
    let text = req.text.clone().unwrap_or_default();
    let title = req.title.clone().unwrap_or_else(|| first_words(&text, 12));
    Ok((PostContent::Text { text }, title, None))
}

fn first_words(text: &str, n: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut t = words[..words.len().min(n)].join(" ");
    if words.len() > n {
        t.push('…');
    }
    t
}

fn not_ready(message: &str) -> Error {
    Error::new(Code::PublishNotReady, message).param("topic_id")
}

/// A video (rendered) or a written piece (completed) of the account.
fn topic_content(
    src: &Sources<'_>,
    account: &str,
    topic: &str,
    title: Option<String>,
) -> Result<Resolved> {
    let job = src
        .engine
        .job_for(account, topic)
        .map_err(|e| e.param("topic_id"))?;
    match job.kind() {
        JobType::Video => {
            let video_url = job.video_url.clone().ok_or_else(|| {
                not_ready("The video is not rendered yet; export it and publish once it completed.")
            })?;
            let document_title = || {
                src.store
                    .document::<foundation::document::VideoDocument>(topic)
                    .ok()
                    .flatten()
                    .map(|d| d.title)
                    .filter(|t| !t.trim().is_empty())
            };
            let title = title
                .or_else(|| Some(job.title.clone()).filter(|t| !t.is_empty()))
                .or_else(document_title)
                .unwrap_or_else(|| topic.to_string());
            let content = PostContent::Video {
                topic_id: Some(topic.to_string()),
                video_url,
            };
            Ok((content, title, None))
        }
        JobType::Content => match (&job.status, job.written()) {
            (JobStatus::Completed, Some(WrittenResult::Content(piece))) => {
                let html = piece
                    .html
                    .clone()
                    .unwrap_or_else(|| crate::content::markup::to_html(&piece.markdown));
                let content = PostContent::Article {
                    topic_id: topic.to_string(),
                    html,
                    image_urls: piece.images.iter().map(|i| i.url.clone()).collect(),
                };
                Ok((content, title.unwrap_or_else(|| piece.title.clone()), None))
            }
            _ => Err(not_ready(
                "The piece is not written yet; publish it once its status is completed.",
            )),
        },
        JobType::Publish => Err(Error::new(
            Code::VideoNotFound,
            "No video or written piece with this id exists on the account.",
        )
        .param("topic_id")),
    }
}

/// Downloads `url` through the guard into `public/posts/{publish id}/`; returns its public URL
/// and the folder.
async fn download(
    src: &Sources<'_>,
    url: &str,
    publish_id: &str,
) -> Result<(String, std::path::PathBuf)> {
    let failed = |why: String| {
        Error::new(
            Code::PublishDownloadFailed,
            format!("`video_url` could not be downloaded: {why}."),
        )
        .param("video_url")
    };
    let m = src.settings.section::<video::ingest::MediaConfig>();
    let resp = src
        .fetcher
        .get(
            url,
            m.download_max_bytes,
            Duration::from_secs(m.download_timeout_secs),
        )
        .await
        .map_err(|e: FetchError| failed(e.public()))?;
    if resp.status != 200 || resp.body.is_empty() {
        return Err(failed(format!("the server answered {}", resp.status)));
    }
    let kind = resp.content_type.as_deref().unwrap_or("");
    let looks_mp4 = resp.body.get(4..8) == Some(b"ftyp");
    if !(kind.starts_with("video/") || looks_mp4) {
        return Err(failed("it is not a video file".into()));
    }
    let dir = src.settings.public_dir().join("posts").join(publish_id);
    let file = dir.join("video.mp4");
    let write = std::fs::create_dir_all(&dir)
        .and_then(|()| foundation::files::write_atomic(&file, &resp.body));
    write.map_err(|e| Error::internal(format!("storing a downloaded video: {e}")))?;
    let public = format!("{}/posts/{publish_id}/video.mp4", src.settings.origin_url);
    Ok((public, dir))
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;
    use serde_json::json;

    fn code(v: Value) -> (Code, Option<String>) {
        let e = body::read::<PublishRequest>(&v).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn every_field_answers_with_its_code() {
        let c = |v| code(v).0;
        assert_eq!(c(json!({})), Code::InvalidPublishInput);
        assert_eq!(
            c(json!({"text": "a", "video_url": "http://x.io/v.mp4"})),
            Code::InvalidPublishInput
        );
        assert_eq!(
            code(json!({"video_url": "https://x.io/a.mp4"})),
            (Code::MissingField, Some("title".into()))
        );
        assert_eq!(
            c(json!({"text": "a", "platforms": ["myspace"]})),
            Code::InvalidPlatforms
        );
        assert_eq!(
            c(json!({"text": "a", "platforms": "youtube"})),
            Code::InvalidPlatforms
        );
        assert_eq!(
            c(json!({"text": "a", "channel_group": -1})),
            Code::InvalidChannelGroup
        );
        assert_eq!(
            c(json!({"text": "a", "channel_group": "one"})),
            Code::InvalidChannelGroup
        );
        assert_eq!(
            c(json!({"text": "a", "scheduled_date": "tomorrow"})),
            Code::InvalidScheduledDate
        );
        assert_eq!(
            c(json!({"text": "a", "scheduled_date": "2030-01-01T10:00:00"})),
            Code::InvalidScheduledDate
        );
        assert_eq!(
            c(json!({"text": "a", "timezone": "Mars/Base"})),
            Code::InvalidTimezone
        );
        assert_eq!(
            c(json!({"text": "a", "photo_urls": ["ftp://x"]})),
            Code::InvalidPhotoUrl
        );
        let ok = body::read::<PublishRequest>(&json!({"text": "hi", "platforms": ["x", "x"],
            "scheduled_date": "2030-01-01T10:00:00+07:00", "timezone": "Asia/Ho_Chi_Minh"}))
        .unwrap();
        assert_eq!(ok.platforms, Some(vec![Platform::X]));
        assert_eq!(ok.scheduled_at, Some(1_893_466_800));
    }
}
