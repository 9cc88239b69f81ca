//! The video document: the scenes a client reviews and edits, stored in redb
//! under the topic id. Field names follow the spec's Scene record.
//!
//! The document uses the workspace's one model per concept: words are
//! [`typography::TimedWord`], rects are [`compositor::geom::PreviewRect`], and the closed sets
//! the spec names (roll, scene type, media kind, B-roll source) are enums that serialise as
//! their exact wire strings, so stored documents and API output read as before.

use compositor::focus::{BackgroundFit, Subject};
use compositor::geom::PreviewRect;
use serde::{Deserialize, Serialize, Serializer};
use typography::TimedWord;
use utoipa::ToSchema;

/// An enum whose values travel as fixed wire strings: `as_str`, `parse`, `NAMES`, `Display`
/// and serde as exactly those strings (one table per enum, nothing to keep in sync). The one way
/// the crate makes a wire enum.
///
/// `pub enum Name: Code::X { … }` also makes it a request field's [`Choice`]: a name outside
/// the table answers `X`.
///
/// [`Choice`]: crate::fields::Choice
#[macro_export]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident : $code:path { $( $(#[$vmeta:meta])* $variant:ident = $wire:tt ),+ $(,)? }
    ) => {
        $crate::wire_enum! {
            $(#[$meta])*
            pub enum $name { $( $(#[$vmeta])* $variant = $wire ),+ }
        }

        impl $crate::fields::Choice for $name {
            const NAMES: &'static [&'static str] = $name::NAMES;
            const CODE: $crate::error::Code = $code;
            fn parse(s: &str) -> Option<Self> {
                $name::parse(s)
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $wire:tt ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash,
            serde::Serialize, serde::Deserialize, utoipa::ToSchema,
        )]
        pub enum $name { $( $(#[$vmeta])* #[serde(rename = $wire)] $variant ),+ }

        impl $name {
            /// Every value, in the spec's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every wire name, in the spec's order.
            pub const NAMES: &'static [&'static str] = &[$($wire),+];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }

            /// The value with exactly this wire name.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($wire => Some($name::$variant),)+ _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
/// For the other closed sets of the API (e.g. `edit::scenes::inspect::InspectorAction`).
pub use crate::wire_enum;

wire_enum! {
    /// Which lane a scene shows: the narrator on screen (A-roll) or the background only (B-roll).
    /// Serialised as the record's `type`.
    pub enum Roll {
        ARoll = "A-roll",
        BRoll = "B-roll",
    }
}

impl Default for Roll {
    /// A scene without a narrator.
    fn default() -> Self {
        Roll::BRoll
    }
}

wire_enum! {
    /// The creative type of a scene (the metadata branch's `type`, published as `scene_type`).
    pub enum SceneType {
        Hook = "HOOK",
        Stat = "STAT",
        KeyPoint = "KEY POINT",
        Data = "DATA",
        Fact = "FACT",
        CallToAction = "CALL TO ACTION",
    }
}

wire_enum! {
    /// Whether a scene's narration says its text (the editor warns when it does not).
    pub enum NarrationState {
        /// The voice spoke the scene's current text.
        MatchesText = "matches_text",
        /// The text was edited after the voice spoke it (branch K keeps the recording): the
        /// audio says the old words until the scene is re-voiced.
        TextChanged = "text_changed",
        /// A recording (an upload, or an audio/video source) whose words the server did not
        /// write.
        Recorded = "recorded",
    }
}

wire_enum! {
    /// A still image or a video clip.
    pub enum MediaKind {
        Image = "image",
        Video = "video",
    }
}

impl Segment {
    /// Whether the narration says the scene's text.
    pub fn narration_state(&self) -> NarrationState {
        match &self.spoken_text {
            Some(t) if t.trim() == self.text.trim() => NarrationState::MatchesText,
            Some(_) => NarrationState::TextChanged,
            None => NarrationState::Recorded,
        }
    }
}

impl MediaKind {
    /// The kind and file extension of an image (PNG, JPEG, WebP) or video (MP4, MOV, WebM) by
    /// its magic bytes: the one sniffer for every downloaded or uploaded scene medium (a URL's
    /// extension is never trusted for this).
    pub fn sniff(b: &[u8]) -> Option<(MediaKind, &'static str)> {
        if b.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some((MediaKind::Image, "png"))
        } else if b.starts_with(&[0xff, 0xd8, 0xff]) {
            Some((MediaKind::Image, "jpg"))
        } else if b.len() > 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
            Some((MediaKind::Image, "webp"))
        } else if b.len() > 12 && &b[4..8] == b"ftyp" {
            let mov = &b[8..12] == b"qt  ";
            Some((MediaKind::Video, if mov { "mov" } else { "mp4" }))
        } else if b.starts_with(&[0x1a, 0x45, 0xdf, 0xa3]) {
            Some((MediaKind::Video, "webm"))
        } else {
            None
        }
    }
}

wire_enum! {
    /// Where a scene's background came from.
    pub enum BrollSource {
        /// Media the user placed in the script or uploaded.
        User = "user",
        /// The bundled B-roll library.
        Library = "library",
        /// Pexels stock.
        Pexels = "pexels",
        /// Drawn at render time.
        Procedural = "procedural",
    }
}

/// Serde for an optional wire enum stored as a string where `""` means unset (the form stored
/// documents and the Scene record have always used).
pub mod empty_is_none {
    use serde::de::IntoDeserializer;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => v.serialize(s),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        let s = String::deserialize(d)?;
        if s.is_empty() {
            return Ok(None);
        }
        T::deserialize(s.into_deserializer()).map(Some)
    }
}

/// The wire name of an optional wire enum, `""` when unset.
fn name_or_empty<T: Copy>(v: Option<T>, name: fn(T) -> &'static str) -> &'static str {
    v.map_or("", name)
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

impl Background {
    /// The kind of medium the scene shows: a generated background drifts across its scene, a
    /// moving picture (as `search_broll` lists the grid looks), so it is a video.
    pub fn media_kind(&self) -> MediaKind {
        match self {
            Background::Procedural { .. } | Background::Video { .. } => MediaKind::Video,
            Background::Image { .. } => MediaKind::Image,
        }
    }
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
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default, ToSchema)]
pub struct VideoTrim {
    pub start: f64,
    pub end: f64,
}

/// The narrator name a built scene gets when the account has set no name of its own
/// (`reelsmith accounts set --name`).
pub const NARRATOR_PLACEHOLDER: &str = "Narrator";

/// The scene's narrator as the Scene record shows it (`{}` when unset).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default, ToSchema)]
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
    pub roll: Roll,
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
    #[serde(default, with = "empty_is_none")]
    pub scene_type: Option<SceneType>,
    /// The scene shows typography only, no visual (metadata branch `typography_only`; setting
    /// it clears `visual`).
    #[serde(default)]
    pub typography_only: bool,
    pub duration: f64,
    /// Narration WAV, relative to the video folder. Empty before voicing.
    #[serde(default)]
    pub audio_file: String,
    #[serde(default)]
    pub words: Vec<TimedWord>,
    /// The text the narration's voice spoke; `None` for a recording (an upload, a media source,
    /// or a document made before this was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spoken_text: Option<String>,
    pub background: Background,
    #[serde(default)]
    pub media_url: String,
    #[serde(default, with = "empty_is_none")]
    pub media_type: Option<MediaKind>,
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
    /// Where the background came from (`""` before visuals were chosen).
    #[serde(default, with = "empty_is_none")]
    pub broll_source: Option<BrollSource>,
    /// The still background's subject (`compositor::focus`): from `library.json` for library
    /// assets, detected when any other picture becomes the background; `None` for clips and
    /// procedural looks.
    #[serde(default)]
    pub background_subject: Option<Subject>,
    /// How the still background sits on its plate: placement (`build::placement`) picks it so
    /// the subject stays clear of the overlay, the captions and the narrator.
    #[serde(default)]
    pub background_fit: BackgroundFit,
}

/// How an idea or blog post became narration (recorded for `video_data` and support).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default, ToSchema)]
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

impl VideoDocument {
    /// A fingerprint of everything a render reads from the document (SHA-256 of its stored
    /// form; the document holds no maps, so the form is stable). A render records it, and
    /// `export_video` compares it to tell an edited document from the one rendered.
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let bytes = serde_json::to_vec(self).expect("a document serializes");
        hex::encode(Sha256::digest(bytes))
    }
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
    /// The music bed under the narration (`render::sound`). Left out when `auto`, so the
    /// fingerprint of a document made before music existed does not change.
    #[serde(default, skip_serializing_if = "Music::is_auto")]
    pub music: Music,
}

/// The music bed of a video: chosen from the video's tone, a library track by id, or none.
/// On the wire a string: `auto`, `none`, or a track id of `assets/music/music.json`
/// (`render::sound::library` checks the id; the document only carries it).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Music {
    /// A track picked from the script's mood (the default).
    #[default]
    Auto,
    /// Narration only.
    Off,
    /// A library track, by id.
    Track(String),
}

impl Music {
    pub const AUTO: &'static str = "auto";
    pub const NONE: &'static str = "none";

    pub(crate) fn is_auto(&self) -> bool {
        *self == Music::Auto
    }
}

impl From<String> for Music {
    fn from(s: String) -> Self {
        match s.as_str() {
            Music::AUTO => Music::Auto,
            Music::NONE => Music::Off,
            _ => Music::Track(s),
        }
    }
}

impl From<Music> for String {
    fn from(m: Music) -> Self {
        match m {
            Music::Auto => Music::AUTO.to_string(),
            Music::Off => Music::NONE.to_string(),
            Music::Track(id) => id,
        }
    }
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
pub(crate) fn file_version(path: &std::path::Path) -> Option<String> {
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    let nanos = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    Some(format!("{nanos:016x}"))
}

/// One coordinate space of the Scene record.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CoordinateSpace {
    pub width: u32,
    pub height: u32,
    /// `canvas_px` or `editor_preview_px`.
    pub unit: &'static str,
    /// The fields measured in this space.
    pub used_by: Vec<&'static str>,
}

/// Both coordinate spaces of the Scene record (not interchangeable).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CoordinateSpaces {
    /// The 720×1280 render canvas.
    pub remotion_canvas: CoordinateSpace,
    /// The 280×498 editor preview.
    pub editor_preview: CoordinateSpace,
    pub note: &'static str,
}

/// Both coordinate spaces of the Scene record (a fixed document).
pub(crate) fn coordinate_spaces() -> CoordinateSpaces {
    CoordinateSpaces {
        remotion_canvas: CoordinateSpace {
            width: 720,
            height: 1280,
            unit: "canvas_px",
            used_by: vec![
                "remotion_spec content",
                "remotion.group.rect (default)",
                "rect_canvas",
            ],
        },
        editor_preview: CoordinateSpace {
            width: 280,
            height: 498,
            unit: "editor_preview_px",
            used_by: vec![
                "overlay.narrator.*",
                "overlay.caption.*",
                "remotion.object.rect",
                "geometry boxes",
            ],
        },
        note: "Multiply preview coordinates by 720/280 (x) and 1280/498 (y) to get canvas coordinates.",
    }
}

/// Where a scene's overlay spec stands (`agent_meta.remotion_spec`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SpecRef {
    /// `{voice_file}_spec.json`.
    pub file: String,
    /// `""` unless `state` is `ready`.
    pub url: String,
    pub state: SpecState,
    pub exists: bool,
    /// `""` unless `state` is `ready`.
    pub version: String,
}

/// Which coordinate space each geometry field of the record uses.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FieldSpaces {
    #[serde(rename = "overlay.caption.rect")]
    pub caption_rect: &'static str,
    #[serde(rename = "overlay.narrator.rect")]
    pub narrator_rect: &'static str,
    pub remotion_spec: &'static str,
}

/// Metadata for agents: how to identify and order scenes, and where the overlay spec is.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct AgentMeta {
    /// Always `voice_file`.
    pub stable_scene_id_field: &'static str,
    pub stable_scene_id: String,
    /// Always `id`.
    pub order_field: &'static str,
    pub order_value: u32,
    pub scene_index: usize,
    pub remotion_spec: SpecRef,
    pub coordinate_spaces: FieldSpaces,
}

/// The caption container of the overlay.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CaptionOverlay {
    #[schema(value_type = RectOut)]
    pub rect: PreviewRect,
}

/// The narrator card of the overlay.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct NarratorOverlay {
    #[schema(value_type = RectOut)]
    pub rect: PreviewRect,
    /// The user moved or resized it.
    pub touched: bool,
    pub visible: bool,
}

/// The scene's overlay geometry, editor-preview space.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SceneOverlay {
    pub caption: CaptionOverlay,
    pub narrator: NarratorOverlay,
}

/// The spec's Scene record: one scene as `video_data` publishes it and `modify_scene` returns it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SceneRecord {
    /// Stable scene id; never changes.
    pub voice_file: String,
    /// Same as `voice_file`.
    pub scene_uid: String,
    /// Display order, 1-based, as a string.
    pub id: String,
    /// Display order, 1-based.
    pub order_id: u32,
    /// Display order, 0-based.
    pub scene_index: usize,
    #[serde(rename = "type")]
    pub roll: Roll,
    /// `""` when the scene has no scene type.
    #[serde(with = "empty_is_none")]
    #[schema(value_type = String)]
    pub scene_type: Option<SceneType>,
    pub text: String,
    pub talking_point: String,
    pub visual: String,
    pub quote: String,
    pub keyword: String,
    pub pattern: String,
    pub typography_only: bool,
    pub duration: f64,
    #[serde(rename = "mediaUrl")]
    pub media_url: String,
    /// `image` or `video`: the stored kind, else the background's (a generated background is
    /// a video).
    #[serde(rename = "mediaType", with = "empty_is_none")]
    #[schema(value_type = String)]
    pub media_type: Option<MediaKind>,
    #[serde(rename = "thumbnailUrl")]
    pub thumbnail_url: String,
    #[serde(rename = "videoTrim")]
    pub video_trim: Option<VideoTrim>,
    #[serde(rename = "brollUrl")]
    pub broll_url: String,
    #[serde(rename = "brollThumbnailUrl")]
    pub broll_thumbnail_url: String,
    pub user_asset_url: String,
    /// `""` before visuals were chosen.
    #[serde(with = "empty_is_none")]
    #[schema(value_type = String)]
    pub broll_source: Option<BrollSource>,
    pub audio_url: String,
    pub show_narrator: bool,
    pub active_roll: Roll,
    pub overlay: SceneOverlay,
    /// `{}` when the scene has no narrator.
    #[serde(serialize_with = "narrator_or_empty")]
    #[schema(value_type = NarratorInfo)]
    pub narrator: Option<NarratorInfo>,
    #[schema(value_type = Option<RectOut>)]
    pub narrator_face: Option<PreviewRect>,
    /// `""`, a version token, or `none` (overlay disabled).
    pub remotion_spec: String,
    pub remotion_spec_file: String,
    pub remotion_spec_url: String,
    pub remotion_spec_version: String,
    pub remotion_spec_exists: bool,
    pub remotion_spec_state: SpecState,
    pub agent_meta: AgentMeta,
    /// Diagnostics only.
    #[serde(flatten)]
    pub poster: PosterState,
    /// `modify_scene` only: word timings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub words: Option<Vec<TimedWord>>,
    /// `modify_scene` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_narrator_video: Option<bool>,
    /// The editor only: whether the narration says the scene's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub narration_state: Option<NarrationState>,
}

fn narrator_or_empty<S: Serializer>(v: &Option<NarratorInfo>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    match v {
        Some(n) => n.serialize(s),
        None => s.serialize_map(Some(0))?.end(),
    }
}

/// How scenes are identified (top level of the video-data file).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SceneIdentity {
    /// Always `voice_file`.
    pub stable_scene_id_field: &'static str,
    /// Always `id`.
    pub order_field: &'static str,
    pub notes: Vec<&'static str>,
}

/// The video's global settings (top level of the video-data file).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct GlobalSettings {
    /// Always `9:16`.
    #[serde(rename = "aspectRatio")]
    pub aspect_ratio: &'static str,
    /// `narrator` or `voice_only`.
    pub voice_type: &'static str,
    /// `narrator_card` or `none`.
    pub avatar_type: &'static str,
    pub last_voice_type: &'static str,
    pub last_avatar_type: &'static str,
}

/// The video-data file: the scene tree `video_data` publishes.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct VideoDataTree {
    /// Always `video_data`.
    pub object: &'static str,
    pub id: String,
    pub topic_id: String,
    /// Always `9:16`.
    pub aspect_ratio: &'static str,
    pub title: String,
    pub language: String,
    pub source: String,
    pub faceless: bool,
    pub voice_id: String,
    pub writer: Option<WriterInfo>,
    pub total_segments: usize,
    /// Seconds, rounded to 1/1000.
    pub total_duration: f64,
    pub scene_identity: SceneIdentity,
    pub coordinate_spaces: CoordinateSpaces,
    pub global_settings: GlobalSettings,
    pub segments: Vec<SceneRecord>,
    pub review_url: String,
    /// The id of the `video_data` call that published this file.
    pub request_id: String,
}

/// Default caption container: lower third, above the bottom dead zone.
pub const CAPTION_RECT: PreviewRect = PreviewRect::new(14.0, 300.0, 252.0, 60.0);

/// Default narrator rect for A-roll: centred card in the upper half.
pub const NARRATOR_RECT: PreviewRect = PreviewRect::new(70.0, 90.0, 140.0, 140.0);

/// The overlay spec file name of a scene.
pub fn spec_file_name(voice_file: &str) -> String {
    format!("{voice_file}_spec.json")
}

/// Where a scene's overlay spec (or its poster) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpecState {
    /// The file exists: fetch it.
    Ready,
    /// The user turned the scene's overlay off.
    Disabled,
    /// Not made (yet).
    Missing,
}

/// Where a spec's state stands, from the segment's token and whether the file exists.
pub fn spec_state(token: &str, exists: bool) -> SpecState {
    if token == SPEC_DISABLED {
        SpecState::Disabled
    } else if exists && !token.is_empty() {
        SpecState::Ready
    } else {
        SpecState::Missing
    }
}

impl Segment {
    /// Whether the scene shows its narrator (A-roll in a video that is not faceless).
    pub fn is_a_roll(&self) -> bool {
        self.roll == Roll::ARoll
    }

    /// The scene type's wire name, `""` when the scene has none (as the Scene record shows it).
    pub fn scene_type_name(&self) -> &'static str {
        name_or_empty(self.scene_type, SceneType::as_str)
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

    pub fn total_duration(&self) -> f64 {
        self.segments.iter().map(|s| s.duration).sum()
    }

    /// Scene `i` as the Scene record of `video_data` (no word timings).
    pub fn segment_public(&self, i: usize, view: &PublicView<'_>) -> SceneRecord {
        let s = &self.segments[i];
        let folder = self.public_folder();
        let spec_dir = view.public_root.join(&folder);
        let file = spec_file_name(&s.voice_file);
        let exists = spec_dir.join(&file).is_file();
        let state = spec_state(&s.remotion_spec, exists);
        let version = if state == SpecState::Ready {
            s.remotion_spec.clone()
        } else {
            String::new()
        };
        let url = if state == SpecState::Ready {
            format!("{}/{folder}/{file}?v={version}", view.origin_url)
        } else {
            String::new()
        };
        let show_narrator = s.is_a_roll();
        let spec = SpecRef {
            file: file.clone(),
            url: url.clone(),
            state,
            exists,
            version: version.clone(),
        };
        let mut record = SceneRecord {
            voice_file: s.voice_file.clone(),
            scene_uid: s.voice_file.clone(),
            id: s.id.to_string(),
            order_id: s.id,
            scene_index: i,
            roll: s.roll,
            scene_type: s.scene_type,
            text: s.text.clone(),
            talking_point: s.talking_point.clone(),
            visual: s.visual.clone(),
            quote: s.quote.clone(),
            keyword: s.keyword.clone(),
            pattern: s.pattern.clone(),
            typography_only: s.typography_only,
            duration: s.duration,
            media_url: s.media_url.clone(),
            media_type: Some(s.media_type.unwrap_or_else(|| s.background.media_kind())),
            thumbnail_url: s.thumbnail_url.clone(),
            video_trim: s.video_trim,
            broll_url: s.broll_url.clone(),
            broll_thumbnail_url: s.broll_thumbnail_url.clone(),
            user_asset_url: s.user_asset_url.clone(),
            broll_source: s.broll_source,
            audio_url: s.audio_url.clone(),
            show_narrator,
            active_roll: s.roll,
            overlay: SceneOverlay {
                caption: CaptionOverlay {
                    rect: s.caption_rect,
                },
                narrator: NarratorOverlay {
                    rect: s.narrator_rect,
                    touched: s.narrator_touched,
                    visible: show_narrator,
                },
            },
            narrator: (s.narrator != NarratorInfo::default()).then(|| s.narrator.clone()),
            narrator_face: s.narrator_face,
            remotion_spec: s.remotion_spec.clone(),
            remotion_spec_file: file,
            remotion_spec_url: url,
            remotion_spec_version: version,
            remotion_spec_exists: exists,
            remotion_spec_state: state,
            agent_meta: AgentMeta {
                stable_scene_id_field: "voice_file",
                stable_scene_id: s.voice_file.clone(),
                order_field: "id",
                order_value: s.id,
                scene_index: i,
                remotion_spec: spec,
                coordinate_spaces: FieldSpaces {
                    caption_rect: "editor_preview",
                    narrator_rect: "editor_preview",
                    remotion_spec: "remotion_canvas",
                },
            },
            poster: PosterState::default(),
            words: None,
            has_narrator_video: None,
            narration_state: None,
        };
        if view.include_diagnostics {
            record.poster = self.poster_state(s, state, view);
        }
        record
    }

    /// Diagnostics of scene `s`'s overlay poster, whose spec is in state `spec_state`.
    fn poster_state(
        &self,
        s: &Segment,
        spec_state: SpecState,
        view: &PublicView<'_>,
    ) -> PosterState {
        let poster_rel = format!("tmp/{}", self.poster_name(&s.voice_file));
        let pv = file_version(&view.public_root.join(&poster_rel));
        let (state, warnings) = if s.overlay_disabled() {
            (SpecState::Disabled, vec!["overlay_disabled"])
        } else if pv.is_some() {
            (SpecState::Ready, vec![])
        } else if spec_state == SpecState::Ready {
            (SpecState::Missing, vec!["poster_not_rendered_yet"])
        } else {
            (SpecState::Missing, vec!["no_overlay_spec"])
        };
        PosterState {
            remotion_poster_file: Some(format!("{}_poster.png", s.voice_file)),
            remotion_poster_url: Some(pv.as_ref().map_or(String::new(), |v| {
                format!("{}/{poster_rel}?v={v}", view.origin_url)
            })),
            remotion_poster_version: Some(pv.unwrap_or_default()),
            remotion_poster_state: Some(state),
            remotion_poster_exists: Some(state == SpecState::Ready),
            remotion_poster_warnings: Some(warnings.into_iter().map(String::from).collect()),
        }
    }

    /// The scene tree as `video_data` publishes it: every Scene-record field, the top level of
    /// the video-data file, agent metadata and coordinate spaces. Word timings, the full script
    /// and internal fields (file names on disk, seeds) are left out.
    pub fn to_public(&self, view: &PublicView<'_>, request_id: &str) -> VideoDataTree {
        let (voice_type, avatar_type) = if self.faceless {
            ("voice_only", "none")
        } else {
            ("narrator", "narrator_card")
        };
        VideoDataTree {
            object: "video_data",
            id: self.topic_id.clone(),
            topic_id: self.topic_id.clone(),
            aspect_ratio: "9:16",
            title: self.title.clone(),
            language: self.language.clone(),
            source: self.source.clone(),
            faceless: self.faceless,
            voice_id: self.voice_id.clone(),
            writer: self.writer.clone(),
            total_segments: self.segments.len(),
            total_duration: (self.total_duration() * 1000.0).round() / 1000.0,
            scene_identity: SceneIdentity {
                stable_scene_id_field: "voice_file",
                order_field: "id",
                notes: vec![
                    "voice_file (= scene_uid) never changes; select scenes by it.",
                    "id, order_id and scene_index are display order only and change on reorder, add and delete.",
                    "The overlay spec of a scene is {voice_file}_spec.json; fetch remotion_spec_url only when remotion_spec_state is ready.",
                ],
            },
            coordinate_spaces: coordinate_spaces(),
            global_settings: GlobalSettings {
                aspect_ratio: "9:16",
                voice_type,
                avatar_type,
                last_voice_type: voice_type,
                last_avatar_type: avatar_type,
            },
            segments: (0..self.segments.len())
                .map(|i| self.segment_public(i, view))
                .collect(),
            review_url: view.review_url.to_string(),
            request_id: request_id.to_string(),
        }
    }
}

/// A rect in the 280×498 editor preview, rounded to 1/1000 px.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct RectOut {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// The overlay poster's state: every field present with diagnostics, none
/// without (scene_geometry's `remotion_spec` and the Scene record flatten it).
#[derive(Debug, Clone, PartialEq, Default, Serialize, ToSchema)]
pub struct PosterState {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remotion_poster_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remotion_poster_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remotion_poster_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remotion_poster_state: Option<SpecState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remotion_poster_exists: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remotion_poster_warnings: Option<Vec<String>>,
}

/// `x` rounded to 1/1000: rects on the wire carry no float noise.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl<S> From<compositor::geom::Rect<S>> for RectOut {
    fn from(r: compositor::geom::Rect<S>) -> Self {
        RectOut {
            x: round3(r.x),
            y: round3(r.y),
            w: round3(r.w),
            h: round3(r.h),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A scene as documents stored before the enums existed spell it.
    fn stored_scene(scene_type: &str, media_type: &str, broll_source: &str) -> Value {
        json!({
            "voice_file": "vabc", "id": 1, "type": "A-roll", "text": "Hello world.",
            "scene_type": scene_type, "duration": 1.5,
            "words": [{"word": "Hello", "start": 0.0, "end": 0.4}],
            "background": {"kind": "procedural", "style": "grid", "seed": 7},
            "media_type": media_type, "broll_source": broll_source,
            "caption_rect": {"x": 14.0, "y": 300.0, "w": 252.0, "h": 60.0},
            "narrator_rect": {"x": 70.0, "y": 90.0, "w": 140.0, "h": 140.0},
        })
    }

    #[test]
    fn stored_scenes_read_back_with_the_same_wire_strings() {
        let stored = stored_scene("CALL TO ACTION", "video", "library");
        let seg: Segment = serde_json::from_value(stored.clone()).unwrap();
        assert_eq!(seg.roll, Roll::ARoll);
        assert_eq!(seg.scene_type, Some(SceneType::CallToAction));
        assert_eq!(seg.media_type, Some(MediaKind::Video));
        assert_eq!(seg.broll_source, Some(BrollSource::Library));
        assert_eq!(seg.words[0].word, "Hello");
        assert_eq!(seg.caption_rect, CAPTION_RECT);
        let again = serde_json::to_value(&seg).unwrap();
        for field in ["type", "scene_type", "media_type", "broll_source", "words"] {
            assert_eq!(again[field], stored[field], "{field}");
        }
        assert_eq!(again["caption_rect"], stored["caption_rect"]);
    }

    #[test]
    fn empty_strings_are_unset_values_and_stay_empty_on_the_wire() {
        let seg: Segment = serde_json::from_value(stored_scene("", "", "")).unwrap();
        assert_eq!(
            (seg.scene_type, seg.media_type, seg.broll_source),
            (None, None, None)
        );
        let again = serde_json::to_value(&seg).unwrap();
        assert_eq!(again["scene_type"], "");
        assert_eq!(again["media_type"], "");
        let doc = VideoDocument {
            topic_id: "t".into(),
            title: String::new(),
            language: "English".into(),
            faceless: false,
            script: String::new(),
            segments: vec![seg],
            voice_id: String::new(),
            public_key: String::new(),
            source: "text".into(),
            writer: None,
            music: Music::Auto,
        };
        let view = PublicView {
            review_url: "",
            origin_url: "http://o",
            public_root: std::path::Path::new("/nonexistent"),
            include_diagnostics: false,
        };
        let public = serde_json::to_value(doc.segment_public(0, &view)).unwrap();
        assert_eq!(public["scene_type"], "");
        // A scene on a generated background shows a video, never an unset kind.
        assert_eq!(public["mediaType"], "video");
        assert_eq!(public["broll_source"], "");
        assert_eq!(public["type"], "A-roll");
        assert_eq!(public["overlay"]["caption"]["rect"]["y"], 300.0);
    }

    /// A document with varied scenes, its public folder populated under `root`: scene 1 has a
    /// ready spec and a rendered poster, scene 2 a disabled overlay, scene 3 a token whose file
    /// is missing, scene 4 no overlay at all.
    fn varied_document(root: &std::path::Path, faceless: bool) -> VideoDocument {
        let base: Segment = serde_json::from_value(stored_scene("", "", "")).unwrap();
        let a_roll = Segment {
            voice_file: "v1".into(),
            id: 1,
            roll: Roll::ARoll,
            scene_type: Some(SceneType::Hook),
            media_url: "http://o/m/1.png".into(),
            media_type: Some(MediaKind::Image),
            thumbnail_url: "http://o/m/1_t.png".into(),
            user_asset_url: "http://o/u/1.png".into(),
            narrator: NarratorInfo {
                name: "Ava".into(),
                voice_id: "voice-1".into(),
                face_id: "face-1".into(),
                audio_url: "http://o/a.wav".into(),
                video_url: String::new(),
            },
            narrator_video: Some("n.mp4".into()),
            narrator_face: Some(PreviewRect::new(1.0, 2.0, 3.0, 4.0)),
            narrator_touched: true,
            remotion_spec: "00000000000000aa".into(),
            audio_url: "http://o/specs/t/v1.wav".into(),
            broll_source: Some(BrollSource::User),
            typography_only: true,
            ..base.clone()
        };
        let b_roll_video = Segment {
            voice_file: "v2".into(),
            id: 2,
            roll: Roll::BRoll,
            scene_type: Some(SceneType::CallToAction),
            text: "Second.".into(),
            visual: "a city".into(),
            quote: "q".into(),
            keyword: "k".into(),
            pattern: "p".into(),
            talking_point: "tp".into(),
            duration: 2.25,
            media_url: "http://o/m/2.mp4".into(),
            media_type: Some(MediaKind::Video),
            broll_url: "http://o/b/2.mp4".into(),
            broll_thumbnail_url: "http://o/b/2.jpg".into(),
            video_trim: Some(VideoTrim {
                start: 0.5,
                end: 2.75,
            }),
            remotion_spec: SPEC_DISABLED.into(),
            broll_source: Some(BrollSource::Pexels),
            ..base.clone()
        };
        let missing = Segment {
            voice_file: "v3".into(),
            id: 3,
            roll: Roll::BRoll,
            remotion_spec: "00000000000000bb".into(),
            ..base.clone()
        };
        let a_roll_bare = Segment {
            voice_file: "v4".into(),
            id: 4,
            roll: Roll::ARoll,
            duration: 0.3333,
            ..base
        };
        let doc = VideoDocument {
            topic_id: "t".into(),
            title: "Title".into(),
            language: "English".into(),
            faceless,
            script: "Hello world. Second.".into(),
            segments: vec![a_roll, b_roll_video, missing, a_roll_bare],
            voice_id: "voice-1".into(),
            public_key: "0123456789abcdef".into(),
            source: "idea".into(),
            writer: (!faceless).then(|| WriterInfo {
                provider: "openai".into(),
                model: "m".into(),
                research_enabled: true,
                content_type: 9,
                video_length: "short".into(),
            }),
            music: Music::Auto,
        };
        let spec_dir = root.join(doc.public_folder());
        std::fs::create_dir_all(&spec_dir).unwrap();
        std::fs::write(spec_dir.join(spec_file_name("v1")), "{}").unwrap();
        let poster = root.join("tmp").join(doc.poster_name("v1"));
        std::fs::create_dir_all(poster.parent().unwrap()).unwrap();
        std::fs::write(&poster, "png").unwrap();
        let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        std::fs::File::options()
            .write(true)
            .open(&poster)
            .unwrap()
            .set_modified(when)
            .unwrap();
        doc
    }

    /// The public trees of [`varied_document`], with and without diagnostics and faceless.
    fn varied_trees() -> Value {
        let dir = tempfile::tempdir().unwrap();
        let view = |diagnostics| PublicView {
            review_url: "http://o/review/t",
            origin_url: "http://o",
            public_root: dir.path(),
            include_diagnostics: diagnostics,
        };
        let doc = varied_document(dir.path(), false);
        let faceless = varied_document(dir.path(), true);
        serde_json::json!({
            "plain": serde_json::to_value(doc.to_public(&view(false), "req_t")).unwrap(),
            "diagnostics": serde_json::to_value(doc.to_public(&view(true), "req_t")).unwrap(),
            "faceless": serde_json::to_value(faceless.to_public(&view(true), "req_t")).unwrap(),
        })
    }

    /// The wire JSON of `video_data`'s tree is what the `json!`-built tree published
    /// (recorded in `testdata/public_tree.json` before the tree was typed).
    #[test]
    fn the_public_tree_matches_the_recorded_wire_json() {
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/src/testdata/public_tree.json");
        let trees = varied_trees();
        if std::env::var_os("RECORD_PUBLIC_TREE").is_some() {
            std::fs::write(fixture, serde_json::to_string_pretty(&trees).unwrap()).unwrap();
        }
        let recorded: Value =
            serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
        assert_eq!(trees, recorded);
    }

    #[test]
    fn media_is_sniffed_by_magic_bytes_not_by_name() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(MediaKind::sniff(png), Some((MediaKind::Image, "png")));
        assert_eq!(
            MediaKind::sniff(&[0xff, 0xd8, 0xff, 0xe0, 0, 0]),
            Some((MediaKind::Image, "jpg"))
        );
        assert_eq!(
            MediaKind::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some((MediaKind::Image, "webp"))
        );
        assert_eq!(
            MediaKind::sniff(b"\0\0\0\x18ftypisom\0\0"),
            Some((MediaKind::Video, "mp4"))
        );
        assert_eq!(
            MediaKind::sniff(b"\0\0\0\x14ftypqt  \0\0"),
            Some((MediaKind::Video, "mov"))
        );
        assert_eq!(
            MediaKind::sniff(&[0x1a, 0x45, 0xdf, 0xa3, 0x9f]),
            Some((MediaKind::Video, "webm"))
        );
        assert_eq!(MediaKind::sniff(b"<html>"), None);
        assert_eq!(MediaKind::sniff(b"RIFF\0\0\0\0WAVEfmt "), None);
    }

    #[test]
    fn unknown_wire_strings_are_refused_and_names_round_trip() {
        assert!(serde_json::from_value::<Segment>(stored_scene("TRIVIA", "", "")).is_err());
        assert!(serde_json::from_value::<Roll>(json!("C-roll")).is_err());
        for t in SceneType::ALL {
            assert_eq!(SceneType::parse(t.as_str()), Some(*t));
        }
        assert_eq!(SceneType::NAMES.len(), SceneType::ALL.len());
        assert_eq!(Roll::default(), Roll::BRoll);
        assert_eq!(MediaKind::Video.to_string(), "video");
    }
}
