//! Word timings from the model's own durations: each phoneme id lasts a whole number of frames
//! (`durations`), and the audio is exactly those frames, so an id's start in the audio is the
//! sum of the frames before it.

use typography::TimedWord;

use super::phonemes::{Sentence, word_bytes};

/// A narration being put together, sentence by sentence.
pub(crate) struct Speech {
    sample_rate: u32,
    gap: usize,
    samples: Vec<i16>,
    /// `(word index, start, end)` in seconds from the start of the narration.
    times: Vec<(usize, f64, f64)>,
}

impl Speech {
    pub fn new(sample_rate: u32, gap_s: f64) -> Speech {
        Speech {
            sample_rate,
            gap: (gap_s * f64::from(sample_rate)).round() as usize,
            samples: Vec::new(),
            times: Vec::new(),
        }
    }

    /// Appends one sentence's audio (floats in −1..1) after a short gap, and times its words
    /// from `durations` (frames per id of `sentence.ids`).
    pub fn push(&mut self, sentence: &Sentence, audio: &[f32], durations: &[f32]) {
        if !self.samples.is_empty() {
            self.samples.resize(self.samples.len() + self.gap, 0);
        }
        let offset = self.samples.len();
        let frames: f64 = durations.iter().map(|&d| f64::from(d.max(0.0))).sum();
        let hop = if frames > 0.0 {
            audio.len() as f64 / frames
        } else {
            0.0
        };
        // Sample at which each id starts; one more entry for the end of the last id.
        let mut starts = Vec::with_capacity(durations.len() + 1);
        let mut acc = 0.0;
        starts.push(0.0);
        for &d in durations {
            acc += f64::from(d.max(0.0)) * hop;
            starts.push(acc);
        }
        let rate = f64::from(self.sample_rate);
        let at = |id: usize| (offset as f64 + starts[id.min(starts.len() - 1)]) / rate;
        for w in &sentence.words {
            self.times.push((w.word, at(w.ids.start), at(w.ids.end)));
        }
        self.samples.extend(
            audio
                .iter()
                .map(|&x| (x.clamp(-1.0, 1.0) * f32::from(i16::MAX)).round() as i16),
        );
    }

    /// The audio at the voice's rate and one monotonic timing per word of `text` (`word_count`
    /// of them): a word the voice did not speak (a lone dash) takes no time, where the previous
    /// one ended.
    pub fn finish(self, text: &str, word_count: usize) -> (Vec<i16>, Vec<TimedWord>) {
        let duration = self.samples.len() as f64 / f64::from(self.sample_rate.max(1));
        let mut spans: Vec<Option<(f64, f64)>> = vec![None; word_count];
        for (word, start, end) in self.times {
            if let Some(slot) = spans.get_mut(word) {
                *slot = Some((start, end));
            }
        }
        let mut prev_end: f64 = 0.0;
        let words = word_bytes(text)
            .into_iter()
            .zip(spans)
            .map(|(bytes, span)| {
                let (start, end) = span.unwrap_or((prev_end, prev_end));
                let start = start.clamp(prev_end, duration);
                let end = end.clamp(start, duration);
                prev_end = end;
                TimedWord {
                    word: text[bytes].to_string(),
                    start,
                    end,
                }
            })
            .collect();
        (self.samples, words)
    }
}

#[cfg(test)]
mod tests {
    use super::super::phonemes::WordSpan;
    use super::*;

    #[test]
    fn words_are_timed_from_the_frames_before_their_ids() {
        // 4 ids of 1, 2, 3 and 4 frames, 10 samples per frame, at 100 Hz: 0.1 s per frame.
        let sentence = Sentence {
            ids: vec![0, 1, 2, 3],
            words: vec![
                WordSpan { word: 0, ids: 1..2 },
                WordSpan { word: 1, ids: 2..4 },
            ],
        };
        let mut speech = Speech::new(100, 0.5);
        speech.push(&sentence, &[0.5; 100], &[1.0, 2.0, 3.0, 4.0]);
        let second = Sentence {
            ids: vec![0, 1],
            words: vec![WordSpan { word: 2, ids: 1..2 }],
        };
        speech.push(&second, &[0.5; 100], &[5.0, 5.0]);
        let (samples, words) = speech.finish("a b c", 3);
        assert_eq!(samples.len(), 250);
        assert_eq!(samples[0], 16384);
        let t: Vec<(f64, f64)> = words.iter().map(|w| (w.start, w.end)).collect();
        let close =
            |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9;
        assert!(close(t[0], (0.1, 0.3)), "{t:?}");
        assert!(close(t[1], (0.3, 1.0)), "{t:?}");
        // The second sentence starts after the gap (0.5 s): its id 1 at 1.5 + 0.5 s.
        assert_eq!(words[2].word, "c");
        assert!(close(t[2], (2.0, 2.5)), "{t:?}");
    }

    #[test]
    fn an_unspoken_word_takes_no_time_where_the_last_ended() {
        let sentence = Sentence {
            ids: vec![0, 1],
            words: vec![WordSpan { word: 0, ids: 0..2 }],
        };
        let mut speech = Speech::new(10, 0.0);
        speech.push(&sentence, &[0.0; 10], &[1.0, 1.0]);
        let (_, words) = speech.finish("word —", 2);
        assert_eq!(words.len(), 2);
        assert_eq!((words[1].start, words[1].end), (words[0].end, words[0].end));
    }
}
