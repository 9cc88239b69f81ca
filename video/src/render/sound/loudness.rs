//! The final level: [`TARGET_LUFS`] integrated (EBU R128, measured with the `ebur128` crate
//! over every channel, as R128 sums them) and a true peak at or under [`TRUE_PEAK_DBTP`] in
//! each channel. One gain brings the mix to the target; a look-ahead limiter, linked across
//! the channels (one gain for both, so the stereo image holds still), then holds the peaks
//! under a sample ceiling; what the limiter took off
//! is measured again and given back, a few rounds, each checked for true peak (4× oversampled).
//! The AAC encode after this raises peaks: measured on espeak narration and the library's
//! beds, by up to 2.5 dB (it depends on where the AAC frames fall), hence [`ENCODE_MARGIN_DB`].

use compositor::media::SampleSource;
use ebur128::{EbuR128, Mode};

/// The integrated loudness social platforms normalise to.
pub(crate) const TARGET_LUFS: f64 = -14.0;
/// The highest true peak the published MP4 may have.
pub(crate) const TRUE_PEAK_DBTP: f64 = -1.0;
/// Headroom kept below [`TRUE_PEAK_DBTP`] for the lossy encode.
pub(crate) const ENCODE_MARGIN_DB: f64 = 3.0;
/// Limiter: time to reach the needed gain before a peak.
pub(crate) const ATTACK_SECS: f64 = 0.005;
/// Limiter: time to come back to unity after one.
pub(crate) const RELEASE_SECS: f64 = 0.08;
/// Gain-and-limit rounds before settling.
const ROUNDS: usize = 8;

/// What [`measure`] reads: integrated loudness (LUFS, all channels; `None` for silence) and
/// true peak (dBTP, the highest of any channel).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loudness {
    pub integrated: Option<f64>,
    pub true_peak: f64,
}

/// A signal in −1…1 read from its start, block by block: the mix is made this way, so no step
/// of the soundtrack holds more than a block of it in floats. Mono, or channels interleaved
/// (left, right).
pub trait Signal {
    /// How many channels its samples interleave.
    fn channels(&self) -> usize;
    /// Writes the next samples into `out` (a whole number of frames long: a sample of each
    /// channel) and returns how many; fewer than `out.len()` only at the end, 0 once it has
    /// ended.
    fn read(&mut self, out: &mut [f32]) -> usize;
}

impl<S: Signal + ?Sized> Signal for Box<S> {
    fn channels(&self) -> usize {
        (**self).channels()
    }

    fn read(&mut self, out: &mut [f32]) -> usize {
        (**self).read(out)
    }
}

/// Samples already in memory, `.1` channels interleaved, as a [`Signal`] (the mix is never
/// in memory; tests' signals are).
#[cfg(test)]
pub(crate) struct Samples<'a>(pub &'a [f32], pub usize);

#[cfg(test)]
impl Signal for Samples<'_> {
    fn channels(&self) -> usize {
        self.1
    }

    fn read(&mut self, out: &mut [f32]) -> usize {
        let n = out.len().min(self.0.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        n
    }
}

/// Samples per block of a pass (whole frames of one or two channels).
pub(crate) const BLOCK: usize = 4096;

/// Feeds `signal` to `each` a block at a time, to its end.
pub(crate) fn for_each_block(mut signal: impl Signal, mut each: impl FnMut(&[f32])) {
    let mut block = vec![0.0f32; BLOCK];
    loop {
        let n = signal.read(&mut block);
        if n == 0 {
            break;
        }
        each(&block[..n]);
    }
}

/// A running EBU R128 measure of interleaved channels: integrated loudness and true peak.
struct Meter(Option<EbuR128>);

impl Meter {
    fn new(channels: usize, rate: u32) -> Meter {
        Meter::with_mode(channels, rate, Mode::I | Mode::TRUE_PEAK)
    }

    fn with_mode(channels: usize, rate: u32, mode: Mode) -> Meter {
        let channels = u32::try_from(channels).unwrap_or(0);
        Meter(EbuR128::new(channels, rate, mode).ok())
    }

    fn add(&mut self, samples: &[f32]) {
        if let Some(m) = self.0.as_mut() {
            let _ = m.add_frames_f32(samples);
        }
    }

    fn read(&self) -> Loudness {
        let Some(m) = self.0.as_ref() else {
            return Loudness {
                integrated: None,
                true_peak: f64::NEG_INFINITY,
            };
        };
        let integrated = m
            .loudness_global()
            .ok()
            .filter(|l| l.is_finite() && *l > -70.0);
        let peak = (0..m.channels())
            .map(|c| m.true_peak(c).unwrap_or(0.0))
            .fold(0.0, f64::max);
        Loudness {
            integrated,
            true_peak: 20.0 * peak.max(1e-10).log10(),
        }
    }
}

/// Integrated loudness and true peak of `samples` in −1…1, `channels` interleaved.
#[cfg(test)]
pub fn measure(samples: &[f32], channels: usize, rate: u32) -> Loudness {
    measure_signal(Samples(samples, channels), rate)
}

/// [`measure`] of a [`Signal`], read to its end.
pub(crate) fn measure_signal(signal: impl Signal, rate: u32) -> Loudness {
    let mut meter = Meter::new(signal.channels(), rate);
    for_each_block(signal, |block| meter.add(block));
    meter.read()
}

/// The integrated loudness alone of a [`Signal`], read to its end: [`measure_signal`] without
/// the true peak, which is most of a measure's work (4× oversampled, in every channel).
pub fn integrated(signal: impl Signal, rate: u32) -> Option<f64> {
    let mut meter = Meter::with_mode(signal.channels(), rate, Mode::I);
    for_each_block(signal, |block| meter.add(block));
    meter.read().integrated
}

/// What makes a signal normalised ([`settle`]): a gain, then the limiter at a sample
/// ceiling, then a last trim.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Levels {
    gain_db: f64,
    /// `None`: no limiter (silence).
    sample_ceiling_db: Option<f64>,
    trim_db: f64,
    /// The loudness the signal ends at.
    pub result: Loudness,
    /// The gain-and-limit passes [`settle`] made (0 for silence).
    pub rounds: usize,
}

/// Unity: no gain, no limiter.
impl Default for Levels {
    fn default() -> Levels {
        Levels {
            gain_db: 0.0,
            sample_ceiling_db: None,
            trim_db: 0.0,
            result: Loudness {
                integrated: None,
                true_peak: f64::NEG_INFINITY,
            },
            rounds: 0,
        }
    }
}

impl Levels {
    fn gain(&self) -> f32 {
        10f32.powf((self.gain_db + self.trim_db) as f32 / 20.0)
    }

    fn limiter(&self, (rate, channels): (u32, usize)) -> Option<Limiter> {
        self.sample_ceiling_db.map(|db| {
            let ceiling = 10f32.powf((db + self.trim_db) as f32 / 20.0);
            Limiter::new(ceiling, (rate, channels))
        })
    }
}

/// One pass over `signal` at `levels`; returns the loudness of the result.
fn pass(signal: impl Signal, levels: &Levels, rate: u32) -> Loudness {
    let mut meter = Meter::new(signal.channels(), rate);
    let mut out = Normalised::new(signal, levels, rate);
    let mut block = vec![0.0f32; BLOCK];
    loop {
        let n = out.read_f32(&mut block);
        if n == 0 {
            break;
        }
        meter.add(&block[..n]);
    }
    meter.read()
}

/// The levels that bring the signal `open` reads (from its start, each time it is called) to
/// [`TARGET_LUFS`] with its true peak under [`TRUE_PEAK_DBTP`] less [`ENCODE_MARGIN_DB`]:
/// each round is a pass over the signal, none is kept. Silence stays silence.
pub fn settle<S: Signal>(open: impl Fn() -> S, rate: u32) -> Levels {
    let ceiling_dbtp = TRUE_PEAK_DBTP - ENCODE_MARGIN_DB;
    let Some(measured) = integrated(open(), rate) else {
        return Levels {
            result: measure_signal(open(), rate),
            ..Levels::default()
        };
    };
    let mut levels = Levels {
        gain_db: TARGET_LUFS - measured,
        ..Levels::default()
    };
    // Inter-sample peaks sit above sample peaks; start the sample ceiling lower still.
    let mut sample_ceiling_db = ceiling_dbtp - 0.5;
    // The gain of the round before and the loudness it gave, at the same sample ceiling.
    let mut before = None;
    for round in 1..=ROUNDS {
        levels.rounds = round;
        levels.sample_ceiling_db = Some(sample_ceiling_db);
        levels.result = pass(open(), &levels, rate);
        let loudness = levels.result.integrated.unwrap_or(TARGET_LUFS);
        let peak_over = levels.result.true_peak - ceiling_dbtp;
        let short = TARGET_LUFS - loudness;
        if peak_over <= 0.0 && short.abs() < TOLERANCE_LU {
            return levels;
        }
        let now = (levels.gain_db, loudness);
        levels.gain_db += gain_step(before, now, short);
        before = Some(now);
        if peak_over > 0.0 {
            sample_ceiling_db -= peak_over + 0.1;
            before = None;
        }
    }
    // Rounds used up: the last one's levels, trimmed down if a peak is still over (true peak
    // scales with gain).
    let over = levels.result.true_peak - ceiling_dbtp;
    if over > 0.0 {
        levels.trim_db = -(over + 0.05);
        levels.result = pass(open(), &levels, rate);
    }
    levels
}

/// How far from [`TARGET_LUFS`] a settled signal may end.
const TOLERANCE_LU: f64 = 0.2;
/// The least loudness a dB of gain is taken to add (see [`gain_step`]).
const MIN_SLOPE: f64 = 0.2;

/// The gain (dB) to add to make up `short` LU, from this round's gain and loudness (`now`) and
/// the round's `before` it at the same sample ceiling, when there was one. The limiter takes
/// back part of any gain, more the louder it drives, so a dB of gain adds less than a dB of
/// loudness: the slope between the two rounds says how much less. Narration limited hard took
/// six rounds at a step of `short` itself.
fn gain_step(before: Option<(f64, f64)>, (g1, l1): (f64, f64), short: f64) -> f64 {
    let slope = match before {
        Some((g0, l0)) if (g1 - g0).abs() > 1e-3 => ((l1 - l0) / (g1 - g0)).clamp(MIN_SLOPE, 1.0),
        _ => 1.0,
    };
    short / slope
}

/// A signal at [`Levels`], as 16-bit samples (or floats), made as it is read.
pub(crate) struct Normalised<S> {
    signal: S,
    channels: usize,
    gain: f32,
    limiter: Option<Limiter>,
    /// Read from `signal`, not yet given out.
    input: Vec<f32>,
    /// Out of the limiter, not yet given out, from `cursor` on.
    ready: Vec<f32>,
    cursor: usize,
    ended: bool,
}

impl<S: Signal> Normalised<S> {
    pub fn new(signal: S, levels: &Levels, rate: u32) -> Normalised<S> {
        let channels = signal.channels();
        Normalised {
            signal,
            channels,
            gain: levels.gain(),
            limiter: levels.limiter((rate, channels)),
            input: vec![0.0; BLOCK],
            ready: Vec::with_capacity(2 * BLOCK),
            cursor: 0,
            ended: false,
        }
    }

    /// Refills `ready` when it is used up; false once everything was given.
    fn fill(&mut self) -> bool {
        while self.cursor == self.ready.len() {
            if self.ended {
                return false;
            }
            self.ready.clear();
            self.cursor = 0;
            let n = self.signal.read(&mut self.input);
            let gain = self.gain;
            let scaled = self.input[..n].iter().map(|x| x * gain);
            match self.limiter.as_mut() {
                Some(l) => l.push(scaled, &mut self.ready),
                None => self.ready.extend(scaled),
            }
            if n == 0 {
                self.ended = true;
                if let Some(l) = self.limiter.as_mut() {
                    l.finish(&mut self.ready);
                }
            }
        }
        true
    }

    fn read_f32(&mut self, out: &mut [f32]) -> usize {
        let mut n = 0;
        while n < out.len() && self.fill() {
            let take = (out.len() - n).min(self.ready.len() - self.cursor);
            out[n..n + take].copy_from_slice(&self.ready[self.cursor..self.cursor + take]);
            self.cursor += take;
            n += take;
        }
        n
    }
}

impl<S: Signal> SampleSource for Normalised<S> {
    fn channels(&self) -> u16 {
        u16::try_from(self.channels).unwrap_or(u16::MAX)
    }

    fn read(&mut self, out: &mut [i16]) -> usize {
        let mut n = 0;
        while n < out.len() && self.fill() {
            let take = (out.len() - n).min(self.ready.len() - self.cursor);
            let floats = &self.ready[self.cursor..self.cursor + take];
            for (o, x) in out[n..n + take].iter_mut().zip(floats) {
                *o = (x * 32767.0).round().clamp(-32768.0, 32767.0) as i16;
            }
            self.cursor += take;
            n += take;
        }
        n
    }
}

/// A look-ahead peak limiter, run block by block: every sample ends at or under its
/// ceiling. The gain falls linearly over [`ATTACK_SECS`] before a peak and rises linearly
/// over [`RELEASE_SECS`] after it, so it never jumps. It is linked: one gain per frame, set by
/// the frame's loudest channel, so limiting never moves a sound across the stereo image.
///
/// Going backwards the gain may rise by at most `attack` per frame, so a peak is felt at
/// most `1 / attack` frames ahead (by then the rise has reached 1): holding back that many
/// frames makes the limiter exact, the same as running it over the whole signal at once.
pub(crate) struct Limiter {
    ceiling: f32,
    channels: usize,
    attack: f32,
    release: f32,
    /// Frames held back for the look-ahead.
    look: usize,
    /// Input (interleaved) not yet output, at most `look` frames between pushes.
    held: Vec<f32>,
    /// The gain of the last frame output.
    gain: f32,
    /// Per held frame.
    need: Vec<f32>,
}

impl Limiter {
    /// A limiter of `channels` interleaved at `rate`.
    pub fn new(ceiling: f32, (rate, channels): (u32, usize)) -> Limiter {
        let attack = 1.0 / (ATTACK_SECS * f64::from(rate)) as f32;
        Limiter {
            ceiling,
            channels: channels.max(1),
            attack,
            release: 1.0 / (RELEASE_SECS * f64::from(rate)) as f32,
            look: (1.0 / attack).ceil() as usize + 1,
            held: Vec::new(),
            gain: 1.0,
            need: Vec::new(),
        }
    }

    /// Takes `input` (whole frames) in and appends what is now certain to `out`.
    pub fn push(&mut self, input: impl IntoIterator<Item = f32>, out: &mut Vec<f32>) {
        self.held.extend(input);
        let ready = (self.held.len() / self.channels).saturating_sub(self.look);
        self.emit(ready, out);
    }

    /// Appends the rest (nothing follows the signal's end).
    pub fn finish(&mut self, out: &mut Vec<f32>) {
        self.emit(self.held.len() / self.channels, out);
    }

    /// Outputs the first `n` held frames.
    fn emit(&mut self, n: usize, out: &mut Vec<f32>) {
        if n == 0 {
            return;
        }
        let (ceiling, channels) = (self.ceiling, self.channels);
        self.need.clear();
        self.need
            .extend(self.held.chunks_exact(channels).map(|frame| {
                let peak = frame.iter().fold(0.0f32, |m, x| m.max(x.abs()));
                if peak <= ceiling { 1.0 } else { ceiling / peak }
            }));
        // Backwards over everything held: exact for the first `n`, which have `look` after.
        for i in (0..self.need.len().saturating_sub(1)).rev() {
            self.need[i] = self.need[i].min(self.need[i + 1] + self.attack);
        }
        // Forwards, on from the last frame output.
        let frames = self.held[..n * channels].chunks_exact(channels);
        for (frame, need) in frames.zip(&self.need) {
            self.gain = need.min(self.gain + self.release);
            out.extend(frame.iter().map(|x| x * self.gain));
        }
        self.held.drain(..n * channels);
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

    /// [`Limiter`] over all of `samples` at once.
    fn limit(samples: &mut [f32], ceiling: f32, rate: u32) {
        let mut limiter = Limiter::new(ceiling, (rate, 1));
        let mut out = Vec::with_capacity(samples.len());
        limiter.push(samples.iter().copied(), &mut out);
        limiter.finish(&mut out);
        samples.copy_from_slice(&out);
    }

    fn floats(samples: &[i16]) -> Vec<f32> {
        samples.iter().map(|&s| f32::from(s) / 32768.0).collect()
    }

    /// `input` settled and read out whole, with the level [`settle`] says it ends at.
    fn normalise(input: &[f32]) -> (Vec<i16>, Loudness) {
        let levels = settle(|| Samples(input, 1), RATE);
        let mut source = Normalised::new(Samples(input, 1), &levels, RATE);
        let mut out = vec![0i16; input.len() + 10];
        let n = source.read(&mut out);
        out.truncate(n);
        (out, levels.result)
    }

    #[test]
    fn a_quiet_mix_and_a_loud_one_both_end_at_the_target_under_the_ceiling() {
        for scale in [0.05f32, 1.0, 3.0] {
            let input: Vec<f32> = bursts(10.0).iter().map(|x| x * scale).collect();
            let (out, level) = normalise(&input);
            let l = measure(&floats(&out), 1, RATE);
            assert_eq!(out.len(), input.len());
            assert!(
                (l.true_peak - level.true_peak).abs() < 0.1,
                "{l:?} {level:?}"
            );
            let lufs = l.integrated.unwrap();
            assert!((lufs - TARGET_LUFS).abs() <= 0.5, "×{scale}: {lufs} LUFS");
            assert!(
                l.true_peak <= TRUE_PEAK_DBTP - ENCODE_MARGIN_DB + 0.01,
                "×{scale}: {} dBTP",
                l.true_peak
            );
        }
    }

    /// Narration-like: [`bursts`] cut into syllables (a sin⁶ envelope, three a second), each
    /// second's louder or quieter (5 % to full scale). Driven to the target under the ceiling,
    /// the limiter holds the loud peaks down while the quiet ones still gain: the case where a
    /// gain step of the shortfall itself took six rounds, as with real narration.
    fn uneven(secs: f64) -> Vec<f32> {
        let mut x = bursts(secs);
        for (i, v) in x.iter_mut().enumerate() {
            let second = i / RATE as usize;
            let t = i as f32 / RATE as f32;
            let syllable = (3.0 * std::f32::consts::PI * t).sin().powi(6);
            *v *= syllable * (0.05 + 0.95 * ((second * 7) % 10) as f32 / 9.0);
        }
        x
    }

    #[test]
    fn a_signal_the_limiter_squeezes_settles_in_three_rounds_at_the_target() {
        let input = uneven(20.0);
        let levels = settle(|| Samples(&input, 1), RATE);
        let lufs = levels.result.integrated.unwrap();
        assert!((lufs - TARGET_LUFS).abs() < TOLERANCE_LU, "{lufs} LUFS");
        assert!(levels.result.true_peak <= TRUE_PEAK_DBTP - ENCODE_MARGIN_DB);
        assert!(levels.rounds <= 3, "{} rounds", levels.rounds);
    }

    #[test]
    fn silence_stays_silent() {
        let (out, _) = normalise(&[0.0; 48_000]);
        assert_eq!(out.len(), 48_000);
        assert!(out.iter().all(|&x| x == 0));
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

    #[test]
    fn the_stereo_limiter_turns_both_channels_down_together_when_one_peaks() {
        // A peak in the left channel only; the right is a steady 0.1.
        let stereo: Vec<f32> = (0..RATE as usize)
            .flat_map(|i| [if i == 24_000 { 0.9 } else { 0.1 }, 0.1])
            .collect();
        let mut limiter = Limiter::new(0.5, (RATE, 2));
        let mut out = Vec::new();
        for block in stereo.chunks(BLOCK) {
            limiter.push(block.iter().copied(), &mut out);
        }
        limiter.finish(&mut out);
        assert_eq!(out.len(), stereo.len());
        let (left, right) = (|i: usize| out[2 * i], |i: usize| out[2 * i + 1]);
        assert!(
            (left(24_000) - 0.5).abs() < 1e-6,
            "the peak is held at the ceiling"
        );
        // The same gain in both: the right channel dips with the left's peak.
        assert!(
            (right(24_000) - 0.1 * 0.5 / 0.9).abs() < 1e-6,
            "{}",
            right(24_000)
        );
        for i in [23_900, 24_500] {
            assert!(right(i) < 0.099, "frame {i} not ramped");
            assert_eq!(left(i), right(i), "frame {i}: unequal gains");
        }
        assert_eq!(
            (left(10_000), right(10_000)),
            (0.1, 0.1),
            "untouched away from it"
        );
    }

    #[test]
    fn the_limiter_run_in_blocks_is_the_limiter_run_over_the_whole_signal() {
        let signal: Vec<f32> = bursts(2.0).iter().map(|x| x * 2.5).collect();
        let mut whole = signal.clone();
        limit(&mut whole, 0.4, RATE);
        for block in [1, 100, 239, 4096] {
            let mut limiter = Limiter::new(0.4, (RATE, 1));
            let mut out = Vec::new();
            for piece in signal.chunks(block) {
                limiter.push(piece.iter().copied(), &mut out);
            }
            limiter.finish(&mut out);
            assert_eq!(out, whole, "blocks of {block}");
        }
    }
}
