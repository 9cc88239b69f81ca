//! Side-chain ducking: where the narration speaks, the bed goes down by [`DUCK_DB`]; in
//! pauses longer than [`HOLD_SECS`] (between sentences and scenes) it comes back. Speech is
//! read from the narration's envelope, so every source (voice, recording, upload) ducks alike.
//! The gain moves in decibels at a bounded rate (attack and release ramps), never jumps, and
//! starts moving [`ATTACK_SECS`] ahead of a speech onset so the first syllable is clear.

/// How far the bed goes down under speech.
pub(crate) const DUCK_DB: f32 = 14.0;
/// The envelope's frame.
const FRAME_SECS: f64 = 0.01;
/// A frame is speech when its level is above this …
const FLOOR_DBFS: f32 = -50.0;
/// … and within this of the narration's loud frames (its 95th percentile).
const BELOW_LOUD_DB: f32 = 30.0;
/// Pauses shorter than this (between words) keep the bed down.
pub(crate) const HOLD_SECS: f64 = 0.25;
/// Time to go all the way down.
pub(crate) const ATTACK_SECS: f64 = 0.06;
/// Time to come all the way back.
pub(crate) const RELEASE_SECS: f64 = 0.4;

use super::loudness::{Signal, for_each_block};

/// One flag per [`FRAME_SECS`] frame of `narration`: speech or not, pauses under
/// [`HOLD_SECS`] filled.
pub(crate) fn speech_frames(narration: impl Signal, rate: u32) -> Vec<bool> {
    let frame = ((FRAME_SECS * f64::from(rate)) as usize).max(1);
    let mut levels: Vec<f32> = Vec::new();
    let (mut sum, mut count) = (0.0f32, 0usize);
    let level = |sum: f32, count: usize| 10.0 * (sum / count as f32).max(1e-12).log10();
    for_each_block(narration, |block| {
        for x in block {
            sum += x * x;
            count += 1;
            if count == frame {
                levels.push(level(sum, count));
                (sum, count) = (0.0, 0);
            }
        }
    });
    if count > 0 {
        levels.push(level(sum, count));
    }
    let mut sorted = levels.clone();
    sorted.sort_by(f32::total_cmp);
    let loud = sorted
        .get(sorted.len() * 95 / 100)
        .copied()
        .unwrap_or(FLOOR_DBFS);
    let threshold = FLOOR_DBFS.max(loud - BELOW_LOUD_DB);
    let mut speech: Vec<bool> = levels.iter().map(|&l| l > threshold).collect();
    let hold = (HOLD_SECS / FRAME_SECS) as usize;
    fill_short_pauses(&mut speech, hold);
    speech
}

/// Sets runs of `false` no longer than `hold` that lie between two speech frames.
fn fill_short_pauses(speech: &mut [bool], hold: usize) {
    let mut last_speech: Option<usize> = None;
    for i in 0..speech.len() {
        if speech[i] {
            if let Some(j) = last_speech
                && i - j - 1 <= hold
            {
                speech[j + 1..i].iter_mut().for_each(|s| *s = true);
            }
            last_speech = Some(i);
        }
    }
}

/// The bed's gain (linear), sample after sample: 1 in pauses, −[`DUCK_DB`] under speech,
/// ramps between.
pub(crate) struct Ducker<'a> {
    speech: &'a [bool],
    frame: usize,
    /// How far ahead a speech onset is seen, so the ramp ends as speech begins.
    lead: usize,
    down_step: f32,
    up_step: f32,
    db: f32,
    /// The gain at `db`.
    gain: f32,
    at: usize,
}

impl<'a> Ducker<'a> {
    /// The gains for `speech` ([`speech_frames`]) at `rate`, from sample 0.
    pub fn new(speech: &'a [bool], rate: u32) -> Ducker<'a> {
        Ducker {
            speech,
            frame: ((FRAME_SECS * f64::from(rate)) as usize).max(1),
            lead: (ATTACK_SECS * f64::from(rate)) as usize,
            down_step: DUCK_DB / (ATTACK_SECS * f64::from(rate)) as f32,
            up_step: DUCK_DB / (RELEASE_SECS * f64::from(rate)) as f32,
            db: 0.0,
            gain: 1.0,
            at: 0,
        }
    }
}

impl Iterator for Ducker<'_> {
    type Item = f32;

    fn next(&mut self) -> Option<f32> {
        let i = self.at;
        self.at += 1;
        let speaking = |i: usize| self.speech.get(i / self.frame).copied().unwrap_or(false);
        let target = if speaking(i + self.lead) || speaking(i) {
            -DUCK_DB
        } else {
            0.0
        };
        let db = if target < self.db {
            (self.db - self.down_step).max(target)
        } else {
            (self.db + self.up_step).min(target)
        };
        // Most of the time the gain holds still (fully up or fully down): no power to take.
        if db != self.db {
            self.db = db;
            self.gain = 10f32.powf(db / 20.0);
        }
        Some(self.gain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    #[test]
    fn word_gaps_are_held_and_sentence_pauses_are_not() {
        let mut speech = vec![true; 10];
        speech.extend([false; 10]); // 100 ms: a word gap
        speech.extend([true; 10]);
        speech.extend([false; 60]); // 600 ms: a sentence pause
        speech.extend([true; 10]);
        fill_short_pauses(&mut speech, (HOLD_SECS / FRAME_SECS) as usize);
        assert!(speech[10..20].iter().all(|&s| s));
        assert!(speech[30..90].iter().all(|&s| !s));
    }

    #[test]
    fn the_gain_ramps_down_before_speech_and_back_up_after_it() {
        // 1 s pause, 1 s speech, 1 s pause.
        let mut speech = vec![false; 100];
        speech.extend([true; 100]);
        speech.extend([false; 100]);
        let g: Vec<f32> = Ducker::new(&speech, RATE).take(3 * RATE as usize).collect();
        let db = |i: usize| 20.0 * g[i].log10();
        assert!(
            db(RATE as usize / 2).abs() < 0.01,
            "full level in the first pause"
        );
        assert!(
            (db(RATE as usize) + DUCK_DB).abs() < 0.01,
            "fully down at the onset"
        );
        assert!((db(3 * RATE as usize / 2) + DUCK_DB).abs() < 0.01);
        assert!(
            db(2 * RATE as usize + 9 * RATE as usize / 10).abs() < 0.01,
            "recovered"
        );
        let biggest_step = g
            .windows(2)
            .map(|w| 20.0 * (w[1] / w[0]).log10().abs())
            .fold(0.0, f32::max);
        assert!(biggest_step < 0.01, "a jump of {biggest_step} dB");
    }
}
