//! Area-average downscaling of premultiplied RGBA in fixed point, for stills: the same filter as
//! [`crate::raster::resize`] (each output pixel the mean of the source area it covers), in
//! integers, skipping rows that hold nothing (a canvas of layers is mostly clear).

/// Fractional bits of a tap weight.
const WEIGHT_BITS: u32 = 12;
/// Fractional bits kept between the two passes.
const MID_BITS: u32 = 8;

/// One output sample's source contributions along an axis.
struct Taps {
    start: usize,
    /// Weights summing to `1 << WEIGHT_BITS`.
    weights: Vec<u32>,
}

fn taps(src: usize, dst: usize) -> Vec<Taps> {
    let scale = src as f64 / dst as f64;
    let one = f64::from(1u32 << WEIGHT_BITS);
    (0..dst)
        .map(|i| {
            let lo = i as f64 * scale;
            let hi = ((i + 1) as f64 * scale).min(src as f64);
            let start = (lo.floor() as usize).min(src - 1);
            let end = (hi.ceil() as usize).clamp(start + 1, src);
            let mut weights: Vec<u32> = (start..end)
                .map(|s| ((hi.min(s as f64 + 1.0) - lo.max(s as f64)) / scale * one).round() as u32)
                .collect();
            // Rounding may leave the sum a step off: the largest tap takes the difference.
            let sum: u32 = weights.iter().sum();
            if let Some(max) = weights.iter_mut().max() {
                *max = (*max + (1 << WEIGHT_BITS)).saturating_sub(sum);
            }
            Taps { start, weights }
        })
        .collect()
}

/// `src` (`sw×sh` RGBA, premultiplied) averaged down to `dw×dh` (each no larger than the
/// source side).
pub(crate) fn area_rgba(src: &[u8], sw: usize, sh: usize, dw: usize, dh: usize) -> Vec<u8> {
    assert!(dw <= sw && dh <= sh && dw > 0 && dh > 0 && src.len() == sw * sh * 4);
    let (xt, yt) = (taps(sw, dw), taps(sh, dh));
    let mut mid = vec![0u16; sh * dw * 4];
    let mut filled = vec![false; sh];
    for (y, row) in src.chunks_exact(sw * 4).enumerate() {
        if row.iter().all(|&b| b == 0) {
            continue;
        }
        filled[y] = true;
        let out = &mut mid[y * dw * 4..(y + 1) * dw * 4];
        for (o, t) in out.chunks_exact_mut(4).zip(&xt) {
            let mut acc = [0u32; 4];
            for (k, w) in t.weights.iter().enumerate() {
                let p = &row[(t.start + k) * 4..(t.start + k) * 4 + 4];
                for c in 0..4 {
                    acc[c] += u32::from(p[c]) * w;
                }
            }
            let half = 1 << (WEIGHT_BITS - MID_BITS - 1);
            for c in 0..4 {
                o[c] = ((acc[c] + half) >> (WEIGHT_BITS - MID_BITS)) as u16;
            }
        }
    }
    let mut out = vec![0u8; dw * dh * 4];
    let shift = WEIGHT_BITS + MID_BITS;
    let mut acc = vec![0u32; dw * 4];
    for (row, t) in out.chunks_exact_mut(dw * 4).zip(&yt) {
        if !filled[t.start..t.start + t.weights.len()]
            .iter()
            .any(|f| *f)
        {
            continue;
        }
        acc.fill(0);
        for (k, w) in t.weights.iter().enumerate() {
            let y = t.start + k;
            if !filled[y] {
                continue;
            }
            for (a, m) in acc.iter_mut().zip(&mid[y * dw * 4..(y + 1) * dw * 4]) {
                *a += u32::from(*m) * w;
            }
        }
        for (o, a) in row.iter_mut().zip(&acc) {
            *o = ((a + (1 << (shift - 1))) >> shift).min(255) as u8;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tiny_skia::{IntSize, Pixmap};

    #[test]
    fn matches_the_float_area_filter_within_a_step() {
        let (sw, sh, dw, dh) = (72usize, 128usize, 28usize, 50usize);
        let mut state = 12345u32;
        let src: Vec<u8> = (0..sw * sh)
            .flat_map(|i| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let a = if i % 7 == 0 { 0 } else { (state >> 24) as u8 };
                let c = |k: u32| ((state >> k) as u8).min(a);
                [c(3), c(9), c(15), a]
            })
            .collect();
        let ours = area_rgba(&src, sw, sh, dw, dh);
        let pix = Pixmap::from_vec(src, IntSize::from_wh(sw as u32, sh as u32).unwrap()).unwrap();
        let float = crate::raster::resize(pix.as_ref(), dw as u32, dh as u32).unwrap();
        let worst = crate::raster::worst_difference(&ours, float.data());
        assert!(worst <= 1, "worst difference {worst}");
    }

    #[test]
    fn clear_rows_stay_clear_and_solid_stays_solid() {
        let (sw, sh) = (40usize, 40usize);
        let mut src = vec![0u8; sw * sh * 4];
        for p in src[sw * 4 * 20..].chunks_exact_mut(4) {
            p.copy_from_slice(&[200, 100, 50, 255]);
        }
        let out = area_rgba(&src, sw, sh, 10, 10);
        assert!(out[..10 * 4 * 5].iter().all(|&b| b == 0));
        assert_eq!(&out[10 * 4 * 9..10 * 4 * 9 + 4], &[200, 100, 50, 255]);
    }
}
