//! The studio around the video, one folder per context (DESIGN.md §3b). A folder may use the
//! folders listed after it, never those before it; `tests/tests/architecture.rs` checks this.
//!
//! - `edit`: modify_scene, overlay edits, edit sessions, geometry, realtime messages
//! - `plan`: the production plan, the roadmap, the videos list, videos from plan entries
//! - `publish`: channel groups, connected accounts, publishers (feeds, Ayrshare-style), the
//!   publish requests and their schedule, analytics
//! - `content`: written content (create_content, enhance_script, collect_ideas)
//! - `notify`: notification/send, client_link/send, error/report and their channels
//! - `design`: the typography jobs
//! - `media`: B-roll search, generated images, thumbnails
//!
//! Below it, and kept apart by the compiler: the `video` crate (ingest, build, render) and the
//! `foundation` crate (store, model, jobs, webhooks, accounts, links, public files, config,
//! errors, fetch).
//!
//! [`assemble`] is the composition root: it wires the crates together (including the job
//! core's task runner) for the server and the one-shot commands. Async (tokio); knows nothing
//! of HTTP serving, which is the `api` crate's job.

pub mod content;
pub mod design;
pub mod edit;
pub mod media;
pub mod notify;
pub mod plan;
pub mod publish;

pub mod assemble;

pub use foundation::error::{Code, Error, Result};
