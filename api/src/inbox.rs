//! The webhook test inbox under `{app_url}/webhook_test`: a throwaway
//! receiver that keeps the last 50 deliveries of each inbox for about an
//! hour, in memory only (lost on restart, as the spec says).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use warp::http::{HeaderMap, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::reply::with_request_id;

const KEEP: usize = 50;
const TTL: Duration = Duration::from_secs(3600);
const MAX_INBOXES: usize = 1000;
const MAX_DELIVERY_BYTES: u64 = 1024 * 1024;

struct Stored {
    at: Instant,
    received_at: String,
    headers: Value,
    body: Value,
    /// The bytes as received, for signature checks.
    raw_body: String,
}

struct Inbox {
    created: Instant,
    deliveries: VecDeque<Stored>,
}

#[derive(Default)]
pub struct Inboxes(Mutex<HashMap<String, Inbox>>);

impl Inboxes {
    fn sweep(map: &mut HashMap<String, Inbox>) {
        map.retain(|_, i| {
            i.deliveries.retain(|d| d.at.elapsed() < TTL);
            i.created.elapsed() < TTL || !i.deliveries.is_empty()
        });
    }
}

fn not_found() -> pipeline::Error {
    pipeline::Error::new(pipeline::Code::RouteNotFound, "No such webhook test inbox.")
}

/// A test inbox: where to send deliveries and what arrived, newest first.
#[derive(Serialize, ToSchema)]
pub struct InboxView {
    /// Always `webhook_test_inbox`.
    object: &'static str,
    /// The inbox id (only when just created).
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    /// Use as `callback_url` of a job.
    callback_url: String,
    count: usize,
    deliveries: Vec<Delivery>,
}

/// One delivery as received.
#[derive(Serialize, ToSchema)]
pub struct Delivery {
    received_at: String,
    /// The `x-service-*`, `user-agent` and `content-type` headers.
    #[schema(value_type = Object)]
    headers: Value,
    /// The body as JSON, or as a string when it is not JSON.
    body: Value,
    /// The bytes as received, for signature checks.
    raw_body: String,
}

/// The acknowledgement of a delivery.
#[derive(Serialize, ToSchema)]
pub struct Received {
    received: bool,
}

fn reply<T: Serialize>(status: StatusCode, body: &T) -> Response {
    with_request_id(status, serde_json::to_value(body).expect("serializes"))
}

pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let with_state = warp::any().map(move || state.clone());
    let create = warp::path!("app" / "webhook_test")
        .and(warp::post())
        .and(with_state.clone())
        .map(create);
    let receive = warp::path!("app" / "webhook_test" / String)
        .and(warp::post())
        .and(warp::body::content_length_limit(MAX_DELIVERY_BYTES))
        .and(warp::header::headers_cloned())
        .and(warp::body::bytes())
        .and(with_state.clone())
        .and_then(receive);
    let list = warp::path!("app" / "webhook_test" / String)
        .and(warp::get())
        .and(with_state)
        .and_then(list);
    create.or(receive).unify().or(list).unify()
}

/// Create a webhook test inbox (no auth).
#[utoipa::path(
    post,
    path = "/app/webhook_test",
    operation_id = "create_webhook_test_inbox",
    tag = "webhook test inbox",
    responses((status = 201, description = "The new, empty inbox.", body = InboxView)),
)]
pub(crate) fn create(state: Arc<State>) -> Response {
    let id = pipeline::core::ids::file_token() + &pipeline::core::ids::file_token();
    let mut map = state.inbox.0.lock().expect("poisoned");
    Inboxes::sweep(&mut map);
    if map.len() >= MAX_INBOXES {
        // Drop the oldest inbox to make room.
        if let Some(oldest) = map
            .iter()
            .min_by_key(|(_, i)| i.created)
            .map(|(k, _)| k.clone())
        {
            map.remove(&oldest);
        }
    }
    map.insert(
        id.clone(),
        Inbox {
            created: Instant::now(),
            deliveries: VecDeque::new(),
        },
    );
    let callback_url = format!("{}/webhook_test/{id}", state.settings.app_url);
    let view = InboxView {
        object: "webhook_test_inbox",
        id: Some(id),
        callback_url,
        count: 0,
        deliveries: Vec::new(),
    };
    reply(StatusCode::CREATED, &view)
}

/// Receive a delivery into a test inbox (no auth; any body up to 1 MiB).
#[utoipa::path(
    post,
    path = "/app/webhook_test/{inbox}",
    operation_id = "receive_webhook_test_delivery",
    tag = "webhook test inbox",
    params(("inbox" = String, Path, description = "The inbox id.")),
    request_body(content = Value, description = "Any body; JSON is kept as JSON.", content_type = "application/json"),
    responses(
        (status = 200, description = "Kept (the last 50 are).", body = Received),
        (status = 404, description = "No such inbox."),
        (status = 413, description = "Over 1 MiB."),
    ),
)]
pub(crate) async fn receive(
    id: String,
    headers: HeaderMap,
    body: Bytes,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let mut map = state.inbox.0.lock().expect("poisoned");
    let Some(inbox) = map.get_mut(&id) else {
        return Err(reject(not_found()));
    };
    let hdrs: serde_json::Map<String, Value> = headers
        .iter()
        .filter(|(k, _)| {
            k.as_str().starts_with("x-service-") || *k == "user-agent" || *k == "content-type"
        })
        .map(|(k, v)| (k.as_str().to_string(), json!(v.to_str().unwrap_or(""))))
        .collect();
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_slice(&body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    inbox.deliveries.push_front(Stored {
        at: Instant::now(),
        received_at: pipeline::core::time::iso(pipeline::core::time::now()),
        headers: Value::Object(hdrs),
        body,
        raw_body,
    });
    inbox.deliveries.truncate(KEEP);
    Ok(reply(StatusCode::OK, &Received { received: true }))
}

/// Deliveries received by a test inbox, newest first.
#[utoipa::path(
    get,
    path = "/app/webhook_test/{inbox}",
    operation_id = "list_webhook_test_deliveries",
    tag = "webhook test inbox",
    params(("inbox" = String, Path, description = "The inbox id.")),
    responses(
        (status = 200, description = "The inbox and its deliveries.", body = InboxView),
        (status = 404, description = "No such inbox."),
    ),
)]
pub(crate) async fn list(id: String, state: Arc<State>) -> Result<Response, Rejection> {
    let mut map = state.inbox.0.lock().expect("poisoned");
    Inboxes::sweep(&mut map);
    let Some(inbox) = map.get(&id) else {
        return Err(reject(not_found()));
    };
    let deliveries: Vec<Delivery> = inbox
        .deliveries
        .iter()
        .map(|d| Delivery {
            received_at: d.received_at.clone(),
            headers: d.headers.clone(),
            body: d.body.clone(),
            raw_body: d.raw_body.clone(),
        })
        .collect();
    let view = InboxView {
        object: "webhook_test_inbox",
        id: None,
        callback_url: format!("{}/webhook_test/{id}", state.settings.app_url),
        count: deliveries.len(),
        deliveries,
    };
    Ok(reply(StatusCode::OK, &view))
}
