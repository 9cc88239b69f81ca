//! Speech to text with word timings: the transcription capability of DESIGN.md §2, used by
//! media sources (`video_url`, `video_file`, `audio_url`, `audio_file`).
//!
//! A [`Transcriber`] turns mono PCM into a [`Transcript`]: the spoken words in order, each with
//! its start and end in seconds. Two providers:
//! - [`PocketSphinx`] (embedded default, offline): the `pocketsphinx` GStreamer element
//!   (Debian `gstreamer1.0-pocketsphinx` + `pocketsphinx-en-us`, English). The element reports
//!   hypotheses per utterance (its voice-activity detector ends an utterance at a pause) but no
//!   word times, so utterances are placed by the sample position at which each one ends, and
//!   their words are laid over the voiced runs of the audio ([`voiced_runs`]) in proportion to
//!   their length. Pauses between utterances and between voiced runs are kept, which is what
//!   scene cutting needs.
//! - [`OpenAiTranscriber`] (connector): `POST {base_url}/audio/transcriptions` as multipart
//!   (`file`, `model`, `response_format=verbose_json`, `timestamp_granularities[]=word`), which
//!   OpenAI and whisper servers (whisper.cpp, faster-whisper, LocalAI) answer with real word
//!   timings; punctuation is taken back from the full `text`.

mod openai;
mod pocketsphinx;

use std::ops::Range;
use std::sync::Arc;

pub(crate) use openai::OpenAiTranscriber;
pub(crate) use pocketsphinx::PocketSphinx;

use crate::ingest::config::{TranscriptionConfig, TranscriptionKind};
use foundation::config::Settings;
use foundation::fetch::Fetcher;
use typography::TimedWord;

/// The words of a recording, in order, monotonic and non-overlapping.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Transcript {
    pub words: Vec<TimedWord>,
}

/// Why speech could not be transcribed.
#[derive(Debug, thiserror::Error)]
pub enum TranscribeError {
    /// The engine is not installed or configured.
    #[error("transcription is unavailable: {0}")]
    Unavailable(String),
    /// The engine or the service failed.
    #[error("transcription failed: {0}")]
    Failed(String),
}

/// Speech to timed words.
pub trait Transcriber: Send + Sync {
    /// Transcribes mono 16-bit PCM at `sample_rate`.
    fn transcribe(&self, samples: &[i16], sample_rate: u32) -> Result<Transcript, TranscribeError>;
}

/// The provider the configuration names.
pub fn from_settings(
    settings: &Settings,
    fetcher: &Fetcher,
    runtime: &tokio::runtime::Handle,
) -> Arc<dyn Transcriber> {
    let c = settings.section::<TranscriptionConfig>();
    match c.provider {
        TranscriptionKind::Pocketsphinx => Arc::new(PocketSphinx),
        TranscriptionKind::Openai => {
            Arc::new(OpenAiTranscriber::new(&c, fetcher.clone(), runtime.clone()))
        }
    }
}

/// Length of one analysis frame, seconds.
const FRAME_SECS: f64 = 0.02;

/// Runs of voiced audio in `samples[from..to]`, as (start, end) seconds from the start of
/// `samples`. A frame is voiced when its RMS is above `threshold_db` dBFS (or, when `None`, an
/// adaptive threshold between the noise floor and the peak); runs closer than `bridge_secs`
/// are merged.
pub(crate) fn voiced_runs(
    samples: &[i16],
    rate: u32,
    from: usize,
    to: usize,
    threshold_db: Option<f64>,
    bridge_secs: f64,
) -> Vec<(f64, f64)> {
    let to = to.min(samples.len());
    if rate == 0 || from >= to {
        return Vec::new();
    }
    let frame = frame_len(rate);
    let rms = frame_rms(&samples[from..to], frame);
    let threshold = match threshold_db {
        Some(db) => 10f64.powf(db / 20.0),
        None => {
            let mut sorted = rms.clone();
            sorted.sort_by(f64::total_cmp);
            let floor = sorted[sorted.len() / 10];
            let peak = sorted[sorted.len() - 1];
            (floor * 4.0).max(peak * 0.06).max(10f64.powf(-55.0 / 20.0))
        }
    };
    let t = |i: usize| (from + i * frame).min(to) as f64 / f64::from(rate);
    let mut runs: Vec<(f64, f64)> = Vec::new();
    let mut start = None;
    for (i, &r) in rms.iter().enumerate() {
        match (r > threshold, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((t(s), t(i)));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((t(s), to as f64 / f64::from(rate)));
    }
    let mut merged: Vec<(f64, f64)> = Vec::new();
    for r in runs {
        match merged.last_mut() {
            Some(last) if r.0 - last.1 < bridge_secs => last.1 = r.1,
            _ => merged.push(r),
        }
    }
    merged
}

/// Samples in one [`FRAME_SECS`] analysis frame at `rate`.
fn frame_len(rate: u32) -> usize {
    ((FRAME_SECS * f64::from(rate)) as usize).max(1)
}

/// The RMS of each `frame`-sample frame of `samples` (the last one may be shorter), 0..=1.
fn frame_rms(samples: &[i16], frame: usize) -> Vec<f64> {
    samples
        .chunks(frame)
        .map(|c| {
            let sum: f64 = c.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
            (sum / c.len() as f64).sqrt() / 32768.0
        })
        .collect()
}

/// Cuts `samples` (at `rate`) into consecutive ranges of at most `longest` seconds that cover
/// all of it. Each cut is made at the quietest analysis frame of the `search` seconds before
/// the limit (at most half of `longest`, so no piece is short), so it falls in a pause or
/// between words rather than inside one.
fn quiet_cuts(samples: &[i16], rate: u32, longest: f64, search: f64) -> Vec<Range<usize>> {
    let frame = frame_len(rate);
    let longest = ((longest * f64::from(rate)) as usize).max(frame);
    let search = ((search * f64::from(rate)) as usize).clamp(frame, longest / 2);
    let mut cuts = Vec::new();
    let mut start = 0;
    while samples.len() - start > longest {
        let from = start + longest - search;
        let rms = frame_rms(&samples[from..start + longest], frame);
        let quietest = (0..rms.len())
            .min_by(|&a, &b| rms[a].total_cmp(&rms[b]))
            .unwrap_or(0);
        // The middle of the quietest frame; never an empty range.
        let end = (from + quietest * frame + frame / 2).clamp(start + 1, start + longest);
        cuts.push(start..end);
        start = end;
    }
    if start < samples.len() {
        cuts.push(start..samples.len());
    }
    cuts
}

/// Lays `words` over the voiced `runs` (seconds): each run takes the words whose middle, by
/// cumulative length, falls in its share of the voiced time; inside a run the words share its
/// time in proportion to their length. With no runs, the words fill `fallback` evenly.
pub(crate) fn spread_words(
    words: &[&str],
    runs: &[(f64, f64)],
    fallback: (f64, f64),
) -> Vec<TimedWord> {
    if words.is_empty() {
        return Vec::new();
    }
    let runs: Vec<(f64, f64)> = if runs.iter().any(|r| r.1 > r.0) {
        runs.iter().copied().filter(|r| r.1 > r.0).collect()
    } else {
        vec![fallback]
    };
    let weight = |w: &str| w.chars().filter(|c| c.is_alphanumeric()).count().max(1) as f64 + 1.0;
    let total_w: f64 = words.iter().map(|w| weight(w)).sum();
    let total_t: f64 = runs.iter().map(|r| r.1 - r.0).sum();
    // Which run each word belongs to.
    let mut owner = Vec::with_capacity(words.len());
    let mut acc = 0.0;
    for w in words {
        let mid = (acc + weight(w) / 2.0) / total_w * total_t;
        acc += weight(w);
        let mut t = 0.0;
        let mut k = runs.len() - 1;
        for (i, r) in runs.iter().enumerate() {
            t += r.1 - r.0;
            if mid <= t {
                k = i;
                break;
            }
        }
        owner.push(k);
    }
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let k = owner[i];
        let j = (i..words.len())
            .find(|&j| owner[j] != k)
            .unwrap_or(words.len());
        let (a, b) = runs[k];
        let w_sum: f64 = words[i..j].iter().map(|w| weight(w)).sum();
        let mut t = a;
        for w in &words[i..j] {
            let d = (b - a) * weight(w) / w_sum;
            out.push(TimedWord {
                word: (*w).to_string(),
                start: t,
                end: t + d,
            });
            t += d;
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(secs: f64, rate: u32, amp: f64) -> Vec<i16> {
        (0..(secs * f64::from(rate)) as usize)
            .map(|i| (amp * 32767.0 * (i as f64 * 0.05).sin()) as i16)
            .collect()
    }

    #[test]
    fn finds_voiced_runs_between_silences() {
        let rate = 16_000;
        let mut s = vec![0i16; 8000];
        s.extend(tone(1.0, rate, 0.5));
        s.extend(vec![0i16; 16000]);
        s.extend(tone(0.5, rate, 0.5));
        let runs = voiced_runs(&s, rate, 0, s.len(), None, 0.2);
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert!((runs[0].0 - 0.5).abs() < 0.03 && (runs[0].1 - 1.5).abs() < 0.03);
        assert!((runs[1].0 - 2.5).abs() < 0.03 && (runs[1].1 - 3.0).abs() < 0.03);
        // A short gap is bridged.
        assert_eq!(voiced_runs(&s, rate, 0, s.len(), None, 1.5).len(), 1);
    }

    #[test]
    fn long_audio_is_cut_in_its_pauses_into_bounded_pieces_that_cover_it() {
        let rate = 16_000;
        // 3 s of speech-like tone, a 0.3 s pause, again and again: 33 s in all.
        let mut s = Vec::new();
        for _ in 0..10 {
            s.extend(tone(3.0, rate, 0.5));
            s.extend(vec![0i16; 4800]);
        }
        let cuts = quiet_cuts(&s, rate, 8.0, 4.0);
        assert_eq!(cuts.first().unwrap().start, 0);
        assert_eq!(cuts.last().unwrap().end, s.len());
        assert!(cuts.windows(2).all(|w| w[0].end == w[1].start), "{cuts:?}");
        assert!(cuts.iter().all(|c| c.len() <= 8 * rate as usize));
        // Every piece but the last is at least the limit less the search.
        assert!(
            cuts[..cuts.len() - 1]
                .iter()
                .all(|c| c.len() >= 4 * rate as usize)
        );
        for c in &cuts[..cuts.len() - 1] {
            assert_eq!(s[c.end], 0, "the cut at {} is not in a pause", c.end);
        }
    }

    #[test]
    fn short_audio_is_one_piece() {
        let s = tone(2.0, 16_000, 0.5);
        assert_eq!(quiet_cuts(&s, 16_000, 8.0, 4.0), vec![0..s.len()]);
        assert!(quiet_cuts(&[], 16_000, 8.0, 4.0).is_empty());
    }

    #[test]
    fn spreads_words_over_runs_keeping_pauses() {
        let words = ["hello", "there", "general", "kenobi"];
        let t = spread_words(&words, &[(0.0, 1.0), (2.0, 3.0)], (0.0, 3.0));
        assert_eq!(t.len(), 4);
        assert_eq!(t[0].start, 0.0);
        assert!(t.windows(2).all(|w| w[0].end <= w[1].start + 1e-9));
        // The pause between the runs is a gap between two words.
        assert!(t.windows(2).any(|w| w[1].start - w[0].end > 0.9));
        assert!((t[3].end - 3.0).abs() < 1e-9);
        let even = spread_words(&["a", "b"], &[], (1.0, 2.0));
        assert_eq!((even[0].start, even[1].end), (1.0, 2.0));
    }
}
