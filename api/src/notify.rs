//! `POST /v1/notification/send` and `POST /v1/error/report`: DTO handling only; validation,
//! channels, the hourly limit, stored reports and the replies live in `pipeline::notify`.

use std::sync::Arc;

use foundation::model::Account;
use pipeline::notify::{
    ErrorReportBody, ErrorReportReply, NotificationBody, NotificationReply, Notifier,
    ReportRequest, report_error,
};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed};
use crate::reply::json_reply;

/// A subject and a 4000-byte message with room for JSON escapes.
const BODY_LIMIT: usize = 64 * 1024;

pub fn routes(state: Arc<State>, notifier: Arc<Notifier>) -> BoxedFilter<(Response,)> {
    let with = warp::any().map(move || notifier.clone());
    let operator = state
        .settings
        .section::<pipeline::notify::NotifyConfig>()
        .operator_email
        .clone();
    let with_operator = warp::any().map(move || operator.clone());
    let send = warp::path!("v1" / "notification" / "send")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<NotificationBody>(BODY_LIMIT))
        .and(with.clone())
        .and_then(send);
    let report = warp::path!("v1" / "error" / "report")
        .and(warp::post())
        .and(auth(state))
        .and(typed::<ErrorReportBody>(REPORT_LIMIT))
        .and(with)
        .and(with_operator)
        .and_then(error_report);
    send.or(report).unify().boxed()
}

/// A 4000-character message and a context object.
const REPORT_LIMIT: usize = 256 * 1024;

/// Report a problem to the service team (stored, and forwarded by email when configured).
#[utoipa::path(
    post,
    path = "/v1/error/report",
    operation_id = "report_error",
    tag = "notifications",
    request_body = ErrorReportBody,
    responses(
        (status = 200, description = "Stored (and forwarded when the operator's address is configured).", body = ErrorReportReply),
        (status = 400, description = "`missing_field`, `error_message_too_long`, `module_too_long`, `invalid_module`, `invalid_context`."),
        (status = 401, description = "No or unknown API key."),
        (status = 429, description = "`rate_limited`: forwarding it would exceed the account's messages per hour (`[notify] max_per_hour`, 60 by default, shared by every sending endpoint); nothing stored or sent; `Retry-After` header and `details {rate_limit_max, rate_limit_count, retry_after_seconds}`.", body = crate::openapi::ErrorEnvelope),
        (status = 502, description = "`error_report_failed`: stored, but forwarding failed."),
    ),
)]
pub(crate) async fn error_report(
    account: Account,
    req: ReportRequest,
    notifier: Arc<Notifier>,
    operator: String,
) -> Result<Response, warp::Rejection> {
    let reply = report_error(&notifier, &operator, &account, req)
        .await
        .map_err(reject)?;
    Ok(json_reply(StatusCode::OK, &reply))
}

/// Notify yourself: email to the address on file, and the messaging app when connected.
#[utoipa::path(
    post,
    path = "/v1/notification/send",
    operation_id = "send_notification",
    tag = "notifications",
    request_body = NotificationBody,
    responses(
        (status = 200, description = "Delivered on every connected channel (`sent`) or on some (`partial`); a channel over its byte limit, or not connected, is `skipped` with a `reason` (`message_too_long`, `not_connected`).", body = NotificationReply),
        (status = 400, description = "`subject_too_long`, `message_too_long`, `invalid_parse_mode`, `conflicting_media`, `invalid_photo_url`, `invalid_video_url`, `missing_field`; `no_delivery_channel` with `details.setup_url`."),
        (status = 401, description = "No or unknown API key."),
        (status = 429, description = "`rate_limited`: over the account's messages per hour (`[notify] max_per_hour`, 60 by default, shared by every sending endpoint); nothing sent; `Retry-After` header and `details {rate_limit_max, rate_limit_count, retry_after_seconds}`.", body = crate::openapi::ErrorEnvelope),
        (status = 502, description = "`notification_send_failed`: every channel failed; `details.{email, telegram}`."),
    ),
)]
pub(crate) async fn send(
    account: Account,
    body: NotificationBody,
    notifier: Arc<Notifier>,
) -> Result<Response, warp::Rejection> {
    let n = body.check(&notifier.fetcher).map_err(reject)?;
    let reply = notifier.send(&account, n).await.map_err(reject)?;
    Ok(json_reply(StatusCode::OK, &reply))
}
