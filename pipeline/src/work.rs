//! The work behind each task: building scenes (steps 2–5) and rendering the
//! MP4 (steps 6–7). Runs on blocking threads; async I/O (media fetching)
//! goes through the runtime handle.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::config::Settings;
use crate::document::{Background, CAPTION_RECT, NARRATOR_RECT, Segment, VideoDocument, Word};
use crate::error::Code;
use crate::fetch::Fetcher;
use crate::jobs::{Engine, JobFailure, RENDER_START};
use crate::model::{Job, Language, OutputType, Source};
use crate::voice::{VoiceProvider, write_wav};
use crate::{ids, script, writer};

/// Largest inline media file fetched for a scene.
const INLINE_MEDIA_MAX_BYTES: u64 = 50 * 1024 * 1024;

/// Providers and paths the work needs.
pub struct Context {
    pub voice: Arc<dyn VoiceProvider>,
    pub fetcher: Fetcher,
    pub runtime: tokio::runtime::Handle,
}

/// Where a video's files live: `{data_dir}/videos/{topic}`.
pub fn video_dir(settings: &Settings, topic: &str) -> PathBuf {
    settings.data_dir.join("videos").join(topic)
}

/// The public media folder served under `{origin_url}`.
pub fn public_dir(settings: &Settings) -> PathBuf {
    settings.data_dir.join("public")
}

fn failure(code: Code, message: impl Into<String>) -> JobFailure {
    JobFailure::new(code, message)
}

fn io_failure(e: std::io::Error) -> JobFailure {
    JobFailure::new(Code::Internal, e.to_string())
}

/// Steps 2–5: narration, voice, media, scenes.
pub fn build(engine: &Engine, job: &Job) -> Result<(), JobFailure> {
    let settings = &engine.settings;
    let ctx = &engine.work;
    let topic = &job.topic_id;
    let total_build = if job.output_type == OutputType::Video {
        RENDER_START
    } else {
        1.0
    };

    // Step 2: the narration script.
    engine.set_progress(topic, 2, 0.05 * total_build, Some("Writing the script"));
    let input = job.request.text.clone().unwrap_or_default();
    let narration = match job.request.source {
        Source::Text => input,
        Source::Idea | Source::Blog => {
            writer::narrate(&input, writer::target_words(job.request.video_length))
        }
        Source::VideoUrl | Source::VideoFile | Source::AudioUrl | Source::AudioFile => {
            return crate::media_source::build(engine, job);
        }
    };
    let drafts = script::split_script(&narration);
    if drafts.is_empty() {
        return Err(failure(
            Code::SceneBuildFailed,
            "The script has no spoken words.",
        ));
    }
    let language = match job.request.language {
        Language::English => "English",
        Language::Vietnamese => "Vietnamese",
    };
    let voice_id = match job.request.language {
        Language::English => "en-us",
        Language::Vietnamese => "vi",
    };
    let dir = video_dir(settings, topic);
    std::fs::create_dir_all(&dir).map_err(io_failure)?;

    let mut segments: Vec<Segment> = drafts
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let keyword = writer::keyword(&d.text);
            let roll = if job.request.faceless || i % 2 == 1 {
                "B-roll"
            } else {
                "A-roll"
            };
            Segment {
                voice_file: format!("v{}", ids::file_token()),
                id: i as u32 + 1,
                roll: roll.into(),
                talking_point: writer::title(&d.text),
                visual: String::new(),
                quote: String::new(),
                pattern: String::new(),
                duration: 0.0,
                audio_file: String::new(),
                words: Vec::new(),
                background: Background::Procedural {
                    style: PROCEDURAL_STYLES[i % PROCEDURAL_STYLES.len()].into(),
                    seed: seed_of(&keyword),
                },
                keyword,
                text: d.text.clone(),
                media_url: String::new(),
                media_type: String::new(),
                caption_rect: CAPTION_RECT,
                narrator_rect: NARRATOR_RECT,
                ..Default::default()
            }
        })
        .collect();

    let mut doc = VideoDocument {
        topic_id: topic.clone(),
        title: writer::title(&narration),
        language: language.into(),
        faceless: job.request.faceless,
        script: narration.clone(),
        segments: Vec::new(),
        voice_id: voice_id.into(),
        public_key: ids::file_token(),
    };

    if job.output_type != OutputType::Text {
        // Step 3: voice, scene by scene.
        let n = segments.len();
        for (i, seg) in segments.iter_mut().enumerate() {
            let narration = ctx.voice.synthesize(&seg.text, voice_id).map_err(|e| {
                failure(
                    Code::SceneBuildFailed,
                    format!("Voice synthesis failed: {e}"),
                )
            })?;
            let file = format!("{}.wav", seg.voice_file);
            write_wav(&dir.join(&file), &narration).map_err(io_failure)?;
            seg.duration = narration.duration();
            seg.audio_file = file;
            seg.words = narration
                .words
                .iter()
                .map(|w| Word {
                    word: w.word.clone(),
                    start: w.start,
                    end: w.end,
                })
                .collect();
            let p = 0.1 + 0.6 * (i + 1) as f64 / n as f64;
            engine.set_progress(topic, 3, p * total_build, Some("Recording the narration"));
        }

        // Step 4: media. Inline media from the script wins over B-roll.
        engine.set_progress(topic, 4, 0.75 * total_build, Some("Choosing the visuals"));
        for (seg, draft) in segments.iter_mut().zip(&drafts) {
            let Some(media) = &draft.media else { continue };
            if media.kind != script::MediaKind::Image {
                // Video clips as backgrounds arrive with the media work;
                // keep the link so the editor shows it.
                seg.media_url = media.url.clone();
                seg.media_type = "video".into();
                continue;
            }
            let file = fetch_image(ctx, &dir, &seg.voice_file, &media.url)?;
            seg.background = Background::Image { file };
            seg.media_url = media.url.clone();
            seg.media_type = "image".into();
            if let Some(alt) = &media.alt {
                seg.visual = alt.clone();
            }
        }
    }

    doc.segments = segments;
    // Step 5: scenes ready (the job's state change is recorded by the engine).
    engine
        .store
        .write(|tx| tx.put_document(topic, &doc))
        .map_err(JobFailure::from)?;
    Ok(())
}

/// Procedural background looks, cycled through scenes.
const PROCEDURAL_STYLES: &[&str] = &["gradient", "grid", "bokeh"];

fn seed_of(s: &str) -> u64 {
    // FNV-1a: stable across runs and platforms.
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

fn fetch_image(ctx: &Context, dir: &Path, stem: &str, url: &str) -> Result<String, JobFailure> {
    let resp = ctx
        .runtime
        .block_on(
            ctx.fetcher
                .get(url, INLINE_MEDIA_MAX_BYTES, Duration::from_secs(60)),
        )
        .map_err(|e| {
            failure(
                Code::MediaFetchFailed,
                format!("Could not fetch inline media {url}: {e}"),
            )
        })?;
    let ext = match sniff_image(&resp.body) {
        Some(ext) => ext,
        None => {
            return Err(failure(
                Code::MediaFetchFailed,
                format!("Inline media {url} is not a PNG, JPEG or WebP image."),
            ));
        }
    };
    let file = format!("{stem}_media.{ext}");
    let tmp = dir.join(format!(".{file}.tmp"));
    std::fs::write(&tmp, &resp.body).map_err(io_failure)?;
    std::fs::rename(&tmp, dir.join(&file)).map_err(io_failure)?;
    Ok(file)
}

/// The image type by magic bytes; the URL's extension is never trusted.
fn sniff_image(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if b.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("jpg")
    } else if b.len() > 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        Some("webp")
    } else {
        None
    }
}

/// Steps 6–7: render the MP4 and publish it under `{origin_url}`; returns
/// its public URL (recorded by the engine with the state change).
pub fn render(engine: &Engine, job: &Job) -> Result<String, JobFailure> {
    let settings = &engine.settings;
    let topic = &job.topic_id;
    let doc: VideoDocument = engine
        .store
        .document(topic)
        .map_err(JobFailure::from)?
        .ok_or_else(|| failure(Code::RenderFailed, "The video has no scenes to render."))?;
    engine.set_progress(topic, 6, RENDER_START, Some("Rendering the video"));
    let dir = video_dir(settings, topic);
    let out_tmp = dir.join("render.mp4");
    let engine_ref = engine;
    let mut last = std::time::Instant::now();
    crate::render::render_document(settings, &doc, &dir, &out_tmp, &mut |done, total| {
        if last.elapsed() >= Duration::from_millis(500) || done == total {
            last = std::time::Instant::now();
            let p = RENDER_START + (1.0 - RENDER_START) * 0.99 * done as f64 / total.max(1) as f64;
            engine_ref.set_progress(topic, 6, p, Some("Rendering the video"));
        }
    })?;
    // Publish: an unguessable, stable name under public/videos.
    let public = public_dir(settings).join("videos");
    std::fs::create_dir_all(&public).map_err(io_failure)?;
    let name = format!("{topic}_{}.mp4", ids::file_token());
    std::fs::rename(&out_tmp, public.join(&name)).map_err(io_failure)?;
    Ok(format!("{}/videos/{name}", settings.origin_url))
}
