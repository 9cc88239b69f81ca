//! Public pages under `{app_url}`: the review page a `review_url` opens
//! (signed token, no sign-in; `readonly=true` gives the embeddable player), and the API
//! reference at `{app_url}/docs`, rendered on the server from the OpenAPI document (no scripts,
//! nothing fetched from elsewhere).

use std::collections::HashMap;
use std::sync::Arc;

use pipeline::core::document::VideoDocument;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let docs = warp::path!("app" / "docs")
        .and(warp::get())
        .map(reference_page);
    docs.or(review(state)).unify()
}

/// The readable API reference (HTML), made from `/v1/openapi.json`.
#[utoipa::path(
    get,
    path = "/app/docs",
    operation_id = "reference_page",
    tag = "reference",
    responses((status = 200, description = "The API reference page.", content_type = "text/html", body = String)),
)]
pub(crate) fn reference_page() -> Response {
    let html = crate::reference::render(&crate::openapi::document());
    crate::reply::tag(warp::Reply::into_response(warp::reply::html(html)))
}

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
    ),
    responses(
        (status = 200, description = "The review page.", content_type = "text/html", body = String),
        (status = 404, description = "`video_not_found`: unknown video or bad token."),
    ),
)]
#[allow(dead_code)] // documents the route `review` serves
pub(crate) fn review_page() {}

fn review(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / String)
        .and(warp::get())
        .and(warp::query::<HashMap<String, String>>())
        .and_then(move |topic: String, q: HashMap<String, String>| {
            let state = state.clone();
            async move {
                let nf = || {
                    reject(pipeline::Error::new(
                        pipeline::Code::VideoNotFound,
                        "No video matches this link.",
                    ))
                };
                let token = q.get("token").map(String::as_str).unwrap_or("");
                if !pipeline::core::links::verify(
                    &state.settings.webhook.signing_secret,
                    &topic,
                    token,
                ) {
                    return Err(nf());
                }
                let job = state
                    .store
                    .job(&topic)
                    .map_err(|e| reject(e.into()))?
                    .ok_or_else(nf)?;
                let doc: Option<VideoDocument> =
                    state.store.document(&topic).map_err(|e| reject(e.into()))?;
                Ok(page(
                    &job,
                    doc.as_ref(),
                    q.get("readonly").is_some_and(|v| v == "true"),
                ))
            }
        })
}

fn page(job: &pipeline::core::model::Job, doc: Option<&VideoDocument>, readonly: bool) -> Response {
    let title = doc.map(|d| d.title.as_str()).unwrap_or("Video");
    let mut html = format!(
        "<!doctype html><html><head><meta charset=utf-8><meta name=viewport content=\"width=device-width\">\
         <title>{t}</title><style>body{{font:16px system-ui;margin:2rem auto;max-width:760px}}\
         video{{width:280px;height:498px;background:#000}}li{{margin:.5rem 0}}</style></head><body>\
         <h1>{t}</h1><p>Status: <b>{s}</b> · step {step}</p>",
        t = esc(title),
        s = job.status.as_str(),
        step = job.step
    );
    if let Some(url) = &job.video_url {
        html.push_str(&format!("<video controls src=\"{}\"></video>", esc(url)));
    }
    if !readonly && let Some(doc) = doc {
        html.push_str("<ol>");
        for s in &doc.segments {
            html.push_str(&format!(
                "<li><code>{}</code> · {} · {:.1}s<br>{}</li>",
                esc(&s.voice_file),
                esc(&s.roll),
                s.duration,
                esc(&s.text)
            ));
        }
        html.push_str("</ol>");
    }
    html.push_str("</body></html>");
    let mut resp = warp::Reply::into_response(warp::reply::html(html));
    *resp.status_mut() = StatusCode::OK;
    crate::reply::tag(resp)
}
