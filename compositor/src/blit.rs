//! Whole-pixel sprite blits: premultiplied source-over at full opacity, the one operation that
//! settled overlay objects and every caption word need on every frame.
//!
//! tiny-skia's `draw_pixmap` does this through its float (highp) pipeline: a pattern shader,
//! a gather and a blend per pixel. Sprites here are drawn at whole-pixel offsets with no
//! scaling and no opacity, so the same result is a per-pixel `s + d·(255 − sa)/255` in integers,
//! rounded exactly like tiny-skia rounds its float result (within one step on exact ties).
//! Runs of fully transparent pixels are skipped and fully opaque ones copied, eight pixels at a
//! time, which is what makes caption outlines and card interiors cheap; the blocks in between
//! blend in 16-bit SIMD lanes (`wide`), bit-identical to the per-pixel integer blend.

use tiny_skia::{Pixmap, PixmapMut, PixmapRef};
use wide::{i16x8, u8x16, u16x8, u32x4};

/// `round(x / 255)` for `x ≤ 255 · 255`, exactly.
#[inline(always)]
fn div255(x: u32) -> u32 {
    let x = x + 128;
    (x + (x >> 8)) >> 8
}

/// Blends premultiplied `src` over `dst` (also premultiplied) with its top-left at `(x, y)`;
/// the parts outside `dst` are clipped.
pub(crate) fn blend_over(dst: &mut PixmapMut<'_>, x: i32, y: i32, src: PixmapRef<'_>) {
    let (dw, dh) = (dst.width() as i64, dst.height() as i64);
    let (sw, sh) = (i64::from(src.width()), i64::from(src.height()));
    let (x, y) = (i64::from(x), i64::from(y));
    let (x0, y0) = (x.max(0), y.max(0));
    let (x1, y1) = ((x + sw).min(dw), (y + sh).min(dh));
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let cols = (x1 - x0) as usize * 4;
    let (sx, sy) = ((x0 - x) as usize, (y0 - y) as usize);
    let (d_stride, s_stride) = (dw as usize * 4, sw as usize * 4);
    let out = dst.data_mut();
    let pixels = src.data();
    for row in 0..(y1 - y0) as usize {
        let d_at = (y0 as usize + row) * d_stride + x0 as usize * 4;
        let s_at = (sy + row) * s_stride + sx * 4;
        blend_row(&mut out[d_at..d_at + cols], &pixels[s_at..s_at + cols]);
    }
}

/// One row: `d = s + d·(255 − sa)/255`, per channel, alpha included.
fn blend_row(d: &mut [u8], s: &[u8]) {
    const BLOCK: usize = 8 * 4;
    let mut ds = d.chunks_exact_mut(BLOCK);
    let mut ss = s.chunks_exact(BLOCK);
    for (d, s) in (&mut ds).zip(&mut ss) {
        let (any, all) = alpha_extremes(s);
        if any == 0 {
            continue;
        }
        if all == ALPHAS {
            d.copy_from_slice(s);
            continue;
        }
        blend_block(d, s);
    }
    blend_pixels(ds.into_remainder(), ss.remainder());
}

/// The alpha bytes of two little-endian RGBA pixels in a `u64`.
const ALPHAS: u64 = 0xff00_0000_ff00_0000;

/// The alpha bytes of eight pixels OR-ed together and AND-ed together: zero when all are clear,
/// [`ALPHAS`] when all are solid.
#[inline(always)]
fn alpha_extremes(s: &[u8]) -> (u64, u64) {
    let mut any = 0;
    let mut all = ALPHAS;
    for pair in s[..32].chunks_exact(8) {
        let w = u64::from_le_bytes(pair.try_into().expect("two pixels"));
        any |= w;
        all &= w;
    }
    (any & ALPHAS, all & ALPHAS)
}

/// [`blend_pixels`] for four pixels in 16-bit SIMD lanes: `d·(255 − sa)` fits 16 bits, and so
/// does every step of [`div255`], so the result is the same to the bit.
#[inline(always)]
fn blend_x4(d: &mut [u8], s: &[u8]) {
    let src: [u8; 16] = s[..16].try_into().expect("four pixels");
    let dst = u8x16::new(d[..16].try_into().expect("four pixels"));
    // 255 − alpha in every byte of each pixel: alpha shifted down, spread by shifts, inverted.
    let words = u32x4::new(std::array::from_fn(|i| {
        u32::from_le_bytes(src[i * 4..i * 4 + 4].try_into().expect("one pixel"))
    }));
    let a = words >> 24_u32;
    let a = a | (a << 8_u32);
    let a = !(a | (a << 16_u32));
    let mut ia = [0u8; 16];
    for (b, w) in ia.chunks_exact_mut(4).zip(a.to_array()) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    let ia = u8x16::new(ia);
    let scaled = |d: u16x8, ia: u16x8| {
        let x = d * ia + u16x8::splat(128);
        (x + (x >> 8_u32)) >> 8_u32
    };
    let lo = scaled(u16x8::from_u8x16_low(dst), u16x8::from_u8x16_low(ia));
    let hi = scaled(u16x8::from_u8x16_high(dst), u16x8::from_u8x16_high(ia));
    let narrow = |v: u16x8| i16x8::new(v.to_array().map(|x| x as i16));
    let blended = u8x16::narrow_i16x8(narrow(lo), narrow(hi)) + u8x16::new(src);
    d[..16].copy_from_slice(&blended.to_array());
}

/// Eight pixels, partly transparent: two [`blend_x4`].
#[inline(always)]
fn blend_block(d: &mut [u8], s: &[u8]) {
    let (d0, d1) = d.split_at_mut(16);
    let (s0, s1) = s.split_at(16);
    blend_x4(d0, s0);
    blend_x4(d1, s1);
}

#[inline(always)]
fn blend_pixels(d: &mut [u8], s: &[u8]) {
    for (d, s) in d.chunks_exact_mut(4).zip(s.chunks_exact(4)) {
        let ia = 255 - u32::from(s[3]);
        for c in 0..4 {
            d[c] = (u32::from(s[c]) + div255(u32::from(d[c]) * ia)) as u8;
        }
    }
}

/// A pre-rendered sprite and where its top-left goes on the canvas.
pub(crate) struct Sprite {
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) pixmap: Pixmap,
}

impl Sprite {
    /// `(x0, y0, x1, y1)` on the canvas.
    pub(crate) fn bounds(&self) -> (i64, i64, i64, i64) {
        let (x, y) = (i64::from(self.x), i64::from(self.y));
        (
            x,
            y,
            x + i64::from(self.pixmap.width()),
            y + i64::from(self.pixmap.height()),
        )
    }

    pub(crate) fn draw(&self, dst: &mut PixmapMut<'_>) {
        blend_over(dst, self.x, self.y, self.pixmap.as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paint::Rng;
    use tiny_skia::{PixmapPaint, PremultipliedColorU8, Transform};

    fn random_premultiplied(w: u32, h: u32, rng: &mut Rng) -> Pixmap {
        let mut p = Pixmap::new(w, h).unwrap();
        for px in p.pixels_mut() {
            // A mix of clear, solid and partial pixels, in runs, like real sprites.
            let a = match rng.next_u64() % 4 {
                0 => 0,
                1 => 255,
                _ => (rng.next_u64() % 256) as u8,
            };
            let c = |rng: &mut Rng| (rng.next_u64() % (u64::from(a) + 1)) as u8;
            let (r, g, b) = (c(rng), c(rng), c(rng));
            *px = PremultipliedColorU8::from_rgba(r, g, b, a).unwrap();
        }
        p
    }

    #[test]
    fn simd_blend_equals_the_scalar_blend() {
        let mut rng = Rng::new(7);
        let sprite = random_premultiplied(203, 17, &mut rng);
        let base = random_premultiplied(203, 17, &mut rng);
        let mut ours = base.data().to_vec();
        for (d, s) in ours
            .chunks_exact_mut(203 * 4)
            .zip(sprite.data().chunks_exact(203 * 4))
        {
            blend_row(d, s);
        }
        let mut scalar = base.data().to_vec();
        blend_pixels(&mut scalar, sprite.data());
        assert_eq!(ours, scalar);
        // Every (destination, source alpha) pair, with the source colour at its alpha.
        let (mut d, mut s) = (Vec::new(), Vec::new());
        for a in 0..=255u8 {
            for x in 0..=255u8 {
                d.extend([x, 255 - x, x / 2, 255]);
                s.extend([a, a / 3, 0, a]);
            }
        }
        let mut scalar = d.clone();
        blend_pixels(&mut scalar, &s);
        for (d, s) in d.chunks_exact_mut(32).zip(s.chunks_exact(32)) {
            blend_block(d, s);
        }
        assert_eq!(d, scalar);
    }

    #[test]
    fn clear_and_solid_blocks_are_skipped_and_copied_exactly() {
        // Eight-pixel blocks that are all clear, all solid, solid but one, clear but one.
        let mut s = Vec::new();
        for (k, a) in [(0, 0u8), (1, 255), (2, 255), (3, 0)] {
            for i in 0..8 {
                let a = if k >= 2 && i == 5 { 128 } else { a };
                s.extend([a / 2, a, a / 3, a]);
            }
        }
        let d: Vec<u8> = (0..s.len()).map(|i| (i * 37 % 256) as u8).collect();
        let mut ours = d.clone();
        blend_row(&mut ours, &s);
        let mut scalar = d.clone();
        blend_pixels(&mut scalar, &s);
        assert_eq!(ours, scalar);
        assert_eq!(ours[..32], d[..32], "a clear block leaves the destination");
        assert_eq!(ours[32..64], s[32..64], "a solid block is the source");
    }

    #[test]
    fn matches_tiny_skia_within_one_step() {
        let mut rng = Rng::new(3);
        let sprite = random_premultiplied(37, 23, &mut rng);
        let mut base = random_premultiplied(64, 48, &mut rng);
        for px in base.pixels_mut() {
            // Opaque destination, as frames are.
            let c = px.demultiply();
            *px = PremultipliedColorU8::from_rgba(c.red(), c.green(), c.blue(), 255).unwrap();
        }
        for (x, y) in [(0, 0), (5, 7), (-10, -4), (40, 30), (-40, 0), (64, 0)] {
            let mut ours = base.clone();
            blend_over(&mut ours.as_mut(), x, y, sprite.as_ref());
            let mut theirs = base.clone();
            theirs.draw_pixmap(
                x,
                y,
                sprite.as_ref(),
                &PixmapPaint::default(),
                Transform::identity(),
                None,
            );
            let worst = crate::raster::worst_difference(ours.data(), theirs.data());
            assert!(worst <= 1, "at ({x}, {y}) off by {worst}");
        }
    }
}
