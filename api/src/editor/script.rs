//! `POST /app/editor/{topic_id}/script`: the script view approves the edited segments of an
//! `output_type=text` video, which then goes on to scenes (`Engine::approve_script`).

use std::collections::HashMap;
use std::sync::Arc;

use foundation::fields::body;
use foundation::model::StatusObject;
use pipeline::edit::ScriptApproval;
use serde_json::Value;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{BODY_LIMIT, blocking, query, reviewed};
use crate::State;
use crate::errors::reject;
use crate::filters::{json_body, with_state};
use crate::reply::json_reply;

/// Approves the script view's segments; the video is built into scenes (review-link token).
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/script",
    operation_id = "editor_script",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    request_body = ScriptApproval,
    responses(
        (status = 202, description = "The scenes are being built: the status snapshot.", body = StatusObject),
        (status = 400, description = "`missing_field`, `invalid_value`, `script_too_long` (`param` is `segments`)."),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`."),
        (status = 409, description = "`script_not_ready`: not a finished `output_type=text` video."),
    ),
)]
pub(crate) async fn editor_script(
    topic: String,
    q: HashMap<String, String>,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let job = reviewed(&state, &topic, &q).map_err(reject)?;
    let approval = body::read::<ScriptApproval>(&body).map_err(reject)?;
    let (engine, script, id) = (state.engine.clone(), approval.script(), topic.clone());
    let job = blocking(move || engine.approve_script(&job.account, &id, &script)).await?;
    tracing::info!(topic = %topic, segments = approval.segments.len(), "script approved");
    Ok(json_reply(StatusCode::ACCEPTED, &job.status_object()))
}

pub(super) fn route(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / String / "script")
        .and(warp::post())
        .and(query())
        .and(json_body(BODY_LIMIT))
        .and(with_state(state))
        .and_then(editor_script)
}
