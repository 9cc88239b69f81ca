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
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
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
}

#[derive(Debug, Clone, Serialize, Deserialize)]
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
    pub caption_rect: PreviewRect,
    pub narrator_rect: PreviewRect,
    #[serde(default)]
    pub narrator_touched: bool,
    /// `""` (no overlay built), a version token, or `none` (disabled).
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

impl VideoDocument {
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
