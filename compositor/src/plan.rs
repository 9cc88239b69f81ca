//! The render plan: what a video looks like, scene by scene, as plain data.
//!
//! Like typst's frame tree, the plan is data the pipeline builds (and can serialise, hash and
//! cache); this module holds only its types and the small rules that build them
//! ([`chunk_words`]). Nothing here reads a file or can fail: checking and preparing a plan for
//! rendering is [`crate::resolve`]'s job, which turns it into a [`ResolvedVideo`].

pub use crate::focus::BackgroundFit;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub use crate::geom::{
    CANVAS_H, CANVAS_W, CanvasRect, PREVIEW_H, PREVIEW_W, PreviewRect, Rect, preview_y_to_canvas,
};

/// Frames per second of the final video.
pub const DEFAULT_FPS: u32 = 30;
/// Length of a [`Transition::Fade`] crossfade, seconds.
pub const CROSSFADE_SECONDS: f64 = 0.3;

/// How far a scene of `duration` seconds has faded into the next one at scene time `local`
/// (0–1): `None` outside its crossfade (the last [`CROSSFADE_SECONDS`], at most half the scene),
/// or when it does not `fade` (its transition is a cut, or no scene follows).
pub fn crossfade_alpha(duration: f64, fades: bool, local: f64) -> Option<f64> {
    let fade = CROSSFADE_SECONDS.min(duration * 0.5);
    let into_fade = local - (duration - fade);
    (fades && into_fade > 0.0).then(|| (into_fade / fade).clamp(0.0, 1.0))
}
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
    /// How a still background sits on its plate (`crate::focus`); other backgrounds ignore it.
    #[serde(default)]
    pub background_fit: BackgroundFit,
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

/// A word of narration with its timing, seconds from the scene start: the workspace's one
/// timed word, owned by typography.
pub use typography::TimedWord;

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
        let punct = w.word.ends_with(['.', '!', '?', ',', ';', ':']);
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

#[cfg(test)]
pub(crate) mod tests {
    //! Plan builders shared by the unit tests of the modules that resolve and render plans.
    use super::*;

    pub(crate) fn fonts_dir() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/fonts"))
    }

    pub(crate) fn scene(duration: f64) -> ScenePlan {
        ScenePlan {
            background_fit: Default::default(),
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

    pub(crate) fn plan(durations: &[f64]) -> VideoPlan {
        VideoPlan {
            fps: DEFAULT_FPS,
            scenes: durations.iter().map(|&d| scene(d)).collect(),
            fonts_dir: fonts_dir(),
        }
    }

    #[test]
    fn chunking_groups_three_to_six_words() {
        let words: Vec<TimedWord> = "one two three four five six seven eight. nine ten"
            .split(' ')
            .enumerate()
            .map(|(i, w)| TimedWord {
                word: w.into(),
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
