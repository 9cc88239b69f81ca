//! Media for a video: `POST /v1/search_broll` and `POST /v1/create_image`. DTO handling only; the rules, providers
//! and publishing live in `pipeline::media`.

use std::sync::Arc;

use foundation::model::Account;
use pipeline::media::{
    ImageBody, ImageRequest, ImageSet, ImageSetStatus, Images, Search, SearchBody, SearchReply,
    SearchRequest,
};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::blocking::blocking;
use crate::filters::{auth, typed};
use crate::reply::json_reply;

/// A keyword, a kind, a ratio and a limit.
const BODY_LIMIT: usize = 16 * 1024;

/// A prompt of up to 2000 characters.
const IMAGE_BODY_LIMIT: usize = 64 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let search = state.search.clone();
    let images = state.images.clone();
    let search = warp::path!("v1" / "search_broll")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<SearchBody>(BODY_LIMIT))
        .and(warp::any().map(move || search.clone()))
        .and_then(search_broll);
    let create = warp::path!("v1" / "create_image")
        .and(warp::post())
        .and(auth(state))
        .and(typed::<ImageBody>(IMAGE_BODY_LIMIT))
        .and(warp::any().map(move || images.clone()))
        .and_then(create_image);
    search.or(create).unify().boxed()
}

/// Images for a prompt (synchronous; 1 credit per image, refunded for images not made).
#[utoipa::path(
    post,
    path = "/v1/create_image",
    operation_id = "create_image",
    tag = "media",
    request_body(content = ImageBody, content_type = "application/json"),
    responses(
        (status = 200, description = "Every image, `status: completed`.", body = ImageSet),
        (status = 400, description = "`invalid_json`, `missing_field` (`prompt`), `prompt_too_long`, `invalid_ratio`, `invalid_count`, `invalid_topic_id`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 402, description = "`account_expired`, `credit_exhausted`, `plan_required` (`details.pricing_url`)", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`: `topic_id` is not a video of this account", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
        (status = 502, description = "`status: partial` with the survivors and `error.failed_at_number` (an image set), or `image_generation_failed` (an error envelope) when no image was made", body = ImageSet),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn create_image(
    account: Account,
    request: ImageRequest,
    images: Arc<Images>,
) -> Result<Response, Rejection> {
    let set = blocking(move || images.create(&account, &request)).await?;
    let status = match set.status {
        ImageSetStatus::Completed => StatusCode::OK,
        ImageSetStatus::Partial => StatusCode::BAD_GATEWAY,
    };
    Ok(json_reply(status, &set))
}

/// Stock clips or photos for swapping one scene's media (synchronous, free). Each `url` works
/// directly as `mediaUrl` in modify_scene.
#[utoipa::path(
    post,
    path = "/v1/search_broll",
    operation_id = "search_broll",
    tag = "media",
    request_body(content = SearchBody, content_type = "application/json"),
    responses(
        (status = 200, description = "Best matches first.", body = SearchReply),
        (status = 400, description = "`invalid_json`, `missing_field` (`keyword`, `kind`), `invalid_kind`, `invalid_ratio`, `invalid_limit`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
        (status = 502, description = "`search_failed`: the stock provider failed", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn search_broll(
    _account: Account,
    request: SearchRequest,
    search: Arc<Search>,
) -> Result<Response, Rejection> {
    search_reply(search, request).await
}

/// The reply of a B-roll search, for `/v1/search_broll` and the editor's B-roll swap alike.
pub(crate) async fn search_reply(
    search: Arc<Search>,
    request: SearchRequest,
) -> Result<Response, Rejection> {
    let reply = blocking(move || search.search(&request)).await?;
    Ok(json_reply(StatusCode::OK, &reply))
}
