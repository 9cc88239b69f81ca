//! Media in, black-box: `upload_asset` in its three shapes with hostile input, presigned PUTs
//! (expired, tampered, replayed), the expiring-asset sweeper, and videos made from a generated
//! speech WAV (espeak-ng) and a generated MP4 (GStreamer test sources) served by a local
//! fixture server that `fetch.allow` permits, plus a fake OpenAI-compatible transcription
//! server for the connector.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reelsmith_tests::bytes::Bytes;
use reelsmith_tests::warp::{self, Filter};
use reelsmith_tests::{Daemon, fixture_files, split, tempfile};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(300);

/// A real 2×2 PNG (71 bytes): image assets are decoded before they are stored.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x08\x02\x00\x00\x00\xfd\xd4\x9a\x73\x00\x00\x00\x0eIDAT\x78\x9c\x63\x68\x00\x03\x06\x08\x05\x00\x2a\x0e\x06\x01\x15\x9e\x42\xd7\x00\x00\x00\x00IEND\xae\x42\x60\x82";

// ------------------------------------------------------------------ helpers

/// A multipart/form-data body: text fields, then optional file parts
/// `(field, filename, content_type, bytes)`.
fn multipart(fields: &[(&str, &str)], files: &[(&str, &str, &str, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "----reelsmith-test-boundary-7d2f";
    let mut b = Vec::new();
    for (k, v) in fields {
        b.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n")
                .as_bytes(),
        );
    }
    for (field, filename, ct, bytes) in files {
        b.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{filename}\"\r\nContent-Type: {ct}\r\n\r\n"
            )
            .as_bytes(),
        );
        b.extend_from_slice(bytes);
        b.extend_from_slice(b"\r\n");
    }
    b.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), b)
}

async fn post_multipart(
    d: &Daemon,
    path: &str,
    fields: &[(&str, &str)],
    files: &[(&str, &str, &str, &[u8])],
) -> (u16, Value) {
    let (ct, body) = multipart(fields, files);
    let r = d
        .http
        .post(d.url(path))
        .bearer_auth(&d.key)
        .header("content-type", ct)
        .body(body)
        .send()
        .await
        .expect("sent");
    let (c, v, _) = split(r).await;
    (c, v)
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// A local server for fixture files: path → (bytes, content type).
async fn file_server(files: HashMap<String, (Bytes, &'static str)>) -> String {
    fixture_files(files.into_iter().map(|(p, (b, t))| (p, t, b))).await
}

const SPEECH: &str = "Welcome to the studio. Today we turn a short recording into a finished \
    video. The narration is cut into scenes at every pause. Thank you for watching and see you \
    next time.";

/// About 12 s of English speech from the espeak-ng command line.
fn speech_wav(dir: &Path) -> PathBuf {
    let out = dir.join("speech.wav");
    let ok = Command::new("espeak-ng")
        .args(["-s", "150", "-w"])
        .arg(&out)
        .arg(SPEECH)
        .status()
        .expect("espeak-ng runs");
    assert!(ok.success());
    out
}

/// A 10 s 320×568 H.264/AAC MP4 from GStreamer's test source, with `wav` as its sound.
fn test_mp4(dir: &Path, wav: &Path) -> PathBuf {
    let out = dir.join("clip.mp4");
    let ok = Command::new("gst-launch-1.0")
        .args([
            "-q",
            "-e",
            "videotestsrc",
            "pattern=ball",
            "num-buffers=300",
            "!",
        ])
        .args(["video/x-raw,width=320,height=568,framerate=30/1", "!"])
        .args(["x264enc", "speed-preset=ultrafast", "!", "h264parse", "!"])
        .args(["mp4mux", "name=m", "!", "filesink"])
        .arg(format!("location={}", out.display()))
        .args(["filesrc"])
        .arg(format!("location={}", wav.display()))
        .args([
            "!",
            "wavparse",
            "!",
            "audioconvert",
            "!",
            "audioresample",
            "!",
        ])
        .args(["avenc_aac", "!", "aacparse", "!", "m."])
        .status()
        .expect("gst-launch-1.0 runs");
    assert!(ok.success());
    out
}

/// A WAV of `secs` seconds of a quiet tone, 8 kHz mono.
fn long_wav(secs: u32) -> Vec<u8> {
    let rate = 8000u32;
    let n = secs * rate;
    let mut b = Vec::with_capacity(44 + n as usize * 2);
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + n * 2).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 2).to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&(n * 2).to_le_bytes());
    for i in 0..n {
        let s = ((i as f64 * 0.3).sin() * 3000.0) as i16;
        b.extend_from_slice(&s.to_le_bytes());
    }
    b
}

// ------------------------------------------------------------------ upload_asset

/// A daemon that takes assets of up to 1000 bytes, with presigned PUT URLs valid for 5 s.
fn asset_daemon() -> Daemon {
    Daemon::start(
        BIN,
        &[
            ("REELSMITH__MEDIA__ASSET_MAX_BYTES", "1000"),
            ("REELSMITH__MEDIA__PRESIGN_TTL_SECS", "5"),
        ],
    )
}

/// A presigned upload of a PNG called `filename`.
async fn presign(d: &Daemon, filename: &str) -> Value {
    let body = json!({ "mode": "presign", "filename": filename, "content_type": "image/png" });
    let (c, p, _) = d.post("/v1/upload_asset", &body).await;
    assert_eq!(c, 200, "{p}");
    p
}

/// A plain PUT of `body` to `url`, with no headers of ours.
async fn put(url: &str, body: &[u8]) -> (u16, Value) {
    let r = reqwest::Client::new()
        .put(url)
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    let (c, v, _) = split(r).await;
    (c, v)
}

#[tokio::test]
async fn a_multipart_upload_gets_a_safe_name_and_a_public_unguessable_url() {
    let d = asset_daemon();
    let (c, v) = post_multipart(
        &d,
        "/v1/upload_asset",
        &[],
        &[("file", "../../etc/evil name.png", "image/png", PNG)],
    )
    .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["object"], "asset");
    assert_eq!(v["content_type"], "image/png");
    assert_eq!(v["size_bytes"], PNG.len());
    assert_eq!(v["filename"], "evil_name.png");
    assert_eq!(v["ttl_hours"], 24);
    assert!(v["expires_at"].as_str().unwrap().ends_with('Z'));
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"));
    let url = v["url"].as_str().unwrap().to_string();
    let rest = url
        .strip_prefix(&format!("{}/media/assets/", d.base))
        .unwrap_or_else(|| panic!("{url}"));
    let (token, name) = rest.split_once('/').unwrap();
    assert_eq!(token.len(), 32, "unguessable folder");
    assert_eq!(name, "evil_name.png");
    // Public: no auth, the exact bytes, the type from the extension.
    let got = reqwest::get(&url).await.unwrap();
    assert_eq!(got.status(), 200);
    assert_eq!(got.headers()["content-type"], "image/png");
    assert_eq!(got.bytes().await.unwrap().as_ref(), PNG);
    assert!(!d.data_dir().join("etc").exists());
}

#[tokio::test]
async fn bad_multipart_uploads_are_refused_and_leave_nothing_behind() {
    let d = asset_daemon();
    for (files, want) in [
        (
            vec![("file", "run.exe", "application/x-msdownload", PNG)],
            "unsupported_asset_type",
        ),
        (
            vec![("file", "empty.png", "image/png", &b""[..])],
            "invalid_file_data",
        ),
        (
            vec![("file", "big.png", "image/png", &[7u8; 2000][..])],
            "asset_too_large",
        ),
        (vec![("other", "x.png", "image/png", PNG)], "missing_field"),
    ] {
        let (c, v) = post_multipart(&d, "/v1/upload_asset", &[], &files).await;
        assert_eq!((c, code(&v)), (400, want), "{v}");
    }
    let text = |r: reqwest::RequestBuilder| r.header("content-type", "text/plain").body("hello");
    let r = text(d.http.post(d.url("/v1/upload_asset")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = text(d.http.post(d.url("/v1/upload_asset")).bearer_auth(&d.key))
        .send()
        .await
        .unwrap();
    let (c, v, _) = split(r).await;
    assert_eq!((c, code(&v)), (400, "invalid_content_type"), "{v}");
    let leftovers: Vec<_> = std::fs::read_dir(d.data_dir().join("uploads"))
        .map(|r| r.flatten().filter(|e| e.path().is_file()).collect())
        .unwrap_or_default();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn a_base64_upload_drops_the_data_prefix_and_is_typed_by_its_extension() {
    let d = asset_daemon();
    let body = json!({ "file_data": "data:text/markdown;base64,IyBIZWxsbwo=", "filename": "notes/readme.md" });
    let (c, v, _) = d.post("/v1/upload_asset", &body).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["object"], "asset");
    assert_eq!(v["content_type"], "text/markdown");
    assert_eq!(v["filename"], "readme.md");
    assert_eq!(v["size_bytes"], 8);
    let body = reqwest::get(v["url"].as_str().unwrap()).await.unwrap();
    assert_eq!(body.text().await.unwrap(), "# Hello\n");
}

#[tokio::test]
async fn bad_base64_uploads_are_refused_with_their_codes() {
    let d = asset_daemon();
    for (body, want) in [
        (
            json!({ "file_data": "not base64!!", "filename": "a.png" }),
            "invalid_file_data",
        ),
        (
            json!({ "file_data": "====", "filename": "a.png" }),
            "invalid_file_data",
        ),
        // A zero-byte file is bad data, not a missing field (spec: invalid_file_data).
        (
            json!({ "file_data": "", "filename": "a.png" }),
            "invalid_file_data",
        ),
        (json!({ "filename": "a.png" }), "missing_field"),
        (json!({ "file_data": "aGVsbG8=" }), "missing_field"),
        (
            json!({ "file_data": "aGVsbG8=", "filename": "a.sh" }),
            "unsupported_asset_type",
        ),
        (
            json!({ "file_data": "A".repeat(2000), "filename": "big.png" }),
            "asset_too_large",
        ),
    ] {
        let (c, v, _) = d.post("/v1/upload_asset", &body).await;
        assert_eq!((c, code(&v)), (400, want), "{body} → {v}");
    }
}

#[tokio::test]
async fn a_presigned_url_takes_one_plain_put_and_serves_its_bytes() {
    let d = asset_daemon();
    let p = presign(&d, "/tmp/../my clip.png").await;
    assert_eq!(p["object"], "asset_presign");
    assert_eq!(p["filename"], "my_clip.png");
    assert_eq!(p["content_type"], "image/png");
    assert_eq!(p["headers_required"], json!({}));
    assert_eq!(p["max_bytes"], 1000);
    assert_eq!(p["ttl_hours"], 24);
    assert_eq!(p["url"], p["get_url"]);
    let key = p["key"].as_str().unwrap();
    assert!(key.starts_with("assets/"));
    assert!(p["url"].as_str().unwrap().ends_with(key));
    assert!(p["put_expires_at"].as_str().unwrap() < p["expires_at"].as_str().unwrap());
    let (put_url, get_url) = (
        p["put_url"].as_str().unwrap(),
        p["get_url"].as_str().unwrap(),
    );
    assert_eq!(
        reqwest::get(get_url).await.unwrap().status(),
        404,
        "nothing before the PUT"
    );
    let (c, v) = put(put_url, PNG).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["object"], "asset");
    assert_eq!(v["url"], get_url);
    let got = reqwest::get(get_url).await.unwrap();
    assert_eq!(got.status(), 200);
    assert_eq!(got.bytes().await.unwrap().as_ref(), PNG);
    // Replayed: refused, and the stored bytes stay.
    let (c, v) = put(put_url, b"again").await;
    assert_eq!((c, code(&v)), (409, "presign_used"), "{v}");
    let kept = reqwest::get(get_url).await.unwrap().bytes().await.unwrap();
    assert_eq!(kept.as_ref(), PNG);
}

#[tokio::test]
async fn a_tampered_presigned_url_is_refused() {
    let d = asset_daemon();
    let p = presign(&d, "my clip.png").await;
    let put_url = p["put_url"].as_str().unwrap();
    // A longer expiry, a bigger cap, another name, a broken signature, no signature.
    for bad in [
        put_url.replace("&exp=", "&exp=9"),
        put_url.replace("max=1000", "max=99999999"),
        put_url.replace("my_clip.png", "other.png"),
        format!("{put_url}0"),
        put_url.split('?').next().unwrap().to_string(),
    ] {
        let (c, v) = put(&bad, b"bytes").await;
        assert_eq!((c, code(&v)), (400, "presign_invalid"), "{bad} → {v}");
    }
    let (c, v) = put(put_url, PNG).await;
    assert_eq!(c, 200, "the real URL still works: {v}");
}

#[tokio::test]
async fn a_presigned_put_too_big_or_not_the_named_type_is_refused_and_the_url_stays_usable() {
    let d = asset_daemon();
    let put_url = presign(&d, "my clip.png").await["put_url"]
        .as_str()
        .unwrap()
        .to_string();
    let (c, v) = put(&put_url, &[1u8; 1001]).await;
    assert_eq!((c, code(&v)), (400, "asset_too_large"), "{v}");
    let (c, v) = put(&put_url, b"not a png").await;
    assert_eq!((c, code(&v)), (400, "invalid_file_data"), "{v}");
    let (c, v) = put(&put_url, PNG).await;
    assert_eq!(c, 200, "{v}");
}

#[tokio::test]
async fn an_expired_presigned_url_is_refused() {
    let d = asset_daemon();
    let p = presign(&d, "late.wav").await;
    tokio::time::sleep(Duration::from_millis(5500)).await;
    let (c, v) = put(p["put_url"].as_str().unwrap(), b"late").await;
    assert_eq!((c, code(&v)), (400, "presign_expired"), "{v}");
}

#[tokio::test]
async fn a_presign_request_without_a_name_or_of_a_refused_type_is_refused() {
    let d = asset_daemon();
    for (body, want) in [
        (json!({ "mode": "presign" }), "missing_field"),
        (
            json!({ "mode": "presign", "filename": "x.dll" }),
            "unsupported_asset_type",
        ),
    ] {
        let (c, v, _) = d.post("/v1/upload_asset", &body).await;
        assert_eq!((c, code(&v)), (400, want), "{body} → {v}");
    }
}

#[tokio::test]
async fn a_form_of_many_parts_is_refused() {
    let d = Daemon::start(BIN, &[]);
    let names: Vec<String> = (0..40).map(|i| format!("x{i}")).collect();
    let fields: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "1")).collect();
    let (c, v) = post_multipart(&d, "/v1/upload_asset", &fields, &[]).await;
    assert_eq!((c, code(&v)), (413, "payload_too_large"), "{v}");
}

#[tokio::test]
async fn expired_assets_answer_410_and_the_sweeper_deletes_them() {
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__PUBLIC__ASSET_TTL_SECS", "2"),
            ("REELSMITH__PUBLIC__SWEEP_INTERVAL_SECS", "1"),
        ],
    );
    let (c, v, _) = d
        .post(
            "/v1/upload_asset",
            &json!({ "file_data": "aGVsbG8=", "filename": "hello.md" }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let url = v["url"].as_str().unwrap().to_string();
    let rel = url.split("/media/").nth(1).unwrap().to_string();
    let file = d.data_dir().join("public").join(&rel);
    assert!(file.exists());
    assert_eq!(reqwest::get(&url).await.unwrap().status(), 200);
    let start = Instant::now();
    while file.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "sweeper never ran"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let gone = reqwest::get(&url).await.unwrap().status().as_u16();
    assert!(gone == 404 || gone == 410, "{gone}");
}

// ------------------------------------------------------------------ videos from media

#[tokio::test]
async fn speech_wav_and_test_mp4_become_videos() {
    let tmp = tempfile::tempdir().unwrap();
    let wav = speech_wav(tmp.path());
    let mp4 = test_mp4(tmp.path(), &wav);
    let mut files = HashMap::new();
    files.insert(
        "speech.wav".to_string(),
        (Bytes::from(std::fs::read(&wav).unwrap()), "audio/wav"),
    );
    files.insert(
        "clip.mp4".to_string(),
        (Bytes::from(std::fs::read(&mp4).unwrap()), "video/mp4"),
    );
    // A video-sharing page exposing its file through og:video.
    files.insert(
        "watch/42".to_string(),
        (
            Bytes::from_static(
                b"<!doctype html><html><head><meta property=\"og:video\" content=\"/clip.mp4\"></head><body>A video</body></html>",
            ),
            "text/html; charset=utf-8",
        ),
    );
    let server = file_server(files).await;
    let allow = format!("[\"{server}\"]");
    let d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);

    // Audio URL with loudness normalisation, straight to the MP4; faceless is allowed here.
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({
                "source": "audio_url",
                "audio_url": format!("http://{server}/speech.wav"),
                "output_type": "video",
                "faceless": true,
                "adjust": { "mode": "normalize", "target_lufs": -16 },
            }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let audio_id = v["id"].as_str().unwrap().to_string();

    // A video-sharing page URL, resolved to its MP4; scenes for review.
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "source": "video_url", "video_url": format!("http://{server}/watch/42") }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let video_id = v["id"].as_str().unwrap().to_string();

    let done = d
        .wait_for(&audio_id, LONG, |v| v["status"] != "processing")
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let video_url = done["result"]["video_url"].as_str().unwrap();
    let bytes = reqwest::get(video_url)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert!(bytes.len() > 10_000);
    assert_eq!(&bytes[4..8], b"ftyp");

    let done = d
        .wait_for(&video_id, LONG, |v| v["status"] != "processing")
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["stage"], "scenes_ready_for_review");
    let page = d
        .http
        .get(done["result"]["review_url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("A-roll"), "the video's picture is the A-roll");
    // The source and its per-scene narration live in the video's folder.
    let dir = d.data_dir().join("videos").join(&video_id);
    assert!(dir.join("source.mp4").exists());
    let wavs = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".wav"))
        .count();
    assert!(wavs >= 1);

    // Export renders the video source too.
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": video_id })).await;
    assert_eq!(c, 202, "{v}");
    let done = d
        .wait_for(&video_id, LONG, |v| v["status"] != "processing")
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(
        done["result"]["video_url"]
            .as_str()
            .unwrap()
            .ends_with(".mp4")
    );
}

/// The scene tree `video_data` publishes for `id`.
async fn scene_tree(d: &Daemon, id: &str) -> Vec<Value> {
    let (c, env, _) = d.post("/v1/video_data", &json!({ "video_id": id })).await;
    assert_eq!(c, 200, "{env}");
    let url = env["data"]["url"].as_str().unwrap();
    let body = d.http.get(url).send().await.unwrap().bytes().await.unwrap();
    let tree: Value = serde_json::from_slice(&body).expect("tree is JSON");
    tree["segments"].as_array().expect("segments").clone()
}

/// Each scene's narration is published with its word sidecar: one timed word per word of
/// the scene's text, monotonic and inside the scene.
async fn assert_word_sidecars(d: &Daemon, segs: &[Value]) {
    for s in segs {
        let audio = s["audio_url"].as_str().unwrap();
        assert!(audio.ends_with(".wav"), "{s}");
        let r = d.http.get(audio).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 200, "{audio}");
        let r = d
            .http
            .get(audio.replace(".wav", "_words.json"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "{s}");
        let words: Vec<Value> = r.json().await.unwrap();
        let text: Vec<&str> = s["text"].as_str().unwrap().split_whitespace().collect();
        let said: Vec<&str> = words.iter().map(|w| w["word"].as_str().unwrap()).collect();
        assert_eq!(said, text);
        let duration = s["duration"].as_f64().unwrap();
        let mut prev = 0.0;
        for w in &words {
            let (a, b) = (w["start"].as_f64().unwrap(), w["end"].as_f64().unwrap());
            assert!(
                a >= prev - 1e-9 && b >= a && b <= duration + 1e-6,
                "{words:?}"
            );
            prev = b;
        }
    }
}

/// The scene types whose overlay scene building designs.
const OVERLAY_TYPES: &[&str] = &["HOOK", "STAT", "KEY POINT", "DATA", "CALL TO ACTION"];

/// Every scene with an overlay type and copy has a ready overlay spec; the opener is a HOOK.
fn assert_overlays(segs: &[Value]) {
    assert_eq!(segs[0]["scene_type"], "HOOK", "{:?}", segs[0]);
    for s in segs {
        let wants = OVERLAY_TYPES.contains(&s["scene_type"].as_str().unwrap());
        if wants && !s["quote"].as_str().unwrap().trim().is_empty() {
            assert_eq!(s["remotion_spec_state"], "ready", "{s}");
        }
    }
    assert_eq!(segs[0]["remotion_spec_state"], "ready");
}

#[tokio::test]
async fn media_sources_get_broll_overlays_and_word_sidecars_like_text_sources() {
    let tmp = tempfile::tempdir().unwrap();
    let wav = speech_wav(tmp.path());
    let mp4 = test_mp4(tmp.path(), &wav);
    let mut files = HashMap::new();
    files.insert(
        "speech.wav".to_string(),
        (Bytes::from(std::fs::read(&wav).unwrap()), "audio/wav"),
    );
    files.insert(
        "clip.mp4".to_string(),
        (Bytes::from(std::fs::read(&mp4).unwrap()), "video/mp4"),
    );
    let server = file_server(files).await;
    let allow = format!("[\"{server}\"]");
    let d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
    let audio_url = format!("http://{server}/speech.wav");
    let video_url = format!("http://{server}/clip.mp4");
    let mut ids = Vec::new();
    for (source, field, url) in [
        ("audio_url", "audio_url", &audio_url),
        ("video_url", "video_url", &video_url),
    ] {
        let (c, v, _) = d
            .post(
                "/v1/create_video",
                &json!({ "source": source, field: url, "output_type": "scene" }),
            )
            .await;
        assert_eq!(c, 202, "{v}");
        ids.push(v["id"].as_str().unwrap().to_string());
    }
    for id in &ids {
        let done = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
        assert_eq!(done["status"], "completed", "{done}");
    }

    // Audio: B-roll scenes with library visuals, overlays and word sidecars.
    let segs = scene_tree(&d, &ids[0]).await;
    assert!(!segs.is_empty());
    assert!(segs.iter().all(|s| s["type"] == "B-roll"), "{segs:?}");
    assert!(
        segs.iter().any(|s| s["broll_source"] == "library"),
        "library B-roll: {segs:?}"
    );
    for s in segs.iter().filter(|s| s["broll_source"] == "library") {
        let media = s["mediaUrl"].as_str().unwrap();
        assert_eq!(d.http.get(media).send().await.unwrap().status(), 200);
    }
    assert_overlays(&segs);
    assert_word_sidecars(&d, &segs).await;

    // Video: the source stays every scene's presenter, one slice each; overlays and sidecars.
    let segs = scene_tree(&d, &ids[1]).await;
    assert!(!segs.is_empty());
    let mut end = 0.0;
    for s in &segs {
        assert_eq!(s["type"], "A-roll", "{s}");
        assert_eq!(s["show_narrator"], true);
        assert_eq!(s["mediaType"], "video");
        assert_eq!(s["mediaUrl"], video_url.as_str());
        assert_eq!(s["broll_source"], "", "the presenter is the picture: {s}");
        let trim = &s["videoTrim"];
        assert!((trim["start"].as_f64().unwrap() - end).abs() < 1e-9, "{s}");
        end = trim["end"].as_f64().unwrap();
    }
    assert_overlays(&segs);
    assert_word_sidecars(&d, &segs).await;
}

/// The parts of a multipart/form-data body, parsed the plain way: (name, bytes).
fn parse_multipart(content_type: &str, body: &[u8]) -> Vec<(String, Vec<u8>)> {
    let Some(boundary) = content_type.split("boundary=").nth(1) else {
        return Vec::new();
    };
    let delim = format!("--{}", boundary.trim_matches('"'));
    let d = delim.as_bytes();
    let find = |hay: &[u8], needle: &[u8], from: usize| {
        (from..hay.len().saturating_sub(needle.len() - 1))
            .find(|&i| &hay[i..i + needle.len()] == needle)
    };
    let mut parts = Vec::new();
    let mut at = match find(body, d, 0) {
        Some(i) => i + d.len(),
        None => return parts,
    };
    while body[at..].starts_with(b"\r\n") {
        let head_end = match find(body, b"\r\n\r\n", at) {
            Some(i) => i,
            None => break,
        };
        let head = String::from_utf8_lossy(&body[at + 2..head_end]).into_owned();
        let next = match find(body, d, head_end) {
            Some(i) => i,
            None => break,
        };
        let data = body[head_end + 4..next - 2].to_vec();
        let name = head
            .split("name=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or("")
            .to_string();
        parts.push((name, data));
        at = next + d.len();
    }
    parts
}

/// A fake OpenAI-compatible `/v1/audio/transcriptions`: checks the multipart request the way
/// the real service parses it and answers `verbose_json` with word timings.
async fn fake_whisper(seen: Arc<Mutex<Vec<String>>>) -> String {
    let route = warp::path!("v1" / "audio" / "transcriptions")
        .and(warp::post())
        .and(warp::header::<String>("authorization"))
        .and(warp::header::<String>("content-type"))
        .and(warp::body::bytes())
        .map(move |auth: String, ct: String, body: Bytes| {
            let parts = parse_multipart(&ct, &body);
            let field = |n: &str| {
                parts
                    .iter()
                    .filter(|(k, _)| k == n)
                    .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
                    .collect::<Vec<_>>()
            };
            let file = parts
                .iter()
                .find(|(k, _)| k == "file")
                .map(|(_, v)| v.clone());
            let ok = auth == "Bearer sk-test"
                && field("model") == ["whisper-test"]
                && field("response_format") == ["verbose_json"]
                && field("timestamp_granularities[]").contains(&"word".to_string())
                && file
                    .as_ref()
                    .is_some_and(|f| f.starts_with(b"RIFF") && f.len() > 1000);
            seen.lock().unwrap().push(format!(
                "ok={ok} model={:?} format={:?} granularities={:?}",
                field("model"),
                field("response_format"),
                field("timestamp_granularities[]")
            ));
            if !ok {
                return warp::reply::with_status(
                    warp::reply::json(&json!({"error": {"message": "bad request"}})),
                    warp::http::StatusCode::BAD_REQUEST,
                );
            }
            let text = "Zanzibar quokkas dance at dawn. They sing loudly, then rest.";
            let words: Vec<Value> = text
                .split_whitespace()
                .enumerate()
                .map(|(i, w)| {
                    let bare: String = w.chars().filter(|c| c.is_alphanumeric()).collect();
                    let start = 0.3 + i as f64 * 0.6 + if i >= 5 { 1.5 } else { 0.0 };
                    json!({ "word": bare, "start": start, "end": start + 0.5 })
                })
                .collect();
            warp::reply::with_status(
                warp::reply::json(&json!({
                    "task": "transcribe", "language": "english", "duration": 11.9,
                    "text": text, "words": words,
                })),
                warp::http::StatusCode::OK,
            )
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(warp::serve(route).incoming(listener).run());
    addr.to_string()
}

#[tokio::test]
async fn remake_of_an_uploaded_file_through_the_transcription_connector() {
    let tmp = tempfile::tempdir().unwrap();
    let wav = std::fs::read(speech_wav(tmp.path())).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let whisper = fake_whisper(seen.clone()).await;
    let allow = format!("[\"{whisper}\"]");
    let base = format!("http://{whisper}/v1");
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__FETCH__ALLOW", &allow),
            ("REELSMITH__TRANSCRIPTION__PROVIDER", "openai"),
            ("REELSMITH__TRANSCRIPTION__BASE_URL", &base),
            ("REELSMITH__TRANSCRIPTION__MODEL", "whisper-test"),
            ("REELSMITH__TRANSCRIPTION__API_KEY", "sk-test"),
        ],
    );
    // Remake: output_type=text; the source is inferred from the file field.
    let (c, v) = post_multipart(
        &d,
        "/v1/create_video",
        &[
            ("output_type", "text"),
            ("adjust", "{\"mode\":\"trim_silence\"}"),
            ("metadata", "{\"k\":7}"),
        ],
        &[("audio_file", "talk.wav", "audio/wav", &wav)],
    )
    .await;
    assert_eq!(c, 202, "{v}");
    assert_eq!(v["metadata"]["k"], 7);
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|s| s.starts_with("ok=true")),
        "{:?}",
        seen.lock().unwrap()
    );
    let page = d
        .http
        .get(done["result"]["review_url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // The transcript, with the punctuation of `text`, is the script.
    assert!(page.contains("Zanzibar quokkas dance at dawn."), "{page}");
    // The upload was moved into the video's folder.
    assert!(
        d.data_dir()
            .join("videos")
            .join(&id)
            .join("source.wav")
            .exists()
    );
}

/// A daemon that takes uploads of up to 6 MB and may fetch from a file server holding a
/// 301 s WAV (`long.wav`), an MP3 that is text (`broken.mp3`) and an HTML page (`page`); and
/// that server's address.
async fn limits_daemon() -> (Daemon, String) {
    let mut files = HashMap::new();
    files.insert(
        "long.wav".to_string(),
        (Bytes::from(long_wav(301)), "audio/wav"),
    );
    files.insert(
        "broken.mp3".to_string(),
        (
            Bytes::from_static(b"this is not an mp3 at all, just text"),
            "audio/mpeg",
        ),
    );
    files.insert(
        "page".to_string(),
        (
            Bytes::from_static(b"<html><body><p>No media here</p></body></html>"),
            "text/html",
        ),
    );
    let server = file_server(files).await;
    let allow = format!("[\"{server}\"]");
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__FETCH__ALLOW", &allow),
            ("REELSMITH__MEDIA__UPLOAD_MAX_BYTES", "6000000"),
        ],
    );
    (d, server)
}

/// Waits for job `id` to fail, and returns its error code.
async fn failure_code(d: &Daemon, id: &str) -> String {
    let done = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "failed", "{done}");
    done["error"]["code"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn an_upload_too_long_too_big_or_missing_is_refused_at_once() {
    let (d, _) = limits_daemon().await;
    let long = long_wav(301);
    let (c, v) = post_multipart(
        &d,
        "/v1/create_video",
        &[("source", "audio_file")],
        &[("audio_file", "long.wav", "audio/wav", long.as_slice())],
    )
    .await;
    assert_eq!((c, code(&v)), (400, "media_too_long"), "{v}");
    assert_eq!(v["error"]["param"], "audio_file");
    // Over the upload cap (configured small here; 100 MB by default).
    let big = vec![0u8; 6_000_001];
    let (c, v) = post_multipart(
        &d,
        "/v1/create_video",
        &[],
        &[("video_file", "big.mp4", "video/mp4", &big)],
    )
    .await;
    assert_eq!((c, code(&v)), (400, "file_too_large"), "{v}");
    // Multipart without the file the source names.
    let (c, v) = post_multipart(&d, "/v1/create_video", &[("source", "video_file")], &[]).await;
    assert_eq!((c, code(&v)), (400, "missing_field"), "{v}");
}

#[tokio::test]
async fn bad_media_options_and_urls_are_refused_before_a_job_starts() {
    let (d, server) = limits_daemon().await;
    // adjust on a video source, out of range, faceless with a video source, a private host,
    // a page that is not media.
    for (body, want) in [
        (
            json!({ "source": "video_url", "video_url": format!("http://{server}/a.mp4"), "adjust": "normalize" }),
            "invalid_adjust",
        ),
        (
            json!({ "source": "audio_url", "audio_url": format!("http://{server}/a.mp3"), "adjust": { "target_lufs": -3 } }),
            "invalid_adjust",
        ),
        (
            json!({ "source": "video_url", "video_url": format!("http://{server}/a.mp4"), "faceless": true }),
            "invalid_faceless",
        ),
        (
            json!({ "source": "video_url", "video_url": "http://127.0.0.1:1/x.mp4" }),
            "unsupported_media_url",
        ),
        (
            json!({ "source": "video_url", "video_url": format!("http://{server}/page") }),
            "unsupported_media_url",
        ),
    ] {
        let (c, v, _) = d.post("/v1/create_video", &body).await;
        assert_eq!((c, code(&v)), (400, want), "{body} → {v}");
    }
}

/// A `secs` long 64×64 H.264 MP4 at 1 frame a second from GStreamer's test source; with
/// `fast_start` its `moov` box (the header stating the length) comes first, else last.
fn long_mp4(secs: u32, fast_start: bool) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("long.mp4");
    let ok = Command::new("gst-launch-1.0")
        .args(["-q", "-e", "videotestsrc"])
        .arg(format!("num-buffers={secs}"))
        .args(["!", "video/x-raw,width=64,height=64,framerate=1/1", "!"])
        .args(["x264enc", "speed-preset=ultrafast", "!", "h264parse", "!"])
        .arg("mp4mux")
        .arg(format!("faststart={fast_start}"))
        .args(["!", "filesink"])
        .arg(format!("location={}", out.display()))
        .status()
        .expect("gst-launch-1.0 runs");
    assert!(ok.success());
    std::fs::read(out).unwrap()
}

#[tokio::test]
async fn a_media_url_whose_header_states_over_300_s_is_refused_at_submission() {
    let server = fixture_files([
        ("long.wav", "audio/wav", long_wav(301)),
        // No extension: a media file too large to be taken for a page.
        ("recording", "audio/wav", long_wav(301)),
        ("fast.mp4", "video/mp4", long_mp4(301, true)),
        ("short.wav", "audio/wav", long_wav(20)),
    ])
    .await;
    let d = Daemon::start(
        BIN,
        &[("REELSMITH__FETCH__ALLOW", &format!("[\"{server}\"]"))],
    );
    for (source, file) in [
        ("audio_url", "long.wav"),
        ("audio_url", "recording"),
        ("video_url", "fast.mp4"),
    ] {
        let body = json!({ "source": source, source: format!("http://{server}/{file}") });
        let (c, v, _) = d.post("/v1/create_video", &body).await;
        assert_eq!((c, code(&v)), (400, "media_too_long"), "{file}: {v}");
        assert_eq!(v["error"]["param"], source, "{file}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("301.0 s"), "{file}: {message}");
    }
    // Within the cap by its header: accepted.
    let body = json!({ "source": "audio_url", "audio_url": format!("http://{server}/short.wav") });
    let (c, v, _) = d.post("/v1/create_video", &body).await;
    assert_eq!(c, 202, "{v}");
}

#[tokio::test]
async fn a_media_url_whose_header_comes_last_fails_its_job_with_media_too_long() {
    // `moov` after the media data: the length is learned only once the file is downloaded.
    let server = fixture_files([("late.mp4", "video/mp4", long_mp4(301, false))]).await;
    let d = Daemon::start(
        BIN,
        &[("REELSMITH__FETCH__ALLOW", &format!("[\"{server}\"]"))],
    );
    let body = json!({ "source": "video_url", "video_url": format!("http://{server}/late.mp4") });
    let (c, v, _) = d.post("/v1/create_video", &body).await;
    assert_eq!(c, 202, "{v}");
    assert_eq!(
        failure_code(&d, v["id"].as_str().unwrap()).await,
        "media_too_long"
    );
}

#[tokio::test]
async fn undecodable_media_by_url_or_upload_fails_its_job_and_the_daemon_stays_up() {
    let (d, server) = limits_daemon().await;
    let body = json!({ "source": "audio_url", "audio_url": format!("http://{server}/broken.mp3") });
    let (c, v, _) = d.post("/v1/create_video", &body).await;
    assert_eq!(c, 202, "{v}");
    let broken = v["id"].as_str().unwrap().to_string();
    let (c, v) = post_multipart(
        &d,
        "/v1/create_video",
        &[("source", "video_file")],
        &[(
            "video_file",
            "junk.mp4",
            "video/mp4",
            b"\0\0\0\x18ftypjunkjunkjunk",
        )],
    )
    .await;
    assert_eq!(c, 202, "{v}");
    let junk = v["id"].as_str().unwrap().to_string();
    for id in [broken, junk] {
        assert_eq!(failure_code(&d, &id).await, "media_decode_failed");
    }
    let (c, _, _) = d.get("/healthz").await;
    assert_eq!(c, 200);
}

#[tokio::test]
async fn leftover_uploads_are_removed_at_start() {
    let mut d = Daemon::start(BIN, &[]);
    let uploads = d.data_dir().join("uploads");
    std::fs::create_dir_all(&uploads).unwrap();
    // What a killed process leaves: a half-streamed upload and a stored file with no job.
    std::fs::write(uploads.join(".0123abcd.part"), b"half").unwrap();
    std::fs::write(
        uploads.join("0123abcd0123abcd0123abcd0123abcd.wav"),
        b"RIFF",
    )
    .unwrap();
    d.kill_and_restart();
    let left: Vec<_> = std::fs::read_dir(&uploads)
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            e.file_type().unwrap().is_file().then(|| e.file_name())
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A media server that sends `body` slowly (64 KiB every 20 ms) to each connection and counts
/// the bytes the network took; with `refuse_ranges` it answers a request for a part of the file
/// (`Range`) with 416. Returns `host:port` and the counter.
async fn slow_server(
    body: Vec<u8>,
    refuse_ranges: bool,
) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let body = Arc::new(body);
    let counter = sent.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let (body, counter) = (body.clone(), counter.clone());
            tokio::spawn(async move {
                let mut req = [0u8; 4096];
                let n = sock.read(&mut req).await.unwrap_or(0);
                let asked = String::from_utf8_lossy(&req[..n]).to_ascii_lowercase();
                if refuse_ranges && asked.contains("\r\nrange:") {
                    let refused = "HTTP/1.1 416 Range Not Satisfiable\r\ncontent-length: 0\r\n\
                                   connection: close\r\n\r\n";
                    let _ = sock.write_all(refused.as_bytes()).await;
                    return;
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: audio/wav\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                if sock.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for chunk in body.chunks(64 * 1024) {
                    if sock.write_all(chunk).await.is_err() {
                        return;
                    }
                    counter.fetch_add(chunk.len(), std::sync::atomic::Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            });
        }
    });
    (addr, sent)
}

/// A daemon that may fetch from `server`, and its answer to `create_video` of the server's
/// `/long.wav` as an `audio_url` source.
async fn submit_long_wav(server: &str) -> (Daemon, u16, Value) {
    let d = Daemon::start(
        BIN,
        &[("REELSMITH__FETCH__ALLOW", &format!("[\"{server}\"]"))],
    );
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "source": "audio_url", "audio_url": format!("http://{server}/long.wav") }),
        )
        .await;
    (d, c, v)
}

#[tokio::test]
async fn a_url_source_over_300_s_is_refused_at_submission_from_its_header_alone() {
    // 1200 s at 8 kHz: 19.2 MB, about 6 s to send at this server's pace.
    let body = long_wav(1200);
    let total = body.len();
    let (server, sent) = slow_server(body, false).await;
    let (_daemon, c, v) = submit_long_wav(&server).await;
    assert_eq!((c, code(&v)), (400, "media_too_long"), "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("1200.0 s"), "{message}");
    // Give the server time to notice the closed connection, then count.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let served = sent.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        served < total / 4,
        "{served} of {total} bytes were sent before the refusal"
    );
}

#[tokio::test]
async fn a_url_source_over_300_s_whose_head_is_not_served_at_submission_is_cut_at_its_header() {
    // The server refuses the submission's ranged read, so the job learns the length from the
    // download's first bytes.
    let body = long_wav(1200);
    let total = body.len();
    let (server, sent) = slow_server(body, true).await;
    let (d, c, v) = submit_long_wav(&server).await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], "media_too_long", "{done}");
    let message = done["error"]["message"].as_str().unwrap();
    assert!(message.contains("1200.0 s"), "{message}");
    // Give the server time to notice the closed connection, then count.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let served = sent.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        served < total / 4,
        "{served} of {total} bytes were sent before the refusal"
    );
    // Nothing of it was kept.
    let dir = d.data_dir().join("videos").join(&id);
    let kept: Vec<_> = std::fs::read_dir(&dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("source"))
                .collect()
        })
        .unwrap_or_default();
    assert!(kept.is_empty(), "{kept:?}");
}
