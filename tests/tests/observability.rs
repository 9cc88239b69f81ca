//! `/metrics`, black-box: after a video is made, rendered and its webhooks delivered, a scrape
//! parsed exactly (`parse_prometheus`) has jobs by state, queue depth, render fps, encode time,
//! webhook attempts and HTTP requests by route template and status with latency histograms —
//! with sane values and no ids in any label. `metrics.require_key` puts it behind an API key.

use std::time::Duration;

use reelsmith_tests::{Daemon, Receiver, Sample, parse_prometheus, script};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(300);

async fn scrape(d: &Daemon, key: Option<&str>) -> (u16, String) {
    let mut req = d.http.get(d.url("/metrics"));
    if let Some(key) = key {
        req = req.bearer_auth(key);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    if status == 200 {
        assert!(
            r.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/plain; version=0.0.4"),
            "{:?}",
            r.headers()
        );
    }
    (status, r.text().await.unwrap())
}

fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
}

#[tokio::test]
async fn a_scrape_after_a_rendered_video_has_every_series_with_sane_values() {
    let receiver = Receiver::start(vec![]).await;
    let d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(90), "output_type": "video",
                     "callback_url": receiver.url }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    receiver.wait_for(2, LONG).await;
    // The last attempt's bookkeeping lands right after the receiver answered.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let (c, text) = scrape(&d, None).await;
    assert_eq!(c, 200, "{text}");
    let (samples, types) = parse_prometheus(&text);
    for (family, kind) in [
        ("reelsmith_jobs", "gauge"),
        ("reelsmith_queue_depth", "gauge"),
        ("reelsmith_job_runs_total", "counter"),
        ("reelsmith_render_fps", "histogram"),
        ("reelsmith_encode_seconds", "histogram"),
        ("reelsmith_webhook_attempts_total", "counter"),
        ("reelsmith_http_requests_total", "counter"),
        ("reelsmith_http_request_duration_seconds", "histogram"),
    ] {
        assert_eq!(
            types.get(family).map(String::as_str),
            Some(kind),
            "{family}\n{text}"
        );
    }

    assert_eq!(
        value(&samples, "reelsmith_jobs", &[("state", "completed")]),
        Some(1.0)
    );
    assert_eq!(
        value(&samples, "reelsmith_jobs", &[("state", "processing")]),
        Some(0.0)
    );
    assert_eq!(
        value(&samples, "reelsmith_queue_depth", &[("state", "waiting")]),
        Some(0.0)
    );
    assert_eq!(
        value(
            &samples,
            "reelsmith_job_runs_total",
            &[("task", "render"), ("outcome", "ok")]
        ),
        Some(1.0)
    );
    let fps_count = value(&samples, "reelsmith_render_fps_count", &[("size", "full")]);
    let fps_sum = value(&samples, "reelsmith_render_fps_sum", &[("size", "full")]).unwrap();
    assert_eq!(fps_count, Some(1.0), "{text}");
    assert!(fps_sum > 1.0 && fps_sum < 10_000.0, "fps {fps_sum}");
    let encode = value(
        &samples,
        "reelsmith_encode_seconds_sum",
        &[("size", "full")],
    )
    .unwrap();
    assert!(encode > 0.0 && encode < 300.0, "encode {encode} s");
    assert_eq!(
        value(
            &samples,
            "reelsmith_webhook_attempts_total",
            &[("result", "delivered")]
        ),
        Some(2.0),
        "processing and completed"
    );
    let create = [
        ("route", "/v1/create_video"),
        ("method", "POST"),
        ("status", "202"),
    ];
    assert_eq!(
        value(&samples, "reelsmith_http_requests_total", &create),
        Some(1.0)
    );
    let polls = value(
        &samples,
        "reelsmith_http_requests_total",
        &[
            ("route", "/v1/status/{id}"),
            ("method", "GET"),
            ("status", "200"),
        ],
    )
    .unwrap();
    assert!(polls >= 1.0, "{polls}");
    // The latency histogram: cumulative buckets ending in +Inf equal to the count.
    let route = [("route", "/v1/status/{id}"), ("method", "GET")];
    let count = value(
        &samples,
        "reelsmith_http_request_duration_seconds_count",
        &route,
    )
    .unwrap();
    let inf = value(
        &samples,
        "reelsmith_http_request_duration_seconds_bucket",
        &[route[0], route[1], ("le", "+Inf")],
    );
    assert_eq!(inf, Some(count));
    let buckets: Vec<f64> = samples
        .iter()
        .filter(|s| {
            s.name == "reelsmith_http_request_duration_seconds_bucket"
                && s.labels.get("route").map(String::as_str) == Some("/v1/status/{id}")
        })
        .map(|s| s.value)
        .collect();
    assert!(
        buckets.len() > 5 && buckets.windows(2).all(|w| w[0] <= w[1]),
        "{buckets:?}"
    );
    // No label carries an id.
    for s in &samples {
        for v in s.labels.values() {
            assert!(!v.contains(&id), "{s:?}");
        }
    }
}

#[tokio::test]
async fn require_key_puts_metrics_behind_an_api_key() {
    let d = Daemon::start(BIN, &[("REELSMITH__METRICS__REQUIRE_KEY", "true")]);
    let (c, _) = scrape(&d, None).await;
    assert_eq!(c, 401);
    let (c, text) = scrape(&d, Some(&d.key)).await;
    assert_eq!(c, 200, "{text}");
    parse_prometheus(&text);
}

#[tokio::test]
async fn log_lines_of_a_request_and_of_its_job_carry_request_id_topic_id_and_job() {
    let d = Daemon::start(BIN, &[]);
    let (c, v, headers) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(90), "output_type": "scene" }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let request_id = v["request_id"].as_str().unwrap().to_string();
    assert_eq!(headers["x-request-id"].to_str().unwrap(), request_id);
    d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    let log = d.log_lines();
    // The request's own line: its span names the reply's request id and, once known, the topic.
    let accepted = log
        .iter()
        .find(|l| l.contains("video job accepted"))
        .expect("the accept line");
    assert!(
        accepted.contains(&format!("request_id={request_id}"))
            && accepted.contains(&format!("topic_id={id}")),
        "{accepted}"
    );
    // The job's lines: every one inside the `job` span names the task and the topic.
    let job_lines: Vec<&String> = log.iter().filter(|l| l.contains("job{")).collect();
    assert!(job_lines.len() >= 2, "{log:#?}");
    for line in job_lines {
        assert!(
            line.contains("job=Build") || line.contains("job=Render"),
            "{line}"
        );
        assert!(line.contains(&format!("topic_id={id}")), "{line}");
    }
}
