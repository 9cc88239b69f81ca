//! Coordinate spaces: the final 720×1280 canvas and the editor's 280×498 preview.
//!
//! The API hands out rects in both spaces and they are not interchangeable (spec: "Coordinate
//! spaces"). A [`Rect`] carries its space in its type, so mixing them is a compile error, and
//! [`Rect::to_canvas`] / [`Rect::to_preview`] are the one place that converts between them.

use serde::{Deserialize, Serialize};
use std::marker::PhantomData;

/// Width and height of the final video frame: owned by typography, the crate at the bottom.
pub use typography::canvas::{CANVAS_H, CANVAS_W};
/// Width of the editor preview.
pub const PREVIEW_W: u32 = 280;
/// Height of the editor preview.
pub const PREVIEW_H: u32 = 498;

/// Marker: coordinates in the 720×1280 canvas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Canvas;
/// Marker: coordinates in the 280×498 editor preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Preview;

/// An axis-aligned rectangle in space `S` (`x`, `y` = top-left; y grows downwards).
///
/// [`CanvasRect`] and [`PreviewRect`] are the workspace's one rect pair: `Debug`, `Clone`,
/// `Copy`, `PartialEq`, `Default` (all zero) and serde as exactly `{"x","y","w","h"}` (the
/// space is a type, never a field), so stored documents read back unchanged. The impls are
/// written out rather than derived so they hold for every `S` without bounds on the marker.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Rect<S> {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    #[serde(skip)]
    space: PhantomData<S>,
}

impl<S> Clone for Rect<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for Rect<S> {}
impl<S> Default for Rect<S> {
    fn default() -> Self {
        Rect::new(0.0, 0.0, 0.0, 0.0)
    }
}
impl<S> PartialEq for Rect<S> {
    fn eq(&self, o: &Self) -> bool {
        (self.x, self.y, self.w, self.h) == (o.x, o.y, o.w, o.h)
    }
}
impl<S> std::fmt::Debug for Rect<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Rect<{}>({}, {}, {}×{})",
            std::any::type_name::<S>()
                .rsplit("::")
                .next()
                .unwrap_or("?"),
            self.x,
            self.y,
            self.w,
            self.h
        )
    }
}

/// A rect in canvas space.
pub type CanvasRect = Rect<Canvas>;
/// A rect in preview space.
pub type PreviewRect = Rect<Preview>;

impl<S> Rect<S> {
    /// A rect from its top-left corner and size.
    pub const fn new(x: f64, y: f64, w: f64, h: f64) -> Self {
        Rect {
            x,
            y,
            w,
            h,
            space: PhantomData,
        }
    }

    /// Whether all four numbers are finite and the size is positive.
    pub fn is_valid(&self) -> bool {
        [self.x, self.y, self.w, self.h]
            .iter()
            .all(|v| v.is_finite())
            && self.w > 0.0
            && self.h > 0.0
    }

    /// The centre point.
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }
}

/// Horizontal preview → canvas factor (720 / 280).
const SX: f64 = CANVAS_W as f64 / PREVIEW_W as f64;
/// Vertical preview → canvas factor (1280 / 498).
const SY: f64 = CANVAS_H as f64 / PREVIEW_H as f64;

impl PreviewRect {
    /// The same rect in canvas space (x·720/280, y·1280/498).
    pub fn to_canvas(self) -> CanvasRect {
        Rect::new(self.x * SX, self.y * SY, self.w * SX, self.h * SY)
    }
}

impl CanvasRect {
    /// The same rect in preview space (x·280/720, y·498/1280).
    pub fn to_preview(self) -> PreviewRect {
        Rect::new(self.x / SX, self.y / SY, self.w / SX, self.h / SY)
    }
}

/// A vertical preview coordinate converted to canvas space.
pub fn preview_y_to_canvas(y: f64) -> f64 {
    PreviewRect::new(0.0, y, 1.0, 1.0).to_canvas().y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_preview_maps_to_full_canvas_and_back() {
        let c = PreviewRect::new(0.0, 0.0, 280.0, 498.0).to_canvas();
        assert_eq!(c, CanvasRect::new(0.0, 0.0, 720.0, 1280.0));
        let p = CanvasRect::new(72.0, 128.0, 360.0, 640.0).to_preview();
        let back = p.to_canvas();
        assert!((back.x - 72.0).abs() < 1e-9 && (back.h - 640.0).abs() < 1e-9);
        assert!((preview_y_to_canvas(373.5) - 960.0).abs() < 1e-9);
    }

    #[test]
    fn validity_and_serde() {
        assert!(!CanvasRect::new(0.0, 0.0, 0.0, 5.0).is_valid());
        assert!(!CanvasRect::new(f64::NAN, 0.0, 1.0, 5.0).is_valid());
        let r = PreviewRect::new(1.0, 2.0, 3.0, 4.0);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"x":1.0,"y":2.0,"w":3.0,"h":4.0}"#);
        let back: PreviewRect = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
    }

    /// The trait set other crates rely on when they store these rects in their own documents.
    #[test]
    fn both_rects_are_plain_serde_values() {
        fn plain<T>()
        where
            T: std::fmt::Debug + Clone + Copy + PartialEq + Default,
            T: Serialize + for<'de> Deserialize<'de>,
        {
        }
        plain::<CanvasRect>();
        plain::<PreviewRect>();
        assert_eq!(CanvasRect::default(), CanvasRect::new(0.0, 0.0, 0.0, 0.0));
        let c: CanvasRect = serde_json::from_str(r#"{"x":1,"y":2,"w":3,"h":4}"#).unwrap();
        assert_eq!(c, CanvasRect::new(1.0, 2.0, 3.0, 4.0));
        assert_eq!(
            serde_json::to_value(c).unwrap(),
            serde_json::json!({"x": 1.0, "y": 2.0, "w": 3.0, "h": 4.0})
        );
    }
}
