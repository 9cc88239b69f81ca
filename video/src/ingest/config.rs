//! The ingest sections of the config file: `[media]` (uploads and media sources) and
//! `[transcription]` (speech to timed words).

use foundation::config::Section;
use serde::Deserialize;

/// Uploaded assets (`upload_asset`) and media sources of `create_video`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MediaConfig {
    /// Largest `upload_asset` file (spec: 524288000 bytes), also the presign `max_bytes`.
    pub asset_max_bytes: u64,
    /// Largest `video_file`/`audio_file` upload (spec: 100 MB).
    pub upload_max_bytes: u64,
    /// Largest `video_url`/`audio_url` download.
    pub download_max_bytes: u64,
    /// Time allowed for downloading a media URL.
    pub download_timeout_secs: u64,
    /// Longest media source (spec: 300 s).
    pub max_duration_secs: f64,
    /// Validity of a presigned PUT URL (spec: about 1 h).
    pub presign_ttl_secs: u64,
    /// Largest JSON body of `upload_asset` (base64 shape; spec: about 25 MB of file).
    pub json_max_bytes: u64,
}

impl Default for MediaConfig {
    fn default() -> Self {
        MediaConfig {
            asset_max_bytes: 524_288_000,
            upload_max_bytes: 100 * 1024 * 1024,
            download_max_bytes: 200 * 1024 * 1024,
            download_timeout_secs: 300,
            max_duration_secs: 300.0,
            presign_ttl_secs: 3600,
            json_max_bytes: 36 * 1024 * 1024,
        }
    }
}

/// Which engine turns speech into timed words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TranscriptionKind {
    /// Embedded PocketSphinx through GStreamer (`gstreamer1.0-pocketsphinx`, English).
    #[default]
    Pocketsphinx,
    /// An OpenAI-compatible `POST {base_url}/audio/transcriptions` (OpenAI, whisper servers).
    Openai,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TranscriptionConfig {
    pub provider: TranscriptionKind,
    /// API root, e.g. `https://api.openai.com/v1`. The host goes through the SSRF guard: a
    /// local whisper server must be listed in `fetch.allow`.
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer <api_key>` when not empty.
    pub api_key: String,
    /// ISO 639-1 hint sent as `language` when not empty.
    pub language: String,
    pub timeout_secs: u64,
}

impl Default for TranscriptionConfig {
    fn default() -> Self {
        TranscriptionConfig {
            provider: TranscriptionKind::Pocketsphinx,
            base_url: String::new(),
            model: "whisper-1".into(),
            api_key: String::new(),
            language: String::new(),
            timeout_secs: 300,
        }
    }
}

impl Section for MediaConfig {
    const NAME: &'static str = "media";
}

impl Section for TranscriptionConfig {
    const NAME: &'static str = "transcription";
}
