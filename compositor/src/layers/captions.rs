//! Captions: word-timed chunks drawn centred on the caption line, the spoken word highlighted.
//!
//! This module owns the caption look: the sizes tried, the wrap width, the line limit and the
//! words per chunk are public ([`CAPTION_PX`], [`CAPTION_MAX_W`], [`CAPTION_MAX_LINES`],
//! [`CAPTION_WORDS`]), and [`caption_text_box`] answers, with the real font metrics, where the
//! renderer puts a chunk's text, so no other crate needs a copy of these rules. Published as
//! `compositor::captions`.
//!
//! At resolve time each chunk is laid out once ([`layout`]) and each word rasterised in its two
//! looks; per frame the visible chunk only blends its word sprites.

use super::{Fonts, TextMask, text_mask, text_width, union};
use crate::blit::Sprite;
use crate::geom::{CANVAS_H, CANVAS_W, CanvasRect, preview_y_to_canvas};
use crate::paint::{color, rounded_rect};
use crate::plan::{CaptionChunk, Rgb, ScenePlan, TimedWord};
use crate::raster;
use tiny_skia::{FillRule, Paint, Pixmap, PixmapMut, Transform};
use typography::Font;

pub use crate::plan::chunk_words;

/// Caption sizes, canvas px, largest first: a chunk is set in the largest size whose lines
/// fit in [`CAPTION_MAX_LINES`] (the smallest size otherwise).
pub const CAPTION_PX: [f32; 4] = [58.0, 52.0, 46.0, 40.0];
/// Widest a caption line may be, canvas px (words wrap greedily at this width).
pub const CAPTION_MAX_W: f32 = 620.0;
/// Most lines a caption chunk should take.
pub const CAPTION_MAX_LINES: usize = 2;
/// Words per caption chunk the look is designed for (see [`caption_chunks`]).
pub const CAPTION_WORDS: usize = 4;
/// Height of a caption line as a multiple of the size (rounded to whole px).
pub const CAPTION_LINE_HEIGHT: f32 = 1.22;
/// Closest a caption block comes to the top or bottom edge of the canvas, px.
pub const CAPTION_EDGE_MARGIN: f32 = 8.0;
/// Vertical centre of the caption block, preview px, when the plan's `caption_y` is not finite.
pub const DEFAULT_CAPTION_Y: f64 = 330.0;
/// Font files captions (and narrator names) are set in, in fallback order, from the plan's
/// `fonts_dir`; load them with [`crate::resolve::caption_fonts`].
pub const CAPTION_FONTS: [&str; 2] = ["Inter-Bold.otf", "NotoSans-Bold.ttf"];

const CAPTION_HIGHLIGHT: Rgb = Rgb::new(255, 214, 10);
const CAPTION_HIGHLIGHT_TEXT: Rgb = Rgb::new(16, 16, 20);

/// Timed words grouped into caption chunks of [`CAPTION_WORDS`] by the plan's rule
/// ([`chunk_words`]): what the pipeline puts in `ScenePlan::captions`.
pub fn caption_chunks(words: &[TimedWord]) -> Vec<CaptionChunk> {
    chunk_words(words, CAPTION_WORDS)
}

/// The box, canvas space, of the text lines the renderer draws for one caption chunk: from the
/// leftmost line start to the rightmost line end, and from the top of the first line box to
/// the bottom of the last (lines are [`CAPTION_LINE_HEIGHT`] × size high; the outline and the
/// highlight's padding reach a few pixels beyond). `words` are the chunk's words as spoken
/// (blank ones are skipped, as the renderer does), `caption_y` is the plan's
/// `ScenePlan::caption_y` (the caption container's vertical centre, preview space) and `fonts`
/// the [`CAPTION_FONTS`]. `None` when nothing would be drawn (no words, no fonts).
pub fn caption_text_box(words: &[&str], caption_y: f64, fonts: &[Font]) -> Option<CanvasRect> {
    let words: Vec<&str> = words
        .iter()
        .map(|w| w.trim())
        .filter(|w| !w.is_empty())
        .collect();
    let l = layout(&words, caption_center_y(caption_y), fonts)?;
    let x0 = l
        .lines
        .iter()
        .map(|line| line.x)
        .fold(f32::INFINITY, f32::min);
    let x1 = l
        .lines
        .iter()
        .map(|line| line.x + line.width)
        .fold(f32::NEG_INFINITY, f32::max);
    let h = l.line_h * l.lines.len() as f32;
    Some(CanvasRect::new(
        f64::from(x0),
        f64::from(l.top),
        f64::from(x1 - x0),
        f64::from(h),
    ))
}

/// The canvas y of the caption block's centre for a plan's `caption_y` (preview space).
fn caption_center_y(caption_y: f64) -> f64 {
    preview_y_to_canvas(if caption_y.is_finite() {
        caption_y
    } else {
        DEFAULT_CAPTION_Y
    })
}

/// A chunk laid out: the size chosen, the line height, the block's top and its lines.
pub(crate) struct Layout {
    px: f32,
    line_h: f32,
    top: f32,
    metrics: typography::LineMetrics,
    lines: Vec<Line>,
}

/// One caption line: where it starts, how wide it is, its baseline and its words.
struct Line {
    x: f32,
    width: f32,
    baseline: f32,
    words: Vec<PlacedWord>,
}

/// A word of a line: its index in the laid-out words, pen position and advance.
struct PlacedWord {
    index: usize,
    pen: f32,
}

/// Lays out trimmed, non-blank `words` centred on canvas y `center_y`: the largest size of
/// [`CAPTION_PX`] that fits in [`CAPTION_MAX_LINES`] greedy lines, each line centred, the
/// block kept on the canvas. `None` for no words or no fonts.
pub(crate) fn layout(words: &[&str], center_y: f64, fonts: &[Font]) -> Option<Layout> {
    // Largest size that fits in two lines.
    let smallest = CAPTION_PX[CAPTION_PX.len() - 1];
    let (px, lines) = CAPTION_PX.iter().find_map(|&px| {
        let lines = greedy_lines(words, fonts, px);
        (lines.len() <= CAPTION_MAX_LINES || px == smallest).then_some((px, lines))
    })?;
    if lines.is_empty() {
        return None;
    }
    let metrics = fonts.first()?.line_metrics(px);
    let line_h = (px * CAPTION_LINE_HEIGHT).round();
    let space = space_width(fonts, px);
    let block_h = line_h * lines.len() as f32;
    // Keep the block on the canvas; an over-tall block (a plan with a huge chunk) starts at the top.
    let top = (center_y as f32 - block_h / 2.0)
        .min(CANVAS_H as f32 - block_h - CAPTION_EDGE_MARGIN)
        .max(CAPTION_EDGE_MARGIN);
    let lines = lines
        .iter()
        .enumerate()
        .map(|(li, line)| {
            let width: f32 =
                line.iter().map(|(_, w)| w).sum::<f32>() + space * (line.len() - 1) as f32;
            let x = ((CANVAS_W as f32 - width) / 2.0).round();
            let baseline =
                (top + li as f32 * line_h + (line_h + metrics.ascent + metrics.descent) / 2.0)
                    .round();
            let mut pen = x;
            let words = line
                .iter()
                .map(|&(index, w)| {
                    let placed = PlacedWord { index, pen };
                    pen += (w + space).round();
                    placed
                })
                .collect();
            Line {
                x,
                width,
                baseline,
                words,
            }
        })
        .collect();
    Some(Layout {
        px,
        line_h,
        top,
        metrics,
        lines,
    })
}

/// The width of a space between caption words at size `px`.
fn space_width(fonts: &[Font], px: f32) -> f32 {
    text_width(fonts, "a a", px) - 2.0 * text_width(fonts, "a", px)
}

/// Greedy line breaking at [`CAPTION_MAX_W`]: lines of `(word index, word width)`.
fn greedy_lines(words: &[&str], fonts: &[Font], px: f32) -> Vec<Vec<(usize, f32)>> {
    let space = space_width(fonts, px);
    let mut lines: Vec<Vec<(usize, f32)>> = Vec::new();
    let mut width = 0.0;
    for (index, text) in words.iter().enumerate() {
        let w = text_width(fonts, text, px);
        match lines.last_mut() {
            Some(line) if width + space + w <= CAPTION_MAX_W => {
                line.push((index, w));
                width += space + w;
            }
            _ => {
                lines.push(vec![(index, w)]);
                width = w;
            }
        }
    }
    lines
}

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

/// The chunk on screen at scene time `t`, if any.
pub(crate) fn visible_chunk(chunks: &[ChunkSprites], t: f64) -> Option<&ChunkSprites> {
    chunks.iter().find(|c| c.from <= t && t < c.until)
}

/// Every chunk of the scene with visible words, laid out and rasterised, each shown from its
/// first word until the next chunk starts (or a little after its last word at a long pause).
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
    let center_y = caption_center_y(plan.caption_y);
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
                words: chunk_sprites(chunk, center_y, &fonts.bold),
            }
        })
        .collect()
}

/// The word sprites of one chunk, laid out by [`layout`].
fn chunk_sprites(chunk: &CaptionChunk, center_y: f64, fonts: &[Font]) -> Vec<WordSprites> {
    let (texts, starts): (Vec<&str>, Vec<f64>) = chunk
        .words
        .iter()
        .filter(|w| !w.text.trim().is_empty())
        .map(|w| {
            (
                w.text.trim(),
                if w.start.is_finite() { w.start } else { 0.0 },
            )
        })
        .unzip();
    let Some(l) = layout(&texts, center_y, fonts) else {
        return Vec::new();
    };
    let outline = (l.px / 13.0).round().max(3.0) as usize;
    let mut out = Vec::new();
    for line in &l.lines {
        for word in &line.words {
            if let Some(m) = text_mask(fonts, texts[word.index], l.px) {
                let at = WordPlace {
                    pen: word.pen,
                    baseline: line.baseline,
                    px: l.px,
                    outline,
                    metrics: &l.metrics,
                };
                out.push(word_sprites(&m, &at, starts[word.index]));
            }
        }
    }
    out
}

/// Where one word's sprites go and how they look: the word's pen position and baseline, the
/// caption size, the outline width and the font's line metrics at that size.
struct WordPlace<'a> {
    pen: f32,
    baseline: f32,
    px: f32,
    outline: usize,
    metrics: &'a typography::LineMetrics,
}

/// A word's two sprites: white on a soft dark outline, and dark on the highlight box.
fn word_sprites(m: &TextMask, at: &WordPlace<'_>, start: f64) -> WordSprites {
    let WordPlace {
        pen,
        baseline,
        px,
        outline,
        metrics,
    } = *at;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The caption fonts, read directly (resolving sits above this module).
    fn fonts() -> Vec<Font> {
        let dir = crate::plan::tests::fonts_dir();
        CAPTION_FONTS
            .iter()
            .map(|name| Font::from_bytes(std::fs::read(dir.join(name)).unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn text_box_is_centred_on_the_caption_line() {
        let fonts = fonts();
        let b = caption_text_box(&["Hello", "there"], 249.0, &fonts).unwrap();
        let (cx, cy) = b.center();
        assert!((cx - 360.0).abs() <= 1.0, "{b:?}");
        assert!((cy - preview_y_to_canvas(249.0)).abs() <= 1.0, "{b:?}");
        assert_eq!(
            b.h,
            f64::from((CAPTION_PX[0] * CAPTION_LINE_HEIGHT).round())
        );
        assert!(b.w > 0.0 && b.w <= f64::from(CAPTION_MAX_W), "{b:?}");
    }

    #[test]
    fn long_chunks_wrap_shrink_and_stay_on_canvas() {
        let fonts = fonts();
        let long = ["Extraordinarily"; 6];
        let b = caption_text_box(&long, 1e9, &fonts).unwrap();
        assert!(b.w <= f64::from(CAPTION_MAX_W), "{b:?}");
        assert!(
            b.y + b.h <= f64::from(CANVAS_H) - f64::from(CAPTION_EDGE_MARGIN),
            "{b:?}"
        );
        assert!(
            b.h > f64::from((CAPTION_PX[0] * CAPTION_LINE_HEIGHT).round()),
            "{b:?}"
        );
        assert_eq!(caption_text_box(&[" ", ""], 249.0, &fonts), None);
        assert_eq!(caption_text_box(&["word"], 249.0, &[]), None);
    }

    /// The box the function reports is the one the renderer's word sprites sit in.
    #[test]
    fn text_box_holds_the_drawn_words() {
        let fonts = fonts();
        let words = ["Numbers", "tell", "the", "story"];
        let b = caption_text_box(&words, 300.0, &fonts).unwrap();
        let chunk = CaptionChunk {
            words: words
                .iter()
                .enumerate()
                .map(|(i, w)| TimedWord {
                    text: (*w).into(),
                    start: i as f64,
                    end: i as f64 + 0.5,
                })
                .collect(),
        };
        let sprites = chunk_sprites(&chunk, caption_center_y(300.0), &fonts);
        assert_eq!(sprites.len(), 4);
        for w in &sprites {
            let (x0, _, x1, _) = w.normal.bounds();
            let outline = (CAPTION_PX[0] / 13.0).round().max(3.0) as f64;
            assert!(x0 as f64 >= b.x - outline - 2.0 && x1 as f64 <= b.x + b.w + outline + 2.0);
        }
        assert_eq!(caption_chunks(&chunk.words).len(), 1);
    }
}
