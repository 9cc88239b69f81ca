//! `POST /v1/upload_asset` (multipart, presign, base64), the presigned
//! `PUT /v1/upload_asset/put/{folder}/{name}`, and the multipart form of `create_video`
//! (`video_file`/`audio_file`).
//!
//! Uploads are streamed to a temporary file under `{data_dir}/uploads` (never held whole in
//! memory), counted against their cap as they arrive, then moved into place on the public
//! origin with [`PublicFiles::adopt`](pipeline::core::public::PublicFiles::adopt). Names, types and
//! presign tokens come from [`pipeline::ingest::assets`]. Handlers answer errors themselves (the error
//! envelope) so a failed upload never falls through to another route.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Buf;
use futures_util::{Stream, StreamExt, TryStreamExt};
use pipeline::core::model::Account;
use pipeline::core::public::Lifetime;
use pipeline::ingest::assets::{self, Presigner};
use pipeline::{Code, Error};
use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::State;
use crate::errors::error_reply;
use crate::filters::{auth, with_state};
use crate::reply::with_request_id;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let path = warp::path!("v1" / "upload_asset").and(warp::post());
    let multipart = path
        .and(content_type_is(|ct| ct.starts_with("multipart/form-data")))
        .and(auth(state.clone()))
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

fn reply(result: Result<(StatusCode, Value), Error>) -> Response {
    match result {
        Ok((status, body)) => with_request_id(status, body),
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
            path: dir.join(format!(".{}.part", assets::folder_token())),
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

fn ttl_hours(secs: u64) -> Value {
    if secs.is_multiple_of(3600) {
        json!(secs / 3600)
    } else {
        json!(secs as f64 / 3600.0)
    }
}

fn asset_body(p: &pipeline::core::public::Published, content_type: &str, filename: &str) -> Value {
    json!({
        "object": "asset",
        "url": p.url,
        "content_type": content_type,
        "size_bytes": p.bytes,
        "filename": filename,
        "expires_at": p.expires_at_iso(),
        "ttl_hours": ttl_hours(p.ttl_seconds),
    })
}

// ---------------------------------------------------------------- multipart

async fn upload_multipart(
    _account: Account,
    form: warp::multipart::FormData,
    state: Arc<State>,
) -> Response {
    reply(multipart_inner(form, &state).await)
}

async fn multipart_inner(
    mut form: warp::multipart::FormData,
    state: &State,
) -> Result<(StatusCode, Value), Error> {
    let max = state.settings.media.asset_max_bytes;
    let unreadable = |e: warp::Error| {
        tracing::info!(error = %e, "unreadable multipart body");
        Error::new(
            Code::InvalidFileData,
            "The multipart body could not be read.",
        )
    };
    while let Some(part) = form.try_next().await.map_err(unreadable)? {
        if part.name() != "file" {
            continue;
        }
        let filename = part.filename().unwrap_or("").to_string();
        let kind = assets::classify(&filename, part.content_type())?;
        let name = assets::stored_name(&filename, &kind.ext);
        let tmp = TempUpload::new(&state.settings.data_dir).map_err(upload_failed)?;
        let n = stream_to_file(part.stream(), &tmp.path, max, || asset_too_large(max)).await?;
        if n == 0 {
            return Err(Error::new(Code::InvalidFileData, "The file is empty.").param("file"));
        }
        let folder = assets::folder_token();
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
        return Ok((
            StatusCode::OK,
            asset_body(&published, &kind.content_type, &name),
        ));
    }
    Err(Error::missing("file"))
}

// ---------------------------------------------------------------- JSON

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

fn opt_string<'a>(o: &'a Map<String, Value>, field: &str) -> Result<Option<&'a str>, Error> {
    match o.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim())),
        Some(_) => {
            Err(Error::new(Code::InvalidField, format!("`{field}` must be a string.")).param(field))
        }
    }
}

async fn json_inner<S, B>(
    len: Option<u64>,
    body: S,
    state: &State,
) -> Result<(StatusCode, Value), Error>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let raw = read_body(len, body, state.settings.media.json_max_bytes).await?;
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
    let Some(o) = v.as_object() else {
        return Err(Error::new(
            Code::InvalidJson,
            "The request body must be a JSON object.",
        ));
    };
    match opt_string(o, "mode")? {
        Some(m) if m.eq_ignore_ascii_case("presign") => presign(o, state),
        Some(_) => Err(Error::new(
            Code::InvalidField,
            "`mode` must be `presign` (or omitted, with `file_data`).",
        )
        .param("mode")),
        None => base64_upload(o, state).await,
    }
}

fn presign(o: &Map<String, Value>, state: &State) -> Result<(StatusCode, Value), Error> {
    let filename = opt_string(o, "filename")?.ok_or_else(|| Error::missing("filename"))?;
    let kind = assets::classify(filename, opt_string(o, "content_type")?)?;
    let name = assets::stored_name(filename, &kind.ext);
    let settings = &state.settings;
    let presigner = Presigner::open(&settings.data_dir).map_err(|e| {
        tracing::error!(error = %e, "presign key unavailable");
        Error::new(
            Code::PresignFailed,
            "An upload URL could not be created; try again.",
        )
    })?;
    presigner.sweep_claims(settings.media.presign_ttl_secs + 3600);
    let iat = pipeline::core::time::now();
    let token = assets::PresignToken {
        folder: assets::folder_token(),
        name: name.clone(),
        iat,
        exp: iat + settings.media.presign_ttl_secs as i64,
        max_bytes: settings.media.asset_max_bytes,
    };
    let key = format!("{}/{}", Lifetime::Asset.folder(), token.rel());
    let url = state.public.url(&key);
    let ttl = state.public.ttl(Lifetime::Asset).as_secs();
    Ok((
        StatusCode::OK,
        json!({
            "object": "asset_presign",
            "put_url": format!(
                "{}/v1/upload_asset/put/{}?{}",
                settings.base_url,
                token.rel(),
                presigner.query(&token)
            ),
            "get_url": url,
            "url": url,
            "key": key,
            "content_type": kind.content_type,
            "filename": name,
            "headers_required": {},
            "max_bytes": token.max_bytes,
            "put_expires_at": pipeline::core::time::iso(token.exp),
            "expires_at": pipeline::core::time::iso(iat + ttl as i64),
            "ttl_hours": ttl_hours(ttl),
        }),
    ))
}

async fn base64_upload(
    o: &Map<String, Value>,
    state: &State,
) -> Result<(StatusCode, Value), Error> {
    let data = match o.get("file_data") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.as_str(),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            return Err(Error::missing("file_data"));
        }
        Some(_) => {
            return Err(Error::new(
                Code::InvalidFileData,
                "`file_data` must be a base64 string.",
            )
            .param("file_data"));
        }
    };
    let filename = opt_string(o, "filename")?.ok_or_else(|| Error::missing("filename"))?;
    let kind = assets::classify(filename, opt_string(o, "content_type")?)?;
    let name = assets::stored_name(filename, &kind.ext);
    let bytes = assets::decode_base64(data)?;
    let max = state.settings.media.asset_max_bytes;
    if bytes.len() as u64 > max {
        return Err(asset_too_large(max));
    }
    let public = state.public.clone();
    let rel = format!("{}/{name}", assets::folder_token());
    let published =
        tokio::task::spawn_blocking(move || public.write(Lifetime::Asset, &rel, &bytes))
            .await
            .map_err(upload_failed)?
            .map_err(upload_failed)?;
    Ok((
        StatusCode::OK,
        asset_body(&published, &kind.content_type, &name),
    ))
}

// ---------------------------------------------------------------- presigned PUT

async fn presigned_put<S, B>(
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
) -> Result<(StatusCode, Value), Error>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let presigner = Presigner::open(&state.settings.data_dir).map_err(upload_failed)?;
    let token = presigner.verify(&folder, &name, &query, pipeline::core::time::now())?;
    let max = token.max_bytes;
    if len.is_some_and(|l| l > max) {
        return Err(asset_too_large(max));
    }
    let claim = presigner.claim(&token)?;
    let tmp = TempUpload::new(&state.settings.data_dir).map_err(upload_failed)?;
    let n = stream_to_file(body, &tmp.path, max, || asset_too_large(max)).await?;
    if n == 0 {
        return Err(Error::new(Code::InvalidFileData, "The PUT body is empty."));
    }
    let kind = assets::classify(&name, None)?;
    // The asset's lifetime counts from when the URL was issued, as `expires_at` promised.
    let created = UNIX_EPOCH + Duration::from_secs(token.iat.max(0) as u64);
    let published = state
        .public
        .adopt(Lifetime::Asset, &token.rel(), &tmp.path, created)
        .map_err(upload_failed)?;
    claim.keep();
    tracing::info!(bytes = n, url = %published.url, "presigned upload stored");
    Ok((
        StatusCode::OK,
        asset_body(&published, &kind.content_type, &name),
    ))
}

// ---------------------------------------------------------------- create_video (multipart)

async fn create_video_multipart(
    account: Account,
    idempotency_key: Option<String>,
    form: warp::multipart::FormData,
    state: Arc<State>,
) -> Response {
    match create_inner(&account, idempotency_key, form, &state).await {
        Ok(resp) => resp,
        Err(e) => error_reply(&e),
    }
}

/// Fields that are JSON values, not strings, in a multipart `create_video`.
const JSON_FIELDS: &[&str] = &[
    "faceless",
    "wait_for_render",
    "research_enabled",
    "script_approved",
    "metadata",
];

fn field_value(name: &str, text: &str) -> Value {
    let t = text.trim();
    let json_like = JSON_FIELDS.contains(&name) || (name == "adjust" && t.starts_with('{'));
    if json_like && let Ok(v) = serde_json::from_str::<Value>(t) {
        return v;
    }
    Value::String(text.to_string())
}

/// How long `create_video` waits for an upload's duration probe.
const PROBE_WAIT: Duration = Duration::from_secs(15);

/// Extensions kept for stored media uploads (GStreamer typefinds the content anyway).
const MEDIA_EXTS: &[&str] = &[
    "mp3", "wav", "m4a", "aac", "ogg", "opus", "flac", "mp4", "mov", "m4v", "webm", "mkv", "avi",
];

async fn create_inner(
    account: &Account,
    idempotency_key: Option<String>,
    mut form: warp::multipart::FormData,
    state: &State,
) -> Result<Response, Error> {
    let settings = &state.settings;
    let max = settings.media.upload_max_bytes;
    let mut body = Map::new();
    let mut upload: Option<(String, TempUpload, String)> = None;
    let unreadable = |e: warp::Error| {
        tracing::info!(error = %e, "unreadable multipart body");
        Error::new(
            Code::InvalidFileData,
            "The multipart body could not be read.",
        )
    };
    while let Some(part) = form.try_next().await.map_err(unreadable)? {
        let name = part.name().to_string();
        if name == "video_file" || name == "audio_file" {
            if upload.is_some() {
                return Err(Error::new(
                    Code::InvalidField,
                    "Send one media file: `video_file` or `audio_file`.",
                )
                .param(name));
            }
            let ext = assets::extension(part.filename().unwrap_or(""))
                .filter(|e| MEDIA_EXTS.contains(&e.as_str()))
                .unwrap_or_else(|| "media".into());
            let tmp = TempUpload::new(&settings.data_dir).map_err(upload_failed)?;
            let field = name.clone();
            let n = stream_to_file(part.stream(), &tmp.path, max, || {
                Error::new(
                    Code::FileTooLarge,
                    format!("`{field}` is larger than {} MB.", max / (1024 * 1024)),
                )
                .param(field.clone())
                .details(json!({ "max_bytes": max }))
            })
            .await?;
            if n == 0 {
                return Err(
                    Error::new(Code::MissingField, format!("`{name}` is empty.")).param(name),
                );
            }
            upload = Some((name, tmp, ext));
            continue;
        }
        // Text fields are small; cap them so a huge one cannot exhaust memory.
        let mut text = Vec::new();
        let stream = part.stream();
        futures_util::pin_mut!(stream);
        while let Some(chunk) = stream.next().await {
            let mut chunk = chunk.map_err(unreadable)?;
            if text.len() + chunk.remaining() > 256 * 1024 {
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
        let text = String::from_utf8(text).map_err(|_| {
            Error::new(Code::InvalidField, format!("`{name}` is not UTF-8 text.")).param(&name)
        })?;
        body.insert(name.clone(), field_value(&name, &text));
    }

    let source = match body.get("source").and_then(Value::as_str) {
        Some(s) => s.to_string(),
        None => match &upload {
            Some((field, _, _)) => field.clone(),
            None => "text".into(),
        },
    };
    body.insert("source".into(), Value::String(source.clone()));
    let stored = match (&source[..], upload) {
        ("video_file" | "audio_file", Some((field, tmp, ext))) if field == source => {
            let rel = format!("uploads/{}.{ext}", assets::folder_token());
            let path = settings.data_dir.join(&rel);
            std::fs::rename(&tmp.path, &path).map_err(upload_failed)?;
            let max_secs = settings.media.max_duration_secs;
            let probe_path = path.clone();
            let field2 = field.clone();
            let probe = tokio::task::spawn_blocking(move || {
                pipeline::ingest::media_source::probe_upload(&probe_path, max_secs, &field2)
            });
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
            Some((rel, path, decodable))
        }
        ("video_file" | "audio_file", _) => return Err(Error::missing(&source)),
        _ => None,
    };
    let accepted = pipeline::ingest::create::validate_with_upload(
        &Value::Object(body),
        settings.mode,
        &state.fetcher,
        stored
            .as_ref()
            .map(|(rel, _, decodable)| pipeline::ingest::create::Upload {
                file: rel.clone(),
                decodable: *decodable,
            }),
    )
    .await;
    let accepted = match accepted {
        Ok(a) => a,
        Err(e) => {
            if let Some((_, path, _)) = &stored {
                let _ = std::fs::remove_file(path);
            }
            return Err(e);
        }
    };
    let job = state
        .engine
        .create_video(&account.name, accepted, idempotency_key)?;
    tracing::info!(topic = %job.topic_id, account = %account.name, "video job accepted (multipart)");
    Ok(with_request_id(StatusCode::ACCEPTED, job.status_object()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_fields_become_json_where_the_json_body_has_json() {
        assert_eq!(field_value("faceless", "true"), json!(true));
        assert_eq!(field_value("metadata", "{\"a\":1}"), json!({"a": 1}));
        assert_eq!(
            field_value("adjust", "{\"mode\":\"denoise\"}"),
            json!({"mode": "denoise"})
        );
        assert_eq!(field_value("adjust", "normalize"), json!("normalize"));
        assert_eq!(field_value("output_type", "video"), json!("video"));
        // Not JSON stays a string, so validation names the field.
        assert_eq!(field_value("faceless", "maybe"), json!("maybe"));
        assert_eq!(ttl_hours(86400), json!(24));
        assert_eq!(ttl_hours(1800), json!(0.5));
    }
}
