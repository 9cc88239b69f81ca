//! Public pages under `{app_url}`: the content viewer
//! a written piece's `review_url` opens (same token; the piece rendered from Markdown and
//! sanitised, an X thread as separate posts, "being written" until it is done), and the API
//! reference at `{app_url}/docs`, rendered on the server from the OpenAPI document (no scripts,
//! nothing fetched from elsewhere).

use std::collections::HashMap;
use std::sync::Arc;

use foundation::document::VideoDocument;
use foundation::model::{ContentPiece, ContentType, Job, JobStatus, JobType, WrittenResult};
use pipeline::content::text_to_html;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;

pub(crate) use foundation::html::esc;

pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let docs = warp::path!("app" / "docs")
        .and(warp::get())
        .map(reference_page);
    let pricing = warp::path!("app" / "pricing")
        .and(warp::get())
        .map(pricing_page);
    docs.or(pricing).unify().or(content_viewer(state)).unify()
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

/// Where every 402 sends the client (`details.pricing_url`): the plans, what costs credits, and
/// how the operator changes an account.
#[utoipa::path(
    get,
    path = "/app/pricing",
    operation_id = "pricing_page",
    tag = "reference",
    responses((status = 200, description = "The plans and credits page.", content_type = "text/html", body = String)),
)]
pub(crate) fn pricing_page() -> Response {
    let html = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
        <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
        <title>Plans and credits</title></head><body><main>\
        <h1>Plans and credits</h1>\
        <p>Accounts are on a <strong>free</strong>, <strong>trial</strong> or <strong>paid</strong> plan \
        and hold credits. Typography, written content, script enhancement and each generated image \
        cost 1 credit; work that fails gives its credits back.</p>\
        <p>A call is refused with HTTP 402 when the account has passed its validity date \
        (<code>account_expired</code>), needs a paid plan (<code>plan_required</code>) or has too \
        few credits (<code>credit_exhausted</code>). <code>GET /v1/account</code> shows the plan, \
        the credits left and the validity date.</p>\
        <p>To upgrade, renew or add credits, ask the operator of this service. Operators change an \
        account with <code>reelsmith accounts set --account NAME --plan paid --credits N \
        --valid-to DATE</code>.</p></main></body></html>";
    crate::reply::tag(warp::Reply::into_response(warp::reply::html(html)))
}

/// The plain review page of a video (status, the MP4 when rendered, the scenes unless
/// `readonly`): what a client link's page shows.
pub(crate) fn page(
    job: &foundation::model::Job,
    doc: Option<&VideoDocument>,
    readonly: bool,
) -> Response {
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
                esc(s.roll.as_str()),
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

/// Content viewer opened by a written piece's `review_url` (signed token, no sign-in).
#[utoipa::path(
    get,
    path = "/app/content/{topic_id}",
    operation_id = "content_viewer",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The id of the written piece."),
        ("token" = Option<String>, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 200, description = "The piece, rendered (or \"being written\" while the job runs).", content_type = "text/html", body = String),
        (status = 404, description = "`video_not_found`: unknown piece or bad token."),
    ),
)]
pub(crate) async fn content_viewer_page(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let nf = || {
        reject(pipeline::Error::new(
            pipeline::Code::VideoNotFound,
            "No written piece matches this link.",
        ))
    };
    let token = q.get("token").map(String::as_str).unwrap_or("");
    if !foundation::links::verify(&state.settings.webhook.signing_secret, &topic, token) {
        return Err(nf());
    }
    let job = state
        .store
        .job(&topic)
        .map_err(|e| reject(e.into()))?
        .filter(|j| j.kind() == JobType::Content)
        .ok_or_else(nf)?;
    Ok(content_page(&job))
}

fn content_viewer(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "content" / String)
        .and(warp::get())
        .and(warp::query::<HashMap<String, String>>())
        .and(crate::filters::with_state(state))
        .and_then(content_viewer_page)
}

pub(crate) fn content_page(job: &Job) -> Response {
    let (title, body) = match (&job.status, job.written()) {
        (JobStatus::Completed, Some(WrittenResult::Content(piece))) => {
            (piece.title.clone(), piece_html(piece))
        }
        (JobStatus::Completed, Some(WrittenResult::Script(s))) => (
            "Enhanced script".to_string(),
            format!(
                "<p class=meta>{} → {} words · {}</p>{}",
                s.words_before,
                s.words_after,
                esc(&s.writer),
                text_to_html(&s.script)
            ),
        ),
        (JobStatus::Failed, _) => (
            "Not written".to_string(),
            format!(
                "<p>This piece could not be written: {}</p>",
                esc(job.error.as_ref().map_or("", |e| e.message.as_str()))
            ),
        ),
        _ => {
            let stage = job
                .written_job()
                .and_then(|w| w.stage)
                .and_then(|s| serde_json::to_value(s).ok())
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            (
                "Being written".to_string(),
                format!(
                    "<p>This piece is being written ({}). This page refreshes every few seconds.</p>",
                    esc(&stage)
                ),
            )
        }
    };
    let refresh = if job.status == JobStatus::Processing {
        "<meta http-equiv=refresh content=5>"
    } else {
        ""
    };
    let html = format!(
        "<!doctype html><html><head><meta charset=utf-8><meta name=viewport content=\"width=device-width\">{refresh}\
         <title>{t}</title><style>body{{font:17px/1.6 system-ui;margin:2rem auto;max-width:720px;padding:0 1rem}}\
         img{{max-width:100%;border-radius:8px}}.meta{{color:#666;font-size:14px}}\
         .post{{border:1px solid #ddd;border-radius:12px;padding:.75rem 1rem;margin:1rem 0}}\
         .images{{display:flex;gap:.5rem;flex-wrap:wrap}}.images img{{width:200px}}</style></head>\
         <body>{body}</body></html>",
        t = esc(&title),
    );
    crate::reply::tag(warp::Reply::into_response(warp::reply::html(html)))
}

/// A piece as HTML: a blog's sanitised HTML, an X thread as one box per post, a post's text
/// with its line breaks.
fn piece_html(piece: &ContentPiece) -> String {
    let mut html = format!(
        "<p class=meta>{} · {:?} · {} words · written by {}</p>",
        piece.content_type.as_str(),
        piece.language,
        piece.word_count,
        esc(&piece.writer)
    );
    match piece.content_type {
        ContentType::Blog => html.push_str(piece.html.as_deref().unwrap_or_default()),
        ContentType::X => {
            html.push_str(&format!("<h1>{}</h1>", esc(&piece.title)));
            for post in &piece.posts {
                html.push_str(&format!(
                    "<article class=post>{}</article>",
                    text_to_html(post)
                ));
            }
        }
        ContentType::Facebook | ContentType::Linkedin => {
            html.push_str(&format!("<h1>{}</h1>", esc(&piece.title)));
            html.push_str(&format!(
                "<article class=post>{}</article>",
                text_to_html(&piece.markdown)
            ));
        }
    }
    if piece.content_type != ContentType::Blog && !piece.images.is_empty() {
        html.push_str("<div class=images>");
        for img in &piece.images {
            html.push_str(&format!(
                "<img src=\"{}\" alt=\"{}\">",
                esc(&img.url),
                esc(&img.title)
            ));
        }
        html.push_str("</div>");
    }
    html
}
