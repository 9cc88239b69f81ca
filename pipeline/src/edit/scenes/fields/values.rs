//! The values of `modify_scene`'s field items, one type per shape: what serde reads and what the
//! schema documents. Where a value is read more leniently than its canonical form (a roll's
//! other spellings, `"true"` for `true`, names in any case), the leaf is kept as sent and
//! documented by the type it names ([`SceneType`], [`Roll`], …); the edit is made from it here,
//! with the branch's own messages.
//!
//! The documented forms are subsets of what is read: a URL on a dotted host name (the fetch
//! guard refuses single-label names), rects within 1500 px of the origin.

use compositor::geom::{CanvasRect, PreviewRect};
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::super::parse::{
    Edit, MAX_CANVAS_EXTENT, MAX_META_CHARS, MAX_TEXT_CHARS, MediaKind, Meta, RectPatch,
    RollChange, bad,
};
pub(crate) use crate::edit::overlay_request::{UrlValue, Xywh};
use foundation::document::{Roll, SceneType};
use foundation::error::Result;
use video::build::PATTERNS;

impl UrlValue {
    /// The URL, when it is an absolute http(s) URL with a host.
    pub(crate) fn checked(&self, param: &str) -> Result<String> {
        let s = self.as_str();
        let ok = url::Url::parse(s)
            .ok()
            .is_some_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
        if !ok {
            return Err(bad(param, format!("`{param}` must be an http(s) URL.")));
        }
        Ok(s.to_string())
    }
}

impl Xywh {
    /// The rect, when its size is positive.
    fn checked(self, param: &str) -> Result<Xywh> {
        if self.w <= 0.0 || self.h <= 0.0 {
            return Err(bad(param, format!("`{param}` needs a positive w and h.")));
        }
        Ok(self)
    }

    /// In canvas px: converted from the 280×498 preview when `preview`, and within
    /// [`MAX_CANVAS_EXTENT`].
    fn on_canvas(self, preview: bool, param: &str) -> Result<CanvasRect> {
        let Xywh { x, y, w, h } = self.checked(param)?;
        let rect = if preview {
            PreviewRect::new(x, y, w, h).to_canvas()
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
}

foundation::document::wire_enum! {
    /// The coordinate space of a layout rect (names in any case): the 280×498 editor preview,
    /// or the 720×1280 canvas.
    pub enum LayoutSpace {
        Preview = "preview",
        EditorPreview = "editor_preview",
        EditorPreviewPx = "editor_preview_px",
        PreviewPx = "280x498",
        Canvas = "canvas",
        RemotionCanvas = "remotion_canvas",
        CanvasPx = "720x1280",
    }
}

/// Whether `space` (as sent) says preview; `default_preview` when it is absent.
fn is_preview(space: Option<&str>, param: &str, default_preview: bool) -> Result<bool> {
    let Some(space) = space else {
        return Ok(default_preview);
    };
    match LayoutSpace::parse(&space.to_ascii_lowercase()) {
        Some(LayoutSpace::Canvas | LayoutSpace::RemotionCanvas | LayoutSpace::CanvasPx) => {
            Ok(false)
        }
        Some(_) => Ok(true),
        None => Err(bad(
            &format!("{param}.coordinate_space"),
            "`coordinate_space` must be `preview` or `canvas`.",
        )),
    }
}

/// A name given in a rect's value (`layout_id`, the group's `id`): present and not blank.
fn named(name: Option<&str>, param: &str, message: &str) -> Result<String> {
    name.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .ok_or_else(|| bad(param, message))
}

/// C: an object's rect, in preview space unless `coordinate_space` says canvas.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ObjectRect {
    Boxed(ObjectRectBoxed),
    Flat(ObjectRectFlat),
}

/// C's rect under `rect`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ObjectRectBoxed {
    /// The object to move (a `{group}.one_by_one` id moves its timed items together).
    #[schema(required = true, value_type = String, pattern = r"\S")]
    pub layout_id: Option<String>,
    pub rect: Xywh,
    #[schema(value_type = Option<LayoutSpace>)]
    pub coordinate_space: Option<String>,
}

/// C's rect beside `layout_id`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ObjectRectFlat {
    /// The object to move (a `{group}.one_by_one` id moves its timed items together).
    #[schema(required = true, value_type = String, pattern = r"\S")]
    pub layout_id: Option<String>,
    #[serde(flatten)]
    #[schema(inline)]
    pub rect: Xywh,
    #[schema(value_type = Option<LayoutSpace>)]
    pub coordinate_space: Option<String>,
}

impl ObjectRect {
    pub(crate) fn edit(self, param: &str) -> Result<Edit> {
        let (id, rect, space) = match self {
            ObjectRect::Boxed(b) => (b.layout_id, b.rect, b.coordinate_space),
            ObjectRect::Flat(f) => (f.layout_id, f.rect, f.coordinate_space),
        };
        let layout_id = named(
            id.as_deref(),
            &format!("{param}.layout_id"),
            "`layout_id` names the object to move.",
        )?;
        let preview = is_preview(space.as_deref(), param, true)?;
        Ok(Edit::ObjectRect {
            layout_id,
            rect: rect.on_canvas(preview, param)?,
        })
    }
}

/// D: a group's frame, in canvas space unless `coordinate_space` says preview.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum GroupRect {
    Boxed(GroupRectBoxed),
    Flat(GroupRectFlat),
}

/// What D takes besides the rect.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct GroupOptions {
    /// The group to move (`group_id` is read too).
    #[serde(alias = "group_id")]
    #[schema(required = true, value_type = String, pattern = r"\S")]
    pub id: Option<String>,
    #[schema(value_type = Option<LayoutSpace>)]
    pub coordinate_space: Option<String>,
    /// Whether a resize scales the group's children (default true).
    #[schema(value_type = Option<bool>)]
    pub scale_children: Option<Value>,
    /// Move the group's frame only (advanced; default false).
    #[schema(value_type = Option<bool>)]
    pub wrapper_only: Option<Value>,
}

/// D's rect under `rect`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct GroupRectBoxed {
    #[serde(flatten)]
    #[schema(inline)]
    pub group: GroupOptions,
    pub rect: Xywh,
}

/// D's rect beside the group's `id`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct GroupRectFlat {
    #[serde(flatten)]
    #[schema(inline)]
    pub group: GroupOptions,
    #[serde(flatten)]
    #[schema(inline)]
    pub rect: Xywh,
}

impl GroupRect {
    pub(crate) fn edit(self, param: &str) -> Result<Edit> {
        let (g, rect) = match self {
            GroupRect::Boxed(b) => (b.group, b.rect),
            GroupRect::Flat(f) => (f.group, f.rect),
        };
        let id = named(
            g.id.as_deref(),
            &format!("{param}.id"),
            "`id` names the group to move.",
        )?;
        let flag = |v: Option<&Value>, k: &str, default: bool| match v {
            None => Ok(default),
            Some(v) => boolean(v, &format!("{param}.{k}")),
        };
        let wrapper_only = flag(g.wrapper_only.as_ref(), "wrapper_only", false)?;
        let preview = is_preview(g.coordinate_space.as_deref(), param, false)?;
        Ok(Edit::GroupRect {
            id,
            rect: rect.on_canvas(preview, param)?,
            scale_children: flag(g.scale_children.as_ref(), "scale_children", true)?,
            wrapper_only,
        })
    }
}

/// E: the narrator's whole rect, 280×498 preview px.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum NarratorRect {
    Boxed(NarratorRectBoxed),
    Flat(Xywh),
}

/// E's rect under `rect`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct NarratorRectBoxed {
    pub rect: Xywh,
}

impl NarratorRect {
    pub(crate) fn edit(self, param: &str) -> Result<Edit> {
        let rect = match self {
            NarratorRect::Boxed(b) => b.rect,
            NarratorRect::Flat(r) => r,
        };
        let Xywh { x, y, w, h } = rect.checked(param)?;
        Ok(Edit::NarratorRect(RectPatch {
            x: Some(x),
            y: Some(y),
            w: Some(w),
            h: Some(h),
        }))
    }
}

/// E, one side (`overlay.narrator.{x,y,w,h}`): the number, or `{value}`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum NarratorSide {
    Number(f64),
    Object(SideObject),
}

/// A narrator side as an object.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct SideObject {
    pub value: f64,
}

impl NarratorSide {
    /// The patch that sets side `side` (`x`, `y`, `w` or `h`).
    pub(crate) fn edit(self, side: char) -> Edit {
        let v = match self {
            NarratorSide::Number(v) | NarratorSide::Object(SideObject { value: v }) => v,
        };
        let mut p = RectPatch::default();
        match side {
            'x' => p.x = Some(v),
            'y' => p.y = Some(v),
            'w' => p.w = Some(v),
            _ => p.h = Some(v),
        }
        Edit::NarratorRect(p)
    }
}

/// F: the caption's Y, preview px: the number, or `{y}`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum CaptionY {
    Number(f64),
    Object(CaptionYObject),
}

/// The caption's Y as an object.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct CaptionYObject {
    pub y: f64,
}

impl CaptionY {
    pub(crate) fn edit(self) -> Edit {
        match self {
            CaptionY::Number(y) | CaptionY::Object(CaptionYObject { y }) => Edit::CaptionY(y),
        }
    }
}

/// G: layout fields in one call, as a list of `{field_name, value}` or one object keyed by
/// field name.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum LayoutBatch {
    #[schema(value_type = Vec<super::LayoutChild>)]
    Items(Vec<Value>),
    #[schema(value_type = Object)]
    Keyed(Map<String, Value>),
}

/// J's `roll.switch`: `true` (or `toggle`, in any case) toggles the roll; a roll's name sets it.
/// `null` toggles too.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum RollSwitchValue {
    Flag(bool),
    #[schema(value_type = Roll)]
    Name(String),
}

impl RollSwitchValue {
    pub(crate) fn change(switch: Option<&RollSwitchValue>, param: &str) -> Result<RollChange> {
        match switch {
            None | Some(RollSwitchValue::Flag(true)) => Ok(RollChange::Toggle),
            Some(RollSwitchValue::Name(s)) if s.eq_ignore_ascii_case("toggle") => {
                Ok(RollChange::Toggle)
            }
            Some(RollSwitchValue::Name(s)) => Ok(RollChange::Set(roll_name(s, param)?)),
            Some(RollSwitchValue::Flag(false)) => Err(roll_refused(param)),
        }
    }
}

/// A roll's name, in the spellings people use (`A-roll`, `a`, `aroll`, `narrator`, …).
pub(crate) fn roll_name(s: &str, param: &str) -> Result<Roll> {
    let s = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    match s.as_str() {
        "a-roll" | "a" | "aroll" | "narrator" => Ok(Roll::ARoll),
        "b-roll" | "b" | "broll" | "background" => Ok(Roll::BRoll),
        _ => Err(roll_refused(param)),
    }
}

pub(crate) fn roll_refused(param: &str) -> foundation::error::Error {
    bad(param, "The roll must be `A-roll` or `B-roll`.")
}

/// N's value: any "on" value (`true`, `1`, `null`, or a word such as `none` or `disable`).
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum DisableValue {
    Flag(bool),
    Number(f64),
    /// `true`, `none`, `disable`, `disabled`, `yes` or empty, in any case.
    Word(String),
}

/// The words N takes as "disable" (any case).
const DISABLE_WORDS: &[&str] = &["true", "none", "disable", "disabled", "yes", ""];

impl DisableValue {
    /// N: any "on" value; "off" is refused (re-enabling is an upload).
    pub(crate) fn edit(value: Option<&DisableValue>, param: &str) -> Result<Edit> {
        let on = match value {
            None => true,
            Some(DisableValue::Flag(b)) => *b,
            Some(DisableValue::Number(n)) => *n == 1.0,
            Some(DisableValue::Word(s)) => DISABLE_WORDS.contains(&s.to_ascii_lowercase().as_str()),
        };
        if !on {
            return Err(bad(
                param,
                "To re-enable an overlay, upload one with `remotion.upload_overlay`.",
            ));
        }
        Ok(Edit::DisableOverlay)
    }
}

/// `true` or `false`, or the words, in any case.
pub(crate) fn boolean(v: &Value, param: &str) -> Result<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Ok(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(bad(param, format!("`{param}` must be true or false."))),
    }
}

/// Text of at most `max` characters, trimmed.
pub(crate) fn text(s: &str, param: &str, max: usize) -> Result<String> {
    if s.chars().count() > max {
        return Err(bad(
            param,
            format!("`{param}` is longer than {max} characters."),
        ));
    }
    Ok(s.trim().to_string())
}

/// K: the scene's new words.
pub(crate) fn segment_text(s: &str, param: &str) -> Result<Edit> {
    let t = text(s, param, MAX_TEXT_CHARS)?;
    if t.split_whitespace().next().is_none() {
        return Err(bad(param, "`segment.text` must contain words."));
    }
    Ok(Edit::Text(t))
}

/// A: `mediaType`, in any case.
pub(crate) fn media_kind(s: &str, param: &str) -> Result<MediaKind> {
    MediaKind::parse(&s.to_ascii_lowercase())
        .ok_or_else(|| bad(param, "`mediaType` must be `image` or `video`."))
}

/// L's `type`: a scene type, in any case, with `_` or `-` for spaces.
pub(crate) fn scene_type(s: &str, param: &str) -> Result<SceneType> {
    let s = s.trim().to_ascii_uppercase().replace(['_', '-'], " ");
    SceneType::parse(&s).ok_or_else(|| {
        bad(
            param,
            format!("`type` must be one of {}.", SceneType::NAMES.join(", ")),
        )
    })
}

/// L's `pattern`: a canonical pattern, in any case, with spaces or `-` for `_`.
pub(crate) fn pattern(s: &str, param: &str) -> Result<&'static str> {
    let s = s.trim().to_ascii_lowercase().replace([' ', '-'], "_");
    PATTERNS.iter().copied().find(|p| *p == s).ok_or_else(|| {
        bad(
            param,
            format!("`pattern` must be one of {}.", PATTERNS.join(", ")),
        )
        .details(serde_json::json!({ "allowed": PATTERNS }))
    })
}

/// The schema of L's `pattern`: the canonical patterns (read in any case, with spaces or `-`
/// for `_`).
pub(crate) fn patterns_schema() -> utoipa::openapi::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .enum_values(Some(PATTERNS.to_vec()))
        .build()
}

/// L's text fields.
pub(crate) fn meta_text(s: &str, param: &str) -> Result<String> {
    text(s, param, MAX_META_CHARS)
}

/// L's `typography_only`.
pub(crate) fn typography_only(v: &Value, param: &str) -> Result<Meta> {
    boolean(v, param).map(Meta::TypographyOnly)
}
