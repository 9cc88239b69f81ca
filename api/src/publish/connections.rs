//! `GET /v1/accounts` (the connected accounts, by the `channel_group` scope) and
//! `GET`/`POST /v1/platform_settings` (per platform and group).

use std::collections::HashMap;
use std::sync::Arc;

use foundation::model::Account;
use pipeline::publish::{
    AccountList, GroupScope, SettingsReply, SettingsRequest, connected_accounts, invalid_group,
    platform_settings, set_platform_settings,
};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed, with_state};
use crate::publish::blocking;
use crate::reply::json_reply;

const BODY_LIMIT: usize = 16 * 1024;

type Query = HashMap<String, String>;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let accounts = warp::path!("v1" / "accounts")
        .and(warp::get())
        .and(auth(state.clone()))
        .and(warp::query::<Query>())
        .and(with_state(state.clone()))
        .and_then(list_accounts);
    let get = warp::path!("v1" / "platform_settings")
        .and(warp::get())
        .and(auth(state.clone()))
        .and(warp::query::<Query>())
        .and(with_state(state.clone()))
        .and_then(get_settings);
    let set = warp::path!("v1" / "platform_settings")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<SettingsRequest>(BODY_LIMIT))
        .and(with_state(state))
        .and_then(set_settings);
    accounts.or(get).unify().or(set).unify().boxed()
}

/// The connected accounts of every group, one group, or all groups.
#[utoipa::path(
    get,
    path = "/v1/accounts",
    operation_id = "list_connected_accounts",
    tag = "publishing",
    params(("channel_group" = Option<String>, Query, pattern = "^([0-9]{1,9}|all)$", description = "Omitted: every group; an integer: that group; `all`: every group together.")),
    responses(
        (status = 200, description = "The connected accounts, each with its `channel_group` and label.", body = AccountList),
        (status = 400, description = "`invalid_channel_group`: neither an integer of at least 0 nor `all`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`invalid_channel_group`: no such group", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn list_accounts(
    account: Account,
    q: Query,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let scope = GroupScope::parse(q.get("channel_group").map(String::as_str)).map_err(reject)?;
    let list = blocking(move || connected_accounts(&state.store, &account.name, scope)).await?;
    Ok(json_reply(StatusCode::OK, &list))
}

/// The platform settings of one group.
#[utoipa::path(
    get,
    path = "/v1/platform_settings",
    operation_id = "get_platform_settings",
    tag = "publishing",
    params(("channel_group" = Option<String>, Query, pattern = "^[0-9]{1,9}$", description = "The group (default 0).")),
    responses(
        (status = 200, description = "Every platform with stored settings in the group.", body = SettingsReply),
        (status = 400, description = "`invalid_channel_group`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`invalid_channel_group`: no such group", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn get_settings(
    account: Account,
    q: Query,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let group = match q.get("channel_group") {
        None => 0,
        Some(raw) => raw.parse::<u32>().map_err(|_| reject(invalid_group()))?,
    };
    let reply = blocking(move || platform_settings(&state.store, &account.name, group)).await?;
    Ok(json_reply(StatusCode::OK, &reply))
}

/// Stores one platform's settings in a group.
#[utoipa::path(
    post,
    path = "/v1/platform_settings",
    operation_id = "set_platform_settings",
    tag = "publishing",
    request_body(content = SettingsRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The group's settings after the change.", body = SettingsReply),
        (status = 400, description = "`invalid_json`, `missing_field`, `invalid_platforms`, `invalid_settings` (param `settings.<key>`), `invalid_channel_group`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`invalid_channel_group`: no such group", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn set_settings(
    account: Account,
    request: SettingsRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let reply =
        blocking(move || set_platform_settings(&state.store, &account.name, &request)).await?;
    Ok(json_reply(StatusCode::OK, &reply))
}
