//! `modify_scene`'s request: [`ModifySceneRequest`] (topic, scene selector, operation, fields),
//! read into a [`ModifyScene`] with every branch's value as a typed [`Edit`] (no document
//! needed), grouped into one [`Family`] per call. The `fields` are read by [`super::fields`];
//! applying the edits is [`super::apply`].
//!
//! Branches parsed here: A (background swap), C (object-layer rect), D (group rect),
//! E (narrator rect), F (caption Y), G (layout batch), H (voice upload, async), I (narrator video
//! upload, async), J (A/B-roll switch), K (segment text), L (metadata), N (disable overlay),
//! P (`video.music`, the video's music bed: a setting of the whole video);
//! B, M and O ([`OverlayField`]) are read by `overlay_request` into an [`OverlayEdit`] for
//! `overlay_edits::apply`.
//!
//! Coordinate spaces: narrator and caption rects are 280×498 preview; `remotion.object.rect`
//! defaults to preview, `remotion.group.rect` to canvas (720×1280); every conversion goes through
//! `compositor::geom` (`to_canvas`).

use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::edit::overlay_request::{OverlayEdit, OverlayField};
use crate::edit::scenes::fields::{self, SceneFields};
use crate::edit::scenes::select::{ById, ByText, ByVoiceFile, Selector, by_form, checked_topic_id};
use compositor::geom::CanvasRect;
use foundation::error::{Code, Error, Result};
use foundation::fields::Body;

pub use foundation::document::MediaKind;
use foundation::document::{Music, Roll, SceneType};

/// Longest `segment.text`, characters.
pub const MAX_TEXT_CHARS: usize = 2000;
/// Longest metadata string, characters.
pub(crate) const MAX_META_CHARS: usize = 1000;
/// Canvas rects must stay within this distance of the origin and below this size (the
/// compositor refuses objects placed absurdly far off-canvas).
pub(crate) const MAX_CANVAS_EXTENT: f64 = 4096.0;
/// Smallest narrator side, preview px.
pub(crate) const MIN_NARRATOR_SIDE: f64 = 10.0;

/// Narrator-rect components (branch E); `None` keeps the current value.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RectPatch {
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub w: Option<f64>,
    pub h: Option<f64>,
}

/// Branch J.
#[derive(Debug, Clone, PartialEq)]
pub enum RollChange {
    Set(Roll),
    Toggle,
}

/// Branch L's fields.
#[derive(Debug, Clone, PartialEq)]
pub enum Meta {
    SceneType(SceneType),
    Pattern(&'static str),
    Quote(String),
    Visual(String),
    Keyword(String),
    TalkingPoint(String),
    TypographyOnly(bool),
}

/// One parsed field.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// A: `mediaUrl` (+ optional `mediaType`).
    Background {
        url: String,
        kind: Option<MediaKind>,
    },
    /// C: canvas rect for an object or a `{group}.one_by_one` logical id.
    ObjectRect { layout_id: String, rect: CanvasRect },
    /// D: group frame, canvas space.
    GroupRect {
        id: String,
        rect: CanvasRect,
        scale_children: bool,
        wrapper_only: bool,
    },
    /// E.
    NarratorRect(RectPatch),
    /// F.
    CaptionY(f64),
    /// H (async).
    VoiceUpload { url: String },
    /// I (async).
    NarratorVideo { url: String },
    /// J.
    Roll(RollChange),
    /// K.
    Text(String),
    /// L.
    Meta(Meta),
    /// N.
    DisableOverlay,
    /// B, M, O: applied by `overlay_edits`.
    Overlay(OverlayEdit),
    /// P: the video's music bed (`video.music`: `auto`, `none` or a library track id). A
    /// video-wide setting: the selected scene only says which video.
    Music(Music),
}

/// The family of a call (one per call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Media,
    Layout,
    Voice,
    NarratorVideo,
    Roll,
    Text,
    Metadata,
    Disable,
    /// P: settings of the whole video.
    VideoSettings,
    /// B, M or O (each its own family).
    Overlay(OverlayField),
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Media => "background",
            Family::Layout => "layout",
            Family::Voice => "voice_upload",
            Family::NarratorVideo => "narrator_video",
            Family::Roll => "roll",
            Family::Text => "segment_text",
            Family::Metadata => "metadata",
            Family::Disable => "disable_overlay",
            Family::VideoSettings => "video_settings",
            Family::Overlay(f) => f.as_str(),
        }
    }
}

impl Edit {
    pub fn family(&self) -> Family {
        match self {
            Edit::Background { .. } => Family::Media,
            Edit::ObjectRect { .. }
            | Edit::GroupRect { .. }
            | Edit::NarratorRect(_)
            | Edit::CaptionY(_) => Family::Layout,
            Edit::VoiceUpload { .. } => Family::Voice,
            Edit::NarratorVideo { .. } => Family::NarratorVideo,
            Edit::Roll(_) => Family::Roll,
            Edit::Text(_) => Family::Text,
            Edit::Meta(_) => Family::Metadata,
            Edit::DisableOverlay => Family::Disable,
            Edit::Music(_) => Family::VideoSettings,
            Edit::Overlay(o) => Family::Overlay(o.field()),
        }
    }

    /// Whether the edit changes the overlay spec's geometry (refused when it is disabled).
    pub(crate) fn needs_spec(&self) -> bool {
        matches!(self, Edit::ObjectRect { .. } | Edit::GroupRect { .. })
    }
}

/// The media kind a URL's extension names.
pub(crate) fn kind_from_extension(url: &str) -> Option<MediaKind> {
    foundation::media_check::kind_of_url(url)
}

pub(super) fn bad(param: &str, message: impl Into<String>) -> Error {
    Error::new(Code::InvalidValue, message).param(param)
}

foundation::document::wire_enum! {
    /// `modify_scene`'s only operation.
    #[derive(Default)]
    pub enum EditOp: Code::InvalidField {
        /// Set each field to its value.
        #[default]
        Set = "set",
    }
}

/// The parsed `fields`: edits of one family.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldEdits {
    pub family: Family,
    pub edits: Vec<Edit>,
}

/// `POST /v1/modify_scene`'s body: the video (`id`, or its alias `topic_id`), the scene (`by`
/// with `value`, `min_score` with `by: text`), and one family of field edits. One form per `by`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ModifySceneRequest {
    ByVoiceFile(ModifySceneByVoiceFile),
    ById(ModifySceneById),
    ByText(ModifySceneByText),
}

/// The scene named by `by: voice_file`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ModifySceneByVoiceFile {
    #[serde(flatten)]
    pub edit: SceneEdit,
    #[serde(flatten)]
    pub scene: ByVoiceFile,
}

/// The scene named by `by: id`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ModifySceneById {
    #[serde(flatten)]
    pub edit: SceneEdit,
    #[serde(flatten)]
    pub scene: ById,
}

/// The scene named by `by: text`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ModifySceneByText {
    #[serde(flatten)]
    pub edit: SceneEdit,
    #[serde(flatten)]
    pub scene: ByText,
}

/// What every form of [`ModifySceneRequest`] carries besides the scene.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct SceneEdit {
    /// Topic id of the video (`topic_id` is accepted as an alias).
    #[schema(example = "wc1a2b3c4d5e6f", pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub id: String,
    pub op: Option<EditOp>,
    /// One family of field edits per call, each `{field_name, value}`.
    #[schema(value_type = SceneFields)]
    pub fields: Value,
}

/// A modify_scene call, read and checked: every field's value parsed, no document needed.
#[derive(Debug, Clone, PartialEq)]
pub struct ModifyScene {
    pub id: String,
    pub selector: Selector,
    pub op: EditOp,
    /// One family of fields per call.
    pub fields: FieldEdits,
}

impl Body for ModifySceneRequest {
    type Valid = ModifyScene;
    const CODES: &'static [(&'static str, Code)] = &[
        ("id", Code::InvalidId),
        ("by", Code::InvalidBy),
        ("value", Code::InvalidValue),
        ("min_score", Code::InvalidValue),
    ];
    const ALIASES: &'static [(&'static str, &'static str)] = &[("topic_id", "id")];

    fn form(sent: &Map<String, Value>) -> Result<Option<&'static str>> {
        by_form(sent).map(Some)
    }

    fn validate(self) -> Result<ModifyScene> {
        let (edit, selector) = match self {
            ModifySceneRequest::ByVoiceFile(f) => (f.edit, f.scene.selector()),
            ModifySceneRequest::ById(f) => (f.edit, f.scene.selector()),
            ModifySceneRequest::ByText(f) => (f.edit, f.scene.selector()),
        };
        Ok(ModifyScene {
            id: checked_topic_id(&edit.id)?,
            selector: selector?,
            op: edit.op.unwrap_or_default(),
            fields: fields::read(&edit.fields)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;
    use serde_json::json;

    #[test]
    fn media_kinds() {
        assert_eq!(
            kind_from_extension("https://x.example/a.JPG?x=1"),
            Some(MediaKind::Image)
        );
        assert_eq!(
            kind_from_extension("https://x.example/clip.mp4"),
            Some(MediaKind::Video)
        );
        assert_eq!(kind_from_extension("https://x.example/page"), None);
    }

    #[test]
    fn the_envelope_reads_selector_op_and_fields_in_order() {
        let ok = body::read::<ModifySceneRequest>(&json!({
            "id": "wcABCDEFGH", "by": "voice_file", "value": "v1",
            "fields": [{"field_name": "overlay.caption.y", "value": 200}],
        }))
        .unwrap();
        assert_eq!(ok.selector, Selector::VoiceFile("v1".into()));
        assert_eq!(ok.op, EditOp::Set);
        assert_eq!(ok.fields.edits, vec![Edit::CaptionY(200.0)]);
        let err = |body: Value| {
            let e = body::read::<ModifySceneRequest>(&body).unwrap_err();
            (e.code, e.param.unwrap_or_default())
        };
        let f = json!([{"field_name": "quote", "value": "q"}]);
        assert_eq!(
            err(json!({"by": "id", "value": 1, "fields": f})),
            (Code::MissingField, "id".into())
        );
        assert_eq!(
            err(json!({"id": "wcABCDEFGH", "value": 1, "fields": f})),
            (Code::MissingField, "by".into())
        );
        assert_eq!(
            err(json!({"id": "wcABCDEFGH", "by": "id", "value": 1, "op": "add", "fields": f})),
            (Code::InvalidField, "op".into())
        );
        assert_eq!(
            err(json!({"id": "wcABCDEFGH", "by": "id", "value": 1})),
            (Code::MissingField, "fields".into())
        );
        assert_eq!(
            body::read::<ModifySceneRequest>(&json!([1]))
                .unwrap_err()
                .code,
            Code::InvalidJson
        );
        // A bad overlay value is refused with the request, before any video or scene is read.
        let bad_element =
            json!([{"field_name": "remotion.add_element", "value": {"kind": "video"}}]);
        assert_eq!(
            err(json!({"id": "wcABCDEFGH", "by": "id", "value": 1, "fields": bad_element})),
            (Code::InvalidValue, "fields[].value".into())
        );
    }
}
