//! `search_broll` black-box: every validation code, the embedded library's ranked results
//! whose `url` then works as `mediaUrl` in modify_scene branch A, the curated grid list, and
//! Pexels through a fake Pexels server (results, and `search_failed` when it errors).

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
}

#[tokio::test]
async fn grid_lists_the_curated_backgrounds_and_images_search_the_library() {
    let d = Daemon::start(BIN, &[]);
    let (c, v) = search(&d, json!({"keyword": "GRID", "kind": "video", "limit": 4})).await;
    assert_eq!(c, 200, "{v}");
    let r = v["results"].as_array().unwrap();
    assert_eq!(r.len(), 4);
    assert!(r.iter().all(|x| x["source"] == "reelsmith_grid"), "{v}");

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
