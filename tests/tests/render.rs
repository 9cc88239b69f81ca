//! Black-box tests of the render core's HTTP surface: `scene_inspector` stills (screenshots and
//! overlay posters) with their public, expiring URLs.

use std::time::Duration;

use reelsmith_tests::{Daemon, script};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(240);

/// Width and height from a baseline/progressive JPEG's SOF marker.
fn jpeg_size(b: &[u8]) -> Option<(u16, u16)> {
    if !b.starts_with(&[0xff, 0xd8]) {
        return None;
    }
    let mut i = 2;
    while i + 9 < b.len() {
        if b[i] != 0xff {
            return None;
        }
        let marker = b[i + 1];
        let len = u16::from_be_bytes([b[i + 2], b[i + 3]]) as usize;
        if matches!(marker, 0xc0 | 0xc1 | 0xc2) {
            let h = u16::from_be_bytes([b[i + 5], b[i + 6]]);
            let w = u16::from_be_bytes([b[i + 7], b[i + 8]]);
            return Some((w, h));
        }
        i += 2 + len;
    }
    None
}

async fn scene_video(d: &Daemon) -> String {
    let (c, v, _) = d
        .post("/v1/create_video", &json!({ "script_text": script(100) }))
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
    id
}

async fn inspect(d: &Daemon, body: Value) -> (u16, Value) {
    let (c, v, _) = d.post("/v1/scene_inspector", &body).await;
    (c, v)
}

#[tokio::test]
async fn screenshots_are_public_unique_and_expire() {
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__PUBLIC__TEMP_TTL_SECS", "4"),
            ("REELSMITH__PUBLIC__SWEEP_INTERVAL_SECS", "1"),
        ],
    );
    let id = scene_video(&d).await;

    let body = json!({ "id": id, "action": "screenshot_scene_280x498", "scene_id": 1,
                       "seek_seconds": 0.5, "return_base64": true });
    let (c, a) = inspect(&d, body.clone()).await;
    assert_eq!(c, 200, "{a}");
    assert_eq!(a["object"], "scene_inspector_result");
    assert_eq!(a["status"], "completed");
    assert_eq!(a["action"], "screenshot_scene_280x498");
    assert_eq!(a["topic_id"], id.as_str());
    assert!(a["request_id"].as_str().unwrap().starts_with("req_"));
    let r = &a["result"];
    assert_eq!(r["scene_id"], "1");
    assert_eq!(r["scene_index"], 0);
    assert!(r["voice_file"].as_str().is_some_and(|v| !v.is_empty()));
    let shot = &r["screenshot"];
    assert_eq!(shot["mime_type"], "image/jpeg");
    assert_eq!(
        (shot["width"].as_u64(), shot["height"].as_u64()),
        (Some(280), Some(498))
    );
    assert_eq!(shot["ttl_seconds"], 4);
    assert!(shot["expires_at"].as_str().unwrap().ends_with('Z'));
    let url = shot["url"].as_str().unwrap().to_string();
    // A 16-hex token names the file.
    let name = url.rsplit('/').next().unwrap();
    let token = name.strip_suffix(".jpg").unwrap();
    assert_eq!(token.len(), 16, "{url}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));

    // Public: no auth header.
    let plain = reqwest::Client::new();
    let resp = plain.get(&url).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let bytes = resp.bytes().await.unwrap();
    assert_eq!(bytes.len() as u64, shot["bytes"].as_u64().unwrap());
    assert_eq!(jpeg_size(&bytes), Some((280, 498)));

    // Unique per call, also by voice_file.
    let voice_file = r["voice_file"].as_str().unwrap();
    let (c, b) = inspect(
        &d,
        json!({ "id": id, "action": "screenshot_scene_280x498", "voice_file": voice_file }),
    )
    .await;
    assert_eq!(c, 200, "{b}");
    assert_eq!(b["result"]["scene_id"], "1");
    assert_ne!(b["result"]["screenshot"]["url"], url.as_str());

    // Gone after its lifetime: 410 at once, deleted by the sweeper soon after.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let resp = plain.get(&url).send().await.unwrap();
    assert!(
        matches!(resp.status().as_u16(), 404 | 410),
        "{}",
        resp.status()
    );
    let on_disk = d.data_dir().join("public/tmp/shots").join(name);
    let start = std::time::Instant::now();
    while on_disk.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "sweeper left {on_disk:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn inspector_errors_and_live_editor_actions() {
    let d = Daemon::start(BIN, &[]);
    let id = scene_video(&d).await;

    // Live-editor actions answer the unavailable envelope with 200.
    let (c, v) = inspect(&d, json!({ "id": id, "action": "get_preview_state" })).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["status"], "unavailable");
    assert_eq!(v["code"], "no_live_editor");

    let cases = [
        (
            json!({ "id": id, "action": "run_js" }),
            400,
            "invalid_action",
        ),
        (json!({ "action": "overlay_poster" }), 400, "missing_field"),
        (
            json!({ "id": "wcAAAAAAAAAAAAAAAAAAAAAA", "action": "screenshot_scene_280x498", "scene_id": 1 }),
            404,
            "video_not_found",
        ),
        (
            json!({ "id": id, "action": "screenshot_scene_280x498", "scene_id": 99 }),
            404,
            "scene_not_found",
        ),
        (
            json!({ "id": id, "action": "screenshot_scene_280x498", "voice_file": "vnope" }),
            404,
            "scene_not_found",
        ),
        (
            json!({ "id": id, "action": "screenshot_scene_280x498" }),
            400,
            "missing_field",
        ),
        (
            json!({ "id": id, "action": "screenshot_scene_280x498", "scene_id": 1, "seek_seconds": "soon" }),
            400,
            "invalid_value",
        ),
    ];
    for (body, code, err) in cases {
        let (c, v) = inspect(&d, body.clone()).await;
        assert_eq!(
            (c, v["error"]["code"].as_str()),
            (code, Some(err)),
            "{body} → {v}"
        );
    }

    // Another account's video is not found.
    let (c, v) = d
        .http
        .post(d.url("/v1/scene_inspector"))
        .bearer_auth("rsk_wrong")
        .json(&json!({ "id": id, "action": "overlay_poster", "scene_id": 1 }))
        .send()
        .await
        .map(|r| (r.status().as_u16(), r))
        .unwrap();
    assert_eq!(c, 401, "{v:?}");
}
