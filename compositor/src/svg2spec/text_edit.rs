//! Text edits of an svg2spec source (modify_scene's text fields): an object's `<text>` lines
//! and fill rewritten in the source itself, so re-running the conversion renders the new copy
//! with the object's own fonts and layout.

use std::ops::Range;

use super::guard::parse_xml;
use super::objects::find_objects;
use super::{Limits, Svg2specError};

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
                tspans(t.attribute("x").unwrap_or("0"), lines)
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

/// One `<tspan>` per line at `x`, 1.2 em apart.
fn tspans(x: &str, lines: &[String]) -> String {
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
        .collect()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::super::tests::{OK, opt};
    use super::super::{Limits, convert};
    use super::*;

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
}
