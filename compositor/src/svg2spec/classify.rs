//! The raster classifier of modify_scene branch B: an uploaded PNG, JPEG or WebP becomes either
//! one full-frame object (a realistic, opaque picture) or a graphic placed where its visible
//! pixels fall on the canvas and cropped to them.

use tiny_skia::Pixmap;

use super::Svg2specError;
use crate::geom::{CANVAS_H, CANVAS_W, CanvasRect};
use crate::raster;

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
    let img = raster::decode_image(bytes).map_err(Svg2specError::Image)?;
    let (w, h) = (img.width(), img.height());
    let pixels = img.pixels();
    let opaque = pixels.iter().filter(|p| p.alpha() == 255).count();
    let encode = |pm: &Pixmap| {
        raster::encode_png(pm.as_ref())
            .map_err(|e| Svg2specError::Image(format!("PNG encoding failed: {e}")))
    };
    if opaque as f64 >= pixels.len() as f64 * 0.99 {
        let full = raster::cover(img.as_ref(), CANVAS_W, CANVAS_H)
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
    let cropped = raster::crop(img.as_ref(), x0, y0, x1 - x0, y1 - y0)
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
    let img = raster::decode_image(bytes).map_err(Svg2specError::Image)?;
    raster::encode_png(img.as_ref())
        .map_err(|e| Svg2specError::Image(format!("PNG encoding failed: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tiny_skia::Transform;

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
}
