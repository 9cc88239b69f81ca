//! Export from the editor: `POST …/export` queues the MP4's render like `/v1/export_video`, and
//! `GET …/status` is the job's status object, whose `progress` feeds the progress bar until
//! `result.video_url` appears.

use std::collections::HashMap;
use std::sync::Arc;

use foundation::model::StatusObject;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{blocking, query, reviewed};
use crate::State;
use crate::errors::reject;
use crate::filters::with_state;
use crate::reply::json_reply;

/// Renders the final MP4 of the link's video (review-link token).
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/export",
    operation_id = "editor_export",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 202, description = "The render is queued: a fresh status snapshot.", body = StatusObject),
        (status = 200, description = "Already queued or rendered: the current snapshot.", body = StatusObject),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`."),
        (status = 409, description = "`scenes_not_ready`."),
    ),
)]
pub(crate) async fn editor_export(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let job = reviewed(&state, &topic, &q).map_err(reject)?;
    let engine = state.engine.clone();
    let (first, job) = blocking(move || engine.export_video(&job.account, &topic)).await?;
    let status = if first {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok(json_reply(status, &job.status_object()))
}

/// The link's video's status object (review-link token).
#[utoipa::path(
    get,
    path = "/app/editor/{topic_id}/status",
    operation_id = "editor_status",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 200, description = "The status object.", body = StatusObject),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`."),
    ),
)]
pub(crate) async fn editor_status(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let job = reviewed(&state, &topic, &q).map_err(reject)?;
    Ok(json_reply(StatusCode::OK, &job.status_object()))
}

pub(super) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let export = warp::path!("app" / "editor" / String / "export")
        .and(warp::post())
        .and(query())
        .and(with_state(state.clone()))
        .and_then(editor_export);
    let status = warp::path!("app" / "editor" / String / "status")
        .and(warp::get())
        .and(query())
        .and(with_state(state))
        .and_then(editor_status);
    export.or(status).unify()
}
