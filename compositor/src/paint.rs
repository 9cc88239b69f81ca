//! Small painting helpers shared by every layer that paints at resolve time: the seeded
//! generator of procedural layouts, colour conversion and mixing, gradient paints and the
//! rounded rectangle (narrator cards, caption highlights and the presenter clip's mask).
//!
//! Sits low in the module graph (it knows only the plan's [`Rgb`]), so `clip`, `blit`'s tests
//! and the `layers` all use it without depending on each other.

use crate::plan::Rgb;
use tiny_skia::{Color, Paint, Path, PathBuilder};

/// SplitMix64: a tiny, well-distributed deterministic generator for seeded layouts.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub(crate) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

/// `c` at opacity `alpha` (clamped to 0..1).
pub(crate) fn color(c: Rgb, alpha: f32) -> Color {
    Color::from_rgba8(c.r, c.g, c.b, (alpha.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// The colour `t` of the way from `a` to `b`.
pub(crate) fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    let m = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t).round() as u8;
    Rgb::new(m(a.r, b.r), m(a.g, b.g), m(a.b, b.b))
}

/// An anti-aliased paint of `shader`, or `None` when the gradient could not be built.
pub(crate) fn shader_paint(shader: Option<tiny_skia::Shader<'static>>) -> Option<Paint<'static>> {
    Some(Paint {
        shader: shader?,
        anti_alias: true,
        ..Paint::default()
    })
}

/// A `w × h` rectangle at `(x, y)` with corners of radius `r` (at most half a side).
pub(crate) fn rounded_rect(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<Path> {
    let r = r.min(w / 2.0).min(h / 2.0).max(0.0);
    // Cubic approximation of a quarter circle.
    let k = r * 0.552_284_8;
    let mut pb = PathBuilder::new();
    pb.move_to(x + r, y);
    pb.line_to(x + w - r, y);
    pb.cubic_to(x + w - r + k, y, x + w, y + r - k, x + w, y + r);
    pb.line_to(x + w, y + h - r);
    pb.cubic_to(x + w, y + h - r + k, x + w - r + k, y + h, x + w - r, y + h);
    pb.line_to(x + r, y + h);
    pb.cubic_to(x + r - k, y + h, x, y + h - r + k, x, y + h - r);
    pb.line_to(x, y + r);
    pb.cubic_to(x, y + r - k, x + r - k, y, x + r, y);
    pb.close();
    pb.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::new(7);
        assert_eq!(a[0], r.next_u64());
        assert!((0..1000).all(|_| (0.0..1.0).contains(&r.unit())));
    }
}
