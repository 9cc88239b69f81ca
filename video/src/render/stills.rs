//! Stills on demand: a scene's 280×498 screenshot and its overlay poster, from the same
//! compositor code as the MP4 (DESIGN §1: one renderer, so preview equals final).
//!
//! A still resolves only its own scene. Resolved scenes are kept in a small cache keyed by
//! everything that changes their pixels (the scene's render plan, which names every file it
//! reads, the identity — size and modification time — of each of those files, and the overlay
//! version token), so repeated screenshots of a scene under review skip image decoding and text
//! rasterising; any edit changes the key, and so does a file changed or damaged on disk (it is
//! decoded afresh, and a file that no longer decodes answers `media_decode_failed`).

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use compositor::ResolvedVideo;
pub use compositor::geom::{PREVIEW_H, PREVIEW_W};
use compositor::plan::{Transition, VideoPlan};
use compositor::spec::OverlaySpec;

use foundation::config::Settings;
use foundation::document::VideoDocument;
use foundation::error::{Code, Error, Result};

/// Resolved scenes kept.
const CACHE_SCENES: usize = 8;
/// Of those, the most recently used whose clip decoders and kept clip frames stay open (each
/// clip layer keeps up to `compositor`'s 64 MiB of frames for stills); the others are released
/// and reopen on their next still.
const WARM_SCENES: usize = 2;

/// The still renderer with its cache of resolved scenes.
#[derive(Default)]
pub struct Stills {
    cache: Mutex<VecDeque<(u64, Arc<ResolvedVideo>)>>,
}

/// The single-scene plan of scene `index` (which must exist) and its cache key. `staged` is
/// the scene's overlay spec staged in an open edit session, shown instead of the spec file.
pub(crate) fn scene_plan(
    settings: &Settings,
    doc: &VideoDocument,
    index: usize,
    staged: Option<&OverlaySpec>,
) -> (VideoPlan, u64) {
    let dir = settings.video_dir(&doc.topic_id);
    let mut plan = crate::render::plan::plan_for(settings, doc, &dir);
    let mut scene = plan.scenes.swap_remove(index);
    let seg = &doc.segments[index];
    if let Some(spec) = staged
        && !seg.remotion_spec.is_empty()
        && !seg.overlay_disabled()
    {
        scene.overlay = crate::render::plan::spec_objects(settings, doc, seg, spec);
    }
    // A still shows the scene itself, never a crossfade into the next one.
    scene.transition = Transition::Cut;
    plan.scenes = vec![scene];
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_vec(&plan)
        .expect("plans always serialise")
        .hash(&mut h);
    doc.topic_id.hash(&mut h);
    doc.segments[index].remotion_spec.hash(&mut h);
    for path in crate::render::chunks::key::scene_files(&plan.scenes[0]) {
        file_identity(&path).hash(&mut h);
    }
    (plan, h.finish())
}

/// A file's size and modification time (nanoseconds); zeros when it cannot be read. A file
/// replaced or rewritten on disk gets another identity, so nothing decoded from it is reused.
pub(crate) fn file_identity(path: &std::path::Path) -> (u64, u128) {
    std::fs::metadata(path)
        .map(|m| {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            (m.len(), modified)
        })
        .unwrap_or((0, 0))
}

impl Stills {
    /// Scene `index` of `doc`, resolved (from the cache when nothing changed).
    fn resolved(
        &self,
        settings: &Settings,
        doc: &VideoDocument,
        index: usize,
        staged: Option<&OverlaySpec>,
    ) -> Result<Arc<ResolvedVideo>> {
        let (plan, key) = scene_plan(settings, doc, index, staged);
        if let Some(v) = self.touch(key) {
            return Ok(v);
        }
        let resolved = Arc::new(compositor::resolve(&plan).map_err(|e| {
            tracing::warn!(topic = %doc.topic_id, scene = index, error = %e, "still: scene does not resolve");
            // The client's problem to fix (replace the medium), so a 4xx naming the input.
            Error::new(
                Code::MediaDecodeFailed,
                format!(
                    "{} Replace it with modify_scene.",
                    crate::render::plan::resolve_message(&e)
                ),
            )
        })?);
        let mut cache = self.cache.lock().expect("cache lock");
        cache.retain(|(k, _)| *k != key);
        if cache.len() >= CACHE_SCENES {
            cache.pop_front();
        }
        cache.push_back((key, resolved.clone()));
        let cold = cold_scenes(&cache);
        drop(cache);
        release(cold);
        Ok(resolved)
    }

    /// The cached scene under `key`, moved to the most recently used place.
    fn touch(&self, key: u64) -> Option<Arc<ResolvedVideo>> {
        let mut cache = self.cache.lock().expect("cache lock");
        let at = cache.iter().position(|(k, _)| *k == key)?;
        let entry = cache.remove(at)?;
        let video = entry.1.clone();
        cache.push_back(entry);
        let cold = cold_scenes(&cache);
        drop(cache);
        release(cold);
        Some(video)
    }

    /// A 280×498 JPEG of scene `index` at `seek` seconds into it (default: a representative
    /// moment, see [`compositor::still::DEFAULT_SEEK_FRACTION`]), with the session's `staged`
    /// overlay spec when one is open.
    pub fn screenshot(
        &self,
        settings: &Settings,
        doc: &VideoDocument,
        (index, staged): (usize, Option<&OverlaySpec>),
        seek: Option<f64>,
    ) -> Result<Vec<u8>> {
        let video = self.resolved(settings, doc, index, staged)?;
        Ok(compositor::screenshot_280x498(&video, 0, seek))
    }

    /// The overlay of scene `index` alone on black (PNG, 280×498); 409 `overlay_not_available`
    /// when the overlay is disabled, was never built, or has no objects.
    pub fn overlay_poster(
        &self,
        settings: &Settings,
        doc: &VideoDocument,
        (index, staged): (usize, Option<&OverlaySpec>),
    ) -> Result<Vec<u8>> {
        let seg = &doc.segments[index];
        let unavailable = |why: &str| {
            Error::new(
                Code::OverlayNotAvailable,
                format!("This scene has no overlay poster: {why}."),
            )
        };
        if seg.overlay_disabled() {
            return Err(unavailable("its overlay was disabled"));
        }
        if seg.remotion_spec.is_empty() {
            return Err(unavailable("no overlay has been built for it"));
        }
        let video = self.resolved(settings, doc, index, staged)?;
        compositor::overlay_poster(&video, 0).ok_or_else(|| unavailable("its overlay is empty"))
    }
}

/// Every cached scene but the [`WARM_SCENES`] most recently used (the back of the queue).
fn cold_scenes(cache: &VecDeque<(u64, Arc<ResolvedVideo>)>) -> Vec<Arc<ResolvedVideo>> {
    cache
        .iter()
        .rev()
        .skip(WARM_SCENES)
        .map(|(_, v)| v.clone())
        .collect()
}

/// Closes the clip decoders and drops the kept frames of `scenes` (outside the cache's lock: a
/// still in flight on one of them finishes first).
fn release(scenes: Vec<Arc<ResolvedVideo>>) {
    for video in scenes {
        video.release_media();
    }
}

/// What a reviewer checks on an overlay poster: eight audit dimensions, one per line.
pub const REVIEW_CHECKLIST: &str = "\
1. Legibility: every word reads at phone size (cap height well above 20 px on the 720×1280 canvas) with strong contrast against any background.
2. Safe zones: every object sits inside y 128–960 of the canvas, clear of the top 10 % and bottom 25 % dead zones.
3. Narrator clearance: on A-roll scenes nothing covers the narrator's face; body overlap is deliberate only.
4. Caption clearance: the overlay leaves the caption band (overlay.caption.rect) free.
5. Copy rules: posters are uppercase with at most 3 lines of at most 4 words; no orphaned single word.
6. Hierarchy: one focal element; numbers and key words carry the emphasis, decoration stays secondary.
7. Brand: colours come from the brand palette (main colour first) and the look matches the other scenes.
8. Grounding: the overlay says what the narration says at that moment; nothing invented, nothing off-topic.";
