//! The editor at `review_url`, the read-only player and the live scene inspector, in a real
//! Chromium (`reelsmith_tests::browser`) against the real daemon. The tests find what a person
//! sees: elements by role and accessible name, by label or by visible text (never by CSS class);
//! `data-*` attributes only for values (a scene's `voice_file`). Screenshots of the editor and
//! the player land in the test output folder (`target/test-output`), and a failing test leaves
//! one of its page there.

use std::time::{Duration, Instant};

use reelsmith_tests::browser::{Browser, named, output_dir, role, roles, roles_in, text};
use reelsmith_tests::futures_util::{SinkExt, StreamExt};
use reelsmith_tests::tokio_tungstenite::{self, tungstenite::Message};
use reelsmith_tests::{Daemon, script};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(240);

/// A scene-ready video of an 80-word script: (topic id, review url, voice_files in order).
async fn scene_video(d: &Daemon) -> (String, String, Vec<String>) {
    let request = json!({ "script_text": script(80), "output_type": "scene" });
    let ready = d.scenes_ready(&request).await;
    (ready.id, ready.review_url, ready.voice_files)
}

async fn geometry(d: &Daemon, id: &str, voice_file: &str) -> Value {
    let (c, g, _) = d
        .post(
            "/v1/scene_geometry",
            &json!({ "id": id, "voice_file": voice_file }),
        )
        .await;
    assert_eq!(c, 200, "{g}");
    g
}

async fn inspect(d: &Daemon, id: &str, action: &str, extra: Value) -> (u16, Value) {
    let mut body = json!({ "id": id, "action": action });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().cloned().unwrap_or_default());
    let (c, v, _) = d.post("/v1/scene_inspector", &body).await;
    (c, v)
}

/// A scene-ready video opened in the editor: (topic id, review url, voice_files, browser).
async fn opened_editor(d: &Daemon) -> (String, String, Vec<String>, Browser) {
    let (id, review, scenes) = scene_video(d).await;
    let b = Browser::start().await;
    open_editor(&b, &review).await;
    (id, review, scenes, b)
}

/// Opens the editor and waits until the selected scene's still is shown with its boxes.
async fn open_editor(b: &Browser, review: &str) {
    b.client.goto(review).await.expect("open the review link");
    b.wait_for(
        &format!(
            "(i => i?.complete && i.naturalWidth === 280)({}) && {}",
            role("img", "Scene preview"),
            role("button", "Caption box")
        ),
        60,
    )
    .await;
}

/// The selected scene's still.
fn still() -> String {
    role("img", "Scene preview")
}

/// The stage's video while something plays.
fn playing_video() -> String {
    named("Preview playing")
}

/// The strip of scenes.
fn strip() -> String {
    role("navigation", "Scenes")
}

/// Scene `i`'s button (0-based) in the strip.
fn scene_button(i: usize) -> String {
    format!("{}[{i}]", roles_in(&strip(), "button"))
}

/// The `voice_file` of the scene the strip marks as the current one.
fn current_scene() -> String {
    format!(
        "{}.find(b => b.getAttribute('aria-current') === 'true')?.dataset.voiceFile",
        roles_in(&strip(), "button")
    )
}

/// The `voice_file`s of the strip's scenes, in order.
fn strip_order() -> String {
    format!(
        "{}.map(b => b.dataset.voiceFile)",
        roles_in(&strip(), "button")
    )
}

/// The narration text box of the selected scene.
fn narration() -> String {
    role("textbox", "Narration*")
}

/// What the fixed message area says about work under way or done ("" when nothing).
fn progress() -> String {
    format!("({}?.innerText ?? '')", role("status", "Progress"))
}

/// The first message that says something went wrong ("" when none).
fn alert() -> String {
    format!("({}[0]?.innerText ?? '')", roles("alert"))
}

/// The header's line about unsaved and unapplied changes.
fn changes() -> String {
    named("Changes")
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1.0
}

#[tokio::test(flavor = "multi_thread")]
async fn a_review_link_opens_the_editor_with_its_scenes_and_a_tampered_one_shows_nothing() {
    let d = Daemon::start(BIN, &[]);
    let (_, review, scenes, b) = opened_editor(&d).await;
    let thumbs = roles_in(&strip(), "img");
    let shown = b
        .wait_for(
            &format!(
                "{thumbs}.length === {n} && {thumbs}.every(i => i.complete && i.naturalWidth === 280) && {n}",
                n = scenes.len()
            ),
            60,
        )
        .await;
    assert_eq!(shown, json!(scenes.len()));
    let words = b
        .eval(&format!(
            "return {}.length;",
            roles_in(&role("group", "Words"), "button")
        ))
        .await;
    assert!(words.as_u64().unwrap() > 3, "a word timeline: {words}");
    let zones = b
        .eval("return document.querySelectorAll('[data-zone]').length;")
        .await;
    assert_eq!(zones, json!(2), "both dead zones are drawn");
    // Phone width: nothing sticks out sideways (the strip and the words scroll or wrap).
    let wide = b
        .eval(&format!(
            "const inside = [{}, {}]; return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5 && !inside.some(s => s?.contains(e))).map(e => e.getAttribute('aria-label') ?? e.tagName).slice(0, 5);",
            strip(),
            role("group", "Words")
        ))
        .await;
    assert_eq!(wide, json!([]), "wider than the phone");
    b.screenshot("editor").await;
    // At a desktop's width the panel sits beside the preview, under the whole video's timeline.
    b.client.set_window_size(1280, 900).await.unwrap();
    let beside = format!(
        "{}.getBoundingClientRect().left >= {}.getBoundingClientRect().right && {}.getBoundingClientRect().bottom <= {}.getBoundingClientRect().top",
        role("complementary", "Scene"),
        still(),
        role("slider", "Whole video"),
        still()
    );
    b.wait_for(&beside, 5).await;
    b.screenshot("editor-desktop").await;

    let tampered = review.replace("token=", "token=0");
    let text = b.open(&tampered).await;
    assert!(text.contains("This link is not valid"), "{text}");
    let editor = b
        .eval(&format!("return [!!{}, !!{}];", strip(), still()))
        .await;
    assert_eq!(editor, json!([false, false]), "no scenes and no preview");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn space_plays_and_pauses_and_the_arrow_keys_change_the_scene() {
    let d = Daemon::start(BIN, &[]);
    let (_, _, scenes, b) = opened_editor(&d).await;
    let body = b.find("body").await;
    // → selects the next scene.
    body.send_keys("\u{E014}").await.unwrap();
    b.wait_for(&format!("{} === {:?}", current_scene(), scenes[1]), 5)
        .await;
    // Space plays the video from there; Space again pauses on the still of that moment.
    body.send_keys(" ").await.unwrap();
    b.wait_for(
        &format!(
            "(v => v && !v.paused && v.currentTime > 0.2)({})",
            playing_video()
        ),
        30,
    )
    .await;
    // The play button now says Pause.
    b.wait_for(&role("button", "Pause"), 5).await;
    body.send_keys(" ").await.unwrap();
    b.wait_for(&format!("!{} && {}", playing_video(), still()), 5)
        .await;
    let at = b
        .eval(&format!("return {}.innerText;", named("Time in the scene")))
        .await;
    assert_ne!(at, json!("0.00s"), "paused where it played to");
    b.wait_for(&role("button", "Play the whole video"), 5).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn dragging_the_caption_changes_scene_geometry_and_the_drawn_boxes_agree_with_it() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, scenes, b) = opened_editor(&d).await;
    let before = geometry(&d, &id, &scenes[0]).await;
    let y0 = before["boxes"]["caption"]["container_rect"]["y"]
        .as_f64()
        .unwrap();
    let caption = role("button", "Caption box");
    let w = b
        .eval(&format!("return {caption}.getBoundingClientRect().width;"))
        .await
        .as_f64()
        .unwrap();
    // Pressed near the caption's left edge, away from boxes drawn over its middle.
    b.drag(
        b.element(&caption).await,
        (-w / 2.0 + 6.0, 0.0),
        (0.0, -60.0),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let after = loop {
        let g = geometry(&d, &id, &scenes[0]).await;
        let y = g["boxes"]["caption"]["container_rect"]["y"]
            .as_f64()
            .unwrap();
        if (y - y0).abs() > 1.0 {
            break g;
        }
        assert!(Instant::now() < deadline, "the caption did not move: y {y}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let y1 = after["boxes"]["caption"]["container_rect"]["y"]
        .as_f64()
        .unwrap();
    assert!(
        (y1 - (y0 - 60.0)).abs() <= 2.0,
        "moved by the drag: {y0} → {y1}"
    );

    // What the open editor draws agrees with scene_geometry within one preview pixel.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (c, v) = inspect(&d, &id, "get_computed_boxes", json!({})).await;
        assert_eq!(c, 200, "{v}");
        assert_eq!(v["status"], "completed", "{v}");
        let boxes = v["result"]["boxes"].as_array().unwrap().clone();
        let find = |sel: &str| boxes.iter().find(|b| b["selector"] == sel).cloned();
        let caption = find("[data-box=\"caption\"]").expect("the caption box");
        if !near(caption["y"].as_f64().unwrap(), y1) {
            assert!(
                Instant::now() < deadline,
                "the editor still draws {caption}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        let mut expected = vec![(
            "[data-box=\"caption\"]".to_string(),
            after["boxes"]["caption"]["container_rect"].clone(),
        )];
        if after["boxes"]["narrator"]["visible"] == true {
            expected.push((
                "[data-box=\"narrator\"]".into(),
                after["boxes"]["narrator"]["rect"].clone(),
            ));
        }
        for o in after["boxes"]["remotion"]["object_layer"]["objects"]
            .as_array()
            .unwrap()
        {
            let sel = format!("[data-layout-id=\"{}\"]", o["layout_id"].as_str().unwrap());
            expected.push((sel, o["rect"].clone()));
        }
        for (sel, rect) in expected {
            let got = find(&sel).unwrap_or_else(|| panic!("no box {sel} in {boxes:?}"));
            for k in ["x", "y", "w", "h"] {
                assert!(
                    near(got[k].as_f64().unwrap(), rect[k].as_f64().unwrap()),
                    "{sel}.{k}: editor {got} vs geometry {rect}"
                );
            }
        }
        break;
    }
    let checks = b
        .eval(&format!(
            "return {}.length;",
            roles_in(&role("list", "Layout checks"), "listitem")
        ))
        .await;
    assert!(
        checks.as_u64().unwrap() >= 1,
        "the layout checks are listed"
    );
    b.screenshot("editor-caption-dragged").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_text_edit_refreshes_the_preview_survives_a_reload_and_reaches_a_second_editor_live() {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes) = scene_video(&d).await;
    let (first, second) = (Browser::start().await, Browser::start().await);
    open_editor(&first, &review).await;
    open_editor(&second, &review).await;
    // The clip before the edit (rendered now, so the edit's clip is a fresh render).
    let preview_url = review.replacen('?', &format!("/preview/{}?", scenes[0]), 1);
    let before: Value = d
        .http
        .post(&preview_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let key0 = before["key"].as_str().unwrap().to_string();

    let src0 = first.eval(&format!("return {}.src;", still())).await;
    // A refused edit is shown in the API's own words.
    let area = first.element(&narration()).await;
    area.clear().await.unwrap();
    area.send_keys(" ").await.unwrap();
    first.press("Apply, keep the voice").await;
    let shown = first.wait_for(&alert(), 10).await;
    assert!(shown.as_str().unwrap().contains("text"), "{shown}");
    let text = "Harbour lights shimmer over quiet water tonight";
    let area = first.element(&narration()).await;
    area.clear().await.unwrap();
    area.send_keys(text).await.unwrap();
    first.press("Apply, keep the voice").await;
    let fresh = named("Fresh preview");
    let fresh = first
        .wait_for(
            &format!("{fresh} && [{fresh}.dataset.key, Number({fresh}.dataset.ms)]"),
            90,
        )
        .await;
    assert_ne!(
        fresh[0],
        json!(key0),
        "the edited scene has a new preview clip"
    );
    eprintln!("edit → fresh preview clip: {} ms", fresh[1]);
    let still_changed = first
        .wait_for(
            &format!(
                "(i => i.src !== {src0} && i.complete && i.naturalWidth)({})",
                still()
            ),
            20,
        )
        .await;
    assert_eq!(still_changed, json!(280));
    // The second editor follows from the realtime stream, without a reload.
    second
        .wait_for(&format!("{}.value === {text:?}", narration()), 20)
        .await;
    second.screenshot("editor-second-browser").await;
    // Unsaved work survives a reload: the session is on the server.
    first.client.refresh().await.unwrap();
    first
        .wait_for(
            &format!(
                "{}?.value === {text:?} && {}.dataset.staged === '1'",
                narration(),
                changes()
            ),
            30,
        )
        .await;
    first.press("Save").await;
    first
        .wait_for(&format!("{}.dataset.staged === '0'", changes()), 20)
        .await;
    let tree = d.scene_tree(&id).await;
    assert_eq!(
        tree["segments"][0]["text"],
        json!(text),
        "saved to the document"
    );
    first.close().await;
    second.close().await;
}

/// `ffprobe`'s view of an MP4: (video codec, duration in seconds).
fn probe(path: &std::path::Path) -> (String, f64) {
    let out = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "stream=codec_name:format=duration",
            "-of",
            "json",
        ])
        .arg(path)
        .output()
        .expect("ffprobe runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let codec = v["streams"][0]["codec_name"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let duration = v["format"]["duration"].as_str().unwrap().parse().unwrap();
    (codec, duration)
}

#[tokio::test(flavor = "multi_thread")]
async fn export_shows_progress_to_a_playable_mp4_and_the_player_plays_scenes_then_the_mp4() {
    let d = Daemon::start(BIN, &[]);
    let (_, review, _) = scene_video(&d).await;
    let player = Browser::start().await;
    let player_url = format!("{review}&readonly=true");
    let r = d.http.get(&player_url).send().await.unwrap();
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(csp.contains("frame-ancestors *"), "embeddable: {csp}");
    player.client.goto(&player_url).await.unwrap();
    let clip = named("Scene clip");
    player
        .wait_for(&format!("{clip}?.currentTime > 0.3"), 90)
        .await;
    let caption = player
        .wait_for(&format!("{}?.innerText", named("Captions")), 10)
        .await;
    assert!(
        !caption.as_str().unwrap().trim().is_empty(),
        "captions under the clip"
    );
    let controls = player
        .eval(&format!(
            "return [{}.length, !!{}, !!{}, !!{}];",
            roles("textbox"),
            role("button", "Save"),
            role("button", "Export MP4"),
            role("button", "Caption box")
        ))
        .await;
    assert_eq!(
        controls,
        json!([0, false, false, false]),
        "no edit controls in the player"
    );
    player.screenshot("player-scenes").await;
    // When a scene's clip ends, the next one plays.
    player
        .wait_for(
            &format!("{clip}?.dataset.index === '1' && {clip}.currentTime > 0.2"),
            30,
        )
        .await;

    let editor = Browser::start().await;
    open_editor(&editor, &review).await;
    editor.press("Export MP4").await;
    let mut progress = Vec::new();
    let deadline = Instant::now() + LONG;
    let mp4 = loop {
        let v = editor
            .eval(&format!(
                "const p = {}; return [p?.value ?? null, p ? Number(p.dataset.progress) : null, {}?.href ?? null];",
                role("progressbar", "Export progress"),
                role("link", "Download the MP4")
            ))
            .await;
        if let (Some(p), Some(raw)) = (v[0].as_f64(), v[1].as_f64()) {
            progress.push((p, raw));
        }
        if let Some(href) = v[2].as_str() {
            break href.to_string();
        }
        assert!(Instant::now() < deadline, "no MP4 after the export");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(!progress.is_empty(), "a progress bar was shown");
    // The API's render range 0.85–1.0 is shown as 0–100 %.
    assert!(
        progress.iter().all(|(p, raw)| (0.0..=100.0).contains(p)
            && (0.85..=1.0).contains(raw)
            && (p - (raw - 0.85) / 0.15 * 100.0).abs() <= 1.0),
        "{progress:?}"
    );
    editor.screenshot("editor-exported").await;
    let bytes = d
        .http
        .get(&mp4)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let file = output_dir().join("editor-export.mp4");
    std::fs::write(&file, &bytes).unwrap();
    let (codec, duration) = probe(&file);
    assert_eq!(codec, "h264");
    assert!(duration > 5.0, "{duration}");

    player.client.refresh().await.unwrap();
    player
        .wait_for(&format!("{}?.currentTime > 0.3", named("Video")), 60)
        .await;
    player.screenshot("player-final").await;
    player.close().await;
    editor.close().await;
}

/// A bare live-editor connection that answers probes (or not) and commands (or closes).
async fn bare_tab(
    review: &str,
    answer_probes: bool,
    on_command_close: bool,
) -> tokio::task::JoinHandle<()> {
    let ws_url = review
        .replacen("http://", "ws://", 1)
        .replacen('?', "/live?", 1);
    let (ws, _) = tokio_tungstenite::connect_async(ws_url.as_str())
        .await
        .expect("ws connects");
    let (mut tx, mut rx) = ws.split();
    // Registered once the server says hello.
    let hello = rx.next().await.expect("hello").expect("hello frame");
    assert!(hello.to_text().unwrap().contains("\"hello\""), "{hello}");
    tokio::spawn(async move {
        while let Some(Ok(msg)) = rx.next().await {
            let Message::Text(text) = msg else { continue };
            let m: Value = serde_json::from_str(&text).unwrap();
            match m["type"].as_str() {
                Some("probe") if answer_probes => {
                    let reply = json!({"type": "reply", "request_id": m["request_id"], "ok": true, "result": {"visible": true, "mounted": true}});
                    let _ = tx.send(Message::text(reply.to_string())).await;
                }
                Some("command") if on_command_close => {
                    let _ = tx.close().await;
                    return;
                }
                _ => {}
            }
        }
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn every_live_inspector_action_runs_in_an_open_editor_and_none_open_is_unavailable() {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes) = scene_video(&d).await;
    let (c, v) = inspect(&d, &id, "get_preview_state", json!({})).await;
    assert_eq!(
        (c, &v["status"], &v["code"]),
        (200, &json!("unavailable"), &json!("no_live_editor")),
        "{v}"
    );

    let b = Browser::start().await;
    open_editor(&b, &review).await;
    let ok = |v: &Value| {
        assert_eq!(v["status"], "completed", "{v}");
        assert!(
            v["selected_browser"]
                .as_str()
                .is_some_and(|s| s.starts_with("ed_")),
            "{v}"
        );
        v["result"].clone()
    };
    for action in ["list_live_editors", "list_instances"] {
        let (_, v) = inspect(&d, &id, action, json!({})).await;
        let r = ok(&v);
        assert_eq!(r["count"], 1, "{v}");
        assert_eq!(r["editors"][0]["mounted"], true, "{v}");
    }
    let (_, v) = inspect(&d, &id, "get_preview_state", json!({})).await;
    let r = ok(&v);
    assert_eq!(
        (&r["scene"], &r["playing"]),
        (&json!(scenes[0]), &json!(false)),
        "{v}"
    );
    let (_, v) = inspect(&d, &id, "get_scene_dom_snapshot", json!({})).await;
    let r = ok(&v);
    assert_eq!(r["scene_uid"], json!(scenes[0]));
    assert!(!r["elements"].as_array().unwrap().is_empty(), "{v}");
    let (_, v) = inspect(
        &d,
        &id,
        "get_computed_boxes",
        json!({"selector": "[data-box=caption]"}),
    )
    .await;
    assert_eq!(ok(&v)["boxes"].as_array().unwrap().len(), 1, "{v}");
    // A scene-bound command for another scene needs `activate`.
    let (c, v) = inspect(
        &d,
        &id,
        "get_computed_boxes",
        json!({"voice_file": scenes[1]}),
    )
    .await;
    assert_eq!(
        (c, &v["error"]["code"]),
        (409, &json!("editor_refused")),
        "{v}"
    );
    let (_, v) = inspect(&d, &id, "activate_scene", json!({"voice_file": scenes[1]})).await;
    assert_eq!(ok(&v)["scene"], json!(scenes[1]), "{v}");
    b.wait_for(&format!("{} === {:?}", current_scene(), scenes[1]), 5)
        .await;
    let (_, v) = inspect(&d, &id, "seek_preview", json!({"seek_seconds": 1.0})).await;
    assert_eq!(ok(&v)["time"].as_f64(), Some(1.0), "{v}");
    let (_, v) = inspect(&d, &id, "play_preview", json!({"timeout_ms": 15000})).await;
    assert_eq!(ok(&v)["playing"], json!(true), "{v}");
    b.wait_for(&format!("{}?.currentTime > 0.2", playing_video()), 30)
        .await;
    b.screenshot("editor-playing").await;
    let (_, v) = inspect(&d, &id, "pause_preview", json!({})).await;
    assert_eq!(ok(&v)["playing"], json!(false), "{v}");
    let (_, v) = inspect(&d, &id, "reload_preview", json!({})).await;
    assert_eq!(ok(&v)["reloaded"], json!(true), "{v}");
    b.close().await;

    // Tabs that do not answer: the probe window, the command timeout, a tab that leaves.
    let silent = bare_tab(&review, false, false).await;
    let (_, v) = inspect(
        &d,
        &id,
        "get_preview_state",
        json!({"probe_timeout_ms": 150}),
    )
    .await;
    assert_eq!(
        (&v["status"], &v["code"]),
        (&json!("unavailable"), &json!("no_active_editor")),
        "{v}"
    );
    silent.abort();
    let slow = bare_tab(&review, true, false).await;
    let t = Instant::now();
    let (_, v) = inspect(&d, &id, "get_preview_state", json!({"timeout_ms": 1000})).await;
    assert_eq!(v["code"], json!("editor_timeout"), "{v}");
    assert!(t.elapsed() < Duration::from_secs(5));
    slow.abort();
    let _leaving = bare_tab(&review, true, true).await;
    let t = Instant::now();
    let (_, v) = inspect(&d, &id, "get_preview_state", json!({"timeout_ms": 15000})).await;
    assert!(
        v["code"] == json!("editor_disconnected") || v["code"] == json!("no_active_editor"),
        "{v}"
    );
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "a tab that leaves never hangs the call"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_script_view_approves_an_edited_script_into_scenes() {
    let d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "source": "idea", "idea_text": "Why small harbours matter to coastal towns", "output_type": "text" }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    let review = done["result"]["review_url"].as_str().unwrap().to_string();
    assert!(review.contains("view=script"), "{review}");
    let b = Browser::start().await;
    b.client.goto(&review).await.unwrap();
    let first = b.get("textbox", "Segment 1").await;
    b.screenshot("script-view").await;
    first.clear().await.unwrap();
    let line = "Harbour towns keep their fishing boats close to home.";
    first.send_keys(line).await.unwrap();
    b.press("Approve script").await;
    b.wait_for(&format!("{}.length", roles_in(&strip(), "button")), 180)
        .await;
    let tree = d.scene_tree(&id).await;
    assert_eq!(tree["segments"][0]["text"], json!(line), "{tree}");
    b.screenshot("script-approved-editor").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_background_is_swapped_from_search_broll_results() {
    let d = Daemon::start(BIN, &[]);
    let (_, review, _, b) = opened_editor(&d).await;
    let keyword = b.get("textbox", "Keyword").await;
    keyword.clear().await.unwrap();
    keyword.send_keys("grid").await.unwrap();
    b.press("Search").await;
    let first = format!("{}[0]", roles_in(&role("group", "Results"), "button"));
    let url = b
        .wait_for(
            &format!("{first}?.querySelector('img')?.complete && {first}.dataset.url"),
            30,
        )
        .await;
    // A result is previewed first, then applied with "Use this".
    b.click(&first).await;
    b.press("Use this").await;
    let data_url = review.replacen('?', "/data?", 1);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v: Value = d
            .http
            .get(&data_url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        // B-roll: the background's mediaUrl; A-roll: the narrator stays, the asset is brollUrl.
        let s = &v["scenes"][0];
        if s["mediaUrl"] == url || s["brollUrl"] == url {
            break;
        }
        assert!(Instant::now() < deadline, "not swapped: {}", v["scenes"][0]);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    b.screenshot("editor-background-swapped").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn uploads_from_the_editor_apply_a_voice_a_narrator_video_and_an_svg_overlay() {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes, b) = opened_editor(&d).await;
    let dir = reelsmith_tests::tempfile::tempdir().unwrap();
    let wav = dir.path().join("voice.wav");
    std::fs::write(&wav, reelsmith_tests::wav_bytes(2.0, 16_000)).unwrap();
    let svg = dir.path().join("badge.svg");
    std::fs::write(
        &svg,
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 720 1280' width='720' height='1280'>\
         <g data-wc-object='badge' data-wc-kind='callout'><rect x='100' y='200' width='300' height='120' fill='#e53935'/></g></svg>",
    )
    .unwrap();
    let data_url = review.replacen('?', "/data?", 1);
    let scene0 = |v: &Value| v["scenes"][0].clone();
    let before: Value = d
        .http
        .get(&data_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();

    b.get("button", "Voice")
        .await
        .send_keys(wav.to_str().unwrap())
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v: Value = d
            .http
            .get(&data_url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        // The two-second upload is the scene's narration now.
        if scene0(&v)["narrator"]["audio_url"] != scene0(&before)["narrator"]["audio_url"] {
            let seconds = scene0(&v)["duration"].as_f64().unwrap();
            assert!((seconds - 2.0).abs() < 0.05, "{seconds}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the voice was not applied: {}",
            scene0(&v)
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    let mp4 = dir.path().join("narrator.mp4");
    std::fs::write(&mp4, reelsmith_tests::h264_mp4()).unwrap();
    b.get("button", "Narrator video")
        .await
        .send_keys(mp4.to_str().unwrap())
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v: Value = d
            .http
            .get(&data_url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if scene0(&v)["has_narrator_video"] == true {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the narrator video was not applied: {}",
            scene0(&v)
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    b.get("button", "Overlay (SVG or image)")
        .await
        .send_keys(svg.to_str().unwrap())
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let g = geometry(&d, &id, &scenes[0]).await;
        let objects = g["boxes"]["remotion"]["object_layer"]["objects"]
            .as_array()
            .unwrap()
            .clone();
        if objects
            .iter()
            .any(|o| o["layout_id"].as_str().is_some_and(|l| l.contains("badge")))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the overlay was not applied: {objects:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    b.wait_for("[...document.querySelectorAll('[data-layout-id]')].some(e => e.dataset.layoutId.includes('badge'))", 20).await;
    // The still shows the staged overlay (before Save): the badge's red at (50, 90).
    let red = b
        .wait_for(
            &format!("(i => {{ if (!i.complete || !i.naturalWidth) return false; \
             const c = document.createElement('canvas'); c.width = 280; c.height = 498; const g = c.getContext('2d'); \
             g.drawImage(i, 0, 0); const [r, gr, bl] = g.getImageData(50, 90, 1, 1).data; return r > 180 && gr < 110 && bl < 110 && [r, gr, bl]; }})({})", still()),
            30,
        )
        .await;
    assert!(red.is_array(), "{red}");
    let errors = b.eval(&format!("return {};", alert())).await;
    assert_eq!(errors, json!(""), "no error shown");
    b.screenshot("editor-uploads").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn narrator_and_overlay_drags_roll_switch_and_overlay_disable_become_scene_edits() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, scenes, b) = opened_editor(&d).await;
    let g0 = geometry(&d, &id, &scenes[0]).await;
    let until = |what: &'static str, check: Box<dyn Fn(&Value) -> bool + Send>| {
        let (d, id, vf) = (&d, id.clone(), scenes[0].clone());
        async move {
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                let g = geometry(d, &id, &vf).await;
                if check(&g) {
                    return g;
                }
                assert!(Instant::now() < deadline, "{what}: {}", g["boxes"]);
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    // E: the narrator's resize handle, 20 px wider and taller.
    let w0 = g0["boxes"]["narrator"]["rect"]["w"].as_f64().unwrap();
    // The resize handle sits on the box's bottom-right corner.
    let narrator = role("button", "Narrator box");
    let size = b
        .eval(&format!(
            "const r = {narrator}.getBoundingClientRect(); return [r.width, r.height];"
        ))
        .await;
    let corner = (
        size[0].as_f64().unwrap() / 2.0,
        size[1].as_f64().unwrap() / 2.0,
    );
    b.drag(b.element(&narrator).await, corner, (20.0, 20.0))
        .await;
    until(
        "narrator resized",
        Box::new(move |g| {
            (g["boxes"]["narrator"]["rect"]["w"].as_f64().unwrap() - (w0 + 20.0)).abs() <= 2.0
        }),
    )
    .await;
    // C: an overlay object moved 30 px down.
    let object = g0["boxes"]["remotion"]["object_layer"]["objects"][0].clone();
    let layout = object["layout_id"].as_str().unwrap().to_string();
    let y0 = object["rect"]["y"].as_f64().unwrap();
    settle(&b).await;
    b.drag(
        b.get("button", &format!("{layout} box")).await,
        (0.0, 0.0),
        (0.0, 30.0),
    )
    .await;
    until(
        "object moved",
        Box::new(move |g| {
            g["boxes"]["remotion"]["object_layer"]["objects"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| {
                    o["layout_id"] == json!(layout)
                        && (o["rect"]["y"].as_f64().unwrap() - (y0 + 30.0)).abs() <= 2.0
                })
        }),
    )
    .await;
    // J and N: the buttons.
    settle(&b).await;
    let before = g0["scene"]["active_roll"].as_str().unwrap().to_string();
    b.press(if before == "A-roll" {
        "B-roll"
    } else {
        "A-roll"
    })
    .await;
    until(
        "roll switched",
        Box::new(move |g| g["scene"]["active_roll"] != json!(before)),
    )
    .await;
    b.press("Disable overlay").await;
    until(
        "overlay disabled",
        Box::new(|g| g["remotion_spec"]["remotion_spec_state"] == json!("disabled")),
    )
    .await;
    b.screenshot("editor-edits").await;
    b.close().await;
}

/// Presses a key with modifiers on the page (outside any text field), as a person would.
async fn key(b: &Browser, key: &str, ctrl: bool, shift: bool) {
    b.eval(&format!(
        "document.body.dispatchEvent(new KeyboardEvent('keydown', {{ key: '{key}', ctrlKey: {ctrl}, shiftKey: {shift}, bubbles: true }})); return true;"
    ))
    .await;
}

/// The button whose accessible name is `name`.
fn button_named(name: &str) -> String {
    role("button", name)
}

/// Waits until the message area says no work is under way.
async fn settle(b: &Browser) {
    b.wait_for(&format!("!{}.endsWith('…')", progress()), 60)
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn undo_in_the_editor_turns_a_disabled_overlay_back_on_and_the_keys_redo_and_undo_it() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, scenes, b) = opened_editor(&d).await;
    let state = || async {
        geometry(&d, &id, &scenes[0]).await["remotion_spec"]["remotion_spec_state"].clone()
    };
    assert_eq!(state().await, "ready");
    b.press("Disable overlay").await;
    b.wait_for(&format!("!{}.disabled", button_named("Undo")), 30)
        .await;
    assert_eq!(state().await, "disabled");

    b.press("Undo").await;
    b.wait_for(
        &format!("!{}.disabled", button_named("Disable overlay")),
        30,
    )
    .await;
    assert_eq!(state().await, "ready", "the button undid the disable");
    settle(&b).await;

    key(&b, "z", true, true).await;
    b.wait_for(&format!("{}.disabled", button_named("Disable overlay")), 30)
        .await;
    assert_eq!(state().await, "disabled", "Ctrl+Shift+Z redid it");
    settle(&b).await;

    key(&b, "z", true, false).await;
    b.wait_for(
        &format!("!{}.disabled", button_named("Disable overlay")),
        30,
    )
    .await;
    assert_eq!(state().await, "ready", "Ctrl+Z undid it again");
    b.screenshot("editor-undo").await;
    b.close().await;
}

/// `ffprobe`'s streams and duration of an MP4.
fn streams(path: &std::path::Path) -> Value {
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-show_entries"])
        .arg("stream=codec_type,codec_name,width,height,channels:format=duration")
        .args(["-of", "json"])
        .arg(path)
        .output()
        .expect("ffprobe runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `POST …/preview` of a review link: the whole video's preview.
async fn whole_preview(review: &str) -> Value {
    let r = reqwest::Client::new()
        .post(review.replacen("?token=", "/preview?token=", 1))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_whole_video_preview_is_every_scene_under_one_soundtrack_and_follows_edits() {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes) = scene_video(&d).await;
    let tree = d.scene_tree(&id).await;
    let durations: Vec<f64> = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["duration"].as_f64().unwrap())
        .collect();
    let total: f64 = durations.iter().sum();

    let started = Instant::now();
    let w = whole_preview(&review).await;
    let first = started.elapsed();
    assert_eq!(w["cached"], false, "{w}");
    let spans = w["scenes"].as_array().unwrap();
    assert_eq!(spans.len(), scenes.len());
    let mut start = 0.0;
    for (span, (vf, dur)) in spans.iter().zip(scenes.iter().zip(&durations)) {
        assert_eq!(span["voice_file"], vf.as_str());
        assert!(
            (span["start"].as_f64().unwrap() - start).abs() < 1e-6,
            "{w}"
        );
        start += dur;
    }
    assert!((w["duration"].as_f64().unwrap() - total).abs() < 1e-6);

    let file = tempfile::NamedTempFile::new().unwrap();
    let bytes = reqwest::get(w["url"].as_str().unwrap())
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    std::fs::write(file.path(), &bytes).unwrap();
    let probe = streams(file.path());
    let kinds: Vec<&str> = probe["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["codec_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["video", "audio"],
        "one picture and one sound: {probe}"
    );
    assert_eq!(probe["streams"][0]["width"], 360);
    let length: f64 = probe["format"]["duration"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (length - total).abs() < 0.25,
        "{length} s against {total} s of scenes"
    );

    let again = whole_preview(&review).await;
    assert_eq!(
        (again["cached"].clone(), again["key"].clone()),
        (json!(true), w["key"].clone())
    );

    let (c, v, _) = d
        .post(
            "/v1/modify_scene",
            &json!({ "id": id, "by": "voice_file", "value": scenes[1], "fields": [{ "field_name": "segment.text", "value": "A new line for the second scene." }] }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let started = Instant::now();
    let edited = whole_preview(&review).await;
    let after_edit = started.elapsed();
    assert_eq!(edited["cached"], false, "an edit renders the video again");
    assert_ne!(edited["key"], w["key"]);
    eprintln!(
        "whole preview of {total:.1} s: first {:.2} s (render {} ms), after a one-scene edit {:.2} s (render {} ms)",
        first.as_secs_f64(),
        w["render_ms"],
        after_edit.as_secs_f64(),
        edited["render_ms"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn playing_the_whole_video_crosses_scene_boundaries_with_sound_and_the_selection_follows() {
    let d = Daemon::start(BIN, &[]);
    let (_, review, scenes, b) = opened_editor(&d).await;
    let second = whole_preview(&review).await["scenes"][1]["start"]
        .as_f64()
        .unwrap();
    b.press("Play the whole video").await;
    b.wait_for(
        &format!(
            "(v => v && !v.paused && v.currentTime > {} && v.webkitAudioDecodedByteCount > 0)({})",
            second + 0.3,
            playing_video()
        ),
        60,
    )
    .await;
    let selected = b.eval(&format!("return {};", current_scene())).await;
    assert_ne!(
        selected,
        json!(scenes[0]),
        "the selection follows the playhead"
    );
    b.screenshot("editor-whole-video").await;
    // Space pauses, and the still of the moment is shown.
    b.find("body").await.send_keys(" ").await.unwrap();
    b.wait_for(&still(), 10).await;
    b.close().await;
}

/// The review link's `GET …/data`: the editor's view of the video.
async fn editor_data(d: &Daemon, review: &str) -> Value {
    d.http
        .get(review.replacen('?', "/data?", 1))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// One string field of every scene of the editor's data, in order.
fn scene_strings(view: &Value, field: &str) -> Vec<String> {
    view["scenes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[field].as_str().unwrap().to_string())
        .collect()
}

/// The page header's text (the title, the session, Undo, Save and Export).
fn page_header() -> String {
    format!("{}[0]?.innerText", roles("banner"))
}

#[tokio::test(flavor = "multi_thread")]
async fn unapplied_text_survives_a_scene_switch_and_the_header_says_so() {
    let d = Daemon::start(BIN, &[]);
    let (_, review, _) = scene_video(&d).await;
    let view = editor_data(&d, &review).await;
    let texts: Vec<String> = scene_strings(&view, "text");
    let b = Browser::start().await;
    open_editor(&b, &review).await;
    // The strip shows each scene's first words: the script at a glance.
    let strip = b
        .eval(&format!(
            "return {}.map(t => t.innerText);",
            roles_in(&strip(), "button")
        ))
        .await;
    assert_eq!(strip.as_array().unwrap().len(), texts.len());
    for (shown, text) in strip.as_array().unwrap().iter().zip(&texts) {
        let first = text
            .split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            shown.as_str().unwrap().contains(&first),
            "{shown} does not show {first:?}"
        );
    }
    let header = b.eval(&format!("return {};", page_header())).await;
    assert!(
        header.as_str().unwrap().contains("All changes saved"),
        "{header}"
    );

    let typed = "Words typed here and never applied";
    let area = b.element(&narration()).await;
    area.clear().await.unwrap();
    area.send_keys(typed).await.unwrap();
    b.click(&scene_button(1)).await;
    b.wait_for(&format!("{}.value === {:?}", narration(), texts[1]), 10)
        .await;
    let header = b
        .wait_for(
            &format!(
                "{h}.includes('Text not applied in scene 1') && {h}",
                h = page_header()
            ),
            10,
        )
        .await;
    assert!(
        !header.as_str().unwrap().contains("All changes saved"),
        "{header}"
    );
    b.screenshot("editor-unapplied-text").await;

    // Back on scene 1 the typed text is there, and applying it clears the warning.
    b.click(&scene_button(0)).await;
    b.wait_for(&format!("{}.value === {typed:?}", narration()), 10)
        .await;
    b.press("Apply, keep the voice").await;
    b.wait_for(
        &format!(
            "!{h}.includes('Text not applied') && {h}.includes('1 unsaved change')",
            h = page_header()
        ),
        60,
    )
    .await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_phone_width_has_44px_targets_and_the_title_is_the_video_title() {
    let d = Daemon::start(BIN, &[]);
    let (_, review, _) = scene_video(&d).await;
    let title = editor_data(&d, &review).await["title"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!title.is_empty());
    let b = Browser::start().await;
    open_editor(&b, &review).await;
    assert_eq!(b.eval("return document.title;").await, json!(title));
    let width = b.eval("return window.innerWidth;").await;
    assert!(width.as_f64().unwrap() <= 620.0, "a phone's width: {width}");
    // Every button, word chip, list, checkbox and file picker a finger presses is at least
    // 44 px tall (the boxes on the preview are dragged, and keep their size in preview pixels).
    let words = b
        .eval(&format!(
            "return {}.length;",
            roles_in(&role("group", "Words"), "button")
        ))
        .await;
    assert!(words.as_u64().unwrap() > 3, "{words}");
    let small = b
        .eval(&format!(
            "return [...{}, ...{}, ...{}].filter(e => !e.closest('[data-stage]')).map(e => e.closest('label') ?? e).filter(e => e.getClientRects().length).map(e => [e.getAttribute('aria-label') ?? e.innerText.trim().slice(0, 24), e.getBoundingClientRect().height]).filter(([, h]) => h < 44);",
            roles("button"),
            roles("combobox"),
            roles("checkbox")
        ))
        .await;
    assert_eq!(small, json!([]), "smaller than 44 px");
    // The editor's stage keeps its 280 × 498 preview pixels (the boxes are in them).
    let stage = b
        .eval("const r = document.querySelector('[data-stage=preview]').getBoundingClientRect(); return [r.width, r.height];")
        .await;
    assert!(
        near(stage[0].as_f64().unwrap(), 280.0) && near(stage[1].as_f64().unwrap(), 498.0),
        "{stage}"
    );
    b.screenshot("editor-phone").await;

    // The read-only player: the same title, as wide as its container, and an unmute button.
    b.client
        .goto(&format!("{review}&readonly=true"))
        .await
        .unwrap();
    let clip = named("Scene clip");
    b.wait_for(&format!("{clip}?.currentTime > 0.2"), 60).await;
    assert_eq!(b.eval("return document.title;").await, json!(title));
    let sizes = b
        .eval(&format!("const v = {clip}; return [v.getBoundingClientRect().width, v.parentElement.getBoundingClientRect().width];"))
        .await;
    let (video, container) = (sizes[0].as_f64().unwrap(), sizes[1].as_f64().unwrap());
    assert!(video > 300.0 && near(video, container), "{sizes}");
    assert_eq!(b.eval(&format!("return {clip}.muted;")).await, json!(true));
    b.press("Unmute").await;
    b.wait_for(&format!("!{clip}.muted && {}", role("button", "Mute")), 5)
        .await;
    b.screenshot("player-phone").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn messages_never_move_the_preview_guides_toggle_and_export_stays_in_view_and_warns_first() {
    let d = Daemon::start(BIN, &[]);
    let (_, _, _, b) = opened_editor(&d).await;
    // Where the strip and the preview sit on the page (typing may scroll it).
    let tops = format!(
        "[{}.getBoundingClientRect().top + window.scrollY, {}.getBoundingClientRect().top + window.scrollY]",
        strip(),
        still()
    );
    let before = b.eval(&format!("return {tops};")).await;
    // A refused edit: its message floats over the page, nothing below it moves.
    let area = b.element(&narration()).await;
    area.clear().await.unwrap();
    area.send_keys(" ").await.unwrap();
    b.press("Apply, keep the voice").await;
    b.wait_for(&alert(), 10).await;
    assert_eq!(b.eval(&format!("return {tops};")).await, before);
    // A status line while an edit runs: nothing moves either.
    b.eval(&format!(
        "[{}, {}].find(b => !b.disabled).click(); return true;",
        role("button", "A-roll"),
        role("button", "B-roll")
    ))
    .await;
    b.wait_for(&progress(), 10).await;
    assert_eq!(b.eval(&format!("return {tops};")).await, before);
    settle(&b).await;
    b.wait_for(
        &format!("{}.includes('1 unsaved change')", page_header()),
        30,
    )
    .await;

    // The guides (safe zones and boxes) can be hidden and shown again.
    let guides = role("checkbox", "Show guides (safe zones and boxes)");
    b.eval(&format!("{guides}.click(); return true;")).await;
    // Hidden, not gone: the live inspector still measures them.
    b.wait_for(
        "[...document.querySelectorAll('[data-box], [data-zone]')].every(e => getComputedStyle(e).visibility === 'hidden')",
        5,
    )
    .await;
    b.screenshot("editor-guides-hidden").await;
    b.eval(&format!("{guides}.click(); return true;")).await;
    b.wait_for(
        "document.querySelectorAll('[data-zone]').length === 2 && [...document.querySelectorAll('[data-box], [data-zone]')].every(e => getComputedStyle(e).visibility === 'visible')",
        5,
    )
    .await;

    // Export stays in view at the bottom of the page.
    let export = button_named("Export MP4");
    let in_view = b
        .eval(&format!("window.scrollTo(0, document.body.scrollHeight); const r = {export}.getBoundingClientRect(); return [window.scrollY > 0, r.top >= 0 && r.bottom <= window.innerHeight];"))
        .await;
    assert_eq!(in_view, json!([true, true]), "scrolled, and Export in view");
    // With an unsaved edit it says so first; Cancel exports nothing.
    b.eval(&format!("{export}.click(); return true;")).await;
    let dialog = role("alertdialog", "Export with unsaved edits");
    let said = b.wait_for(&format!("{dialog}?.innerText"), 5).await;
    // The refused text is still typed (not applied): the warning names it too.
    let said = said.as_str().unwrap();
    assert!(
        said.contains("1 unsaved edit will be saved first")
            && said.contains("Text not applied in scene 1"),
        "{said}"
    );
    b.screenshot("editor-export-warns").await;
    b.press("Cancel").await;
    b.wait_for(&format!("!{dialog}"), 5).await;
    assert_eq!(
        b.eval(&format!("return {}.length;", roles("progressbar")))
            .await,
        json!(0)
    );
    b.eval(&format!("{export}.click(); return true;")).await;
    b.press("Save and export").await;
    let shown = b
        .wait_for(
            &format!(
                "!{h}.includes('unsaved change') && ({} || {}) && {h}",
                role("progressbar", "Export progress"),
                role("link", "Download the MP4"),
                h = page_header()
            ),
            60,
        )
        .await;
    eprintln!("header while exporting: {shown}");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn shift_arrows_step_frames_and_arrows_nudge_a_selected_box_in_one_edit() {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes, b) = opened_editor(&d).await;
    // Shift+→ steps one frame (1/30 s) in the still; the scene stays.
    let time = format!("{}.innerText", named("Time in the scene"));
    for _ in 0..3 {
        key(&b, "ArrowRight", false, true).await;
    }
    b.wait_for(
        &format!("{time} === '0.10s' && {}.src.includes('t=0.10')", still()),
        5,
    )
    .await;
    key(&b, "ArrowLeft", false, true).await;
    b.wait_for(&format!("{time} === '0.07s'"), 5).await;
    assert_eq!(
        b.eval(&format!("return {};", current_scene())).await,
        json!(scenes[0])
    );

    // A click selects the caption box; the arrows nudge it, sent as one edit once they rest.
    let versions_url = review.replacen('?', "/versions?", 1);
    let undo_count = || async {
        let v: Value = d
            .http
            .get(&versions_url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v["versions"]["undo"].as_array().unwrap().len()
    };
    let caption_y = || async {
        geometry(&d, &id, &scenes[0]).await["boxes"]["caption"]["container_rect"]["y"]
            .as_f64()
            .unwrap()
    };
    let (n0, y0) = (undo_count().await, caption_y().await);
    let caption = role("button", "Caption box");
    let w = b
        .eval(&format!("return {caption}.getBoundingClientRect().width;"))
        .await
        .as_f64()
        .unwrap();
    b.drag(b.element(&caption).await, (-w / 2.0 + 6.0, 0.0), (0.0, 0.0))
        .await;
    b.wait_for(
        &format!("{caption}.getAttribute('aria-pressed') === 'true'"),
        5,
    )
    .await;
    let until_y = |want: f64| {
        let caption_y = &caption_y;
        async move {
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                let y = caption_y().await;
                if (y - want).abs() <= 0.2 {
                    return;
                }
                assert!(Instant::now() < deadline, "caption at {y}, not {want}");
                tokio::time::sleep(Duration::from_millis(150)).await;
            }
        }
    };
    for _ in 0..5 {
        key(&b, "ArrowUp", false, false).await;
    }
    until_y(y0 - 5.0).await;
    settle(&b).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(undo_count().await, n0 + 1, "five presses, one edit");
    // Shift: 10 px a press.
    for _ in 0..2 {
        key(&b, "ArrowDown", false, true).await;
    }
    until_y(y0 + 15.0).await;
    settle(&b).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(undo_count().await, n0 + 2);
    b.screenshot("editor-nudged").await;
    // With a box selected → does not change the scene; Escape lets the box go, then it does.
    key(&b, "ArrowRight", false, false).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        b.eval(&format!("return {};", current_scene())).await,
        json!(scenes[0])
    );
    key(&b, "Escape", false, false).await;
    key(&b, "ArrowRight", false, false).await;
    b.wait_for(&format!("{} === {:?}", current_scene(), scenes[1]), 5)
        .await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn broll_search_starts_from_the_selected_scenes_keyword() {
    let d = Daemon::start(BIN, &[]);
    let (_, review, _) = scene_video(&d).await;
    let view = editor_data(&d, &review).await;
    let keywords: Vec<String> = scene_strings(&view, "keyword");
    let b = Browser::start().await;
    open_editor(&b, &review).await;
    let keyword = format!("{}.value", role("textbox", "Keyword"));
    assert_eq!(
        b.eval(&format!("return {keyword};")).await,
        json!(keywords[0])
    );

    // Each result says its title, its type and (clips) its length: the scene's own keyword,
    // or the curated grid where the library has nothing for it.
    // A library clip is made on its first use: slow on a busy machine, so a patient client.
    let http = reqwest::Client::builder().timeout(LONG).build().unwrap();
    let broll = |word: String| {
        let url = review.replacen('?', "/broll?", 1);
        let http = http.clone();
        async move {
            let v: Value = http
                .post(url)
                .json(&json!({ "keyword": word, "kind": "video", "limit": 8 }))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            v
        }
    };
    let mut api = broll(keywords[0].clone()).await;
    if api["results"].as_array().unwrap().is_empty() {
        let input = b.get("textbox", "Keyword").await;
        input.clear().await.unwrap();
        input.send_keys("grid").await.unwrap();
        api = broll("grid".into()).await;
    }
    b.press("Search").await;
    let results = roles_in(&role("group", "Results"), "button");
    let shown = b
        .wait_for(
            &format!("{results}.length && {results}.map(r => r.innerText)"),
            LONG.as_secs(),
        )
        .await;
    let listed = api["results"].as_array().unwrap();
    assert_eq!(shown.as_array().unwrap().len(), listed.len());
    for (text, r) in shown.as_array().unwrap().iter().zip(listed) {
        let text = text.as_str().unwrap();
        let kind = if r["type"] == "video" {
            "Video"
        } else {
            "Image"
        };
        assert!(text.contains(kind), "{text}: {r}");
        let title = r["title"].as_str().unwrap();
        if !title.is_empty() {
            assert!(text.contains(title), "{text} lacks {title:?}");
        }
        let seconds = r["duration"].as_f64().unwrap_or(0.0);
        if seconds > 0.0 {
            assert!(text.contains(&format!("{seconds:.1} s")), "{text}");
        }
    }
    // A result is previewed (a clip plays, muted; a photo is shown larger) before "Use this"
    // applies it.
    eprintln!(
        "results for {:?}: {:?}",
        keywords[0],
        listed.iter().map(|r| r["type"].clone()).collect::<Vec<_>>()
    );
    let first = listed
        .iter()
        .position(|r| r["type"] == "video")
        .unwrap_or(0);
    b.eval(&format!("{results}[{first}].click(); return true;"))
        .await;
    let preview = role("figure", "Background preview");
    if listed[first]["type"] == "video" {
        b.wait_for(
            &format!(
                "(v => v && v.muted && v.currentTime > 0.1)({preview}?.querySelector('video'))"
            ),
            20,
        )
        .await;
    } else {
        b.wait_for(
            &format!("(i => i && i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 100)({preview}?.querySelector('img'))"),
            20,
        )
        .await;
    }
    b.eval(&format!(
        "{preview}.scrollIntoView({{ block: 'center' }}); return true;"
    ))
    .await;
    b.screenshot("editor-broll-preview").await;

    // Another scene: its own keyword, and no old results.
    b.eval(&format!("{}.click(); return true;", scene_button(1)))
        .await;
    b.wait_for(
        &format!(
            "{keyword} === {:?} && {results}.length === 0 && !{preview}",
            keywords[1]
        ),
        5,
    )
    .await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn layout_checks_and_the_overlay_state_are_in_plain_words() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, scenes, b) = opened_editor(&d).await;
    let g0 = geometry(&d, &id, &scenes[0]).await;
    let object = g0["boxes"]["remotion"]["object_layer"]["objects"][0].clone();
    let layout = object["layout_id"].as_str().unwrap().to_string();
    let r = &object["rect"];
    // The overlay object moved into the top of the frame, where the phone app's bar covers it.
    let (c, v, _) = d
        .post(
            "/v1/modify_scene",
            &json!({ "id": id, "by": "voice_file", "value": scenes[0], "fields": [{
                "field_name": "remotion.object.rect",
                "value": { "layout_id": layout, "x": r["x"], "y": 0, "w": r["w"], "h": r["h"], "coordinate_space": "preview" }
            }] }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let (c, g, _) = d
        .post(
            "/v1/scene_geometry",
            &json!({ "id": id, "voice_file": scenes[0], "include_diagnostics": true }),
        )
        .await;
    assert_eq!(c, 200, "{g}");
    assert!(
        g["violations"]
            .to_string()
            .contains("remotion_object_in_top_dead_zone"),
        "{}",
        g["violations"]
    );
    let checks = format!(
        "{}.map(l => l.innerText)",
        roles_in(&role("list", "Layout checks"), "listitem")
    );
    let said = b
        .wait_for(
            &format!(
                "{checks}.some(t => t.includes(\"The overlay's '{layout}' sits under the app's top bar\")) && {checks}"
            ),
            30,
        )
        .await;
    for line in said.as_array().unwrap() {
        let line = line.as_str().unwrap();
        assert!(
            !line.contains("dead zone") && !line.starts_with("remotion"),
            "jargon: {line}"
        );
    }
    // The overlay's state says what it means; disabled says it can be undone.
    let state = format!("{}.innerText", role("note", "Overlay state"));
    let on = b.wait_for(&state, 10).await;
    assert_eq!(on, json!("Overlay: on."));
    settle(&b).await;
    b.press("Disable overlay").await;
    let off = b
        .wait_for(&format!("{state}.includes('turned off') && {state}"), 30)
        .await;
    assert!(off.as_str().unwrap().contains("Undo"), "{off}");
    b.eval(&format!(
        "{}.scrollIntoView({{ block: 'center' }}); return true;",
        role("list", "Layout checks")
    ))
    .await;
    b.screenshot("editor-plain-words").await;
    b.close().await;
}

/// Every scene's (voice_file, duration) in the saved or staged document, in order.
async fn durations(d: &Daemon, id: &str) -> Vec<(String, f64)> {
    d.scene_tree(id).await["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["voice_file"].as_str().unwrap().to_string(),
                s["duration"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn apply_and_re_voice_makes_the_scene_longer_and_says_by_how_much() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, _, b) = opened_editor(&d).await;
    let before = durations(&d, &id).await;
    let long = "This first scene now says a great deal more, with many more words for the voice to read out, so it has to run much longer than before.";
    let area = b.element(&narration()).await;
    area.clear().await.unwrap();
    area.send_keys(long).await.unwrap();
    b.press("Apply and re-voice").await;
    let said = b
        .wait_for(
            &format!("{p}.includes('the scene is now') && {p}", p = progress()),
            90,
        )
        .await;
    let after = durations(&d, &id).await;
    assert!(
        after[0].1 > before[0].1 + 2.0,
        "re-voiced: {} → {} s",
        before[0].1,
        after[0].1
    );
    assert!(
        said.as_str().unwrap().contains(&format!(
            "the scene is now {:.1} s (was {:.1} s)",
            after[0].1, before[0].1
        )),
        "{said}"
    );
    // The strip shows the new length too.
    b.wait_for(
        &format!(
            "{}.innerText.includes('{:.1}s')",
            scene_button(0),
            after[0].1
        ),
        10,
    )
    .await;
    b.screenshot("editor-revoice").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn moving_a_scene_later_then_undo_restores_the_order() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, scenes, b) = opened_editor(&d).await;
    let before = durations(&d, &id).await;
    b.press("Move later").await;
    let mut moved = scenes.clone();
    moved.swap(0, 1);
    b.wait_for(
        &format!("{}.join() === {:?}", strip_order(), moved.join(",")),
        30,
    )
    .await;
    // The moved scene stays selected, now second.
    assert_eq!(
        b.eval(&format!("return {};", current_scene())).await,
        json!(scenes[0])
    );
    assert_eq!(
        durations(&d, &id).await[1].0,
        scenes[0],
        "the scene moved later"
    );
    settle(&b).await;
    key(&b, "z", true, false).await;
    b.wait_for(
        &format!("{}.join() === {:?}", strip_order(), scenes.join(",")),
        30,
    )
    .await;
    assert_eq!(durations(&d, &id).await, before, "undo restored the order");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn adding_a_scene_speaks_it_selects_it_and_undo_removes_it() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, scenes, b) = opened_editor(&d).await;
    let before = durations(&d, &id).await;
    b.press("Add a scene after this one").await;
    let line = "A brand new scene about the lighthouse keeper and his long nights.";
    let area = b
        .get("textbox", "What the new scene after scene 1 says")
        .await;
    area.send_keys(line).await.unwrap();
    b.press("Add scene").await;
    // The voice speaks it meanwhile, and the page says so.
    b.wait_for(
        &format!("{}.startsWith('Speaking the new scene')", progress()),
        10,
    )
    .await;
    let count = format!("{}.length", roles_in(&strip(), "button"));
    b.wait_for(&format!("{count} === {}", scenes.len() + 1), 90)
        .await;
    let added = durations(&d, &id).await;
    assert_eq!(added.len(), before.len() + 1);
    assert_eq!(added[0], before[0]);
    assert!(
        !scenes.contains(&added[1].0),
        "a new scene second: {added:?}"
    );
    assert!(added[1].1 > 1.0, "spoken: {added:?}");
    let tree = d.scene_tree(&id).await;
    assert_eq!(tree["segments"][1]["text"], json!(line));
    // The new scene is selected, showing its words.
    b.wait_for(
        &format!(
            "{} === {:?} && {}.value === {line:?}",
            current_scene(),
            added[1].0,
            narration()
        ),
        10,
    )
    .await;
    b.screenshot("editor-scene-added").await;
    settle(&b).await;
    b.press("Undo").await;
    b.wait_for(
        &format!("{}.join() === {:?}", strip_order(), scenes.join(",")),
        30,
    )
    .await;
    assert_eq!(durations(&d, &id).await, before, "undo removed the scene");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_voice_upload_that_changes_the_scenes_length_says_so() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, _, b) = opened_editor(&d).await;
    let was = durations(&d, &id).await[0].1;
    assert!(was > 2.5, "a scene longer than the upload: {was}");
    let dir = reelsmith_tests::tempfile::tempdir().unwrap();
    let wav = dir.path().join("short.wav");
    std::fs::write(&wav, reelsmith_tests::wav_bytes(2.0, 16_000)).unwrap();
    b.get("button", "Voice")
        .await
        .send_keys(wav.to_str().unwrap())
        .await
        .unwrap();
    let said = b
        .wait_for(
            &format!("{p}.startsWith('Scene 1 is now') && {p}", p = progress()),
            60,
        )
        .await;
    let now = durations(&d, &id).await[0].1;
    let sentence =
        format!("Scene 1 is now {now:.1} s long (was {was:.1} s): the uploaded voice is shorter.");
    assert_eq!(said, json!(sentence));
    // Said where every message is said, in plain view.
    let shown = b.eval(&format!("return !!{};", text(&sentence))).await;
    assert_eq!(shown, json!(true));
    b.screenshot("editor-voice-length").await;
    b.close().await;
}
