//! Typography: the text layer under the compositor.
//!
//! Reelsmith draws every caption, narrator name and poster line through this crate, so preview and
//! final MP4 agree on where every glyph lands. It sits at the bottom of the crate chain
//! (`pipeline → compositor → typography`) and is pure: callers hand in font *bytes* (the pinned
//! files in `assets/fonts`), never paths, so nothing here touches the file system or system fonts.
//!
//! The pieces, in the order a caller uses them:
//! - [`canvas`]: the 720×1280 canvas and the safe band y 128–960, owned here for every crate.
//! - [`TimedWord`]: a word and when it is spoken, the one timed-word type of the workspace.
//! - [`Font`]: a parsed font. `fontdue` gives metrics and anti-aliased coverage; the raw bytes are
//!   kept so [`Font::face`] can hand out a `ttf-parser` face for outlining glyphs into paths.
//! - [`split_forced_breaks`] and [`break_lines`]: forced breaks (`|`, `->`, `→`, newline), then
//!   greedy word wrapping into a maximum width.
//! - [`layout_line`]: one line of words → positioned glyphs plus each word's horizontal span (the
//!   compositor needs word spans to highlight the word being spoken).
//! - [`rasterize_line`]: a laid-out line → an 8-bit [`Coverage`] mask the compositor colours and
//!   blends.
//! - [`outline`]: a laid-out line → SVG path data (text as outlines, no `<text>`, no font needed
//!   by whoever renders it).
//! - [`design`]: the typography endpoint's designer: roles, poster copy rules, fitting into the
//!   safe band, word-timed phases, brand colours and `look` styles, each object as an SVG.
#![forbid(unsafe_code)]

pub mod canvas;
pub mod design;
pub mod outline;
pub mod words;

pub use words::TimedWord;

use std::sync::Arc;

/// Why a font could not be used.
#[derive(Debug, thiserror::Error)]
pub enum FontError {
    /// The bytes are not a font fontdue or ttf-parser can read.
    #[error("font could not be parsed: {0}")]
    Parse(String),
}

/// A parsed font, cheap to clone (the bytes are shared).
#[derive(Clone)]
pub struct Font {
    /// Metrics, kerning and coverage rasterisation.
    raster: Arc<fontdue::Font>,
    /// The original bytes, kept so outline work can re-borrow a `ttf_parser::Face` at will.
    data: Arc<[u8]>,
}

impl std::fmt::Debug for Font {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Font")
            .field("name", &self.raster.name())
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// Vertical metrics of a font at one pixel size (y grows downwards; `descent` is negative).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineMetrics {
    /// Distance from the baseline up to the top of the line box.
    pub ascent: f32,
    /// Distance from the baseline down to the bottom of the line box (negative).
    pub descent: f32,
    /// Recommended extra gap between lines.
    pub line_gap: f32,
}

impl LineMetrics {
    /// Baseline-to-baseline distance.
    pub fn line_height(&self) -> f32 {
        self.ascent - self.descent + self.line_gap
    }
}

impl Font {
    /// Parses a TrueType/OpenType (TTF or CFF-flavoured OTF) font from its bytes.
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> Result<Font, FontError> {
        let data: Arc<[u8]> = bytes.into();
        // Validate with ttf-parser too, so `face()` can never fail later.
        ttf_parser::Face::parse(&data, 0).map_err(|e| FontError::Parse(e.to_string()))?;
        let raster = fontdue::Font::from_bytes(
            &data[..],
            fontdue::FontSettings {
                scale: 64.0,
                ..fontdue::FontSettings::default()
            },
        )
        .map_err(|e| FontError::Parse(e.to_string()))?;
        Ok(Font {
            raster: Arc::new(raster),
            data,
        })
    }

    /// The `ttf-parser` view of the same font, for outline extraction.
    pub fn face(&self) -> ttf_parser::Face<'_> {
        // Parsed successfully in `from_bytes`; parsing is deterministic over the same bytes.
        ttf_parser::Face::parse(&self.data, 0).expect("font bytes validated at load")
    }

    /// The font's full name, when it has one.
    pub fn name(&self) -> Option<&str> {
        self.raster.name()
    }

    /// Whether the font has a real glyph (not `.notdef`) for `c`.
    pub fn has_glyph(&self, c: char) -> bool {
        self.raster.lookup_glyph_index(c) != 0
    }

    /// Whether every non-whitespace character of `text` has a glyph.
    pub fn covers(&self, text: &str) -> bool {
        text.chars()
            .filter(|c| !c.is_whitespace())
            .all(|c| self.has_glyph(c))
    }

    /// Vertical metrics at `px` pixels per em.
    pub fn line_metrics(&self, px: f32) -> LineMetrics {
        match self.raster.horizontal_line_metrics(px) {
            Some(m) => LineMetrics {
                ascent: m.ascent,
                descent: m.descent,
                line_gap: m.line_gap,
            },
            // Fonts without hhea metrics: a conventional 0.8/0.2 split.
            None => LineMetrics {
                ascent: px * 0.8,
                descent: -px * 0.2,
                line_gap: 0.0,
            },
        }
    }

    /// Advance width of `text` set on one line at `px`, including kerning.
    pub fn measure(&self, text: &str, px: f32) -> f32 {
        layout_line(self, text, px).width
    }
}

/// One glyph placed on a line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlacedGlyph {
    /// Glyph id in the font.
    pub glyph: u16,
    /// Pen position (left edge of the advance) relative to the line start.
    pub x: f32,
}

/// A word's horizontal extent on a laid-out line.
#[derive(Debug, Clone, PartialEq)]
pub struct WordSpan {
    /// The word's text.
    pub text: String,
    /// Left edge relative to the line start.
    pub x: f32,
    /// Advance width of the word (without the following space).
    pub width: f32,
}

/// A line of words laid out left to right at one size.
#[derive(Debug, Clone, PartialEq)]
pub struct LineLayout {
    /// Pixel size the line was laid out at.
    pub px: f32,
    /// Every glyph, words separated by one space advance.
    pub glyphs: Vec<PlacedGlyph>,
    /// Words in order, with their spans.
    pub words: Vec<WordSpan>,
    /// Total advance width of the line.
    pub width: f32,
}

/// Lays out `text` on one line: words split on whitespace, joined by a single space.
pub fn layout_line(font: &Font, text: &str, px: f32) -> LineLayout {
    let f = &font.raster;
    let space = f.metrics(' ', px).advance_width;
    let mut glyphs = Vec::new();
    let mut words = Vec::new();
    let mut pen = 0.0f32;
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            pen += space;
        }
        let start = pen;
        let mut prev: Option<u16> = None;
        for c in word.chars() {
            let g = f.lookup_glyph_index(c);
            if let Some(p) = prev {
                pen += f.horizontal_kern_indexed(p, g, px).unwrap_or(0.0);
            }
            glyphs.push(PlacedGlyph { glyph: g, x: pen });
            pen += f.metrics_indexed(g, px).advance_width;
            prev = Some(g);
        }
        words.push(WordSpan {
            text: word.to_string(),
            x: start,
            width: pen - start,
        });
    }
    LineLayout {
        px,
        glyphs,
        words,
        width: pen,
    }
}

/// Splits text at forced breaks: `|`, `->`, `→` and newlines. Pieces are trimmed; empty pieces
/// (e.g. from `a||b`) are dropped.
pub fn split_forced_breaks(text: &str) -> Vec<String> {
    text.replace("->", "\n")
        .split(['\n', '|', '→'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Breaks `text` into lines no wider than `max_width` at `px`: forced breaks first, then greedy
/// word wrapping. A single word wider than `max_width` gets a line of its own (never split).
pub fn break_lines(font: &Font, text: &str, px: f32, max_width: f32) -> Vec<String> {
    let space = font.raster.metrics(' ', px).advance_width;
    let mut lines = Vec::new();
    for piece in split_forced_breaks(text) {
        let mut line = String::new();
        let mut width = 0.0f32;
        for word in piece.split_whitespace() {
            let w = font.measure(word, px);
            if line.is_empty() {
                line.push_str(word);
                width = w;
            } else if width + space + w <= max_width {
                line.push(' ');
                line.push_str(word);
                width += space + w;
            } else {
                lines.push(std::mem::take(&mut line));
                line.push_str(word);
                width = w;
            }
        }
        if !line.is_empty() {
            lines.push(line);
        }
    }
    lines
}

/// An 8-bit alpha coverage mask with its placement relative to the line origin.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// x of the mask's left column relative to the line start (usually ≤ 0).
    pub left: i32,
    /// y of the mask's top row relative to the baseline (negative: above it).
    pub top: i32,
    /// Row-major coverage, 0 = empty, 255 = fully inside a glyph.
    pub data: Vec<u8>,
}

impl Coverage {
    /// Whether any pixel is covered.
    pub fn is_blank(&self) -> bool {
        self.data.iter().all(|&a| a == 0)
    }
}

/// Rasterises a laid-out line into one coverage mask. The mask spans the line box (ascent to
/// descent, 0 to width) and grows to include anything drawn outside it (stacked Vietnamese
/// diacritics above capitals, overhanging italics). Glyphs are placed on whole pixels.
pub fn rasterize_line(font: &Font, line: &LineLayout) -> Coverage {
    let f = &font.raster;
    let m = font.line_metrics(line.px);
    let rendered: Vec<(i32, fontdue::Metrics, Vec<u8>)> = line
        .glyphs
        .iter()
        .map(|g| {
            let (metrics, bitmap) = f.rasterize_indexed(g.glyph, line.px);
            (g.x.round() as i32, metrics, bitmap)
        })
        .collect();
    // Bounds relative to (line start, baseline), y down.
    let mut x0 = 0i32;
    let mut x1 = line.width.ceil() as i32;
    let mut y0 = -(m.ascent.ceil() as i32);
    let mut y1 = (-m.descent).ceil() as i32;
    for (pen, gm, _) in &rendered {
        if gm.width == 0 || gm.height == 0 {
            continue;
        }
        let gx = pen + gm.xmin;
        let gy = -(gm.ymin + gm.height as i32);
        x0 = x0.min(gx);
        x1 = x1.max(gx + gm.width as i32);
        y0 = y0.min(gy);
        y1 = y1.max(gy + gm.height as i32);
    }
    let width = (x1 - x0).max(1) as u32;
    let height = (y1 - y0).max(1) as u32;
    let mut data = vec![0u8; (width * height) as usize];
    for (pen, gm, bitmap) in &rendered {
        let gx = pen + gm.xmin - x0;
        let gy = -(gm.ymin + gm.height as i32) - y0;
        for row in 0..gm.height {
            let dst_row = (gy + row as i32) as usize * width as usize;
            for col in 0..gm.width {
                let a = bitmap[row * gm.width + col];
                if a == 0 {
                    continue;
                }
                let d = &mut data[dst_row + (gx + col as i32) as usize];
                // Overlapping glyphs (tight kerning): keep the stronger coverage.
                *d = (*d).max(a);
            }
        }
    }
    Coverage {
        width,
        height,
        left: x0,
        top: y0,
        data,
    }
}

/// Picks the first font in `fonts` that covers every character of `text`, else the first font.
/// Used for per-word fallback (e.g. Inter first, Noto for anything Inter lacks).
pub fn pick_font<'a>(fonts: &'a [Font], text: &str) -> Option<&'a Font> {
    fonts
        .iter()
        .find(|f| f.covers(text))
        .or_else(|| fonts.first())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn font(name: &str) -> Font {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/fonts/").to_string() + name;
        Font::from_bytes(std::fs::read(path).unwrap()).unwrap()
    }

    const VIETNAMESE: &str = "Xin chào thế giới, đây là tiếng Việt";

    #[test]
    fn rejects_garbage() {
        assert!(Font::from_bytes(vec![1u8, 2, 3]).is_err());
    }

    #[test]
    fn vietnamese_every_char_has_a_real_nonempty_glyph() {
        for name in [
            "NotoSans-Regular.ttf",
            "NotoSans-Bold.ttf",
            "Inter-Regular.otf",
            "Inter-Bold.otf",
        ] {
            let f = font(name);
            for c in VIETNAMESE.chars().filter(|c| !c.is_whitespace()) {
                assert!(f.has_glyph(c), "{name} lacks {c:?}");
                let (m, bitmap) = f.raster.rasterize(c, 40.0);
                assert!(
                    m.width > 0 && bitmap.iter().any(|&a| a > 0),
                    "{name}: empty glyph for {c:?}"
                );
            }
            let line = layout_line(&f, VIETNAMESE, 40.0);
            assert_eq!(line.words.len(), 8);
            let cov = rasterize_line(&f, &line);
            assert!(!cov.is_blank());
            assert!(cov.width as f32 >= line.width.floor());
        }
    }

    #[test]
    fn diacritics_above_capitals_extend_the_mask_upwards() {
        let f = font("Inter-Bold.otf");
        let plain = rasterize_line(&f, &layout_line(&f, "VIET", 40.0));
        let marked = rasterize_line(&f, &layout_line(&f, "VIỆT", 40.0));
        assert!(marked.top <= plain.top);
        // The dot below sits under the baseline.
        assert!(marked.height >= plain.height);
    }

    #[test]
    fn layout_words_are_ordered_and_spaced() {
        let f = font("Inter-Regular.otf");
        let line = layout_line(&f, "  hello   world ", 32.0);
        assert_eq!(line.words.len(), 2);
        assert_eq!(line.words[0].x, 0.0);
        assert!(line.words[1].x > line.words[0].width);
        let sum = line.words[1].x + line.words[1].width;
        assert!((sum - line.width).abs() < 1e-3);
        assert!((f.measure("hello world", 32.0) - line.width).abs() < 1e-3);
    }

    #[test]
    fn forced_breaks() {
        assert_eq!(
            split_forced_breaks("one | two -> three → four\nfive||"),
            vec!["one", "two", "three", "four", "five"]
        );
        assert!(split_forced_breaks("  ").is_empty());
    }

    #[test]
    fn greedy_breaking_fits_width() {
        let f = font("Inter-Regular.otf");
        let text = "the quick brown fox jumps over the lazy dog again and again";
        let max = 200.0;
        let lines = break_lines(&f, text, 24.0, max);
        assert!(lines.len() > 1);
        for l in &lines {
            assert!(f.measure(l, 24.0) <= max, "{l} too wide");
        }
        assert_eq!(lines.join(" "), text);
        // Greedy: the next line's first word would not have fitted.
        for pair in lines.windows(2) {
            let first = pair[1].split_whitespace().next().unwrap();
            assert!(f.measure(&format!("{} {first}", pair[0]), 24.0) > max);
        }
    }

    #[test]
    fn overlong_word_gets_its_own_line_and_forced_breaks_apply() {
        let f = font("Inter-Regular.otf");
        let lines = break_lines(&f, "a supercalifragilistic b|c", 24.0, 60.0);
        assert_eq!(lines, vec!["a", "supercalifragilistic", "b", "c"]);
    }

    #[test]
    fn fallback_picks_covering_font() {
        let fonts = [font("Inter-Regular.otf"), font("NotoSans-Regular.ttf")];
        assert!(pick_font(&fonts, "Việt").is_some());
        assert!(pick_font(&[], "x").is_none());
        let face = fonts[0].face();
        assert!(face.number_of_glyphs() > 100);
    }
}
