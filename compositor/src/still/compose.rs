//! A scene over a clip background composed at preview size: the still's fast path.
//!
//! The background clip is decoded straight at 280×498 (cropped as the video's layer is); the
//! layers above it (presenter, overlay objects, captions) are drawn by the video's own code at
//! canvas size onto a clear canvas, averaged down ([`super::downscale`]) and laid over the
//! background. Clip frames come from the layers' still caches ([`crate::clip_cache`]), so a
//! warm still neither seeks nor decodes. The picture differs from the downscaled video frame by
//! resampling only (the background's scaler, and layer edges averaged before rather than after
//! they are laid over it); `compositor/tests/golden.rs` bounds that difference.

use tiny_skia::{IntSize, Pixmap, PixmapMut};

use crate::clip::ClipBackground;
use crate::frame::FRAME_BYTES;
use crate::geom::{CANVAS_H, CANVAS_W, PREVIEW_H, PREVIEW_W};
use crate::layers::{self, NarratorLayer, Pose};
use crate::media::ClipFrame;
use crate::media::convert::{EvenRect, i420_rect_to_rgba};
use crate::resolve::{ResolvedScene, ResolvedVideo};

/// Scene `scene` at `t` (already clamped) composed at preview size, or `None` when its
/// background is not a clip or a clip cannot be decoded for stills (the caller then downscales
/// the video's frame).
pub(super) fn clip_scene_preview(video: &ResolvedVideo, scene: usize, t: f64) -> Option<Pixmap> {
    let s = video.scenes.get(scene)?;
    let background = s.background.clip()?;
    let presenter = match &s.narrator {
        Some(NarratorLayer::Clip(c)) => Some(c),
        _ => None,
    };
    // Each layer has its own decoder: a miss waits for the slower one, not both in turn.
    let (bg, shown) = rayon::join(
        || background.still_frame(t, ClipBackground::STILL_SCALE),
        || presenter.map(|p| p.clip.still_frame(t, p.still_scale())),
    );
    let bg = bg?;
    let presenter_frame = match shown {
        Some(frame) => Some(frame?),
        None => None,
    };
    let mut out = background_rgba(&bg)?;
    let above = layers_above(s, t, presenter_frame.as_ref());
    let small = super::downscale::area_rgba(
        &above,
        CANVAS_W as usize,
        CANVAS_H as usize,
        PREVIEW_W as usize,
        PREVIEW_H as usize,
    );
    lay_over(&mut out, &small);
    Pixmap::from_vec(out, IntSize::from_wh(PREVIEW_W, PREVIEW_H)?)
}

/// The overlay objects of scene `scene`, all settled, on black at preview size: drawn by the
/// video's code on a clear canvas and averaged down (rows without an object cost nothing), then
/// laid over black. `None` when the scene does not exist.
pub(super) fn poster_preview(video: &ResolvedVideo, scene: usize) -> Option<Pixmap> {
    let s = video.scenes.get(scene)?;
    let mut canvas = vec![0u8; FRAME_BYTES];
    let mut dst = PixmapMut::from_bytes(&mut canvas, CANVAS_W, CANVAS_H)?;
    for o in &s.overlay {
        o.draw(Pose::SETTLED, &mut dst);
    }
    let mut small = super::downscale::area_rgba(
        &canvas,
        CANVAS_W as usize,
        CANVAS_H as usize,
        PREVIEW_W as usize,
        PREVIEW_H as usize,
    );
    // Over black: the premultiplied colour is the result; the picture is opaque.
    for p in small.chunks_exact_mut(4) {
        p[3] = 255;
    }
    Pixmap::from_vec(small, IntSize::from_wh(PREVIEW_W, PREVIEW_H)?)
}

/// The preview-size I420 background frame as RGBA.
fn background_rgba(frame: &ClipFrame) -> Option<Vec<u8>> {
    let (w, h) = (PREVIEW_W as usize, PREVIEW_H as usize);
    let mut out = vec![0u8; w * h * 4];
    let all = EvenRect {
        x0: 0,
        y0: 0,
        x1: w,
        y1: h,
    };
    frame.with_planes(h, |planes| i420_rect_to_rgba(&planes, &mut out, w, all))?;
    Some(out)
}

/// Presenter, overlay objects and captions at `t` on a clear canvas (premultiplied), in the
/// video's order; the presenter clip from its still frame.
fn layers_above(s: &ResolvedScene, t: f64, presenter: Option<&ClipFrame>) -> Vec<u8> {
    let mut canvas = vec![0u8; FRAME_BYTES];
    let mut dst = PixmapMut::from_bytes(&mut canvas, CANVAS_W, CANVAS_H).expect("canvas size");
    match (&s.narrator, presenter) {
        (Some(NarratorLayer::Clip(c)), Some(frame)) => c.draw_still(frame, &mut dst),
        (Some(n), _) => n.draw(t, &mut dst),
        (None, _) => {}
    }
    for o in &s.overlay {
        if let Some(pose) = o.pose_at(t) {
            o.draw(pose, &mut dst);
        }
    }
    if let Some(chunk) = layers::visible_chunk(&s.captions, t) {
        chunk.draw(t, &mut dst);
    }
    canvas
}

/// `out = above + out·(1 − above.alpha)`, per channel; `out` is opaque and stays so.
fn lay_over(out: &mut [u8], above: &[u8]) {
    for (o, a) in out.chunks_exact_mut(4).zip(above.chunks_exact(4)) {
        let keep = 255 - u32::from(a[3]);
        if keep == 255 {
            continue;
        }
        for c in 0..3 {
            let under = (u32::from(o[c]) * keep + 127) / 255;
            o[c] = (u32::from(a[c]) + under).min(255) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laying_over_keeps_clear_and_replaces_solid() {
        let mut out = vec![10, 20, 30, 255, 10, 20, 30, 255, 200, 200, 200, 255];
        let above = [0, 0, 0, 0, 90, 80, 70, 255, 50, 0, 0, 128];
        lay_over(&mut out, &above);
        assert_eq!(&out[..4], &[10, 20, 30, 255]);
        assert_eq!(&out[4..8], &[90, 80, 70, 255]);
        // Half-covered: the premultiplied colour plus half of what was under it.
        assert_eq!(&out[8..], &[150, 100, 100, 255]);
    }
}
