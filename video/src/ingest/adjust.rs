//! `adjust`: treatment of an audio source's sound before it is transcribed and used as the
//! narration (spec rule 6; sub-fields are ours, documented in the README).
//!
//! `adjust` is a string (`"normalize"`) or an object:
//!
//! | field | range | default | used by |
//! |---|---|---|---|
//! | `mode` | `off`, `normalize`, `denoise`, `trim_silence` | `normalize` | |
//! | `target_lufs` | −30 … −10 | −16 | normalize: EBU R128 integrated loudness target |
//! | `denoise_strength` | 0 … 1 | 0.6 | denoise: how far noise-only passages are pulled down |
//! | `silence_threshold_db` | −80 … −20 | −45 | trim_silence: level (dBFS) below which is silence |
//! | `min_silence_ms` | 100 … 5000 | 600 | trim_silence: shorter pauses are kept |
//! | `keep_silence_ms` | 0 … 1000 | 150 | trim_silence: pause left on each side of a cut |
//!
//! Anything but `off` on a video or text source, an unknown field, or a value out of range is
//! `invalid_adjust` (400). All treatments work on 48 kHz mono PCM in memory:
//! - **normalize**: ITU-R BS.1770-4 / EBU R128 integrated loudness (K-weighting, 400 ms blocks
//!   with 75 % overlap, −70 LUFS absolute and −10 LU relative gates), then one gain to the
//!   target, capped so the peak stays at or under −1 dBFS.
//! - **denoise**: an 80 Hz high-pass (rumble, hum fundamentals) and a smooth downward expander
//!   keyed on the noise floor (the 10th percentile of 20 ms frame levels): passages near the
//!   floor are attenuated by up to `denoise_strength`, speech passes untouched.
//! - **trim_silence**: pauses longer than `min_silence_ms` are shortened to
//!   2 × `keep_silence_ms`; leading and trailing silence goes too.

use foundation::error::{Code, Error, Result};
use foundation::model::Source;
pub use foundation::model::{Adjust, AdjustMode as Mode};

fn bad(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidAdjust, message).param("adjust")
}

/// Checks each numeric setting of `adjust` against its range (`invalid_adjust`): the schema
/// states the ranges, the reader does not check them.
pub(crate) fn check_ranges(adjust: &Adjust) -> Result<()> {
    // (field, its value, min, max): as `Adjust`'s schema states them.
    let ranges = [
        ("target_lufs", adjust.target_lufs, -30.0, -10.0),
        ("denoise_strength", adjust.denoise_strength, 0.0, 1.0),
        (
            "silence_threshold_db",
            adjust.silence_threshold_db,
            -80.0,
            -20.0,
        ),
        ("min_silence_ms", adjust.min_silence_ms, 100.0, 5000.0),
        ("keep_silence_ms", adjust.keep_silence_ms, 0.0, 1000.0),
    ];
    for (key, x, lo, hi) in ranges {
        if !(lo..=hi).contains(&x) {
            return Err(bad(format!(
                "`adjust.{key}` must be a number from {lo} to {hi}."
            )));
        }
    }
    Ok(())
}

/// Checks `adjust` against the source (spec rule 6): anything but `off` needs an audio
/// source. Gives what the build task applies, `None` for nothing to do.
pub(crate) fn for_source(adjust: Option<Adjust>, source: Source) -> Result<Option<Adjust>> {
    let Some(adjust) = adjust.filter(|a| a.mode != Mode::Off) else {
        return Ok(None);
    };
    if !source.is_audio() {
        return Err(bad(
            "`adjust` applies only to audio sources (audio_url, audio_file).",
        ));
    }
    Ok(Some(adjust))
}

/// Applies `adjust` to mono PCM at 48 kHz (the rate media sources are decoded at).
pub fn apply(adjust: &Adjust, samples: &mut Vec<i16>, rate: u32) {
    match adjust.mode {
        Mode::Off => {}
        Mode::Normalize => normalize(samples, rate, adjust.target_lufs),
        Mode::Denoise => denoise(samples, rate, adjust.denoise_strength),
        Mode::TrimSilence => trim_silence(samples, rate, adjust),
    }
}

/// A direct-form I biquad.
struct Biquad {
    b: [f64; 3],
    a: [f64; 2],
    x: [f64; 2],
    y: [f64; 2],
}

impl Biquad {
    fn new(b: [f64; 3], a: [f64; 2]) -> Self {
        Biquad {
            b,
            a,
            x: [0.0; 2],
            y: [0.0; 2],
        }
    }

    fn run(&mut self, x: f64) -> f64 {
        let y = self.b[0] * x + self.b[1] * self.x[0] + self.b[2] * self.x[1]
            - self.a[0] * self.y[0]
            - self.a[1] * self.y[1];
        self.x = [x, self.x[0]];
        self.y = [y, self.y[0]];
        y
    }

    /// RBJ cookbook high-pass.
    fn high_pass(rate: u32, hz: f64, q: f64) -> Self {
        let w = 2.0 * std::f64::consts::PI * hz / f64::from(rate);
        let alpha = w.sin() / (2.0 * q);
        let cos = w.cos();
        let a0 = 1.0 + alpha;
        Biquad::new(
            [
                (1.0 + cos) / 2.0 / a0,
                -(1.0 + cos) / a0,
                (1.0 + cos) / 2.0 / a0,
            ],
            [-2.0 * cos / a0, (1.0 - alpha) / a0],
        )
    }

    /// BS.1770 K-weighting stage 1 (high shelf, +4 dB) for `rate`, by the bilinear transform.
    fn k_shelf(rate: u32) -> Self {
        let (f0, g, q) = (1681.974450955533, 3.999843853973347, 0.7071752369554196);
        let k = (std::f64::consts::PI * f0 / f64::from(rate)).tan();
        let vh = 10f64.powf(g / 20.0);
        let vb = vh.powf(0.4996667741545416);
        let a0 = 1.0 + k / q + k * k;
        Biquad::new(
            [
                (vh + vb * k / q + k * k) / a0,
                2.0 * (k * k - vh) / a0,
                (vh - vb * k / q + k * k) / a0,
            ],
            [2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
        )
    }

    /// BS.1770 K-weighting stage 2 (RLB high-pass) for `rate`.
    fn k_highpass(rate: u32) -> Self {
        let (f0, q) = (38.13547087602444, 0.5003270373238773);
        let k = (std::f64::consts::PI * f0 / f64::from(rate)).tan();
        let a0 = 1.0 + k / q + k * k;
        Biquad::new(
            [1.0, -2.0, 1.0],
            [2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
        )
    }
}

/// Integrated loudness (LUFS) of mono PCM, or `None` when everything is gated out (silence).
pub(crate) fn integrated_loudness(samples: &[i16], rate: u32) -> Option<f64> {
    let mut shelf = Biquad::k_shelf(rate);
    let mut hp = Biquad::k_highpass(rate);
    let weighted: Vec<f64> = samples
        .iter()
        .map(|&s| hp.run(shelf.run(f64::from(s) / 32768.0)))
        .collect();
    let block = (0.4 * f64::from(rate)) as usize;
    let step = block / 4;
    if block == 0 || weighted.len() < block {
        return None;
    }
    let blocks: Vec<f64> = (0..=(weighted.len() - block) / step)
        .map(|i| {
            let b = &weighted[i * step..i * step + block];
            b.iter().map(|x| x * x).sum::<f64>() / block as f64
        })
        .collect();
    let lufs = |ms: f64| -0.691 + 10.0 * ms.log10();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let abs: Vec<f64> = blocks.into_iter().filter(|&m| lufs(m) > -70.0).collect();
    if abs.is_empty() {
        return None;
    }
    let relative = lufs(mean(&abs)) - 10.0;
    let gated: Vec<f64> = abs.into_iter().filter(|&m| lufs(m) > relative).collect();
    (!gated.is_empty()).then(|| lufs(mean(&gated)))
}

fn normalize(samples: &mut [i16], rate: u32, target: f64) {
    let Some(measured) = integrated_loudness(samples, rate) else {
        return;
    };
    let peak = samples
        .iter()
        .map(|s| f64::from(*s).abs() / 32768.0)
        .fold(0.0, f64::max);
    let mut gain = 10f64
        .powf((target - measured) / 20.0)
        .min(10f64.powf(24.0 / 20.0));
    let ceiling = 10f64.powf(-1.0 / 20.0);
    if peak > 0.0 && peak * gain > ceiling {
        gain = ceiling / peak;
    }
    for s in samples.iter_mut() {
        *s = (f64::from(*s) * gain).round().clamp(-32768.0, 32767.0) as i16;
    }
}

fn denoise(samples: &mut [i16], rate: u32, strength: f64) {
    let mut hp = Biquad::high_pass(rate, 80.0, std::f64::consts::FRAC_1_SQRT_2);
    let filtered: Vec<f64> = samples.iter().map(|&s| hp.run(f64::from(s))).collect();
    let frame = ((0.02 * f64::from(rate)) as usize).max(1);
    let rms: Vec<f64> = filtered
        .chunks(frame)
        .map(|c| (c.iter().map(|x| x * x).sum::<f64>() / c.len() as f64).sqrt())
        .collect();
    if rms.is_empty() {
        return;
    }
    let mut sorted = rms.clone();
    sorted.sort_by(f64::total_cmp);
    let floor = sorted[sorted.len() / 10].max(1.0);
    let threshold = floor * 3.0;
    // Frame gains: 1 for speech, down to (1 - strength) at the floor, smooth in between.
    let gains: Vec<f64> = rms
        .iter()
        .map(|&r| {
            if r >= threshold {
                1.0
            } else {
                let x = (r / threshold).clamp(0.0, 1.0);
                1.0 - strength * (1.0 - x * x)
            }
        })
        .collect();
    for (i, (s, x)) in samples.iter_mut().zip(&filtered).enumerate() {
        // Interpolate between frame centres so gain changes never click.
        let pos = (i as f64 / frame as f64 - 0.5).max(0.0);
        let k = (pos as usize).min(gains.len() - 1);
        let next = (k + 1).min(gains.len() - 1);
        let t = pos - k as f64;
        let g = gains[k] * (1.0 - t) + gains[next] * t;
        *s = (x * g).round().clamp(-32768.0, 32767.0) as i16;
    }
}

fn trim_silence(samples: &mut Vec<i16>, rate: u32, a: &Adjust) {
    let runs = crate::ingest::transcribe::voiced_runs(
        samples,
        rate,
        0,
        samples.len(),
        Some(a.silence_threshold_db),
        a.min_silence_ms / 1000.0,
    );
    if runs.is_empty() {
        return;
    }
    let keep = a.keep_silence_ms / 1000.0;
    let len = samples.len();
    let at = |t: f64| ((t * f64::from(rate)).round() as usize).min(len);
    let mut out = Vec::with_capacity(len);
    for (start, end) in runs {
        out.extend_from_slice(&samples[at((start - keep).max(0.0))..at(end + keep)]);
    }
    *samples = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    fn sine(secs: f64, hz: f64, amp: f64) -> Vec<i16> {
        (0..(secs * f64::from(RATE)) as usize)
            .map(|i| {
                (amp * 32767.0
                    * (2.0 * std::f64::consts::PI * hz * i as f64 / f64::from(RATE)).sin())
                    as i16
            })
            .collect()
    }

    #[test]
    fn loudness_matches_the_reference_tone() {
        // BS.1770: a 1 kHz sine at 0 dBFS in one channel reads -3.01 LUFS, so one at
        // -20 dBFS reads -23.0.
        let amp = 10f64.powf(-20.0 / 20.0);
        let tone = sine(5.0, 997.0, amp);
        let l = integrated_loudness(&tone, RATE).unwrap();
        assert!((l - (-23.0)).abs() < 0.1, "{l}");
        let mut quiet = sine(5.0, 997.0, 0.02);
        normalize(&mut quiet, RATE, -16.0);
        let after = integrated_loudness(&quiet, RATE).unwrap();
        assert!((after - (-16.0)).abs() < 0.3, "{after}");
        // The peak ceiling wins over the target.
        let mut loud = sine(5.0, 997.0, 0.9);
        normalize(&mut loud, RATE, -10.0);
        let peak = loud.iter().map(|s| s.unsigned_abs()).max().unwrap();
        assert!(f64::from(peak) / 32768.0 <= 0.892);
        assert_eq!(integrated_loudness(&vec![0; 48_000], RATE), None);
    }

    #[test]
    fn denoise_quietens_noise_and_keeps_speech() {
        let mut s: Vec<i16> = (0..48_000)
            .map(|i| ((i * 7919 % 200) as i16) - 100)
            .collect();
        s.extend(sine(1.0, 440.0, 0.5));
        let before_noise: f64 = s[..48_000].iter().map(|x| f64::from(*x).abs()).sum();
        let before_tone: f64 = s[52_000..].iter().map(|x| f64::from(*x).abs()).sum();
        denoise(&mut s, RATE, 1.0);
        let noise: f64 = s[..48_000].iter().map(|x| f64::from(*x).abs()).sum();
        let tone: f64 = s[52_000..].iter().map(|x| f64::from(*x).abs()).sum();
        assert!(noise < before_noise * 0.3, "{noise} vs {before_noise}");
        assert!(tone > before_tone * 0.95);
    }

    #[test]
    fn trims_long_pauses_only() {
        let mut s = vec![0i16; 48_000];
        s.extend(sine(1.0, 440.0, 0.5));
        s.extend(vec![0i16; 96_000]);
        s.extend(sine(1.0, 440.0, 0.5));
        s.extend(vec![0i16; 24_000]);
        let a = Adjust {
            mode: Mode::TrimSilence,
            keep_silence_ms: 100.0,
            ..Adjust::default()
        };
        apply(&a, &mut s, RATE);
        let secs = s.len() as f64 / f64::from(RATE);
        assert!((secs - 2.4).abs() < 0.05, "{secs}");
    }
}
