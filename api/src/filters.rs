//! Shared filters: authentication, size-limited JSON bodies, and typed request bodies read
//! by their pipeline reader.

use std::sync::Arc;

use bytes::{Buf, BytesMut};
use foundation::fields::{Body, body};
use foundation::model::Account;
use futures_util::StreamExt;
use pipeline::{Code, Error};
use serde_json::Value;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;

/// Resolves `Authorization: Bearer <key>` to an account, or 401.
pub fn auth(state: Arc<State>) -> impl Filter<Extract = (Account,), Error = Rejection> + Clone {
    warp::header::optional::<String>("authorization").and_then(move |h: Option<String>| {
        let state = state.clone();
        async move {
            let key = h
                .as_deref()
                .and_then(|v| {
                    let (scheme, rest) = v.trim().split_once(' ')?;
                    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
                })
                .filter(|k| !k.is_empty());
            let Some(key) = key else {
                return Err(reject(Error::new(
                    Code::MissingApiKey,
                    "Send your API key as `Authorization: Bearer <key>`.",
                )));
            };
            match foundation::accounts::authenticate(&state.store, key) {
                Ok(Some(account)) => Ok(account),
                Ok(None) => Err(reject(Error::new(
                    Code::InvalidApiKey,
                    "The API key is not valid.",
                ))),
                Err(e) => Err(reject(Error::internal(e))),
            }
        }
    })
}

/// Bodies up to this size are read to the end even when over a route's limit.
const DRAIN_MAX: usize = 4 * 1024 * 1024;

/// Reads at most `limit` bytes of body (413 beyond) and parses JSON
/// (400 `invalid_json`). serde_json's recursion limit bounds nesting depth.
pub fn json_body(limit: usize) -> impl Filter<Extract = (Value,), Error = Rejection> + Clone {
    warp::header::optional::<u64>("content-length")
        .and(warp::body::stream())
        .and_then(move |len: Option<u64>, stream| read_json(len, stream, limit))
}

/// A size-limited JSON body read into a typed request by `read` (a pipeline reader built on
/// `foundation::fields::Fields`, so every field answers with the spec's code and `param`).
pub fn typed_body<T: Send + 'static>(
    limit: usize,
    read: fn(&Value) -> pipeline::Result<T>,
) -> impl Filter<Extract = (T,), Error = Rejection> + Clone {
    json_body(limit).and_then(move |body: Value| async move { read(&body).map_err(reject) })
}

/// A size-limited JSON body read as the request type `B`, the one struct of its JSON, schema and
/// rules (`foundation::fields::Body`).
pub fn typed<B: Body>(limit: usize) -> impl Filter<Extract = (B::Valid,), Error = Rejection> + Clone
where
    B::Valid: Send + 'static,
{
    typed_body(limit, body::read::<B>)
}

async fn read_json<S, B>(len: Option<u64>, stream: S, limit: usize) -> Result<Value, Rejection>
where
    S: futures_util::Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    if len.is_some_and(|l| l > DRAIN_MAX as u64) {
        return Err(reject(too_large(limit)));
    }
    futures_util::pin_mut!(stream);
    let mut buf = BytesMut::new();
    let mut seen = 0usize;
    while let Some(chunk) = stream.next().await {
        let mut chunk = chunk.map_err(|_| {
            reject(Error::new(
                Code::InvalidJson,
                "The request body could not be read.",
            ))
        })?;
        seen += chunk.remaining();
        if seen > limit {
            // Keep reading (and discarding) a moderately oversized body so the
            // client, still sending, reliably receives the 413 instead of a
            // reset connection; give up on anything larger.
            if seen > DRAIN_MAX {
                break;
            }
            chunk.advance(chunk.remaining());
            continue;
        }
        while chunk.has_remaining() {
            let c = chunk.chunk();
            let n = c.len();
            buf.extend_from_slice(c);
            chunk.advance(n);
        }
    }
    if seen > limit {
        return Err(reject(too_large(limit)));
    }
    serde_json::from_slice::<Value>(&buf).map_err(|e| {
        reject(Error::new(
            Code::InvalidJson,
            format!(
                "The request body is not valid JSON (line {}, column {}).",
                e.line(),
                e.column()
            ),
        ))
    })
}

fn too_large(limit: usize) -> Error {
    Error::new(
        Code::PayloadTooLarge,
        format!("The request body is larger than this route's limit of {limit} bytes."),
    )
}

/// Hands every handler the shared state.
pub fn with_state(
    state: Arc<State>,
) -> impl Filter<Extract = (Arc<State>,), Error = std::convert::Infallible> + Clone {
    warp::any().map(move || state.clone())
}
