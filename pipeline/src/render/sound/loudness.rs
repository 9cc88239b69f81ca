//! The final level: [`TARGET_LUFS`] integrated (EBU R128, measured with the `ebur128` crate)
//! and a true peak at or under [`TRUE_PEAK_DBTP`]. One gain brings the mix to the target; a
//! look-ahead limiter then holds the peaks under a sample ceiling; what the limiter took off
//! is measured again and given back, a few rounds, each checked for true peak (4× oversampled).
//! The AAC encode after this raises peaks: measured on espeak narration and the library's
//! beds, by up to 2.5 dB (it depends on where the AAC frames fall), hence [`ENCODE_MARGIN_DB`].

use ebur128::{EbuR128, Mode};

/// The integrated loudness social platforms normalise to.
pub const TARGET_LUFS: f64 = -14.0;
/// The highest true peak the published MP4 may have.
pub const TRUE_PEAK_DBTP: f64 = -1.0;
/// Headroom kept below [`TRUE_PEAK_DBTP`] for the lossy encode.
pub const ENCODE_MARGIN_DB: f64 = 3.0;
/// Limiter: time to reach the needed gain before a peak.
const ATTACK_SECS: f64 = 0.005;
/// Limiter: time to come back to unity after one.
const RELEASE_SECS: f64 = 0.08;
/// Gain-and-limit rounds before settling.
const ROUNDS: usize = 8;

/// What [`measure`] reads: integrated loudness (LUFS; `None` for silence) and true peak (dBTP).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loudness {
    pub integrated: Option<f64>,
    pub true_peak: f64,
}

/// Integrated loudness and true peak of mono `samples` in −1…1.
pub fn measure(samples: &[f32], rate: u32) -> Loudness {
    let Ok(mut meter) = EbuR128::new(1, rate, Mode::I | Mode::TRUE_PEAK) else {
        return Loudness {
            integrated: None,
            true_peak: f64::NEG_INFINITY,
        };
    };
    let _ = meter.add_frames_f32(samples);
    let integrated = meter
        .loudness_global()
        .ok()
        .filter(|l| l.is_finite() && *l > -70.0);
    let peak = meter.true_peak(0).unwrap_or(0.0);
    Loudness {
        integrated,
        true_peak: 20.0 * peak.max(1e-10).log10(),
    }
}

/// Brings `mix` to [`TARGET_LUFS`] with its true peak under [`TRUE_PEAK_DBTP`] less
/// [`ENCODE_MARGIN_DB`]. Silence stays silence.
pub fn normalise(mix: &[f32], rate: u32) -> Vec<f32> {
    let ceiling_dbtp = TRUE_PEAK_DBTP - ENCODE_MARGIN_DB;
    let Some(measured) = measure(mix, rate).integrated else {
        return mix.to_vec();
    };
    let mut gain_db = TARGET_LUFS - measured;
    // Inter-sample peaks sit above sample peaks; start the sample ceiling lower still.
    let mut sample_ceiling_db = ceiling_dbtp - 0.5;
    let mut out = mix.to_vec();
    for _ in 0..ROUNDS {
        let gain = 10f32.powf(gain_db as f32 / 20.0);
        out = mix.iter().map(|x| x * gain).collect();
        limit(&mut out, 10f32.powf(sample_ceiling_db as f32 / 20.0), rate);
        let now = measure(&out, rate);
        let peak_over = now.true_peak - ceiling_dbtp;
        let short = TARGET_LUFS - now.integrated.unwrap_or(TARGET_LUFS);
        if peak_over <= 0.0 && short.abs() < 0.2 {
            break;
        }
        if peak_over > 0.0 {
            sample_ceiling_db -= peak_over + 0.1;
        }
        gain_db += short;
    }
    // Rounds used up on a peak still over: one more gain down settles it (true peak scales
    // with gain).
    let over = measure(&out, rate).true_peak - ceiling_dbtp;
    if over > 0.0 {
        let down = 10f32.powf(-(over as f32 + 0.05) / 20.0);
        out.iter_mut().for_each(|x| *x *= down);
    }
    out
}

/// A look-ahead peak limiter: every sample ends at or under `ceiling`. The gain falls
/// linearly over [`ATTACK_SECS`] before a peak and rises linearly over [`RELEASE_SECS`]
/// after it, so it never jumps.
pub fn limit(samples: &mut [f32], ceiling: f32, rate: u32) {
    let need: Vec<f32> = samples
        .iter()
        .map(|x| (ceiling / x.abs().max(1e-9)).min(1.0))
        .collect();
    let attack = 1.0 / (ATTACK_SECS * f64::from(rate)) as f32;
    let release = 1.0 / (RELEASE_SECS * f64::from(rate)) as f32;
    // Backwards: the gain may rise (going back in time) by at most `attack` per sample, so it
    // is already down when the peak comes.
    let mut gain = need;
    for i in (0..gain.len().saturating_sub(1)).rev() {
        gain[i] = gain[i].min(gain[i + 1] + attack);
    }
    // Forwards: after a peak it comes back by at most `release` per sample.
    for i in 1..gain.len() {
        gain[i] = gain[i].min(gain[i - 1] + release);
    }
    for (x, g) in samples.iter_mut().zip(gain) {
        *x *= g;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    /// Speech-like test material: a 220 Hz tone with harmonics in bursts, loud peaks.
    fn bursts(secs: f64) -> Vec<f32> {
        (0..(secs * f64::from(RATE)) as usize)
            .map(|i| {
                let t = i as f32 / RATE as f32;
                let on = if (t % 1.0) < 0.6 { 1.0 } else { 0.02 };
                let w = 2.0 * std::f32::consts::PI * 220.0 * t;
                on * 0.3 * (w.sin() + 0.6 * (3.0 * w).sin() + 0.4 * (7.0 * w).sin())
            })
            .collect()
    }

    #[test]
    fn a_quiet_mix_and_a_loud_one_both_end_at_the_target_under_the_ceiling() {
        for scale in [0.05f32, 1.0, 3.0] {
            let input: Vec<f32> = bursts(10.0).iter().map(|x| x * scale).collect();
            let out = normalise(&input, RATE);
            let l = measure(&out, RATE);
            let lufs = l.integrated.unwrap();
            assert!((lufs - TARGET_LUFS).abs() <= 0.5, "×{scale}: {lufs} LUFS");
            assert!(
                l.true_peak <= TRUE_PEAK_DBTP - ENCODE_MARGIN_DB + 0.01,
                "×{scale}: {} dBTP",
                l.true_peak
            );
        }
    }

    #[test]
    fn silence_stays_silent() {
        let out = normalise(&[0.0; 48_000], RATE);
        assert!(out.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn the_limiter_holds_the_ceiling_without_jumps() {
        let mut s: Vec<f32> = (0..RATE)
            .map(|i| if i == 24_000 { 0.9 } else { 0.1 })
            .collect();
        limit(&mut s, 0.5, RATE);
        assert!(s.iter().all(|x| x.abs() <= 0.5 + 1e-6));
        assert_eq!(s[23_000], 0.1, "untouched well before the peak");
        assert!(
            s[23_900] < 0.099 && s[23_900] > 0.05,
            "the ramp starts before the peak"
        );
        assert!(
            (s[30_000] - 0.1).abs() < 1e-6,
            "back to unity after the release"
        );
    }
}
