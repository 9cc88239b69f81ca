//! The resolved layers of a scene, each prepared once at resolve time and drawn per frame.
//!
//! Every layer follows the same split: `prepare` (fallible, may be slow: decode, paint,
//! rasterise) and `draw(t, dst)` (infallible, fast: copy or blend pre-rendered pixels, with
//! motion snapped to whole pixels where that looks the same). Drawing order, bottom to top:
//! background → narrator → overlay objects (by z) → captions.
//!
//! - [`background`]: procedural and image plates (clip backgrounds are `crate::clip`);
//! - [`narrator`]: the narrator card (the presenter clip is `crate::clip`);
//! - [`overlay`]: overlay objects and their animation presets;
//! - [`captions`]: caption chunks, and the public caption look (`compositor::captions`).
//!
//! Layers fail with a plain reason; `crate::resolve` names the scene and object around it.

pub(crate) mod background;
pub mod captions;
mod narrator;
mod overlay;

pub(crate) use background::PlateBackground;
pub(crate) use captions::{ChunkSprites, prepare_captions, visible_chunk};
pub(crate) use narrator::{NarratorCard, narrator_bounds};
pub(crate) use overlay::{OverlaySprite, Pose};

use crate::clip::{ClipBackground, ClipLayer, ClipNarrator};
use crate::plan::{Narrator, VideoPlan};
use tiny_skia::PixmapMut;
use typography::Font;

/// The fonts every layer draws text with.
#[derive(Clone)]
pub(crate) struct Fonts {
    /// Caption/name face first, fallback after (picked per word).
    pub(crate) bold: Vec<Font>,
    /// Lazily filled font database for SVG text (only built when some overlay is SVG).
    pub(crate) svg_db: Option<std::sync::Arc<usvg::fontdb::Database>>,
}

/// What fills the frame first.
pub(crate) enum BackgroundLayer {
    /// A painted or decoded still, panned.
    Plate(PlateBackground),
    /// A video clip (boxed: it carries a decoder's state).
    Clip(Box<ClipBackground>),
}

impl BackgroundLayer {
    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        match self {
            BackgroundLayer::Plate(p) => p.draw(t, dst),
            BackgroundLayer::Clip(c) => c.draw(t, dst),
        }
    }

    pub(crate) fn clip(&self) -> Option<&ClipLayer> {
        match self {
            BackgroundLayer::Clip(c) => Some(&c.clip),
            BackgroundLayer::Plate(_) => None,
        }
    }

    pub(crate) fn plate(&self) -> Option<&PlateBackground> {
        match self {
            BackgroundLayer::Plate(p) => Some(p),
            BackgroundLayer::Clip(_) => None,
        }
    }
}

/// The A-roll presenter.
pub(crate) enum NarratorLayer {
    /// The animated card.
    Card(NarratorCard),
    /// The presenter clip (boxed: it carries a decoder's state and its mask).
    Clip(Box<ClipNarrator>),
}

impl NarratorLayer {
    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        match self {
            NarratorLayer::Card(c) => c.draw(t, dst),
            NarratorLayer::Clip(c) => c.draw(t, dst),
        }
    }

    pub(crate) fn clip(&self) -> Option<&ClipLayer> {
        match self {
            NarratorLayer::Clip(c) => Some(&c.clip),
            NarratorLayer::Card(_) => None,
        }
    }

    /// The canvas pixels the layer may draw at any time: `(x0, y0, x1, y1)`.
    pub(crate) fn bounds(&self) -> (i64, i64, i64, i64) {
        match self {
            NarratorLayer::Clip(c) => c.bounds(),
            NarratorLayer::Card(c) => c.bounds(),
        }
    }
}

/// The smallest box holding both `(x0, y0, x1, y1)` boxes.
pub(crate) fn union(a: (i64, i64, i64, i64), b: (i64, i64, i64, i64)) -> (i64, i64, i64, i64) {
    (a.0.min(b.0), a.1.min(b.1), a.2.max(b.2), a.3.max(b.3))
}

/// Every piece of text `plan` sets in the caption fonts: caption words, narrator names and
/// their initials. What decides which fallback faces a render needs.
pub(crate) fn caption_font_texts(plan: &VideoPlan) -> Vec<String> {
    let mut texts = Vec::new();
    for scene in &plan.scenes {
        let words = scene.captions.iter().flat_map(|c| &c.words);
        texts.extend(words.map(|w| w.word.trim().to_owned()));
        if let Some(Narrator::Card { name, .. }) = &scene.narrator {
            texts.push(name.clone());
            texts.push(narrator::initials(name));
        }
    }
    texts
}

/// A rasterised piece of text: coverage plus the offset of its top-left from (pen x, baseline).
struct TextMask {
    cov: typography::Coverage,
    advance: f32,
}

/// `text` rasterised at `px` in the first font that covers it.
fn text_mask(fonts: &[Font], text: &str, px: f32) -> Option<TextMask> {
    let font = typography::pick_font(fonts, text)?;
    let line = typography::layout_line(font, text, px);
    Some(TextMask {
        advance: line.width,
        cov: typography::rasterize_line(font, &line),
    })
}

/// The advance of `text` at `px` in the first font that covers it (0 when none does).
fn text_width(fonts: &[Font], text: &str, px: f32) -> f32 {
    typography::pick_font(fonts, text).map_or(0.0, |f| f.measure(text, px))
}
