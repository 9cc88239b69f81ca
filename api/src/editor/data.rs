//! `GET /app/editor/{topic_id}/data`: what the editor app loads and reloads: the job's status
//! and every scene (the edit session's copy while one is open).

use std::collections::HashMap;
use std::sync::Arc;

use pipeline::edit::view::EditorView;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{blocking, query, viewed};
use crate::State;
use crate::errors::reject;
use crate::reply::json_reply;

/// The video's state and scenes for the editor (review-link token).
#[utoipa::path(
    get,
    path = "/app/editor/{topic_id}/data",
    operation_id = "editor_data",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 200, description = "The job's status and the scenes.", body = EditorView),
        (status = 404, description = "`video_not_found`: unknown video or a token that does not match."),
    ),
)]
pub(crate) async fn editor_data(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (job, _) = viewed(&state, &topic, &q).map_err(reject)?;
    let editor = state.editor.clone();
    let view = blocking(move || pipeline::edit::view::view(&editor, &job))
        .await
        .map_err(reject)?;
    Ok(json_reply(StatusCode::OK, &view))
}

pub(super) fn route(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / String / "data")
        .and(warp::get())
        .and(query())
        .and(crate::filters::with_state(state))
        .and_then(editor_data)
}
