//! The render task (steps 6–7): a stored video document becomes the MP4 published under
//! `{origin_url}/videos`.

use std::time::Duration;

use foundation::document::VideoDocument;
use foundation::error::Code;
use foundation::files;
use foundation::ids;
use foundation::jobs::{Engine, JobFailure, RENDER_START, Rendered};
use foundation::model::Job;

/// Steps 6–7: render the MP4 and publish it under `{origin_url}`; returns its public URL and
/// the fingerprint of the document it shows (recorded by the engine with the state change).
/// Each render publishes under a fresh name, so a re-render never changes a file a client
/// may be reading.
pub fn render(
    engine: &Engine,
    job: &Job,
    farm: Option<&dyn crate::render::chunks::Offload>,
) -> Result<Rendered, JobFailure> {
    let settings = &engine.settings;
    let topic = &job.topic_id;
    let doc: VideoDocument = engine
        .store
        .document(topic)
        .map_err(JobFailure::from)?
        .ok_or_else(|| JobFailure::new(Code::RenderFailed, "The video has no scenes to render."))?;
    let document = doc.fingerprint();
    engine.set_progress(topic, 6, RENDER_START, Some("Rendering the video"));
    let dir = settings.video_dir(topic);
    let out_tmp = dir.join("render.mp4");
    let engine_ref = engine;
    let mut last = std::time::Instant::now();
    let rendered = crate::render::plan::render_document_on(
        settings,
        &doc,
        &dir,
        &out_tmp,
        farm,
        &mut |done, total| {
            if last.elapsed() >= Duration::from_millis(500) || done == total {
                last = std::time::Instant::now();
                let p =
                    RENDER_START + (1.0 - RENDER_START) * 0.99 * done as f64 / total.max(1) as f64;
                engine_ref.set_progress(topic, 6, p, Some("Rendering the video"));
            }
        },
    );
    if let Err(failure) = rendered {
        return Err(render_failed(&dir, &out_tmp, failure));
    }
    // Publish: an unguessable, stable name under public/videos.
    let public = settings.public_dir().join("videos");
    std::fs::create_dir_all(&public).map_err(JobFailure::internal)?;
    let name = format!("{topic}_{}.mp4", ids::file_token());
    std::fs::rename(&out_tmp, public.join(&name)).map_err(JobFailure::internal)?;
    Ok(Rendered {
        video_url: format!(
            "{}{}{name}",
            settings.origin_url,
            foundation::link_bases::VIDEOS_PATH
        ),
        document,
    })
}

/// A failed render leaves no partial MP4 behind (it may be what filled the disk), and a full
/// disk is said plainly.
fn render_failed(
    dir: &std::path::Path,
    partial: &std::path::Path,
    failure: JobFailure,
) -> JobFailure {
    let full = files::disk_nearly_full(dir);
    let _ = std::fs::remove_file(partial);
    if !full {
        return failure;
    }
    let cause = failure.cause.unwrap_or(failure.message);
    JobFailure::new(
        Code::RenderFailed,
        "The server ran out of disk space while rendering the video; export it again later.",
    )
    .because(cause)
}
