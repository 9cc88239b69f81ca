//! Scene editing: `POST /v1/modify_scene`, `POST /v1/edit_session`, `POST /v1/scene_geometry`.

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::State;

/// Not built yet (scene-editing issue).
pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let _ = state;
    warp::any()
        .and_then(|| async { Err::<Response, _>(warp::reject::not_found()) })
        .boxed()
}
