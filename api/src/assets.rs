//! `POST /v1/upload_asset` (multipart, presign, base64) and the presigned PUT.

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::State;

/// Not built yet (media-in issue).
pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let _ = state;
    warp::any()
        .and_then(|| async { Err::<Response, _>(warp::reject::not_found()) })
        .boxed()
}
