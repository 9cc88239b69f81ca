//! The connector: an OpenAI-compatible `POST {base_url}/audio/transcriptions`.
//!
//! Request (multipart/form-data): `file` (16 kHz mono WAV), `model`,
//! `response_format=verbose_json`, `timestamp_granularities[]=word` (and `language` when
//! configured). Answer: `{text, duration?, words: [{word, start, end}], segments?: [...]}`.
//! Servers that return segments but no words get their segment text spread over each segment.
//! The URL passes the SSRF guard like every outbound request; a local server must be listed in
//! `fetch.allow`.

use std::time::Duration;

use serde_json::Value;

use super::{TimedWord, TranscribeError, Transcriber, Transcript, spread_words};
use crate::build::voice::{resample_to, wav_bytes};
use crate::ingest::config::TranscriptionConfig;
use foundation::fetch::Fetcher;

/// Upload rate: what whisper models consume.
const RATE: u32 = 16_000;
/// Largest answer read.
const MAX_ANSWER: usize = 16 * 1024 * 1024;

pub(crate) struct OpenAiTranscriber {
    endpoint: String,
    model: String,
    api_key: String,
    language: String,
    timeout: Duration,
    fetcher: Fetcher,
    runtime: tokio::runtime::Handle,
}

impl OpenAiTranscriber {
    pub fn new(
        config: &TranscriptionConfig,
        fetcher: Fetcher,
        runtime: tokio::runtime::Handle,
    ) -> Self {
        OpenAiTranscriber {
            endpoint: format!(
                "{}/audio/transcriptions",
                config.base_url.trim_end_matches('/')
            ),
            model: config.model.clone(),
            api_key: config.api_key.clone(),
            language: config.language.clone(),
            timeout: Duration::from_secs(config.timeout_secs.max(1)),
            fetcher,
            runtime,
        }
    }

    async fn post(&self, body: Vec<u8>, boundary: &str) -> Result<Vec<u8>, TranscribeError> {
        let failed = |m: String| TranscribeError::Failed(m);
        let target = self
            .fetcher
            .guard(&self.endpoint)
            .await
            .map_err(|e| TranscribeError::Unavailable(format!("transcription URL: {e}")))?;
        let mut b = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.timeout)
            .connect_timeout(self.timeout.min(Duration::from_secs(10)))
            .no_proxy();
        if let Some(url::Host::Domain(d)) = target.url.host() {
            b = b.resolve_to_addrs(d, &target.addrs);
        }
        let client = b.build().map_err(|e| failed(e.to_string()))?;
        let mut req = client
            .post(target.url)
            .header(
                reqwest::header::CONTENT_TYPE,
                format!("multipart/form-data; boundary={boundary}"),
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body);
        if !self.api_key.is_empty() {
            req = req.bearer_auth(&self.api_key);
        }
        let mut resp = req.send().await.map_err(|e| {
            failed(format!(
                "the service could not be reached: {}",
                e.without_url()
            ))
        })?;
        let status = resp.status().as_u16();
        let mut out = Vec::new();
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| failed(e.without_url().to_string()))?
        {
            if out.len() + chunk.len() > MAX_ANSWER {
                return Err(failed("the answer is too large".into()));
            }
            out.extend_from_slice(&chunk);
        }
        if !(200..300).contains(&status) {
            return Err(failed(format!("the service answered HTTP {status}")));
        }
        Ok(out)
    }
}

/// The multipart body of a transcription request.
fn form(boundary: &str, wav: &[u8], fields: &[(&str, &str)]) -> Vec<u8> {
    let mut b = Vec::with_capacity(wav.len() + 1024);
    for (name, value) in fields {
        b.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    b.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"audio.wav\"\r\nContent-Type: audio/wav\r\n\r\n"
        )
        .as_bytes(),
    );
    b.extend_from_slice(wav);
    b.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    b
}

impl Transcriber for OpenAiTranscriber {
    fn transcribe(&self, samples: &[i16], sample_rate: u32) -> Result<Transcript, TranscribeError> {
        let pcm = resample_to(samples, sample_rate, RATE);
        let wav = wav_bytes(&pcm, RATE).map_err(|e| TranscribeError::Failed(e.to_string()))?;
        let boundary = format!("reelsmith-{}", foundation::ids::file_token());
        let mut fields = vec![
            ("model", self.model.as_str()),
            ("response_format", "verbose_json"),
            ("timestamp_granularities[]", "word"),
            ("timestamp_granularities[]", "segment"),
        ];
        if !self.language.is_empty() {
            fields.push(("language", self.language.as_str()));
        }
        let body = form(&boundary, &wav, &fields);
        let answer = self.runtime.block_on(self.post(body, &boundary))?;
        let v: Value = serde_json::from_slice(&answer)
            .map_err(|e| TranscribeError::Failed(format!("the answer is not JSON: {e}")))?;
        parse_verbose_json(&v)
    }
}

/// Reads a `verbose_json` answer into timed words, with punctuation taken from `text`.
pub(crate) fn parse_verbose_json(v: &Value) -> Result<Transcript, TranscribeError> {
    let num = |w: &Value, k: &str| w.get(k).and_then(Value::as_f64);
    let mut words: Vec<TimedWord> = Vec::new();
    if let Some(list) = v.get("words").and_then(Value::as_array) {
        for w in list {
            let (Some(text), Some(start), Some(end)) = (
                w.get("word").and_then(Value::as_str),
                num(w, "start"),
                num(w, "end"),
            ) else {
                continue;
            };
            let text = text.trim();
            if text.is_empty() || !start.is_finite() || !end.is_finite() {
                continue;
            }
            words.push(TimedWord {
                word: text.to_string(),
                start: start.max(0.0),
                end: end.max(start),
            });
        }
    }
    if words.is_empty()
        && let Some(segments) = v.get("segments").and_then(Value::as_array)
    {
        for s in segments {
            let (Some(text), Some(start), Some(end)) = (
                s.get("text").and_then(Value::as_str),
                num(s, "start"),
                num(s, "end"),
            ) else {
                continue;
            };
            let tokens: Vec<&str> = text.split_whitespace().collect();
            words.extend(spread_words(
                &tokens,
                &[(start, end.max(start))],
                (start, end),
            ));
        }
    }
    if words.is_empty() && v.get("text").and_then(Value::as_str).is_none() {
        return Err(TranscribeError::Failed(
            "the answer has no `text`, `words` or `segments`".into(),
        ));
    }
    // Monotonic, non-overlapping.
    words.sort_by(|a, b| a.start.total_cmp(&b.start));
    let mut last = 0.0f64;
    for w in &mut words {
        w.start = w.start.max(last);
        w.end = w.end.max(w.start);
        last = w.end;
    }
    if let Some(text) = v.get("text").and_then(Value::as_str) {
        restore_punctuation(&mut words, text);
    }
    Ok(Transcript { words })
}

fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Word lists of whisper servers carry bare words; the full text has the punctuation that
/// sentence splitting needs. Each word takes the matching token of the text (looking a few
/// tokens ahead), so `"world"` becomes `"world."`.
fn restore_punctuation(words: &mut [TimedWord], text: &str) {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut j = 0;
    for w in words.iter_mut() {
        let n = norm(&w.word);
        if n.is_empty() {
            continue;
        }
        if let Some(k) = (j..tokens.len().min(j + 4)).find(|&k| norm(tokens[k]) == n) {
            w.word = tokens[k].to_string();
            j = k + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_words_and_restores_punctuation() {
        // Shape of an OpenAI / faster-whisper verbose_json answer.
        let v = json!({
            "task": "transcribe", "language": "english", "duration": 3.2,
            "text": " Hello, world. How are you?",
            "words": [
                {"word": "Hello", "start": 0.0, "end": 0.4},
                {"word": "world", "start": 0.5, "end": 0.9},
                {"word": "How", "start": 1.6, "end": 1.8},
                {"word": "are", "start": 1.8, "end": 1.9},
                {"word": "you", "start": 1.9, "end": 2.3}
            ],
            "segments": [{"id": 0, "start": 0.0, "end": 2.3, "text": " Hello, world. How are you?"}]
        });
        let t = parse_verbose_json(&v).unwrap();
        let words: Vec<&str> = t.words.iter().map(|w| w.word.as_str()).collect();
        assert_eq!(words, ["Hello,", "world.", "How", "are", "you?"]);
        assert_eq!((t.words[2].start, t.words[2].end), (1.6, 1.8));
    }

    #[test]
    fn falls_back_to_segments() {
        let v = json!({
            "text": "One two. Three",
            "segments": [
                {"start": 0.0, "end": 1.0, "text": " One two."},
                {"start": 2.0, "end": 3.0, "text": " Three"}
            ]
        });
        let t = parse_verbose_json(&v).unwrap();
        assert_eq!(t.words.len(), 3);
        assert_eq!(t.words[1].word, "two.");
        assert_eq!((t.words[2].start, t.words[2].end), (2.0, 3.0));
        assert!(parse_verbose_json(&json!({"error": "x"})).is_err());
    }

    #[test]
    fn multipart_body_is_well_formed() {
        let b = form("XyZ", b"RIFF", &[("model", "whisper-1")]);
        let s = String::from_utf8_lossy(&b);
        assert!(s.starts_with(
            "--XyZ\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n"
        ));
        assert!(s.contains("name=\"file\"; filename=\"audio.wav\"\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n--XyZ--\r\n"));
    }
}
