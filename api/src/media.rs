//! Media for a scene swap: `POST /v1/search_broll`. DTO handling only; the rules, providers
//! and publishing live in `pipeline::media`.

use std::sync::Arc;

use pipeline::core::model::Account;
use pipeline::media::search::{Search, SearchBody, SearchReply, SearchRequest};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed_body};
use crate::reply::json_reply;

/// A keyword, a kind, a ratio and a limit.
const BODY_LIMIT: usize = 16 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let search = state.search.clone();
    warp::path!("v1" / "search_broll")
        .and(warp::post())
        .and(auth(state))
        .and(typed_body(BODY_LIMIT, SearchRequest::read))
        .and(warp::any().map(move || search.clone()))
        .and_then(search_broll)
        .boxed()
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
    let reply = tokio::task::spawn_blocking(move || search.search(&request))
        .await
        .map_err(|e| reject(pipeline::Error::internal(e)))?
        .map_err(reject)?;
    Ok(json_reply(StatusCode::OK, &reply))
}
