//! Written content: `POST /v1/create_content`, `POST /v1/enhance_script` (async jobs with the
//! status object of `GET /v1/status/{id}`, `type: content`) and `POST /v1/collect_ideas`
//! (synchronous). Bodies are read into pipeline's typed requests; jobs are created by the
//! engine, which charges their credit in the same transaction.

use std::sync::Arc;

use foundation::model::{Account, StatusObject};
use pipeline::content::{
    CollectIdeasRequest, ContentRecord, CreateContentRequest, EnhanceScriptRequest, IdeaList, Work,
    answer_ideas, validate_content, validate_enhance,
};
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::blocking::blocking;
use crate::errors::reject;
use crate::filters::{auth, typed, with_state};
use crate::reply::json_reply;

/// Pasted text of up to 3000 words fits well within this.
const CONTENT_BODY_LIMIT: usize = 256 * 1024;

pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let create = warp::path!("v1" / "create_content")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<CreateContentRequest>(CONTENT_BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(create_content);
    let enhance = warp::path!("v1" / "enhance_script")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<EnhanceScriptRequest>(CONTENT_BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(enhance_script);
    let ideas = warp::path!("v1" / "collect_ideas")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<CollectIdeasRequest>(CONTENT_BODY_LIMIT))
        .and_then(collect_ideas);
    create.or(enhance).unify().or(ideas).unify()
}

/// `POST /v1/create_content`: writes a blog post, Facebook post, X thread or LinkedIn post.
#[utoipa::path(
    post,
    path = "/v1/create_content",
    tag = "content",
    request_body(content = CreateContentRequest, content_type = "application/json"),
    responses(
        (status = 202, description = "The job was accepted (1 credit taken): its status object, `type: content`, `status: processing`, `details.status: Queued`, with `result.review_url` (the content viewer) already set. Poll `GET /v1/status/{id}`; the piece is in `result.content` once completed.", body = StatusObject),
        (status = 400, description = "`invalid_json`, `missing_field`, `invalid_field`, `invalid_content_type`, `invalid_language`, `invalid_metadata`, `invalid_callback_url`, `input_too_short`, `unsupported_media_url` (a URL on a private, loopback or link-local host)", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 402, description = "`credit_exhausted`: no job was created", body = crate::openapi::ErrorEnvelope),
        (status = 429, description = "`too_many_jobs`: the account has `queue.max_jobs_per_account` jobs in flight; `queue_full`: the server has `queue.max_jobs`. Nothing was queued; `Retry-After` and `details.retry_after_seconds` say when to try again.", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn create_content(
    account: Account,
    request: CreateContentRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (accepted, piece) = validate_content(request, state.settings.mode, &state.fetcher)
        .await
        .map_err(reject)?;
    let name = account.name.clone();
    let job = blocking(move || {
        state.engine.create_written(&name, accepted, |tx, job| {
            Ok(ContentRecord {
                topic_id: job.topic_id.clone(),
                work: Work::Piece(piece),
                source: None,
            }
            .put(tx)?)
        })
    })
    .await?;
    tracing::info!(topic = %job.topic_id, account = %account.name, "content job accepted");
    Ok(json_reply(StatusCode::ACCEPTED, &job.status_object()))
}

/// `POST /v1/enhance_script`: tightens a script, keeping its meaning.
#[utoipa::path(
    post,
    path = "/v1/enhance_script",
    tag = "content",
    request_body(content = EnhanceScriptRequest, content_type = "application/json"),
    responses(
        (status = 202, description = "The job was accepted (1 credit taken): its status object, `type: content`. Poll `GET /v1/status/{id}`; the tightened script is in `result.script` once completed.", body = StatusObject),
        (status = 400, description = "`invalid_json`, `missing_field`, `invalid_field`, `script_too_short`, `script_too_long`, `invalid_metadata`, `invalid_callback_url`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 402, description = "`credit_exhausted`: no job was created", body = crate::openapi::ErrorEnvelope),
        (status = 429, description = "`too_many_jobs`: the account has `queue.max_jobs_per_account` jobs in flight; `queue_full`: the server has `queue.max_jobs`. Nothing was queued; `Retry-After` and `details.retry_after_seconds` say when to try again.", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn enhance_script(
    account: Account,
    request: EnhanceScriptRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (accepted, enhance) = validate_enhance(request, state.settings.mode, &state.fetcher)
        .await
        .map_err(reject)?;
    let name = account.name.clone();
    let job = blocking(move || {
        state.engine.create_written(&name, accepted, |tx, job| {
            Ok(ContentRecord {
                topic_id: job.topic_id.clone(),
                work: Work::Enhance(enhance),
                source: None,
            }
            .put(tx)?)
        })
    })
    .await?;
    tracing::info!(topic = %job.topic_id, account = %account.name, "enhance job accepted");
    Ok(json_reply(StatusCode::ACCEPTED, &job.status_object()))
}

/// `POST /v1/collect_ideas`: video ideas for an industry, one per production format in turn.
#[utoipa::path(
    post,
    path = "/v1/collect_ideas",
    tag = "content",
    request_body(content = CollectIdeasRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The ideas (synchronous, free).", body = IdeaList),
        (status = 400, description = "`invalid_json`, `invalid_industry`, `invalid_count`, `invalid_language`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn collect_ideas(
    account: Account,
    request: CollectIdeasRequest,
) -> Result<Response, Rejection> {
    Ok(json_reply(
        StatusCode::OK,
        &answer_ideas(&request, account.industry.as_deref()),
    ))
}
