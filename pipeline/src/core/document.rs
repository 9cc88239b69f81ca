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
    /// The scene's narration WAV on the public origin (`{origin_url}/{public_folder}/…`).
    #[serde(default)]
    pub audio_url: String,
    /// Where the background came from: `user` (inline media), `library`, `pexels`,
    /// `procedural`.
    #[serde(default)]
    pub broll_source: String,
}

/// How an idea or blog post became narration (recorded for `video_data` and support).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct WriterInfo {
    /// `extractive` or `openai`.
    pub provider: String,
    #[serde(default)]
    pub model: String,
    pub research_enabled: bool,
    /// 9 short (≈ 90 s), 10 normal (≈ 3 min cap).
    pub content_type: u8,
    /// `short` or `normal`.
    pub video_length: String,
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
    /// `text`, `idea`, `blog`, … as requested.
    #[serde(default)]
    pub source: String,
    /// Idea/blog only: how the narration was written.
    #[serde(default)]
    pub writer: Option<WriterInfo>,
}

/// What [`VideoDocument::to_public`] needs to know about where files are served.
#[derive(Debug, Clone)]
pub struct PublicView<'a> {
    pub review_url: &'a str,
    /// `{origin_url}` without a trailing slash.
    pub origin_url: &'a str,
    /// `data_dir/public` on disk.
    pub public_root: &'a std::path::Path,
    /// Adds the `remotion_poster_*` fields.
    pub include_diagnostics: bool,
}

/// The modification-time version token of a file (16 hex), if it exists.
pub fn file_version(path: &std::path::Path) -> Option<String> {
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    let nanos = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    Some(format!("{nanos:016x}"))
}

/// Both coordinate spaces of the Scene record (not interchangeable).
pub fn coordinate_spaces() -> Value {
    json!({
        "remotion_canvas": {
            "width": 720, "height": 1280, "unit": "canvas_px",
            "used_by": ["remotion_spec content", "remotion.group.rect (default)", "rect_canvas"]
        },
        "editor_preview": {
            "width": 280, "height": 498, "unit": "editor_preview_px",
            "used_by": ["overlay.narrator.*", "overlay.caption.*", "remotion.object.rect", "geometry boxes"]
        },
        "note": "Multiply preview coordinates by 720/280 (x) and 1280/498 (y) to get canvas coordinates."
    })
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

    /// Where a scene's overlay poster is published, below the expiring `tmp/` folder of the
    /// public root: stable per scene (`{voice_file}_poster.png`), rewritten on each request.
    pub fn poster_name(&self, voice_file: &str) -> String {
        let folder = self.public_folder();
        let folder = folder.strip_prefix("specs/").unwrap_or(&folder);
        format!("posters/{folder}/{voice_file}_poster.png")
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

    /// Scene `i` as the Scene record of `video_data` (no word timings).
    pub fn segment_public(&self, i: usize, view: &PublicView<'_>) -> Value {
        let s = &self.segments[i];
        let folder = self.public_folder();
        let spec_dir = view.public_root.join(&folder);
        let file = spec_file_name(&s.voice_file);
        let exists = spec_dir.join(&file).is_file();
        let state = spec_state(&s.remotion_spec, exists);
        let version = if state == "ready" {
            s.remotion_spec.clone()
        } else {
            String::new()
        };
        let url = if state == "ready" {
            format!("{}/{folder}/{file}?v={version}", view.origin_url)
        } else {
            String::new()
        };
        let narrator = if s.narrator == NarratorInfo::default() {
            json!({})
        } else {
            json!(s.narrator)
        };
        let show_narrator = s.is_a_roll();
        let mut seg = json!({
            "voice_file": s.voice_file,
            "scene_uid": s.voice_file,
            "id": s.id.to_string(),
            "order_id": s.id,
            "scene_index": i,
            "type": s.roll,
            "scene_type": s.scene_type,
            "text": s.text,
            "talking_point": s.talking_point,
            "visual": s.visual,
            "quote": s.quote,
            "keyword": s.keyword,
            "pattern": s.pattern,
            "typography_only": s.typography_only,
            "duration": s.duration,
            "mediaUrl": s.media_url,
            "mediaType": s.media_type,
            "thumbnailUrl": s.thumbnail_url,
            "videoTrim": s.video_trim,
            "brollUrl": s.broll_url,
            "brollThumbnailUrl": s.broll_thumbnail_url,
            "user_asset_url": s.user_asset_url,
            "broll_source": s.broll_source,
            "audio_url": s.audio_url,
            "show_narrator": show_narrator,
            "active_roll": s.roll,
            "overlay": {
                "caption": { "rect": s.caption_rect },
                "narrator": {
                    "rect": s.narrator_rect,
                    "touched": s.narrator_touched,
                    "visible": show_narrator,
                },
            },
            "narrator": narrator,
            "narrator_face": s.narrator_face,
            "remotion_spec": s.remotion_spec,
            "remotion_spec_file": file,
            "remotion_spec_url": url,
            "remotion_spec_version": version,
            "remotion_spec_exists": exists,
            "remotion_spec_state": state,
        });
        seg["agent_meta"] = json!({
                "stable_scene_id_field": "voice_file",
                "stable_scene_id": s.voice_file,
                "order_field": "id",
                "order_value": s.id,
                "scene_index": i,
                "remotion_spec": {
                    "file": file,
                    "url": url,
                    "state": state,
                    "exists": exists,
                    "version": version,
                },
                "coordinate_spaces": {
                    "overlay.caption.rect": "editor_preview",
                    "overlay.narrator.rect": "editor_preview",
                    "remotion_spec": "remotion_canvas",
                },
        });
        if view.include_diagnostics {
            let poster = format!("{}_poster.png", s.voice_file);
            let poster_rel = format!("tmp/{}", self.poster_name(&s.voice_file));
            let path = view.public_root.join(&poster_rel);
            let pv = file_version(&path);
            let (pstate, warnings) = if s.overlay_disabled() {
                ("disabled", vec!["overlay_disabled"])
            } else if pv.is_some() {
                ("ready", vec![])
            } else if state == "ready" {
                ("missing", vec!["poster_not_rendered_yet"])
            } else {
                ("missing", vec!["no_overlay_spec"])
            };
            let purl = pv.as_ref().map_or(String::new(), |v| {
                format!("{}/{poster_rel}?v={v}", view.origin_url)
            });
            seg["remotion_poster_file"] = json!(poster);
            seg["remotion_poster_url"] = json!(purl);
            seg["remotion_poster_version"] = json!(pv.unwrap_or_default());
            seg["remotion_poster_state"] = json!(pstate);
            seg["remotion_poster_exists"] = json!(pstate == "ready");
            seg["remotion_poster_warnings"] = json!(warnings);
        }
        seg
    }

    /// The scene tree as `video_data` publishes it: every Scene-record field, the top level of
    /// the video-data file, agent metadata and coordinate spaces. Word timings, the full script
    /// and internal fields (file names on disk, seeds) are left out.
    pub fn to_public(&self, view: &PublicView<'_>) -> Value {
        let segments: Vec<Value> = (0..self.segments.len())
            .map(|i| self.segment_public(i, view))
            .collect();
        let voice_type = if self.faceless {
            "voice_only"
        } else {
            "narrator"
        };
        let avatar_type = if self.faceless {
            "none"
        } else {
            "narrator_card"
        };
        json!({
            "object": "video_data",
            "id": self.topic_id,
            "topic_id": self.topic_id,
            "aspect_ratio": "9:16",
            "title": self.title,
            "language": self.language,
            "source": self.source,
            "faceless": self.faceless,
            "voice_id": self.voice_id,
            "writer": self.writer,
            "total_segments": self.segments.len(),
            "total_duration": (self.total_duration() * 1000.0).round() / 1000.0,
            "scene_identity": {
                "stable_scene_id_field": "voice_file",
                "order_field": "id",
                "notes": [
                    "voice_file (= scene_uid) never changes; select scenes by it.",
                    "id, order_id and scene_index are display order only and change on reorder, add and delete.",
                    "The overlay spec of a scene is {voice_file}_spec.json; fetch remotion_spec_url only when remotion_spec_state is ready.",
                ],
            },
            "coordinate_spaces": coordinate_spaces(),
            "global_settings": {
                "aspectRatio": "9:16",
                "voice_type": voice_type,
                "avatar_type": avatar_type,
                "last_voice_type": voice_type,
                "last_avatar_type": avatar_type,
            },
            "segments": segments,
            "review_url": view.review_url,
        })
    }
}
