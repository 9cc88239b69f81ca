//! `modify_scene` fields: parsing every branch's value into a typed [`Edit`] (no document
//! needed), grouping them into one family per call, and applying them to a document in memory.
//!
//! Branches handled here: A (background swap), C (object-layer rect), D (group rect),
//! E (narrator rect), F (caption Y), G (layout batch), H (voice upload, async), I (narrator video
//! upload, async), J (A/B-roll switch), K (segment text), L (metadata), N (disable overlay).
//! B, M and O (`overlay_edits::FIELDS`) are routed to `overlay_edits::apply`.
//!
//! Applying never touches the disk: it changes a clone of the document and, for C/D, the scene's
//! overlay spec in memory; the caller persists both only when every field applied, so a rejected
//! edit changes nothing.
//!
//! Coordinate spaces: narrator and caption rects are 280×498 preview; `remotion.object.rect`
//! defaults to preview, `remotion.group.rect` to canvas (720×1280); every conversion goes through
//! `compositor::geom` (`to_canvas`/`to_preview`).

use compositor::geom::{CanvasRect, PreviewRect};
use compositor::spec::{OverlaySpec, TemporalPolicy};
use serde_json::{Map, Value, json};
use typography::TimedWord;

use crate::build::voice::VoiceProvider;
pub use crate::core::document::MediaKind;
use crate::core::document::{Background, Roll, SPEC_DISABLED, SceneType, Segment, VideoDocument};
use crate::core::error::{Code, Error, Result};

/// The metadata branch validates against the same lists scene building writes.
pub use crate::build::direction::PATTERNS;

/// Aliases of branch N.
pub const DISABLE_FIELDS: &[&str] = &[
    "disable_overlay",
    "remotion.disable_overlay",
    "overlay.disable",
    "remotion_spec.none",
];

/// Longest `segment.text`, characters.
pub const MAX_TEXT_CHARS: usize = 2000;
/// Longest metadata string, characters.
pub const MAX_META_CHARS: usize = 1000;
/// Canvas rects must stay within this distance of the origin and below this size (the
/// compositor refuses objects placed absurdly far off-canvas).
pub const MAX_CANVAS_EXTENT: f64 = 4096.0;
/// Smallest narrator side, preview px.
pub const MIN_NARRATOR_SIDE: f64 = 10.0;

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
    /// B, M, O: handled by `overlay_edits`.
    Overlay { field: String, value: Value },
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
    /// One of `overlay_edits::FIELDS` (index into it).
    Overlay(usize),
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
            Family::Overlay(i) => crate::edit::overlay_edits::FIELDS[i],
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
            Edit::Overlay { field, .. } => Family::Overlay(
                crate::edit::overlay_edits::FIELDS
                    .iter()
                    .position(|f| f == field)
                    .unwrap_or(0),
            ),
        }
    }

    /// Whether the edit changes the overlay spec's geometry (refused when it is disabled).
    pub fn needs_spec(&self) -> bool {
        matches!(self, Edit::ObjectRect { .. } | Edit::GroupRect { .. })
    }
}

fn bad(param: &str, message: impl Into<String>) -> Error {
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
pub fn kind_from_extension(url: &str) -> Option<MediaKind> {
    let path = url::Url::parse(url).ok()?.path().to_ascii_lowercase();
    let ext = path.rsplit_once('.')?.1.to_string();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "webp" | "gif" => Some(MediaKind::Image),
        "mp4" | "m4v" | "mov" | "webm" | "mkv" => Some(MediaKind::Video),
        _ => None,
    }
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
pub fn parse_field(name: &str, value: &Value, param: &str) -> Result<Vec<Edit>> {
    let one = |e: Edit| Ok(vec![e]);
    if crate::edit::overlay_edits::FIELDS.contains(&name) {
        return one(Edit::Overlay {
            field: name.to_string(),
            value: value.clone(),
        });
    }
    if DISABLE_FIELDS.contains(&name) {
        let on = match value {
            Value::Bool(b) => *b,
            Value::Null => true,
            Value::String(s) => matches!(
                s.to_ascii_lowercase().as_str(),
                "true" | "none" | "disable" | "disabled" | "yes" | ""
            ),
            Value::Number(n) => n.as_f64() == Some(1.0),
            _ => false,
        };
        if !on {
            return Err(bad(
                param,
                "To re-enable an overlay, upload one with `remotion.upload_overlay`.",
            ));
        }
        return one(Edit::DisableOverlay);
    }
    match name {
        "mediaUrl" | "media_url" => one(Edit::Background {
            url: url_value(value, param)?,
            kind: None,
        }),
        "mediaType" | "media_type" => {
            // Only meaningful beside mediaUrl; merged by `parse_fields`.
            one(Edit::Background {
                url: String::new(),
                kind: Some(media_kind(value, param)?),
            })
        }
        "remotion.object.rect" => {
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
            one(Edit::ObjectRect {
                layout_id: layout_id.to_string(),
                rect: canvas_rect(value, param, true)?,
            })
        }
        "remotion.group.rect" => {
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
            one(Edit::GroupRect {
                id: id.to_string(),
                rect: canvas_rect(value, param, false)?,
                scale_children: flag("scale_children", true)?,
                wrapper_only,
            })
        }
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
        | "overlay.narrator.h" => {
            let v = num(value.get("value").unwrap_or(value), param)?;
            let mut p = RectPatch::default();
            match &name[name.len() - 1..] {
                "x" => p.x = Some(v),
                "y" => p.y = Some(v),
                "w" => p.w = Some(v),
                _ => p.h = Some(v),
            }
            one(Edit::NarratorRect(p))
        }
        "overlay.caption.y" => {
            let v = value.get("y").unwrap_or(value);
            one(Edit::CaptionY(num(v, param)?))
        }
        "overlay.caption.x"
        | "overlay.caption.w"
        | "overlay.caption.h"
        | "overlay.caption.rect" => Err(Error::new(
            Code::InvalidFieldName,
            "Only `overlay.caption.y` of the caption can be changed.",
        )
        .param("fields")),
        "layout.batch" => {
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
                let p = format!("{param}[{i}].value");
                let edits = parse_field(n, v, &p)?;
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
        "segment.text" | "text" => {
            let t = string(value, param, MAX_TEXT_CHARS)?;
            if t.split_whitespace().next().is_none() {
                return Err(bad(param, "`segment.text` must contain words."));
            }
            one(Edit::Text(t))
        }
        "type" | "scene_type" => one(Edit::Meta(Meta::SceneType(scene_type(value, param)?))),
        "pattern" => one(Edit::Meta(Meta::Pattern(pattern(value, param)?))),
        "quote" => one(Edit::Meta(Meta::Quote(string(
            value,
            param,
            MAX_META_CHARS,
        )?))),
        "visual" => one(Edit::Meta(Meta::Visual(string(
            value,
            param,
            MAX_META_CHARS,
        )?))),
        "keyword" => one(Edit::Meta(Meta::Keyword(string(
            value,
            param,
            MAX_META_CHARS,
        )?))),
        "talking_point" => one(Edit::Meta(Meta::TalkingPoint(string(
            value,
            param,
            MAX_META_CHARS,
        )?))),
        "typography_only" => one(Edit::Meta(Meta::TypographyOnly(boolean(value, param)?))),
        _ => Err(unknown_field(name)),
    }
}

/// Parses the envelope's `fields` into edits of one family. Checks everything that does not
/// need the document: names, value shapes, one family per call, N alone, `mediaType` beside
/// `mediaUrl`.
pub fn parse_fields(fields: Option<&Value>) -> Result<(Family, Vec<Edit>)> {
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
    // One family per call.
    let family = edits[0].family();
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
        Family::Disable if items.len() > 1 => {
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
    Ok((family, edits))
}

/// A downloaded background, ready to attach (branch A). The file is already in the video's
/// folder under a fresh name; the caller deletes it when the edit is rejected.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedMedia {
    pub url: String,
    pub kind: MediaKind,
    pub file: String,
}

/// What applying needs besides the document.
pub struct Inputs<'a> {
    /// Retimes words for branch K.
    pub voice: &'a dyn VoiceProvider,
    /// Branch A's downloaded file.
    pub media: Option<&'a PreparedMedia>,
    /// The target scene's overlay spec (loaded by the caller when an edit needs it).
    pub spec: Option<&'a mut OverlaySpec>,
}

/// Applies `edits` (one family) to scene `index`. Returns the `applied` object and whether the
/// spec changed. On error the caller drops the clone: nothing changed.
pub fn apply(
    inputs: Inputs<'_>,
    doc: &mut VideoDocument,
    index: usize,
    edits: &[Edit],
) -> Result<(Value, bool)> {
    let Inputs { voice, media, spec } = inputs;
    let mut spec = spec;
    let mut applied = Map::new();
    let mut spec_changed = false;
    let voice_id = voice_id_of(doc);
    let seg = doc
        .segments
        .get_mut(index)
        .ok_or_else(|| Error::internal("scene index out of range"))?;
    if edits.iter().any(Edit::needs_spec) && seg.overlay_disabled() {
        return Err(disabled());
    }
    let mut narrator = seg.narrator_rect;
    let mut narrator_set = false;
    for e in edits {
        match e {
            Edit::Background { .. } => {
                let m = media.ok_or_else(|| Error::internal("background not prepared"))?;
                apply_background(seg, m);
                applied.insert("mediaUrl".into(), json!(m.url));
                applied.insert("mediaType".into(), json!(m.kind.as_str()));
                applied.insert("lane".into(), json!(seg.roll));
            }
            Edit::ObjectRect { layout_id, rect } => {
                let s = spec.as_deref_mut().ok_or_else(no_spec)?;
                let moved = move_object(s, layout_id, *rect)?;
                spec_changed = true;
                push(
                    &mut applied,
                    "remotion.object.rect",
                    json!({
                        "layout_id": layout_id,
                        "rect_canvas": rect_json(*rect),
                        "rect": rect_json(rect.to_preview()),
                        "moved_objects": moved,
                    }),
                );
            }
            Edit::GroupRect {
                id,
                rect,
                scale_children,
                wrapper_only,
            } => {
                let s = spec.as_deref_mut().ok_or_else(no_spec)?;
                let children = if *wrapper_only {
                    Children::Keep
                } else if *scale_children {
                    Children::Scale
                } else {
                    Children::Translate
                };
                move_group(s, id, *rect, children)?;
                spec_changed = true;
                push(
                    &mut applied,
                    "remotion.group.rect",
                    json!({
                        "id": id,
                        "rect_canvas": rect_json(*rect),
                        "rect": rect_json(rect.to_preview()),
                        "scale_children": scale_children,
                        "wrapper_only": wrapper_only,
                    }),
                );
            }
            Edit::NarratorRect(p) => {
                narrator.x = p.x.unwrap_or(narrator.x);
                narrator.y = p.y.unwrap_or(narrator.y);
                narrator.w = p.w.unwrap_or(narrator.w);
                narrator.h = p.h.unwrap_or(narrator.h);
                narrator_set = true;
            }
            Edit::CaptionY(y) => {
                let max = 498.0 - seg.caption_rect.h;
                if !(0.0..=max).contains(y) {
                    return Err(bad(
                        "fields",
                        format!("`overlay.caption.y` must be from 0 to {max} (preview px)."),
                    ));
                }
                seg.caption_rect.y = *y;
                applied.insert("overlay.caption.y".into(), json!(y));
            }
            Edit::Roll(change) => {
                let to = match change {
                    RollChange::Set(r) => *r,
                    RollChange::Toggle if seg.is_a_roll() => Roll::BRoll,
                    RollChange::Toggle => Roll::ARoll,
                };
                let from = std::mem::replace(&mut seg.roll, to);
                applied.insert("roll".into(), json!({ "from": from, "to": to }));
            }
            Edit::Text(t) => {
                seg.words = retime(voice, t, &voice_id, seg.duration);
                seg.text = t.clone();
                applied.insert("segment.text".into(), json!(t));
                applied.insert("duration".into(), json!(seg.duration));
                applied.insert("word_count".into(), json!(seg.words.len()));
            }
            Edit::Meta(m) => apply_meta(seg, m, &mut applied),
            Edit::DisableOverlay => {
                seg.remotion_spec = SPEC_DISABLED.to_string();
                applied.insert("remotion_spec".into(), json!(SPEC_DISABLED));
                applied.insert("remotion_spec_state".into(), json!("disabled"));
            }
            Edit::VoiceUpload { .. } | Edit::NarratorVideo { .. } | Edit::Overlay { .. } => {
                return Err(Error::internal(
                    "asynchronous or overlay edit applied inline",
                ));
            }
        }
    }
    if narrator_set {
        check_narrator_rect(&narrator)?;
        seg.narrator_rect = narrator;
        seg.narrator_touched = true;
        applied.insert("overlay.narrator.rect".into(), json!(narrator));
        applied.insert("overlay.narrator.touched".into(), json!(true));
    }
    if edits.iter().any(|e| matches!(e, Edit::Text(_))) {
        doc.script = doc
            .segments
            .iter()
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
    }
    Ok((Value::Object(applied), spec_changed))
}

fn push(applied: &mut Map<String, Value>, key: &str, v: Value) {
    match applied.get_mut(key) {
        Some(Value::Array(a)) => a.push(v),
        _ => {
            applied.insert(key.into(), Value::Array(vec![v]));
        }
    }
}

pub fn disabled() -> Error {
    Error::new(
        Code::RemotionSpecDisabled,
        "This scene's overlay is disabled (`none`); upload an overlay before changing its layout.",
    )
    .param("fields")
}

fn no_spec() -> Error {
    Error::new(
        Code::OverlayNotAvailable,
        "This scene has no overlay spec yet, so it has no objects or groups to move.",
    )
    .param("fields")
}

/// A rect as JSON, rounded to 1/1000 px (conversions leave float noise).
fn rect_json<S>(r: compositor::geom::Rect<S>) -> Value {
    let k = |v: f64| (v * 1000.0).round() / 1000.0;
    json!({ "x": k(r.x), "y": k(r.y), "w": k(r.w), "h": k(r.h) })
}

/// The voice the document was narrated with.
pub fn voice_id_of(doc: &VideoDocument) -> String {
    if !doc.voice_id.is_empty() {
        doc.voice_id.clone()
    } else if doc.language.eq_ignore_ascii_case("vietnamese") {
        "vi".into()
    } else {
        "en-us".into()
    }
}

/// The narrator rect must keep a usable size and at least 10×10 preview px on screen.
pub fn check_narrator_rect(r: &PreviewRect) -> Result<()> {
    let ok = [r.x, r.y, r.w, r.h].iter().all(|v| v.is_finite())
        && r.w >= MIN_NARRATOR_SIDE
        && r.h >= MIN_NARRATOR_SIDE
        && r.w <= 2.0 * 280.0
        && r.h <= 2.0 * 498.0
        && r.x <= 280.0 - MIN_NARRATOR_SIDE
        && r.y <= 498.0 - MIN_NARRATOR_SIDE
        && r.x + r.w >= MIN_NARRATOR_SIDE
        && r.y + r.h >= MIN_NARRATOR_SIDE;
    if ok {
        Ok(())
    } else {
        Err(bad(
            "fields",
            "The narrator rect (280×498 preview) needs sides of at least 10 px, at most twice the preview, and 10×10 px on screen.",
        ))
    }
}

fn apply_background(seg: &mut Segment, m: &PreparedMedia) {
    let bg = match m.kind {
        MediaKind::Image => Background::Image {
            file: m.file.clone(),
        },
        MediaKind::Video => Background::Video {
            file: m.file.clone(),
        },
    };
    // The B-roll lane (background) always takes the asset, so a later roll switch shows it.
    seg.background = bg;
    seg.broll_url = m.url.clone();
    seg.broll_thumbnail_url = m.url.clone();
    seg.video_trim = None;
    if seg.is_a_roll() {
        // The narrator stays on screen; the asset sits beside it.
        seg.user_asset_url = m.url.clone();
    } else {
        seg.media_url = m.url.clone();
        seg.media_type = Some(m.kind);
        seg.thumbnail_url = m.url.clone();
    }
}

fn apply_meta(seg: &mut Segment, m: &Meta, applied: &mut Map<String, Value>) {
    match m {
        Meta::SceneType(t) => {
            seg.scene_type = Some(*t);
            applied.insert("type".into(), json!(t));
        }
        Meta::Pattern(p) => {
            seg.pattern = p.to_string();
            applied.insert("pattern".into(), json!(p));
        }
        Meta::Quote(q) => {
            seg.quote = q.clone();
            applied.insert("quote".into(), json!(q));
        }
        Meta::Visual(v) => {
            seg.visual = v.clone();
            applied.insert("visual".into(), json!(v));
        }
        Meta::Keyword(k) => {
            seg.keyword = k.clone();
            applied.insert("keyword".into(), json!(k));
        }
        Meta::TalkingPoint(t) => {
            seg.talking_point = t.clone();
            applied.insert("talking_point".into(), json!(t));
        }
        Meta::TypographyOnly(on) => {
            seg.typography_only = *on;
            if *on {
                seg.visual.clear();
                applied.insert("visual".into(), json!(""));
            }
            applied.insert("typography_only".into(), json!(on));
        }
    }
}

/// Word timings for `text` over audio of `duration` seconds (branches K and H).
///
/// The text is synthesised with the document's voice only to learn each word's relative timing;
/// those timings are scaled linearly so the last word ends where the narration's audio ends
/// (`duration`); the audio itself is not replaced. When synthesis fails, words are spread over
/// the duration in proportion to their length (plus one character for the gap).
pub fn retime(
    voice: &dyn VoiceProvider,
    text: &str,
    voice_id: &str,
    duration: f64,
) -> Vec<TimedWord> {
    let duration = duration.max(0.0);
    if let Ok(n) = voice.synthesize(text, voice_id)
        && n.duration() > 0.0
        && !n.words.is_empty()
    {
        let k = duration / n.duration();
        return n
            .words
            .iter()
            .map(|w| TimedWord {
                word: w.word.clone(),
                start: (w.start * k).min(duration),
                end: (w.end * k).min(duration),
            })
            .collect();
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let total: usize = words.iter().map(|w| w.chars().count() + 1).sum();
    let mut t = 0.0;
    words
        .iter()
        .map(|w| {
            let len = duration * (w.chars().count() + 1) as f64 / total.max(1) as f64;
            let word = TimedWord {
                word: w.to_string(),
                start: t,
                end: (t + len * 0.9).min(duration),
            };
            t += len;
            word
        })
        .collect()
}

/// Suffix of a logical id that addresses every timed object of a group at once.
pub const ONE_BY_ONE_SUFFIX: &str = ".one_by_one";

fn bbox(rects: impl Iterator<Item = CanvasRect>) -> Option<CanvasRect> {
    rects.fold(None, |acc: Option<CanvasRect>, r| {
        Some(match acc {
            None => r,
            Some(a) => {
                let x0 = a.x.min(r.x);
                let y0 = a.y.min(r.y);
                let x1 = (a.x + a.w).max(r.x + r.w);
                let y1 = (a.y + a.h).max(r.y + r.h);
                CanvasRect::new(x0, y0, x1 - x0, y1 - y0)
            }
        })
    })
}

/// The bounding rect of a group's objects (canvas).
pub fn objects_bbox(group: &compositor::spec::SpecGroup) -> Option<CanvasRect> {
    bbox(group.objects.iter().map(|o| o.rect))
}

/// Maps `r` from frame `from` to frame `to` (translate, and scale when `scale`).
fn remap(r: CanvasRect, from: CanvasRect, to: CanvasRect, scale: bool) -> CanvasRect {
    let (sx, sy) = if scale {
        (to.w / from.w, to.h / from.h)
    } else {
        (1.0, 1.0)
    };
    CanvasRect::new(
        to.x + (r.x - from.x) * sx,
        to.y + (r.y - from.y) * sy,
        r.w * sx,
        r.h * sy,
    )
}

/// Branch C. An object id sets that object's rect. A logical `{group}.one_by_one` id moves the
/// group's timed items together: `rect` is their new bounding box, each item keeps its place
/// and size relative to it (and the group frame follows). Returns the moved layout ids.
pub fn move_object(
    spec: &mut OverlaySpec,
    layout_id: &str,
    rect: CanvasRect,
) -> Result<Vec<String>> {
    if let Some(o) = spec.object_mut(layout_id) {
        o.rect = rect;
        return Ok(vec![layout_id.to_string()]);
    }
    if let Some(gid) = layout_id.strip_suffix(ONE_BY_ONE_SUFFIX)
        && let Some(g) = spec
            .groups
            .iter_mut()
            .find(|g| g.id == gid && !g.objects.is_empty())
    {
        let from = objects_bbox(g).expect("group has objects");
        if from.w <= 0.0 || from.h <= 0.0 {
            return Err(bad("fields", "The group's items have no area to scale."));
        }
        for o in &mut g.objects {
            o.rect = remap(o.rect, from, rect, true);
        }
        g.rect = remap(g.rect, from, rect, true);
        return Ok(g.objects.iter().map(|o| o.layout_id.clone()).collect());
    }
    Err(bad(
        "fields",
        format!(
            "No object `{layout_id}` in this scene's overlay (see scene_geometry's object_layer)."
        ),
    )
    .details(json!({ "layout_ids": object_layer_ids(spec) })))
}

/// The ids `remotion.object.rect` accepts: one logical id per one-by-one group, every other
/// object by its own id.
pub fn object_layer_ids(spec: &OverlaySpec) -> Vec<String> {
    let mut out = Vec::new();
    for g in &spec.groups {
        if g.temporal_policy == TemporalPolicy::OneByOne && g.objects.len() > 1 {
            out.push(format!("{}{ONE_BY_ONE_SUFFIX}", g.id));
        } else {
            out.extend(g.objects.iter().map(|o| o.layout_id.clone()));
        }
    }
    out
}

/// What a group's children do when its frame changes (branch D).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Children {
    /// Move and scale with the frame (`scale_children`, the default).
    Scale,
    /// Move with the frame, keep their size (`scale_children: false`).
    Translate,
    /// Stay exactly where they are (`wrapper_only`, advanced).
    Keep,
}

/// Branch D. Sets the group frame (not clamped: negative y is allowed) and moves its children
/// as `children` says.
pub fn move_group(
    spec: &mut OverlaySpec,
    id: &str,
    rect: CanvasRect,
    children: Children,
) -> Result<()> {
    let Some(g) = spec.groups.iter_mut().find(|g| g.id == id) else {
        let ids: Vec<&str> = spec.groups.iter().map(|g| g.id.as_str()).collect();
        return Err(bad(
            "fields",
            format!("No group `{id}` in this scene's overlay."),
        )
        .details(json!({ "group_ids": ids })));
    };
    let from = g.rect;
    g.rect = rect;
    let scale = match children {
        Children::Keep => return Ok(()),
        Children::Scale => from.w > 0.0 && from.h > 0.0,
        Children::Translate => false,
    };
    for o in &mut g.objects {
        o.rect = remap(o.rect, from, rect, scale);
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::build::voice::{Narration, VoiceError, VoiceInfo};
    use crate::core::document::{CAPTION_RECT, NARRATOR_RECT};
    use compositor::plan::Animation;
    use compositor::spec::{ObjectKind, SpecGroup, SpecObject, SpecPayload, SpecSource};

    /// Half a second per word, so timings are easy to predict.
    pub(crate) struct FakeVoice;

    impl VoiceProvider for FakeVoice {
        fn synthesize(&self, text: &str, _voice: &str) -> Result<Narration, VoiceError> {
            let words: Vec<TimedWord> = text
                .split_whitespace()
                .enumerate()
                .map(|(i, w)| TimedWord {
                    word: w.into(),
                    start: i as f64 * 0.5,
                    end: i as f64 * 0.5 + 0.4,
                })
                .collect();
            Ok(Narration {
                sample_rate: 48_000,
                samples: vec![0; words.len() * 24_000],
                words,
            })
        }
        fn voices(&self) -> Vec<VoiceInfo> {
            Vec::new()
        }
    }

    pub(crate) fn doc() -> VideoDocument {
        let seg = |i: u32, roll: Roll| Segment {
            voice_file: format!("v{i}"),
            id: i,
            roll,
            text: "one two three four".into(),
            visual: "a city at night".into(),
            duration: 4.0,
            caption_rect: CAPTION_RECT,
            narrator_rect: NARRATOR_RECT,
            remotion_spec: "1".into(),
            ..Default::default()
        };
        let mut d =
            crate::edit::scenes::test_doc("wcDoc", vec![seg(1, Roll::ARoll), seg(2, Roll::BRoll)]);
        d.voice_id = "en-us".into();
        d.public_key = "k".into();
        d
    }

    fn object(id: &str, rect: CanvasRect) -> SpecObject {
        SpecObject {
            layout_id: id.into(),
            kind: ObjectKind::Text,
            text: Some("HI".into()),
            rect,
            z: 0,
            animation: Animation::Fade,
            start: 0.0,
            end: None,
            payload: SpecPayload::Svg {
                file: format!("{id}.svg"),
            },
        }
    }

    pub(crate) fn spec() -> OverlaySpec {
        let mut s = OverlaySpec::new(SpecSource::Generated);
        s.groups.push(SpecGroup {
            id: "g1".into(),
            rect: CanvasRect::new(100.0, 200.0, 400.0, 400.0),
            temporal_policy: TemporalPolicy::Scene,
            objects: vec![object("title", CanvasRect::new(100.0, 200.0, 200.0, 100.0))],
        });
        s.groups.push(SpecGroup {
            id: "list".into(),
            rect: CanvasRect::new(60.0, 700.0, 600.0, 300.0),
            temporal_policy: TemporalPolicy::OneByOne,
            objects: vec![
                object("i1", CanvasRect::new(60.0, 700.0, 600.0, 100.0)),
                object("i2", CanvasRect::new(60.0, 900.0, 600.0, 100.0)),
            ],
        });
        s
    }

    fn parse1(name: &str, value: Value) -> Result<Vec<Edit>> {
        parse_field(name, &value, "fields[0].value")
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
                    rect: PreviewRect::new(28.0, 49.8, 140.0, 99.6).to_canvas(),
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

    #[test]
    fn envelope_fields() {
        let fam = |v: Value| parse_fields(Some(&v)).map(|(f, e)| (f, e.len()));
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

    fn run(
        doc: &mut VideoDocument,
        index: usize,
        edits: &[Edit],
        spec: Option<&mut OverlaySpec>,
    ) -> Result<(Value, bool)> {
        apply(
            Inputs {
                voice: &FakeVoice,
                media: None,
                spec,
            },
            doc,
            index,
            edits,
        )
    }

    #[test]
    fn background_swap_follows_the_lane() {
        let m = PreparedMedia {
            url: "https://x.example/a.png".into(),
            kind: MediaKind::Image,
            file: "media_1.png".into(),
        };
        let e = [Edit::Background {
            url: m.url.clone(),
            kind: None,
        }];
        let mut d = doc();
        // B-roll: the asset is the background and every synced field.
        let inputs = |m| Inputs {
            voice: &FakeVoice,
            media: Some(m),
            spec: None,
        };
        apply(inputs(&m), &mut d, 1, &e).unwrap();
        let s = &d.segments[1];
        assert_eq!(
            s.background,
            Background::Image {
                file: "media_1.png".into()
            }
        );
        for u in [
            &s.media_url,
            &s.thumbnail_url,
            &s.broll_url,
            &s.broll_thumbnail_url,
        ] {
            assert_eq!(u, &m.url);
        }
        assert_eq!(s.media_type, Some(MediaKind::Image));
        // A-roll: the narrator stays; the asset becomes brollUrl and user_asset_url.
        let before = d.segments[0].clone();
        apply(inputs(&m), &mut d, 0, &e).unwrap();
        let s = &d.segments[0];
        assert_eq!(s.roll, Roll::ARoll);
        assert_eq!(s.narrator_rect, before.narrator_rect);
        assert_eq!(s.media_url, before.media_url);
        assert_eq!(s.broll_url, m.url);
        assert_eq!(s.user_asset_url, m.url);
    }

    #[test]
    fn object_rects_convert_and_one_by_one_moves_all_items() {
        let mut d = doc();
        let mut s = spec();
        // Preview → canvas through geom: (28, 49.8) preview is (72, 128) canvas.
        let e = parse1(
            "remotion.object.rect",
            json!({"layout_id": "title", "x": 28, "y": 49.8, "w": 140, "h": 99.6}),
        )
        .unwrap();
        let (applied, changed) = run(&mut d, 0, &e, Some(&mut s)).unwrap();
        assert!(changed);
        let r = s.groups[0].objects[0].rect;
        assert!(
            (r.x - 72.0).abs() < 1e-9
                && (r.y - 128.0).abs() < 1e-9
                && (r.w - 360.0).abs() < 1e-9
                && (r.h - 256.0).abs() < 1e-9,
            "{r:?}"
        );
        assert_eq!(applied["remotion.object.rect"][0]["rect"]["x"], json!(28.0));
        // The logical id moves both items: bbox (60,700,600,300) → (0,100,300,150).
        let e = parse1("remotion.object.rect", json!({"layout_id": "list.one_by_one", "x": 0, "y": 100, "w": 300, "h": 150, "coordinate_space": "canvas"})).unwrap();
        run(&mut d, 0, &e, Some(&mut s)).unwrap();
        let items: Vec<CanvasRect> = s.groups[1].objects.iter().map(|o| o.rect).collect();
        assert_eq!(
            items,
            vec![
                CanvasRect::new(0.0, 100.0, 300.0, 50.0),
                CanvasRect::new(0.0, 200.0, 300.0, 50.0)
            ]
        );
        // Unknown id: named, nothing changed.
        let before = s.clone();
        let e = parse1(
            "remotion.object.rect",
            json!({"layout_id": "nope", "x": 0, "y": 0, "w": 5, "h": 5}),
        )
        .unwrap();
        let err = run(&mut d, 0, &e, Some(&mut s)).unwrap_err();
        assert_eq!(err.code, Code::InvalidValue);
        assert_eq!(s, before);
        // No spec at all → overlay_not_available.
        assert_eq!(
            run(&mut d, 0, &e, None).unwrap_err().code,
            Code::OverlayNotAvailable
        );
    }

    #[test]
    fn group_rects_scale_translate_or_keep_children() {
        let g = |s: &OverlaySpec| (s.groups[0].rect, s.groups[0].objects[0].rect);
        // Scale (default): frame (100,200,400,400) → (0,-40,800,200); child (100,200,200,100).
        let mut s = spec();
        let e = parse1(
            "remotion.group.rect",
            json!({"id": "g1", "x": 0, "y": -40, "w": 800, "h": 200}),
        )
        .unwrap();
        run(&mut doc(), 0, &e, Some(&mut s)).unwrap();
        assert_eq!(
            g(&s),
            (
                CanvasRect::new(0.0, -40.0, 800.0, 200.0),
                CanvasRect::new(0.0, -40.0, 400.0, 50.0)
            )
        );
        // Translate only.
        let mut s = spec();
        let e = parse1(
            "remotion.group.rect",
            json!({"id": "g1", "x": 110, "y": 190, "w": 50, "h": 50, "scale_children": false}),
        )
        .unwrap();
        run(&mut doc(), 0, &e, Some(&mut s)).unwrap();
        assert_eq!(g(&s).1, CanvasRect::new(110.0, 190.0, 200.0, 100.0));
        // Wrapper only.
        let mut s = spec();
        let e = parse1(
            "remotion.group.rect",
            json!({"id": "g1", "x": 0, "y": 0, "w": 720, "h": 1280, "wrapper_only": true}),
        )
        .unwrap();
        run(&mut doc(), 0, &e, Some(&mut s)).unwrap();
        assert_eq!(
            g(&s),
            (
                CanvasRect::new(0.0, 0.0, 720.0, 1280.0),
                CanvasRect::new(100.0, 200.0, 200.0, 100.0)
            )
        );
        let e = parse1(
            "remotion.group.rect",
            json!({"id": "zz", "x": 0, "y": 0, "w": 1, "h": 1}),
        )
        .unwrap();
        assert_eq!(
            run(&mut doc(), 0, &e, Some(&mut spec())).unwrap_err().code,
            Code::InvalidValue
        );
    }

    #[test]
    fn layout_edits_on_a_disabled_overlay_are_refused() {
        let mut d = doc();
        d.segments[0].remotion_spec = SPEC_DISABLED.into();
        let e = parse1(
            "remotion.object.rect",
            json!({"layout_id": "title", "x": 0, "y": 0, "w": 5, "h": 5}),
        )
        .unwrap();
        assert_eq!(
            run(&mut d, 0, &e, Some(&mut spec())).unwrap_err().code,
            Code::RemotionSpecDisabled
        );
        // Narrator and caption are not part of the overlay.
        let e = parse1("overlay.caption.y", json!(200)).unwrap();
        assert!(run(&mut d, 0, &e, None).is_ok());
    }

    #[test]
    fn narrator_and_caption_layout() {
        let mut d = doc();
        let e = parse1("overlay.narrator.x", json!(20)).unwrap();
        run(&mut d, 0, &e, None).unwrap();
        let s = &d.segments[0];
        assert_eq!(
            s.narrator_rect,
            PreviewRect::new(20.0, NARRATOR_RECT.y, NARRATOR_RECT.w, NARRATOR_RECT.h)
        );
        assert!(s.narrator_touched);
        for (v, ok) in [
            (json!({"x": 0, "y": 0, "w": 280, "h": 498}), true),
            (json!({"x": 275, "y": 0, "w": 100, "h": 100}), false),
            (json!({"x": 0, "y": 0, "w": 5, "h": 100}), false),
        ] {
            let mut d = doc();
            let e = parse1("overlay.narrator.rect", v.clone()).unwrap();
            let r = run(&mut d, 0, &e, None);
            assert_eq!(r.is_ok(), ok, "{v}");
            if !ok {
                assert!(
                    !d.segments[0].narrator_touched && d.segments[0].narrator_rect == NARRATOR_RECT
                );
            }
        }
        for (y, ok) in [(0.0, true), (438.0, true), (438.5, false), (-1.0, false)] {
            let mut d = doc();
            let r = run(&mut d, 0, &[Edit::CaptionY(y)], None);
            assert_eq!(r.is_ok(), ok, "{y}");
            assert_eq!(
                d.segments[0].caption_rect.y,
                if ok { y } else { CAPTION_RECT.y }
            );
            assert_eq!(
                d.segments[0].caption_rect.h, CAPTION_RECT.h,
                "only y changes"
            );
        }
    }

    #[test]
    fn roll_switch_keeps_both_lanes() {
        let mut d = doc();
        d.segments[0].broll_url = "https://x.example/b.png".into();
        let before = d.segments[0].clone();
        run(&mut d, 0, &[Edit::Roll(RollChange::Toggle)], None).unwrap();
        assert_eq!(d.segments[0].roll, Roll::BRoll);
        run(&mut d, 0, &[Edit::Roll(RollChange::Set(Roll::ARoll))], None).unwrap();
        let s = &d.segments[0];
        assert_eq!(
            (s.roll, &s.background, &s.broll_url, s.narrator_rect),
            (
                Roll::ARoll,
                &before.background,
                &before.broll_url,
                before.narrator_rect
            )
        );
    }

    #[test]
    fn text_edit_retimes_words_over_the_same_duration() {
        let mut d = doc();
        run(
            &mut d,
            0,
            &[Edit::Text("alpha beta gamma delta epsilon".into())],
            None,
        )
        .unwrap();
        let s = &d.segments[0];
        assert_eq!(s.duration, 4.0, "duration unchanged");
        assert_eq!(s.words.len(), 5);
        assert_eq!(s.words[4].word, "epsilon");
        // Fake voice: 2.5 s of speech scaled to 4 s; word 4 starts at 2.0 · 1.6 = 3.2.
        assert!((s.words[4].start - 3.2).abs() < 1e-9, "{:?}", s.words[4]);
        assert!(s.words.iter().all(|w| w.end <= 4.0));
        assert!(d.script.starts_with("alpha beta"));
        // The fallback without a voice spreads words over the duration.
        struct Mute;
        impl VoiceProvider for Mute {
            fn synthesize(&self, _: &str, v: &str) -> Result<Narration, VoiceError> {
                Err(VoiceError::UnknownVoice(v.into()))
            }
            fn voices(&self) -> Vec<VoiceInfo> {
                Vec::new()
            }
        }
        let w = retime(&Mute, "aa bb", "x", 2.0);
        assert_eq!(w.len(), 2);
        assert!((w[1].start - 1.0).abs() < 1e-9 && w[1].end <= 2.0);
    }

    #[test]
    fn metadata_edits() {
        let mut d = doc();
        let edits = [
            Edit::Meta(Meta::SceneType(SceneType::Stat)),
            Edit::Meta(Meta::Pattern("list")),
            Edit::Meta(Meta::TypographyOnly(true)),
        ];
        let (applied, _) = run(&mut d, 1, &edits, None).unwrap();
        let s = &d.segments[1];
        assert_eq!(
            (
                s.scene_type,
                s.pattern.as_str(),
                s.visual.as_str(),
                s.typography_only
            ),
            (Some(SceneType::Stat), "list", "", true)
        );
        assert_eq!(applied["visual"], "");
        assert!(PATTERNS.iter().all(|p| pattern(&json!(p), "p").is_ok()));
        assert!(
            SceneType::NAMES
                .iter()
                .all(|t| scene_type(&json!(t), "t").is_ok())
        );
    }

    #[test]
    fn disabling_keeps_files_and_blocks_layout() {
        let mut d = doc();
        run(&mut d, 0, &[Edit::DisableOverlay], None).unwrap();
        assert_eq!(d.segments[0].remotion_spec, SPEC_DISABLED);
        assert!(d.segments[0].overlay_disabled());
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
}
