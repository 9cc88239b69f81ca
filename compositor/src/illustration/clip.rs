//! The animated B-roll clip of an illustration: its [`Stage`] with the art floating (a slow
//! bob), breathing (a slight scale) and swaying (a degree or two), one period per clip so the
//! clip loops without a seam when a scene plays it longer than it lasts.

use std::f32::consts::TAU;
use std::path::Path;

use super::{Art, Pose, Stage};
use crate::geom::{CANVAS_H, CANVAS_W};
use crate::media::{
    EncodeReport, EncodeSettings, FrameSource, MediaError, X264Preset, encode_video,
};

/// Length of a clip, seconds (one period of the motion).
pub const CLIP_SECONDS: u32 = 4;
/// Frames per second (the product's).
pub const CLIP_FPS: u32 = 30;
/// How far the art floats up and down, pixels; how much it breathes; how far it sways.
const BOB_PX: f32 = 18.0;
const BREATHE: f32 = 0.025;
const SWAY_DEGREES: f32 = 1.5;

/// The pose at `phase` (0..1 of the loop).
pub(crate) fn pose_at(phase: f32) -> Pose {
    let a = TAU * phase;
    Pose {
        dx: 0.0,
        dy: -BOB_PX * a.sin(),
        scale: 1.0 + BREATHE * (a - TAU / 4.0).sin(),
        degrees: SWAY_DEGREES * (a + TAU / 8.0).cos(),
    }
}

struct Frames {
    stage: Stage,
}

impl FrameSource for Frames {
    fn frame_count(&self) -> u64 {
        u64::from(CLIP_SECONDS * CLIP_FPS)
    }

    fn fps(&self) -> u32 {
        CLIP_FPS
    }

    fn render(&self, index: u64, rgba: &mut [u8]) {
        let phase = index as f32 / self.frame_count() as f32;
        let mut frame = self.stage.backdrop().clone();
        self.stage.draw(&mut frame, pose_at(phase));
        // The backdrop is opaque, so premultiplied and straight bytes are the same.
        rgba.copy_from_slice(frame.data());
    }
}

/// Renders the clip of `art` into a 720×1280 H.264 MP4 at `out` (video only). x264 `superfast`:
/// a search answers with clips it may have to make first, and flat art on a still backdrop
/// compresses well at any preset.
pub fn encode_clip(art: &Art<'_>, out: &Path) -> Result<EncodeReport, MediaError> {
    let stage = Stage::new(art).map_err(MediaError::InvalidInput)?;
    let settings = EncodeSettings {
        width: CANVAS_W,
        height: CANVAS_H,
        preset: X264Preset::Superfast,
        ..EncodeSettings::default()
    };
    encode_video(&Frames { stage }, &settings, out, &mut |_, _| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn motion_loops_and_stays_gentle() {
        let (first, last) = (pose_at(0.0), pose_at(1.0));
        assert!((first.dy - last.dy).abs() < 1e-3 && (first.scale - last.scale).abs() < 1e-4);
        for i in 0..40 {
            let p = pose_at(i as f32 / 40.0);
            assert!(p.dy.abs() <= BOB_PX + 1e-3 && (p.scale - 1.0).abs() <= BREATHE + 1e-4);
            assert!(p.degrees.abs() <= SWAY_DEGREES + 1e-4);
        }
        assert_ne!(pose_at(0.25), pose_at(0.75), "it moves");
    }
}
