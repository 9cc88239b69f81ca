//! B-roll made from an illustration (an SVG from the offline illustration index): a 720×1280
//! picture in the product's style — a procedural palette backdrop, a soft glow and a blurred
//! shadow for depth, the illustration large and centred — and a gently animated clip of the
//! same stage ([`clip`]: the illustration floats, breathes and sways, a seamless loop).
//!
//! The SVG is parsed with no resources directory and no href resolution: anything that points
//! outside the document draws nothing (callers also refuse such files before they get here).

mod clip;

pub use clip::{CLIP_FPS, CLIP_SECONDS, encode_clip};

use tiny_skia::{
    Color, FillRule, GradientStop, Paint, PathBuilder, Pixmap, PixmapPaint, Point, RadialGradient,
    SpreadMode, Transform,
};

use crate::focus::Focus;
use crate::geom::{CANVAS_H, CANVAS_W};
use crate::plan::{Palette, ProceduralStyle};
use crate::raster;

/// The illustration's side on the canvas, in pixels.
pub const ART_SIZE: u32 = 500;
/// Where the illustration's centre sits: centred, a little above the middle (captions live in
/// the lower part of the frame).
pub const ART_CENTRE: (f32, f32) = (CANVAS_W as f32 / 2.0, CANVAS_H as f32 * 0.45);
/// The largest SVG accepted, in bytes.
pub const MAX_SVG_BYTES: usize = 256 * 1024;
/// Shadow: blur radius (two box passes), offset below the art, opacity.
const SHADOW_BLUR: usize = 14;
const SHADOW_DROP: f32 = 34.0;
const SHADOW_ALPHA: u8 = 120;
/// Room around the art on the shadow's plate, so the blur is not cut off.
const SHADOW_PAD: u32 = 3 * SHADOW_BLUR as u32;

/// What a picture or clip is made from.
#[derive(Debug, Clone, Copy)]
pub struct Art<'a> {
    /// A self-contained SVG document.
    pub svg: &'a str,
    /// The backdrop's colours.
    pub palette: Palette,
    /// Seeds the backdrop's layout.
    pub seed: u64,
}

/// The parts every frame is drawn from, made once.
pub(crate) struct Stage {
    backdrop: Pixmap,
    art: Pixmap,
    shadow: Pixmap,
}

/// Where the art moves to at one moment (a settled picture is [`Pose::REST`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pose {
    pub dx: f32,
    pub dy: f32,
    pub scale: f32,
    pub degrees: f32,
}

impl Pose {
    pub const REST: Pose = Pose {
        dx: 0.0,
        dy: 0.0,
        scale: 1.0,
        degrees: 0.0,
    };
}

/// The normalised box of the illustration on the 720×1280 picture (its subject).
pub fn subject_box() -> Focus {
    let half = ART_SIZE as f64 / 2.0;
    Focus {
        x: (f64::from(ART_CENTRE.0) - half) / f64::from(CANVAS_W),
        y: (f64::from(ART_CENTRE.1) - half) / f64::from(CANVAS_H),
        w: f64::from(ART_SIZE) / f64::from(CANVAS_W),
        h: f64::from(ART_SIZE) / f64::from(CANVAS_H),
    }
}

/// The 720×1280 picture, as a PNG.
pub fn picture_png(art: &Art<'_>) -> Result<Vec<u8>, String> {
    let stage = Stage::new(art)?;
    let mut frame = stage.backdrop.clone();
    stage.draw(&mut frame, Pose::REST);
    crate::raster::encode_png(frame.as_ref())
}

impl Stage {
    pub(crate) fn new(art: &Art<'_>) -> Result<Stage, String> {
        let sprite = rasterize(art.svg, ART_SIZE)?;
        let mut backdrop =
            crate::still::procedural_background(art.seed, ProceduralStyle::Bokeh, art.palette)
                .ok_or("backdrop not painted")?;
        glow(&mut backdrop, art.palette);
        Ok(Stage {
            shadow: shadow_of(&sprite)?,
            art: sprite,
            backdrop,
        })
    }

    /// Draws the shadow and the art posed as `pose` over `frame` (a copy of the backdrop).
    pub(crate) fn draw(&self, frame: &mut Pixmap, pose: Pose) {
        let (cx, cy) = (ART_CENTRE.0 + pose.dx, ART_CENTRE.1 + pose.dy);
        let paint = PixmapPaint {
            quality: tiny_skia::FilterQuality::Bilinear,
            ..PixmapPaint::default()
        };
        // The shadow stays on the ground: it shrinks a little as the art rises.
        let lift = (-pose.dy).max(0.0) / 100.0;
        let s = pose.scale * (1.0 - lift * 0.15);
        let half = self.shadow.width() as f32 / 2.0;
        let shadow = Transform::from_translate(cx + pose.dx * 0.3, ART_CENTRE.1 + SHADOW_DROP)
            .pre_scale(s, s)
            .pre_translate(-half, -half);
        frame.draw_pixmap(0, 0, self.shadow.as_ref(), &paint, shadow, None);
        let half = ART_SIZE as f32 / 2.0;
        let art = Transform::from_translate(cx, cy)
            .pre_rotate(pose.degrees)
            .pre_scale(pose.scale, pose.scale)
            .pre_translate(-half, -half);
        frame.draw_pixmap(0, 0, self.art.as_ref(), &paint, art, None);
    }

    pub(crate) fn backdrop(&self) -> &Pixmap {
        &self.backdrop
    }
}

/// The SVG rasterised into a `size`×`size` transparent square (aspect kept, centred).
fn rasterize(svg: &str, size: u32) -> Result<Pixmap, String> {
    if svg.len() > MAX_SVG_BYTES {
        return Err(format!("SVG is over {MAX_SVG_BYTES} bytes"));
    }
    let opt = usvg::Options {
        resources_dir: None,
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: Box::new(|_, _, _| None),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| format!("SVG not parsed: {e}"))?;
    let (w, h) = (tree.size().width(), tree.size().height());
    let scale = size as f32 / w.max(h);
    let mut pixmap = Pixmap::new(size, size).ok_or("no pixels")?;
    let t = Transform::from_translate(
        (size as f32 - w * scale) / 2.0,
        (size as f32 - h * scale) / 2.0,
    )
    .pre_scale(scale, scale);
    resvg::render(&tree, t, &mut pixmap.as_mut());
    Ok(pixmap)
}

/// The art's alpha, blurred twice and painted in a deep shade, on a padded plate.
fn shadow_of(art: &Pixmap) -> Result<Pixmap, String> {
    let side = art.width() + 2 * SHADOW_PAD;
    let n = side as usize;
    let mut cov = vec![0u8; n * n];
    let pad = SHADOW_PAD as usize;
    for (i, px) in art.pixels().iter().enumerate() {
        let (x, y) = (i % art.width() as usize, i / art.width() as usize);
        cov[(y + pad) * n + x + pad] = px.alpha();
    }
    let soft = raster::box_blur(
        &raster::box_blur(&cov, n, n, SHADOW_BLUR),
        n,
        n,
        SHADOW_BLUR,
    );
    let mut plate = Pixmap::new(side, side).ok_or("no pixels")?;
    raster::paint_coverage(&mut plate, &soft, n, n, 0, 0, [0, 0, 0, SHADOW_ALPHA]);
    Ok(plate)
}

/// A soft pool of the palette's accent light behind the art.
fn glow(backdrop: &mut Pixmap, palette: Palette) {
    let a = palette.accent;
    let centre = Point::from_xy(ART_CENTRE.0, ART_CENTRE.1);
    let radius = ART_SIZE as f32 * 0.85;
    let Some(shader) = RadialGradient::new(
        centre,
        0.0,
        centre,
        radius,
        vec![
            GradientStop::new(0.0, Color::from_rgba8(a.r, a.g, a.b, 90)),
            GradientStop::new(1.0, Color::from_rgba8(a.r, a.g, a.b, 0)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    ) else {
        return;
    };
    let paint = Paint {
        shader,
        anti_alias: true,
        ..Paint::default()
    };
    if let Some(circle) = PathBuilder::from_circle(centre.x, centre.y, radius) {
        backdrop.fill_path(
            &circle,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="4" y="4" width="24" height="24" fill="#ff0000"/></svg>"##;

    fn art(svg: &str) -> Art<'_> {
        Art {
            svg,
            palette: Palette::OCEAN,
            seed: 7,
        }
    }

    #[test]
    fn picture_is_720x1280_with_the_art_large_in_the_middle() {
        let png = picture_png(&art(SQUARE)).unwrap();
        let p = raster::decode_image(&png).unwrap();
        assert_eq!((p.width(), p.height()), (CANVAS_W, CANVAS_H));
        let at = |x: u32, y: u32| p.pixel(x, y).unwrap();
        let mid = at(ART_CENTRE.0 as u32, ART_CENTRE.1 as u32);
        assert_eq!((mid.red(), mid.green(), mid.blue()), (255, 0, 0));
        // The art spans most of the width; the corners are the backdrop.
        let edge = at(
            (ART_CENTRE.0 - ART_SIZE as f32 * 0.36) as u32,
            ART_CENTRE.1 as u32,
        );
        assert_eq!(edge.red(), 255);
        assert_ne!(at(5, 5).red(), 255);
        let f = subject_box();
        assert!(f.is_valid() && f.w > 0.6, "{f:?}");
    }

    #[test]
    fn shadow_darkens_below_the_art() {
        let stage = Stage::new(&art(SQUARE)).unwrap();
        let mut frame = stage.backdrop().clone();
        stage.draw(&mut frame, Pose::REST);
        let below = (ART_CENTRE.1 + ART_SIZE as f32 * 0.375 + 20.0) as u32;
        let x = ART_CENTRE.0 as u32;
        let lit = |p: &Pixmap| {
            let c = p.pixel(x, below).unwrap();
            u32::from(c.red()) + u32::from(c.green()) + u32::from(c.blue())
        };
        assert!(
            lit(&frame) < lit(stage.backdrop()),
            "no shadow under the art"
        );
    }

    #[test]
    fn external_references_draw_nothing() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 32 32"><image width="32" height="32" xlink:href="file:///etc/hostname"/></svg>"#;
        let sprite = rasterize(svg, 64).unwrap();
        assert!(sprite.pixels().iter().all(|p| p.alpha() == 0));
        assert!(rasterize("<svg", 64).is_err());
    }
}
