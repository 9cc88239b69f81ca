//! RGBA → I420 (BT.709, limited range), done by us so the encoder gets 4:2:0 directly.
//!
//! `videoconvert` left to itself negotiates Y444 with x264 (DESIGN §5), and converting in our
//! own rayon workers keeps the GStreamer streaming thread free for the encoder. Fixed-point
//! arithmetic (16 fractional bits) keeps the result bit-exact across machines; chroma is the
//! average of each 2×2 block (MPEG-2 / H.264 "left" siting is close enough for 4:2:0 delivery
//! and matches what players assume). Alpha is ignored: frames from the renderer are opaque.

use rayon::prelude::*;

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
    fn bad_sizes_are_errors() {
        assert!(I420Layout::new(721, 1280).is_err());
        assert!(I420Layout::new(0, 2).is_err());
        let layout = I420Layout::new(4, 2).unwrap();
        assert!(rgba_to_i420(&[0; 3], &layout, &mut [0; 12]).is_err());
    }
}
