//! `/v1` job routes: create_video, status, export_video, openapi.json.

use std::sync::Arc;

use pipeline::core::model::Account;
use serde_json::Value;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, json_body, with_state};
use crate::reply::with_request_id;

/// JSON bodies of job routes are small; media uploads use multipart routes.
const JOB_BODY_LIMIT: usize = 256 * 1024;

pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let create = warp::path!("v1" / "create_video")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(warp::header::optional::<String>("idempotency-key"))
        .and(json_body(JOB_BODY_LIMIT))
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
        .and(json_body(JOB_BODY_LIMIT))
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

async fn create_video(
    account: Account,
    idempotency_key: Option<String>,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let accepted = pipeline::ingest::create::validate(&body, state.settings.mode, &state.fetcher)
        .await
        .map_err(reject)?;
    let job = state
        .engine
        .create_video(&account.name, accepted, idempotency_key)
        .map_err(reject)?;
    tracing::info!(topic = %job.topic_id, account = %account.name, "video job accepted");
    Ok(status_reply(StatusCode::ACCEPTED, &job))
}

async fn get_status(
    id: String,
    account: Account,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let job = state.engine.job_for(&account.name, &id).map_err(reject)?;
    Ok(status_reply(StatusCode::OK, &job))
}

async fn export_video(
    account: Account,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let id = match body.get("id").or_else(|| body.get("topic_id")) {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            return Err(reject(pipeline::Error::missing("id")));
        }
        Some(_) => {
            return Err(reject(
                pipeline::Error::new(pipeline::Code::InvalidId, "`id` must be a topic id string.")
                    .param("id"),
            ));
        }
    };
    let (first, job) = state
        .engine
        .export_video(&account.name, &id)
        .map_err(reject)?;
    let status = if first {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok(status_reply(status, &job))
}

fn status_reply(status: StatusCode, job: &pipeline::core::model::Job) -> Response {
    with_request_id(status, job.status_object())
}
