//! `POST /v1/client_link/send` and the pages its `magic_url` opens under `{app_url}/link/{token}`
//! (no sign-in; the signed token names the account and the page). Each link type opens a real
//! page: `record` the video's page (or the player alone with `record2.html`) or the written
//! piece, `content_plan` the plan, `setup` what can be connected (with the link to the publishing setup page), `social_dashboard` the videos
//! and connected accounts with the last week's analytics, `publish_schedule` the scheduled
//! posts and the roadmap's weeks. A tampered link answers 403
//! and an expired one 410, each with a page that says so and shows nothing of the account.

use std::sync::Arc;

use foundation::document::VideoDocument;
use foundation::model::{Account, JobType};
use foundation::time::now;
use pipeline::notify::{
    ClientLinkBody, ClientLinkReply, LinkClaims, LinkRefused, LinkRequest, LinkType, Notifier,
    RecordPage, mask_email, open_link, send_client_link,
};
use pipeline::plan::{PlanQuery, RoadmapQuery, VideosQuery, production_plan, roadmap, video_list};
use pipeline::publish::AccountPage;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed};
use crate::pages::esc;
use crate::reply::json_reply;

const BODY_LIMIT: usize = 16 * 1024;

pub fn routes(state: Arc<State>, notifier: Arc<Notifier>) -> BoxedFilter<(Response,)> {
    let with_state = {
        let state = state.clone();
        warp::any().map(move || state.clone())
    };
    let send = warp::path!("v1" / "client_link" / "send")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<ClientLinkBody>(BODY_LIMIT))
        .and(with_state.clone())
        .and(warp::any().map(move || notifier.clone()))
        .and_then(send);
    let page = warp::path!("app" / "link" / String)
        .and(warp::get())
        .and(with_state)
        .and_then(client_link_page);
    send.or(page).unify().boxed()
}

/// Mint a no-login link to one of your pages and optionally send it to yourself.
#[utoipa::path(
    post,
    path = "/v1/client_link/send",
    operation_id = "send_client_link",
    tag = "notifications",
    request_body = ClientLinkBody,
    responses(
        (status = 200, description = "The signed link; `results` per channel when any was asked for (`sms` is `skipped`/`sms_not_configured`).", body = ClientLinkReply),
        (status = 400, description = "`invalid_link_type`, `invalid_topic_id`, `invalid_channels`, `missing_field`, `invalid_json`."),
        (status = 401, description = "No or unknown API key."),
        (status = 429, description = "`rate_limited`: announcing the link would exceed the account's messages per hour (`[notify] max_per_hour`, 60 by default, shared by every sending endpoint); nothing sent, no link; `Retry-After` header and `details {rate_limit_max, rate_limit_count, retry_after_seconds}`.", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`client_link_failed`: `channels.email` was asked for and the account has no email on file.", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn send(
    account: Account,
    req: LinkRequest,
    state: Arc<State>,
    notifier: Arc<Notifier>,
) -> Result<Response, warp::Rejection> {
    let s = &state.settings;
    let reply = send_client_link(
        &notifier,
        (&s.webhook.signing_secret, &s.app_url, now()),
        &account,
        req,
    )
    .await
    .map_err(reject)?;
    Ok(json_reply(StatusCode::OK, &reply))
}

/// A page opened by a client link's `magic_url` (no sign-in).
#[utoipa::path(
    get,
    path = "/app/link/{token}",
    operation_id = "client_link_page",
    tag = "review",
    params(("token" = String, Path, description = "The signed token of `magic_url`.")),
    responses(
        (status = 200, description = "The linked page.", content_type = "text/html", body = String),
        (status = 403, description = "The link was altered or is not ours.", content_type = "text/html", body = String),
        (status = 410, description = "The link has expired.", content_type = "text/html", body = String),
    ),
)]
pub(crate) async fn client_link_page(
    token: String,
    state: Arc<State>,
) -> Result<Response, warp::Rejection> {
    // The page reads the store: off the reactor.
    crate::blocking::spawn(move || open(&state, &token))
        .await
        .map_err(|e| crate::errors::reject(pipeline::Error::internal(e)))
}

fn html(status: StatusCode, title: &str, body: &str) -> Response {
    let page = format!(
        "<!doctype html><html><head><meta charset=utf-8><meta name=viewport content=\"width=device-width\">\
         <title>{t}</title><style>body{{font:16px system-ui;margin:2rem auto;max-width:760px}}\
         li{{margin:.4rem 0}}</style></head><body><h1>{t}</h1>{body}</body></html>",
        t = esc(title)
    );
    let mut resp = warp::Reply::into_response(warp::reply::html(page));
    *resp.status_mut() = status;
    crate::reply::tag(resp)
}

fn open(state: &State, token: &str) -> Response {
    match open_link(&state.settings.webhook.signing_secret, token, now()) {
        Err(LinkRefused::Tampered) => html(
            StatusCode::FORBIDDEN,
            "This link is not valid",
            "<p>The link was changed or did not come from this service. Ask for a new one.</p>",
        ),
        Err(LinkRefused::Expired) => html(
            StatusCode::GONE,
            "This link has expired",
            "<p>Links stay valid for the days they were made for. Ask for a new one.</p>",
        ),
        Ok(claims) => match linked_page(state, &claims) {
            Ok(resp) => resp,
            Err(e) => {
                tracing::error!(error = %e, "client link page failed");
                html(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Something went wrong",
                    "<p>The page could not be read; try again later.</p>",
                )
            }
        },
    }
}

fn linked_page(state: &State, c: &LinkClaims) -> Result<Response, pipeline::Error> {
    let store = &state.store;
    let account = store.account(&c.a)?;
    Ok(match c.t {
        LinkType::Record => record(state, c)?,
        LinkType::ContentPlan => {
            let plan = production_plan(store, &c.a, PlanQuery::default())?;
            let mut b = format!("<p>{} entries.</p><h2>Ideas</h2><ul>", plan.total);
            for i in &plan.ideas {
                b.push_str(&format!("<li>{}</li>", esc(&i.title)));
            }
            b.push_str("</ul><h2>Topics with a video</h2><ul>");
            for t in &plan.topics {
                b.push_str(&format!("<li>{}</li>", esc(&t.title)));
            }
            b.push_str("</ul>");
            html(StatusCode::OK, "Content plan", &b)
        }
        LinkType::Setup => html(
            StatusCode::OK,
            "Connect your channels",
            &setup(state, account.as_ref()),
        ),
        LinkType::SocialDashboard => {
            let v = video_list(store, &c.a, VideosQuery::default())?;
            let mut b = social(state, &c.a)?;
            b.push_str(&format!(
                "<h2>Videos</h2><p>{} videos.</p><ul>",
                v.total_count
            ));
            for item in &v.data {
                b.push_str(&format!(
                    "<li>{} · {}</li>",
                    esc(&item.title),
                    esc(&item.created_at)
                ));
            }
            b.push_str("</ul>");
            html(StatusCode::OK, "Social dashboard", &b)
        }
        LinkType::PublishSchedule => match &account {
            Some(a) => {
                let r = roadmap(store, a, RoadmapQuery { cycle: 1 })?;
                let mut b = format!(
                    "<h2>Scheduled posts</h2>{}<h2>Planned videos</h2><p>{} videos a week.</p><ol>",
                    crate::publish::pages::schedule_body(state, a)?,
                    r.weekly_quota
                );
                for w in &r.weeks {
                    b.push_str(&format!(
                        "<li>Week {} (from {}): ",
                        w.week,
                        esc(&w.starts_at)
                    ));
                    let topics: Vec<String> = w
                        .slots
                        .iter()
                        .filter_map(|s| s.topic.as_ref().map(|t| esc(&t.title)))
                        .collect();
                    b.push_str(&if topics.is_empty() {
                        "nothing planned".into()
                    } else {
                        topics.join(", ")
                    });
                    b.push_str("</li>");
                }
                b.push_str("</ol>");
                html(StatusCode::OK, "Publishing schedule", &b)
            }
            None => html(
                StatusCode::OK,
                "Publishing schedule",
                "<p>Nothing is scheduled.</p>",
            ),
        },
    })
}

fn record(state: &State, c: &LinkClaims) -> Result<Response, pipeline::Error> {
    let topic = c.i.as_deref().unwrap_or("");
    let job = state.store.job(topic)?.filter(|j| j.account == c.a);
    Ok(match job {
        Some(job) if job.kind() == JobType::Content => crate::pages::content_page(&job),
        Some(job) => {
            let doc: Option<VideoDocument> = state.store.document(topic)?;
            crate::pages::page(&job, doc.as_ref(), c.p == RecordPage::Record2)
        }
        None => html(
            StatusCode::OK,
            "Not ready yet",
            "<p>This video is not available yet. Open the link again later.</p>",
        ),
    })
}

fn setup(state: &State, account: Option<&Account>) -> String {
    let s = &state.settings;
    let email = match account.and_then(|a| a.email.as_deref()) {
        Some(e) => format!("on file ({})", esc(&mask_email(e))),
        None => "no address on file".into(),
    };
    let telegram = match account.and_then(|a| a.telegram_chat_id.as_deref()) {
        Some(_) => "connected".to_string(),
        None => "not connected".to_string(),
    };
    let on = |b: bool| {
        if b {
            "available"
        } else {
            "not configured on this server"
        }
    };
    format!(
        "<p>What this service can send to you, and how it stands:</p><ul>\
         <li><b>Email</b> ({}): {email}</li>\
         <li><b>Telegram</b> ({}): {telegram}</li>\
         <li><b>SMS</b>: not configured on this server</li>\
         <li><b>Social platforms</b>: {connected} connected · <a id=setup href=\"{setup}\">connect platforms \
         to your channel groups</a></li></ul>\
         <p>Ask your operator to set your email or Telegram chat.</p>",
        on(!s.section::<pipeline::notify::SmtpConfig>().host.is_empty()),
        on(!s
            .section::<pipeline::notify::TelegramConfig>()
            .bot_token
            .is_empty()),
        connected = account.map_or(0, |a| {
            pipeline::publish::all_connections(&state.store, &a.name).map_or(0, |c| c.len())
        }),
        setup = esc(&account.map_or(String::new(), |a| AccountPage::Setup.url(
            &s.webhook.signing_secret,
            &s.app_url,
            &a.name
        ))),
    )
}

/// The social dashboard's accounts and numbers: connected accounts by group and the last
/// week's views, downloads and posts per platform.
fn social(state: &State, account: &str) -> Result<String, pipeline::Error> {
    use pipeline::publish::{AnalyticsQuery, GroupScope, compute_analytics, connected_accounts};
    let connected = connected_accounts(&state.store, account, GroupScope::Each)?;
    let mut b = String::from("<h2>Connected accounts</h2>");
    if connected.data.is_empty() {
        b.push_str("<p>No social accounts are connected yet.</p>");
    } else {
        b.push_str("<ul>");
        for c in &connected.data {
            b.push_str(&format!(
                "<li>{} · @{} · {}</li>",
                esc(c.platform.display()),
                esc(&c.username),
                esc(&c.channel_group_label)
            ));
        }
        b.push_str("</ul>");
    }
    let q = AnalyticsQuery::read(&Default::default(), now())?;
    let reply = state.analytics.get(account, &q, || {
        compute_analytics(&state.store, state.publisher.as_ref(), account, &q)
    })?;
    let t = &reply.dashboard.totals;
    b.push_str(&format!(
        "<h2>Last 7 days</h2><p>{} posts · {} views · {} downloads ({} by robots)</p><ul>",
        t.posts,
        t.views,
        t.downloads,
        t.bot_views + t.bot_downloads
    ));
    for (key, p) in &reply.dashboard.platforms {
        b.push_str(&format!(
            "<li>{}: {} posts, {} views, {} downloads</li>",
            esc(key),
            p.posts,
            p.views,
            p.downloads
        ));
    }
    b.push_str("</ul>");
    Ok(b)
}
