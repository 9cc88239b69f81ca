//! The video document: the scenes a client reviews and edits, stored in redb
//! under the topic id. Field names follow the spec's Scene record.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A word of narration and when it is spoken, seconds from the scene start.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Word {
    pub word: String,
    pub start: f64,
    pub end: f64,
}

/// A rectangle in the 280×498 editor preview space.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct PreviewRect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// What a scene shows behind everything else.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Background {
    /// Generated at render time from a seed; `style` names the look.
    Procedural { style: String, seed: u64 },
    /// A still image stored under the video's folder.
    Image { file: String },
    /// A video clip stored under the video's folder, looped or trimmed to the scene.
    Video { file: String },
}

impl Default for Background {
    fn default() -> Self {
        Background::Procedural {
            style: "gradient".into(),
            seed: 0,
        }
    }
}

/// A trim window into a video asset, seconds.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct VideoTrim {
    pub start: f64,
    pub end: f64,
}

/// The scene's narrator as the Scene record shows it (`{}` when unset).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct NarratorInfo {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub voice_id: String,
    #[serde(default)]
    pub face_id: String,
    #[serde(default)]
    pub audio_url: String,
    #[serde(default)]
    pub video_url: String,
}

/// The spec token meaning "the user disabled this scene's overlay".
pub const SPEC_DISABLED: &str = "none";

/// One scene. New fields take `#[serde(default)]` so stored documents keep loading, and
/// constructors use `..Default::default()`.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Segment {
    /// Stable per-scene id; never changes after creation.
    pub voice_file: String,
    /// Display order, 1-based; changes on reorder.
    pub id: u32,
    #[serde(rename = "type")]
    pub roll: String,
    pub text: String,
    #[serde(default)]
    pub talking_point: String,
    #[serde(default)]
    pub visual: String,
    #[serde(default)]
    pub quote: String,
    #[serde(default)]
    pub keyword: String,
    #[serde(default)]
    pub pattern: String,
    /// Creative type of the moment (HOOK, STAT, KEY POINT, DATA, FACT, CALL TO ACTION); the
    /// metadata branch's `type`. Published as `scene_type` (the record's `type` is the roll).
    #[serde(default)]
    pub scene_type: String,
    /// The scene shows typography only, no visual (metadata branch `typography_only`; setting
    /// it clears `visual`).
    #[serde(default)]
    pub typography_only: bool,
    pub duration: f64,
    /// Narration WAV, relative to the video folder. Empty before voicing.
    #[serde(default)]
    pub audio_file: String,
    #[serde(default)]
    pub words: Vec<Word>,
    pub background: Background,
    #[serde(default)]
    pub media_url: String,
    #[serde(default)]
    pub media_type: String,
    #[serde(default)]
    pub thumbnail_url: String,
    #[serde(default)]
    pub broll_url: String,
    #[serde(default)]
    pub broll_thumbnail_url: String,
    /// A user asset placed on an A-roll scene (kept beside the narrator).
    #[serde(default)]
    pub user_asset_url: String,
    #[serde(default)]
    pub video_trim: Option<VideoTrim>,
    pub caption_rect: PreviewRect,
    pub narrator_rect: PreviewRect,
    #[serde(default)]
    pub narrator_touched: bool,
    /// The scene's narrator record (spec `narrator`).
    #[serde(default)]
    pub narrator: NarratorInfo,
    /// A presenter clip for this scene (file in the video folder), shown in the narrator rect.
    #[serde(default)]
    pub narrator_video: Option<String>,
    /// The presenter's face in narrator-media space (280×498 over the narrator media).
    #[serde(default)]
    pub narrator_face: Option<PreviewRect>,
    /// `""` (no overlay built), a version token (the spec file's version), or
    /// [`SPEC_DISABLED`].
    #[serde(default)]
    pub remotion_spec: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VideoDocument {
    pub topic_id: String,
    pub title: String,
    pub language: String,
    pub faceless: bool,
    /// The narration as one script (what the script editor shows).
    pub script: String,
    pub segments: Vec<Segment>,
    #[serde(default)]
    pub voice_id: String,
    /// 16 hex: the unguessable part of the folder holding the public per-scene files
    /// (overlay specs and their payloads), `{origin_url}/specs/{topic}-{key}/`.
    #[serde(default)]
    pub public_key: String,
}

/// Default caption container: lower third, above the bottom dead zone.
pub const CAPTION_RECT: PreviewRect = PreviewRect {
    x: 14.0,
    y: 300.0,
    w: 252.0,
    h: 60.0,
};

/// Default narrator rect for A-roll: centred card in the upper half.
pub const NARRATOR_RECT: PreviewRect = PreviewRect {
    x: 70.0,
    y: 90.0,
    w: 140.0,
    h: 140.0,
};

/// The overlay spec file name of a scene.
pub fn spec_file_name(voice_file: &str) -> String {
    format!("{voice_file}_spec.json")
}

/// Where a spec's state stands, from the segment's token and whether the file exists.
pub fn spec_state(token: &str, exists: bool) -> &'static str {
    if token == SPEC_DISABLED {
        "disabled"
    } else if exists && !token.is_empty() {
        "ready"
    } else {
        "missing"
    }
}

impl Segment {
    /// Whether the scene shows its narrator (A-roll in a video that is not faceless).
    pub fn is_a_roll(&self) -> bool {
        self.roll == "A-roll"
    }

    /// Whether the user disabled the overlay.
    pub fn overlay_disabled(&self) -> bool {
        self.remotion_spec == SPEC_DISABLED
    }
}

impl VideoDocument {
    /// The public folder (below the public root) holding this video's per-scene files.
    pub fn public_folder(&self) -> String {
        if self.public_key.is_empty() {
            format!("specs/{}", self.topic_id)
        } else {
            format!("specs/{}-{}", self.topic_id, self.public_key)
        }
    }

    /// The scene with this stable id.
    pub fn segment(&self, voice_file: &str) -> Option<&Segment> {
        self.segments.iter().find(|s| s.voice_file == voice_file)
    }

    /// The scene with this stable id, mutable.
    pub fn segment_mut(&mut self, voice_file: &str) -> Option<&mut Segment> {
        self.segments
            .iter_mut()
            .find(|s| s.voice_file == voice_file)
    }

    pub fn total_duration(&self) -> f64 {
        self.segments.iter().map(|s| s.duration).sum()
    }

    /// The scene tree as `video_data` publishes it (word timings trimmed).
    pub fn to_public(&self, review_url: &str) -> Value {
        let segments: Vec<Value> = self
            .segments
            .iter()
            .enumerate()
            .map(|(i, s)| {
                json!({
                    "voice_file": s.voice_file,
                    "scene_uid": s.voice_file,
                    "id": s.id.to_string(),
                    "order_id": s.id,
                    "scene_index": i,
                    "type": s.roll,
                    "text": s.text,
                    "talking_point": s.talking_point,
                    "visual": s.visual,
                    "quote": s.quote,
                    "keyword": s.keyword,
                    "pattern": s.pattern,
                    "duration": s.duration,
                    "mediaUrl": s.media_url,
                    "mediaType": s.media_type,
                    "overlay": {
                        "caption": { "rect": s.caption_rect },
                        "narrator": { "rect": s.narrator_rect, "touched": s.narrator_touched },
                    },
                })
            })
            .collect();
        json!({
            "object": "video_data",
            "id": self.topic_id,
            "topic_id": self.topic_id,
            "aspect_ratio": "9:16",
            "title": self.title,
            "language": self.language,
            "total_segments": self.segments.len(),
            "total_duration": self.total_duration(),
            "segments": segments,
            "review_url": review_url,
        })
    }
}
