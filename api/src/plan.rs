//! The production plan family: `POST /v1/production_plan/add`, `GET /v1/production_plan`,
//! `GET /v1/roadmap` and the template library `GET /v1/foundation_videos`. DTO handling only; the rules, records and derivations live in
//! `pipeline::plan`.

use std::sync::Arc;

use foundation::model::Account;
use pipeline::plan::{
    AddPlanRequest, PlanEntryReply, PlanQuery, ProductionPlan, Query, Roadmap, RoadmapQuery,
    TemplateList, TemplateQuery,
};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::blocking::blocking;
use crate::errors::reject;
use crate::filters::{auth, typed, with_state};
use crate::reply::json_reply;

/// Five scripts of up to 1000 words each, with room to spare.
const ADD_BODY_LIMIT: usize = 256 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let add = warp::path!("v1" / "production_plan" / "add")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<AddPlanRequest>(ADD_BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(add_entry);
    let list = warp::path!("v1" / "production_plan")
        .and(warp::get())
        .and(auth(state.clone()))
        .and(warp::query::<Query>())
        .and(with_state(state.clone()))
        .and_then(production_plan);
    let roadmap = warp::path!("v1" / "roadmap")
        .and(warp::get())
        .and(auth(state.clone()))
        .and(warp::query::<Query>())
        .and(with_state(state.clone()))
        .and_then(get_roadmap);
    let templates = warp::path!("v1" / "foundation_videos")
        .and(warp::get())
        .and(auth(state.clone()))
        .and(warp::query::<Query>())
        .and(with_state(state))
        .and_then(foundation_videos);
    add.or(list)
        .unify()
        .or(roadmap)
        .unify()
        .or(templates)
        .unify()
        .boxed()
}

/// Adds an idea to the production plan, optionally with its scripts (synchronous, no credit).
#[utoipa::path(
    post,
    path = "/v1/production_plan/add",
    operation_id = "production_plan_add",
    tag = "plan",
    request_body(content = AddPlanRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The entry as stored.", body = PlanEntryReply),
        (status = 400, description = "`invalid_json`, `missing_field` (`idea_text`), `invalid_field`, `invalid_source`, `invalid_language`, `invalid_topic_id`, `invalid_week_start`, `invalid_scripts` (param `scripts`, `scripts[i]`, `scripts[i].format` or `scripts[i].text`, 0-based), `script_too_short`, `script_too_long` (param `scripts[i].text`), `invalid_recommended_format`, `invalid_template` (param `template`)", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`topic_exists`: scripts for a topic that already has a video or scripts, or a topic id of another account", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn add_entry(
    account: Account,
    request: AddPlanRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let name = account.name.clone();
    let entry = blocking(move || {
        let template = pipeline::plan::template_of(&state.templates, &request)?;
        pipeline::plan::add_to_plan(&state.store, &account, request, template)
    })
    .await?;
    tracing::info!(topic = %entry.topic_id, account = %name, scripts = entry.scripts.len(), "plan entry added");
    Ok(json_reply(StatusCode::OK, &entry.reply()))
}

/// The production plan, 20 entries per page, newest first: ideas (no video yet) and topics
/// (with their video's status).
#[utoipa::path(
    get,
    path = "/v1/production_plan",
    operation_id = "production_plan",
    tag = "plan",
    params(
        ("page" = Option<i64>, Query, minimum = 0, maximum = 1000000, description = "0-based page of 20 entries (default 0)."),
        ("week_start" = Option<i64>, Query, minimum = 0, maximum = 253402300799_i64, description = "Only entries created at or after this time (unix seconds)."),
        ("week_end" = Option<i64>, Query, minimum = 0, maximum = 253402300799_i64, description = "Only entries created at or before this time (unix seconds); not before `week_start`."),
    ),
    responses(
        (status = 200, description = "A page of the plan.", body = ProductionPlan),
        (status = 400, description = "`invalid_page`, `invalid_week_start`, `invalid_week_end`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`read_failed`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn production_plan(
    account: Account,
    query: Query,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let q = PlanQuery::read(&query).map_err(reject)?;
    let plan =
        blocking(move || pipeline::plan::production_plan(&state.store, &account.name, q)).await?;
    Ok(json_reply(StatusCode::OK, &plan))
}

/// The weekly production cycle: 4 weeks from the account's first week on (cycle 1 is weeks
/// 1–4), each week's slots and the topics filling them, the quota and the streak.
#[utoipa::path(
    get,
    path = "/v1/roadmap",
    operation_id = "roadmap",
    tag = "plan",
    params(
        ("cycle" = Option<i64>, Query, minimum = 1, maximum = 10000, description = "The 4-week cycle, 1-based (default 1: the account's first four weeks)."),
    ),
    responses(
        (status = 200, description = "The cycle.", body = Roadmap),
        (status = 400, description = "`invalid_cycle`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`read_failed`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn get_roadmap(
    account: Account,
    query: Query,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let q = RoadmapQuery::read(&query).map_err(reject)?;
    let roadmap = blocking(move || pipeline::plan::roadmap(&state.store, &account, q)).await?;
    Ok(json_reply(StatusCode::OK, &roadmap))
}

/// The template library: video templates (format, script skeleton, look, thumbnail) for the
/// account's industry, 20 per page (synchronous, free).
#[utoipa::path(
    get,
    path = "/v1/foundation_videos",
    operation_id = "foundation_videos",
    tag = "plan",
    params(
        ("industry" = Option<String>, Query, description = "Templates of this industry (default the account's; none set: every industry). `general` templates are listed for every industry."),
        ("sub_industry" = Option<String>, Query, description = "Only templates of this sub-industry or of none."),
        ("page" = Option<i64>, Query, minimum = 0, maximum = 1000000, description = "0-based page of 20 templates (default 0)."),
    ),
    responses(
        (status = 200, description = "One page of templates.", body = TemplateList),
        (status = 400, description = "`invalid_page`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`read_failed`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn foundation_videos(
    account: Account,
    query: Query,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let q = TemplateQuery::read(&query).map_err(reject)?;
    let list = blocking(move || state.templates.list(&state.settings, &account, &q)).await?;
    Ok(json_reply(StatusCode::OK, &list))
}
