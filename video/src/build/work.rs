//! The build task of text sources (steps 2–5): the script, or an idea or blog post turned into
//! narration by the writer, is split into scene drafts with their inline media and handed to
//! the one scene assembly ([`scenes::assemble`]). Runs on blocking threads; async I/O (media
//! fetching) goes through the runtime handle.

use std::sync::Arc;
use std::time::Instant;

use crate::build::providers::Providers;
use crate::build::scenes::{self, SceneDraft, StageTimes};
use crate::build::voice::VoiceProvider;
use crate::build::writer::WriteRequest;
use crate::build::{script, writer};
use foundation::config::Settings;
use foundation::document::{VideoDocument, WriterInfo};
use foundation::error::Code;
use foundation::fetch::Fetcher;
use foundation::ids;
use foundation::jobs::{Engine, JobFailure, RENDER_START};
use foundation::language::{self, Detected, Detection};
use foundation::model::{Job, Language, OutputType, Source, VideoLength};

/// Providers and paths the work needs.
pub struct Context {
    pub voice: Arc<dyn VoiceProvider>,
    pub fetcher: Fetcher,
    pub runtime: tokio::runtime::Handle,
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
    let video = job.video()?;
    engine.set_progress(topic, 2, 0.05 * total_build, Some("Writing the script"));
    let providers = providers_for(settings, ctx)?;
    let request = BuildRequest {
        topic,
        source: video.source,
        text: video.text.as_deref().unwrap_or_default(),
        language: video.language,
        video_length: video.video_length,
        research_enabled: video.research_enabled,
        faceless: video.faceless,
        output_type: job.output_type,
    };
    let mut progress = |step: u8, p: f64, note: &str| {
        engine.set_progress(topic, step, p * total_build, Some(note));
    };
    let (mut doc, times) = build_document(settings, &providers, &request, &mut progress)?;
    // A script in a language without a voice here says so once its scenes are ready; a written
    // narration says which writer wrote it.
    let note = narration_language(&request, request.text)
        .note()
        .or_else(|| doc.writer.as_ref().map(writer_note));
    if let Some(note) = note {
        engine.set_progress(topic, 4, 0.95 * total_build, Some(&note));
    }
    if let Some(name) = engine
        .store
        .account(&job.account)
        .map_err(JobFailure::from)?
        .and_then(|a| a.contact_name)
    {
        scenes::name_narrator(&mut doc, &name);
    }
    doc.music = video.music.clone();
    tracing::info!(topic = %topic, scenes = doc.segments.len(), ?times, "scenes built");
    // Step 5: scenes ready (the job's state change is recorded by the engine).
    engine
        .store
        .write(|tx| tx.put_document(topic, &doc))
        .map_err(JobFailure::from)?;
    Ok(())
}

/// The configured providers (writer, voice, B-roll) for a build task.
pub(crate) fn providers_for(settings: &Settings, ctx: &Context) -> Result<Providers, JobFailure> {
    Providers::from_settings(settings, &ctx.fetcher, &ctx.runtime, ctx.voice.clone()).map_err(|e| {
        JobFailure::new(
            Code::SceneBuildFailed,
            "The configured providers are unavailable.",
        )
        .because(e)
    })
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

/// Text → a complete video document: narration (writer for idea/blog), scene drafts split at
/// sentences with their inline media, then the one scene assembly ([`scenes::assemble`]).
/// Files go to the video folder and its public folder; the document is returned, not stored.
/// `progress(step, fraction 0..1, note)` reports along the way.
pub fn build_document(
    settings: &Settings,
    providers: &Providers,
    req: &BuildRequest<'_>,
    progress: &mut dyn FnMut(u8, f64, &str),
) -> Result<(VideoDocument, StageTimes), JobFailure> {
    let started = Instant::now();
    let mut times = StageTimes::default();

    // Step 2: the narration script.
    let t = Instant::now();
    let (narration, writer_info) = match req.source {
        Source::Text => (req.text.to_string(), None),
        _ => write_narration(providers, req)?,
    };
    times.write = t.elapsed();
    let language = narration_language(req, &narration).language().name();

    let t = Instant::now();
    let drafts: Vec<SceneDraft> = script::split_script(&narration)
        .into_iter()
        .map(|d| SceneDraft {
            text: d.text,
            media: d.media,
            ..SceneDraft::default()
        })
        .collect();
    if drafts.is_empty() {
        return Err(JobFailure::new(
            Code::SceneBuildFailed,
            "The script has no spoken words.",
        ));
    }
    let doc = VideoDocument {
        topic_id: req.topic.to_string(),
        title: writer::title(&narration),
        language: language.into(),
        faceless: req.faceless,
        script: narration.clone(),
        segments: Vec::new(),
        voice_id: providers.voice.pick_voice("", language),
        public_key: ids::file_token(),
        source: source_name(req.source).into(),
        writer: writer_info,
        music: Default::default(),
    };
    times.split_and_direct = t.elapsed();
    let goal = scenes::Goal {
        output_type: req.output_type,
        max_narration_secs: script::max_narration_secs(req.source, req.video_length),
    };
    // Assembly gives the voice's memory back once the narration is done, whatever the outcome.
    let doc = scenes::assemble(settings, providers, doc, drafts, goal, progress, &mut times)?;
    times.total = started.elapsed();
    Ok((doc, times))
}

/// The language a video is narrated in: a script's own (the spec ignores `language` for a
/// script, which is used verbatim), the request's for an idea or blog post.
pub(crate) fn narration_language(req: &BuildRequest<'_>, narration: &str) -> Detection {
    match req.source {
        Source::Text => language::detect(narration),
        _ => Detection {
            detected: Detected::Spoken(req.language),
            confidence: 1.0,
        },
    }
}

/// An idea or blog post → narration, through the configured writer.
fn write_narration(
    providers: &Providers,
    req: &BuildRequest<'_>,
) -> Result<(String, Option<WriterInfo>), JobFailure> {
    let wr = WriteRequest {
        input: req.text,
        source: req.source,
        language: req.language,
        video_length: req.video_length,
        research_enabled: req.research_enabled,
    };
    let written = providers.writer.write(&wr).map_err(|e| {
        tracing::warn!(error = %e, "writer failed");
        JobFailure::new(Code::SceneBuildFailed, "The script could not be written.").because(e)
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
    let max = script::max_narration_secs(req.source, req.video_length);
    Ok((
        crate::build::writer::cap_speech(&written.narration, max),
        Some(info),
    ))
}

/// What `details.notes` says of the writer that wrote an idea's or blog post's narration.
fn writer_note(w: &WriterInfo) -> String {
    match w.provider.as_str() {
        "embedded" => "Script written by the embedded writer (offline: a hook, the body and a call to action).".into(),
        _ if w.model.is_empty() => format!("Script written by the {} writer.", w.provider),
        _ => format!("Script written by the {} writer ({}).", w.provider, w.model),
    }
}

/// The wire name of a job's source (`text`, `idea`, `audio_file`, …).
pub fn source_name(s: Source) -> &'static str {
    Source::NAMES
        .iter()
        .copied()
        .find(|n| Source::parse(n) == Some(s))
        .unwrap_or("text")
}
