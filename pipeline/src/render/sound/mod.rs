//! The soundtrack of a render: the narration with a music bed under it, at the loudness
//! social platforms normalise to.
//!
//! - `library.rs`: the committed loop library (`assets/music/music.json`), track ids, the
//!   `auto` choice by the script's mood.
//! - `bed.rs`: the loop repeated to the video's length, crossfaded seams, fades in and out.
//! - `duck.rs`: speech found in the narration's envelope; the bed's gain, down
//!   [`duck::DUCK_DB`] under speech with attack and release ramps.
//! - `narration.rs`: the scenes' narration files back to back, read again for each pass.
//! - `loudness.rs`: −14 LUFS integrated, true peak ≤ −1 dBTP (gain and a look-ahead limiter).
//! - `encoded.rs`: the same ceiling checked on the AAC encoding, and peaks the encode raised
//!   turned down where they are.
//!
//! Between sentences the bed sits [`BED_BELOW_NARRATION_LU`] under the narration's loudness.
//! A video with `music: "none"` is narration only, and is normalised all the same: the
//! loudness target is the published file's, not the bed's.

pub mod bed;
pub mod duck;
pub mod encoded;
pub mod library;
pub mod loudness;
pub mod narration;

use std::path::Path;

use compositor::media::{SAMPLE_RATE, SampleSource};

use bed::Bed;
use duck::Ducker;
use loudness::{Levels, Loudness, Normalised, Signal};
use narration::{Narration, Replay};

use crate::core::config::Settings;
use crate::core::document::VideoDocument;
use crate::core::error::Code;
use crate::core::jobs::JobFailure;

/// Loudness of the bed in pauses, relative to the narration's (under speech it is a further
/// [`duck::DUCK_DB`] down).
pub const BED_BELOW_NARRATION_LU: f64 = 9.0;

/// `doc`'s soundtrack: its narration (files under `dir`) with its music bed mixed under it,
/// settled at its level, ready to be read as it is encoded.
pub fn soundtrack(
    settings: &Settings,
    doc: &VideoDocument,
    dir: &Path,
) -> Result<Mix<'static>, JobFailure> {
    let narration = Narration::of(doc, dir)?;
    let one_loop = match library::resolve(doc) {
        None => None,
        Some(track) => Some(library::load(&settings.assets_dir, track).map_err(|e| {
            JobFailure::new(Code::RenderFailed, "The music bed could not be read.")
                .because(format!("{}: {e}", track.file))
        })?),
    };
    let mix = Mix::new(Box::new(narration), one_loop, SAMPLE_RATE);
    tracing::info!(
        topic = %doc.topic_id,
        music = library::resolve(doc).map_or("none", |t| t.id.as_str()),
        lufs = mix.level().integrated,
        true_peak_dbtp = mix.level().true_peak,
        "soundtrack mixed"
    );
    Ok(mix)
}

/// A narration with, when given, a loop looped, faded and ducked under it, at the levels
/// [`loudness::settle`] found. Nothing of it is held whole: each pass (measuring, settling,
/// encoding) makes it again, block by block, so memory stays flat in the video's length.
pub struct Mix<'a> {
    narration: Box<dyn Replay + 'a>,
    bed: Option<BedPlan>,
    levels: Levels,
    rate: u32,
}

/// The bed of a [`Mix`]: the loop, where the narration speaks, and the bed's gain.
struct BedPlan {
    one_loop: Vec<f32>,
    speech: Vec<bool>,
    level: f32,
}

impl<'a> Mix<'a> {
    /// The mix of `narration` and `one_loop` at `rate`, settled.
    pub fn new(narration: Box<dyn Replay + 'a>, one_loop: Option<Vec<f32>>, rate: u32) -> Self {
        let bed = one_loop.map(|one_loop| BedPlan {
            level: bed_gain(narration.as_ref(), &one_loop, rate),
            speech: duck::speech_frames(narration.open(), rate),
            one_loop,
        });
        let mut mix = Mix {
            narration,
            bed,
            levels: Levels::default(),
            rate,
        };
        mix.levels = loudness::settle(|| mix.unsettled(), rate);
        mix
    }

    /// Samples per second.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// The loudness it is at.
    pub fn level(&self) -> Loudness {
        self.levels.result
    }

    /// The mix before its levels.
    fn unsettled(&self) -> Mixer<'_> {
        Mixer {
            voice: self.narration.open(),
            bed: self.bed.as_ref().map(|b| {
                (
                    Bed::new(&b.one_loop, self.narration.sample_count(), self.rate),
                    Ducker::new(&b.speech, self.rate),
                    b.level,
                )
            }),
            under: Vec::new(),
        }
    }

    /// Its 16-bit samples from the start, made as they are read.
    pub fn samples(&self) -> impl SampleSource + '_ {
        Normalised::new(self.unsettled(), &self.levels, self.rate)
    }
}

/// The narration with the bed, ducked and at its level, added under it.
struct Mixer<'a> {
    voice: Box<dyn Signal + 'a>,
    bed: Option<(Bed<'a>, Ducker<'a>, f32)>,
    /// The bed's block.
    under: Vec<f32>,
}

impl Signal for Mixer<'_> {
    fn read(&mut self, out: &mut [f32]) -> usize {
        let n = self.voice.read(out);
        if let Some((bed, ducker, level)) = self.bed.as_mut() {
            self.under.resize(n, 0.0);
            let m = bed.read(&mut self.under);
            for ((o, b), g) in out[..m].iter_mut().zip(&self.under).zip(ducker) {
                *o += b * g * *level;
            }
        }
        n
    }
}

/// The linear gain that puts the bed [`BED_BELOW_NARRATION_LU`] under the narration; a
/// narration without speech (silence) gets the bed at the target loudness less that much.
fn bed_gain(narration: &dyn Replay, one_loop: &[f32], rate: u32) -> f32 {
    let bed = Bed::new(one_loop, narration.sample_count(), rate);
    let Some(bed_lufs) = loudness::measure_signal(bed, rate).integrated else {
        return 0.0;
    };
    let voice_lufs = loudness::measure_signal(narration.open(), rate)
        .integrated
        .unwrap_or(loudness::TARGET_LUFS);
    let want = voice_lufs - BED_BELOW_NARRATION_LU;
    10f32.powf((want - bed_lufs) as f32 / 20.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::PI;

    const RATE: u32 = 48_000;
    const BED_HZ: f32 = 2000.0;

    /// The mix of `narration` and `one_loop`, read out whole.
    fn mix(narration: &[i16], one_loop: Option<&[f32]>, rate: u32) -> (Vec<i16>, Loudness) {
        let mix = Mix::new(Box::new(narration), one_loop.map(<[f32]>::to_vec), rate);
        let mut out = vec![0i16; narration.len() + 10];
        let n = mix.samples().read(&mut out);
        out.truncate(n);
        (out, mix.level())
    }

    /// Narration: a 200 Hz buzz for 1.5 s, then 1 s of silence, repeated.
    fn narration(secs: usize) -> Vec<i16> {
        (0..secs * RATE as usize)
            .map(|i| {
                let t = i as f32 / RATE as f32;
                let on = (t % 2.5) < 1.5;
                let w = 2.0 * PI * 200.0 * t;
                if on {
                    (8000.0 * (w.sin() + 0.3 * (2.0 * w).sin())) as i16
                } else {
                    0
                }
            })
            .collect()
    }

    fn bed_loop() -> Vec<f32> {
        (0..RATE as usize)
            .map(|i| 0.5 * (2.0 * PI * BED_HZ * i as f32 / RATE as f32).sin())
            .collect()
    }

    /// Level (dB) of `hz` in `x` (Goertzel), normalised by length.
    fn tone_db(x: &[i16], hz: f32) -> f32 {
        let k = 2.0 * (2.0 * PI * hz / RATE as f32).cos();
        let (mut s1, mut s2) = (0.0f32, 0.0f32);
        for &v in x {
            let s = f32::from(v) / 32768.0 + k * s1 - s2;
            (s2, s1) = (s1, s);
        }
        let power = s1 * s1 + s2 * s2 - k * s1 * s2;
        10.0 * (power / (x.len() * x.len()) as f32).log10()
    }

    #[test]
    fn the_bed_drops_at_least_ten_db_under_speech_and_recovers_between_sentences() {
        let (out, _) = mix(&narration(10), Some(&bed_loop()), RATE);
        let window = |from: f64| {
            let a = (from * f64::from(RATE)) as usize;
            &out[a..a + RATE as usize / 5]
        };
        // Speech at 2.5–4.0 s, a pause at 4.0–5.0 s (measured away from the ramps).
        let under_speech = tone_db(window(3.1), BED_HZ);
        let in_pause = tone_db(window(4.6), BED_HZ);
        assert!(
            in_pause - under_speech >= 10.0,
            "ducked by {} dB only",
            in_pause - under_speech
        );
        let narration_level = tone_db(window(3.1), 200.0);
        assert!(
            narration_level - under_speech > 15.0,
            "the bed masks the voice"
        );
    }

    #[test]
    fn the_mix_is_at_the_target_loudness_with_or_without_music() {
        for one_loop in [Some(bed_loop()), None] {
            let (out, _) = mix(&narration(12), one_loop.as_deref(), RATE);
            let floats: Vec<f32> = out.iter().map(|&s| f32::from(s) / 32768.0).collect();
            let l = loudness::measure(&floats, RATE);
            let lufs = l.integrated.unwrap();
            assert!((lufs - loudness::TARGET_LUFS).abs() <= 0.5, "{lufs} LUFS");
            assert!(
                l.true_peak <= loudness::TRUE_PEAK_DBTP,
                "{} dBTP",
                l.true_peak
            );
            assert_eq!(
                out.len(),
                12 * RATE as usize,
                "the length is the narration's"
            );
        }
    }
}
