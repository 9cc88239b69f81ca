//! Overlay objects: each `remotion_spec` object rasterised once at its settled rect (SVG through
//! resvg without external references, or a decoded image), then posed per frame by one of the
//! eight entrance presets ([`entrance_pose`]) and faded out at its end. Settled and sliding
//! objects at full opacity are integer blits; only scaling or fading resamples.

use super::Fonts;
use crate::blit::{self, Sprite};
use crate::plan::{Animation, MAX_SVG_FILE_BYTES, OverlayObject, OverlayPayload};
use crate::raster;
use tiny_skia::{FilterQuality, Pixmap, PixmapMut, PixmapPaint, Transform};

/// Largest side of an overlay object's raster, pixels.
const MAX_OBJECT_SIDE: f64 = 4096.0;
/// Farthest an overlay object's corner may sit from the canvas origin, pixels (objects may be
/// partly off-canvas, the API allows negative group y).
const MAX_OBJECT_OFFSET: f64 = 16384.0;
/// Largest SVG source accepted, bytes.
const MAX_SVG_BYTES: usize = 4 << 20;

/// An overlay object rasterised at its settled rect.
pub(crate) struct OverlaySprite {
    pub(crate) z: i32,
    sprite: Sprite,
    animation: Animation,
    start: f64,
    end: f64,
}

/// How an object looks at one moment: translation, scale about an anchor, opacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pose {
    pub(crate) dx: f32,
    pub(crate) dy: f32,
    pub(crate) sx: f32,
    pub(crate) sy: f32,
    /// Scale anchor as a fraction of the rect (0,0 = top-left).
    pub(crate) anchor: (f32, f32),
    pub(crate) opacity: f32,
}

impl Pose {
    pub(crate) const SETTLED: Pose = Pose {
        dx: 0.0,
        dy: 0.0,
        sx: 1.0,
        sy: 1.0,
        anchor: (0.5, 0.5),
        opacity: 1.0,
    };
}

fn ease_out_cubic(p: f32) -> f32 {
    1.0 - (1.0 - p).powi(3)
}

fn ease_out_back(p: f32) -> f32 {
    let c1 = 1.70158;
    let c3 = c1 + 1.0;
    1.0 + c3 * (p - 1.0).powi(3) + c1 * (p - 1.0).powi(2)
}

/// The pose of an object with `animation` at entrance progress `p` (0..1), before exit fading.
pub(crate) fn entrance_pose(animation: Animation, p: f32) -> Pose {
    let p = p.clamp(0.0, 1.0);
    let e = ease_out_cubic(p);
    let mut pose = Pose::SETTLED;
    match animation {
        Animation::Fade => pose.opacity = e,
        Animation::SlideUp => {
            pose.dy = (1.0 - e) * 90.0;
            pose.opacity = e;
        }
        Animation::SlideDown => {
            pose.dy = -(1.0 - e) * 90.0;
            pose.opacity = e;
        }
        Animation::SlideLeft => {
            pose.dx = (1.0 - e) * 140.0;
            pose.opacity = e;
        }
        Animation::SlideRight => {
            pose.dx = -(1.0 - e) * 140.0;
            pose.opacity = e;
        }
        Animation::Pop => {
            let s = 0.5 + 0.5 * ease_out_back(p);
            pose.sx = s;
            pose.sy = s;
            pose.opacity = (p * 3.0).min(1.0);
        }
        Animation::GrowX => {
            pose.sx = e.max(0.001);
            pose.anchor = (0.0, 0.5);
            pose.opacity = (p * 4.0).min(1.0);
        }
        Animation::GrowY => {
            pose.sy = e.max(0.001);
            pose.anchor = (0.5, 1.0);
            pose.opacity = (p * 4.0).min(1.0);
        }
    }
    pose
}

impl OverlaySprite {
    pub(crate) fn prepare(o: &OverlayObject, fonts: &Fonts) -> Result<Self, String> {
        if !o.rect.is_valid() {
            return Err(format!(
                "rect {:?} must be finite with positive size",
                o.rect
            ));
        }
        if o.rect.x.abs() > MAX_OBJECT_OFFSET || o.rect.y.abs() > MAX_OBJECT_OFFSET {
            return Err(format!(
                "rect {:?} is placed more than {MAX_OBJECT_OFFSET} px from the canvas",
                o.rect
            ));
        }
        if o.rect.w > MAX_OBJECT_SIDE || o.rect.h > MAX_OBJECT_SIDE {
            return Err(format!(
                "rect {:?} is larger than {MAX_OBJECT_SIDE} px on a side",
                o.rect
            ));
        }
        if !(o.start.is_finite() && o.end.is_finite() && o.end > o.start) {
            return Err(format!(
                "timing start {} / end {} must be finite with end after start",
                o.start, o.end
            ));
        }
        let w = o.rect.w.round().max(1.0) as u32;
        let h = o.rect.h.round().max(1.0) as u32;
        let pixmap = match &o.payload {
            OverlayPayload::Svg(src) => rasterize_svg(src, w, h, fonts)?,
            OverlayPayload::SvgFile(path) => {
                let src = read_limited(path, MAX_SVG_FILE_BYTES)?;
                rasterize_svg(&src, w, h, fonts)?
            }
            OverlayPayload::Png(path) => {
                let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
                let img =
                    raster::decode_image(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
                raster::contain(img.as_ref(), w, h).ok_or("image could not be scaled")?
            }
        };
        Ok(OverlaySprite {
            z: o.z,
            sprite: Sprite {
                x: o.rect.x.round() as i32,
                y: o.rect.y.round() as i32,
                pixmap,
            },
            animation: o.animation,
            start: o.start,
            end: o.end,
        })
    }

    /// The pose at scene time `t`, or `None` when the object is not on screen.
    pub(crate) fn pose_at(&self, t: f64) -> Option<Pose> {
        if t < self.start || t >= self.end {
            return None;
        }
        let span = self.end - self.start;
        let enter = (0.45f64).min(span / 3.0);
        let exit = (0.25f64).min(span / 4.0);
        let mut pose = entrance_pose(self.animation, ((t - self.start) / enter) as f32);
        pose.opacity *= (((self.end - t) / exit) as f32).clamp(0.0, 1.0);
        Some(pose)
    }

    /// The canvas pixels the object may draw in `pose`: `(x0, y0, x1, y1)`; `None` when it
    /// draws nothing. Matches [`Self::draw`]: whole-pixel offsets for translations, the
    /// transformed rect plus a resampling margin otherwise.
    pub(crate) fn bounds(&self, pose: Pose) -> Option<(i64, i64, i64, i64)> {
        if pose.opacity <= 0.0 {
            return None;
        }
        let s = &self.sprite;
        if pose.sx == 1.0 && pose.sy == 1.0 {
            let (x0, y0, x1, y1) = s.bounds();
            let (dx, dy) = (pose.dx.round() as i64, pose.dy.round() as i64);
            return Some((x0 + dx, y0 + dy, x1 + dx, y1 + dy));
        }
        let (w, h) = (s.pixmap.width() as f32, s.pixmap.height() as f32);
        let ax = s.x as f32 + pose.anchor.0 * w;
        let ay = s.y as f32 + pose.anchor.1 * h;
        let map = |x: f32, y: f32| {
            (
                ax + pose.dx + pose.sx * (x - ax),
                ay + pose.dy + pose.sy * (y - ay),
            )
        };
        let (a, b) = (
            map(s.x as f32, s.y as f32),
            map(s.x as f32 + w, s.y as f32 + h),
        );
        let margin = 2.0;
        Some((
            (a.0.min(b.0) - margin).floor() as i64,
            (a.1.min(b.1) - margin).floor() as i64,
            (a.0.max(b.0) + margin).ceil() as i64,
            (a.1.max(b.1) + margin).ceil() as i64,
        ))
    }

    pub(crate) fn draw(&self, pose: Pose, dst: &mut PixmapMut<'_>) {
        if pose.opacity <= 0.0 {
            return;
        }
        let s = &self.sprite;
        let paint = |quality| PixmapPaint {
            opacity: pose.opacity.min(1.0),
            quality,
            ..PixmapPaint::default()
        };
        if pose.sx == 1.0 && pose.sy == 1.0 && pose.opacity >= 1.0 {
            // Settled or sliding at full opacity: an integer blit at whole pixels.
            blit::blend_over(
                dst,
                s.x + pose.dx.round() as i32,
                s.y + pose.dy.round() as i32,
                s.pixmap.as_ref(),
            );
        } else if pose.sx == 1.0 && pose.sy == 1.0 {
            // Pure translation: snap to whole pixels, no resampling.
            dst.draw_pixmap(
                s.x + pose.dx.round() as i32,
                s.y + pose.dy.round() as i32,
                s.pixmap.as_ref(),
                &paint(FilterQuality::Nearest),
                Transform::identity(),
                None,
            );
        } else {
            let ax = s.x as f32 + pose.anchor.0 * s.pixmap.width() as f32;
            let ay = s.y as f32 + pose.anchor.1 * s.pixmap.height() as f32;
            let tr = Transform::from_translate(ax + pose.dx, ay + pose.dy)
                .pre_scale(pose.sx, pose.sy)
                .pre_translate(-ax, -ay);
            dst.draw_pixmap(
                s.x,
                s.y,
                s.pixmap.as_ref(),
                &paint(FilterQuality::Bilinear),
                tr,
                None,
            );
        }
    }
}

/// Reads a UTF-8 file of at most `limit` bytes.
fn read_limited(path: &std::path::Path, limit: u64) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    file.take(limit + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if text.len() as u64 > limit {
        return Err(format!("{} is over {limit} bytes", path.display()));
    }
    Ok(text)
}

/// Parses and rasterises SVG into a `w`×`h` pixmap (aspect kept, centred). No external file or URL
/// is ever loaded: string hrefs resolve to nothing, only `data:` URLs are decoded, and there is no
/// resources directory.
fn rasterize_svg(src: &str, w: u32, h: u32, fonts: &Fonts) -> Result<Pixmap, String> {
    if src.len() > MAX_SVG_BYTES {
        return Err(format!("SVG is over {MAX_SVG_BYTES} bytes"));
    }
    let mut opt = usvg::Options {
        resources_dir: None,
        font_family: "Inter".into(),
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: usvg::ImageHrefResolver::default_data_resolver(),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    };
    if let Some(db) = &fonts.svg_db {
        opt.fontdb = db.clone();
    }
    let tree =
        usvg::Tree::from_str(src, &opt).map_err(|e| format!("SVG could not be parsed: {e}"))?;
    let size = tree.size();
    let scale = (w as f32 / size.width()).min(h as f32 / size.height());
    let tx = (w as f32 - size.width() * scale) / 2.0;
    let ty = (h as f32 - size.height() * scale) / 2.0;
    let mut pixmap = Pixmap::new(w, h).ok_or("SVG raster has no pixels")?;
    resvg::render(
        &tree,
        Transform::from_translate(tx, ty).pre_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    Ok(pixmap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_settles_and_starts_hidden_or_displaced() {
        for a in Animation::ALL {
            let end = entrance_pose(a, 1.0);
            assert!((end.opacity - 1.0).abs() < 1e-6, "{a:?}");
            assert!(
                (end.sx - 1.0).abs() < 1e-4 && (end.sy - 1.0).abs() < 1e-4,
                "{a:?}"
            );
            assert!(end.dx.abs() < 1e-4 && end.dy.abs() < 1e-4, "{a:?}");
            let start = entrance_pose(a, 0.0);
            assert_ne!(start, Pose::SETTLED, "{a:?} does not animate");
        }
    }
}
