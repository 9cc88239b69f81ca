//! The resolved layers of a scene, each prepared once at resolve time and drawn per frame.
//!
//! Every layer follows the same split: `prepare` (fallible, may be slow: decode, paint,
//! rasterise) and `draw(t, dst)` (infallible, fast: copy or blend pre-rendered pixels, with
//! motion snapped to whole pixels where that looks the same). Drawing order, bottom to top:
//! background → narrator → overlay objects (by z) → captions.

use crate::blit::{self, Sprite};
use crate::clip::{ClipBackground, ClipLayer, ClipNarrator};
use crate::geom::{CANVAS_H, CANVAS_W, PreviewRect, preview_y_to_canvas};
use crate::paint::{Rng, color, mix, rounded_rect, shader_paint};
use crate::plan::{
    Animation, CaptionChunk, MAX_SVG_FILE_BYTES, OverlayObject, OverlayPayload, Palette,
    ProceduralStyle, Rgb, ScenePlan,
};
use crate::raster;
use std::path::Path as FilePath;
use tiny_skia::{
    Color, FillRule, FilterQuality, GradientStop, LinearGradient, Paint, PathBuilder, Pixmap,
    PixmapMut, PixmapPaint, Point, RadialGradient, SpreadMode, Stroke, Transform,
};
use typography::Font;

/// The fonts every layer draws text with.
pub(crate) struct Fonts {
    /// Caption/name face first, fallback after (picked per word).
    pub(crate) bold: Vec<Font>,
    /// Lazily filled font database for SVG text (only built when some overlay is SVG).
    pub(crate) svg_db: Option<std::sync::Arc<usvg::fontdb::Database>>,
}

/// The narrator rect on the canvas, whole pixels, kept inside the canvas: `(x, y, w, h)`;
/// `None` unless the rect is finite with a positive size.
pub(crate) fn narrator_bounds(rect: &PreviewRect) -> Option<(u32, u32, u32, u32)> {
    if !rect.is_valid() {
        return None;
    }
    let c = rect.to_canvas();
    let x = c.x.clamp(0.0, f64::from(CANVAS_W) - 8.0).round() as u32;
    let y = c.y.clamp(0.0, f64::from(CANVAS_H) - 8.0).round() as u32;
    let w = c.w.round().clamp(8.0, f64::from(CANVAS_W - x)) as u32;
    let h = c.h.round().clamp(8.0, f64::from(CANVAS_H - y)) as u32;
    Some((x, y, w, h))
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

// ---------------------------------------------------------------------------------------------
// Painting helpers of the procedural backgrounds.

fn fill_all(p: &mut Pixmap, paint: &Paint<'_>) {
    let rect = tiny_skia::Rect::from_xywh(0.0, 0.0, p.width() as f32, p.height() as f32);
    if let Some(rect) = rect {
        p.fill_rect(rect, paint, Transform::identity(), None);
    }
}

fn radial_glow(p: &mut Pixmap, cx: f32, cy: f32, r: f32, c: Rgb, alpha: f32) {
    radial_disc(p, (cx, cy, r), c, alpha, (0.6, 0.35));
}

/// A soft disc centred at `(cx, cy)` with radius `r`: `alpha` at the centre, `alpha × mid.1` at
/// `mid.0` of the radius, transparent at the edge.
fn radial_disc(p: &mut Pixmap, (cx, cy, r): (f32, f32, f32), c: Rgb, alpha: f32, mid: (f32, f32)) {
    let shader = RadialGradient::new(
        Point::from_xy(cx, cy),
        0.0,
        Point::from_xy(cx, cy),
        r,
        vec![
            GradientStop::new(0.0, color(c, alpha)),
            GradientStop::new(mid.0, color(c, alpha * mid.1)),
            GradientStop::new(1.0, color(c, 0.0)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let (Some(paint), Some(circle)) = (
        shader_paint(shader),
        PathBuilder::from_circle(cx, cy, r.max(0.5)),
    ) {
        p.fill_path(
            &circle,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Background.

/// An opaque plate a little larger than the canvas, panned with whole-pixel offsets: every frame
/// is a straight row copy, never a blend or a resample.
pub(crate) struct PlateBackground {
    plate: Pixmap,
    /// Offset of the canvas window in the plate at the scene start and end.
    from: (f64, f64),
    to: (f64, f64),
    duration: f64,
}

/// Drift speed of backgrounds, canvas pixels per second (gentle).
const DRIFT_PX_PER_S: f64 = 14.0;

impl PlateBackground {
    /// A painted plate: the faceless look, from its seed.
    pub(crate) fn procedural(
        seed: u64,
        style: ProceduralStyle,
        palette: Palette,
        duration: f64,
    ) -> Self {
        Self::drifting(paint_procedural(seed, style, palette), seed, duration)
    }

    /// A still image cover-fitted to the plate; the error is why the file is unusable.
    pub(crate) fn image(index: usize, path: &FilePath, duration: f64) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let img = raster::decode_image(&bytes)?;
        // Cover 110 % of the canvas: the margin is the Ken Burns travel.
        let (w, h) = (CANVAS_W * 11 / 10, CANVAS_H * 11 / 10);
        let covered =
            raster::cover(img.as_ref(), w, h).ok_or("image could not be scaled".to_string())?;
        // Flatten any transparency onto black: the plate must be opaque.
        let mut plate = Pixmap::new(w, h).ok_or("no memory".to_string())?;
        plate.fill(Color::BLACK);
        plate.draw_pixmap(
            0,
            0,
            covered.as_ref(),
            &PixmapPaint::default(),
            Transform::identity(),
            None,
        );
        // The drift direction comes from the image's own bytes (and the scene's position),
        // never from where the file lives, so the same video renders the same frames on every
        // machine and in every checkout.
        let seed = bytes.iter().step_by(61).fold(index as u64, |h, &b| {
            h.wrapping_mul(31).wrapping_add(u64::from(b))
        });
        Ok(Self::drifting(plate, seed, duration))
    }

    /// `plate` drifting across the scene in a direction picked by `seed`.
    fn drifting(plate: Pixmap, seed: u64, duration: f64) -> Self {
        let mx = f64::from(plate.width() - CANVAS_W);
        let my = f64::from(plate.height() - CANVAS_H);
        // Travel at most the margin, at a gentle speed.
        let travel = (duration * DRIFT_PX_PER_S).min(mx.min(my) * 0.9);
        let (cx, cy) = (mx / 2.0, my / 2.0);
        let angle = (seed % 8) as f64 * std::f64::consts::FRAC_PI_4 + 0.3;
        let (dx, dy) = (angle.cos() * travel / 2.0, angle.sin() * travel / 2.0);
        PlateBackground {
            plate,
            from: (cx - dx, cy - dy),
            to: (cx + dx, cy + dy),
            duration,
        }
    }

    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        let f = (t / self.duration).clamp(0.0, 1.0);
        let max_x = (self.plate.width() - CANVAS_W) as usize;
        let max_y = (self.plate.height() - CANVAS_H) as usize;
        let ox = ((self.from.0 + (self.to.0 - self.from.0) * f).round() as usize).min(max_x);
        let oy = ((self.from.1 + (self.to.1 - self.from.1) * f).round() as usize).min(max_y);
        let pw = self.plate.width() as usize * 4;
        let row = CANVAS_W as usize * 4;
        let src = self.plate.data();
        let out = dst.data_mut();
        for (y, dst_row) in out
            .chunks_exact_mut(row)
            .enumerate()
            .take(CANVAS_H as usize)
        {
            let s = (oy + y) * pw + ox * 4;
            dst_row.copy_from_slice(&src[s..s + row]);
        }
    }
}

fn paint_procedural(seed: u64, style: ProceduralStyle, pal: Palette) -> Pixmap {
    const MARGIN: u32 = 80;
    let (w, h) = (CANVAS_W + MARGIN, CANVAS_H + MARGIN);
    let (wf, hf) = (w as f32, h as f32);
    let mut p = Pixmap::new(w, h).expect("constant, non-zero size");
    let mut rng = Rng::new(seed);
    p.fill(color(pal.base, 1.0));
    let (start, end, c0, c1) = match style {
        ProceduralStyle::Grid => (
            (0.0, 0.0),
            (0.0, hf),
            mix(pal.base, pal.glow, 0.25),
            pal.base,
        ),
        ProceduralStyle::Gradient => ((0.0, 0.0), (wf, hf), pal.base, pal.glow),
        ProceduralStyle::Bokeh => (
            (0.0, 0.0),
            (wf * 0.3, hf),
            pal.base,
            mix(pal.base, pal.glow, 0.7),
        ),
    };
    let base = LinearGradient::new(
        Point::from_xy(start.0, start.1),
        Point::from_xy(end.0, end.1),
        vec![
            GradientStop::new(0.0, color(c0, 1.0)),
            GradientStop::new(1.0, color(c1, 1.0)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let Some(paint) = shader_paint(base) {
        fill_all(&mut p, &paint);
    }
    match style {
        ProceduralStyle::Grid => {
            radial_glow(
                &mut p,
                rng.range(0.25, 0.75) * wf,
                rng.range(0.25, 0.5) * hf,
                wf * 0.9,
                pal.glow,
                0.55,
            );
            let cell = 60.0;
            let mut paint = Paint {
                anti_alias: false,
                ..Paint::default()
            };
            let mut line = |p: &mut Pixmap, r: tiny_skia::Rect, major: bool| {
                paint.set_color(color(pal.accent, if major { 0.20 } else { 0.08 }));
                p.fill_rect(r, &paint, Transform::identity(), None);
            };
            let mut i = 0;
            let mut x = 0.0;
            while x < wf {
                if let Some(r) = tiny_skia::Rect::from_xywh(x, 0.0, 2.0, hf) {
                    line(&mut p, r, i % 4 == 0);
                }
                x += cell;
                i += 1;
            }
            let (mut i, mut y) = (0, 0.0);
            while y < hf {
                if let Some(r) = tiny_skia::Rect::from_xywh(0.0, y, wf, 2.0) {
                    line(&mut p, r, i % 4 == 0);
                }
                y += cell;
                i += 1;
            }
            // A few lit nodes on major intersections.
            for _ in 0..10 {
                let gx = (rng.range(0.0, wf / (cell * 4.0))).floor() * cell * 4.0 + 1.0;
                let gy = (rng.range(0.0, hf / (cell * 4.0))).floor() * cell * 4.0 + 1.0;
                radial_glow(&mut p, gx, gy, 26.0, pal.accent, 0.55);
            }
        }
        ProceduralStyle::Gradient => {
            for _ in 0..3 {
                let c = if rng.unit() < 0.5 {
                    pal.accent
                } else {
                    pal.glow
                };
                radial_glow(
                    &mut p,
                    rng.range(0.0, 1.0) * wf,
                    rng.range(0.0, 1.0) * hf,
                    rng.range(0.35, 0.7) * wf,
                    c,
                    0.35,
                );
            }
        }
        ProceduralStyle::Bokeh => {
            radial_glow(&mut p, wf * 0.5, hf * 0.35, wf, pal.glow, 0.35);
            for _ in 0..34 {
                let c = if rng.unit() < 0.6 {
                    pal.accent
                } else {
                    mix(pal.glow, Rgb::new(255, 255, 255), 0.4)
                };
                let r = rng.range(18.0, 110.0);
                let (cx, cy) = (rng.range(0.0, wf), rng.range(0.0, hf));
                let a = rng.range(0.10, 0.35) * (1.0 - r / 160.0);
                radial_disc(&mut p, (cx, cy, r), c, a, (0.75, 0.8));
            }
        }
    }
    // Vignette keeps the edges calm and text readable.
    let (cx, cy) = (wf / 2.0, hf / 2.0);
    let vignette = RadialGradient::new(
        Point::from_xy(cx, cy),
        0.0,
        Point::from_xy(cx, cy),
        hf * 0.62,
        vec![
            GradientStop::new(0.45, Color::from_rgba8(0, 0, 0, 0)),
            GradientStop::new(1.0, Color::from_rgba8(0, 0, 0, 120)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let Some(paint) = shader_paint(vignette) {
        fill_all(&mut p, &paint);
    }
    p
}

// ---------------------------------------------------------------------------------------------
// Text sprites.

/// A rasterised piece of text: coverage plus the offset of its top-left from (pen x, baseline).
struct TextMask {
    cov: typography::Coverage,
    advance: f32,
}

fn text_mask(fonts: &[Font], text: &str, px: f32) -> Option<TextMask> {
    let font = typography::pick_font(fonts, text)?;
    let line = typography::layout_line(font, text, px);
    Some(TextMask {
        advance: line.width,
        cov: typography::rasterize_line(font, &line),
    })
}

fn text_width(fonts: &[Font], text: &str, px: f32) -> f32 {
    typography::pick_font(fonts, text).map_or(0.0, |f| f.measure(text, px))
}

// ---------------------------------------------------------------------------------------------
// Captions.

/// Caption look.
const CAPTION_PX: [f32; 4] = [58.0, 52.0, 46.0, 40.0];
const CAPTION_MAX_W: f32 = 620.0;
const CAPTION_MAX_LINES: usize = 2;
const CAPTION_HIGHLIGHT: Rgb = Rgb::new(255, 214, 10);
const CAPTION_HIGHLIGHT_TEXT: Rgb = Rgb::new(16, 16, 20);

/// One caption word in its two looks.
pub(crate) struct WordSprites {
    start: f64,
    normal: Sprite,
    highlight: Sprite,
}

/// One caption chunk, visible during `[from, until)`.
pub(crate) struct ChunkSprites {
    from: f64,
    until: f64,
    words: Vec<WordSprites>,
}

/// The smallest box holding both.
pub(crate) fn union(a: (i64, i64, i64, i64), b: (i64, i64, i64, i64)) -> (i64, i64, i64, i64) {
    (a.0.min(b.0), a.1.min(b.1), a.2.max(b.2), a.3.max(b.3))
}

impl ChunkSprites {
    /// The canvas pixels the chunk may draw, whichever word is lit; `None` for no words.
    pub(crate) fn bounds(&self) -> Option<(i64, i64, i64, i64)> {
        self.words
            .iter()
            .map(|w| union(w.normal.bounds(), w.highlight.bounds()))
            .reduce(union)
    }

    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        // The word being spoken: the last one that has started (it stays lit through pauses).
        let active = self.words.iter().rposition(|w| w.start <= t);
        for (i, w) in self.words.iter().enumerate() {
            if Some(i) == active {
                w.highlight.draw(dst);
            } else {
                w.normal.draw(dst);
            }
        }
    }
}

pub(crate) fn visible_chunk(chunks: &[ChunkSprites], t: f64) -> Option<&ChunkSprites> {
    chunks.iter().find(|c| c.from <= t && t < c.until)
}

pub(crate) fn prepare_captions(plan: &ScenePlan, fonts: &Fonts) -> Vec<ChunkSprites> {
    let chunks: Vec<&CaptionChunk> = plan
        .captions
        .iter()
        .filter(|c| {
            c.words
                .iter()
                .any(|w| !w.text.trim().is_empty() && w.start.is_finite() && w.end.is_finite())
        })
        .collect();
    let center_y = preview_y_to_canvas(if plan.caption_y.is_finite() {
        plan.caption_y
    } else {
        330.0
    });
    chunks
        .iter()
        .enumerate()
        .map(|(i, chunk)| {
            let from = chunk.start().max(0.0);
            let until = match chunks.get(i + 1) {
                Some(next) if next.start() - chunk.end() <= 1.0 => next.start(),
                Some(_) => chunk.end() + 0.6,
                None => plan.duration.max(chunk.end() + 0.6),
            };
            ChunkSprites {
                from,
                until: until.max(from + 1e-3),
                words: layout_chunk(chunk, center_y, &fonts.bold),
            }
        })
        .collect()
}

fn layout_chunk(chunk: &CaptionChunk, center_y: f64, fonts: &[Font]) -> Vec<WordSprites> {
    let words: Vec<(&str, f64)> = chunk
        .words
        .iter()
        .filter(|w| !w.text.trim().is_empty())
        .map(|w| {
            (
                w.text.trim(),
                if w.start.is_finite() { w.start } else { 0.0 },
            )
        })
        .collect();
    // Largest size that fits in two lines.
    let mut chosen = None;
    for &px in &CAPTION_PX {
        let lines = greedy_lines(&words, fonts, px);
        if lines.len() <= CAPTION_MAX_LINES || px == CAPTION_PX[CAPTION_PX.len() - 1] {
            chosen = Some((px, lines));
            break;
        }
    }
    let Some((px, lines)) = chosen else {
        return Vec::new();
    };
    let Some(metrics) = fonts.first().map(|f| f.line_metrics(px)) else {
        return Vec::new();
    };
    let line_h = (px * 1.22).round();
    let space = text_width(fonts, "a a", px) - 2.0 * text_width(fonts, "a", px);
    let block_h = line_h * lines.len() as f32;
    // Keep the block on the canvas; an over-tall block (a plan with a huge chunk) starts at the top.
    let top = (center_y as f32 - block_h / 2.0)
        .min(CANVAS_H as f32 - block_h - 8.0)
        .max(8.0);
    let outline = (px / 13.0).round().max(3.0) as usize;
    let mut out = Vec::new();
    for (li, line) in lines.iter().enumerate() {
        let width: f32 =
            line.iter().map(|(_, _, w)| w).sum::<f32>() + space * (line.len() - 1) as f32;
        let mut pen = ((CANVAS_W as f32 - width) / 2.0).round();
        let baseline =
            (top + li as f32 * line_h + (line_h + metrics.ascent + metrics.descent) / 2.0).round();
        for &(text, start, w) in line {
            if let Some(m) = text_mask(fonts, text, px) {
                out.push(word_sprites(
                    &m, text, pen, baseline, px, outline, start, &metrics,
                ));
            }
            pen += (w + space).round();
        }
    }
    out
}

fn greedy_lines<'a>(
    words: &[(&'a str, f64)],
    fonts: &[Font],
    px: f32,
) -> Vec<Vec<(&'a str, f64, f32)>> {
    let space = text_width(fonts, "a a", px) - 2.0 * text_width(fonts, "a", px);
    let mut lines: Vec<Vec<(&str, f64, f32)>> = Vec::new();
    let mut width = 0.0;
    for &(text, start) in words {
        let w = text_width(fonts, text, px);
        match lines.last_mut() {
            Some(line) if width + space + w <= CAPTION_MAX_W => {
                line.push((text, start, w));
                width += space + w;
            }
            _ => {
                lines.push(vec![(text, start, w)]);
                width = w;
            }
        }
    }
    lines
}

#[allow(clippy::too_many_arguments)]
fn word_sprites(
    m: &TextMask,
    _text: &str,
    pen: f32,
    baseline: f32,
    px: f32,
    outline: usize,
    start: f64,
    metrics: &typography::LineMetrics,
) -> WordSprites {
    let (cw, ch) = (m.cov.width as usize, m.cov.height as usize);
    let gx = pen as i32 + m.cov.left;
    let gy = baseline as i32 + m.cov.top;
    // Normal: white text on a soft dark outline.
    let (dil, dw, dh) = raster::dilate(&m.cov.data, cw, ch, outline);
    let soft = raster::box_blur(&dil, dw, dh, 1);
    let mut normal = Pixmap::new(dw as u32, dh as u32).expect("non-empty mask");
    raster::paint_coverage(&mut normal, &soft, dw, dh, 0, 0, [0, 0, 0, 215]);
    raster::paint_coverage(
        &mut normal,
        &m.cov.data,
        cw,
        ch,
        outline as i32,
        outline as i32,
        [255, 255, 255, 255],
    );
    // Highlight: dark text on a rounded accent box spanning the line box.
    let pad_x = (px * 0.13).round();
    let pad_y = (px * 0.10).round();
    let box_x = pen - pad_x;
    let box_y = baseline - metrics.ascent - pad_y;
    let box_w = m.advance + 2.0 * pad_x;
    let box_h = metrics.ascent - metrics.descent + 2.0 * pad_y;
    // Sprite bounds: union of box and glyph mask.
    let x0 = (box_x.floor() as i32).min(gx);
    let y0 = (box_y.floor() as i32).min(gy);
    let x1 = ((box_x + box_w).ceil() as i32).max(gx + cw as i32);
    let y1 = ((box_y + box_h).ceil() as i32).max(gy + ch as i32);
    let mut hl = Pixmap::new((x1 - x0).max(1) as u32, (y1 - y0).max(1) as u32).expect("non-empty");
    if let Some(path) = rounded_rect(box_x - x0 as f32, box_y - y0 as f32, box_w, box_h, px * 0.2) {
        let mut paint = Paint {
            anti_alias: true,
            ..Paint::default()
        };
        paint.set_color(color(CAPTION_HIGHLIGHT, 1.0));
        hl.fill_path(
            &path,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
    let t = CAPTION_HIGHLIGHT_TEXT;
    raster::paint_coverage(
        &mut hl,
        &m.cov.data,
        cw,
        ch,
        gx - x0,
        gy - y0,
        [t.r, t.g, t.b, 255],
    );
    WordSprites {
        start,
        normal: Sprite {
            x: gx - outline as i32,
            y: gy - outline as i32,
            pixmap: normal,
        },
        highlight: Sprite {
            x: x0,
            y: y0,
            pixmap: hl,
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Narrator card.

/// The animated narrator card: a static pre-rendered card plus a pulsing ring drawn per frame.
pub(crate) struct NarratorCard {
    card: Sprite,
    /// Avatar centre and radius, canvas space.
    avatar: (f32, f32, f32),
    accent: Rgb,
}

/// Period of the "speaking" pulse.
const PULSE_PERIOD_S: f64 = 1.6;

fn initials(name: &str) -> String {
    let mut it = name.split_whitespace().filter_map(|w| w.chars().next());
    let first = it.next();
    let last = it.next_back();
    first
        .into_iter()
        .chain(last)
        .flat_map(char::to_uppercase)
        .collect()
}

impl NarratorCard {
    pub(crate) fn prepare(
        (x, y, w, h): (u32, u32, u32, u32),
        name: &str,
        pal: Palette,
        fonts: &Fonts,
    ) -> Self {
        let (x, y) = (x as i32, y as i32);
        let (wf, hf) = (w as f32, h as f32);
        let mut card = Pixmap::new(w, h).expect("clamped, non-zero size");
        // Panel.
        let mut paint = Paint {
            anti_alias: true,
            ..Paint::default()
        };
        let radius = (wf.min(hf) * 0.12).clamp(6.0, 32.0);
        if let Some(panel) = rounded_rect(1.0, 1.0, wf - 2.0, hf - 2.0, radius) {
            paint.set_color(Color::from_rgba8(10, 12, 22, 170));
            card.fill_path(
                &panel,
                &paint,
                FillRule::Winding,
                Transform::identity(),
                None,
            );
            paint.set_color(Color::from_rgba8(255, 255, 255, 46));
            let stroke = Stroke {
                width: 2.0,
                ..Stroke::default()
            };
            card.stroke_path(&panel, &paint, &stroke, Transform::identity(), None);
        }
        // Layout: wide cards put the avatar left of the name, tall ones above it.
        let wide = wf > hf * 1.3;
        let r = if wide {
            hf * 0.32
        } else {
            (wf * 0.3).min(hf * 0.27)
        };
        let (acx, acy) = if wide {
            (hf * 0.5, hf * 0.5)
        } else {
            (wf * 0.5, hf * 0.40)
        };
        let avatar_fill = LinearGradient::new(
            Point::from_xy(acx - r, acy - r),
            Point::from_xy(acx + r, acy + r),
            vec![
                GradientStop::new(0.0, color(pal.accent, 1.0)),
                GradientStop::new(1.0, color(mix(pal.accent, pal.glow, 0.6), 1.0)),
            ],
            SpreadMode::Pad,
            Transform::identity(),
        );
        if let (Some(p), Some(circle)) = (
            shader_paint(avatar_fill),
            PathBuilder::from_circle(acx, acy, r.max(1.0)),
        ) {
            card.fill_path(&circle, &p, FillRule::Winding, Transform::identity(), None);
        }
        let bold = &fonts.bold;
        let ini = initials(name);
        if let Some(m) = text_mask(bold, &ini, (r * 0.85).max(8.0)) {
            let ink = mix(pal.base, Rgb::new(0, 0, 0), 0.3);
            let gx = (acx - m.advance / 2.0).round() as i32 + m.cov.left;
            let metrics = bold[0].line_metrics((r * 0.85).max(8.0));
            let baseline = (acy + (metrics.ascent * 0.72) / 2.0).round() as i32;
            raster::paint_coverage(
                &mut card,
                &m.cov.data,
                m.cov.width as usize,
                m.cov.height as usize,
                gx,
                baseline + m.cov.top,
                [ink.r, ink.g, ink.b, 255],
            );
        }
        // Name, shrunk to fit the space beside/below the avatar.
        let (name_x0, name_w, name_cy) = if wide {
            (hf, wf - hf - hf * 0.15, hf * 0.5)
        } else {
            (wf * 0.08, wf * 0.84, acy + r + (hf - (acy + r)) * 0.5)
        };
        let mut px = (hf * if wide { 0.24 } else { 0.13 }).clamp(12.0, 44.0);
        while px > 12.0 && text_width(bold, name, px) > name_w {
            px -= 1.0;
        }
        if let Some(m) = text_mask(bold, name, px) {
            let metrics = bold[0].line_metrics(px);
            let pen = if wide {
                name_x0
            } else {
                name_x0 + ((name_w - m.advance) / 2.0).max(0.0)
            };
            let baseline = (name_cy + (metrics.ascent + metrics.descent) / 2.0).round() as i32;
            raster::paint_coverage(
                &mut card,
                &m.cov.data,
                m.cov.width as usize,
                m.cov.height as usize,
                pen.round() as i32 + m.cov.left,
                baseline + m.cov.top,
                [255, 255, 255, 255],
            );
        }
        NarratorCard {
            card: Sprite { x, y, pixmap: card },
            avatar: (x as f32 + acx, y as f32 + acy, r),
            accent: pal.accent,
        }
    }

    /// The card and its widest pulse ring (with room for anti-aliasing).
    fn bounds(&self) -> (i64, i64, i64, i64) {
        let (cx, cy, r) = self.avatar;
        let reach = r + 3.0 + r * 0.35 + (r * 0.08).max(2.0) + 2.0;
        union(
            self.card.bounds(),
            (
                (cx - reach).floor() as i64,
                (cy - reach).floor() as i64,
                (cx + reach).ceil() as i64,
                (cy + reach).ceil() as i64,
            ),
        )
    }

    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        self.card.draw(dst);
        let (cx, cy, r) = self.avatar;
        // Two expanding rings, half a period apart, fading as they grow.
        for k in 0..2 {
            let phase = ((t / PULSE_PERIOD_S + k as f64 * 0.5).fract()) as f32;
            let radius = r + 3.0 + phase * r * 0.35;
            let alpha = 0.6 * (1.0 - phase);
            if let Some(circle) = PathBuilder::from_circle(cx, cy, radius) {
                let mut paint = Paint {
                    anti_alias: true,
                    ..Paint::default()
                };
                paint.set_color(color(self.accent, alpha));
                let stroke = Stroke {
                    width: (r * 0.08).max(2.0) * (1.0 - phase * 0.5),
                    ..Stroke::default()
                };
                dst.stroke_path(&circle, &paint, &stroke, Transform::identity(), None);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Overlay objects.

/// Largest side of an overlay object's raster, pixels.
const MAX_OBJECT_SIDE: f64 = 4096.0;
/// Farthest an overlay object's corner may sit from the canvas origin, pixels (objects may be
/// partly off-canvas, the API allows negative group y).
const MAX_OBJECT_OFFSET: f64 = 16384.0;
/// Largest SVG source accepted, bytes.
const MAX_SVG_BYTES: usize = 4 << 20;

/// An overlay object rasterised at its settled rect.
pub(crate) struct OverlaySprite {
    pub(crate) z: i32,
    sprite: Sprite,
    animation: Animation,
    start: f64,
    end: f64,
}

/// How an object looks at one moment: translation, scale about an anchor, opacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pose {
    pub(crate) dx: f32,
    pub(crate) dy: f32,
    pub(crate) sx: f32,
    pub(crate) sy: f32,
    /// Scale anchor as a fraction of the rect (0,0 = top-left).
    pub(crate) anchor: (f32, f32),
    pub(crate) opacity: f32,
}

impl Pose {
    pub(crate) const SETTLED: Pose = Pose {
        dx: 0.0,
        dy: 0.0,
        sx: 1.0,
        sy: 1.0,
        anchor: (0.5, 0.5),
        opacity: 1.0,
    };
}

fn ease_out_cubic(p: f32) -> f32 {
    1.0 - (1.0 - p).powi(3)
}

fn ease_out_back(p: f32) -> f32 {
    let c1 = 1.70158;
    let c3 = c1 + 1.0;
    1.0 + c3 * (p - 1.0).powi(3) + c1 * (p - 1.0).powi(2)
}

/// The pose of an object with `animation` at entrance progress `p` (0..1), before exit fading.
pub(crate) fn entrance_pose(animation: Animation, p: f32) -> Pose {
    let p = p.clamp(0.0, 1.0);
    let e = ease_out_cubic(p);
    let mut pose = Pose::SETTLED;
    match animation {
        Animation::Fade => pose.opacity = e,
        Animation::SlideUp => {
            pose.dy = (1.0 - e) * 90.0;
            pose.opacity = e;
        }
        Animation::SlideDown => {
            pose.dy = -(1.0 - e) * 90.0;
            pose.opacity = e;
        }
        Animation::SlideLeft => {
            pose.dx = (1.0 - e) * 140.0;
            pose.opacity = e;
        }
        Animation::SlideRight => {
            pose.dx = -(1.0 - e) * 140.0;
            pose.opacity = e;
        }
        Animation::Pop => {
            let s = 0.5 + 0.5 * ease_out_back(p);
            pose.sx = s;
            pose.sy = s;
            pose.opacity = (p * 3.0).min(1.0);
        }
        Animation::GrowX => {
            pose.sx = e.max(0.001);
            pose.anchor = (0.0, 0.5);
            pose.opacity = (p * 4.0).min(1.0);
        }
        Animation::GrowY => {
            pose.sy = e.max(0.001);
            pose.anchor = (0.5, 1.0);
            pose.opacity = (p * 4.0).min(1.0);
        }
    }
    pose
}

impl OverlaySprite {
    pub(crate) fn prepare(o: &OverlayObject, fonts: &Fonts) -> Result<Self, String> {
        if !o.rect.is_valid() {
            return Err(format!(
                "rect {:?} must be finite with positive size",
                o.rect
            ));
        }
        if o.rect.x.abs() > MAX_OBJECT_OFFSET || o.rect.y.abs() > MAX_OBJECT_OFFSET {
            return Err(format!(
                "rect {:?} is placed more than {MAX_OBJECT_OFFSET} px from the canvas",
                o.rect
            ));
        }
        if o.rect.w > MAX_OBJECT_SIDE || o.rect.h > MAX_OBJECT_SIDE {
            return Err(format!(
                "rect {:?} is larger than {MAX_OBJECT_SIDE} px on a side",
                o.rect
            ));
        }
        if !(o.start.is_finite() && o.end.is_finite() && o.end > o.start) {
            return Err(format!(
                "timing start {} / end {} must be finite with end after start",
                o.start, o.end
            ));
        }
        let w = o.rect.w.round().max(1.0) as u32;
        let h = o.rect.h.round().max(1.0) as u32;
        let pixmap = match &o.payload {
            OverlayPayload::Svg(src) => rasterize_svg(src, w, h, fonts)?,
            OverlayPayload::SvgFile(path) => {
                let src = read_limited(path, MAX_SVG_FILE_BYTES)?;
                rasterize_svg(&src, w, h, fonts)?
            }
            OverlayPayload::Png(path) => {
                let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
                let img =
                    raster::decode_image(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
                raster::contain(img.as_ref(), w, h).ok_or("image could not be scaled")?
            }
        };
        Ok(OverlaySprite {
            z: o.z,
            sprite: Sprite {
                x: o.rect.x.round() as i32,
                y: o.rect.y.round() as i32,
                pixmap,
            },
            animation: o.animation,
            start: o.start,
            end: o.end,
        })
    }

    /// The pose at scene time `t`, or `None` when the object is not on screen.
    pub(crate) fn pose_at(&self, t: f64) -> Option<Pose> {
        if t < self.start || t >= self.end {
            return None;
        }
        let span = self.end - self.start;
        let enter = (0.45f64).min(span / 3.0);
        let exit = (0.25f64).min(span / 4.0);
        let mut pose = entrance_pose(self.animation, ((t - self.start) / enter) as f32);
        pose.opacity *= (((self.end - t) / exit) as f32).clamp(0.0, 1.0);
        Some(pose)
    }

    /// The canvas pixels the object may draw in `pose`: `(x0, y0, x1, y1)`; `None` when it
    /// draws nothing. Matches [`Self::draw`]: whole-pixel offsets for translations, the
    /// transformed rect plus a resampling margin otherwise.
    pub(crate) fn bounds(&self, pose: Pose) -> Option<(i64, i64, i64, i64)> {
        if pose.opacity <= 0.0 {
            return None;
        }
        let s = &self.sprite;
        if pose.sx == 1.0 && pose.sy == 1.0 {
            let (x0, y0, x1, y1) = s.bounds();
            let (dx, dy) = (pose.dx.round() as i64, pose.dy.round() as i64);
            return Some((x0 + dx, y0 + dy, x1 + dx, y1 + dy));
        }
        let (w, h) = (s.pixmap.width() as f32, s.pixmap.height() as f32);
        let ax = s.x as f32 + pose.anchor.0 * w;
        let ay = s.y as f32 + pose.anchor.1 * h;
        let map = |x: f32, y: f32| {
            (
                ax + pose.dx + pose.sx * (x - ax),
                ay + pose.dy + pose.sy * (y - ay),
            )
        };
        let (a, b) = (
            map(s.x as f32, s.y as f32),
            map(s.x as f32 + w, s.y as f32 + h),
        );
        let margin = 2.0;
        Some((
            (a.0.min(b.0) - margin).floor() as i64,
            (a.1.min(b.1) - margin).floor() as i64,
            (a.0.max(b.0) + margin).ceil() as i64,
            (a.1.max(b.1) + margin).ceil() as i64,
        ))
    }

    pub(crate) fn draw(&self, pose: Pose, dst: &mut PixmapMut<'_>) {
        if pose.opacity <= 0.0 {
            return;
        }
        let s = &self.sprite;
        let paint = |quality| PixmapPaint {
            opacity: pose.opacity.min(1.0),
            quality,
            ..PixmapPaint::default()
        };
        if pose.sx == 1.0 && pose.sy == 1.0 && pose.opacity >= 1.0 {
            // Settled or sliding at full opacity: an integer blit at whole pixels.
            blit::blend_over(
                dst,
                s.x + pose.dx.round() as i32,
                s.y + pose.dy.round() as i32,
                s.pixmap.as_ref(),
            );
        } else if pose.sx == 1.0 && pose.sy == 1.0 {
            // Pure translation: snap to whole pixels, no resampling.
            dst.draw_pixmap(
                s.x + pose.dx.round() as i32,
                s.y + pose.dy.round() as i32,
                s.pixmap.as_ref(),
                &paint(FilterQuality::Nearest),
                Transform::identity(),
                None,
            );
        } else {
            let ax = s.x as f32 + pose.anchor.0 * s.pixmap.width() as f32;
            let ay = s.y as f32 + pose.anchor.1 * s.pixmap.height() as f32;
            let tr = Transform::from_translate(ax + pose.dx, ay + pose.dy)
                .pre_scale(pose.sx, pose.sy)
                .pre_translate(-ax, -ay);
            dst.draw_pixmap(
                s.x,
                s.y,
                s.pixmap.as_ref(),
                &paint(FilterQuality::Bilinear),
                tr,
                None,
            );
        }
    }
}

/// Parses and rasterises SVG into a `w`×`h` pixmap (aspect kept, centred). No external file or URL
/// is ever loaded: string hrefs resolve to nothing, only `data:` URLs are decoded, and there is no
/// resources directory.
/// Reads a UTF-8 file of at most `limit` bytes.
fn read_limited(path: &std::path::Path, limit: u64) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    file.take(limit + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if text.len() as u64 > limit {
        return Err(format!("{} is over {limit} bytes", path.display()));
    }
    Ok(text)
}

fn rasterize_svg(src: &str, w: u32, h: u32, fonts: &Fonts) -> Result<Pixmap, String> {
    if src.len() > MAX_SVG_BYTES {
        return Err(format!("SVG is over {MAX_SVG_BYTES} bytes"));
    }
    let mut opt = usvg::Options {
        resources_dir: None,
        font_family: "Inter".into(),
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: usvg::ImageHrefResolver::default_data_resolver(),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    };
    if let Some(db) = &fonts.svg_db {
        opt.fontdb = db.clone();
    }
    let tree =
        usvg::Tree::from_str(src, &opt).map_err(|e| format!("SVG could not be parsed: {e}"))?;
    let size = tree.size();
    let scale = (w as f32 / size.width()).min(h as f32 / size.height());
    let tx = (w as f32 - size.width() * scale) / 2.0;
    let ty = (h as f32 - size.height() * scale) / 2.0;
    let mut pixmap = Pixmap::new(w, h).ok_or("SVG raster has no pixels")?;
    resvg::render(
        &tree,
        Transform::from_translate(tx, ty).pre_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    Ok(pixmap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initials_from_names() {
        assert_eq!(initials("Ada Lovelace"), "AL");
        assert_eq!(initials("ngọc"), "N");
        assert_eq!(initials("Jean Paul Sartre"), "JS");
        assert_eq!(initials("  "), "");
    }

    #[test]
    fn every_preset_settles_and_starts_hidden_or_displaced() {
        for a in Animation::ALL {
            let end = entrance_pose(a, 1.0);
            assert!((end.opacity - 1.0).abs() < 1e-6, "{a:?}");
            assert!(
                (end.sx - 1.0).abs() < 1e-4 && (end.sy - 1.0).abs() < 1e-4,
                "{a:?}"
            );
            assert!(end.dx.abs() < 1e-4 && end.dy.abs() < 1e-4, "{a:?}");
            let start = entrance_pose(a, 0.0);
            assert_ne!(start, Pose::SETTLED, "{a:?} does not animate");
        }
    }
}
