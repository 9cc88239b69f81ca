//! `search_broll` black-box: every validation code, the embedded library's ranked results
//! whose `url` then works as `mediaUrl` in modify_scene branch A, illustration clips encoded on
//! first use, the curated grid list, and
//! Pexels through a fake Pexels server (results, and `search_failed` when it errors);
//! `create_image` at each ratio with its size checked, per-image charges, every validation code,
//! and a partial failure through a fake OpenAI-compatible images API.

use std::time::Duration;

use reelsmith_tests::{Daemon, script, warp};
use serde_json::{Value, json};
use warp::Filter;

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(240);

async fn search(d: &Daemon, body: Value) -> (u16, Value) {
    let (c, v, _) = d.post("/v1/search_broll", &body).await;
    (c, v)
}

#[tokio::test]
async fn every_validation_code_of_search_broll() {
    let d = Daemon::start(BIN, &[]);
    let cases = [
        (json!({"kind": "video"}), "missing_field", "keyword"),
        (json!({"keyword": "sun"}), "missing_field", "kind"),
        (
            json!({"keyword": "sun", "kind": "gif"}),
            "invalid_kind",
            "kind",
        ),
        (
            json!({"keyword": "sun", "kind": "video", "ratio": "wide"}),
            "invalid_ratio",
            "ratio",
        ),
        (
            json!({"keyword": "sun", "kind": "video", "limit": 0}),
            "invalid_limit",
            "limit",
        ),
        (
            json!({"keyword": "sun", "kind": "video", "limit": 21}),
            "invalid_limit",
            "limit",
        ),
    ];
    for (body, code, param) in cases {
        let (c, v) = search(&d, body.clone()).await;
        assert_eq!(c, 400, "{body}: {v}");
        assert_eq!(
            (v["error"]["code"].as_str(), v["error"]["param"].as_str()),
            (Some(code), Some(param)),
            "{body}"
        );
    }
}

#[tokio::test]
async fn a_library_result_swaps_a_scene_background_through_modify_scene() {
    let d = Daemon::start(BIN, &[]);
    let (c, v) = search(
        &d,
        json!({"keyword": "solar panels", "kind": "video", "limit": 3}),
    )
    .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (
            v["object"].as_str(),
            v["kind"].as_str(),
            v["ratio"].as_str()
        ),
        (Some("list"), Some("video"), Some("portrait"))
    );
    let results = v["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 3, "{v}");
    assert_eq!(v["total"], results.len());
    let first = &results[0];
    assert_eq!(first["number"], 1);
    assert_eq!(first["type"], "video");
    assert_eq!(first["source"], "reelsmith_library");
    assert!(
        first["title"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("solar"),
        "ranked: {first}"
    );
    assert!(
        first["height"].as_u64() > first["width"].as_u64(),
        "portrait: {first}"
    );
    let url = first["url"].as_str().unwrap().to_string();
    let thumb = first["thumbnail_url"].as_str().unwrap();
    for u in [url.as_str(), thumb] {
        let r = d.http.get(u).send().await.unwrap();
        assert_eq!(r.status(), 200, "{u} is served");
        assert!(!r.bytes().await.unwrap().is_empty());
    }
    // Each clip's preview is a frame of it made by our compositor, at the editor's still size.
    assert_eq!(png_size(&d, thumb).await, (280, 498), "{thumb}");

    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(100), "output_type": "scene" }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
    let (c, g, _) = d
        .post("/v1/scene_geometry", &json!({ "id": id, "scene_id": 2 }))
        .await;
    assert_eq!(c, 200, "{g}");
    let voice_file = g["voice_file"].as_str().unwrap();
    let body = json!({
        "id": id, "by": "voice_file", "value": voice_file,
        "fields": [{ "field_name": "mediaUrl", "value": url }],
    });
    let (c, v, _) = d.post("/v1/modify_scene", &body).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (v["media_type"].as_str(), v["media_url"].as_str()),
        (Some("video"), Some(url.as_str()))
    );

    // A grid background is a still the compositor painted: it swaps in as an image.
    let (_, grid) = search(&d, json!({"keyword": "grid", "kind": "video", "limit": 1})).await;
    let grid_url = grid["results"][0]["url"].as_str().unwrap();
    let body = json!({
        "id": id, "by": "voice_file", "value": voice_file,
        "fields": [{ "field_name": "mediaUrl", "value": grid_url }],
    });
    let (c, v, _) = d.post("/v1/modify_scene", &body).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["media_type"], "image");

    // create_image with the video's topic id puts the image in that video's asset folder.
    let (c, v, _) = d
        .post(
            "/v1/create_image",
            &json!({"prompt": "solar roof", "topic_id": id}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let image = v["images"][0]["url"].as_str().unwrap();
    assert!(image.contains(&format!("/assets/{id}/images/")), "{image}");
    let (c, v, _) = d
        .post(
            "/v1/create_image",
            &json!({"prompt": "solar roof", "topic_id": "wcNoSuchVideo123"}),
        )
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("video_not_found")),
        "{v}"
    );
}

#[tokio::test]
async fn grid_lists_the_curated_backgrounds_and_images_search_the_library() {
    let d = Daemon::start(BIN, &[]);
    let (c, v) = search(&d, json!({"keyword": "GRID", "kind": "video", "limit": 4})).await;
    assert_eq!(c, 200, "{v}");
    let r = v["results"].as_array().unwrap();
    assert_eq!(r.len(), 4);
    assert!(r.iter().all(|x| x["source"] == "reelsmith_grid"), "{v}");
    for x in r {
        let png = d.http.get(x["url"].as_str().unwrap()).send().await.unwrap();
        assert_eq!(png.status(), 200, "{x}");
        let png = tiny_skia::Pixmap::decode_png(&png.bytes().await.unwrap()).unwrap();
        assert_eq!(
            (png.width(), png.height()),
            (720, 1280),
            "painted by the compositor"
        );
        let thumb = d
            .http
            .get(x["thumbnail_url"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(thumb.status(), 200);
    }

    let (c, v) = search(&d, json!({"keyword": "solar", "kind": "image"})).await;
    assert_eq!(c, 200, "{v}");
    let r = v["results"].as_array().unwrap();
    assert!(!r.is_empty(), "{v}");
    assert!(
        r.iter()
            .all(|x| x["type"] == "image" && x["duration"] == 0.0 && x["context_url"].is_string()),
        "{v}"
    );
}

#[tokio::test]
async fn illustrations_answer_everyday_topics_as_pictures_and_clips_and_nothing_answers_nothing() {
    let d = Daemon::start(BIN, &[]);
    let (c, v) = search(
        &d,
        json!({"keyword": "bakery", "kind": "image", "limit": 2}),
    )
    .await;
    assert_eq!(c, 200, "{v}");
    let r = v["results"].as_array().unwrap();
    assert_eq!(r.len(), 2, "{v}");
    let art = r
        .iter()
        .find(|x| x["source"] == "reelsmith_illustrations")
        .expect("an illustration");
    let png = d
        .http
        .get(art["url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(png.status(), 200, "{art}");
    let png = tiny_skia::Pixmap::decode_png(&png.bytes().await.unwrap()).unwrap();
    assert_eq!((png.width(), png.height()), (720, 1280));

    let (c, v) = search(
        &d,
        json!({"keyword": "doctor", "kind": "video", "limit": 1}),
    )
    .await;
    assert_eq!(c, 200, "{v}");
    let clip = &v["results"][0];
    assert_eq!(
        (clip["type"].as_str(), clip["duration"].as_f64()),
        (Some("video"), Some(4.0)),
        "{v}"
    );
    let mp4 = d
        .http
        .get(clip["url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(mp4.status(), 200, "{clip}");

    for kind in ["image", "video"] {
        let (c, v) = search(&d, json!({"keyword": "zzqx", "kind": kind})).await;
        assert_eq!(
            (c, &v["total"], &v["results"]),
            (200, &json!(0), &json!([])),
            "{v}"
        );
    }
}

/// The illustration clips under `{data}/public`, encoded or not.
fn encoded_clips(d: &Daemon) -> usize {
    let dir = d.dir.path().join("data/public/library/illustrations/clips");
    std::fs::read_dir(dir).map_or(0, |e| e.count())
}

#[tokio::test]
async fn an_illustration_clip_is_encoded_when_first_used_not_when_listed() {
    let d = Daemon::start(BIN, &[]);
    let (c, v) = search(&d, json!({"keyword": "ocean", "kind": "video", "limit": 5})).await;
    assert_eq!(c, 200, "{v}");
    let clips: Vec<&Value> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["source"] == "reelsmith_illustrations")
        .collect();
    assert!(clips.len() >= 2, "{v}");
    assert_eq!(encoded_clips(&d), 0, "listing encodes nothing");
    // Its preview is its picture, at the width of the other previews.
    let thumb = clips[0]["thumbnail_url"].as_str().unwrap();
    assert_eq!(png_size(&d, thumb).await.0, 280, "{thumb}");

    // modify_scene reads our own public file: the clip is made for it, never fetched.
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(85), "output_type": "scene" }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
    let url = clips[0]["url"].as_str().unwrap();
    let body = json!({
        "id": id, "by": "id", "value": 2,
        "fields": [{ "field_name": "mediaUrl", "value": url }],
    });
    let (c, v, _) = d.post("/v1/modify_scene", &body).await;
    assert_eq!((c, v["media_type"].as_str()), (200, Some("video")), "{v}");
    assert_eq!(encoded_clips(&d), 1, "only the clip used");

    // Another is made when its URL is asked for; a stale or made-up name is only a 404.
    let other = clips[1]["url"].as_str().unwrap();
    let mp4 = d.http.get(other).send().await.unwrap();
    assert_eq!(mp4.status(), 200, "{other}");
    assert!(mp4.bytes().await.unwrap().len() > 10_000);
    let (stem, _) = other.rsplit_once('-').unwrap();
    for missing in [
        format!("{stem}-0000000000000000.mp4"),
        format!("{stem}.mp4"),
    ] {
        let r = d.http.get(&missing).send().await.unwrap();
        assert_eq!(r.status(), 404, "{missing}");
    }
    assert_eq!(encoded_clips(&d), 2);
}

/// A fake Pexels API: photos and videos for `solar`, HTTP 500 for `broken`.
async fn fake_pexels() -> String {
    let answer = |kind: &'static str| {
        move |q: std::collections::HashMap<String, String>, auth: Option<String>| {
            if auth.as_deref() != Some("px-key") {
                return warp::reply::with_status(
                    warp::reply::json(&json!({})),
                    warp::http::StatusCode::UNAUTHORIZED,
                );
            }
            if q.get("query").map(String::as_str) == Some("broken") {
                return warp::reply::with_status(
                    warp::reply::json(&json!({"error": "boom"})),
                    warp::http::StatusCode::INTERNAL_SERVER_ERROR,
                );
            }
            let body = if kind == "photos" {
                json!({"photos": [{"id": 1, "width": 3000, "height": 4000, "photographer": "Ann", "alt": "Solar roof",
                    "url": "https://www.pexels.com/photo/1/",
                    "src": {"original": "https://img.example/1.jpg", "portrait": "https://img.example/1p.jpg", "medium": "https://img.example/1m.jpg"}}]})
            } else {
                json!({"videos": [{"id": 2, "duration": 8, "image": "https://img.example/2.jpg", "width": 720, "height": 1280,
                    "url": "https://www.pexels.com/video/roof-2/", "user": {"name": "Bo"},
                    "video_files": [{"link": "https://v.example/2.mp4", "file_type": "video/mp4", "width": 720, "height": 1280}]}]})
            };
            warp::reply::with_status(warp::reply::json(&body), warp::http::StatusCode::OK)
        }
    };
    let photos = warp::path!("v1" / "search")
        .and(warp::query())
        .and(warp::header::optional("authorization"))
        .map(answer("photos"));
    let videos = warp::path!("videos" / "search")
        .and(warp::query())
        .and(warp::header::optional("authorization"))
        .map(answer("videos"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(warp::serve(photos.or(videos)).incoming(listener).run());
    addr.to_string()
}

#[tokio::test]
async fn pexels_results_come_through_the_connector_and_its_failure_is_search_failed() {
    let px = fake_pexels().await;
    let base = format!("http://{px}/");
    let allow = format!("[\"{px}\"]");
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__BROLL__PROVIDER", "pexels"),
            ("REELSMITH__BROLL__BASE_URL", &base),
            ("REELSMITH__BROLL__API_KEY", "px-key"),
            ("REELSMITH__FETCH__ALLOW", &allow),
        ],
    );
    let (c, v) = search(&d, json!({"keyword": "solar", "kind": "video"})).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["results"][0]["url"], "https://v.example/2.mp4");
    assert_eq!(v["results"][0]["source"], "pexels");
    let (c, v) = search(&d, json!({"keyword": "solar", "kind": "image"})).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["results"][0]["type"], "image");
    assert_eq!(v["results"][0]["duration"], 0.0);

    let (c, v) = search(&d, json!({"keyword": "broken", "kind": "video"})).await;
    assert_eq!(c, 502, "{v}");
    assert_eq!(v["error"]["code"], "search_failed");
    assert!(
        !v["error"]["message"].as_str().unwrap().contains("500"),
        "no upstream text leaks: {v}"
    );
}

// ---------------------------------------------------------------------------------------------
// create_image

/// The width and height of a PNG, read from its decoded pixels.
async fn png_size(d: &Daemon, url: &str) -> (u32, u32) {
    let r = d.http.get(url).send().await.unwrap();
    assert_eq!(r.status(), 200, "{url}");
    let png = tiny_skia::Pixmap::decode_png(&r.bytes().await.unwrap()).expect("a PNG");
    (png.width(), png.height())
}

async fn credits(d: &Daemon) -> i64 {
    let (_, v, _) = d.get("/v1/account").await;
    v["credits_remaining"].as_i64().unwrap()
}

#[tokio::test]
async fn create_image_makes_each_ratio_at_its_size_and_charges_per_image() {
    let d = Daemon::start(BIN, &[]);
    let before = credits(&d).await;
    for (ratio, size) in [
        ("portrait", (768, 1344)),
        ("landscape", (1344, 768)),
        ("square", (768, 768)),
    ] {
        let (c, v, _) = d
            .post(
                "/v1/create_image",
                &json!({"prompt": "Solar panels on a roof at dawn", "ratio": ratio}),
            )
            .await;
        assert_eq!(c, 200, "{v}");
        assert_eq!(
            (
                v["object"].as_str(),
                v["status"].as_str(),
                v["ratio"].as_str()
            ),
            (Some("image_set"), Some("completed"), Some(ratio))
        );
        let images = v["images"].as_array().unwrap();
        assert_eq!(images.len(), 1);
        assert_eq!(images[0]["number"], 1);
        assert_eq!(
            png_size(&d, images[0]["url"].as_str().unwrap()).await,
            size,
            "{ratio}"
        );
        let thumb = d
            .http
            .get(images[0]["thumbnail_url"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(thumb.status(), 200);
    }
    let (c, v, _) = d
        .post(
            "/v1/create_image",
            &json!({"prompt": "team meeting", "count": 3, "ratio": "square"}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["images"].as_array().unwrap().len(), 3);
    assert_eq!(credits(&d).await, before - 6, "one credit per image");

    // Deterministic per prompt: the same prompt designs the same pixels.
    let mut pngs = Vec::new();
    for _ in 0..2 {
        let (_, v, _) = d
            .post(
                "/v1/create_image",
                &json!({"prompt": "city at night", "ratio": "square"}),
            )
            .await;
        let r = d
            .http
            .get(v["images"][0]["url"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        pngs.push(r.bytes().await.unwrap());
    }
    assert_eq!(pngs[0], pngs[1]);
}

#[tokio::test]
async fn every_validation_code_of_create_image() {
    let d = Daemon::start(BIN, &[]);
    let cases = [
        (json!({}), "missing_field", "prompt"),
        (
            json!({"prompt": "x".repeat(2001)}),
            "prompt_too_long",
            "prompt",
        ),
        (
            json!({"prompt": "x", "ratio": "wide"}),
            "invalid_ratio",
            "ratio",
        ),
        (json!({"prompt": "x", "count": 0}), "invalid_count", "count"),
        (json!({"prompt": "x", "count": 5}), "invalid_count", "count"),
        (
            json!({"prompt": "x", "topic_id": "not a topic"}),
            "invalid_topic_id",
            "topic_id",
        ),
    ];
    for (body, code, param) in cases {
        let (c, v, _) = d.post("/v1/create_image", &body).await;
        assert_eq!(c, 400, "{body}: {v}");
        assert_eq!(
            (v["error"]["code"].as_str(), v["error"]["param"].as_str()),
            (Some(code), Some(param)),
            "{body}"
        );
    }
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A fake OpenAI-compatible images API: the first call succeeds, every later one fails.
async fn fake_images_api() -> (String, std::sync::Arc<std::sync::Mutex<Vec<Value>>>) {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let png = base64(&reelsmith_tests::png_bytes(400, 700));
    let log = seen.clone();
    let route = warp::path!("v1" / "images" / "generations")
        .and(warp::post())
        .and(warp::header::<String>("authorization"))
        .and(warp::body::json())
        .map(move |auth: String, body: Value| {
            assert_eq!(auth, "Bearer img-key");
            let mut log = log.lock().unwrap();
            log.push(body);
            if log.len() == 1 {
                warp::reply::with_status(
                    warp::reply::json(&json!({"created": 1, "data": [{"b64_json": png}]})),
                    warp::http::StatusCode::OK,
                )
            } else {
                warp::reply::with_status(
                    warp::reply::json(&json!({"error": {"message": "overloaded"}})),
                    warp::http::StatusCode::SERVICE_UNAVAILABLE,
                )
            }
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(warp::serve(route).incoming(listener).run());
    (addr.to_string(), seen)
}

#[tokio::test]
async fn a_later_image_failing_gives_a_partial_502_with_the_survivors() {
    let (api, seen) = fake_images_api().await;
    let base = format!("http://{api}/v1");
    let allow = format!("[\"{api}\"]");
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__IMAGES__PROVIDER", "openai"),
            ("REELSMITH__IMAGES__BASE_URL", &base),
            ("REELSMITH__IMAGES__MODEL", "img-model"),
            ("REELSMITH__IMAGES__API_KEY", "img-key"),
            ("REELSMITH__FETCH__ALLOW", &allow),
        ],
    );
    let before = credits(&d).await;
    let (c, v, _) = d
        .post(
            "/v1/create_image",
            &json!({"prompt": "solar roof", "count": 3, "ratio": "landscape"}),
        )
        .await;
    assert_eq!(c, 502, "{v}");
    assert_eq!(v["status"], "partial");
    let images = v["images"].as_array().unwrap();
    assert_eq!(images.len(), 1);
    assert_eq!(
        png_size(&d, images[0]["url"].as_str().unwrap()).await,
        (1344, 768)
    );
    assert_eq!(v["error"]["code"], "image_generation_failed");
    assert_eq!(v["error"]["failed_at_number"], 2);
    assert_eq!(
        credits(&d).await,
        before - 1,
        "only the survivor is paid for"
    );
    let sent = seen.lock().unwrap().clone();
    assert_eq!(sent[0]["size"], "1344x768");
    assert_eq!(sent[0]["model"], "img-model");

    // Nothing made at all: an error envelope, nothing charged.
    let (c, v, _) = d
        .post("/v1/create_image", &json!({"prompt": "solar roof"}))
        .await;
    assert_eq!(c, 502, "{v}");
    assert_eq!(v["error"]["code"], "image_generation_failed");
    assert_eq!(credits(&d).await, before - 1);
}
