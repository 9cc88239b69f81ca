//! The editor's edits, for the review link's video only: `/v1/modify_scene`,
//! `/v1/edit_session` and `/v1/scene_geometry` (the same readers, and the same operations in
//! `crate::scenes`), authorised by the link's token instead of an API key. The body's `id` must
//! be the link's video, which is checked before anything else in the body.

use std::collections::HashMap;
use std::sync::Arc;

use foundation::fields::body;
use foundation::model::Job;
use pipeline::edit::{
    EditSessionReply, EditSessionRequest, GeometryReply, ModifySceneReply, ModifySceneRequest,
    SceneGeometryRequest, UploadQueued,
};
use serde_json::Value;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{BODY_LIMIT, not_found, query, reviewed};
use crate::State;
use crate::errors::reject;
use crate::filters::{json_body, with_state};
use crate::scenes;

/// The link's video, when the body's `id` (or `topic_id`) names it.
fn video_of(
    state: &State,
    topic: &str,
    q: &HashMap<String, String>,
    body: &Value,
) -> Result<Job, Rejection> {
    let job = reviewed(state, topic, q).map_err(reject)?;
    let id = body.get("id").or_else(|| body.get("topic_id"));
    match id.and_then(Value::as_str) {
        Some(id) if id.trim() != topic => Err(reject(not_found().param("id"))),
        _ => Ok(job),
    }
}

/// `modify_scene` on the link's video (review-link token).
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/modify",
    operation_id = "editor_modify",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id; the body's `id` must match."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    request_body = ModifySceneRequest,
    responses(
        (status = 200, description = "As `/v1/modify_scene`.", body = ModifySceneReply),
        (status = 202, description = "As `/v1/modify_scene`: an upload is queued.", body = UploadQueued),
        (status = 400, description = "As `/v1/modify_scene`."),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found` (also a token or `id` that does not match), `scene_not_found`."),
        (status = 409, description = "As `/v1/modify_scene`."),
        (status = 422, description = "As `/v1/modify_scene`."),
        (status = 502, description = "`download_failed`."),
    ),
)]
pub(crate) async fn editor_modify(
    topic: String,
    q: HashMap<String, String>,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let job = video_of(&state, &topic, &q, &body)?;
    let req = body::read::<ModifySceneRequest>(&body).map_err(reject)?;
    scenes::modify(&state, job.account, req).await
}

/// `edit_session` on the link's video (review-link token).
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/session",
    operation_id = "editor_session",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id; the body's `id` must match."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    request_body = EditSessionRequest,
    responses(
        (status = 200, description = "As `/v1/edit_session`.", body = EditSessionReply),
        (status = 400, description = "`missing_field`, `invalid_id`, `invalid_action`."),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`, `topic_not_found`."),
        (status = 409, description = "`scenes_not_ready`."),
        (status = 502, description = "`topic_fetch_failed`."),
    ),
)]
pub(crate) async fn editor_session(
    topic: String,
    q: HashMap<String, String>,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let job = video_of(&state, &topic, &q, &body)?;
    let req = body::read::<EditSessionRequest>(&body).map_err(reject)?;
    scenes::session(&state, job.account, req).await
}

/// `scene_geometry` of a scene of the link's video (review-link token).
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/geometry",
    operation_id = "editor_geometry",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id; the body's `id` must match."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    request_body = SceneGeometryRequest,
    responses(
        (status = 200, description = "As `/v1/scene_geometry`.", body = GeometryReply),
        (status = 400, description = "As `/v1/scene_geometry`."),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`, `scene_not_found`."),
        (status = 409, description = "`script_not_ready`."),
        (status = 500, description = "`scene_geometry_failed`."),
        (status = 502, description = "`script_parse_failed`."),
    ),
)]
pub(crate) async fn editor_geometry(
    topic: String,
    q: HashMap<String, String>,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let job = video_of(&state, &topic, &q, &body)?;
    let req = body::read::<SceneGeometryRequest>(&body).map_err(reject)?;
    scenes::geometry(&state, job.account, req).await
}

pub(super) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let modify = warp::path!("app" / "editor" / String / "modify")
        .and(warp::post())
        .and(query())
        .and(json_body(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(editor_modify);
    let session = warp::path!("app" / "editor" / String / "session")
        .and(warp::post())
        .and(query())
        .and(json_body(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(editor_session);
    let geometry = warp::path!("app" / "editor" / String / "geometry")
        .and(warp::post())
        .and(query())
        .and(json_body(BODY_LIMIT))
        .and(with_state(state))
        .and_then(editor_geometry);
    modify.or(session).unify().or(geometry).unify()
}
