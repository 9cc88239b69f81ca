//! Frame rendering: a [`ResolvedVideo`] → 720×1280 RGBA frames.
//!
//! One renderer serves everything: the MP4 (through [`FrameSource`]), the editor screenshot and
//! the overlay poster all call [`ResolvedVideo::render_scene`]. Rendering cannot fail; it only
//! copies and blends what [`crate::resolve`] prepared. Frames are opaque, so the RGBA bytes
//! are the same whether read as premultiplied or straight alpha.

use crate::clip::ClipLayer;
use crate::geom::{CANVAS_H, CANVAS_W};
use crate::layers::{self, PlateBackground, Pose};
use crate::media::convert::{
    EvenRect, I420Layout, copy_i420, i420_rect_to_rgba, rgba_rect_to_i420,
};
use crate::media::{FrameSource, YuvColour};
use crate::plan::{Transition, crossfade_alpha};
use crate::resolve::{ResolvedScene, ResolvedVideo};
use std::cell::RefCell;
use tiny_skia::{Color, PixmapMut};

/// Bytes in one canvas frame (720 × 1280 × 4).
pub const FRAME_BYTES: usize = CANVAS_W as usize * CANVAS_H as usize * 4;

/// Which layers of a scene to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Everything, as in the final video.
    Full,
    /// The overlay objects alone, fully entered regardless of time, on solid black (the poster).
    OverlayPoster,
}

thread_local! {
    /// Scratch frame for the incoming scene of a crossfade, one per rendering thread.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl ResolvedVideo {
    /// Renders frame `index` (time `index / fps`) into `rgba`, which must be [`FRAME_BYTES`] long.
    /// Indices past the end render the last moment of the video.
    ///
    /// # Panics
    /// If `rgba` has the wrong length (a caller bug, not a data problem).
    pub fn render_frame(&self, index: u64, rgba: &mut [u8]) {
        let (scene, local) = self.timeline.frame_at(index);
        self.render_scene(scene, local, View::Full, rgba);
        if let Some(alpha) = self.fade_at(scene, local) {
            SCRATCH.with(|cell| {
                let mut next = cell.borrow_mut();
                next.resize(FRAME_BYTES, 0);
                self.render_scene(scene + 1, 0.0, View::Full, &mut next);
                crossfade(rgba, &next, alpha);
            });
        }
    }

    /// How far scene `scene` has faded into the next one at scene time `local` (0–1), or `None`
    /// outside its crossfade (or when no scene follows).
    fn fade_at(&self, scene: usize, local: f64) -> Option<f64> {
        fade_alpha(&self.scenes[scene], scene + 1 < self.scenes.len(), local)
    }

    /// Renders scene `scene` at `t` seconds from its start into `rgba` ([`FRAME_BYTES`] long),
    /// without transitions. Out-of-range scene indices are clamped to the last scene.
    ///
    /// # Panics
    /// If `rgba` has the wrong length.
    pub fn render_scene(&self, scene: usize, t: f64, view: View, rgba: &mut [u8]) {
        assert_eq!(
            rgba.len(),
            FRAME_BYTES,
            "frame buffer must be 720×1280×4 bytes"
        );
        let s = &self.scenes[scene.min(self.scenes.len() - 1)];
        let t = if t.is_finite() {
            t.clamp(0.0, s.duration)
        } else {
            0.0
        };
        let mut dst =
            PixmapMut::from_bytes(rgba, CANVAS_W, CANVAS_H).expect("length checked above");
        match view {
            View::Full => {
                s.background.draw(t, &mut dst);
                draw_above_background(s, t, &mut dst);
            }
            View::OverlayPoster => {
                dst.fill(Color::BLACK);
                for o in &s.overlay {
                    o.draw(Pose::SETTLED, &mut dst);
                }
            }
        }
    }
}

/// Narrator, overlay objects and captions: everything a [`View::Full`] frame draws over its
/// background.
fn draw_above_background(s: &ResolvedScene, t: f64, dst: &mut PixmapMut<'_>) {
    if let Some(n) = &s.narrator {
        n.draw(t, dst);
    }
    for o in &s.overlay {
        if let Some(pose) = o.pose_at(t) {
            o.draw(pose, dst);
        }
    }
    if let Some(chunk) = layers::visible_chunk(&s.captions, t) {
        chunk.draw(t, dst);
    }
}

/// The canvas regions [`draw_above_background`] may touch at `t` (whole 4:2:0 blocks).
fn covered_regions(s: &ResolvedScene, t: f64) -> Vec<EvenRect> {
    let (w, h) = (CANVAS_W as usize, CANVAS_H as usize);
    let narrator = s.narrator.as_ref().map(|n| n.bounds());
    let objects = s
        .overlay
        .iter()
        .filter_map(|o| o.pose_at(t).and_then(|pose| o.bounds(pose)));
    let captions = layers::visible_chunk(&s.captions, t).and_then(|c| c.bounds());
    narrator
        .into_iter()
        .chain(objects)
        .chain(captions)
        .filter_map(|(x0, y0, x1, y1)| EvenRect::covering(x0, y0, x1, y1, w, h))
        .collect()
}

/// Frame `t` of a scene over a still plate straight into I420: the plate's window comes
/// pre-converted, and only the regions other layers cover are drawn in RGBA (the plate's own
/// pixels, then the layers) and converted. Bit-exact with rendering and converting the whole
/// frame: the same pixels go through the same per-block conversion.
fn plate_i420(
    s: &ResolvedScene,
    plate: &PlateBackground,
    t: f64,
    rgba: &mut [u8],
    layout: &I420Layout,
    out: &mut [u8],
) -> bool {
    if !plate.draw_i420(t, layout, out) {
        return false;
    }
    let regions = covered_regions(s, t);
    for r in &regions {
        plate.draw_rect(t, rgba, *r);
    }
    if !regions.is_empty() {
        let mut dst = PixmapMut::from_bytes(rgba, CANVAS_W, CANVAS_H).expect("a canvas frame");
        draw_above_background(s, t, &mut dst);
    }
    for r in &regions {
        rgba_rect_to_i420(rgba, layout, out, *r);
    }
    true
}

/// The colorimetry of our encoder's input (BT.709, limited range): clip pixels in it can go to
/// the encoder as they are.
const ENCODER_COLOUR: YuvColour = YuvColour {
    bt709: true,
    full_range: false,
};

impl ResolvedVideo {
    /// Renders frame `index` into an I420 frame `out` (laid out as `layout`, the canvas's
    /// size) when its scene has no crossfade there: the background goes to `out` without a
    /// conversion — a clip's decoded frame as it is, a still plate's window pre-converted
    /// ([`PlanarPicture`](crate::media::convert::PlanarPicture)) — and only the regions other
    /// layers cover are drawn in RGBA (in `rgba`, a [`FRAME_BYTES`] scratch frame) and
    /// converted. Inside those regions the result is bit-exact with [`Self::render_frame`] +
    /// [`rgba_to_i420`](crate::media::convert::rgba_to_i420); elsewhere a plate's is too, and
    /// a clip's is its own YUV, without the RGB round trip. Returns false (and the caller
    /// renders the usual way) for any other frame.
    pub fn render_frame_i420(
        &self,
        index: u64,
        rgba: &mut [u8],
        layout: &I420Layout,
        out: &mut [u8],
    ) -> bool {
        let (scene, local) = self.timeline.frame_at(index);
        if self.fade_at(scene, local).is_some() {
            return false;
        }
        self.render_scene_i420(scene, local, rgba, layout, out)
    }

    /// [`Self::render_frame_i420`] for scene `scene` at scene time `local`, without a
    /// transition: false (nothing written that matters) unless the scene has a clip background
    /// whose frame can be passed through.
    pub fn render_scene_i420(
        &self,
        scene: usize,
        local: f64,
        rgba: &mut [u8],
        layout: &I420Layout,
        out: &mut [u8],
    ) -> bool {
        if layout.width != CANVAS_W as usize
            || layout.height != CANVAS_H as usize
            || rgba.len() != FRAME_BYTES
            || out.len() < layout.size
        {
            return false;
        }
        let Some(s) = self.scenes.get(scene) else {
            return false;
        };
        let t = if local.is_finite() {
            local.clamp(0.0, s.duration)
        } else {
            0.0
        };
        if let Some(plate) = s.background.plate() {
            return plate_i420(s, plate, t, rgba, layout, out);
        }
        let Some(background) = s.background.clip() else {
            return false;
        };
        let Some(frame) = background.frame(t) else {
            return false;
        };
        let regions = covered_regions(s, t);
        frame
            .with_planes(CANVAS_H as usize, |planes| {
                if planes.colour != ENCODER_COLOUR || !copy_i420(&planes, layout, out) {
                    return false;
                }
                if regions.is_empty() {
                    return true;
                }
                for r in &regions {
                    i420_rect_to_rgba(&planes, rgba, CANVAS_W as usize, *r);
                }
                let mut dst =
                    PixmapMut::from_bytes(rgba, CANVAS_W, CANVAS_H).expect("length checked above");
                draw_above_background(s, t, &mut dst);
                for r in &regions {
                    rgba_rect_to_i420(rgba, layout, out, *r);
                }
                true
            })
            .unwrap_or(false)
    }

    /// The scenes (and their scene-local times) that frames `first .. first + count` show,
    /// including the incoming scene of a crossfade, in timeline order.
    fn window_times(&self, first: u64, count: u64) -> Vec<(usize, f64)> {
        let mut out = Vec::with_capacity(count as usize + 1);
        for index in first..first.saturating_add(count) {
            let (scene, local) = self.timeline.frame_at(index);
            out.push((scene, local));
            if self.fade_at(scene, local).is_some() {
                out.push((scene + 1, 0.0));
            }
        }
        out
    }

    /// Decodes, in order, the clip frames that frames `first .. first + count` show, so the
    /// parallel render that follows only reads them; closes the decoders of scenes before the
    /// window. Called by the encoder before each window ([`FrameSource::prepare`]); callers that
    /// render frames themselves in parallel can call it too. Never fails: decoding problems are
    /// reported by [`Self::media_errors`] and the layer holds its last frame.
    pub fn prefetch(&self, first: u64, count: u64) {
        if !self.has_clips() || count == 0 {
            return;
        }
        self.prefetch_times(&self.window_times(first, count));
    }

    /// Decodes, in order, the clip frames shown at `times` (scene, scene time), in timeline
    /// order, and closes the decoders of scenes before the earliest of them: [`Self::prefetch`]
    /// for a caller that maps frames to scene times itself (a per-scene chunk).
    pub fn prefetch_times(&self, times: &[(usize, f64)]) {
        if !self.has_clips() {
            return;
        }
        let Some(lowest) = times.iter().map(|(s, _)| *s).min() else {
            return;
        };
        for (i, s) in self.scenes.iter().enumerate() {
            let layers = s
                .background
                .clip()
                .into_iter()
                .chain(s.narrator.as_ref().and_then(|n| n.clip()));
            if i < lowest {
                for l in layers {
                    if l.is_open() {
                        l.release();
                    }
                }
                continue;
            }
            let local: Vec<f64> = times
                .iter()
                .filter(|(scene, _)| *scene == i)
                .map(|(_, t)| *t)
                .collect();
            if local.is_empty() {
                continue;
            }
            for l in layers {
                l.prefetch(&local);
            }
        }
    }

    /// Decodes the clip frames scene `scene` shows at `t`, every clip layer at once (each has
    /// its own decoder), so a still waits for the slowest seek rather than the sum of them.
    pub fn prefetch_scene(&self, scene: usize, t: f64) {
        use rayon::prelude::*;
        let Some(s) = self.scenes.get(scene) else {
            return;
        };
        let t = if t.is_finite() {
            t.clamp(0.0, s.duration)
        } else {
            0.0
        };
        let layers: Vec<_> = s
            .background
            .clip()
            .into_iter()
            .chain(s.narrator.as_ref().and_then(|n| n.clip()))
            .collect();
        if layers.len() > 1 {
            layers.par_iter().for_each(|l| l.prefetch(&[t]));
        }
    }

    /// Closes every clip decoder and drops decoded frames (they reopen on demand). Call when a
    /// resolved video is kept around idle (a cache of stills) to free their memory and threads.
    pub fn release_media(&self) {
        for l in self.clip_layers() {
            l.release();
        }
    }

    /// Clip decoding failures seen while rendering (each layer then held its last good frame or
    /// showed black), as `"scene N: path: reason"`. Empty when every frame decoded.
    pub fn media_errors(&self) -> Vec<String> {
        self.scenes
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                s.background
                    .clip()
                    .into_iter()
                    .chain(s.narrator.as_ref().and_then(|n| n.clip()))
                    .filter_map(move |l| {
                        l.error()
                            .map(|e| format!("scene {i}: {}: {e}", l.path().display()))
                    })
            })
            .collect()
    }

    /// Whether any scene plays a video clip.
    pub fn has_clips(&self) -> bool {
        self.clip_layers().next().is_some()
    }

    fn clip_layers(&self) -> impl Iterator<Item = &ClipLayer> {
        self.scenes.iter().flat_map(|s| {
            s.background
                .clip()
                .into_iter()
                .chain(s.narrator.as_ref().and_then(|n| n.clip()))
        })
    }
}

/// How far `s` has faded into the scene after it at scene time `local` (0–1): `None` outside
/// its crossfade, when its transition is a cut, or when `has_next` says no scene follows.
pub(crate) fn fade_alpha(s: &ResolvedScene, has_next: bool, local: f64) -> Option<f64> {
    crossfade_alpha(
        s.duration,
        s.transition == Transition::Fade && has_next,
        local,
    )
}

/// `out = out·(1−a) + next·a`, per byte, in fixed point.
pub(crate) fn crossfade(out: &mut [u8], next: &[u8], alpha: f64) {
    let a = (alpha * 256.0).round() as u32;
    let ia = 256 - a;
    for (o, n) in out.iter_mut().zip(next) {
        *o = ((u32::from(*o) * ia + u32::from(*n) * a + 128) >> 8) as u8;
    }
}

impl FrameSource for ResolvedVideo {
    fn frame_count(&self) -> u64 {
        ResolvedVideo::frame_count(self)
    }
    fn fps(&self) -> u32 {
        self.fps
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        self.render_frame(index, rgba);
    }
    fn render_i420(
        &self,
        index: u64,
        rgba: &mut [u8],
        layout: &I420Layout,
        out: &mut [u8],
    ) -> bool {
        self.render_frame_i420(index, rgba, layout, out)
    }
    fn prepare(&self, first: u64, count: u64) {
        self.prefetch(first, count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::{CanvasRect, PreviewRect};
    use crate::plan::tests::plan;
    use crate::plan::{
        Animation, CaptionChunk, Narrator, OverlayObject, OverlayPayload, TimedWord,
    };
    use crate::resolve::{ResolveError, resolve};

    #[test]
    fn crossfade_endpoints() {
        let mut a = vec![0u8, 100, 255];
        crossfade(&mut a, &[255, 100, 0], 0.0);
        assert_eq!(a, [0, 100, 255]);
        crossfade(&mut a, &[255, 100, 0], 1.0);
        assert_eq!(a, [255, 100, 0]);
        let mut m = vec![0u8];
        crossfade(&mut m, &[200], 0.5);
        assert_eq!(m, [100]);
    }

    #[test]
    fn extreme_but_valid_plans_render_without_panicking() {
        let mut p = plan(&[2.0]);
        let long: Vec<TimedWord> = (0..120)
            .map(|i| TimedWord {
                word: format!("word{i}"),
                start: f64::from(i) * 0.01,
                end: f64::from(i) * 0.01 + 0.01,
            })
            .collect();
        p.scenes[0].captions = vec![CaptionChunk { words: long }, CaptionChunk { words: vec![] }];
        p.scenes[0].caption_y = -1e9;
        p.scenes[0].narrator = Some(Narrator::Card {
            name: String::new(),
            rect: PreviewRect::new(1e6, -1e6, 1e9, 0.1),
        });
        p.scenes[0].overlay.push(OverlayObject {
            rect: CanvasRect::new(-700.0, 1270.0, 4000.0, 30.0),
            z: -5,
            animation: Animation::Pop,
            start: -1.0,
            end: 1e6,
            payload: OverlayPayload::Svg(
                "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>".into(),
            ),
        });
        let v = resolve(&p).unwrap();
        let mut frame = vec![0u8; crate::FRAME_BYTES];
        for i in 0..v.frame_count() {
            v.render_frame(i, &mut frame);
        }
        p.scenes[0].overlay[0].rect.x = 1e300;
        assert!(matches!(resolve(&p), Err(ResolveError::Overlay { .. })));
    }
}
