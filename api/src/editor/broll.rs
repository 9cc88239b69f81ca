//! `POST /app/editor/{topic_id}/broll`: `search_broll` for the editor's background swap
//! (review-link token); each result's `url` is then sent as `mediaUrl` (branch A).

use std::collections::HashMap;
use std::sync::Arc;

use foundation::fields::body;
use pipeline::media::{SearchBody, SearchReply};
use serde_json::Value;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{query, reviewed};
use crate::State;
use crate::errors::reject;
use crate::filters::{json_body, with_state};

/// Stock clips or photos for the link's video, as `/v1/search_broll` (review-link token).
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/broll",
    operation_id = "editor_broll",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    request_body(content = SearchBody, content_type = "application/json"),
    responses(
        (status = 200, description = "As `/v1/search_broll`.", body = SearchReply),
        (status = 400, description = "`missing_field`, `invalid_kind`, `invalid_ratio`, `invalid_limit`."),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`."),
        (status = 502, description = "`search_failed`."),
    ),
)]
pub(crate) async fn editor_broll(
    topic: String,
    q: HashMap<String, String>,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    reviewed(&state, &topic, &q).map_err(reject)?;
    let request = body::read::<SearchBody>(&body).map_err(reject)?;
    crate::media::search_reply(state.search.clone(), request).await
}

pub(super) fn route(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / String / "broll")
        .and(warp::post())
        .and(query())
        .and(json_body(super::BODY_LIMIT))
        .and(with_state(state))
        .and_then(editor_broll)
}
