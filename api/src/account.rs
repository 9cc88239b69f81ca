//! `GET /v1/account`: the calling account's plan, credits, validity, profile and channel
//! groups, read from its record (`pipeline::core::accounts::AccountReply`).

use std::sync::Arc;

use pipeline::core::accounts::AccountReply;
use pipeline::core::model::Account;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::filters::auth;
use crate::reply::json_reply;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    warp::path!("v1" / "account")
        .and(warp::get())
        .and(auth(state))
        .and_then(get_account)
        .boxed()
}

/// The account behind the key (synchronous, free).
#[utoipa::path(
    get,
    path = "/v1/account",
    operation_id = "account",
    tag = "account",
    responses(
        (status = 200, description = "The account. `connected_platforms` is empty and `channel_groups` holds only the primary group 0 until publishing connections exist.", body = AccountReply),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn get_account(account: Account) -> Result<Response, Rejection> {
    Ok(json_reply(StatusCode::OK, &AccountReply::of(&account)))
}
