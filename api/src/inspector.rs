//! `POST /v1/scene_inspector`: screenshots and overlay posters from the server compositor.

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::State;

/// Not built yet (render-core issue).
pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let _ = state;
    warp::any()
        .and_then(|| async { Err::<Response, _>(warp::reject::not_found()) })
        .boxed()
}
