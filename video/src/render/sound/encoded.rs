//! The published level is checked on the encoding itself. [`loudness::settle`] leaves
//! [`loudness::ENCODE_MARGIN_DB`] of headroom for the AAC encode, and that is enough almost
//! everywhere; but where a transient lands badly on the encoder's frames (a word starting on
//! a drum hit) the encode has been seen to raise a peak by 3.9 dB. So the encoding is decoded
//! (in every channel) and measured in short windows: where a window's true peak is over the
//! ceiling in any channel, the mix is turned down there only — in both channels alike, like
//! the limiter, so nothing moves in the stereo image —, by what the window was over, ramped
//! like the limiter ([`loudness::ATTACK_SECS`] before, [`loudness::RELEASE_SECS`] after), and
//! encoded again. The rest of the mix is untouched, so the integrated loudness barely moves.

use std::path::Path;
use std::sync::{Arc, Mutex};

use compositor::media::{MediaError, SampleSource, decode_audio_blocks};
use ebur128::{EbuR128, Mode};

use super::loudness::{self, TRUE_PEAK_DBTP};

/// The ceiling the decoded encoding is held under: the published limit less a little for
/// meters that oversample differently.
pub(crate) const ENCODED_CEILING_DBTP: f64 = TRUE_PEAK_DBTP - 0.3;
/// Frames per measured window: one AAC frame.
const WINDOW: usize = 1024;
/// Encodes before giving up (each one turns the remaining peaks down further).
pub(crate) const MAX_ENCODES: usize = 4;

/// A stretch of the soundtrack whose encoding went over the ceiling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Over {
    /// Its frames (a sample of each channel), `start .. end`.
    pub start: usize,
    pub end: usize,
    /// By how much (dB, > 0).
    pub db: f64,
}

/// Finds the windows of a decoded soundtrack whose true peak (in its loudest channel) is
/// over a ceiling, fed block by block.
pub(crate) struct PeakWindows {
    meter: Option<EbuR128>,
    channels: usize,
    ceiling_dbtp: f64,
    /// Samples (interleaved) of the window being filled.
    window: Vec<f32>,
    /// The frame it starts at.
    at: usize,
    overs: Vec<Over>,
}

impl PeakWindows {
    /// Windows of a soundtrack of `channels` interleaved at `rate`.
    pub fn new((rate, channels): (u32, u16), ceiling_dbtp: f64) -> PeakWindows {
        PeakWindows {
            meter: EbuR128::new(u32::from(channels), rate, Mode::TRUE_PEAK).ok(),
            channels: usize::from(channels.max(1)),
            ceiling_dbtp,
            window: Vec::with_capacity(WINDOW * usize::from(channels)),
            at: 0,
            overs: Vec::new(),
        }
    }

    /// The next decoded samples (whole frames).
    pub fn add(&mut self, samples: &[i16]) {
        for &s in samples {
            self.window.push(f32::from(s) / 32768.0);
            if self.window.len() == WINDOW * self.channels {
                self.measure_window();
            }
        }
    }

    /// The windows found over the ceiling, in order.
    pub fn finish(mut self) -> Vec<Over> {
        if !self.window.is_empty() {
            self.measure_window();
        }
        self.overs
    }

    fn measure_window(&mut self) {
        let len = self.window.len() / self.channels;
        if let Some(meter) = self.meter.as_mut()
            && meter.add_frames_f32(&self.window).is_ok()
        {
            let peak = (0..self.channels as u32)
                .map(|c| meter.prev_true_peak(c).unwrap_or(0.0))
                .fold(0.0, f64::max);
            let db = 20.0 * peak.max(1e-10).log10() - self.ceiling_dbtp;
            if db > 0.0 {
                self.overs.push(Over {
                    start: self.at,
                    end: self.at + len,
                    db,
                });
            }
        }
        self.at += len;
        self.window.clear();
    }
}

/// The windows of `decoded` (`channels` interleaved at `rate`) whose true peak is over
/// `ceiling_dbtp`.
#[cfg(test)]
fn peaks_over(decoded: &[i16], format: (u32, u16), ceiling_dbtp: f64) -> Vec<Over> {
    let mut windows = PeakWindows::new(format, ceiling_dbtp);
    windows.add(decoded);
    windows.finish()
}

/// The windows of the audio of the file `encoded`, decoded at `format` (rate, channels),
/// whose true peak in any channel is over `ceiling_dbtp` (the decoded samples are measured as
/// they come, never held).
pub(crate) fn peaks_over_in(
    encoded: &Path,
    format: (u32, u16),
    ceiling_dbtp: f64,
) -> Result<Vec<Over>, MediaError> {
    let windows = Arc::new(Mutex::new(PeakWindows::new(format, ceiling_dbtp)));
    let feed = Arc::clone(&windows);
    decode_audio_blocks(encoded, format, move |block| {
        feed.lock().unwrap_or_else(|e| e.into_inner()).add(block);
    })?;
    let mut windows = windows.lock().unwrap_or_else(|e| e.into_inner());
    Ok(std::mem::replace(&mut *windows, PeakWindows::new(format, ceiling_dbtp)).finish())
}

/// One round of turning down: the stretches an encode found over the ceiling, each to go down
/// by its excess and `extra_db` more.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnDown {
    pub overs: Vec<Over>,
    pub extra_db: f64,
}

impl TurnDown {
    /// Turns `block` (`channels` interleaved), whose first frame is frame `offset` of the
    /// soundtrack (at `rate`), down around each stretch, every channel alike: by its dB over
    /// its window, ramping down over the limiter's attack before and back up over its release
    /// after. Where two stretches' ramps meet, the lower gain wins (they never multiply).
    pub fn apply(&self, block: &mut [i16], (offset, channels): (usize, usize), rate: u32) {
        let attack = (loudness::ATTACK_SECS * f64::from(rate)).ceil() as usize;
        let release = (loudness::RELEASE_SECS * f64::from(rate)).ceil() as usize;
        let gain_of = |o: &Over, i: usize| -> f64 {
            let floor = 10f64.powf(-(o.db + self.extra_db) / 20.0);
            let ramp = if i + attack < o.start {
                return 1.0;
            } else if i < o.start {
                (o.start - i) as f64 / attack as f64
            } else if i < o.end {
                0.0
            } else if i < o.end + release {
                (i + 1 - o.end) as f64 / release as f64
            } else {
                return 1.0;
            };
            floor + (1.0 - floor) * ramp
        };
        let end = offset + block.len() / channels;
        for (from, to, group) in groups(&self.overs, attack, release) {
            for i in from.max(offset)..to.min(end) {
                let g = group.iter().map(|o| gain_of(o, i)).fold(1.0f64, f64::min);
                let at = (i - offset) * channels;
                for sample in &mut block[at..at + channels] {
                    *sample = (f64::from(*sample) * g).round() as i16;
                }
            }
        }
    }
}

/// A soundtrack's samples with rounds of [`TurnDown`] applied, one after another.
pub(crate) struct TurnedDown<'a, S> {
    source: S,
    rounds: &'a [TurnDown],
    rate: u32,
    /// The frame the next read starts at.
    at: usize,
}

impl<'a, S: SampleSource> TurnedDown<'a, S> {
    pub fn new(source: S, rounds: &'a [TurnDown], rate: u32) -> Self {
        TurnedDown {
            source,
            rounds,
            rate,
            at: 0,
        }
    }
}

impl<S: SampleSource> SampleSource for TurnedDown<'_, S> {
    fn channels(&self) -> u16 {
        self.source.channels()
    }

    fn read(&mut self, out: &mut [i16]) -> usize {
        let n = self.source.read(out);
        let channels = usize::from(self.channels().max(1));
        for round in self.rounds {
            round.apply(&mut out[..n], (self.at, channels), self.rate);
        }
        self.at += n / channels;
        n
    }
}

/// `overs` (in order) gathered into runs whose ramps touch: `(from, to, members)`.
fn groups(overs: &[Over], attack: usize, release: usize) -> Vec<(usize, usize, &[Over])> {
    let mut out: Vec<(usize, usize, &[Over])> = Vec::new();
    let mut first = 0;
    for i in 0..overs.len() {
        let from = overs[first].start.saturating_sub(attack);
        let to = overs[first..=i]
            .iter()
            .map(|o| o.end + release)
            .max()
            .unwrap_or(0);
        let next_from = overs.get(i + 1).map(|o| o.start.saturating_sub(attack));
        if next_from.is_none_or(|n| n > to) {
            out.push((from, to, &overs[first..=i]));
            first = i + 1;
        }
    }
    out
}

/// Encodes the soundtrack with `encode`, which is given the rounds of [`TurnDown`] to apply
/// and a ceiling, and returns the windows of its encoding over that ceiling
/// ([`peaks_over_in`]); until there are none at [`ENCODED_CEILING_DBTP`], each encode that
/// has some adds a round (turning down a little more each time) and encodes again, at most
/// [`MAX_ENCODES`] times. Returns how many encodes it took.
pub(crate) fn encode_under_ceiling<E>(
    encode: impl FnMut(&[TurnDown], f64) -> Result<Vec<Over>, E>,
) -> Result<usize, E> {
    encode_under(ENCODED_CEILING_DBTP, encode)
}

fn encode_under<E>(
    ceiling_dbtp: f64,
    mut encode: impl FnMut(&[TurnDown], f64) -> Result<Vec<Over>, E>,
) -> Result<usize, E> {
    let mut rounds = Vec::new();
    for round in 1..=MAX_ENCODES {
        let overs = encode(&rounds, ceiling_dbtp)?;
        let Some(worst) = overs.iter().map(|o| o.db).reduce(f64::max) else {
            return Ok(round);
        };
        if round == MAX_ENCODES {
            tracing::warn!(
                worst_db = worst,
                "the encoded soundtrack is still over its ceiling"
            );
            break;
        }
        tracing::info!(
            stretches = overs.len(),
            worst_db = worst,
            "the encode raised peaks over the ceiling; turning them down"
        );
        rounds.push(TurnDown {
            overs,
            extra_db: 0.1 * round as f64,
        });
    }
    Ok(MAX_ENCODES)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    fn tone(len: usize, amplitude: f32) -> Vec<i16> {
        (0..len)
            .map(|i| {
                let w = 2.0 * std::f32::consts::PI * 440.0 * i as f32 / RATE as f32;
                (w.sin() * amplitude * 32767.0) as i16
            })
            .collect()
    }

    fn db(x: f64) -> f64 {
        20.0 * x.log10()
    }

    #[test]
    fn only_the_windows_over_the_ceiling_are_found_with_their_excess() {
        // −20 dBFS throughout, −3 dBFS for one window's worth in the middle of the second.
        let mut s = tone(3 * RATE as usize, 0.1);
        let loud = tone(WINDOW, 10f32.powf(-3.0 / 20.0));
        let at = RATE as usize + 7 * WINDOW;
        s[at..at + WINDOW].copy_from_slice(&loud);
        let overs = peaks_over(&s, (RATE, 1), -6.0);
        assert!(!overs.is_empty());
        for o in &overs {
            assert!(
                o.start <= at + WINDOW && o.end >= at,
                "{o:?} is not near {at}"
            );
        }
        let worst = overs.iter().map(|o| o.db).fold(0.0, f64::max);
        assert!((worst - 3.0).abs() < 0.3, "over by {worst} dB, not about 3");
        assert!(peaks_over(&tone(RATE as usize, 0.1), (RATE, 1), -6.0).is_empty());
    }

    /// Mono `left` and `right` interleaved.
    fn stereo(left: &[i16], right: &[i16]) -> Vec<i16> {
        left.iter().zip(right).flat_map(|(&l, &r)| [l, r]).collect()
    }

    #[test]
    fn a_window_over_the_ceiling_in_one_channel_only_is_found() {
        // −20 dBFS in both; −3 dBFS for a window in the right channel alone.
        let left = tone(2 * RATE as usize, 0.1);
        let mut right = left.clone();
        let at = RATE as usize + 3 * WINDOW;
        right[at..at + WINDOW].copy_from_slice(&tone(WINDOW, 10f32.powf(-3.0 / 20.0)));
        let overs = peaks_over(&stereo(&left, &right), (RATE, 2), -6.0);
        assert!(!overs.is_empty(), "the right channel's peak was missed");
        for o in &overs {
            assert!(
                o.start <= at + WINDOW && o.end >= at,
                "{o:?} is not near frame {at}"
            );
        }
        assert!(peaks_over(&stereo(&left, &left), (RATE, 2), -6.0).is_empty());
    }

    #[test]
    fn a_stretch_is_turned_down_by_its_excess_and_the_rest_is_untouched() {
        let mut s = vec![10_000i16; RATE as usize];
        let over = Over {
            start: 24_000,
            end: 25_024,
            db: 6.0,
        };
        TurnDown {
            overs: vec![over],
            extra_db: 0.0,
        }
        .apply(&mut s, (0, 1), RATE);
        let gain = |i: usize| f64::from(s[i]) / 10_000.0;
        assert!((db(gain(24_500)) + 6.0).abs() < 0.01, "{}", gain(24_500));
        assert_eq!(s[20_000], 10_000, "before the attack");
        assert_eq!(s[40_000], 10_000, "after the release");
        // The ramps never jump: neighbouring samples differ by less than one step of either.
        let steps = s.windows(2).map(|w| (w[0] - w[1]).abs()).max().unwrap();
        assert!(steps < 100, "a jump of {steps}");
    }

    #[test]
    fn overlapping_stretches_take_the_lower_gain_and_never_multiply() {
        let mut s = vec![10_000i16; RATE as usize];
        let a = Over {
            start: 10_000,
            end: 11_024,
            db: 6.0,
        };
        let b = Over {
            start: 11_024,
            end: 12_048,
            db: 3.0,
        };
        // Applied in two blocks: the second starts mid-way through the stretches.
        let round = TurnDown {
            overs: vec![a, b],
            extra_db: 0.0,
        };
        let (first, second) = s.split_at_mut(10_700);
        round.apply(first, (0, 1), RATE);
        round.apply(second, (10_700, 1), RATE);
        assert!((db(f64::from(s[10_500]) / 10_000.0) + 6.0).abs() < 0.01);
        // In b, a's release is still low: the lower of the two, not their product.
        let g = db(f64::from(s[11_100]) / 10_000.0);
        assert!(g > -6.1 && g < -5.0, "{g} dB");
    }

    #[test]
    fn a_stretch_is_turned_down_alike_in_both_channels() {
        let mut s = stereo(
            &vec![10_000i16; RATE as usize],
            &vec![-4_000i16; RATE as usize],
        );
        let over = Over {
            start: 24_000,
            end: 25_024,
            db: 6.0,
        };
        let round = TurnDown {
            overs: vec![over],
            extra_db: 0.0,
        };
        // In two blocks of whole frames, the second from frame 20 000 on.
        let (first, second) = s.split_at_mut(2 * 20_000);
        round.apply(first, (0, 2), RATE);
        round.apply(second, (20_000, 2), RATE);
        let (l, r) = (f64::from(s[2 * 24_500]), f64::from(s[2 * 24_500 + 1]));
        assert!((db(l / 10_000.0) + 6.0).abs() < 0.01, "left {l}");
        assert!((db(r / -4_000.0) + 6.0).abs() < 0.01, "right {r}");
        assert_eq!((s[2 * 20_000], s[2 * 20_000 + 1]), (10_000, -4_000));
        assert_eq!((s[2 * 40_000], s[2 * 40_000 + 1]), (10_000, -4_000));
    }

    /// Interleaved stereo in memory, as a [`SampleSource`].
    struct Stereo<'a>(&'a [i16]);

    impl SampleSource for Stereo<'_> {
        fn channels(&self) -> u16 {
            2
        }

        fn read(&mut self, out: &mut [i16]) -> usize {
            self.0.read(out)
        }
    }

    /// A real stereo AAC encode of a quiet tone with one loud burst in the left channel only,
    /// held to a ceiling under the burst: the burst is turned down (in both channels) until
    /// its encoding is under it in each channel; the tone is not.
    #[test]
    fn a_real_stereo_encode_is_brought_under_the_ceiling_where_one_channel_was_over() {
        use compositor::media::{EncodeSettings, encode_audio_from};
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sound.mp4");
        let quiet = tone(4 * RATE as usize, 0.03);
        let mut left = quiet.clone();
        // A square wave's edges ring in AAC: its encoding peaks over its samples.
        let burst = 2 * RATE as usize..2 * RATE as usize + RATE as usize / 5;
        for (n, s) in left[burst.clone()].iter_mut().enumerate() {
            *s = if (n / 55) % 2 == 0 { 20_000 } else { -20_000 };
        }
        let before = stereo(&left, &quiet);
        let ceiling = -8.0;
        let mut kept = Vec::new();
        let encodes = encode_under(ceiling, |rounds, ceiling| {
            let mut turned = TurnedDown::new(Stereo(&before), rounds, RATE);
            kept = vec![0; before.len()];
            turned.read(&mut kept);
            let source = &mut Stereo(&kept);
            encode_audio_from((source, RATE), (100, 25), &EncodeSettings::default(), &out)?;
            peaks_over_in(&out, (RATE, 2), ceiling)
        })
        .unwrap();
        assert!(encodes >= 2, "the burst was over the ceiling at first");
        assert!(
            peaks_over_in(&out, (RATE, 2), ceiling).unwrap().is_empty(),
            "{encodes} encodes"
        );
        let frame = |i: usize| (kept[2 * i], kept[2 * i + 1]);
        let was = |i: usize| (before[2 * i], before[2 * i + 1]);
        assert_eq!(
            frame(RATE as usize),
            was(RATE as usize),
            "a second before the burst"
        );
        assert_eq!(frame(3 * RATE as usize + 100), was(3 * RATE as usize + 100));
        let (l, r) = frame(burst.start + 100);
        let (l0, r0) = was(burst.start + 100);
        assert!(l.abs() < l0.abs(), "the burst is turned down");
        assert!(r.abs() < r0.abs(), "and the other channel with it");
    }
}
