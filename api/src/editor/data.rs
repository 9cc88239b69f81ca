//! `GET /app/editor/{topic_id}/data`: what the editor app loads and reloads: the job's status
//! and every scene (the edit session's copy while one is open). The player's token gets the
//! player's view alone: no review link, no metadata, nothing only the editor needs.

use std::collections::HashMap;
use std::sync::Arc;

use foundation::links::ReviewScope;
use pipeline::edit::{EditorView, PlayerView};
use serde::Serialize;
use utoipa::ToSchema;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{blocking, query, viewed};
use crate::State;
use crate::errors::reject;
use crate::reply::json_reply;

/// What the data route answers: the editor's view for the review link, the player's for the
/// player's link.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub(crate) enum ReviewData {
    Editor(Box<EditorView>),
    Player(PlayerView),
}

/// The video's state and scenes for the editor (review-link token), or for the read-only
/// player (the player's token).
#[utoipa::path(
    get,
    path = "/app/editor/{topic_id}/data",
    operation_id = "editor_data",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`, or the player's token."),
    ),
    responses(
        (status = 200, description = "The job's status and the scenes (`editor_view`); for the player's token only what the player shows (`player_view`).", body = ReviewData),
        (status = 404, description = "`video_not_found`: unknown video or a token that does not match."),
    ),
)]
pub(crate) async fn editor_data(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (job, scope) = viewed(&state, &topic, &q).map_err(reject)?;
    let editor = state.editor.clone();
    let view = blocking(move || match scope {
        ReviewScope::Edit => {
            pipeline::edit::view(&editor, &job).map(|v| ReviewData::Editor(Box::new(v)))
        }
        ReviewScope::Player => pipeline::edit::player_view(&editor, &job).map(ReviewData::Player),
    })
    .await?;
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
