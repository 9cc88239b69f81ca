//! Video clips as picture sources: probe a clip, then pull its frames, cover-fitted to a target
//! size, at any time in the file.
//!
//! ```text
//! filesrc ─► decodebin ─► [videoflip auto] ─► videocrop ─► videoscale ─► videoconvert ─► I420 W×H ─► appsink (≤ 4 queued)
//! ```
//!
//! The crop (computed from the probed size and pixel aspect) cuts the source to the target's
//! aspect *before* scaling, so scaling only touches pixels that are shown, in YUV. Frames leave
//! GStreamer as I420; [`ClipPixels::Rgba`] frames are converted by us (BT.709/601 exactly, as
//! the renderer converts I420 backgrounds; `videoconvert`'s 8-bit fast path is a few steps off).
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

use super::convert::{EvenRect, i420_rect_to_rgba};
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

/// The matrix and range a sample's caps declare (BT.709 limited when they say nothing usable).
fn caps_colour(info: Option<&gst_video::VideoInfo>) -> YuvColour {
    match info.map(|i| i.colorimetry()) {
        Some(c) => YuvColour {
            bt709: c.matrix() != gst_video::VideoColorMatrix::Bt601,
            full_range: c.range() == gst_video::VideoColorRange::Range0_255,
        },
        None => YuvColour {
            bt709: true,
            full_range: false,
        },
    }
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

/// Pixel format a [`ClipDecoder`] delivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipPixels {
    /// RGBA, converted from I420 by us as each frame is pulled (layers blended with a mask:
    /// the presenter).
    Rgba,
    /// I420 as decoded (cropped and scaled in YUV, never converted): a full-canvas background
    /// converts only what it needs, and an encoder can take its pixels as they are.
    I420,
}

/// How the pixels of a [`ClipFrame`] are laid out in its buffer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum FrameLayout {
    Rgba { stride: usize },
    I420(I420Frame),
}

/// Plane offsets and strides of an I420 frame, and how to read its YUV.
#[derive(Debug, Clone, Copy, PartialEq)]
struct I420Frame {
    offsets: [usize; 3],
    strides: [usize; 3],
    colour: YuvColour,
}

/// The YUV → RGB matrix and range of a decoded clip (from its caps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YuvColour {
    /// `BT.709` (true) or `BT.601` (false) luma coefficients.
    pub bt709: bool,
    /// Full (0–255) rather than limited (16–235) range.
    pub full_range: bool,
}

/// The three planes of a decoded I420 frame, borrowed from its buffer.
#[derive(Debug, Clone, Copy)]
pub struct YuvPlanes<'a> {
    /// Luma, `stride[0]` bytes per row.
    pub y: &'a [u8],
    /// Cb, half size, `stride[1]` bytes per row.
    pub u: &'a [u8],
    /// Cr, half size, `stride[2]` bytes per row.
    pub v: &'a [u8],
    /// Bytes per row of each plane.
    pub strides: [usize; 3],
    /// How to turn the samples into RGB.
    pub colour: YuvColour,
}

/// One decoded frame (RGBA, opaque for video, or I420), `width × height`, shown during
/// `[start, end)` seconds of the file. Cheap to clone (a buffer reference).
#[derive(Clone)]
pub struct ClipFrame {
    /// When it starts being shown, seconds into the file.
    pub start: f64,
    /// When the next frame takes over.
    pub end: f64,
    buffer: gst::Buffer,
    layout: FrameLayout,
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

    /// Bytes its pixels hold (what a cache of frames counts).
    pub fn byte_len(&self) -> usize {
        self.buffer.size()
    }

    /// Calls `f` with the RGBA pixels and the row stride; `None` if the buffer cannot be mapped
    /// or the frame is I420.
    pub fn with_pixels<R>(&self, f: impl FnOnce(&[u8], usize) -> R) -> Option<R> {
        let FrameLayout::Rgba { stride } = self.layout else {
            return None;
        };
        let map = self.buffer.map_readable().ok()?;
        Some(f(map.as_slice(), stride))
    }

    /// Calls `f` with the I420 planes of a `height`-row frame; `None` if the buffer cannot be
    /// mapped, is too short, or the frame is RGBA.
    pub fn with_planes<R>(&self, height: usize, f: impl FnOnce(YuvPlanes<'_>) -> R) -> Option<R> {
        let FrameLayout::I420(l) = self.layout else {
            return None;
        };
        let map = self.buffer.map_readable().ok()?;
        let data = map.as_slice();
        let plane = |i: usize, rows: usize| {
            data.get(l.offsets[i]..l.offsets[i].checked_add(l.strides[i] * rows)?)
        };
        let chroma_rows = height.div_ceil(2);
        Some(f(YuvPlanes {
            y: plane(0, height)?,
            u: plane(1, chroma_rows)?,
            v: plane(2, chroma_rows)?,
            strides: l.strides,
            colour: l.colour,
        }))
    }
}

/// An open clip, decoding just ahead of its reader. Not `Sync`: callers serialise access.
pub struct ClipDecoder {
    pipeline: PipelineGuard,
    sink: gst_app::AppSink,
    path: PathBuf,
    pixels: ClipPixels,
    out_w: u32,
    out_h: u32,
    /// The layout of delivered frames, learnt from the first sample's caps.
    layout: Option<FrameLayout>,
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
        ClipDecoder::open_as(path, info, out_w, out_h, ClipPixels::Rgba)
    }

    /// [`ClipDecoder::open`], delivering `pixels`.
    pub fn open_as(
        path: &Path,
        info: &ClipInfo,
        out_w: u32,
        out_h: u32,
        pixels: ClipPixels,
    ) -> Result<ClipDecoder, MediaError> {
        ClipDecoder::open_scaled(path, info, (out_w, out_h), out_w, out_h, pixels)
    }

    /// [`ClipDecoder::open_as`], cropping the clip to the aspect of `crop_for` (a `w×h` layer)
    /// and then scaling it to `out_w×out_h`: the same picture as a decoder opened at `crop_for`,
    /// at another scale (a still's layer at preview size crops exactly as the video's layer).
    pub fn open_scaled(
        path: &Path,
        info: &ClipInfo,
        crop_for: (u32, u32),
        out_w: u32,
        out_h: u32,
        pixels: ClipPixels,
    ) -> Result<ClipDecoder, MediaError> {
        if crop_for.0 == 0
            || crop_for.1 == 0
            || out_w == 0
            || out_h == 0
            || out_w > MAX_CLIP_SIDE
            || out_h > MAX_CLIP_SIDE
        {
            return Err(MediaError::InvalidInput(format!(
                "clip output size {out_w}x{out_h}"
            )));
        }
        check_readable(path)?;
        init()?;
        let (pipeline, decodebin) = open(path, |klass| klass.contains("Audio"))?;
        let head = orientation()?;
        let (left, right, top, bottom) = cover_crop(info, crop_for.0, crop_for.1);
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
        // Always I420 out of GStreamer: RGBA is converted by us (see `frame_of`), exactly as the
        // renderer converts I420 backgrounds, so both agree to the bit.
        let caps = gst::Caps::builder("video/x-raw")
            .field("format", "I420")
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
            pixels,
            out_w,
            out_h,
            layout: None,
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

    /// Seeks to the keyframe at or before `t` (clamped into the clip): [`Self::next_frame`] then
    /// reads on from there, every frame delivered (a cache can keep the frames an accurate seek
    /// decodes and drops).
    pub fn seek_to_keyframe(&mut self, t: f64) -> Result<(), MediaError> {
        let t = if t.is_finite() { t.max(0.0) } else { 0.0 };
        let t = t.min((self.duration - 0.5 * self.frame_secs).max(0.0));
        self.current = None;
        self.next_at = 0.0;
        self.pipeline
            .seek_simple(
                gst::SeekFlags::FLUSH | gst::SeekFlags::KEY_UNIT | gst::SeekFlags::SNAP_BEFORE,
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

    /// The next frame in stream order; `None` past the last one.
    pub fn next_frame(&mut self) -> Result<Option<ClipFrame>, MediaError> {
        let deadline = Instant::now() + FRAME_TIMEOUT;
        loop {
            if let Some(sample) = self
                .sink
                .try_pull_sample(gst::ClockTime::from_mseconds(100))
            {
                let frame = self.frame_of(&sample)?;
                self.next_at = frame.end;
                self.current = Some(frame.clone());
                return Ok(Some(frame));
            }
            if self.sink.is_eos() {
                return Ok(None);
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

    /// The layout of frames in `sample`'s caps (I420: planes from a `VideoMeta` when the buffer
    /// has one, else GStreamer's default layout for the caps).
    fn layout_of(&mut self, sample: &gst::Sample, buffer: &gst::Buffer) -> FrameLayout {
        let base = *self.layout.get_or_insert_with(|| {
            let info = sample
                .caps()
                .and_then(|c| gst_video::VideoInfo::from_caps(c).ok());
            let (offsets, strides) = match &info {
                Some(info) => (
                    [info.offset()[0], info.offset()[1], info.offset()[2]],
                    [
                        info.stride()[0] as usize,
                        info.stride()[1] as usize,
                        info.stride()[2] as usize,
                    ],
                ),
                None => {
                    let (w, h) = (self.out_w as usize, self.out_h as usize);
                    let (ys, cs) = (w.next_multiple_of(4), w.div_ceil(2).next_multiple_of(4));
                    ([0, ys * h, ys * h + cs * h.div_ceil(2)], [ys, cs, cs])
                }
            };
            FrameLayout::I420(I420Frame {
                offsets,
                strides,
                colour: caps_colour(info.as_ref()),
            })
        });
        match (base, buffer.meta::<gst_video::VideoMeta>()) {
            (FrameLayout::I420(f), Some(meta))
                if meta.offset().len() >= 3 && meta.stride().iter().take(3).all(|s| *s > 0) =>
            {
                let (o, st) = (meta.offset(), meta.stride());
                FrameLayout::I420(I420Frame {
                    offsets: [o[0], o[1], o[2]],
                    strides: [st[0] as usize, st[1] as usize, st[2] as usize],
                    colour: f.colour,
                })
            }
            _ => base,
        }
    }

    fn frame_of(&mut self, sample: &gst::Sample) -> Result<ClipFrame, MediaError> {
        let buffer = sample
            .buffer_owned()
            .ok_or_else(|| MediaError::pipeline("clip", "a sample without a buffer"))?;
        let layout = self.layout_of(sample, &buffer);
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
        let (buffer, layout) = match self.pixels {
            ClipPixels::I420 => (buffer, layout),
            ClipPixels::Rgba => (
                self.to_rgba(&buffer, layout)?,
                FrameLayout::Rgba {
                    stride: self.out_w as usize * 4,
                },
            ),
        };
        Ok(ClipFrame {
            start,
            end: start + length,
            buffer,
            layout,
        })
    }

    /// A decoded I420 buffer as tightly packed RGBA (BT.601/709 as its caps say).
    fn to_rgba(
        &self,
        buffer: &gst::Buffer,
        layout: FrameLayout,
    ) -> Result<gst::Buffer, MediaError> {
        let (w, h) = (self.out_w as usize, self.out_h as usize);
        let yuv = ClipFrame {
            start: 0.0,
            end: 0.0,
            buffer: buffer.clone(),
            layout,
        };
        let mut rgba = vec![0u8; w * h * 4];
        let rect = EvenRect {
            x0: 0,
            y0: 0,
            x1: w & !1,
            y1: h,
        };
        yuv.with_planes(h, |planes| {
            i420_rect_to_rgba(&planes, &mut rgba, w, rect);
            // An odd width leaves the last column: repeat its neighbour.
            if w % 2 == 1 && w > 1 {
                for row in rgba.chunks_exact_mut(w * 4) {
                    row.copy_within((w - 2) * 4..(w - 1) * 4, (w - 1) * 4);
                }
            }
        })
        .ok_or_else(|| {
            MediaError::pipeline(
                "clip",
                format!(
                    "{}: a decoded frame is smaller than its caps",
                    self.path.display()
                ),
            )
        })?;
        Ok(gst::Buffer::from_mut_slice(rgba))
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
