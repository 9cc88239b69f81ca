//! svg2spec: an uploaded SVG → an overlay spec ([`OverlaySpec`], source `svg2spec`).
//!
//! The SVG rules (spec, modify_scene branch B): `viewBox="0 0 720 1280"`; each element with a
//! `data-wc-object` attribute becomes one object placed at its authored bounding box (no
//! auto-fit), with `data-wc-kind` (`object`, `text`, `bar`, `mark`, `callout`; default
//! `object`), `data-wc-anim` (the eight presets; default `fade`) and `data-wc-z` (default:
//! document order); everything else is rasterised into one full-canvas background layer.
//! Every object becomes a transparent PNG of its bounding box, clipped to the canvas.
//!
//! The input is untrusted, so it is checked before usvg ever sees it ([`check`]):
//! - size: at most [`Limits::max_bytes`]; gzip input is inflated through a cap, so a gzip bomb
//!   stops at the cap instead of filling memory;
//! - XML: no DTD at all (no entities, so no billion laughs and no external entities), at most
//!   [`Limits::max_nodes`] nodes and [`Limits::max_depth`] levels of nesting;
//! - references: `href`/`xlink:href` may only point inside the document (`#id`) or, on
//!   `<image>`, hold a PNG/JPEG/WebP/GIF `data:` URL whose pixels are size-checked; `url(...)`
//!   in attributes and styles may only be `url(#id)`; no `@import`, no `<script>`. Nothing is
//!   ever fetched: usvg also runs without a resources folder and with a string-href resolver
//!   that resolves nothing;
//! - `<use>`: reference cycles are refused and the fully expanded element count is bounded
//!   ([`Limits::max_expanded`]), which stops exponential use-bombs;
//! - dimensions: `width`/`height` at most [`Limits::max_side`]; object rasters never exceed the
//!   canvas;
//! - time: with the above, rendering is bounded; a deadline ([`Limits::max_time`]) is checked
//!   between steps as a last resort.
//!
//! Objects are rendered in parallel (rayon) and [`convert_files`] converts many SVGs in
//! parallel (the `reelsmith svg2spec DIR…` command).

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use tiny_skia::{Pixmap, Transform};

use crate::geom::{CANVAS_H, CANVAS_W, CanvasRect};
use crate::plan::Animation;
use crate::spec::{
    ObjectKind, OverlaySpec, SpecGroup, SpecObject, SpecPayload, SpecSource, TemporalPolicy,
};

/// Bounds on what an input may ask of the converter.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest input, compressed or not.
    pub max_bytes: usize,
    /// Largest inflated size of gzip input.
    pub max_inflated: usize,
    /// Most XML nodes (elements, text, comments).
    pub max_nodes: u32,
    /// Deepest element nesting.
    pub max_depth: usize,
    /// Most elements once every `<use>` is expanded.
    pub max_expanded: usize,
    /// Most `data-wc-object` elements.
    pub max_objects: usize,
    /// Most filter primitives.
    pub max_filter_primitives: usize,
    /// Largest `width`/`height` attribute.
    pub max_side: f64,
    /// Largest side of an embedded `data:` image, pixels.
    pub max_image_side: u32,
    /// Deadline for one conversion.
    pub max_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 4 * 1024 * 1024,
            max_inflated: 4 * 1024 * 1024,
            max_nodes: 20_000,
            max_depth: 64,
            max_expanded: 50_000,
            max_objects: 64,
            max_filter_primitives: 64,
            max_side: 16_384.0,
            max_image_side: 4096,
            max_time: Duration::from_secs(10),
        }
    }
}

/// What a conversion needs besides the SVG.
#[derive(Clone)]
pub struct Options {
    /// Fonts for `<text>` (the pinned fonts; see [`font_db`]).
    pub fontdb: Arc<usvg::fontdb::Database>,
    pub limits: Limits,
    /// Prefix of every payload file name (e.g. the scene's `voice_file` and a version token), so
    /// files of several specs can share a folder.
    pub file_prefix: String,
}

/// A font database of the pinned fonts in `dir` (no system fonts). Missing files are skipped.
pub fn font_db(dir: &Path) -> Arc<usvg::fontdb::Database> {
    let mut db = usvg::fontdb::Database::new();
    for name in [
        "Inter-Regular.otf",
        "Inter-Bold.otf",
        "Inter-ExtraBold.otf",
        "NotoSans-Regular.ttf",
        "NotoSans-Bold.ttf",
    ] {
        if let Ok(bytes) = std::fs::read(dir.join(name)) {
            db.load_font_data(bytes);
        }
    }
    db.set_sans_serif_family("Inter");
    db.set_serif_family("Noto Sans");
    Arc::new(db)
}

/// Why an SVG was refused. Messages name the problem for the client (422 `svg2spec_failed`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Svg2specError {
    #[error("the SVG is larger than {0} bytes")]
    TooLarge(usize),
    #[error("the gzip-compressed SVG inflates past {0} bytes")]
    GzipTooLarge(usize),
    #[error("the gzip data is corrupt")]
    Gzip,
    #[error("the SVG is not UTF-8 text")]
    NotUtf8,
    #[error("the SVG could not be parsed: {0}")]
    Parse(String),
    #[error("the SVG has a DOCTYPE/ENTITY declaration, which is not accepted")]
    Dtd,
    #[error("the SVG has more than {0} XML nodes")]
    TooManyNodes(u32),
    #[error("the SVG nests elements deeper than {0} levels")]
    TooDeep(usize),
    #[error("the root element is <{0}>, not <svg>")]
    NotSvg(String),
    #[error("the SVG needs viewBox=\"0 0 720 1280\"{0}")]
    ViewBox(String),
    #[error("the SVG's {0} is {1}, over the limit of {2}")]
    Dimension(&'static str, String, f64),
    #[error(
        "<{element}> refers to `{value}`: external references (files, file:, http(s)) are never loaded"
    )]
    ExternalRef { element: String, value: String },
    #[error("<{0}> is not allowed in an overlay SVG")]
    Forbidden(String),
    #[error("an embedded image is not usable: {0}")]
    Image(String),
    #[error("the SVG has more than {0} filter primitives")]
    TooManyFilters(usize),
    #[error("<use> references form a cycle through `#{0}`")]
    UseCycle(String),
    #[error("<use> references expand to more than {0} elements")]
    UseExpansion(usize),
    #[error("the SVG has no data-wc-object group")]
    NoObjects,
    #[error("the SVG has more than {0} data-wc-object groups")]
    TooManyObjects(usize),
    #[error("data-wc-object `{0}` is inside another data-wc-object")]
    NestedObject(String),
    #[error("object `{0}`: {1}")]
    Attribute(String, String),
    #[error("object `{0}` draws nothing on the canvas")]
    EmptyObject(String),
    #[error("converting the SVG took longer than {0:?}")]
    Timeout(Duration),
}

/// A converted SVG: the spec and the payload files it names (to be written beside it).
#[derive(Debug, Clone)]
pub struct Converted {
    pub spec: OverlaySpec,
    /// `(file name, bytes)` of every payload (PNG).
    pub files: Vec<(String, Vec<u8>)>,
    /// The SVG text (inflated), kept so text edits can re-run the conversion.
    pub source: String,
}

/// One `data-wc-object` element found by [`check`].
#[derive(Debug, Clone)]
struct ObjectInfo {
    layout_id: String,
    /// Its `id` in the id-stamped source.
    node_id: String,
    /// Where its `id` must be inserted (when it had none).
    insert_at: Option<usize>,
    /// The element's byte range in the source.
    range: Range<usize>,
    kind: ObjectKind,
    animation: Animation,
    z: i32,
    text: Option<String>,
}

/// Inflates gzip input through a cap, checks the size and UTF-8.
fn to_text(input: &[u8], limits: &Limits) -> Result<String, Svg2specError> {
    use std::io::Read;
    if input.len() > limits.max_bytes {
        return Err(Svg2specError::TooLarge(limits.max_bytes));
    }
    let bytes = if input.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(input)
            .take(limits.max_inflated as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|_| Svg2specError::Gzip)?;
        if out.len() > limits.max_inflated {
            return Err(Svg2specError::GzipTooLarge(limits.max_inflated));
        }
        out
    } else {
        input.to_vec()
    };
    String::from_utf8(bytes).map_err(|_| Svg2specError::NotUtf8)
}

fn parse_xml<'a>(text: &'a str, limits: &Limits) -> Result<roxmltree::Document<'a>, Svg2specError> {
    let opt = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: limits.max_nodes,
        ..roxmltree::ParsingOptions::default()
    };
    roxmltree::Document::parse_with_options(text, opt).map_err(|e| match e {
        roxmltree::Error::DtdDetected => Svg2specError::Dtd,
        roxmltree::Error::NodesLimitReached => Svg2specError::TooManyNodes(limits.max_nodes),
        e => Svg2specError::Parse(e.to_string()),
    })
}

/// Decodes standard or URL-safe base64 (whitespace ignored).
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            c if c.is_ascii_whitespace() => continue,
            _ => return None,
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Checks an embedded `data:` image: a raster type, decodable, not too large.
fn check_data_image(value: &str, limits: &Limits) -> Result<(), Svg2specError> {
    let rest = &value[5..];
    let (meta, data) = rest
        .split_once(',')
        .ok_or_else(|| Svg2specError::Image("malformed data: URL".into()))?;
    let meta = meta.to_ascii_lowercase();
    let mime = meta.split(';').next().unwrap_or("");
    if !matches!(
        mime,
        "image/png" | "image/jpeg" | "image/jpg" | "image/webp" | "image/gif"
    ) {
        return Err(Svg2specError::Image(format!(
            "type `{mime}` is not a raster image (PNG, JPEG, WebP, GIF)"
        )));
    }
    if !meta.ends_with(";base64") {
        return Err(Svg2specError::Image("data: images must be base64".into()));
    }
    let bytes = base64_decode(data).ok_or_else(|| Svg2specError::Image("invalid base64".into()))?;
    // Dimensions from the header first, so no huge buffer is ever allocated.
    let side = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() >= 24 {
        let w = u32::from_be_bytes(bytes[16..20].try_into().expect("4 bytes"));
        let h = u32::from_be_bytes(bytes[20..24].try_into().expect("4 bytes"));
        Some(w.max(h))
    } else if bytes.starts_with(b"GIF8") && bytes.len() >= 10 {
        let w = u16::from_le_bytes([bytes[6], bytes[7]]) as u32;
        let h = u16::from_le_bytes([bytes[8], bytes[9]]) as u32;
        Some(w.max(h))
    } else {
        None
    };
    match side {
        Some(s) if s > limits.max_image_side => Err(Svg2specError::Image(format!(
            "{s} px is over the limit of {} px",
            limits.max_image_side
        ))),
        Some(_) => Ok(()),
        None => {
            let img = crate::raster::decode_image(&bytes).map_err(Svg2specError::Image)?;
            if img.width().max(img.height()) > limits.max_image_side {
                return Err(Svg2specError::Image(format!(
                    "over the limit of {} px",
                    limits.max_image_side
                )));
            }
            Ok(())
        }
    }
}

/// Every `url(...)` target in `s` must be a fragment.
fn check_urls(s: &str, element: &str) -> Result<(), Svg2specError> {
    let lower = s.to_ascii_lowercase();
    if lower.contains("@import") {
        return Err(Svg2specError::ExternalRef {
            element: element.into(),
            value: "@import".into(),
        });
    }
    let mut rest = lower.as_str();
    while let Some(i) = rest.find("url(") {
        let after = rest[i + 4..].trim_start_matches([' ', '\'', '"']);
        if !after.starts_with('#') {
            let end = after.find(')').unwrap_or(after.len()).min(80);
            return Err(Svg2specError::ExternalRef {
                element: element.into(),
                value: format!("url({})", &after[..end]),
            });
        }
        rest = &rest[i + 4..];
    }
    Ok(())
}

fn parse_len(v: &str) -> Option<f64> {
    let v = v.trim();
    let num = v.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
    num.trim().parse::<f64>().ok()
}

fn is_plain_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Validates the document and finds its objects (see the module docs for every rule).
fn check(doc: &roxmltree::Document<'_>, limits: &Limits) -> Result<Vec<ObjectInfo>, Svg2specError> {
    let root = doc.root_element();
    if root.tag_name().name() != "svg" {
        return Err(Svg2specError::NotSvg(root.tag_name().name().into()));
    }
    match root.attribute("viewBox") {
        None => return Err(Svg2specError::ViewBox(" (it has none)".into())),
        Some(vb) => {
            let nums: Vec<f64> = vb
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|s| !s.is_empty())
                .filter_map(|s| s.parse().ok())
                .collect();
            if nums != [0.0, 0.0, 720.0, 1280.0] {
                return Err(Svg2specError::ViewBox(format!(" (it has \"{vb}\")")));
            }
        }
    }
    for (name, attr) in [("width", "width"), ("height", "height")] {
        if let Some(v) = root.attribute(attr) {
            match parse_len(v) {
                Some(n) if n.is_finite() && n > 0.0 && n <= limits.max_side => {}
                Some(n) if n.is_finite() && n > limits.max_side => {
                    return Err(Svg2specError::Dimension(name, v.into(), limits.max_side));
                }
                _ if v.trim().ends_with('%') => {}
                _ => {
                    return Err(Svg2specError::Dimension(name, v.into(), limits.max_side));
                }
            }
        }
    }
    // Depth, references, forbidden elements, filters, ids and use edges, in one walk.
    let mut filters = 0usize;
    let mut ids: std::collections::HashMap<&str, roxmltree::NodeId> = Default::default();
    let mut stack: Vec<(roxmltree::Node<'_, '_>, usize)> = vec![(root, 1)];
    while let Some((node, depth)) = stack.pop() {
        if depth > limits.max_depth {
            return Err(Svg2specError::TooDeep(limits.max_depth));
        }
        let tag = node.tag_name().name();
        if tag == "script" {
            return Err(Svg2specError::Forbidden("script".into()));
        }
        if tag.starts_with("fe") {
            filters += 1;
            if filters > limits.max_filter_primitives {
                return Err(Svg2specError::TooManyFilters(limits.max_filter_primitives));
            }
        }
        if tag == "style"
            && let Some(css) = node.text()
        {
            check_urls(css, "style")?;
        }
        for a in node.attributes() {
            let v = a.value().trim();
            if a.name() == "href" {
                if v.starts_with('#') {
                    continue;
                }
                if tag == "image" && v.len() > 5 && v[..5].eq_ignore_ascii_case("data:") {
                    check_data_image(v, limits)?;
                    continue;
                }
                return Err(Svg2specError::ExternalRef {
                    element: tag.into(),
                    value: v.chars().take(80).collect(),
                });
            }
            if v.contains("url(") || v.contains("URL(") || a.name() == "style" {
                check_urls(v, tag)?;
            }
        }
        if let Some(id) = node.attribute("id") {
            ids.entry(id).or_insert(node.id());
        }
        for c in node.children().filter(|c| c.is_element()) {
            stack.push((c, depth + 1));
        }
    }
    check_use_expansion(doc, &ids, limits)?;
    find_objects(doc)
}

/// Refuses `<use>` cycles and bounds the expanded size (memoised DFS over elements).
fn check_use_expansion(
    doc: &roxmltree::Document<'_>,
    ids: &std::collections::HashMap<&str, roxmltree::NodeId>,
    limits: &Limits,
) -> Result<(), Svg2specError> {
    #[derive(Clone, Copy)]
    enum State {
        Todo,
        Active,
        Done(usize),
    }
    let mut state = vec![State::Todo; doc.descendants().count() + 1];
    let cap = limits.max_expanded;
    // Explicit stack: (node, phase) where phase 0 = enter, 1 = exit.
    fn size_of(
        doc: &roxmltree::Document<'_>,
        start: roxmltree::NodeId,
        ids: &std::collections::HashMap<&str, roxmltree::NodeId>,
        state: &mut [State],
        cap: usize,
    ) -> Result<usize, Svg2specError> {
        let mut stack = vec![(start, false)];
        while let Some((id, exiting)) = stack.pop() {
            let node = doc.get_node(id).expect("node of this document");
            let i = id.get_usize();
            if !exiting {
                match state[i] {
                    State::Done(_) => continue,
                    State::Active => {
                        let name = node.attribute("id").unwrap_or("?").to_string();
                        return Err(Svg2specError::UseCycle(name));
                    }
                    State::Todo => {}
                }
                state[i] = State::Active;
                stack.push((id, true));
                for c in node.children().filter(|c| c.is_element()) {
                    stack.push((c.id(), false));
                }
                if let Some(t) = use_target(node, ids) {
                    match state[t.get_usize()] {
                        State::Active => {
                            let name = doc
                                .get_node(t)
                                .and_then(|n| n.attribute("id"))
                                .unwrap_or("?")
                                .to_string();
                            return Err(Svg2specError::UseCycle(name));
                        }
                        State::Todo => stack.push((t, false)),
                        State::Done(_) => {}
                    }
                }
            } else {
                let mut total = 1usize;
                for c in node.children().filter(|c| c.is_element()) {
                    if let State::Done(n) = state[c.id().get_usize()] {
                        total = total.saturating_add(n);
                    }
                }
                if let Some(t) = use_target(node, ids)
                    && let State::Done(n) = state[t.get_usize()]
                {
                    total = total.saturating_add(n);
                }
                if total > cap {
                    return Err(Svg2specError::UseExpansion(cap));
                }
                state[i] = State::Done(total);
            }
        }
        match state[start.get_usize()] {
            State::Done(n) => Ok(n),
            _ => Ok(0),
        }
    }
    fn use_target(
        node: roxmltree::Node<'_, '_>,
        ids: &std::collections::HashMap<&str, roxmltree::NodeId>,
    ) -> Option<roxmltree::NodeId> {
        if node.tag_name().name() != "use" {
            return None;
        }
        let href = node.attributes().find(|a| a.name() == "href")?.value();
        ids.get(href.trim().strip_prefix('#')?).copied()
    }
    size_of(doc, doc.root_element().id(), ids, &mut state, cap).map(|_| ())
}

fn find_objects(doc: &roxmltree::Document<'_>) -> Result<Vec<ObjectInfo>, Svg2specError> {
    let mut out: Vec<ObjectInfo> = Vec::new();
    let used_ids: std::collections::HashSet<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("id"))
        .collect();
    let mut taken: std::collections::HashSet<String> = Default::default();
    for (order, node) in doc
        .descendants()
        .filter(|n| n.is_element() && n.has_attribute("data-wc-object"))
        .enumerate()
    {
        let raw = node.attribute("data-wc-object").unwrap_or("").trim();
        let label = if raw.is_empty() {
            node.attribute("id").unwrap_or("").to_string()
        } else {
            raw.to_string()
        };
        if node
            .ancestors()
            .skip(1)
            .any(|a| a.has_attribute("data-wc-object"))
        {
            return Err(Svg2specError::NestedObject(label));
        }
        let mut layout_id = if is_plain_id(&label) {
            label.clone()
        } else {
            format!("object-{}", order + 1)
        };
        while !taken.insert(layout_id.clone()) {
            layout_id.push_str("-2");
        }
        let shown = if label.is_empty() {
            layout_id.clone()
        } else {
            label.clone()
        };
        let kind = match node.attribute("data-wc-kind").map(str::trim) {
            None | Some("") | Some("object") => ObjectKind::Object,
            Some("text") => ObjectKind::Text,
            Some("bar") => ObjectKind::Bar,
            Some("mark") => ObjectKind::Mark,
            Some("callout") => ObjectKind::Callout,
            Some(k) => {
                return Err(Svg2specError::Attribute(
                    shown,
                    format!("data-wc-kind=\"{k}\" is not one of object, text, bar, mark, callout"),
                ));
            }
        };
        let animation = match node.attribute("data-wc-anim").map(str::trim) {
            None | Some("") => Animation::Fade,
            Some(a) => serde_json::from_value(serde_json::Value::String(a.into())).map_err(|_| {
                Svg2specError::Attribute(
                    shown.clone(),
                    format!(
                        "data-wc-anim=\"{a}\" is not one of slide-up, slide-down, slide-left, slide-right, pop, grow-x, grow-y, fade"
                    ),
                )
            })?,
        };
        let z = match node.attribute("data-wc-z").map(str::trim) {
            None | Some("") => order as i32,
            Some(z) => z.parse::<i32>().map_err(|_| {
                Svg2specError::Attribute(
                    shown.clone(),
                    format!("data-wc-z=\"{z}\" is not an integer"),
                )
            })?,
        };
        let text: Vec<String> = node
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == "text")
            .map(|t| {
                t.descendants()
                    .filter(|n| n.is_text())
                    .filter_map(|n| n.text())
                    .collect::<Vec<_>>()
                    .join(" ")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .filter(|s| !s.is_empty())
            .collect();
        let (node_id, insert_at) = match node.attribute("id") {
            Some(id) if !id.is_empty() => (id.to_string(), None),
            _ => {
                let mut n = order + 1;
                let mut id = format!("wc-object-{n}");
                while used_ids.contains(id.as_str()) {
                    n += 1000;
                    id = format!("wc-object-{n}");
                }
                let start = node.range().start;
                let src = doc.input_text();
                let name_len = src[start + 1..]
                    .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
                    .unwrap_or(0);
                (id, Some(start + 1 + name_len))
            }
        };
        out.push(ObjectInfo {
            layout_id,
            node_id,
            insert_at,
            range: node.range(),
            kind,
            animation,
            z,
            text: (!text.is_empty()).then(|| text.join("\n")),
        });
    }
    if out.is_empty() {
        return Err(Svg2specError::NoObjects);
    }
    Ok(out)
}

fn usvg_options(fontdb: &Arc<usvg::fontdb::Database>) -> usvg::Options<'static> {
    usvg::Options {
        resources_dir: None,
        font_family: "Inter".into(),
        fontdb: fontdb.clone(),
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: usvg::ImageHrefResolver::default_data_resolver(),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    }
}

fn tree_of(text: &str, opt: &Options) -> Result<usvg::Tree, Svg2specError> {
    let doc = parse_xml(text, &opt.limits)?;
    usvg::Tree::from_xmltree(&doc, &usvg_options(&opt.fontdb))
        .map_err(|e| Svg2specError::Parse(e.to_string()))
}

/// The canvas rect (whole pixels, clipped to the canvas) of a node's rendered extent.
fn clipped_rect(node: &usvg::Node) -> Option<CanvasRect> {
    let b = node.abs_layer_bounding_box()?;
    let x0 = (b.x() as f64).floor().max(0.0);
    let y0 = (b.y() as f64).floor().max(0.0);
    let x1 = (b.right() as f64).ceil().min(CANVAS_W as f64);
    let y1 = (b.bottom() as f64).ceil().min(CANVAS_H as f64);
    (x1 > x0 && y1 > y0).then(|| CanvasRect::new(x0, y0, x1 - x0, y1 - y0))
}

/// Renders `node` alone into a pixmap covering `rect`.
fn render_node(node: &usvg::Node, rect: CanvasRect) -> Option<Pixmap> {
    let mut pm = Pixmap::new(rect.w as u32, rect.h as u32)?;
    let bbox = node.abs_layer_bounding_box()?;
    // resvg applies the node's own transform; the ancestors' part comes from here.
    let parent = match node {
        usvg::Node::Group(g) => g
            .abs_transform()
            .pre_concat(g.transform().invert().unwrap_or_default()),
        other => other.abs_transform(),
    };
    let t = Transform::from_translate(-rect.x as f32, -rect.y as f32)
        .pre_concat(parent)
        .pre_translate(bbox.x(), bbox.y());
    resvg::render_node(node, t, &mut pm.as_mut())?;
    Some(pm)
}

/// A payload file name: the prefix plus a plain name.
fn payload_name(prefix: &str, name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{prefix}{clean}.png")
}

/// Converts one SVG (plain or gzip) into a spec and its payload PNGs.
pub fn convert(input: &[u8], opt: &Options) -> Result<Converted, Svg2specError> {
    let started = Instant::now();
    let deadline = |step: &str| {
        let _ = step;
        if started.elapsed() > opt.limits.max_time {
            Err(Svg2specError::Timeout(opt.limits.max_time))
        } else {
            Ok(())
        }
    };
    let source = to_text(input, &opt.limits)?;
    let doc = parse_xml(&source, &opt.limits)?;
    let objects = check(&doc, &opt.limits)?;
    if objects.len() > opt.limits.max_objects {
        return Err(Svg2specError::TooManyObjects(opt.limits.max_objects));
    }
    // The source with an id on every object, and the background without the objects.
    let mut stamped = source.clone();
    let mut inserts: Vec<(usize, &ObjectInfo)> = objects
        .iter()
        .filter_map(|o| o.insert_at.map(|at| (at, o)))
        .collect();
    inserts.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    for (at, o) in inserts {
        stamped.insert_str(at, &format!(" id=\"{}\"", o.node_id));
    }
    let mut background = source.clone();
    let mut ranges: Vec<Range<usize>> = objects.iter().map(|o| o.range.clone()).collect();
    ranges.sort_by_key(|r| std::cmp::Reverse(r.start));
    for r in ranges {
        background.replace_range(r, "");
    }
    drop(doc);
    deadline("parse")?;
    let (tree, bg_tree) = rayon::join(|| tree_of(&stamped, opt), || tree_of(&background, opt));
    let (tree, bg_tree) = (tree?, bg_tree?);
    deadline("tree")?;
    // Objects, in parallel.
    let rendered: Vec<Result<(CanvasRect, Vec<u8>), Svg2specError>> = objects
        .par_iter()
        .map(|o| {
            deadline("render")?;
            let node = tree
                .node_by_id(&o.node_id)
                .ok_or_else(|| Svg2specError::EmptyObject(o.layout_id.clone()))?;
            if let usvg::Node::Group(g) = node
                && !g.has_children()
            {
                return Err(Svg2specError::EmptyObject(o.layout_id.clone()));
            }
            let rect = clipped_rect(node)
                .ok_or_else(|| Svg2specError::EmptyObject(o.layout_id.clone()))?;
            let pm = render_node(node, rect)
                .ok_or_else(|| Svg2specError::EmptyObject(o.layout_id.clone()))?;
            let png = pm
                .encode_png()
                .map_err(|e| Svg2specError::Parse(format!("PNG encoding failed: {e}")))?;
            Ok((rect, png))
        })
        .collect();
    let mut files = Vec::with_capacity(objects.len() + 1);
    let mut spec_objects = Vec::with_capacity(objects.len());
    for (o, r) in objects.iter().zip(rendered) {
        let (rect, png) = r?;
        let file = payload_name(&opt.file_prefix, &o.layout_id);
        files.push((file.clone(), png));
        spec_objects.push(SpecObject {
            layout_id: o.layout_id.clone(),
            kind: o.kind,
            text: o.text.clone(),
            rect,
            z: o.z,
            animation: o.animation,
            start: 0.0,
            end: None,
            payload: SpecPayload::Png { file },
        });
    }
    deadline("render")?;
    let mut spec = OverlaySpec::new(SpecSource::Svg2spec);
    if bg_tree.root().has_children() {
        let mut pm = Pixmap::new(CANVAS_W, CANVAS_H).expect("canvas size");
        resvg::render(&bg_tree, Transform::identity(), &mut pm.as_mut());
        if pm.data().chunks_exact(4).any(|p| p[3] != 0) {
            let file = payload_name(&opt.file_prefix, "background");
            let png = pm
                .encode_png()
                .map_err(|e| Svg2specError::Parse(format!("PNG encoding failed: {e}")))?;
            files.push((file.clone(), png));
            spec.background = Some(SpecPayload::Png { file });
        }
    }
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for o in &spec_objects {
        x0 = x0.min(o.rect.x);
        y0 = y0.min(o.rect.y);
        x1 = x1.max(o.rect.x + o.rect.w);
        y1 = y1.max(o.rect.y + o.rect.h);
    }
    spec.groups.push(SpecGroup {
        id: "svg".into(),
        rect: CanvasRect::new(x0, y0, x1 - x0, y1 - y0),
        temporal_policy: TemporalPolicy::Scene,
        objects: spec_objects,
    });
    deadline("done")?;
    Ok(Converted {
        spec,
        files,
        source,
    })
}

/// Rasterises a standalone SVG (e.g. a typography object) to a transparent PNG of its own size,
/// under the same checks as [`convert`] except the canvas rules (any viewBox, no objects needed).
/// Sides are capped at 2048 px.
pub fn render_png(svg: &str, opt: &Options) -> Result<Vec<u8>, Svg2specError> {
    let text = to_text(svg.as_bytes(), &opt.limits)?;
    let doc = parse_xml(&text, &opt.limits)?;
    // Reference, depth and use checks (a 720×1280 viewBox is not required here).
    let mut ids: std::collections::HashMap<&str, roxmltree::NodeId> = Default::default();
    for n in doc.descendants().filter(|n| n.is_element()) {
        if n.ancestors().count() > opt.limits.max_depth + 1 {
            return Err(Svg2specError::TooDeep(opt.limits.max_depth));
        }
        for a in n.attributes() {
            let v = a.value().trim();
            if a.name() == "href" && !v.starts_with('#') {
                return Err(Svg2specError::ExternalRef {
                    element: n.tag_name().name().into(),
                    value: v.chars().take(80).collect(),
                });
            }
            check_urls(v, n.tag_name().name())?;
        }
        if let Some(id) = n.attribute("id") {
            ids.entry(id).or_insert(n.id());
        }
    }
    check_use_expansion(&doc, &ids, &opt.limits)?;
    let tree = usvg::Tree::from_xmltree(&doc, &usvg_options(&opt.fontdb))
        .map_err(|e| Svg2specError::Parse(e.to_string()))?;
    let size = tree.size();
    let (w, h) = (size.width().ceil(), size.height().ceil());
    if w > 2048.0 || h > 2048.0 {
        return Err(Svg2specError::Dimension("size", format!("{w}×{h}"), 2048.0));
    }
    let mut pm = Pixmap::new(w.max(1.0) as u32, h.max(1.0) as u32).expect("bounded size");
    resvg::render(&tree, Transform::identity(), &mut pm.as_mut());
    pm.encode_png()
        .map_err(|e| Svg2specError::Parse(format!("PNG encoding failed: {e}")))
}

/// Where an uploaded raster image goes on the canvas (modify_scene branch B).
#[derive(Debug, Clone)]
pub struct RasterPlacement {
    /// A (nearly) opaque, realistic image: one full-frame object.
    pub full_frame: bool,
    /// Canvas rect of the object.
    pub rect: CanvasRect,
    /// The payload PNG (full frame: cover-fitted to 720×1280; graphic: cropped to its ink).
    pub png: Vec<u8>,
}

/// The raster classifier: an image with (almost) no transparency is a realistic picture and
/// stays one full-frame object; an image with transparency is a graphic, placed where its
/// visible pixels fall once the image is fitted (contain) to the 720×1280 canvas, and cropped
/// to them. PNG, JPEG and WebP are accepted (each side at most 8192 px).
pub fn place_raster(bytes: &[u8]) -> Result<RasterPlacement, Svg2specError> {
    let img = crate::raster::decode_image(bytes).map_err(Svg2specError::Image)?;
    let (w, h) = (img.width(), img.height());
    let pixels = img.pixels();
    let opaque = pixels.iter().filter(|p| p.alpha() == 255).count();
    let encode = |pm: &Pixmap| {
        pm.encode_png()
            .map_err(|e| Svg2specError::Image(format!("PNG encoding failed: {e}")))
    };
    if opaque as f64 >= pixels.len() as f64 * 0.99 {
        let full = crate::raster::cover(img.as_ref(), CANVAS_W, CANVAS_H)
            .ok_or_else(|| Svg2specError::Image("the image could not be scaled".into()))?;
        return Ok(RasterPlacement {
            full_frame: true,
            rect: CanvasRect::new(0.0, 0.0, CANVAS_W as f64, CANVAS_H as f64),
            png: encode(&full)?,
        });
    }
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0u32, 0u32);
    for (i, p) in pixels.iter().enumerate() {
        if p.alpha() > 8 {
            let (x, y) = (i as u32 % w, i as u32 / w);
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x + 1);
            y1 = y1.max(y + 1);
        }
    }
    if x1 <= x0 || y1 <= y0 {
        return Err(Svg2specError::Image(
            "the image is fully transparent".into(),
        ));
    }
    let scale = (CANVAS_W as f64 / w as f64).min(CANVAS_H as f64 / h as f64);
    let ox = (CANVAS_W as f64 - w as f64 * scale) / 2.0;
    let oy = (CANVAS_H as f64 - h as f64 * scale) / 2.0;
    let cropped = crate::raster::crop(img.as_ref(), x0, y0, x1 - x0, y1 - y0)
        .ok_or_else(|| Svg2specError::Image("the image could not be cropped".into()))?;
    Ok(RasterPlacement {
        full_frame: false,
        rect: CanvasRect::new(
            (ox + x0 as f64 * scale).round(),
            (oy + y0 as f64 * scale).round(),
            ((x1 - x0) as f64 * scale).round().max(1.0),
            ((y1 - y0) as f64 * scale).round().max(1.0),
        ),
        png: encode(&cropped)?,
    })
}

/// Decodes a PNG, JPEG or WebP image and re-encodes it as PNG (checked on the way).
pub fn raster_to_png(bytes: &[u8]) -> Result<Vec<u8>, Svg2specError> {
    let img = crate::raster::decode_image(bytes).map_err(Svg2specError::Image)?;
    img.encode_png()
        .map_err(|e| Svg2specError::Image(format!("PNG encoding failed: {e}")))
}

/// Replaces the text of object `wc_object` in an svg2spec source: its first `<text>` gets
/// `lines` (one `<tspan>` per line, 1.2 em apart; other `<text>` elements of the object are
/// emptied) and/or every `<text>` of the object gets `fill`. Returns the edited source.
pub fn edit_text(
    source: &str,
    wc_object: &str,
    lines: Option<&[String]>,
    fill: Option<&str>,
    limits: &Limits,
) -> Result<String, TextEditError> {
    let doc = parse_xml(source, limits).map_err(TextEditError::Svg)?;
    let objects = find_objects(&doc).map_err(TextEditError::Svg)?;
    let obj = objects
        .iter()
        .find(|o| o.layout_id == wc_object || o.node_id == wc_object)
        .ok_or_else(|| TextEditError::NoSuchObject(wc_object.to_string()))?;
    let node = doc
        .descendants()
        .find(|n| n.is_element() && n.range() == obj.range)
        .expect("object found in this document");
    let texts: Vec<roxmltree::Node<'_, '_>> = node
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "text")
        .collect();
    if texts.is_empty() {
        return Err(TextEditError::NoText(wc_object.to_string()));
    }
    // Edits as (range, replacement), applied from the end.
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let start_tag_end = {
            let r = t.range();
            let s = &source[r.clone()];
            r.start + s.find('>').map(|p| p + 1).unwrap_or(s.len())
        };
        let self_closing = source[..start_tag_end].ends_with("/>");
        if let Some(fill) = fill {
            match t.attribute_node("fill") {
                Some(a) => edits.push((a.range_value(), xml_escape(fill))),
                None => {
                    let at = t.range().start + 5; // after "<text"
                    edits.push((at..at, format!(" fill=\"{}\"", xml_escape(fill))));
                }
            }
        }
        if let Some(lines) = lines {
            if self_closing {
                return Err(TextEditError::NoText(wc_object.to_string()));
            }
            let inner_end = t.range().end
                - source[..t.range().end]
                    .rfind("</")
                    .map(|p| t.range().end - p)
                    .unwrap_or(0);
            let body = if i == 0 {
                let x = t.attribute("x").unwrap_or("0");
                lines
                    .iter()
                    .enumerate()
                    .map(|(n, l)| {
                        format!(
                            "<tspan x=\"{}\" dy=\"{}\">{}</tspan>",
                            xml_escape(x),
                            if n == 0 { "0" } else { "1.2em" },
                            xml_escape(l)
                        )
                    })
                    .collect::<String>()
            } else {
                String::new()
            };
            edits.push((start_tag_end..inner_end, body));
        }
    }
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    let mut out = source.to_string();
    for (r, s) in edits {
        out.replace_range(r, &s);
    }
    Ok(out)
}

/// Why a text edit could not be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TextEditError {
    #[error("no data-wc-object `{0}` in this overlay")]
    NoSuchObject(String),
    #[error("object `{0}` has no <text> to edit")]
    NoText(String),
    #[error(transparent)]
    Svg(Svg2specError),
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Every `.svg`/`.svgz` file directly inside each folder (or the file itself), sorted.
pub fn collect_inputs(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            for e in std::fs::read_dir(p)? {
                let path = e?.path();
                let ext = path
                    .extension()
                    .and_then(|e| e.to_str())
                    .map(str::to_ascii_lowercase);
                if path.is_file() && matches!(ext.as_deref(), Some("svg" | "svgz")) {
                    out.push(path);
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    Ok(out)
}

/// The outcome of converting one file of a batch.
#[derive(Debug)]
pub struct BatchItem {
    pub input: PathBuf,
    /// The folder written (`{out}/{stem}/spec.json` and payloads), or why it failed.
    pub result: Result<PathBuf, String>,
}

/// Converts `inputs` in parallel (rayon), writing each into `{out}/{file stem}/` as
/// `spec.json` plus its payload PNGs. Files larger than the input limit are refused unread.
pub fn convert_files(inputs: &[PathBuf], out: &Path, opt: &Options) -> Vec<BatchItem> {
    inputs
        .par_iter()
        .map(|input| {
            let result = (|| {
                let len = std::fs::metadata(input).map_err(|e| e.to_string())?.len();
                if len > opt.limits.max_bytes as u64 {
                    return Err(Svg2specError::TooLarge(opt.limits.max_bytes).to_string());
                }
                let bytes = std::fs::read(input).map_err(|e| e.to_string())?;
                let converted = convert(&bytes, opt).map_err(|e| e.to_string())?;
                let stem = input
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("svg")
                    .to_string();
                let dir = out.join(stem);
                std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                for (name, bytes) in &converted.files {
                    std::fs::write(dir.join(name), bytes).map_err(|e| e.to_string())?;
                }
                let json = serde_json::to_vec_pretty(&converted.spec).map_err(|e| e.to_string())?;
                std::fs::write(dir.join("spec.json"), json).map_err(|e| e.to_string())?;
                Ok(dir)
            })();
            BatchItem {
                input: input.clone(),
                result,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt() -> Options {
        Options {
            fontdb: font_db(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/fonts")),
            limits: Limits::default(),
            file_prefix: "s1_".into(),
        }
    }

    const OK: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 720 1280" width="720" height="1280">
  <rect x="0" y="0" width="720" height="1280" fill="#102030"/>
  <g data-wc-object="title" data-wc-kind="text" data-wc-anim="slide-up" transform="translate(60 200)">
    <rect width="600" height="160" fill="#ffcc00"/>
    <text x="20" y="100" font-size="64" font-family="Inter">Hello</text>
  </g>
  <g transform="translate(0 500)"><g data-wc-object="" data-wc-z="9"><circle cx="360" cy="100" r="50" fill="red"/></g></g>
</svg>"##;

    #[test]
    fn objects_at_their_authored_boxes() {
        let c = convert(OK.as_bytes(), &opt()).unwrap();
        let objs: Vec<_> = c.spec.objects().collect();
        assert_eq!(objs.len(), 2);
        assert_eq!(objs[0].layout_id, "title");
        assert_eq!(objs[0].kind, ObjectKind::Text);
        assert_eq!(objs[0].animation, Animation::SlideUp);
        assert_eq!(objs[0].text.as_deref(), Some("Hello"));
        assert_eq!(objs[0].rect, CanvasRect::new(60.0, 200.0, 600.0, 160.0));
        assert_eq!(objs[0].z, 0);
        // Nested under a translated parent: the parent's transform counts.
        assert_eq!(objs[1].rect, CanvasRect::new(310.0, 550.0, 100.0, 100.0));
        assert_eq!(objs[1].z, 9);
        assert_eq!(objs[1].animation, Animation::Fade);
        assert_eq!(objs[1].kind, ObjectKind::Object);
        assert!(c.spec.background.is_some());
        assert_eq!(c.files.len(), 3);
        assert_eq!(c.spec.source, SpecSource::Svg2spec);
        c.spec.validate().unwrap();
        // The circle's pixels landed in its PNG: centre red, corners clear.
        let (_, png) = &c.files[1];
        let pm = Pixmap::decode_png(png).unwrap();
        assert_eq!((pm.width(), pm.height()), (100, 100));
        let px = |x: u32, y: u32| pm.pixel(x, y).unwrap();
        assert_eq!(px(50, 50).red(), 255);
        assert_eq!(px(2, 2).alpha(), 0);
        // The background has no object in it.
        let bg = Pixmap::decode_png(&c.files[2].1).unwrap();
        let p = bg.pixel(360, 600).unwrap();
        assert_eq!((p.red(), p.green(), p.blue()), (0x10, 0x20, 0x30));
    }

    #[test]
    fn errors_name_the_problem() {
        let e = |s: &str| convert(s.as_bytes(), &opt()).unwrap_err().to_string();
        assert!(e("<svg").contains("could not be parsed"));
        assert!(e("<svg xmlns='http://www.w3.org/2000/svg'/>").contains("viewBox"));
        assert!(
            e("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'/>")
                .contains("\"0 0 100 100\"")
        );
        assert!(
            e("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 720 1280'><rect width='5' height='5'/></svg>")
                .contains("no data-wc-object")
        );
        assert!(e("<html/>").contains("<html>"));
        assert!(
            e("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 720 1280'><g data-wc-object='a' data-wc-anim='spin'><rect width='5' height='5'/></g></svg>")
                .contains("spin")
        );
        assert!(
            e("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 720 1280'><g data-wc-object='a'/></svg>")
                .contains("draws nothing")
        );
    }

    #[test]
    fn gzip_input_is_accepted() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(OK.as_bytes()).unwrap();
        let c = convert(&gz.finish().unwrap(), &opt()).unwrap();
        assert_eq!(c.spec.object_count(), 2);
    }

    #[test]
    fn text_edits_rewrite_the_source() {
        let lines = vec!["NEW <COPY>".to_string(), "LINE TWO".to_string()];
        let edited = edit_text(
            OK,
            "title",
            Some(&lines),
            Some("#00ff00"),
            &Limits::default(),
        )
        .unwrap();
        assert!(
            edited.contains("<tspan x=\"20\" dy=\"0\">NEW &lt;COPY&gt;</tspan>"),
            "{edited}"
        );
        assert!(edited.contains("fill=\"#00ff00\""));
        let c = convert(edited.as_bytes(), &opt()).unwrap();
        assert_eq!(
            c.spec.objects().next().unwrap().text.as_deref(),
            Some("NEW <COPY> LINE TWO")
        );
        assert_eq!(
            edit_text(OK, "nope", None, None, &Limits::default()),
            Err(TextEditError::NoSuchObject("nope".into()))
        );
        assert!(matches!(
            edit_text(OK, "object-2", Some(&lines), None, &Limits::default()),
            Err(TextEditError::NoText(_))
        ));
    }

    #[test]
    fn render_png_of_a_standalone_svg() {
        let png = render_png(
            "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'><rect width='40' height='20' fill='blue'/></svg>",
            &opt(),
        )
        .unwrap();
        let pm = Pixmap::decode_png(&png).unwrap();
        assert_eq!((pm.width(), pm.height()), (40, 20));
        assert!(render_png("<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'><image href='file:///etc/passwd' width='4' height='4'/></svg>", &opt()).is_err());
    }

    #[test]
    fn raster_classifier() {
        let mut photo = Pixmap::new(360, 640).unwrap();
        photo.fill(tiny_skia::Color::from_rgba8(40, 90, 160, 255));
        let p = place_raster(&photo.encode_png().unwrap()).unwrap();
        assert!(p.full_frame);
        assert_eq!(p.rect, CanvasRect::new(0.0, 0.0, 720.0, 1280.0));
        let mut graphic = Pixmap::new(360, 640).unwrap();
        graphic.fill_rect(
            tiny_skia::Rect::from_xywh(30.0, 100.0, 150.0, 50.0).unwrap(),
            &tiny_skia::Paint::default(),
            Transform::identity(),
            None,
        );
        let g = place_raster(&graphic.encode_png().unwrap()).unwrap();
        assert!(!g.full_frame);
        assert_eq!(g.rect, CanvasRect::new(60.0, 200.0, 300.0, 100.0));
        let clear = Pixmap::new(10, 10).unwrap();
        assert!(place_raster(&clear.encode_png().unwrap()).is_err());
        assert!(place_raster(b"not an image").is_err());
    }

    #[test]
    fn base64_round_trip() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVs\nbG8").unwrap(), b"hello");
        assert!(base64_decode("a$").is_none());
    }
}
