//! Black-box tests of the render core's HTTP surface: `scene_inspector` stills (screenshots and
//! overlay posters) with their public, expiring URLs.

use std::path::{Path, PathBuf};
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
        if matches!(marker, 0xc0..=0xc2) {
            let h = u16::from_be_bytes([b[i + 5], b[i + 6]]);
            let w = u16::from_be_bytes([b[i + 7], b[i + 8]]);
            return Some((w, h));
        }
        i += 2 + len;
    }
    None
}

/// A video of a 100-word script, ready for review (the default output type).
async fn scene_video(d: &Daemon) -> String {
    d.scenes_ready(&json!({ "script_text": script(100) }))
        .await
        .id
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
    assert_eq!(resp.headers()["x-content-type-options"], "nosniff");
    assert!(
        resp.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("sandbox")
    );
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

/// Top-level MP4 boxes in order, with the movie duration in seconds from `mvhd`.
fn mp4_layout(b: &[u8]) -> (Vec<String>, f64) {
    let (mut boxes, mut seconds, mut i) = (Vec::new(), 0.0, 0usize);
    while i + 8 <= b.len() {
        let size = u32::from_be_bytes(b[i..i + 4].try_into().unwrap()) as usize;
        let kind = String::from_utf8_lossy(&b[i + 4..i + 8]).to_string();
        if kind == "moov" {
            // mvhd is the first child of moov in our files; version 0 layout.
            let m = i + 8;
            assert_eq!(&b[m + 4..m + 8], b"mvhd");
            let timescale = u32::from_be_bytes(b[m + 20..m + 24].try_into().unwrap());
            let duration = u32::from_be_bytes(b[m + 24..m + 28].try_into().unwrap());
            seconds = f64::from(duration) / f64::from(timescale);
        }
        boxes.push(kind);
        if size < 8 {
            break;
        }
        i += size;
    }
    (boxes, seconds)
}

/// `reelsmith render script.txt -o out.mp4` in `dir`, with a script of `words` words written
/// there; and the MP4's path.
fn render_script(dir: &Path, words: usize) -> (std::process::Command, PathBuf) {
    let script_file = dir.join("script.txt");
    std::fs::write(&script_file, script(words)).unwrap();
    let out = dir.join("out.mp4");
    let mut command = reelsmith_tests::reelsmith_command(BIN);
    command
        .arg("render")
        .arg(&script_file)
        .arg("-o")
        .arg(&out)
        .current_dir(dir);
    (command, out)
}

#[test]
fn render_command_turns_a_script_file_into_an_mp4() {
    let dir = tempfile::tempdir().unwrap();
    let (mut command, out) = render_script(dir.path(), 90);
    let status = command
        .arg("--faceless")
        .env("REELSMITH_LOG", "warn")
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&out).unwrap();
    let (boxes, seconds) = mp4_layout(&bytes);
    assert_eq!(boxes.first().map(String::as_str), Some("ftyp"), "{boxes:?}");
    let moov = boxes.iter().position(|b| b == "moov").expect("moov");
    let mdat = boxes.iter().position(|b| b == "mdat").expect("mdat");
    assert!(moov < mdat, "moov first (fast start): {boxes:?}");
    assert!(seconds > 15.0, "90 words take well over 15 s: {seconds}");
    // Nothing but the output is left behind in the working directory.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");

    // A bad input is a clear failure, not a crash.
    let short = dir.path().join("short.txt");
    std::fs::write(&short, "Too short to narrate.").unwrap();
    let o = reelsmith_tests::reelsmith_command(BIN)
        .arg("render")
        .arg(&short)
        .arg("-o")
        .arg(dir.path().join("x.mp4"))
        .env("REELSMITH_LOG", "warn")
        .output()
        .unwrap();
    assert_refused(&o, "script_too_short");
}

#[test]
fn render_command_with_two_lanes_encodes_two_runs_of_scenes_into_one_mp4() {
    let dir = tempfile::tempdir().unwrap();
    let (mut command, out) = render_script(dir.path(), 80);
    let o = command
        .env("REELSMITH__RENDER__LANES", "2")
        .env("REELSMITH_LOG", "info")
        .output()
        .unwrap();
    let log = reelsmith_tests::strip_colours(&String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{log}");
    assert!(
        log.contains("lanes=2"),
        "the render says it walked two runs: {log}"
    );
    let (boxes, seconds) = mp4_layout(&std::fs::read(&out).unwrap());
    assert!(boxes.contains(&"moov".to_string()), "{boxes:?}");
    assert!(seconds > 15.0, "80 words take over 15 s: {seconds}");
}

/// Whether a process has libav's codec library mapped.
fn maps_libav(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .expect("the process is alive")
        .contains("libavcodec")
}

#[tokio::test]
async fn rendering_a_script_keeps_libav_out_of_the_daemon() {
    // libav brings libavcodec and libavfilter with their whole tree of codec libraries, about
    // 45 MB resident for the daemon's life; a script's video needs none of them (its AAC is
    // encoded with voaacenc and checked with faad).
    let d = Daemon::start(BIN, &[]);
    let body = json!({ "script_text": script(80), "output_type": "video", "faceless": true });
    let (c, v, _) = d.post("/v1/create_video", &body).await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap();
    let done = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(!maps_libav(d.pid()), "libavcodec is mapped into the daemon");
}

#[tokio::test]
async fn rerender_replaces_the_mp4_of_exported_videos() {
    let mut d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(85), "output_type": "video", "faceless": true }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    let old = done["result"]["video_url"].as_str().unwrap().to_string();
    let videos = d.data_dir().join("public/videos");
    let old_file = videos.join(old.rsplit('/').next().unwrap());
    assert!(old_file.exists());
    assert!(d.terminate().success());

    let o = reelsmith_tests::reelsmith_command(BIN)
        .args(["rerender", "--all", "--data-dir"])
        .arg(d.data_dir())
        .env("REELSMITH_LOG", "warn")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Both --all and --topic, or neither, is a usage error.
    let o2 = reelsmith_tests::reelsmith_command(BIN)
        .args(["rerender", "--data-dir"])
        .arg(d.data_dir())
        .output()
        .unwrap();
    assert!(!o2.status.success());

    d.restart();
    let (c, now, _) = d.get(&format!("/v1/status/{id}")).await;
    assert_eq!(c, 200, "{now}");
    assert_eq!(now["status"], "completed");
    let new = now["result"]["video_url"].as_str().unwrap();
    assert_ne!(new, old, "a new file replaces the old one");
    // On the running daemon's origin (links are read on the current base), a new name; the old
    // file is gone, the new one is served.
    assert_eq!(
        new.rsplit_once('/').unwrap().0,
        format!("{}/media/videos", d.base)
    );
    assert!(!old_file.exists());
    let name = new.rsplit('/').next().unwrap();
    assert!(videos.join(name).exists());
    let resp = reqwest::get(d.url(&format!("/media/videos/{name}")))
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn rerender_with_two_jobs_replaces_every_video_once() {
    let mut d = Daemon::start(BIN, &[]);
    let mut videos = Vec::new();
    for words in [85, 95] {
        let body =
            json!({ "script_text": script(words), "output_type": "video", "faceless": true });
        let (c, v, _) = d.post("/v1/create_video", &body).await;
        assert_eq!(c, 202, "{v}");
        videos.push(v["id"].as_str().unwrap().to_string());
    }
    let mut before = Vec::new();
    for id in &videos {
        let done = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
        assert_eq!(done["status"], "completed", "{done}");
        before.push(done["result"]["video_url"].as_str().unwrap().to_string());
    }
    assert!(d.terminate().success());

    let o = reelsmith_tests::reelsmith_command(BIN)
        .args(["rerender", "--all", "--jobs", "2", "--data-dir"])
        .arg(d.data_dir())
        .env("REELSMITH_LOG", "warn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("re-rendered 2, failed or skipped 0"),
        "{stderr}"
    );

    d.restart();
    let public = d.data_dir().join("public/videos");
    for (id, old) in videos.iter().zip(&before) {
        let (c, now, _) = d.get(&format!("/v1/status/{id}")).await;
        assert_eq!(c, 200, "{now}");
        assert_eq!(now["status"], "completed", "{now}");
        let new = now["result"]["video_url"].as_str().unwrap();
        assert_ne!(new, old, "{id} has a new file");
        assert!(!public.join(old.rsplit('/').next().unwrap()).exists());
        assert!(public.join(new.rsplit('/').next().unwrap()).exists());
    }
}

#[test]
fn rerender_refuses_zero_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let o = reelsmith_tests::reelsmith_command(BIN)
        .args(["rerender", "--all", "--jobs", "0", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_refused(&o, "--jobs must be at least 1");
}

/// A scene video, its scene tree, and the `voice_file` of its first scene with an overlay.
async fn overlay_scene(d: &Daemon) -> (String, Value, String) {
    let id = scene_video(d).await;
    let tree = d.scene_tree(&id).await;
    let vf = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["remotion_spec_state"] == "ready")
        .and_then(|s| s["voice_file"].as_str())
        .unwrap_or_else(|| panic!("the hook scene has an overlay: {tree}"))
        .to_string();
    (id, tree, vf)
}

/// `overlay_poster` of scene `vf`: its status code and reply.
async fn overlay_poster(d: &Daemon, id: &str, vf: &Value) -> (u16, Value) {
    inspect(
        d,
        json!({ "id": id, "action": "overlay_poster", "voice_file": vf }),
    )
    .await
}

/// The poster URL of a successful `overlay_poster` reply, split at its token: (path, token).
fn poster_url(reply: &Value) -> (String, String) {
    let url = reply["result"]["overlay_poster"]["url"].as_str().unwrap();
    let (path, token) = url.split_once("?v=").expect("cache-busting token");
    (path.to_string(), token.to_string())
}

#[tokio::test]
async fn an_overlay_poster_is_a_preview_size_png_of_the_overlay_on_black() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, vf) = overlay_scene(&d).await;
    let (c, a) = overlay_poster(&d, &id, &json!(vf)).await;
    assert_eq!(c, 200, "{a}");
    assert_eq!(a["status"], "completed");
    let poster = &a["result"]["overlay_poster"];
    assert_eq!(poster["mime_type"], "image/png");
    assert_eq!(
        (poster["width"].as_u64(), poster["height"].as_u64()),
        (Some(280), Some(498))
    );
    assert_eq!(poster["ttl_seconds"], 900);
    let checklist = a["result"]["review_checklist"].as_str().unwrap();
    assert_eq!(checklist.lines().count(), 8, "{checklist}");
    let png = reqwest::get(poster["url"].as_str().unwrap())
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let img = tiny_skia::Pixmap::decode_png(&png).unwrap();
    assert_eq!((img.width(), img.height()), (280, 498));
    let corner = img.pixel(0, 0).unwrap();
    assert_eq!((corner.red(), corner.green(), corner.blue()), (0, 0, 0));
    assert!(
        img.pixels()
            .iter()
            .any(|p| p.red() > 40 || p.green() > 40 || p.blue() > 40),
        "the overlay shows"
    );
}

#[tokio::test]
async fn an_overlay_poster_keeps_its_name_and_gets_a_new_token_on_each_write() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, vf) = overlay_scene(&d).await;
    let (_, a) = overlay_poster(&d, &id, &json!(vf)).await;
    let (path1, v1) = poster_url(&a);
    assert!(path1.ends_with(&format!("{vf}_poster.png")), "{path1}");
    let (_, b) = overlay_poster(&d, &id, &json!(vf)).await;
    let (path2, v2) = poster_url(&b);
    assert_eq!(path1, path2, "stable per scene");
    assert_ne!(v1, v2, "a new token on each write");
}

#[tokio::test]
async fn geometry_and_video_data_diagnostics_point_at_the_published_poster() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, vf) = overlay_scene(&d).await;
    let (_, a) = overlay_poster(&d, &id, &json!(vf)).await;
    let (path, _) = poster_url(&a);
    let (c, g, _) = d
        .post(
            "/v1/scene_geometry",
            &json!({ "id": id, "voice_file": vf, "include_diagnostics": true }),
        )
        .await;
    assert_eq!(c, 200, "{g}");
    assert_eq!(g["remotion_spec"]["remotion_poster_state"], "ready", "{g}");
    let gurl = g["remotion_spec"]["remotion_poster_url"].as_str().unwrap();
    assert_eq!(gurl.split_once("?v=").unwrap().0, path);
    let (c, v, _) = d
        .post(
            "/v1/video_data",
            &json!({ "video_id": id, "include_diagnostics": true }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let tree: Value = reqwest::get(v["data"]["url"].as_str().unwrap())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let seg = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["voice_file"] == vf.as_str())
        .unwrap();
    assert_eq!(seg["remotion_poster_state"], "ready", "{seg}");
    let vurl = seg["remotion_poster_url"].as_str().unwrap();
    assert_eq!(vurl.split_once("?v=").unwrap().0, path);
}

#[tokio::test]
async fn a_scene_without_an_overlay_has_no_poster() {
    let d = Daemon::start(BIN, &[]);
    let (id, tree, _) = overlay_scene(&d).await;
    let plain = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["remotion_spec_state"] == "missing")
        .unwrap_or_else(|| panic!("a scene without an overlay: {tree}"));
    let (c, v) = overlay_poster(&d, &id, &plain["voice_file"]).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (409, Some("overlay_not_available")),
        "{v}"
    );
}

#[tokio::test]
async fn disabling_the_overlay_takes_the_poster_away_but_not_the_screenshot() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, vf) = overlay_scene(&d).await;
    let (c, v, _) = d
        .post(
            "/v1/modify_scene",
            &json!({ "id": id, "by": "voice_file", "value": vf,
                     "fields": [{ "field_name": "disable_overlay", "value": true }] }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let (c, v) = overlay_poster(&d, &id, &json!(vf)).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (409, Some("overlay_not_available")),
        "{v}"
    );
    let (c, v) = inspect(
        &d,
        json!({ "id": id, "action": "screenshot_scene_280x498", "voice_file": vf }),
    )
    .await;
    assert_eq!(c, 200, "{v}");
}

/// A command that failed and said `reason` on stderr.
fn assert_refused(o: &std::process::Output, reason: &str) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "succeeded: {stderr}");
    assert!(stderr.contains(reason), "{stderr}");
}
