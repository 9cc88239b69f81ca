//! Publishing, black-box: a rendered video, a written piece and a downloaded video go to the
//! embedded feed publisher, whose Atom and JSON feeds an independent parser (`feed-rs`) reads
//! and whose post pages carry the post; every validation code of `publish`; a scheduled post
//! that survives a SIGKILL and goes out at its time; the Ayrshare-style connector against a
//! fake aggregator on 127.0.0.1 with one platform failing; analytics counting the views made
//! here, people and bots apart.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reelsmith_tests::warp::{self, Filter};
use reelsmith_tests::{Daemon, bytes::Bytes, fixture_files, h264_mp4, script, utc_after};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(300);
const SHORT: Duration = Duration::from_secs(30);
const PERSON: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const ROBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

fn code(v: &Value) -> Option<&str> {
    v["error"]["code"].as_str()
}

async fn fetch(d: &Daemon, url: &str, ua: &str) -> (u16, String) {
    let r = d
        .http
        .get(url)
        .header("user-agent", ua)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

/// Publishes `body` and waits for its requests to finish; returns the 202 and each status.
async fn publish(d: &Daemon, body: Value) -> (Value, Vec<Value>) {
    let (c, v, _) = d.post("/v1/publish", &body).await;
    assert_eq!(c, 202, "{body}: {v}");
    let mut done = Vec::new();
    for id in v["request_ids"].as_array().unwrap() {
        let id = id.as_str().unwrap();
        done.push(d.wait_for(id, SHORT, |s| s["status"] != "processing").await);
    }
    (v, done)
}

/// A daemon with youtube, x and instagram connected in group 0, allowed to fetch from a
/// fixture server that holds `clip.mp4`; and that server's address.
async fn publisher() -> (Daemon, String) {
    let files = fixture_files(vec![("clip.mp4", "video/mp4", h264_mp4())]).await;
    let allow = format!("[\"{files}\"]");
    let d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
    for p in ["youtube", "x", "instagram"] {
        let (c, page) = d.connect_platform(p, 0, "studio").await;
        assert_eq!(c, 200, "{page}");
    }
    (d, files)
}

/// Publishes the fixture's clip to youtube as `title`; returns its post page.
async fn publish_clip(d: &Daemon, files: &str, title: &str, description: &str) -> String {
    let (_, done) = publish(
        d,
        json!({"video_url": format!("http://{files}/clip.mp4"), "title": title, "description": description, "platforms": ["youtube"]}),
    )
    .await;
    assert_eq!(done[0]["status"], "completed", "{:?}", done[0]);
    let post = &done[0]["result"]["posts"][0];
    assert_eq!(post["success"], true, "{post}");
    post["post_url"].as_str().unwrap().to_string()
}

async fn credits(d: &Daemon) -> i64 {
    let (c, account, _) = d.get("/v1/account").await;
    assert_eq!(c, 200, "{account}");
    account["credits_remaining"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_video_published_before_its_render_is_publish_not_ready() {
    let (d, _) = publisher().await;
    let (_, v, _) = d
        .post(
            "/v1/create_video",
            &json!({"script_text": script(85), "output_type": "video", "faceless": true}),
        )
        .await;
    let body = json!({"topic_id": v["id"], "platforms": ["youtube"]});
    let (c, v, _) = d.post("/v1/publish", &body).await;
    assert_eq!((c, code(&v)), (409, Some("publish_not_ready")), "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rendered_video_goes_to_the_connected_platforms_and_skips_the_others() {
    let (d, _) = publisher().await;
    let (_, v, _) = d
        .post(
            "/v1/create_video",
            &json!({"script_text": script(85), "output_type": "video", "faceless": true}),
        )
        .await;
    let topic = v["id"].as_str().unwrap().to_string();
    let rendered = d
        .wait_for(&topic, LONG, |s| s["status"] != "processing")
        .await;
    assert_eq!(rendered["status"], "completed", "{rendered}");
    let (reply, done) = publish(
        &d,
        json!({"topic_id": topic, "platforms": ["youtube", "tiktok"], "description": "Our week", "metadata": {"run": 7}}),
    )
    .await;
    assert_eq!(reply["object"], "publish");
    assert_eq!(reply["platforms"], json!(["youtube"]));
    assert_eq!(
        reply["skipped"],
        json!([{"platform": "tiktok", "reason": "not_connected"}])
    );
    assert_eq!(reply["metadata"], json!({"run": 7}));
    let status = &done[0];
    assert_eq!(
        (status["type"].as_str(), status["status"].as_str()),
        (Some("publish"), Some("completed")),
        "{status}"
    );
    let post = &status["result"]["posts"][0];
    assert_eq!(
        (post["platform"].as_str(), post["success"].as_bool()),
        (Some("youtube"), Some(true)),
        "{status}"
    );
    let (c, page) = fetch(&d, post["post_url"].as_str().unwrap(), PERSON).await;
    assert_eq!(c, 200);
    assert!(page.contains("Our week"), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_written_piece_for_a_text_and_a_photo_platform_is_two_requests() {
    let (d, _) = publisher().await;
    let (_, v, _) = d
        .post(
            "/v1/create_content",
            &json!({"content": "why weekly short videos help small teams reach people"}),
        )
        .await;
    let piece = v["id"].as_str().unwrap().to_string();
    d.wait_for(&piece, LONG, |s| s["status"] != "processing")
        .await;
    let (reply, done) = publish(
        &d,
        json!({"topic_id": piece, "platforms": ["x", "instagram"]}),
    )
    .await;
    assert_eq!(reply["request_ids"].as_array().unwrap().len(), 2, "{reply}");
    assert!(done.iter().all(|s| s["status"] == "completed"), "{done:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_publish_call_charges_one_credit() {
    let (d, files) = publisher().await;
    let before = credits(&d).await;
    publish_clip(&d, &files, "A clip", "").await;
    assert_eq!(credits(&d).await, before - 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_atom_and_json_feeds_list_every_post_for_an_independent_parser() {
    let (d, files) = publisher().await;
    let first = publish_clip(&d, &files, "A clip", "").await;
    let second = publish_clip(&d, &files, "Another clip", "").await;
    let feed_base = first.rsplit_once("/posts/").unwrap().0.to_string();
    let atom = d
        .http
        .get(format!("{feed_base}/atom.xml"))
        .send()
        .await
        .unwrap();
    let kind = atom.headers()["content-type"].to_str().unwrap().to_string();
    assert!(kind.starts_with("application/atom+xml"), "{kind}");
    let atom = feed_rs::parser::parse(atom.bytes().await.unwrap().as_ref()).expect("valid Atom");
    assert_eq!(atom.feed_type, feed_rs::model::FeedType::Atom);
    let mut titles: Vec<String> = atom
        .entries
        .iter()
        .filter_map(|e| e.title.as_ref().map(|t| t.content.clone()))
        .collect();
    titles.sort();
    assert_eq!(titles, ["A clip", "Another clip"]);
    let json_feed = d
        .http
        .get(format!("{feed_base}/feed.json"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let json_feed = feed_rs::parser::parse(json_feed.as_ref()).expect("valid JSON Feed");
    assert_eq!(json_feed.feed_type, feed_rs::model::FeedType::JSON);
    assert_eq!(json_feed.entries.len(), 2);
    for page in [&first, &second] {
        let linked = json_feed
            .entries
            .iter()
            .any(|e| e.links.iter().any(|l| l.href == *page));
        assert!(linked, "{page}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_page_shows_the_video_and_analytics_count_people_robots_and_downloads() {
    let (d, files) = publisher().await;
    let page_url = publish_clip(&d, &files, "A clip", "Our week").await;
    let (c, page) = fetch(&d, &page_url, PERSON).await;
    assert_eq!(c, 200);
    for needle in ["og:title", "og:video", "<video", "Our week", "A clip"] {
        assert!(page.contains(needle), "{needle}: {page}");
    }
    fetch(&d, &page_url, PERSON).await;
    fetch(&d, &page_url, ROBOT).await;
    let media = d
        .http
        .get(format!("{page_url}/media"))
        .header("user-agent", PERSON)
        .send()
        .await
        .unwrap();
    assert_eq!(media.status().as_u16(), 200, "the redirect reaches the MP4");
    assert_eq!(media.bytes().await.unwrap().get(4..8), Some(&b"ftyp"[..]));

    let (c, v, _) = d.get("/v1/analytics?period=last_day").await;
    assert_eq!(c, 200, "{v}");
    let yt = &v["dashboard"]["platforms"]["youtube"];
    assert_eq!(
        (
            yt["posts"].as_u64(),
            yt["views"].as_u64(),
            yt["bot_views"].as_u64(),
            yt["downloads"].as_u64()
        ),
        (Some(1), Some(2), Some(1), Some(1)),
        "{v}"
    );
    assert_eq!(v["dashboard"]["totals"]["posts"], 1, "{v}");
    assert_eq!(v["channel_group"], Value::Null);
    // Cached: a later view shows up only once the cache time has passed.
    fetch(&d, &page_url, PERSON).await;
    let (_, again, _) = d.get("/v1/analytics?period=last_day").await;
    assert_eq!(again["dashboard"], v["dashboard"]);
    let (_, custom, _) = d.get("/v1/analytics?period=custom&start_date=2020-01-01&end_date=2020-01-31&channel_group=all").await;
    assert_eq!(custom["dashboard"]["totals"]["views"], 0, "{custom}");
    assert_eq!(custom["channel_group"], "all");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_publish_validation_code_names_its_field() {
    let files = fixture_files(vec![(
        "page.html",
        "text/html",
        Bytes::from_static(b"<p>hi</p>"),
    )])
    .await;
    let allow = format!("[\"{files}\"]");
    let mut d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
    let (c, v, _) = d.post("/v1/publish", &json!({"text": "hello"})).await;
    assert_eq!((c, code(&v)), (400, Some("no_platforms_connected")), "{v}");
    d.connect_platform("x", 0, "studio").await;
    let missing = format!("http://{files}/missing.mp4");
    let not_video = format!("http://{files}/page.html");
    for (body, status, expected, param) in [
        (json!({}), 400, "invalid_publish_input", "text"),
        (
            json!({"text": "a", "topic_id": "wcAAAA"}),
            400,
            "invalid_publish_input",
            "text",
        ),
        (
            json!({"video_url": "https://example.com/a.mp4"}),
            400,
            "missing_field",
            "title",
        ),
        (
            json!({"text": "a", "platforms": ["myspace"]}),
            400,
            "invalid_platforms",
            "platforms",
        ),
        (
            json!({"text": "a", "platforms": []}),
            400,
            "invalid_platforms",
            "platforms",
        ),
        (
            json!({"text": "a", "channel_group": -1}),
            400,
            "invalid_channel_group",
            "channel_group",
        ),
        (
            json!({"text": "a", "channel_group": 5}),
            404,
            "invalid_channel_group",
            "channel_group",
        ),
        (
            json!({"text": "a", "platforms": ["tiktok"]}),
            400,
            "no_platforms_connected",
            "platforms",
        ),
        (
            json!({"topic_id": "wc0000000000000000000000"}),
            404,
            "video_not_found",
            "topic_id",
        ),
        (
            json!({"video_url": missing, "title": "t"}),
            400,
            "download_failed",
            "video_url",
        ),
        (
            json!({"video_url": not_video, "title": "t"}),
            400,
            "download_failed",
            "video_url",
        ),
        (
            json!({"video_url": "http://10.0.0.1/a.mp4", "title": "t"}),
            400,
            "download_failed",
            "video_url",
        ),
        (
            json!({"text": "a", "scheduled_date": "next monday"}),
            400,
            "invalid_scheduled_date",
            "scheduled_date",
        ),
        (
            json!({"text": "a", "timezone": "Moon/Base"}),
            400,
            "invalid_timezone",
            "timezone",
        ),
        (
            json!({"text": "a", "photo_urls": ["not a url"]}),
            400,
            "invalid_photo_url",
            "photo_urls",
        ),
    ] {
        let (c, v, _) = d.post("/v1/publish", &body).await;
        assert_eq!(
            (c, code(&v), v["error"]["param"].as_str()),
            (status, Some(expected), Some(param)),
            "{body}: {v}"
        );
    }
    // A video still being made is not ready.
    let (_, v, _) = d
        .post("/v1/create_video", &json!({"script_text": script(85)}))
        .await;
    let (c, v, _) = d.post("/v1/publish", &json!({"topic_id": v["id"]})).await;
    assert_eq!((c, code(&v)), (409, Some("publish_not_ready")), "{v}");
    // Out of credits: 402, nothing queued.
    d.cli_offline(&["accounts", "set", "--account", "default", "--credits", "0"]);
    let (c, v, _) = d.post("/v1/publish", &json!({"text": "hello"})).await;
    assert_eq!((c, code(&v)), (402, Some("credit_exhausted")), "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn photo_urls_on_loopback_private_or_link_local_hosts_are_invalid_photo_url() {
    let (d, files) = publisher().await;
    let before = credits(&d).await;
    for url in [
        "http://127.0.0.1/a.jpg",
        "http://localhost:8080/a.jpg",
        "http://[::1]/a.jpg",
        "http://10.0.0.5/a.jpg",
        "http://192.168.1.20/a.jpg",
        "http://172.16.0.1/a.jpg",
        "http://169.254.169.254/latest/meta-data",
        "http://[fe80::1]/a.jpg",
    ] {
        let body = json!({"text": "hello", "platforms": ["x"], "photo_urls": [url]});
        let (c, v, _) = d.post("/v1/publish", &body).await;
        assert_eq!(
            (c, code(&v), v["error"]["param"].as_str()),
            (400, Some("invalid_photo_url"), Some("photo_urls")),
            "{url}: {v}"
        );
    }
    assert_eq!(credits(&d).await, before, "nothing was published");
    // A host the guard lets through still reaches the post page and its og:image.
    let photo = format!("http://{files}/photo.jpg");
    let (_, done) = publish(
        &d,
        json!({"text": "hello", "platforms": ["x"], "photo_urls": [photo]}),
    )
    .await;
    let page_url = done[0]["result"]["posts"][0]["post_url"].as_str().unwrap();
    let (c, page) = fetch(&d, page_url, PERSON).await;
    assert_eq!(c, 200);
    assert!(
        page.contains(&format!("<meta property=\"og:image\" content=\"{photo}\">")),
        "{page}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_private_post_answers_404_and_is_absent_from_the_feeds() {
    let (d, files) = publisher().await;
    let (c, v, _) = d
        .post(
            "/v1/platform_settings",
            &json!({"platform": "x", "settings": {"visibility": "private"}}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let public = publish_clip(&d, &files, "Public clip", "").await;
    let (_, done) = publish(
        &d,
        json!({"text": "Secret plans for spring", "title": "Private note", "platforms": ["x"]}),
    )
    .await;
    assert_eq!(done[0]["status"], "completed", "{:?}", done[0]);
    let private = done[0]["result"]["posts"][0]["post_url"].as_str().unwrap();
    let (c, page) = fetch(&d, private, PERSON).await;
    assert_eq!(c, 404, "{page}");
    assert!(!page.contains("Secret plans"), "{page}");
    let (c, _) = fetch(&d, &format!("{private}/media"), PERSON).await;
    assert_eq!(c, 404);
    let (c, page) = fetch(&d, &public, PERSON).await;
    assert_eq!(c, 200, "a public post keeps its page: {page}");
    let feed_base = public.rsplit_once("/posts/").unwrap().0.to_string();
    assert_eq!(private.rsplit_once("/posts/").unwrap().0, feed_base);
    for feed in ["atom.xml", "feed.json"] {
        let (c, body) = fetch(&d, &format!("{feed_base}/{feed}"), PERSON).await;
        assert_eq!(c, 200, "{feed}");
        assert!(body.contains("Public clip"), "{feed}: {body}");
        assert!(
            !body.contains("Private note") && !body.contains("Secret plans"),
            "{feed}: {body}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_publish_calls_own_id_answers_status_summing_up_its_requests() {
    let (d, _) = publisher().await;
    let (reply, done) = publish(
        &d,
        json!({"text": "New episode out now", "platforms": ["x", "instagram"], "metadata": {"run": 9}}),
    )
    .await;
    let ids = reply["request_ids"].clone();
    assert_eq!(ids.as_array().unwrap().len(), 2, "{reply}");
    assert!(done.iter().all(|s| s["status"] == "completed"), "{done:?}");
    let id = reply["id"].as_str().unwrap();
    let (c, s, _) = d.get(&format!("/v1/status/{id}")).await;
    assert_eq!(c, 200, "{s}");
    assert_eq!(
        (
            s["object"].as_str(),
            s["id"].as_str(),
            s["type"].as_str(),
            s["status"].as_str()
        ),
        (Some("status"), Some(id), Some("publish"), Some("completed")),
        "{s}"
    );
    assert_eq!(s["result"]["request_ids"], ids, "{s}");
    assert_eq!(s["metadata"], json!({"run": 9}), "{s}");
    let mut platforms: Vec<&str> = s["result"]["posts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["platform"].as_str().unwrap())
        .collect();
    platforms.sort();
    assert_eq!(platforms, ["instagram", "x"], "{s}");
    // A scheduled call is processing until its time, and says so.
    let at = utc_after(3600);
    let (c, reply, _) = d
        .post(
            "/v1/publish",
            &json!({"text": "Later", "platforms": ["x"], "scheduled_date": at.1}),
        )
        .await;
    assert_eq!(c, 202, "{reply}");
    let (c, s, _) = d
        .get(&format!("/v1/status/{}", reply["id"].as_str().unwrap()))
        .await;
    assert_eq!((c, s["status"].as_str()), (200, Some("processing")), "{s}");
    assert!(
        s["details"]["notes"]
            .as_str()
            .unwrap()
            .starts_with("Scheduled for"),
        "{s}"
    );
    let (c, v, _) = d.get("/v1/status/pub_000000000000000000000000").await;
    assert_eq!((c, code(&v)), (404, Some("video_not_found")), "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scheduled_post_survives_a_sigkill_and_goes_out_at_its_time() {
    let mut d = Daemon::start(BIN, &[]);
    d.connect_platform("threads", 0, "studio").await;
    let at = utc_after(8);
    let (c, v, _) = d
        .post(
            "/v1/publish",
            &json!({"text": "Launch day is here", "title": "Launch", "scheduled_date": at.1, "timezone": "Asia/Ho_Chi_Minh"}),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["request_ids"][0].as_str().unwrap().to_string();
    let (_, s, _) = d.get(&format!("/v1/status/{id}")).await;
    assert_eq!(s["status"], "processing", "{s}");
    assert!(
        s["details"]["notes"]
            .as_str()
            .unwrap()
            .starts_with("Scheduled for"),
        "{s}"
    );
    // The schedule page lists it, in its time zone.
    let (_, link, _) = d
        .post(
            "/v1/client_link/send",
            &json!({"link_type": "publish_schedule"}),
        )
        .await;
    let (_, page) = fetch(&d, link["magic_url"].as_str().unwrap(), PERSON).await;
    assert!(
        page.contains("Launch") && page.contains("+07") && page.contains("waiting"),
        "{page}"
    );
    let (_, groups, _) = d.get("/v1/channel_groups").await;
    let (c, page) = fetch(&d, groups["schedule_url"].as_str().unwrap(), PERSON).await;
    assert_eq!(c, 200, "{page}");
    assert!(page.contains("Launch") && page.contains("+07"), "{page}");
    let (c, _) = fetch(
        &d,
        &format!("{}x", groups["schedule_url"].as_str().unwrap()),
        PERSON,
    )
    .await;
    assert_eq!(c, 403, "an altered link opens nothing");

    d.kill_and_restart();
    let (_, s, _) = d.get(&format!("/v1/status/{id}")).await;
    assert_eq!(s["status"], "processing", "not before its time: {s}");
    let done = d
        .wait_for(&id, SHORT, |s| s["status"] != "processing")
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let finished = done["updated_at"].as_str().unwrap();
    assert!(
        finished >= at.1.as_str(),
        "went out at {finished}, due {}",
        at.1
    );
    assert_eq!(done["result"]["posts"][0]["platform"], "threads");
}

/// A fake Ayrshare-style aggregator: `GET /api/user` (twitter, linkedin and instagram linked),
/// `POST /api/profiles` (title `Taken` is code 146),
/// `POST /api/post` (twitter succeeds, every other platform fails), `POST /api/analytics/social`.
struct Aggregator {
    addr: String,
    seen: Seen,
}

/// Each request the aggregator got: path, `Profile-Key`, JSON body.
type Seen = Arc<Mutex<Vec<(String, Option<String>, Value)>>>;

impl Aggregator {
    async fn start() -> Aggregator {
        let seen: Seen = Arc::default();
        let s = seen.clone();
        let route = warp::post()
            .and(warp::path::full())
            .and(warp::header::optional::<String>("authorization"))
            .and(warp::header::optional::<String>("profile-key"))
            .and(warp::body::bytes())
            .map(move |path: warp::path::FullPath, auth: Option<String>, profile: Option<String>, body: Bytes| {
                let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                s.lock().unwrap().push((path.as_str().to_string(), profile.clone(), v.clone()));
                let (status, reply) = if auth.as_deref() != Some("Bearer agg-key") {
                    (401, json!({"status": "error", "code": 102, "message": "API Key not valid"}))
                } else {
                    match path.as_str() {
                        "/api/profiles" if v["title"].as_str().is_some_and(|t| t.ends_with("Taken")) => {
                            (400, json!({"status": "error", "code": 146, "message": "Profile title already exists"}))
                        }
                        "/api/profiles" => (200, json!({"status": "success", "title": v["title"], "refId": "ref1", "profileKey": "pk-brand"})),
                        "/api/post" => {
                            // twitter takes every post; the other platforms' tokens expired.
                            let asked: Vec<&str> = v["platforms"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
                            let ok: Vec<Value> = asked.iter().filter(|p| **p == "twitter").map(|p| json!({"status": "success", "id": "1790", "postUrl": "https://twitter.com/studio/status/1790", "platform": p})).collect();
                            let failed: Vec<Value> = asked.iter().filter(|p| **p != "twitter").map(|p| json!({"action": "post", "status": "error", "code": 272, "message": format!("{p}: the account's token expired"), "platform": p})).collect();
                            let status = if failed.is_empty() { 200 } else { 400 };
                            (status, json!({"status": if failed.is_empty() { "success" } else { "error" }, "id": "agg-post-1", "postIds": ok, "errors": failed}))
                        }
                        "/api/analytics/social" => (200, json!({"status": "success", "twitter": {"analytics": {"impressionCount": 42, "likeCount": 5}}})),
                        _ => (404, json!({"status": "error"})),
                    }
                };
                warp::reply::with_status(warp::reply::json(&reply), warp::http::StatusCode::from_u16(status).unwrap())
            });
        // `GET /api/user`: the profile's linked accounts (Facebook is not linked).
        let s = seen.clone();
        let user = warp::get()
            .and(warp::path!("api" / "user"))
            .and(warp::header::optional::<String>("profile-key"))
            .map(move |profile: Option<String>| {
                s.lock().unwrap().push(("/api/user".into(), profile, Value::Null));
                warp::reply::json(&json!({
                    "activeSocialAccounts": ["twitter", "linkedin", "instagram"],
                    "displayNames": [
                        {"platform": "twitter", "username": "studio_on_x", "displayName": "Studio on X"},
                        {"platform": "linkedin", "username": "studio-in", "displayName": "Studio"},
                        {"platform": "instagram", "username": "studio.gram", "displayName": ""},
                    ],
                }))
            });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(warp::serve(user.or(route)).incoming(listener).run());
        Aggregator { addr, seen }
    }

    fn seen(&self, path: &str) -> Vec<(Option<String>, Value)> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _, _)| p == path)
            .map(|(_, k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_connector_posts_through_the_groups_profile_and_reports_a_partial_failure() {
    let agg = Aggregator::start().await;
    let allow = format!("[\"{}\"]", agg.addr);
    let base = format!("http://{}/api", agg.addr);
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__FETCH__ALLOW", &allow),
            ("REELSMITH__PUBLISH__PUBLISHER", "ayrshare"),
            ("REELSMITH__PUBLISH__BASE_URL", &base),
            ("REELSMITH__PUBLISH__API_KEY", "agg-key"),
        ],
    );
    let (c, v, _) = d
        .post("/v1/channel_groups", &json!({"label": "Brand"}))
        .await;
    assert_eq!(c, 201, "{v}");
    let (c, v, _) = d
        .post("/v1/channel_groups", &json!({"label": "Taken"}))
        .await;
    assert_eq!((c, code(&v)), (409, Some("upstream_username_taken")), "{v}");
    for p in ["x", "linkedin", "instagram"] {
        let (c, page) = d.connect_platform(p, 1, "studio").await;
        assert_eq!(c, 200, "{page}");
    }
    // A platform not linked at the aggregator is not connected; linked ones take its handles.
    let (c, page) = d.connect_platform("facebook", 1, "studio").await;
    assert_eq!(c, 502, "{page}");
    assert!(page.contains("Facebook is not linked"), "{page}");
    let (_, accounts, _) = d.get("/v1/accounts?channel_group=1").await;
    let x = accounts["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["platform"] == "x")
        .unwrap();
    assert_eq!(
        (x["username"].as_str(), x["display_name"].as_str()),
        (Some("studio_on_x"), Some("Studio on X")),
        "{accounts}"
    );
    assert_eq!(accounts["data"].as_array().unwrap().len(), 3, "{accounts}");
    assert!(
        agg.seen("/api/user")
            .iter()
            .all(|(k, _)| k.as_deref() == Some("pk-brand"))
    );
    // Text to text platforms and a photo platform: two requests.
    let (reply, done) = publish(
        &d,
        json!({"text": "New episode out now", "title": "Episode 3", "channel_group": 1}),
    )
    .await;
    assert_eq!(
        reply["platforms"],
        json!(["instagram", "linkedin", "x"]),
        "{reply}"
    );
    let (text, photo) = (&done[0], &done[1]);
    assert_eq!(text["status"], "completed", "one platform took it: {text}");
    let posts = &text["result"]["posts"];
    assert_eq!(
        (
            posts[1]["platform"].as_str(),
            posts[1]["success"].as_bool(),
            posts[1]["post_url"].as_str(),
            posts[1]["post_id"].as_str()
        ),
        (
            Some("x"),
            Some(true),
            Some("https://twitter.com/studio/status/1790"),
            Some("1790")
        ),
        "{text}"
    );
    assert_eq!(
        (
            posts[0]["platform"].as_str(),
            posts[0]["success"].as_bool(),
            posts[0]["error"].as_str()
        ),
        (
            Some("linkedin"),
            Some(false),
            Some("linkedin: the account's token expired")
        ),
        "{text}"
    );
    // Every platform of the photo request refused it: failed, with each platform's reason.
    assert_eq!(
        (photo["status"].as_str(), photo["error"]["code"].as_str()),
        (Some("failed"), Some("publish_failed")),
        "{photo}"
    );
    assert_eq!(photo["result"]["posts"][0]["platform"], "instagram");
    // The call's own id sums both up: one request went out, so the call completed.
    let (_, call, _) = d
        .get(&format!("/v1/status/{}", reply["id"].as_str().unwrap()))
        .await;
    assert_eq!(
        (call["status"].as_str(), &call["error"]),
        (Some("completed"), &Value::Null),
        "{call}"
    );
    assert_eq!(
        call["result"]["posts"].as_array().unwrap().len(),
        3,
        "{call}"
    );
    let mut sent = agg.seen("/api/post");
    sent.sort_by_key(|(_, body)| body["platforms"].to_string());
    assert_eq!(sent[0].1["platforms"], json!(["instagram"]));
    assert_eq!(sent[1].1["platforms"], json!(["linkedin", "twitter"]));
    assert!(
        sent.iter().all(|(k, _)| k.as_deref() == Some("pk-brand")),
        "posted through the group's profile"
    );
    assert!(
        sent[1].1["post"]
            .as_str()
            .unwrap()
            .contains("New episode out now")
    );

    // A scheduled post goes to the aggregator at once, with its date.
    let at = utc_after(3600);
    let (_, done) = publish(
        &d,
        json!({"text": "Later", "channel_group": 1, "platforms": ["x"], "scheduled_date": at.1}),
    )
    .await;
    assert_eq!(done[0]["status"], "completed", "{:?}", done[0]);
    assert_eq!(agg.seen("/api/post")[2].1["scheduleDate"], json!(at.1));

    let (c, v, _) = d.get("/v1/analytics?channel_group=1").await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["dashboard"]["publisher"], "ayrshare");
    assert_eq!(
        v["dashboard"]["platforms"]["x"]["upstream"]["1"]["impressionCount"], 42,
        "{v}"
    );
    assert_eq!(
        agg.seen("/api/analytics/social")[0].0.as_deref(),
        Some("pk-brand")
    );
}
