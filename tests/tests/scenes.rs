//! Scene building black-box: scripts, ideas and blog posts become narrated scenes with visuals
//! and overlays; `video_data` publishes the scene tree as an expiring public file; the writer
//! and TTS connectors are exercised end to end against fake OpenAI-compatible servers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reelsmith_tests::bytes::Bytes;
use reelsmith_tests::warp::{self, Filter};
use reelsmith_tests::{Daemon, fixture_server, script};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(240);

async fn fetch(d: &Daemon, url: &str) -> (u16, Bytes) {
    let r = d.http.get(url).send().await.expect("fetched");
    (r.status().as_u16(), r.bytes().await.expect("body"))
}

/// `video_data` for `id`: the envelope and the downloaded tree.
async fn video_data(d: &Daemon, id: &str, diag: bool) -> (Value, Value) {
    let (c, env, _) = d
        .post(
            "/v1/video_data",
            &json!({ "video_id": id, "include_diagnostics": diag }),
        )
        .await;
    assert_eq!(c, 200, "{env}");
    let (c, body) = fetch(d, env["data"]["url"].as_str().unwrap()).await;
    assert_eq!(c, 200);
    assert_eq!(env["data"]["bytes"], body.len() as u64);
    (env, serde_json::from_slice(&body).expect("tree is JSON"))
}

/// Seconds of audio in a 48 kHz mono 16-bit WAV.
fn wav_seconds(b: &[u8]) -> f64 {
    assert_eq!(&b[..4], b"RIFF");
    assert_eq!(u32::from_le_bytes(b[24..28].try_into().unwrap()), 48_000);
    let data = u32::from_le_bytes(b[40..44].try_into().unwrap());
    f64::from(data) / 2.0 / 48_000.0
}

fn spoken_words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

async fn create(d: &Daemon, body: Value) -> String {
    let (c, v, _) = d.post("/v1/create_video", &body).await;
    assert_eq!(c, 202, "{v}");
    v["id"].as_str().unwrap().to_string()
}

async fn completed(d: &Daemon, id: &str) -> Value {
    let done = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    done
}

/// A daemon that built the scenes of a 150-word script with an inline image (served by a
/// fixture server), and the video's scene tree.
struct Built {
    d: Daemon,
    id: String,
    /// The script's spoken words, in order.
    spoken: Vec<String>,
    /// The inline image's URL.
    image: String,
    tree: Value,
}

impl Built {
    async fn new() -> Built {
        let fixture = fixture_server().await;
        let allow = format!("[\"{fixture}\"]");
        let d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
        let first = "Why do small teams never publish videos? ";
        let stat = "Solar panels on every roof cut power bills by 40% in 2024.";
        let (a, b) = (script(60), script(60));
        let close = "Follow us for a new tip every week.";
        let image = format!("http://{fixture}/image.png");
        let text = format!("{first}\n![a bright yellow square]({image})\n{a} {stat} {b} {close}");
        let spoken = spoken_words(&format!("{first} {a} {stat} {b} {close}"));
        assert!((140..=160).contains(&spoken.len()), "{}", spoken.len());
        let id = create(&d, json!({ "script_text": text })).await;
        let done = completed(&d, &id).await;
        assert_eq!(done["stage"], "scenes_ready_for_review");
        let (_, tree) = video_data(&d, &id, true).await;
        Built {
            d,
            id,
            spoken,
            image,
            tree,
        }
    }

    fn segments(&self) -> &[Value] {
        self.tree["segments"].as_array().unwrap()
    }
}

#[tokio::test]
async fn video_data_while_the_scenes_build_is_script_not_ready_or_the_tree() {
    let d = Daemon::start(BIN, &[]);
    let id = create(&d, json!({ "script_text": script(150) })).await;
    let (c, v, _) = d.post("/v1/video_data", &json!({ "video_id": id })).await;
    // Building may finish first on a fast machine; then the tree is served.
    if c != 200 {
        assert_eq!(
            (c, v["error"]["code"].as_str()),
            (409, Some("script_not_ready")),
            "{v}"
        );
    }
}

#[tokio::test]
async fn video_data_answers_an_expiring_link_and_each_call_publishes_a_new_file() {
    let b = Built::new().await;
    let (env, _) = video_data(&b.d, &b.id, true).await;
    assert_eq!(env["object"], "video_data");
    assert_eq!(env["id"], b.id.as_str());
    assert_eq!(env["topic_id"], b.id.as_str());
    assert_eq!(env["delivery_mode"], "download_url");
    assert_eq!(env["data"]["mime_type"], "application/json");
    assert_eq!(env["data"]["ttl_seconds"], 900);
    assert!(env["data"]["expires_at"].as_str().unwrap().ends_with('Z'));
    assert!(env["request_id"].as_str().unwrap().starts_with("req_"));
    for k in [
        "skill_required",
        "review_url",
        "instructions",
        "next_action",
        "meta",
    ] {
        assert!(!env[k].is_null(), "{k} in {env}");
    }
    let (again, _) = video_data(&b.d, &b.id, false).await;
    assert_ne!(env["data"]["url"], again["data"]["url"]);
}

#[tokio::test]
async fn the_scene_tree_has_its_top_level_fields_and_no_internals() {
    let b = Built::new().await;
    let tree = &b.tree;
    for k in [
        "object",
        "id",
        "topic_id",
        "aspect_ratio",
        "title",
        "language",
        "total_segments",
        "total_duration",
        "scene_identity",
        "segments",
        "global_settings",
        "review_url",
    ] {
        assert!(!tree[k].is_null(), "{k} missing");
    }
    assert_eq!(
        tree["scene_identity"]["stable_scene_id_field"],
        "voice_file"
    );
    for k in [
        "aspectRatio",
        "voice_type",
        "avatar_type",
        "last_voice_type",
        "last_avatar_type",
    ] {
        assert!(tree["global_settings"][k].is_string(), "{k}");
    }
    assert!(tree.get("script").is_none(), "internals trimmed");
    assert_eq!(tree["total_segments"], b.segments().len());
    assert!(b.segments().len() >= 6, "{}", b.segments().len());
    let total: f64 = b
        .segments()
        .iter()
        .map(|s| s["duration"].as_f64().unwrap())
        .sum();
    assert!((tree["total_duration"].as_f64().unwrap() - total).abs() < 0.01);
}

#[tokio::test]
async fn the_scenes_narrate_the_script_verbatim_and_in_order() {
    let b = Built::new().await;
    let got: Vec<String> = b
        .segments()
        .iter()
        .flat_map(|s| spoken_words(s["text"].as_str().unwrap()))
        .collect();
    assert_eq!(got, b.spoken);
}

#[tokio::test]
async fn every_segment_has_its_fields_and_a_unique_stable_id() {
    let b = Built::new().await;
    let mut ids = std::collections::HashSet::new();
    for (i, s) in b.segments().iter().enumerate() {
        for k in [
            "voice_file",
            "scene_uid",
            "id",
            "order_id",
            "scene_index",
            "type",
            "text",
            "talking_point",
            "visual",
            "quote",
            "keyword",
            "duration",
            "mediaUrl",
            "mediaType",
            "thumbnailUrl",
            "videoTrim",
            "brollUrl",
            "overlay",
            "narrator",
            "remotion_spec",
            "remotion_spec_file",
            "remotion_spec_url",
            "remotion_spec_version",
            "remotion_spec_exists",
            "remotion_spec_state",
            "agent_meta",
            "pattern",
            "remotion_poster_file",
            "remotion_poster_url",
            "remotion_poster_state",
            "remotion_poster_exists",
            "remotion_poster_warnings",
            "remotion_poster_version",
        ] {
            assert!(s.get(k).is_some(), "segment {i} lacks {k}");
        }
        assert!(s.get("words").is_none(), "word timings are trimmed");
        let vf = s["voice_file"].as_str().unwrap();
        assert!(ids.insert(vf.to_string()), "{vf} twice");
        assert_eq!(s["scene_uid"], vf);
        assert_eq!(s["scene_index"], i);
        assert_eq!(s["agent_meta"]["stable_scene_id"], vf);
        let keywords = s["keyword"].as_str().unwrap().split_whitespace().count();
        assert!((1..=3).contains(&keywords), "{s}");
    }
}

#[tokio::test]
async fn each_scene_audio_lasts_its_duration_and_its_word_timings_fit_inside() {
    let b = Built::new().await;
    for s in b.segments() {
        let vf = s["voice_file"].as_str().unwrap();
        let path = b.d.data_dir().join(format!("videos/{}/{vf}.wav", b.id));
        let wav = std::fs::read(path).unwrap();
        let seconds = s["duration"].as_f64().unwrap();
        assert!(
            (wav_seconds(&wav) - seconds).abs() < 0.002,
            "{vf}: {} vs {seconds}",
            wav_seconds(&wav)
        );
        let audio_url = s["narrator"]["audio_url"].as_str().unwrap();
        let (c, public_wav) = fetch(&b.d, audio_url).await;
        assert_eq!(c, 200);
        assert_eq!(public_wav.len(), wav.len());
        // Published beside the audio: one timing per word, monotonic, inside the audio.
        let (c, words) = fetch(&b.d, &audio_url.replace(".wav", "_words.json")).await;
        assert_eq!(c, 200);
        let words: Vec<Value> = serde_json::from_slice(&words).unwrap();
        let said: Vec<&str> = words.iter().map(|w| w["word"].as_str().unwrap()).collect();
        let text: Vec<&str> = s["text"].as_str().unwrap().split_whitespace().collect();
        assert_eq!(said, text);
        let mut prev = 0.0;
        for w in &words {
            let (a, b) = (w["start"].as_f64().unwrap(), w["end"].as_f64().unwrap());
            assert!(
                a >= prev - 1e-9 && b >= a && b <= seconds + 1e-6,
                "{words:?}"
            );
            prev = b;
        }
    }
}

#[tokio::test]
async fn ready_overlays_are_fetchable_and_inside_the_typography_band() {
    let b = Built::new().await;
    for s in b.segments() {
        let vf = s["voice_file"].as_str().unwrap();
        match s["remotion_spec_state"].as_str().unwrap() {
            "ready" => {
                let url = s["remotion_spec_url"].as_str().unwrap();
                let version = s["remotion_spec_version"].as_str().unwrap();
                assert!(
                    url.ends_with(&format!("{vf}_spec.json?v={version}")),
                    "{url}"
                );
                let (c, spec) = fetch(&b.d, url).await;
                assert_eq!(c, 200);
                let spec: Value = serde_json::from_slice(&spec).unwrap();
                let folder = url.rsplit_once('/').unwrap().0;
                for g in spec["groups"].as_array().unwrap() {
                    for o in g["objects"].as_array().unwrap() {
                        let y = o["rect"]["y"].as_f64().unwrap();
                        let h = o["rect"]["h"].as_f64().unwrap();
                        assert!(y >= 128.0 && y + h <= 960.0, "{o}");
                        let payload =
                            format!("{folder}/{}", o["payload"]["file"].as_str().unwrap());
                        assert_eq!(fetch(&b.d, &payload).await.0, 200, "{payload}");
                    }
                }
            }
            "missing" => assert_eq!(s["remotion_spec_url"], ""),
            other => panic!("state {other}"),
        }
    }
}

#[tokio::test]
async fn direction_opens_on_a_hook_closes_on_the_call_to_action_and_shows_the_number() {
    let b = Built::new().await;
    let segs = b.segments();
    assert_eq!(segs[0]["type"], "A-roll");
    assert_eq!(segs[0]["scene_type"], "HOOK");
    assert_eq!(segs[0]["remotion_spec_state"], "ready");
    assert_eq!(segs.last().unwrap()["scene_type"], "CALL TO ACTION");
    assert!(
        segs.iter()
            .any(|s| s["scene_type"] == "STAT" && s["pattern"] == "big_number")
    );
    assert!(segs.iter().any(|s| s["type"] == "B-roll"));
    assert!(segs.iter().any(|s| s["remotion_spec_state"] == "missing"));
}

#[tokio::test]
async fn the_inline_image_is_a_scene_visual_and_library_b_roll_never_repeats_next_door() {
    let b = Built::new().await;
    let segs = b.segments();
    let with_image = segs
        .iter()
        .find(|s| s["mediaUrl"] == b.image.as_str())
        .expect("inline image used");
    assert_eq!(with_image["mediaType"], "image");
    assert_eq!(with_image["visual"], "a bright yellow square");
    assert_eq!(with_image["broll_source"], "user");
    let visuals: Vec<&Value> = segs.iter().map(|s| &s["visual"]).collect();
    for w in visuals.windows(2) {
        if w[0] != "" {
            assert_ne!(w[0], w[1], "adjacent scenes repeat a visual");
        }
    }
    for s in segs.iter().filter(|s| s["broll_source"] == "library") {
        let (c, _) = fetch(&b.d, s["mediaUrl"].as_str().unwrap()).await;
        assert_eq!(c, 200, "{s}");
    }
}

/// A 96-word script of made-up words: no library picture matches, so every B-roll scene gets
/// a generated background.
fn unmatched_script() -> String {
    const WORDS: &[&str] = &["zorp", "quibble", "flurn", "draxo", "vemble", "snib"];
    (0..96)
        .map(|i| {
            let w = WORDS[(i * 5 + i / 4) % WORDS.len()];
            match i % 12 {
                0 => format!("{}{}", w[..1].to_uppercase(), &w[1..]),
                11 => format!("{w}."),
                _ => w.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn the_video_data_file_names_its_request_and_each_scene_an_image_or_a_video() {
    let d = Daemon::start(BIN, &[]);
    let id = create(&d, json!({ "script_text": unmatched_script() })).await;
    completed(&d, &id).await;
    let (c, env, headers) = d.post("/v1/video_data", &json!({ "video_id": id })).await;
    assert_eq!(c, 200, "{env}");
    let (c, body) = fetch(&d, env["data"]["url"].as_str().unwrap()).await;
    assert_eq!(c, 200);
    let tree: Value = serde_json::from_slice(&body).unwrap();
    // The file carries the id of the call that published it.
    assert!(env["request_id"].as_str().unwrap().starts_with("req_"));
    assert_eq!(tree["request_id"], env["request_id"]);
    assert_eq!(headers["x-request-id"], env["request_id"].as_str().unwrap());
    let segs = tree["segments"].as_array().unwrap();
    assert!(
        segs.iter().any(|s| s["broll_source"] == "procedural"),
        "a scene on a generated background: {tree}"
    );
    for s in segs {
        let kind = s["mediaType"].as_str().unwrap();
        assert!(kind == "image" || kind == "video", "{s}");
        if s["broll_source"] == "procedural" {
            assert_eq!(kind, "video", "a generated background moves: {s}");
        }
    }
}

#[tokio::test]
async fn video_data_refuses_a_missing_or_unknown_id_and_an_unsigned_caller() {
    let d = Daemon::start(BIN, &[]);
    let cases = [
        (json!({}), 400, "missing_field"),
        (
            json!({ "video_id": "wc0000000000000000000000" }),
            404,
            "video_not_found",
        ),
        (json!({ "video_id": "nope" }), 404, "video_not_found"),
    ];
    for (body, code, err) in cases {
        let (c, v, _) = d.post("/v1/video_data", &body).await;
        assert_eq!(
            (c, v["error"]["code"].as_str()),
            (code, Some(err)),
            "{body} → {v}"
        );
    }
    let id = create(&d, json!({ "script_text": script(90) })).await;
    let anon = d
        .http
        .post(d.url("/v1/video_data"))
        .json(&json!({ "video_id": id }))
        .send()
        .await
        .unwrap();
    assert_eq!(anon.status(), 401);
}

#[tokio::test]
async fn video_data_file_expires() {
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__PUBLIC__TEMP_TTL_SECS", "2"),
            // The sweeper would delete the file (404); before it runs the origin answers 410.
            ("REELSMITH__PUBLIC__SWEEP_INTERVAL_SECS", "600"),
        ],
    );
    let id = create(&d, json!({ "script_text": script(90), "faceless": true })).await;
    completed(&d, &id).await;
    let (env, tree) = video_data(&d, &id, false).await;
    assert_eq!(env["data"]["ttl_seconds"], 2);
    // Faceless: every scene B-roll, no narrator.
    for s in tree["segments"].as_array().unwrap() {
        assert_eq!(s["type"], "B-roll");
        assert_eq!(s["narrator"], json!({}));
        assert_eq!(s["show_narrator"], false);
    }
    assert_eq!(tree["global_settings"]["avatar_type"], "none");
    tokio::time::sleep(Duration::from_millis(3200)).await;
    let (c, _) = fetch(&d, env["data"]["url"].as_str().unwrap()).await;
    assert_eq!(c, 410);
}

#[tokio::test]
async fn idea_truncation_and_vietnamese_text_output() {
    let d = Daemon::start(BIN, &[]);
    let idea: String = (0..1100)
        .map(|i| if i % 11 == 10 { "Việt." } else { "video" })
        .collect::<Vec<_>>()
        .join(" ");
    let id = create(
        &d,
        json!({ "source": "idea", "idea_text": idea, "output_type": "text", "language": "Vietnamese" }),
    )
    .await;
    let done = completed(&d, &id).await;
    assert_eq!(done["details"]["input_truncated_from"], 1100);
    assert!(done["result"]["review_url"].is_string());
    let (_, tree) = video_data(&d, &id, false).await;
    assert_eq!(tree["language"], "Vietnamese");
    assert_eq!(tree["writer"]["provider"], "embedded");
    assert_eq!(tree["writer"]["research_enabled"], true);
    assert_eq!(tree["writer"]["content_type"], 9);
    let words: usize = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap().split_whitespace().count())
        .sum();
    assert!(
        (300..=400).contains(&words),
        "short ≈ 90 s: {words} syllables"
    );
}

/// Seconds of narration in a scene tree.
fn narration_secs(tree: &Value) -> f64 {
    tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["duration"].as_f64().unwrap())
        .sum()
}

#[tokio::test]
async fn an_idea_becomes_narration_of_the_asked_length_in_english_and_vietnamese() {
    let d = neural_daemon();
    let ideas = [
        ("English", "How a small bakery can win morning regulars"),
        (
            "Vietnamese",
            "Cách tiệm bánh nhỏ giữ chân khách quen buổi sáng",
        ),
    ];
    for (language, idea) in ideas {
        for (length, range) in [("short", 70.0..=110.0), ("normal", 150.0..=185.0)] {
            let id = create(
                &d,
                json!({ "source": "idea", "idea_text": idea, "language": language, "video_length": length }),
            )
            .await;
            let done = completed(&d, &id).await;
            let (_, tree) = video_data(&d, &id, false).await;
            let secs = narration_secs(&tree);
            assert!(range.contains(&secs), "{language} {length}: {secs:.1} s");
            let notes = done["details"]["notes"].as_str().unwrap_or_default();
            assert!(notes.contains("embedded writer"), "{done}");
            let texts: Vec<&str> = tree["segments"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["text"].as_str().unwrap())
                .collect();
            assert!(
                texts[0].contains(idea),
                "the hook names the idea: {}",
                texts[0]
            );
            eprintln!("{language} {length}: {secs:.1} s in {} scenes", texts.len());
        }
    }
}

/// A fake OpenAI-compatible server: chat completions and speech, recording requests.
async fn fake_openai(
    seen: Arc<Mutex<Vec<(String, String, Value)>>>,
    narration: String,
    wav: Bytes,
) -> String {
    let route = warp::post()
        .and(warp::path::full())
        .and(warp::header::optional::<String>("authorization"))
        .and(warp::body::json())
        .map(move |path: warp::path::FullPath, auth: Option<String>, body: Value| {
            // The overlay copy request gets one proposal that obeys the copy rules (scene 1)
            // and others that break them (they end on "and").
            let asks_copy = body["messages"][0]["content"]
                .as_str()
                .is_some_and(|s| s.contains("overlay copy"));
            let content = if asks_copy {
                let mut overlays = vec![json!({"scene": 1, "copy": "Rituals keep teams close"})];
                overlays.extend((2..=9).map(|n| json!({"scene": n, "copy": "teams drift and"})));
                json!({ "overlays": overlays }).to_string()
            } else {
                narration.clone()
            };
            seen.lock()
                .unwrap()
                .push((path.as_str().to_string(), auth.unwrap_or_default(), body));
            match path.as_str() {
                "/v1/chat/completions" => warp::http::Response::builder()
                    .header("content-type", "application/json")
                    .body(Bytes::from(
                        json!({"id": "c1", "object": "chat.completion", "model": "fake-writer",
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
                        .to_string(),
                    ))
                    .unwrap(),
                "/v1/audio/speech" => warp::http::Response::builder()
                    .header("content-type", "audio/wav")
                    .body(wav.clone())
                    .unwrap(),
                _ => warp::http::Response::builder().status(404).body(Bytes::new()).unwrap(),
            }
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(warp::serve(route).incoming(listener).run());
    addr.to_string()
}

/// 24 kHz speech-like bursts: `n` words of 0.25 s with 0.1 s pauses.
fn burst_wav(n: usize) -> (Bytes, f64) {
    let rate = 24_000u32;
    let total = n as f64 * 0.35 + 0.2;
    let mut s = vec![0i16; (total * f64::from(rate)) as usize];
    for w in 0..n {
        let a = ((0.1 + w as f64 * 0.35) * f64::from(rate)) as usize;
        let len = (0.25 * f64::from(rate)) as usize;
        for (i, x) in s.iter_mut().enumerate().skip(a).take(len) {
            *x = (8000.0 * (i as f64 * 0.05).sin()) as i16;
        }
    }
    let mut b = Vec::new();
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + s.len() as u32 * 2).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 2).to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&(s.len() as u32 * 2).to_le_bytes());
    for x in &s {
        b.extend_from_slice(&x.to_le_bytes());
    }
    (Bytes::from(b), s.len() as f64 / f64::from(rate))
}

#[tokio::test]
async fn writer_and_speech_connectors_end_to_end() {
    let seen: Arc<Mutex<Vec<(String, String, Value)>>> = Arc::default();
    let narration = "Remote teams drift apart without rituals. A weekly demo keeps everyone close. \
                     Short async updates beat long meetings. Try one ritual this week and follow for more.";
    let (wav, secs) = burst_wav(10);
    let addr = fake_openai(seen.clone(), format!("## Script\n{narration}"), wav).await;
    let base = format!("http://{addr}/v1");
    let allow = format!("[\"{addr}\"]");
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__FETCH__ALLOW", &allow),
            ("REELSMITH__WRITER__PROVIDER", "openai"),
            ("REELSMITH__WRITER__BASE_URL", &base),
            ("REELSMITH__WRITER__MODEL", "fake-writer"),
            ("REELSMITH__WRITER__API_KEY", "sk-writer"),
            ("REELSMITH__VOICE__PROVIDER", "openai"),
            ("REELSMITH__VOICE__BASE_URL", &base),
            ("REELSMITH__VOICE__MODEL", "tts-1"),
            ("REELSMITH__VOICE__API_KEY", "sk-voice"),
            ("REELSMITH__VOICE__VOICE", "nova"),
        ],
    );
    let id = create(
        &d,
        json!({ "source": "idea", "idea_text": "Why remote teams need rituals to stay close", "research_enabled": false }),
    )
    .await;
    completed(&d, &id).await;
    let (_, tree) = video_data(&d, &id, false).await;
    assert_eq!(tree["writer"]["provider"], "openai");
    assert_eq!(tree["writer"]["model"], "fake-writer");
    assert_eq!(tree["writer"]["research_enabled"], false);
    let got: Vec<String> = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| spoken_words(s["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        spoken_words(narration),
        "the model's narration, cleaned, is spoken verbatim"
    );
    for s in tree["segments"].as_array().unwrap() {
        assert!((s["duration"].as_f64().unwrap() - secs).abs() < 0.01, "{s}");
        assert_eq!(s["narrator"]["voice_id"], "nova");
    }

    let seen = seen.lock().unwrap().clone();
    let chat: Vec<_> = seen
        .iter()
        .filter(|r| r.0 == "/v1/chat/completions")
        .collect();
    assert_eq!(chat.len(), 2, "the narration, then the overlay copy");
    assert_eq!(chat[0].1, "Bearer sk-writer");
    let copy_prompt = chat[1].2["messages"][0]["content"].as_str().unwrap();
    assert!(copy_prompt.contains("\"overlays\""), "{copy_prompt}");
    let segs = tree["segments"].as_array().unwrap();
    assert_eq!(
        segs[0]["quote"], "Rituals keep teams close",
        "a proposal that obeys the rules is kept"
    );
    for s in &segs[1..] {
        let q = s["quote"].as_str().unwrap();
        assert!(
            !q.ends_with(" and"),
            "a proposal ending on a function word is refused: {s}"
        );
    }
    assert_eq!(chat[0].2["model"], "fake-writer");
    let msgs = chat[0].2["messages"].as_array().unwrap();
    assert_eq!(msgs[0]["role"], "system");
    assert!(
        msgs[0]["content"]
            .as_str()
            .unwrap()
            .contains("Research: disabled")
    );
    assert!(
        msgs[1]["content"]
            .as_str()
            .unwrap()
            .contains("remote teams need rituals")
    );
    let speech: Vec<_> = seen.iter().filter(|r| r.0 == "/v1/audio/speech").collect();
    assert_eq!(
        speech.len(),
        tree["total_segments"].as_u64().unwrap() as usize
    );
    for r in speech {
        assert_eq!(r.1, "Bearer sk-voice");
        assert_eq!(r.2["model"], "tts-1");
        assert_eq!(r.2["voice"], "nova");
        assert_eq!(r.2["response_format"], "wav");
        assert!(r.2["input"].as_str().is_some_and(|t| narration.contains(t)));
    }
}

/// Scenes-ready video of `script`: its status, its scene tree and its `GET /v1/videos` row.
async fn narrated(d: &Daemon, script: &str) -> (Value, Value, Value) {
    let id = create(d, json!({ "script_text": script })).await;
    let done = completed(d, &id).await;
    let (_, tree) = video_data(d, &id, false).await;
    let (c, list, _) = d.get("/v1/videos").await;
    assert_eq!(c, 200, "{list}");
    let row = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id.as_str())
        .cloned()
        .expect("the video is listed");
    (done, tree, row)
}

/// Words (Vietnamese: syllables) per minute of narration over the whole tree.
fn pace(tree: &Value) -> f64 {
    let segs = tree["segments"].as_array().unwrap();
    let words: usize = segs
        .iter()
        .map(|s| s["text"].as_str().unwrap().split_whitespace().count())
        .sum();
    let secs: f64 = segs.iter().map(|s| s["duration"].as_f64().unwrap()).sum();
    words as f64 / secs * 60.0
}

fn voices(tree: &Value) -> Vec<String> {
    tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["narrator"]["voice_id"].as_str().unwrap_or("").to_string())
        .collect()
}

const VIETNAMESE: &str = include_str!("../corpus/scripts/vi-food-01-ca-phe-tay-nguyen.txt");
const ENGLISH: &str = include_str!("../corpus/scripts/en-health-02-walking.txt");

#[tokio::test]
async fn a_vietnamese_script_is_narrated_in_vietnamese_at_a_natural_pace() {
    let d = Daemon::start(BIN, &[]);
    let (_, tree, row) = narrated(&d, VIETNAMESE).await;
    assert_eq!(tree["language"], "Vietnamese");
    assert_eq!(row["language"], "Vietnamese", "{row}");
    assert!(
        voices(&tree).iter().all(|v| v == "vi"),
        "{:?}",
        voices(&tree)
    );
    let spm = pace(&tree);
    assert!(
        (150.0..=320.0).contains(&spm),
        "{spm:.0} syllables a minute"
    );
}

#[tokio::test]
async fn an_english_script_is_narrated_in_english_at_a_natural_pace() {
    let d = Daemon::start(BIN, &[]);
    let (_, tree, row) = narrated(&d, ENGLISH).await;
    assert_eq!(tree["language"], "English");
    assert_eq!(row["language"], "English", "{row}");
    assert!(
        voices(&tree).iter().all(|v| v == "en-us"),
        "{:?}",
        voices(&tree)
    );
    let wpm = pace(&tree);
    assert!((120.0..=220.0).contains(&wpm), "{wpm:.0} words a minute");
}

#[tokio::test]
async fn a_scene_clearly_in_the_other_language_takes_that_languages_voice() {
    // The neural voice speaks English; Vietnamese has none, so espeak-ng speaks it.
    let d = neural_daemon();
    let vietnamese = "Hạt cà phê ấy đến từ những đồi đất đỏ rộng lớn ở vùng Tây Nguyên của Việt Nam. \
                      Nông dân hái từng quả chín bằng tay vào những buổi sáng của mùa khô.";
    let mixed = format!("{ENGLISH}\n\n{vietnamese}\n\n{ENGLISH}");
    let (_, tree, _) = narrated(&d, &mixed).await;
    assert_eq!(tree["language"], "English", "narrated in its main language");
    let segs = tree["segments"].as_array().unwrap();
    for s in segs {
        let text = s["text"].as_str().unwrap();
        let voice = s["narrator"]["voice_id"].as_str().unwrap();
        if text.contains("Tây Nguyên") {
            assert_eq!(voice, "vi", "{text}");
        } else if !text.contains("Nông dân") {
            assert_eq!(voice, "en_US-joe-medium", "{text}");
        }
    }
    assert!(voices(&tree).iter().any(|v| v == "vi"));
}

#[tokio::test]
async fn a_script_in_a_third_language_is_narrated_as_english_with_a_note() {
    let d = Daemon::start(BIN, &[]);
    let french = "Le café commence sur les collines rouges des hauts plateaux du centre du pays. \
                  Les paysans cueillent les fruits mûrs à la main pendant la saison sèche. \
                  Les grains sèchent ensuite au soleil pendant deux semaines, puis ils sont triés \
                  avec soin et mis en sacs. De petits ateliers les torréfient lentement pour garder \
                  un goût riche et profond. Au café, on le prépare goutte à goutte dans un filtre en \
                  métal. Chaque tasse raconte ce long voyage depuis la montagne jusqu'à votre table. \
                  La prochaine fois, prenez le temps de savourer chaque gorgée avec vos amis.";
    let (done, tree, _) = narrated(&d, french).await;
    assert_eq!(tree["language"], "English");
    let notes = done["details"]["notes"].as_str().unwrap_or_default();
    assert!(notes.contains("French"), "{done}");
}

/// A daemon whose narrator is the neural voice (`make voices`), as on embedded defaults.
fn neural_daemon() -> Daemon {
    Daemon::start(BIN, &[("REELSMITH__VOICE__PROVIDER", "piper")])
}

/// What the independent listener (tests/tools/speech_check.py, pocketsphinx 5) made of the
/// first `scenes` scenes of a video, fetched as a client would (audio and word timings):
/// word error rate and forced-alignment start errors.
async fn listen(d: &Daemon, tree: &Value, scenes: usize) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let mut args = Vec::new();
    for (i, s) in tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .take(scenes)
        .enumerate()
    {
        let audio_url = s["narrator"]["audio_url"].as_str().unwrap();
        let (c, wav) = fetch(d, audio_url).await;
        assert_eq!(c, 200);
        let (c, words) = fetch(d, &audio_url.replace(".wav", "_words.json")).await;
        assert_eq!(c, 200);
        let (a, b) = (
            dir.path().join(format!("{i}.wav")),
            dir.path().join(format!("{i}.json")),
        );
        std::fs::write(&a, &wav).unwrap();
        std::fs::write(&b, &words).unwrap();
        args.extend([a, b]);
    }
    let out = std::process::Command::new(reelsmith_tests::venv_tool("python"))
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/tools/speech_check.py"
        ))
        .args(&args)
        .output()
        .expect("speech_check runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[tokio::test]
async fn the_neural_voice_narrates_english_so_that_a_recogniser_understands_it() {
    let d = neural_daemon();
    let (_, tree, _) = narrated(&d, ENGLISH).await;
    let voices = voices(&tree);
    assert!(voices.iter().all(|v| v == "en_US-joe-medium"), "{voices:?}");
    let wpm = pace(&tree);
    assert!((120.0..=220.0).contains(&wpm), "{wpm:.0} words a minute");
    let heard = listen(&d, &tree, 3).await;
    eprintln!("listener: {heard}");
    let wer = heard["wer"].as_f64().unwrap();
    assert!(wer <= 0.35, "word error rate {wer}: {heard}");
    // The captions' word starts come from the model's own durations. The listener's forced
    // alignment runs late on synthetic speech (measured: +95 ms bias, median 85 ms); a timing
    // mapped to the wrong word would be off by whole words (300 ms and more).
    let median = heard["align"]["median"].as_f64().unwrap();
    assert!(heard["align"]["words"].as_u64().unwrap() >= 20, "{heard}");
    assert!(median <= 150.0, "median start error {median} ms: {heard}");
}

/// Whether a process has ONNX Runtime's library mapped.
fn maps_the_voice_runtime(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .expect("the process is alive")
        .contains("libonnxruntime")
}

/// The live children of a process, from every thread's list.
pub(crate) fn children(pid: u32) -> Vec<String> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|s| s.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

#[tokio::test]
async fn the_neural_voice_speaks_from_a_child_process_so_the_daemon_never_loads_its_runtime() {
    let d = neural_daemon();
    let (_, tree, _) = narrated(&d, &reelsmith_tests::script(80)).await;
    let voices = voices(&tree);
    assert!(voices.iter().all(|v| v == "en_US-joe-medium"), "{voices:?}");
    assert!(
        !maps_the_voice_runtime(d.pid()),
        "ONNX Runtime is mapped into the daemon"
    );
    assert_eq!(
        children(d.pid()),
        Vec::<String>::new(),
        "the voice's child ends with the narration"
    );
}
