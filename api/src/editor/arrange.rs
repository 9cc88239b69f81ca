//! Re-voice, reorder, delete and add scenes of the link's video (review-link token): the
//! editor's scene-level changes, run by `pipeline::edit` (`Arranged`), each one undoable.

use std::collections::HashMap;
use std::sync::Arc;

use foundation::fields::Body;
use pipeline::edit::{Arranged, Editor, MAX_TEXT_CHARS};
use pipeline::{Code, Error};
use serde::Deserialize;
use utoipa::ToSchema;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{BODY_LIMIT, blocking, query, reviewed};
use crate::State;
use crate::errors::reject;
use crate::filters::{typed, with_state};
use crate::reply::json_reply;

/// `…/revoice` and `…/delete`: one scene.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct SceneRequest {
    /// The scene's stable id.
    #[schema(min_length = 1, pattern = r"\S")]
    pub voice_file: String,
}

impl Body for SceneRequest {
    type Valid = SceneRequest;

    fn validate(self) -> pipeline::Result<SceneRequest> {
        Ok(self)
    }
}

/// `…/reorder`: every scene's `voice_file`, in the new order.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct ReorderRequest {
    #[schema(min_items = 1)]
    pub order: Vec<String>,
}

impl Body for ReorderRequest {
    type Valid = ReorderRequest;
    const CODES: &'static [(&'static str, Code)] = &[("order", Code::InvalidValue)];

    fn validate(self) -> pipeline::Result<ReorderRequest> {
        Ok(self)
    }
}

/// `…/add`: the new scene's text and the scene it follows.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct AddSceneRequest {
    /// What the new scene says (the voice speaks it).
    #[schema(min_length = 1, max_length = 2000, pattern = r"\S")]
    pub text: String,
    /// The `voice_file` of the scene it follows; absent or `null` puts it first.
    #[schema(min_length = 1, pattern = r"\S")]
    pub after: Option<String>,
}

impl Body for AddSceneRequest {
    type Valid = AddSceneRequest;

    /// `text` at most [`MAX_TEXT_CHARS`]; `after` a scene's id, not blank (`invalid_value`).
    fn validate(self) -> pipeline::Result<AddSceneRequest> {
        let text = self.text.trim();
        if text.chars().count() > MAX_TEXT_CHARS {
            return Err(Error::new(
                Code::InvalidValue,
                format!("`text` is longer than {MAX_TEXT_CHARS} characters."),
            )
            .param("text"));
        }
        if self.after.as_deref().is_some_and(|vf| vf.trim().is_empty()) {
            return Err(Error::new(
                Code::InvalidValue,
                "`after` must be a scene's voice_file, or null to put the scene first.",
            )
            .param("after"));
        }
        Ok(AddSceneRequest {
            text: text.to_string(),
            after: self.after,
        })
    }
}

const REFUSALS: &str = "`invalid_value` (`order` not every scene once; deleting the last scene), `missing_field`, `invalid_json`.";

/// Speak a scene's edited text again with the video's voice: its duration and word timings
/// follow the new audio (the recorded audio is kept by the text edit itself, branch K).
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/revoice",
    operation_id = "editor_revoice",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    request_body = SceneRequest,
    responses(
        (status = 200, description = "Spoken again: the scene's length before and after, and every scene; open editors get `scenes_changed`. Undo restores the recorded audio.", body = Arranged),
        (status = 400, description = REFUSALS, body = crate::openapi::ErrorEnvelope),
        (status = 403, description = "`read_only_link`.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`, `scene_not_found`.", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`scenes_not_ready`.", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`scene_build_failed`: the voice could not speak the text.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn editor_revoice(
    topic: String,
    q: HashMap<String, String>,
    req: SceneRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    arrange(topic, q, state, move |e, account, topic| {
        e.revoice(account, topic, &req.voice_file)
    })
    .await
}

/// Put the scenes in a new order; each keeps its files and `voice_file`, and `id` follows the
/// new order.
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/reorder",
    operation_id = "editor_reorder",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    request_body = ReorderRequest,
    responses(
        (status = 200, description = "Reordered; open editors get `scenes_changed`.", body = Arranged),
        (status = 400, description = REFUSALS, body = crate::openapi::ErrorEnvelope),
        (status = 403, description = "`read_only_link`.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`.", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`scenes_not_ready`.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn editor_reorder(
    topic: String,
    q: HashMap<String, String>,
    req: ReorderRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    arrange(topic, q, state, move |e, account, topic| {
        e.reorder(account, topic, &req.order)
    })
    .await
}

/// Delete a scene; its files stay for the versions undo can restore.
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/delete",
    operation_id = "editor_delete_scene",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    request_body = SceneRequest,
    responses(
        (status = 200, description = "Deleted; open editors get `scenes_changed`.", body = Arranged),
        (status = 400, description = REFUSALS, body = crate::openapi::ErrorEnvelope),
        (status = 403, description = "`read_only_link`.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`, `scene_not_found`.", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`scenes_not_ready`.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn editor_delete_scene(
    topic: String,
    q: HashMap<String, String>,
    req: SceneRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    arrange(topic, q, state, move |e, account, topic| {
        e.delete_scene(account, topic, &req.voice_file)
    })
    .await
}

/// Add a scene after another (or first): the voice speaks its text and its visual is picked as
/// the scene builder picks every scene's; `id`s after it follow the new order.
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/add",
    operation_id = "editor_add_scene",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    request_body = AddSceneRequest,
    responses(
        (status = 200, description = "Added: `added` is the new scene; open editors get `scenes_changed`. Undo removes it.", body = Arranged),
        (status = 400, description = "`missing_field` (`text`), `invalid_value` (`text` too long, blank `after`), `invalid_field`, `invalid_json`.", body = crate::openapi::ErrorEnvelope),
        (status = 403, description = "`read_only_link`.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`, `scene_not_found` (`after`).", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`scenes_not_ready`.", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`scene_build_failed`: the voice could not speak the text.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn editor_add_scene(
    topic: String,
    q: HashMap<String, String>,
    req: AddSceneRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    arrange(topic, q, state, move |e, account, topic| {
        e.add_scene(account, topic, req.after.as_deref(), &req.text)
    })
    .await
}

/// Runs one change for the review link's video on a blocking thread.
async fn arrange(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
    change: impl FnOnce(&Editor, &str, &str) -> pipeline::Result<Arranged> + Send + 'static,
) -> Result<Response, Rejection> {
    let job = reviewed(&state, &topic, &q).map_err(reject)?;
    let editor = state.editor.clone();
    let reply = blocking(move || change(&editor, &job.account, &topic)).await?;
    Ok(json_reply(StatusCode::OK, &reply))
}

pub(super) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let revoice = warp::path!("app" / "editor" / String / "revoice")
        .and(warp::post())
        .and(query())
        .and(typed::<SceneRequest>(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(editor_revoice);
    let reorder = warp::path!("app" / "editor" / String / "reorder")
        .and(warp::post())
        .and(query())
        .and(typed::<ReorderRequest>(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(editor_reorder);
    let delete = warp::path!("app" / "editor" / String / "delete")
        .and(warp::post())
        .and(query())
        .and(typed::<SceneRequest>(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(editor_delete_scene);
    let add = warp::path!("app" / "editor" / String / "add")
        .and(warp::post())
        .and(query())
        .and(typed::<AddSceneRequest>(BODY_LIMIT))
        .and(with_state(state))
        .and_then(editor_add_scene);
    revoice
        .or(reorder)
        .unify()
        .or(delete)
        .unify()
        .or(add)
        .unify()
}
