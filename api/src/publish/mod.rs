//! Publishing over HTTP, one file per endpoint family: [`groups`] (`/v1/channel_groups`),
//! [`connections`] (`GET /v1/accounts`, `/v1/platform_settings`), [`requests`]
//! (`POST /v1/publish`), [`analytics`] (`GET /v1/analytics`) and [`pages`] (the public pages
//! under `{app_url}`: the setup page, the schedule page, each group's feeds and post pages).
//! DTO handling only; the rules and records live in `pipeline::publish`.

pub mod analytics;
pub mod connections;
pub mod groups;
pub mod pages;
pub mod requests;

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::State;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    groups::routes(state.clone())
        .or(connections::routes(state.clone()))
        .unify()
        .or(requests::routes(state.clone()))
        .unify()
        .or(analytics::routes(state.clone()))
        .unify()
        .or(pages::routes(state))
        .unify()
        .boxed()
}

/// Blocking store or connector work off the reactor: the one helper in `crate::blocking`.
pub(crate) use crate::blocking::blocking;
