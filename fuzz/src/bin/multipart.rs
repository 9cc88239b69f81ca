//! The multipart reader: a `multipart/form-data` body (boundary `fuzzb`) through warp's form
//! parser as the upload routes configure it, every part read to its end, and each part handed
//! to what we do with it: an upload's `file` to `assets::classify` and `stored_name`, a
//! create_video media part's name to `assets::extension`, its text fields to
//! `form_field_value` and, together, to the reader the route picks by `source`
//! (`CreateVideoUpload` for a file, else `CreateVideoJson`).

use bytes::Buf;
use foundation::fields::body;
use futures_util::{StreamExt, TryStreamExt};
use serde_json::{Map, Value};
use video::ingest;
use video::ingest::{CreateVideoJson, CreateVideoUpload, form_field_value};

/// The largest part body read in full (the server streams files to disk; the target keeps
/// memory small).
const PART_MAX: usize = 64 * 1024;

async fn parts(data: &[u8]) {
    let form = warp::multipart::form().max_length(None);
    let Ok(mut form) = warp::test::request()
        .method("POST")
        .header("content-type", "multipart/form-data; boundary=fuzzb")
        .body(data.to_vec())
        .filter(&form)
        .await
    else {
        return;
    };
    let mut fields = Map::new();
    while let Ok(Some(part)) = form.try_next().await {
        let name = part.name().to_string();
        let filename = part.filename().unwrap_or("").to_string();
        let content_type = part.content_type().map(str::to_string);
        let mut body = Vec::new();
        let stream = part.stream();
        futures_util::pin_mut!(stream);
        while let Some(Ok(mut chunk)) = stream.next().await {
            while chunk.has_remaining() && body.len() < PART_MAX {
                let c = chunk.chunk();
                let n = c.len().min(PART_MAX - body.len());
                body.extend_from_slice(&c[..n]);
                chunk.advance(n);
            }
        }
        match name.as_str() {
            "file" => {
                if let Ok(kind) = ingest::classify(&filename, content_type.as_deref()) {
                    let stored = ingest::stored_name(&filename, &kind.ext);
                    assert!(!stored.contains('/'), "a stored name with a path");
                }
            }
            "video_file" | "audio_file" => {
                let _ = ingest::extension(&filename);
            }
            _ => {
                if let Ok(text) = String::from_utf8(body) {
                    fields.insert(name.clone(), form_field_value(&name, &text));
                }
            }
        }
    }
    let fields = Value::Object(fields);
    let _ = match fields.get("source").and_then(Value::as_str) {
        Some("video_file" | "audio_file") => body::read::<CreateVideoUpload>(&fields).is_ok(),
        _ => body::read::<CreateVideoJson>(&fields).is_ok(),
    };
}

fn main() {
    afl::fuzz!(|data: &[u8]| {
        reelsmith_fuzz::RUNTIME.block_on(parts(data));
    });
}
