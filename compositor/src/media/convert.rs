//! RGBA → I420 (BT.709, limited range), done by us so the encoder gets 4:2:0 directly.
//!
//! `videoconvert` left to itself negotiates Y444 with x264 (DESIGN §5), and converting in our
//! own rayon workers keeps the GStreamer streaming thread free for the encoder. Fixed-point
//! arithmetic (16 fractional bits) keeps the result bit-exact across machines; chroma is the
//! average of each 2×2 block (MPEG-2 / H.264 "left" siting is close enough for 4:2:0 delivery
//! and matches what players assume). Alpha is ignored: frames from the renderer are opaque.

use rayon::prelude::*;
use wide::{i16x8, i32x8, u8x16};

use super::clip::{YuvColour, YuvPlanes};
use super::error::MediaError;

/// Where the three planes of one I420 frame live inside a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct I420Layout {
    /// Width in pixels (even).
    pub width: usize,
    /// Height in pixels (even).
    pub height: usize,
    /// Bytes per luma row (≥ width).
    pub y_stride: usize,
    /// Bytes per chroma row (≥ width / 2).
    pub uv_stride: usize,
    /// Offset of the U plane (the Y plane starts at 0).
    pub u_offset: usize,
    /// Offset of the V plane.
    pub v_offset: usize,
    /// Total bytes of one frame.
    pub size: usize,
}

impl I420Layout {
    /// GStreamer's default I420 layout for an even `width × height` (rows padded to 4 bytes).
    pub fn new(width: u32, height: u32) -> Result<Self, MediaError> {
        if width == 0 || height == 0 || !width.is_multiple_of(2) || !height.is_multiple_of(2) {
            return Err(MediaError::InvalidInput(format!(
                "frame size {width}x{height}: 4:2:0 video needs a non-zero, even width and height"
            )));
        }
        let (width, height) = (width as usize, height as usize);
        let y_stride = width.next_multiple_of(4);
        let uv_stride = (width / 2).next_multiple_of(4);
        let u_offset = y_stride * height;
        let v_offset = u_offset + uv_stride * height / 2;
        Ok(I420Layout {
            width,
            height,
            y_stride,
            uv_stride,
            u_offset,
            v_offset,
            size: v_offset + uv_stride * height / 2,
        })
    }

    /// Bytes of one tightly packed RGBA frame of this size.
    pub fn rgba_len(&self) -> usize {
        self.width * self.height * 4
    }
}

/// A BT.709 coefficient scaled to 16 fractional bits, rounded half away from zero.
const fn fixed(x: f64) -> i32 {
    if x >= 0.0 {
        (x * 65536.0 + 0.5) as i32
    } else {
        (x * 65536.0 - 0.5) as i32
    }
}

const KR: f64 = 0.2126;
const KB: f64 = 0.0722;
const KG: f64 = 1.0 - KR - KB;
/// Limited-range scale: Y spans 16..=235 (219 steps), chroma 16..=240 (224 steps).
const Y_SCALE: f64 = 219.0 / 255.0;
const C_SCALE: f64 = 224.0 / 255.0;

const Y_R: i32 = fixed(KR * Y_SCALE);
const Y_G: i32 = fixed(KG * Y_SCALE);
const Y_B: i32 = fixed(KB * Y_SCALE);
const U_R: i32 = fixed(-KR / (2.0 * (1.0 - KB)) * C_SCALE);
const U_B: i32 = fixed(0.5 * C_SCALE);
/// Chosen so each chroma row sums to exactly zero: greys map to exactly 128.
const U_G: i32 = -(U_R + U_B);
const V_R: i32 = fixed(0.5 * C_SCALE);
const V_B: i32 = fixed(-KB / (2.0 * (1.0 - KR)) * C_SCALE);
const V_G: i32 = -(V_R + V_B);

#[inline(always)]
fn luma(r: u8, g: u8, b: u8) -> u8 {
    let y = Y_R * i32::from(r) + Y_G * i32::from(g) + Y_B * i32::from(b);
    // ≤ 255·(219/255)·65536 + rounding, so the result is in 16..=235 without clamping.
    ((y + (16 << 16) + (1 << 15)) >> 16) as u8
}

/// Chroma from the sums of a 2×2 block (each sum ≤ 1020): divides by 4 in the same shift.
#[inline(always)]
fn chroma(r: i32, g: i32, b: i32, cr: i32, cg: i32, cb: i32) -> u8 {
    let c = cr * r + cg * g + cb * b;
    ((c + (128 << 18) + (1 << 17)) >> 18).clamp(16, 240) as u8
}

/// Converts one pair of RGBA rows into two luma rows and one row of each chroma plane.
#[inline]
fn row_pair(
    rgba: &[u8],
    width: usize,
    y_rows: &mut [u8],
    y_stride: usize,
    u: &mut [u8],
    v: &mut [u8],
) {
    let (top, bottom) = rgba.split_at(width * 4);
    let (y0, y1) = y_rows.split_at_mut(y_stride);
    rows_to_i420(top, bottom, width, y0, y1, u, v);
}

/// `width` pixels of two RGBA rows into two luma rows and one row of each chroma plane.
#[inline]
fn rows_to_i420(
    top: &[u8],
    bottom: &[u8],
    width: usize,
    y0: &mut [u8],
    y1: &mut [u8],
    u: &mut [u8],
    v: &mut [u8],
) {
    let blocks = top
        .chunks_exact(8)
        .zip(bottom.chunks_exact(8))
        .zip(y0[..width].chunks_exact_mut(2))
        .zip(y1[..width].chunks_exact_mut(2))
        .zip(u[..width / 2].iter_mut())
        .zip(v[..width / 2].iter_mut());
    for (((((t, b), ya), yb), u), v) in blocks {
        ya[0] = luma(t[0], t[1], t[2]);
        ya[1] = luma(t[4], t[5], t[6]);
        yb[0] = luma(b[0], b[1], b[2]);
        yb[1] = luma(b[4], b[5], b[6]);
        let r = i32::from(t[0]) + i32::from(t[4]) + i32::from(b[0]) + i32::from(b[4]);
        let g = i32::from(t[1]) + i32::from(t[5]) + i32::from(b[1]) + i32::from(b[5]);
        let bl = i32::from(t[2]) + i32::from(t[6]) + i32::from(b[2]) + i32::from(b[6]);
        *u = chroma(r, g, bl, U_R, U_G, U_B);
        *v = chroma(r, g, bl, V_R, V_G, V_B);
    }
}

/// Y, U and V planes of one frame.
type Planes<'a> = (&'a mut [u8], &'a mut [u8], &'a mut [u8]);

/// The three planes of `out`, each cut to its exact length; checks both buffer sizes first.
fn planes<'a>(
    rgba: &[u8],
    layout: &I420Layout,
    out: &'a mut [u8],
) -> Result<Planes<'a>, MediaError> {
    let ok_layout = layout.width.is_multiple_of(2)
        && layout.height.is_multiple_of(2)
        && layout.y_stride >= layout.width
        && layout.uv_stride >= layout.width / 2
        && layout.u_offset >= layout.y_stride * layout.height
        && layout.v_offset >= layout.u_offset + layout.uv_stride * layout.height / 2
        && layout.size >= layout.v_offset + layout.uv_stride * layout.height / 2;
    if !ok_layout {
        return Err(MediaError::InvalidInput(format!(
            "inconsistent I420 layout {layout:?}"
        )));
    }
    if rgba.len() != layout.rgba_len() || out.len() < layout.size {
        return Err(MediaError::InvalidInput(format!(
            "RGBA→I420: got {} RGBA bytes and {} output bytes for {}x{} (need {} and {})",
            rgba.len(),
            out.len(),
            layout.width,
            layout.height,
            layout.rgba_len(),
            layout.size
        )));
    }
    let chroma_len = layout.uv_stride * layout.height / 2;
    let (y, rest) = out.split_at_mut(layout.u_offset);
    let (u, v) = rest.split_at_mut(layout.v_offset - layout.u_offset);
    Ok((
        &mut y[..layout.y_stride * layout.height],
        &mut u[..chroma_len],
        &mut v[..chroma_len],
    ))
}

/// Converts one tightly packed RGBA frame into `out` on the calling thread.
///
/// This is what the encoder uses: it already runs one frame per rayon worker, so splitting a
/// frame further would only add synchronisation.
pub fn rgba_to_i420(rgba: &[u8], layout: &I420Layout, out: &mut [u8]) -> Result<(), MediaError> {
    let (y, u, v) = planes(rgba, layout, out)?;
    let w = layout.width;
    rgba.chunks_exact(2 * w * 4)
        .zip(y.chunks_exact_mut(2 * layout.y_stride))
        .zip(u.chunks_exact_mut(layout.uv_stride))
        .zip(v.chunks_exact_mut(layout.uv_stride))
        .for_each(|(((src, y), u), v)| row_pair(src, w, y, layout.y_stride, u, v));
    Ok(())
}

/// Converts one frame with its row pairs spread over the current rayon pool (for a single
/// large frame, e.g. a still, when there is no frame-level parallelism to use).
pub fn rgba_to_i420_par(
    rgba: &[u8],
    layout: &I420Layout,
    out: &mut [u8],
) -> Result<(), MediaError> {
    let (y, u, v) = planes(rgba, layout, out)?;
    let w = layout.width;
    rgba.par_chunks_exact(2 * w * 4)
        .zip(y.par_chunks_exact_mut(2 * layout.y_stride))
        .zip(u.par_chunks_exact_mut(layout.uv_stride))
        .zip(v.par_chunks_exact_mut(layout.uv_stride))
        .with_min_len(8)
        .for_each(|(((src, y), u), v)| row_pair(src, w, y, layout.y_stride, u, v));
    Ok(())
}

/// A rectangle of whole pixels `[x0, x1) × [y0, y1)` with even corners (whole 4:2:0 blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvenRect {
    /// Left edge (even).
    pub x0: usize,
    /// Top edge (even).
    pub y0: usize,
    /// Right edge, exclusive (even).
    pub x1: usize,
    /// Bottom edge, exclusive (even).
    pub y1: usize,
}

impl EvenRect {
    /// The smallest even-cornered rect covering `[x0, x1) × [y0, y1)`, clipped to
    /// `width × height` (both even); `None` when nothing is left.
    pub fn covering(
        x0: i64,
        y0: i64,
        x1: i64,
        y1: i64,
        width: usize,
        height: usize,
    ) -> Option<Self> {
        let clamp = |v: i64, max: usize| v.clamp(0, max as i64) as usize;
        let r = EvenRect {
            x0: clamp(x0.div_euclid(2) * 2, width),
            y0: clamp(y0.div_euclid(2) * 2, height),
            x1: clamp(x1 + x1.rem_euclid(2), width),
            y1: clamp(y1 + y1.rem_euclid(2), height),
        };
        (r.x0 < r.x1 && r.y0 < r.y1).then_some(r)
    }
}

/// Converts the pixels of `rect` of a tightly packed RGBA frame into the same rect of an I420
/// frame laid out as `layout`, leaving the rest of `out` alone. Bit-exact with
/// [`rgba_to_i420`] inside the rect. Does nothing when the buffers or rect do not fit the layout.
pub fn rgba_rect_to_i420(rgba: &[u8], layout: &I420Layout, out: &mut [u8], rect: EvenRect) {
    let Ok((y, u, v)) = planes(rgba, layout, out) else {
        return;
    };
    if rect.x1 > layout.width || rect.y1 > layout.height || rect.x0 % 2 + rect.y0 % 2 != 0 {
        return;
    }
    let row = layout.width * 4;
    let (cx0, cx1) = (rect.x0 / 2, rect.x1 / 2);
    for r in (rect.y0..rect.y1).step_by(2) {
        let top = &rgba[r * row + rect.x0 * 4..r * row + rect.x1 * 4];
        let bottom = &rgba[(r + 1) * row + rect.x0 * 4..(r + 1) * row + rect.x1 * 4];
        let (y0, y1) =
            y[r * layout.y_stride..(r + 2) * layout.y_stride].split_at_mut(layout.y_stride);
        let c = (r / 2) * layout.uv_stride;
        rows_to_i420(
            top,
            bottom,
            rect.x1 - rect.x0,
            &mut y0[rect.x0..rect.x1],
            &mut y1[rect.x0..rect.x1],
            &mut u[c + cx0..c + cx1],
            &mut v[c + cx0..c + cx1],
        );
    }
}

/// An RGBA picture larger than the frame, converted once the way [`rgba_to_i420`] converts any
/// frame-sized window of it: every pixel's luma, and the chroma of its 2×2 blocks for each of
/// the four ways blocks can align with a window's corner. A window at `(x, y)` is then its luma
/// rows, and the chroma of alignment `(x % 2, y % 2)` from block `(x / 2, y / 2)`: the same
/// bytes as converting the window's pixels, without converting them (see [`Self::window`]).
pub struct PlanarPicture {
    width: usize,
    height: usize,
    luma: Vec<u8>,
    /// Indexed by `x % 2 + 2 · (y % 2)`: the U and V planes of that alignment, and their width.
    chroma: [(Vec<u8>, Vec<u8>, usize); 4],
}

impl PlanarPicture {
    /// Converts `rgba`, `width × height` tightly packed pixels (both even); `None` when the
    /// sizes do not agree.
    pub fn new(rgba: &[u8], width: usize, height: usize) -> Option<PlanarPicture> {
        if rgba.len() != width * height * 4 || width % 2 + height % 2 != 0 || width == 0 {
            return None;
        }
        let mut luma = vec![0u8; width * height];
        let chroma = std::array::from_fn(|alignment| {
            let (ax, ay) = (alignment % 2, alignment / 2);
            let (cols, rows) = ((width - ax) / 2, (height - ay) / 2);
            let (mut u, mut v) = (vec![0u8; cols * rows], vec![0u8; cols * rows]);
            // Luma is per pixel: alignment 0 writes it, the others only need their chroma.
            let mut scratch = vec![0u8; 4 * cols];
            for j in 0..rows {
                let top = (ay + 2 * j) * width + ax;
                let (y0, y1) = if alignment == 0 {
                    let (a, b) = luma[top..top + 2 * width].split_at_mut(width);
                    (a, b)
                } else {
                    scratch.split_at_mut(2 * cols)
                };
                rows_to_i420(
                    &rgba[top * 4..(top + 2 * cols) * 4],
                    &rgba[(top + width) * 4..(top + width + 2 * cols) * 4],
                    2 * cols,
                    y0,
                    y1,
                    &mut u[j * cols..(j + 1) * cols],
                    &mut v[j * cols..(j + 1) * cols],
                );
            }
            (u, v, cols)
        });
        Some(PlanarPicture {
            width,
            height,
            luma,
            chroma,
        })
    }

    /// Writes the window whose top-left is `(x, y)`, of `layout`'s size, into `out`: bit-exact
    /// with [`rgba_to_i420`] of those pixels. False (and nothing written) when it does not fit.
    pub fn window(&self, (x, y): (usize, usize), layout: &I420Layout, out: &mut [u8]) -> bool {
        let (w, h) = (layout.width, layout.height);
        if x + w > self.width || y + h > self.height || out.len() < layout.size {
            return false;
        }
        for r in 0..h {
            let src = (y + r) * self.width + x;
            let dst = r * layout.y_stride;
            out[dst..dst + w].copy_from_slice(&self.luma[src..src + w]);
        }
        let (u, v, cols) = &self.chroma[x % 2 + 2 * (y % 2)];
        for (plane, offset) in [(u, layout.u_offset), (v, layout.v_offset)] {
            for r in 0..h / 2 {
                let src = (y / 2 + r) * cols + x / 2;
                let dst = offset + r * layout.uv_stride;
                out[dst..dst + w / 2].copy_from_slice(&plane[src..src + w / 2]);
            }
        }
        true
    }
}

/// Copies a decoded I420 frame (planes and strides of the decoder) into `out` laid out as
/// `layout`, which must be the same size. Returns false (and writes nothing) when the planes are
/// too small.
pub fn copy_i420(src: &YuvPlanes<'_>, layout: &I420Layout, out: &mut [u8]) -> bool {
    let (w, h) = (layout.width, layout.height);
    let (cw, ch) = (w / 2, h / 2);
    let fits = |plane: &[u8], stride: usize, cols: usize, rows: usize| {
        stride >= cols && plane.len() >= stride * (rows - 1) + cols
    };
    if out.len() < layout.size
        || !fits(src.y, src.strides[0], w, h)
        || !fits(src.u, src.strides[1], cw, ch)
        || !fits(src.v, src.strides[2], cw, ch)
    {
        return false;
    }
    let copy = |plane: &[u8], stride: usize, dst: &mut [u8], dst_stride: usize, cols, rows| {
        if stride == dst_stride && cols == stride {
            dst[..stride * rows].copy_from_slice(&plane[..stride * rows]);
            return;
        }
        for r in 0..rows {
            dst[r * dst_stride..r * dst_stride + cols]
                .copy_from_slice(&plane[r * stride..r * stride + cols]);
        }
    };
    let (y, rest) = out.split_at_mut(layout.u_offset);
    let (u, v) = rest.split_at_mut(layout.v_offset - layout.u_offset);
    copy(src.y, src.strides[0], y, layout.y_stride, w, h);
    copy(src.u, src.strides[1], u, layout.uv_stride, cw, ch);
    copy(src.v, src.strides[2], v, layout.uv_stride, cw, ch);
    true
}

/// YUV → RGB in 16-bit fixed point for one matrix and range.
#[derive(Debug, Clone, Copy)]
struct YuvToRgb {
    y_off: i32,
    y_mul: i32,
    rv: i32,
    gu: i32,
    gv: i32,
    bu: i32,
}

impl YuvToRgb {
    fn new(colour: YuvColour) -> Self {
        let (kr, kb) = if colour.bt709 {
            (KR, KB)
        } else {
            (0.299, 0.114)
        };
        let kg = 1.0 - kr - kb;
        let (y_off, y_scale, c_scale) = if colour.full_range {
            (0, 1.0, 1.0)
        } else {
            (16, 255.0 / 219.0, 255.0 / 224.0)
        };
        YuvToRgb {
            y_off,
            y_mul: fixed_f(y_scale),
            rv: fixed_f(2.0 * (1.0 - kr) * c_scale),
            gu: fixed_f(2.0 * kb * (1.0 - kb) / kg * c_scale),
            gv: fixed_f(2.0 * kr * (1.0 - kr) / kg * c_scale),
            bu: fixed_f(2.0 * (1.0 - kb) * c_scale),
        }
    }
}

fn fixed_f(x: f64) -> i32 {
    (x * 65536.0).round() as i32
}

/// Converts `rect` of a decoded I420 frame into the same rect of a tightly packed RGBA frame
/// `width` pixels wide (opaque; chroma shared by each 2×2 block, as GStreamer's fast paths do).
/// Rows or columns the planes do not hold are left alone.
pub fn i420_rect_to_rgba(src: &YuvPlanes<'_>, rgba: &mut [u8], width: usize, rect: EvenRect) {
    let m = YuvSplit::new(&YuvToRgb::new(src.colour));
    let row = width * 4;
    let cols = rect.x1.min(width).saturating_sub(rect.x0);
    for r in rect.y0..rect.y1 {
        let (ys, cs) = (r * src.strides[0], (r / 2) * src.strides[1]);
        let vs = (r / 2) * src.strides[2];
        let (Some(yr), Some(ur), Some(vr), Some(out)) = (
            src.y.get(ys + rect.x0..ys + rect.x0 + cols),
            src.u
                .get(cs + rect.x0 / 2..cs + (rect.x0 + cols).div_ceil(2)),
            src.v
                .get(vs + rect.x0 / 2..vs + (rect.x0 + cols).div_ceil(2)),
            rgba.get_mut(r * row + rect.x0 * 4..r * row + (rect.x0 + cols) * 4),
        ) else {
            continue;
        };
        yuv_row_to_rgba(yr, ur, vr, out, &m);
    }
}

/// Pixels per block of [`yuv_row_to_rgba`]: fixed-size arrays the compiler turns into SIMD.
const BLOCK: usize = 16;

/// A 16.16 coefficient split as `hi · 65536 + lo` with `lo` an `i16`, so that every product
/// the kernel forms is `i16 × i16` (a vector multiply on baseline x86-64) and the sum is still
/// exact: `(Σ c·x + ½) >> 16 = Σ hi·x + ((Σ lo·x + ½) >> 16)`.
#[derive(Debug, Clone, Copy)]
struct Split {
    hi: i16,
    lo: i16,
}

impl Split {
    fn new(c: i32) -> Self {
        let hi = (c + (1 << 15)) >> 16;
        Split {
            hi: hi as i16,
            lo: (c - (hi << 16)) as i16,
        }
    }
}

/// [`YuvToRgb`] as [`Split`] coefficients, the chroma ones with their sign applied.
#[derive(Debug, Clone, Copy)]
struct YuvSplit {
    y_off: i16,
    y: Split,
    rv: Split,
    gu: Split,
    gv: Split,
    bu: Split,
}

impl YuvSplit {
    fn new(m: &YuvToRgb) -> Self {
        YuvSplit {
            y_off: m.y_off as i16,
            y: Split::new(m.y_mul),
            rv: Split::new(m.rv),
            gu: Split::new(-m.gu),
            gv: Split::new(-m.gv),
            bu: Split::new(m.bu),
        }
    }
}

/// One channel from luma `y` (offset removed) and one or two chroma terms.
#[inline(always)]
fn channel(y: i16, a: (i16, Split), b: (i16, Split), k: &YuvSplit) -> u8 {
    let hi = y * k.y.hi + a.0 * a.1.hi + b.0 * b.1.hi;
    let lo = i32::from(y) * i32::from(k.y.lo)
        + i32::from(a.0) * i32::from(a.1.lo)
        + i32::from(b.0) * i32::from(b.1.lo)
        + (1 << 15);
    (i32::from(hi) + (lo >> 16)).clamp(0, 255) as u8
}

/// The three channels of one pixel: luma `y`, chroma `u`/`v`.
#[inline(always)]
fn yuv_pixel(y: u8, u: u8, v: u8, k: &YuvSplit) -> [u8; 3] {
    let y = i16::from(y) - k.y_off;
    let (cu, cv) = (i16::from(u) - 128, i16::from(v) - 128);
    let none = (0, Split { hi: 0, lo: 0 });
    [
        channel(y, (cv, k.rv), none, k),
        channel(y, (cu, k.gu), (cv, k.gv), k),
        channel(y, (cu, k.bu), none, k),
    ]
}

/// [`channel`] for eight pixels at once: the `hi` terms in 16-bit lanes, the `lo` products
/// widened to 32 bits, the clamp a saturating pack.
#[inline(always)]
fn channel_x8(y: i16x8, a: (i16x8, Split), b: (i16x8, Split), k: &YuvSplit) -> i16x8 {
    let splat = i16x8::splat;
    let hi = y * splat(k.y.hi) + a.0 * splat(a.1.hi) + b.0 * splat(b.1.hi);
    let lo = y.widening_mul(splat(k.y.lo))
        + a.0.widening_mul(splat(a.1.lo))
        + b.0.widening_mul(splat(b.1.lo))
        + i32x8::splat(1 << 15);
    i16x8::from_i32x8_saturate(i32x8::from_i16x8(hi) + (lo >> 16))
}

/// [`BLOCK`] pixels: planar arithmetic in SIMD lanes, then one interleaving store.
#[inline(always)]
fn yuv_block(y: &[u8], u: &[u8], v: &[u8], out: &mut [u8], k: &YuvSplit) {
    let y = u8x16::new(y[..BLOCK].try_into().expect("a block of luma"));
    let twice = |c: &[u8]| {
        let mut lanes = [0u8; BLOCK];
        lanes[..BLOCK / 2].copy_from_slice(&c[..BLOCK / 2]);
        let c = u8x16::new(lanes);
        u8x16::unpack_low(c, c)
    };
    let (u, v) = (twice(u), twice(v));
    let off = i16x8::splat(k.y_off);
    let mid = i16x8::splat(128);
    let halves = [
        (
            i16x8::from_u8x16_low(y),
            i16x8::from_u8x16_low(u),
            i16x8::from_u8x16_low(v),
        ),
        (
            i16x8::from_u8x16_high(y),
            i16x8::from_u8x16_high(u),
            i16x8::from_u8x16_high(v),
        ),
    ];
    let none = (i16x8::ZERO, Split { hi: 0, lo: 0 });
    let (lo, hi) = out[..BLOCK * 4].split_at_mut(BLOCK * 2);
    for ((y, u, v), out) in halves.into_iter().zip([lo, hi]) {
        let (y, cu, cv) = (y - off, u - mid, v - mid);
        let byte = |c: i16x8| c.max(i16x8::ZERO).min(i16x8::splat(255));
        let r = byte(channel_x8(y, (cv, k.rv), none, k));
        let g = byte(channel_x8(y, (cu, k.gu), (cv, k.gv), k));
        let b = byte(channel_x8(y, (cu, k.bu), none, k));
        // Little-endian RGBA words: r | g << 8 | b << 16 | 255 << 24.
        let rg = i32x8::from_i16x8(r | (g << 8_i32)) & i32x8::splat(0xffff);
        let ba = i32x8::from_i16x8(b) | i32x8::splat(0xff << 8);
        let words: [i32; 8] = (rg | (ba << 16_i32)).to_array();
        for (o, w) in out.chunks_exact_mut(4).zip(words) {
            o.copy_from_slice(&w.to_le_bytes());
        }
    }
}

/// One row of even length: luma `y`, chroma `u`/`v` at half resolution, into opaque RGBA.
#[inline]
fn yuv_row_to_rgba(y: &[u8], u: &[u8], v: &[u8], out: &mut [u8], m: &YuvSplit) {
    let blocks = y
        .chunks_exact(BLOCK)
        .zip(u.chunks_exact(BLOCK / 2))
        .zip(v.chunks_exact(BLOCK / 2))
        .zip(out.chunks_exact_mut(BLOCK * 4));
    let done = (y.len() / BLOCK) * BLOCK;
    for (((y, u), v), out) in blocks {
        yuv_block(y, u, v, out, m);
    }
    // The tail, pixel by pixel.
    for k in done..y.len().min(out.len() / 4) {
        let (Some(&cu), Some(&cv)) = (u.get(k / 2), v.get(k / 2)) else {
            break;
        };
        let [r, g, b] = yuv_pixel(y[k], cu, cv, m);
        out[k * 4..k * 4 + 4].copy_from_slice(&[r, g, b, 255]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert_solid(r: u8, g: u8, b: u8) -> (u8, u8, u8) {
        let layout = I420Layout::new(4, 2).unwrap();
        let rgba: Vec<u8> = [r, g, b, 255].repeat(8);
        let mut out = vec![0; layout.size];
        rgba_to_i420(&rgba, &layout, &mut out).unwrap();
        (out[0], out[layout.u_offset], out[layout.v_offset])
    }

    #[test]
    fn reference_colours_match_bt709_limited_range() {
        assert_eq!(convert_solid(0, 0, 0), (16, 128, 128));
        assert_eq!(convert_solid(255, 255, 255), (235, 128, 128));
        assert_eq!(convert_solid(128, 128, 128), (126, 128, 128));
        // BT.709 75%-free primaries: red (63,102,240), green (173,42,26), blue (32,240,118).
        assert_eq!(convert_solid(255, 0, 0), (63, 102, 240));
        assert_eq!(convert_solid(0, 255, 0), (173, 42, 26));
        assert_eq!(convert_solid(0, 0, 255), (32, 240, 118));
    }

    #[test]
    fn parallel_equals_single() {
        let layout = I420Layout::new(722, 64).unwrap();
        let rgba: Vec<u8> = (0..layout.rgba_len())
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let mut a = vec![0; layout.size];
        let mut b = vec![0; layout.size];
        rgba_to_i420(&rgba, &layout, &mut a).unwrap();
        rgba_to_i420_par(&rgba, &layout, &mut b).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn yuv_back_to_rgba_round_trips() {
        // Solid 2×2 blocks: the chroma average is exact, so only rounding is left.
        let layout = I420Layout::new(8, 2).unwrap();
        let colours = [[0u8, 0, 0], [255, 255, 255], [200, 60, 30], [20, 140, 230]];
        let rgba: Vec<u8> = (0..2)
            .flat_map(|_| {
                colours
                    .iter()
                    .flat_map(|c| [c[0], c[1], c[2], 255, c[0], c[1], c[2], 255])
            })
            .collect();
        let mut yuv = vec![0; layout.size];
        rgba_to_i420(&rgba, &layout, &mut yuv).unwrap();
        let planes = YuvPlanes {
            y: &yuv[..layout.u_offset],
            u: &yuv[layout.u_offset..layout.v_offset],
            v: &yuv[layout.v_offset..],
            strides: [layout.y_stride, layout.uv_stride, layout.uv_stride],
            colour: YuvColour {
                bt709: true,
                full_range: false,
            },
        };
        let mut back = vec![0; rgba.len()];
        let all = EvenRect::covering(0, 0, 8, 2, 8, 2).unwrap();
        i420_rect_to_rgba(&planes, &mut back, 8, all);
        let worst = crate::raster::worst_difference(&rgba, &back);
        assert!(worst <= 1, "{rgba:?} → {back:?}");
        // Only the rect is written.
        let mut part = vec![7u8; rgba.len()];
        i420_rect_to_rgba(
            &planes,
            &mut part,
            8,
            EvenRect::covering(3, 0, 5, 1, 8, 2).unwrap(),
        );
        assert_eq!(&part[..8], &[7; 8]);
        assert_eq!(&part[8..24], &back[8..24]);
        assert_eq!(&part[24..32], &[7; 8]);
    }

    /// The plain 16.16 definition the SIMD kernel must equal: `(y·ym + c·k + ½) >> 16`, clamped.
    fn reference_pixel(y: u8, u: u8, v: u8, m: &YuvToRgb) -> [u8; 4] {
        let l = (i32::from(y) - m.y_off) * m.y_mul + (1 << 15);
        let (cu, cv) = (i32::from(u) - 128, i32::from(v) - 128);
        let c = |x: i32| (x >> 16).clamp(0, 255) as u8;
        [
            c(l + m.rv * cv),
            c(l - m.gu * cu - m.gv * cv),
            c(l + m.bu * cu),
            255,
        ]
    }

    const COLOURS: [YuvColour; 4] = [
        YuvColour {
            bt709: true,
            full_range: false,
        },
        YuvColour {
            bt709: true,
            full_range: true,
        },
        YuvColour {
            bt709: false,
            full_range: false,
        },
        YuvColour {
            bt709: false,
            full_range: true,
        },
    ];

    #[test]
    fn simd_yuv_to_rgba_equals_the_scalar_definition_for_every_luma_and_chroma() {
        // Rows of 256 luma values (16 SIMD blocks) under every (u, v) pair on a grid that
        // includes both extremes, so every clamp is reached.
        let chroma: Vec<u8> = (0..=255)
            .step_by(15)
            .chain([1, 127, 128, 129, 254])
            .collect();
        let y: Vec<u8> = (0..=255).collect();
        let mut out = vec![0u8; 256 * 4];
        for colour in COLOURS {
            let m = YuvToRgb::new(colour);
            let k = YuvSplit::new(&m);
            for &u in &chroma {
                for v in 0..=255u8 {
                    yuv_row_to_rgba(&y, &[u; 128], &[v; 128], &mut out, &k);
                    for (px, &y) in out.chunks_exact(4).zip(&y) {
                        assert_eq!(
                            px,
                            reference_pixel(y, u, v, &m),
                            "{colour:?} y{y} u{u} v{v}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn simd_yuv_to_rgba_equals_the_scalar_definition_on_random_frames() {
        let mut rng = crate::paint::Rng::new(20);
        let mut byte = || (rng.next_u64() >> 24) as u8;
        // 75 columns: four whole blocks and an odd tail; padded strides; rects of every parity.
        let (w, h, ys, cs) = (75usize, 9usize, 80usize, 40usize);
        let yp: Vec<u8> = (0..ys * h).map(|_| byte()).collect();
        let up: Vec<u8> = (0..cs * h.div_ceil(2)).map(|_| byte()).collect();
        let vp: Vec<u8> = (0..cs * h.div_ceil(2)).map(|_| byte()).collect();
        for colour in COLOURS {
            let m = YuvToRgb::new(colour);
            let planes = YuvPlanes {
                y: &yp,
                u: &up,
                v: &vp,
                strides: [ys, cs, cs],
                colour,
            };
            for rect in [
                EvenRect {
                    x0: 0,
                    y0: 0,
                    x1: w,
                    y1: h,
                },
                EvenRect {
                    x0: 2,
                    y0: 1,
                    x1: 50,
                    y1: 8,
                },
                EvenRect {
                    x0: 18,
                    y0: 4,
                    x1: 36,
                    y1: 5,
                },
            ] {
                let mut out = vec![7u8; w * h * 4];
                i420_rect_to_rgba(&planes, &mut out, w, rect);
                for r in 0..h {
                    for x in 0..w {
                        let px = &out[(r * w + x) * 4..(r * w + x) * 4 + 4];
                        let inside =
                            (rect.y0..rect.y1).contains(&r) && (rect.x0..rect.x1).contains(&x);
                        let want = if inside {
                            let c = (r / 2) * cs + x / 2;
                            reference_pixel(yp[r * ys + x], up[c], vp[c], &m)
                        } else {
                            [7; 4]
                        };
                        assert_eq!(px, want, "{colour:?} {rect:?} at ({x}, {r})");
                    }
                }
            }
        }
    }

    #[test]
    fn a_planar_pictures_window_is_the_conversion_of_its_pixels() {
        let (pw, ph) = (46, 34);
        let mut state = 7u32;
        let picture: Vec<u8> = (0..pw * ph * 4)
            .map(|i| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                if i % 4 == 3 { 255 } else { (state >> 24) as u8 }
            })
            .collect();
        let planar = PlanarPicture::new(&picture, pw, ph).unwrap();
        let layout = I420Layout::new(32, 20).unwrap();
        for (x, y) in [(0, 0), (1, 0), (0, 1), (3, 5), (14, 14), (13, 13)] {
            let window: Vec<u8> = (0..layout.height)
                .flat_map(|r| {
                    let start = ((y + r) * pw + x) * 4;
                    picture[start..start + layout.width * 4].to_vec()
                })
                .collect();
            let mut expected = vec![0; layout.size];
            rgba_to_i420(&window, &layout, &mut expected).unwrap();
            let mut got = vec![1; layout.size];
            assert!(planar.window((x, y), &layout, &mut got));
            assert_eq!(got, expected, "window at ({x}, {y})");
        }
        let mut out = vec![0; layout.size];
        assert!(
            !planar.window((15, 0), &layout, &mut out),
            "past the right edge"
        );
        assert!(PlanarPicture::new(&picture, pw + 1, ph).is_none());
    }

    #[test]
    fn bad_sizes_are_errors() {
        assert!(I420Layout::new(721, 1280).is_err());
        assert!(I420Layout::new(0, 2).is_err());
        let layout = I420Layout::new(4, 2).unwrap();
        assert!(rgba_to_i420(&[0; 3], &layout, &mut [0; 12]).is_err());
    }
}
