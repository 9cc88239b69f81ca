//! Making the video, one folder per stage; a folder may use the folders listed after it, never
//! those before it (`tests/tests/architecture.rs` checks this):
//!
//! - `ingest`: the create_video request, media sources, transcription, uploads
//! - `build`: script, writer, direction, voice, B-roll, overlays, scene assembly
//! - `render`: document → render plan, MP4, stills, chunk cache, render workers
//!
//! Everything here stands on `foundation` (store, jobs, model, config, errors, fetch) and on
//! the render core (`compositor`, `typography`). The crates above (`pipeline`, `api`) reach it
//! through these three folders' facades: each `mod.rs` re-exports what they may name, and its
//! modules are `pub(crate)`.

pub mod build;
pub mod ingest;
pub mod render;

use foundation::config::Config;

/// Claims the config sections this crate owns (`[writer]`, `[voice]`, `[broll]`, `[media]`,
/// `[transcription]`, `[storage]`): each is read and checked once, at start, by the composition
/// root.
pub fn claim_sections(config: &Config) -> Result<(), String> {
    let (s, mode) = (&config.sections, config.mode);
    s.claim::<build::WriterConfig>(mode)?;
    s.claim::<build::VoiceConfig>(mode)?;
    s.claim::<build::BrollConfig>(mode)?;
    s.claim::<ingest::MediaConfig>(mode)?;
    s.claim::<ingest::TranscriptionConfig>(mode)?;
    s.claim::<render::StorageConfig>(mode)
}
