//! The service's metrics, through the `metrics` facade: names, labels and the places that record
//! them live here, so `/metrics` (rendered by the HTTP layer from the Prometheus recorder it
//! installs) lists one coherent set. Without an installed recorder (unit tests, one-shot
//! commands) every call is a no-op.
//!
//! | series | type | labels |
//! |---|---|---|
//! | `reelsmith_jobs` | gauge, read from the store at each scrape | `state`: processing, completed, failed |
//! | `reelsmith_queue_depth` | gauge, read at each scrape | `state`: waiting, leased, scheduled |
//! | `reelsmith_job_runs_total` | counter | `task`, `outcome` (ok, failed) |
//! | `reelsmith_render_fps` | histogram | `size` (full, half) |
//! | `reelsmith_encode_seconds` | histogram | `size` |
//! | `reelsmith_webhook_attempts_total` | counter | `result`: delivered, retry, abandoned, dropped |
//! | `reelsmith_webhook_failures_total` | counter (deliveries given up) | |
//! | `reelsmith_http_requests_total` | counter | `route`, `method`, `status` |
//! | `reelsmith_http_request_duration_seconds` | histogram | `route`, `method` |

use std::time::Duration;

use crate::model::{JobStatus, Task};
use crate::store::{Store, StoreResult};
use crate::time::now;

pub(crate) const JOBS: &str = "reelsmith_jobs";
pub(crate) const QUEUE_DEPTH: &str = "reelsmith_queue_depth";
pub(crate) const JOB_RUNS: &str = "reelsmith_job_runs_total";
pub const RENDER_FPS: &str = "reelsmith_render_fps";
pub(crate) const ENCODE_SECONDS: &str = "reelsmith_encode_seconds";
pub(crate) const WEBHOOK_ATTEMPTS: &str = "reelsmith_webhook_attempts_total";
pub(crate) const WEBHOOK_FAILURES: &str = "reelsmith_webhook_failures_total";
pub(crate) const HTTP_REQUESTS: &str = "reelsmith_http_requests_total";
pub(crate) const HTTP_DURATION: &str = "reelsmith_http_request_duration_seconds";

/// Histogram buckets, by series suffix: seconds for durations, frames per second for fps.
pub const SECONDS_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];
pub const FPS_BUCKETS: &[f64] = &[5.0, 10.0, 15.0, 24.0, 30.0, 45.0, 60.0, 90.0, 120.0, 240.0];

/// Describes every series once (their `# HELP` lines); call after installing the recorder.
pub fn describe() {
    metrics::describe_gauge!(
        JOBS,
        "Jobs (videos, written content, publish requests) by state."
    );
    metrics::describe_gauge!(
        QUEUE_DEPTH,
        "Queued tasks: waiting, leased by a worker, or scheduled."
    );
    metrics::describe_counter!(
        JOB_RUNS,
        "Queued tasks run by the workers, by task and outcome."
    );
    metrics::describe_histogram!(
        RENDER_FPS,
        "Frames per second of finished renders (encode included)."
    );
    metrics::describe_histogram!(
        ENCODE_SECONDS,
        "Wall time of an MP4 encode, rendering included, in seconds."
    );
    metrics::describe_counter!(WEBHOOK_ATTEMPTS, "Webhook delivery attempts, by result.");
    metrics::describe_counter!(
        WEBHOOK_FAILURES,
        "Webhook deliveries given up (4xx, last attempt or too old)."
    );
    metrics::describe_counter!(
        HTTP_REQUESTS,
        "HTTP requests answered, by route template, method and status."
    );
    metrics::describe_histogram!(
        HTTP_DURATION,
        "HTTP request latency in seconds, by route template and method."
    );
}

/// Sets the gauges that are read from the store (jobs by state, queue depth): called right
/// before a scrape renders, so they are exact at that moment. One read transaction each.
pub fn refresh(store: &Store) -> StoreResult<()> {
    let mut states = [0u64; 3];
    for (_, job) in store.jobs()? {
        states[match job.status {
            JobStatus::Processing => 0,
            JobStatus::Completed => 1,
            JobStatus::Failed => 2,
        }] += 1;
    }
    for (status, n) in [
        JobStatus::Processing,
        JobStatus::Completed,
        JobStatus::Failed,
    ]
    .into_iter()
    .zip(states)
    {
        metrics::gauge!(JOBS, "state" => status.as_str()).set(n as f64);
    }
    let t = now();
    let (mut waiting, mut leased, mut scheduled) = (0u64, 0u64, 0u64);
    for (_, e) in store.queue()? {
        if e.lease_until.is_some_and(|u| u > t) {
            leased += 1;
        } else if e.not_before.is_some_and(|at| at > t) {
            scheduled += 1;
        } else {
            waiting += 1;
        }
    }
    for (state, n) in [
        ("waiting", waiting),
        ("leased", leased),
        ("scheduled", scheduled),
    ] {
        metrics::gauge!(QUEUE_DEPTH, "state" => state).set(n as f64);
    }
    Ok(())
}

fn task_label(task: Task) -> &'static str {
    match task {
        Task::Build => "build",
        Task::Render => "render",
        Task::Write => "write",
        Task::Publish => "publish",
    }
}

/// A task a worker ran, and whether it succeeded.
pub(crate) fn job_run(task: Task, ok: bool) {
    let outcome = if ok { "ok" } else { "failed" };
    metrics::counter!(JOB_RUNS, "task" => task_label(task), "outcome" => outcome).increment(1);
}

/// A finished encode: its frames per second and wall time; `half` for the editor's previews.
pub fn encode(frames: u64, wall: Duration, half: bool) {
    let size = if half { "half" } else { "full" };
    let secs = wall.as_secs_f64();
    metrics::histogram!(ENCODE_SECONDS, "size" => size).record(secs);
    if secs > 0.0 {
        metrics::histogram!(RENDER_FPS, "size" => size).record(frames as f64 / secs);
    }
}

/// One webhook attempt's result (`delivered`, `retry`, `abandoned`, `dropped`); the last two
/// also count a delivery given up.
pub(crate) fn webhook_attempt(result: &'static str) {
    metrics::counter!(WEBHOOK_ATTEMPTS, "result" => result).increment(1);
    if matches!(result, "abandoned" | "dropped") {
        metrics::counter!(WEBHOOK_FAILURES).increment(1);
    }
}

/// One answered HTTP request: `route` is a route template (bounded), never a raw path.
pub fn http_request(route: &str, method: &str, status: u16, elapsed: Duration) {
    metrics::counter!(HTTP_REQUESTS, "route" => route.to_string(), "method" => method.to_string(),
        "status" => status.to_string())
    .increment(1);
    metrics::histogram!(HTTP_DURATION, "route" => route.to_string(), "method" => method.to_string())
        .record(elapsed.as_secs_f64());
}
