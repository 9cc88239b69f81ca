//! Undo, redo and the version list of the link's video (review-link token): the document's
//! versions that `pipeline::edit::versions` keeps, restored by the same `Editor` as every edit.

use std::collections::HashMap;
use std::sync::Arc;

use pipeline::edit::{Restored, Step, VersionsReply};
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{blocking, query, reviewed};
use crate::State;
use crate::errors::reject;
use crate::filters::with_state;
use crate::reply::json_reply;

/// Undo the link's video's last edit: the version before it becomes a new version.
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/undo",
    operation_id = "editor_undo",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 200, description = "The earlier version is the document again, as a new version; open editors get `version_restored`.", body = Restored),
        (status = 403, description = "`read_only_link`.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found` (also a token that does not match).", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`nothing_to_undo`, `scenes_not_ready`.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn editor_undo(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    step(topic, q, state, Step::Undo).await
}

/// Redo the last undone edit of the link's video, as a new version.
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/redo",
    operation_id = "editor_redo",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 200, description = "The undone version is the document again, as a new version; open editors get `version_restored`.", body = Restored),
        (status = 403, description = "`read_only_link`.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found` (also a token that does not match).", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`nothing_to_redo` (also after a new edit), `scenes_not_ready`.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn editor_redo(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    step(topic, q, state, Step::Redo).await
}

async fn step(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
    step: Step,
) -> Result<Response, Rejection> {
    let job = reviewed(&state, &topic, &q).map_err(reject)?;
    let editor = state.editor.clone();
    let restored = blocking(move || editor.restore(&job.account, &topic, step)).await?;
    Ok(json_reply(StatusCode::OK, &restored))
}

/// Where the link's video's versions stand: the current one, what undo and redo would restore,
/// and how many are kept.
#[utoipa::path(
    get,
    path = "/app/editor/{topic_id}/versions",
    operation_id = "editor_versions",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 200, description = "The version stacks.", body = VersionsReply),
        (status = 403, description = "`read_only_link`.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found` (also a token that does not match).", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn editor_versions(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let job = reviewed(&state, &topic, &q).map_err(reject)?;
    let editor = state.editor.clone();
    let reply = blocking(move || editor.versions_of(&job.account, &topic)).await?;
    Ok(json_reply(StatusCode::OK, &reply))
}

pub(super) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let undo = warp::path!("app" / "editor" / String / "undo")
        .and(warp::post())
        .and(query())
        .and(with_state(state.clone()))
        .and_then(editor_undo);
    let redo = warp::path!("app" / "editor" / String / "redo")
        .and(warp::post())
        .and(query())
        .and(with_state(state.clone()))
        .and_then(editor_redo);
    let list = warp::path!("app" / "editor" / String / "versions")
        .and(warp::get())
        .and(query())
        .and(with_state(state))
        .and_then(editor_versions);
    undo.or(redo).unify().or(list).unify()
}
