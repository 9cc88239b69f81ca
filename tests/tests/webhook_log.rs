//! The webhook delivery log, black-box: `GET /v1/webhook_deliveries?id=` shows each attempt a
//! real receiver saw (time, status code, latency, error), and
//! `POST /v1/webhook_deliveries/{delivery}/redeliver` sends a delivery again with the same
//! `event_id` and a fresh, valid signature.

use std::time::Duration;

use reelsmith_tests::{Daemon, Receiver, SECRET, script, verify_signature};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(120);

/// A scene-ready video whose first delivery the receiver refuses once with 500.
async fn video_with_one_refusal(d: &Daemon, receiver: &Receiver) -> String {
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(90), "callback_url": receiver.url }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    // processing: 500 then 200; completed: 200.
    receiver.wait_for(3, LONG).await;
    id
}

async fn log(d: &Daemon, id: &str) -> Vec<Value> {
    let (c, v, _) = d.get(&format!("/v1/webhook_deliveries?id={id}")).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (v["object"].as_str(), v["id"].as_str()),
        (Some("list"), Some(id))
    );
    v["data"].as_array().unwrap().clone()
}

fn daemon() -> Daemon {
    Daemon::start(
        BIN,
        &[("REELSMITH__WEBHOOK__RETRY_SCHEDULE_SECS", "[0,1,2]")],
    )
}

#[tokio::test]
async fn the_log_lists_every_attempt_with_its_status_latency_and_error() {
    let receiver = Receiver::start(vec![500]).await;
    let d = daemon();
    let id = video_with_one_refusal(&d, &receiver).await;
    let data = log(&d, &id).await;
    let types: Vec<&str> = data
        .iter()
        .map(|r| r["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["video.processing", "video.completed"],
        "oldest first"
    );
    let processing = &data[0];
    assert_eq!(processing["state"], "delivered", "{processing}");
    assert_eq!(processing["url"], receiver.url.as_str());
    let attempts = processing["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{processing}");
    assert_eq!(
        (
            attempts[0]["number"].as_u64(),
            attempts[0]["status_code"].as_u64()
        ),
        (Some(1), Some(500))
    );
    assert!(attempts[0]["error"].as_str().unwrap().contains("500"));
    assert!(attempts[0]["latency_ms"].is_u64() && attempts[0]["at"].is_string());
    assert_eq!(
        (attempts[1]["status_code"].as_u64(), &attempts[1]["error"]),
        (Some(200), &Value::Null)
    );
    // The delivery id the receiver saw is the one the log names.
    let seen = receiver.deliveries()[0].header("X-Service-Delivery");
    assert_eq!(processing["delivery"], seen.as_str());
}

#[tokio::test]
async fn a_redelivery_carries_the_same_event_id_and_a_fresh_valid_signature() {
    let receiver = Receiver::start(vec![500]).await;
    let d = daemon();
    let id = video_with_one_refusal(&d, &receiver).await;
    let completed = log(&d, &id).await[1].clone();
    let delivery = completed["delivery"].as_str().unwrap();
    let before = receiver.deliveries().len();
    tokio::time::sleep(Duration::from_millis(1100)).await; // a later signature timestamp

    let (c, v, _) = d
        .post(
            &format!("/v1/webhook_deliveries/{delivery}/redeliver"),
            &json!({}),
        )
        .await;
    assert_eq!((c, v["state"].as_str()), (202, Some("pending")), "{v}");
    let got = receiver.wait_for(before + 1, LONG).await;
    let again = &got[before];
    let first = got
        .iter()
        .find(|r| r.header("X-Service-Delivery") == delivery)
        .unwrap();
    assert_eq!(
        again.header("X-Service-Event"),
        completed["event_id"].as_str().unwrap()
    );
    assert_eq!(again.body, first.body, "the same event, byte for byte");
    assert_ne!(
        again.header("X-Service-Signature"),
        first.header("X-Service-Signature")
    );
    assert!(verify_signature(
        SECRET,
        &again.header("X-Service-Signature"),
        &again.body
    ));
    assert_eq!(again.header("X-Service-Attempt"), "2");
    let after = log(&d, &id).await[1].clone();
    let deadline = std::time::Instant::now() + LONG;
    let mut after = after;
    while after["state"] != "delivered" && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        after = log(&d, &id).await[1].clone();
    }
    assert_eq!(after["attempts"].as_array().unwrap().len(), 2, "{after}");
}

#[tokio::test]
async fn during_a_secret_rotation_each_secret_gives_a_v1_and_a_receiver_verifies_with_either() {
    const OLD: &str = "the-previous-signing-secret-0123456789";
    let receiver = Receiver::start(vec![]).await;
    let d = Daemon::start(
        BIN,
        &[(
            "REELSMITH__WEBHOOK__PREVIOUS_SIGNING_SECRETS",
            &format!("[\"{OLD}\"]"),
        )],
    );
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(90), "callback_url": receiver.url }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let got = receiver.wait_for(1, LONG).await;
    let header = got[0].header("X-Service-Signature");
    let parts: Vec<&str> = header.split(',').collect();
    assert_eq!(parts.len(), 3, "t, then one v1 per secret: {header}");
    assert!(parts[0].starts_with("t=") && parts[1..].iter().all(|p| p.starts_with("v1=")));
    assert_ne!(parts[1], parts[2]);
    for secret in [SECRET, OLD] {
        assert!(verify_signature(secret, &header, &got[0].body), "{secret}");
    }
    assert!(!verify_signature(
        "a-third-secret-nobody-configured",
        &header,
        &got[0].body
    ));
}

#[tokio::test]
async fn one_secret_gives_the_spec_header_exactly() {
    let receiver = Receiver::start(vec![]).await;
    let d = daemon();
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(90), "callback_url": receiver.url }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let got = receiver.wait_for(1, LONG).await;
    let header = got[0].header("X-Service-Signature");
    let parts: Vec<&str> = header.split(',').collect();
    assert_eq!(parts.len(), 2, "{header}");
    assert!(parts[0].starts_with("t=") && parts[1].starts_with("v1=") && parts[1].len() == 67);
    assert!(verify_signature(SECRET, &header, &got[0].body));
}

#[tokio::test]
async fn unknown_deliveries_and_jobs_are_clear_errors() {
    let d = daemon();
    let (c, v, _) = d
        .post("/v1/webhook_deliveries/000000000000/redeliver", &json!({}))
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("delivery_not_found")),
        "{v}"
    );
    let (c, v, _) = d.get("/v1/webhook_deliveries").await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("missing_field")),
        "{v}"
    );
    let (c, v, _) = d.get("/v1/webhook_deliveries?id=bad!").await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("invalid_id")),
        "{v}"
    );
    let (c, v, _) = d.get("/v1/webhook_deliveries?id=wcNoSuchVideo").await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("video_not_found")),
        "{v}"
    );
}

/// The spec's schedule, seconds from the event's creation.
const SPEC_SCHEDULE: [u64; 10] = [0, 60, 300, 900, 1800, 3600, 10800, 21600, 43200, 86400];

#[tokio::test]
async fn a_refused_event_is_tried_on_the_specs_schedule_ten_times_then_dropped() {
    // Four hours of schedule per second: the ten attempts take 6 s.
    let scale = 14_400;
    let receiver = Receiver::start(vec![500; 40]).await;
    let d = Daemon::start(BIN, &[("REELSMITH__WEBHOOK__TIME_SCALE", "14400")]);
    let body = json!({ "script_text": script(85), "callback_url": receiver.url });
    let (c, v, _) = d.post("/v1/create_video", &body).await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let processing = || -> Vec<_> {
        receiver
            .deliveries()
            .into_iter()
            .filter(|r| r.json()["event_type"] == "video.processing")
            .collect()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while processing().len() < 10 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Room for an eleventh attempt, which must not come.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let processing = processing();
    let numbers: Vec<String> = processing
        .iter()
        .map(|r| r.header("x-service-attempt"))
        .collect();
    assert_eq!(numbers, (1..=10).map(|n| n.to_string()).collect::<Vec<_>>());
    let first = processing[0].at;
    for (r, secs) in processing.iter().zip(SPEC_SCHEDULE) {
        let seen = r.at.duration_since(first).as_millis() as i64;
        let due = (secs * 1000 / scale) as i64;
        assert!(
            (due - 250..=due + 1500).contains(&seen),
            "attempt {} at {seen} ms, due at {due} ms",
            r.header("x-service-attempt")
        );
    }
    let data = log(&d, &id).await;
    assert_eq!(data[0]["state"], "failed", "dropped after ten: {}", data[0]);
    assert_eq!(data[0]["attempts"].as_array().unwrap().len(), 10);
}

/// The spec's inbox page: opening `{app_url}/webhook_test` in a browser makes an inbox and
/// shows its `callback_url` (escaped); deliveries sent there read back as the spec's JSON.
#[tokio::test]
async fn opening_the_inbox_page_in_a_browser_makes_a_working_inbox() {
    let d = Daemon::start(BIN, &[("REELSMITH__APP_URL", "http://inbox.test/a&b")]);
    let page = inbox_page(&d).await;
    let shown = page
        .split("<code id=\"callback_url\">")
        .nth(1)
        .and_then(|s| s.split("</code>").next())
        .unwrap_or_else(|| panic!("no callback_url on the page: {page}"));
    assert!(
        shown.starts_with("http://inbox.test/a&amp;b/webhook_test/"),
        "{page}"
    );
    assert!(!page.contains("a&b"), "the URL is escaped: {page}");
    let callback_url = shown.replace("&amp;", "&");
    let inbox = callback_url.rsplit('/').next().unwrap();
    let path = format!("/app/webhook_test/{inbox}");
    let r = d
        .http
        .post(d.url(&path))
        .json(&json!({ "hello": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (c, v, _) = d.get(&path).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["object"], "webhook_test_inbox");
    assert_eq!(v["callback_url"], callback_url.as_str());
    assert_eq!(v["count"], 1);
    assert_eq!(v["deliveries"][0]["body"]["hello"], 1);
    // Each visit makes a new inbox.
    assert_ne!(inbox_page(&d).await, page);
}

/// `GET /app/webhook_test` as a browser opens it: the HTML page, never cached.
async fn inbox_page(d: &Daemon) -> String {
    let r = d.http.get(d.url("/app/webhook_test")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let kind = r.headers()["content-type"].to_str().unwrap().to_string();
    assert!(kind.starts_with("text/html"), "{kind}");
    assert_eq!(r.headers()["cache-control"], "no-store");
    r.text().await.unwrap()
}
