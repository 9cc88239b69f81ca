//! The values of modify_scene branches B (`remotion.upload_overlay`), M
//! (`remotion.add_element`) and O (`overlay.text_edit`), and the typed edits they are read into
//! (every check that needs no document, with the branch's own messages) when the request is
//! parsed, so a bad value answers 400 before the video or the scene is looked up;
//! `overlay_edits` applies them. The value types are what serde reads and what the schema
//! documents; members whose rules carry the branch's messages are kept as sent and documented by
//! the type they name, and a member sent as `null` is absent. Two of them other branches take
//! too: a URL to download ([`UrlValue`]) and a rect ([`Xywh`]).
//!
//! Every B, M or O error names `fields[].value`, the `param` these branches have always answered with
//! (their download and conversion errors, raised while applying, name it too).

use compositor::geom::{CANVAS_H, CANVAS_W, CanvasRect, PreviewRect};
use compositor::spec::ObjectKind;
use serde::Deserialize;
use serde_json::Value;
use typography::design::Rgb;
use utoipa::ToSchema;

use foundation::error::{Code, Error, Result};

/// The `param` of every B/M/O value error.
pub(crate) const VALUE_PARAM: &str = "fields[].value";
/// Longest element text (after trimming), characters.
pub(crate) const MAX_ELEMENT_TEXT: usize = 300;
/// Most lines of one text edit.
pub(crate) const MAX_LINES: usize = 20;
/// Largest side of an added element's rect, canvas px.
pub(crate) const MAX_ELEMENT_SIDE: f64 = 4096.0;

foundation::document::wire_enum! {
    /// B's `field_name`.
    pub enum UploadOverlayName {
        UploadOverlay = "remotion.upload_overlay",
    }
}

foundation::document::wire_enum! {
    /// M's `field_name`.
    pub enum AddElementName {
        AddElement = "remotion.add_element",
    }
}

foundation::document::wire_enum! {
    /// O's `field_name`.
    pub enum TextEditName {
        TextEdit = "overlay.text_edit",
    }
}

/// The overlay design fields, one family each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OverlayField {
    UploadOverlay,
    AddElement,
    TextEdit,
}

impl OverlayField {
    /// The field's name: its item's.
    pub fn as_str(self) -> &'static str {
        match self {
            OverlayField::UploadOverlay => UploadOverlayName::UploadOverlay.as_str(),
            OverlayField::AddElement => AddElementName::AddElement.as_str(),
            OverlayField::TextEdit => TextEditName::TextEdit.as_str(),
        }
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

impl Position {
    /// A name, trimmed; `centre` is `center`.
    pub(crate) fn read(p: &str) -> Option<Position> {
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
    /// The element's canvas rect.
    pub fn rect(&self) -> CanvasRect {
        match self.placement {
            Placement::Position(p) => p.rect(),
            Placement::Rect(r) => r,
        }
    }
}

/// An http(s) URL. The pattern, a dotted host name, is the part of what is read that downloads
/// from anywhere (single-label hosts are local names, refused when fetched).
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[schema(pattern = r"^https?://[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)*\.[a-z]{2,}(/[A-Za-z0-9._~-]*)*$")]
pub struct HttpUrl(pub String);

/// A URL inside an object.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct UrlObject {
    pub url: HttpUrl,
}

/// A URL to download: the string, or `{url}`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum UrlValue {
    Url(HttpUrl),
    Object(UrlObject),
}

impl UrlValue {
    /// The URL as sent, trimmed.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            UrlValue::Url(u) | UrlValue::Object(UrlObject { url: u }) => u.0.trim(),
        }
    }
}

/// A rect: origin and a positive size.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, ToSchema)]
pub struct Xywh {
    #[schema(minimum = -1500, maximum = 1500)]
    pub x: f64,
    #[schema(minimum = -1500, maximum = 1500)]
    pub y: f64,
    #[schema(exclusive_minimum = 0, maximum = 1500)]
    pub w: f64,
    #[schema(exclusive_minimum = 0, maximum = 1500)]
    pub h: f64,
}

/// M's value: a text string (a text element at the center), or an element.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum AddElementValue {
    #[schema(value_type = String)]
    Text(String),
    Element(Box<ElementValue>),
}

/// M's element: text kinds with `text`, or an image with `url`, placed by `rect` (which wins)
/// or `position`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ElementValue {
    /// `text` (default), `stat`, `label`, `callout`, or `image`.
    #[schema(value_type = Option<ElementKind>)]
    pub kind: Option<Value>,
    /// A text element's words (`value` is read too); an image element has none.
    #[schema(required = true, value_type = String, pattern = r"\S", max_length = 300)]
    pub text: Option<Value>,
    #[schema(ignore)]
    pub value: Option<Value>,
    /// An image element's picture (`image_url` is read too).
    #[schema(value_type = Option<HttpUrl>)]
    pub url: Option<Value>,
    #[schema(ignore)]
    pub image_url: Option<Value>,
    /// A named place (`centre` is read as `center`).
    #[schema(value_type = Option<Position>)]
    pub position: Option<Value>,
    /// The element's rect, in `coordinate_space`.
    #[schema(value_type = Option<Xywh>)]
    pub rect: Option<Value>,
    #[schema(value_type = Option<RectSpace>)]
    pub coordinate_space: Option<Value>,
}

foundation::document::wire_enum! {
    /// What M's element shows: a kind of text, or an image.
    pub enum ElementKind {
        Text = "text",
        Stat = "stat",
        Label = "label",
        Callout = "callout",
        Image = "image",
    }
}

/// O's value, for one `data-wc-object`: new `lines` (and a new `fill`, if wanted), or a new
/// `fill` alone.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum TextEditValue {
    Lines(TextEditLines),
    Fill(TextEditFill),
}

/// O with new lines.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct TextEditLines {
    /// The `data-wc-object` to edit.
    #[schema(required = true, value_type = String, pattern = r"\S")]
    pub wc_object: Option<Value>,
    /// 1 to 20 lines; one string is read too, broken at `|`, `->`, an arrow or a newline.
    #[schema(value_type = Vec<String>, min_items = 1, max_items = 20)]
    pub lines: Value,
    #[schema(value_type = Option<String>, pattern = "^#[0-9A-Fa-f]{6}$")]
    pub fill: Option<Value>,
}

/// O with a new fill only.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct TextEditFill {
    /// The `data-wc-object` to edit.
    #[schema(required = true, value_type = String, pattern = r"\S")]
    pub wc_object: Option<Value>,
    #[schema(value_type = String, pattern = "^#[0-9A-Fa-f]{6}$")]
    pub fill: Value,
}

/// Why a B, M or O value of the wrong shape was refused.
pub(crate) fn shape_refused(field: OverlayField) -> Error {
    bad_value(match field {
        OverlayField::UploadOverlay => "`remotion.upload_overlay` takes a URL string or `{url}`.",
        OverlayField::AddElement => {
            "`remotion.add_element` takes a string (text) or `{kind, text, position | rect, coordinate_space}`."
        }
        OverlayField::TextEdit => "`overlay.text_edit` takes `{wc_object, lines?, fill?}`.",
    })
}

/// B: the overlay to download.
pub(crate) fn upload(value: &UrlValue) -> Result<OverlayEdit> {
    Ok(OverlayEdit::Upload {
        url: http_url(value.as_str())?,
    })
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

/// A JSON value as a message shows it: a string without its quotes.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// M's value, checked in the order the branch always had: kind, rect numbers, coordinate
/// space, rect bounds or position, then the text or the image URL.
pub(crate) fn add_element(value: AddElementValue) -> Result<AddElement> {
    let f = match value {
        AddElementValue::Text(s) => {
            return Ok(AddElement {
                element: Element::Text {
                    kind: TextKind::Text,
                    text: element_text(Some(&s))?,
                },
                placement: Placement::Position(Position::Center),
                space: RectSpace::Preview,
            });
        }
        AddElementValue::Element(f) => f,
    };
    let kind = match &f.kind {
        None => Some(TextKind::Text),
        Some(k) if k.as_str() == Some(ElementKind::Image.as_str()) => None,
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
            let text = f.text.as_ref().or(f.value.as_ref());
            Element::Text {
                kind,
                text: element_text(text.and_then(Value::as_str))?,
            }
        }
        None => {
            let url = f
                .url
                .as_ref()
                .or(f.image_url.as_ref())
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
fn rect_space(f: &ElementValue) -> Result<RectSpace> {
    let Some(v) = &f.coordinate_space else {
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
fn placement(f: &ElementValue) -> Result<(Placement, RectSpace)> {
    if let Some(r) = &f.rect {
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
    let position = match &f.position {
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

/// O's value: `lines` an array of strings or one string with forced breaks, `fill` a
/// `#RRGGBB` colour; at least one of them.
pub(crate) fn text_edit(value: TextEditValue) -> Result<TextEdit> {
    let (wc_object, lines, fill) = match value {
        TextEditValue::Lines(f) => (f.wc_object, Some(f.lines), f.fill),
        TextEditValue::Fill(f) => (f.wc_object, None, Some(f.fill)),
    };
    let wc_object = wc_object
        .as_ref()
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| bad_value("`wc_object` (the data-wc-object to edit) is required."))?;
    let not_lines = || bad_value("`lines` must be an array of strings.");
    let lines = match lines.filter(|l| !l.is_null()) {
        None => None,
        Some(Value::String(s)) => Some(typography::split_forced_breaks(&s)),
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
    let fill = match fill.filter(|f| !f.is_null()) {
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
