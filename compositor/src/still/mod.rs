//! Stills for the editor and the API's `scene_inspector`: the 280×498 JPEG screenshot and the
//! overlay poster (overlay objects alone on black, PNG).
//!
//! Both come from the same layer code as the video. A scene over a clip background is composed
//! at preview size ([`compose`]), its clip frames kept near recent moments
//! ([`crate::clip_cache`]), so a warm screenshot neither seeks nor decodes; any other scene
//! renders a full 720×1280 frame ([`View`]) and averages it down ([`downscale`]). The poster
//! draws the settled objects on a clear canvas, averages that down and lays it over black.
//! Either way a still shows what the MP4 shows at that moment, up to resampling.

mod compose;
mod downscale;

use crate::frame::{FRAME_BYTES, View};
use crate::geom::{CANVAS_H, CANVAS_W, PREVIEW_H, PREVIEW_W};
use crate::raster;
use crate::resolve::ResolvedVideo;
use tiny_skia::{IntSize, Pixmap};

/// Where in a scene the default screenshot is taken, as a fraction of its duration: late enough
/// that overlays have entered and captions are showing.
pub const DEFAULT_SEEK_FRACTION: f64 = 0.4;
/// JPEG quality of screenshots.
pub const JPEG_QUALITY: u8 = 88;

fn render_preview(video: &ResolvedVideo, scene: usize, t: f64, view: View) -> Pixmap {
    let mut frame = vec![0u8; FRAME_BYTES];
    video.render_scene(scene, t, view, &mut frame);
    let small = downscale::area_rgba(
        &frame,
        CANVAS_W as usize,
        CANVAS_H as usize,
        PREVIEW_W as usize,
        PREVIEW_H as usize,
    );
    Pixmap::from_vec(
        small,
        IntSize::from_wh(PREVIEW_W, PREVIEW_H).expect("constant"),
    )
    .expect("length matches")
}

/// Scene `scene` (clamped to the last) at `t` seconds (clamped into it) as the 280×498 RGBA
/// picture a screenshot encodes.
pub fn preview_280x498(video: &ResolvedVideo, scene: usize, t: f64) -> Pixmap {
    let scene = scene.min(video.scene_count() - 1);
    let duration = video.scene_duration(scene).unwrap_or(0.0);
    let t = if t.is_finite() {
        t.clamp(0.0, duration)
    } else {
        0.0
    };
    compose::clip_scene_preview(video, scene, t).unwrap_or_else(|| {
        video.prefetch_scene(scene, t);
        render_preview(video, scene, t, View::Full)
    })
}

/// [`preview_280x498`] the way the video's frame is made: rendered at 720×1280 and averaged
/// down (what the fast path is checked against).
pub fn downscaled_frame_280x498(video: &ResolvedVideo, scene: usize, t: f64) -> Pixmap {
    let scene = scene.min(video.scene_count() - 1);
    video.prefetch_scene(scene, t);
    render_preview(video, scene, t, View::Full)
}

/// Screenshot of scene `scene_index` at `seek_seconds` from its start (default: 40 % of the
/// scene), as a 280×498 baseline JPEG. The scene index is clamped to the last scene and the seek
/// time into the scene (callers validate user input before this point).
pub fn screenshot_280x498(
    video: &ResolvedVideo,
    scene_index: usize,
    seek_seconds: Option<f64>,
) -> Vec<u8> {
    let scene = scene_index.min(video.scene_count() - 1);
    let duration = video.scene_duration(scene).unwrap_or(0.0);
    let t = seek_seconds
        .filter(|s| s.is_finite())
        .unwrap_or(duration * DEFAULT_SEEK_FRACTION)
        .clamp(0.0, duration);
    let small = preview_280x498(video, scene, t);
    let mut jpeg = Vec::new();
    // Frames are opaque, so premultiplied bytes are the straight colours.
    jpeg_encoder::Encoder::new(&mut jpeg, JPEG_QUALITY)
        .encode(
            small.data(),
            PREVIEW_W as u16,
            PREVIEW_H as u16,
            jpeg_encoder::ColorType::Rgba,
        )
        .expect("in-memory JPEG encoding of a valid 280×498 buffer cannot fail");
    jpeg
}

/// The overlay objects of scene `scene_index`, all fully entered, alone on solid black, as a
/// 280×498 PNG. `None` when the scene does not exist or has no overlay objects.
pub fn overlay_poster(video: &ResolvedVideo, scene_index: usize) -> Option<Vec<u8>> {
    if !video.scene_has_overlay(scene_index) {
        return None;
    }
    let small = compose::poster_preview(video, scene_index)?;
    crate::raster::encode_png(small.as_ref()).ok()
}

/// A procedural background as one canvas-size (720×1280) still: the centre of the plate the
/// renderer drifts over, so a still of it looks like the scene's first frame.
pub fn procedural_background(
    seed: u64,
    style: crate::plan::ProceduralStyle,
    palette: crate::plan::Palette,
) -> Option<Pixmap> {
    let plate = crate::layers::background::paint_procedural(seed, style, palette);
    let x = (plate.width() - CANVAS_W) / 2;
    let y = (plate.height() - CANVAS_H) / 2;
    raster::crop(plate.as_ref(), x, y, CANVAS_W, CANVAS_H)
}
