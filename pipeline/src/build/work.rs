//! The work behind each task: building scenes (steps 2–5) and rendering the
//! MP4 (steps 6–7). Runs on blocking threads; async I/O (media fetching)
//! goes through the runtime handle.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::build::broll::{self, Pick, SceneQuery};
use crate::build::direction::{self, SceneInput};
use crate::build::overlays::{self, OverlayFonts, SceneOverlay};
use crate::build::providers::Providers;
use crate::build::voice::{VoiceProvider, write_wav};
use crate::build::writer::WriteRequest;
use crate::build::{script, writer};
use crate::core::config::Settings;
use crate::core::document::{
    Background, BrollSource, CAPTION_RECT, MediaKind, NARRATOR_RECT, NarratorInfo, Segment,
    VideoDocument, VideoTrim, WriterInfo,
};
use crate::core::error::Code;
use crate::core::fetch::Fetcher;
use crate::core::ids;
use crate::core::jobs::{Engine, JobFailure, RENDER_START};
use crate::core::model::{Job, Language, OutputType, Source, VideoLength};

/// Largest inline media file fetched for a scene.
const INLINE_MEDIA_MAX_BYTES: u64 = 50 * 1024 * 1024;

/// Providers and paths the work needs.
pub struct Context {
    pub voice: Arc<dyn VoiceProvider>,
    pub fetcher: Fetcher,
    pub runtime: tokio::runtime::Handle,
}

fn failure(code: Code, message: impl Into<String>) -> JobFailure {
    JobFailure::new(code, message)
}

fn io_failure(e: std::io::Error) -> JobFailure {
    JobFailure::internal(e)
}

/// Steps 2–5: narration, voice, media, scenes.
pub fn build(engine: &Engine, ctx: &Context, job: &Job) -> Result<(), JobFailure> {
    let settings = &engine.settings;
    let topic = &job.topic_id;
    let total_build = if job.output_type == OutputType::Video {
        RENDER_START
    } else {
        1.0
    };
    engine.set_progress(topic, 2, 0.05 * total_build, Some("Writing the script"));
    let providers =
        Providers::from_settings(settings, &ctx.fetcher, &ctx.runtime, ctx.voice.clone()).map_err(
            |e| {
                failure(
                    Code::SceneBuildFailed,
                    "The configured providers are unavailable.",
                )
                .because(e)
            },
        )?;
    let request = BuildRequest {
        topic,
        source: job.request.source,
        text: job.request.text.as_deref().unwrap_or_default(),
        language: job.request.language,
        video_length: job.request.video_length,
        research_enabled: job.request.research_enabled,
        faceless: job.request.faceless,
        output_type: job.output_type,
    };
    let mut progress = |step: u8, p: f64, note: &str| {
        engine.set_progress(topic, step, p * total_build, Some(note));
    };
    let (doc, times) = build_document(settings, &providers, &request, &mut progress)?;
    tracing::info!(topic = %topic, scenes = doc.segments.len(), ?times, "scenes built");
    // Step 5: scenes ready (the job's state change is recorded by the engine).
    engine
        .store
        .write(|tx| tx.put_document(topic, &doc))
        .map_err(JobFailure::from)?;
    Ok(())
}

/// What scene building needs from the job.
#[derive(Debug, Clone)]
pub struct BuildRequest<'a> {
    pub topic: &'a str,
    pub source: Source,
    /// Script, idea or blog text.
    pub text: &'a str,
    pub language: Language,
    pub video_length: VideoLength,
    pub research_enabled: bool,
    pub faceless: bool,
    pub output_type: OutputType,
}

/// Wall time of each stage of [`build_document`] (the benchmark reports these).
#[derive(Debug, Clone, Default)]
pub struct StageTimes {
    pub write: Duration,
    pub split_and_direct: Duration,
    pub voice: Duration,
    /// Seconds of narration synthesised (voice realtime factor = `voice / audio_seconds`).
    pub audio_seconds: f64,
    pub media: Duration,
    pub overlays: Duration,
    pub total: Duration,
}

/// Text → a complete video document: narration (writer for idea/blog), scenes split at
/// sentences with inline media, direction, voice per scene, visuals (inline media, else B-roll),
/// overlays. Files go to the video folder and its public folder; the document is returned, not
/// stored. `progress(step, fraction 0..1, note)` reports along the way.
pub fn build_document(
    settings: &Settings,
    providers: &Providers,
    req: &BuildRequest<'_>,
    progress: &mut dyn FnMut(u8, f64, &str),
) -> Result<(VideoDocument, StageTimes), JobFailure> {
    let started = Instant::now();
    let mut times = StageTimes::default();
    let language = match req.language {
        Language::English => "English",
        Language::Vietnamese => "Vietnamese",
    };

    // Step 2: the narration script.
    let t = Instant::now();
    let (narration, writer_info) = match req.source {
        Source::Text => (req.text.to_string(), None),
        _ => {
            let wr = WriteRequest {
                input: req.text,
                source: req.source,
                language: req.language,
                video_length: req.video_length,
                research_enabled: req.research_enabled,
            };
            let written = providers.writer.write(&wr).map_err(|e| {
                tracing::warn!(error = %e, "writer failed");
                failure(Code::SceneBuildFailed, "The script could not be written.").because(e)
            })?;
            let info = WriterInfo {
                provider: written.provider.clone(),
                model: written.model.clone(),
                research_enabled: written.research_enabled,
                content_type: wr.content_type(),
                video_length: match req.video_length {
                    VideoLength::Short => "short".into(),
                    VideoLength::Normal => "normal".into(),
                },
            };
            (written.narration, Some(info))
        }
    };
    times.write = t.elapsed();

    let t = Instant::now();
    let drafts = script::split_script(&narration);
    if drafts.is_empty() {
        return Err(failure(
            Code::SceneBuildFailed,
            "The script has no spoken words.",
        ));
    }
    let inputs: Vec<SceneInput<'_>> = drafts
        .iter()
        .map(|d| SceneInput {
            text: &d.text,
            has_media: d.media.is_some(),
        })
        .collect();
    let directions = direction::direct(&inputs, req.faceless);
    let voice_id = providers.voice.pick_voice("", language);
    let mut doc = VideoDocument {
        topic_id: req.topic.to_string(),
        title: writer::title(&narration),
        language: language.into(),
        faceless: req.faceless,
        script: narration.clone(),
        segments: Vec::new(),
        voice_id: voice_id.clone(),
        public_key: ids::file_token(),
        source: source_name(req.source).into(),
        writer: writer_info,
    };
    let mut segments: Vec<Segment> = drafts
        .iter()
        .zip(&directions)
        .enumerate()
        .map(|(i, (d, dir))| Segment {
            voice_file: format!("v{}", ids::file_token()),
            id: i as u32 + 1,
            roll: dir.roll,
            scene_type: Some(dir.scene_type),
            pattern: dir.pattern.into(),
            keyword: dir.keyword.clone(),
            talking_point: dir.talking_point.clone(),
            quote: dir.quote.clone(),
            text: d.text.clone(),
            background: Background::Procedural {
                style: "gradient".into(),
                seed: seed_of(&dir.keyword),
            },
            caption_rect: CAPTION_RECT,
            narrator_rect: NARRATOR_RECT,
            narrator: if req.faceless {
                NarratorInfo::default()
            } else {
                NarratorInfo {
                    name: "Narrator".into(),
                    voice_id: voice_id.clone(),
                    ..NarratorInfo::default()
                }
            },
            ..Default::default()
        })
        .collect();
    times.split_and_direct = t.elapsed();
    progress(2, 0.1, "Writing the script");

    if req.output_type == OutputType::Text {
        doc.segments = segments;
        times.total = started.elapsed();
        return Ok((doc, times));
    }
    let dir = settings.video_dir(req.topic);
    let public_rel = doc.public_folder();
    let public = settings.public_dir().join(&public_rel);
    std::fs::create_dir_all(&dir).map_err(io_failure)?;
    std::fs::create_dir_all(&public).map_err(io_failure)?;
    let public_url = |file: &str| format!("{}/{public_rel}/{file}", settings.origin_url);

    // Step 3: voice, scene by scene.
    let t = Instant::now();
    let n = segments.len();
    for (i, seg) in segments.iter_mut().enumerate() {
        let voice = if seg.narrator.voice_id.is_empty() {
            voice_id.clone()
        } else {
            providers.voice.pick_voice(&seg.narrator.voice_id, language)
        };
        let narration = providers.voice.synthesize(&seg.text, &voice).map_err(|e| {
            failure(
                Code::SceneBuildFailed,
                format!("The narration of scene {} could not be synthesised.", i + 1),
            )
            .because(e)
        })?;
        let file = format!("{}.wav", seg.voice_file);
        write_wav(&dir.join(&file), &narration).map_err(io_failure)?;
        publish_link(&dir.join(&file), &public.join(&file)).map_err(io_failure)?;
        seg.duration = narration.duration();
        times.audio_seconds += seg.duration;
        seg.audio_file = file.clone();
        seg.audio_url = public_url(&file);
        if !req.faceless {
            seg.narrator.audio_url = seg.audio_url.clone();
        }
        seg.words = narration.words.clone();
        // The word timings beside the audio, for the editor's caption preview (video_data
        // trims them from the scene tree).
        let words_json = serde_json::to_vec(&seg.words).expect("words serialise");
        crate::core::files::write_atomic(
            &public.join(format!("{}_words.json", seg.voice_file)),
            &words_json,
        )
        .map_err(io_failure)?;
        progress(
            3,
            0.1 + 0.6 * (i + 1) as f64 / n as f64,
            "Recording the narration",
        );
    }
    times.voice = t.elapsed();

    // Step 4: visuals. Inline media from the script wins over B-roll.
    let t = Instant::now();
    progress(4, 0.75, "Choosing the visuals");
    for (seg, draft) in segments.iter_mut().zip(&drafts) {
        let Some(media) = &draft.media else { continue };
        let (file, kind) = fetch_inline(providers, &dir, &seg.voice_file, media)?;
        publish_link(&dir.join(&file), &public.join(&file)).map_err(io_failure)?;
        seg.media_url = media.url.clone();
        seg.broll_source = Some(BrollSource::User);
        seg.visual = media
            .alt
            .clone()
            .unwrap_or_else(|| "The creator's own media".into());
        if seg.is_a_roll() {
            seg.user_asset_url = media.url.clone();
        }
        seg.broll_url = media.url.clone();
        if kind == MediaKind::Video {
            seg.media_type = Some(MediaKind::Video);
            if let Ok(d) = compositor::media::probe_duration(&dir.join(&file)) {
                seg.video_trim = Some(VideoTrim {
                    start: 0.0,
                    end: d.min(seg.duration.max(0.1)),
                });
            }
            seg.background = Background::Video { file };
        } else {
            seg.media_type = Some(MediaKind::Image);
            seg.thumbnail_url = public_url(&file);
            seg.broll_thumbnail_url = seg.thumbnail_url.clone();
            seg.background = Background::Image { file };
        }
    }
    let queries: Vec<SceneQuery<'_>> = segments
        .iter()
        .zip(&drafts)
        .map(|(s, d)| SceneQuery {
            keyword: &s.keyword,
            text: &s.text,
            wanted: d.media.is_none(),
        })
        .collect();
    let picks = broll::pick_for_scenes(providers.broll.as_ref(), &queries);
    for (seg, pick) in segments.iter_mut().zip(picks) {
        let Some(pick) = pick else { continue };
        apply_pick(providers, &dir, &public, &public_url, seg, pick)?;
    }
    times.media = t.elapsed();

    // Overlays for the scene types that call for one.
    let t = Instant::now();
    progress(4, 0.9, "Designing the overlays");
    let fonts = OverlayFonts::load(&settings.assets_dir.join("fonts")).map_err(|e| {
        failure(
            Code::SceneBuildFailed,
            "A font the overlays need is missing on this server.",
        )
        .because(e)
    })?;
    for seg in segments.iter_mut() {
        let spec = SceneOverlay {
            voice_file: &seg.voice_file,
            scene_type: seg.scene_type,
            quote: &seg.quote,
            a_roll: seg.is_a_roll() && !req.faceless,
            language,
            words: &seg.words,
            duration: seg.duration,
        };
        if let Some(w) = overlays::build(&fonts, &spec, &public).map_err(io_failure)? {
            seg.remotion_spec = w.token;
        }
    }
    times.overlays = t.elapsed();

    doc.segments = segments;
    times.total = started.elapsed();
    Ok((doc, times))
}

fn source_name(s: Source) -> &'static str {
    Source::NAMES
        .iter()
        .copied()
        .find(|n| Source::parse(n) == Some(s))
        .unwrap_or("text")
}

/// Makes `src` (in the video folder) reachable at `dst` (in the public folder) without a
/// second copy when the file system allows it.
fn publish_link(src: &Path, dst: &Path) -> std::io::Result<()> {
    if dst.exists() {
        std::fs::remove_file(dst)?;
    }
    std::fs::hard_link(src, dst).or_else(|_| std::fs::copy(src, dst).map(|_| ()))
}

/// Sets a scene's background from a B-roll pick: library and stock files are copied into the
/// video folder and published; procedural backgrounds are drawn at render time.
fn apply_pick(
    providers: &Providers,
    dir: &Path,
    public: &Path,
    public_url: &dyn Fn(&str) -> String,
    seg: &mut Segment,
    pick: Pick,
) -> Result<(), JobFailure> {
    let item = pick.item;
    if let Some((style, seed)) = &item.procedural {
        seg.background = Background::Procedural {
            style: style.clone(),
            seed: *seed,
        };
        seg.broll_source = Some(BrollSource::Procedural);
        seg.visual = item.title.clone();
        return Ok(());
    }
    let bytes = match providers.broll.download(&item) {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(error = %e, id = %item.id, "B-roll download failed; procedural background");
            seg.broll_source = Some(BrollSource::Procedural);
            seg.visual = "Procedural gradient background".into();
            return Ok(());
        }
    };
    let ext = match item.kind {
        MediaKind::Video => "mp4",
        MediaKind::Image => match MediaKind::sniff(&bytes) {
            Some((MediaKind::Image, ext)) => ext,
            _ => "jpg",
        },
    };
    let file = format!("{}_broll.{ext}", seg.voice_file);
    crate::core::files::write_atomic(&dir.join(&file), &bytes).map_err(io_failure)?;
    publish_link(&dir.join(&file), &public.join(&file)).map_err(io_failure)?;
    seg.media_url = public_url(&file);
    seg.broll_url = seg.media_url.clone();
    seg.media_type = Some(item.kind);
    seg.visual = item.title.clone();
    seg.broll_source = Some(pick.provider);
    // Thumbnail: the image itself, or the clip's poster frame.
    let thumb_url = match (&item.local_thumb, item.kind) {
        (_, MediaKind::Image) => seg.media_url.clone(),
        (Some(local), MediaKind::Video) => {
            let tf = format!("{}_broll_thumb.jpg", seg.voice_file);
            match std::fs::read(local) {
                Ok(b) => {
                    crate::core::files::write_atomic(&public.join(&tf), &b).map_err(io_failure)?;
                    public_url(&tf)
                }
                Err(_) => String::new(),
            }
        }
        (None, MediaKind::Video) => item.thumbnail_url.clone(),
    };
    seg.thumbnail_url = thumb_url.clone();
    seg.broll_thumbnail_url = thumb_url;
    match item.kind {
        MediaKind::Video => {
            seg.video_trim = Some(VideoTrim {
                start: 0.0,
                end: if item.duration > 0.0 {
                    item.duration.min(seg.duration.max(0.1))
                } else {
                    seg.duration
                },
            });
            seg.background = Background::Video { file };
        }
        MediaKind::Image => seg.background = Background::Image { file },
    }
    Ok(())
}

fn seed_of(s: &str) -> u64 {
    // FNV-1a: stable across runs and platforms.
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// Fetches inline media through the guarded client and stores it as `{stem}_media.{ext}`;
/// returns the file and `image` or `video` (by magic bytes; the URL's extension is never
/// trusted).
fn fetch_inline(
    providers: &Providers,
    dir: &Path,
    stem: &str,
    media: &script::InlineMedia,
) -> Result<(String, MediaKind), JobFailure> {
    let url = &media.url;
    let resp = providers
        .runtime
        .block_on(
            providers
                .fetcher
                .get(url, INLINE_MEDIA_MAX_BYTES, Duration::from_secs(60)),
        )
        .map_err(|e| {
            failure(
                Code::MediaFetchFailed,
                format!("Could not fetch inline media {url}: {}.", e.public()),
            )
            .because(e)
        })?;
    let Some((kind, ext)) = MediaKind::sniff(&resp.body) else {
        return Err(failure(
            Code::MediaFetchFailed,
            format!(
                "Inline media {url} is not a PNG, JPEG or WebP image or an MP4, MOV or WebM video."
            ),
        ));
    };
    let file = format!("{stem}_media.{ext}");
    crate::core::files::write_atomic(&dir.join(&file), &resp.body).map_err(io_failure)?;
    Ok((file, kind))
}
