//! Media that cannot be decoded, black-box: every file of `tests/corpus/media/` (truncated,
//! zero-sized, huge declared sizes, a pixel bomb, mislabelled, polyglot; `generate.py` made
//! them) goes through every door media comes in — modify_scene's background swap (A), overlay
//! upload (B) and image element (M), upload_asset multipart, base64 and presigned PUT — and is
//! refused with a 4xx envelope, leaving the stored document as it was. A background that
//! breaks on disk after it was accepted gives a 422 still and a failed render whose message
//! names the scene, never a path or a library's words.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reelsmith_tests::{Daemon, fixture_files, png_bytes, split};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(240);

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/media");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("the corpus folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e != "py"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(files.len() >= 12, "the corpus is there: {}", files.len());
    files
}

/// A scene-ready video: (topic id, the voice_file of its first scene).
async fn modify(d: &Daemon, id: &str, voice_file: &str, field: &str, value: Value) -> (u16, Value) {
    let (c, v, _) = d
        .post(
            "/v1/modify_scene",
            &json!({ "id": id, "by": "voice_file", "value": voice_file,
                     "fields": [{ "field_name": field, "value": value }] }),
        )
        .await;
    (c, v)
}

/// The scenes of the stored document (video_data's tree without its own timestamps).
async fn scenes(d: &Daemon, id: &str) -> Value {
    let tree = d.scene_tree(id).await;
    tree.get("scenes")
        .or_else(|| tree.get("segments"))
        .cloned()
        .unwrap_or(tree)
}

/// A client-facing message with no internals: no path, no library or type name.
fn assert_plain(message: &str) {
    for leak in [
        "/", "\\", "Error", "gst", "PNG:", "JPEG:", "zune", "png::", ".part",
    ] {
        assert!(!message.contains(leak), "{leak:?} leaks in {message:?}");
    }
}

fn assert_refused(door: &str, name: &str, c: u16, v: &Value) {
    assert!((400..500).contains(&c), "{door} {name}: {c} {v}");
    let code = v["error"]["code"].as_str().unwrap_or("");
    assert!(!code.is_empty(), "{door} {name}: an envelope: {v}");
    assert_plain(v["error"]["message"].as_str().unwrap_or(""));
}

#[tokio::test]
async fn every_corpus_file_is_refused_at_every_door_and_nothing_changes() {
    let files = corpus();
    let fixture = fixture_files(
        files
            .iter()
            .map(|(n, b)| (format!("corpus/{n}"), "application/octet-stream", b.clone())),
    )
    .await;
    let d = Daemon::start(
        BIN,
        &[("REELSMITH__FETCH__ALLOW", &format!("[\"{fixture}\"]"))],
    );
    let (id, voice_file) = d.scenes_ready_video().await;
    let before = scenes(&d, &id).await;

    for (name, bytes) in &files {
        let url = format!("http://{fixture}/corpus/{name}");
        // modify_scene A, B and M.
        let (c, v) = modify(&d, &id, &voice_file, "mediaUrl", json!(url)).await;
        assert_refused("mediaUrl", name, c, &v);
        if !bytes.is_empty() {
            assert_eq!(v["error"]["code"], "media_decode_failed", "{name}: {v}");
        }
        let (c, v) = modify(
            &d,
            &id,
            &voice_file,
            "remotion.upload_overlay",
            json!({ "url": url }),
        )
        .await;
        assert_refused("upload_overlay", name, c, &v);
        let (c, v) = modify(
            &d,
            &id,
            &voice_file,
            "remotion.add_element",
            json!({ "kind": "image", "url": url, "position": "center" }),
        )
        .await;
        assert_refused("add_element", name, c, &v);

        // upload_asset: multipart, base64, presigned PUT.
        let boundary = "corpus-boundary-7d1f";
        let mut form = format!(
            "--{boundary}\r\ncontent-disposition: form-data; name=\"file\"; filename=\"{name}\"\r\ncontent-type: application/octet-stream\r\n\r\n"
        )
        .into_bytes();
        form.extend_from_slice(bytes);
        form.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let r = d
            .http
            .post(d.url("/v1/upload_asset"))
            .bearer_auth(&d.key)
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(form)
            .send()
            .await
            .unwrap();
        let (c, v, _) = split(r).await;
        assert_refused("multipart", name, c, &v);
        assert_eq!(v["error"]["code"], "invalid_file_data", "{name}: {v}");

        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        let (c, v, _) = d
            .post(
                "/v1/upload_asset",
                &json!({ "file_data": data, "filename": name }),
            )
            .await;
        assert_refused("base64", name, c, &v);
        assert_eq!(v["error"]["code"], "invalid_file_data", "{name}: {v}");

        let (c, p, _) = d
            .post(
                "/v1/upload_asset",
                &json!({ "mode": "presign", "filename": name }),
            )
            .await;
        assert_eq!(c, 200, "{p}");
        let r = reqwest::Client::new()
            .put(p["put_url"].as_str().unwrap())
            .body(bytes.clone())
            .send()
            .await
            .unwrap();
        let (c, v, _) = split(r).await;
        assert_refused("presigned PUT", name, c, &v);
        assert_eq!(v["error"]["code"], "invalid_file_data", "{name}: {v}");
        let got = reqwest::get(p["get_url"].as_str().unwrap()).await.unwrap();
        assert_eq!(got.status(), 404, "{name}: nothing was stored");
    }

    assert_eq!(
        scenes(&d, &id).await,
        before,
        "the stored document is unchanged"
    );
    // No refused file is left beside the scenes, in uploads or among the public assets.
    let leftovers = files_under(&d.data_dir().join("videos").join(&id))
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("media_") || n.starts_with(".media_") || n.ends_with(".part")
        })
        .chain(files_under(&d.data_dir().join("uploads")))
        .chain(files_under(&d.data_dir().join("public/assets")))
        .collect::<Vec<_>>();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // The scene still renders its stills.
    let (c, v) = screenshot(&d, &id, &voice_file).await;
    assert_eq!(c, 200, "{v}");
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

async fn screenshot(d: &Daemon, id: &str, voice_file: &str) -> (u16, Value) {
    let (c, v, _) = d
        .post(
            "/v1/scene_inspector",
            &json!({ "id": id, "action": "screenshot_scene_280x498", "voice_file": voice_file }),
        )
        .await;
    (c, v)
}

#[tokio::test]
async fn a_background_broken_on_disk_gives_a_422_still_and_preview_clip_and_a_clean_failed_render()
{
    let fixture = fixture_files([("good.png", "image/png", png_bytes(360, 640))]).await;
    let d = Daemon::start(
        BIN,
        &[("REELSMITH__FETCH__ALLOW", &format!("[\"{fixture}\"]"))],
    );
    let (id, voice_file) = d.scenes_ready_video().await;
    let (c, v) = modify(
        &d,
        &id,
        &voice_file,
        "mediaUrl",
        json!(format!("http://{fixture}/good.png")),
    )
    .await;
    assert_eq!((c, v["media_type"].as_str()), (200, Some("image")), "{v}");
    let (c, v) = screenshot(&d, &id, &voice_file).await;
    assert_eq!(c, 200, "{v}");

    // The accepted file is damaged behind the service's back.
    let media = files_under(&d.data_dir().join("videos").join(&id))
        .into_iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("media_")
        })
        .expect("the accepted background");
    std::fs::write(&media, &png_bytes(360, 640)[..40]).unwrap();
    // The broken file is named differently from the cached one only by its bytes: a fresh
    // daemon has no cache.
    let mut d = d;
    d.kill_and_restart();

    let (c, v) = screenshot(&d, &id, &voice_file).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (422, Some("media_decode_failed")),
        "{v}"
    );
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("scene 1"), "{message}");
    assert_plain(message);

    // The editor's preview clip of that scene: the same clean 422, not a server error.
    let (c, status, _) = d.get(&format!("/v1/status/{id}")).await;
    assert_eq!(c, 200, "{status}");
    let review = status["result"]["review_url"].as_str().unwrap();
    // The daemon restarted on another port: the link's path, on today's address.
    let path = &review[review.find("/app/").unwrap()..];
    let preview = path.replacen('?', &format!("/preview/{voice_file}?"), 1);
    let resp = d.http.post(d.url(&preview)).send().await.unwrap();
    let code = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{code} {e}: {text}"));
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (422, Some("media_decode_failed")),
        "{v}"
    );
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("scene 1"), "{message}");
    assert_plain(message);

    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 202, "{v}");
    let done = d
        .wait_for(&id, LONG, |v| {
            v["status"] == "failed" || v["status"] == "completed"
        })
        .await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], "render_failed", "{done}");
    let message = done["error"]["message"].as_str().unwrap();
    assert!(message.contains("scene 1"), "{message}");
    assert_plain(message);
}

/// A PNG of one flat colour.
fn flat_png(w: u32, h: u32, rgb: [u8; 3]) -> Vec<u8> {
    let mut pm = tiny_skia::Pixmap::new(w, h).unwrap();
    pm.fill(tiny_skia::Color::from_rgba8(rgb[0], rgb[1], rgb[2], 255));
    pm.encode_png().unwrap()
}

/// `GET …/still/{voice_file}` through the review link: status and body.
async fn editor_still(d: &Daemon, review: &str, voice_file: &str) -> (u16, Vec<u8>) {
    let still = review.replacen('?', &format!("/still/{voice_file}?"), 1);
    let r = d.http.get(&still).send().await.unwrap();
    (r.status().as_u16(), r.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn a_background_changed_on_disk_is_decoded_afresh_by_the_stills_of_a_running_daemon() {
    let fixture = fixture_files([("good.png", "image/png", png_bytes(360, 640))]).await;
    let d = Daemon::start(
        BIN,
        &[("REELSMITH__FETCH__ALLOW", &format!("[\"{fixture}\"]"))],
    );
    let ready = d
        .scenes_ready(
            &json!({ "script_text": reelsmith_tests::script(90), "output_type": "scene" }),
        )
        .await;
    let (id, voice_file, review) = (&ready.id, &ready.voice_files[0], &ready.review_url);
    let (c, v) = modify(
        &d,
        id,
        voice_file,
        "mediaUrl",
        json!(format!("http://{fixture}/good.png")),
    )
    .await;
    assert_eq!((c, v["media_type"].as_str()), (200, Some("image")), "{v}");
    let (c, v) = screenshot(&d, id, voice_file).await;
    assert_eq!(c, 200, "{v}");
    let (c, before) = editor_still(&d, review, voice_file).await;
    assert_eq!(c, 200);

    // Damaged behind the service's back, with no restart: both stills answer the README's 422.
    let media = files_under(&d.data_dir().join("videos").join(id))
        .into_iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("media_")
        })
        .expect("the accepted background");
    std::fs::write(&media, &png_bytes(360, 640)[..40]).unwrap();
    let (c, v) = screenshot(&d, id, voice_file).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (422, Some("media_decode_failed")),
        "{v}"
    );
    let (c, body) = editor_still(&d, review, voice_file).await;
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (422, Some("media_decode_failed")),
        "{v}"
    );

    // Replaced by another valid picture: the stills show it.
    std::fs::write(&media, flat_png(360, 640, [20, 180, 60])).unwrap();
    let (c, v) = screenshot(&d, id, voice_file).await;
    assert_eq!(c, 200, "{v}");
    let (c, after) = editor_still(&d, review, voice_file).await;
    assert_eq!(c, 200);
    assert_ne!(before, after, "the new picture, not the cached one");
}
