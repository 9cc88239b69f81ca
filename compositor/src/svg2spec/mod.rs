//! svg2spec: an uploaded SVG → an overlay spec ([`OverlaySpec`], source `svg2spec`).
//!
//! The SVG rules (spec, modify_scene branch B): `viewBox="0 0 720 1280"`; each element with a
//! `data-wc-object` attribute becomes one object placed at its authored bounding box (no
//! auto-fit), with `data-wc-kind` (`object`, `text`, `bar`, `mark`, `callout`; default
//! `object`), `data-wc-anim` (the eight presets; default `fade`) and `data-wc-z` (default:
//! document order); everything else is rasterised into one full-canvas background layer.
//! Every object becomes a transparent PNG of its bounding box, clipped to the canvas.
//!
//! The input is untrusted, so it is checked before usvg ever sees it (`guard.rs`):
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
//! Objects are rendered in parallel (rayon).
//!
//! Parts: `guard.rs` (the checks above), `objects.rs` (the `data-wc-object` elements and their
//! attributes), `convert.rs` ([`convert`]: SVG → spec and payloads; [`render_png`]: a standalone
//! SVG → PNG), `classify.rs` (uploaded rasters: [`place_raster`], [`raster_to_png`]),
//! `text_edit.rs` ([`edit_text`]); the folder batch of `reelsmith svg2spec` lives in the daemon
//! (`daemon/src/svg2spec_cli.rs`). This module holds what they share: [`Limits`], [`Options`], [`font_db`], the errors.

mod classify;
mod convert;
mod guard;
mod objects;
mod text_edit;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::spec::OverlaySpec;

pub use classify::{RasterPlacement, place_raster, raster_to_png};
pub use convert::{convert, render_png};
pub use text_edit::{TextEditError, edit_text};

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

#[cfg(test)]
pub(crate) mod tests {
    //! Fixtures shared by the unit tests of the parts, and the tests of the whole conversion.
    use super::*;
    use crate::geom::CanvasRect;
    use crate::plan::Animation;
    use crate::spec::{ObjectKind, SpecSource};
    use tiny_skia::Pixmap;

    pub(crate) fn opt() -> Options {
        Options {
            fontdb: font_db(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/fonts")),
            limits: Limits::default(),
            file_prefix: "s1_".into(),
        }
    }

    pub(crate) const OK: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 720 1280" width="720" height="1280">
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
}
