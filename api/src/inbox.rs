//! The webhook test inbox under `{app_url}/webhook_test`: a throwaway
//! receiver that keeps the last 50 deliveries of each inbox for about an
//! hour, in memory only (lost on restart, as the spec says).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};
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

struct Received {
    at: Instant,
    received_at: String,
    headers: Value,
    body: Value,
    /// The bytes as received, for signature checks.
    raw_body: String,
}

struct Inbox {
    created: Instant,
    deliveries: VecDeque<Received>,
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

pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let s1 = state.clone();
    let create = warp::path!("app" / "webhook_test")
        .and(warp::post())
        .map(move || {
            let id = pipeline::core::ids::file_token() + &pipeline::core::ids::file_token();
            let mut map = s1.inbox.0.lock().expect("poisoned");
            Inboxes::sweep(&mut map);
            if map.len() >= MAX_INBOXES {
                // Drop the oldest inbox to make room.
                if let Some(oldest) = map.iter().min_by_key(|(_, i)| i.created).map(|(k, _)| k.clone()) {
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
            let url = format!("{}/webhook_test/{id}", s1.settings.app_url);
            with_request_id(
                StatusCode::CREATED,
                json!({ "object": "webhook_test_inbox", "id": id, "callback_url": url, "count": 0, "deliveries": [] }),
            )
        });
    let s2 = state.clone();
    let receive = warp::path!("app" / "webhook_test" / String)
        .and(warp::post())
        .and(warp::body::content_length_limit(MAX_DELIVERY_BYTES))
        .and(warp::header::headers_cloned())
        .and(warp::body::bytes())
        .and_then(move |id: String, headers: HeaderMap, body: Bytes| {
            let s2 = s2.clone();
            async move {
                let mut map = s2.inbox.0.lock().expect("poisoned");
                let Some(inbox) = map.get_mut(&id) else {
                    return Err(reject(not_found()));
                };
                let hdrs: serde_json::Map<String, Value> = headers
                    .iter()
                    .filter(|(k, _)| {
                        k.as_str().starts_with("x-service-")
                            || *k == "user-agent"
                            || *k == "content-type"
                    })
                    .map(|(k, v)| (k.as_str().to_string(), json!(v.to_str().unwrap_or(""))))
                    .collect();
                let raw_body = String::from_utf8_lossy(&body).into_owned();
                let body = serde_json::from_slice(&body)
                    .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
                inbox.deliveries.push_front(Received {
                    at: Instant::now(),
                    received_at: pipeline::core::time::iso(pipeline::core::time::now()),
                    headers: Value::Object(hdrs),
                    body,
                    raw_body,
                });
                inbox.deliveries.truncate(KEEP);
                Ok(with_request_id(StatusCode::OK, json!({ "received": true })))
            }
        });
    let s3 = state;
    let list = warp::path!("app" / "webhook_test" / String)
        .and(warp::get())
        .and_then(move |id: String| {
            let s3 = s3.clone();
            async move {
                let mut map = s3.inbox.0.lock().expect("poisoned");
                Inboxes::sweep(&mut map);
                let Some(inbox) = map.get(&id) else {
                    return Err(reject(not_found()));
                };
                let deliveries: Vec<Value> = inbox
                    .deliveries
                    .iter()
                    .map(|d| json!({ "received_at": d.received_at, "headers": d.headers, "body": d.body, "raw_body": d.raw_body }))
                    .collect();
                Ok(with_request_id(
                    StatusCode::OK,
                    json!({
                        "object": "webhook_test_inbox",
                        "callback_url": format!("{}/webhook_test/{id}", s3.settings.app_url),
                        "count": deliveries.len(),
                        "deliveries": deliveries,
                    }),
                ))
            }
        });
    create.or(receive).unify().or(list).unify()
}
