//! The page a `review_url` opens: the editor app's shell, or with `readonly=true` the
//! embeddable player (same app, no edit controls). The shell also carries the scene list as
//! plain HTML, so the page says what the video holds before (or without) its script.
//!
//! Headers: a content security policy that allows only this server's scripts and the media
//! origin's pictures and clips; the player may be framed anywhere (`frame-ancestors *`), the
//! editor only by this origin. A tampered or foreign token gets a plain "link not valid" page
//! (404) that names nothing of the video.

use std::collections::HashMap;
use std::sync::Arc;

use pipeline::core::document::VideoDocument;
use pipeline::core::model::Job;
use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{query, reviewed};
use crate::State;
use crate::pages::esc;

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
        (status = 404, description = "Unknown video or a token that does not match: a page saying the link is not valid.", content_type = "text/html", body = String),
    ),
)]
#[allow(dead_code)] // documents the route `route` serves
pub(crate) fn review_page() {}

pub(super) fn route(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / String)
        .and(warp::get())
        .and(query())
        .and_then(move |topic: String, q: HashMap<String, String>| {
            let state = state.clone();
            async move {
                let readonly = q.get("readonly").is_some_and(|v| v == "true");
                let Ok(job) = reviewed(&state, &topic, &q) else {
                    return Ok::<_, Rejection>(invalid_link(&state, readonly));
                };
                let doc = state.editor.document(&topic).ok().flatten();
                Ok(shell(&state, &job, doc.as_ref(), readonly))
            }
        })
}

/// `scheme://host[:port]` of a URL (the media origin, for the policy).
fn origin_of(url: &str) -> &str {
    let after = url.find("://").map_or(0, |i| i + 3);
    match url[after..].find('/') {
        Some(i) => &url[..after + i],
        None => url,
    }
}

fn headers(state: &State, mut resp: Response, readonly: bool) -> Response {
    let media = origin_of(&state.settings.origin_url);
    let ancestors = if readonly { "*" } else { "'self'" };
    let csp = format!(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data: blob: {media}; media-src 'self' blob: {media}; \
         connect-src 'self' ws: wss:; frame-ancestors {ancestors}; base-uri 'none'; form-action 'none'"
    );
    let h = resp.headers_mut();
    h.insert(
        "content-security-policy",
        HeaderValue::from_str(&csp)
            .unwrap_or_else(|_| HeaderValue::from_static("default-src 'self'")),
    );
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    h.insert(
        warp::http::header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    );
    crate::reply::tag(resp)
}

fn html(state: &State, body: String, status: StatusCode, readonly: bool) -> Response {
    let mut resp = warp::Reply::into_response(warp::reply::html(body));
    *resp.status_mut() = status;
    headers(state, resp, readonly)
}

fn invalid_link(state: &State, readonly: bool) -> Response {
    let body = "<!doctype html><html><head><meta charset=utf-8>\
        <meta name=viewport content=\"width=device-width\"><title>Link not valid</title>\
        <style>body{font:17px/1.5 system-ui;margin:3rem auto;max-width:32rem;padding:0 1rem}</style>\
        </head><body><h1 id=invalid-link>This link is not valid</h1>\
        <p>The review link was changed or does not belong to a video here. \
        Ask for a fresh link.</p></body></html>"
        .to_string();
    html(state, body, StatusCode::NOT_FOUND, readonly)
}

/// The app's shell with the scenes as plain HTML inside its mount point.
fn shell(state: &State, job: &Job, doc: Option<&VideoDocument>, readonly: bool) -> Response {
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
    html(state, body, StatusCode::OK, readonly)
}
