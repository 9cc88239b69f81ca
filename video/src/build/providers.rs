//! The outside capabilities scene building uses, chosen from config (DESIGN.md §2): each has
//! an embedded default that works offline and a connector for the real service.
//!
//! | capability | default | connector (config) |
//! |---|---|---|
//! | writer | [`writer::Extractive`] | [`llm::ChatWriter`] (`[writer] provider = "openai"`) |
//! | voice | [`voice::Embedded`]: Piper where installed, else espeak-ng | [`voice::OpenAiSpeech`] (`[voice] provider = "openai"`) |
//! | B-roll | [`illustrations::Offline`] (the library and the illustration index) | [`broll::Pexels`] (`[broll] provider = "pexels"`) |
//!
//! Connectors reach their hosts through the SSRF-guarded client ([`foundation::connector`]).

use std::sync::Arc;
use std::time::Duration;

use crate::build::broll::{self, BrollProvider, Library};
use crate::build::config::{
    BrollConfig, BrollKind, VoiceConfig, VoiceKind, WriterConfig, WriterKind,
};
use crate::build::illustrations::{self, Illustrations};
use crate::build::voice::{self, VoiceProvider};
use crate::build::{llm, writer};
use foundation::config::Settings;
use foundation::connector::Http;
use foundation::fetch::Fetcher;

/// Replies from connectors are small JSON or one scene's audio.
const CONNECTOR_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The providers of one build.
pub struct Providers {
    pub writer: Box<dyn writer::Writer>,
    pub voice: Arc<dyn VoiceProvider>,
    pub broll: Box<dyn BrollProvider>,
    /// The local library, also the fallback behind a stock connector.
    pub library: Arc<Library>,
    pub fetcher: Fetcher,
    pub runtime: tokio::runtime::Handle,
}

/// A connector endpoint with the shared reply cap and `timeout_secs`.
pub fn http(fetcher: &Fetcher, runtime: &tokio::runtime::Handle, timeout_secs: u64) -> Http {
    Http {
        fetcher: fetcher.clone(),
        runtime: runtime.clone(),
        timeout: Duration::from_secs(timeout_secs.max(1)),
        max_bytes: CONNECTOR_MAX_BYTES,
    }
}

/// The voice provider the config asks for; `embedded` is the process's own ([`voice::Embedded`]).
pub fn voice(
    settings: &Settings,
    fetcher: &Fetcher,
    runtime: &tokio::runtime::Handle,
    embedded: Arc<dyn VoiceProvider>,
) -> Arc<dyn VoiceProvider> {
    let c = settings.section::<VoiceConfig>();
    match c.provider {
        VoiceKind::Piper | VoiceKind::Espeak => embedded,
        VoiceKind::Openai => Arc::new(voice::OpenAiSpeech {
            http: http(fetcher, runtime, c.timeout_secs),
            base_url: c.base_url.clone(),
            model: c.model.clone(),
            api_key: c.api_key.clone(),
            default_voice: c.voice.clone(),
            request_word_timings: c.request_word_timings,
        }),
    }
}

impl Providers {
    /// Everything from config. The B-roll library is loaded from `{assets_dir}/broll`.
    pub fn from_settings(
        settings: &Settings,
        fetcher: &Fetcher,
        runtime: &tokio::runtime::Handle,
        embedded_voice: Arc<dyn VoiceProvider>,
    ) -> Result<Providers, String> {
        let library = Arc::new(Library::load(&settings.assets_dir.join("broll"))?);
        let w = settings.section::<WriterConfig>();
        let writer: Box<dyn writer::Writer> = match w.provider {
            WriterKind::Extractive => Box::new(writer::Extractive),
            WriterKind::Openai => Box::new(llm::ChatWriter {
                http: http(fetcher, runtime, w.timeout_secs),
                base_url: w.base_url.clone(),
                model: w.model.clone(),
                api_key: w.api_key.clone(),
            }),
        };
        let b = settings.section::<BrollConfig>();
        let broll: Box<dyn BrollProvider> = match b.provider {
            BrollKind::Library => Box::new(offline(settings, library.clone())?),
            BrollKind::Pexels => Box::new(broll::Pexels {
                http: http(fetcher, runtime, b.timeout_secs),
                base_url: b.base_url.clone(),
                api_key: b.api_key.clone(),
            }),
        };
        Ok(Providers {
            writer,
            voice: voice(settings, fetcher, runtime, embedded_voice),
            broll,
            library,
            fetcher: fetcher.clone(),
            runtime: runtime.clone(),
        })
    }
}

/// The embedded provider: `library` and the illustration index of `{assets_dir}/illustrations`,
/// rendered into `{data_dir}/cache/illustrations`.
pub fn offline(
    settings: &Settings,
    library: Arc<Library>,
) -> Result<illustrations::Offline, String> {
    let art = Illustrations::open(
        &settings.assets_dir.join("illustrations"),
        &settings.data_dir.join("cache").join("illustrations"),
    )?;
    Ok(illustrations::Offline {
        library,
        art: art.map(Arc::new),
    })
}
