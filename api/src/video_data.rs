//! `POST /v1/video_data`: the small envelope and the expiring public scene-tree file.
//!
//! The full tree (`VideoDocument::to_public`) is written through `state.public` as a temporary
//! file under `{origin_url}/tmp/video_data/…` with an unguessable, per-call name, completely and
//! atomically before the response is sent; it answers 410 after `public.temp_ttl_secs` (900 s)
//! and the sweeper deletes it.

use std::sync::Arc;

use foundation::document::PublicView;
use foundation::model::{Account, JobStatus};
use foundation::public::Lifetime;
use foundation::video_data::{TreeSummary, VideoData, VideoDataRequest};
use pipeline::{Code, Error};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed, with_state};
use crate::reply::json_reply_with_id;

const BODY_LIMIT: usize = 16 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    warp::path!("v1" / "video_data")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<VideoDataRequest>(BODY_LIMIT))
        .and(with_state(state))
        .and_then(video_data)
        .boxed()
}

/// `POST /v1/video_data`: a small envelope pointing at the video's scene tree, published as
/// an expiring public JSON file.
#[utoipa::path(
    post,
    path = "/v1/video_data",
    tag = "videos",
    request_body(content = VideoDataRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The envelope; the tree is at `data.url` for 900 s.", body = VideoData),
        (status = 400, description = "`invalid_json`, `missing_field`, `invalid_field`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`script_not_ready`", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`video_data_publish_failed`", body = crate::openapi::ErrorEnvelope),
        (status = 502, description = "`script_parse_failed`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn video_data(
    account: Account,
    request: VideoDataRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let id = request.video_id.clone();
    let include_diagnostics = request.include_diagnostics;
    if !foundation::ids::is_topic_id(&id) {
        return Err(reject(
            Error::new(
                Code::VideoNotFound,
                "No video with this id exists on the account.",
            )
            .param("video_id"),
        ));
    }
    crate::metrics::topic(&id);
    // One id for the reply and the file it points at (the blocking task has no request scope).
    let request_id = crate::metrics::request_id();
    let file_request_id = request_id.clone();
    let st = state.clone();
    let account_name = account.name.clone();
    let id2 = id.clone();
    let envelope = crate::blocking::spawn(move || -> Result<_, Error> {
        let (job, mut doc) =
            st.engine
                .document_for(&account_name, &id2)
                .map_err(|e| match e.code {
                    Code::InvalidId => Error::new(
                        Code::VideoNotFound,
                        "No video with this id exists on the account.",
                    )
                    .param("video_id"),
                    _ => e.param("video_id"),
                })?;
        // Edits staged in an open edit session show here before they are committed.
        if let Some(staged) = st.editor.staged(&id2) {
            doc = staged;
        }
        if job.status == JobStatus::Processing && job.step < 5 {
            return Err(Error::new(
                Code::ScriptNotReady,
                "The video's scenes are still being built; poll its status until scenes are ready.",
            )
            .param("video_id"));
        }
        let review_url = job
            .review_url
            .clone()
            .unwrap_or_else(|| st.engine.review_url(&id2));
        let public_root = st.settings.data_dir.join("public");
        let tree = doc.to_public(
            &PublicView {
                review_url: &review_url,
                origin_url: &st.settings.origin_url,
                public_root: &public_root,
                include_diagnostics,
            },
            &file_request_id,
        );
        let bytes = serde_json::to_vec_pretty(&tree).expect("JSON values serialise");
        let name = format!("video_data/{id2}-{}.json", foundation::public::token());
        let published = st
            .public
            .write(Lifetime::Temp, &name, &bytes)
            .map_err(|e| {
                tracing::error!(error = %e, "video data file not written");
                Error::new(
                    Code::VideoDataPublishFailed,
                    "The video data file could not be published; try again.",
                )
            })?;
        let summary = TreeSummary {
            review_url,
            title: doc.title.clone(),
            total_segments: doc.segments.len(),
            total_duration: doc.total_duration(),
        };
        Ok(VideoData::new(&request, &published, summary))
    })
    .await
    .map_err(|e| reject(Error::internal(e)))?
    .map_err(reject)?;
    Ok(json_reply_with_id(StatusCode::OK, &envelope, request_id))
}
