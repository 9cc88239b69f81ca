//! The seam through which a render hands the chunks its cache lacks to other processes
//! (render workers, `render::farm`) instead of encoding them itself.

use std::path::PathBuf;
use std::time::Duration;

use super::key::Key;
use super::{Failure, Render};

/// Encodes a render's missing chunks elsewhere.
pub trait Offload: Send + Sync {
    /// Has `pending` (chunks of `render`, keyed for the encoder `encoder` identifies) made and
    /// copied into their places in the render's chunk folder; `progress` gets the frames of
    /// them done so far. Blocks until all are in, or fails the render.
    fn render(
        &self,
        render: &Render<'_>,
        encoder: &str,
        pending: Vec<Pending>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Offloaded, Failure>;
}

/// A chunk the walk found missing: what to render and where it belongs.
#[derive(Debug, Clone)]
pub struct Pending {
    pub scene: usize,
    pub frames: std::ops::Range<u64>,
    /// The digest of the next scene's first frame when the chunk crossfades into it.
    pub incoming: Option<Key>,
    pub key: Key,
    /// Its place in the render's chunk folder.
    pub path: PathBuf,
}

/// What render workers did for one render.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Offloaded {
    /// Chunks and frames the workers rendered.
    pub chunks: usize,
    pub frames: u64,
    /// Bytes this node uploaded (inputs the store lacked) and downloaded (the chunks).
    pub uploaded: u64,
    pub downloaded: u64,
    /// Bytes the workers fetched and stored.
    pub worker_fetched: u64,
    pub worker_stored: u64,
    /// From the first input uploaded to the last chunk in the folder, and the part of it spent
    /// uploading inputs and submitting tasks.
    pub wall: Duration,
    pub submit: Duration,
    /// The workers' own time (fetching inputs, rendering, storing the chunk), summed over the
    /// chunks, and its longest chunk. With one worker, `wall - worker` is the scheduling
    /// overhead of all chunks.
    pub worker: Duration,
    pub longest: Duration,
    /// Summed worker render time.
    pub render: Duration,
}
