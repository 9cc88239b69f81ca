//! Joining: per-scene video chunks + the encoded soundtrack → one fast-start MP4, copied,
//! never re-encoded.
//!
//! ```text
//! chunk 1.mp4 ─► qtdemux ─► appsink ┐  (samples re-timed onto the video's timeline)
//! chunk 2.mp4 ─► qtdemux ─► appsink ┼─► appsrc (H.264 avc) ─┐
//! …                                 ┘                        ├─► mp4mux faststart ─► filesink
//! audio.mp4   ─► qtdemux ─► appsink ──► appsrc (AAC) ────────┘
//! ```
//!
//! Each chunk ([`super::encode_video`]) starts on an IDR frame with closed GOPs, and every chunk
//! of a video is encoded with the same settings, so their parameter sets (`codec_data`) are
//! equal and the joined stream is one valid H.264 stream: this is checked, chunk by chunk. A
//! chunk's samples keep their order and flags; their timestamps are put back on the video's
//! timeline from the chunk's first frame, frame-exactly, so the joined file has the timing a
//! single encode of every frame would have. The soundtrack ([`super::encode_audio`]) is
//! encoded once for the whole video, continuous across scene boundaries and exactly the
//! video's length, and copied as it is.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

use super::encode::{TempOutput, mp4_sink, run_pipeline, temp_path, timestamp};
use super::error::MediaError;
use super::gst_util::{PipelineGuard, bus_error, init, make, set_state};

/// One encoded piece of a video: a video-only MP4 from [`super::encode_video`], and where its
/// frames sit on the video's timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkFile {
    /// The chunk's MP4.
    pub path: PathBuf,
    /// The timeline index of its first frame.
    pub first_frame: u64,
    /// How many frames it holds.
    pub frames: u64,
}

/// What [`join_mp4`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinReport {
    /// Chunks joined.
    pub chunks: usize,
    /// Video frames in the output.
    pub frames: u64,
    /// Bytes of encoded video copied.
    pub video_bytes: u64,
    /// Wall-clock time of the join.
    pub wall: Duration,
}

/// Joins `chunks` (in timeline order, each starting where the previous one ended, the first at
/// frame 0) and the soundtrack `audio` (an AAC MP4 from [`super::encode_audio`]) into a
/// fast-start MP4 at `out`, copying both. The file appears at `out` only when complete. Fails
/// on a gap or overlap between chunks, a chunk that does not hold the frames it claims, or
/// chunks whose encodings cannot be joined (different parameter sets).
pub fn join_mp4(
    chunks: &[ChunkFile],
    fps: u32,
    audio: &Path,
    out: &Path,
) -> Result<JoinReport, MediaError> {
    let started = Instant::now();
    let frames = check_contiguous(chunks)?;
    if fps == 0 || fps > 240 {
        return Err(MediaError::InvalidInput(format!(
            "unsupported frame rate {fps} fps"
        )));
    }
    init()?;
    let tmp = TempOutput(temp_path(out)?);
    let pipeline = PipelineGuard(gst::Pipeline::with_name("reelsmith-join"));
    let mux = mp4_sink(&pipeline, &tmp.0)?;
    let video = copy_source(&pipeline, &mux, "video")?;
    let sound = copy_source(&pipeline, &mux, "audio")?;

    let video_bytes = run_pipeline(&pipeline, "reelsmith-join", || {
        // The soundtrack is small next to the video: all of it goes first (appsrc queues it),
        // so the muxer never waits on audio.
        copy_as_is(&ChunkReader::open(audio, "audio/mpeg")?, &sound)?;
        let mut copier = Copier::new(&video, fps);
        for chunk in chunks {
            copier.copy(chunk)?;
        }
        for src in [&sound, &video] {
            src.end_of_stream()
                .map_err(|e| MediaError::pipeline(src.name(), format!("end of stream: {e:?}")))?;
        }
        Ok(copier.bytes)
    })?;
    drop(pipeline);
    tmp.finish(out)?;
    Ok(JoinReport {
        chunks: chunks.len(),
        frames,
        video_bytes,
        wall: started.elapsed(),
    })
}

/// An `appsrc` for encoded `kind` (`video` or `audio`) samples, linked to the muxer's pad of
/// that kind (asked for by name: the caps come with the first sample).
fn copy_source(
    pipeline: &gst::Pipeline,
    mux: &gst::Element,
    kind: &str,
) -> Result<gst_app::AppSrc, MediaError> {
    let name = format!("{kind}-src");
    let src = gst_app::AppSrc::builder()
        .name(name.as_str())
        .format(gst::Format::Time)
        .is_live(false)
        .block(kind == "video")
        .max_bytes(if kind == "video" { 8 << 20 } else { 0 })
        .build();
    src.set_property("handle-segment-change", true);
    let fail = |e: String| MediaError::pipeline("reelsmith-join", e);
    pipeline.add(&src).map_err(|e| fail(e.to_string()))?;
    let pad = mux
        .request_pad_simple(&format!("{kind}_%u"))
        .ok_or_else(|| fail(format!("mp4mux has no {kind} pad")))?;
    src.static_pad("src")
        .ok_or_else(|| fail(format!("{name} has no src pad")))?
        .link(&pad)
        .map_err(|e| fail(e.to_string()))?;
    Ok(src)
}

/// Pushes every sample of `reader` into `src` unchanged (the first with its caps and segment).
fn copy_as_is(reader: &ChunkReader, src: &gst_app::AppSrc) -> Result<(), MediaError> {
    let mut first = true;
    while let Some(sample) = reader.next()? {
        let pushed = if first {
            first = false;
            src.push_sample(&sample)
        } else {
            let buffer = sample
                .buffer_owned()
                .ok_or_else(|| MediaError::pipeline(src.name(), "an empty sample"))?;
            src.push_buffer(buffer)
        };
        pushed.map_err(|e| MediaError::pipeline(src.name(), format!("push failed: {e:?}")))?;
    }
    if first {
        return Err(MediaError::InvalidInput(format!(
            "{}: no audio samples",
            reader.path.display()
        )));
    }
    Ok(())
}

/// The frame count of `chunks` when they tile `0 .. n` in order.
fn check_contiguous(chunks: &[ChunkFile]) -> Result<u64, MediaError> {
    let mut next = 0u64;
    for (i, c) in chunks.iter().enumerate() {
        if c.first_frame != next {
            return Err(MediaError::InvalidInput(format!(
                "chunk {i} starts at frame {} where frame {next} was expected",
                c.first_frame
            )));
        }
        next = c.first_frame.saturating_add(c.frames);
    }
    if next == 0 {
        return Err(MediaError::InvalidInput("no frames to join".into()));
    }
    Ok(next)
}

/// Copies chunks' samples into the output's video `appsrc`, re-timed.
struct Copier<'a> {
    video: &'a gst_app::AppSrc,
    fps: u32,
    /// The caps (with `codec_data`) of the first chunk, which every chunk must match.
    caps: Option<gst::Caps>,
    /// How far the first chunk's decode times run ahead of its presentation times (the
    /// encoder's reordering delay); every output timestamp is shifted by it, and the output's
    /// segment starts there, so presentation starts at 0.
    lead: u64,
    bytes: u64,
}

impl<'a> Copier<'a> {
    fn new(video: &'a gst_app::AppSrc, fps: u32) -> Self {
        Copier {
            video,
            fps,
            caps: None,
            lead: 0,
            bytes: 0,
        }
    }

    /// Demuxes `chunk` and pushes each of its samples.
    fn copy(&mut self, chunk: &ChunkFile) -> Result<(), MediaError> {
        let reader = ChunkReader::open(&chunk.path, "video/x-h264")?;
        let mut count = 0u64;
        while let Some(sample) = reader.next()? {
            self.push(chunk, &sample)?;
            count += 1;
        }
        if count != chunk.frames {
            return Err(MediaError::InvalidInput(format!(
                "{} holds {count} frames, not {}",
                chunk.path.display(),
                chunk.frames
            )));
        }
        Ok(())
    }

    fn push(&mut self, chunk: &ChunkFile, sample: &gst::Sample) -> Result<(), MediaError> {
        let invalid =
            |what: &str| MediaError::InvalidInput(format!("{}: {what}", chunk.path.display()));
        let caps = sample
            .caps()
            .ok_or_else(|| invalid("a sample without caps"))?;
        let segment = sample
            .segment()
            .and_then(|s| s.downcast_ref::<gst::ClockTime>().cloned())
            .ok_or_else(|| invalid("a sample without a time segment"))?;
        let start = segment.start().map_or(0, gst::ClockTime::nseconds);
        let buffer = sample.buffer().ok_or_else(|| invalid("an empty sample"))?;
        let pts = buffer
            .pts()
            .ok_or_else(|| invalid("a sample without a timestamp"))?
            .nseconds();
        let dts = buffer.dts().map_or(pts, gst::ClockTime::nseconds);
        // Presentation: the frame's index within the chunk, onto the video's timeline.
        let fps = u64::from(self.fps);
        let rel = pts.saturating_sub(start);
        let index = chunk.first_frame + (rel * fps + 500_000_000) / 1_000_000_000;
        let first = self.caps.is_none();
        if first {
            self.lead = start;
            self.caps = Some(caps.to_owned());
        } else if self.caps.as_ref().is_some_and(|c| !joinable(c, caps)) {
            return Err(invalid(
                "encoded with other settings than the first chunk (its caps differ)",
            ));
        }
        let offset = timestamp(chunk.first_frame, fps).nseconds() + self.lead;
        let out_pts = timestamp(index, fps).nseconds() + self.lead;
        // Decode times keep their spacing within the chunk; a chunk's first ones fall in the
        // reordering delay the previous chunk's last frames have left.
        let out_dts = (offset + dts).saturating_sub(start);
        let mut out = buffer.copy();
        {
            let out = out.make_mut();
            out.set_pts(gst::ClockTime::from_nseconds(out_pts));
            out.set_dts(gst::ClockTime::from_nseconds(out_dts));
            out.set_duration(timestamp(index + 1, fps) - timestamp(index, fps));
            out.set_offset(u64::MAX);
            out.set_offset_end(u64::MAX);
        }
        self.bytes += out.size() as u64;
        let pushed = if first {
            let mut segment = gst::FormattedSegment::<gst::ClockTime>::new();
            segment.set_start(gst::ClockTime::from_nseconds(self.lead));
            segment.set_time(gst::ClockTime::ZERO);
            segment.set_position(gst::ClockTime::from_nseconds(self.lead));
            let sample = gst::Sample::builder()
                .buffer(&out)
                .caps(&caps.to_owned())
                .segment(&segment)
                .build();
            self.video.push_sample(&sample)
        } else {
            self.video.push_buffer(out)
        };
        pushed
            .map(|_| ())
            .map_err(|e| MediaError::pipeline("video-src", format!("push failed: {e:?}")))
    }
}

/// Whether a chunk with `caps` can continue a stream that started with `first`: the same
/// parameter sets (`codec_data`), size and packaging. The frame rate is not compared: a
/// one-frame chunk has none in its caps (the demuxer cannot infer it from a single sample).
fn joinable(first: &gst::CapsRef, caps: &gst::CapsRef) -> bool {
    let (Some(a), Some(b)) = (first.structure(0), caps.structure(0)) else {
        return false;
    };
    a.name() == b.name()
        && [
            "codec_data",
            "width",
            "height",
            "stream-format",
            "alignment",
        ]
        .into_iter()
        .all(|field| {
            let text = |s: &gst::StructureRef| {
                s.value(field)
                    .ok()
                    .and_then(|v| v.serialize().ok())
                    .map(|v| v.to_string())
            };
            text(a) == text(b)
        })
}

/// Reads the encoded samples of one stream of an MP4, in decode order.
struct ChunkReader {
    pipeline: PipelineGuard,
    sink: gst_app::AppSink,
    path: PathBuf,
}

impl ChunkReader {
    /// The reader of `path`'s stream whose caps are `media` (`video/x-h264`, `audio/mpeg`).
    fn open(path: &Path, media: &str) -> Result<ChunkReader, MediaError> {
        if !path.is_file() {
            return Err(MediaError::Io {
                path: path.to_owned(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such chunk"),
            });
        }
        let pipeline = PipelineGuard(gst::Pipeline::with_name("reelsmith-chunk"));
        let src = make("filesrc")?;
        src.set_property("location", path.to_string_lossy().as_ref());
        let demux = make("qtdemux")?;
        let sink = gst_app::AppSink::builder()
            .caps(&gst::Caps::builder(media).build())
            .sync(false)
            .max_buffers(16)
            .build();
        let link_err =
            |e: gst::glib::BoolError| MediaError::pipeline("reelsmith-chunk", e.to_string());
        pipeline
            .add_many([&src, &demux, sink.upcast_ref()])
            .map_err(link_err)?;
        src.link(&demux).map_err(link_err)?;
        let sink_pad = sink.static_pad("sink").expect("appsink has a sink pad");
        // qtdemux names its pads by kind: `video_0`, `audio_0`.
        let kind = media.split('/').next().unwrap_or_default().to_owned();
        demux.connect_pad_added(move |_, pad| {
            if !sink_pad.is_linked() && pad.name().starts_with(kind.as_str()) {
                let _ = pad.link(&sink_pad);
            }
        });
        set_state(&pipeline, gst::State::Playing)?;
        Ok(ChunkReader {
            pipeline,
            sink,
            path: path.to_owned(),
        })
    }

    /// The next sample; `None` at the end of the chunk. A demuxing error (a damaged chunk) is
    /// an error, never a hang.
    fn next(&self) -> Result<Option<gst::Sample>, MediaError> {
        loop {
            if let Some(sample) = self
                .sink
                .try_pull_sample(gst::ClockTime::from_mseconds(100))
            {
                return Ok(Some(sample));
            }
            if self.sink.is_eos() {
                return Ok(None);
            }
            let bus = self
                .pipeline
                .bus()
                .ok_or_else(|| MediaError::pipeline("reelsmith-chunk", "no bus"))?;
            if let Some(msg) = bus.pop_filtered(&[gst::MessageType::Error])
                && let gst::MessageView::Error(err) = msg.view()
            {
                return Err(match bus_error(err) {
                    MediaError::Pipeline { element, message } => MediaError::Pipeline {
                        element,
                        message: format!("{}: {message}", self.path.display()),
                    },
                    other => other,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(first: u64, frames: u64) -> ChunkFile {
        ChunkFile {
            path: PathBuf::from("c.mp4"),
            first_frame: first,
            frames,
        }
    }

    #[test]
    fn chunks_must_tile_the_timeline_from_frame_zero() {
        assert_eq!(check_contiguous(&[chunk(0, 10), chunk(10, 5)]).unwrap(), 15);
        assert!(check_contiguous(&[chunk(1, 10)]).is_err(), "starts late");
        assert!(
            check_contiguous(&[chunk(0, 10), chunk(11, 5)]).is_err(),
            "gap"
        );
        assert!(
            check_contiguous(&[chunk(0, 10), chunk(9, 5)]).is_err(),
            "overlap"
        );
        assert!(check_contiguous(&[]).is_err(), "nothing");
    }
}
