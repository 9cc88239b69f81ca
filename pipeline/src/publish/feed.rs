//! The embedded feed publisher (offline, self-hosted): each channel group has its own feeds
//! under `{app_url}/feeds/{feed key}/` — Atom (RFC 4287, written by `atom_syndication`) at
//! `atom.xml` and JSON Feed 1.1 at `feed.json` — and every post its own public page there, with
//! the video or the article, its title and description and Open Graph tags; `post_url` is that
//! page. The feed key is signed for the account and group, so feeds are unguessable but stable.
//!
//! Posts stay when their group is deleted. Page views and media downloads are counted per post
//! and day (table `post_stats`), people and bots apart by user agent.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::publish::groups;
use crate::publish::platform::Platform;
use crate::publish::record::{PostContent, PublishRecord};
use crate::publish::settings::{self, Visibility};
use foundation::config::Settings;
use foundation::model::PostResult;
use foundation::store::{Store, StoreResult, Table};
use foundation::time::{iso, now};

/// post id → [`FeedPost`].
pub(crate) const FEED_POSTS: Table = Table::new("feed_posts");
/// feed key → [`FeedOwner`].
pub const FEEDS: Table = Table::new("feeds");
/// `{post id}/{yyyy-mm-dd}` → [`Counts`].
pub(crate) const POST_STATS: Table = Table::new("post_stats");

/// Whose feed a key is.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FeedOwner {
    pub account: String,
    pub channel_group: u32,
    pub label: String,
}

/// One post in a group's feed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FeedPost {
    pub post_id: String,
    pub feed_key: String,
    pub account: String,
    pub channel_group: u32,
    pub request_id: String,
    pub title: String,
    /// The description with the platforms' hashtags.
    pub description: String,
    pub content: PostContent,
    #[serde(default)]
    pub images: Vec<String>,
    pub platforms: Vec<Platform>,
    pub published_at: i64,
    /// Public posts are listed in the feeds; unlisted and private ones are not.
    pub listed: bool,
    /// A private post has no public page either (it answers 404); records written before this
    /// field existed read as not private.
    #[serde(default)]
    pub private: bool,
}

/// Views and downloads of a post on one day.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub views: u64,
    pub bot_views: u64,
    pub downloads: u64,
    pub bot_downloads: u64,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.views += o.views;
        self.bot_views += o.bot_views;
        self.downloads += o.downloads;
        self.bot_downloads += o.bot_downloads;
    }
}

/// The feed key of a group: 32 hex, signed for the account and the group.
pub fn feed_key(secret: &str, account: &str, group: u32) -> String {
    foundation::links::sign(secret, &format!("feed/{account}/{group}"))
}

/// Where a group's feeds and pages live.
pub struct FeedUrls {
    pub base: String,
}

impl FeedUrls {
    pub fn new(app_url: &str, key: &str) -> FeedUrls {
        FeedUrls {
            base: format!("{app_url}/feeds/{key}"),
        }
    }
    pub fn atom(&self) -> String {
        format!("{}/atom.xml", self.base)
    }
    pub fn json(&self) -> String {
        format!("{}/feed.json", self.base)
    }
    pub fn page(&self, post: &str) -> String {
        format!("{}/posts/{post}", self.base)
    }
    /// The counted link to a post's video (redirects to the file).
    pub fn media(&self, post: &str) -> String {
        format!("{}/posts/{post}/media", self.base)
    }
}

/// Records that the group's feed exists (so its URLs answer before the first post).
pub fn register(store: &Store, secret: &str, account: &str, group: u32) -> StoreResult<String> {
    let key = feed_key(secret, account, group);
    let label = groups::label(store, account, group)?;
    store.write(|tx| {
        tx.put_record(
            FEEDS,
            &key,
            &FeedOwner {
                account: account.to_string(),
                channel_group: group,
                label,
            },
        )
    })?;
    Ok(key)
}

/// Posts `record` to its group's feed: one post with the most restricted visibility of its
/// platforms (listed when every one is public; private when any is private); each platform's
/// result points at the post page.
pub fn post(
    store: &Store,
    settings: &Settings,
    record: &PublishRecord,
) -> StoreResult<Vec<PostResult>> {
    let secret = &settings.webhook.signing_secret;
    let key = register(store, secret, &record.account, record.channel_group)?;
    let mut tags = Vec::new();
    let mut visibility = Visibility::Public;
    for p in &record.platforms {
        let s = settings::get_one(store, &record.account, record.channel_group, *p)?;
        visibility = visibility.max(s.visibility);
        let line = settings::hashtag_line(&s);
        if !line.is_empty() && !tags.contains(&line) {
            tags.push(line);
        }
    }
    let mut description = record.description.clone();
    for t in tags {
        description = if description.is_empty() {
            t
        } else {
            format!("{description}\n{t}")
        };
    }
    let post_id = foundation::ids::file_token();
    let post = FeedPost {
        post_id: post_id.clone(),
        feed_key: key.clone(),
        account: record.account.clone(),
        channel_group: record.channel_group,
        request_id: record.request_id.clone(),
        title: record.title.clone(),
        description,
        content: record.content.clone(),
        images: record.images(),
        platforms: record.platforms.clone(),
        published_at: now(),
        listed: visibility == Visibility::Public,
        private: visibility == Visibility::Private,
    };
    store.write(|tx| tx.put_record(FEED_POSTS, &post_id, &post))?;
    let page = FeedUrls::new(&settings.app_url, &key).page(&post_id);
    Ok(record
        .platforms
        .iter()
        .map(|p| PostResult {
            platform: p.as_str().to_string(),
            success: true,
            post_url: Some(page.clone()),
            post_id: Some(format!("{post_id}-{}", p.as_str())),
            error: None,
        })
        .collect())
}

/// A feed's owner and its listed posts, newest first; `None` for an unknown key.
pub fn feed(store: &Store, key: &str) -> StoreResult<Option<(FeedOwner, Vec<FeedPost>)>> {
    let Some(owner) = store.record::<FeedOwner>(FEEDS, key)? else {
        return Ok(None);
    };
    let mut posts: Vec<FeedPost> = store
        .records::<FeedPost>(FEED_POSTS)?
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| p.feed_key == key && p.listed)
        .collect();
    posts.sort_by(|a, b| {
        b.published_at
            .cmp(&a.published_at)
            .then(b.post_id.cmp(&a.post_id))
    });
    Ok(Some((owner, posts)))
}

/// One post of a feed that the public may open: `None` for a private one, as for a post that
/// does not exist.
pub fn post_of(store: &Store, key: &str, post: &str) -> StoreResult<Option<FeedPost>> {
    Ok(store
        .record::<FeedPost>(FEED_POSTS, post)?
        .filter(|p| p.feed_key == key && !p.private))
}

/// Every post of `account`.
pub(crate) fn posts_of(store: &Store, account: &str) -> StoreResult<Vec<FeedPost>> {
    Ok(store
        .records::<FeedPost>(FEED_POSTS)?
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| p.account == account)
        .collect())
}

/// Whether a user agent is a robot (crawlers, link previews, feed fetchers, scripts without
/// one): their views are counted apart.
pub(crate) fn is_bot(user_agent: Option<&str>) -> bool {
    let Some(ua) = user_agent.map(str::to_ascii_lowercase) else {
        return true;
    };
    const MARKS: &[&str] = &[
        "bot",
        "crawl",
        "spider",
        "slurp",
        "facebookexternalhit",
        "embedly",
        "preview",
        "feedfetcher",
        "curl/",
        "wget/",
        "python-requests",
    ];
    ua.trim().is_empty() || MARKS.iter().any(|m| ua.contains(m))
}

/// What was counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    View,
    Download,
}

/// Counts a view or a download of `post` today.
pub fn count(store: &Store, post: &str, hit: Hit, user_agent: Option<&str>) -> StoreResult<()> {
    let day = iso(now())[..10].to_string();
    let key = format!("{post}/{day}");
    let bot = is_bot(user_agent);
    store.write(|tx| {
        let mut c: Counts = tx.record(POST_STATS, &key)?.unwrap_or_default();
        match (hit, bot) {
            (Hit::View, false) => c.views += 1,
            (Hit::View, true) => c.bot_views += 1,
            (Hit::Download, false) => c.downloads += 1,
            (Hit::Download, true) => c.bot_downloads += 1,
        }
        tx.put_record(POST_STATS, &key, &c)
    })
}

/// Each post's counts summed over the days in `[from, to]` (unix seconds).
pub(crate) fn counts_between(
    store: &Store,
    from: i64,
    to: i64,
) -> StoreResult<BTreeMap<String, Counts>> {
    let (from, to) = (iso(from)[..10].to_string(), iso(to)[..10].to_string());
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    for (k, c) in store.records::<Counts>(POST_STATS)? {
        let Some((post, day)) = k.rsplit_once('/') else {
            continue;
        };
        if day >= from.as_str() && day <= to.as_str() {
            out.entry(post.to_string()).or_default().add(&c);
        }
    }
    Ok(out)
}

use foundation::html::esc;

/// The post's body as HTML (already sanitised for articles).
fn body_html(post: &FeedPost, urls: &FeedUrls) -> String {
    let mut b = match &post.content {
        PostContent::Video { .. } => format!(
            "<video controls playsinline preload=metadata src=\"{}\"></video>",
            esc(&urls.media(&post.post_id))
        ),
        PostContent::Article { html, .. } => html.clone(),
        PostContent::Text { text } => crate::content::markup::text_to_html(text),
    };
    let article_images = matches!(post.content, PostContent::Article { .. });
    if !article_images {
        for img in &post.images {
            b.push_str(&format!("<p><img alt=\"\" src=\"{}\"></p>", esc(img)));
        }
    }
    b
}

/// The public page of a post: the video or the article, title and description, and Open Graph
/// tags for link previews.
pub fn page_html(app_url: &str, owner: &FeedOwner, post: &FeedPost) -> String {
    let urls = FeedUrls::new(app_url, &post.feed_key);
    let url = urls.page(&post.post_id);
    let (og_type, og_media) = match &post.content {
        PostContent::Video { video_url, .. } => (
            "video.other",
            format!(
                "<meta property=\"og:video\" content=\"{v}\"><meta property=\"og:video:type\" content=\"video/mp4\">",
                v = esc(video_url)
            ),
        ),
        _ => ("article", String::new()),
    };
    let og_image = post
        .images
        .first()
        .map(|i| format!("<meta property=\"og:image\" content=\"{}\">", esc(i)))
        .unwrap_or_default();
    let description: String = post.description.chars().take(300).collect();
    let platforms: Vec<&str> = post.platforms.iter().map(|p| p.display()).collect();
    format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8>\
         <meta name=viewport content=\"width=device-width\"><title>{t}</title>\
         <meta name=description content=\"{d}\">\
         <meta property=\"og:title\" content=\"{t}\"><meta property=\"og:description\" content=\"{d}\">\
         <meta property=\"og:type\" content=\"{og_type}\"><meta property=\"og:url\" content=\"{u}\">\
         <meta property=\"og:site_name\" content=\"{site}\">{og_media}{og_image}\
         <link rel=alternate type=\"application/atom+xml\" href=\"{atom}\">\
         <link rel=alternate type=\"application/feed+json\" href=\"{json}\">\
         <style>body{{font:17px/1.5 system-ui;margin:2rem auto;max-width:720px;padding:0 1rem}}\
         video,img{{max-width:100%}}</style></head><body><article><h1>{t}</h1>\
         <p class=meta>{site} · <time datetime=\"{at}\">{at}</time> · {pl}</p>\
         <p class=description>{dfull}</p>{body}</article>\
         <p><a href=\"{atom}\">Atom feed</a> · <a href=\"{json}\">JSON feed</a></p></body></html>",
        t = esc(&post.title),
        d = esc(&description),
        dfull = esc(&post.description).replace('\n', "<br>"),
        u = esc(&url),
        site = esc(&owner.label),
        atom = esc(&urls.atom()),
        json = esc(&urls.json()),
        at = iso(post.published_at),
        pl = esc(&platforms.join(", ")),
        body = body_html(post, &urls),
    )
}

fn fixed(t: i64) -> atom_syndication::FixedDateTime {
    atom_syndication::FixedDateTime::parse_from_rfc3339(&iso(t)).unwrap_or_default()
}

/// The group's Atom feed (RFC 4287).
pub fn atom(app_url: &str, key: &str, owner: &FeedOwner, posts: &[FeedPost]) -> String {
    use atom_syndication::{Category, Content, Entry, Feed, Link, Person, Text};
    let urls = FeedUrls::new(app_url, key);
    let link = |href: String, rel: &str, mime: Option<&str>| Link {
        href,
        rel: rel.into(),
        mime_type: mime.map(str::to_string),
        ..Link::default()
    };
    let entries = posts
        .iter()
        .map(|p| {
            let page = urls.page(&p.post_id);
            let mut links = vec![link(page.clone(), "alternate", Some("text/html"))];
            if matches!(p.content, PostContent::Video { .. }) {
                links.push(link(urls.media(&p.post_id), "enclosure", Some("video/mp4")));
            }
            Entry {
                title: Text::plain(p.title.clone()),
                id: page,
                updated: fixed(p.published_at),
                published: Some(fixed(p.published_at)),
                authors: vec![Person {
                    name: owner.label.clone(),
                    ..Person::default()
                }],
                links,
                summary: (!p.description.is_empty()).then(|| Text::plain(p.description.clone())),
                content: Some(Content {
                    value: Some(body_html(p, &urls)),
                    content_type: Some("html".into()),
                    ..Content::default()
                }),
                categories: p
                    .platforms
                    .iter()
                    .map(|pl| Category {
                        term: pl.as_str().into(),
                        ..Category::default()
                    })
                    .collect(),
                ..Entry::default()
            }
        })
        .collect();
    let feed = Feed {
        title: Text::plain(owner.label.clone()),
        id: urls.atom(),
        updated: fixed(posts.first().map_or(0, |p| p.published_at)),
        links: vec![
            link(urls.atom(), "self", Some("application/atom+xml")),
            link(urls.json(), "alternate", Some("application/feed+json")),
        ],
        entries,
        ..Feed::default()
    };
    // XML 1.0 cannot carry most control characters: never let stored text break the feed.
    foundation::html::strip_controls(&feed.to_string()).into_owned()
}

/// JSON Feed 1.1 (<https://jsonfeed.org/version/1.1>).
#[derive(Debug, Serialize)]
struct JsonFeed {
    version: &'static str,
    title: String,
    feed_url: String,
    items: Vec<JsonItem>,
}

#[derive(Debug, Serialize)]
struct JsonItem {
    id: String,
    url: String,
    title: String,
    content_html: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<String>,
    date_published: String,
    tags: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    attachments: Vec<JsonAttachment>,
}

#[derive(Debug, Serialize)]
struct JsonAttachment {
    url: String,
    mime_type: &'static str,
}

/// The group's JSON Feed 1.1.
pub fn json_feed(app_url: &str, key: &str, owner: &FeedOwner, posts: &[FeedPost]) -> String {
    let urls = FeedUrls::new(app_url, key);
    let feed = JsonFeed {
        version: "https://jsonfeed.org/version/1.1",
        title: owner.label.clone(),
        feed_url: urls.json(),
        items: posts
            .iter()
            .map(|p| JsonItem {
                id: urls.page(&p.post_id),
                url: urls.page(&p.post_id),
                title: p.title.clone(),
                content_html: body_html(p, &urls),
                summary: (!p.description.is_empty()).then(|| p.description.clone()),
                image: p.images.first().cloned(),
                date_published: iso(p.published_at),
                tags: p
                    .platforms
                    .iter()
                    .map(|pl| pl.as_str().to_string())
                    .collect(),
                attachments: match p.content {
                    PostContent::Video { .. } => vec![JsonAttachment {
                        url: urls.media(&p.post_id),
                        mime_type: "video/mp4",
                    }],
                    _ => Vec::new(),
                },
            })
            .collect(),
    };
    serde_json::to_string_pretty(&feed).expect("a feed serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_and_scripts_are_bots_and_browsers_are_people() {
        assert!(is_bot(None));
        assert!(is_bot(Some("Mozilla/5.0 (compatible; Googlebot/2.1)")));
        assert!(is_bot(Some("facebookexternalhit/1.1")));
        assert!(!is_bot(Some(
            "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0"
        )));
    }

    #[test]
    fn titles_are_escaped_in_the_page_and_the_atom_feed() {
        let owner = FeedOwner {
            account: "a".into(),
            channel_group: 0,
            label: "Primary".into(),
        };
        let post = FeedPost {
            post_id: "p1".into(),
            feed_key: "k".into(),
            account: "a".into(),
            channel_group: 0,
            request_id: "pub_1".into(),
            title: "<script>alert(1)</script>".into(),
            description: "x & y".into(),
            content: PostContent::Text {
                text: "hello".into(),
            },
            images: vec![],
            platforms: vec![Platform::X],
            published_at: 1_800_000_000,
            listed: true,
            private: false,
        };
        let page = page_html("http://h/app", &owner, &post);
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(page.contains("og:title"));
        let atom = atom("http://h/app", "k", &owner, &[post]);
        assert!(atom.contains("&lt;script&gt;"), "{atom}");
    }
}
