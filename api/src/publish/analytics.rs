//! `GET /v1/analytics`: the dashboard of a period and a `channel_group` scope, computed on a
//! blocking thread and cached briefly (`pipeline::publish::analytics`).

use std::collections::HashMap;
use std::sync::Arc;

use foundation::model::Account;
use foundation::time::now;
use pipeline::publish::{AnalyticsQuery, AnalyticsReply, compute_analytics};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, with_state};
use crate::publish::blocking;

use crate::reply::json_reply;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    warp::path!("v1" / "analytics")
        .and(warp::get())
        .and(auth(state.clone()))
        .and(warp::query::<HashMap<String, String>>())
        .and(with_state(state))
        .and_then(get_analytics)
        .boxed()
}

/// Views, downloads and posts per platform (and the connector's own analytics), by period and
/// channel group.
#[utoipa::path(
    get,
    path = "/v1/analytics",
    operation_id = "analytics",
    tag = "publishing",
    params(
        ("period" = Option<String>, Query, pattern = "^(last_day|last_week|last_month|last_3months|last_year|custom)$", description = "Default `last_week`; `custom` needs `start_date` and `end_date`."),
        ("start_date" = Option<String>, Query, description = "For `custom`: YYYY-MM-DD or an ISO 8601 date-time."),
        ("end_date" = Option<String>, Query, description = "For `custom`: YYYY-MM-DD (the whole day) or an ISO 8601 date-time."),
        ("channel_group" = Option<String>, Query, pattern = "^([0-9]{1,9}|all)$", description = "Omitted: every group, keys `platform` (group 0) and `platform@N`; an integer: one group; `all`: summed."),
    ),
    responses(
        (status = 200, description = "The dashboard (cached briefly; `computed_at` says when).", body = AnalyticsReply),
        (status = 400, description = "`invalid_period`, `missing_field` (custom dates), `invalid_date`, `invalid_channel_group`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`invalid_channel_group`: no such group", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`read_failed`: the connector's analytics could not be read", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn get_analytics(
    account: Account,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let query = AnalyticsQuery::read(&q, now()).map_err(reject)?;
    let reply = blocking(move || {
        state.analytics.get(&account.name, &query, || {
            compute_analytics(
                &state.store,
                state.publisher.as_ref(),
                &account.name,
                &query,
            )
        })
    })
    .await?;
    Ok(json_reply(StatusCode::OK, &reply))
}
