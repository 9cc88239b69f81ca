//! Placement: where a scene's overlay goes and how its still background sits, so the overlay,
//! the captions and the narrator stay off the picture's subject and the whole typography band
//! is used, its lower half included.
//!
//! The rule, in canvas pixels (720×1280):
//! - A-roll with the narrator on screen: the overlay keeps to its band between the narrator
//!   card and the captions ([`A_ROLL_BAND`]); a subject that any of them would cover is shown
//!   as a soft backdrop instead (`BackgroundFit::Backdrop`).
//! - B-roll over a picture with a known subject: the overlay is anchored at the top of the band
//!   on even scenes and just above the captions on odd ones ([`OVERLAY_MAX_H`] tall at most);
//!   the subject gets the free slot left between the band's top, the overlay and the captions
//!   ([`GAP`] from each). It keeps covering the frame when its box already lies in the slot,
//!   else it is scaled into a window in the slot (`compositor::focus::window_for`), else (no
//!   room) it becomes a backdrop.
//! - Anything else (procedural looks, clips): the overlay is centred in [`B_ROLL_BAND`].
//!
//! The subject's rect is `compositor::focus::subject_on_canvas`, the rect the renderer draws
//! and `scene_geometry`'s `background_subject_overlap` checks.

use compositor::captions::{CAPTION_LINE_HEIGHT, CAPTION_MAX_LINES, CAPTION_PX};
use compositor::focus::{self, BackgroundFit, Focus, Subject};
use compositor::geom::{CANVAS_W, CanvasRect, PreviewRect, preview_y_to_canvas};

use foundation::document::Segment;

/// The typography band (spec `typography`), owned by [`typography::canvas`].
pub(crate) const SAFE_TOP: f64 = typography::canvas::SAFE_TOP as f64;
pub(crate) const SAFE_BOTTOM: f64 = typography::canvas::SAFE_BOTTOM as f64;
/// The overlay's band on A-roll scenes: between the narrator card and the captions.
pub const A_ROLL_BAND: (f64, f64) = (600.0, 765.0);
/// The overlay's band on B-roll scenes without a placed subject.
pub const B_ROLL_BAND: (f64, f64) = (200.0, 720.0);
/// Space kept between the subject, the overlay and the captions.
pub(crate) const GAP: f64 = 24.0;
/// The tallest an overlay grows when it shares the band with a subject.
pub(crate) const OVERLAY_MAX_H: f64 = 300.0;
/// A window smaller than this share of the cover scale reads as a stamp: a backdrop instead.
pub(crate) const MIN_WINDOW_SCALE: f64 = 0.3;

/// Where an overlay stack sits in its band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Centred.
    Centre,
    /// Against the band's top.
    Top,
    /// Against the band's bottom.
    Bottom,
}

/// The overlay's band and anchor for a scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlayBand {
    pub top: f64,
    pub bottom: f64,
    pub anchor: Anchor,
}

/// What placement needs of a scene.
#[derive(Debug, Clone, Copy)]
pub struct SceneBoxes<'a> {
    pub seg: &'a Segment,
    /// The scene's position (even and odd B-roll scenes alternate the overlay's side).
    pub index: usize,
    /// The narrator card is on screen (A-roll, not faceless).
    pub narrator_shown: bool,
}

/// The subject of a picture (its bytes): `known` when the library carries it, else found by
/// `compositor::focus::detect`; `None` when the bytes are not a picture.
pub fn subject_of_picture(bytes: &[u8], known: Option<Focus>) -> Option<Subject> {
    let img = compositor::raster::decode_image(bytes).ok()?;
    let focus = known.unwrap_or_else(|| focus::detect(img.as_ref()));
    Some(Subject {
        focus,
        width: img.width(),
        height: img.height(),
    })
}

/// Top of the captions' reserved area: the tallest caption block the renderer draws (its
/// largest size, its line limit) centred on the caption container.
pub(crate) fn caption_top(caption_rect: PreviewRect) -> f64 {
    let line = (f64::from(CAPTION_PX[0]) * f64::from(CAPTION_LINE_HEIGHT)).round();
    let centre = preview_y_to_canvas(caption_rect.y + caption_rect.h / 2.0);
    centre - CAPTION_MAX_LINES as f64 * line / 2.0
}

/// The overlay's band for a scene (see the module docs).
pub(crate) fn overlay_band(s: &SceneBoxes<'_>) -> OverlayBand {
    let (top, bottom) = if s.narrator_shown {
        A_ROLL_BAND
    } else {
        B_ROLL_BAND
    };
    let centred = OverlayBand {
        top,
        bottom,
        anchor: Anchor::Centre,
    };
    if s.narrator_shown || s.seg.background_subject.is_none() {
        return centred;
    }
    let floor = caption_top(s.seg.caption_rect) - GAP;
    if s.index.is_multiple_of(2) {
        OverlayBand {
            top: B_ROLL_BAND.0,
            bottom: (B_ROLL_BAND.0 + OVERLAY_MAX_H).min(floor),
            anchor: Anchor::Top,
        }
    } else {
        OverlayBand {
            top: (floor - OVERLAY_MAX_H).max(SAFE_TOP),
            bottom: floor,
            anchor: Anchor::Bottom,
        }
    }
}

/// How the scene's still background sits, given the overlay's object rects (canvas).
pub fn background_fit(s: &SceneBoxes<'_>, overlay: &[CanvasRect]) -> BackgroundFit {
    let Some(subject) = s.seg.background_subject else {
        return BackgroundFit::Cover;
    };
    let cover = focus::subject_on_canvas(&subject, BackgroundFit::Cover);
    let mut taken: Vec<CanvasRect> = overlay.to_vec();
    let caption_top = caption_top(s.seg.caption_rect);
    taken.push(CanvasRect::new(0.0, caption_top, f64::from(CANVAS_W), 1e4));
    if s.narrator_shown {
        taken.push(s.seg.narrator_rect.to_canvas());
    }
    if cover.is_some_and(|c| taken.iter().all(|t| !intersects(c, *t))) {
        return BackgroundFit::Cover;
    }
    if s.narrator_shown {
        return BackgroundFit::Backdrop;
    }
    let slot = free_slot(overlay, caption_top);
    let cover_w = focus::cover_rect(subject.width, subject.height).w;
    match focus::window_for(&subject, slot) {
        Some(rect) if rect.w >= cover_w * MIN_WINDOW_SCALE => BackgroundFit::Window { rect },
        _ => BackgroundFit::Backdrop,
    }
}

/// The tallest full-width slot between the band's top and the captions that no overlay rect
/// enters, [`GAP`] clear of each.
fn free_slot(overlay: &[CanvasRect], caption_top: f64) -> CanvasRect {
    let mut edges: Vec<(f64, f64)> = overlay
        .iter()
        .map(|r| (r.y - GAP, r.y + r.h + GAP))
        .collect();
    edges.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut best, mut y) = ((SAFE_TOP, SAFE_TOP), SAFE_TOP);
    for (top, bottom) in edges {
        if top - y > best.1 - best.0 {
            best = (y, top);
        }
        y = y.max(bottom);
    }
    let floor = caption_top - GAP;
    if floor - y > best.1 - best.0 {
        best = (y, floor);
    }
    CanvasRect::new(0.0, best.0, f64::from(CANVAS_W), (best.1 - best.0).max(0.0))
}

fn intersects(a: CanvasRect, b: CanvasRect) -> bool {
    a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::document::{CAPTION_RECT, NARRATOR_RECT};

    fn seg_with_subject() -> Segment {
        Segment {
            caption_rect: CAPTION_RECT,
            narrator_rect: NARRATOR_RECT,
            background_subject: Some(Subject {
                focus: Focus {
                    x: 0.17,
                    y: 0.31,
                    w: 0.65,
                    h: 0.39,
                },
                width: 360,
                height: 640,
            }),
            ..Segment::default()
        }
    }

    #[test]
    fn b_roll_overlays_alternate_sides_and_the_subject_takes_the_rest() {
        let seg = seg_with_subject();
        for index in 0..2 {
            let s = SceneBoxes {
                seg: &seg,
                index,
                narrator_shown: false,
            };
            let band = overlay_band(&s);
            let overlay = match band.anchor {
                Anchor::Top => CanvasRect::new(100.0, band.top, 520.0, 250.0),
                _ => CanvasRect::new(100.0, band.bottom - 250.0, 520.0, 250.0),
            };
            let fit = background_fit(&s, &[overlay]);
            assert!(matches!(fit, BackgroundFit::Window { .. }), "{fit:?}");
            let sub = focus::subject_on_canvas(&seg.background_subject.unwrap(), fit).unwrap();
            assert!(!intersects(sub, overlay), "{sub:?} {overlay:?}");
            assert!(sub.y + sub.h <= caption_top(seg.caption_rect));
        }
        let low = overlay_band(&SceneBoxes {
            seg: &seg,
            index: 1,
            narrator_shown: false,
        });
        assert!(low.bottom > 640.0, "the lower half is used: {low:?}");
    }

    #[test]
    fn a_covered_subject_under_the_narrator_becomes_a_backdrop() {
        let seg = seg_with_subject();
        let s = SceneBoxes {
            seg: &seg,
            index: 0,
            narrator_shown: true,
        };
        assert_eq!(overlay_band(&s).anchor, Anchor::Centre);
        assert_eq!(background_fit(&s, &[]), BackgroundFit::Backdrop);
    }

    #[test]
    fn no_subject_keeps_the_cover_and_the_centred_band() {
        let seg = Segment {
            caption_rect: CAPTION_RECT,
            ..Segment::default()
        };
        let s = SceneBoxes {
            seg: &seg,
            index: 0,
            narrator_shown: false,
        };
        assert_eq!(overlay_band(&s).anchor, Anchor::Centre);
        assert_eq!(background_fit(&s, &[]), BackgroundFit::Cover);
    }
}
