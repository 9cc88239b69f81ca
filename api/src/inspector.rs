//! `POST /v1/scene_inspector`: screenshots and overlay posters from the server compositor.
//!
//! The two still actions always render on the server. Every other action inspects a live
//! editor tab (`pipeline::edit::live`; tabs connect over `/app/editor/{topic}/live`): the list
//! actions answer from the registry, the others are forwarded to the elected tab and wait for
//! its answer up to `timeout_ms`. Without a tab: the spec's `unavailable` envelope
//! (`no_live_editor`; `no_active_editor` when tabs are open but none answered the probe;
//! `editor_timeout`, `editor_disconnected`). The request and reply types live in
//! `pipeline::edit::scenes::inspect`.

use std::sync::Arc;

use foundation::document::VideoDocument;
use foundation::fields::body;
use foundation::model::Account;
use foundation::public::{Lifetime, Published};
use pipeline::edit::{
    Answer, Command, Failure, Inspection, InspectorAction, InspectorReply, InspectorResult,
    LiveAnswer, LiveEditorsResult, LiveResult, PROBE_MS, PosterResult, SceneInspectorRequest,
    ScreenshotResult, Selection, Selector, StillFile, StillScene, TIMEOUT_MS, Unavailable,
    clamp_ms, select_scene,
};
use pipeline::{Code, Error};
use serde_json::Value;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::State;
use crate::errors::reject;
use crate::filters::{auth, typed_body, with_state};
use crate::reply::json_reply;

const BODY_LIMIT: usize = 64 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    warp::path!("v1" / "scene_inspector")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed_body(BODY_LIMIT, body::read::<SceneInspectorRequest>))
        .and(with_state(state))
        .and_then(
            |account: Account, req: Inspection, state: Arc<State>| async move {
                scene_inspector(account, req, state).await.map_err(reject)
            },
        )
        .boxed()
}

/// The scene a still action names (`voice_file` first, else the display `scene_id`).
fn select(doc: &VideoDocument, req: &Inspection) -> Result<usize, Error> {
    let Some(sel) = &req.scene else {
        return Err(Error::new(
            Code::MissingField,
            "Name the scene with `voice_file` (preferred) or `scene_id`.",
        )
        .param("voice_file"));
    };
    let param = match sel {
        Selector::VoiceFile(_) => "voice_file",
        _ => "scene_id",
    };
    match select_scene(doc, sel).map_err(|e| e.param(param))? {
        Selection::Found { index, .. } => Ok(index),
        Selection::Ambiguous(_) => Err(Error::internal("inspector selectors are exact")),
    }
}

fn still_file(p: &Published, mime_type: &'static str, url: String) -> StillFile {
    StillFile {
        url,
        mime_type,
        width: video::render::PREVIEW_W,
        height: video::render::PREVIEW_H,
        bytes: p.bytes,
        expires_at: p.expires_at_iso(),
        ttl_seconds: p.ttl_seconds,
    }
}

/// Live browser inspection, screenshots and overlay posters.
///
/// The two still actions always render with the server compositor; every other action runs in
/// an open editor tab, or answers `status: unavailable` with `code` `no_live_editor`,
/// `no_active_editor`, `editor_timeout` or `editor_disconnected` (200).
#[utoipa::path(
    post,
    path = "/v1/scene_inspector",
    tag = "editing",
    request_body = SceneInspectorRequest,
    responses(
        (status = 200, description = "The still, or the `unavailable` envelope of a live-editor action", body = InspectorReply),
        (status = 400, description = "`missing_field`, `invalid_action`, `invalid_value`"),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`"),
        (status = 404, description = "`video_not_found`, `scene_not_found`"),
        (status = 409, description = "`script_not_ready`, `overlay_not_available`, `editor_refused`"),
        (status = 422, description = "`media_decode_failed`: a medium of the scene no longer reads (replace it)"),
        (status = 500, description = "`screenshot_publish_failed`, `overlay_publish_failed`"),
        (status = 502, description = "`script_parse_failed`"),
    ),
    security(("bearer" = []))
)]
pub async fn scene_inspector(
    account: Account,
    req: Inspection,
    state: Arc<State>,
) -> Result<Response, Error> {
    crate::metrics::topic(&req.id);
    let engine = state.engine.clone();
    let (account_name, id) = (account.name.clone(), req.id.clone());
    let (_job, mut doc) =
        crate::blocking::run(move || engine.document_for(&account_name, &id)).await?;
    // Edits staged in an open edit session show in stills before they are committed.
    if let Some(staged) = state.editor.staged(&req.id) {
        doc = staged;
    }
    let reply = |status, code, result| InspectorReply {
        object: "scene_inspector_result",
        status,
        code,
        action: req.action,
        topic_id: doc.topic_id.clone(),
        company_id: account.name.clone(),
        selected_browser: None,
        result,
    };
    if !req.action.renders_on_server() {
        let body = match live(&state, &doc, &req).await? {
            Ok((instance, result)) => InspectorReply {
                selected_browser: Some(instance),
                ..reply("completed", None, result)
            },
            Err(failure) => reply(
                "unavailable",
                Some(failure.code()),
                InspectorResult::Unavailable(Unavailable {
                    message: failure.message(),
                }),
            ),
        };
        return Ok(json_reply(StatusCode::OK, &body));
    }
    let index = select(&doc, &req)?;
    let result = still(&state, &doc, index, &req).await?;
    Ok(json_reply(
        StatusCode::OK,
        &reply("completed", None, result),
    ))
}

/// A live action: the list actions from the registry, every other one forwarded to the
/// elected editor tab. `Ok(Err(_))` is the `unavailable` envelope's reason; a tab's refusal
/// (say, a selector that matches nothing) is a 409 with the tab's plain reason.
async fn live(
    state: &Arc<State>,
    doc: &VideoDocument,
    req: &Inspection,
) -> Result<Result<(String, InspectorResult), Failure>, Error> {
    let topic = &doc.topic_id;
    if matches!(
        req.action,
        InspectorAction::ListLiveEditors | InspectorAction::ListInstances
    ) {
        let editors = state.live.list(topic);
        if editors.is_empty() {
            return Ok(Err(Failure::NoLiveEditor));
        }
        let first = editors[0].instance_id.clone();
        return Ok(Ok((
            first,
            InspectorResult::Live(LiveResult::Editors(LiveEditorsResult {
                count: editors.len(),
                editors,
            })),
        )));
    }
    let voice_file = match &req.scene {
        Some(_) => Some(doc.segments[select(doc, req)?].voice_file.clone()),
        None => None,
    };
    let command = Command {
        action: req.action.as_str(),
        voice_file,
        selector: req.selector.clone(),
        activate: req.activate.unwrap_or(false),
        seek_seconds: req.seek_seconds,
        options: req.options.clone().unwrap_or_default(),
    };
    let probe = clamp_ms(req.probe_timeout_ms, PROBE_MS);
    let timeout = clamp_ms(req.timeout_ms, TIMEOUT_MS);
    let forwarded = match state.live.forward(topic, &command, probe, timeout).await {
        Ok(f) => f,
        Err(failure) => return Ok(Err(failure)),
    };
    match forwarded.answer {
        Answer::Ok(Value::Object(data)) => Ok(Ok((
            forwarded.instance_id.clone(),
            InspectorResult::Live(LiveResult::Answer(LiveAnswer {
                editor_instance: forwarded.instance_id,
                data,
            })),
        ))),
        Answer::Ok(_) => Err(Error::new(
            Code::InvalidValue,
            "The editor answered with something that is not a result.",
        )),
        Answer::Refused(reason) => Err(Error::new(
            Code::EditorRefused,
            format!("The editor could not do this: {reason}"),
        )),
    }
}

/// Renders and publishes the screenshot or the overlay poster of scene `index`.
async fn still(
    state: &Arc<State>,
    doc: &VideoDocument,
    index: usize,
    req: &Inspection,
) -> Result<InspectorResult, Error> {
    let seg = &doc.segments[index];
    let scene = StillScene {
        action: req.action,
        scene_id: seg.id.to_string(),
        voice_file: seg.voice_file.clone(),
        scene_index: index,
    };
    if req.action == InspectorAction::ScreenshotScene {
        let shot = render(state, doc.clone(), index, req.seek_seconds, false).await?;
        let published = state
            .public
            .write(
                Lifetime::Temp,
                &format!("shots/{}.jpg", foundation::public::token()),
                &shot,
            )
            .map_err(|e| {
                tracing::error!(error = %e, "screenshot not written");
                Error::new(
                    Code::ScreenshotPublishFailed,
                    "The screenshot could not be published; try again.",
                )
            })?;
        let screenshot = still_file(&published, "image/jpeg", published.url.clone());
        return Ok(InspectorResult::Screenshot(ScreenshotResult {
            scene,
            screenshot,
        }));
    }
    let poster = render(state, doc.clone(), index, None, true).await?;
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
    let url = format!("{}?v={}", published.url, foundation::public::token());
    Ok(InspectorResult::Poster(PosterResult {
        scene,
        overlay_poster: still_file(&published, "image/png", url),
        review_checklist: video::render::REVIEW_CHECKLIST,
    }))
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
    crate::blocking::spawn(move || {
        // Edits staged in an open edit session show before they are committed.
        let staged = state
            .editor
            .sessions
            .spec(&doc.topic_id, &doc.segments[index].voice_file);
        let scene = (index, staged.as_ref());
        if poster {
            state.stills.overlay_poster(&state.settings, &doc, scene)
        } else {
            state.stills.screenshot(&state.settings, &doc, scene, seek)
        }
    })
    .await
    .map_err(Error::internal)?
}
