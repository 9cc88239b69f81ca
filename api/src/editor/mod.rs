//! The editor's HTTP side, everything under `{app_url}/editor/`: the page a `review_url` opens
//! (the single-page app embedded in the binary, or the read-only player), the app's files, and
//! the JSON routes it calls. The review link's signed token is the only credential: every route
//! checks it against the topic id in the path before it reads anything, and a tampered token
//! answers like an unknown video.
//!
//! One job per file: `page.rs` the HTML shell and the player's page, `files.rs` the embedded
//! app, `data.rs` what the app loads, `media.rs` stills and preview clips, `edits.rs`
//! modify_scene / edit_session / scene_geometry for the link's video, `events.rs` the realtime
//! stream, `export.rs` export and its progress, `broll.rs` search_broll for the background
//! swap, `upload.rs` files for the upload edits, `script.rs` the script view's approval,
//! `versions.rs` undo, redo and the version list, `arrange.rs` re-voice, reorder and delete scenes, `live.rs` the WebSocket through which an open editor registers for `scene_inspector`.

pub(crate) mod arrange;
pub(crate) mod broll;
pub(crate) mod data;
pub(crate) mod edits;
pub(crate) mod events;
pub(crate) mod export;
pub(crate) mod files;
pub(crate) mod live;
pub(crate) mod media;
pub(crate) mod page;
pub(crate) mod script;
pub(crate) mod upload;
pub(crate) mod versions;

use std::collections::HashMap;
use std::sync::Arc;

use foundation::links::{self, ReviewScope};
use foundation::model::{Job, JobType};
use pipeline::{Code, Error};
use warp::filters::BoxedFilter;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;

/// Edit bodies are small JSON (URLs, rects, text).
const BODY_LIMIT: usize = 256 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    files::route()
        .or(page::route(state.clone()))
        .unify()
        .or(data::route(state.clone()))
        .unify()
        .or(media::routes(state.clone()))
        .unify()
        .or(edits::routes(state.clone()))
        .unify()
        .or(export::routes(state.clone()))
        .unify()
        .or(script::route(state.clone()))
        .unify()
        .or(events::route(state.clone()))
        .unify()
        .or(broll::route(state.clone()))
        .unify()
        .or(upload::route(state.clone()))
        .unify()
        .or(arrange::routes(state.clone()))
        .unify()
        .or(versions::routes(state.clone()))
        .unify()
        .or(live::route(state))
        .unify()
        .boxed()
}

/// The query of every editor route (`token`, and the page's `readonly` and `view`).
pub(crate) fn query() -> impl Filter<Extract = (HashMap<String, String>,), Error = Rejection> + Clone
{
    warp::query::<HashMap<String, String>>()
}

pub(crate) fn not_found() -> Error {
    Error::new(Code::VideoNotFound, "No video matches this link.")
}

/// The video a review link opens for editing: its token must be the topic's edit-scope
/// signature. The read-only player's token answers 403 `read_only_link`.
pub(crate) fn reviewed(
    state: &State,
    topic: &str,
    q: &HashMap<String, String>,
) -> Result<Job, Error> {
    match viewed(state, topic, q)? {
        (job, ReviewScope::Edit) => Ok(job),
        (_, ReviewScope::Player) => Err(read_only()),
    }
}

/// The video a review link opens in either scope (the player's data, stills and clips), with
/// the scope its token grants.
pub(crate) fn viewed(
    state: &State,
    topic: &str,
    q: &HashMap<String, String>,
) -> Result<(Job, ReviewScope), Error> {
    let token = q.get("token").map(String::as_str).unwrap_or("");
    let Some(scope) = links::review_scope(&state.settings.webhook.signing_secret, topic, token)
    else {
        return Err(not_found());
    };
    let job = state
        .store
        .job(topic)?
        .filter(|j| j.kind() == JobType::Video)
        .ok_or_else(not_found)?;
    Ok((job, scope))
}

pub(crate) fn read_only() -> Error {
    Error::new(
        Code::ReadOnlyLink,
        "This link opens the read-only player only; editing needs the review link.",
    )
}

/// Blocking work (redb, files, rendering) off the reactor: the one helper in `crate::blocking`.
pub(crate) use crate::blocking::blocking;
