//! Store work off the async reactor: redb transactions fsync, and geometry and edits compute,
//! so a handler hands them to tokio's blocking pool and the reactor stays free to answer
//! `/healthz`, status polls and every other request while renders run.

use pipeline::Error;
use warp::Rejection;

use crate::errors::reject;

/// Runs `f` on the blocking pool, with the request's span, so the work's log lines carry its
/// `request_id`.
pub(crate) async fn run<T: Send + 'static>(
    f: impl FnOnce() -> pipeline::Result<T> + Send + 'static,
) -> pipeline::Result<T> {
    crate::metrics::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(Error::internal(e)))
}

/// [`run`], its error already the rejection the envelope is made from.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> pipeline::Result<T> + Send + 'static,
) -> Result<T, Rejection> {
    run(f).await.map_err(reject)
}
