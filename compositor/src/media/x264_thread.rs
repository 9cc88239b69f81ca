//! The software H.264 encoder: libx264 (the `x264` crate) in a thread of its own, between the
//! rendering thread and the muxer.
//!
//! ```text
//! rendered I420 frames ─► bounded channel ─► x264 thread ─► appsrc (video/x-h264, avc, au) ─► h264parse ─► mp4mux
//! ```
//!
//! Each frame goes back to the frame pool as soon as x264 has copied it, where GStreamer's
//! `x264enc` kept about 24 of them (33 MB at 720×1280) mapped until their output came out. The
//! stream is the one `x264enc` wrote — the same x264 parameters, access units and timestamps:
//! x264 sees each frame's time plus [`PTS_OFFSET`] (x264enc's minimum PTS), so decoding times
//! of frames held back for B-frames stay positive, and the segment starts there, which
//! puts the first frame at running time zero and the first decoding times before it, as the
//! muxer got them from x264enc.

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use gstreamer as gst;
use gstreamer_app as gst_app;

use super::convert::I420Layout;
use super::encode::EncodeSettings;
use super::error::MediaError;

/// The minimum PTS x264enc asks of its base class (1000 hours), kept so the bitstream and
/// the muxed timestamps stay what they were.
const PTS_OFFSET: u64 = 1000 * 3600 * gst::ClockTime::SECOND.nseconds();

/// x264's VBV buffer: x264enc's default of 600 ms at the peak bitrate.
const VBV_BUFFER_MS: u32 = 600;

/// A started encoder: the inbox for frames, and the thread that ends the stream.
pub(super) type Running<'scope> = (
    SyncSender<gst::Buffer>,
    std::thread::ScopedJoinHandle<'scope, Result<(), MediaError>>,
);

/// An open encoder for one video stream, and its decoder configuration for the caps.
pub(super) struct SoftwareEncoder {
    encoder: x264::Encoder,
    /// The `avcC` record: the caps' `codec_data`.
    pub(super) avc_config: Vec<u8>,
}

impl SoftwareEncoder {
    /// Opens x264 with the settings' parameters at `fps`, `threads` frame threads and the
    /// instruction set `asm` (or x264's own choice).
    pub(super) fn open(
        settings: &EncodeSettings,
        fps: u32,
        threads: u32,
        asm: Option<&str>,
    ) -> Result<SoftwareEncoder, MediaError> {
        let peak = settings.max_bitrate_kbps.max(100);
        let encoder = x264::Encoder::open(&x264::Settings {
            width: settings.width,
            height: settings.height,
            fps,
            preset: settings.preset.as_str(),
            crf: f32::from(settings.crf.clamp(1, 50)),
            vbv_max_kbps: peak,
            vbv_buffer_kbit: peak * VBV_BUFFER_MS / 1000,
            keyint: fps * settings.keyframe_interval_secs.max(1),
            threads,
            sync_lookahead: if settings.serial_lookahead { 0 } else { -1 },
            asm,
        })
        .map_err(failed)?;
        let avc_config = encoder.avc_config().map_err(failed)?;
        Ok(SoftwareEncoder {
            encoder,
            avc_config,
        })
    }

    /// Starts the encoder on a thread of `scope`: frames sent to the returned sender are
    /// encoded into `out`, which gets its end of stream once the sender is dropped and every
    /// frame is out. At most `window` frames wait in the channel.
    pub(super) fn spawn<'scope>(
        self,
        scope: &'scope std::thread::Scope<'scope, '_>,
        out: gst_app::AppSrc,
        layout: I420Layout,
        window: usize,
    ) -> Result<Running<'scope>, MediaError> {
        let (frames, inbox) = sync_channel(window);
        let thread = std::thread::Builder::new()
            .name("reelsmith-x264".into())
            // On a failure the inbox is dropped with the thread, which fails the renderer's
            // next send.
            .spawn_scoped(scope, move || self.run(inbox, &out, layout))
            .map_err(|e| MediaError::pipeline("x264", format!("starting its thread: {e}")))?;
        Ok((frames, thread))
    }

    fn run(
        mut self,
        inbox: Receiver<gst::Buffer>,
        out: &gst_app::AppSrc,
        layout: I420Layout,
    ) -> Result<(), MediaError> {
        let mut stream = Stream::new(out.clone(), 0);
        for frame in inbox {
            let (pts, duration) = timing(&frame)?;
            stream.durations.insert(pts, duration);
            let packet = encode(&mut self.encoder, &frame, layout, pts, false)?;
            if let Some(packet) = packet {
                stream.push(packet)?;
            }
        }
        while let Some(packet) = self.encoder.flush().map_err(failed)? {
            stream.push(packet)?;
        }
        stream.end()
    }

    /// The encoder itself, for a caller that runs it on a thread of its own.
    pub(super) fn into_inner(self) -> x264::Encoder {
        self.encoder
    }
}

/// A frame's time in x264 (its PTS plus [`PTS_OFFSET`]) and its duration.
pub(super) fn timing(frame: &gst::Buffer) -> Result<(i64, gst::ClockTime), MediaError> {
    let (Some(pts), Some(duration)) = (frame.pts(), frame.duration()) else {
        return Err(MediaError::pipeline("x264", "a frame without its timing"));
    };
    Ok((offset(pts)?, duration))
}

/// Hands `frame` to x264 at time `pts` (an IDR frame when `idr`); returns what came out.
pub(super) fn encode<'e>(
    encoder: &'e mut x264::Encoder,
    frame: &gst::Buffer,
    layout: I420Layout,
    pts: i64,
    idr: bool,
) -> Result<Option<x264::Packet<'e>>, MediaError> {
    let map = frame
        .map_readable()
        .map_err(|e| MediaError::pipeline("x264", format!("mapping a frame: {e}")))?;
    let picture = x264::Picture {
        planes: [
            &map[..layout.u_offset],
            &map[layout.u_offset..layout.v_offset],
            &map[layout.v_offset..],
        ],
        strides: [layout.y_stride, layout.uv_stride, layout.uv_stride],
        idr,
    };
    encoder.encode(picture, pts).map_err(failed)
}

/// x264's time for a frame at `pts`.
fn offset(pts: gst::ClockTime) -> Result<i64, MediaError> {
    i64::try_from(pts.nseconds() + PTS_OFFSET)
        .map_err(|_| MediaError::pipeline("x264", "a timestamp out of range"))
}

/// The encoded stream's way into the pipeline.
pub(super) struct Stream {
    out: gst_app::AppSrc,
    /// What x264's times stand above the stream's own: the stream's first frame went into x264
    /// at `shift + PTS_OFFSET`.
    shift: i64,
    /// The duration of each frame in x264, by its time there.
    pub(super) durations: BTreeMap<i64, gst::ClockTime>,
    started: bool,
}

impl Stream {
    pub(super) fn new(out: gst_app::AppSrc, shift: i64) -> Stream {
        Stream {
            out,
            shift,
            durations: BTreeMap::new(),
            started: false,
        }
    }

    /// What x264's times stand above the stream's own.
    pub(super) fn shift(&self) -> i64 {
        self.shift
    }

    /// Whether every frame that went into x264 for this stream has come out.
    pub(super) fn drained(&self) -> bool {
        self.durations.is_empty()
    }

    /// Pushes one access unit with its timestamps, the first with the shifted segment.
    pub(super) fn push(&mut self, packet: x264::Packet<'_>) -> Result<(), MediaError> {
        let shift = self.shift;
        let time = |t: i64| {
            t.checked_sub(shift)
                .and_then(|t| u64::try_from(t).ok())
                .map(gst::ClockTime::from_nseconds)
                .ok_or_else(|| MediaError::pipeline("x264", "a timestamp before the stream"))
        };
        let duration = self
            .durations
            .remove(&packet.pts)
            .ok_or_else(|| MediaError::pipeline("x264", "a frame came out that went in as none"))?;
        let mut buffer = gst::Buffer::from_slice(packet.data.to_vec());
        {
            let buffer = buffer.get_mut().expect("a new buffer is writable");
            buffer.set_pts(time(packet.pts)?);
            buffer.set_dts(time(packet.dts)?);
            buffer.set_duration(duration);
            if !packet.keyframe {
                buffer.set_flags(gst::BufferFlags::DELTA_UNIT);
            }
        }
        let pushed = if self.started {
            self.out.push_buffer(buffer)
        } else {
            self.started = true;
            let mut segment = gst::FormattedSegment::<gst::ClockTime>::new();
            segment.set_start(gst::ClockTime::from_nseconds(PTS_OFFSET));
            segment.set_time(gst::ClockTime::ZERO);
            segment.set_position(gst::ClockTime::from_nseconds(PTS_OFFSET));
            let caps = self.out.caps();
            let sample = gst::Sample::builder()
                .buffer(&buffer)
                .caps_if_some(caps.as_ref())
                .segment(&segment)
                .build();
            self.out.push_sample(&sample)
        };
        pushed.map_err(|e| MediaError::pipeline("x264", format!("push failed: {e:?}")))?;
        Ok(())
    }

    /// Ends the stream: the muxer then writes its index and closes the file.
    pub(super) fn end(&self) -> Result<(), MediaError> {
        self.out
            .end_of_stream()
            .map(drop)
            .map_err(|e| MediaError::pipeline("x264", format!("end of stream: {e:?}")))
    }
}

pub(super) fn failed(e: x264::Error) -> MediaError {
    MediaError::pipeline("x264", e.to_string())
}
