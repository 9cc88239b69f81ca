//! Video document → compositor render plan → MP4. The plan is built here
//! (pipeline knows the document); resolving and rendering belong to the
//! compositor, encoding to its GStreamer module.

use std::path::Path;

use compositor::geom::PreviewRect;
use compositor::media::{AudioTrack, EncodeSettings, encode_mp4};
use compositor::plan::{
    Background as PlanBackground, Narrator, Palette, ProceduralStyle, ScenePlan, TimedWord,
    Transition, VideoPlan, chunk_words,
};

use crate::config::Settings;
use crate::document::{Background, VideoDocument};
use crate::error::Code;
use crate::jobs::JobFailure;
use crate::voice::SAMPLE_RATE;

pub const FPS: u32 = 30;
/// Words per caption chunk.
const CAPTION_WORDS: usize = 4;

fn palette_for(seed: u64) -> Palette {
    match seed % 3 {
        0 => Palette::MIDNIGHT,
        1 => Palette::SUNSET,
        _ => Palette::OCEAN,
    }
}

fn style(name: &str) -> ProceduralStyle {
    match name {
        "grid" => ProceduralStyle::Grid,
        "bokeh" => ProceduralStyle::Bokeh,
        _ => ProceduralStyle::Gradient,
    }
}

/// The render plan of a document whose files live in `dir`.
pub fn plan_for(settings: &Settings, doc: &VideoDocument, dir: &Path) -> VideoPlan {
    let n = doc.segments.len();
    let scenes = doc
        .segments
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let background = match &s.background {
                Background::Procedural { style: st, seed } => PlanBackground::Procedural {
                    seed: *seed,
                    style: style(st),
                    palette: palette_for(*seed),
                },
                Background::Image { file } => PlanBackground::Image(dir.join(file)),
                // Clip backgrounds arrive with the compositor's video decoding (issue 4);
                // until then the scene keeps a procedural plate.
                Background::Video { .. } => PlanBackground::Procedural {
                    seed: i as u64,
                    style: ProceduralStyle::Gradient,
                    palette: palette_for(i as u64),
                },
            };
            let narrator = (s.roll == "A-roll" && !doc.faceless).then(|| Narrator::Card {
                name: "Reelsmith".into(),
                rect: PreviewRect::new(
                    s.narrator_rect.x,
                    s.narrator_rect.y,
                    s.narrator_rect.w,
                    s.narrator_rect.h,
                ),
            });
            let words: Vec<TimedWord> = s
                .words
                .iter()
                .map(|w| TimedWord {
                    text: w.word.clone(),
                    start: w.start,
                    end: w.end,
                })
                .collect();
            ScenePlan {
                duration: s.duration,
                background,
                narrator,
                captions: chunk_words(&words, CAPTION_WORDS),
                caption_y: s.caption_rect.y + s.caption_rect.h / 2.0,
                overlay: Vec::new(),
                transition: if i + 1 < n {
                    Transition::Fade
                } else {
                    Transition::Cut
                },
            }
        })
        .collect();
    VideoPlan {
        fps: FPS,
        scenes,
        fonts_dir: settings.assets_dir.join("fonts"),
    }
}

/// The scenes' narration back to back, sample-accurately, at 48 kHz.
pub fn narration_track(doc: &VideoDocument, dir: &Path) -> Result<AudioTrack, JobFailure> {
    let mut samples = Vec::new();
    for s in &doc.segments {
        let path = dir.join(&s.audio_file);
        let mut reader = hound::WavReader::open(&path).map_err(|e| {
            JobFailure::new(
                Code::RenderFailed,
                format!("narration of scene {} is unreadable: {e}", s.id),
            )
        })?;
        let spec = reader.spec();
        if spec.sample_rate != SAMPLE_RATE || spec.channels != 1 || spec.bits_per_sample != 16 {
            return Err(JobFailure::new(
                Code::RenderFailed,
                format!("narration of scene {} is not 48 kHz mono 16-bit", s.id),
            ));
        }
        // Each scene contributes exactly its duration, so audio and frames line up.
        let want = (s.duration * f64::from(SAMPLE_RATE)).round() as usize;
        let start = samples.len();
        for x in reader.samples::<i16>() {
            samples.push(x.map_err(|e| JobFailure::new(Code::RenderFailed, e.to_string()))?);
        }
        samples.resize(start + want, 0);
    }
    Ok(AudioTrack {
        sample_rate: SAMPLE_RATE,
        samples,
    })
}

/// Renders `doc` to `out` (MP4), reporting frames done / total.
pub fn render_document(
    settings: &Settings,
    doc: &VideoDocument,
    dir: &Path,
    out: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), JobFailure> {
    let plan = plan_for(settings, doc, dir);
    let resolved = compositor::resolve(&plan).map_err(|e| {
        JobFailure::new(
            Code::RenderFailed,
            format!("The video could not be prepared: {e}"),
        )
    })?;
    let audio = narration_track(doc, dir)?;
    let encode = EncodeSettings {
        preset: settings
            .render
            .preset
            .parse()
            .map_err(|e| JobFailure::new(Code::RenderFailed, format!("{e}")))?,
        ..EncodeSettings::default()
    };
    let report = encode_mp4(&resolved, &audio, &encode, out, progress)
        .map_err(|e| JobFailure::new(Code::RenderFailed, format!("Encoding failed: {e}")))?;
    tracing::info!(
        topic = %doc.topic_id,
        frames = report.frames,
        seconds = report.duration_secs,
        fps = report.fps(),
        encoder = %report.encoder,
        "video rendered"
    );
    Ok(())
}
