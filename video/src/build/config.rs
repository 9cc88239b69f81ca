//! The scene-building sections of the config file: `[writer]` (idea and blog → narration),
//! `[voice]` (the narration's engine) and `[broll]` (where scene backgrounds are searched).

use std::path::PathBuf;

use foundation::config::{Mode, Section};
use serde::Deserialize;

/// Which writer turns ideas and blog posts into narration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum WriterKind {
    /// The embedded extractive writer (offline, deterministic).
    #[default]
    Extractive,
    /// An OpenAI-compatible `POST {base_url}/chat/completions` (OpenAI, Ollama, llama.cpp, vLLM).
    Openai,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WriterConfig {
    pub provider: WriterKind,
    /// API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. The host goes
    /// through the SSRF guard: a local server must be listed in `fetch.allow`.
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer <api_key>` when not empty.
    pub api_key: String,
    pub timeout_secs: u64,
}

impl Default for WriterConfig {
    fn default() -> Self {
        WriterConfig {
            provider: WriterKind::Extractive,
            base_url: String::new(),
            model: String::new(),
            api_key: String::new(),
            timeout_secs: 120,
        }
    }
}

/// Which engine speaks the narration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum VoiceKind {
    /// The embedded neural voices (Piper, offline; timings from the model's durations) for the
    /// languages one is installed for in `models_dir`, espeak-ng for the rest.
    #[default]
    Piper,
    /// The embedded espeak-ng alone (offline; engine word events).
    Espeak,
    /// An OpenAI-compatible `POST {base_url}/audio/speech` returning WAV.
    Openai,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VoiceConfig {
    pub provider: VoiceKind,
    /// API root of the speech server (connector only).
    pub base_url: String,
    /// `model` of the speech request, e.g. `tts-1` or `kokoro`.
    pub model: String,
    pub api_key: String,
    /// Connector voice used when the narrator's voice id is not one of the server's.
    pub voice: String,
    /// Ask the server for word timestamps (`return_timestamps: true`, answered as JSON
    /// `{audio: base64, words|timestamps: [...]}`); servers without it answer plain WAV and the
    /// timings are derived from the audio instead (voice/http.rs).
    pub request_word_timings: bool,
    pub timeout_secs: u64,
    /// Where `make voices` installs the neural voices and their runtime; empty:
    /// `{assets_dir}/voices`.
    pub models_dir: PathBuf,
    /// Where the neural voice runs: set by the executable, never by the config file. The daemon
    /// names itself, so the voice runs in a child process and ONNX Runtime never loads into the
    /// process that renders (`build/voice/piper/worker.rs`); in-process otherwise.
    #[serde(skip)]
    pub worker_program: Option<PathBuf>,
}

impl Default for VoiceConfig {
    fn default() -> Self {
        VoiceConfig {
            provider: VoiceKind::Piper,
            models_dir: PathBuf::new(),
            worker_program: None,
            base_url: String::new(),
            model: "tts-1".into(),
            api_key: String::new(),
            voice: "alloy".into(),
            request_word_timings: false,
            timeout_secs: 120,
        }
    }
}

/// Where scene backgrounds are searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum BrollKind {
    /// The local library in `{assets_dir}/broll` plus procedural backgrounds.
    #[default]
    Library,
    /// The Pexels API (photos and videos); the library stays the fallback.
    Pexels,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrollConfig {
    pub provider: BrollKind,
    /// Pexels API root (`https://api.pexels.com`).
    pub base_url: String,
    /// Sent as `Authorization: <api_key>` (Pexels' scheme).
    pub api_key: String,
    pub timeout_secs: u64,
}

impl Default for BrollConfig {
    fn default() -> Self {
        BrollConfig {
            provider: BrollKind::Library,
            base_url: "https://api.pexels.com".into(),
            api_key: String::new(),
            timeout_secs: 30,
        }
    }
}

impl Section for WriterConfig {
    const NAME: &'static str = "writer";

    fn check(&self, _mode: Mode) -> Result<(), String> {
        if self.provider == WriterKind::Openai
            && (self.base_url.is_empty() || self.model.is_empty())
        {
            return Err("writer.base_url and writer.model are required (openai)".into());
        }
        Ok(())
    }
}

impl Section for VoiceConfig {
    const NAME: &'static str = "voice";

    fn check(&self, _mode: Mode) -> Result<(), String> {
        if self.provider == VoiceKind::Openai && (self.base_url.is_empty() || self.model.is_empty())
        {
            return Err("voice.base_url and voice.model are required (openai)".into());
        }
        Ok(())
    }
}

impl Section for BrollConfig {
    const NAME: &'static str = "broll";

    fn check(&self, _mode: Mode) -> Result<(), String> {
        if self.provider == BrollKind::Pexels
            && (self.base_url.is_empty() || self.api_key.is_empty())
        {
            return Err("broll.base_url and broll.api_key are required (pexels)".into());
        }
        Ok(())
    }
}
