//! Render workers on other hosts (`queue.kind = "nats"`). The API node keeps its redb store
//! and its job queue; what it hands out is the per-scene chunks of a render:
//!
//! - [`dispatch`]: the render's walk (`render::chunks`) finds the chunks its cache lacks; each
//!   becomes a [`task::ChunkTask`] on the JetStream work queue ([`queue`]), its input files
//!   stored by digest in the blob store ([`blobs`]). The render waits for the chunks, copies
//!   them into its chunk folder and joins them as it joins chunks of its own, so a client
//!   cannot tell which host rendered what.
//! - [`worker`]: `reelsmith worker` pulls tasks, renders, stores the chunk, answers.
//!
//! A chunk's key is the digest of everything that decides its bytes, so the same task done
//! twice (a redelivery after a worker died) stores the same object, and the second completion
//! is ignored.

pub mod blobs;
pub mod config;
mod dispatch;
pub mod queue;
pub mod task;
pub mod worker;

pub use dispatch::Farm;
