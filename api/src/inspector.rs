//! `POST /v1/scene_inspector`: screenshots and overlay posters from the server compositor.
//!
//! The two still actions always render on the server. Every other action inspects a live
//! editor tab; no editor connects to this server yet, so they answer the spec's `unavailable`
//! envelope (`no_live_editor`) after the same validation.

use std::sync::Arc;

use pipeline::core::document::VideoDocument;
use pipeline::core::model::Account;
use pipeline::core::public::{Lifetime, Published};
use pipeline::{Code, Error};
use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, json_body, with_state};
use crate::reply::with_request_id;

const BODY_LIMIT: usize = 64 * 1024;

/// Every action of the spec. The first two render on the server.
const ACTIONS: &[&str] = &[
    "screenshot_scene_280x498",
    "overlay_poster",
    "list_live_editors",
    "list_instances",
    "get_preview_state",
    "get_scene_dom_snapshot",
    "get_computed_boxes",
    "activate_scene",
    "reload_preview",
    "pause_preview",
    "play_preview",
    "seek_preview",
];

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    warp::path!("v1" / "scene_inspector")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(json_body(BODY_LIMIT))
        .and(with_state(state))
        .and_then(
            |account: Account, body: Value, state: Arc<State>| async move {
                inspect(account, body, state).await.map_err(reject)
            },
        )
        .boxed()
}

/// The validated request.
struct Request {
    id: String,
    action: &'static str,
    voice_file: Option<String>,
    scene_id: Option<String>,
    seek_seconds: Option<f64>,
}

fn invalid(param: &str, message: &str) -> Error {
    Error::new(Code::InvalidValue, message).param(param)
}

fn parse(body: &Value) -> Result<Request, Error> {
    let Some(obj) = body.as_object() else {
        return Err(Error::new(
            Code::InvalidJson,
            "The body must be a JSON object.",
        ));
    };
    let id = match obj.get("id").or_else(|| obj.get("topic_id")) {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        None | Some(Value::Null) | Some(Value::String(_)) => return Err(Error::missing("id")),
        Some(_) => return Err(Error::new(Code::InvalidId, "`id` must be a string.").param("id")),
    };
    let action = match obj.get("action") {
        Some(Value::String(s)) if !s.is_empty() => ACTIONS
            .iter()
            .find(|a| **a == s.as_str())
            .copied()
            .ok_or_else(|| {
                Error::new(
                    Code::InvalidAction,
                    format!("`action` must be one of: {}.", ACTIONS.join(", ")),
                )
                .param("action")
            })?,
        None | Some(Value::Null) | Some(Value::String(_)) => return Err(Error::missing("action")),
        Some(_) => return Err(invalid("action", "`action` must be a string.")),
    };
    let voice_file = match obj.get("voice_file") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(_) => return Err(invalid("voice_file", "`voice_file` must be a string.")),
    };
    let scene_id = match obj.get("scene_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(_) => {
            return Err(invalid(
                "scene_id",
                "`scene_id` must be a string or a number.",
            ));
        }
    };
    let seek_seconds = match obj.get("seek_seconds") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_f64() {
            Some(s) if s.is_finite() && s >= 0.0 => Some(s),
            _ => {
                return Err(invalid(
                    "seek_seconds",
                    "`seek_seconds` must be a number of seconds, 0 or more.",
                ));
            }
        },
    };
    for (field, what) in [
        ("timeout_ms", "an integer"),
        ("probe_timeout_ms", "an integer"),
    ] {
        if let Some(v) = obj.get(field)
            && !v.is_null()
            && !v.is_i64()
            && !v.is_u64()
        {
            return Err(invalid(field, &format!("`{field}` must be {what}.")));
        }
    }
    if let Some(v) = obj.get("return_base64")
        && !v.is_null()
        && !v.is_boolean()
    {
        return Err(invalid(
            "return_base64",
            "`return_base64` must be a boolean.",
        ));
    }
    Ok(Request {
        id,
        action,
        voice_file,
        scene_id,
        seek_seconds,
    })
}

/// The scene a request names: `voice_file` first (stable), else the display `scene_id`.
fn select(doc: &VideoDocument, req: &Request) -> Result<usize, Error> {
    let not_found = |what: &str| {
        Error::new(
            Code::SceneNotFound,
            format!("No scene of this video has {what}."),
        )
    };
    if let Some(vf) = &req.voice_file {
        return doc
            .segments
            .iter()
            .position(|s| &s.voice_file == vf)
            .ok_or_else(|| not_found("this voice_file").param("voice_file"));
    }
    if let Some(id) = &req.scene_id {
        return doc
            .segments
            .iter()
            .position(|s| s.id.to_string() == *id)
            .ok_or_else(|| not_found("this scene_id").param("scene_id"));
    }
    Err(Error::new(
        Code::MissingField,
        "Name the scene with `voice_file` (preferred) or `scene_id`.",
    )
    .param("voice_file"))
}

fn file_json(p: &Published, mime: &str, url: String) -> Value {
    json!({
        "url": url,
        "mime_type": mime,
        "width": pipeline::render::stills::PREVIEW_W,
        "height": pipeline::render::stills::PREVIEW_H,
        "bytes": p.bytes,
        "expires_at": p.expires_at_iso(),
        "ttl_seconds": p.ttl_seconds,
    })
}

async fn inspect(account: Account, body: Value, state: Arc<State>) -> Result<Response, Error> {
    let req = parse(&body)?;
    let engine = state.engine.clone();
    let (account_name, id) = (account.name.clone(), req.id.clone());
    let (_job, mut doc) =
        tokio::task::spawn_blocking(move || engine.document_for(&account_name, &id))
            .await
            .map_err(Error::internal)??;
    // Edits staged in an open edit session show in stills before they are committed.
    if let Some(staged) = state.editor.staged(&req.id) {
        doc = staged;
    }
    let envelope = |status: &str, code: Value, result: Value| {
        json!({
            "object": "scene_inspector_result",
            "status": status,
            "code": code,
            "action": req.action,
            "topic_id": doc.topic_id,
            "company_id": account.name,
            "selected_browser": Value::Null,
            "result": result,
        })
    };
    if !matches!(req.action, "screenshot_scene_280x498" | "overlay_poster") {
        let body = envelope(
            "unavailable",
            json!("no_live_editor"),
            json!({
                "message": "No editor tab is open on this video; open the review page to use live inspection.",
            }),
        );
        return Ok(with_request_id(StatusCode::OK, body));
    }

    let index = select(&doc, &req)?;
    let seg = &doc.segments[index];
    let scene = json!({
        "action": req.action,
        "scene_id": seg.id.to_string(),
        "voice_file": seg.voice_file,
        "scene_index": index,
    });
    let result = if req.action == "screenshot_scene_280x498" {
        let shot = render(&state, doc.clone(), index, req.seek_seconds, false).await?;
        let published = state
            .public
            .write(
                Lifetime::Temp,
                &format!("shots/{}.jpg", pipeline::core::public::token()),
                &shot,
            )
            .map_err(|e| {
                tracing::error!(error = %e, "screenshot not written");
                Error::new(
                    Code::ScreenshotPublishFailed,
                    "The screenshot could not be published; try again.",
                )
            })?;
        let mut r = scene;
        r["screenshot"] = file_json(&published, "image/jpeg", published.url.clone());
        r
    } else {
        let poster = render(&state, doc.clone(), index, None, true).await?;
        let published = state
            .public
            .write(Lifetime::Temp, &doc.poster_name(&seg.voice_file), &poster)
            .map_err(|e| {
                tracing::error!(error = %e, "poster not written");
                Error::new(
                    Code::OverlayPublishFailed,
                    "The overlay poster could not be published; try again.",
                )
            })?;
        let url = format!("{}?v={}", published.url, pipeline::core::public::token());
        let mut r = scene;
        r["overlay_poster"] = file_json(&published, "image/png", url);
        r["review_checklist"] = json!(pipeline::render::stills::REVIEW_CHECKLIST);
        r
    };
    Ok(with_request_id(
        StatusCode::OK,
        envelope("completed", Value::Null, result),
    ))
}

/// Renders the still on a blocking thread.
async fn render(
    state: &Arc<State>,
    doc: VideoDocument,
    index: usize,
    seek: Option<f64>,
    poster: bool,
) -> Result<Vec<u8>, Error> {
    let state = state.clone();
    tokio::task::spawn_blocking(move || {
        if poster {
            state.stills.overlay_poster(&state.settings, &doc, index)
        } else {
            state.stills.screenshot(&state.settings, &doc, index, seek)
        }
    })
    .await
    .map_err(Error::internal)?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(body: Value) -> (Code, Option<String>) {
        let e = parse(&body).err().expect("rejected");
        (e.code, e.param)
    }

    #[test]
    fn validates_the_request() {
        let ok = parse(
            &json!({"id": "wcX", "action": "overlay_poster", "scene_id": 3, "return_base64": true}),
        )
        .unwrap();
        assert_eq!(ok.scene_id.as_deref(), Some("3"));
        let cases = [
            (
                json!({"action": "overlay_poster"}),
                Code::MissingField,
                "id",
            ),
            (json!({"id": "wcX"}), Code::MissingField, "action"),
            (
                json!({"id": "wcX", "action": "eval"}),
                Code::InvalidAction,
                "action",
            ),
            (
                json!({"id": "wcX", "action": "overlay_poster", "seek_seconds": -1}),
                Code::InvalidValue,
                "seek_seconds",
            ),
            (
                json!({"id": "wcX", "action": "overlay_poster", "voice_file": 5}),
                Code::InvalidValue,
                "voice_file",
            ),
            (
                json!({"id": "wcX", "action": "seek_preview", "timeout_ms": "fast"}),
                Code::InvalidValue,
                "timeout_ms",
            ),
            (
                json!({"id": "wcX", "action": "overlay_poster", "return_base64": "yes"}),
                Code::InvalidValue,
                "return_base64",
            ),
        ];
        for (body, code, param) in cases {
            assert_eq!(err(body.clone()), (code, Some(param.to_string())), "{body}");
        }
    }
}
