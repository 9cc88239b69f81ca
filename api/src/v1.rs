//! `/v1` job routes: create_video, status, export_video, and the list of videos.
//!
//! Bodies are read into typed requests (`create_video`'s forms into a `CreateVideoRequest`,
//! `ExportVideoRequest`) and every job reply is the typed `StatusObject` of the job.

use std::sync::Arc;

use foundation::export::ExportVideoRequest;
use foundation::fields::body;
use foundation::model::{Account, Job, StatusObject};
use pipeline::plan::{Query, VideoList, VideosQuery};
use video::ingest::{CreateVideoForm, CreateVideoJson, CreateVideoRequest};
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::blocking::blocking;
use crate::errors::reject;
use crate::filters::{auth, typed, typed_body, with_state};
use crate::reply::json_reply;

/// JSON bodies of job routes are small; media uploads use multipart routes.
const JOB_BODY_LIMIT: usize = 256 * 1024;

pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let create = warp::path!("v1" / "create_video")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(warp::header::optional::<String>("idempotency-key"))
        .and(typed_body(JOB_BODY_LIMIT, body::read::<CreateVideoJson>))
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
        .and(typed::<ExportVideoRequest>(JOB_BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(export_video);
    let videos = warp::path!("v1" / "videos")
        .and(warp::get())
        .and(auth(state.clone()))
        .and(warp::query::<Query>())
        .and(with_state(state.clone()))
        .and_then(list_videos);
    // Multipart (`video_file`/`audio_file`) first: the JSON route would consume the body.
    crate::assets::create_multipart(state.clone())
        .or(create)
        .unify()
        .or(status)
        .unify()
        .or(export)
        .unify()
        .or(videos)
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
        (CreateVideoJson = "application/json"),
        (CreateVideoForm = "multipart/form-data"),
    )),
    responses(
        (status = 202, description = "The job was accepted: its status object, `processing`.", body = StatusObject),
        (status = 400, description = "`invalid_json`, `missing_field`, `invalid_field`, `invalid_source`, `invalid_output_type`, `invalid_language`, `invalid_video_length`, `invalid_research_enabled`, `invalid_wait_for_render`, `invalid_faceless`, `invalid_adjust`, `invalid_metadata`, `invalid_callback_url`, `script_too_short`, `script_too_long`, `input_too_short`, `unsupported_media_url`, `media_too_long`, `file_too_large`, `invalid_topic_id`, `invalid_template` (an unknown template, or one with a source other than `idea`)", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`topic_not_found`: `topic_id` names no production plan entry of the account", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`topic_exists`: the plan entry's topic already has a video; `script_not_ready`: source text without `script_text` for an entry without scripts", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
        (status = 429, description = "`too_many_jobs`: the account has `queue.max_jobs_per_account` jobs in flight; `queue_full`: the server has `queue.max_jobs`. Nothing was queued; `Retry-After` and `details.retry_after_seconds` say when to try again.", body = crate::openapi::ErrorEnvelope),
        (status = 415, description = "`unsupported_media_type`: a file source sent as JSON", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`upload_failed`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn create_video(
    account: Account,
    idempotency_key: Option<String>,
    mut request: CreateVideoRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    pipeline::plan::fill_from_plan(&state.store, &account.name, &mut request).map_err(reject)?;
    pipeline::plan::fill_from_template(&state.templates, &mut request).map_err(reject)?;
    let accepted =
        video::ingest::validate_create_video(request, &state.settings, &state.fetcher, None)
            .await
            .map_err(reject)?;
    let engine = state.engine.clone();
    let name = account.name.clone();
    let job = blocking(move || engine.create_video(&name, accepted, idempotency_key)).await?;
    crate::metrics::topic(&job.topic_id);
    tracing::info!(topic = %job.topic_id, account = %account.name, "video job accepted");
    Ok(status_reply(StatusCode::ACCEPTED, &job))
}

/// `GET /v1/status/{id}`: the status object of a job, or of a whole `publish` call.
#[utoipa::path(
    get,
    path = "/v1/status/{id}",
    tag = "videos",
    params(("id" = String, Path, description = "A topic id, a publish request id (`request_ids[]` of `publish`), or a publish call's own `id`.")),
    responses(
        (status = 200, description = "The job's status object. For a publish call's `id`: `type: publish`, `processing` while any of its requests is, `failed` when every one failed, else `completed`; `result.request_ids` and every request's `result.posts[]`.", body = StatusObject),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`: no such job on the account", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn get_status(
    id: String,
    account: Account,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    crate::metrics::topic(&id);
    let (engine, store) = (state.engine.clone(), state.store.clone());
    let status = blocking(move || match engine.job_for(&account.name, &id) {
        Ok(job) => Ok(job.status_object()),
        Err(e) if e.code == pipeline::Code::VideoNotFound => {
            pipeline::publish::call_status(&store, &account.name, &id)?.ok_or(e)
        }
        Err(e) => Err(e),
    })
    .await?;
    Ok(json_reply(StatusCode::OK, &status))
}

/// `POST /v1/export_video`: renders the MP4 of a scene-ready video.
#[utoipa::path(
    post,
    path = "/v1/export_video",
    tag = "videos",
    request_body(content = ExportVideoRequest, content_type = "application/json"),
    responses(
        (status = 202, description = "A render is queued: the first export, an export of a document edited since its last render, or one after a failed render. A fresh status snapshot; `video.completed` follows with a new `video_url`.", body = StatusObject),
        (status = 200, description = "A render is queued or running, or the document is the one rendered: the current snapshot, nothing queued.", body = StatusObject),
        (status = 400, description = "`invalid_json`, `missing_field`, `invalid_id`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`scenes_not_ready` (`param` is `id`)", body = crate::openapi::ErrorEnvelope),
        (status = 429, description = "`too_many_jobs`: the account has `queue.max_jobs_per_account` jobs in flight; `queue_full`: the server has `queue.max_jobs`. Nothing was queued; `Retry-After` and `details.retry_after_seconds` say when to try again.", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn export_video(
    account: Account,
    request: ExportVideoRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    crate::metrics::topic(&request.id);
    let engine = state.engine.clone();
    let (first, job) = blocking(move || engine.export_video(&account.name, &request.id)).await?;
    let status = if first {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok(status_reply(status, &job))
}

/// The account's videos, 20 per page, newest first.
#[utoipa::path(
    get,
    path = "/v1/videos",
    operation_id = "list_videos",
    tag = "videos",
    params(
        ("from_record" = Option<i64>, Query, minimum = 0, maximum = 1000000000, description = "How many of the newest videos to skip (default 0)."),
    ),
    responses(
        (status = 200, description = "A page of the account's videos.", body = VideoList),
        (status = 400, description = "`invalid_from_record`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`read_failed`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn list_videos(
    account: Account,
    query: Query,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let q = VideosQuery::read(&query).map_err(reject)?;
    let list = pipeline::plan::video_list(&state.store, &account.name, q).map_err(reject)?;
    Ok(json_reply(StatusCode::OK, &list))
}

fn status_reply(status: StatusCode, job: &Job) -> Response {
    json_reply(status, &job.status_object())
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use utoipa::OpenApi;

    #[derive(OpenApi)]
    #[openapi(paths(
        super::create_video,
        super::get_status,
        super::export_video,
        crate::video_data::video_data,
        crate::assets::upload_multipart,
        crate::assets::presigned_put,
    ))]
    struct JobRoutes;

    #[test]
    fn the_job_and_media_routes_document_typed_bodies_and_replies() {
        let doc = serde_json::to_value(JobRoutes::openapi()).unwrap();
        let op = |path: &str, method: &str| doc["paths"][path][method].clone();
        let schema_ref = |v: &Value| v["schema"]["$ref"].as_str().unwrap_or("").to_string();

        let create = op("/v1/create_video", "post");
        let body = &create["requestBody"]["content"];
        assert!(schema_ref(&body["application/json"]).ends_with("/CreateVideoRequest"));
        assert!(schema_ref(&body["multipart/form-data"]).ends_with("/CreateVideoForm"));
        let accepted = &create["responses"]["202"]["content"]["application/json"];
        assert!(schema_ref(accepted).ends_with("/StatusObject"));
        assert!(create["responses"]["400"].is_object());

        let upload = op("/v1/upload_asset", "post");
        let body = &upload["requestBody"]["content"];
        assert!(schema_ref(&body["multipart/form-data"]).ends_with("/AssetForm"));
        assert!(schema_ref(&body["application/json"]).ends_with("/UploadAssetRequest"));

        for (path, method) in [
            ("/v1/status/{id}", "get"),
            ("/v1/export_video", "post"),
            ("/v1/video_data", "post"),
            ("/v1/upload_asset/put/{folder}/{name}", "put"),
        ] {
            let o = op(path, method);
            assert!(o["responses"]["200"].is_object(), "{method} {path}");
        }
        assert_eq!(
            op("/v1/status/{id}", "get")["security"][0]["bearer"],
            serde_json::json!([])
        );
        // The presigned PUT is authorised by its signed URL, not the API key.
        assert!(op("/v1/upload_asset/put/{folder}/{name}", "put")["security"].is_null());
        // Every schema the paths name is in the document's components.
        let schemas = &doc["components"]["schemas"];
        for name in [
            "StatusObject",
            "CreateVideoRequest",
            "AdjustInput",
            "Asset",
            "AssetPresign",
            "VideoData",
            "ErrorEnvelope",
        ] {
            assert!(schemas[name].is_object(), "{name}");
        }
    }
}
