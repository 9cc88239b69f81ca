//! `POST /v1/video_data`: the small envelope and the expiring public scene-tree file.
//!
//! The full tree (`VideoDocument::to_public`) is written through `state.public` as a temporary
//! file under `{origin_url}/tmp/video_data/…` with an unguessable, per-call name, completely and
//! atomically before the response is sent; it answers 410 after `public.temp_ttl_secs` (900 s)
//! and the sweeper deletes it.

use std::sync::Arc;

use pipeline::core::document::PublicView;
use pipeline::core::model::{Account, JobStatus};
use pipeline::core::public::Lifetime;
use pipeline::{Code, Error};
use serde_json::{Value, json};
use warp::filters::BoxedFilter;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, json_body, with_state};
use crate::reply::ok;

const BODY_LIMIT: usize = 16 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    warp::path!("v1" / "video_data")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(json_body(BODY_LIMIT))
        .and(with_state(state))
        .and_then(video_data)
        .boxed()
}

fn parse(body: &Value) -> Result<(String, bool), Error> {
    let id = match body.get("video_id").or_else(|| body.get("id")) {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::String(_)) | Some(Value::Null) | None => {
            return Err(Error::missing("video_id"));
        }
        Some(_) => {
            return Err(
                Error::new(Code::InvalidField, "`video_id` must be a string.").param("video_id"),
            );
        }
    };
    let diag = match body.get("include_diagnostics") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(Error::new(
                Code::InvalidField,
                "`include_diagnostics` must be a boolean.",
            )
            .param("include_diagnostics"));
        }
    };
    Ok((id, diag))
}

async fn video_data(
    account: Account,
    body: Value,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (id, include_diagnostics) = parse(&body).map_err(reject)?;
    if !pipeline::core::ids::is_topic_id(&id) {
        return Err(reject(
            Error::new(
                Code::VideoNotFound,
                "No video with this id exists on the account.",
            )
            .param("video_id"),
        ));
    }
    let st = state.clone();
    let account_name = account.name.clone();
    let id2 = id.clone();
    let published = tokio::task::spawn_blocking(move || -> Result<_, Error> {
        let (job, mut doc) =
            st.engine
                .document_for(&account_name, &id2)
                .map_err(|e| match e.code {
                    Code::InvalidId => Error::new(
                        Code::VideoNotFound,
                        "No video with this id exists on the account.",
                    )
                    .param("video_id"),
                    _ => e.param("video_id"),
                })?;
        // Edits staged in an open edit session show here before they are committed.
        if let Some(staged) = st.editor.staged(&id2) {
            doc = staged;
        }
        if job.status == JobStatus::Processing && job.step < 5 {
            return Err(Error::new(
                Code::ScriptNotReady,
                "The video's scenes are still being built; poll its status until scenes are ready.",
            )
            .param("video_id"));
        }
        let review_url = job
            .review_url
            .clone()
            .unwrap_or_else(|| st.engine.review_url(&id2));
        let public_root = st.settings.data_dir.join("public");
        let tree = doc.to_public(&PublicView {
            review_url: &review_url,
            origin_url: &st.settings.origin_url,
            public_root: &public_root,
            include_diagnostics,
        });
        let bytes = serde_json::to_vec_pretty(&tree).expect("JSON values serialise");
        let name = format!("video_data/{id2}-{}.json", pipeline::core::public::token());
        let published = st
            .public
            .write(Lifetime::Temp, &name, &bytes)
            .map_err(|e| {
                tracing::error!(error = %e, "video data file not written");
                Error::new(
                    Code::VideoDataPublishFailed,
                    "The video data file could not be published; try again.",
                )
            })?;
        Ok((
            published,
            review_url,
            doc.segments.len(),
            doc.total_duration(),
            doc.title.clone(),
        ))
    })
    .await
    .map_err(|e| reject(Error::internal(e)))?
    .map_err(reject)?;
    let (file, review_url, total_segments, total_duration, title) = published;
    Ok(ok(json!({
        "object": "video_data",
        "id": id,
        "topic_id": id,
        "delivery_mode": "download_url",
        "skill_required": "video_data_reader",
        "review_url": review_url,
        "data": {
            "url": file.url,
            "mime_type": "application/json",
            "bytes": file.bytes,
            "expires_at": file.expires_at_iso(),
            "ttl_seconds": file.ttl_seconds,
        },
        "instructions": "Download data.url (no auth) before it expires; it holds the full scene tree. Select scenes by voice_file (stable), never by id or scene_index (display order). Fetch a scene's remotion_spec_url only when its remotion_spec_state is ready. Rects under overlay.* are in 280x498 editor preview space; spec content is in 720x1280 canvas space.",
        "next_action": "download_data_url",
        "meta": {
            "title": title,
            "total_segments": total_segments,
            "total_duration": (total_duration * 1000.0).round() / 1000.0,
            "include_diagnostics": include_diagnostics,
            "trimmed": ["segments[].words", "script", "internal file names"],
        },
    })))
}
