//! Pictures and sound of a scene for the editor, all from the compositor that renders the MP4:
//! `GET …/still/{voice_file}?t=` (280×498 JPEG at `t` seconds; scrubbing and thumbnails) and
//! `POST …/preview/{voice_file}` (the scene's 360×640 preview clip with its narration, rendered
//! once per version of the scene and published on the media origin), and `POST …/preview` (the
//! whole video at that size under one soundtrack, for the editor's timeline).

use std::collections::HashMap;
use std::sync::Arc;

use foundation::document::VideoDocument;
use foundation::model::Job;
use pipeline::{Code, Error};
use video::render::{PreviewClip, WholePreview};
use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{blocking, query, viewed};
use crate::State;
use crate::errors::reject;
use crate::filters::with_state;
use crate::reply::json_reply;

/// The current document (the session's copy while one is open) and the scene's index.
/// The video's document (an open session's copy) once its scenes are built.
fn ready_document(state: &State, job: &Job) -> Result<VideoDocument, Error> {
    let ready = job.step >= 5 || job.video_url.is_some();
    state
        .editor
        .document(&job.topic_id)?
        .filter(|_| ready)
        .ok_or_else(|| {
            Error::new(
                Code::ScenesNotReady,
                "The video's scenes are not ready yet; this page updates when they are.",
            )
        })
}

fn scene(state: &State, job: &Job, voice_file: &str) -> Result<(VideoDocument, usize), Error> {
    let doc = ready_document(state, job)?;
    let index = doc
        .segments
        .iter()
        .position(|s| s.voice_file == voice_file)
        .ok_or_else(|| Error::new(Code::SceneNotFound, "The video has no such scene."))?;
    Ok((doc, index))
}

/// A scene's 280×498 still (review-link token).
#[utoipa::path(
    get,
    path = "/app/editor/{topic_id}/still/{voice_file}",
    operation_id = "editor_still",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("voice_file" = String, Path, description = "The scene's stable id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
        ("t" = Option<f64>, Query, minimum = 0, description = "Seconds into the scene (default: a representative moment)."),
    ),
    responses(
        (status = 200, description = "The still.", content_type = "image/jpeg", body = crate::openapi::Binary),
        (status = 404, description = "`video_not_found`, `scene_not_found`."),
        (status = 409, description = "`scenes_not_ready`."),
        (status = 422, description = "`media_decode_failed`: a medium of the scene no longer reads."),
    ),
)]
pub(crate) async fn editor_still(
    topic: String,
    voice_file: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (job, _) = viewed(&state, &topic, &q).map_err(reject)?;
    let seek = match q.get("t").map(|t| t.parse::<f64>()) {
        None => None,
        Some(Ok(t)) if t.is_finite() && t >= 0.0 => Some(t),
        Some(_) => {
            return Err(reject(
                Error::new(
                    Code::InvalidValue,
                    "`t` must be a number of seconds, 0 or more.",
                )
                .param("t"),
            ));
        }
    };
    let st = state.clone();
    let jpeg = blocking(move || {
        let (doc, index) = scene(&st, &job, &voice_file)?;
        let staged = st
            .editor
            .sessions
            .spec(&doc.topic_id, &doc.segments[index].voice_file);
        st.stills
            .screenshot(&st.settings, &doc, (index, staged.as_ref()), seek)
    })
    .await?;
    let mut resp = Response::new(jpeg.into());
    *resp.status_mut() = StatusCode::OK;
    let h = resp.headers_mut();
    h.insert(
        warp::http::header::CONTENT_TYPE,
        HeaderValue::from_static("image/jpeg"),
    );
    h.insert(
        warp::http::header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache"),
    );
    Ok(crate::reply::tag(resp))
}

/// A scene's preview clip, rendered when the scene changed since the last one (review-link
/// token).
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/preview/{voice_file}",
    operation_id = "editor_preview",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("voice_file" = String, Path, description = "The scene's stable id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 200, description = "The clip's public URL and whether it came from the cache.", body = PreviewClip),
        (status = 404, description = "`video_not_found`, `scene_not_found`."),
        (status = 409, description = "`scenes_not_ready`."),
        (status = 422, description = "`media_decode_failed`: a medium of the scene (background, clip or narration) no longer reads; replace it with modify_scene."),
        (status = 500, description = "`render_failed`: the encoder failed on this server."),
    ),
)]
pub(crate) async fn editor_preview(
    topic: String,
    voice_file: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (job, _) = viewed(&state, &topic, &q).map_err(reject)?;
    let st = state.clone();
    let clip = blocking(move || {
        let (doc, index) = scene(&st, &job, &voice_file)?;
        let staged = st
            .editor
            .sessions
            .spec(&doc.topic_id, &doc.segments[index].voice_file);
        st.previews
            .clip(&st.settings, &doc, (index, staged.as_ref()))
    })
    .await?;
    Ok(json_reply(StatusCode::OK, &clip))
}

#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/preview",
    operation_id = "editor_whole_preview",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
    ),
    responses(
        (status = 200, description = "The whole video at 360×640 with its soundtrack, every scene's start in it, and whether it came from the cache. Only the scenes an edit changed are rendered again.", body = WholePreview),
        (status = 404, description = "`video_not_found`."),
        (status = 409, description = "`scenes_not_ready`."),
        (status = 422, description = "`media_decode_failed`: a medium of a scene no longer reads; replace it with modify_scene."),
        (status = 500, description = "`render_failed`: the encoder failed on this server."),
    ),
)]
pub(crate) async fn editor_whole_preview(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (job, _) = viewed(&state, &topic, &q).map_err(reject)?;
    let st = state.clone();
    let whole = blocking(move || {
        let doc = ready_document(&st, &job)?;
        let staged = doc
            .segments
            .iter()
            .filter_map(|s| {
                let spec = st.editor.sessions.spec(&doc.topic_id, &s.voice_file)?;
                Some((s.voice_file.clone(), spec))
            })
            .collect();
        st.previews.whole(&st.settings, &doc, &staged)
    })
    .await?;
    Ok(json_reply(StatusCode::OK, &whole))
}

pub(super) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let still = warp::path!("app" / "editor" / String / "still" / String)
        .and(warp::get())
        .and(query())
        .and(with_state(state.clone()))
        .and_then(editor_still);
    let preview = warp::path!("app" / "editor" / String / "preview" / String)
        .and(warp::post())
        .and(query())
        .and(with_state(state.clone()))
        .and_then(editor_preview);
    let whole = warp::path!("app" / "editor" / String / "preview")
        .and(warp::post())
        .and(query())
        .and(with_state(state))
        .and_then(editor_whole_preview);
    still.or(preview).unify().or(whole).unify()
}
