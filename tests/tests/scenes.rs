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

#[tokio::test]
async fn a_150_word_script_becomes_scenes_with_voice_visuals_overlays_and_video_data() {
    let fixture = fixture_server().await;
    let allow = format!("[\"{fixture}\"]");
    let d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
    let first = "Why do small teams never publish videos? ";
    let stat = "Solar panels on every roof cut power bills by 40% in 2024.";
    let (a, b) = (script(60), script(60));
    let text = format!(
        "{first}\n![a bright yellow square](http://{fixture}/image.png)\n{a} {stat} {b} Follow us for a new tip every week."
    );
    let spoken: Vec<String> = spoken_words(&format!(
        "{first} {a} {stat} {b} Follow us for a new tip every week."
    ));
    assert!((140..=160).contains(&spoken.len()), "{}", spoken.len());
    let id = create(&d, json!({ "script_text": text })).await;

    // While it builds, video_data is not ready.
    let (c, v, _) = d.post("/v1/video_data", &json!({ "video_id": id })).await;
    if c != 200 {
        assert_eq!(c, 409, "{v}");
        assert_eq!(v["error"]["code"], "script_not_ready");
    }

    let done = completed(&d, &id).await;
    assert_eq!(done["stage"], "scenes_ready_for_review");

    let (env, tree) = video_data(&d, &id, true).await;
    // The envelope.
    assert_eq!(env["object"], "video_data");
    assert_eq!(env["id"], id.as_str());
    assert_eq!(env["topic_id"], id.as_str());
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
    // A second call publishes a different file.
    let (env2, _) = video_data(&d, &id, false).await;
    assert_ne!(env["data"]["url"], env2["data"]["url"]);

    // The tree's top level.
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
    let segs = tree["segments"].as_array().unwrap();
    assert_eq!(tree["total_segments"], segs.len());
    assert!(segs.len() >= 6, "{}", segs.len());

    // Verbatim narration, in order.
    let got: Vec<String> = segs
        .iter()
        .flat_map(|s| spoken_words(s["text"].as_str().unwrap()))
        .collect();
    assert_eq!(got, spoken);

    let data = d.data_dir();
    let mut uids = std::collections::HashSet::new();
    let mut total = 0.0;
    for (i, s) in segs.iter().enumerate() {
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
        assert!(uids.insert(vf.to_string()));
        assert_eq!(s["scene_uid"], vf);
        assert_eq!(s["scene_index"], i);
        assert_eq!(s["agent_meta"]["stable_scene_id"], vf);
        let kw = s["keyword"].as_str().unwrap().split_whitespace().count();
        assert!((1..=3).contains(&kw), "{s}");
        // Audio: the file's length is the scene's duration.
        let wav = std::fs::read(data.join(format!("videos/{id}/{vf}.wav"))).unwrap();
        let dur = s["duration"].as_f64().unwrap();
        assert!(
            (wav_seconds(&wav) - dur).abs() < 0.002,
            "{vf}: {} vs {dur}",
            wav_seconds(&wav)
        );
        total += dur;
        // Word timings (published beside the audio): one per word, monotonic, inside the audio.
        let audio_url = s["narrator"]["audio_url"].as_str().unwrap();
        let (c, public_wav) = fetch(&d, audio_url).await;
        assert_eq!(c, 200);
        assert_eq!(public_wav.len(), wav.len());
        let (c, words) = fetch(&d, &audio_url.replace(".wav", "_words.json")).await;
        assert_eq!(c, 200);
        let words: Vec<Value> = serde_json::from_slice(&words).unwrap();
        assert_eq!(
            words
                .iter()
                .map(|w| w["word"].as_str().unwrap())
                .collect::<Vec<_>>(),
            s["text"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
        );
        let mut prev = 0.0;
        for w in &words {
            let (a, b) = (w["start"].as_f64().unwrap(), w["end"].as_f64().unwrap());
            assert!(a >= prev - 1e-9 && b >= a && b <= dur + 1e-6, "{words:?}");
            prev = b;
        }
        // Overlays: ready scenes have a fetchable spec inside the typography band.
        match s["remotion_spec_state"].as_str().unwrap() {
            "ready" => {
                let url = s["remotion_spec_url"].as_str().unwrap();
                assert!(url.ends_with(&format!(
                    "{vf}_spec.json?v={}",
                    s["remotion_spec_version"].as_str().unwrap()
                )));
                let (c, spec) = fetch(&d, url).await;
                assert_eq!(c, 200);
                let spec: Value = serde_json::from_slice(&spec).unwrap();
                for g in spec["groups"].as_array().unwrap() {
                    for o in g["objects"].as_array().unwrap() {
                        let (y, h) = (
                            o["rect"]["y"].as_f64().unwrap(),
                            o["rect"]["h"].as_f64().unwrap(),
                        );
                        assert!(y >= 128.0 && y + h <= 960.0, "{o}");
                        let payload = url.rsplit_once('/').unwrap().0.to_string()
                            + "/"
                            + o["payload"]["file"].as_str().unwrap();
                        assert_eq!(fetch(&d, &payload).await.0, 200);
                    }
                }
            }
            "missing" => assert_eq!(s["remotion_spec_url"], ""),
            other => panic!("state {other}"),
        }
    }
    assert!((tree["total_duration"].as_f64().unwrap() - total).abs() < 0.01);

    // Direction: HOOK first on A-roll, CTA last, a STAT for the numbers, both spec states.
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
    // The inline image is a scene's visual; other scenes got B-roll without adjacent repeats.
    let inline = format!("http://{fixture}/image.png");
    let with_image = segs
        .iter()
        .find(|s| s["mediaUrl"] == inline.as_str())
        .expect("inline image used");
    assert_eq!(with_image["mediaType"], "image");
    assert_eq!(with_image["visual"], "a bright yellow square");
    assert_eq!(with_image["broll_source"], "user");
    let brolls: Vec<&Value> = segs.iter().map(|s| &s["visual"]).collect();
    for w in brolls.windows(2) {
        if w[0] != "" {
            assert_ne!(w[0], w[1], "adjacent scenes repeat a visual");
        }
    }
    for s in segs.iter().filter(|s| s["broll_source"] == "library") {
        let (c, _) = fetch(&d, s["mediaUrl"].as_str().unwrap()).await;
        assert_eq!(c, 200, "{s}");
    }

    // Errors.
    let (c, v, _) = d.post("/v1/video_data", &json!({})).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("missing_field"))
    );
    let (c, v, _) = d
        .post(
            "/v1/video_data",
            &json!({ "video_id": "wc0000000000000000000000" }),
        )
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("video_not_found"))
    );
    let (c, v, _) = d
        .post("/v1/video_data", &json!({ "video_id": "nope" }))
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("video_not_found"))
    );
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
    assert_eq!(tree["writer"]["provider"], "extractive");
    assert_eq!(tree["writer"]["research_enabled"], true);
    assert_eq!(tree["writer"]["content_type"], 9);
    let words: usize = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap().split_whitespace().count())
        .sum();
    assert!((150..=250).contains(&words), "short ≈ 90 s: {words} words");
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
