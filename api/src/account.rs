//! `GET /v1/account`: the calling account's plan, credits, validity, profile and channel
//! groups and connected platforms, read from its records (`foundation::accounts::AccountReply`,
//! the groups from `pipeline::publish::groups`).

use std::sync::Arc;

use foundation::accounts::AccountReply;
use foundation::model::Account;
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
        .and(auth(state.clone()))
        .and(crate::filters::with_state(state))
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
        (status = 200, description = "The account, with its channel groups (primary first) and `connected_platforms`, the union of the platforms connected in every group.", body = AccountReply),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn get_account(
    account: Account,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let reader = account.clone();
    let groups = crate::blocking::blocking(move || {
        pipeline::publish::list_groups(&state.store, &reader).map_err(Into::into)
    })
    .await?;
    Ok(json_reply(
        StatusCode::OK,
        &AccountReply::of(&account, groups),
    ))
}
