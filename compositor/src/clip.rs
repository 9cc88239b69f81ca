//! Video-clip layers: a clip background filling the canvas and a presenter clip in the narrator
//! rect, both fed by [`crate::media::ClipDecoder`].
//!
//! Rendering must not fail and frames render in parallel, but a decoder reads sequentially. The
//! split that keeps both true:
//! - [`ClipLayer::prefetch`] runs on the encoding thread before each parallel window: it asks the
//!   decoder (which has already decoded a few frames ahead on GStreamer's streaming thread) for
//!   exactly the frames the window shows, and pins them as *resident*.
//! - [`ClipLayer::frame`] (called by the parallel renderers) only looks the resident frames up
//!   under a short lock. A miss (a still, or a caller that did not prefetch) decodes on the spot,
//!   serialised by the same lock; a seek makes random access (screenshots) frame-accurate.
//!
//! Memory per clip is bounded: the resident frames of one window plus the decoder's
//! [`crate::media::clip::QUEUED_FRAMES`] queued frames, all at the layer's size, whatever the
//! clip's length. Decoders open lazily and are closed by [`ClipLayer::release`] once their scene
//! has played. A decoding failure mid-render is recorded ([`ClipLayer::error`]) and the layer
//! keeps showing its last good frame (or black), so a video still comes out.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use tiny_skia::{Color, FillRule, Paint, Pixmap, PixmapMut, Transform};

use crate::clip_cache::{StillFrames, StillScale};
use crate::geom::{CANVAS_H, CANVAS_W, PREVIEW_H, PREVIEW_W};
use crate::media::convert::{EvenRect, i420_rect_to_rgba};
use crate::media::{ClipDecoder, ClipFrame, ClipInfo, ClipPixels};
use crate::paint::rounded_rect;
use crate::plan::Clip;

/// Shortest loop a trim may leave, seconds.
const MIN_LOOP_SECS: f64 = 0.02;
/// Resident frames kept by random access (stills) between calls.
const MAX_RESIDENT: usize = 8;

/// A clip playing in a layer of `width × height` pixels, looped over `[from, from + len)` of the
/// file.
pub(crate) struct ClipLayer {
    path: PathBuf,
    info: ClipInfo,
    width: u32,
    height: u32,
    from: f64,
    len: f64,
    /// What the decoder delivers.
    pixels: ClipPixels,
    state: Mutex<ClipState>,
    /// The decoder and kept frames of stills (apart from the video's, which reads in order).
    still: Mutex<StillFrames>,
}

#[derive(Default)]
struct ClipState {
    decoder: Option<ClipDecoder>,
    resident: Vec<ClipFrame>,
    /// The first decoding failure; no more attempts until [`ClipLayer::release`].
    error: Option<String>,
}

impl ClipLayer {
    /// Checks the trim window against the probed clip.
    pub(crate) fn prepare(
        clip: &Clip,
        info: ClipInfo,
        width: u32,
        height: u32,
    ) -> Result<Self, String> {
        let from = clip.start;
        if !(from.is_finite() && from >= 0.0) {
            return Err(format!(
                "trim start {from} must be a finite, non-negative time"
            ));
        }
        let until = match clip.end {
            Some(end) if !end.is_finite() || end <= from => {
                return Err(format!(
                    "trim end {end} must be after the trim start {from}"
                ));
            }
            Some(end) => end.min(info.duration),
            None => info.duration,
        };
        if until - from < MIN_LOOP_SECS {
            return Err(format!(
                "trim window {from:.3}–{until:.3} s leaves nothing of a {:.3} s clip",
                info.duration
            ));
        }
        Ok(ClipLayer {
            path: clip.path.clone(),
            info,
            width,
            height,
            from,
            len: until - from,
            pixels: ClipPixels::Rgba,
            state: Mutex::new(ClipState::default()),
            still: Mutex::new(StillFrames::default()),
        })
    }

    /// The same layer decoding to `pixels` (RGBA unless told otherwise).
    pub(crate) fn delivering(self, pixels: ClipPixels) -> Self {
        ClipLayer { pixels, ..self }
    }

    /// The file time shown at scene time `t`: the trim window, looped.
    pub(crate) fn file_time(&self, t: f64) -> f64 {
        let t = if t.is_finite() { t.max(0.0) } else { 0.0 };
        self.from + t.rem_euclid(self.len)
    }

    fn lock(&self) -> MutexGuard<'_, ClipState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Decodes (in order) the frames shown at scene times `times` and makes them the resident
    /// set; frames of earlier windows are released.
    pub(crate) fn prefetch(&self, times: &[f64]) {
        let mut st = self.lock();
        let mut keep: Vec<ClipFrame> = Vec::with_capacity(times.len());
        for &t in times {
            let ft = self.file_time(t);
            if keep.iter().any(|f| f.covers(ft)) {
                continue;
            }
            let found = st.resident.iter().find(|f| f.covers(ft)).cloned();
            if let Some(f) = found.or_else(|| self.decode(&mut st, ft)) {
                keep.push(f);
            }
        }
        if !keep.is_empty() {
            st.resident = keep;
        }
    }

    /// The frame shown at scene time `t`; `None` only when nothing could ever be decoded.
    pub(crate) fn frame(&self, t: f64) -> Option<ClipFrame> {
        let ft = self.file_time(t);
        let mut st = self.lock();
        if let Some(f) = st.resident.iter().find(|f| f.covers(ft)) {
            return Some(f.clone());
        }
        match self.decode(&mut st, ft) {
            Some(f) => {
                if st.resident.len() >= MAX_RESIDENT {
                    st.resident.remove(0);
                }
                st.resident.push(f.clone());
                Some(f)
            }
            // Hold the last good frame.
            None => st.resident.last().cloned(),
        }
    }

    fn decode(&self, st: &mut ClipState, ft: f64) -> Option<ClipFrame> {
        if st.error.is_some() {
            return None;
        }
        if st.decoder.is_none() {
            match ClipDecoder::open_as(&self.path, &self.info, self.width, self.height, self.pixels)
            {
                Ok(d) => st.decoder = Some(d),
                Err(e) => {
                    st.error = Some(e.to_string());
                    return None;
                }
            }
        }
        match st.decoder.as_mut().map(|d| d.frame_at(ft)) {
            Some(Ok(f)) => Some(f),
            Some(Err(e)) => {
                st.error = Some(e.to_string());
                st.decoder = None;
                None
            }
            None => None,
        }
    }

    /// The frame shown at scene time `t` for a still, decoded at `scale` (I420) and kept near
    /// recent moments ([`crate::clip_cache`]); `None` when stills cannot decode the clip.
    pub(crate) fn still_frame(&self, t: f64, scale: StillScale) -> Option<ClipFrame> {
        let ft = self.file_time(t);
        self.still
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .frame(&self.path, &self.info, scale, ft)
    }

    /// Closes the decoders and drops resident and kept frames (they reopen on demand); clears
    /// any error so a later render retries.
    pub(crate) fn release(&self) {
        let mut st = self.lock();
        st.decoder = None;
        st.resident.clear();
        st.error = None;
        self.still.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Whether a decoder is open.
    pub(crate) fn is_open(&self) -> bool {
        self.lock().decoder.is_some()
    }

    /// The decoding failure seen since the last release, if any.
    pub(crate) fn error(&self) -> Option<String> {
        self.lock().error.clone()
    }

    /// The clip file.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }
}

/// A clip filling the canvas, decoded to I420 (cropped and scaled in YUV): each frame is one
/// conversion straight into the canvas, and the encoder can take the parts no other layer
/// covers as they are (the frame renderer's I420 path).
pub(crate) struct ClipBackground {
    pub(crate) clip: ClipLayer,
}

impl ClipBackground {
    pub(crate) fn new(clip: ClipLayer) -> Self {
        ClipBackground {
            clip: clip.delivering(ClipPixels::I420),
        }
    }

    /// A still's background: the canvas-cover crop at preview size.
    pub(crate) const STILL_SCALE: StillScale = StillScale {
        crop_for: (CANVAS_W, CANVAS_H),
        out: (PREVIEW_W, PREVIEW_H),
    };

    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        let all = EvenRect {
            x0: 0,
            y0: 0,
            x1: CANVAS_W as usize,
            y1: CANVAS_H as usize,
        };
        let drawn = self.clip.frame(t).and_then(|f| {
            f.with_planes(CANVAS_H as usize, |planes| {
                i420_rect_to_rgba(&planes, dst.data_mut(), CANVAS_W as usize, all);
            })
        });
        if drawn.is_none() {
            dst.fill(Color::BLACK);
        }
    }
}

/// A presenter clip in the narrator rect, with rounded corners.
pub(crate) struct ClipNarrator {
    pub(crate) clip: ClipLayer,
    x: usize,
    y: usize,
    /// Per-pixel coverage of the rounded rect (`width × height`).
    mask: Vec<u8>,
    /// Per row, the span `[start, end)` where the mask is fully opaque (a plain copy).
    spans: Vec<(usize, usize)>,
}

impl ClipNarrator {
    /// `x, y, w, h`: the rect on the canvas (already clamped inside it).
    pub(crate) fn new(clip: ClipLayer, x: u32, y: u32, w: u32, h: u32) -> Self {
        let (wf, hf) = (w as f32, h as f32);
        let radius = (wf.min(hf) * 0.12).clamp(6.0, 32.0);
        let mut cover = Pixmap::new(w, h).expect("narrator rect is clamped to a non-zero size");
        if let Some(path) = rounded_rect(0.0, 0.0, wf, hf, radius) {
            let mut paint = Paint {
                anti_alias: true,
                ..Paint::default()
            };
            paint.set_color(Color::WHITE);
            cover.fill_path(
                &path,
                &paint,
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
        let mask: Vec<u8> = cover.data().chunks_exact(4).map(|p| p[3]).collect();
        let spans = mask
            .chunks_exact(w as usize)
            .map(|row| {
                let start = row.iter().position(|&a| a == 255).unwrap_or(row.len());
                let end = row.iter().rposition(|&a| a == 255).map_or(start, |e| e + 1);
                (start, end.max(start))
            })
            .collect();
        ClipNarrator {
            clip,
            x: x as usize,
            y: y as usize,
            mask,
            spans,
        }
    }

    /// The canvas pixels the layer may draw: `(x0, y0, x1, y1)`.
    pub(crate) fn bounds(&self) -> (i64, i64, i64, i64) {
        let (x, y) = (self.x as i64, self.y as i64);
        (
            x,
            y,
            x + i64::from(self.clip.width),
            y + i64::from(self.clip.height),
        )
    }

    /// A still's presenter: decoded at the layer's own canvas size, as the video's.
    pub(crate) fn still_scale(&self) -> StillScale {
        let size = (self.clip.width, self.clip.height);
        StillScale {
            crop_for: size,
            out: size,
        }
    }

    /// Draws `frame` (I420, from [`Self::still_scale`]) onto a clear canvas `dst` as
    /// premultiplied pixels: the rounded rect's coverage becomes the alpha, so the layer can be
    /// scaled down and laid over a background later. Same pixels as [`Self::draw`] over an
    /// opaque background, up to the rounding of the edge blend.
    pub(crate) fn draw_still(&self, frame: &ClipFrame, dst: &mut PixmapMut<'_>) {
        let (w, h) = (self.clip.width as usize, self.clip.height as usize);
        let mut rgba = vec![0u8; w * h * 4];
        let rect = EvenRect {
            x0: 0,
            y0: 0,
            x1: w & !1,
            y1: h,
        };
        let converted = frame.with_planes(h, |planes| {
            i420_rect_to_rgba(&planes, &mut rgba, w, rect);
        });
        if converted.is_none() {
            return;
        }
        let canvas_row = CANVAS_W as usize * 4;
        let out = dst.data_mut();
        for r in 0..h {
            let at = (self.y + r) * canvas_row + self.x * 4;
            let Some(d) = out.get_mut(at..at + w * 4) else {
                break;
            };
            for x in 0..w {
                let a = u32::from(self.mask[r * w + x]);
                if a == 0 {
                    continue;
                }
                // An odd width: the last column repeats its neighbour, as the video's.
                let sx = x.min(rect.x1.saturating_sub(1));
                let s = &rgba[(r * w + sx) * 4..(r * w + sx) * 4 + 4];
                let p = &mut d[x * 4..x * 4 + 4];
                for c in 0..3 {
                    p[c] = ((u32::from(s[c]) * a + 127) / 255) as u8;
                }
                p[3] = a as u8;
            }
        }
    }

    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        let Some(frame) = self.clip.frame(t) else {
            return;
        };
        let w = self.clip.width as usize;
        let canvas_row = CANVAS_W as usize * 4;
        let (x0, y0) = (self.x, self.y);
        let out = dst.data_mut();
        frame.with_pixels(|src, stride| {
            for (r, &(full_start, full_end)) in self.spans.iter().enumerate() {
                let Some(s) = src.get(r * stride..r * stride + w * 4) else {
                    break;
                };
                let at = (y0 + r) * canvas_row + x0 * 4;
                let Some(d) = out.get_mut(at..at + w * 4) else {
                    break;
                };
                let m = &self.mask[r * w..(r + 1) * w];
                d[full_start * 4..full_end * 4].copy_from_slice(&s[full_start * 4..full_end * 4]);
                for x in (0..full_start).chain(full_end..w) {
                    let a = u32::from(m[x]);
                    if a == 0 {
                        continue;
                    }
                    for c in 0..3 {
                        let i = x * 4 + c;
                        d[i] =
                            ((u32::from(s[i]) * a + u32::from(d[i]) * (255 - a) + 127) / 255) as u8;
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(start: f64, end: Option<f64>, duration: f64) -> Result<ClipLayer, String> {
        ClipLayer::prepare(
            &Clip {
                path: "/x.mp4".into(),
                start,
                end,
            },
            ClipInfo {
                width: 720,
                height: 1280,
                par: (1, 1),
                fps: 30.0,
                duration,
            },
            720,
            1280,
        )
    }

    #[test]
    fn scene_time_loops_over_the_trim_window() {
        let l = layer(1.0, Some(3.0), 10.0).unwrap();
        assert_eq!(l.file_time(0.0), 1.0);
        assert_eq!(l.file_time(1.5), 2.5);
        assert_eq!(l.file_time(2.0), 1.0);
        assert_eq!(l.file_time(5.25), 2.25);
        assert_eq!(l.file_time(-1.0), 1.0);
        assert_eq!(l.file_time(f64::NAN), 1.0);
        // No trim: the whole clip loops; an end past the clip is clamped to it.
        let l = layer(0.0, None, 4.0).unwrap();
        assert_eq!(l.file_time(5.0), 1.0);
        let l = layer(0.0, Some(99.0), 4.0).unwrap();
        assert_eq!(l.file_time(4.5), 0.5);
    }

    #[test]
    fn bad_trims_are_rejected() {
        assert!(layer(2.0, Some(1.0), 10.0).is_err());
        assert!(layer(-1.0, None, 10.0).is_err());
        assert!(layer(f64::NAN, None, 10.0).is_err());
        assert!(layer(12.0, None, 10.0).is_err());
        assert!(layer(0.0, Some(f64::INFINITY), 10.0).is_err());
    }
}
