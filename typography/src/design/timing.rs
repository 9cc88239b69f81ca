//! Step 4, time: each line enters when its first word is spoken (`words`), else lines are
//! staggered; a decoration enters with the earliest of its lines. Phases number the distinct
//! entrance times, so objects with the same phase enter together.

use super::layout::{Deco, Line};
use super::{DEFAULT_DURATION, MAX_DURATION, TimedWord};

/// When every placed object enters, and how long the design lasts.
pub(super) struct Timing {
    /// Seconds: `duration`, else the last word's end plus half a second, else the default;
    /// clamped to 1–[`MAX_DURATION`].
    pub duration: f64,
    /// Entrance of each line, by line index.
    pub line_starts: Vec<f64>,
    /// Entrance of each decoration, by decoration index.
    pub deco_starts: Vec<f64>,
    /// The distinct entrance times, ascending (phase `n` is `entrances[n]`).
    entrances: Vec<f64>,
}

impl Timing {
    pub fn new(
        duration: Option<f64>,
        words: &[TimedWord],
        lines: &[Line],
        decos: &[Deco],
    ) -> Timing {
        let duration = total_duration(duration, words);
        let line_starts = line_starts(lines, words, duration);
        let deco_starts: Vec<f64> = decos
            .iter()
            .map(|d| {
                d.lines
                    .iter()
                    .map(|&i| line_starts[i])
                    .fold(f64::INFINITY, f64::min)
                    .min(duration)
            })
            .collect();
        let mut entrances: Vec<f64> = line_starts.iter().chain(&deco_starts).copied().collect();
        entrances.sort_by(f64::total_cmp);
        entrances.dedup();
        Timing {
            duration,
            line_starts,
            deco_starts,
            entrances,
        }
    }

    /// The phase of an object entering at `start`.
    pub fn phase_of(&self, start: f64) -> usize {
        self.entrances.iter().position(|&d| d == start).unwrap_or(0)
    }
}

fn total_duration(duration: Option<f64>, words: &[TimedWord]) -> f64 {
    duration
        .or_else(|| {
            words
                .iter()
                .map(|w| w.end)
                .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))))
                .map(|e| e + 0.5)
        })
        .unwrap_or(DEFAULT_DURATION)
        .clamp(1.0, MAX_DURATION)
}

/// Each line starts when its first word is spoken, matching words in order (so a repeated word
/// times the later line by its later occurrence); unmatched lines are staggered by index.
fn line_starts(lines: &[Line], words: &[TimedWord], duration: f64) -> Vec<f64> {
    let stagger = (duration * 0.08).min(0.35);
    let mut cursor = 0;
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let first = l
                .text
                .split_whitespace()
                .map(normalise)
                .find(|w| !w.is_empty());
            let found = first.and_then(|f| {
                let at = words[cursor..]
                    .iter()
                    .position(|w| normalise(&w.word) == f)?
                    + cursor;
                cursor = at + 1;
                Some(words[at].start)
            });
            found
                .unwrap_or(i as f64 * stagger)
                .clamp(0.0, (duration - 0.5).max(0.0))
        })
        .collect()
}

/// A word as matched against narration: letters and digits only, lowercase.
fn normalise(w: &str) -> String {
    w.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}
