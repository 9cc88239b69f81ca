//! The render plan: what a video looks like, scene by scene, and [`resolve`] which turns it into
//! a [`ResolvedVideo`] that renders without failing.
//!
//! Like typst's frame tree, the plan is plain data the pipeline builds (and can serialise, hash and
//! cache). Everything that can go wrong (unreadable fonts, broken or huge images, SVG that does not
//! parse, nonsense durations) goes wrong in [`resolve`], with a [`ResolveError`] that names the
//! scene and object. Resolving also does the expensive one-off work: images are decoded and
//! pre-scaled, procedural backgrounds painted, caption words, narrator cards and SVG overlays
//! rasterised once, so each frame only copies and blends prepared pixels.

use crate::layers::{self, ResolvedScene};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use typography::Font;

pub use crate::geom::{
    CANVAS_H, CANVAS_W, CanvasRect, PREVIEW_H, PREVIEW_W, PreviewRect, Rect, preview_y_to_canvas,
};

/// Frames per second of the final video.
pub const DEFAULT_FPS: u32 = 30;
/// Length of a [`Transition::Fade`] crossfade, seconds.
pub const CROSSFADE_SECONDS: f64 = 0.3;
/// Largest SVG overlay file read by [`OverlayPayload::SvgFile`].
pub const MAX_SVG_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Longest video a plan may describe (four hours), so frame counts stay sane.
pub const MAX_TOTAL_SECONDS: f64 = 4.0 * 3600.0;

/// A whole video: scenes played back to back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoPlan {
    /// Frames per second; the product is 30 fps.
    pub fps: u32,
    /// Scenes in playback order.
    pub scenes: Vec<ScenePlan>,
    /// Folder holding the pinned fonts (`assets/fonts`): `Inter-Bold.otf`, `NotoSans-Bold.ttf`
    /// are required; `Inter-Regular.otf`, `NotoSans-Regular.ttf` are used by SVG text when present.
    pub fonts_dir: PathBuf,
}

/// One scene (one API segment).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenePlan {
    /// Seconds on screen; equals the length of the scene's narration audio.
    pub duration: f64,
    /// What fills the frame behind everything else.
    pub background: Background,
    /// The A-roll presenter, when the scene shows one.
    pub narrator: Option<Narrator>,
    /// Caption chunks in time order (see [`chunk_words`]).
    pub captions: Vec<CaptionChunk>,
    /// Vertical centre of the caption block, in preview space (0..498); the API's
    /// `overlay.caption.y`.
    pub caption_y: f64,
    /// Overlay objects (the `remotion_spec` objects), in canvas space.
    pub overlay: Vec<OverlayObject>,
    /// How this scene hands over to the next one.
    pub transition: Transition,
}

/// A scene background.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Background {
    /// Painted from a seed: the faceless/B-roll fallback when no media fits.
    Procedural {
        /// Seed for every random choice (layout of glows, bokeh, drift direction).
        seed: u64,
        /// The look.
        style: ProceduralStyle,
        /// Colours.
        palette: Palette,
    },
    /// A still image (PNG, JPEG or WebP), cover-fitted with a slow Ken Burns drift.
    Image(PathBuf),
    /// A video clip (anything GStreamer decodes), cover-fitted, frame-accurate, its trim window
    /// looped to fill the scene (or cut short by it).
    Clip(Clip),
}

/// A video clip played in a layer. The scene's first frame shows the clip at `start`; when the
/// window `[start, end)` has played it starts over, so a short clip loops and a long one is cut
/// off by the scene's end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clip {
    /// The video file.
    pub path: PathBuf,
    /// Trim start, seconds into the file.
    #[serde(default)]
    pub start: f64,
    /// Trim end, seconds into the file; `None` (or past the end) means the clip's end.
    #[serde(default)]
    pub end: Option<f64>,
}

impl Clip {
    /// The whole file, looped.
    pub fn new(path: impl Into<PathBuf>) -> Clip {
        Clip {
            path: path.into(),
            start: 0.0,
            end: None,
        }
    }
}

/// Looks for procedural backgrounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProceduralStyle {
    /// A dark gradient with a fine technical grid and a soft glow.
    Grid,
    /// A diagonal two-colour gradient with soft light pools.
    Gradient,
    /// A gradient with out-of-focus light discs.
    Bokeh,
}

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rgb {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
}

impl Rgb {
    /// A colour from its three channels.
    pub const fn new(r: u8, g: u8, b: u8) -> Rgb {
        Rgb { r, g, b }
    }
}

/// The three colours a procedural background (and the narrator card) is painted with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Palette {
    /// The dominant dark tone.
    pub base: Rgb,
    /// The second gradient tone.
    pub glow: Rgb,
    /// Lines, discs and highlights.
    pub accent: Rgb,
}

impl Palette {
    /// Deep blue with cyan light.
    pub const MIDNIGHT: Palette = Palette {
        base: Rgb::new(8, 12, 32),
        glow: Rgb::new(28, 44, 110),
        accent: Rgb::new(80, 200, 255),
    };
    /// Plum to orange.
    pub const SUNSET: Palette = Palette {
        base: Rgb::new(40, 10, 48),
        glow: Rgb::new(190, 70, 60),
        accent: Rgb::new(255, 190, 90),
    };
    /// Teal and mint.
    pub const OCEAN: Palette = Palette {
        base: Rgb::new(4, 30, 40),
        glow: Rgb::new(10, 100, 110),
        accent: Rgb::new(120, 255, 210),
    };
}

/// The on-screen presenter of an A-roll scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Narrator {
    /// An animated card: avatar circle with the narrator's initials and name, with a gentle
    /// "speaking" pulse. Used when the account has no presenter clip.
    Card {
        /// Display name; initials are taken from it.
        name: String,
        /// Where the card sits, preview space (the API's `overlay.narrator.rect`).
        rect: PreviewRect,
    },
    /// The account's presenter clip, cover-fitted into the rect with rounded corners, looped.
    Clip {
        /// The presenter clip.
        clip: Clip,
        /// Where it plays, preview space (the API's `overlay.narrator.rect`).
        rect: PreviewRect,
    },
}

/// A word of narration with its timing, seconds from the scene start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimedWord {
    /// The word as displayed (punctuation attached).
    pub text: String,
    /// When it starts being spoken.
    pub start: f64,
    /// When it stops being spoken.
    pub end: f64,
}

/// Words shown together as one caption (about 3–6 words).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaptionChunk {
    /// The words, in time order.
    pub words: Vec<TimedWord>,
}

impl CaptionChunk {
    /// When the chunk's first word starts.
    pub fn start(&self) -> f64 {
        self.words.first().map_or(0.0, |w| w.start)
    }
    /// When the chunk's last word ends.
    pub fn end(&self) -> f64 {
        self.words.last().map_or(0.0, |w| w.end)
    }
}

/// Groups timed words into caption chunks of at most `max_words` (clamped to 3..=6) words,
/// closing a chunk early after sentence punctuation once it holds at least 2 words, or at a
/// pause of over 0.6 s.
pub fn chunk_words(words: &[TimedWord], max_words: usize) -> Vec<CaptionChunk> {
    let max = max_words.clamp(3, 6);
    let mut chunks = Vec::new();
    let mut cur: Vec<TimedWord> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        cur.push(w.clone());
        let punct = w.text.ends_with(['.', '!', '?', ',', ';', ':']);
        let pause = words.get(i + 1).is_some_and(|n| n.start - w.end > 0.6);
        if cur.len() >= max || (cur.len() >= 2 && punct) || pause {
            chunks.push(CaptionChunk {
                words: std::mem::take(&mut cur),
            });
        }
    }
    if !cur.is_empty() {
        chunks.push(CaptionChunk { words: cur });
    }
    chunks
}

/// An overlay object: one `remotion_spec` object placed on the canvas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverlayObject {
    /// Where it settles, canvas space. The payload is fitted inside (aspect kept, centred).
    pub rect: CanvasRect,
    /// Stacking order; higher draws later (on top). Ties keep plan order.
    pub z: i32,
    /// How it enters.
    pub animation: Animation,
    /// Seconds from scene start when it begins entering.
    pub start: f64,
    /// Seconds from scene start when it has left (it fades out just before).
    pub end: f64,
    /// What it shows.
    pub payload: OverlayPayload,
}

/// Entrance animation presets (the spec's `data-wc-anim`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Animation {
    /// Rises into place from below.
    SlideUp,
    /// Drops into place from above.
    SlideDown,
    /// Slides in from the right, moving left.
    SlideLeft,
    /// Slides in from the left, moving right.
    SlideRight,
    /// Scales up from the centre with a little overshoot.
    Pop,
    /// Grows horizontally from its left edge.
    GrowX,
    /// Grows vertically from its bottom edge.
    GrowY,
    /// Fades in (the default).
    #[default]
    Fade,
}

impl Animation {
    /// Every preset, for exhaustive tests and docs.
    pub const ALL: [Animation; 8] = [
        Animation::SlideUp,
        Animation::SlideDown,
        Animation::SlideLeft,
        Animation::SlideRight,
        Animation::Pop,
        Animation::GrowX,
        Animation::GrowY,
        Animation::Fade,
    ];
}

/// The pixels of an overlay object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverlayPayload {
    /// SVG source, rasterised with resvg. External references (files, URLs) are never loaded;
    /// `data:` URLs are.
    Svg(String),
    /// An SVG file, read (at most [`MAX_SVG_FILE_BYTES`]) and rasterised like [`Self::Svg`].
    SvgFile(PathBuf),
    /// A raster image file (PNG; JPEG and WebP are recognised too).
    Png(PathBuf),
}

/// How a scene hands over to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Transition {
    /// Hard cut.
    #[default]
    Cut,
    /// Crossfade over the last [`CROSSFADE_SECONDS`] of this scene into the next scene's first
    /// frame; the timeline does not change length.
    Fade,
}

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
    /// Start time of each scene on the timeline, seconds.
    pub(crate) starts: Vec<f64>,
    /// Sum of the scene durations.
    pub(crate) total: f64,
}

impl std::fmt::Debug for ResolvedVideo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedVideo")
            .field("fps", &self.fps)
            .field("scenes", &self.scenes.len())
            .field("duration", &self.total)
            .finish()
    }
}

/// The fonts every scene draws with.
pub(crate) struct Fonts {
    /// Caption/name face first, fallback after (picked per word).
    pub(crate) bold: Vec<Font>,
    /// Lazily filled font database for SVG text (only built when some overlay is SVG).
    pub(crate) svg_db: Option<std::sync::Arc<usvg::fontdb::Database>>,
}

fn load_font(dir: &Path, name: &str) -> Result<(Vec<u8>, Font), ResolveError> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).map_err(|e| ResolveError::Font {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let font = Font::from_bytes(bytes.clone()).map_err(|e| ResolveError::Font {
        path,
        reason: e.to_string(),
    })?;
    Ok((bytes, font))
}

fn load_fonts(plan: &VideoPlan) -> Result<Fonts, ResolveError> {
    let dir = &plan.fonts_dir;
    let (inter_bytes, inter) = load_font(dir, "Inter-Bold.otf")?;
    let (noto_bytes, noto) = load_font(dir, "NotoSans-Bold.ttf")?;
    let needs_svg = plan.scenes.iter().any(|s| {
        s.overlay.iter().any(|o| {
            matches!(
                o.payload,
                OverlayPayload::Svg(_) | OverlayPayload::SvgFile(_)
            )
        })
    });
    let svg_db = needs_svg.then(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(inter_bytes);
        db.load_font_data(noto_bytes);
        for optional in [
            "Inter-Regular.otf",
            "NotoSans-Regular.ttf",
            "Inter-ExtraBold.otf",
        ] {
            if let Ok(bytes) = std::fs::read(dir.join(optional)) {
                db.load_font_data(bytes);
            }
        }
        db.set_sans_serif_family("Inter");
        std::sync::Arc::new(db)
    });
    Ok(Fonts {
        bold: vec![inter, noto],
        svg_db,
    })
}

/// Probe results of every distinct clip file of a plan.
pub(crate) type ClipProbes =
    std::collections::HashMap<PathBuf, Result<crate::media::ClipInfo, String>>;

/// Probes each distinct clip of the plan once (in parallel): a presenter clip shared by every
/// A-roll scene is opened a single time.
fn probe_clips(plan: &VideoPlan) -> ClipProbes {
    use rayon::prelude::*;
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
            let info = crate::media::probe_clip(p).map_err(|e| e.to_string());
            (p.to_owned(), info)
        })
        .collect()
}

/// Checks and prepares a plan for rendering: validates timings and rects, loads the pinned fonts,
/// decodes and pre-scales images (each side at most 8192 px), probes video clips (each must
/// decode a first frame; see [`crate::media::probe_clip`]), rasterises SVG overlays (without
/// loading any external reference) and pre-renders captions, narrator cards and backgrounds.
pub fn resolve(plan: &VideoPlan) -> Result<ResolvedVideo, ResolveError> {
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
    let fonts = load_fonts(plan)?;
    let clips = probe_clips(plan);
    let scenes = plan
        .scenes
        .iter()
        .enumerate()
        .map(|(i, s)| layers::resolve_scene(i, s, &fonts, &clips))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ResolvedVideo {
        fps: plan.fps,
        scenes,
        starts,
        total,
    })
}

impl ResolvedVideo {
    /// Number of frames: `round(duration × fps)`, at least 1, so the video's length equals the
    /// sum of the scene durations within one frame.
    pub fn frame_count(&self) -> u64 {
        ((self.total * f64::from(self.fps)).round() as u64).max(1)
    }

    /// Total duration, seconds (the sum of scene durations).
    pub fn duration(&self) -> f64 {
        self.total
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
        let t = if t.is_finite() {
            t.clamp(0.0, self.total)
        } else {
            0.0
        };
        let i = self.starts.partition_point(|&s| s <= t).saturating_sub(1);
        let d = self.scenes[i].duration;
        let local = (t - self.starts[i]).clamp(0.0, d);
        // A time exactly at the end belongs to the last frame of the scene.
        let local = if local >= d {
            (d - 1e-9).max(0.0)
        } else {
            local
        };
        (i, local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn fonts_dir() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/fonts"))
    }

    fn scene(duration: f64) -> ScenePlan {
        ScenePlan {
            duration,
            background: Background::Procedural {
                seed: 1,
                style: ProceduralStyle::Gradient,
                palette: Palette::MIDNIGHT,
            },
            narrator: None,
            captions: vec![],
            caption_y: 330.0,
            overlay: vec![],
            transition: Transition::Cut,
        }
    }

    fn plan(durations: &[f64]) -> VideoPlan {
        VideoPlan {
            fps: DEFAULT_FPS,
            scenes: durations.iter().map(|&d| scene(d)).collect(),
            fonts_dir: fonts_dir(),
        }
    }

    #[test]
    fn frame_count_matches_summed_durations() {
        let v = resolve(&plan(&[1.234, 2.5, 0.77])).unwrap();
        let total = 1.234 + 2.5 + 0.77;
        assert!((v.duration() - total).abs() < 1e-9);
        assert_eq!(v.frame_count(), (total * 30.0_f64).round() as u64);
        assert!((v.frame_count() as f64 / 30.0 - total).abs() <= 1.0 / 30.0);
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

    #[test]
    fn extreme_but_valid_plans_render_without_panicking() {
        let mut p = plan(&[2.0]);
        let long: Vec<TimedWord> = (0..120)
            .map(|i| TimedWord {
                text: format!("word{i}"),
                start: f64::from(i) * 0.01,
                end: f64::from(i) * 0.01 + 0.01,
            })
            .collect();
        p.scenes[0].captions = vec![CaptionChunk { words: long }, CaptionChunk { words: vec![] }];
        p.scenes[0].caption_y = -1e9;
        p.scenes[0].narrator = Some(Narrator::Card {
            name: String::new(),
            rect: PreviewRect::new(1e6, -1e6, 1e9, 0.1),
        });
        p.scenes[0].overlay.push(OverlayObject {
            rect: CanvasRect::new(-700.0, 1270.0, 4000.0, 30.0),
            z: -5,
            animation: Animation::Pop,
            start: -1.0,
            end: 1e6,
            payload: OverlayPayload::Svg(
                "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>".into(),
            ),
        });
        let v = resolve(&p).unwrap();
        let mut frame = vec![0u8; crate::FRAME_BYTES];
        for i in 0..v.frame_count() {
            v.render_frame(i, &mut frame);
        }
        p.scenes[0].overlay[0].rect.x = 1e300;
        assert!(matches!(resolve(&p), Err(ResolveError::Overlay { .. })));
    }

    #[test]
    fn chunking_groups_three_to_six_words() {
        let words: Vec<TimedWord> = "one two three four five six seven eight. nine ten"
            .split(' ')
            .enumerate()
            .map(|(i, w)| TimedWord {
                text: w.into(),
                start: i as f64 * 0.3,
                end: i as f64 * 0.3 + 0.25,
            })
            .collect();
        let chunks = chunk_words(&words, 4);
        let sizes: Vec<usize> = chunks.iter().map(|c| c.words.len()).collect();
        assert_eq!(sizes, vec![4, 4, 2]);
        assert_eq!(chunk_words(&words, 100)[0].words.len(), 6);
        assert!(chunk_words(&[], 4).is_empty());
    }

    #[test]
    fn plan_round_trips_through_json() {
        let mut p = plan(&[1.0]);
        p.scenes[0].overlay.push(OverlayObject {
            rect: CanvasRect::new(1.0, 2.0, 3.0, 4.0),
            z: 2,
            animation: Animation::SlideUp,
            start: 0.0,
            end: 1.0,
            payload: OverlayPayload::Svg("<svg/>".into()),
        });
        let json = serde_json::to_string(&p).unwrap();
        assert!(json.contains("\"slide-up\""));
        let back: VideoPlan = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
    }
}
