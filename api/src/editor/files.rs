//! The editor app's built files (`assets/editor`, built by `make editor`), embedded in the
//! binary by `include_dir!` from the folder `api/build.rs` chose: the real build, or a
//! placeholder that tells how to make one.

use include_dir::{Dir, include_dir};
use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::errors::reject;

static DIST: Dir<'static> = include_dir!("$EDITOR_DIST");

/// Whether the binary carries the built app (not the placeholder).
pub(crate) const BUILT: bool = matches!(env!("EDITOR_BUILT").as_bytes(), b"1");

fn mime(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        Some("map") | Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// A short version of the embedded files, for cache-busting their URLs.
pub(crate) fn version() -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in DIST.files() {
        f.path().hash(&mut h);
        f.contents().hash(&mut h);
    }
    format!("{:x}", h.finish() & 0xffff_ffff)
}

/// One of the app's files (no auth: the app itself holds no data).
#[utoipa::path(
    get,
    path = "/app/editor/assets/{file}",
    operation_id = "editor_file",
    tag = "review",
    params(("file" = String, Path, description = "`editor.js` or `editor.css`.")),
    responses(
        (status = 200, description = "The file.", content_type = "text/javascript", body = String),
        (status = 404, description = "`route_not_found`: no such file."),
    ),
)]
pub(crate) fn editor_file(file: String) -> Result<Response, Rejection> {
    let Some(f) = DIST.get_file(&file) else {
        return Err(reject(pipeline::Error::new(
            pipeline::Code::RouteNotFound,
            "No editor file has this name.",
        )));
    };
    let mut resp = Response::new(f.contents().to_vec().into());
    *resp.status_mut() = StatusCode::OK;
    let h = resp.headers_mut();
    h.insert(
        warp::http::header::CONTENT_TYPE,
        HeaderValue::from_static(mime(&file)),
    );
    h.insert(
        warp::http::header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    Ok(crate::reply::tag(resp))
}

pub(super) fn route() -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("app" / "editor" / "assets" / String)
        .and(warp::get())
        .and_then(|file: String| async move { editor_file(file) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Built or not (`make editor`), the binary carries the app's two files.
    #[test]
    fn the_app_files_are_embedded_with_their_types() {
        for (name, mime) in [
            ("editor.js", "text/javascript; charset=utf-8"),
            ("editor.css", "text/css; charset=utf-8"),
        ] {
            let resp = editor_file(name.into()).expect("embedded");
            assert_eq!(resp.headers()["content-type"], mime);
        }
        assert!(editor_file("../Cargo.toml".into()).is_err());
        assert!(version().len() <= 8);
    }
}
