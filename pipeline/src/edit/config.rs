//! `[edit]`: edit sessions (the spec's `cache_enabled` and idle auto-commit).

use foundation::config::{Mode, Section};
use serde::Deserialize;

/// Scene editing: edit sessions (the spec's `cache_enabled` and idle auto-commit).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EditConfig {
    /// Whether `edit_session` may cache a video's document in memory (backed by a write-ahead
    /// journal). Off: no sessions; every edit is written straight to the store under the
    /// per-video lock.
    pub cache_enabled: bool,
    /// A session idle this long is committed automatically (spec: 45 minutes, `ttl_seconds`).
    pub session_idle_secs: u64,
    /// How often idle sessions are looked for.
    pub idle_check_secs: u64,
}

impl Default for EditConfig {
    fn default() -> Self {
        EditConfig {
            cache_enabled: true,
            session_idle_secs: 2700,
            idle_check_secs: 30,
        }
    }
}

impl Section for EditConfig {
    const NAME: &'static str = "edit";

    fn check(&self, _mode: Mode) -> Result<(), String> {
        if self.session_idle_secs == 0 || self.idle_check_secs == 0 {
            return Err("edit.*_secs values must be at least 1".into());
        }
        Ok(())
    }
}
