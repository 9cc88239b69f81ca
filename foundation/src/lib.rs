//! The job core, our `foundations/`: the redb store and its records, the video document, jobs
//! (queue, leases, the state machine; tasks run through [`jobs::TaskRunner`]), signed webhooks,
//! accounts, ids, the language of a text (`language`), signed links and the bases they are served on, expiring public files, the atomic file writer, configuration,
//! the error table, the blocking pool with the caller's span (`blocking`), the one decoding gate of incoming images and clips, the metrics (`telemetry`), the SSRF-guarded fetcher and the connectors' shared HTTP call. Every other
//! folder of `pipeline` may use it; it uses none of them.

pub mod accounts;
pub mod blocking;
pub mod config;
pub mod connector;
pub mod delivery_log;
pub mod document;
pub mod error;
pub mod export;
pub mod fetch;
pub mod fields;
pub mod files;
pub mod html;
pub mod ids;
pub mod jobs;
pub mod language;
pub mod link_bases;
pub mod links;
pub mod media_check;
pub mod model;
pub mod public;
pub mod schema;
pub mod store;
pub mod telemetry;
/// For the connectors' unit tests in this crate and the crates above it (feature `test-server`).
#[cfg(any(test, feature = "test-server"))]
pub mod testserver;
pub mod time;
pub mod video_data;
pub mod webhooks;

pub use crate::error::{Code, Error, Result};
