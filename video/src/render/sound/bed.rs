//! The bed before ducking: a loop repeated to the video's length with an equal-power
//! crossfade at each seam (a loop whose ends do not meet exactly does not click), and linear
//! fades at the video's start and end. In as many channels as the loop has (the library's
//! loops are stereo), each channel looped, filtered and faded alike.

/// Crossfade at each seam of the loop.
pub(crate) const SEAM_SECS: f64 = 0.05;
/// Fade-in at the video's start.
pub(crate) const FADE_IN_SECS: f64 = 1.0;
/// Fade-out at the video's end.
pub(crate) const FADE_OUT_SECS: f64 = 2.0;

/// The bed's top end: above this it is filtered off. A bed needs no air above the voice, and
/// noisy highs (hats) are what the AAC encode turns into overshooting peaks.
pub(crate) const LOW_PASS_HZ: f64 = 7000.0;

use super::loudness::Signal;

/// A loop of music in memory: `channels` interleaved (left, right for stereo).
#[derive(Debug, Clone, PartialEq)]
pub struct Loop {
    pub samples: Vec<f32>,
    pub channels: usize,
}

impl Loop {
    /// Its length in frames (a sample of each channel).
    pub fn frames(&self) -> usize {
        self.samples.len() / self.channels.max(1)
    }
}

/// The bed of a `len`-frame video, made block by block: the loop repeated, softened
/// ([`Softener`], each channel its own) and faded in and out.
pub(crate) struct Bed<'a> {
    one_loop: &'a Loop,
    len: usize,
    /// Frames of each seam's crossfade; a repeat starts every `step` frames.
    seam: usize,
    step: usize,
    fade_in: usize,
    fade_out: usize,
    soften: Vec<Softener>,
    at: usize,
}

impl<'a> Bed<'a> {
    pub fn new(one_loop: &'a Loop, len: usize, rate: u32) -> Bed<'a> {
        let frames = one_loop.frames();
        let seam = ((SEAM_SECS * f64::from(rate)) as usize).min(frames / 4);
        // Each fade at most a third of a short video.
        let fade = |secs: f64| ((secs * f64::from(rate)) as usize).min(len / 3).max(1);
        Bed {
            one_loop,
            len,
            seam,
            step: (frames - seam).max(1),
            fade_in: fade(FADE_IN_SECS),
            fade_out: fade(FADE_OUT_SECS),
            soften: (0..one_loop.channels)
                .map(|_| Softener::new(rate))
                .collect(),
            at: 0,
        }
    }

    /// Frame `i` of the loop repeated, into `frame` (one sample per channel): each repeat
    /// after the first starts `seam` frames early, fading in over the previous repeat's tail
    /// as it fades out. A seam is at most a quarter of the loop, so at most two repeats
    /// overlap: the current one, `k` frames in, and the one before, `k + step` frames in.
    fn looped(&self, i: usize, frame: &mut [f32]) {
        let n = self.one_loop.frames();
        if n == 0 {
            frame.fill(0.0);
            return;
        }
        let channels = self.one_loop.channels;
        let (r, k) = (i / self.step, i % self.step);
        let at = |k: usize| &self.one_loop.samples[k * channels..(k + 1) * channels];
        let gain = seam_gain(k, n, self.seam, r == 0);
        for (out, x) in frame.iter_mut().zip(at(k)) {
            *out = x * gain;
        }
        let before = k + self.step;
        if r > 0 && before < n {
            let gain = seam_gain(before, n, self.seam, r == 1);
            for (out, x) in frame.iter_mut().zip(at(before)) {
                *out += x * gain;
            }
        }
    }

    /// The linear fade in over the first [`FADE_IN_SECS`] and out over the last
    /// [`FADE_OUT_SECS`], at sample `i`.
    fn fade(&self, i: usize) -> f32 {
        let up = (i as f32 / self.fade_in as f32).min(1.0);
        let down = ((self.len - i) as f32 / self.fade_out as f32).min(1.0);
        up.min(down)
    }
}

impl Signal for Bed<'_> {
    fn channels(&self) -> usize {
        self.one_loop.channels
    }

    fn read(&mut self, out: &mut [f32]) -> usize {
        let channels = self.one_loop.channels.max(1);
        let n = (out.len() / channels).min(self.len - self.at);
        for (k, frame) in out[..n * channels].chunks_exact_mut(channels).enumerate() {
            let i = self.at + k;
            self.looped(i, frame);
            let fade = self.fade(i);
            for (x, filter) in frame.iter_mut().zip(&mut self.soften) {
                *x = filter.next(*x) * fade;
            }
        }
        self.at += n;
        n * channels
    }
}

/// A second-order (Butterworth) low-pass at [`LOW_PASS_HZ`], twice over (24 dB/octave).
pub(crate) struct Softener {
    b: [f64; 3],
    a: [f64; 2],
    /// Each stage's last two inputs and outputs.
    state: [[f64; 4]; 2],
}

impl Softener {
    pub fn new(rate: u32) -> Softener {
        let w = 2.0 * std::f64::consts::PI * LOW_PASS_HZ / f64::from(rate);
        let alpha = w.sin() / std::f64::consts::SQRT_2;
        let cos = w.cos();
        let a0 = 1.0 + alpha;
        Softener {
            b: [
                (1.0 - cos) / 2.0 / a0,
                (1.0 - cos) / a0,
                (1.0 - cos) / 2.0 / a0,
            ],
            a: [-2.0 * cos / a0, (1.0 - alpha) / a0],
            state: [[0.0; 4]; 2],
        }
    }

    /// The next output for input `x`.
    pub fn next(&mut self, x: f32) -> f32 {
        let (b, a) = (self.b, self.a);
        let mut x = f64::from(x);
        for [x1, x2, y1, y2] in &mut self.state {
            let y = b[0] * x + b[1] * *x1 + b[2] * *x2 - a[0] * *y1 - a[1] * *y2;
            (*x2, *x1, *y2, *y1) = (*x1, x, *y1, y);
            x = y;
        }
        x as f32
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    fn mono(samples: Vec<f32>) -> Loop {
        Loop {
            samples,
            channels: 1,
        }
    }

    #[test]
    fn a_loop_fills_the_length_without_gaps_or_jumps() {
        // A constant loop: after looping, every sample away from the fades stays near 1
        // (equal-power seams of uncorrelated… here identical material sum to at most √2).
        let one = mono(vec![0.5; RATE as usize]);
        let len = RATE as usize * 5 + 123;
        let source = Bed::new(&one, len, RATE);
        let bed: Vec<f32> = (0..len)
            .map(|i| {
                let mut frame = [0.0];
                source.looped(i, &mut frame);
                frame[0]
            })
            .collect();
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
            let mut soften = Softener::new(RATE);
            let t: Vec<f32> = tone(hz).into_iter().map(|x| soften.next(x)).collect();
            t[RATE as usize / 2..]
                .iter()
                .fold(0.0f32, |m, x| m.max(x.abs()))
        };
        assert!(peak_after(440.0) > 0.98, "a 440 Hz tone passes");
        assert!(peak_after(16_000.0) < 0.05, "16 kHz is taken off");
    }

    #[test]
    fn fades_start_and_end_at_silence() {
        let len = RATE as usize * 10;
        let one = mono(vec![1.0]);
        let source = Bed::new(&one, len, RATE);
        let bed: Vec<f32> = (0..len).map(|i| source.fade(i)).collect();
        assert_eq!(bed[0], 0.0);
        assert!(bed[bed.len() - 1] < 1e-4);
        assert!(
            (bed[RATE as usize / 2] - 0.5).abs() < 0.01,
            "half way through the fade-in"
        );
        assert_eq!(bed[RATE as usize * 5], 1.0);
        assert!((bed[bed.len() - RATE as usize] - 0.5).abs() < 0.01);
    }

    #[test]
    fn the_bed_is_as_long_as_the_video_whatever_the_blocks() {
        // Stereo: the left a sine, the right another.
        let one = Loop {
            samples: (0..RATE as usize / 3)
                .flat_map(|i| [(i as f32 * 0.01).sin(), (i as f32 * 0.013).cos()])
                .collect(),
            channels: 2,
        };
        let len = RATE as usize * 3 + 17;
        let mut whole = vec![0.0; 2 * len];
        assert_eq!(Bed::new(&one, len, RATE).read(&mut whole), 2 * len);
        let mut bed = Bed::new(&one, len, RATE);
        let mut pieces = Vec::new();
        let mut block = [0.0f32; 1000];
        loop {
            let n = bed.read(&mut block);
            pieces.extend_from_slice(&block[..n]);
            if n < block.len() {
                break;
            }
        }
        assert_eq!(pieces, whole);
        assert_eq!(bed.read(&mut block), 0, "ended");
    }
}
