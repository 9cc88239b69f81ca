//! `GET /app/editor/{topic_id}/live` (WebSocket, review-link token): an open editor registers
//! as a live instance of its video for `scene_inspector`. Text frames carry the JSON protocol
//! of `pipeline::edit::live`; the instance is removed when the socket closes, which ends every
//! call waiting on it.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use pipeline::edit::LiveEditors;
use warp::reply::Response;
use warp::ws::{Message, WebSocket, Ws};
use warp::{Filter, Rejection};

use super::{query, reviewed};
use crate::State;
use crate::errors::reject;
use crate::filters::with_state;

/// The editor's live connection (WebSocket upgrade; review-link token).
#[utoipa::path(
    get,
    path = "/app/editor/{topic_id}/live",
    operation_id = "editor_live",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 101, description = "Switching to the WebSocket protocol."),
        (status = 400, description = "`invalid_value`: not a WebSocket upgrade."),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`."),
    ),
)]
pub(crate) async fn editor_live(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
    ws: Option<Ws>,
) -> Result<Response, Rejection> {
    reviewed(&state, &topic, &q).map_err(reject)?;
    let Some(ws) = ws else {
        return Err(reject(pipeline::Error::new(
            pipeline::Code::InvalidValue,
            "This address takes a WebSocket connection from the editor.",
        )));
    };
    let live = state.live.clone();
    let reply = ws.on_upgrade(move |socket| serve(socket, live, topic));
    Ok(crate::reply::tag(warp::Reply::into_response(reply)))
}

/// Pumps one tab's socket until either side ends.
async fn serve(socket: WebSocket, live: Arc<LiveEditors>, topic: String) {
    let (reg, mut outbox) = live.register(&topic);
    tracing::info!(topic = %topic, instance = %reg.id, "live editor connected");
    let (mut tx, mut rx) = socket.split();
    let hello = serde_json::json!({"type": "hello", "instance_id": reg.id}).to_string();
    if tx.send(Message::text(hello)).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            out = outbox.recv() => match out {
                Some(text) => {
                    if tx.send(Message::text(text)).await.is_err() {
                        break;
                    }
                }
                None => break,
            },
            inc = rx.next() => match inc {
                Some(Ok(msg)) if msg.is_text() => {
                    if let Ok(text) = msg.to_str() {
                        live.receive(&topic, &reg.id, text);
                    }
                }
                Some(Ok(msg)) if msg.is_close() => break,
                Some(Ok(_)) => {}
                Some(Err(_)) | None => break,
            },
        }
    }
    tracing::info!(topic = %topic, instance = %reg.id, "live editor left");
}

pub(super) fn route(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / String / "live")
        .and(warp::get())
        .and(query())
        .and(with_state(state))
        .and(warp::ws().map(Some).or(warp::any().map(|| None)).unify())
        .and_then(editor_live)
}
