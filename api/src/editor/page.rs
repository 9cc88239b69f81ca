//! The page a `review_url` opens: the editor app's shell, or with `readonly=true` the
//! embeddable player (same app, no edit controls). The shell also carries the scene list as
//! plain HTML, so the page says what the video holds before (or without) its script.
//!
//! The review link's token opens the editor; `readonly=true` with it moves on (303) to the
//! player's own link, whose token opens the player and its media only (`viewed`). Headers: the
//! page kind is marked for `crate::secure` (the editor may never be framed, the player by
//! `http.embed_origins`), and nothing is cached. A tampered or foreign token gets a plain "link
//! not valid" page (404) that names nothing of the video.

use std::collections::HashMap;
use std::sync::Arc;

use foundation::document::VideoDocument;
use foundation::model::Job;
use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection};

use foundation::links::ReviewScope;

use super::{query, viewed};
use crate::State;
use crate::pages::esc;
use crate::secure::Page;

/// Review page opened by `review_url` (signed token, no sign-in).
#[utoipa::path(
    get,
    path = "/app/editor/{topic_id}",
    operation_id = "review_page",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = Option<String>, Query, description = "The signature from `review_url`."),
        ("readonly" = Option<String>, Query, description = "`true`: the embeddable player only."),
        ("view" = Option<String>, Query, description = "`script`: the script editor of an `output_type=text` video."),
    ),
    responses(
        (status = 200, description = "The editor (or the player).", content_type = "text/html", body = String),
        (status = 303, description = "`readonly=true` with the review link's token: on to the player's own link (a token that opens the player only)."),
        (status = 403, description = "The player's token without `readonly=true`: a page saying the link opens the player only.", content_type = "text/html", body = String),
        (status = 404, description = "Unknown video or a token that does not match: a page saying the link is not valid.", content_type = "text/html", body = String),
    ),
)]
pub(crate) async fn review_page(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Response {
    open(&state, &topic, &q)
}

pub(super) fn route(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / String)
        .and(warp::get())
        .and(query())
        .and(crate::filters::with_state(state))
        .then(review_page)
}

/// The page for a review link: the editor for the edit token, the player for the player's
/// token with `readonly=true`. The edit token with `readonly=true` (the spec's embed) moves on
/// to the player's own link, so the page a browser shows, and any link copied from it, never
/// carries the edit token. The player's token anywhere else is refused.
fn open(state: &State, topic: &str, q: &HashMap<String, String>) -> Response {
    let readonly = q.get("readonly").is_some_and(|v| v == "true");
    let Ok((job, scope)) = viewed(state, topic, q) else {
        return notice(StatusCode::NOT_FOUND, INVALID_LINK);
    };
    match (scope, readonly) {
        (ReviewScope::Edit, true) => {
            let mut resp = warp::Reply::into_response(StatusCode::SEE_OTHER);
            if let Ok(to) = HeaderValue::from_str(&state.engine.player_url(topic)) {
                resp.headers_mut().insert(warp::http::header::LOCATION, to);
            }
            headers(resp, Some(Page::Player))
        }
        (ReviewScope::Player, false) => notice(StatusCode::FORBIDDEN, PLAYER_ONLY),
        (_, readonly) => {
            let doc = state.editor.document(topic).ok().flatten();
            shell(&job, doc.as_ref(), readonly)
        }
    }
}

/// The "link not valid" page: it names nothing of the video.
const INVALID_LINK: (&str, &str) = (
    "This link is not valid",
    "The review link was changed or does not belong to a video here. Ask for a fresh link.",
);

/// The page the player's link gets where only the review link may go.
const PLAYER_ONLY: (&str, &str) = (
    "This link opens the player only",
    "It cannot open the editor. Ask the video's owner for the review link.",
);

/// Not cached; the app's pages marked with their kind for `crate::secure` (a notice without
/// a kind is a plain page: no script runs on it).
fn headers(mut resp: Response, kind: Option<Page>) -> Response {
    resp.headers_mut().insert(
        warp::http::header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    );
    let resp = crate::reply::tag(resp);
    match kind {
        Some(kind) => crate::secure::mark(resp, kind),
        None => resp,
    }
}

fn kind(readonly: bool) -> Page {
    if readonly { Page::Player } else { Page::Editor }
}

fn html(body: String, status: StatusCode, kind: Option<Page>) -> Response {
    let mut resp = warp::Reply::into_response(warp::reply::html(body));
    *resp.status_mut() = status;
    headers(resp, kind)
}

fn notice(status: StatusCode, (title, text): (&str, &str)) -> Response {
    let id = if status == StatusCode::NOT_FOUND {
        "invalid-link"
    } else {
        "player-only"
    };
    let body = format!(
        "<!doctype html><html><head><meta charset=utf-8>\
        <meta name=viewport content=\"width=device-width\"><title>{title}</title>\
        <style>body{{font:17px/1.5 system-ui;margin:3rem auto;max-width:32rem;padding:0 1rem}}</style>\
        </head><body><h1 id={id}>{title}</h1><p>{text}</p></body></html>"
    );
    html(body, status, None)
}

/// The app's shell with the scenes as plain HTML inside its mount point.
fn shell(job: &Job, doc: Option<&VideoDocument>, readonly: bool) -> Response {
    let title = doc.map(|d| d.title.as_str()).unwrap_or("Video");
    let v = super::files::version();
    let mut fallback = format!(
        "<h1>{t}</h1><p>Status: <b>{s}</b> · step {step}</p>",
        t = esc(title),
        s = job.status.as_str(),
        step = job.step
    );
    if let Some(url) = &job.video_url {
        fallback.push_str(&format!(
            "<video controls playsinline src=\"{}\"></video>",
            esc(url)
        ));
    }
    if !readonly && let Some(doc) = doc {
        fallback.push_str("<ol>");
        for s in &doc.segments {
            fallback.push_str(&format!(
                "<li><code>{}</code> · {} · {:.1}s<br>{}</li>",
                esc(&s.voice_file),
                esc(s.roll.as_str()),
                s.duration,
                esc(&s.text)
            ));
        }
        fallback.push_str("</ol>");
    }
    let body = format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8>\
         <meta name=viewport content=\"width=device-width, initial-scale=1\">\
         <title>{t}</title><link rel=stylesheet href=\"/app/editor/assets/editor.css?v={v}\">\
         <script type=module src=\"/app/editor/assets/editor.js?v={v}\"></script></head>\
         <body><div id=app data-mode=\"{mode}\" data-built=\"{built}\">{fallback}</div></body></html>",
        t = esc(title),
        mode = if readonly { "player" } else { "editor" },
        built = super::files::BUILT,
    );
    html(body, StatusCode::OK, Some(kind(readonly)))
}
