//! What travels on the queue: a chunk task (API node → worker) and its result (worker → API
//! node). A task carries the whole render plan, so the worker places the scene on the video's
//! timeline exactly as the API node would, and names every file the scene reads by the digest
//! it is stored under in the blob store.

use std::ops::Range;
use std::path::PathBuf;

use compositor::media::EncodeSettings;
use compositor::plan::VideoPlan;
use serde::{Deserialize, Serialize};

/// One scene chunk to render.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ChunkTask {
    /// The render that asked for it; its results go to that render's subjects.
    pub render: String,
    /// The video's topic id (for logs).
    pub topic: String,
    /// The chunk key: the chunk is stored as `chunks/{key}.mp4`, and a second completion of
    /// the same key is the same bytes, so it is ignored.
    pub key: String,
    /// The encoder identity the key was computed with; a worker whose encoder differs refuses
    /// the task instead of storing other bytes under the key.
    pub encoder: String,
    pub encode: EncodeSettings,
    /// The video's whole plan, paths as the API node names them.
    pub plan: VideoPlan,
    /// The scene, and the timeline frames of this chunk.
    pub scene: usize,
    pub frames: Range<u64>,
    /// When these frames crossfade into scene `scene + 1`: the digest of that scene's first
    /// frame, which the worker draws and checks.
    pub incoming: Option<String>,
    /// Every file the chunk reads (the scene's, the next scene's when it fades, the fonts).
    pub inputs: Vec<Input>,
}

/// A file a chunk reads: where the plan names it, and the SHA-256 it is stored under.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Input {
    pub path: PathBuf,
    pub digest: String,
}

/// A worker's answer for one chunk task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ChunkResult {
    pub render: String,
    pub key: String,
    /// The worker's name (host and process).
    pub worker: String,
    pub outcome: Outcome,
}

/// How a chunk task ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The chunk is in the blob store.
    Done {
        /// Time the worker spent: fetching inputs, rendering and encoding, storing the chunk.
        fetch_ms: u64,
        render_ms: u64,
        store_ms: u64,
        /// Bytes fetched (inputs the worker did not have) and stored (the chunk).
        fetched_bytes: u64,
        stored_bytes: u64,
    },
    /// The chunk cannot be made: `input` when one of the video's inputs does not read (the
    /// client's to fix), else the server's. `message` is the client's sentence.
    Failed {
        input: bool,
        message: String,
        cause: String,
    },
}

/// A worker's heartbeat while it renders: frames of the chunk done so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub key: String,
    pub done: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_reads_back_with_its_outcome_tagged() {
        let result = ChunkResult {
            render: "r1".into(),
            key: "k".into(),
            worker: "host-1".into(),
            outcome: Outcome::Failed {
                input: true,
                message: "The background image of scene 2 could not be read.".into(),
                cause: "decode".into(),
            },
        };
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(json["outcome"]["outcome"], "failed");
        let back: ChunkResult = serde_json::from_value(json).unwrap();
        assert_eq!(back, result);
    }

    #[test]
    fn encode_settings_travel_under_their_config_names() {
        let encode = EncodeSettings {
            encoder: compositor::media::EncoderChoice::Software,
            ..EncodeSettings::default()
        };
        let json = serde_json::to_value(&encode).unwrap();
        assert_eq!(json["encoder"], "x264");
        assert_eq!(json["preset"], "veryfast");
        assert_eq!(
            serde_json::from_value::<EncodeSettings>(json).unwrap(),
            encode
        );
    }
}
