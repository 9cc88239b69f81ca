//! The `data-wc-object` elements of an svg2spec source: where each is, its layout id, and its
//! `data-wc-kind`, `data-wc-anim`, `data-wc-z` and text, with a clear error for every attribute
//! that is not one of the allowed values. Used by the converter and by text edits.

use std::collections::HashSet;
use std::ops::Range;

use super::Svg2specError;
use crate::plan::Animation;
use crate::spec::ObjectKind;

/// One `data-wc-object` element found by [`find_objects`].
#[derive(Debug, Clone)]
pub(super) struct ObjectInfo {
    pub(super) layout_id: String,
    /// Its `id` in the id-stamped source.
    pub(super) node_id: String,
    /// Where its `id` must be inserted (when it had none).
    pub(super) insert_at: Option<usize>,
    /// The element's byte range in the source.
    pub(super) range: Range<usize>,
    pub(super) kind: ObjectKind,
    pub(super) animation: Animation,
    pub(super) z: i32,
    pub(super) text: Option<String>,
}

/// Every `data-wc-object` element in document order; at least one, none inside another.
pub(super) fn find_objects(
    doc: &roxmltree::Document<'_>,
) -> Result<Vec<ObjectInfo>, Svg2specError> {
    let mut out: Vec<ObjectInfo> = Vec::new();
    let used_ids: HashSet<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("id"))
        .collect();
    let mut taken: HashSet<String> = HashSet::new();
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
        let layout_id = unique_layout_id(&label, order, &mut taken);
        let shown = if label.is_empty() {
            layout_id.clone()
        } else {
            label
        };
        let text = object_text(node);
        let (node_id, insert_at) = node_id(doc, node, order, &used_ids);
        out.push(ObjectInfo {
            layout_id,
            node_id,
            insert_at,
            range: node.range(),
            kind: kind_of(node, &shown)?,
            animation: animation_of(node, &shown)?,
            z: z_of(node, order, &shown)?,
            text,
        });
    }
    if out.is_empty() {
        return Err(Svg2specError::NoObjects);
    }
    Ok(out)
}

/// Whether `s` can be a layout id (and a payload file name) as it is.
fn is_plain_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The label if it is a plain id, else `object-{n}`; suffixed until unused.
fn unique_layout_id(label: &str, order: usize, taken: &mut HashSet<String>) -> String {
    let mut layout_id = if is_plain_id(label) {
        label.to_string()
    } else {
        format!("object-{}", order + 1)
    };
    while !taken.insert(layout_id.clone()) {
        layout_id.push_str("-2");
    }
    layout_id
}

/// `data-wc-kind` (default `object`).
fn kind_of(node: roxmltree::Node<'_, '_>, shown: &str) -> Result<ObjectKind, Svg2specError> {
    Ok(match node.attribute("data-wc-kind").map(str::trim) {
        None | Some("") | Some("object") => ObjectKind::Object,
        Some("text") => ObjectKind::Text,
        Some("bar") => ObjectKind::Bar,
        Some("mark") => ObjectKind::Mark,
        Some("callout") => ObjectKind::Callout,
        Some(k) => {
            return Err(Svg2specError::Attribute(
                shown.to_string(),
                format!("data-wc-kind=\"{k}\" is not one of object, text, bar, mark, callout"),
            ));
        }
    })
}

/// `data-wc-anim` (default `fade`).
fn animation_of(node: roxmltree::Node<'_, '_>, shown: &str) -> Result<Animation, Svg2specError> {
    match node.attribute("data-wc-anim").map(str::trim) {
        None | Some("") => Ok(Animation::Fade),
        Some(a) => serde_json::from_value(serde_json::Value::String(a.into())).map_err(|_| {
            Svg2specError::Attribute(
                shown.to_string(),
                format!(
                    "data-wc-anim=\"{a}\" is not one of slide-up, slide-down, slide-left, slide-right, pop, grow-x, grow-y, fade"
                ),
            )
        }),
    }
}

/// `data-wc-z` (default: document order).
fn z_of(node: roxmltree::Node<'_, '_>, order: usize, shown: &str) -> Result<i32, Svg2specError> {
    match node.attribute("data-wc-z").map(str::trim) {
        None | Some("") => Ok(order as i32),
        Some(z) => z.parse::<i32>().map_err(|_| {
            Svg2specError::Attribute(
                shown.to_string(),
                format!("data-wc-z=\"{z}\" is not an integer"),
            )
        }),
    }
}

/// The object's `<text>` contents, whitespace collapsed, one line per `<text>`.
fn object_text(node: roxmltree::Node<'_, '_>) -> Option<String> {
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
    (!text.is_empty()).then(|| text.join("\n"))
}

/// The element's `id`, or a fresh `wc-object-{n}` and the byte offset to insert it at.
fn node_id(
    doc: &roxmltree::Document<'_>,
    node: roxmltree::Node<'_, '_>,
    order: usize,
    used_ids: &HashSet<&str>,
) -> (String, Option<usize>) {
    match node.attribute("id") {
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
    }
}
