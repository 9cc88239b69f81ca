//! Black-box: a render that fails on a bad input tells the client what failed in our own words.
//! The status object and the `video.failed` webhook never carry a server path, a Rust type name
//! or a library's message; the internal cause stays in the server log.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reelsmith_tests::{Daemon, Receiver, corrupt, fixture_files, h264_mp4, script};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(240);

/// Builds a scene-ready video with a webhook receiver as its callback.
async fn scene_video(d: &Daemon, receiver: &Receiver) -> String {
    let request = json!({ "script_text": script(100), "callback_url": receiver.url });
    d.scenes_ready(&request).await.id
}

/// Exports `id`, waits for the render to fail, and returns the status object and the
/// `video.failed` delivery.
async fn export_and_fail(d: &Daemon, receiver: &Receiver, id: &str) -> (Value, Value) {
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 202, "{v}");
    let status = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(status["status"], "failed", "{status}");
    let failed = first_delivery(receiver, |e| e["event_type"] == "video.failed").await;
    (status, failed)
}

/// The first webhook delivery `matches` accepts. A status changes in the transaction that
/// queues its event, so the delivery may still be on its way: it is waited for.
async fn first_delivery(receiver: &Receiver, matches: impl Fn(&Value) -> bool) -> Value {
    let start = std::time::Instant::now();
    loop {
        let found = receiver
            .deliveries()
            .iter()
            .map(|r| r.json())
            .find(|e| matches(e));
        if let Some(found) = found {
            return found;
        }
        assert!(start.elapsed() < LONG, "no such delivery");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Panics when `text` looks like it carries internals: a path, a Rust path or type name, or an
/// OS/library error.
fn assert_no_internals(text: &str, data_dir: &Path) {
    let data_dir = data_dir.display().to_string();
    assert!(!text.contains(&data_dir), "a server path leaked: {text}");
    assert!(!text.contains('/'), "something path-like leaked: {text}");
    assert!(!text.contains("::"), "a Rust path leaked: {text}");
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let type_like = word.len() > 5
            && word.starts_with(char::is_uppercase)
            && (word.ends_with("Error") || word.ends_with("Buf"));
        assert!(!type_like, "a type name leaked ({word}): {text}");
    }
    for library in [
        "os error",
        "No such file",
        "hound",
        "gstreamer",
        "usvg",
        "fontdue",
    ] {
        assert!(
            !text.contains(library),
            "a library message leaked ({library}): {text}"
        );
    }
}

/// Checks the failure reached the client as `code` with a clean message, on the status object
/// and in the webhook alike.
fn assert_clean_failure(status: &Value, event: &Value, code: &str, data_dir: &Path) {
    assert_eq!(status["error"]["code"], code, "{status}");
    let message = status["error"]["message"].as_str().expect("error.message");
    assert!(!message.is_empty());
    assert_no_internals(message, data_dir);
    // Everything else a client reads besides its own URLs: the error and the progress notes.
    for v in [status, &event["data"]] {
        assert_no_internals(&v["error"].to_string(), data_dir);
        assert_no_internals(&v["details"].to_string(), data_dir);
    }
    assert_eq!(event["data"]["error"], status["error"], "{event}");
}

fn video_dir(d: &Daemon, id: &str) -> PathBuf {
    d.data_dir().join("videos").join(id)
}

#[tokio::test]
async fn a_corrupt_background_image_fails_the_render_without_internals() {
    let receiver = Receiver::start(vec![]).await;
    let d = Daemon::start(BIN, &[]);
    let id = scene_video(&d, &receiver).await;
    let n = corrupt(
        &video_dir(&d, &id),
        &["_broll.png", "_broll.jpg", "_broll.jpeg", "_broll.webp"],
    );
    assert!(n > 0, "the video has no image backgrounds to corrupt");
    let (status, event) = export_and_fail(&d, &receiver, &id).await;
    assert_clean_failure(&status, &event, "render_failed", &d.data_dir());
    assert!(
        status["error"]["message"]
            .as_str()
            .unwrap()
            .contains("background image"),
        "{status}"
    );
}

#[tokio::test]
async fn a_corrupt_background_clip_fails_the_render_without_internals() {
    // Generated B-roll is stills only (placement moves stills), so the clip is the user's.
    let fixture = fixture_files(vec![("clip.mp4", "video/mp4", h264_mp4())]).await;
    let allow = format!("[\"{fixture}\"]");
    let receiver = Receiver::start(vec![]).await;
    let d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
    let id = scene_video(&d, &receiver).await;
    let url = format!("http://{fixture}/clip.mp4");
    let fields = json!([{ "field_name": "mediaUrl", "value": url }]);
    let (c, v, _) = d
        .post(
            "/v1/modify_scene",
            &json!({ "id": id, "by": "id", "value": 2, "fields": fields }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let n = corrupt(&video_dir(&d, &id), &[".mp4", ".webm", ".mov"]);
    assert!(n > 0, "the video has no clip backgrounds to corrupt");
    let (status, event) = export_and_fail(&d, &receiver, &id).await;
    assert_clean_failure(&status, &event, "render_failed", &d.data_dir());
}

#[tokio::test]
async fn a_broken_font_fails_the_render_without_internals() {
    // The daemon's assets are a private copy, so its fonts can be broken after the build.
    let assets = tempfile_assets();
    let receiver = Receiver::start(vec![]).await;
    let d = Daemon::start(
        BIN,
        &[(
            "REELSMITH__ASSETS_DIR",
            &format!("{:?}", assets.path().display().to_string()),
        )],
    );
    let id = scene_video(&d, &receiver).await;
    let n = corrupt(&assets.path().join("fonts"), &[".otf", ".ttf"]);
    assert!(n > 0);
    let (status, event) = export_and_fail(&d, &receiver, &id).await;
    assert_clean_failure(&status, &event, "render_failed", &d.data_dir());
    let message = status["error"]["message"].as_str().unwrap();
    assert!(message.contains("font"), "{message}");
    assert_no_internals(message, assets.path());
}

/// A copy of the repository's `assets/` (fonts and the B-roll library).
fn tempfile_assets() -> reelsmith_tests::tempfile::TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let dst = reelsmith_tests::tempfile::tempdir().unwrap();
    copy_dir(&src, dst.path());
    dst
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let to = dst.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

#[tokio::test]
async fn an_export_after_a_failed_render_renders_again() {
    let receiver = Receiver::start(vec![]).await;
    let d = Daemon::start(BIN, &[]);
    let id = scene_video(&d, &receiver).await;
    let dir = video_dir(&d, &id);
    let saved = tempfile_copy(&dir);
    let n = corrupt(
        &dir,
        &["_broll.png", "_broll.jpg", "_broll.jpeg", "_broll.webp"],
    );
    assert!(n > 0, "the video has no image backgrounds to corrupt");
    let (status, _) = export_and_fail(&d, &receiver, &id).await;
    assert_eq!(status["error"]["code"], "render_failed", "{status}");

    // The inputs are whole again: the next export renders instead of answering the failure.
    for (path, bytes) in saved {
        std::fs::write(path, bytes).unwrap();
    }
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!((c, v["status"].as_str()), (202, Some("processing")), "{v}");
    assert!(v.get("error").is_none_or(Value::is_null), "{v}");
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(
        done["result"]["video_url"]
            .as_str()
            .unwrap()
            .ends_with(".mp4")
    );
    let is_completed = |e: &Value| {
        e["event_type"] == "video.completed" && !e["data"]["result"]["video_url"].is_null()
    };
    first_delivery(&receiver, is_completed).await;
    let completed = receiver
        .deliveries()
        .iter()
        .map(|r| r.json())
        .filter(is_completed)
        .count();
    assert_eq!(
        completed, 1,
        "video.completed fires once for the new render"
    );
}

/// Every file of `dir` with its bytes.
fn tempfile_copy(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}
