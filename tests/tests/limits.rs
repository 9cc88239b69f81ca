//! Backpressure, black-box: new work over the queue's bounds is answered 429 with
//! `Retry-After`, nothing is queued for it, and work is taken again once jobs finish. And the
//! narration bound: a video holds only as much narration as its source allows, measured on
//! what the voice really spoke, whatever the text's word count promised.

use std::time::Duration;

use reelsmith_tests::speech::{Answer, SpeechServer, pairs};
use reelsmith_tests::{Daemon, Receiver, script};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(120);

async fn create(d: &Daemon) -> (u16, Value, String) {
    let body = json!({ "script_text": script(85), "output_type": "scene" });
    let (c, v, h) = d.post("/v1/create_video", &body).await;
    let retry = h
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (c, v, retry)
}

#[tokio::test]
async fn jobs_over_the_account_limit_get_429_until_one_finishes() {
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__QUEUE__MAX_JOBS_PER_ACCOUNT", "2"),
            ("REELSMITH__QUEUE__RETRY_AFTER_SECS", "7"),
        ],
    );
    let (a, first, _) = create(&d).await;
    let (b, _, _) = create(&d).await;
    assert_eq!((a, b), (202, 202));
    let (c, v, retry) = create(&d).await;
    assert_eq!(c, 429, "{v}");
    assert_eq!(v["error"]["code"], "too_many_jobs", "{v}");
    assert_eq!(v["error"]["details"]["max_jobs"], 2);
    assert_eq!(v["error"]["details"]["retry_after_seconds"], 7);
    assert_eq!(retry, "7");
    let (_, list, _) = d.get("/v1/videos").await;
    assert_eq!(
        list["data"].as_array().map(Vec::len),
        Some(2),
        "nothing queued: {list}"
    );
    let id = first["id"].as_str().unwrap();
    d.wait_for(id, LONG, |v| {
        v["status"] != "processing" || v["stage"] == "scenes_ready_for_review"
    })
    .await;
    let (c, v, _) = create(&d).await;
    assert_eq!(c, 202, "a finished job frees its place: {v}");
}

#[tokio::test]
async fn a_full_queue_gets_429_queue_full() {
    let d = Daemon::start(BIN, &[("REELSMITH__QUEUE__MAX_JOBS", "1")]);
    let (a, _, _) = create(&d).await;
    assert_eq!(a, 202);
    let (c, v, retry) = create(&d).await;
    assert_eq!(c, 429, "{v}");
    assert_eq!(v["error"]["code"], "queue_full", "{v}");
    assert_eq!(v["error"]["type"], "rate_limit_error");
    assert_eq!(retry, "30");
}

/// Creates a video from `request` and waits until it leaves `processing`.
async fn outcome(d: &Daemon, request: Value) -> Value {
    let (c, v, _) = d.post("/v1/create_video", &request).await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    d.wait_for(&id, Duration::from_secs(300), |v| {
        v["status"] != "processing"
    })
    .await
}

#[tokio::test]
async fn narration_past_five_minutes_fails_the_job_and_stops_the_voice() {
    // Each scene's narration is 110 s: the third passes 300 s.
    let speech = SpeechServer::start(Answer::Seconds(110.0), false).await;
    let d = Daemon::start(BIN, &pairs(&speech.env()));
    let hook = Receiver::start(vec![]).await;
    let done = outcome(
        &d,
        json!({ "script_text": script(100), "output_type": "video", "callback_url": hook.url }),
    )
    .await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], "narration_too_long", "{done}");
    assert_eq!(
        speech.requests(),
        3,
        "the voice stops once the bound is passed"
    );
    let failed = hook.wait_for(2, LONG).await;
    assert!(
        failed
            .iter()
            .any(|r| r.json()["data"]["error"]["code"] == "narration_too_long"),
        "video.failed carries the code"
    );
}

#[tokio::test]
async fn a_short_idea_holds_at_most_two_minutes_of_narration() {
    let speech = SpeechServer::start(Answer::Seconds(121.0), false).await;
    let d = Daemon::start(BIN, &pairs(&speech.env()));
    let done = outcome(
        &d,
        json!({ "source": "idea", "idea_text": "Why a morning walk clears the mind", "video_length": "short" }),
    )
    .await;
    assert_eq!(done["error"]["code"], "narration_too_long", "{done}");
    assert_eq!(speech.requests(), 1);
}

#[tokio::test]
async fn digit_tokens_cannot_make_a_long_video() {
    // 150 tokens the word count accepts, each read digit by digit (about 9 s apiece).
    let d = Daemon::start(BIN, &[]);
    let digits = vec!["9.99999999999999999999999999"; 150].join(" ");
    let done = outcome(&d, json!({ "script_text": digits })).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], "narration_too_long", "{done}");
}

#[tokio::test]
async fn four_hundred_long_ordinary_words_are_accepted_and_spoken() {
    let d = Daemon::start(BIN, &[]);
    let sentence = "Responsibilities, organisations and communications require extraordinary \
                    understanding, considerable determination and unquestionable professionalism.";
    let words: Vec<&str> = sentence.split_whitespace().cycle().take(400).collect();
    let done = outcome(&d, json!({ "script_text": words.join(" ") })).await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
}
