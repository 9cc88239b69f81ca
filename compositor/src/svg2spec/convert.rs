//! SVG → overlay spec: every `data-wc-object` rendered alone at its authored box (objects in
//! parallel), everything else rendered once as the full-canvas background layer, each a PNG
//! payload named by the spec. Also [`render_png`] for standalone SVGs (typography objects).

use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use tiny_skia::{Pixmap, Transform};

use super::guard::{check, check_standalone, parse_xml, to_text};
use super::objects::{ObjectInfo, find_objects};
use super::{Converted, Options, Svg2specError};
use crate::geom::{CANVAS_H, CANVAS_W, CanvasRect};
use crate::raster;
use crate::spec::{OverlaySpec, SpecGroup, SpecObject, SpecPayload, SpecSource, TemporalPolicy};

/// The conversion's time limit, checked between steps as a last resort.
struct Deadline<'a> {
    started: Instant,
    opt: &'a Options,
}

impl Deadline<'_> {
    fn check(&self) -> Result<(), Svg2specError> {
        if self.started.elapsed() > self.opt.limits.max_time {
            Err(Svg2specError::Timeout(self.opt.limits.max_time))
        } else {
            Ok(())
        }
    }
}

/// Converts one SVG (plain or gzip) into a spec and its payload PNGs.
pub fn convert(input: &[u8], opt: &Options) -> Result<Converted, Svg2specError> {
    let deadline = Deadline {
        started: Instant::now(),
        opt,
    };
    let source = to_text(input, &opt.limits)?;
    let doc = parse_xml(&source, &opt.limits)?;
    check(&doc, &opt.limits)?;
    let objects = find_objects(&doc)?;
    if objects.len() > opt.limits.max_objects {
        return Err(Svg2specError::TooManyObjects(opt.limits.max_objects));
    }
    let (stamped, background) = split_source(&source, &objects);
    drop(doc);
    deadline.check()?;
    let (tree, bg_tree) = rayon::join(|| tree_of(&stamped, opt), || tree_of(&background, opt));
    let (tree, bg_tree) = (tree?, bg_tree?);
    deadline.check()?;
    let rendered = render_objects(&tree, &objects, &deadline);
    let mut files = Vec::with_capacity(objects.len() + 1);
    let mut spec_objects = Vec::with_capacity(objects.len());
    for (o, r) in objects.iter().zip(rendered) {
        let (rect, png) = r?;
        let file = payload_name(&opt.file_prefix, &o.layout_id);
        files.push((file.clone(), png));
        spec_objects.push(spec_object(o, rect, file));
    }
    deadline.check()?;
    let mut spec = OverlaySpec::new(SpecSource::Svg2spec);
    if let Some((file, png)) = render_background(&bg_tree, &opt.file_prefix)? {
        files.push((file.clone(), png));
        spec.background = Some(SpecPayload::Png { file });
    }
    spec.groups.push(SpecGroup {
        id: "svg".into(),
        rect: bounding_rect(&spec_objects),
        temporal_policy: TemporalPolicy::Scene,
        objects: spec_objects,
    });
    deadline.check()?;
    Ok(Converted {
        spec,
        files,
        source,
    })
}

/// The source with an id on every object (so usvg can find each), and the background: the
/// source without the objects.
fn split_source(source: &str, objects: &[ObjectInfo]) -> (String, String) {
    let mut stamped = source.to_string();
    let mut inserts: Vec<(usize, &ObjectInfo)> = objects
        .iter()
        .filter_map(|o| o.insert_at.map(|at| (at, o)))
        .collect();
    inserts.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    for (at, o) in inserts {
        stamped.insert_str(at, &format!(" id=\"{}\"", o.node_id));
    }
    let mut background = source.to_string();
    let mut ranges: Vec<Range<usize>> = objects.iter().map(|o| o.range.clone()).collect();
    ranges.sort_by_key(|r| std::cmp::Reverse(r.start));
    for r in ranges {
        background.replace_range(r, "");
    }
    (stamped, background)
}

/// Each object rendered alone, in parallel: its canvas rect and PNG.
fn render_objects(
    tree: &usvg::Tree,
    objects: &[ObjectInfo],
    deadline: &Deadline<'_>,
) -> Vec<Result<(CanvasRect, Vec<u8>), Svg2specError>> {
    objects
        .par_iter()
        .map(|o| {
            deadline.check()?;
            let empty = || Svg2specError::EmptyObject(o.layout_id.clone());
            let node = tree.node_by_id(&o.node_id).ok_or_else(empty)?;
            if let usvg::Node::Group(g) = node
                && !g.has_children()
            {
                return Err(empty());
            }
            let rect = clipped_rect(node).ok_or_else(empty)?;
            let pm = render_node(node, rect).ok_or_else(empty)?;
            Ok((rect, encode_png(&pm)?))
        })
        .collect()
}

/// The spec object of a rendered object: its authored box, from the scene's start.
fn spec_object(o: &ObjectInfo, rect: CanvasRect, file: String) -> SpecObject {
    SpecObject {
        layout_id: o.layout_id.clone(),
        kind: o.kind,
        text: o.text.clone(),
        rect,
        z: o.z,
        animation: o.animation,
        start: 0.0,
        end: None,
        payload: SpecPayload::Png { file },
    }
}

/// The background layer's payload `(file name, PNG)`, or `None` when it draws nothing.
fn render_background(
    bg_tree: &usvg::Tree,
    prefix: &str,
) -> Result<Option<(String, Vec<u8>)>, Svg2specError> {
    if !bg_tree.root().has_children() {
        return Ok(None);
    }
    let mut pm = Pixmap::new(CANVAS_W, CANVAS_H).expect("canvas size");
    resvg::render(bg_tree, Transform::identity(), &mut pm.as_mut());
    if !pm.data().chunks_exact(4).any(|p| p[3] != 0) {
        return Ok(None);
    }
    Ok(Some((payload_name(prefix, "background"), encode_png(&pm)?)))
}

/// The smallest rect holding every object (the group's rect).
fn bounding_rect(objects: &[SpecObject]) -> CanvasRect {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for o in objects {
        x0 = x0.min(o.rect.x);
        y0 = y0.min(o.rect.y);
        x1 = x1.max(o.rect.x + o.rect.w);
        y1 = y1.max(o.rect.y + o.rect.h);
    }
    CanvasRect::new(x0, y0, x1 - x0, y1 - y0)
}

fn encode_png(pm: &Pixmap) -> Result<Vec<u8>, Svg2specError> {
    raster::encode_png(pm.as_ref())
        .map_err(|e| Svg2specError::Parse(format!("PNG encoding failed: {e}")))
}

/// Rasterises a standalone SVG (e.g. a typography object) to a transparent PNG of its own size,
/// under the same checks as [`convert`] except the canvas rules (any viewBox, no objects needed).
/// Sides are capped at 2048 px.
pub fn render_png(svg: &str, opt: &Options) -> Result<Vec<u8>, Svg2specError> {
    let text = to_text(svg.as_bytes(), &opt.limits)?;
    let doc = parse_xml(&text, &opt.limits)?;
    // Reference, depth and use checks (a 720×1280 viewBox is not required here).
    check_standalone(&doc, &opt.limits)?;
    let tree = usvg::Tree::from_xmltree(&doc, &usvg_options(&opt.fontdb))
        .map_err(|e| Svg2specError::Parse(e.to_string()))?;
    let size = tree.size();
    let (w, h) = (size.width().ceil(), size.height().ceil());
    if w > 2048.0 || h > 2048.0 {
        return Err(Svg2specError::Dimension("size", format!("{w}×{h}"), 2048.0));
    }
    let mut pm = Pixmap::new(w.max(1.0) as u32, h.max(1.0) as u32).expect("bounded size");
    resvg::render(&tree, Transform::identity(), &mut pm.as_mut());
    encode_png(&pm)
}

/// usvg options that load nothing external: no resources folder, string hrefs resolve to
/// nothing, only `data:` URLs are decoded.
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

/// Parses (under the XML limits) and builds the usvg tree of `text`.
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

#[cfg(test)]
mod tests {
    use super::super::tests::opt;
    use super::*;

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
}
