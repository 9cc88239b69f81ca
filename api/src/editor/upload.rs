//! `POST /app/editor/{topic_id}/upload?filename=` (review-link token): the editor's file
//! uploads (a voice, a narrator video, an overlay), the file as the raw body. It is kept 24 h
//! as a public asset, like `/v1/upload_asset`, and the app sends its URL to modify_scene
//! (`voice.upload`, `narrator.upload_video`, `remotion.upload_overlay`), which reads our own
//! public files where they lie.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use foundation::public::Lifetime;
use pipeline::{Code, Error};
use serde::Serialize;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{query, reviewed};
use crate::State;
use crate::errors::reject;
use crate::filters::with_state;
use crate::reply::json_reply;

/// Largest upload: the spec's media upload size.
const MAX_BYTES: u64 = 100 * 1024 * 1024;

/// What the editor uploads, by extension.
const EXTENSIONS: &[&str] = &[
    "wav", "mp3", "m4a", "ogg", "opus", "flac", "aac", "mp4", "mov", "m4v", "webm", "png", "jpg",
    "jpeg", "webp", "svg",
];

/// The stored upload.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct EditorUpload {
    /// Public URL on `{origin_url}`, valid 24 h.
    pub url: String,
    pub size_bytes: u64,
    pub expires_at: String,
}

/// Stores a file for an edit of the link's video (review-link token).
#[utoipa::path(
    post,
    path = "/app/editor/{topic_id}/upload",
    operation_id = "editor_upload",
    tag = "review",
    params(
        ("topic_id" = String, Path, description = "The video id."),
        ("token" = String, Query, description = "The signature from `review_url`."),
        ("filename" = String, Query, description = "The file's name; its extension picks the type (audio, video, image or SVG)."),
    ),
    request_body(content = crate::openapi::Binary, content_type = "application/octet-stream"),
    responses(
        (status = 200, description = "The stored file's public URL.", body = EditorUpload),
        (status = 400, description = "`unsupported_asset_type`, `invalid_file_data` (empty, or an image or video that does not decode within the size limits)."),
        (status = 403, description = "`read_only_link`: the read-only player's token opens no edit, stream or upload.", body = crate::openapi::ErrorEnvelope),
        (status = 404, description = "`video_not_found`."),
        (status = 413, description = "`payload_too_large`: over 100 MB."),
    ),
)]
pub(crate) async fn editor_upload(
    topic: String,
    q: HashMap<String, String>,
    state: Arc<State>,
    body: Bytes,
) -> Result<Response, Rejection> {
    reviewed(&state, &topic, &q).map_err(reject)?;
    let name = q.get("filename").map(String::as_str).unwrap_or("");
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .filter(|e| EXTENSIONS.contains(&e.as_str()))
        .ok_or_else(|| {
            reject(
                Error::new(
                    Code::UnsupportedAssetType,
                    "Upload an audio file, a video, an image or an SVG.",
                )
                .param("filename"),
            )
        })?;
    if body.is_empty() {
        return Err(reject(Error::new(
            Code::InvalidFileData,
            "The file is empty.",
        )));
    }
    let rel = format!("editor/{}.{ext}", foundation::public::token());
    let stored = |e: std::io::Error| {
        reject(Error::new(Code::UploadFailed, "The file could not be stored.").because(e))
    };
    let published = state
        .public
        .write(Lifetime::Asset, &rel, &body)
        .map_err(stored)?;
    // Images and clips are decoded within the media limits before their URL is handed out.
    let (path, kind) = (
        published.path.clone(),
        video::ingest::AssetType {
            ext: ext.clone(),
            content_type: String::new(),
        },
    );
    let checked = crate::blocking::spawn(move || {
        let checked = video::ingest::check_media(&path, &kind, "body");
        if checked.is_err() {
            let _ = std::fs::remove_file(&path);
        }
        checked
    })
    .await
    .map_err(|e| reject(Error::internal(e)))?;
    checked.map_err(reject)?;
    Ok(json_reply(
        StatusCode::OK,
        &EditorUpload {
            url: published.url.clone(),
            size_bytes: published.bytes,
            expires_at: published.expires_at_iso(),
        },
    ))
}

pub(super) fn route(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / String / "upload")
        .and(warp::post())
        .and(query())
        .and(with_state(state))
        .and(warp::body::content_length_limit(MAX_BYTES))
        .and(warp::body::bytes())
        .and_then(editor_upload)
}
