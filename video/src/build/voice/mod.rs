//! Narration voices: text → 48 kHz mono speech with a timing for every spoken word.
//!
//! This is the TTS capability of `build/providers.rs` (DESIGN.md §2). A [`VoiceProvider`] turns a
//! scene's text into a [`Narration`]: PCM samples at [`SAMPLE_RATE`] plus one [`TimedWord`] per
//! whitespace-separated word of the input (the spec's definition of a word), in order. Captions
//! highlight words from these timings and a scene's `duration` is
//! `samples.len() / SAMPLE_RATE`.
//!
//! The embedded, offline default is [`Embedded`]: a neural [`Piper`] voice (VITS in ONNX, run
//! `piper/`, run in a child process by the daemon) for each language one is installed for, and [`Espeak`] (libespeak-ng
//! through a small FFI module, `espeak.rs`) for the rest. [`OpenAiSpeech`] (`http.rs`) is the
//! OpenAI-compatible `/audio/speech` connector behind the same trait.
//!
//! The helpers here are engine-independent and pure: [`resample_to`] (windowed-sinc), [`write_wav`]
//! (atomic PCM WAV writer) and the word aligner used by the engines, which turns sparse,
//! sometimes odd engine word events into exactly one monotonic timing per input word.

mod embedded;
mod espeak;
mod http;
mod piper;

pub use embedded::Embedded;
pub use espeak::Espeak;
pub(crate) use http::OpenAiSpeech;
pub use piper::{Host, Piper, WORKER_COMMAND, serve_worker};

use std::io;
use std::path::Path;

use typography::TimedWord;

/// Sample rate of every [`Narration`]: the output video's audio rate, owned by the compositor.
pub use compositor::media::SAMPLE_RATE;

/// Synthesised speech for one text: mono PCM and per-word timings.
#[derive(Debug, Clone, PartialEq)]
pub struct Narration {
    /// Always [`SAMPLE_RATE`] (48 000) for narrations produced by providers in this module.
    pub sample_rate: u32,
    /// Mono signed 16-bit samples.
    pub samples: Vec<i16>,
    /// One timing per whitespace-separated word of the input text, in order, seconds from the
    /// start of the narration: monotonic and non-overlapping (`start <= end <= next.start`),
    /// the first start ≥ 0 and the last end ≤ the audio's duration.
    pub words: Vec<TimedWord>,
}

impl Narration {
    /// Length of the audio in seconds (`samples.len() / sample_rate`).
    pub fn duration(&self) -> f64 {
        if self.sample_rate == 0 {
            return 0.0;
        }
        self.samples.len() as f64 / f64::from(self.sample_rate)
    }
}

/// A voice a provider offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceInfo {
    /// Identifier to pass to [`VoiceProvider::synthesize`], e.g. `"en-us"` or `"vi"`.
    pub id: String,
    /// Base language code (ISO 639), e.g. `"en"`, `"vi"`.
    pub language: String,
    /// Human-readable name, e.g. `"English (America)"`.
    pub name: String,
}

/// Why a narration could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum VoiceError {
    /// The voice id is not offered by this provider (see [`VoiceProvider::voices`]).
    #[error("unknown voice `{0}`")]
    UnknownVoice(String),
    /// The engine could not be started (missing library data, bad installation).
    #[error("voice engine unavailable: {0}")]
    Unavailable(String),
    /// The engine failed while synthesising.
    #[error("speech synthesis failed: {0}")]
    Synthesis(String),
}

/// A text-to-speech capability that reports word timings.
pub trait VoiceProvider: Send + Sync {
    /// Speaks `text` with the voice `voice_id`.
    ///
    /// The result has exactly one [`TimedWord`] per whitespace-separated word of `text`, in
    /// order. A text without words gives an empty narration (no samples, no words).
    fn synthesize(&self, text: &str, voice_id: &str) -> Result<Narration, VoiceError>;

    /// The voices this provider offers.
    fn voices(&self) -> Vec<VoiceInfo>;

    /// Gives back what the engine holds between uses (a neural model): called when a narration
    /// is done (a video's, or one scene's in the editor), whether it succeeded or failed, so the
    /// render that follows has the memory. The next synthesis loads it again.
    fn release(&self) {}

    /// The voice to use for a narrator: `requested` when this provider offers it (case-
    /// insensitive), else the provider's voice for `language` (`English` → American English
    /// when offered, `Vietnamese` → `vi`), else its first voice.
    fn pick_voice(&self, requested: &str, language: &str) -> String {
        let voices = self.voices();
        let r = requested.trim().to_ascii_lowercase();
        if let Some(v) = voices
            .iter()
            .find(|v| !r.is_empty() && v.id.to_ascii_lowercase() == r)
        {
            return v.id.clone();
        }
        let (preferred, lang) = match language_code(language) {
            "vi" => ("vi", "vi"),
            _ => ("en-us", "en"),
        };
        voices
            .iter()
            .find(|v| v.id == preferred)
            .or_else(|| voices.iter().find(|v| v.language == lang))
            .or_else(|| voices.first())
            .map(|v| v.id.clone())
            .unwrap_or_else(|| preferred.to_string())
    }
}

/// The ISO 639 code of a script language as the pipeline names it (`English`, `Vietnamese`),
/// or of a code itself; English for anything else.
pub(crate) fn language_code(language: &str) -> &'static str {
    match language {
        "Vietnamese" | "vi" => "vi",
        _ => "en",
    }
}

/// Mono signed 16-bit PCM at `sample_rate` as the bytes of a WAV file: the one WAV writer
/// (narration files, transcription uploads).
pub fn wav_bytes(samples: &[i16], sample_rate: u32) -> io::Result<Vec<u8>> {
    let data_len = u32::try_from(samples.len() * 2)
        .ok()
        .filter(|len| *len <= u32::MAX - 36)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "audio too long for WAV"))?;
    let mut bytes = Vec::with_capacity(44 + data_len as usize);
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + data_len).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    bytes.extend_from_slice(&1u16.to_le_bytes()); // PCM
    bytes.extend_from_slice(&1u16.to_le_bytes()); // mono
    bytes.extend_from_slice(&sample_rate.to_le_bytes());
    bytes.extend_from_slice(&(sample_rate * 2).to_le_bytes()); // byte rate
    bytes.extend_from_slice(&2u16.to_le_bytes()); // block align
    bytes.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        bytes.extend_from_slice(&s.to_le_bytes());
    }
    Ok(bytes)
}

/// Writes `n` as a PCM WAV file (s16le, mono, at `n.sample_rate`), atomically
/// ([`foundation::files::write_atomic`]): readers never see a partial file.
pub fn write_wav(path: &Path, n: &Narration) -> io::Result<()> {
    foundation::files::write_atomic(path, &wav_bytes(&n.samples, n.sample_rate)?)
}

/// Resamples mono PCM from `from_hz` to `to_hz` with a Kaiser-windowed sinc filter.
///
/// The low-pass cutoff sits just below the lower of the two Nyquist frequencies, so upsampling
/// (22 050 → 48 000) adds no images and downsampling does not alias. Output length is
/// `ceil(len · to / from)`. Equal rates return the input unchanged.
pub(crate) fn resample_to(samples: &[i16], from_hz: u32, to_hz: u32) -> Vec<i16> {
    if from_hz == to_hz || samples.is_empty() {
        return samples.to_vec();
    }
    if from_hz == 0 || to_hz == 0 {
        return Vec::new();
    }
    let g = gcd(from_hz, to_hz);
    let up = u64::from(to_hz / g); // L: output steps per input period
    let down = u64::from(from_hz / g); // M
    let out_len = (samples.len() as u64 * up).div_ceil(down) as usize;

    // Cutoff as a fraction of the input Nyquist-normalised rate (1.0 = input sample rate / 2).
    let fc = ROLLOFF * (f64::from(to_hz) / f64::from(from_hz)).min(1.0);
    // Half-width of the kernel in input samples.
    let half = (ZERO_CROSSINGS / fc).ceil() as i64;
    let taps = (2 * half) as usize;
    let kernel = |u: f64| -> f64 {
        let w = half as f64;
        if u.abs() >= w {
            return 0.0;
        }
        let x = std::f64::consts::PI * fc * u;
        let sinc = if x.abs() < 1e-12 { 1.0 } else { x.sin() / x };
        let r = u / w;
        fc * sinc * bessel_i0(KAISER_BETA * (1.0 - r * r).sqrt()) / bessel_i0(KAISER_BETA)
    };
    // Taps for one fractional phase `frac` in [0, 1): weights for x[i + j], j in 1-half..=half,
    // normalised to unit DC gain.
    let phase_taps = |frac: f64, out: &mut Vec<f32>| {
        out.clear();
        let mut sum = 0.0;
        let start = out.len();
        for j in (1 - half)..=half {
            let w = kernel(frac - j as f64);
            sum += w;
            out.push(w as f32);
        }
        if sum.abs() > 1e-9 {
            for w in &mut out[start..] {
                *w = (f64::from(*w) / sum) as f32;
            }
        }
    };

    // Exact polyphase table when the number of phases is small (it is 320 for 22 050 → 48 000).
    let table: Option<Vec<f32>> = (up <= 4096).then(|| {
        let mut table = Vec::with_capacity(up as usize * taps);
        let mut buf = Vec::with_capacity(taps);
        for phase in 0..up {
            phase_taps(phase as f64 / up as f64, &mut buf);
            table.extend_from_slice(&buf);
        }
        table
    });

    let mut out = Vec::with_capacity(out_len);
    let mut buf = Vec::with_capacity(taps);
    let n_in = samples.len() as i64;
    for n in 0..out_len as u64 {
        let pos = n * down;
        let i = (pos / up) as i64;
        let phase = pos % up;
        let weights: &[f32] = match &table {
            Some(t) => &t[phase as usize * taps..(phase as usize + 1) * taps],
            None => {
                phase_taps(phase as f64 / up as f64, &mut buf);
                &buf
            }
        };
        let first = i + 1 - half;
        let mut acc = 0.0f32;
        if first >= 0 && first + taps as i64 <= n_in {
            let window = &samples[first as usize..first as usize + taps];
            for (x, w) in window.iter().zip(weights) {
                acc += f32::from(*x) * w;
            }
        } else {
            for (k, w) in weights.iter().enumerate() {
                let idx = first + k as i64;
                if (0..n_in).contains(&idx) {
                    acc += f32::from(samples[idx as usize]) * w;
                }
            }
        }
        out.push(acc.round().clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16);
    }
    out
}

/// Fraction of the Nyquist frequency kept by the resampler's low-pass.
const ROLLOFF: f64 = 0.94;
/// Kernel half-width in zero crossings of the sinc.
const ZERO_CROSSINGS: f64 = 16.0;
/// Kaiser window shape (≈ 80 dB stop-band attenuation).
const KAISER_BETA: f64 = 8.0;

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Zeroth-order modified Bessel function of the first kind (power series).
fn bessel_i0(x: f64) -> f64 {
    let mut sum = 1.0;
    let mut term = 1.0;
    let half = x / 2.0;
    for k in 1..64 {
        term *= (half / k as f64) * (half / k as f64);
        sum += term;
        if term < sum * 1e-16 {
            break;
        }
    }
    sum
}

/// A whitespace-separated word of the input with its position in characters (Unicode scalar
/// values), which is how speech engines report text positions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InputWord<'a> {
    pub text: &'a str,
    /// Index of the first character.
    pub char_start: usize,
    /// Index one past the last character.
    pub char_end: usize,
}

/// Splits `text` into whitespace-separated words with character offsets.
pub(crate) fn input_words(text: &str) -> Vec<InputWord<'_>> {
    let mut words = Vec::new();
    let mut current: Option<(usize, usize)> = None; // (byte start, char start)
    let mut chars = 0usize;
    for (byte, c) in text.char_indices() {
        if c.is_whitespace() {
            if let Some((b, cs)) = current.take() {
                words.push(InputWord {
                    text: &text[b..byte],
                    char_start: cs,
                    char_end: chars,
                });
            }
        } else if current.is_none() {
            current = Some((byte, chars));
        }
        chars += 1;
    }
    if let Some((b, cs)) = current {
        words.push(InputWord {
            text: &text[b..],
            char_start: cs,
            char_end: chars,
        });
    }
    words
}

/// A word-start event reported by an engine: a character index into the input text and the
/// time at which the word's sound starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WordEvent {
    /// 0-based character index into the input text.
    pub char_pos: usize,
    /// Seconds from the start of the audio.
    pub time: f64,
}

/// Length of the frames the aligner measures loudness over, in seconds.
const FRAME_S: f64 = 0.010;
/// Sound kept after a word's last loud frame before calling the rest silence.
const END_TAIL_S: f64 = 0.040;
/// Sound kept before a word's first loud frame.
const START_LEAD_S: f64 = 0.015;

/// Turns engine word events into exactly one timing per input word.
///
/// Each event is mapped to the input word containing its character position (a position in the
/// whitespace before a word belongs to that word). Engines split words ("2024" → several
/// events), merge them, and occasionally report stray positions, so the aligner keeps the first
/// event per word and then the longest run of events whose word indices increase with time.
/// Words without an event share the time between the surrounding anchors in proportion to their
/// length. A word ends where the next one starts (or at the end of the audio), minus trailing
/// silence; leading silence inside a word's span is skipped too.
pub(crate) fn align_words(
    words: &[InputWord<'_>],
    events: &[WordEvent],
    samples: &[i16],
    sample_rate: u32,
) -> Vec<TimedWord> {
    if words.is_empty() {
        return Vec::new();
    }
    let duration = if sample_rate == 0 {
        0.0
    } else {
        samples.len() as f64 / f64::from(sample_rate)
    };

    let loudness = Loudness::new(samples, sample_rate);
    let mapped = map_events(words, events, duration);
    // Longest subsequence with strictly increasing word index (times are already sorted).
    let anchors = longest_increasing(&mapped);
    let starts = word_starts(words, &anchors, duration, &loudness);
    timed_to_voice(words, &starts, duration, &loudness)
}

/// Events as (word index, time) in time order; of consecutive events for one word (a word the
/// engine split) the first.
fn map_events(words: &[InputWord<'_>], events: &[WordEvent], duration: f64) -> Vec<(usize, f64)> {
    let mut sorted: Vec<WordEvent> = events.to_vec();
    sorted.sort_by(|a, b| a.time.total_cmp(&b.time));
    let mut mapped: Vec<(usize, f64)> = Vec::new();
    for ev in &sorted {
        let w = words.partition_point(|w| w.char_end <= ev.char_pos);
        if w == words.len() || mapped.last().is_some_and(|(last, _)| *last == w) {
            continue;
        }
        mapped.push((w, ev.time.clamp(0.0, duration)));
    }
    mapped
}

/// Each word's start: anchors keep their time, the words between are spread by length.
fn word_starts(
    words: &[InputWord<'_>],
    anchors: &[(usize, f64)],
    duration: f64,
    loudness: &Loudness,
) -> Vec<f64> {
    let weight = |w: &InputWord<'_>| spoken_weight(w.text);
    let mut starts = vec![0.0f64; words.len()];
    let fill = |from_word: usize, to_word: usize, t0: f64, t1: f64, starts: &mut [f64]| {
        // Words from_word..to_word share [t0, t1); from_word starts at t0.
        let total: f64 = words[from_word..to_word].iter().map(weight).sum();
        let count = (to_word - from_word) as f64;
        let mut acc = 0.0;
        for (i, w) in words.iter().enumerate().take(to_word).skip(from_word) {
            starts[i] = if total > 0.0 {
                t0 + (t1 - t0) * acc / total
            } else {
                t0 + (t1 - t0) * acc / count
            };
            acc += if total > 0.0 { weight(w) } else { 1.0 };
        }
    };
    let (Some(&(first_word, first_t)), Some(&(last_word, last_t))) =
        (anchors.first(), anchors.last())
    else {
        fill(0, words.len(), 0.0, duration, &mut starts);
        return starts;
    };
    if first_word > 0 {
        fill(0, first_word, 0.0, first_t, &mut starts);
    }
    for pair in anchors.windows(2) {
        let ((wa, ta), (wb, tb)) = (pair[0], pair[1]);
        fill(wa, wb, ta, tb, &mut starts);
    }
    // Words after the last anchor share what is left, but not the trailing silence.
    let mut end = duration;
    if last_word + 1 < words.len() {
        end = loudness
            .last_voiced_end(last_t, duration)
            .unwrap_or(duration)
            .max(last_t);
    }
    fill(last_word, words.len(), last_t, end, &mut starts);
    starts
}

/// Each word from its start to the next word's (or the end of the audio), without the
/// silence at either end of that span.
fn timed_to_voice(
    words: &[InputWord<'_>],
    starts: &[f64],
    duration: f64,
    loudness: &Loudness,
) -> Vec<TimedWord> {
    let mut timings = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let start = starts[i];
        let next = starts.get(i + 1).copied().unwrap_or(duration);
        let mut s = start;
        let mut e = next;
        if let Some(voiced_end) = loudness.last_voiced_end(start, next) {
            e = voiced_end;
        }
        if let Some(voiced_start) = loudness.first_voiced_start(start, e) {
            s = voiced_start;
        }
        let s = s.clamp(0.0, duration);
        let e = e.clamp(s, duration);
        timings.push(TimedWord {
            word: w.text.to_string(),
            start: s,
            end: e,
        });
    }
    timings
}

/// Rough relative speaking time of a word, for sharing time among words without an event:
/// letters count one, digits three (numbers are read out as several words), and a token without
/// letters or digits (a dash, an ellipsis) is not spoken at all.
pub(crate) fn spoken_weight(word: &str) -> f64 {
    word.chars()
        .map(|c| match c {
            c if c.is_numeric() => 3.0,
            c if c.is_alphabetic() => 1.0,
            _ => 0.0,
        })
        .sum()
}

/// Longest subsequence of `(word index, time)` pairs with strictly increasing word index.
fn longest_increasing(pairs: &[(usize, f64)]) -> Vec<(usize, f64)> {
    // O(n log n) patience method; `tails[k]` = index into `pairs` ending the best run of length k+1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (i, (w, _)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|&t| pairs[t].0 < *w);
        if k > 0 {
            prev[i] = Some(tails[k - 1]);
        }
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(i) = cur {
        out.push(pairs[i]);
        cur = prev[i];
    }
    out.reverse();
    out
}

/// Per-frame loudness of a narration, for finding silence around words.
struct Loudness {
    /// Seconds per frame.
    frame_s: f64,
    /// RMS of each 10 ms frame.
    rms: Vec<f64>,
    /// Frames at or above this RMS count as voiced: a fraction of the loudest frame, with a floor.
    threshold: f64,
}

impl Loudness {
    fn new(samples: &[i16], sample_rate: u32) -> Self {
        let frame = ((f64::from(sample_rate) * FRAME_S) as usize).max(1);
        let rms: Vec<f64> = samples.chunks(frame).map(frame_rms).collect();
        let peak = rms.iter().copied().fold(0.0, f64::max);
        let frame_s = if sample_rate == 0 {
            0.0
        } else {
            frame as f64 / f64::from(sample_rate)
        };
        Loudness {
            frame_s,
            rms,
            threshold: (peak * 0.03).max(60.0),
        }
    }

    /// Range `[a, b)` of the frames that start at or after `t0` (rounded down) and end by `t1`,
    /// so that sound from the next word, which may begin a few ms before its reported start,
    /// never counts.
    fn frames(&self, t0: f64, t1: f64) -> (usize, usize) {
        if self.frame_s <= 0.0 {
            return (0, 0);
        }
        let a = ((t0 / self.frame_s).floor().max(0.0) as usize).min(self.rms.len());
        let b = (((t1 + 1e-9) / self.frame_s).floor().max(0.0) as usize).min(self.rms.len());
        (a, b.max(a))
    }

    /// End (seconds) of the last voiced frame in `[t0, t1)`, plus a short tail, capped at `t1`;
    /// `None` when the span holds no voiced frame.
    fn last_voiced_end(&self, t0: f64, t1: f64) -> Option<f64> {
        let (a, b) = self.frames(t0, t1);
        (a..b)
            .rev()
            .find(|&f| self.rms[f] >= self.threshold)
            .map(|f| ((f + 1) as f64 * self.frame_s + END_TAIL_S).min(t1))
    }

    /// Start (seconds) of the first voiced frame in `[t0, t1)`, minus a short lead, not before
    /// `t0`.
    fn first_voiced_start(&self, t0: f64, t1: f64) -> Option<f64> {
        let (a, b) = self.frames(t0, t1);
        (a..b)
            .find(|&f| self.rms[f] >= self.threshold)
            .map(|f| (f as f64 * self.frame_s - START_LEAD_S).max(t0))
    }
}

fn frame_rms(chunk: &[i16]) -> f64 {
    if chunk.is_empty() {
        return 0.0;
    }
    let sum: f64 = chunk.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    (sum / chunk.len() as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(freq: f64, rate: u32, secs: f64, amp: f64) -> Vec<i16> {
        let n = (f64::from(rate) * secs) as usize;
        (0..n)
            .map(|i| {
                (amp * (2.0 * std::f64::consts::PI * freq * i as f64 / f64::from(rate)).sin())
                    as i16
            })
            .collect()
    }

    #[test]
    fn input_words_have_char_offsets() {
        let w = input_words("  Xin chào\tbạn,\n 2024 ");
        let got: Vec<_> = w
            .iter()
            .map(|w| (w.text, w.char_start, w.char_end))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Xin", 2, 5),
                ("chào", 6, 10),
                ("bạn,", 11, 15),
                ("2024", 17, 21)
            ]
        );
        assert!(input_words(" \n\t").is_empty());
    }

    #[test]
    fn resample_preserves_a_tone() {
        let input = sine(1000.0, 22_050, 0.5, 10_000.0);
        let out = resample_to(&input, 22_050, 48_000);
        assert_eq!(
            out.len(),
            (input.len() as u64 * 48_000).div_ceil(22_050) as usize
        );
        let ideal = sine(1000.0, 48_000, 0.5, 10_000.0);
        // Compare away from the edges (the filter sees zeros beyond them).
        let (a, b) = (2_000, ideal.len().min(out.len()) - 2_000);
        let err: f64 = (a..b)
            .map(|i| (f64::from(out[i]) - f64::from(ideal[i])).powi(2))
            .sum::<f64>()
            / (b - a) as f64;
        let rms_err = err.sqrt();
        assert!(rms_err < 30.0, "rms error {rms_err} vs amplitude 10000");
    }

    #[test]
    fn resample_downsampling_removes_content_above_nyquist() {
        // 20 kHz at 48 kHz cannot exist at 22.05 kHz (Nyquist 11.025 kHz): it must be filtered out.
        let input = sine(20_000.0, 48_000, 0.5, 10_000.0);
        let out = resample_to(&input, 48_000, 22_050);
        let mid = &out[1_000..out.len() - 1_000];
        assert!(frame_rms(mid) < 50.0, "aliased energy {}", frame_rms(mid));
    }

    #[test]
    fn resample_edge_cases() {
        assert_eq!(resample_to(&[1, 2, 3], 16_000, 16_000), vec![1, 2, 3]);
        assert!(resample_to(&[], 22_050, 48_000).is_empty());
        // A coprime pair with many phases uses the direct path and still works.
        let input = sine(440.0, 44_101, 0.1, 8_000.0);
        let out = resample_to(&input, 44_101, 48_000);
        assert_eq!(
            out.len(),
            (input.len() as u64 * 48_000).div_ceil(44_101) as usize
        );
        assert!((frame_rms(&out[500..out.len() - 500]) - 8_000.0 / 2f64.sqrt()).abs() < 100.0);
        // DC passes unchanged.
        let dc = resample_to(&[1000; 2000], 22_050, 48_000);
        assert!(
            dc[200..dc.len() - 200]
                .iter()
                .all(|&s| (s - 1000).abs() <= 1)
        );
    }

    #[test]
    fn wav_round_trips_through_hound() {
        let dir = std::env::temp_dir().join(format!("voice-wav-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("n.wav");
        let n = Narration {
            sample_rate: SAMPLE_RATE,
            samples: sine(300.0, SAMPLE_RATE, 0.2, 5000.0),
            words: vec![],
        };
        write_wav(&path, &n).unwrap();
        let mut reader = hound::WavReader::open(&path).unwrap();
        let spec = reader.spec();
        assert_eq!(spec.channels, 1);
        assert_eq!(spec.sample_rate, 48_000);
        assert_eq!(spec.bits_per_sample, 16);
        assert_eq!(spec.sample_format, hound::SampleFormat::Int);
        let back: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
        assert_eq!(back, n.samples);
        // No temporary files left behind.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("n.wav")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Synthetic speech: `bursts` of tone separated by silence, `(start, end)` in seconds.
    fn bursts(spans: &[(f64, f64)], total: f64, rate: u32) -> Vec<i16> {
        let mut s = vec![0i16; (total * f64::from(rate)) as usize];
        for &(a, b) in spans {
            let (a, b) = (
                (a * f64::from(rate)) as usize,
                (b * f64::from(rate)) as usize,
            );
            for (i, x) in s[a..b].iter_mut().enumerate() {
                *x = (8000.0 * (i as f64 * 0.2).sin()) as i16;
            }
        }
        s
    }

    fn check_invariants(t: &[TimedWord], duration: f64) {
        let mut prev_end = 0.0;
        for w in t {
            assert!(
                w.start >= prev_end - 1e-9 && w.end >= w.start && w.end <= duration + 1e-9,
                "{t:?}"
            );
            prev_end = w.end;
        }
    }

    #[test]
    fn aligner_maps_events_and_trims_silence() {
        let text = "Hello, world. Again";
        let words = input_words(text);
        let rate = 1000;
        let samples = bursts(&[(0.1, 0.5), (0.6, 1.0), (1.5, 1.9)], 2.0, rate);
        let events = [
            WordEvent {
                char_pos: 0,
                time: 0.0,
            },
            WordEvent {
                char_pos: 7,
                time: 0.55,
            },
            WordEvent {
                char_pos: 14,
                time: 1.4,
            },
        ];
        let t = align_words(&words, &events, &samples, rate);
        check_invariants(&t, 2.0);
        assert_eq!(
            t.iter().map(|w| w.word.as_str()).collect::<Vec<_>>(),
            ["Hello,", "world.", "Again"]
        );
        // Leading silence skipped, trailing silence (the sentence pause) trimmed.
        assert!((t[0].start - 0.085).abs() < 0.02, "{t:?}");
        assert!((t[1].end - 1.04).abs() < 0.02, "{t:?}");
        assert!((t[2].start - 1.485).abs() < 0.02, "{t:?}");
    }

    #[test]
    fn aligner_interpolates_split_merged_and_stray_events() {
        // "2024" reported three times, "a b" merged into one event, one stray backwards event.
        let text = "In 2024 a b extraordinary end";
        let words = input_words(text);
        let rate = 1000;
        let samples = bursts(&[(0.0, 3.0)], 3.0, rate);
        let events = [
            WordEvent {
                char_pos: 0,
                time: 0.0,
            },
            WordEvent {
                char_pos: 3,
                time: 0.2,
            },
            WordEvent {
                char_pos: 4,
                time: 0.5,
            },
            WordEvent {
                char_pos: 4,
                time: 0.8,
            },
            WordEvent {
                char_pos: 8,
                time: 1.0,
            },
            WordEvent {
                char_pos: 12,
                time: 1.4,
            },
            WordEvent {
                char_pos: 2,
                time: 2.0,
            }, // stray
            WordEvent {
                char_pos: 26,
                time: 2.5,
            },
        ];
        let t = align_words(&words, &events, &samples, rate);
        check_invariants(&t, 3.0);
        assert_eq!(t.len(), 6);
        let starts: Vec<f64> = t.iter().map(|w| w.start).collect();
        assert_eq!(starts[..2], [0.0, 0.2]);
        assert!((starts[2] - 1.0).abs() < 1e-9);
        assert!((starts[3] - 1.2).abs() < 1e-9, "{starts:?}"); // halfway between "a" and "extraordinary"
        assert!((starts[4] - 1.4).abs() < 1e-9);
        assert!((starts[5] - 2.5).abs() < 1e-9);
        assert!((t[5].end - 3.0).abs() < 1e-9);
    }

    #[test]
    fn aligner_without_events_spreads_by_length() {
        let words = input_words("a bbbb");
        let samples = bursts(&[(0.0, 1.0)], 1.0, 1000);
        let t = align_words(&words, &[], &samples, 1000);
        check_invariants(&t, 1.0);
        assert!((t[1].start - 0.2).abs() < 1e-9, "{t:?}");
        // Silent audio: timings still exist and stay in range.
        let t = align_words(&words, &[], &[0; 500], 1000);
        assert_eq!(t.len(), 2);
        check_invariants(&t, 0.5);
        assert!(align_words(&[], &[], &[], 1000).is_empty());
    }

    #[test]
    fn longest_increasing_drops_outliers() {
        let pairs = [(0, 0.0), (5, 0.1), (1, 0.2), (2, 0.3), (3, 0.4), (4, 0.5)];
        let got: Vec<usize> = longest_increasing(&pairs).iter().map(|p| p.0).collect();
        assert_eq!(got, [0, 1, 2, 3, 4]);
    }
}
