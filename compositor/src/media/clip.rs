//! Video clips as picture sources: probe a clip, then pull its frames, cover-fitted to a target
//! size, at any time in the file.
//!
//! ```text
//! filesrc ─► decodebin ─► [videoflip auto] ─► videocrop ─► videoscale ─► videoconvert ─► RGBA W×H ─► appsink (≤ 4 queued)
//! ```
//!
//! The crop (computed from the probed size and pixel aspect) cuts the source to the target's
//! aspect *before* scaling, so scaling and conversion only touch pixels that are shown, in YUV.
//! The pipeline runs in PLAYING with an unsynchronised appsink that holds at most
//! [`QUEUED_FRAMES`]: GStreamer's streaming thread decodes just ahead of the reader and then
//! blocks, so memory per open clip is a handful of target-size frames whatever the clip's length.
//!
//! [`ClipDecoder::frame_at`] is frame-accurate: it returns the frame whose display interval
//! `[pts, pts + duration)` contains the requested time, reading forward when the time is ahead
//! (up to [`MAX_FORWARD_SECS`]) and seeking (`FLUSH | ACCURATE`) otherwise. Past the last frame
//! it holds the last frame. Frames are GStreamer buffers shared by reference, never copied.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;
use gstreamer_video as gst_video;

use super::decode::{NO_VIDEO_MESSAGE, attach_fakesink, check_readable, open, wait_for};
use super::error::MediaError;
use super::gst_util::{PipelineGuard, bus_error, capsfilter, has_factory, init, make, set_state};

/// Decoded frames the appsink may hold before the decoder blocks.
pub const QUEUED_FRAMES: u32 = 4;
/// How far ahead of the current frame a request may be before seeking beats decoding forward.
pub const MAX_FORWARD_SECS: f64 = 2.0;
/// Tolerance when comparing times with frame boundaries (well under a frame at any rate).
const EPS: f64 = 1e-4;
/// Longest wait for one frame before the decoder is declared stuck.
const FRAME_TIMEOUT: Duration = Duration::from_secs(20);
/// Largest clip side accepted, pixels.
pub const MAX_CLIP_SIDE: u32 = 8192;

/// What [`probe_clip`] learns about a clip (sizes after any orientation tag is applied).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipInfo {
    /// Width in stored pixels.
    pub width: u32,
    /// Height in stored pixels.
    pub height: u32,
    /// Pixel aspect ratio (numerator, denominator); 1/1 for square pixels.
    pub par: (i32, i32),
    /// Nominal frames per second; 0 when the clip declares a variable rate.
    pub fps: f64,
    /// Length in seconds.
    pub duration: f64,
}

/// Opens `path`, decodes its first video frame and reads its size, rate and duration. Fails with
/// [`MediaError::UnsupportedFormat`] for files GStreamer cannot decode, [`MediaError::NoVideo`]
/// for files without a picture stream.
pub fn probe_clip(path: &Path) -> Result<ClipInfo, MediaError> {
    check_readable(path)?;
    init()?;
    let (pipeline, decodebin) = open(path, |klass| klass.contains("Audio"))?;
    let head = orientation()?;
    let sink = make("fakesink")?;
    pipeline
        .add_many([&head, &sink])
        .map_err(|e| MediaError::pipeline("clip-probe", e.to_string()))?;
    head.link(&sink)
        .map_err(|e| MediaError::pipeline("clip-probe", e.to_string()))?;
    link_first_video(&pipeline, &decodebin, &head);

    set_state(&pipeline, gst::State::Paused)?;
    wait_for(&pipeline, path, gst::MessageType::AsyncDone)?;
    let caps = sink
        .static_pad("sink")
        .and_then(|p| p.current_caps())
        .ok_or_else(|| MediaError::NoVideo {
            path: path.to_owned(),
        })?;
    let info =
        gst_video::VideoInfo::from_caps(&caps).map_err(|e| MediaError::UnsupportedFormat {
            path: path.to_owned(),
            detail: format!("unusable video caps: {e}"),
        })?;
    let duration = pipeline
        .query_duration::<gst::ClockTime>()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| MediaError::UnknownDuration {
            path: path.to_owned(),
        })?;
    let fps = info.fps();
    let par = info.par();
    let clip = ClipInfo {
        width: info.width(),
        height: info.height(),
        par: (par.numer().max(1), par.denom().max(1)),
        fps: if fps.denom() > 0 && fps.numer() > 0 {
            f64::from(fps.numer()) / f64::from(fps.denom())
        } else {
            0.0
        },
        duration: duration.nseconds() as f64 / 1e9,
    };
    if clip.width == 0
        || clip.height == 0
        || clip.width > MAX_CLIP_SIDE
        || clip.height > MAX_CLIP_SIDE
    {
        return Err(MediaError::InvalidInput(format!(
            "{}: video size {}x{} is outside 1..={MAX_CLIP_SIDE} px",
            path.display(),
            clip.width,
            clip.height
        )));
    }
    Ok(clip)
}

/// `videoflip` following the stream's orientation tag when installed, else a no-op `identity`.
fn orientation() -> Result<gst::Element, MediaError> {
    if has_factory("videoflip") {
        let flip = make("videoflip")?;
        if flip.find_property("video-direction").is_some() {
            flip.set_property_from_str("video-direction", "auto");
        }
        Ok(flip)
    } else {
        make("identity")
    }
}

/// Links decodebin's first raw video pad to `head`; every other stream is drained. Posts
/// [`NO_VIDEO_MESSAGE`] when the file has no video.
fn link_first_video(pipeline: &gst::Pipeline, decodebin: &gst::Element, head: &gst::Element) {
    let linked = Arc::new(AtomicBool::new(false));
    let pipeline_weak = pipeline.downgrade();
    let head_weak = head.downgrade();
    let seen = Arc::clone(&linked);
    decodebin.connect_pad_added(move |_, pad| {
        let (Some(pipeline), Some(head)) = (pipeline_weak.upgrade(), head_weak.upgrade()) else {
            return;
        };
        let is_raw_video = pad
            .current_caps()
            .unwrap_or_else(|| pad.query_caps(None))
            .structure(0)
            .is_some_and(|s| s.name() == "video/x-raw");
        if is_raw_video && !seen.swap(true, Ordering::SeqCst) {
            if let Some(sinkpad) = head.static_pad("sink")
                && pad.link(&sinkpad).is_ok()
            {
                return;
            }
            seen.store(false, Ordering::SeqCst);
        }
        attach_fakesink(&pipeline, pad);
    });
    decodebin.connect_no_more_pads(move |decodebin| {
        if !linked.load(Ordering::SeqCst) {
            let msg =
                gst::message::Application::builder(gst::Structure::new_empty(NO_VIDEO_MESSAGE))
                    .src(decodebin)
                    .build();
            let _ = decodebin.post_message(msg);
        }
    });
}

/// The centred crop (left, right, top, bottom, in stored pixels) that gives a `w×h` clip with
/// pixel aspect `par` the display aspect of `out_w×out_h`.
pub fn cover_crop(info: &ClipInfo, out_w: u32, out_h: u32) -> (u32, u32, u32, u32) {
    let (w, h) = (f64::from(info.width), f64::from(info.height));
    let par = f64::from(info.par.0) / f64::from(info.par.1);
    let target = f64::from(out_w) / f64::from(out_h);
    let display = w * par / h;
    if display > target {
        // Too wide: keep the height, cut the sides.
        let keep = (h * target / par).round().clamp(1.0, w);
        let cut = (w - keep) as u32;
        (cut / 2, cut - cut / 2, 0, 0)
    } else {
        let keep = (w * par / target).round().clamp(1.0, h);
        let cut = (h - keep) as u32;
        (0, 0, cut / 2, cut - cut / 2)
    }
}

/// One decoded frame: RGBA (opaque for video), `width × height`, rows `stride` bytes apart,
/// shown during `[start, end)` seconds of the file. Cheap to clone (a buffer reference).
#[derive(Clone)]
pub struct ClipFrame {
    /// When it starts being shown, seconds into the file.
    pub start: f64,
    /// When the next frame takes over.
    pub end: f64,
    buffer: gst::Buffer,
    stride: usize,
}

impl std::fmt::Debug for ClipFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClipFrame")
            .field("start", &self.start)
            .field("end", &self.end)
            .finish()
    }
}

impl ClipFrame {
    /// Whether the frame is on screen at `t` seconds into the file.
    pub fn covers(&self, t: f64) -> bool {
        self.start <= t + EPS && t + EPS < self.end
    }

    /// Calls `f` with the pixels and the row stride; `None` if the buffer cannot be mapped.
    pub fn with_pixels<R>(&self, f: impl FnOnce(&[u8], usize) -> R) -> Option<R> {
        let map = self.buffer.map_readable().ok()?;
        Some(f(map.as_slice(), self.stride))
    }
}

/// An open clip, decoding just ahead of its reader. Not `Sync`: callers serialise access.
pub struct ClipDecoder {
    pipeline: PipelineGuard,
    sink: gst_app::AppSink,
    path: PathBuf,
    stride: usize,
    /// Nominal frame length, for buffers without a duration.
    frame_secs: f64,
    /// The probed length, seconds.
    duration: f64,
    /// The last frame read.
    current: Option<ClipFrame>,
    /// Where the stream continues (the end of `current`, or the last seek target).
    next_at: f64,
}

impl std::fmt::Debug for ClipDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClipDecoder")
            .field("path", &self.path)
            .field("next_at", &self.next_at)
            .finish()
    }
}

impl ClipDecoder {
    /// Opens `path` (already probed as `info`) to deliver `out_w×out_h` RGBA frames, cover-fitted
    /// (centred crop, then scale). Returns once the first frame is decoded, so a broken file
    /// fails here.
    pub fn open(
        path: &Path,
        info: &ClipInfo,
        out_w: u32,
        out_h: u32,
    ) -> Result<ClipDecoder, MediaError> {
        if out_w == 0 || out_h == 0 || out_w > MAX_CLIP_SIDE || out_h > MAX_CLIP_SIDE {
            return Err(MediaError::InvalidInput(format!(
                "clip output size {out_w}x{out_h}"
            )));
        }
        check_readable(path)?;
        init()?;
        let (pipeline, decodebin) = open(path, |klass| klass.contains("Audio"))?;
        let head = orientation()?;
        let (left, right, top, bottom) = cover_crop(info, out_w, out_h);
        let crop = make("videocrop")?;
        crop.set_property("left", left as i32);
        crop.set_property("right", right as i32);
        crop.set_property("top", top as i32);
        crop.set_property("bottom", bottom as i32);
        let scale = make("videoscale")?;
        if scale.find_property("add-borders").is_some() {
            scale.set_property("add-borders", false);
        }
        let convert = make("videoconvert")?;
        // Any rate (no `framerate` field): frames keep their own timestamps.
        let caps = gst::Caps::builder("video/x-raw")
            .field("format", "RGBA")
            .field("width", out_w as i32)
            .field("height", out_h as i32)
            .field("pixel-aspect-ratio", gst::Fraction::new(1, 1))
            .build();
        let filter = capsfilter(&caps)?;
        let sink = gst_app::AppSink::builder()
            .sync(false)
            .max_buffers(QUEUED_FRAMES)
            .drop(false)
            .enable_last_sample(false)
            .build();
        let chain = [&head, &crop, &scale, &convert, &filter, sink.upcast_ref()];
        pipeline
            .add_many(chain)
            .map_err(|e| MediaError::pipeline("clip", e.to_string()))?;
        gst::Element::link_many(chain).map_err(|e| MediaError::pipeline("clip", e.to_string()))?;
        link_first_video(&pipeline, &decodebin, &head);

        set_state(&pipeline, gst::State::Paused)?;
        wait_for(&pipeline, path, gst::MessageType::AsyncDone)?;
        set_state(&pipeline, gst::State::Playing)?;
        let frame_secs = if info.fps > 0.0 {
            1.0 / info.fps
        } else {
            1.0 / 30.0
        };
        let mut decoder = ClipDecoder {
            pipeline,
            sink,
            path: path.to_owned(),
            stride: out_w as usize * 4,
            frame_secs,
            duration: info.duration,
            current: None,
            next_at: 0.0,
        };
        decoder.frame_at(0.0)?;
        Ok(decoder)
    }

    /// The frame on screen at `t` seconds into the file (the last frame past the end).
    pub fn frame_at(&mut self, t: f64) -> Result<ClipFrame, MediaError> {
        let t = if t.is_finite() { t.max(0.0) } else { 0.0 };
        let behind = match &self.current {
            Some(c) if c.covers(t) => return Ok(c.clone()),
            Some(c) => t + EPS < c.start,
            None => t + EPS < self.next_at,
        };
        if behind || t > self.next_at + MAX_FORWARD_SECS {
            // Never seek past the last frame's start (an accurate seek there finds nothing).
            self.seek(t.min((self.duration - 0.5 * self.frame_secs).max(0.0)))?;
        }
        let mut backed_up = false;
        let deadline = Instant::now() + FRAME_TIMEOUT;
        loop {
            if let Some(sample) = self
                .sink
                .try_pull_sample(gst::ClockTime::from_mseconds(100))
            {
                let frame = self.frame_of(&sample)?;
                self.next_at = frame.end;
                self.current = Some(frame.clone());
                if frame.end > t + EPS {
                    return Ok(frame);
                }
                continue;
            }
            if self.sink.is_eos() {
                // Past the last frame: hold it. A seek that landed past the last frame (the
                // container's duration can exceed the video's) backs up a second, once.
                match &self.current {
                    Some(c) => return Ok(c.clone()),
                    None if !backed_up => {
                        backed_up = true;
                        self.seek((self.duration - 1.0).max(0.0))?;
                        continue;
                    }
                    None => {
                        return Err(MediaError::NoVideo {
                            path: self.path.clone(),
                        });
                    }
                }
            }
            self.check_bus()?;
            if Instant::now() > deadline {
                return Err(MediaError::pipeline(
                    "clip",
                    format!("{}: timed out decoding a frame", self.path.display()),
                ));
            }
        }
    }

    fn seek(&mut self, t: f64) -> Result<(), MediaError> {
        self.current = None;
        self.next_at = t;
        self.pipeline
            .seek_simple(
                gst::SeekFlags::FLUSH | gst::SeekFlags::ACCURATE,
                gst::ClockTime::from_nseconds((t * 1e9) as u64),
            )
            .map_err(|e| {
                self.check_bus().err().unwrap_or_else(|| {
                    MediaError::pipeline(
                        "clip",
                        format!("{}: seek to {t:.3} s failed: {e}", self.path.display()),
                    )
                })
            })
    }

    fn frame_of(&self, sample: &gst::Sample) -> Result<ClipFrame, MediaError> {
        let buffer = sample
            .buffer_owned()
            .ok_or_else(|| MediaError::pipeline("clip", "a sample without a buffer"))?;
        // Buffer timestamps can be offset (an MP4 edit list compensating B-frame delay starts
        // them at 2 frames); the segment maps them to stream time, which is what seeks and
        // callers use.
        let segment = sample
            .segment()
            .and_then(|s| s.downcast_ref::<gst::ClockTime>().cloned());
        let start = buffer
            .pts()
            .map(|pts| {
                segment
                    .as_ref()
                    .and_then(|s| s.to_stream_time(pts))
                    .unwrap_or(pts)
            })
            .map_or(self.next_at, |p| p.nseconds() as f64 / 1e9);
        let length = buffer
            .duration()
            .map(|d| d.nseconds() as f64 / 1e9)
            .filter(|d| *d > 0.0)
            .unwrap_or(self.frame_secs);
        Ok(ClipFrame {
            start,
            end: start + length,
            buffer,
            stride: self.stride,
        })
    }

    fn check_bus(&self) -> Result<(), MediaError> {
        let Some(bus) = self.pipeline.bus() else {
            return Ok(());
        };
        match bus.pop_filtered(&[gst::MessageType::Error]) {
            Some(msg) => match msg.view() {
                gst::MessageView::Error(err) => Err(bus_error(err)),
                _ => Ok(()),
            },
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(width: u32, height: u32, par: (i32, i32)) -> ClipInfo {
        ClipInfo {
            width,
            height,
            par,
            fps: 30.0,
            duration: 1.0,
        }
    }

    #[test]
    fn cover_crop_keeps_the_centre() {
        // Landscape 1920×1080 into portrait 720×1280: keep 607.5 → 608 px of width.
        assert_eq!(
            cover_crop(&info(1920, 1080, (1, 1)), 720, 1280),
            (656, 656, 0, 0)
        );
        // Same aspect: nothing cut.
        assert_eq!(
            cover_crop(&info(720, 1280, (1, 1)), 720, 1280),
            (0, 0, 0, 0)
        );
        // Square into a wide rect: cut top and bottom.
        assert_eq!(
            cover_crop(&info(400, 400, (1, 1)), 400, 200),
            (0, 0, 100, 100)
        );
        // Anamorphic: 2:1 pixels make a 100×100 clip display as 200×100.
        assert_eq!(
            cover_crop(&info(100, 100, (2, 1)), 100, 100),
            (25, 25, 0, 0)
        );
    }
}
