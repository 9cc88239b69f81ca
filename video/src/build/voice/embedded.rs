//! The embedded narrator: a neural Piper voice for each language one is installed for, and
//! espeak-ng for every other language.

use std::sync::Arc;

use super::{Espeak, Narration, Piper, VoiceError, VoiceInfo, VoiceProvider, language_code};

/// The engine that speaks a language by default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanguageEngine {
    /// ISO 639 code, e.g. `en`.
    pub language: String,
    /// `piper` (neural) or `espeak-ng` (formant).
    pub engine: &'static str,
    /// The voice id a scene's `narrator.voice_id` names.
    pub voice_id: String,
}

/// Neural voices first, espeak-ng behind them.
pub struct Embedded {
    neural: Vec<Arc<Piper>>,
    espeak: Espeak,
}

impl Embedded {
    pub fn new(neural: Vec<Arc<Piper>>, espeak: Espeak) -> Embedded {
        Embedded { neural, espeak }
    }

    /// The neural voice for a language code, if one is installed.
    fn neural_for(&self, code: &str) -> Option<&Arc<Piper>> {
        self.neural.iter().find(|p| p.info().language == code)
    }

    /// Which engine and voice speak English and Vietnamese by default.
    pub fn engines(&self) -> Vec<LanguageEngine> {
        ["English", "Vietnamese"]
            .into_iter()
            .map(|language| {
                let voice_id = self.pick_voice("", language);
                let neural = self.neural.iter().any(|p| p.info().id == voice_id);
                LanguageEngine {
                    language: language_code(language).to_string(),
                    engine: if neural { "piper" } else { "espeak-ng" },
                    voice_id,
                }
            })
            .collect()
    }
}

impl VoiceProvider for Embedded {
    fn synthesize(&self, text: &str, voice_id: &str) -> Result<Narration, VoiceError> {
        match self
            .neural
            .iter()
            .find(|p| p.info().id.eq_ignore_ascii_case(voice_id.trim()))
        {
            Some(piper) => piper.synthesize(text, &piper.info().id),
            None => self.espeak.synthesize(text, voice_id),
        }
    }

    fn voices(&self) -> Vec<VoiceInfo> {
        let mut voices: Vec<VoiceInfo> = self.neural.iter().map(|p| p.info().clone()).collect();
        voices.extend(self.espeak.voices());
        voices
    }

    fn release(&self) {
        for p in &self.neural {
            p.release();
        }
    }

    /// `requested` when offered, else the neural voice of the language, else espeak-ng's.
    fn pick_voice(&self, requested: &str, language: &str) -> String {
        let r = requested.trim();
        if !r.is_empty() && self.voices().iter().any(|v| v.id.eq_ignore_ascii_case(r)) {
            return self.espeak_or_neural_id(r);
        }
        match self.neural_for(language_code(language)) {
            Some(p) => p.info().id.clone(),
            None => self.espeak.pick_voice("", language),
        }
    }
}

impl Embedded {
    /// The listed spelling of an offered id.
    fn espeak_or_neural_id(&self, id: &str) -> String {
        self.voices()
            .into_iter()
            .find(|v| v.id.eq_ignore_ascii_case(id))
            .map_or_else(|| id.to_string(), |v| v.id)
    }
}
