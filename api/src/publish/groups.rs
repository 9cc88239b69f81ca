//! `/v1/channel_groups`: list, create (paid plan, the limit, a publishing profile when the
//! publisher keeps them), read, rename and delete (its accounts disconnected, its posts kept).

use std::sync::Arc;

use foundation::accounts::ChannelGroup;
use foundation::model::Account;
use pipeline::publish::{self, AccountPage, GroupList, LabelRequest, invalid_group};
use serde::Serialize;
use utoipa::ToSchema;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed, with_state};
use crate::publish::blocking;
use crate::reply::json_reply;

const BODY_LIMIT: usize = 4 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let base = || warp::path!("v1" / "channel_groups");
    let one = || warp::path!("v1" / "channel_groups" / String);
    let list = base()
        .and(warp::get())
        .and(auth(state.clone()))
        .and(with_state(state.clone()))
        .and_then(list_groups);
    let create = base()
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<LabelRequest>(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(create_group);
    let get = one()
        .and(warp::get())
        .and(auth(state.clone()))
        .and(with_state(state.clone()))
        .and_then(get_group);
    let rename = one()
        .and(warp::patch())
        .and(auth(state.clone()))
        .and(typed::<LabelRequest>(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(rename_group);
    let delete = one()
        .and(warp::delete())
        .and(auth(state.clone()))
        .and(with_state(state))
        .and_then(delete_group);
    list.or(create)
        .unify()
        .or(get)
        .unify()
        .or(rename)
        .unify()
        .or(delete)
        .unify()
        .boxed()
}

/// The group number of a path: an integer of at least 0 (400 `invalid_channel_group`).
fn number(raw: &str) -> Result<u32, Rejection> {
    raw.parse::<u32>().map_err(|_| reject(invalid_group()))
}

/// The account's channel groups, primary first, with the limit and the setup page.
#[utoipa::path(
    get,
    path = "/v1/channel_groups",
    operation_id = "list_channel_groups",
    tag = "publishing",
    responses(
        (status = 200, description = "Every group, group 0 first.", body = GroupList),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn list_groups(
    account: Account,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let data = {
        let (state, account) = (state.clone(), account.clone());
        blocking(move || Ok(publish::list_groups(&state.store, &account)?)).await?
    };
    let s = &state.settings;
    let reply = GroupList {
        object: "list",
        data,
        limit: s
            .section::<pipeline::publish::PublishConfig>()
            .channel_group_limit,
        setup_url: AccountPage::Setup.url(&s.webhook.signing_secret, &s.app_url, &account.name),
        schedule_url: AccountPage::Schedule.url(
            &s.webhook.signing_secret,
            &s.app_url,
            &account.name,
        ),
    };
    Ok(json_reply(StatusCode::OK, &reply))
}

/// Creates a channel group under the next number (paid plan only).
#[utoipa::path(
    post,
    path = "/v1/channel_groups",
    operation_id = "create_channel_group",
    tag = "publishing",
    request_body(content = LabelRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "The new group (numbers are never reused); with the connector, its publishing profile was made.", body = ChannelGroup),
        (status = 400, description = "`invalid_json`, `missing_field`, `invalid_field`, `invalid_label` (over 40 characters)", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 402, description = "`plan_required` (free or trial plan), `account_expired`; `details.pricing_url`", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`channel_group_limit` (`details.pricing_url`), `profile_limit_reached`, `upstream_username_taken`", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
        (status = 502, description = "`connect_failed`: the publisher's profile could not be made", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn create_group(
    account: Account,
    request: LabelRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let group = blocking(move || {
        let s = &state.settings;
        let publisher = state.publisher.clone();
        let name = account.name.clone();
        let provision = move |label: &str| publisher.provision(&name, label);
        publish::create_group(
            &state.store,
            &account,
            &request.label,
            s.section::<pipeline::publish::PublishConfig>()
                .channel_group_limit,
            &s.pricing_url(),
            &provision,
        )
    })
    .await?;
    Ok(json_reply(StatusCode::CREATED, &group))
}

/// One channel group.
#[utoipa::path(
    get,
    path = "/v1/channel_groups/{channel_group}",
    operation_id = "get_channel_group",
    tag = "publishing",
    params(("channel_group" = String, Path, pattern = "^[0-9]{1,9}$", description = "The group's number (0 is the primary group).")),
    responses(
        (status = 200, description = "The group.", body = ChannelGroup),
        (status = 400, description = "`invalid_channel_group`: not an integer of at least 0", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`invalid_channel_group`: no such group", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn get_group(
    raw: String,
    account: Account,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let n = number(&raw)?;
    let group = blocking(move || publish::group(&state.store, &account, n)).await?;
    Ok(json_reply(StatusCode::OK, &group))
}

/// Renames a channel group; group 0 cannot be renamed.
#[utoipa::path(
    patch,
    path = "/v1/channel_groups/{channel_group}",
    operation_id = "rename_channel_group",
    tag = "publishing",
    params(("channel_group" = String, Path, pattern = "^[0-9]{1,9}$", description = "The group's number.")),
    request_body(content = LabelRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The renamed group.", body = ChannelGroup),
        (status = 400, description = "`invalid_channel_group`, `invalid_json`, `missing_field`, `invalid_field`, `invalid_label`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`invalid_channel_group`: no such group, or group 0", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn rename_group(
    raw: String,
    account: Account,
    request: LabelRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let n = number(&raw)?;
    let group =
        blocking(move || publish::rename_group(&state.store, &account, n, &request.label)).await?;
    Ok(json_reply(StatusCode::OK, &group))
}

/// The answer of a deleted group.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletedGroup {
    /// Always `channel_group`.
    #[schema(example = "channel_group")]
    pub object: &'static str,
    pub channel_group: u32,
    /// Always true.
    pub deleted: bool,
}

/// Removes a channel group and its profile, disconnecting its accounts; published posts stay.
#[utoipa::path(
    delete,
    path = "/v1/channel_groups/{channel_group}",
    operation_id = "delete_channel_group",
    tag = "publishing",
    params(("channel_group" = String, Path, pattern = "^[0-9]{1,9}$", description = "The group's number.")),
    responses(
        (status = 200, description = "The group is gone; its number is never given again.", body = DeletedGroup),
        (status = 400, description = "`invalid_channel_group`: not an integer of at least 0", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 402, description = "`plan_required`, `account_expired`; `details.pricing_url`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`invalid_channel_group`: no such group, or group 0", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn delete_group(
    raw: String,
    account: Account,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let n = number(&raw)?;
    blocking(move || {
        let removed =
            publish::delete_group(&state.store, &account, n, &state.settings.pricing_url())?;
        if let Some(key) = &removed.profile_key {
            state.publisher.remove_profile(key);
        }
        Ok(())
    })
    .await?;
    Ok(json_reply(
        StatusCode::OK,
        &DeletedGroup {
            object: "channel_group",
            channel_group: n,
            deleted: true,
        },
    ))
}
