//! The job lifecycle end to end with real stages (espeak-ng narration, the
//! native compositor, GStreamer MP4), a real webhook receiver, retries,
//! abandon, at-most-once terminal events and SIGKILL-restart resume.

use std::time::Duration;

use reelsmith_tests::speech::{Answer, SpeechServer, pairs};
use reelsmith_tests::{Daemon, Receiver, SECRET, fixture_server, script, verify_signature};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(240);

fn events(r: &Receiver, id: &str) -> Vec<(String, Value, reelsmith_tests::Received)> {
    r.deliveries()
        .into_iter()
        .filter_map(|d| {
            let v = d.json();
            (v["data"]["id"] == id).then(|| (v["event_type"].as_str().unwrap().to_string(), v, d))
        })
        .collect()
}

#[tokio::test]
async fn scene_review_then_export_with_signed_webhooks() {
    let fixture = fixture_server().await;
    let allow = format!("[\"{fixture}\"]");
    let d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
    let hook = Receiver::start(vec![]).await;
    let text = format!(
        "{}\n![a bright yellow square](http://{fixture}/image.png)\n{}",
        script(40),
        script(50)
    );
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": text, "callback_url": hook.url, "metadata": { "k": 1 } }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();

    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["stage"], "scenes_ready_for_review");
    assert_eq!(done["progress"], 1.0);
    assert_eq!(done["details"]["step"], 5);
    let review = done["result"]["review_url"].as_str().unwrap().to_string();
    assert!(done["result"].get("video_url").is_none());
    // The review page opens without auth; a wrong token does not.
    let page = d.http.get(&review).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("A-roll"));
    let bad = d
        .http
        .get(review.replace("token=", "token=0"))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 404);

    // Export: 202 with rendering_video and progress ≥ 0.85, then 200.
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 202, "{v}");
    assert_eq!(v["status"], "processing");
    assert_eq!(v["stage"], "rendering_video");
    assert_eq!(v["output_type"], "video");
    assert!(v["progress"].as_f64().unwrap() >= 0.85);
    let (c, v2, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 200, "{v2}");

    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["details"]["step"], 7);
    let video_url = done["result"]["video_url"].as_str().unwrap().to_string();
    assert!(video_url.ends_with(".mp4"));
    // Public, no auth, a real MP4 with moov before mdat.
    let bytes = reqwest::get(&video_url)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(&bytes[4..8], b"ftyp");
    let moov = bytes.windows(4).position(|w| w == b"moov").unwrap();
    let mdat = bytes.windows(4).position(|w| w == b"mdat").unwrap();
    assert!(moov < mdat, "faststart: moov first");
    // A third export is a no-op.
    let (c, _, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 200);

    // Webhooks: processing once, completed twice (review, then video).
    hook.wait_for(3, Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let ev = events(&hook, &id);
    let kinds: Vec<&str> = ev.iter().map(|(k, _, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        ["video.processing", "video.completed", "video.completed"],
        "{kinds:?}"
    );
    assert!(ev[1].1["data"]["result"]["review_url"].is_string());
    assert!(ev[1].1["data"]["result"].get("video_url").is_none());
    assert_eq!(ev[2].1["data"]["result"]["video_url"], video_url.as_str());
    let mut ids = std::collections::HashSet::new();
    for (kind, body, raw) in &ev {
        assert_eq!(body["api_version"], "0.1.0");
        let eid = body["event_id"].as_str().unwrap();
        assert!(eid.starts_with("evt_") && eid.len() == 28);
        assert!(ids.insert(eid.to_string()), "event ids are unique");
        assert_eq!(raw.header("x-service-event"), eid);
        assert_eq!(raw.header("x-service-event-type"), kind.as_str());
        assert_eq!(raw.header("user-agent"), "Service-Webhook/0.1.0");
        assert_eq!(raw.header("content-type"), "application/json");
        assert_eq!(raw.header("x-service-attempt"), "1");
        assert!(!raw.header("x-service-delivery").is_empty());
        assert!(verify_signature(
            SECRET,
            &raw.header("x-service-signature"),
            &raw.body
        ));
        assert!(!verify_signature(
            "wrong-secret",
            &raw.header("x-service-signature"),
            &raw.body
        ));
        assert_eq!(body["data"]["metadata"]["k"], 1);
    }
}

#[tokio::test]
async fn retries_on_5xx_abandons_on_4xx_and_failure_fires_once() {
    let fixture = fixture_server().await;
    let allow = format!("[\"{fixture}\"]");
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__FETCH__ALLOW", &allow),
            ("REELSMITH__WEBHOOK__RETRY_SCHEDULE_SECS", "[0, 1, 2, 3]"),
        ],
    );
    // 1st receiver: two server errors, then success → 3 attempts of the first event.
    let flaky = Receiver::start_for(Some("video.processing"), vec![503, 500]).await;
    // The inline image 404s: the job fails during the media step.
    let text = format!(
        "{}\nhttp://{fixture}/missing.png\n{}",
        script(45),
        script(45)
    );
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": text, "callback_url": flaky.url }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], "media_fetch_failed");
    assert!(done["error"]["message"].as_str().unwrap().contains("404"));

    flaky.wait_for(4, Duration::from_secs(20)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let ev = events(&flaky, &id);
    let processing: Vec<_> = ev
        .iter()
        .filter(|(k, _, _)| k == "video.processing")
        .collect();
    let attempts: Vec<String> = processing
        .iter()
        .map(|(_, _, r)| r.header("x-service-attempt"))
        .collect();
    assert_eq!(attempts, ["1", "2", "3"], "retried with attempt numbers");
    let eids: std::collections::HashSet<_> = processing
        .iter()
        .map(|(_, b, _)| b["event_id"].clone())
        .collect();
    assert_eq!(eids.len(), 1, "one event, several attempts");
    let bodies: std::collections::HashSet<_> =
        processing.iter().map(|(_, _, r)| r.body.clone()).collect();
    assert_eq!(bodies.len(), 1, "the same body every attempt");
    let failed: Vec<_> = ev.iter().filter(|(k, _, _)| k == "video.failed").collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].1["data"]["error"]["code"], "media_fetch_failed");
    assert!(
        ev.iter().all(|(k, _, _)| k != "video.completed"),
        "never both"
    );

    // 2nd receiver: a 404 abandons at once (no retry).
    let gone = Receiver::start(vec![404, 404, 404, 404]).await;
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "source": "idea", "idea_text": script(40), "output_type": "text", "callback_url": gone.url }),
        )
        .await;
    assert_eq!(c, 202);
    let id2 = v["id"].as_str().unwrap().to_string();
    d.wait_for(&id2, LONG, |v| v["status"] != "processing")
        .await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let ev = events(&gone, &id2);
    let kinds: Vec<(&str, String)> = ev
        .iter()
        .map(|(k, _, r)| (k.as_str(), r.header("x-service-attempt")))
        .collect();
    assert_eq!(
        kinds,
        [
            ("video.processing", "1".to_string()),
            ("video.completed", "1".to_string())
        ],
        "each event tried once"
    );
}

#[tokio::test]
async fn sigkill_mid_job_resumes_after_restart() {
    let mut d = Daemon::start(BIN, &[("REELSMITH__RENDER__LEASE_SECS", "600")]);
    let hook = Receiver::start(vec![]).await;
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(120), "output_type": "video", "callback_url": hook.url }),
        )
        .await;
    assert_eq!(c, 202);
    let id = v["id"].as_str().unwrap().to_string();
    // Kill once real work has started.
    d.wait_for(&id, LONG, |v| {
        v["details"]["step"].as_u64().unwrap_or(0) >= 3
    })
    .await;
    d.kill_and_restart();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(
        done["result"]["video_url"]
            .as_str()
            .unwrap()
            .ends_with(".mp4")
    );
    hook.wait_for(2, Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let kinds: Vec<String> = events(&hook, &id).into_iter().map(|(k, _, _)| k).collect();
    assert_eq!(
        kinds,
        ["video.processing", "video.completed"],
        "nothing lost, nothing twice"
    );
}

/// The fields of a status object that an export must leave alone when it refuses.
fn state(v: &Value) -> Value {
    json!({
        "status": v["status"], "stage": v["stage"], "output_type": v["output_type"],
        "step": v["details"]["step"], "progress": v["progress"], "error": v["error"],
    })
}

/// `export_video` of `id` is 409 `scenes_not_ready` with `param: id`, and the video's status
/// is what it was before the call.
async fn assert_export_refused(d: &Daemon, id: &str) {
    let (_, before, _) = d.get(&format!("/v1/status/{id}")).await;
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 409, "{v}");
    assert_eq!(v["error"]["code"], "scenes_not_ready", "{v}");
    assert_eq!(v["error"]["param"], "id", "{v}");
    let (_, after, _) = d.get(&format!("/v1/status/{id}")).await;
    assert_eq!(
        state(&after),
        state(&before),
        "a refused export changes nothing"
    );
}

/// A daemon whose voice is `speech`, and a video of `output_type` held at its voice step.
async fn held_build(speech: &SpeechServer, output_type: &str, hook: &Receiver) -> (Daemon, String) {
    let d = Daemon::start(BIN, &pairs(&speech.env()));
    let request =
        json!({ "script_text": script(90), "output_type": output_type, "callback_url": hook.url });
    let (c, v, _) = d.post("/v1/create_video", &request).await;
    assert_eq!(c, 202, "{v}");
    speech.wait_for_request(LONG).await;
    (d, v["id"].as_str().unwrap().to_string())
}

#[tokio::test]
async fn export_while_the_scenes_build_is_409_and_the_build_finishes_as_asked() {
    let speech = SpeechServer::start(Answer::Seconds(2.0), true).await;
    let hook = Receiver::start(vec![]).await;
    let (d, id) = held_build(&speech, "scene", &hook).await;
    assert_export_refused(&d, &id).await;

    speech.open();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
    assert_eq!(
        done["output_type"], "scene",
        "the refused export promoted nothing: {done}"
    );
    assert!(done["result"].get("video_url").is_none(), "{done}");
    hook.wait_for(2, Duration::from_secs(30)).await;
    let kinds: Vec<String> = events(&hook, &id).into_iter().map(|(k, _, _)| k).collect();
    assert_eq!(kinds, ["video.processing", "video.completed"], "{kinds:?}");
    // Nothing was queued behind the build: a later export is the first one.
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(
        (c, v["stage"].as_str()),
        (202, Some("rendering_video")),
        "{v}"
    );
}

#[tokio::test]
async fn export_while_a_video_builds_is_409_and_during_its_render_is_200() {
    let speech = SpeechServer::start(Answer::Seconds(2.0), true).await;
    let hook = Receiver::start(vec![]).await;
    let (d, id) = held_build(&speech, "video", &hook).await;
    assert_export_refused(&d, &id).await;

    speech.open();
    // The render chains by itself; an export while it is queued, running or done queues nothing.
    let rendering = d
        .wait_for(&id, LONG, |v| v["details"]["step"].as_u64() >= Some(6))
        .await;
    assert_eq!(rendering["stage"], "rendering_video", "{rendering}");
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 200, "{v}");
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(
        done["result"]["video_url"]
            .as_str()
            .is_some_and(|u| u.ends_with(".mp4"))
    );
}

#[tokio::test]
async fn export_of_a_failed_build_is_409() {
    let speech = SpeechServer::start(Answer::Status(500), false).await;
    let d = Daemon::start(BIN, &pairs(&speech.env()));
    let (c, v, _) = d
        .post("/v1/create_video", &json!({ "script_text": script(90) }))
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let failed = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_export_refused(&d, &id).await;
}

#[tokio::test]
async fn export_of_a_script_only_job_is_409() {
    let d = Daemon::start(BIN, &[]);
    let request = json!({
        "source": "idea", "idea_text": "Why a short walk after lunch helps you focus all afternoon",
        "output_type": "text",
    });
    let (c, v, _) = d.post("/v1/create_video", &request).await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_export_refused(&d, &id).await;
}
