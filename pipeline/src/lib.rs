//! The domain and its lifecycle, one folder per context (DESIGN.md §3b). A folder may use the
//! folders listed after it, never those before it; `tests/tests/architecture.rs` checks this.
//!
//! - `edit`: modify_scene, overlay edits, edit sessions, geometry, realtime messages
//! - `plan`: the production plan, the roadmap, the videos list, videos from plan entries
//! - `notify`: notification/send, client_link/send, error/report and their channels
//! - `design`: the typography jobs
//! - `ingest`: the create_video request, media sources, transcription, uploads
//! - `build`: script, writer, direction, voice, B-roll, overlays, scene assembly
//! - `render`: document → render plan, MP4, stills
//! - `core`: store, model, jobs, webhooks, accounts, ids, links, public files, config, errors,
//!   fetch
//!
//! [`assemble`] is the composition root: it wires the folders together (including the job
//! core's task runner) for the server and the one-shot commands. Async (tokio); knows nothing
//! of HTTP serving, which is the `api` crate's job.

pub mod build;
pub mod content;
pub mod core;
pub mod design;
pub mod edit;
pub mod ingest;
pub mod media;
pub mod notify;
pub mod plan;
pub mod render;

pub mod assemble;

pub use crate::core::error::{Code, Error, Result};
