//! `[images]`: who makes `create_image`'s images.

use foundation::config::{Mode, Section};
use serde::Deserialize;

/// Who makes `create_image`'s images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ImagesKind {
    /// Designed locally: the best library photo for the prompt, cropped and graded to the
    /// ratio, with the prompt's key phrase set by the typography crate.
    #[default]
    Embedded,
    /// An OpenAI-compatible `/images/generations` API.
    Openai,
}

/// Image generation: the embedded designer, or an OpenAI-compatible API.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImagesConfig {
    pub provider: ImagesKind,
    /// API root, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer <api_key>`.
    pub api_key: String,
    pub timeout_secs: u64,
}

impl Default for ImagesConfig {
    fn default() -> Self {
        ImagesConfig {
            provider: ImagesKind::Embedded,
            base_url: String::new(),
            model: String::new(),
            api_key: String::new(),
            timeout_secs: 120,
        }
    }
}

impl Section for ImagesConfig {
    const NAME: &'static str = "images";

    fn check(&self, _mode: Mode) -> Result<(), String> {
        if self.provider == ImagesKind::Openai
            && (self.base_url.is_empty() || self.model.is_empty())
        {
            return Err("images.base_url and images.model are required (openai)".into());
        }
        Ok(())
    }
}
