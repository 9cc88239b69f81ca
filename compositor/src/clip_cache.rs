//! Decoded clip frames kept for stills, so that screenshots of a scene under review at ever
//! different moments stop paying for a seek and a decode from the previous keyframe each time.
//!
//! A still's clip layer has its own decoder, opened at the size the still composes it at (a
//! background at preview size, cropped exactly as the video's layer; the presenter at its canvas
//! size), delivering I420. A miss at file time `ft` seeks to the keyframe before it and keeps
//! every frame from there to `ft + FILL_AHEAD_SECS` (the frames an accurate seek would decode
//! and drop), so later stills near that moment are hits. Frames are held up to
//! [`STILL_CACHE_BYTES`] per layer, oldest fill evicted first.
//!
//! The frame for a time is a pure function of that time: a frame decoded on the way forward from
//! a keyframe is the same picture whichever seek reached it, and a lookup matches the frame whose
//! display interval contains the time, as [`ClipDecoder::frame_at`] does.

use std::collections::VecDeque;
use std::path::Path;

use crate::media::{ClipDecoder, ClipFrame, ClipInfo, ClipPixels};

/// Decoded frames one clip layer keeps for stills, bytes.
pub(crate) const STILL_CACHE_BYTES: usize = 64 << 20;
/// How much of the clip after a missed moment a fill decodes and keeps, seconds.
const FILL_AHEAD_SECS: f64 = 0.5;

/// The size a still decodes a clip layer at: cropped to the aspect of `crop_for` (the layer's
/// size on the canvas), scaled to `out`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StillScale {
    pub(crate) crop_for: (u32, u32),
    pub(crate) out: (u32, u32),
}

/// One clip layer's decoder for stills and the frames it kept.
#[derive(Default)]
pub(crate) struct StillFrames {
    scale: Option<StillScale>,
    decoder: Option<ClipDecoder>,
    /// In the order they were decoded (eviction order).
    frames: VecDeque<ClipFrame>,
    bytes: usize,
    /// The first decoding failure; stills then take the video's own path.
    error: Option<String>,
}

impl StillFrames {
    /// The frame on screen at file time `ft` of `path`, decoded at `scale`; `None` when the clip
    /// cannot be decoded for stills (the caller renders the usual way).
    pub(crate) fn frame(
        &mut self,
        path: &Path,
        info: &ClipInfo,
        scale: StillScale,
        ft: f64,
    ) -> Option<ClipFrame> {
        if self.scale != Some(scale) {
            self.clear();
            self.scale = Some(scale);
        }
        if let Some(f) = self.lookup(ft) {
            return Some(f);
        }
        if self.error.is_some() {
            return None;
        }
        match self.fill(path, info, scale, ft) {
            Ok(f) => Some(f),
            Err(e) => {
                self.error = Some(e.to_string());
                self.decoder = None;
                None
            }
        }
    }

    /// Frees the decoder and every kept frame; a later still starts afresh.
    pub(crate) fn clear(&mut self) {
        *self = StillFrames::default();
    }

    fn lookup(&self, ft: f64) -> Option<ClipFrame> {
        self.frames.iter().find(|f| f.covers(ft)).cloned()
    }

    /// Decodes the window around `ft`, keeps its frames, and answers the frame at `ft`.
    fn fill(
        &mut self,
        path: &Path,
        info: &ClipInfo,
        scale: StillScale,
        ft: f64,
    ) -> Result<ClipFrame, crate::media::MediaError> {
        if self.decoder.is_none() {
            let (w, h) = scale.out;
            self.decoder = Some(ClipDecoder::open_scaled(
                path,
                info,
                scale.crop_for,
                w,
                h,
                ClipPixels::I420,
            )?);
        }
        let decoder = self.decoder.as_mut().expect("opened above");
        // From the keyframe before `ft`: the frames an accurate seek would decode and drop are
        // kept instead, at no extra decoding.
        decoder.seek_to_keyframe(ft)?;
        let until = ft + FILL_AHEAD_SECS;
        let mut window = Vec::new();
        while let Some(f) = decoder.next_frame()? {
            let end = f.end;
            window.push(f);
            if end > until {
                break;
            }
        }
        for f in window {
            self.keep(f);
        }
        match self.lookup(ft) {
            Some(f) => Ok(f),
            // Past the clip's last frame (held), or a seek that landed late: ask the decoder as
            // the video's layer does.
            None => decoder_frame(self.decoder.as_mut(), ft),
        }
    }

    fn keep(&mut self, f: ClipFrame) {
        if self.frames.iter().any(|k| (k.start - f.start).abs() < 1e-6) {
            return;
        }
        self.bytes += f.byte_len();
        self.frames.push_back(f);
        while self.bytes > STILL_CACHE_BYTES && self.frames.len() > 1 {
            if let Some(old) = self.frames.pop_front() {
                self.bytes -= old.byte_len();
            }
        }
    }
}

fn decoder_frame(
    decoder: Option<&mut ClipDecoder>,
    ft: f64,
) -> Result<ClipFrame, crate::media::MediaError> {
    decoder.expect("a fill opens the decoder").frame_at(ft)
}
