//! Scene editing: `POST /v1/modify_scene`, `POST /v1/edit_session`, `POST /v1/scene_geometry`,
//! and the editor's realtime stream `GET /app/editor/{topic}/events?token=` (server-sent
//! events; the token is the review link's signed token).
//!
//! The domain lives in `pipeline::edit::scenes`; handlers only move JSON in and out and run the
//! editor's blocking work (redb, files, the per-video lock) on blocking threads.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use pipeline::core::model::Account;
use pipeline::edit::scenes::{Editor, Outcome};
use serde_json::{Value, json};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, json_body, with_state};
use crate::reply::with_request_id;

/// Edit bodies are small JSON (URLs, rects, text).
const BODY_LIMIT: usize = 256 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let modify = warp::path!("v1" / "modify_scene")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(json_body(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(modify_scene);
    let session = warp::path!("v1" / "edit_session")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(json_body(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(edit_session);
    let geometry = warp::path!("v1" / "scene_geometry")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(json_body(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(scene_geometry);
    let events = warp::path!("app" / "editor" / String / "events")
        .and(warp::get())
        .and(warp::query::<HashMap<String, String>>())
        .and(with_state(state))
        .and_then(editor_events);
    modify
        .or(session)
        .unify()
        .or(geometry)
        .unify()
        .or(events)
        .unify()
        .boxed()
}

/// Runs `f` with the editor on a blocking thread.
async fn blocking<T: Send + 'static>(
    state: &Arc<State>,
    f: impl FnOnce(&Arc<Editor>) -> pipeline::Result<T> + Send + 'static,
) -> Result<T, Rejection> {
    let editor = state.editor.clone();
    tokio::task::spawn_blocking(move || f(&editor))
        .await
        .map_err(|e| reject(pipeline::Error::internal(e)))?
        .map_err(reject)
}

async fn modify_scene(
    account: Account,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let out = blocking(&state, move |e| e.modify(&account.name, &body)).await?;
    Ok(match out {
        Outcome::Applied(v) | Outcome::Clarify(v) => with_request_id(StatusCode::OK, v),
        Outcome::Queued(v) => with_request_id(StatusCode::ACCEPTED, v),
    })
}

async fn edit_session(
    account: Account,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let v = blocking(&state, move |e| e.edit_session(&account.name, &body)).await?;
    Ok(with_request_id(StatusCode::OK, v))
}

async fn scene_geometry(
    account: Account,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let v = blocking(&state, move |e| e.geometry(&account.name, &body)).await?;
    Ok(with_request_id(StatusCode::OK, v))
}

/// The video's realtime messages as server-sent events: first `ready`, then one event per
/// message, named by its `type` (`scene_modified`, `scene_voice_upload_applied`, …), data the
/// message JSON. A subscriber that falls behind gets a `lagged` event with the skipped count.
async fn editor_events(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let token = q.get("token").map(String::as_str).unwrap_or("");
    if !pipeline::core::links::verify(&state.settings.webhook.signing_secret, &topic, token) {
        return Err(reject(pipeline::Error::new(
            pipeline::Code::VideoNotFound,
            "No video matches this link.",
        )));
    }
    let rx = state.editor.hub.subscribe(&topic);
    let ready = warp::sse::Event::default()
        .event("ready")
        .data(json!({ "type": "ready", "topic_id": topic }).to_string());
    let messages = futures_util::stream::unfold(rx, |mut rx| async move {
        use tokio::sync::broadcast::error::RecvError;
        let ev = match rx.recv().await {
            Ok(msg) => {
                let kind = msg["type"].as_str().unwrap_or("message").to_string();
                warp::sse::Event::default()
                    .event(kind)
                    .data(msg.to_string())
            }
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
