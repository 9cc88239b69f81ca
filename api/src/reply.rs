//! Successful replies: JSON with `request_id` in the body and the
//! `X-Request-Id` header.

use serde_json::Value;
use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;

pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// A JSON reply carrying `request_id` (minted by the caller, who logs with it).
pub fn with_given_id(status: StatusCode, mut body: Value, request_id: String) -> Response {
    if let Value::Object(m) = &mut body {
        m.insert("request_id".into(), Value::String(request_id.clone()));
    }
    let mut resp = Response::new(body.to_string().into());
    *resp.status_mut() = status;
    let h = resp.headers_mut();
    h.insert(
        warp::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(
        REQUEST_ID_HEADER,
        HeaderValue::from_str(&request_id).expect("ids are ASCII"),
    );
    resp
}

/// A typed reply: `body` as JSON, with a fresh request id added (the one reply helper of every
/// handler). A body that cannot be serialised answers the `internal_error` envelope.
pub fn json_reply<T: serde::Serialize>(status: StatusCode, body: &T) -> Response {
    json_reply_with_id(status, body, crate::metrics::request_id())
}

/// [`json_reply`] with the `request_id` the handler minted (and logged with) itself.
pub fn json_reply_with_id<T: serde::Serialize>(
    status: StatusCode,
    body: &T,
    request_id: String,
) -> Response {
    match serde_json::to_value(body) {
        Ok(value) => with_given_id(status, value, request_id),
        Err(e) => crate::errors::error_reply(&pipeline::Error::internal(e)),
    }
}

/// Adds an `X-Request-Id` header to a non-JSON reply (pages, files).
pub fn tag(mut resp: Response) -> Response {
    if !resp.headers().contains_key(REQUEST_ID_HEADER) {
        let id = crate::metrics::request_id();
        resp.headers_mut().insert(
            REQUEST_ID_HEADER,
            HeaderValue::from_str(&id).expect("ids are ASCII"),
        );
    }
    resp
}

/// Marks a reply to a request whose body was left unread (refused on its declared size): the
/// connection closes after it, and the client is told so rather than reusing it.
pub fn closing(mut resp: Response) -> Response {
    resp.headers_mut().insert(
        warp::http::header::CONNECTION,
        HeaderValue::from_static("close"),
    );
    resp
}
