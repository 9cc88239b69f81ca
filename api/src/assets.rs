//! `POST /v1/upload_asset` (multipart, presign, base64), the presigned
//! `PUT /v1/upload_asset/put/{folder}/{name}`, and the multipart form of `create_video`
//! (`video_file`/`audio_file`).
//!
//! Uploads are streamed to a temporary file under `{data_dir}/uploads` (never held whole in
//! memory), counted against their cap as they arrive, then moved into place on the public
//! origin with [`PublicFiles::adopt`](foundation::public::PublicFiles::adopt). Names, types and
//! presign tokens come from `video::ingest` (`assets.rs`). Handlers answer errors themselves (the error
//! envelope) so a failed upload never falls through to another route.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Buf;
use foundation::fields::body;
use foundation::model::{Account, StatusObject};
use foundation::public::Lifetime;
use futures_util::{Stream, StreamExt, TryStreamExt};
use pipeline::{Code, Error};
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;
use video::ingest;
use video::ingest::{
    Asset, AssetForm, Base64Upload, CreateVideoJson, CreateVideoRequest, CreateVideoUpload,
    Presigner, UploadAssetReply, UploadAssetRequest, form_field_value,
};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::State;
use crate::errors::error_reply;
use crate::filters::{auth, with_state};
use crate::reply::json_reply;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let path = warp::path!("v1" / "upload_asset").and(warp::post());
    let multipart = path
        .and(content_type_is(|ct| ct.starts_with("multipart/form-data")))
        .and(auth(state.clone()))
        .and(warp::header::optional::<u64>("content-length"))
        .and(warp::multipart::form().max_length(None))
        .and(with_state(state.clone()))
        .then(upload_multipart);
    let json = path
        .and(content_type_is(|ct| {
            ct.starts_with("application/json")
                || (ct.starts_with("application/") && ct.contains("+json"))
        }))
        .and(auth(state.clone()))
        .and(warp::header::optional::<u64>("content-length"))
        .and(warp::body::stream())
        .and(with_state(state.clone()))
        .then(upload_json);
    let other = path.and(auth(state.clone())).map(|_: Account| {
        error_reply(&Error::new(
            Code::InvalidContentType,
            "Send the file as multipart/form-data (field `file`) or JSON (`mode: presign`, or \
             `file_data` in base64 with `filename`).",
        ))
    });
    let put = warp::path!("v1" / "upload_asset" / "put" / String / String)
        .and(warp::put())
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .and(warp::header::optional::<u64>("content-length"))
        .and(warp::body::stream())
        .and(with_state(state))
        .then(presigned_put);
    multipart
        .or(json)
        .unify()
        .or(other)
        .unify()
        .or(put)
        .unify()
        .boxed()
}

/// The multipart form of `POST /v1/create_video` (sources `video_file`, `audio_file`).
pub fn create_multipart(state: Arc<State>) -> BoxedFilter<(Response,)> {
    warp::path!("v1" / "create_video")
        .and(warp::post())
        .and(content_type_is(|ct| ct.starts_with("multipart/form-data")))
        .and(auth(state.clone()))
        .and(warp::header::optional::<String>("idempotency-key"))
        .and(warp::header::optional::<u64>("content-length"))
        .and(warp::multipart::form().max_length(None))
        .and(with_state(state))
        .then(create_video_multipart)
        .boxed()
}

/// Passes requests whose `Content-Type` (lower-cased) satisfies `pred`.
fn content_type_is(
    pred: fn(&str) -> bool,
) -> impl Filter<Extract = (), Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("content-type")
        .and_then(move |ct: Option<String>| async move {
            match ct {
                Some(ct) if pred(ct.trim().to_ascii_lowercase().as_str()) => Ok(()),
                _ => Err(warp::reject::not_found()),
            }
        })
        .untuple_one()
}

fn reply<T: Serialize>(result: Result<T, Error>) -> Response {
    match result {
        Ok(body) => json_reply(StatusCode::OK, &body),
        Err(e) => error_reply(&e),
    }
}

fn upload_failed(e: impl std::fmt::Display) -> Error {
    tracing::error!(error = %e, "storing an upload failed");
    Error::new(
        Code::UploadFailed,
        "The upload could not be stored; try again.",
    )
}

/// A temporary file under `{data_dir}/uploads`, deleted unless it was moved away.
struct TempUpload {
    path: PathBuf,
}

impl TempUpload {
    fn new(data_dir: &Path) -> std::io::Result<TempUpload> {
        let dir = data_dir.join("uploads");
        std::fs::create_dir_all(&dir)?;
        Ok(TempUpload {
            path: dir.join(format!(".{}.part", ingest::folder_token())),
        })
    }
}

impl Drop for TempUpload {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Streams `body` into `file`, failing with `too_large` once more than `max` bytes arrived.
/// Returns the byte count.
async fn stream_to_file<S, B, E>(
    body: S,
    file: &Path,
    max: u64,
    too_large: impl Fn() -> Error,
) -> Result<u64, Error>
where
    S: Stream<Item = Result<B, E>>,
    B: Buf,
    E: std::fmt::Display,
{
    let mut out = tokio::fs::File::create(file).await.map_err(upload_failed)?;
    let mut n: u64 = 0;
    futures_util::pin_mut!(body);
    while let Some(chunk) = body.next().await {
        let mut chunk = chunk.map_err(|e| {
            tracing::info!(error = %e, "upload body ended early");
            Error::new(
                Code::InvalidFileData,
                "The upload ended before the whole file arrived.",
            )
        })?;
        n += chunk.remaining() as u64;
        if n > max {
            return Err(too_large());
        }
        while chunk.has_remaining() {
            let c = chunk.chunk();
            out.write_all(c).await.map_err(upload_failed)?;
            let len = c.len();
            chunk.advance(len);
        }
    }
    out.flush().await.map_err(upload_failed)?;
    out.sync_all().await.map_err(upload_failed)?;
    Ok(n)
}

fn asset_too_large(max: u64) -> Error {
    Error::new(
        Code::AssetTooLarge,
        format!("The file is larger than the upload limit of {max} bytes."),
    )
    .details(json!({ "max_bytes": max }))
}

// ---------------------------------------------------------------- the multipart reader

/// Text fields of a form are small; a larger one is refused so it cannot exhaust memory.
const FORM_TEXT_MAX: usize = 256 * 1024;

/// The one reader of multipart bodies: hands over the parts one at a time, each streamed to a
/// temporary file ([`FormPart::save`]) or read as a small text ([`FormPart::text`]); a part
/// left unread is skipped.
struct FormReader {
    form: warp::multipart::FormData,
    /// Parts handed over so far.
    parts: usize,
}

/// Our forms have a handful of fields; a body of many small parts is refused.
const FORM_PARTS_MAX: usize = 32;

/// One part of a form, not read yet.
struct FormPart {
    part: warp::multipart::Part,
}

fn unreadable(e: warp::Error) -> Error {
    tracing::info!(error = %e, "unreadable multipart body");
    Error::new(
        Code::InvalidFileData,
        "The multipart body could not be read.",
    )
}

impl FormReader {
    fn new(form: warp::multipart::FormData) -> FormReader {
        FormReader { form, parts: 0 }
    }

    async fn next(&mut self) -> Result<Option<FormPart>, Error> {
        let part = self.form.try_next().await.map_err(unreadable)?;
        if part.is_some() {
            self.parts += 1;
            if self.parts > FORM_PARTS_MAX {
                return Err(Error::new(
                    Code::PayloadTooLarge,
                    format!("The form has more than {FORM_PARTS_MAX} parts."),
                ));
            }
        }
        Ok(part.map(|part| FormPart { part }))
    }
}

impl FormPart {
    fn name(&self) -> &str {
        self.part.name()
    }

    fn filename(&self) -> &str {
        self.part.filename().unwrap_or("")
    }

    fn content_type(&self) -> Option<&str> {
        self.part.content_type()
    }

    /// Streams the part into a temporary file under `{data_dir}/uploads`, `too_large` past
    /// `max` bytes. Returns the file and its byte count.
    async fn save(
        self,
        data_dir: &Path,
        max: u64,
        too_large: impl Fn() -> Error,
    ) -> Result<(TempUpload, u64), Error> {
        let tmp = TempUpload::new(data_dir).map_err(upload_failed)?;
        let n = stream_to_file(self.part.stream(), &tmp.path, max, too_large).await?;
        Ok((tmp, n))
    }

    /// The part as UTF-8 text of at most [`FORM_TEXT_MAX`] bytes.
    async fn text(self) -> Result<String, Error> {
        let name = self.part.name().to_string();
        let mut text = Vec::new();
        let stream = self.part.stream();
        futures_util::pin_mut!(stream);
        while let Some(chunk) = stream.next().await {
            let mut chunk = chunk.map_err(unreadable)?;
            if text.len() + chunk.remaining() > FORM_TEXT_MAX {
                return Err(Error::new(
                    Code::PayloadTooLarge,
                    format!("The form field `{name}` is too large."),
                ));
            }
            while chunk.has_remaining() {
                let c = chunk.chunk();
                text.extend_from_slice(c);
                let l = c.len();
                chunk.advance(l);
            }
        }
        String::from_utf8(text).map_err(|_| {
            Error::new(Code::InvalidField, format!("`{name}` is not UTF-8 text.")).param(&name)
        })
    }
}

// ---------------------------------------------------------------- upload_asset

/// `POST /v1/upload_asset`: multipart `file` → asset; JSON `mode: presign` → asset_presign;
/// JSON `file_data` (base64) → asset.
#[utoipa::path(
    post,
    path = "/v1/upload_asset",
    operation_id = "upload_asset",
    tag = "assets",
    request_body(content(
        (AssetForm = "multipart/form-data"),
        (UploadAssetRequest = "application/json"),
    )),
    responses(
        (status = 200, description = "The stored asset (multipart, base64) or a presigned upload URL (presign).", body = UploadAssetReply),
        (status = 400, description = "`invalid_content_type`, `invalid_json`, `missing_field`, `invalid_field`, `invalid_file_data`, `asset_too_large`, `unsupported_asset_type`", body = crate::openapi::ErrorEnvelope),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`", body = crate::openapi::ErrorEnvelope),
        (status = 413, description = "`payload_too_large`", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`upload_failed`, `presign_failed`", body = crate::openapi::ErrorEnvelope),
    ),
    security(("bearer" = [])),
)]
pub(crate) async fn upload_multipart(
    _account: Account,
    declared: Option<u64>,
    form: warp::multipart::FormData,
    state: Arc<State>,
) -> Response {
    let max = state
        .settings
        .section::<video::ingest::MediaConfig>()
        .asset_max_bytes;
    if let Some(refused) = declared_over(declared, max, |n| {
        Error::new(
            Code::AssetTooLarge,
            format!("The body declares {n} bytes; a file may have at most {max}."),
        )
        .details(json!({ "max_bytes": max }))
    }) {
        return refused;
    }
    reply(multipart_inner(FormReader::new(form), &state).await)
}

/// Room for a form's other fields and boundaries beside its file.
const FORM_SLACK: u64 = 1024 * 1024;

/// The refusal of a multipart body whose declared `Content-Length` is over `max_file` bytes and
/// the form's slack, answered before a byte of the body is read: `too_large` (the spec's code
/// for a file over the cap), and the connection closes after it.
fn declared_over(
    declared: Option<u64>,
    max_file: u64,
    too_large: impl FnOnce(u64) -> Error,
) -> Option<Response> {
    let limit = max_file.saturating_add(FORM_SLACK);
    declared
        .filter(|&n| n > limit)
        .map(|n| crate::reply::closing(error_reply(&too_large(n))))
}

async fn multipart_inner(mut form: FormReader, state: &State) -> Result<Asset, Error> {
    let max = state
        .settings
        .section::<video::ingest::MediaConfig>()
        .asset_max_bytes;
    while let Some(part) = form.next().await? {
        if part.name() != "file" {
            continue;
        }
        let filename = part.filename().to_string();
        let kind = ingest::classify(&filename, part.content_type())?;
        let name = ingest::stored_name(&filename, &kind.ext);
        let (tmp, n) = part
            .save(&state.settings.data_dir, max, || asset_too_large(max))
            .await?;
        if n == 0 {
            return Err(Error::new(Code::InvalidFileData, "The file is empty.").param("file"));
        }
        check_media(&tmp.path, &kind, "file").await?;
        let folder = ingest::folder_token();
        let published = state
            .public
            .adopt(
                Lifetime::Asset,
                &format!("{folder}/{name}"),
                &tmp.path,
                SystemTime::now(),
            )
            .map_err(upload_failed)?;
        tracing::info!(bytes = n, url = %published.url, "asset uploaded");
        return Ok(Asset::new(&published, &kind.content_type, &name));
    }
    Err(Error::missing("file"))
}

async fn upload_json<S, B>(
    _account: Account,
    len: Option<u64>,
    body: S,
    state: Arc<State>,
) -> Response
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    reply(json_inner(len, body, &state).await)
}

async fn read_body<S, B>(len: Option<u64>, body: S, limit: u64) -> Result<Vec<u8>, Error>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let too_large = || {
        Error::new(
            Code::PayloadTooLarge,
            format!(
                "The JSON body is larger than {limit} bytes; upload big files as multipart or \
                 with `mode: presign`."
            ),
        )
    };
    if len.is_some_and(|l| l > limit) {
        return Err(too_large());
    }
    let mut buf = Vec::new();
    futures_util::pin_mut!(body);
    while let Some(chunk) = body.next().await {
        let mut chunk = chunk
            .map_err(|_| Error::new(Code::InvalidJson, "The request body could not be read."))?;
        if buf.len() as u64 + chunk.remaining() as u64 > limit {
            return Err(too_large());
        }
        while chunk.has_remaining() {
            let c = chunk.chunk();
            buf.extend_from_slice(c);
            let n = c.len();
            chunk.advance(n);
        }
    }
    Ok(buf)
}

async fn json_inner<S, B>(
    len: Option<u64>,
    body: S,
    state: &State,
) -> Result<UploadAssetReply, Error>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let raw = read_body(
        len,
        body,
        state
            .settings
            .section::<video::ingest::MediaConfig>()
            .json_max_bytes,
    )
    .await?;
    let v: Value = serde_json::from_slice(&raw).map_err(|e| {
        Error::new(
            Code::InvalidJson,
            format!(
                "The request body is not valid JSON (line {}, column {}).",
                e.line(),
                e.column()
            ),
        )
    })?;
    drop(raw);
    match foundation::fields::body::read::<UploadAssetRequest>(&v)? {
        UploadAssetRequest::Presign(req) => {
            ingest::presign(&req, &state.settings, &state.public).map(UploadAssetReply::Presign)
        }
        UploadAssetRequest::Base64(req) => {
            base64_upload(req, state).await.map(UploadAssetReply::Asset)
        }
    }
}

async fn base64_upload(req: Base64Upload, state: &State) -> Result<Asset, Error> {
    let kind = ingest::classify(&req.filename, req.content_type.as_deref())?;
    let name = ingest::stored_name(&req.filename, &kind.ext);
    let bytes = ingest::decode_base64(&req.file_data)?;
    let max = state
        .settings
        .section::<video::ingest::MediaConfig>()
        .asset_max_bytes;
    if bytes.len() as u64 > max {
        return Err(asset_too_large(max));
    }
    let tmp = TempUpload::new(&state.settings.data_dir).map_err(upload_failed)?;
    let path = tmp.path.clone();
    crate::blocking::spawn(move || std::fs::write(path, &bytes))
        .await
        .map_err(upload_failed)?
        .map_err(upload_failed)?;
    check_media(&tmp.path, &kind, "file_data").await?;
    let rel = format!("{}/{name}", ingest::folder_token());
    let published = state
        .public
        .adopt(Lifetime::Asset, &rel, &tmp.path, SystemTime::now())
        .map_err(upload_failed)?;
    Ok(Asset::new(&published, &kind.content_type, &name))
}

/// An uploaded image or clip decoded within limits before it is stored (off the reactor).
async fn check_media(
    path: &Path,
    kind: &ingest::AssetType,
    param: &'static str,
) -> Result<(), Error> {
    let (path, kind) = (path.to_path_buf(), kind.clone());
    crate::blocking::spawn(move || ingest::check_media(&path, &kind, param))
        .await
        .map_err(upload_failed)?
}

// ---------------------------------------------------------------- presigned PUT

/// `PUT /v1/upload_asset/put/{folder}/{name}`: the bytes of a presigned upload (no API key;
/// the signed query authorises it, once).
#[utoipa::path(
    put,
    path = "/v1/upload_asset/put/{folder}/{name}",
    operation_id = "upload_asset_put",
    tag = "assets",
    params(
        ("folder" = String, Path, description = "The asset folder of the presigned URL (32 hex)."),
        ("name" = String, Path, description = "The stored file name of the presigned URL."),
        ("iat" = i64, Query, description = "Issued at (unix seconds)."),
        ("exp" = i64, Query, description = "Expires at (unix seconds)."),
        ("max" = u64, Query, description = "Largest accepted body in bytes."),
        ("sig" = String, Query, description = "The URL's signature."),
    ),
    request_body(content = crate::openapi::Binary, content_type = "application/octet-stream", description = "The file's bytes."),
    responses(
        (status = 200, description = "The stored asset.", body = Asset),
        (status = 400, description = "`presign_invalid`, `presign_expired`, `invalid_file_data`, `asset_too_large`", body = crate::openapi::ErrorEnvelope),
        (status = 409, description = "`presign_used`: each URL takes one upload", body = crate::openapi::ErrorEnvelope),
        (status = 500, description = "`upload_failed`", body = crate::openapi::ErrorEnvelope),
    ),
)]
pub(crate) async fn presigned_put<S, B>(
    folder: String,
    name: String,
    query: String,
    len: Option<u64>,
    body: S,
    state: Arc<State>,
) -> Response
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    reply(put_inner(folder, name, query, len, body, &state).await)
}

async fn put_inner<S, B>(
    folder: String,
    name: String,
    query: String,
    len: Option<u64>,
    body: S,
    state: &State,
) -> Result<Asset, Error>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let presigner = Presigner::open(&state.settings.data_dir).map_err(upload_failed)?;
    let token = presigner.verify(&folder, &name, &query, foundation::time::now())?;
    let max = token.max_bytes;
    if len.is_some_and(|l| l > max) {
        return Err(asset_too_large(max));
    }
    let stored = state
        .public
        .path(&format!("{}/{}", Lifetime::Asset.folder(), token.rel()))
        .map_err(upload_failed)?;
    let claim = presigner.claim(&token, &stored)?;
    let tmp = TempUpload::new(&state.settings.data_dir).map_err(upload_failed)?;
    let n = stream_to_file(body, &tmp.path, max, || asset_too_large(max)).await?;
    if n == 0 {
        return Err(Error::new(Code::InvalidFileData, "The PUT body is empty."));
    }
    let kind = ingest::classify(&name, None)?;
    check_media(&tmp.path, &kind, "body").await?;
    // The asset's lifetime counts from when the URL was issued, as `expires_at` promised.
    let created = UNIX_EPOCH + Duration::from_secs(token.iat.max(0) as u64);
    let published = state
        .public
        .adopt(Lifetime::Asset, &token.rel(), &tmp.path, created)
        .map_err(upload_failed)?;
    claim.keep();
    tracing::info!(bytes = n, url = %published.url, "presigned upload stored");
    Ok(Asset::new(&published, &kind.content_type, &name))
}

// ---------------------------------------------------------------- create_video (multipart)

async fn create_video_multipart(
    account: Account,
    idempotency_key: Option<String>,
    declared: Option<u64>,
    form: warp::multipart::FormData,
    state: Arc<State>,
) -> Response {
    let max = state
        .settings
        .section::<video::ingest::MediaConfig>()
        .upload_max_bytes;
    if let Some(refused) = declared_over(declared, max, |n| {
        Error::new(
            Code::FileTooLarge,
            format!(
                "The body declares {n} bytes; a media file may have at most {} MB.",
                max / (1024 * 1024)
            ),
        )
        .details(json!({ "max_bytes": max }))
    }) {
        return refused;
    }
    match create_inner(&account, idempotency_key, FormReader::new(form), &state).await {
        Ok(status) => json_reply(StatusCode::ACCEPTED, &status),
        Err(e) => error_reply(&e),
    }
}

/// How long `create_video` waits for an upload's duration probe.
const PROBE_WAIT: Duration = Duration::from_secs(15);

/// Extensions kept for stored media uploads (GStreamer typefinds the content anyway).
const MEDIA_EXTS: &[&str] = &[
    "mp3", "wav", "m4a", "aac", "ogg", "opus", "flac", "mp4", "mov", "m4v", "webm", "mkv", "avi",
];

/// A media file of the form, in a temporary file: its field and stored extension.
struct MediaPart {
    field: String,
    tmp: TempUpload,
    ext: String,
}

/// Reads the form: the text fields as the JSON body would carry them, and the one media file.
/// The text fields of a multipart `create_video`: a file source's own form, any other
/// source's JSON form.
fn read_form_fields(source: &str, fields: Map<String, Value>) -> Result<CreateVideoRequest, Error> {
    let fields = Value::Object(fields);
    match source {
        "video_file" | "audio_file" => body::read::<CreateVideoUpload>(&fields),
        _ => body::read::<CreateVideoJson>(&fields),
    }
}

async fn read_create_form(
    mut form: FormReader,
    state: &State,
) -> Result<(Map<String, Value>, Option<MediaPart>), Error> {
    let max = state
        .settings
        .section::<video::ingest::MediaConfig>()
        .upload_max_bytes;
    let mut body = Map::new();
    let mut media: Option<MediaPart> = None;
    while let Some(part) = form.next().await? {
        let name = part.name().to_string();
        if name != "video_file" && name != "audio_file" {
            let text = part.text().await?;
            body.insert(name.clone(), form_field_value(&name, &text));
            continue;
        }
        if media.is_some() {
            return Err(Error::new(
                Code::InvalidField,
                "Send one media file: `video_file` or `audio_file`.",
            )
            .param(name));
        }
        let ext = ingest::extension(part.filename())
            .filter(|e| MEDIA_EXTS.contains(&e.as_str()))
            .unwrap_or_else(|| "media".into());
        let too_large = || {
            Error::new(
                Code::FileTooLarge,
                format!("`{name}` is larger than {} MB.", max / (1024 * 1024)),
            )
            .param(name.clone())
            .details(json!({ "max_bytes": max }))
        };
        let (tmp, n) = part.save(&state.settings.data_dir, max, too_large).await?;
        if n == 0 {
            return Err(Error::new(Code::MissingField, format!("`{name}` is empty.")).param(name));
        }
        media = Some(MediaPart {
            field: name,
            tmp,
            ext,
        });
    }
    Ok((body, media))
}

/// An upload moved to `uploads/` and probed.
struct StoredMedia {
    /// Relative to the data directory.
    rel: String,
    path: PathBuf,
    decodable: Option<bool>,
}

/// Moves the media file into `uploads/` and probes it (duration cap, decodability).
async fn store_media(media: MediaPart, state: &State) -> Result<StoredMedia, Error> {
    let settings = &state.settings;
    let rel = format!("uploads/{}.{}", ingest::folder_token(), media.ext);
    let path = settings.data_dir.join(&rel);
    std::fs::rename(&media.tmp.path, &path).map_err(upload_failed)?;
    let max_secs = settings
        .section::<video::ingest::MediaConfig>()
        .max_duration_secs;
    let probe_path = path.clone();
    let field = media.field;
    let probe =
        crate::blocking::spawn(move || video::ingest::probe_upload(&probe_path, max_secs, &field));
    // Reading a container's headers is quick; a file that keeps the demuxer busy
    // longer is left for the job to judge (it fails there, with a clear error).
    let decodable = match tokio::time::timeout(PROBE_WAIT, probe).await {
        Ok(Ok(Ok(duration))) => Some(duration.is_some()),
        Ok(Ok(Err(e))) => {
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        Ok(Err(e)) => return Err(upload_failed(e)),
        Err(_) => None,
    };
    Ok(StoredMedia {
        rel,
        path,
        decodable,
    })
}

async fn create_inner(
    account: &Account,
    idempotency_key: Option<String>,
    form: FormReader,
    state: &State,
) -> Result<StatusObject, Error> {
    let (mut body, media) = read_create_form(form, state).await?;
    let source = match body.get("source").and_then(Value::as_str) {
        Some(s) => s.to_string(),
        None => match &media {
            Some(m) => m.field.clone(),
            None => "text".into(),
        },
    };
    body.insert("source".into(), Value::String(source.clone()));
    let stored = match (&source[..], media) {
        ("video_file" | "audio_file", Some(m)) if m.field == source => {
            Some(store_media(m, state).await?)
        }
        ("video_file" | "audio_file", _) => return Err(Error::missing(&source)),
        _ => None,
    };
    let upload = stored.as_ref().map(|m| video::ingest::Upload {
        file: m.rel.clone(),
        decodable: m.decodable,
    });
    let read = read_form_fields(&source, body).and_then(|mut req| {
        pipeline::plan::fill_from_plan(&state.store, &account.name, &mut req)?;
        Ok(req)
    });
    let validated = match read {
        Ok(req) => {
            video::ingest::validate_create_video(req, &state.settings, &state.fetcher, upload).await
        }
        Err(e) => Err(e),
    };
    let accepted = match validated {
        Ok(a) => a,
        Err(e) => {
            if let Some(m) = &stored {
                let _ = std::fs::remove_file(&m.path);
            }
            return Err(e);
        }
    };
    let job = state
        .engine
        .create_video(&account.name, accepted, idempotency_key)?;
    tracing::info!(topic = %job.topic_id, account = %account.name, "video job accepted (multipart)");
    Ok(job.status_object())
}
