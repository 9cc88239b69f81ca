//! Backpressure, black-box: new work over the queue's bounds is answered 429 with
//! `Retry-After`, nothing is queued for it, and work is taken again once jobs finish.

use std::time::Duration;

use reelsmith_tests::{Daemon, script};
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
