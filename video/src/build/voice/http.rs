//! The TTS connector: an OpenAI-compatible `POST {base_url}/audio/speech` (OpenAI, Kokoro-FastAPI,
//! openedai-speech, LocalAI …) behind the same [`VoiceProvider`] trait as espeak-ng.
//!
//! Request: `{model, input, voice, response_format: "wav"}` with `Authorization: Bearer <key>`.
//! The WAV (any PCM/float format, any rate, mono or stereo; a streamed header with an unknown
//! data size is accepted) is mixed to mono and resampled to 48 kHz.
//!
//! Word timings, in order of preference:
//! 1. From the server, when `voice.request_word_timings` is on: the request adds
//!    `return_timestamps: true` and a server that supports it answers JSON
//!    `{audio: <base64 WAV>, words|timestamps: [{word, start|start_time, end|end_time}]}`. Its
//!    word starts become anchors for the aligner (a server that ignores the flag and answers
//!    plain WAV falls through to 2).
//! 2. Derived from the audio by energy-based word segmentation ([`segment_words`]): the speech
//!    span is found from 10 ms frame loudness; every silence run and every loudness dip is a
//!    candidate word boundary, scored by its depth/length; dynamic programming picks exactly one
//!    boundary per word gap, trading the candidate's strength against the distance from where the
//!    text predicts the boundary (words weighted by their letters and digits, plus a pause after
//!    punctuation). So timings follow the real pauses and syllable dips of the audio, not an even
//!    spread; the shared aligner then trims silence off each word.

use base64::Engine as _;
use serde_json::{Value, json};

use super::{
    InputWord, Narration, SAMPLE_RATE, VoiceError, VoiceInfo, VoiceProvider, WordEvent,
    align_words, input_words, resample_to, spoken_weight,
};
use foundation::connector::{Http, join};

/// The voices OpenAI's speech API names; other servers accept their own names too (any voice
/// id that is not one of these is replaced by the configured default).
const OPENAI_VOICES: &[&str] = &[
    "alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse",
];

pub(crate) struct OpenAiSpeech {
    pub http: Http,
    pub base_url: String,
    pub model: String,
    pub api_key: String,
    /// Used when the narrator's voice id is not a voice of this server.
    pub default_voice: String,
    pub request_word_timings: bool,
}

impl VoiceProvider for OpenAiSpeech {
    fn synthesize(&self, text: &str, voice_id: &str) -> Result<Narration, VoiceError> {
        let words = input_words(text);
        if words.is_empty() {
            return Ok(Narration {
                sample_rate: SAMPLE_RATE,
                samples: Vec::new(),
                words: Vec::new(),
            });
        }
        let voice = self.pick_voice(voice_id, "");
        let mut body = json!({
            "model": self.model,
            "input": text,
            "voice": voice,
            "response_format": "wav",
        });
        if self.request_word_timings {
            body["return_timestamps"] = json!(true);
        }
        let mut headers = Vec::new();
        if !self.api_key.is_empty() {
            headers.push(("authorization", format!("Bearer {}", self.api_key)));
        }
        let reply = self
            .http
            .post_json(&join(&self.base_url, "audio/speech"), &headers, &body)
            .map_err(VoiceError::Synthesis)?;
        if reply.status != 200 {
            return Err(VoiceError::Synthesis(format!(
                "speech server answered HTTP {}: {}",
                reply.status,
                reply.snippet()
            )));
        }
        let (wav, server_words) =
            if reply.content_type.contains("json") || reply.body.first() == Some(&b'{') {
                let v = reply.json().map_err(VoiceError::Synthesis)?;
                let audio = v["audio"]
                    .as_str()
                    .ok_or_else(|| VoiceError::Synthesis("JSON reply without `audio`".into()))?;
                let wav = base64::engine::general_purpose::STANDARD
                    .decode(audio.trim())
                    .map_err(|e| VoiceError::Synthesis(format!("audio is not base64: {e}")))?;
                (wav, server_timings(&v))
            } else {
                (reply.body, Vec::new())
            };
        let (rate, mono) = decode_wav(&wav).map_err(VoiceError::Synthesis)?;
        let samples = resample_to(&mono, rate, SAMPLE_RATE);
        let events = if server_words.is_empty() {
            segment_words(&words, &samples, SAMPLE_RATE)
        } else {
            anchor_server_words(&words, &server_words)
        };
        let timings = align_words(&words, &events, &samples, SAMPLE_RATE);
        Ok(Narration {
            sample_rate: SAMPLE_RATE,
            samples,
            words: timings,
        })
    }

    fn voices(&self) -> Vec<VoiceInfo> {
        let mut names: Vec<&str> = OPENAI_VOICES.to_vec();
        if !names.contains(&self.default_voice.as_str()) {
            names.push(&self.default_voice);
        }
        names
            .into_iter()
            .map(|n| VoiceInfo {
                id: n.to_string(),
                language: String::new(),
                name: n.to_string(),
            })
            .collect()
    }

    fn pick_voice(&self, requested: &str, _language: &str) -> String {
        let r = requested.trim();
        if self.voices().iter().any(|v| v.id == r) {
            r.to_string()
        } else {
            self.default_voice.clone()
        }
    }
}

/// `(word, start)` pairs a server reported, in its order.
fn server_timings(v: &Value) -> Vec<(String, f64)> {
    let list = v["words"]
        .as_array()
        .or_else(|| v["timestamps"].as_array())
        .cloned()
        .unwrap_or_default();
    list.iter()
        .filter_map(|w| {
            let word = w["word"].as_str().or(w["text"].as_str())?.to_string();
            let start = w["start"].as_f64().or(w["start_time"].as_f64())?;
            Some((word, start))
        })
        .collect()
}

fn norm(w: &str) -> String {
    w.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Server words → aligner events: each server word is matched to the next input word whose
/// letters start the same way (servers split and normalise words differently); unmatched ones
/// are skipped and the aligner interpolates.
fn anchor_server_words(words: &[InputWord<'_>], server: &[(String, f64)]) -> Vec<WordEvent> {
    let mut events = Vec::new();
    let mut next = 0usize;
    for (w, start) in server {
        let n = norm(w);
        if n.is_empty() {
            continue;
        }
        let found = (next..words.len().min(next + 4)).find(|&i| {
            let iw = norm(words[i].text);
            !iw.is_empty() && (iw.starts_with(&n) || n.starts_with(&iw))
        });
        if let Some(i) = found {
            events.push(WordEvent {
                char_pos: words[i].char_start,
                time: *start,
            });
            next = i + 1;
        }
    }
    events
}

/// Decodes a RIFF WAV (PCM 8/16/24/32-bit or IEEE float 32/64; WAVE_FORMAT_EXTENSIBLE too) to
/// mono i16. A data chunk whose size is unknown (streamed, `0xFFFFFFFF` or 0) runs to the end.
pub(crate) fn decode_wav(b: &[u8]) -> Result<(u32, Vec<i16>), String> {
    if b.len() < 12 || &b[..4] != b"RIFF" || &b[8..12] != b"WAVE" {
        return Err("the speech server did not answer a WAV file".into());
    }
    let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let mut pos = 12;
    let mut fmt: Option<(u16, u16, u32, u16)> = None;
    while pos + 8 <= b.len() {
        let id = &b[pos..pos + 4];
        let size = u32_at(pos + 4) as usize;
        let body = pos + 8;
        if id == b"fmt " {
            if body + 16 > b.len() {
                return Err("truncated WAV format chunk".into());
            }
            let mut tag = u16_at(body);
            if tag == 0xFFFE && size >= 26 && body + 26 <= b.len() {
                tag = u16_at(body + 24);
            }
            fmt = Some((tag, u16_at(body + 2), u32_at(body + 4), u16_at(body + 14)));
        } else if id == b"data" {
            let (tag, channels, rate, bits) = fmt.ok_or("WAV data before its format")?;
            let end = if size == 0 || size == u32::MAX as usize || body + size > b.len() {
                b.len()
            } else {
                body + size
            };
            let data = &b[body..end];
            let channels = channels.max(1) as usize;
            let width = (bits as usize).div_ceil(8);
            if width == 0 || rate == 0 {
                return Err("WAV format has no sample size or rate".into());
            }
            let frame = width * channels;
            let sample = |s: &[u8]| -> Result<f64, String> {
                Ok(match (tag, width) {
                    (1, 1) => (f64::from(s[0]) - 128.0) / 128.0,
                    (1, 2) => f64::from(i16::from_le_bytes([s[0], s[1]])) / 32768.0,
                    (1, 3) => {
                        f64::from(i32::from_le_bytes([0, s[0], s[1], s[2]]) >> 8) / 8_388_608.0
                    }
                    (1, 4) => {
                        f64::from(i32::from_le_bytes([s[0], s[1], s[2], s[3]])) / 2_147_483_648.0
                    }
                    (3, 4) => f64::from(f32::from_le_bytes([s[0], s[1], s[2], s[3]])),
                    (3, 8) => f64::from_le_bytes(s[..8].try_into().expect("8 bytes")),
                    _ => return Err(format!("unsupported WAV encoding {tag}/{bits} bit")),
                })
            };
            let mut out = Vec::with_capacity(data.len() / frame);
            for f in data.chunks_exact(frame) {
                let mut acc = 0.0;
                for c in 0..channels {
                    acc += sample(&f[c * width..(c + 1) * width])?;
                }
                let v = (acc / channels as f64 * 32767.0)
                    .round()
                    .clamp(-32768.0, 32767.0);
                out.push(v as i16);
            }
            return Ok((rate, out));
        }
        pos = body + size + (size & 1);
    }
    Err("WAV file without a data chunk".into())
}

/// Frame length of the segmentation, seconds.
const SEG_FRAME_S: f64 = 0.010;

/// Energy-based word segmentation: one start event per input word (see the module docs).
pub(crate) fn segment_words(words: &[InputWord<'_>], samples: &[i16], rate: u32) -> Vec<WordEvent> {
    if words.is_empty() || samples.is_empty() || rate == 0 {
        return Vec::new();
    }
    let e = energy(samples, rate);
    let peak = e.iter().copied().fold(0.0, f64::max);
    let threshold = (peak * 0.04).max(40.0);
    let voiced = |f: usize| e[f] >= threshold;
    let Some(first) = (0..e.len()).find(|&f| voiced(f)) else {
        return Vec::new();
    };
    let last = (0..e.len()).rev().find(|&f| voiced(f)).unwrap_or(first);
    let (span0, span1) = (frame_time(first), frame_time(last + 1));
    let n = words.len();
    let mut events = vec![WordEvent {
        char_pos: words[0].char_start,
        time: span0,
    }];
    if n == 1 {
        return events;
    }
    let expected = expected_boundaries(words, span0, span1);
    let mut cands = candidates(&e, first, last, threshold);
    // Always feasible: the expected positions themselves are weak candidates.
    cands.extend(expected.iter().map(|&x| (x, 0.0)));
    cands.retain(|c| c.0 > span0 && c.0 < span1);
    cands.sort_by(|a, b| a.0.total_cmp(&b.0));
    cands.dedup_by(|a, b| {
        (a.0 - b.0).abs() < 1e-9 && {
            b.1 = b.1.max(a.1);
            true
        }
    });
    let times: Vec<f64> = if cands.len() < n - 1 {
        // Degenerate (speech shorter than 10 ms per word): use the text's estimate.
        expected
    } else {
        let sigma = ((span1 - span0) / n as f64 * 0.8).max(0.04);
        align(&cands, &expected, sigma)
            .into_iter()
            .map(|c| cands[c].0)
            .collect()
    };
    events.extend(times.iter().enumerate().map(|(k, &time)| WordEvent {
        char_pos: words[k + 1].char_start,
        time,
    }));
    events
}

/// The start of segmentation frame `f`, seconds.
fn frame_time(f: usize) -> f64 {
    f as f64 * SEG_FRAME_S
}

/// The RMS energy of each frame, lightly smoothed (3 frames) so single noisy frames are no
/// boundaries.
fn energy(samples: &[i16], rate: u32) -> Vec<f64> {
    let frame = ((f64::from(rate) * SEG_FRAME_S) as usize).max(1);
    let raw: Vec<f64> = samples
        .chunks(frame)
        .map(|c| (c.iter().map(|&s| f64::from(s).powi(2)).sum::<f64>() / c.len() as f64).sqrt())
        .collect();
    (0..raw.len())
        .map(|i| {
            let a = i.saturating_sub(1);
            let b = (i + 2).min(raw.len());
            raw[a..b].iter().sum::<f64>() / (b - a) as f64
        })
        .collect()
}

/// Candidate word boundaries between voiced frames `first` and `last` of `e`: (time,
/// strength). The end of a pause is strong (the longer the pause, the stronger); a dip in the
/// energy is as strong as it is deep.
fn candidates(e: &[f64], first: usize, last: usize, threshold: f64) -> Vec<(f64, f64)> {
    let voiced = |f: usize| e[f] >= threshold;
    let mut cands = Vec::new();
    let mut f = first;
    while f <= last {
        if !voiced(f) {
            let start = f;
            while f <= last && !voiced(f) {
                f += 1;
            }
            let len = frame_time(f - start);
            // A pause: the next word starts where it ends.
            cands.push((frame_time(f), 1.0 + (len / 0.15).min(1.5)));
            continue;
        }
        if f > first && f < last && e[f] <= e[f - 1] && e[f] < e[f + 1] {
            let a = f.saturating_sub(15).max(first);
            let b = (f + 16).min(last + 1);
            let local = e[a..b].iter().copied().fold(0.0, f64::max);
            let depth = if local > 0.0 { 1.0 - e[f] / local } else { 0.0 };
            if depth > 0.2 {
                cands.push((frame_time(f), depth));
            }
        }
        f += 1;
    }
    cands
}

/// Where the text puts the start of each word after the first, spreading `span0..span1` by
/// spoken weight, with punctuation counting as a pause.
fn expected_boundaries(words: &[InputWord<'_>], span0: f64, span1: f64) -> Vec<f64> {
    let weight = |w: &InputWord<'_>| {
        let mut x = spoken_weight(w.text).max(1.0);
        if w.text.ends_with([',', ';', ':', '—']) {
            x += 2.0;
        } else if w.text.ends_with(['.', '!', '?', '…']) {
            x += 4.0;
        }
        x
    };
    let total: f64 = words.iter().map(weight).sum();
    let mut acc = 0.0;
    words[..words.len() - 1]
        .iter()
        .map(|w| {
            acc += weight(w);
            span0 + (span1 - span0) * acc / total
        })
        .collect()
}

/// The candidate (an index into the time-ordered `cands`) of each expected boundary, in
/// increasing order, that together are nearest the text's estimate (within `sigma`) and
/// strongest: dynamic programming over boundaries × candidates. Needs as many candidates as
/// boundaries.
fn align(cands: &[(f64, f64)], expected: &[f64], sigma: f64) -> Vec<usize> {
    let (m, k_gaps) = (cands.len(), expected.len());
    let cost = |k: usize, j: usize| {
        let d = (cands[j].0 - expected[k]) / sigma;
        d * d - 2.0 * cands[j].1
    };
    // dp[k][j]: best cost with boundary k at candidate j.
    let inf = f64::INFINITY;
    let mut dp = vec![vec![inf; m]; k_gaps];
    let mut back = vec![vec![usize::MAX; m]; k_gaps];
    for (j, d) in dp[0].iter_mut().enumerate() {
        *d = cost(0, j);
    }
    for k in 1..k_gaps {
        let mut best = inf;
        let mut arg = usize::MAX;
        for j in 0..m {
            if j > 0 && dp[k - 1][j - 1] < best {
                best = dp[k - 1][j - 1];
                arg = j - 1;
            }
            if best < inf {
                dp[k][j] = best + cost(k, j);
                back[k][j] = arg;
            }
        }
    }
    let mut j = (0..m)
        .min_by(|&a, &b| dp[k_gaps - 1][a].total_cmp(&dp[k_gaps - 1][b]))
        .expect("m ≥ 1");
    let mut chosen = vec![0usize; k_gaps];
    for k in (0..k_gaps).rev() {
        chosen[k] = j;
        if k > 0 {
            j = back[k][j];
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::testserver;

    /// Speech-like bursts: a vowel tone with a syllable envelope, `(start, end)` seconds.
    fn speech(spans: &[(f64, f64)], total: f64, rate: u32) -> Vec<i16> {
        let mut s = vec![0i16; (total * f64::from(rate)) as usize];
        for &(a, b) in spans {
            let (ia, ib) = (
                (a * f64::from(rate)) as usize,
                (b * f64::from(rate)) as usize,
            );
            for (i, out) in s.iter_mut().enumerate().take(ib).skip(ia) {
                let x = (i - ia) as f64 / (ib - ia) as f64;
                let env = (std::f64::consts::PI * x).sin().powf(0.3);
                let tone = (2.0 * std::f64::consts::PI * 180.0 * i as f64 / f64::from(rate)).sin();
                *out = (9000.0 * env * tone) as i16;
            }
        }
        s
    }

    fn wav_bytes(rate: u32, samples: &[i16], streamed: bool) -> Vec<u8> {
        let data = samples.len() as u32 * 2;
        let mut b = Vec::new();
        b.extend_from_slice(b"RIFF");
        b.extend_from_slice(&(if streamed { u32::MAX } else { 36 + data }).to_le_bytes());
        b.extend_from_slice(b"WAVEfmt ");
        b.extend_from_slice(&16u32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&rate.to_le_bytes());
        b.extend_from_slice(&(rate * 2).to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(b"data");
        b.extend_from_slice(&(if streamed { u32::MAX } else { data }).to_le_bytes());
        for s in samples {
            b.extend_from_slice(&s.to_le_bytes());
        }
        b
    }

    // Word lengths in the audio deliberately disagree with their letter counts, so an even or
    // letter-proportional spread is far off while pauses give the truth away.
    const TEXT: &str = "I absolutely love it, really. Ok";
    const SPANS: &[(f64, f64)] = &[
        (0.10, 0.40),
        (0.50, 0.80),
        (0.90, 1.50),
        (1.60, 1.80),
        (2.30, 2.90),
        (3.10, 3.30),
    ];

    #[test]
    fn segmentation_follows_pauses_not_letters() {
        let rate = 48_000;
        let s = speech(SPANS, 3.5, rate);
        let words = input_words(TEXT);
        let ev = segment_words(&words, &s, rate);
        assert_eq!(ev.len(), words.len());
        for (e, (a, _)) in ev.iter().zip(SPANS) {
            assert!(
                (e.time - a).abs() < 0.04,
                "event {e:?} vs span start {a}: {ev:?}"
            );
        }
        let t = align_words(&words, &ev, &s, rate);
        for (w, (a, b)) in t.iter().zip(SPANS) {
            assert!(
                (w.start - a).abs() < 0.05 && (w.end - b).abs() < 0.08,
                "{w:?} vs {a}-{b}"
            );
        }
    }

    #[test]
    fn segmentation_uses_dips_when_there_are_no_pauses() {
        // Connected speech: words touch, only the loudness envelope dips between them.
        let rate = 16_000;
        let spans = [(0.0, 0.5), (0.5, 0.7), (0.7, 1.6), (1.6, 1.9)];
        let s = speech(&spans, 1.9, rate);
        let words = input_words("alpha be gamma delta");
        let ev = segment_words(&words, &s, rate);
        for (e, (a, _)) in ev.iter().zip(&spans).skip(1) {
            assert!((e.time - a).abs() < 0.05, "{ev:?}");
        }
    }

    #[test]
    fn decodes_wav_variants() {
        let s: Vec<i16> = (0..100).map(|i| i * 100).collect();
        let (r, d) = decode_wav(&wav_bytes(24_000, &s, true)).unwrap();
        assert_eq!((r, d.len()), (24_000, 100));
        assert_eq!(d[7], 700);
        assert!(decode_wav(b"nope").is_err());
    }

    #[test]
    fn speaks_to_a_fake_speech_server() {
        let rate = 24_000;
        let wav = wav_bytes(rate, &speech(SPANS, 3.5, rate), true);
        let server = testserver::start(move |req| {
            if req.path() != "/v1/audio/speech" {
                return (404, "text/plain".into(), Vec::new());
            }
            (200, "audio/wav".into(), wav.clone())
        });
        let (_rt, http) = testserver::http_for(&server);
        let tts = OpenAiSpeech {
            http,
            base_url: format!("{}/v1", server.url()),
            model: "tts-1".into(),
            api_key: "k".into(),
            default_voice: "nova".into(),
            request_word_timings: false,
        };
        let n = std::thread::scope(|s| s.spawn(|| tts.synthesize(TEXT, "en-us")).join().unwrap())
            .unwrap();
        assert_eq!(n.sample_rate, 48_000);
        assert!((n.duration() - 3.5).abs() < 0.01, "{}", n.duration());
        assert_eq!(n.words.len(), 6);
        for (w, (a, _)) in n.words.iter().zip(SPANS) {
            assert!((w.start - a).abs() < 0.05, "{:?}", n.words);
        }
        let req = &server.requests()[0];
        assert_eq!(req.headers["authorization"], "Bearer k");
        let body = req.json();
        assert_eq!(body["model"], "tts-1");
        assert_eq!(body["input"], TEXT);
        assert_eq!(
            body["voice"], "nova",
            "espeak ids fall back to the default voice"
        );
        assert_eq!(body["response_format"], "wav");
        assert!(body.get("return_timestamps").is_none());
    }

    #[test]
    fn uses_server_timestamps_when_offered() {
        let rate = 24_000;
        let wav = wav_bytes(rate, &speech(SPANS, 3.5, rate), false);
        let audio = base64::engine::general_purpose::STANDARD.encode(&wav);
        let server = testserver::start(move |req| {
            assert_eq!(req.json()["return_timestamps"], true);
            let words: Vec<Value> = ["I", "absolutely", "love", "it", "really", "Ok"]
                .iter()
                .zip(SPANS)
                .map(|(w, (a, b))| json!({"word": w, "start_time": a, "end_time": b}))
                .collect();
            let body = json!({"audio": audio, "timestamps": words});
            (
                200,
                "application/json".into(),
                body.to_string().into_bytes(),
            )
        });
        let (_rt, http) = testserver::http_for(&server);
        let tts = OpenAiSpeech {
            http,
            base_url: server.url(),
            model: "kokoro".into(),
            api_key: String::new(),
            default_voice: "af_bella".into(),
            request_word_timings: true,
        };
        let n = std::thread::scope(|s| s.spawn(|| tts.synthesize(TEXT, "shimmer")).join().unwrap())
            .unwrap();
        assert_eq!(server.requests()[0].json()["voice"], "shimmer");
        for (w, (a, _)) in n.words.iter().zip(SPANS) {
            assert!((w.start - a).abs() < 0.03, "{:?}", n.words);
        }
    }
}
