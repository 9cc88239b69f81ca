//! Observability of the HTTP layer: `GET /metrics` (Prometheus text, rendered from the recorder
//! installed here — the exporter has no listener of its own), each request counted and timed by
//! its route template, and the `request` span every log line of a request's work carries
//! (`request_id`, `method`, `path`; the job spans add `job` and `topic_id`).
//!
//! `/metrics` holds counts and latencies only, no ids or account data. It needs an API key when
//! `metrics.require_key` says so (default: in production mode only); `metrics.enabled = false`
//! removes the route.
//!
//! The request id is minted when a request starts (the span's `request_id`) and kept per tokio
//! task until its reply is written, so the id in the reply's body and `X-Request-Id` is the one
//! its log lines carry: hyper serves one request at a time per connection task (HTTP/2 streams
//! get their own task), so the task id names the request.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use foundation::config::{Mode, Section};
use foundation::telemetry;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use serde::Deserialize;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection, Reply};

use crate::State;
use crate::filters::auth;

/// `GET /metrics` (Prometheus text): counts and latencies only, no ids or account data.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MetricsConfig {
    /// Serve `/metrics` at all.
    pub enabled: bool,
    /// Ask for an API key (`Authorization: Bearer`, as Prometheus' `authorization` scrape
    /// setting sends it). Unset: required in production mode, not in dev.
    pub require_key: Option<bool>,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            enabled: true,
            require_key: None,
        }
    }
}

impl Section for MetricsConfig {
    const NAME: &'static str = "metrics";
}

impl MetricsConfig {
    /// Whether a scrape needs an API key in `mode`.
    pub fn key_required(&self, mode: Mode) -> bool {
        self.require_key.unwrap_or(mode == Mode::Production)
    }
}

/// The process's recorder, installed once (a second `api::run` in one process reuses it).
static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the Prometheus recorder as the global `metrics` recorder (once per process).
pub fn install() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let installed = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Suffix("_seconds".into()),
                    telemetry::SECONDS_BUCKETS,
                )
                .and_then(|b| {
                    b.set_buckets_for_metric(
                        Matcher::Full(telemetry::RENDER_FPS.into()),
                        telemetry::FPS_BUCKETS,
                    )
                })
                .map_err(|e| e.to_string())
                .and_then(|b| b.install_recorder().map_err(|e| e.to_string()));
            match installed {
                Ok(handle) => {
                    telemetry::describe();
                    Some(handle)
                }
                Err(e) => {
                    tracing::warn!(error = %e, "metrics recorder not installed; /metrics is empty");
                    None
                }
            }
        })
        .as_ref()
}

/// `GET /metrics`.
pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let need_key = state
        .settings
        .section::<MetricsConfig>()
        .key_required(state.settings.mode);
    let open = warp::path!("metrics").and(warp::get());
    let keyed = if need_key {
        open.and(auth(state.clone()))
            .map(|_| ())
            .untuple_one()
            .boxed()
    } else {
        open.boxed()
    };
    let enabled = state.settings.section::<MetricsConfig>().enabled;
    keyed
        .and_then(move || {
            let state = state.clone();
            async move {
                if !enabled {
                    return Err(warp::reject::not_found());
                }
                Ok::<_, Rejection>(scrape_document(&state).await)
            }
        })
        .boxed()
}

/// The service's metrics in the Prometheus text format (0.0.4): jobs by state, queue depth,
/// render fps and encode time, webhook attempts and failures, HTTP requests by route template
/// and status with latency histograms. Counts only, no ids. Outside `/v1`, so the document
/// declares no key; with `metrics.require_key` it takes the API key as a bearer token.
#[utoipa::path(
    get,
    path = "/metrics",
    operation_id = "metrics",
    tag = "reference",
    responses(
        (status = 200, description = "The metrics.", content_type = "text/plain", body = String),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`: only with `metrics.require_key`."),
    ),
)]
pub(crate) async fn scrape_document(state: &Arc<State>) -> Response {
    let store = state.store.clone();
    match tokio::task::spawn_blocking(move || telemetry::refresh(&store)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!(error = %e, "metrics: the store gauges could not be read"),
        Err(e) => tracing::warn!(error = %e, "metrics: the store gauges could not be read"),
    }
    let body = install().map(PrometheusHandle::render).unwrap_or_default();
    let mut resp = warp::reply::with_header(
        body,
        "content-type",
        "text/plain; version=0.0.4; charset=utf-8",
    )
    .into_response();
    *resp.status_mut() = StatusCode::OK;
    crate::reply::tag(resp)
}

// ------------------------------------------------------------------ route templates

/// The route templates of the OpenAPI document (`/v1/status/{id}`), matched segment by segment,
/// so a metric label never carries an id and a scanner's random paths all count as `other`.
struct Templates(Vec<Vec<String>>);

static TEMPLATES: LazyLock<Templates> = LazyLock::new(|| {
    let doc = crate::openapi::document();
    let mut all: Vec<Vec<String>> = doc["paths"]
        .as_object()
        .map(|paths| paths.keys().cloned().collect::<Vec<_>>())
        .unwrap_or_default()
        .iter()
        .map(|p| {
            p.trim_start_matches('/')
                .split('/')
                .map(str::to_string)
                .collect()
        })
        .collect();
    // Static segments win over parameters at the same place (`/v1/videos` before `/{id}`).
    all.sort_by_key(|t| t.iter().filter(|s| s.starts_with('{')).count());
    Templates(all)
});

/// The label for a request path: its route template, `/media/{file}`, the bare service routes,
/// or `other`.
pub fn route_label(path: &str) -> String {
    if path.starts_with("/media/") {
        return "/media/{path}".into();
    }
    if matches!(path, "/metrics" | "/healthz") {
        return path.into();
    }
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    TEMPLATES
        .0
        .iter()
        .find(|t| {
            t.len() == segments.len()
                && t.iter()
                    .zip(&segments)
                    .all(|(t, s)| t.starts_with('{') || t == s)
        })
        .map(|t| format!("/{}", t.join("/")))
        .unwrap_or_else(|| "other".into())
}

// ------------------------------------------------------------------ request ids and spans

/// Request ids by the tokio task serving the request (see the module's note).
static CURRENT: LazyLock<Mutex<HashMap<tokio::task::Id, String>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));
/// Entries of requests whose future was dropped (a client gone) are cleared past this many.
const CURRENT_MAX: usize = 10_000;

fn begin_request() -> String {
    let id = foundation::ids::request_id();
    if let Some(task) = tokio::task::try_id() {
        let mut map = CURRENT.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= CURRENT_MAX {
            map.clear();
        }
        map.insert(task, id.clone());
    }
    id
}

fn end_request() {
    if let Some(task) = tokio::task::try_id() {
        CURRENT
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&task);
    }
}

/// The id of the request this task is answering (its span's `request_id`), or a fresh one
/// outside a request.
pub fn request_id() -> String {
    tokio::task::try_id()
        .and_then(|task| {
            CURRENT
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(&task)
                .cloned()
        })
        .unwrap_or_else(foundation::ids::request_id)
}

/// Names the video a request works on in its span (`topic_id`), once the handler knows it.
pub fn topic(id: &str) {
    tracing::Span::current().record("topic_id", tracing::field::display(id));
}

/// Wraps the service's routes: a `request` span around each request's work, then each answer
/// counted and timed by route template.
pub fn observe<F>(
    routes: F,
) -> impl Filter<Extract = (Response,), Error = std::convert::Infallible> + Clone
where
    F: Filter<Extract = (Response,), Error = std::convert::Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
{
    routes
        .with(warp::trace(|info| {
            let request_id = begin_request();
            tracing::info_span!(
                "request",
                %request_id,
                method = %info.method(),
                path = %info.path(),
                topic_id = tracing::field::Empty,
            )
        }))
        .with(warp::log::custom(|info| {
            telemetry::http_request(
                &route_label(info.path()),
                info.method().as_str(),
                info.status().as_u16(),
                info.elapsed(),
            );
            end_request();
        }))
        .map(Reply::into_response)
}

#[cfg(test)]
mod tests {
    use super::route_label;

    #[test]
    fn paths_become_their_route_templates() {
        assert_eq!(route_label("/v1/status/wc123abc"), "/v1/status/{id}");
        assert_eq!(route_label("/v1/create_video"), "/v1/create_video");
        assert_eq!(route_label("/media/videos/x_1.mp4"), "/media/{path}");
        assert_eq!(route_label("/metrics"), "/metrics");
        assert_eq!(route_label("/wp-admin/setup.php"), "other");
        assert_eq!(route_label("/v1/no_such_thing"), "other");
    }
}
