//! `POST /v1/publish`: the body read into the typed request, its content, platforms and
//! schedule resolved (a `video_url` downloaded through the guard), then one or two publish
//! jobs stored with the call's credit in one transaction. No webhooks (spec): clients poll
//! `GET /v1/status/{request_id}`, or the call's own `id` for both at once.

use std::sync::Arc;

use foundation::fields::body;
use foundation::model::Account;
use pipeline::publish::{Publish, PublishReply, PublishRequest, Sources, prepare_publish};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed_body, with_state};
use crate::publish::blocking;
use crate::reply::json_reply;

const BODY_LIMIT: usize = 256 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    warp::path!("v1" / "publish")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed_body(BODY_LIMIT, body::read::<PublishRequest>))
        .and(with_state(state))
        .and_then(publish)
        .boxed()
}

/// Publishes a rendered video, a written piece, text or a video file to the connected
/// platforms of one channel group, now or at `scheduled_date`.
#[utoipa::path(
    post,
    path = "/v1/publish",
    operation_id = "publish",
    tag = "publishing",
    request_body(content = PublishRequest, content_type = "application/json"),
    responses(
        (status = 202, description = "Accepted (1 credit taken): poll each of `request_ids` with `GET /v1/status/{id}` (`type: publish`, `result.posts[]`), or the call's own `id` for a status summing them up (`result.request_ids`, every request's `posts[]`). A request whose every platform refused the post fails with `publish_failed` and its credit comes back.", body = PublishReply),
        (status = 400, description = "`invalid_json`, `invalid_publish_input` (not exactly one of topic_id, text, video_url; a field too long), `missing_field` (`title` with video_url), `invalid_platforms`, `invalid_channel_group`, `invalid_photo_url`, `invalid_scheduled_date`, `invalid_timezone`, `invalid_metadata`, `no_platforms_connected`, `download_failed`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 402, description = "`credit_exhausted`, `account_expired`: nothing was published", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found` (topic_id), `invalid_channel_group` (no such group)", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`publish_not_ready`: the video is not rendered or the piece not written yet", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
        (status = 429, description = "`too_many_jobs`: the account has `queue.max_jobs_per_account` jobs in flight; `queue_full`: the server has `queue.max_jobs`. Nothing was queued; `Retry-After` and `details.retry_after_seconds` say when to try again.", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn publish(
    account: Account,
    req: Publish,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let sources = Sources {
        store: &state.store,
        engine: &state.engine,
        fetcher: &state.fetcher,
        settings: &state.settings,
    };
    let prepared = prepare_publish(&sources, &account.name, req)
        .await
        .map_err(reject)?;
    let mut accepted = prepared.accepted();
    if state.publisher.schedules_upstream() {
        // The publisher keeps the schedule: the post is handed over now with its date.
        for a in &mut accepted {
            a.not_before = None;
        }
    }
    let (records, name) = (prepared.records.clone(), account.name.clone());
    let engine = state.engine.clone();
    let created = blocking(move || {
        engine.create_publish(&name, accepted, |tx| {
            for r in &records {
                r.put(tx)?;
            }
            Ok(pipeline::publish::put_calls(tx, &records)?)
        })
    })
    .await;
    if let Err(e) = created {
        if let Some(dir) = &prepared.download_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
        return Err(e);
    }
    tracing::info!(publish = %prepared.publish_id, account = %account.name, "publish accepted");
    Ok(json_reply(StatusCode::ACCEPTED, &prepared.reply()))
}
