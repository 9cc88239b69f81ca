//! The untrusted-input guard of svg2spec: everything checked before usvg sees a byte.
//!
//! Size (with gzip inflated through a cap) and UTF-8; XML without any DTD and under node and
//! depth caps; the 720×1280 root; references only inside the document or to size-checked
//! `data:` raster images; no `<script>`, no `@import`; a cap on filter primitives; `<use>`
//! cycles refused and the expanded element count bounded. See the rules in the svg2spec module docs.

use std::collections::HashMap;

use super::{Limits, Svg2specError};
use crate::geom::{CANVAS_H, CANVAS_W};
use crate::raster;

/// Inflates gzip input through a cap, checks the size and UTF-8.
pub(super) fn to_text(input: &[u8], limits: &Limits) -> Result<String, Svg2specError> {
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

/// Parses XML under the limits: no DTD at all, at most [`Limits::max_nodes`] nodes.
pub(super) fn parse_xml<'a>(
    text: &'a str,
    limits: &Limits,
) -> Result<roxmltree::Document<'a>, Svg2specError> {
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
pub(super) fn base64_decode(s: &str) -> Option<Vec<u8>> {
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
            let img = raster::decode_image(&bytes).map_err(Svg2specError::Image)?;
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
pub(super) fn check_urls(s: &str, element: &str) -> Result<(), Svg2specError> {
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

/// A length attribute's number, units and `%` dropped.
fn parse_len(v: &str) -> Option<f64> {
    let v = v.trim();
    let num = v.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
    num.trim().parse::<f64>().ok()
}

/// Validates an overlay SVG (see the module docs for every rule): the root element, then
/// every element in one walk, then the `<use>` expansion.
pub(super) fn check(doc: &roxmltree::Document<'_>, limits: &Limits) -> Result<(), Svg2specError> {
    let root = doc.root_element();
    check_root(root, limits)?;
    let ids = check_elements(root, limits)?;
    check_use_expansion(doc, &ids, limits)
}

/// The root is `<svg>` with the 720×1280 viewBox and sane `width`/`height`.
fn check_root(root: roxmltree::Node<'_, '_>, limits: &Limits) -> Result<(), Svg2specError> {
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
            if nums != [0.0, 0.0, CANVAS_W as f64, CANVAS_H as f64] {
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
    Ok(())
}

/// Depth, references, forbidden elements, filters, ids and use edges, in one walk from the
/// root. Returns the ids for the `<use>` check.
fn check_elements<'a>(
    root: roxmltree::Node<'a, '_>,
    limits: &Limits,
) -> Result<Ids<'a>, Svg2specError> {
    let mut filters = 0usize;
    let mut ids: Ids<'a> = HashMap::new();
    let mut stack: Vec<(roxmltree::Node<'a, '_>, usize)> = vec![(root, 1)];
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
        check_attributes(node, tag, limits)?;
        if let Some(id) = node.attribute("id") {
            ids.entry(id).or_insert(node.id());
        }
        for c in node.children().filter(|c| c.is_element()) {
            stack.push((c, depth + 1));
        }
    }
    Ok(ids)
}

/// An element's attributes: `href` only to `#id` (or a checked `data:` image on `<image>`),
/// `url(...)` and styles only to fragments.
fn check_attributes(
    node: roxmltree::Node<'_, '_>,
    tag: &str,
    limits: &Limits,
) -> Result<(), Svg2specError> {
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
    Ok(())
}

/// The checks of a standalone SVG (`render_png`): depth, references and `<use>`
/// expansion, without the canvas rules.
pub(super) fn check_standalone(
    doc: &roxmltree::Document<'_>,
    limits: &Limits,
) -> Result<(), Svg2specError> {
    let mut ids: Ids<'_> = HashMap::new();
    for n in doc.descendants().filter(|n| n.is_element()) {
        if n.ancestors().count() > limits.max_depth + 1 {
            return Err(Svg2specError::TooDeep(limits.max_depth));
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
    check_use_expansion(doc, &ids, limits)
}

/// Ids of the document's elements (the first element wins a duplicate id).
type Ids<'a> = HashMap<&'a str, roxmltree::NodeId>;

/// Where the expansion walk stands on an element.
#[derive(Clone, Copy)]
enum State {
    Todo,
    Active,
    Done(usize),
}

/// Refuses `<use>` cycles and bounds the expanded size (memoised DFS over elements).
fn check_use_expansion(
    doc: &roxmltree::Document<'_>,
    ids: &Ids<'_>,
    limits: &Limits,
) -> Result<(), Svg2specError> {
    let mut state = vec![State::Todo; doc.descendants().count() + 1];
    expanded_size(
        doc,
        doc.root_element().id(),
        ids,
        &mut state,
        limits.max_expanded,
    )
    .map(|_| ())
}

/// The element count of `start` with every `<use>` expanded, refusing cycles and sizes over
/// `cap`. Explicit stack: (node, exiting).
fn expanded_size(
    doc: &roxmltree::Document<'_>,
    start: roxmltree::NodeId,
    ids: &Ids<'_>,
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

/// The element a `<use>` points at, if `node` is one and its target exists.
fn use_target(node: roxmltree::Node<'_, '_>, ids: &Ids<'_>) -> Option<roxmltree::NodeId> {
    if node.tag_name().name() != "use" {
        return None;
    }
    let href = node.attributes().find(|a| a.name() == "href")?.value();
    ids.get(href.trim().strip_prefix('#')?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVs\nbG8").unwrap(), b"hello");
        assert!(base64_decode("a$").is_none());
    }
}
