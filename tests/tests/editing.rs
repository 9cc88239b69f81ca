//! Scene editing end to end: modify_scene branches over HTTP with the realtime stream, rejected
//! edits that change nothing, 20 concurrent edits on one video, edit sessions that survive a
//! SIGKILL, idle auto-commit, and `cache_enabled = false`.

use std::time::{Duration, Instant};

use reelsmith_tests::{Daemon, fixture_files, h264_mp4, png_bytes, script, wav_bytes};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(240);

/// A scene-ready video of a 100-word script: (topic id, review url, voice_files in order).
async fn scene_video(d: &Daemon) -> (String, String, Vec<String>) {
    let request = json!({ "script_text": script(100), "output_type": "scene" });
    let ready = d.scenes_ready(&request).await;
    assert!(
        ready.voice_files.len() >= 4,
        "a 100-word script makes several scenes"
    );
    (ready.id, ready.review_url, ready.voice_files)
}

async fn modify(d: &Daemon, id: &str, voice_file: &str, fields: Value) -> (u16, Value) {
    let (c, v, _) = d
        .post(
            "/v1/modify_scene",
            &json!({ "id": id, "by": "voice_file", "value": voice_file, "fields": fields }),
        )
        .await;
    (c, v)
}

async fn geometry(d: &Daemon, id: &str, mut body: Value) -> (u16, Value) {
    body["id"] = json!(id);
    let (c, v, _) = d.post("/v1/scene_geometry", &body).await;
    (c, v)
}

async fn scene_of(d: &Daemon, id: &str, voice_file: &str) -> Value {
    let (c, g) = geometry(d, id, json!({ "voice_file": voice_file })).await;
    assert_eq!(c, 200, "{g}");
    g
}

async fn session(d: &Daemon, id: &str, action: &str) -> (u16, Value) {
    let (c, v, _) = d
        .post("/v1/edit_session", &json!({ "id": id, "action": action }))
        .await;
    (c, v)
}

/// The editor's server-sent event stream.
struct Events {
    resp: reqwest::Response,
    buf: String,
}

impl Events {
    async fn open(d: &Daemon, review_url: &str) -> Events {
        let url = review_url.replacen("?token=", "/events?token=", 1);
        let resp = d.http.get(url).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        let mut e = Events {
            resp,
            buf: String::new(),
        };
        let (name, _) = e.next(Duration::from_secs(10)).await;
        assert_eq!(name, "ready");
        e
    }

    async fn next(&mut self, timeout: Duration) -> (String, Value) {
        let start = Instant::now();
        loop {
            while let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let mut name = String::new();
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(n) = line.strip_prefix("event:") {
                        name = n.trim().to_string();
                    } else if let Some(x) = line.strip_prefix("data:") {
                        data.push_str(x.trim_start());
                    }
                }
                if !name.is_empty() {
                    return (name, serde_json::from_str(&data).unwrap_or(Value::Null));
                }
            }
            let left = timeout
                .checked_sub(start.elapsed())
                .expect("timed out waiting for a realtime event");
            let chunk = tokio::time::timeout(left, self.resp.chunk())
                .await
                .expect("timed out waiting for a realtime event")
                .unwrap()
                .expect("stream open");
            self.buf.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Skips to the next event called `name`.
    async fn until(&mut self, name: &str, timeout: Duration) -> Value {
        loop {
            let (n, v) = self.next(timeout).await;
            if n == name {
                return v;
            }
        }
    }
}

/// A daemon with a scene-ready video of a 100-word script, and its editor's realtime stream.
struct Edited {
    d: Daemon,
    id: String,
    scenes: Vec<String>,
    events: Events,
}

impl Edited {
    async fn start() -> Edited {
        Edited::start_with(Daemon::start(BIN, &[])).await
    }

    /// A daemon allowed to fetch from `fixture` (a [`fixture_files`] server).
    async fn fetching_from(fixture: &str) -> Edited {
        let allow = format!("[\"{fixture}\"]");
        Edited::start_with(Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)])).await
    }

    async fn start_with(d: Daemon) -> Edited {
        let (id, review, scenes) = scene_video(&d).await;
        let events = Events::open(&d, &review).await;
        Edited {
            d,
            id,
            scenes,
            events,
        }
    }

    /// `modify_scene` of scene `n` (from 0), selected by its `voice_file`.
    async fn modify(&self, n: usize, fields: Value) -> (u16, Value) {
        modify(&self.d, &self.id, &self.scenes[n], fields).await
    }

    /// `modify_scene` with `body` and this video's id.
    async fn modify_by(&self, mut body: Value) -> (u16, Value) {
        body["id"] = json!(self.id);
        let (c, v, _) = self.d.post("/v1/modify_scene", &body).await;
        (c, v)
    }

    /// Moves the first scene's narrator to a new rect: that rect and the 200 reply.
    async fn move_narrator(&self) -> (Value, Value) {
        let rect = json!({ "x": 20.0, "y": 60.0, "w": 120.0, "h": 150.0 });
        let field = json!([{ "field_name": "overlay.narrator.rect", "value": rect }]);
        let (c, v) = self.modify(0, field).await;
        assert_eq!(c, 200, "{v}");
        (rect, v)
    }

    /// Scene `n`'s geometry.
    async fn scene(&self, n: usize) -> Value {
        scene_of(&self.d, &self.id, &self.scenes[n]).await
    }

    /// The next realtime event: (name, data).
    async fn next_event(&mut self) -> (String, Value) {
        self.events.next(Duration::from_secs(10)).await
    }
}

/// The error code of a refused request, with its status.
fn refusal(c: u16, v: &Value) -> (u16, Option<&str>) {
    (c, v["error"]["code"].as_str())
}

#[tokio::test]
async fn an_edit_of_a_video_without_scenes_is_scenes_not_ready() {
    let d = Daemon::start(BIN, &[]);
    let idea = "Why small teams should publish one short video every week.";
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "source": "idea", "idea_text": idea, "output_type": "text" }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let quote = json!([{ "field_name": "quote", "value": "q" }]);
    let (c, v) = modify(&d, &id, "v1", quote.clone()).await;
    assert_eq!(refusal(c, &v), (409, Some("scenes_not_ready")), "{v}");
    d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    let (c, v) = modify(&d, &id, "v1", quote).await;
    assert_eq!(refusal(c, &v), (409, Some("scenes_not_ready")), "{v}");
}

#[tokio::test]
async fn a_narrator_rect_edit_reaches_geometry_and_the_realtime_stream() {
    let mut e = Edited::start().await;
    let (rect, v) = e.move_narrator().await;
    assert_eq!(v["segment"]["overlay"]["narrator"]["rect"], rect);
    assert_eq!(v["segment"]["overlay"]["narrator"]["touched"], true);
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"));
    let (name, event) = e.next_event().await;
    assert_eq!(name, "scene_modified");
    assert_eq!(event["voice_file"], e.scenes[0].as_str());
    assert_eq!(event["topic_id"], e.id.as_str());
    assert_eq!(e.scene(0).await["boxes"]["narrator"]["rect"], rect);
}

#[tokio::test]
async fn refused_edits_change_nothing_and_publish_nothing() {
    let mut e = Edited::start().await;
    let before = e.scene(1).await;
    let vf = e.scenes[1].clone();
    let refused: Vec<(Value, u16, &str)> = vec![
        (
            json!({ "by": "voice_file", "value": vf, "fields": [{ "field_name": "pattern", "value": "freestyle" }] }),
            400,
            "invalid_value",
        ),
        (
            json!({ "by": "voice_file", "value": vf, "fields": [{ "field_name": "quote", "value": "x" }, { "field_name": "overlay.caption.y", "value": 100 }] }),
            400,
            "mixed_field_families",
        ),
        (
            json!({ "by": "voice_file", "value": vf, "fields": [{ "field_name": "no.such.field", "value": 1 }] }),
            400,
            "invalid_field_name",
        ),
        (
            json!({ "by": "voice_file", "value": vf, "fields": [] }),
            400,
            "missing_field",
        ),
        (
            json!({ "by": "name", "value": vf, "fields": [{ "field_name": "quote", "value": "x" }] }),
            400,
            "invalid_by",
        ),
        (
            json!({ "by": "voice_file", "value": "vnope", "fields": [{ "field_name": "quote", "value": "x" }] }),
            404,
            "scene_not_found",
        ),
        (
            json!({ "by": "voice_file", "value": vf, "fields": [{ "field_name": "overlay.caption.y", "value": 480 }] }),
            400,
            "invalid_value",
        ),
        (
            json!({ "by": "voice_file", "value": vf, "fields": [{ "field_name": "type", "value": "STORY" }] }),
            400,
            "invalid_value",
        ),
    ];
    for (body, code, err) in refused {
        let (c, v) = e.modify_by(body.clone()).await;
        assert_eq!(refusal(c, &v), (code, Some(err)), "{body} → {v}");
    }
    let (c, v, _) = e
        .d
        .post("/v1/modify_scene", &json!({ "id": "wcNoSuchVideo", "by": "id", "value": 1, "fields": [{ "field_name": "quote", "value": "x" }] }))
        .await;
    assert_eq!(refusal(c, &v), (404, Some("video_not_found")));
    let after = e.scene(1).await;
    assert_eq!(before["scene"], after["scene"]);
    assert_eq!(before["boxes"], after["boxes"]);
    // The first event on the stream is the next accepted edit's.
    let (c, v) = e
        .modify(1, json!([{ "field_name": "quote", "value": "Ship it." }]))
        .await;
    assert_eq!(c, 200, "{v}");
    let (name, event) = e.next_event().await;
    assert_eq!(
        (name.as_str(), event["family"].as_str()),
        ("scene_modified", Some("metadata"))
    );
}

#[tokio::test]
async fn metadata_edits_are_stored_in_canonical_form() {
    let e = Edited::start().await;
    let (c, v) = e
        .modify(
            1,
            json!([
                { "field_name": "type", "value": "stat" },
                { "field_name": "pattern", "value": "Before After" },
                { "field_name": "quote", "value": "Ship it." },
            ]),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let g = e.scene(1).await;
    assert_eq!(g["scene"]["type"], "STAT");
    assert_eq!(g["scene"]["pattern"], "before_after");
    assert_eq!(g["scene"]["quote"], "Ship it.");
}

#[tokio::test]
async fn a_text_edit_rebuilds_the_words_over_the_same_audio() {
    let e = Edited::start().await;
    let tree = e.d.scene_tree(&e.id).await;
    let duration = tree["segments"][1]["duration"].as_f64().unwrap();
    let text = json!([{ "field_name": "segment.text", "value": "Alpha beta gamma delta." }]);
    let (c, v) = e.modify(1, text).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["segment"]["duration"].as_f64().unwrap(), duration);
    let words = v["segment"]["words"].as_array().unwrap();
    assert_eq!(words.len(), 4);
    assert!(words[3]["end"].as_f64().unwrap() <= duration + 1e-9);
}

#[tokio::test]
async fn a_text_shared_by_two_scenes_asks_which_and_changes_neither() {
    let e = Edited::start().await;
    let text = json!([{ "field_name": "segment.text", "value": "Alpha beta gamma delta." }]);
    for n in [1, 2] {
        let (c, v) = e.modify(n, text.clone()).await;
        assert_eq!(c, 200, "{v}");
    }
    let (c, v) = e
        .modify_by(json!({ "by": "text", "value": "alpha beta gamma delta", "fields": [{ "field_name": "quote", "value": "ambiguous" }] }))
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["clarification_required"], true);
    assert_eq!(v["candidates"].as_array().unwrap().len(), 2);
    for n in [1, 2] {
        assert_ne!(e.scene(n).await["scene"]["quote"], "ambiguous");
    }
    // A fragment of the same text is ambiguous too: both scenes score alike.
    let (c, v) = e
        .modify_by(json!({ "by": "text", "value": "alpha beta gamma", "fields": [{ "field_name": "keyword", "value": "k" }] }))
        .await;
    assert_eq!(
        (c, v["clarification_required"].as_bool()),
        (200, Some(true)),
        "{v}"
    );
}

#[tokio::test]
async fn a_fuzzy_fragment_of_a_unique_text_selects_its_scene() {
    let e = Edited::start().await;
    let text =
        json!([{ "field_name": "segment.text", "value": "Zebras paint violet mangoes at dawn." }]);
    let (c, v) = e.modify(3, text).await;
    assert_eq!(c, 200, "{v}");
    let (c, v) = e
        .modify_by(json!({ "by": "text", "value": "zebras paint violet", "fields": [{ "field_name": "keyword", "value": "zebra" }] }))
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["voice_file"], e.scenes[3].as_str(), "{v}");
    let score = v["score"].as_f64().unwrap();
    assert!((0.5..1.0).contains(&score), "{score}");
    assert_eq!(e.scene(3).await["scene"]["keyword"], "zebra");
}

#[tokio::test]
async fn a_roll_switch_and_back_keeps_the_narrator_lane() {
    let e = Edited::start().await;
    let (rect, _) = e.move_narrator().await;
    let (c, v) = e
        .modify(0, json!([{ "field_name": "roll.switch", "value": true }]))
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["segment"]["type"], "B-roll");
    assert_eq!(e.scene(0).await["scene"]["show_narrator"], false);
    let (c, v) = e
        .modify(
            0,
            json!([{ "field_name": "roll.active", "value": "A-roll" }]),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["segment"]["overlay"]["narrator"]["rect"], rect);
}

#[tokio::test]
async fn a_layout_batch_applies_every_layout_edit_in_it() {
    let e = Edited::start().await;
    let batch = json!([{ "field_name": "layout.batch", "value": [
        { "field_name": "overlay.caption.y", "value": 200 },
        { "field_name": "overlay.narrator.x", "value": 30 },
    ] }]);
    let (c, v) = e.modify(0, batch).await;
    assert_eq!(c, 200, "{v}");
    let g = e.scene(0).await;
    assert_eq!(g["boxes"]["caption"]["container_rect"]["y"], 200.0);
    assert_eq!(g["boxes"]["narrator"]["rect"]["x"], 30.0);
}

#[tokio::test]
async fn a_background_swap_fetches_the_image_and_a_missing_one_is_download_failed() {
    let fixture = fixture_files(vec![("bg.png", "image/png", png_bytes(320, 320))]).await;
    let e = Edited::fetching_from(&fixture).await;
    let url = format!("http://{fixture}/bg.png");
    let (c, v) = e
        .modify(1, json!([{ "field_name": "mediaUrl", "value": url }]))
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["media_type"], "image");
    assert_eq!(v["media_url"], url.as_str());
    for k in ["mediaUrl", "thumbnailUrl", "brollUrl", "brollThumbnailUrl"] {
        assert_eq!(v["segment"][k], url.as_str(), "{k}");
    }
    let missing = format!("http://{fixture}/missing.png");
    let (c, v) = e
        .modify(1, json!([{ "field_name": "mediaUrl", "value": missing }]))
        .await;
    assert_eq!(refusal(c, &v), (502, Some("download_failed")), "{v}");
    let tree = e.d.scene_tree(&e.id).await;
    assert_eq!(tree["segments"][1]["mediaUrl"], url.as_str(), "kept");
}

#[tokio::test]
async fn a_generated_overlay_object_and_group_move_by_rect() {
    let e = Edited::start().await;
    let mut found = None;
    for n in 0..e.scenes.len() {
        let g = e.scene(n).await;
        let first = &g["boxes"]["remotion"]["object_layer"]["objects"][0]["layout_id"];
        if let Some(layout_id) = first.as_str() {
            found = Some((n, layout_id.to_string(), g));
            break;
        }
    }
    let (n, layout_id, g) = found.expect("scene building made a generated overlay");
    let version = g["remotion_spec"]["remotion_spec_version"].clone();
    let want = json!({ "x": 28.0, "y": 60.0, "w": 140.0, "h": 50.0 });
    let mut value = want.clone();
    value["layout_id"] = json!(layout_id);
    let (c, v) = e
        .modify(
            n,
            json!([{ "field_name": "remotion.object.rect", "value": value }]),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let g = e.scene(n).await;
    let objects = g["boxes"]["remotion"]["object_layer"]["objects"]
        .as_array()
        .unwrap();
    let moved = objects
        .iter()
        .find(|o| o["layout_id"] == layout_id.as_str())
        .unwrap();
    assert_eq!(moved["rect"], want, "{moved}");
    assert_eq!(
        moved["rect_canvas"],
        json!({ "x": 72.0, "y": 154.217, "w": 360.0, "h": 128.514 })
    );
    assert_ne!(g["remotion_spec"]["remotion_spec_version"], version);
    assert_eq!(g["remotion_spec"]["remotion_spec_state"], "ready");

    let group = g["boxes"]["remotion"]["groups"][0]["id"].as_str().unwrap();
    let rect = json!({ "id": group, "x": 0, "y": -40, "w": 720, "h": 400, "wrapper_only": true });
    let (c, v) = e
        .modify(
            n,
            json!([{ "field_name": "remotion.group.rect", "value": rect }]),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        e.scene(n).await["boxes"]["remotion"]["groups"][0]["rect_canvas"],
        json!({ "x": 0.0, "y": -40.0, "w": 720.0, "h": 400.0 })
    );
}

#[tokio::test]
async fn a_disabled_overlay_refuses_layout_edits_and_new_elements() {
    let e = Edited::start().await;
    let (c, v) = e.modify(0, json!([{ "field_name": "disable_overlay", "value": true }, { "field_name": "overlay.disable", "value": true }])).await;
    assert_eq!(c, 400, "disabling comes alone: {v}");
    let (c, v) = e
        .modify(
            0,
            json!([{ "field_name": "remotion.disable_overlay", "value": true }]),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["segment"]["remotion_spec"], "none");
    assert_eq!(v["segment"]["remotion_spec_state"], "disabled");
    let (c, v) = e.modify(0, json!([{ "field_name": "remotion.object.rect", "value": { "layout_id": "x", "x": 1, "y": 1, "w": 10, "h": 10 } }])).await;
    assert_eq!(refusal(c, &v), (409, Some("remotion_spec_disabled")), "{v}");
    // A bad new element is refused with the request (400, as layout values are), a good one by
    // the disabled overlay (409).
    let (c, v) = e.modify(0, json!([{ "field_name": "remotion.add_element", "value": { "kind": "video", "text": "x" } }])).await;
    assert_eq!(
        (c, v["error"]["code"].as_str(), v["error"]["param"].as_str()),
        (400, Some("invalid_value"), Some("fields[].value")),
        "{v}"
    );
    let (c, v) = e
        .modify(
            0,
            json!([{ "field_name": "remotion.add_element", "value": "Hi" }]),
        )
        .await;
    assert_eq!(refusal(c, &v), (409, Some("remotion_spec_disabled")), "{v}");
    let g = e.scene(0).await;
    assert_eq!(g["remotion_spec"]["remotion_spec_state"], "disabled");
}

/// The README's rule: a disabled overlay (`none`) refuses the layout edits that change it
/// (`remotion.object.rect`, `remotion.group.rect`, `remotion.add_element`), and a batch holding
/// one is refused whole; the narrator and the caption are not part of the overlay, so their
/// layout still moves.
#[tokio::test]
async fn a_disabled_overlay_still_moves_its_narrator_and_caption_but_refuses_overlay_layout() {
    let e = Edited::start().await;
    let disable = json!([{ "field_name": "disable_overlay", "value": true }]);
    let (c, v) = e.modify(0, disable).await;
    assert_eq!(c, 200, "{v}");

    let rect = json!({ "x": 24.0, "y": 70.0, "w": 110.0, "h": 140.0 });
    let (c, v) = e
        .modify(
            0,
            json!([{ "field_name": "overlay.narrator.rect", "value": rect }]),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let (c, v) = e
        .modify(
            0,
            json!([{ "field_name": "overlay.caption.y", "value": 210 }]),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let moved = e.scene(0).await;
    assert_eq!(moved["boxes"]["narrator"]["rect"], rect);
    assert_eq!(moved["boxes"]["caption"]["container_rect"]["y"], 210.0);
    assert_eq!(moved["remotion_spec"]["remotion_spec_state"], "disabled");

    let object = json!({ "layout_id": "x", "x": 1, "y": 1, "w": 10, "h": 10 });
    let group_rect = json!({ "id": "g1", "x": 0, "y": 0, "w": 720, "h": 400 });
    let refused = [
        json!([{ "field_name": "remotion.object.rect", "value": object }]),
        json!([{ "field_name": "remotion.group.rect", "value": group_rect }]),
        json!([{ "field_name": "remotion.add_element", "value": "Hi" }]),
        json!([{ "field_name": "layout.batch", "value": [
            { "field_name": "overlay.narrator.x", "value": 5 },
            { "field_name": "remotion.group.rect", "value": group_rect },
        ] }]),
        json!([
            { "field_name": "overlay.caption.y", "value": 100 },
            { "field_name": "remotion.object.rect", "value": object },
        ]),
    ];
    for fields in refused {
        let (c, v) = e.modify(0, fields.clone()).await;
        assert_eq!(
            refusal(c, &v),
            (409, Some("remotion_spec_disabled")),
            "{fields}"
        );
    }
    let after = e.scene(0).await;
    assert_eq!(
        after["scene"], moved["scene"],
        "a refused edit changes nothing"
    );
    assert_eq!(after["boxes"]["narrator"]["rect"], rect);
    assert_eq!(after["boxes"]["caption"]["container_rect"]["y"], 210.0);
}

#[tokio::test]
async fn a_voice_upload_is_queued_then_applied_with_new_timings() {
    let fixture = fixture_files(vec![("voice.wav", "audio/wav", wav_bytes(1.5, 22_050))]).await;
    let mut e = Edited::fetching_from(&fixture).await;
    let before = e.d.scene_tree(&e.id).await["segments"][1].clone();
    let spoken = before["text"].as_str().unwrap().split_whitespace().count();
    assert!(before["duration"].as_f64().unwrap() > 2.0, "{before}");
    let url = format!("http://{fixture}/voice.wav");
    let (c, v) = e
        .modify(1, json!([{ "field_name": "voice.upload", "value": url }]))
        .await;
    assert_eq!(c, 202, "{v}");
    assert_eq!(v["status"], "scene_voice_upload_queued");
    let queue_id = v["queue_id"].as_str().unwrap();
    assert!(queue_id.starts_with("vq_"));
    let applied = e
        .events
        .until("scene_voice_upload_applied", Duration::from_secs(60))
        .await;
    assert_eq!(applied["queue_id"], queue_id);
    let seconds = applied["segment"]["duration"].as_f64().unwrap();
    assert!((seconds - 1.5).abs() < 0.05, "{seconds}");
    assert_eq!(
        (
            applied["applied"]["previous_duration"].clone(),
            applied["applied"]["duration"].as_f64()
        ),
        (before["duration"].clone(), Some(seconds)),
        "the editor is told the scene's length changed"
    );
    // The same words, timed again over the new audio.
    let words = applied["segment"]["words"].as_array().unwrap();
    assert_eq!(words.len(), spoken);
    assert!(words.last().unwrap()["end"].as_f64().unwrap() <= seconds + 1e-9);
}

#[tokio::test]
async fn a_voice_upload_that_is_not_audio_fails_on_the_realtime_stream() {
    let fixture = fixture_files(vec![(
        "not-audio.wav",
        "audio/wav",
        b"definitely not audio".to_vec(),
    )])
    .await;
    let mut e = Edited::fetching_from(&fixture).await;
    let before = e.d.scene_tree(&e.id).await["segments"][1].clone();
    let url = format!("http://{fixture}/not-audio.wav");
    let (c, v) = e
        .modify(1, json!([{ "field_name": "voice.upload", "value": url }]))
        .await;
    assert_eq!(c, 202, "{v}");
    let failed = e
        .events
        .until("scene_upload_failed", Duration::from_secs(60))
        .await;
    assert_eq!(failed["queue_id"], v["queue_id"]);
    assert_eq!(e.d.scene_tree(&e.id).await["segments"][1], before);
}

#[tokio::test]
async fn scene_geometry_refuses_bad_selectors_and_unknown_videos_and_scenes() {
    let e = Edited::start().await;
    let (d, id) = (&e.d, e.id.as_str());
    let cases = [
        (
            id,
            json!({ "by": "colour", "value": "red" }),
            400,
            "invalid_by",
        ),
        (id, json!({}), 400, "missing_field"),
        ("not-an-id", json!({ "scene_id": 1 }), 400, "invalid_id"),
        (
            "wcUnknownVideo1",
            json!({ "scene_id": 1 }),
            404,
            "video_not_found",
        ),
        (
            id,
            json!({ "scene_id": e.scenes.len() + 1 }),
            404,
            "scene_not_found",
        ),
    ];
    for (id, body, code, err) in cases {
        let (c, v) = geometry(d, id, body.clone()).await;
        assert_eq!(refusal(c, &v), (code, Some(err)), "{body} → {v}");
    }
}

#[tokio::test]
async fn scene_geometry_with_diagnostics_reports_safe_zones_violations_and_warnings() {
    let e = Edited::start().await;
    let body = json!({ "voice_file": e.scenes[0], "include_diagnostics": true });
    let (c, v) = geometry(&e.d, &e.id, body).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["safe_zones"]["dead_bottom"]["y"], 373.5);
    assert!(v["summary"]["warning_count"].is_number());
    assert!(v["violations"].is_array() && v["warnings"].is_array());
}

#[tokio::test]
async fn twenty_concurrent_edits_all_land() {
    let d = std::sync::Arc::new(Daemon::start(BIN, &[]));
    let (id, _, scenes) = scene_video(&d).await;
    const FIELDS: &[&str] = &[
        "quote",
        "keyword",
        "talking_point",
        "visual",
        "type",
        "pattern",
    ];
    const TYPES: &[&str] = &[
        "HOOK",
        "STAT",
        "KEY POINT",
        "DATA",
        "FACT",
        "CALL TO ACTION",
    ];
    const PATTERNS: &[&str] = &[
        "hook", "list", "story", "summary", "quote", "example", "timeline",
    ];
    // Twenty distinct (scene, field) pairs, each written by exactly one request.
    let mut jobs = Vec::new();
    'outer: for (fi, f) in FIELDS.iter().enumerate() {
        for (si, vf) in scenes.iter().enumerate() {
            if jobs.len() == 20 {
                break 'outer;
            }
            let n = jobs.len();
            let value = match *f {
                "type" => TYPES[(si + n) % TYPES.len()].to_string(),
                "pattern" => PATTERNS[(si + n) % PATTERNS.len()].to_string(),
                _ => format!("value {n} of {fi}"),
            };
            jobs.push((vf.clone(), f.to_string(), value));
        }
    }
    assert_eq!(jobs.len(), 20);
    let mut handles = Vec::new();
    for (vf, f, value) in jobs.clone() {
        let d = d.clone();
        let id = id.clone();
        handles.push(tokio::spawn(async move {
            modify(&d, &id, &vf, json!([{ "field_name": f, "value": value }])).await
        }));
    }
    for h in handles {
        let (c, v) = h.await.unwrap();
        assert_eq!(c, 200, "{v}");
    }
    for (vf, f, value) in jobs {
        let g = scene_of(&d, &id, &vf).await;
        let key = if f == "type" { "type" } else { f.as_str() };
        assert_eq!(g["scene"][key], value.as_str(), "lost update: {vf} {f}");
    }
}

#[tokio::test]
async fn edit_session_survives_sigkill() {
    let mut d = Daemon::start(BIN, &[]);
    let (id, _, scenes) = scene_video(&d).await;
    let vf = &scenes[0];

    // Errors first.
    let (c, v) = session(&d, &id, "pause").await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("invalid_action"))
    );
    let (c, v) = session(&d, "bad-id", "start").await;
    assert_eq!((c, v["error"]["code"].as_str()), (400, Some("invalid_id")));
    let (c, v) = session(&d, "wcNoSuchTopic0", "start").await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("topic_not_found"))
    );

    let (c, v) = session(&d, &id, "start").await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["object"], "edit_session");
    assert_eq!(v["active"], true);
    assert_eq!(v["ttl_seconds"], 2700);
    assert_eq!(v["cache_enabled"], true);
    for q in ["staged one", "staged two"] {
        let (c, v) = modify(&d, &id, vf, json!([{ "field_name": "quote", "value": q }])).await;
        assert_eq!(c, 200, "{v}");
        assert_eq!(v["edit_session"]["active"], true);
    }
    let (_, st) = session(&d, &id, "status").await;
    assert_eq!(
        (st["active"].as_bool(), st["staged_writes"].as_u64()),
        (Some(true), Some(2)),
        "{st}"
    );
    assert!(st["started"].is_string() && st["last_write"].is_string());
    assert_eq!(scene_of(&d, &id, vf).await["scene"]["quote"], "staged two");
    // video_data shows the staged edit too.
    let (c, v, _) = d.post("/v1/video_data", &json!({ "video_id": id })).await;
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
    assert_eq!(seg["quote"], "staged two");

    // SIGKILL: the staged edits come back from the journal.
    d.kill_and_restart();
    let (_, st) = session(&d, &id, "status").await;
    assert_eq!(
        (st["active"].as_bool(), st["staged_writes"].as_u64()),
        (Some(true), Some(2)),
        "{st}"
    );
    assert_eq!(scene_of(&d, &id, vf).await["scene"]["quote"], "staged two");

    let (c, v) = session(&d, &id, "commit").await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (v["committed"].as_bool(), v["active"].as_bool()),
        (Some(true), Some(false))
    );
    let (_, st) = session(&d, &id, "status").await;
    assert_eq!(st["active"], false);
    d.kill_and_restart();
    assert_eq!(scene_of(&d, &id, vf).await["scene"]["quote"], "staged two");

    // Abort discards.
    session(&d, &id, "start").await;
    let (c, _) = modify(
        &d,
        &id,
        vf,
        json!([{ "field_name": "quote", "value": "discard me" }]),
    )
    .await;
    assert_eq!(c, 200);
    let (_, v) = session(&d, &id, "abort").await;
    assert_eq!(
        (v["aborted"].as_bool(), v["active"].as_bool()),
        (Some(true), Some(false)),
        "{v}"
    );
    assert_eq!(scene_of(&d, &id, vf).await["scene"]["quote"], "staged two");
    d.kill_and_restart();
    assert_eq!(scene_of(&d, &id, vf).await["scene"]["quote"], "staged two");
    let (_, v) = session(&d, &id, "commit").await;
    assert_eq!(v["committed"], false);
}

#[tokio::test]
async fn idle_sessions_commit_themselves() {
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__EDIT__SESSION_IDLE_SECS", "2"),
            ("REELSMITH__EDIT__IDLE_CHECK_SECS", "1"),
        ],
    );
    let (id, _, scenes) = scene_video(&d).await;
    let (_, v) = session(&d, &id, "start").await;
    assert_eq!(v["ttl_seconds"], 2);
    let (c, _) = modify(
        &d,
        &id,
        &scenes[1],
        json!([{ "field_name": "keyword", "value": "idle" }]),
    )
    .await;
    assert_eq!(c, 200);
    let start = Instant::now();
    loop {
        let (_, st) = session(&d, &id, "status").await;
        if st["active"] == false {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "never auto-committed: {st}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert_eq!(
        scene_of(&d, &id, &scenes[1]).await["scene"]["keyword"],
        "idle"
    );
}

#[tokio::test]
async fn without_the_cache_edits_write_straight_through() {
    let mut d = Daemon::start(BIN, &[("REELSMITH__EDIT__CACHE_ENABLED", "false")]);
    let (id, _, scenes) = scene_video(&d).await;
    let (c, v) = session(&d, &id, "start").await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (v["cache_enabled"].as_bool(), v["active"].as_bool()),
        (Some(false), Some(false))
    );
    let (c, v) = modify(
        &d,
        &id,
        &scenes[0],
        json!([{ "field_name": "quote", "value": "direct" }]),
    )
    .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["edit_session"]["active"], false);
    d.kill_and_restart();
    assert_eq!(
        scene_of(&d, &id, &scenes[0]).await["scene"]["quote"],
        "direct"
    );
}

#[tokio::test]
async fn narrator_video_upload_turns_b_roll_into_a_roll() {
    let fixture = fixture_files(vec![("presenter.mp4", "video/mp4", h264_mp4())]).await;
    let allow = format!("[\"{fixture}\"]");
    let d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
    let (id, review, scenes) = scene_video(&d).await;
    let mut events = Events::open(&d, &review).await;
    // The second scene is B-roll (scene direction: A, B, B, …).
    let b_roll = &scenes[1];
    let before = scene_of(&d, &id, b_roll).await;
    assert_eq!(before["scene"]["active_roll"], "B-roll", "{before}");
    let shot_before = screenshot(&d, &id, b_roll).await;
    let media_of = |tree: &Value| {
        tree["segments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["voice_file"] == b_roll.as_str())
            .map(|s| s["mediaUrl"].clone())
            .unwrap()
    };
    let media_before = media_of(&d.scene_tree(&id).await);

    let (c, v) = modify(
        &d,
        &id,
        b_roll,
        json!([{ "field_name": "narrator.upload_video", "value": format!("http://{fixture}/presenter.mp4") }]),
    )
    .await;
    assert_eq!(c, 202, "{v}");
    let queue_id = v["queue_id"].as_str().unwrap().to_string();
    assert!(queue_id.starts_with("vq_"), "{v}");
    let applied = events
        .until("scene_modified", Duration::from_secs(60))
        .await;
    assert_eq!(applied["queue_id"], queue_id.as_str(), "{applied}");
    assert_eq!(applied["applied"]["roll"]["to"], "A-roll");

    let after = scene_of(&d, &id, b_roll).await;
    assert_eq!(after["scene"]["active_roll"], "A-roll", "{after}");
    assert_eq!(after["boxes"]["narrator"]["visible"], true, "{after}");
    // The background lane is kept: same media as before.
    let tree = d.scene_tree(&id).await;
    let seg = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["voice_file"] == b_roll.as_str())
        .unwrap()
        .clone();
    assert_eq!(seg["type"], "A-roll");
    assert_eq!(media_of(&tree), media_before);
    assert!(
        seg["narrator"]["video_url"]
            .as_str()
            .unwrap()
            .ends_with("presenter.mp4")
    );
    // The presenter now shows in the scene's screenshot.
    assert_ne!(screenshot(&d, &id, b_roll).await, shot_before);

    // A file that is not a video fails on the realtime channel; the scene is unchanged.
    let (c, v) = modify(
        &d,
        &id,
        &scenes[2],
        json!([{ "field_name": "narrator.upload_video", "value": format!("http://{fixture}/missing.mp4") }]),
    )
    .await;
    assert_eq!(c, 202, "{v}");
    let failed = events
        .until("scene_upload_failed", Duration::from_secs(60))
        .await;
    assert_eq!(failed["queue_id"], v["queue_id"]);
    assert_eq!(
        scene_of(&d, &id, &scenes[2]).await["scene"]["active_roll"],
        "B-roll"
    );
}

async fn screenshot(d: &Daemon, id: &str, voice_file: &str) -> Vec<u8> {
    let (c, v, _) = d
        .post(
            "/v1/scene_inspector",
            &json!({ "id": id, "action": "screenshot_scene_280x498", "voice_file": voice_file, "seek_seconds": 0.5 }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let url = v["result"]["screenshot"]["url"].as_str().unwrap();
    reqwest::get(url)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec()
}

/// Serves `voice.wav`, but the first request hangs (the daemon is killed meanwhile).
async fn slow_then_fast(wav: Vec<u8>) -> String {
    use reelsmith_tests::warp::{self, Filter};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let hits = Arc::new(AtomicUsize::new(0));
    let wav = reelsmith_tests::bytes::Bytes::from(wav);
    let route = warp::path("voice.wav").then(move || {
        let (hits, wav) = (hits.clone(), wav.clone());
        async move {
            if hits.fetch_add(1, Ordering::SeqCst) == 0 {
                tokio::time::sleep(Duration::from_secs(120)).await;
            }
            warp::http::Response::builder()
                .header("content-type", "audio/wav")
                .body(wav)
                .unwrap()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(warp::serve(route).incoming(listener).run());
    addr.to_string()
}

#[tokio::test]
async fn queued_uploads_survive_a_restart() {
    let fixture = slow_then_fast(wav_bytes(1.5, 22_050)).await;
    let allow = format!("[\"{fixture}\"]");
    let mut d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
    let (id, _, scenes) = scene_video(&d).await;
    let vf = &scenes[1];
    let url = format!("http://{fixture}/voice.wav");
    let (c, v) = modify(
        &d,
        &id,
        vf,
        json!([{ "field_name": "voice.upload", "value": url }]),
    )
    .await;
    assert_eq!(c, 202, "{v}");
    // The download is in flight (the fixture holds it); kill the daemon.
    tokio::time::sleep(Duration::from_millis(500)).await;
    d.kill_and_restart();
    let start = Instant::now();
    loop {
        let tree = d.scene_tree(&id).await;
        let seg = tree["segments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["voice_file"] == vf.as_str())
            .unwrap()
            .clone();
        if seg["narrator"]["audio_url"] == url.as_str() {
            assert!(
                (seg["duration"].as_f64().unwrap() - 1.5).abs() < 0.05,
                "{seg}"
            );
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "upload never applied: {seg}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Done uploads leave nothing queued.
    let queue = d.data_dir().join("upload_queue");
    let left = std::fs::read_dir(&queue).map(|r| r.count()).unwrap_or(0);
    assert_eq!(left, 0);
}

/// Exports `id` and waits for the render; returns the status object.
async fn export_and_wait(d: &Daemon, id: &str) -> Value {
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 202, "{v}");
    assert_eq!(v["stage"], "rendering_video", "{v}");
    let done = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    done
}

#[tokio::test]
async fn an_export_after_an_edit_renders_again_and_an_unchanged_one_does_not() {
    let d = Daemon::start(BIN, &[]);
    let (id, _, scenes) = scene_video(&d).await;
    let first = export_and_wait(&d, &id).await;
    let first_url = first["result"]["video_url"].as_str().unwrap().to_string();

    // Unchanged since the render: the snapshot, nothing queued.
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!((c, v["status"].as_str()), (200, Some("completed")), "{v}");

    let (c, v) = modify(
        &d,
        &id,
        &scenes[1],
        json!([{ "field_name": "quote", "value": "Edited after export" }]),
    )
    .await;
    assert_eq!(c, 200, "{v}");
    let second = export_and_wait(&d, &id).await;
    let second_url = second["result"]["video_url"].as_str().unwrap().to_string();
    assert_ne!(second_url, first_url, "a new render under a new name");
    for url in [&first_url, &second_url] {
        let r = d.http.get(url.as_str()).send().await.unwrap();
        assert_eq!(r.status(), 200, "{url} still served");
    }
    let (c, _, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 200, "the edited document is now the rendered one");
}

/// Placement keeps every generated overlay, caption and narrator off the picture's subject;
/// an overlay object moved onto it through modify_scene is reported as
/// `background_subject_overlap`.
#[tokio::test]
async fn an_overlay_moved_onto_the_picture_subject_is_reported() {
    let d = Daemon::start(BIN, &[]);
    let demo = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/demo-script.txt"
    ))
    .unwrap();
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": demo, "output_type": "scene" }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
    let subject_codes = |g: &Value| -> Vec<Value> {
        g["violations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["code"] == "background_subject_overlap")
            .cloned()
            .collect()
    };
    let mut target = None;
    for n in 1.. {
        let (c, g) = geometry(
            &d,
            &id,
            json!({ "scene_id": n, "include_diagnostics": true }),
        )
        .await;
        if c == 404 {
            break;
        }
        assert_eq!(c, 200, "{g}");
        assert_eq!(subject_codes(&g), Vec::<Value>::new(), "placed clear: {g}");
        let subject = g["boxes"]["background_subject"].clone();
        let object = g["boxes"]["remotion"]["object_layer"]["objects"][0]["layout_id"].clone();
        if subject.is_object() && object.is_string() && target.is_none() {
            target = Some((
                g["voice_file"].as_str().unwrap().to_string(),
                subject,
                object,
            ));
        }
    }
    let (vf, subject, layout_id) = target.expect("a B-roll scene with a subject and an overlay");
    let (sx, sy) = (
        subject["x"].as_f64().unwrap(),
        subject["y"].as_f64().unwrap(),
    );
    let (sw, sh) = (
        subject["w"].as_f64().unwrap(),
        subject["h"].as_f64().unwrap(),
    );
    let value = json!({
        "layout_id": layout_id,
        "x": (sx + sw / 2.0 - 50.0).round(), "y": (sy + sh / 2.0 - 20.0).round(),
        "w": 100.0, "h": 40.0,
    });
    let (c, v) = modify(
        &d,
        &id,
        &vf,
        json!([{ "field_name": "remotion.object.rect", "value": value }]),
    )
    .await;
    assert_eq!(c, 200, "{v}");
    let (_, g) = geometry(
        &d,
        &id,
        json!({ "voice_file": vf, "include_diagnostics": true }),
    )
    .await;
    let found = subject_codes(&g);
    assert_eq!(found.len(), 1, "{g}");
    assert_eq!(found[0]["a"], layout_id);
    assert_eq!(found[0]["b"], "background_subject");
    assert_eq!(found[0]["severity"], "error");
}

/// The editor's version routes of a review link: `POST …/undo`, `POST …/redo`, `GET …/versions`.
struct History {
    http: reqwest::Client,
    review: String,
}

impl History {
    fn of(review: &str) -> History {
        History {
            http: reqwest::Client::new(),
            review: review.to_string(),
        }
    }

    fn url(&self, route: &str) -> String {
        self.review
            .replacen("?token=", &format!("/{route}?token="), 1)
    }

    async fn step(&self, route: &str) -> (u16, Value) {
        let r = self.http.post(self.url(route)).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }

    async fn standing(&self) -> Value {
        let r = self.http.get(self.url("versions")).send().await.unwrap();
        assert_eq!(r.status(), 200);
        r.json::<Value>().await.unwrap()["versions"].clone()
    }
}

#[tokio::test]
async fn undo_turns_a_disabled_overlay_back_on_as_it_was_and_redo_disables_it_again() {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes) = scene_video(&d).await;
    let h = History::of(&review);
    let before = scene_of(&d, &id, &scenes[0]).await;
    assert_eq!(before["remotion_spec"]["remotion_spec_state"], "ready");
    let (c, v) = h.step("undo").await;
    assert_eq!(refusal(c, &v), (409, Some("nothing_to_undo")), "{v}");
    let disable = json!([{ "field_name": "disable_overlay", "value": true }]);
    let (c, v) = modify(&d, &id, &scenes[0], disable).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        scene_of(&d, &id, &scenes[0]).await["remotion_spec"]["remotion_spec_state"],
        "disabled"
    );

    let (c, v) = h.step("undo").await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (v["object"].as_str(), v["step"].as_str()),
        (Some("video_version"), Some("undo"))
    );
    let after = scene_of(&d, &id, &scenes[0]).await;
    assert_eq!(
        after["remotion_spec"], before["remotion_spec"],
        "the overlay is back as it was"
    );
    assert_eq!(after["objects"], before["objects"]);

    let (c, v) = h.step("redo").await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        scene_of(&d, &id, &scenes[0]).await["remotion_spec"]["remotion_spec_state"],
        "disabled"
    );
    let (c, v) = h.step("redo").await;
    assert_eq!(refusal(c, &v), (409, Some("nothing_to_redo")), "{v}");
}

#[tokio::test]
async fn every_undo_is_a_new_version_that_survives_a_restart_and_a_new_edit_drops_redo() {
    let mut d = Daemon::start(BIN, &[]);
    let (id, review, scenes) = scene_video(&d).await;
    let h = History::of(&review);
    let text = |t: &str| json!([{ "field_name": "text", "value": t }]);
    let text_of = async |d: &Daemon| d.scene_tree(&id).await["segments"][1]["text"].clone();
    let original = text_of(&d).await;
    for t in ["First try at this line.", "Second try at this line."] {
        let (c, v) = modify(&d, &id, &scenes[1], text(t)).await;
        assert_eq!(c, 200, "{v}");
    }
    let (c, _) = h.step("undo").await;
    assert_eq!(c, 200);
    let s = h.standing().await;
    assert_eq!(
        s["current"]["version"], 4,
        "built, two edits, then the undo: {s}"
    );
    assert_eq!(s["current"]["label"], "undo");
    assert_eq!(s["redo"].as_array().unwrap().len(), 1, "{s}");
    assert!(s["retained"].as_u64().unwrap() >= 20, "{s}");

    // The history is on disk: a restarted daemon undoes back to the built text.
    d.kill_and_restart();
    assert_eq!(text_of(&d).await, "First try at this line.");
    let (c, v) = h_after_restart(&d, &review).step("undo").await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(text_of(&d).await, original);

    // A new edit is a new branch: nothing to redo.
    let (c, _) = modify(&d, &id, &scenes[1], text("Third try.")).await;
    assert_eq!(c, 200);
    let (c, v) = h_after_restart(&d, &review).step("redo").await;
    assert_eq!(refusal(c, &v), (409, Some("nothing_to_redo")), "{v}");
}

/// The review link of a restarted daemon (its port changed).
fn h_after_restart(d: &Daemon, review: &str) -> History {
    let path = &review[review.find("/app/").expect("an editor link")..];
    History::of(&d.url(path))
}

impl History {
    /// `POST …/{route}` with a JSON body.
    async fn post(&self, route: &str, body: Value) -> (u16, Value) {
        let r = self
            .http
            .post(self.url(route))
            .json(&body)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }
}

/// `(voice_file, id, duration, audio_url)` of every scene, in order.
async fn scene_rows(d: &Daemon, id: &str) -> Vec<(String, u64, f64, String)> {
    d.scene_tree(id).await["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["voice_file"].as_str().unwrap().to_string(),
                s["id"]
                    .as_u64()
                    .or_else(|| s["id"].as_str()?.parse().ok())
                    .expect("a scene id"),
                s["duration"].as_f64().unwrap(),
                s["audio_url"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn revoice_speaks_the_edited_text_so_the_scene_takes_its_length_and_undo_brings_the_recording_back()
 {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes) = scene_video(&d).await;
    let h = History::of(&review);
    let before = d.scene_tree(&id).await["segments"][0].clone();
    let long = "This scene now says a great deal more than it did, with many more words to speak, so the voice takes much longer to read it all out loud.";
    let (c, v) = modify(
        &d,
        &id,
        &scenes[0],
        json!([{ "field_name": "segment.text", "value": long }]),
    )
    .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        v["segment"]["duration"], before["duration"],
        "branch K keeps the recording"
    );
    assert_eq!(
        v["segment"]["narration_state"], "text_changed",
        "the scene says its audio still speaks the old words"
    );

    let (c, v) = h.post("revoice", json!({ "voice_file": scenes[0] })).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["change"], "revoice");
    let (from, to) = (
        v["duration"]["from"].as_f64().unwrap(),
        v["duration"]["to"].as_f64().unwrap(),
    );
    assert_eq!(from, before["duration"].as_f64().unwrap());
    assert!(
        to > from + 2.0,
        "the longer text takes longer to say: {from} → {to}"
    );
    let after = d.scene_tree(&id).await["segments"][0].clone();
    assert_eq!(after["duration"].as_f64().unwrap(), to);
    let view: Value = h
        .http
        .get(h.url("data"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        view["scenes"][0]["narration_state"], "matches_text",
        "re-voiced"
    );
    assert_ne!(after["audio_url"], before["audio_url"], "a new recording");
    let (c, words) = fetch_json(
        &after["audio_url"]
            .as_str()
            .unwrap()
            .replace(".wav", "_words.json"),
    )
    .await;
    assert_eq!(c, 200);
    assert_eq!(
        words.as_array().unwrap().len(),
        long.split_whitespace().count()
    );
    let last_end = words.as_array().unwrap().last().unwrap()["end"]
        .as_f64()
        .unwrap();
    assert!(
        last_end <= to && last_end > to - 1.5,
        "timings span the new audio: {last_end} of {to}"
    );

    let (c, _) = h.step("undo").await;
    assert_eq!(c, 200);
    let undone = d.scene_tree(&id).await["segments"][0].clone();
    assert_eq!(
        (undone["duration"].clone(), undone["audio_url"].clone()),
        (before["duration"].clone(), before["audio_url"].clone())
    );
    let (c, _) = fetch_json(after["audio_url"].as_str().unwrap()).await;
    assert_eq!(c, 200, "the undone recording is kept for redo");
}

async fn fetch_json(url: &str) -> (u16, Value) {
    let r = reqwest::get(url).await.unwrap();
    let c = r.status().as_u16();
    let bytes = r.bytes().await.unwrap();
    (c, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn reorder_and_delete_keep_each_scenes_files_renumber_ids_and_undo_restores_them() {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes) = scene_video(&d).await;
    let h = History::of(&review);
    let original = scene_rows(&d, &id).await;
    let reversed: Vec<String> = scenes.iter().rev().cloned().collect();
    let (c, v) = h.post("reorder", json!({ "order": reversed })).await;
    assert_eq!(c, 200, "{v}");
    let rows = scene_rows(&d, &id).await;
    let files: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        files,
        reversed.iter().map(String::as_str).collect::<Vec<_>>()
    );
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.1, i as u64 + 1, "ids follow the new order");
        let was = original.iter().find(|o| o.0 == row.0).unwrap();
        assert_eq!(
            (row.2, &row.3),
            (was.2, &was.3),
            "each scene keeps its audio"
        );
    }

    let (c, v) = h.post("delete", json!({ "voice_file": scenes[0] })).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(scene_rows(&d, &id).await.len(), scenes.len() - 1);
    let (c, _) = fetch_json(&original[0].3.replace(".wav", "_words.json")).await;
    assert_eq!(c, 200, "a deleted scene's files stay for undo");

    assert_eq!(h.step("undo").await.0, 200);
    assert_eq!(
        scene_rows(&d, &id).await,
        rows,
        "undo brings the scene back in place"
    );
    assert_eq!(h.step("undo").await.0, 200);
    assert_eq!(
        scene_rows(&d, &id).await,
        original,
        "and the original order"
    );

    // Refusals change nothing.
    let (c, v) = h
        .post("reorder", json!({ "order": [scenes[0], scenes[0]] }))
        .await;
    assert_eq!(refusal(c, &v), (400, Some("invalid_value")), "{v}");
    let (c, v) = h.post("delete", json!({ "voice_file": "nope" })).await;
    assert_eq!(refusal(c, &v), (404, Some("scene_not_found")), "{v}");
    let (c, v) = h.post("revoice", json!({})).await;
    assert_eq!(refusal(c, &v), (400, Some("missing_field")), "{v}");
    assert_eq!(scene_rows(&d, &id).await, original);
}

#[tokio::test]
async fn the_neural_voice_s_child_ends_after_a_revoice_and_an_added_scene() {
    let d = Daemon::start(BIN, &[("REELSMITH__VOICE__PROVIDER", "piper")]);
    let (id, review, scenes) = scene_video(&d).await;
    let narrator = &d.scene_tree(&id).await["segments"][0]["narrator"]["voice_id"];
    assert_eq!(narrator, "en_US-joe-medium", "the neural voice speaks");
    let none = Vec::<String>::new();
    assert_eq!(crate::scenes::children(d.pid()), none, "after the build");
    let h = History::of(&review);
    let (c, v) = h.post("revoice", json!({ "voice_file": scenes[0] })).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        crate::scenes::children(d.pid()),
        none,
        "the worker ends with the revoice"
    );
    let text = "Rivers carve canyons one grain of sand at a time.";
    let (c, v) = h
        .post("add", json!({ "after": scenes[0], "text": text }))
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        crate::scenes::children(d.pid()),
        none,
        "the worker ends with the added scene"
    );
}

#[tokio::test]
async fn adding_a_scene_speaks_its_text_picks_its_visual_and_undo_removes_it() {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes) = scene_video(&d).await;
    let h = History::of(&review);
    let original = scene_rows(&d, &id).await;
    let text = "Volcanoes build new islands from cooling lava over thousands of years.";
    let (c, v) = h
        .post("add", json!({ "after": scenes[0], "text": text }))
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (v["change"].as_str(), v["added"]["id"].as_u64()),
        (Some("add"), Some(2))
    );
    let added = v["added"]["voice_file"].as_str().unwrap().to_string();

    let rows = scene_rows(&d, &id).await;
    assert_eq!(rows.len(), original.len() + 1);
    assert_eq!(rows[1].0, added, "it follows the scene it was added after");
    for (row, was) in rows.iter().skip(2).zip(&original[1..]) {
        assert_eq!(
            (&row.0, row.2, &row.3),
            (&was.0, was.2, &was.3),
            "later scenes keep their files"
        );
        assert_eq!(row.1, was.1 + 1, "and move one place on");
    }
    let seg = d.scene_tree(&id).await["segments"][1].clone();
    assert_eq!(seg["text"], text);
    let (c, words) = fetch_json(
        &seg["audio_url"]
            .as_str()
            .unwrap()
            .replace(".wav", "_words.json"),
    )
    .await;
    assert_eq!(
        (c, words.as_array().map_or(0, Vec::len)),
        (200, text.split_whitespace().count()),
        "the voice spoke every word"
    );
    assert!(seg["duration"].as_f64().unwrap() > 2.0, "{seg}");
    assert!(
        seg["brollUrl"].as_str().is_some_and(|u| !u.is_empty()),
        "the scene builder picked its visual: {seg}"
    );
    let (c, clip) = h.post(&format!("preview/{added}"), json!({})).await;
    assert_eq!(c, 200, "the new scene renders: {clip}");

    assert_eq!(h.step("undo").await.0, 200);
    assert_eq!(scene_rows(&d, &id).await, original, "undo removes it");
    let (c, v) = h.post("add", json!({ "text": text })).await;
    assert_eq!(
        (c, v["added"]["id"].as_u64()),
        (200, Some(1)),
        "no `after`: first; {v}"
    );
    assert_eq!(h.step("undo").await.0, 200);
}

#[tokio::test]
async fn a_refused_scene_addition_changes_nothing() {
    let d = Daemon::start(BIN, &[]);
    let (id, review, scenes) = scene_video(&d).await;
    let h = History::of(&review);
    let original = scene_rows(&d, &id).await;
    for (body, status, code, param) in [
        (json!({ "after": scenes[0] }), 400, "missing_field", "text"),
        (json!({ "text": "   " }), 400, "missing_field", "text"),
        (
            json!({ "text": "x".repeat(2001) }),
            400,
            "invalid_value",
            "text",
        ),
        (
            json!({ "text": "Hello there.", "after": "nope" }),
            404,
            "scene_not_found",
            "after",
        ),
        (
            json!({ "text": "Hello there.", "after": " " }),
            400,
            "invalid_value",
            "after",
        ),
        (json!({ "text": 7 }), 400, "invalid_field", "text"),
    ] {
        let (c, v) = h.post("add", body.clone()).await;
        assert_eq!(refusal(c, &v), (status, Some(code)), "{body}: {v}");
        assert_eq!(v["error"]["param"], param, "{body}: {v}");
    }
    assert_eq!(scene_rows(&d, &id).await, original);
    let (c, v) = h.step("undo").await;
    assert_eq!(
        refusal(c, &v),
        (409, Some("nothing_to_undo")),
        "no version was recorded: {v}"
    );
}
