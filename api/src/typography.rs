//! `POST /v1/typography` and `GET /v1/typography/{id}?wait=`: DTO handling only; validation,
//! credits, the design job and its records live in `pipeline::design`.
//!
//! Status codes: 200 with the finished result, 202 with `status: processing` when `wait`
//! elapsed first (poll `GET …?wait=`); a failed design answers 500 `typography_failed` (its
//! credit is refunded).

use std::collections::HashMap;
use std::sync::Arc;

use foundation::model::Account;
use pipeline::design::{
    Outcome, Typography, TypographyBody, TypographyRequest, TypographyResult, TypographyStatus,
    parse_wait,
};
use pipeline::{Code, Error};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed};
use crate::reply::json_reply;

/// Bodies hold at most 2000 + 300 characters of copy plus word timings.
const BODY_LIMIT: usize = 512 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let svc = Arc::new(Typography::new(state.settings.clone(), state.store.clone()));
    let with_svc = {
        let svc = svc.clone();
        warp::any().map(move || svc.clone())
    };
    let post = warp::path!("v1" / "typography")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<TypographyBody>(BODY_LIMIT))
        .and(with_svc.clone())
        .and_then(create);
    let get = warp::path!("v1" / "typography" / String)
        .and(warp::get())
        .and(auth(state))
        .and(warp::query::<HashMap<String, String>>())
        .and(with_svc)
        .and_then(fetch);
    post.or(get).unify().boxed()
}

fn answer(outcome: Outcome) -> Result<Response, warp::Rejection> {
    let body = outcome.body;
    if body.status == TypographyStatus::Failed {
        let message = body
            .error
            .map(|e| e.message)
            .unwrap_or_else(|| "The design could not be made.".into());
        return Err(reject(Error::new(Code::TypographyFailed, message).details(
            serde_json::json!({ "id": body.id, "credits_charged": 0 }),
        )));
    }
    let status = if outcome.finished {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    Ok(json_reply(status, &body))
}

/// Design text as outlined SVG/PNG objects (1 credit).
#[utoipa::path(
    post,
    path = "/v1/typography",
    operation_id = "create_typography",
    tag = "typography",
    request_body = TypographyBody,
    responses(
        (status = 200, description = "The finished design.", body = TypographyResult),
        (status = 202, description = "Still designing after `wait` seconds: poll `GET /v1/typography/{id}`.", body = TypographyResult),
        (status = 400, description = "A field breaks a limit; `param` names it."),
        (status = 401, description = "No or unknown API key."),
        (status = 402, description = "`credit_exhausted`: no credit left."),
        (status = 500, description = "`typography_failed`: the design could not be made (credit refunded)."),
    ),
)]
pub(crate) async fn create(
    account: Account,
    req: TypographyRequest,
    svc: Arc<Typography>,
) -> Result<Response, warp::Rejection> {
    let outcome = svc.submit(&account, req).await.map_err(reject)?;
    answer(outcome)
}

/// A typography result, waiting up to `wait` seconds while it is processing.
#[utoipa::path(
    get,
    path = "/v1/typography/{id}",
    operation_id = "get_typography",
    tag = "typography",
    params(
        ("id" = String, Path, description = "The result id, `typo_` + 24 hex."),
        ("wait" = Option<u64>, Query, minimum = 0, maximum = 100, description = "Seconds to wait while processing (0 to 100)."),
    ),
    responses(
        (status = 200, description = "The finished design.", body = TypographyResult),
        (status = 202, description = "Still designing.", body = TypographyResult),
        (status = 400, description = "`invalid_wait`."),
        (status = 401, description = "No or unknown API key."),
        (status = 404, description = "`typography_not_found`: no such result on this account."),
        (status = 500, description = "`typography_failed`: the design could not be made."),
    ),
)]
pub(crate) async fn fetch(
    id: String,
    account: Account,
    query: HashMap<String, String>,
    svc: Arc<Typography>,
) -> Result<Response, warp::Rejection> {
    let wait = parse_wait(query.get("wait").map(String::as_str)).map_err(reject)?;
    let outcome = svc.get(&account.name, &id, wait).await.map_err(reject)?;
    answer(outcome)
}
