//! The webhook test inbox under `{app_url}/webhook_test`: a throwaway
//! receiver that keeps the last 50 deliveries of each inbox (at most 4 MiB of them) in memory
//! only (lost on restart, as the spec says). It needs no key, so it is bounded per client
//! address: `http.inbox_max_per_client` inboxes at once (one more answers 429 with
//! `Retry-After`), each deleted `http.inbox_ttl_secs` after it was made, whatever it received.
//! A delivery over 1 MiB answers 413 before its body is read. `POST` makes an inbox and answers
//! it as JSON; a `GET` of the same page (a browser opening it) makes one too and shows its
//! `callback_url` and how to read the deliveries.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
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
use crate::errors::{error_reply, reject};
use crate::reply::json_reply;
use crate::serve::ClientAddr;

const KEEP: usize = 50;
/// The bytes of deliveries one inbox keeps; older ones go first.
const KEEP_BYTES: usize = 4 * 1024 * 1024;
/// Inboxes kept in all; the oldest goes when one more is made.
const MAX_INBOXES: usize = 1000;
const MAX_DELIVERY_BYTES: u64 = 1024 * 1024;

struct Stored {
    received_at: String,
    headers: Value,
    body: Value,
    /// The bytes as received, for signature checks.
    raw_body: String,
}

struct Inbox {
    created: Instant,
    /// The address that made it.
    owner: Option<IpAddr>,
    deliveries: VecDeque<Stored>,
}

impl Inbox {
    fn bytes(&self) -> usize {
        self.deliveries.iter().map(|d| d.raw_body.len()).sum()
    }
}

#[derive(Default)]
pub struct Inboxes(Mutex<HashMap<String, Inbox>>);

impl Inboxes {
    /// Deletes the inboxes older than `ttl`.
    fn sweep(map: &mut HashMap<String, Inbox>, ttl: Duration) {
        map.retain(|_, i| i.created.elapsed() < ttl);
    }
}

fn ttl(state: &State) -> Duration {
    Duration::from_secs(
        state
            .settings
            .section::<crate::serve::HttpConfig>()
            .inbox_ttl_secs,
    )
}

/// The client's address, when the request came through our accept loop.
fn client() -> impl Filter<Extract = (Option<IpAddr>,), Error = std::convert::Infallible> + Clone {
    warp::ext::optional::<ClientAddr>().map(|a: Option<ClientAddr>| a.map(|a| a.0.ip()))
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

pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let with_state = warp::any().map(move || state.clone());
    let create = warp::path!("app" / "webhook_test")
        .and(warp::post())
        .and(client())
        .and(with_state.clone())
        .map(create);
    let page = warp::path!("app" / "webhook_test")
        .and(warp::get())
        .and(client())
        .and(with_state.clone())
        .map(page);
    let create = create.or(page).unify();
    // The size is checked here, not by a rejection: a rejected POST would otherwise combine
    // with the GET route below into a 405.
    let receive = warp::path!("app" / "webhook_test" / String)
        .and(warp::post())
        .and(warp::header::headers_cloned())
        .and(warp::body::stream())
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
    responses(
        (status = 201, description = "The new, empty inbox.", body = InboxView),
        (status = 429, description = "`rate_limited`: this address holds as many inboxes as it may; `Retry-After` says when the oldest expires.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) fn create(owner: Option<IpAddr>, state: Arc<State>) -> Response {
    let (id, callback_url) = match new_inbox(owner, &state) {
        Ok(made) => made,
        Err(refused) => return error_reply(&refused),
    };
    let view = InboxView {
        object: "webhook_test_inbox",
        id: Some(id),
        callback_url,
        count: 0,
        deliveries: Vec::new(),
    };
    json_reply(StatusCode::CREATED, &view)
}

/// Open a webhook test inbox in a browser (no auth): each visit makes a new inbox, as `POST`
/// does, and shows its `callback_url` and how to read what arrives.
#[utoipa::path(
    get,
    path = "/app/webhook_test",
    operation_id = "open_webhook_test_inbox",
    tag = "webhook test inbox",
    responses(
        (status = 200, description = "A page naming the new inbox's `callback_url`; `GET` that URL for its deliveries (JSON).", content_type = "text/html", body = String),
        (status = 429, description = "`rate_limited`: this address holds as many inboxes as it may; `Retry-After` says when the oldest expires.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) fn page(owner: Option<IpAddr>, state: Arc<State>) -> Response {
    let callback_url = match new_inbox(owner, &state) {
        Ok((_, url)) => url,
        Err(refused) => return error_reply(&refused),
    };
    let url = foundation::html::esc(&callback_url);
    let minutes = ttl(&state).as_secs() / 60;
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
        <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
        <title>Webhook test inbox</title></head><body><main>\
        <h1>Webhook test inbox</h1>\
        <p>Use this URL as the <code>callback_url</code> of a job:</p>\
        <p><code id=\"callback_url\">{url}</code></p>\
        <p>Deliveries sent to it are kept for {minutes} minutes (the last {KEEP}, lost when the \
        service restarts). Read them, newest first, as JSON with a <code>GET</code> of the same \
        URL: <a href=\"{url}\">open the deliveries</a>, or <code>curl {url}</code>.</p>\
        <p>Each visit to this page makes a new inbox; keep this URL.</p>\
        </main></body></html>"
    );
    let mut resp = warp::Reply::into_response(warp::reply::html(html));
    // A reload makes a new inbox: no cache may replay this one.
    resp.headers_mut().insert(
        warp::http::header::CACHE_CONTROL,
        warp::http::HeaderValue::from_static("no-store"),
    );
    crate::reply::tag(resp)
}

/// Makes an inbox for `owner`: its id and `callback_url`, or the 429 when the address holds
/// as many as it may.
fn new_inbox(owner: Option<IpAddr>, state: &State) -> Result<(String, String), pipeline::Error> {
    let id = foundation::ids::file_token() + &foundation::ids::file_token();
    let ttl = ttl(state);
    let mut map = state.inbox.0.lock().expect("poisoned");
    Inboxes::sweep(&mut map, ttl);
    let mine: Vec<Instant> = map
        .values()
        .filter(|i| owner.is_some() && i.owner == owner)
        .map(|i| i.created)
        .collect();
    if mine.len()
        >= state
            .settings
            .section::<crate::serve::HttpConfig>()
            .inbox_max_per_client
    {
        let oldest = mine.into_iter().min().unwrap_or_else(Instant::now);
        let wait = ttl.saturating_sub(oldest.elapsed()).as_secs().max(1);
        return Err(pipeline::Error::new(
            pipeline::Code::RateLimited,
            "This address holds as many webhook test inboxes as it may; one expires soon.",
        )
        .retry_after(wait));
    }
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
            owner,
            deliveries: VecDeque::new(),
        },
    );
    let callback_url = callback_url(state, &id);
    Ok((id, callback_url))
}

/// Where deliveries to inbox `id` go (and where they are read).
fn callback_url(state: &State, id: &str) -> String {
    format!("{}/webhook_test/{id}", state.settings.app_url)
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
        (status = 200, description = "Kept (the last 50 are, at most 4 MiB of them).", body = Received),
        (status = 404, description = "No such inbox.", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`: over 1 MiB.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn receive<S, B>(
    id: String,
    headers: HeaderMap,
    body: S,
    state: Arc<State>,
) -> Result<Response, Rejection>
where
    S: futures_util::Stream<Item = Result<B, warp::Error>>,
    B: bytes::Buf,
{
    let declared = headers
        .get(warp::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_DELIVERY_BYTES) {
        return Ok(crate::reply::closing(error_reply(&too_large())));
    }
    let known = |state: &State| {
        let mut map = state.inbox.0.lock().expect("poisoned");
        Inboxes::sweep(&mut map, ttl(state));
        map.contains_key(&id)
    };
    if !known(&state) {
        return Ok(error_reply(&not_found()));
    }
    let Some(body) = read_limited(body, MAX_DELIVERY_BYTES as usize).await? else {
        return Ok(crate::reply::closing(error_reply(&too_large())));
    };
    let mut map = state.inbox.0.lock().expect("poisoned");
    let Some(inbox) = map.get_mut(&id) else {
        return Ok(error_reply(&not_found()));
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
        received_at: foundation::time::iso(foundation::time::now()),
        headers: Value::Object(hdrs),
        body,
        raw_body,
    });
    inbox.deliveries.truncate(KEEP);
    while inbox.deliveries.len() > 1 && inbox.bytes() > KEEP_BYTES {
        inbox.deliveries.pop_back();
    }
    Ok(json_reply(StatusCode::OK, &Received { received: true }))
}

fn too_large() -> pipeline::Error {
    pipeline::Error::new(
        pipeline::Code::PayloadTooLarge,
        format!("A delivery to a test inbox may be at most {MAX_DELIVERY_BYTES} bytes."),
    )
}

/// The body, or `None` when it is over `limit` bytes (reading stops there).
async fn read_limited<S, B>(body: S, limit: usize) -> Result<Option<Bytes>, Rejection>
where
    S: futures_util::Stream<Item = Result<B, warp::Error>>,
    B: bytes::Buf,
{
    use futures_util::StreamExt;
    futures_util::pin_mut!(body);
    let mut buf = bytes::BytesMut::new();
    while let Some(chunk) = body.next().await {
        let mut chunk = chunk.map_err(|_| {
            reject(pipeline::Error::new(
                pipeline::Code::InvalidJson,
                "The request body could not be read.",
            ))
        })?;
        if buf.len() + chunk.remaining() > limit {
            return Ok(None);
        }
        while chunk.has_remaining() {
            let c = chunk.chunk();
            let n = c.len();
            buf.extend_from_slice(c);
            chunk.advance(n);
        }
    }
    Ok(Some(buf.freeze()))
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
    let ttl = ttl(&state);
    let mut map = state.inbox.0.lock().expect("poisoned");
    Inboxes::sweep(&mut map, ttl);
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
        callback_url: callback_url(&state, &id),
        count: deliveries.len(),
        deliveries,
    };
    Ok(json_reply(StatusCode::OK, &view))
}
