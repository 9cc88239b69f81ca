//! The typed values of modify_scene branches B (`remotion.upload_overlay`), M
//! (`remotion.add_element`) and O (`overlay.text_edit`): each value is read here (every check
//! that needs no document, with the branch's own messages) when the request is parsed, so a bad
//! value answers 400 before the video or the scene is looked up; `overlay_edits` applies them.
//! Every error names `fields[].value`, the `param` these branches have always answered with
//! (their download and conversion errors, raised while applying, name it too).
//!
//! Object values are read [`Fields`]-style: a member that is `null` is absent.

use compositor::geom::{CANVAS_H, CANVAS_W, CanvasRect, PreviewRect};
use compositor::spec::ObjectKind;
use serde_json::Value;
use typography::design::Rgb;

use foundation::error::{Code, Error, Result};
use foundation::fields::Fields;

/// The `param` of every B/M/O value error.
pub(crate) const VALUE_PARAM: &str = "fields[].value";
/// Longest element text (after trimming), characters.
pub(crate) const MAX_ELEMENT_TEXT: usize = 300;
/// Most lines of one text edit.
pub(crate) const MAX_LINES: usize = 20;
/// Largest side of an added element's rect, canvas px.
pub(crate) const MAX_ELEMENT_SIDE: f64 = 4096.0;
/// The `kind` of an image element (the other kinds are [`TextKind`]s).
pub(crate) const IMAGE_KIND: &str = "image";

foundation::document::wire_enum! {
    /// The overlay design fields, one family each.
    pub enum OverlayField {
        UploadOverlay = "remotion.upload_overlay",
        AddElement = "remotion.add_element",
        TextEdit = "overlay.text_edit",
    }
}

foundation::document::wire_enum! {
    /// The kinds of text element M adds.
    pub enum TextKind {
        Text = "text",
        Stat = "stat",
        Label = "label",
        Callout = "callout",
    }
}

foundation::document::wire_enum! {
    /// M's named places (`centre` is read as `center`).
    pub enum Position {
        Top = "top",
        Bottom = "bottom",
        Left = "left",
        Right = "right",
        Center = "center",
    }
}

foundation::document::wire_enum! {
    /// The space of M's `rect`: the 280×498 editor preview (default) or the 720×1280 canvas.
    pub enum RectSpace {
        Preview = "preview",
        Canvas = "canvas",
    }
}

/// One parsed B/M/O value.
#[derive(Debug, Clone, PartialEq)]
pub enum OverlayEdit {
    /// B: the overlay to download (http(s), trimmed).
    Upload { url: String },
    /// M.
    AddElement(AddElement),
    /// O.
    TextEdit(TextEdit),
}

/// M: one element to add.
#[derive(Debug, Clone, PartialEq)]
pub struct AddElement {
    pub element: Element,
    pub placement: Placement,
    /// `coordinate_space` as sent (`preview` when absent); echoed in `applied`.
    pub space: RectSpace,
}

/// What M's element shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Element {
    /// Text set as outlines (trimmed, 1 to [`MAX_ELEMENT_TEXT`] characters).
    Text { kind: TextKind, text: String },
    /// A downloaded image (http(s), trimmed).
    Image { url: String },
}

/// Where M's element goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Placement {
    Position(Position),
    /// Already in canvas px, positive and overlapping the canvas.
    Rect(CanvasRect),
}

/// O: new lines and/or fill for one `data-wc-object` (at least one of them).
#[derive(Debug, Clone, PartialEq)]
pub struct TextEdit {
    pub wc_object: String,
    /// 1 to [`MAX_LINES`] lines, trimmed.
    pub lines: Option<Vec<String>>,
    pub fill: Option<Rgb>,
}

impl OverlayEdit {
    /// Reads the value of `field`.
    pub fn parse(field: OverlayField, value: &Value) -> Result<OverlayEdit> {
        Ok(match field {
            OverlayField::UploadOverlay => OverlayEdit::Upload {
                url: upload_url(value)?,
            },
            OverlayField::AddElement => OverlayEdit::AddElement(AddElement::parse(value)?),
            OverlayField::TextEdit => OverlayEdit::TextEdit(TextEdit::parse(value)?),
        })
    }

    /// The field the value came from.
    pub fn field(&self) -> OverlayField {
        match self {
            OverlayEdit::Upload { .. } => OverlayField::UploadOverlay,
            OverlayEdit::AddElement(_) => OverlayField::AddElement,
            OverlayEdit::TextEdit(_) => OverlayField::TextEdit,
        }
    }
}

/// A B/M/O value error.
pub(crate) fn bad_value(msg: impl Into<String>) -> Error {
    Error::new(Code::InvalidValue, msg).param(VALUE_PARAM)
}

/// A non-blank http(s) URL, trimmed (the fetcher checks the rest when it downloads).
fn http_url(url: &str) -> Result<String> {
    let url = url.trim();
    if url.is_empty() {
        return Err(bad_value(
            "`remotion.upload_overlay` takes a URL string or `{url}`.",
        ));
    }
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(bad_value("The overlay URL must be http(s)."));
    }
    Ok(url.to_string())
}

/// B: a URL string or `{url}`.
fn upload_url(value: &Value) -> Result<String> {
    let url = match value {
        Value::String(s) => s.as_str(),
        Value::Object(m) => m.get("url").and_then(Value::as_str).unwrap_or(""),
        _ => "",
    };
    http_url(url)
}

/// A JSON value as a message shows it: a string without its quotes.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Position {
    /// A name, trimmed; `centre` is `center`.
    fn read(p: &str) -> Option<Position> {
        match p.trim() {
            "centre" => Some(Position::Center),
            p => Position::parse(p),
        }
    }

    /// The element's canvas rect at this place.
    pub fn rect(self) -> CanvasRect {
        match self {
            Position::Top => CanvasRect::new(60.0, 160.0, 600.0, 200.0),
            Position::Bottom => CanvasRect::new(60.0, 740.0, 600.0, 200.0),
            Position::Left => CanvasRect::new(40.0, 460.0, 310.0, 300.0),
            Position::Right => CanvasRect::new(370.0, 460.0, 310.0, 300.0),
            Position::Center => CanvasRect::new(60.0, 500.0, 600.0, 260.0),
        }
    }
}

impl TextKind {
    pub(crate) fn object_kind(self) -> ObjectKind {
        match self {
            TextKind::Text => ObjectKind::Text,
            TextKind::Stat => ObjectKind::Stat,
            TextKind::Label => ObjectKind::Label,
            TextKind::Callout => ObjectKind::Callout,
        }
    }
}

impl Element {
    /// The kind of object it becomes.
    pub fn kind(&self) -> ObjectKind {
        match self {
            Element::Text { kind, .. } => kind.object_kind(),
            Element::Image { .. } => ObjectKind::Image,
        }
    }
}

impl AddElement {
    /// A string (a text element at the center) or `{kind, text | url, position | rect,
    /// coordinate_space}`. Checks in the order the branch always had: kind, rect numbers,
    /// coordinate space, rect bounds or position, then the text or the image URL.
    fn parse(value: &Value) -> Result<AddElement> {
        let f = match value {
            Value::String(s) => {
                return Ok(AddElement {
                    element: Element::Text {
                        kind: TextKind::Text,
                        text: element_text(Some(s))?,
                    },
                    placement: Placement::Position(Position::Center),
                    space: RectSpace::Preview,
                });
            }
            Value::Object(_) => Fields::of(value)?,
            _ => {
                return Err(bad_value(
                    "`remotion.add_element` takes a string (text) or `{kind, text, position | rect, coordinate_space}`.",
                ));
            }
        };
        let kind = match f.value("kind") {
            None => Some(TextKind::Text),
            Some(k) if k.as_str() == Some(IMAGE_KIND) => None,
            Some(k) => Some(k.as_str().and_then(TextKind::parse).ok_or_else(|| {
                bad_value(format!(
                    "`kind` must be text, stat, label, callout or image, not `{}`.",
                    shown(k)
                ))
            })?),
        };
        let (placement, space) = placement(&f)?;
        let element = match kind {
            Some(kind) => {
                let text = f.value("text").or_else(|| f.value("value"));
                Element::Text {
                    kind,
                    text: element_text(text.and_then(Value::as_str))?,
                }
            }
            None => {
                let url = f
                    .value("url")
                    .or_else(|| f.value("image_url"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad_value("An image element needs `url`."))?;
                Element::Image {
                    url: http_url(url)?,
                }
            }
        };
        Ok(AddElement {
            element,
            placement,
            space,
        })
    }

    /// The element's canvas rect.
    pub fn rect(&self) -> CanvasRect {
        match self.placement {
            Placement::Position(p) => p.rect(),
            Placement::Rect(r) => r,
        }
    }
}

/// A text element's text: trimmed, non-empty, at most [`MAX_ELEMENT_TEXT`] characters.
fn element_text(text: Option<&str>) -> Result<String> {
    let text = text
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| bad_value("A text element needs non-empty `text`."))?;
    if text.chars().count() > MAX_ELEMENT_TEXT {
        return Err(bad_value(format!(
            "An element's `text` may have at most {MAX_ELEMENT_TEXT} characters."
        )));
    }
    Ok(text.to_string())
}

/// M's `coordinate_space`; absent means preview.
fn rect_space(f: &Fields<'_>) -> Result<RectSpace> {
    let Some(v) = f.value("coordinate_space") else {
        return Ok(RectSpace::Preview);
    };
    v.as_str().and_then(RectSpace::parse).ok_or_else(|| {
        bad_value(format!(
            "`coordinate_space` must be `preview` (280×498, default) or `canvas` (720×1280), not `{}`.",
            shown(v)
        ))
    })
}

/// M's `rect` (which wins over `position`) or `position` (center when absent), and the space.
fn placement(f: &Fields<'_>) -> Result<(Placement, RectSpace)> {
    if let Some(r) = f.value("rect") {
        let n = |k: &str| r.get(k).and_then(Value::as_f64);
        let (Some(x), Some(y), Some(w), Some(h)) = (n("x"), n("y"), n("w"), n("h")) else {
            return Err(bad_value("`rect` needs numeric x, y, w, h."));
        };
        let space = rect_space(f)?;
        let rect = match space {
            RectSpace::Preview => PreviewRect::new(x, y, w, h).to_canvas(),
            RectSpace::Canvas => CanvasRect::new(x, y, w, h),
        };
        return Ok((Placement::Rect(element_rect(rect)?), space));
    }
    let space = rect_space(f)?;
    let position = match f.value("position") {
        None => Position::Center,
        Some(Value::String(p)) => Position::read(p)
            .ok_or_else(|| bad_value("`position` must be top, bottom, left, right or center."))?,
        Some(_) => return Err(bad_value("`position` must be a string.")),
    };
    Ok((Placement::Position(position), space))
}

/// A canvas rect with a positive size, sides up to [`MAX_ELEMENT_SIDE`], overlapping the canvas.
fn element_rect(r: CanvasRect) -> Result<CanvasRect> {
    let on_canvas = r.x < f64::from(CANVAS_W)
        && r.y < f64::from(CANVAS_H)
        && r.x + r.w > 0.0
        && r.y + r.h > 0.0;
    if !r.is_valid() || r.w > MAX_ELEMENT_SIDE || r.h > MAX_ELEMENT_SIDE || !on_canvas {
        return Err(bad_value(
            "`rect` must have a positive size and overlap the canvas.",
        ));
    }
    Ok(r)
}

impl TextEdit {
    /// `{wc_object, lines?, fill?}`: `lines` an array of strings or one string with forced
    /// breaks, `fill` a `#RRGGBB` colour; at least one of them.
    fn parse(value: &Value) -> Result<TextEdit> {
        let Value::Object(_) = value else {
            return Err(bad_value(
                "`overlay.text_edit` takes `{wc_object, lines?, fill?}`.",
            ));
        };
        let f = Fields::of(value)?;
        let wc_object = f
            .value("wc_object")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| bad_value("`wc_object` (the data-wc-object to edit) is required."))?;
        let not_lines = || bad_value("`lines` must be an array of strings.");
        let lines = match f.value("lines") {
            None => None,
            Some(Value::String(s)) => Some(typography::split_forced_breaks(s)),
            Some(Value::Array(a)) => Some(
                a.iter()
                    .map(|l| l.as_str().map(|s| s.trim().to_string()))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(not_lines)?,
            ),
            Some(_) => return Err(not_lines()),
        };
        if lines
            .as_ref()
            .is_some_and(|l| l.is_empty() || l.len() > MAX_LINES)
        {
            return Err(bad_value(format!(
                "`lines` must hold 1 to {MAX_LINES} lines."
            )));
        }
        let fill = match f.value("fill") {
            None => None,
            Some(v) => Some(
                v.as_str()
                    .and_then(|s| Rgb::parse(s.trim()))
                    .ok_or_else(|| bad_value("`fill` must be a `#RRGGBB` colour."))?,
            ),
        };
        if lines.is_none() && fill.is_none() {
            return Err(bad_value("`overlay.text_edit` needs `lines` or `fill`."));
        }
        Ok(TextEdit {
            wc_object: wc_object.to_string(),
            lines,
            fill,
        })
    }
}
