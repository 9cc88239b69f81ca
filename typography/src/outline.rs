//! Glyph runs → SVG path data.
//!
//! Text leaves this crate as outlines, never as `<text>`: an SVG made of paths renders the same in
//! every viewer, with no font to install and no fallback to guess. [`outline_line`] walks a
//! [`LineLayout`] through `ttf-parser`'s outline builder (TrueType quadratics and CFF cubics alike),
//! scales font units to pixels, flips y (fonts grow upwards, SVG downwards) and writes compact,
//! deterministic path data with two decimals.

use std::fmt::Write;

use crate::{Font, LineLayout};

/// An axis-aligned box in pixels (y down).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounds {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

impl Bounds {
    /// An empty box that any union replaces.
    pub const EMPTY: Bounds = Bounds {
        x0: f32::INFINITY,
        y0: f32::INFINITY,
        x1: f32::NEG_INFINITY,
        y1: f32::NEG_INFINITY,
    };

    pub fn is_empty(&self) -> bool {
        !(self.x1 > self.x0 && self.y1 > self.y0)
    }

    pub fn union(self, o: Bounds) -> Bounds {
        Bounds {
            x0: self.x0.min(o.x0),
            y0: self.y0.min(o.y0),
            x1: self.x1.max(o.x1),
            y1: self.y1.max(o.y1),
        }
    }

    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }

    pub fn height(&self) -> f32 {
        self.y1 - self.y0
    }
}

/// Outlined text: SVG path data plus the ink bounds of what it draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    /// SVG `d` attribute (absolute commands M, L, Q, C, Z).
    pub d: String,
    /// Ink bounds in the same coordinates as `d`; [`Bounds::EMPTY`] when nothing is drawn.
    pub bounds: Bounds,
}

/// Writes a number with at most two decimals and no trailing zeros (`12`, `12.5`, `-0.25`).
fn num(out: &mut String, v: f32) {
    let r = (v * 100.0).round() / 100.0;
    let r = if r == 0.0 { 0.0 } else { r }; // no "-0"
    let _ = write!(out, "{r}");
}

struct PathWriter<'a> {
    out: &'a mut String,
    scale: f32,
    ox: f32,
    oy: f32,
}

impl PathWriter<'_> {
    fn pt(&mut self, x: f32, y: f32) {
        num(self.out, self.ox + x * self.scale);
        self.out.push(' ');
        num(self.out, self.oy - y * self.scale);
    }
}

impl ttf_parser::OutlineBuilder for PathWriter<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        self.out.push('M');
        self.pt(x, y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.out.push('L');
        self.pt(x, y);
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.out.push('Q');
        self.pt(x1, y1);
        self.out.push(' ');
        self.pt(x, y);
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        self.out.push('C');
        self.pt(x1, y1);
        self.out.push(' ');
        self.pt(x2, y2);
        self.out.push(' ');
        self.pt(x, y);
    }
    fn close(&mut self) {
        self.out.push('Z');
    }
}

/// Outlines a laid-out line with its pen origin at (`x`, `baseline`).
pub fn outline_line(font: &Font, line: &LineLayout, x: f32, baseline: f32) -> Outline {
    let face = font.face();
    let scale = line.px / face.units_per_em() as f32;
    let mut d = String::new();
    let mut bounds = Bounds::EMPTY;
    for g in &line.glyphs {
        let ox = x + g.x;
        let mut w = PathWriter {
            out: &mut d,
            scale,
            ox,
            oy: baseline,
        };
        if let Some(r) = face.outline_glyph(ttf_parser::GlyphId(g.glyph), &mut w) {
            bounds = bounds.union(Bounds {
                x0: ox + r.x_min as f32 * scale,
                x1: ox + r.x_max as f32 * scale,
                y0: baseline - r.y_max as f32 * scale,
                y1: baseline - r.y_min as f32 * scale,
            });
        }
    }
    Outline { d, bounds }
}

/// Ink bounds of a line with its pen origin at (0, 0 = baseline), without writing path data.
pub fn line_ink(font: &Font, line: &LineLayout) -> Bounds {
    let face = font.face();
    let scale = line.px / face.units_per_em() as f32;
    let mut bounds = Bounds::EMPTY;
    for g in &line.glyphs {
        if let Some(r) = face.glyph_bounding_box(ttf_parser::GlyphId(g.glyph)) {
            bounds = bounds.union(Bounds {
                x0: g.x + r.x_min as f32 * scale,
                x1: g.x + r.x_max as f32 * scale,
                y0: -r.y_max as f32 * scale,
                y1: -r.y_min as f32 * scale,
            });
        }
    }
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout_line;

    fn font(name: &str) -> Font {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/fonts/").to_string() + name;
        Font::from_bytes(std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn numbers_are_compact() {
        let mut s = String::new();
        for v in [12.0, 12.5, -0.004, 1.23456] {
            num(&mut s, v);
            s.push(',');
        }
        assert_eq!(s, "12,12.5,0,1.23,");
    }

    #[test]
    fn cff_and_truetype_fonts_outline_with_matching_ink() {
        for name in ["Inter-Bold.otf", "NotoSans-Bold.ttf"] {
            let f = font(name);
            let line = layout_line(&f, "VIỆT Nam", 80.0);
            let o = outline_line(&f, &line, 10.0, 100.0);
            assert!(o.d.starts_with('M') && o.d.contains('Z'), "{name}");
            assert!(!o.bounds.is_empty());
            let ink = line_ink(&f, &line);
            assert!((ink.x0 + 10.0 - o.bounds.x0).abs() < 0.01);
            assert!((ink.y0 + 100.0 - o.bounds.y0).abs() < 0.01);
            // The circumflex and acute stacked over Ệ reach above a plain capital.
            let plain = line_ink(&f, &layout_line(&f, "VIET Nam", 80.0));
            assert!(ink.y0 < plain.y0 - 5.0, "{name}: {ink:?} vs {plain:?}");
            // The dot below reaches under the baseline.
            assert!(ink.y1 > plain.y1, "{name}");
        }
    }

    #[test]
    fn blank_lines_have_no_ink() {
        let f = font("Inter-Bold.otf");
        let o = outline_line(&f, &layout_line(&f, "   ", 40.0), 0.0, 0.0);
        assert!(o.d.is_empty() && o.bounds.is_empty());
    }
}
