//! The error envelope: every code's status and `type` come from its family in the one table of
//! `foundation::error`.
//! Every failure — ours or warp's — leaves through [`recover`], so no
//! default rejection text ever reaches a client.

use pipeline::{Code, Error};
use serde_json::json;
use warp::http::StatusCode;
use warp::reject::Reject;
use warp::{Rejection, Reply};

use crate::openapi::ErrorBody;

/// A domain error travelling through warp as a rejection.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl Reject for ApiError {}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

/// Shorthand for handlers: a domain error as a rejection.
pub fn reject(e: Error) -> Rejection {
    warp::reject::custom(ApiError(e))
}

/// The HTTP status of a code, from its family in the one table (`foundation::error`).
pub fn status_of(code: Code) -> StatusCode {
    StatusCode::from_u16(code.family().status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The envelope for a domain error.
pub fn error_reply(e: &Error) -> warp::reply::Response {
    let status = status_of(e.code);
    let error = ErrorBody {
        kind: e.code.family().type_name().to_string(),
        code: e.code.as_str().to_string(),
        message: e.message.clone(),
        param: e.param.clone(),
        details: e.details.clone(),
    };
    let request_id = crate::metrics::request_id();
    if let Some(cause) = &e.cause {
        tracing::error!(%request_id, code = %e.code, %cause, "request failed inside the server");
    }
    // `with_given_id` adds `request_id`, completing the `ErrorEnvelope`.
    let mut resp = crate::reply::with_given_id(status, json!({ "error": error }), request_id);
    if let Some(secs) = e.retry_after {
        resp.headers_mut()
            .insert(warp::http::header::RETRY_AFTER, secs.into());
    }
    resp
}

/// Turns every rejection into the envelope.
pub async fn recover(r: Rejection) -> Result<warp::reply::Response, std::convert::Infallible> {
    let e = if let Some(ApiError(e)) = r.find::<ApiError>() {
        e.clone()
    } else if r.is_not_found() {
        Error::new(Code::RouteNotFound, "No route matches this path.")
    } else if r.find::<warp::reject::MethodNotAllowed>().is_some() {
        Error::new(
            Code::MethodNotAllowed,
            "This route does not accept this HTTP method.",
        )
    } else if r.find::<warp::reject::PayloadTooLarge>().is_some() {
        Error::new(
            Code::PayloadTooLarge,
            "The request body is too large for this route.",
        )
    } else if r.find::<warp::reject::UnsupportedMediaType>().is_some() {
        Error::new(
            Code::UnsupportedMediaType,
            "The request's content type is not supported here.",
        )
    } else if r.find::<warp::reject::InvalidQuery>().is_some() {
        Error::new(
            Code::InvalidField,
            "The query string is not valid for this route.",
        )
    } else if r.find::<warp::reject::LengthRequired>().is_some() {
        Error::new(Code::InvalidJson, "The request needs a body.")
    } else if let Some(h) = r.find::<warp::reject::InvalidHeader>() {
        Error::new(
            Code::InvalidField,
            format!("The `{}` header is not valid.", h.name()),
        )
    } else if let Some(h) = r.find::<warp::reject::MissingHeader>() {
        Error::new(
            Code::MissingField,
            format!("The `{}` header is required.", h.name()),
        )
    } else {
        tracing::error!(rejection = ?r, "unhandled rejection");
        Error::new(
            Code::Internal,
            "The server hit an internal error; try again later.",
        )
    };
    Ok(error_reply(&e).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_an_error_status_and_its_familys_type() {
        for &c in Code::ALL {
            let s = status_of(c);
            assert_eq!(s.as_u16(), c.family().status(), "{c}");
            assert!(s.is_client_error() || s.is_server_error(), "{c}");
        }
        let kind = |c: Code| (status_of(c).as_u16(), c.family().type_name());
        assert_eq!(kind(Code::ScenesNotReady), (409, "precondition_failed"));
        assert_eq!(kind(Code::MissingApiKey), (401, "authentication_error"));
        assert_eq!(kind(Code::ScriptTooShort), (400, "invalid_request_error"));
        assert_eq!(kind(Code::FileExpired), (410, "not_found"));
        assert_eq!(kind(Code::Internal), (500, "api_error"));
    }

    #[test]
    fn a_retry_after_is_the_header_and_in_the_details() {
        let e = Error::new(Code::RateLimited, "Slow down.")
            .details(json!({ "rate_limit_max": 3 }))
            .retry_after(30);
        let resp = error_reply(&e);
        assert_eq!(resp.status(), 429);
        assert_eq!(resp.headers()["retry-after"], "30");
        assert_eq!(
            e.details,
            Some(json!({ "rate_limit_max": 3, "retry_after_seconds": 30 }))
        );
        let other = error_reply(&Error::new(Code::QueueFull, "Full."));
        assert!(other.headers().get("retry-after").is_none());
    }
}
