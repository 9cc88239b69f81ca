//! `GET /app/editor/{topic_id}/events?token=`: the video's realtime messages as server-sent
//! events, which every open editor follows (`scene_modified`, `scene_voice_upload_applied`,
//! `scene_upload_failed`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use serde_json::json;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::query;
use crate::State;
use crate::filters::with_state;

/// The video's realtime messages as server-sent events: first `ready`, then one event per
/// message, named by its `type` (`scene_modified`, `scene_voice_upload_applied`, …), data the
/// message JSON. A subscriber that falls behind gets a `lagged` event with the skipped count.
#[utoipa::path(
    get,
    path = "/app/editor/{topic_id}/events",
    operation_id = "editor_events",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 200, description = "The stream of realtime messages.", content_type = "text/event-stream", body = String),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`: a token that does not match."),
    ),
)]
pub(crate) async fn editor_events(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    // The stream carries whole scenes: the review link's token only, never the player's.
    let st = state.clone();
    let t = topic.clone();
    super::blocking(move || super::reviewed(&st, &t, &q).map(|_| ())).await?;
    let rx = state.editor.hub.subscribe(&topic);
    let ready = warp::sse::Event::default()
        .event("ready")
        .data(json!({ "type": "ready", "topic_id": topic }).to_string());
    let messages = futures_util::stream::unfold(rx, |mut rx| async move {
        use tokio::sync::broadcast::error::RecvError;
        let ev = match rx.recv().await {
            Ok(msg) => warp::sse::Event::default()
                .event(msg.kind)
                .data(msg.json.as_ref()),
            Err(RecvError::Lagged(n)) => warp::sse::Event::default()
                .event("lagged")
                .data(json!({ "type": "lagged", "skipped": n }).to_string()),
            Err(RecvError::Closed) => return None,
        };
        Some((Ok::<_, Infallible>(ev), rx))
    });
    let stream = futures_util::StreamExt::chain(
        futures_util::stream::once(async move { Ok::<_, Infallible>(ready) }),
        messages,
    );
    let reply = warp::sse::reply(warp::sse::keep_alive().stream(stream));
    Ok(crate::reply::tag(warp::Reply::into_response(reply)))
}

pub(super) fn route(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / String / "events")
        .and(warp::get())
        .and(query())
        .and(with_state(state))
        .and_then(editor_events)
}
