//! The subject of a background picture and where it lands on the canvas.
//!
//! [`detect`] finds a picture's subject by edge density on a downscaled luma image: the same
//! rule as `assets/broll/make_library.py` (which stores the library's boxes in
//! `library.json`), so a library asset, a stock search result and an upload get comparable
//! boxes. A [`Focus`] is normalised to 0..1 of the picture's width and height.
//!
//! Placement: a still background is drawn as a plate [`PLATE_NUM`]/[`PLATE_DEN`] of the canvas
//! size, panned by at most [`DRIFT_MAX`] canvas pixels from its centre (the Ken Burns drift).
//! [`BackgroundFit`] says how the picture sits on that plate: covering it (the default),
//! scaled into a window ([`BackgroundFit::Window`], the picture's rect on the canvas, with a
//! soft copy of itself filling the rest) or as a soft backdrop only. [`subject_on_canvas`] is
//! the subject's rect on the canvas for a fit, the drift included: the one rect the renderer
//! draws and `scene_geometry` checks.

use crate::geom::{CANVAS_H, CANVAS_W, CanvasRect};
use serde::{Deserialize, Serialize};
use tiny_skia::PixmapRef;

/// A still background plate is this fraction of the canvas on each axis (110 %): the margin
/// is the Ken Burns travel.
pub const PLATE_NUM: u32 = 11;
pub const PLATE_DEN: u32 = 10;
/// The furthest a still plate's window moves from the plate's centre, canvas pixels on each
/// axis (the drift's travel is at most 90 % of the smaller margin; half of it each way).
pub const DRIFT_MAX: f64 = (CANVAS_W * PLATE_NUM / PLATE_DEN - CANVAS_W) as f64 * 0.9 / 2.0;

/// Size of the luma image edges are measured on.
pub const FOCUS_W: usize = 72;
pub const FOCUS_H: usize = 128;
/// A cell is an edge when its gradient (|dx| + |dy| in luma steps) reaches this, or
/// [`EDGE_SHARE`] of the image's strongest gradients, whichever is higher.
const EDGE_MIN: f64 = 40.0;
const EDGE_SHARE: f64 = 0.25;
/// Edge mass trimmed off each side before the box is taken, and the pad added around it.
const TRIM: f64 = 0.02;
const PAD: f64 = 0.02;

/// A picture's subject: a box normalised to 0..1 of its width and height.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Focus {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Focus {
    /// The whole picture (no edges found: nothing stands out).
    pub const WHOLE: Focus = Focus {
        x: 0.0,
        y: 0.0,
        w: 1.0,
        h: 1.0,
    };

    /// Inside 0..1 with a positive size.
    pub fn is_valid(&self) -> bool {
        let ok = |v: f64| v.is_finite() && (0.0..=1.0).contains(&v);
        ok(self.x)
            && ok(self.y)
            && self.w > 0.0
            && self.h > 0.0
            && self.x + self.w <= 1.0 + 1e-6
            && self.y + self.h <= 1.0 + 1e-6
    }
}

/// A background picture's subject with the picture's size (pixels), what placement needs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Subject {
    pub focus: Focus,
    pub width: u32,
    pub height: u32,
}

/// How a still background sits on its plate.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BackgroundFit {
    /// Cover-fitted to the plate (the picture fills the frame).
    #[default]
    Cover,
    /// The picture drawn into `rect` (canvas space, at the drift's midpoint) over a soft,
    /// dimmed cover-fitted copy of itself.
    Window { rect: CanvasRect },
    /// Only the soft, dimmed copy: the picture sets the colour, nothing stands out.
    Backdrop,
}

/// The picture's rect on the canvas when it covers the plate (drift midpoint), as
/// `raster::cover` draws it: scaled to cover, centred.
pub fn cover_rect(width: u32, height: u32) -> CanvasRect {
    let (pw, ph) = plate_size();
    let (pw, ph) = (f64::from(pw), f64::from(ph));
    let s = (pw / f64::from(width.max(1))).max(ph / f64::from(height.max(1)));
    let (w, h) = (f64::from(width) * s, f64::from(height) * s);
    let (mx, my) = plate_margin();
    CanvasRect::new((pw - w) / 2.0 - mx, (ph - h) / 2.0 - my, w, h)
}

/// The plate's size in pixels.
pub fn plate_size() -> (u32, u32) {
    (
        CANVAS_W * PLATE_NUM / PLATE_DEN,
        CANVAS_H * PLATE_NUM / PLATE_DEN,
    )
}

/// Where the canvas window sits in the plate at the drift's midpoint.
pub fn plate_margin() -> (f64, f64) {
    let (pw, ph) = plate_size();
    (
        f64::from(pw - CANVAS_W) / 2.0,
        f64::from(ph - CANVAS_H) / 2.0,
    )
}

/// `focus` placed through the picture's rect on the canvas.
pub fn focus_in(rect: CanvasRect, focus: Focus) -> CanvasRect {
    CanvasRect::new(
        rect.x + focus.x * rect.w,
        rect.y + focus.y * rect.h,
        focus.w * rect.w,
        focus.h * rect.h,
    )
}

/// The subject's rect on the canvas under `fit`, grown by the drift on every side; `None` for
/// a backdrop (nothing stands out).
pub fn subject_on_canvas(subject: &Subject, fit: BackgroundFit) -> Option<CanvasRect> {
    let rect = match fit {
        BackgroundFit::Cover => cover_rect(subject.width, subject.height),
        BackgroundFit::Window { rect } => rect,
        BackgroundFit::Backdrop => return None,
    };
    let r = focus_in(rect, subject.focus);
    Some(CanvasRect::new(
        r.x - DRIFT_MAX,
        r.y - DRIFT_MAX,
        r.w + 2.0 * DRIFT_MAX,
        r.h + 2.0 * DRIFT_MAX,
    ))
}

/// The window that puts `subject`'s box (drift included) inside `slot`, centred, as large as
/// fits but never larger than the cover scale; `None` when the slot is empty.
pub fn window_for(subject: &Subject, slot: CanvasRect) -> Option<CanvasRect> {
    let cover = cover_rect(subject.width, subject.height);
    let f = subject.focus;
    let (sw, sh) = (f.w * cover.w, f.h * cover.h);
    let avail_w = slot.w - 2.0 * DRIFT_MAX;
    let avail_h = slot.h - 2.0 * DRIFT_MAX;
    if avail_w <= 0.0 || avail_h <= 0.0 || sw <= 0.0 || sh <= 0.0 {
        return None;
    }
    // A deliberate frame: never wider than the canvas less a margin on each side.
    let frame_w = f64::from(CANVAS_W) - 2.0 * WINDOW_MARGIN;
    let k = (avail_w / sw)
        .min(avail_h / sh)
        .min(1.0)
        .min(frame_w / cover.w);
    let (w, h) = (cover.w * k, cover.h * k);
    let (_, cy) = slot.center();
    // Centred across the canvas (equal margins left and right); the subject's middle on the
    // slot's middle, vertically.
    let x = (f64::from(CANVAS_W) - w) / 2.0;
    let y = cy - (f.y + f.h / 2.0) * h;
    Some(CanvasRect::new(x, y, w, h))
}

/// Canvas pixels between a window's picture and each side of the canvas: the frame it sits in.
pub const WINDOW_MARGIN: f64 = 40.0;

/// The subject's box of a premultiplied RGBA picture (see the module docs for the rule).
pub fn detect(img: PixmapRef<'_>) -> Focus {
    let luma = downscaled_luma(img);
    let (w, h) = (FOCUS_W, FOCUS_H);
    let mut grad = vec![0f64; w * h];
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let i = y * w + x;
            grad[i] = (luma[i + 1] - luma[i - 1]).abs() + (luma[i + w] - luma[i - w]).abs();
        }
    }
    let mut ranked = grad.clone();
    ranked.sort_by(f64::total_cmp);
    let strong = ranked[(ranked.len() as f64 * 0.995) as usize];
    let cut = EDGE_MIN.max(EDGE_SHARE * strong);
    let (mut cols, mut rows) = (vec![0f64; w], vec![0f64; h]);
    for (i, g) in grad.iter().enumerate() {
        if *g >= cut {
            cols[i % w] += g;
            rows[i / w] += g;
        }
    }
    if cols.iter().sum::<f64>() == 0.0 {
        return Focus::WHOLE;
    }
    let (x0, x1) = trimmed_span(&cols);
    let (y0, y1) = trimmed_span(&rows);
    let fx0 = (x0 as f64 / w as f64 - PAD).max(0.0);
    let fx1 = ((x1 + 1) as f64 / w as f64 + PAD).min(1.0);
    let fy0 = (y0 as f64 / h as f64 - PAD).max(0.0);
    let fy1 = ((y1 + 1) as f64 / h as f64 + PAD).min(1.0);
    let r = |v: f64| (v * 10_000.0).round() / 10_000.0;
    Focus {
        x: r(fx0),
        y: r(fy0),
        w: r(fx1 - fx0),
        h: r(fy1 - fy0),
    }
}

/// The picture's luma (BT.601, on black) area-averaged to [`FOCUS_W`]×[`FOCUS_H`], in 0..255
/// steps rounded like an 8-bit image.
fn downscaled_luma(img: PixmapRef<'_>) -> Vec<f64> {
    let small = crate::raster::resize(img, FOCUS_W as u32, FOCUS_H as u32)
        .expect("constant, non-zero size");
    small
        .data()
        .chunks_exact(4)
        .map(|p| {
            (0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2])).round()
        })
        .collect()
}

/// First and last index holding the middle (1 − 2·TRIM) of `mass`.
fn trimmed_span(mass: &[f64]) -> (usize, usize) {
    let total: f64 = mass.iter().sum();
    let (lo_cut, hi_cut) = (total * TRIM, total * (1.0 - TRIM));
    let (mut run, mut lo, mut hi) = (0.0, 0, mass.len() - 1);
    for (i, m) in mass.iter().enumerate() {
        if run <= lo_cut && lo_cut < run + m {
            lo = i;
        }
        if run < hi_cut && hi_cut <= run + m {
            hi = i;
        }
        run += m;
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tiny_skia::{Color, Paint, Pixmap, Rect, Transform};

    fn picture_with_square(x: f32, y: f32, side: f32) -> Pixmap {
        let mut p = Pixmap::new(360, 640).unwrap();
        p.fill(Color::from_rgba8(40, 60, 120, 255));
        let mut paint = Paint::default();
        paint.set_color(Color::from_rgba8(250, 230, 90, 255));
        p.fill_rect(
            Rect::from_xywh(x, y, side, side).unwrap(),
            &paint,
            Transform::identity(),
            None,
        );
        p
    }

    #[test]
    fn detect_boxes_a_shape_on_a_flat_field() {
        let f = detect(picture_with_square(200.0, 100.0, 120.0).as_ref());
        let (x, y) = (200.0 / 360.0, 100.0 / 640.0);
        assert!((f.x - x).abs() < 0.05 && (f.y - y).abs() < 0.04, "{f:?}");
        assert!((f.w - 120.0 / 360.0).abs() < 0.08, "{f:?}");
        assert!((f.h - 120.0 / 640.0).abs() < 0.06, "{f:?}");
    }

    #[test]
    fn a_flat_picture_has_the_whole_frame_as_focus() {
        let mut p = Pixmap::new(100, 100).unwrap();
        p.fill(Color::from_rgba8(10, 200, 10, 255));
        assert_eq!(detect(p.as_ref()), Focus::WHOLE);
    }

    #[test]
    fn a_portrait_picture_covers_the_plate_centred() {
        let r = cover_rect(360, 640);
        let near = |a: f64, b: f64| (a - b).abs() < 1e-6;
        assert!(near(r.w, 792.0) && near(r.h, 1408.0), "{r:?}");
        assert!(near(r.x, -36.0) && near(r.y, -64.0), "{r:?}");
    }

    #[test]
    fn the_window_puts_the_subject_inside_the_slot() {
        let s = Subject {
            focus: Focus {
                x: 0.17,
                y: 0.31,
                w: 0.65,
                h: 0.39,
            },
            width: 360,
            height: 640,
        };
        let slot = CanvasRect::new(0.0, 480.0, 720.0, 270.0);
        let rect = window_for(&s, slot).unwrap();
        let sub = subject_on_canvas(&s, BackgroundFit::Window { rect }).unwrap();
        assert!(sub.y >= slot.y - 1e-6 && sub.y + sub.h <= slot.y + slot.h + 1e-6);
        assert!(sub.x >= slot.x - 1e-6 && sub.x + sub.w <= slot.x + slot.w + 1e-6);
        assert!(subject_on_canvas(&s, BackgroundFit::Backdrop).is_none());
    }

    #[test]
    fn the_window_sits_centred_with_equal_margins_whatever_the_subject() {
        for fx in [0.0, 0.2, 0.5] {
            let s = Subject {
                focus: Focus {
                    x: fx,
                    y: 0.3,
                    w: 0.4,
                    h: 0.3,
                },
                width: 1080,
                height: 1920,
            };
            let slot = CanvasRect::new(0.0, 300.0, 720.0, 600.0);
            let rect = window_for(&s, slot).unwrap();
            let (left, right) = (rect.x, f64::from(CANVAS_W) - rect.x - rect.w);
            assert!((left - right).abs() < 1e-6, "{rect:?}");
            assert!(left >= WINDOW_MARGIN - 1e-6, "{rect:?}");
        }
    }
}
