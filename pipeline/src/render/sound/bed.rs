//! The bed before ducking: a loop repeated to the video's length with an equal-power
//! crossfade at each seam (a loop whose ends do not meet exactly does not click), and linear
//! fades at the video's start and end.

/// Crossfade at each seam of the loop.
pub const SEAM_SECS: f64 = 0.05;
/// Fade-in at the video's start.
pub const FADE_IN_SECS: f64 = 1.0;
/// Fade-out at the video's end.
pub const FADE_OUT_SECS: f64 = 2.0;

/// The bed's top end: above this it is filtered off. A bed needs no air above the voice, and
/// noisy highs (hats) are what the AAC encode turns into overshooting peaks.
pub const LOW_PASS_HZ: f64 = 7000.0;

/// A second-order (Butterworth) low-pass at [`LOW_PASS_HZ`], run twice (24 dB/octave).
pub fn soften(samples: &mut [f32], rate: u32) {
    let w = 2.0 * std::f64::consts::PI * LOW_PASS_HZ / f64::from(rate);
    let alpha = w.sin() / std::f64::consts::SQRT_2;
    let cos = w.cos();
    let a0 = 1.0 + alpha;
    let b = [
        (1.0 - cos) / 2.0 / a0,
        (1.0 - cos) / a0,
        (1.0 - cos) / 2.0 / a0,
    ];
    let a = [-2.0 * cos / a0, (1.0 - alpha) / a0];
    for _ in 0..2 {
        let (mut x1, mut x2, mut y1, mut y2) = (0.0f64, 0.0, 0.0, 0.0);
        for s in samples.iter_mut() {
            let x = f64::from(*s);
            let y = b[0] * x + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2;
            (x2, x1, y2, y1) = (x1, x, y1, y);
            *s = y as f32;
        }
    }
}

/// `one_loop` repeated to exactly `len` samples. Each repeat after the first starts
/// `seam` samples early, fading in over the previous repeat's tail as it fades out.
pub fn looped(one_loop: &[f32], len: usize, rate: u32) -> Vec<f32> {
    let mut out = vec![0.0f32; len];
    if one_loop.is_empty() {
        return out;
    }
    let seam = ((SEAM_SECS * f64::from(rate)) as usize).min(one_loop.len() / 4);
    let step = one_loop.len() - seam;
    let mut at = 0usize;
    let mut first = true;
    while at < len {
        for (i, &x) in one_loop.iter().enumerate() {
            let Some(slot) = out.get_mut(at + i) else {
                break;
            };
            *slot += x * seam_gain(i, one_loop.len(), seam, first);
        }
        first = false;
        at += step.max(1);
    }
    out
}

/// Equal-power gain of sample `i` of a repeat: rising over its first `seam` samples (except
/// the very first repeat), falling over its last `seam`.
fn seam_gain(i: usize, n: usize, seam: usize, first: bool) -> f32 {
    let quarter = std::f32::consts::FRAC_PI_2;
    if seam == 0 {
        1.0
    } else if i < seam && !first {
        (quarter * i as f32 / seam as f32).sin()
    } else if i >= n - seam {
        (quarter * (n - i) as f32 / seam as f32).sin()
    } else {
        1.0
    }
}

/// Linear fade in over the first [`FADE_IN_SECS`] and out over the last [`FADE_OUT_SECS`]
/// (each at most a third of a short video).
pub fn fade(bed: &mut [f32], rate: u32) {
    let len = bed.len();
    let fade_in = ((FADE_IN_SECS * f64::from(rate)) as usize)
        .min(len / 3)
        .max(1);
    let fade_out = ((FADE_OUT_SECS * f64::from(rate)) as usize)
        .min(len / 3)
        .max(1);
    for (i, x) in bed.iter_mut().enumerate() {
        let up = (i as f32 / fade_in as f32).min(1.0);
        let down = ((len - i) as f32 / fade_out as f32).min(1.0);
        *x *= up.min(down);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    #[test]
    fn a_loop_fills_the_length_without_gaps_or_jumps() {
        // A constant loop: after looping, every sample away from the fades stays near 1
        // (equal-power seams of uncorrelated… here identical material sum to at most √2).
        let one: Vec<f32> = vec![0.5; RATE as usize];
        let bed = looped(&one, RATE as usize * 5 + 123, RATE);
        assert_eq!(bed.len(), RATE as usize * 5 + 123);
        assert!(bed.iter().all(|&x| x > 0.45 && x < 0.71), "a gap or a bump");
        let biggest_step = bed
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f32::max);
        assert!(biggest_step < 0.01, "a click of {biggest_step}");
    }

    #[test]
    fn soften_keeps_the_body_and_takes_the_highs_off() {
        let tone = |hz: f32| -> Vec<f32> {
            (0..RATE as usize)
                .map(|i| (2.0 * std::f32::consts::PI * hz * i as f32 / RATE as f32).sin())
                .collect()
        };
        let peak_after = |hz: f32| {
            let mut t = tone(hz);
            soften(&mut t, RATE);
            t[RATE as usize / 2..]
                .iter()
                .fold(0.0f32, |m, x| m.max(x.abs()))
        };
        assert!(peak_after(440.0) > 0.98, "a 440 Hz tone passes");
        assert!(peak_after(16_000.0) < 0.05, "16 kHz is taken off");
    }

    #[test]
    fn fades_start_and_end_at_silence() {
        let mut bed = vec![1.0f32; RATE as usize * 10];
        fade(&mut bed, RATE);
        assert_eq!(bed[0], 0.0);
        assert!(bed[bed.len() - 1] < 1e-4);
        assert!(
            (bed[RATE as usize / 2] - 0.5).abs() < 0.01,
            "half way through the fade-in"
        );
        assert_eq!(bed[RATE as usize * 5], 1.0);
        assert!((bed[bed.len() - RATE as usize] - 0.5).abs() < 0.01);
    }
}
