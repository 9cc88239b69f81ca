//! The handlers' door to `foundation::blocking`: store work (redb transactions, geometry,
//! edits) on tokio's blocking pool, with the request's span, its error already the rejection the
//! envelope is made from.

use warp::Rejection;

use crate::errors::reject;

pub(crate) use foundation::blocking::{run, spawn};

/// [`run`], its error already the rejection the envelope is made from.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> pipeline::Result<T> + Send + 'static,
) -> Result<T, Rejection> {
    run(f).await.map_err(reject)
}
