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
//! The mix is stereo ([`CHANNELS`]): the narration (mono) in the middle, the same in both
//! channels ([`Centred`]); the bed in stereo, as the loop is. Between sentences the bed sits
//! [`BED_BELOW_NARRATION_LU`] under the narration's loudness, both measured as they sound in
//! the mix. A video with `music: "none"` is narration only, and is normalised all the same:
//! the loudness target is the published file's, not the bed's.

pub mod bed;
pub(crate) mod duck;
pub mod encoded;
pub mod library;
pub mod loudness;
pub mod narration;

use std::path::Path;

use compositor::media::{SAMPLE_RATE, SampleSource};

use bed::{Bed, Loop};
use duck::Ducker;
use loudness::{Levels, Loudness, Normalised, Signal};
use narration::{Narration, Replay};

use foundation::config::Settings;
use foundation::document::VideoDocument;
use foundation::error::Code;
use foundation::jobs::JobFailure;

/// The mix's channels: the product format's (stereo).
pub(crate) const CHANNELS: usize = compositor::media::CHANNELS as usize;

/// Loudness of the bed in pauses, relative to the narration's (under speech it is a further
/// [`duck::DUCK_DB`] down).
pub(crate) const BED_BELOW_NARRATION_LU: f64 = 9.0;

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
        channels = CHANNELS,
        lufs = mix.level().integrated,
        true_peak_dbtp = mix.level().true_peak,
        rounds = mix.levels.rounds,
        "soundtrack mixed"
    );
    Ok(mix)
}

/// A narration (centred) with, when given, a loop looped, faded and ducked under it (in its
/// channels), in stereo at the levels [`loudness::settle`] found. Nothing of it is held whole: each pass (measuring, settling,
/// encoding) makes it again, block by block, so memory stays flat in the video's length.
pub struct Mix<'a> {
    narration: Box<dyn Replay + 'a>,
    bed: Option<BedPlan>,
    levels: Levels,
    rate: u32,
}

/// The bed of a [`Mix`]: the loop, where the narration speaks, and the bed's gain.
struct BedPlan {
    one_loop: Loop,
    speech: Vec<bool>,
    level: f32,
}

impl<'a> Mix<'a> {
    /// The mix of `narration` and `one_loop` (stereo, or mono: then the same in both channels)
    /// at `rate`, settled.
    pub fn new(narration: Box<dyn Replay + 'a>, one_loop: Option<Loop>, rate: u32) -> Self {
        let one_loop = one_loop.map(in_stereo);
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

    /// Its channels, interleaved: [`CHANNELS`].
    pub fn channels(&self) -> u16 {
        compositor::media::CHANNELS
    }

    /// The loudness it is at.
    pub fn level(&self) -> Loudness {
        self.levels.result
    }

    /// The mix before its levels.
    fn unsettled(&self) -> Mixer<'_> {
        Mixer {
            voice: Centred::new(self.narration.open()),
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

    /// Its 16-bit samples from the start, interleaved (left, right), made as they are read.
    pub fn samples(&self) -> impl SampleSource + '_ {
        Normalised::new(self.unsettled(), &self.levels, self.rate)
    }
}

/// A mono signal in the middle of the stereo image: the same samples in both channels, at
/// full level in each (the mix is normalised afterwards, so no pan law is needed).
struct Centred<S> {
    mono: S,
    block: Vec<f32>,
}

impl<S: Signal> Centred<S> {
    fn new(mono: S) -> Self {
        debug_assert_eq!(mono.channels(), 1, "only a mono signal is centred");
        Centred {
            mono,
            block: Vec::new(),
        }
    }
}

impl<S: Signal> Signal for Centred<S> {
    fn channels(&self) -> usize {
        CHANNELS
    }

    fn read(&mut self, out: &mut [f32]) -> usize {
        self.block.resize(out.len() / CHANNELS, 0.0);
        let n = self.mono.read(&mut self.block);
        for (frame, x) in out.chunks_exact_mut(CHANNELS).zip(&self.block[..n]) {
            frame.fill(*x);
        }
        n * CHANNELS
    }
}

/// A loop in the mix's channels: a stereo loop as it is, a mono one in both channels.
fn in_stereo(one_loop: Loop) -> Loop {
    if one_loop.channels == CHANNELS {
        return one_loop;
    }
    let samples = (0..one_loop.frames())
        .flat_map(|i| [one_loop.samples[i * one_loop.channels]; CHANNELS])
        .collect();
    Loop {
        samples,
        channels: CHANNELS,
    }
}

/// The narration (centred) with the bed, ducked and at its level, added under it.
struct Mixer<'a> {
    voice: Centred<Box<dyn Signal + 'a>>,
    bed: Option<(Bed<'a>, Ducker<'a>, f32)>,
    /// The bed's block.
    under: Vec<f32>,
}

impl Signal for Mixer<'_> {
    fn channels(&self) -> usize {
        CHANNELS
    }

    fn read(&mut self, out: &mut [f32]) -> usize {
        let n = self.voice.read(out);
        if let Some((bed, ducker, level)) = self.bed.as_mut() {
            self.under.resize(n, 0.0);
            let m = bed.read(&mut self.under);
            let frames = out[..m].chunks_exact_mut(CHANNELS);
            for ((frame, b), g) in frames.zip(self.under.chunks_exact(CHANNELS)).zip(ducker) {
                for (o, b) in frame.iter_mut().zip(b) {
                    *o += b * g * *level;
                }
            }
        }
        n
    }
}

/// The linear gain that puts the bed [`BED_BELOW_NARRATION_LU`] under the narration (both
/// measured in stereo, as the mix has them); a narration without speech (silence) gets the
/// bed at the target loudness less that much.
fn bed_gain(narration: &dyn Replay, one_loop: &Loop, rate: u32) -> f32 {
    let bed = Bed::new(one_loop, narration.sample_count(), rate);
    let Some(bed_lufs) = loudness::integrated(bed, rate) else {
        return 0.0;
    };
    let voice_lufs =
        loudness::integrated(Centred::new(narration.open()), rate).unwrap_or(loudness::TARGET_LUFS);
    let want = voice_lufs - BED_BELOW_NARRATION_LU;
    10f32.powf((want - bed_lufs) as f32 / 20.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::PI;

    const RATE: u32 = 48_000;
    const BED_HZ: f32 = 2000.0;
    const VOICE_HZ: f32 = 200.0;

    /// The mix of `narration` and `one_loop`, read out whole: its left and right channels.
    fn mix(narration: &[i16], one_loop: Option<&Loop>) -> (Vec<i16>, Vec<i16>) {
        let mix = Mix::new(Box::new(narration), one_loop.cloned(), RATE);
        assert_eq!(mix.samples().channels(), 2);
        let mut out = vec![0i16; CHANNELS * narration.len() + 10];
        let n = mix.samples().read(&mut out);
        out[..n].chunks_exact(2).map(|f| (f[0], f[1])).unzip()
    }

    /// Narration: a 200 Hz buzz for 1.5 s, then 1 s of silence, repeated.
    fn narration(secs: usize) -> Vec<i16> {
        (0..secs * RATE as usize)
            .map(|i| {
                let t = i as f32 / RATE as f32;
                let on = (t % 2.5) < 1.5;
                let w = 2.0 * PI * VOICE_HZ * t;
                if on {
                    (8000.0 * (w.sin() + 0.3 * (2.0 * w).sin())) as i16
                } else {
                    0
                }
            })
            .collect()
    }

    /// A stereo loop: a 2 kHz tone, a quarter turn later in the right channel than in the left.
    fn bed_loop() -> Loop {
        let samples = (0..RATE as usize)
            .flat_map(|i| {
                let w = 2.0 * PI * BED_HZ * i as f32 / RATE as f32;
                [0.5 * w.sin(), 0.5 * w.cos()]
            })
            .collect();
        Loop {
            samples,
            channels: 2,
        }
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
        10.0 * (power / (x.len() * x.len()).max(1) as f32).log10()
    }

    /// `x` from `from` seconds on, for 200 ms.
    fn window(x: &[i16], from: f64) -> &[i16] {
        let a = (from * f64::from(RATE)) as usize;
        &x[a..a + RATE as usize / 5]
    }

    /// Left − right, halved: what is not in the middle.
    fn side(left: &[i16], right: &[i16]) -> Vec<i16> {
        left.iter()
            .zip(right)
            .map(|(&l, &r)| ((i32::from(l) - i32::from(r)) / 2) as i16)
            .collect()
    }

    #[test]
    fn the_bed_drops_at_least_ten_db_under_speech_and_recovers_between_sentences() {
        let (left, _) = mix(&narration(10), Some(&bed_loop()));
        // Speech at 2.5–4.0 s, a pause at 4.0–5.0 s (measured away from the ramps).
        let under_speech = tone_db(window(&left, 3.1), BED_HZ);
        let in_pause = tone_db(window(&left, 4.6), BED_HZ);
        assert!(
            in_pause - under_speech >= 10.0,
            "ducked by {} dB only",
            in_pause - under_speech
        );
        let narration_level = tone_db(window(&left, 3.1), VOICE_HZ);
        assert!(
            narration_level - under_speech > 15.0,
            "the bed masks the voice"
        );
    }

    #[test]
    fn narration_alone_is_the_same_in_both_channels() {
        let (left, right) = mix(&narration(6), None);
        assert_eq!(left.len(), 6 * RATE as usize);
        assert!(tone_db(&left, VOICE_HZ) > -30.0, "the narration is there");
        assert!(left == right, "the narration is not centred");
    }

    #[test]
    fn under_a_stereo_bed_the_narration_stays_centred_and_the_bed_stays_wide() {
        let (left, right) = mix(&narration(10), Some(&bed_loop()));
        let side = side(&left, &right);
        // Speech at 3.1 s: the voice is in both channels alike, so none of it is in the side.
        let voice = tone_db(window(&left, 3.1), VOICE_HZ);
        let voice_in_side = tone_db(window(&side, 3.1), VOICE_HZ);
        assert!(
            voice - voice_in_side > 60.0,
            "the voice leans to one side ({voice} dB, {voice_in_side} dB in the side)"
        );
        // In a pause the bed is as loud in the side as in either channel: the channels differ.
        let bed = tone_db(window(&left, 4.6), BED_HZ);
        let bed_in_side = tone_db(window(&side, 4.6), BED_HZ);
        assert!(bed > -40.0, "the bed plays ({bed} dB)");
        assert!(
            bed - bed_in_side < 6.0,
            "the bed is nearly mono ({bed} dB, {bed_in_side} dB in the side)"
        );
    }

    #[test]
    fn the_stereo_mix_is_at_minus_14_lufs_and_each_channel_under_the_true_peak_ceiling() {
        let floats =
            |x: &[i16]| -> Vec<f32> { x.iter().map(|&s| f32::from(s) / 32768.0).collect() };
        for one_loop in [Some(bed_loop()), None] {
            let (left, right) = mix(&narration(12), one_loop.as_ref());
            assert_eq!(
                left.len(),
                12 * RATE as usize,
                "the length is the narration's"
            );
            let both: Vec<i16> = left
                .iter()
                .zip(&right)
                .flat_map(|(&l, &r)| [l, r])
                .collect();
            let lufs = loudness::measure(&floats(&both), 2, RATE)
                .integrated
                .unwrap();
            assert!((lufs - loudness::TARGET_LUFS).abs() <= 0.5, "{lufs} LUFS");
            for (name, channel) in [("left", &left), ("right", &right)] {
                let peak = loudness::measure(&floats(channel), 1, RATE).true_peak;
                assert!(peak <= loudness::TRUE_PEAK_DBTP, "{name}: {peak} dBTP");
            }
        }
    }
}
