//! The domain and its lifecycle: the redb store, jobs and their state
//! machine, scene building, providers (voice, writer, B-roll), signed
//! webhooks and the guarded outbound client. Async (tokio); knows nothing of
//! HTTP serving — that is the `api` crate's job.

pub mod accounts;
pub mod adjust;
pub mod assemble;
pub mod assets;
pub mod broll;
pub mod config;
pub mod connector;
pub mod create;
pub mod direction;
pub mod document;
pub mod error;
pub mod fetch;
pub mod files;
pub mod ids;
pub mod jobs;
pub mod links;
pub mod llm;
pub mod media_source;
pub mod model;
pub mod overlay_edits;
pub mod overlays;
pub mod providers;
pub mod public;
pub mod realtime;
pub mod render;
pub mod scenes;
pub mod script;
pub mod stills;
pub mod store;
pub mod time;
pub mod transcribe;
pub mod typography_jobs;
pub mod voice;
pub mod webhooks;
pub mod work;
pub mod writer;

#[cfg(test)]
mod testserver;

pub use error::{Code, Error, Result};
