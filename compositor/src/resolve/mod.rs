//! Resolving: a [`VideoPlan`] checked and prepared into a [`ResolvedVideo`] that renders
//! without failing (resvg's usvg step for our frame tree).
//!
//! Everything that can go wrong (unreadable fonts, broken or huge images, SVG that does not
//! parse, clips that do not decode, nonsense durations) goes wrong here, with a [`ResolveError`]
//! that names the scene and object. Resolving also does the expensive one-off work through each
//! layer's `prepare` ([`crate::layers`]): images are decoded and pre-scaled, procedural
//! backgrounds painted, caption words, narrator cards and SVG overlays rasterised once, clips
//! probed, so each frame only copies and blends prepared pixels ([`crate::frame`]).

mod fonts;

use std::path::{Path, PathBuf};

use rayon::prelude::*;

pub use fonts::caption_fonts;
use fonts::load_fonts;

use crate::clip::{ClipBackground, ClipLayer, ClipNarrator};
use crate::geom::{CANVAS_H, CANVAS_W, PreviewRect};
use crate::layers::{
    self, BackgroundLayer, ChunkSprites, Fonts, NarratorCard, NarratorLayer, OverlaySprite,
    PlateBackground, narrator_bounds,
};
use crate::media::{ClipInfo, probe_clip};
use crate::plan::{
    Background, Clip, MAX_TOTAL_SECONDS, Narrator, OverlayObject, Palette, ScenePlan, Transition,
    VideoPlan, crossfade_alpha,
};

/// Why a plan could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// Nothing to render.
    #[error("the plan has no scenes")]
    NoScenes,
    /// fps outside 1..=120.
    #[error("fps must be between 1 and 120, got {0}")]
    Fps(u32),
    /// A duration that is not a positive finite number.
    #[error("scene {scene}: duration must be a positive number of seconds, got {duration}")]
    Duration {
        /// Scene index.
        scene: usize,
        /// The offending value.
        duration: f64,
    },
    /// The plan is longer than [`MAX_TOTAL_SECONDS`].
    #[error("the video is {0:.0} s long, over the {MAX_TOTAL_SECONDS:.0} s limit")]
    TooLong(f64),
    /// A pinned font is missing or unreadable.
    #[error("font {path}: {reason}")]
    Font {
        /// The font file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A background image is missing, unreadable, too large or not an image.
    #[error("scene {scene}: background image {path}: {reason}")]
    Image {
        /// Scene index.
        scene: usize,
        /// The image file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A video clip (background or presenter) is missing, undecodable, has no picture, or its
    /// trim window is invalid.
    #[error("scene {scene}: {role} clip {path}: {reason}")]
    Clip {
        /// Scene index.
        scene: usize,
        /// `background` or `narrator`.
        role: &'static str,
        /// The clip file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The narrator rect is not a positive finite rectangle.
    #[error("scene {scene}: narrator rect {rect:?} must be finite with positive size")]
    NarratorRect {
        /// Scene index.
        scene: usize,
        /// The offending rect.
        rect: PreviewRect,
    },
    /// An overlay object cannot be prepared.
    #[error("scene {scene}, overlay object {object}: {reason}")]
    Overlay {
        /// Scene index.
        scene: usize,
        /// Object index within the scene's overlay list.
        object: usize,
        /// What went wrong.
        reason: String,
    },
}

/// A plan with every asset decoded and every static layer pre-rasterised. Rendering a frame from
/// it cannot fail. Cheap to share between threads (`Sync`).
pub struct ResolvedVideo {
    /// Frames per second.
    pub(crate) fps: u32,
    /// Scenes, ready to draw.
    pub(crate) scenes: Vec<ResolvedScene>,
    /// Where each scene sits in time.
    pub(crate) timeline: Timeline,
}

/// Where a plan's scenes sit in time, and which frame shows which moment of which scene. The
/// one mapping from frame index to scene time: the whole-video renderer and the per-scene chunks
/// ([`crate::chunk`]) both use it, so a frame is the same pixels whichever renders it.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    fps: u32,
    /// Start time of each scene, seconds (running sum of the durations, in plan order).
    starts: Vec<f64>,
    durations: Vec<f64>,
    /// Whether each scene crossfades into the next one.
    fades: Vec<bool>,
    /// Sum of the scene durations.
    total: f64,
}

impl Timeline {
    /// The timeline of `plan`: fps in 1–120, every duration finite and positive, the total
    /// within [`MAX_TOTAL_SECONDS`].
    pub fn of(plan: &VideoPlan) -> Result<Timeline, ResolveError> {
        if plan.scenes.is_empty() {
            return Err(ResolveError::NoScenes);
        }
        if !(1..=120).contains(&plan.fps) {
            return Err(ResolveError::Fps(plan.fps));
        }
        let mut total = 0.0;
        let mut starts = Vec::with_capacity(plan.scenes.len());
        for (i, s) in plan.scenes.iter().enumerate() {
            if !(s.duration.is_finite() && s.duration > 0.0) {
                return Err(ResolveError::Duration {
                    scene: i,
                    duration: s.duration,
                });
            }
            starts.push(total);
            total += s.duration;
        }
        if total > MAX_TOTAL_SECONDS {
            return Err(ResolveError::TooLong(total));
        }
        Ok(Timeline {
            fps: plan.fps,
            starts,
            durations: plan.scenes.iter().map(|s| s.duration).collect(),
            fades: (0..plan.scenes.len())
                .map(|i| plan.scenes[i].transition == Transition::Fade && i + 1 < plan.scenes.len())
                .collect(),
            total,
        })
    }

    /// Frames per second.
    pub fn fps(&self) -> u32 {
        self.fps
    }

    /// Number of frames: `round(duration × fps)`, at least 1, so the video's length equals the
    /// sum of the scene durations within one frame.
    pub fn frame_count(&self) -> u64 {
        ((self.total * f64::from(self.fps)).round() as u64).max(1)
    }

    /// Number of scenes.
    pub fn scene_count(&self) -> usize {
        self.starts.len()
    }

    /// Start of scene `scene` on the timeline, seconds.
    pub fn scene_start(&self, scene: usize) -> Option<f64> {
        self.starts.get(scene).copied()
    }

    /// Which scene plays at timeline time `t` (seconds), and the time within that scene.
    /// `t` is clamped to the timeline; the local time is clamped into `[0, scene duration)`.
    pub fn scene_at(&self, t: f64) -> (usize, f64) {
        let t = if t.is_finite() {
            t.clamp(0.0, self.total)
        } else {
            0.0
        };
        let i = self.starts.partition_point(|&s| s <= t).saturating_sub(1);
        let d = self.durations[i];
        let local = (t - self.starts[i]).clamp(0.0, d);
        // A time exactly at the end belongs to the last frame of the scene.
        let local = if local >= d {
            (d - 1e-9).max(0.0)
        } else {
            local
        };
        (i, local)
    }

    /// The scene and scene time frame `index` shows.
    pub fn frame_at(&self, index: u64) -> (usize, f64) {
        self.scene_at(index as f64 / f64::from(self.fps))
    }

    /// The frames that show scene `scene`, in order: every scene's range is contiguous, the
    /// ranges of consecutive scenes touch, and together they cover `0 .. frame_count()`. A
    /// scene shorter than a frame may own none.
    pub fn scene_frames(&self, scene: usize) -> std::ops::Range<u64> {
        self.first_frame_of(scene)..self.first_frame_of(scene + 1)
    }

    /// The frames of scene `scene` inside its crossfade into the next scene (the end of
    /// [`Self::scene_frames`]; empty when it cuts): the only frames of a scene that show
    /// anything of another.
    pub fn crossfade_frames(&self, scene: usize) -> std::ops::Range<u64> {
        let frames = self.scene_frames(scene);
        let (Some(&duration), Some(&fades)) = (self.durations.get(scene), self.fades.get(scene))
        else {
            return frames.end..frames.end;
        };
        let mut first = frames.end;
        while first > frames.start
            && crossfade_alpha(duration, fades, self.frame_at(first - 1).1).is_some()
        {
            first -= 1;
        }
        first..frames.end
    }

    /// The first frame showing scene `scene` or a later one (the frame count past the last).
    fn first_frame_of(&self, scene: usize) -> u64 {
        let count = self.frame_count();
        if scene == 0 {
            return 0;
        }
        if scene >= self.scene_count() {
            return count;
        }
        let (mut lo, mut hi) = (0u64, count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.frame_at(mid).0 >= scene {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }
}

impl ResolveError {
    /// The same error for a plan that was one part of a bigger one, starting at scene `first`
    /// of it: scene indices become the bigger plan's (a per-scene chunk resolves its scene
    /// alone, and the client is told which scene of the video failed).
    pub fn in_scene(self, first: usize) -> ResolveError {
        match self {
            ResolveError::Duration { scene, duration } => ResolveError::Duration {
                scene: scene + first,
                duration,
            },
            ResolveError::Image {
                scene,
                path,
                reason,
            } => ResolveError::Image {
                scene: scene + first,
                path,
                reason,
            },
            ResolveError::Clip {
                scene,
                role,
                path,
                reason,
            } => ResolveError::Clip {
                scene: scene + first,
                role,
                path,
                reason,
            },
            ResolveError::NarratorRect { scene, rect } => ResolveError::NarratorRect {
                scene: scene + first,
                rect,
            },
            ResolveError::Overlay {
                scene,
                object,
                reason,
            } => ResolveError::Overlay {
                scene: scene + first,
                object,
                reason,
            },
            other => other,
        }
    }
}

impl std::fmt::Debug for ResolvedVideo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedVideo")
            .field("fps", &self.fps)
            .field("scenes", &self.scenes.len())
            .field("duration", &self.timeline.total)
            .finish()
    }
}

/// A scene ready to draw: its layers, bottom to top.
pub(crate) struct ResolvedScene {
    pub(crate) duration: f64,
    pub(crate) background: BackgroundLayer,
    pub(crate) narrator: Option<NarratorLayer>,
    pub(crate) captions: Vec<ChunkSprites>,
    /// Sorted by z (stable, so ties keep plan order).
    pub(crate) overlay: Vec<OverlaySprite>,
    pub(crate) transition: Transition,
}

/// Probe results of every distinct clip file of a plan.
type ClipProbes = std::collections::HashMap<PathBuf, Result<ClipInfo, String>>;

/// Probes each distinct clip of the plan once (in parallel): a presenter clip shared by every
/// A-roll scene is opened a single time.
fn probe_clips(plan: &VideoPlan) -> ClipProbes {
    let mut paths: Vec<&Path> = plan
        .scenes
        .iter()
        .flat_map(|s| {
            let bg = match &s.background {
                Background::Clip(c) => Some(c.path.as_path()),
                _ => None,
            };
            let narrator = match &s.narrator {
                Some(Narrator::Clip { clip, .. }) => Some(clip.path.as_path()),
                _ => None,
            };
            bg.into_iter().chain(narrator)
        })
        .collect();
    paths.sort();
    paths.dedup();
    paths
        .into_par_iter()
        .map(|p| {
            let info = probe_clip(p).map_err(|e| e.to_string());
            (p.to_owned(), info)
        })
        .collect()
}

/// Checks and prepares a plan for rendering: validates timings and rects, loads the pinned fonts,
/// decodes and pre-scales images (each side at most 8192 px), probes video clips (each must
/// decode a first frame; see [`probe_clip`]), rasterises SVG overlays (without
/// loading any external reference) and pre-renders captions, narrator cards and backgrounds.
pub fn resolve(plan: &VideoPlan) -> Result<ResolvedVideo, ResolveError> {
    let timeline = Timeline::of(plan)?;
    let fonts = load_fonts(plan)?;
    let clips = probe_clips(plan);
    let scenes = plan
        .scenes
        .iter()
        .enumerate()
        .map(|(i, s)| resolve_scene(i, s, &fonts, &clips))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ResolvedVideo {
        fps: plan.fps,
        scenes,
        timeline,
    })
}

fn resolve_scene(
    index: usize,
    plan: &ScenePlan,
    fonts: &Fonts,
    clips: &ClipProbes,
) -> Result<ResolvedScene, ResolveError> {
    let background = resolve_background(index, plan, clips)?;
    let narrator = plan
        .narrator
        .as_ref()
        .map(|n| resolve_narrator(index, plan, n, fonts, clips))
        .transpose()?;
    let captions = layers::prepare_captions(plan, fonts);
    let overlay = resolve_overlay(index, &plan.overlay, fonts)?;
    Ok(ResolvedScene {
        duration: plan.duration,
        background,
        narrator,
        captions,
        overlay,
        transition: plan.transition,
    })
}

fn resolve_background(
    index: usize,
    plan: &ScenePlan,
    clips: &ClipProbes,
) -> Result<BackgroundLayer, ResolveError> {
    let plate = match &plan.background {
        Background::Clip(clip) => {
            let layer = clip_layer(index, "background", clip, clips, CANVAS_W, CANVAS_H)?;
            return Ok(BackgroundLayer::Clip(Box::new(ClipBackground::new(layer))));
        }
        Background::Procedural {
            seed,
            style,
            palette,
        } => PlateBackground::procedural(*seed, *style, *palette, plan.duration),
        Background::Image(path) => {
            PlateBackground::image(index, path, plan.background_fit, plan.duration).map_err(
                |reason| ResolveError::Image {
                    scene: index,
                    path: path.clone(),
                    reason,
                },
            )?
        }
    };
    Ok(BackgroundLayer::Plate(plate))
}

fn resolve_narrator(
    index: usize,
    plan: &ScenePlan,
    narrator: &Narrator,
    fonts: &Fonts,
    clips: &ClipProbes,
) -> Result<NarratorLayer, ResolveError> {
    let bounds = |rect: &PreviewRect| {
        narrator_bounds(rect).ok_or(ResolveError::NarratorRect {
            scene: index,
            rect: *rect,
        })
    };
    Ok(match narrator {
        Narrator::Clip { clip, rect } => {
            let (x, y, w, h) = bounds(rect)?;
            let layer = clip_layer(index, "narrator", clip, clips, w, h)?;
            NarratorLayer::Clip(Box::new(ClipNarrator::new(layer, x, y, w, h)))
        }
        Narrator::Card { name, rect } => {
            let words: Vec<_> = plan.captions.iter().flat_map(|c| &c.words).collect();
            NarratorLayer::Card(NarratorCard::prepare(
                bounds(rect)?,
                name,
                palette_of(plan),
                fonts,
                &words,
            ))
        }
    })
}

/// The scene's overlay objects, sorted by z (stable, so ties keep plan order).
fn resolve_overlay(
    index: usize,
    objects: &[OverlayObject],
    fonts: &Fonts,
) -> Result<Vec<OverlaySprite>, ResolveError> {
    let mut overlay = objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            OverlaySprite::prepare(o, fonts).map_err(|reason| ResolveError::Overlay {
                scene: index,
                object: i,
                reason,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    overlay.sort_by_key(|o| o.z);
    Ok(overlay)
}

/// The narrator card's colours: the procedural background's palette, or the default one.
fn palette_of(plan: &ScenePlan) -> Palette {
    match plan.background {
        Background::Procedural { palette, .. } => palette,
        Background::Image(_) | Background::Clip(_) => Palette::MIDNIGHT,
    }
}

/// A clip layer of `w × h` pixels from its probe result.
fn clip_layer(
    scene: usize,
    role: &'static str,
    clip: &Clip,
    probes: &ClipProbes,
    w: u32,
    h: u32,
) -> Result<ClipLayer, ResolveError> {
    let err = |reason: String| ResolveError::Clip {
        scene,
        role,
        path: clip.path.clone(),
        reason,
    };
    let info = match probes.get(&clip.path) {
        Some(Ok(info)) => *info,
        Some(Err(e)) => return Err(err(e.clone())),
        None => return Err(err("the clip was not probed".into())),
    };
    ClipLayer::prepare(clip, info, w, h).map_err(err)
}

impl ResolvedVideo {
    /// Number of frames: `round(duration × fps)`, at least 1, so the video's length equals the
    /// sum of the scene durations within one frame.
    pub fn frame_count(&self) -> u64 {
        self.timeline.frame_count()
    }

    /// Total duration, seconds (the sum of scene durations).
    pub fn duration(&self) -> f64 {
        self.timeline.total
    }

    /// Where the scenes sit in time.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Frames per second.
    pub fn fps(&self) -> u32 {
        self.fps
    }

    /// Number of scenes.
    pub fn scene_count(&self) -> usize {
        self.scenes.len()
    }

    /// Duration of scene `index`, if it exists.
    pub fn scene_duration(&self, index: usize) -> Option<f64> {
        self.scenes.get(index).map(|s| s.duration)
    }

    /// Whether scene `index` has overlay objects.
    pub fn scene_has_overlay(&self, index: usize) -> bool {
        self.scenes
            .get(index)
            .is_some_and(|s| !s.overlay.is_empty())
    }

    /// Which scene plays at timeline time `t` (seconds), and the time within that scene.
    /// `t` is clamped to the timeline; the local time is clamped into `[0, scene duration)`.
    pub fn scene_at(&self, t: f64) -> (usize, f64) {
        self.timeline.scene_at(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::CanvasRect;
    use crate::plan::tests::plan;
    use crate::plan::{Animation, OverlayPayload};

    #[test]
    fn frame_count_matches_summed_durations() {
        let v = resolve(&plan(&[1.234, 2.5, 0.77])).unwrap();
        let total = 1.234 + 2.5 + 0.77;
        assert!((v.duration() - total).abs() < 1e-9);
        assert_eq!(v.frame_count(), (total * 30.0_f64).round() as u64);
        assert!((v.frame_count() as f64 / 30.0 - total).abs() <= 1.0 / 30.0);
    }

    #[test]
    fn scene_frames_tile_the_timeline_and_agree_with_frame_at() {
        let t = Timeline::of(&plan(&[1.37, 0.01, 1.21, 1.05])).unwrap();
        let mut next = 0;
        for scene in 0..t.scene_count() {
            let frames = t.scene_frames(scene);
            assert_eq!(frames.start, next, "scene {scene}");
            for index in frames.clone() {
                assert_eq!(t.frame_at(index).0, scene, "frame {index}");
            }
            next = frames.end;
        }
        assert_eq!(next, t.frame_count());
        assert!(
            t.scene_frames(1).is_empty(),
            "a 10 ms scene owns no frame at 30 fps"
        );
        assert_eq!(t.scene_frames(9), t.frame_count()..t.frame_count());
    }

    #[test]
    fn crossfade_frames_are_the_end_of_a_fading_scene_only() {
        let mut p = plan(&[2.0, 0.4, 1.0]);
        p.scenes[0].transition = Transition::Fade;
        p.scenes[1].transition = Transition::Fade;
        p.scenes[2].transition = Transition::Fade;
        let t = Timeline::of(&p).unwrap();
        // 0.3 s at 30 fps: frames 52–59 have local time past 1.7 s (frame 51 is exactly 1.7).
        assert_eq!(t.crossfade_frames(0), 52..60);
        // A 0.4 s scene fades over its second half only; frame 66 is 2.2 s minus 2.0 s, a hair
        // past 0.2 s in floating point, and the renderer blends it, so it belongs here too.
        assert_eq!(t.crossfade_frames(1), 66..72);
        assert!(
            t.crossfade_frames(2).is_empty(),
            "the last scene has nothing to fade into"
        );
        p.scenes[0].transition = Transition::Cut;
        assert!(
            Timeline::of(&p).unwrap().crossfade_frames(0).is_empty(),
            "a cut"
        );
    }

    #[test]
    fn scene_at_walks_the_timeline() {
        let v = resolve(&plan(&[1.0, 2.0])).unwrap();
        assert_eq!(v.scene_at(0.0), (0, 0.0));
        assert_eq!(v.scene_at(0.5), (0, 0.5));
        assert_eq!(v.scene_at(1.0), (1, 0.0));
        let (i, t) = v.scene_at(2.5);
        assert_eq!(i, 1);
        assert!((t - 1.5).abs() < 1e-9);
        let (i, t) = v.scene_at(99.0);
        assert_eq!(i, 1);
        assert!(t < 2.0);
        assert_eq!(v.scene_at(-3.0), (0, 0.0));
        assert_eq!(v.scene_at(f64::NAN), (0, 0.0));
    }

    #[test]
    fn bad_plans_are_rejected_with_clear_errors() {
        assert!(matches!(resolve(&plan(&[])), Err(ResolveError::NoScenes)));
        let e = resolve(&plan(&[1.0, f64::NAN])).unwrap_err();
        assert!(e.to_string().starts_with("scene 1: duration"), "{e}");
        assert!(matches!(
            resolve(&plan(&[0.0])),
            Err(ResolveError::Duration { .. })
        ));
        let mut p = plan(&[1.0]);
        p.fps = 0;
        assert!(matches!(resolve(&p), Err(ResolveError::Fps(0))));
        let mut p = plan(&[1.0]);
        p.fonts_dir = PathBuf::from("/nonexistent");
        let e = resolve(&p).unwrap_err();
        assert!(e.to_string().contains("Inter-Bold.otf"), "{e}");
        let mut p = plan(&[1.0]);
        p.scenes[0].background = Background::Image(PathBuf::from("/nonexistent.png"));
        assert!(matches!(
            resolve(&p),
            Err(ResolveError::Image { scene: 0, .. })
        ));
        assert!(matches!(
            resolve(&plan(&[MAX_TOTAL_SECONDS + 1.0])),
            Err(ResolveError::TooLong(_))
        ));
    }

    #[test]
    fn bad_overlays_are_rejected() {
        let obj = |payload, rect| OverlayObject {
            rect,
            z: 0,
            animation: Animation::Fade,
            start: 0.0,
            end: 1.0,
            payload,
        };
        let ok_rect = CanvasRect::new(10.0, 10.0, 100.0, 100.0);
        for (payload, rect, needle) in [
            (OverlayPayload::Svg("<svg".into()), ok_rect, "SVG"),
            (
                OverlayPayload::Svg("<svg xmlns='http://www.w3.org/2000/svg'/>".into()),
                CanvasRect::new(0.0, 0.0, 0.0, 10.0),
                "rect",
            ),
            (
                OverlayPayload::Png("/nonexistent.png".into()),
                ok_rect,
                "nonexistent",
            ),
        ] {
            let mut p = plan(&[1.0]);
            p.scenes[0].overlay.push(obj(payload, rect));
            let e = resolve(&p).unwrap_err();
            assert!(
                matches!(
                    e,
                    ResolveError::Overlay {
                        scene: 0,
                        object: 0,
                        ..
                    }
                ),
                "{e}"
            );
            assert!(e.to_string().contains(needle), "{e}");
        }
    }
}
