//! Per-scene preview clips for the editor: one scene rendered alone by the same compositor as
//! the final MP4 (preview equals final), at 360×640 with x264 `ultrafast`, with the scene's own
//! narration.
//!
//! Clips are cached by a hash of everything that changes them: the scene's render plan (which
//! names every file it reads), its overlay token, and the size and time of its narration file.
//! A clip is published once under the video's public folder as
//! `{folder}/preview/{voice_file}_{hash}.mp4`; an edit changes the hash of the scene it touched
//! only, so only that scene is rendered again.
//!
//! The whole video plays from one file ([`PreviewClips::whole`]): every scene's half-size,
//! video-only chunk from the chunk cache (family `half-all`, so an edit renders only the scene
//! it touched) joined without re-encoding, under one soundtrack mixed for the whole video, so
//! the sound has no gap at a scene join.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use compositor::media::X264Preset;
use serde::Serialize;

use crate::render::stills::file_identity;
use compositor::spec::OverlaySpec;
use foundation::config::Settings;
use foundation::document::VideoDocument;
use foundation::error::{Code, Error, Result};

use crate::render::chunks;
use crate::render::plan::{Reduced, encode_settings, plan_with_staged_specs, soundtrack_key};
use crate::render::sound::soundtrack;
use foundation::jobs::JobFailure;

/// Preview clip size: a quarter of the product's pixels, enough for a 280×498 player.
pub(crate) use compositor::half::{HALF_H as CLIP_H, HALF_W as CLIP_W};

/// A scene's preview clip, ready to play.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct PreviewClip {
    pub voice_file: String,
    /// Public URL of the MP4 on `{origin_url}`.
    pub url: String,
    /// The cache key (hex): changes exactly when the scene's picture or sound changes.
    pub key: String,
    /// Whether the clip was already rendered.
    pub cached: bool,
    /// Milliseconds spent rendering (0 when cached).
    pub render_ms: u64,
    pub width: u32,
    pub height: u32,
}

/// The whole video at preview size, for one playhead across every scene.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct WholePreview {
    /// Public URL of the MP4 on `{origin_url}`.
    pub url: String,
    /// The cache key (hex): changes exactly when a scene's picture or the sound changes.
    pub key: String,
    pub cached: bool,
    /// Milliseconds spent rendering (0 when cached).
    pub render_ms: u64,
    pub width: u32,
    pub height: u32,
    /// Seconds.
    pub duration: f64,
    /// Every scene in order, with where it starts in the video.
    pub scenes: Vec<SceneSpan>,
}

/// Where one scene sits in the whole video.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct SceneSpan {
    pub voice_file: String,
    /// Seconds from the video's start.
    pub start: f64,
    pub duration: f64,
}

/// Renders one clip at a time: two preview requests for the same scene never encode twice,
/// and previews never take every core from a running export.
#[derive(Default)]
pub struct PreviewClips {
    rendering: Mutex<()>,
}

/// `doc` reduced to scene `index` alone.
fn single_scene(doc: &VideoDocument, index: usize) -> VideoDocument {
    let mut one = doc.clone();
    one.segments = vec![doc.segments[index].clone()];
    one
}

/// The cache key of scene `index`'s clip (with the session's `staged` overlay spec).
pub(crate) fn clip_key(
    settings: &Settings,
    doc: &VideoDocument,
    index: usize,
    staged: Option<&OverlaySpec>,
) -> u64 {
    // The still's key covers the plan and the identity of every file the scene reads.
    let (_, still) = crate::render::stills::scene_plan(settings, doc, index, staged);
    let dir = settings.video_dir(&doc.topic_id);
    let seg = &doc.segments[index];
    let mut h = std::collections::hash_map::DefaultHasher::new();
    still.hash(&mut h);
    seg.remotion_spec.hash(&mut h);
    seg.audio_file.hash(&mut h);
    file_identity(&dir.join(&seg.audio_file)).hash(&mut h);
    // The music bed is the video's, mixed under every scene's narration.
    serde_json::to_vec(&doc.music)
        .expect("music always serialises")
        .hash(&mut h);
    (CLIP_W, CLIP_H).hash(&mut h);
    h.finish()
}

impl PreviewClips {
    /// The clip of scene `index` (which must exist), rendered when its key is new.
    pub fn clip(
        &self,
        settings: &Settings,
        doc: &VideoDocument,
        (index, staged): (usize, Option<&OverlaySpec>),
    ) -> Result<PreviewClip> {
        let seg = &doc.segments[index];
        let key = format!("{:016x}", clip_key(settings, doc, index, staged));
        let folder = doc.public_folder();
        let name = format!("preview/{}_{key}.mp4", seg.voice_file);
        let path: PathBuf = settings.public_dir().join(&folder).join(&name);
        let reply = |cached, render_ms| PreviewClip {
            voice_file: seg.voice_file.clone(),
            url: format!("{}/{folder}/{name}", settings.origin_url),
            key: key.clone(),
            cached,
            render_ms,
            width: CLIP_W,
            height: CLIP_H,
        };
        let _one = self.rendering.lock().unwrap_or_else(|p| p.into_inner());
        if path.is_file() {
            return Ok(reply(true, 0));
        }
        let started = Instant::now();
        let parent = path.parent().expect("the clip has a folder");
        std::fs::create_dir_all(parent).map_err(Error::internal)?;
        let tmp = parent.join(format!(".{}_{key}.tmp.mp4", seg.voice_file));
        render_clip(settings, doc, (index, staged), &tmp)?;
        std::fs::rename(&tmp, &path).map_err(Error::internal)?;
        remove_stale(parent, &seg.voice_file, &path);
        let ms = started.elapsed().as_millis() as u64;
        tracing::info!(topic = %doc.topic_id, scene = %seg.voice_file, ms, "preview clip rendered");
        Ok(reply(false, ms))
    }
}

impl PreviewClips {
    /// The whole video at preview size, with every scene's overlay as `staged` (the open edit
    /// session's specs, by `voice_file`) or its file; rendered when its key is new.
    pub fn whole(
        &self,
        settings: &Settings,
        doc: &VideoDocument,
        staged: &BTreeMap<String, OverlaySpec>,
    ) -> Result<WholePreview> {
        let key = format!("{:016x}", whole_key(settings, doc, staged));
        let folder = doc.public_folder();
        let name = format!("preview/all_{key}.mp4");
        let path: PathBuf = settings.public_dir().join(&folder).join(&name);
        let mut start = 0.0;
        let scenes = doc
            .segments
            .iter()
            .map(|s| {
                let span = SceneSpan {
                    voice_file: s.voice_file.clone(),
                    start,
                    duration: s.duration,
                };
                start += s.duration;
                span
            })
            .collect();
        let reply = |cached, render_ms| WholePreview {
            url: format!("{}/{folder}/{name}", settings.origin_url),
            key: key.clone(),
            cached,
            render_ms,
            width: CLIP_W,
            height: CLIP_H,
            duration: start,
            scenes,
        };
        let _one = self.rendering.lock().unwrap_or_else(|p| p.into_inner());
        if path.is_file() {
            return Ok(reply(true, 0));
        }
        let started = Instant::now();
        let parent = path.parent().expect("the video has a folder");
        std::fs::create_dir_all(parent).map_err(Error::internal)?;
        let tmp = parent.join(format!(".all_{key}.tmp.mp4"));
        render_reduced(
            settings,
            doc,
            ("half-all", "a scene"),
            &|vf| staged.get(vf),
            &tmp,
        )?;
        std::fs::rename(&tmp, &path).map_err(Error::internal)?;
        remove_stale(parent, "all", &path);
        let ms = started.elapsed().as_millis() as u64;
        tracing::info!(topic = %doc.topic_id, ms, "whole-video preview rendered");
        Ok(reply(false, ms))
    }
}

/// The whole preview's key: every scene's clip key and the whole soundtrack's.
fn whole_key(
    settings: &Settings,
    doc: &VideoDocument,
    staged: &BTreeMap<String, OverlaySpec>,
) -> u64 {
    let dir = settings.video_dir(&doc.topic_id);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    "whole".hash(&mut h);
    for (i, s) in doc.segments.iter().enumerate() {
        clip_key(settings, doc, i, staged.get(&s.voice_file)).hash(&mut h);
    }
    soundtrack_key(settings, doc, &dir).hash(&mut h);
    h.finish()
}

/// Renders scene `index` alone at preview size into `tmp`: its video from the chunk cache
/// (`render::chunks`, family `half-{voice_file}`), its narration and the video's music bed.
fn render_clip(
    settings: &Settings,
    doc: &VideoDocument,
    (index, staged): (usize, Option<&OverlaySpec>),
    tmp: &Path,
) -> Result<()> {
    let one = single_scene(doc, index);
    let family = format!("half-{}", doc.segments[index].voice_file);
    let what = format!("scene {}", index + 1);
    render_reduced(settings, &one, (&family, &what), &|_| staged, tmp)
}

/// Renders `doc` at preview size (half, x264 `ultrafast`) into `tmp`: its video from the chunk
/// cache family `family`, under its whole soundtrack. `what` names it in errors (`scene 2`).
fn render_reduced<'a>(
    settings: &Settings,
    doc: &VideoDocument,
    (family, what): (&str, &str),
    staged: &dyn Fn(&str) -> Option<&'a OverlaySpec>,
    tmp: &Path,
) -> Result<()> {
    let dir = settings.video_dir(&doc.topic_id);
    let unreadable = |f: JobFailure| {
        tracing::warn!(topic = %doc.topic_id, what, error = %f.message, cause = ?f.cause, "preview: an input does not read");
        // The client's to fix (replace the medium), so a 4xx as the scene's stills answer.
        Error::new(
            Code::MediaDecodeFailed,
            format!(
                "A medium of {what} (a background, clip or narration) no longer reads. Replace it with modify_scene."
            ),
        )
    };
    let failed = |f: JobFailure| {
        let _ = std::fs::remove_file(tmp);
        Error::new(
            Code::RenderFailed,
            format!("The preview of {what} could not be rendered."),
        )
        .because(format!("{}: {:?}", f.message, f.cause))
    };
    let mix = || soundtrack(settings, doc, &dir);
    let sound = chunks::Soundtrack {
        key: soundtrack_key(settings, doc, &dir),
        mix: &mix,
    };
    let reduced = Reduced {
        preset: X264Preset::Ultrafast,
    };
    let render = chunks::Render {
        doc,
        plan: plan_with_staged_specs(settings, doc, &dir, staged),
        dir: chunks::ChunkDir::new(&dir, family),
        encode: encode_settings(settings, Some(reduced)).map_err(failed)?,
        half: true,
        farm: None,
        // One lane whatever `render.lanes` says: a scene's clip has no other scene to encode
        // beside it, and the whole video at half size keeps one encoder's memory.
        lanes: 1,
    };
    match render.run(&sound, tmp, true, &mut |_, _| {}) {
        Ok(_) => Ok(()),
        Err(chunks::Failure::Input(f)) => Err(unreadable(f)),
        Err(chunks::Failure::Encode(f)) => Err(failed(f)),
    }
}

/// Deletes the scene's older clips (other keys), keeping `keep`.
fn remove_stale(dir: &Path, voice_file: &str, keep: &Path) {
    let prefix = format!("{voice_file}_");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p != keep
            && name.starts_with(&prefix)
            && name.len() == prefix.len() + 16 + 4
            && name.ends_with(".mp4")
        {
            let _ = std::fs::remove_file(p);
        }
    }
}
