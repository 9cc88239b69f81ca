//! One scene of a video as a frame source of its own: the unit of per-scene chunk encoding.
//!
//! A video is encoded scene by scene, each scene into an independent chunk (see
//! [`crate::media::encode_video`] and [`crate::media::join_mp4`]), so a re-export after an edit
//! encodes only the scenes whose pictures changed. A chunk renders exactly the frames the
//! whole-video renderer gives those indices:
//!
//! - the frames a scene owns and their scene times come from the video's [`Timeline`], the one
//!   mapping both renderers use;
//! - the scene is resolved alone (a one-scene plan), which draws the same layers;
//! - a crossfade into the next scene blends with that scene's first frame, rendered once and
//!   handed in ([`incoming_frame`]), as the whole-video renderer blends with it frame by frame.
//!
//! So a chunk depends on its own scene and on nothing of the next one but that first frame,
//! which is what a cache key of the chunk must cover.

use std::ops::Range;

use crate::frame::{FRAME_BYTES, View, crossfade, fade_alpha};
use crate::media::FrameSource;
use crate::media::convert::I420Layout;
use crate::resolve::{ResolvedVideo, Timeline};

/// Scene `scene` of a video whose timeline is `timeline`, rendered from `resolved` (that scene
/// resolved alone), fading at its end into `incoming` when given.
pub struct SceneChunk<'a> {
    timeline: &'a Timeline,
    scene: usize,
    frames: Range<u64>,
    resolved: &'a ResolvedVideo,
    incoming: Option<&'a [u8]>,
}

impl<'a> SceneChunk<'a> {
    /// The chunk of scene `scene`. `resolved` must be that scene's plan resolved alone;
    /// `incoming` the next scene's first frame ([`incoming_frame`]) when one follows (its
    /// length is checked: a wrong one is ignored, as if no scene followed).
    pub fn new(
        timeline: &'a Timeline,
        scene: usize,
        resolved: &'a ResolvedVideo,
        incoming: Option<&'a [u8]>,
    ) -> SceneChunk<'a> {
        SceneChunk {
            timeline,
            scene,
            frames: timeline.scene_frames(scene),
            resolved,
            incoming: incoming.filter(|f| f.len() == FRAME_BYTES),
        }
    }

    /// The timeline frames this chunk renders.
    pub fn frames(&self) -> Range<u64> {
        self.frames.clone()
    }

    /// The chunk of `frames` only, a part of the scene's frames (for example its crossfade,
    /// [`Timeline::crossfade_frames`], apart from the rest); clamped to the scene's frames.
    pub fn part(mut self, frames: Range<u64>) -> Self {
        let start = frames.start.clamp(self.frames.start, self.frames.end);
        let end = frames.end.clamp(start, self.frames.end);
        self.frames = start..end;
        self
    }

    /// The scene time of the chunk's frame `index` (counted from the chunk's first frame).
    fn local(&self, index: u64) -> f64 {
        let (scene, local) = self.timeline.frame_at(self.frames.start + index);
        debug_assert_eq!(scene, self.scene, "a chunk renders its own scene only");
        local
    }

    fn fade(&self, local: f64) -> Option<(f64, &[u8])> {
        let incoming = self.incoming?;
        let alpha = fade_alpha(self.resolved.scenes.first()?, true, local)?;
        Some((alpha, incoming))
    }
}

/// The first frame of a scene resolved alone (`next`): what the scene before it fades into.
pub fn incoming_frame(next: &ResolvedVideo) -> Vec<u8> {
    next.prefetch_times(&[(0, 0.0)]);
    let mut frame = vec![0u8; FRAME_BYTES];
    next.render_scene(0, 0.0, View::Full, &mut frame);
    next.release_media();
    frame
}

impl FrameSource for SceneChunk<'_> {
    fn frame_count(&self) -> u64 {
        self.frames.end - self.frames.start
    }

    fn fps(&self) -> u32 {
        self.timeline.fps()
    }

    fn render(&self, index: u64, rgba: &mut [u8]) {
        let local = self.local(index);
        self.resolved.render_scene(0, local, View::Full, rgba);
        if let Some((alpha, incoming)) = self.fade(local) {
            crossfade(rgba, incoming, alpha);
        }
    }

    fn render_i420(
        &self,
        index: u64,
        rgba: &mut [u8],
        layout: &I420Layout,
        i420: &mut [u8],
    ) -> bool {
        let local = self.local(index);
        self.fade(local).is_none()
            && self
                .resolved
                .render_scene_i420(0, local, rgba, layout, i420)
    }

    fn prepare(&self, first: u64, count: u64) {
        let times: Vec<(usize, f64)> = (first..first.saturating_add(count).min(self.frame_count()))
            .map(|i| (0, self.local(i)))
            .collect();
        self.resolved.prefetch_times(&times);
    }
}
