//! `/v1` job routes: create_video, status, export_video, openapi.json.
//!
//! Bodies are read into pipeline's typed requests (`CreateVideoRequest`,
//! `ExportVideoRequest`) and every reply is the typed `StatusObject` of the job.

use std::sync::Arc;

use pipeline::core::export::ExportVideoRequest;
use pipeline::core::model::{Account, Job, StatusObject};
use pipeline::ingest::create::{CreateVideoForm, CreateVideoRequest};
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed_body, with_state};
use crate::reply::json_reply;

/// JSON bodies of job routes are small; media uploads use multipart routes.
const JOB_BODY_LIMIT: usize = 256 * 1024;

pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let create = warp::path!("v1" / "create_video")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(warp::header::optional::<String>("idempotency-key"))
        .and(typed_body(JOB_BODY_LIMIT, CreateVideoRequest::read))
        .and(with_state(state.clone()))
        .and_then(create_video);
    let status = warp::path!("v1" / "status" / String)
        .and(warp::get())
        .and(auth(state.clone()))
        .and(with_state(state.clone()))
        .and_then(get_status);
    let export = warp::path!("v1" / "export_video")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed_body(JOB_BODY_LIMIT, ExportVideoRequest::read))
        .and(with_state(state.clone()))
        .and_then(export_video);
    let openapi = warp::path!("v1" / "openapi.json")
        .and(warp::get())
        .and(auth(state.clone()))
        // The document itself must stay a valid OpenAPI object, so its
        // request id travels in the header only.
        .map(|_: Account| {
            crate::reply::tag(warp::Reply::into_response(warp::reply::json(
                &crate::openapi::document(),
            )))
        });
    // Multipart (`video_file`/`audio_file`) first: the JSON route would consume the body.
    crate::assets::create_multipart(state.clone())
        .or(create)
        .unify()
        .or(status)
        .unify()
        .or(export)
        .unify()
        .or(openapi)
        .unify()
}

/// `POST /v1/create_video`: submits a video job (JSON; the multipart form for `video_file`
/// and `audio_file` sources is served by `crate::assets`).
#[utoipa::path(
    post,
    path = "/v1/create_video",
    tag = "videos",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "Read, not enforced."),
    ),
    request_body(content(
        (CreateVideoRequest = "application/json"),
        (CreateVideoForm = "multipart/form-data"),
    )),
    responses(
        (status = 202, description = "The job was accepted: its status object, `processing`.", body = StatusObject),
    ),
    security(("bearer" = [])),
)]
async fn create_video(
    account: Account,
    idempotency_key: Option<String>,
    request: CreateVideoRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let accepted =
        pipeline::ingest::create::validate(request, state.settings.mode, &state.fetcher, None)
            .await
            .map_err(reject)?;
    let job = state
        .engine
        .create_video(&account.name, accepted, idempotency_key)
        .map_err(reject)?;
    tracing::info!(topic = %job.topic_id, account = %account.name, "video job accepted");
    Ok(status_reply(StatusCode::ACCEPTED, &job))
}

/// `GET /v1/status/{id}`: the status object of a job.
#[utoipa::path(
    get,
    path = "/v1/status/{id}",
    tag = "videos",
    params(("id" = String, Path, description = "A topic id.")),
    responses(
        (status = 200, description = "The job's status object.", body = StatusObject),
    ),
    security(("bearer" = [])),
)]
async fn get_status(
    id: String,
    account: Account,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let job = state.engine.job_for(&account.name, &id).map_err(reject)?;
    Ok(status_reply(StatusCode::OK, &job))
}

/// `POST /v1/export_video`: renders the MP4 of a scene-ready video.
#[utoipa::path(
    post,
    path = "/v1/export_video",
    tag = "videos",
    request_body(content = ExportVideoRequest, content_type = "application/json"),
    responses(
        (status = 202, description = "First call: the render is queued; a fresh status snapshot.", body = StatusObject),
        (status = 200, description = "Already queued or rendered: the current snapshot.", body = StatusObject),
    ),
    security(("bearer" = [])),
)]
async fn export_video(
    account: Account,
    request: ExportVideoRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (first, job) = state
        .engine
        .export_video(&account.name, &request.id)
        .map_err(reject)?;
    let status = if first {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok(status_reply(status, &job))
}

fn status_reply(status: StatusCode, job: &Job) -> Response {
    json_reply(status, &job.status_object())
}
