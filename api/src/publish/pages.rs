//! The public publishing pages under `{app_url}` (no API key): the setup page where the account
//! holder connects platforms to channel groups (`/app/publish/setup`, signed link), the
//! schedule page (`/app/publish/schedule`), and each group's feeds and post pages
//! (`/app/feeds/{key}/atom.xml`, `feed.json`, `posts/{id}`, `posts/{id}/media`). A post page
//! view and a media download are counted, bots apart by user agent.

use std::collections::HashMap;
use std::sync::Arc;

use foundation::model::Account;
use pipeline::publish::{
    AccountPage, ConnectForm, FEEDS, FeedOwner, FeedUrls, GroupScope, Hit, Platform, PostContent,
    atom_feed, connect_account, connected_accounts, count_hit, feed_key, json_feed, list_groups,
    post_page_html, read_feed, register_feed, scheduled_posts,
};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::{StatusCode, header};
use warp::reply::Response;

use crate::State;
use crate::filters::with_state;
use crate::pages::esc;

type Query = HashMap<String, String>;

/// Form bodies of the setup page are small.
const FORM_LIMIT: u64 = 8 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let setup_get = warp::path!("app" / "publish" / "setup")
        .and(warp::get())
        .and(warp::query::<Query>())
        .and(with_state(state.clone()))
        .then(setup_page);
    let setup_post = warp::path!("app" / "publish" / "setup")
        .and(warp::post())
        .and(warp::query::<Query>())
        .and(warp::body::content_length_limit(FORM_LIMIT))
        .and(warp::body::bytes())
        .and(with_state(state.clone()))
        .then(setup_connect);
    let schedule = warp::path!("app" / "publish" / "schedule")
        .and(warp::get())
        .and(warp::query::<Query>())
        .and(with_state(state.clone()))
        .then(schedule_route);
    let atom = warp::path!("app" / "feeds" / String / "atom.xml")
        .and(warp::get())
        .and(with_state(state.clone()))
        .then(feed_atom);
    let json = warp::path!("app" / "feeds" / String / "feed.json")
        .and(warp::get())
        .and(with_state(state.clone()))
        .then(feed_json);
    let post = warp::path!("app" / "feeds" / String / "posts" / String)
        .and(warp::get())
        .and(warp::header::optional::<String>("user-agent"))
        .and(with_state(state.clone()))
        .then(feed_post);
    let media = warp::path!("app" / "feeds" / String / "posts" / String / "media")
        .and(warp::get())
        .and(warp::header::optional::<String>("user-agent"))
        .and(with_state(state))
        .then(feed_post_media);
    setup_get
        .or(setup_post)
        .unify()
        .or(schedule)
        .unify()
        .or(atom)
        .unify()
        .or(json)
        .unify()
        .or(post)
        .unify()
        .or(media)
        .unify()
        .boxed()
}

/// A page made on the blocking pool: every page reads the store (a post page also counts its
/// view), and the setup page may ask the connector about the account.
async fn off_reactor(make: impl FnOnce() -> Response + Send + 'static) -> Response {
    crate::blocking::spawn(make).await.unwrap_or_else(|_| {
        html(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "<p>Try again later.</p>",
        )
    })
}

/// The page that connects platforms to channel groups (signed link of `GET /v1/channel_groups`'s `setup_url`).
#[utoipa::path(
    get,
    path = "/app/publish/setup",
    operation_id = "publish_setup_page",
    tag = "publishing",
    params(
        ("account" = String, Query, description = "The account the link was made for."),
        ("token" = String, Query, description = "The link's signature."),
    ),
    responses(
        (status = 200, description = "The setup page: connected accounts by group, and the form.", content_type = "text/html", body = String),
        (status = 403, description = "The link was altered or is not ours.", content_type = "text/html", body = String),
    ),
)]
pub(crate) async fn setup_page(q: Query, state: Arc<State>) -> Response {
    off_reactor(move || setup(&state, &q, None)).await
}

/// The setup page's form: connects a platform to a group (paid plan).
#[utoipa::path(
    post,
    path = "/app/publish/setup",
    operation_id = "publish_setup_connect",
    tag = "publishing",
    params(
        ("account" = String, Query, description = "The account the link was made for."),
        ("token" = String, Query, description = "The link's signature."),
    ),
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "`platform`, `channel_group`, `username`, `display_name`."),
    responses(
        (status = 200, description = "Connected: the page again, saying so.", content_type = "text/html", body = String),
        (status = 400, description = "A field of the form is wrong: the page says which.", content_type = "text/html", body = String),
        (status = 402, description = "Connecting needs a paid plan.", content_type = "text/html", body = String),
        (status = 403, description = "The link was altered or is not ours.", content_type = "text/html", body = String),
        (status = 404, description = "No such channel group.", content_type = "text/html", body = String),
    ),
)]
pub(crate) async fn setup_connect(q: Query, body: bytes::Bytes, state: Arc<State>) -> Response {
    // Read as a form whatever its declared type: a wrong body is the form's own error.
    let form: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    off_reactor(move || setup(&state, &q, Some(&form))).await
}

/// The account's scheduled posts.
#[utoipa::path(
    get,
    path = "/app/publish/schedule",
    operation_id = "publish_schedule_page",
    tag = "publishing",
    params(
        ("account" = String, Query, description = "The account the link was made for."),
        ("token" = String, Query, description = "The link's signature."),
    ),
    responses(
        (status = 200, description = "The schedule.", content_type = "text/html", body = String),
        (status = 403, description = "The link was altered or is not ours.", content_type = "text/html", body = String),
    ),
)]
pub(crate) async fn schedule_route(q: Query, state: Arc<State>) -> Response {
    off_reactor(move || schedule_page(&state, &q)).await
}

/// A channel group's Atom feed (RFC 4287).
#[utoipa::path(
    get,
    path = "/app/feeds/{key}/atom.xml",
    operation_id = "feed_atom",
    tag = "publishing",
    params(("key" = String, Path, description = "The group's feed key.")),
    responses(
        (status = 200, description = "The feed.", content_type = "application/atom+xml", body = String),
        (status = 404, description = "No such feed.", content_type = "text/html", body = String),
    ),
)]
pub(crate) async fn feed_atom(key: String, state: Arc<State>) -> Response {
    off_reactor(move || feed_reply(&state, &key, FeedKind::Atom)).await
}

/// A channel group's JSON Feed 1.1.
#[utoipa::path(
    get,
    path = "/app/feeds/{key}/feed.json",
    operation_id = "feed_json",
    tag = "publishing",
    params(("key" = String, Path, description = "The group's feed key.")),
    responses(
        (status = 200, description = "The feed.", content_type = "application/feed+json", body = String),
        (status = 404, description = "No such feed.", content_type = "text/html", body = String),
    ),
)]
pub(crate) async fn feed_json(key: String, state: Arc<State>) -> Response {
    off_reactor(move || feed_reply(&state, &key, FeedKind::Json)).await
}

/// A post's public page (counted as a view).
#[utoipa::path(
    get,
    path = "/app/feeds/{key}/posts/{post}",
    operation_id = "feed_post_page",
    tag = "publishing",
    params(("key" = String, Path, description = "The group's feed key."), ("post" = String, Path, description = "The post id.")),
    responses(
        (status = 200, description = "The post with its Open Graph tags.", content_type = "text/html", body = String),
        (status = 404, description = "No such post, or it is private (`visibility: private`).", content_type = "text/html", body = String),
    ),
)]
pub(crate) async fn feed_post(
    key: String,
    post: String,
    ua: Option<String>,
    state: Arc<State>,
) -> Response {
    off_reactor(move || post_page(&state, &key, &post, ua.as_deref())).await
}

/// A post's video (counted as a download; redirects to the file).
#[utoipa::path(
    get,
    path = "/app/feeds/{key}/posts/{post}/media",
    operation_id = "feed_post_media",
    tag = "publishing",
    params(("key" = String, Path, description = "The group's feed key."), ("post" = String, Path, description = "The post id.")),
    responses(
        (status = 302, description = "To the video file."),
        (status = 404, description = "No such post, it is private, or it has no video.", content_type = "text/html", body = String),
    ),
)]
pub(crate) async fn feed_post_media(
    key: String,
    post: String,
    ua: Option<String>,
    state: Arc<State>,
) -> Response {
    off_reactor(move || post_media(&state, &key, &post, ua.as_deref())).await
}

fn html(status: StatusCode, title: &str, body: &str) -> Response {
    let page = format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8>\
         <meta name=viewport content=\"width=device-width\"><title>{t}</title>\
         <style>body{{font:16px system-ui;margin:2rem auto;max-width:760px;padding:0 1rem}}\
         li{{margin:.4rem 0}} label{{display:block;margin:.6rem 0}} .error{{color:#a00}}\
         .ok{{color:#060}}</style></head><body><h1>{t}</h1>{body}</body></html>",
        t = esc(title)
    );
    let mut resp = warp::Reply::into_response(warp::reply::html(page));
    *resp.status_mut() = status;
    crate::reply::tag(resp)
}

/// The account a signed page link opens, if the link is genuine.
fn opened(state: &State, q: &Query, page: AccountPage) -> Option<Account> {
    let (name, token) = (q.get("account")?, q.get("token")?);
    page.verify(&state.settings.webhook.signing_secret, name, token)
        .then(|| state.store.account(name).ok().flatten())
        .flatten()
}

fn refused() -> Response {
    html(
        StatusCode::FORBIDDEN,
        "This link is not valid",
        "<p>The link was changed or did not come from this service. Ask for a new one.</p>",
    )
}

fn setup(state: &State, q: &Query, form: Option<&HashMap<String, String>>) -> Response {
    let Some(account) = opened(state, q, AccountPage::Setup) else {
        return refused();
    };
    let (status, notice) = match form {
        None => (StatusCode::OK, String::new()),
        Some(f) => connect(state, &account, f),
    };
    match setup_body(state, &account, &notice) {
        Ok(body) => html(status, "Connect your channels", &body),
        Err(e) => {
            tracing::error!(error = %e, "setup page failed");
            html(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "<p>Try again later.</p>",
            )
        }
    }
}

/// Connects what the form asks; the status and the sentence the page shows.
fn connect(state: &State, account: &Account, f: &HashMap<String, String>) -> (StatusCode, String) {
    let done = ConnectForm::read(f).and_then(|form| {
        let form = connect_account(
            &state.store,
            state.publisher.as_ref(),
            &account.name,
            &form,
            &state.settings.pricing_url(),
        )?;
        register_feed(
            &state.store,
            &state.settings.webhook.signing_secret,
            &account.name,
            form.channel_group,
        )?;
        Ok(form)
    });
    match done {
        Ok(form) => (
            StatusCode::OK,
            format!(
                "<p class=ok role=status>Connected {} as @{} in channel group {}.</p>",
                form.platform.display(),
                esc(&form.username),
                form.channel_group
            ),
        ),
        Err(e) => (
            crate::errors::status_of(e.code),
            format!(
                "<p class=error role=alert>Not connected: {}</p>",
                esc(&e.message)
            ),
        ),
    }
}

fn setup_body(state: &State, account: &Account, notice: &str) -> pipeline::Result<String> {
    let s = &state.settings;
    let groups = list_groups(&state.store, account)?;
    let connected = connected_accounts(&state.store, &account.name, GroupScope::Each)?;
    let mut b = notice.to_string();
    b.push_str(&format!(
        "<p>Publishing through: <b>{}</b>. Pick a platform and a channel group, and give the handle \
         posts go out as.</p><h2>Connected accounts</h2>",
        match state.publisher.name() {
            "feed" => "this server's feeds (each group has an Atom and a JSON feed)",
            _ => "the social publishing service",
        }
    ));
    if connected.data.is_empty() {
        b.push_str("<p id=connected>No social accounts are connected yet.</p>");
    } else {
        b.push_str("<ul id=connected>");
        for c in &connected.data {
            b.push_str(&format!(
                "<li>{} · @{} · group {} ({})</li>",
                esc(c.platform.display()),
                esc(&c.username),
                c.channel_group,
                esc(&c.channel_group_label)
            ));
        }
        b.push_str("</ul>");
    }
    b.push_str("<h2>Feeds</h2><ul>");
    for g in &groups {
        let urls = FeedUrls::new(
            &s.app_url,
            &feed_key(&s.webhook.signing_secret, &account.name, g.channel_group),
        );
        b.push_str(&format!(
            "<li>{} (group {}): <a href=\"{a}\">Atom</a> · <a href=\"{j}\">JSON Feed</a></li>",
            esc(&g.label),
            g.channel_group,
            a = esc(&urls.atom()),
            j = esc(&urls.json())
        ));
    }
    b.push_str("</ul><h2>Connect a platform</h2><form method=post>");
    b.push_str("<label>Platform <select name=platform id=platform required>");
    for p in Platform::ALL {
        b.push_str(&format!(
            "<option value={}>{}</option>",
            p.as_str(),
            esc(p.display())
        ));
    }
    b.push_str(
        "</select></label><label>Channel group <select name=channel_group id=channel_group>",
    );
    for g in &groups {
        b.push_str(&format!(
            "<option value={}>{} · {}</option>",
            g.channel_group,
            g.channel_group,
            esc(&g.label)
        ));
    }
    b.push_str(
        "</select></label><label>Handle <input name=username id=username required maxlength=60 \
         placeholder=\"@yourname\"></label><label>Display name <input name=display_name \
         id=display_name maxlength=80></label><button type=submit id=connect>Connect</button></form>",
    );
    Ok(b)
}

fn schedule_page(state: &State, q: &Query) -> Response {
    let Some(account) = opened(state, q, AccountPage::Schedule) else {
        return refused();
    };
    match schedule_body(state, &account) {
        Ok(b) => html(StatusCode::OK, "Publishing schedule", &b),
        Err(e) => {
            tracing::error!(error = %e, "schedule page failed");
            html(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "<p>Try again later.</p>",
            )
        }
    }
}

/// The scheduled posts as an ordered list (shared with the client link's page).
pub(crate) fn schedule_body(state: &State, account: &Account) -> pipeline::Result<String> {
    let items = scheduled_posts(&state.store, &account.name)?;
    if items.is_empty() {
        return Ok("<p id=scheduled>Nothing is scheduled.</p>".into());
    }
    let mut b = String::from("<ol id=scheduled>");
    for s in items {
        b.push_str(&format!(
            "<li><b>{}</b> · {} · group {} · <time datetime=\"{}\">{}</time> · {}</li>",
            esc(&s.title),
            esc(&s.platforms.join(", ")),
            s.channel_group,
            esc(&s.at),
            esc(&s.local),
            match s.status {
                foundation::model::JobStatus::Processing => "waiting",
                foundation::model::JobStatus::Completed => "published",
                foundation::model::JobStatus::Failed => "failed",
            }
        ));
    }
    b.push_str("</ol>");
    Ok(b)
}

#[derive(Clone, Copy)]
enum FeedKind {
    Atom,
    Json,
}

fn not_found() -> Response {
    html(
        StatusCode::NOT_FOUND,
        "Not found",
        "<p>There is nothing here.</p>",
    )
}

fn feed_reply(state: &State, key: &str, kind: FeedKind) -> Response {
    let app = &state.settings.app_url;
    match read_feed(&state.store, key) {
        Ok(Some((owner, posts))) => {
            let (body, mime) = match kind {
                FeedKind::Atom => (
                    atom_feed(app, key, &owner, &posts),
                    "application/atom+xml; charset=utf-8",
                ),
                FeedKind::Json => (
                    json_feed(app, key, &owner, &posts),
                    "application/feed+json; charset=utf-8",
                ),
            };
            let mut resp = warp::Reply::into_response(body);
            resp.headers_mut()
                .insert(header::CONTENT_TYPE, header::HeaderValue::from_static(mime));
            crate::reply::tag(resp)
        }
        Ok(None) => not_found(),
        Err(e) => {
            tracing::error!(error = %e, "feed failed");
            html(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "<p>Try again later.</p>",
            )
        }
    }
}

fn post_page(state: &State, key: &str, post: &str, ua: Option<&str>) -> Response {
    let found = pipeline::publish::feed_post(&state.store, key, post).and_then(|p| {
        let owner = state.store.record::<FeedOwner>(FEEDS, key)?;
        Ok(p.zip(owner))
    });
    match found {
        Ok(Some((p, owner))) => {
            if let Err(e) = count_hit(&state.store, post, Hit::View, ua) {
                tracing::warn!(error = %e, "view not counted");
            }
            let page = post_page_html(&state.settings.app_url, &owner, &p);
            crate::reply::tag(warp::Reply::into_response(warp::reply::html(page)))
        }
        Ok(None) => not_found(),
        Err(e) => {
            tracing::error!(error = %e, "post page failed");
            html(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "<p>Try again later.</p>",
            )
        }
    }
}

fn post_media(state: &State, key: &str, post: &str, ua: Option<&str>) -> Response {
    let video = pipeline::publish::feed_post(&state.store, key, post)
        .ok()
        .flatten()
        .and_then(|p| match p.content {
            PostContent::Video { video_url, .. } => Some(video_url),
            _ => None,
        });
    let Some(url) = video else {
        return not_found();
    };
    if let Err(e) = count_hit(&state.store, post, Hit::Download, ua) {
        tracing::warn!(error = %e, "download not counted");
    }
    let mut resp = warp::Reply::into_response(StatusCode::FOUND);
    if let Ok(v) = header::HeaderValue::from_str(&url) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    crate::reply::tag(resp)
}
