//! `POST /v1/typography` and `GET /v1/typography/{id}`.

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::State;

/// Not built yet (typography issue).
pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let _ = state;
    warp::any()
        .and_then(|| async { Err::<Response, _>(warp::reject::not_found()) })
        .boxed()
}
