//! The webhook delivery log: `GET /v1/webhook_deliveries?id=` (each delivery of a job's events
//! with every attempt) and `POST /v1/webhook_deliveries/{delivery}/redeliver`. The records live
//! in `foundation::delivery_log`.

use std::collections::HashMap;
use std::sync::Arc;

use foundation::delivery_log::{self, DeliveryList, DeliveryRecord};
use foundation::model::Account;
use pipeline::{Code, Error};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, with_state};
use crate::reply::json_reply;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let list = warp::path!("v1" / "webhook_deliveries")
        .and(warp::get())
        .and(auth(state.clone()))
        .and(warp::query::<HashMap<String, String>>())
        .and(with_state(state.clone()))
        .and_then(list_deliveries);
    let redeliver = warp::path!("v1" / "webhook_deliveries" / String / "redeliver")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(with_state(state))
        .and_then(redeliver);
    list.or(redeliver).unify().boxed()
}

/// The webhook deliveries of one job, oldest first, with every attempt.
#[utoipa::path(
    get,
    path = "/v1/webhook_deliveries",
    operation_id = "webhook_deliveries",
    tag = "webhooks",
    params(
        ("id" = String, Query, pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$", description = "The job's topic id."),
    ),
    responses(
        (status = 200, description = "The job's deliveries: state (`pending`, `delivered`, `failed`) and each attempt's time, status code, latency and error.", body = DeliveryList),
        (status = 400, description = "`missing_field`, `invalid_id`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`: no job with this id on the account", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn list_deliveries(
    account: Account,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let id = q
        .get("id")
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| reject(Error::missing("id")))?;
    let id = foundation::ids::checked_topic_id(id, Code::InvalidId, "id").map_err(reject)?;
    let data = {
        let (state, id) = (state.clone(), id.clone());
        crate::blocking::blocking(move || {
            state.engine.job_for(&account.name, &id)?;
            delivery_log::list(&state.store, &id)
        })
        .await?
    };
    Ok(json_reply(
        StatusCode::OK,
        &DeliveryList {
            object: "list",
            id,
            data,
        },
    ))
}

/// Sends a delivery again: the same `event_id` and body, a fresh signature, and a fresh retry
/// schedule from now.
#[utoipa::path(
    post,
    path = "/v1/webhook_deliveries/{delivery}/redeliver",
    operation_id = "webhook_redeliver",
    tag = "webhooks",
    params(("delivery" = String, Path, description = "A delivery id from the log (`X-Service-Delivery`).")),
    responses(
        (status = 202, description = "Queued: the delivery, `pending`; its attempt follows at once.", body = DeliveryRecord),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`delivery_not_found`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn redeliver(
    delivery: String,
    account: Account,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (store, id) = (state.store.clone(), delivery.clone());
    let record = crate::blocking::blocking(move || {
        let owns = |topic: &str| {
            store
                .job(topic)
                .ok()
                .flatten()
                .is_some_and(|j| j.account == account.name)
        };
        delivery_log::redeliver(&store, &id, owns)
    })
    .await?;
    state.webhook_wake.notify_one();
    tracing::info!(delivery = %delivery, topic = %record.topic_id, "webhook redelivery queued");
    Ok(json_reply(StatusCode::ACCEPTED, &record))
}
