//! `modify_scene`'s request: [`ModifySceneRequest`] (topic, scene selector, operation, fields)
//! and every branch's value parsed into a typed [`Edit`] with its per-field validation (no
//! document needed), grouped into one [`Family`] per call. Applying them is [`super::apply`].
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

use compositor::geom::{CanvasRect, PreviewRect as GeomPreviewRect};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;
use utoipa::{PartialSchema, ToSchema};

use crate::edit::overlay_request::{
    IMAGE_KIND, MAX_ELEMENT_TEXT, MAX_LINES, OverlayEdit, OverlayField, Position, RectSpace,
    TextKind,
};
use crate::edit::scenes::select::{ById, ByText, ByVoiceFile, Selector, by_form, checked_topic_id};
use foundation::error::{Code, Error, Result};
use foundation::fields::Body;
use foundation::schema::{self, Components};

pub use foundation::document::MediaKind;
use foundation::document::{Music, Roll, SceneType};
/// The metadata branch validates against the same lists scene building writes.
pub use video::build::PATTERNS;
use video::render::{music_schema, read_music};

/// Aliases of branch N.
pub(crate) const DISABLE_FIELDS: &[&str] = &[
    "disable_overlay",
    "remotion.disable_overlay",
    "overlay.disable",
    "remotion_spec.none",
];

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

pub(super) fn bad(param: &str, message: impl Into<String>) -> Error {
    Error::new(Code::InvalidValue, message).param(param)
}

fn num(v: &Value, param: &str) -> Result<f64> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(bad(param, format!("`{param}` must be a finite number."))),
    }
}

fn string(v: &Value, param: &str, max: usize) -> Result<String> {
    match v {
        Value::String(s) if s.chars().count() <= max => Ok(s.trim().to_string()),
        Value::String(_) => Err(bad(
            param,
            format!("`{param}` is longer than {max} characters."),
        )),
        _ => Err(bad(param, format!("`{param}` must be a string."))),
    }
}

fn boolean(v: &Value, param: &str) -> Result<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Ok(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(bad(param, format!("`{param}` must be true or false."))),
    }
}

/// `{x,y,w,h}` directly or under `rect`.
fn rect4(v: &Value, param: &str) -> Result<(f64, f64, f64, f64)> {
    let o = v
        .get("rect")
        .filter(|r| r.is_object())
        .unwrap_or(v)
        .as_object()
        .ok_or_else(|| {
            bad(
                param,
                format!("`{param}` must be an object with x, y, w, h."),
            )
        })?;
    let get = |k: &str| {
        o.get(k)
            .ok_or_else(|| bad(param, format!("`{param}.{k}` is required.")))
            .and_then(|x| num(x, &format!("{param}.{k}")))
    };
    let (x, y, w, h) = (get("x")?, get("y")?, get("w")?, get("h")?);
    if w <= 0.0 || h <= 0.0 {
        return Err(bad(param, format!("`{param}` needs a positive w and h.")));
    }
    Ok((x, y, w, h))
}

/// Whether `coordinate_space` says preview (`default_preview` when absent).
fn is_preview_space(v: &Value, param: &str, default_preview: bool) -> Result<bool> {
    match v.get("coordinate_space") {
        None | Some(Value::Null) => Ok(default_preview),
        Some(Value::String(s)) => match s.to_ascii_lowercase().as_str() {
            "preview" | "editor_preview" | "editor_preview_px" | "280x498" => Ok(true),
            "canvas" | "remotion_canvas" | "720x1280" => Ok(false),
            _ => Err(bad(
                &format!("{param}.coordinate_space"),
                "`coordinate_space` must be `preview` or `canvas`.",
            )),
        },
        Some(_) => Err(bad(
            &format!("{param}.coordinate_space"),
            "`coordinate_space` must be `preview` or `canvas`.",
        )),
    }
}

fn canvas_rect(v: &Value, param: &str, default_preview: bool) -> Result<CanvasRect> {
    let (x, y, w, h) = rect4(v, param)?;
    let rect = if is_preview_space(v, param, default_preview)? {
        GeomPreviewRect::new(x, y, w, h).to_canvas()
    } else {
        CanvasRect::new(x, y, w, h)
    };
    let m = MAX_CANVAS_EXTENT;
    if rect.w > m || rect.h > m || rect.x.abs() > m || rect.y.abs() > m {
        return Err(bad(
            param,
            format!("`{param}` is too large or too far off-canvas (limit {m} canvas px)."),
        ));
    }
    Ok(rect)
}

fn url_value(v: &Value, param: &str) -> Result<String> {
    let s = match v {
        Value::String(s) => s.trim(),
        Value::Object(o) => o.get("url").and_then(Value::as_str).unwrap_or("").trim(),
        _ => "",
    };
    let ok = url::Url::parse(s)
        .ok()
        .is_some_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
    if !ok {
        return Err(bad(param, format!("`{param}` must be an http(s) URL.")));
    }
    Ok(s.to_string())
}

/// The media kind a URL's extension names.
pub(crate) fn kind_from_extension(url: &str) -> Option<MediaKind> {
    foundation::media_check::kind_of_url(url)
}

fn media_kind(v: &Value, param: &str) -> Result<MediaKind> {
    match v.as_str().map(str::to_ascii_lowercase).as_deref() {
        Some("image") => Ok(MediaKind::Image),
        Some("video") => Ok(MediaKind::Video),
        _ => Err(bad(param, "`mediaType` must be `image` or `video`.")),
    }
}

fn scene_type(v: &Value, param: &str) -> Result<SceneType> {
    let s = v.as_str().unwrap_or("").trim().to_ascii_uppercase();
    let s = s.replace(['_', '-'], " ");
    SceneType::parse(&s).ok_or_else(|| {
        bad(
            param,
            format!("`type` must be one of {}.", SceneType::NAMES.join(", ")),
        )
    })
}

fn pattern(v: &Value, param: &str) -> Result<&'static str> {
    let s = v
        .as_str()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
        .replace([' ', '-'], "_");
    PATTERNS.iter().copied().find(|p| *p == s).ok_or_else(|| {
        bad(
            param,
            format!("`pattern` must be one of {}.", PATTERNS.join(", ")),
        )
        .details(json!({ "allowed": PATTERNS }))
    })
}

fn roll_name(v: &Value, param: &str) -> Result<Roll> {
    let s = v
        .as_str()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
        .replace(['_', ' '], "-");
    match s.as_str() {
        "a-roll" | "a" | "aroll" | "narrator" => Ok(Roll::ARoll),
        "b-roll" | "b" | "broll" | "background" => Ok(Roll::BRoll),
        _ => Err(bad(param, "The roll must be `A-roll` or `B-roll`.")),
    }
}

fn unknown_field(name: &str) -> Error {
    Error::new(
        Code::InvalidFieldName,
        format!("`{name}` is not a field modify_scene can change."),
    )
    .param("fields")
    .details(json!({ "field_name": name }))
}

/// Parses one `{field_name, value}`. `param` names the value in errors (`fields[0].value`).
/// `layout.batch` expands to several edits.
pub(crate) fn parse_field(name: &str, value: &Value, param: &str) -> Result<Vec<Edit>> {
    let one = |e: Edit| Ok(vec![e]);
    if let Some(field) = OverlayField::parse(name) {
        return one(Edit::Overlay(OverlayEdit::parse(field, value)?));
    }
    if DISABLE_FIELDS.contains(&name) {
        return one(disable(value, param)?);
    }
    match name {
        "mediaUrl" | "media_url" => one(Edit::Background {
            url: url_value(value, param)?,
            kind: None,
        }),
        // Only meaningful beside mediaUrl; merged by `parse_fields`.
        "mediaType" | "media_type" => one(Edit::Background {
            url: String::new(),
            kind: Some(media_kind(value, param)?),
        }),
        "remotion.object.rect" => one(object_rect(value, param)?),
        "remotion.group.rect" => one(group_rect(value, param)?),
        "overlay.narrator.rect" => {
            let (x, y, w, h) = rect4(value, param)?;
            one(Edit::NarratorRect(RectPatch {
                x: Some(x),
                y: Some(y),
                w: Some(w),
                h: Some(h),
            }))
        }
        "overlay.narrator.x" | "overlay.narrator.y" | "overlay.narrator.w"
        | "overlay.narrator.h" => one(narrator_side(name, value, param)?),
        "overlay.caption.y" => one(Edit::CaptionY(num(value.get("y").unwrap_or(value), param)?)),
        "overlay.caption.x"
        | "overlay.caption.w"
        | "overlay.caption.h"
        | "overlay.caption.rect" => Err(Error::new(
            Code::InvalidFieldName,
            "Only `overlay.caption.y` of the caption can be changed.",
        )
        .param("fields")),
        "layout.batch" => layout_batch(value, param),
        "voice.upload" => one(Edit::VoiceUpload {
            url: url_value(value, param)?,
        }),
        "narrator.upload_video" => one(Edit::NarratorVideo {
            url: url_value(value, param)?,
        }),
        "roll.active" => one(Edit::Roll(RollChange::Set(roll_name(value, param)?))),
        "roll.switch" => match value {
            Value::Bool(true) | Value::Null => one(Edit::Roll(RollChange::Toggle)),
            Value::String(s) if s.eq_ignore_ascii_case("toggle") => {
                one(Edit::Roll(RollChange::Toggle))
            }
            v => one(Edit::Roll(RollChange::Set(roll_name(v, param)?))),
        },
        "video.music" => match value {
            Value::String(s) => one(Edit::Music(read_music(s, param)?)),
            _ => Err(Error::new(
                Code::InvalidMusic,
                "`video.music` must be `auto`, `none` or a track id.",
            )
            .param(param)),
        },
        "segment.text" | "text" => {
            let t = string(value, param, MAX_TEXT_CHARS)?;
            if t.split_whitespace().next().is_none() {
                return Err(bad(param, "`segment.text` must contain words."));
            }
            one(Edit::Text(t))
        }
        _ => one(Edit::Meta(meta(name, value, param)?)),
    }
}

/// Branch N: any "on" value; "off" is refused (re-enabling is an upload).
/// The words N takes as "disable" (any case), beside `true`, `null` and `1`.
const DISABLE_WORDS: &[&str] = &["true", "none", "disable", "disabled", "yes", ""];

fn disable(value: &Value, param: &str) -> Result<Edit> {
    let on = match value {
        Value::Bool(b) => *b,
        Value::Null => true,
        Value::String(s) => DISABLE_WORDS.contains(&s.to_ascii_lowercase().as_str()),
        Value::Number(n) => n.as_f64() == Some(1.0),
        _ => false,
    };
    if !on {
        return Err(bad(
            param,
            "To re-enable an overlay, upload one with `remotion.upload_overlay`.",
        ));
    }
    Ok(Edit::DisableOverlay)
}

/// Branch C: `layout_id` and a rect, preview space by default.
fn object_rect(value: &Value, param: &str) -> Result<Edit> {
    let layout_id = value
        .get("layout_id")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            bad(
                &format!("{param}.layout_id"),
                "`layout_id` names the object to move.",
            )
        })?;
    Ok(Edit::ObjectRect {
        layout_id: layout_id.to_string(),
        rect: canvas_rect(value, param, true)?,
    })
}

/// Branch D: the group `id` (or `group_id`) and a rect, canvas space by default.
fn group_rect(value: &Value, param: &str) -> Result<Edit> {
    let id = value
        .get("id")
        .or_else(|| value.get("group_id"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| bad(&format!("{param}.id"), "`id` names the group to move."))?;
    let flag = |k: &str, d: bool| match value.get(k) {
        None | Some(Value::Null) => Ok(d),
        Some(v) => boolean(v, &format!("{param}.{k}")),
    };
    let wrapper_only = flag("wrapper_only", false)?;
    Ok(Edit::GroupRect {
        id: id.to_string(),
        rect: canvas_rect(value, param, false)?,
        scale_children: flag("scale_children", true)?,
        wrapper_only,
    })
}

/// Branch E, one side: `overlay.narrator.{x,y,w,h}`.
fn narrator_side(name: &str, value: &Value, param: &str) -> Result<Edit> {
    let v = num(value.get("value").unwrap_or(value), param)?;
    let mut p = RectPatch::default();
    match &name[name.len() - 1..] {
        "x" => p.x = Some(v),
        "y" => p.y = Some(v),
        "w" => p.w = Some(v),
        _ => p.h = Some(v),
    }
    Ok(Edit::NarratorRect(p))
}

/// Branch G: a list of `{field_name, value}` (or an object of them), layout fields only.
fn layout_batch(value: &Value, param: &str) -> Result<Vec<Edit>> {
    let children: Vec<(String, Value)> = match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                let n = it
                    .get("field_name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        bad(
                            &format!("{param}[{i}].field_name"),
                            "Each batch item needs `field_name` and `value`.",
                        )
                    })?;
                Ok((
                    n.to_string(),
                    it.get("value").cloned().unwrap_or(Value::Null),
                ))
            })
            .collect::<Result<_>>()?,
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => {
            return Err(bad(
                param,
                "`layout.batch` takes a list of `{field_name, value}`.",
            ));
        }
    };
    if children.is_empty() {
        return Err(bad(param, "`layout.batch` is empty."));
    }
    let mut out = Vec::new();
    for (i, (n, v)) in children.iter().enumerate() {
        let edits = parse_field(n, v, &format!("{param}[{i}].value"))?;
        if n == "layout.batch" || edits.iter().any(|e| e.family() != Family::Layout) {
            return Err(Error::new(
                Code::MixedFieldFamilies,
                format!(
                    "`layout.batch` takes layout fields only (overlay.narrator.*, overlay.caption.y, remotion.object.rect, remotion.group.rect), not `{n}`."
                ),
            )
            .param("fields"));
        }
        out.extend(edits);
    }
    Ok(out)
}

/// Branch L; any other name is not a field modify_scene can change.
fn meta(name: &str, value: &Value, param: &str) -> Result<Meta> {
    let text = |max| string(value, param, max);
    Ok(match name {
        "type" | "scene_type" => Meta::SceneType(scene_type(value, param)?),
        "pattern" => Meta::Pattern(pattern(value, param)?),
        "quote" => Meta::Quote(text(MAX_META_CHARS)?),
        "visual" => Meta::Visual(text(MAX_META_CHARS)?),
        "keyword" => Meta::Keyword(text(MAX_META_CHARS)?),
        "talking_point" => Meta::TalkingPoint(text(MAX_META_CHARS)?),
        "typography_only" => Meta::TypographyOnly(boolean(value, param)?),
        _ => return Err(unknown_field(name)),
    })
}

/// Parses the envelope's `fields` into edits of one family. Checks everything that does not
/// need the document: names, value shapes, one family per call, N alone, `mediaType` beside
/// `mediaUrl`.
pub(crate) fn parse_fields(fields: Option<&Value>) -> Result<FieldEdits> {
    let items = match fields {
        None | Some(Value::Null) => return Err(Error::missing("fields")),
        Some(Value::Array(a)) if a.is_empty() => {
            return Err(Error::new(
                Code::MissingField,
                "`fields` must list at least one `{field_name, value}`.",
            )
            .param("fields"));
        }
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(Error::new(
                Code::InvalidField,
                "`fields` must be an array of `{field_name, value}`.",
            )
            .param("fields"));
        }
    };
    let mut edits = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let name = match it.get("field_name") {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim(),
            _ => {
                return Err(Error::new(
                    Code::MissingField,
                    format!("`fields[{i}].field_name` is required."),
                )
                .param(format!("fields[{i}].field_name")));
            }
        };
        let value = it.get("value").unwrap_or(&Value::Null);
        edits.extend(parse_field(name, value, &format!("fields[{i}].value"))?);
    }
    let family = edits[0].family();
    let edits = one_family(family, items.len(), edits)?;
    Ok(FieldEdits { family, edits })
}

/// Checks that `edits` (from `sent` items) form one family as the branch needs: N alone, one
/// upload, text or roll per call, `mediaType` beside `mediaUrl` (merged into one edit).
fn one_family(family: Family, sent: usize, mut edits: Vec<Edit>) -> Result<Vec<Edit>> {
    // One family per call.
    if let Some(other) = edits.iter().find(|e| e.family() != family) {
        return Err(Error::new(
            Code::MixedFieldFamilies,
            format!(
                "One call changes one family of fields; `{}` and `{}` must be sent separately.",
                family.as_str(),
                other.family().as_str()
            ),
        )
        .param("fields"));
    }
    match family {
        Family::Disable if sent > 1 => {
            return Err(Error::new(
                Code::MixedFieldFamilies,
                "`disable_overlay` must be sent alone.",
            )
            .param("fields"));
        }
        Family::Media => {
            let url = edits.iter().find_map(|e| match e {
                Edit::Background { url, .. } if !url.is_empty() => Some(url.clone()),
                _ => None,
            });
            let kind = edits.iter().find_map(|e| match e {
                Edit::Background { kind, .. } => *kind,
                _ => None,
            });
            let Some(url) = url else {
                return Err(Error::new(
                    Code::MissingField,
                    "`mediaUrl` is required to swap the background.",
                )
                .param("fields"));
            };
            edits = vec![Edit::Background { url, kind }];
        }
        Family::Voice | Family::NarratorVideo | Family::Text | Family::Roll if edits.len() > 1 => {
            return Err(Error::new(
                Code::InvalidFieldName,
                format!("`{}` is sent once per call.", family.as_str()),
            )
            .param("fields"));
        }
        _ => {}
    }
    Ok(edits)
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
    #[schema(value_type = ModifySceneFields)]
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
            fields: parse_fields(Some(&edit.fields))?,
        })
    }
}

/// Largest rect coordinate or side in a schema-valid `remotion.*.rect`: within
/// [`MAX_CANVAS_EXTENT`] in either coordinate space (preview px scale up about 2.57×).
const SCHEMA_RECT_LIMIT: f64 = 1500.0;

/// One family of fields as the schema says it: the family, its fields (names and the value's
/// schema), whether it is sent once per call, and the names one of its items must have.
struct FamilySchema {
    family: Family,
    fields: Vec<(Vec<&'static str>, Value)>,
    once: bool,
    needs: Option<&'static [&'static str]>,
}

/// An http(s) URL with a dotted host name (a subset of what [`url_value`] accepts: the fetch
/// guard refuses single-label names such as `http://intranet` as local or internal).
fn url_schema() -> Value {
    json!({
        "type": "string",
        "format": "uri",
        "pattern": "^https?://[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*)*\\.[a-z]{2,}(/[A-Za-z0-9._~-]*)*$",
    })
}

fn nonblank_schema() -> Value {
    json!({ "type": "string", "pattern": "\\S" })
}

/// [`rect4`]'s value: `x, y, w, h` (w and h positive) at the top (the component `{name}Flat`) or
/// under `rect` (`{name}Boxed`), within `limit` when given; `extra` are the branch's other
/// properties, `required` its required ones.
fn rect_schema(
    c: &mut Components,
    name: &str,
    limit: Option<f64>,
    extra: Value,
    required: &[&str],
) -> Value {
    let side = |pos: bool| {
        let mut s = json!({ "type": "number" });
        if pos {
            s["exclusiveMinimum"] = json!(0);
        }
        if let Some(m) = limit {
            s["maximum"] = json!(m);
            if !pos {
                s["minimum"] = json!(-m);
            }
        }
        s
    };
    let coords = json!({ "x": side(false), "y": side(false), "w": side(true), "h": side(true) });
    let xywh = ["x", "y", "w", "h"];
    let mut flat = coords.as_object().cloned().unwrap_or_default();
    let mut nested = serde_json::Map::new();
    nested.insert(
        "rect".into(),
        json!({ "type": "object", "required": xywh, "properties": coords }),
    );
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        flat.insert(k.clone(), v.clone());
        nested.insert(k, v);
    }
    let flat_required: Vec<&str> = xywh.iter().chain(required).copied().collect();
    let nested_required: Vec<&str> = ["rect"].iter().chain(required).copied().collect();
    let flat = json!({ "type": "object", "required": flat_required, "properties": flat,
        "not": { "required": ["rect"] } });
    let nested = json!({ "type": "object", "required": nested_required, "properties": nested });
    json!({ "oneOf": [
        c.named(&format!("{name}Flat"), flat),
        c.named(&format!("{name}Boxed"), nested),
    ]})
}

/// `coordinate_space`, as [`is_preview_space`] reads it.
fn coordinate_space_schema() -> Value {
    json!({ "enum": [null, "preview", "editor_preview", "editor_preview_px", "280x498",
        "canvas", "remotion_canvas", "720x1280"] })
}

/// Names [`roll_name`] accepts.
const ROLL_NAMES: &[&str] = &[
    "A-roll",
    "B-roll",
    "a-roll",
    "b-roll",
    "a",
    "b",
    "A",
    "B",
    "aroll",
    "broll",
    "narrator",
    "background",
];

/// Values [`parse_field`] accepts for `roll.switch`: a toggle or a roll name.
fn roll_switch_values() -> Vec<Value> {
    let toggles = [json!(true), Value::Null, json!("toggle"), json!("TOGGLE")];
    toggles
        .into_iter()
        .chain(ROLL_NAMES.iter().map(|n| json!(n)))
        .collect()
}

/// The layout fields (family G's children), each with its value's schema.
fn layout_fields(c: &mut Components) -> Vec<(Vec<&'static str>, Value)> {
    let num = json!({ "type": "number" });
    vec![
        (
            vec!["remotion.object.rect"],
            rect_schema(
                c,
                "ObjectRect",
                Some(SCHEMA_RECT_LIMIT),
                json!({ "layout_id": nonblank_schema(), "coordinate_space": coordinate_space_schema() }),
                &["layout_id"],
            ),
        ),
        (
            vec!["remotion.group.rect"],
            rect_schema(
                c,
                "GroupRect",
                Some(SCHEMA_RECT_LIMIT),
                json!({
                    "id": nonblank_schema(),
                    "coordinate_space": coordinate_space_schema(),
                    "scale_children": { "type": ["boolean", "null"] },
                    "wrapper_only": { "type": ["boolean", "null"] },
                }),
                &["id"],
            ),
        ),
        (
            vec!["overlay.narrator.rect"],
            rect_schema(c, "NarratorRect", None, json!({}), &[]),
        ),
        (
            vec![
                "overlay.narrator.x",
                "overlay.narrator.y",
                "overlay.narrator.w",
                "overlay.narrator.h",
            ],
            num.clone(),
        ),
        (vec!["overlay.caption.y"], num),
    ]
}

/// One `{field_name, value}` item whose name is one of `names`: the component named after the
/// first (`segment.text` → `SegmentTextField`).
fn item_schema(c: &mut Components, names: &[&str], value: Value) -> Value {
    let item = json!({
        "type": "object",
        "required": ["field_name", "value"],
        "properties": { "field_name": { "type": "string", "enum": names }, "value": value },
    });
    c.named(&format!("{}Field", schema::title(names[0])), item)
}

/// Family G: the layout fields, and `layout.batch` of them (a list of items, or one object
/// keyed by field name).
fn layout_family(c: &mut Components) -> Vec<(Vec<&'static str>, Value)> {
    let mut layout = layout_fields(c);
    let batch_items: Vec<Value> = layout
        .iter()
        .map(|(names, value)| item_schema(c, names, value.clone()))
        .collect();
    let mut batch_object = serde_json::Map::new();
    for (names, value) in &layout {
        for n in names {
            batch_object.insert(n.to_string(), value.clone());
        }
    }
    let batch_object = c.named(
        "LayoutBatchObject",
        json!({ "type": "object", "minProperties": 1, "additionalProperties": false,
            "properties": batch_object }),
    );
    layout.push((
        vec!["layout.batch"],
        json!({ "oneOf": [
            { "type": "array", "minItems": 1, "items": { "oneOf": batch_items } },
            batch_object,
        ]}),
    ));
    layout
}

/// Values [`parse_field`] accepts for N (`disable_overlay` and its aliases).
fn disable_values() -> Vec<Value> {
    [json!(true), Value::Null, json!(1)]
        .into_iter()
        .chain(DISABLE_WORDS.iter().map(|w| json!(w)))
        .collect()
}

/// Every family [`parse_fields`] accepts, with each field's value schema: the one place the
/// schema's rules live (see [`parse_field`] for the parsing they describe).
fn field_families(c: &mut Components) -> Vec<FamilySchema> {
    let family = |family, fields, once| FamilySchema {
        family,
        fields,
        once,
        needs: None,
    };
    let layout_family = layout_family(c);
    let meta_text = json!({ "type": "string", "maxLength": MAX_META_CHARS });
    let mut families = vec![
        FamilySchema {
            family: Family::Media,
            fields: vec![
                (vec!["mediaUrl", "media_url"], url_schema()),
                (
                    vec!["mediaType", "media_type"],
                    json!({ "type": "string", "enum": ["image", "video"] }),
                ),
            ],
            once: false,
            needs: Some(&["mediaUrl", "media_url"]),
        },
        family(Family::Layout, layout_family, false),
        family(
            Family::Voice,
            vec![(vec!["voice.upload"], url_schema())],
            true,
        ),
        family(
            Family::NarratorVideo,
            vec![(vec!["narrator.upload_video"], url_schema())],
            true,
        ),
        family(
            Family::Roll,
            vec![
                (
                    vec!["roll.active"],
                    json!({ "type": "string", "enum": ROLL_NAMES }),
                ),
                (
                    vec!["roll.switch"],
                    schema::any_of_values(&roll_switch_values()),
                ),
            ],
            true,
        ),
        family(
            Family::Text,
            vec![(
                vec!["segment.text", "text"],
                json!({ "type": "string", "maxLength": MAX_TEXT_CHARS, "pattern": "\\S" }),
            )],
            true,
        ),
        family(
            Family::Metadata,
            vec![
                (
                    vec!["type", "scene_type"],
                    json!({ "type": "string", "enum": SceneType::NAMES }),
                ),
                (
                    vec!["pattern"],
                    json!({ "type": "string", "enum": PATTERNS }),
                ),
                (
                    vec!["quote", "visual", "keyword", "talking_point"],
                    meta_text,
                ),
                (vec!["typography_only"], json!({ "type": "boolean" })),
            ],
            false,
        ),
        family(
            Family::Disable,
            vec![(
                DISABLE_FIELDS.to_vec(),
                schema::any_of_values(&disable_values()),
            )],
            true,
        ),
        family(
            Family::VideoSettings,
            vec![(
                vec!["video.music"],
                serde_json::to_value(music_schema()).expect("a schema serializes"),
            )],
            true,
        ),
    ];
    for f in OverlayField::ALL {
        families.push(family(
            Family::Overlay(*f),
            vec![(vec![f.as_str()], overlay_value(c, *f))],
            false,
        ));
    }
    families
}

/// Largest `x` and `y` of a schema-valid M `rect`: on the canvas in either coordinate space
/// (preview px scale up about 2.57×). Its `w` and `h` stay within [`SCHEMA_RECT_LIMIT`].
const SCHEMA_ELEMENT_X: f64 = 270.0;
const SCHEMA_ELEMENT_Y: f64 = 490.0;

/// The value of B, M or O, as `overlay_request` reads it. M's and O's forms are subsets where
/// the rule spans fields: a `rect` at a non-negative origin (the API takes any rect that
/// overlaps the canvas), and a `lines` string without break characters or hyphens (one line;
/// the API splits at `\n`, `|`, `→` and `->`).
fn overlay_value(c: &mut Components, field: OverlayField) -> Value {
    match field {
        OverlayField::UploadOverlay => json!({ "oneOf": [
            url_schema(),
            c.named("OverlayUploadUrl", json!({ "type": "object", "required": ["url"],
                "properties": { "url": url_schema() } })),
        ]}),
        OverlayField::AddElement => add_element_value(c),
        OverlayField::TextEdit => text_edit_value(c),
    }
}

/// O's value: `wc_object` with new `lines`, a new `fill`, or both (`TextEditLines` needs the
/// lines, `TextEditFill` the fill).
fn text_edit_value(c: &mut Components) -> Value {
    let lines = [
        json!({ "type": "array", "minItems": 1, "maxItems": MAX_LINES,
            "items": { "type": "string" } }),
        json!({ "type": "string", "pattern": "^[^|→\\n-]*[^\\s|→-][^|→\\n-]*$" }),
    ];
    let fill = json!({ "type": "string", "pattern": "^#[0-9A-Fa-f]{6}$" });
    let form = |lines_required: bool| {
        let mut lines = lines.to_vec();
        let mut fill = fill.clone();
        let needs = if lines_required {
            fill["type"] = json!(["string", "null"]);
            "lines"
        } else {
            lines.push(json!({ "type": "null" }));
            "fill"
        };
        json!({
            "type": "object",
            "required": ["wc_object", needs],
            "properties": {
                "wc_object": nonblank_schema(),
                "lines": { "oneOf": lines },
                "fill": fill,
            },
        })
    };
    json!({ "anyOf": [
        c.named("TextEditLines", form(true)),
        c.named("TextEditFill", form(false)),
    ]})
}

/// M's value: a text string, or an element (text kinds with `text`, or an image with `url`)
/// placed by `rect` (which wins) or `position`.
fn add_element_value(c: &mut Components) -> Value {
    let text = json!({ "type": "string", "pattern": "\\S", "maxLength": MAX_ELEMENT_TEXT });
    let mut text_kinds = vec![Value::Null];
    text_kinds.extend(TextKind::NAMES.iter().map(|k| json!(k)));
    let elements = [
        (
            json!({ "kind": { "enum": text_kinds }, "text": text }),
            "text",
            "TextElement",
        ),
        (
            json!({ "kind": { "const": IMAGE_KIND }, "url": url_schema() }),
            "url",
            "ImageElement",
        ),
    ];
    let coord = |max: f64| json!({ "type": "number", "minimum": 0, "maximum": max });
    let side = json!({ "type": "number", "exclusiveMinimum": 0, "maximum": SCHEMA_RECT_LIMIT });
    let rect = json!({
        "type": "object",
        "required": ["x", "y", "w", "h"],
        "properties": {
            "x": coord(SCHEMA_ELEMENT_X), "y": coord(SCHEMA_ELEMENT_Y), "w": side, "h": side,
        },
    });
    let mut positions = vec![Value::Null, json!("centre")];
    positions.extend(Position::NAMES.iter().map(|p| json!(p)));
    let mut spaces = vec![Value::Null];
    spaces.extend(RectSpace::NAMES.iter().map(|s| json!(s)));
    let mut forms = vec![text.clone()];
    for (props, needs, name) in elements {
        let mut required = vec![needs];
        if needs == "url" {
            required.push("kind");
        }
        for by_rect in [true, false] {
            let mut p = props.clone();
            p["coordinate_space"] = json!({ "enum": spaces });
            let mut form = json!({ "type": "object" });
            if by_rect {
                p["rect"] = rect.clone();
                form["required"] = json!([required.as_slice(), &["rect"]].concat());
            } else {
                p["position"] = json!({ "enum": positions });
                form["required"] = json!(required);
                form["not"] = json!({ "required": ["rect"] });
            }
            form["properties"] = p;
            let at = if by_rect { "AtRect" } else { "AtPosition" };
            forms.push(c.named(&format!("{name}{at}"), form));
        }
    }
    json!({ "oneOf": forms })
}

/// `fields`' schema: a list of one family's items.
fn fields_schema(c: &mut Components) -> Value {
    let forms: Vec<Value> = field_families(c)
        .into_iter()
        .map(|f| {
            let items: Vec<Value> = f
                .fields
                .iter()
                .map(|(names, value)| item_schema(c, names, value.clone()))
                .collect();
            let mut s = json!({ "type": "array", "minItems": 1, "items": { "oneOf": items },
                "description": format!("Fields of the `{}` family.", f.family.as_str()) });
            if f.once {
                s["maxItems"] = json!(1);
            }
            if let Some(names) = f.needs {
                s["contains"] = json!({
                    "type": "object",
                    "required": ["field_name"],
                    "properties": { "field_name": { "enum": names } },
                });
            }
            s
        })
        .collect();
    json!({
        "description": "One family of `{field_name, value}` items per call; each field takes \
            its own value type.",
        "oneOf": forms,
    })
}

/// The schema component of modify_scene's `fields` ([`fields_schema`]).
pub(crate) struct ModifySceneFields;

impl PartialSchema for ModifySceneFields {
    fn schema() -> RefOr<Schema> {
        schema::raw(fields_schema(&mut Components::default()))
    }
}

impl ToSchema for ModifySceneFields {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        let mut c = Components::default();
        fields_schema(&mut c);
        c.add_to(schemas);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;

    fn parse1(name: &str, value: Value) -> Result<Vec<Edit>> {
        parse_field(name, &value, "fields[0].value")
    }

    #[test]
    fn video_music_takes_auto_none_or_a_track_id() {
        assert_eq!(
            parse1("video.music", json!("none")).unwrap(),
            vec![Edit::Music(Music::Off)]
        );
        assert_eq!(
            parse1("video.music", json!("warm-story")).unwrap(),
            vec![Edit::Music(Music::Track("warm-story".into()))]
        );
        for bad in [json!("disco"), json!(3)] {
            let e = parse1("video.music", bad).unwrap_err();
            assert_eq!(e.code, Code::InvalidMusic);
            assert_eq!(e.param.as_deref(), Some("fields[0].value"));
        }
    }

    /// Every branch's field with a valid value parses to the expected edit.
    #[test]
    fn valid_values_parse() {
        let cases: Vec<(&str, Value, Edit)> = vec![
            (
                "mediaUrl",
                json!("https://cdn.example.com/a.jpg"),
                Edit::Background {
                    url: "https://cdn.example.com/a.jpg".into(),
                    kind: None,
                },
            ),
            (
                "remotion.object.rect",
                json!({"layout_id": "title", "x": 28, "y": 49.8, "w": 140, "h": 99.6}),
                Edit::ObjectRect {
                    layout_id: "title".into(),
                    rect: GeomPreviewRect::new(28.0, 49.8, 140.0, 99.6).to_canvas(),
                },
            ),
            (
                "remotion.object.rect",
                json!({"layout_id": "title", "rect": {"x": 72, "y": 128, "w": 360, "h": 256}, "coordinate_space": "canvas"}),
                Edit::ObjectRect {
                    layout_id: "title".into(),
                    rect: CanvasRect::new(72.0, 128.0, 360.0, 256.0),
                },
            ),
            (
                "remotion.group.rect",
                json!({"id": "g1", "x": 0, "y": -40, "w": 720, "h": 300}),
                Edit::GroupRect {
                    id: "g1".into(),
                    rect: CanvasRect::new(0.0, -40.0, 720.0, 300.0),
                    scale_children: true,
                    wrapper_only: false,
                },
            ),
            (
                "remotion.group.rect",
                json!({"id": "g1", "x": 0, "y": 0, "w": 280, "h": 498, "coordinate_space": "preview", "scale_children": false}),
                Edit::GroupRect {
                    id: "g1".into(),
                    rect: CanvasRect::new(0.0, 0.0, 720.0, 1280.0),
                    scale_children: false,
                    wrapper_only: false,
                },
            ),
            (
                "overlay.narrator.rect",
                json!({"x": 10, "y": 20, "w": 100, "h": 120}),
                Edit::NarratorRect(RectPatch {
                    x: Some(10.0),
                    y: Some(20.0),
                    w: Some(100.0),
                    h: Some(120.0),
                }),
            ),
            (
                "overlay.narrator.y",
                json!(33),
                Edit::NarratorRect(RectPatch {
                    y: Some(33.0),
                    ..Default::default()
                }),
            ),
            ("overlay.caption.y", json!(250), Edit::CaptionY(250.0)),
            (
                "voice.upload",
                json!({"url": "https://x.example/v.wav"}),
                Edit::VoiceUpload {
                    url: "https://x.example/v.wav".into(),
                },
            ),
            (
                "narrator.upload_video",
                json!("https://x.example/n.mp4"),
                Edit::NarratorVideo {
                    url: "https://x.example/n.mp4".into(),
                },
            ),
            (
                "roll.active",
                json!("b-roll"),
                Edit::Roll(RollChange::Set(Roll::BRoll)),
            ),
            ("roll.switch", json!(true), Edit::Roll(RollChange::Toggle)),
            (
                "segment.text",
                json!(" New words here "),
                Edit::Text("New words here".into()),
            ),
            (
                "type",
                json!("key point"),
                Edit::Meta(Meta::SceneType(SceneType::KeyPoint)),
            ),
            (
                "type",
                json!("CALL_TO_ACTION"),
                Edit::Meta(Meta::SceneType(SceneType::CallToAction)),
            ),
            (
                "pattern",
                json!("Myth-Fact"),
                Edit::Meta(Meta::Pattern("myth_fact")),
            ),
            (
                "quote",
                json!("Be brief."),
                Edit::Meta(Meta::Quote("Be brief.".into())),
            ),
            (
                "typography_only",
                json!(true),
                Edit::Meta(Meta::TypographyOnly(true)),
            ),
            ("disable_overlay", json!(true), Edit::DisableOverlay),
            ("remotion_spec.none", json!("none"), Edit::DisableOverlay),
        ];
        for (name, value, want) in cases {
            let got = parse1(name, value.clone());
            assert_eq!(
                got.as_ref().ok(),
                Some(&vec![want]),
                "{name} {value}: {got:?}"
            );
        }
    }

    /// Invalid values are rejected with the code and param that name the problem.
    #[test]
    fn invalid_values_are_named() {
        let cases: Vec<(&str, Value, Code)> = vec![
            ("mediaUrl", json!("ftp://x/a.png"), Code::InvalidValue),
            ("mediaUrl", json!(5), Code::InvalidValue),
            ("mediaType", json!("gif"), Code::InvalidValue),
            (
                "remotion.object.rect",
                json!({"x": 1, "y": 1, "w": 1, "h": 1}),
                Code::InvalidValue,
            ),
            (
                "remotion.object.rect",
                json!({"layout_id": "a", "x": 1, "y": 1, "w": 0, "h": 1}),
                Code::InvalidValue,
            ),
            (
                "remotion.object.rect",
                json!({"layout_id": "a", "x": 1, "y": 1, "w": 5, "h": 1, "coordinate_space": "mm"}),
                Code::InvalidValue,
            ),
            (
                "remotion.group.rect",
                json!({"id": "g", "x": 0, "y": 99999, "w": 5, "h": 5}),
                Code::InvalidValue,
            ),
            (
                "remotion.group.rect",
                json!({"x": 0, "y": 0, "w": 5, "h": 5}),
                Code::InvalidValue,
            ),
            (
                "overlay.narrator.rect",
                json!({"x": 1, "y": 2, "w": 3}),
                Code::InvalidValue,
            ),
            ("overlay.narrator.x", json!("left"), Code::InvalidValue),
            ("overlay.caption.y", json!(null), Code::InvalidValue),
            ("overlay.caption.x", json!(5), Code::InvalidFieldName),
            ("voice.upload", json!("not a url"), Code::InvalidValue),
            ("roll.active", json!("C-roll"), Code::InvalidValue),
            ("segment.text", json!("   "), Code::InvalidValue),
            (
                "segment.text",
                json!("x".repeat(MAX_TEXT_CHARS + 1)),
                Code::InvalidValue,
            ),
            ("type", json!("STORY"), Code::InvalidValue),
            ("pattern", json!("freestyle"), Code::InvalidValue),
            ("typography_only", json!("maybe"), Code::InvalidValue),
            ("disable_overlay", json!(false), Code::InvalidValue),
            ("layout.batch", json!([]), Code::InvalidValue),
            (
                "layout.batch",
                json!([{"field_name": "pattern", "value": "list"}]),
                Code::MixedFieldFamilies,
            ),
            ("bogus.field", json!(1), Code::InvalidFieldName),
        ];
        for (name, value, code) in cases {
            match parse1(name, value.clone()) {
                Err(e) => {
                    assert_eq!(e.code, code, "{name} {value}: {e}");
                    assert!(e.param.is_some(), "{name}: error names no param");
                }
                Ok(v) => panic!("{name} {value} parsed as {v:?}"),
            }
        }
    }

    fn overlay(name: &str, value: Value) -> Result<OverlayEdit> {
        match parse1(name, value)?.pop() {
            Some(Edit::Overlay(o)) => Ok(o),
            other => panic!("{name} parsed as {other:?}"),
        }
    }

    /// B, M and O values parse to typed edits; M keeps the coordinate space it was sent in.
    #[test]
    fn overlay_values_parse_to_typed_edits() {
        use crate::edit::overlay_request::{AddElement, Element, Placement, TextEdit};
        let upload = |url: &str| OverlayEdit::Upload { url: url.into() };
        let text = |kind, text: &str| Element::Text {
            kind,
            text: text.into(),
        };
        let cases: Vec<(&str, Value, OverlayEdit)> = vec![
            (
                "remotion.upload_overlay",
                json!(" https://x.example/o.svg "),
                upload("https://x.example/o.svg"),
            ),
            (
                "remotion.upload_overlay",
                json!({"url": "http://x.example/o.png"}),
                upload("http://x.example/o.png"),
            ),
            (
                "remotion.add_element",
                json!(" Hi "),
                OverlayEdit::AddElement(AddElement {
                    element: text(TextKind::Text, "Hi"),
                    placement: Placement::Position(Position::Center),
                    space: RectSpace::Preview,
                }),
            ),
            (
                "remotion.add_element",
                json!({"kind": "stat", "text": "42%", "rect": {"x": 28, "y": 49.8, "w": 112, "h": 60}}),
                OverlayEdit::AddElement(AddElement {
                    element: text(TextKind::Stat, "42%"),
                    placement: Placement::Rect(
                        GeomPreviewRect::new(28.0, 49.8, 112.0, 60.0).to_canvas(),
                    ),
                    space: RectSpace::Preview,
                }),
            ),
            (
                "remotion.add_element",
                json!({"kind": "label", "value": "NEW", "position": " centre ", "coordinate_space": "canvas"}),
                OverlayEdit::AddElement(AddElement {
                    element: text(TextKind::Label, "NEW"),
                    placement: Placement::Position(Position::Center),
                    space: RectSpace::Canvas,
                }),
            ),
            (
                "remotion.add_element",
                json!({"kind": "image", "image_url": "https://x.example/a.png", "rect": {"x": 0, "y": 0, "w": 360, "h": 640}, "coordinate_space": "canvas", "position": 5}),
                OverlayEdit::AddElement(AddElement {
                    element: Element::Image {
                        url: "https://x.example/a.png".into(),
                    },
                    placement: Placement::Rect(CanvasRect::new(0.0, 0.0, 360.0, 640.0)),
                    space: RectSpace::Canvas,
                }),
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": " title ", "lines": "ONE | TWO->THREE"}),
                OverlayEdit::TextEdit(TextEdit {
                    wc_object: "title".into(),
                    lines: Some(vec!["ONE".into(), "TWO".into(), "THREE".into()]),
                    fill: None,
                }),
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "title", "lines": null, "fill": " #00ff00 "}),
                OverlayEdit::TextEdit(TextEdit {
                    wc_object: "title".into(),
                    lines: None,
                    fill: Some(typography::design::Rgb(0, 255, 0)),
                }),
            ),
        ];
        for (name, value, want) in cases {
            let got = overlay(name, value.clone());
            assert_eq!(got.as_ref().ok(), Some(&want), "{name} {value}: {got:?}");
            assert_eq!(want.field().as_str(), name);
        }
    }

    /// Every B/M/O value check answers `invalid_value` on `fields[].value` with the branch's
    /// own sentence.
    #[test]
    fn overlay_value_errors_keep_their_codes_params_and_messages() {
        let shape = "`remotion.add_element` takes a string (text) or `{kind, text, position | rect, coordinate_space}`.";
        let space = "`coordinate_space` must be `preview` (280×498, default) or `canvas` (720×1280), not `mm`.";
        let cases: Vec<(&str, Value, &str)> = vec![
            (
                "remotion.upload_overlay",
                json!(42),
                "`remotion.upload_overlay` takes a URL string or `{url}`.",
            ),
            (
                "remotion.upload_overlay",
                json!({"url": "  "}),
                "`remotion.upload_overlay` takes a URL string or `{url}`.",
            ),
            (
                "remotion.upload_overlay",
                json!("ftp://x.example/o.svg"),
                "The overlay URL must be http(s).",
            ),
            ("remotion.add_element", json!(null), shape),
            ("remotion.add_element", json!([1]), shape),
            (
                "remotion.add_element",
                json!({"kind": "video", "text": "x"}),
                "`kind` must be text, stat, label, callout or image, not `video`.",
            ),
            (
                "remotion.add_element",
                json!({"kind": 5, "text": "x"}),
                "`kind` must be text, stat, label, callout or image, not `5`.",
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "rect": {"x": 0, "y": 0, "w": 5}}),
                "`rect` needs numeric x, y, w, h.",
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "rect": {"x": 0, "y": 0, "w": 5, "h": 5}, "coordinate_space": "mm"}),
                space,
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "position": "top", "coordinate_space": "mm"}),
                space,
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "rect": {"x": 0, "y": 0, "w": 0, "h": 5}}),
                "`rect` must have a positive size and overlap the canvas.",
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "rect": {"x": 720, "y": 0, "w": 5, "h": 5}, "coordinate_space": "canvas"}),
                "`rect` must have a positive size and overlap the canvas.",
            ),
            (
                "remotion.add_element",
                json!({"position": "middle", "text": "x"}),
                "`position` must be top, bottom, left, right or center.",
            ),
            (
                "remotion.add_element",
                json!({"position": 1, "text": "x"}),
                "`position` must be a string.",
            ),
            (
                "remotion.add_element",
                json!({"text": " "}),
                "A text element needs non-empty `text`.",
            ),
            (
                "remotion.add_element",
                json!("x".repeat(MAX_ELEMENT_TEXT + 1)),
                "An element's `text` may have at most 300 characters.",
            ),
            (
                "remotion.add_element",
                json!({"kind": "image", "text": "x"}),
                "An image element needs `url`.",
            ),
            (
                "remotion.add_element",
                json!({"kind": "image", "url": "file:///etc/passwd"}),
                "The overlay URL must be http(s).",
            ),
            (
                "overlay.text_edit",
                json!("title"),
                "`overlay.text_edit` takes `{wc_object, lines?, fill?}`.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": " ", "lines": ["A"]}),
                "`wc_object` (the data-wc-object to edit) is required.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "lines": ["A", 1]}),
                "`lines` must be an array of strings.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "lines": 3}),
                "`lines` must be an array of strings.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "lines": " | "}),
                "`lines` must hold 1 to 20 lines.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "lines": vec!["A"; MAX_LINES + 1]}),
                "`lines` must hold 1 to 20 lines.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "fill": "red"}),
                "`fill` must be a `#RRGGBB` colour.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "fill": 255}),
                "`fill` must be a `#RRGGBB` colour.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "fill": null}),
                "`overlay.text_edit` needs `lines` or `fill`.",
            ),
        ];
        for (name, value, message) in cases {
            let e = overlay(name, value.clone()).unwrap_err();
            assert_eq!(
                (e.code, e.param.as_deref(), e.message.as_str()),
                (Code::InvalidValue, Some("fields[].value"), message),
                "{name} {value}"
            );
        }
    }

    #[test]
    fn envelope_fields() {
        let fam = |v: Value| parse_fields(Some(&v)).map(|f| (f.family, f.edits.len()));
        let code = |v: Value| parse_fields(Some(&v)).unwrap_err().code;
        assert_eq!(
            fam(json!([{"field_name": "mediaUrl", "value": "https://x.example/a"}, {"field_name": "mediaType", "value": "video"}])).unwrap(),
            (Family::Media, 1)
        );
        assert_eq!(
            fam(json!([{"field_name": "overlay.narrator.x", "value": 5}, {"field_name": "overlay.caption.y", "value": 200}])).unwrap(),
            (Family::Layout, 2)
        );
        assert_eq!(
            fam(json!([{"field_name": "layout.batch", "value": [
                {"field_name": "overlay.narrator.rect", "value": {"x": 1, "y": 2, "w": 50, "h": 50}},
                {"field_name": "remotion.group.rect", "value": {"id": "g1", "x": 0, "y": 0, "w": 10, "h": 10}}
            ]}])).unwrap(),
            (Family::Layout, 2)
        );
        assert_eq!(
            fam(json!([{"field_name": "pattern", "value": "list"}, {"field_name": "quote", "value": "q"}])).unwrap(),
            (Family::Metadata, 2)
        );
        assert_eq!(code(json!([])), Code::MissingField);
        assert_eq!(code(json!({"field_name": "quote"})), Code::InvalidField);
        assert_eq!(code(json!([{"value": 1}])), Code::MissingField);
        assert_eq!(
            code(
                json!([{"field_name": "quote", "value": "q"}, {"field_name": "overlay.caption.y", "value": 200}])
            ),
            Code::MixedFieldFamilies
        );
        assert_eq!(
            code(
                json!([{"field_name": "disable_overlay", "value": true}, {"field_name": "overlay.disable", "value": true}])
            ),
            Code::MixedFieldFamilies
        );
        assert_eq!(
            code(json!([{"field_name": "mediaType", "value": "image"}])),
            Code::MissingField
        );
        assert_eq!(
            code(
                json!([{"field_name": "segment.text", "value": "a"}, {"field_name": "segment.text", "value": "b"}])
            ),
            Code::InvalidFieldName
        );
        assert!(parse_fields(None).is_err());
    }

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
    fn every_canonical_pattern_and_scene_type_is_accepted() {
        assert!(PATTERNS.iter().all(|p| pattern(&json!(p), "p").is_ok()));
        assert!(
            SceneType::NAMES
                .iter()
                .all(|t| scene_type(&json!(t), "t").is_ok())
        );
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
