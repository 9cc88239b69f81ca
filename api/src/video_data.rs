//! `POST /v1/video_data`: the small envelope and the expiring public scene-tree file.

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::State;

/// Not built yet (scene-building issue).
pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let _ = state;
    warp::any()
        .and_then(|| async { Err::<Response, _>(warp::reject::not_found()) })
        .boxed()
}
