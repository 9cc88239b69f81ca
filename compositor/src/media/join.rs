//! Joining: per-scene video chunks + the whole soundtrack → one fast-start MP4, the video
//! copied, never re-encoded.
//!
//! ```text
//! chunk 1.mp4 ─► qtdemux ─► appsink ┐  (samples re-timed onto the video's timeline)
//! chunk 2.mp4 ─► qtdemux ─► appsink ┼─► appsrc (H.264 avc) ─────────────────────────────┐
//! …                                 ┘                                                   ├► mp4mux faststart ─► filesink
//! soundtrack  ─► appsrc (S16LE) ─► audioconvert ─► audioresample ─► AAC ─► aacparse ───┘
//! ```
//!
//! Each chunk ([`super::encode_video`]) starts on an IDR frame with closed GOPs, and every chunk
//! of a video is encoded with the same settings, so their parameter sets (`codec_data`) are
//! equal and the joined stream is one valid H.264 stream: this is checked, chunk by chunk. A
//! chunk's samples keep their order and flags; their timestamps are put back on the video's
//! timeline from the chunk's first frame, frame-exactly, so the joined file has the timing a
//! single encode of every frame would have. The soundtrack is encoded here once, continuous
//! across scene boundaries, and cut to exactly the video's length as [`super::encode_mp4`] does.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

use super::AudioTrack;
use super::encode::{
    AudioFeed, EncodeSettings, TempOutput, aac_encoder, audio_branch, check_audio, mp4_sink,
    priming_samples, run_pipeline, temp_path, timestamp,
};
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
    /// The AAC encoder used for the soundtrack.
    pub audio_encoder: String,
    /// Wall-clock time of the join.
    pub wall: Duration,
}

/// Joins `chunks` (in timeline order, each starting where the previous one ended, the first at
/// frame 0) with `audio` into a fast-start MP4 at `out`, copying the video. The file appears at
/// `out` only when complete. Fails on a gap or overlap between chunks, a chunk that does not
/// hold the frames it claims, or chunks whose encodings cannot be joined (different
/// parameter sets).
pub fn join_mp4(
    chunks: &[ChunkFile],
    fps: u32,
    audio: &AudioTrack,
    settings: &EncodeSettings,
    out: &Path,
) -> Result<JoinReport, MediaError> {
    let started = Instant::now();
    let frames = check_contiguous(chunks)?;
    if fps == 0 || fps > 240 {
        return Err(MediaError::InvalidInput(format!(
            "unsupported frame rate {fps} fps"
        )));
    }
    check_audio(audio)?;
    init()?;
    let audio_encoder = aac_encoder()?;

    let tmp = TempOutput(temp_path(out)?);
    let pipeline = PipelineGuard(gst::Pipeline::with_name("reelsmith-join"));
    let mux = mp4_sink(&pipeline, &tmp.0)?;
    let video = gst_app::AppSrc::builder()
        .name("video-src")
        .format(gst::Format::Time)
        .is_live(false)
        .block(true)
        .max_bytes(8 << 20)
        .build();
    video.set_property("handle-segment-change", true);
    let link_err = |e: gst::glib::BoolError| MediaError::pipeline("reelsmith-join", e.to_string());
    pipeline.add(&video).map_err(link_err)?;
    // The caps come with the first sample, so ask for the muxer's video pad by name.
    let video_pad = mux
        .request_pad_simple("video_%u")
        .ok_or_else(|| MediaError::pipeline("mp4mux", "no video pad"))?;
    video
        .static_pad("src")
        .ok_or_else(|| MediaError::pipeline("video-src", "no src pad"))?
        .link(&video_pad)
        .map_err(|e| MediaError::pipeline("reelsmith-join", e.to_string()))?;
    let (audio_src, last) = audio_branch(&pipeline, audio, audio_encoder, settings.audio_bitrate)?;
    last.link(&mux).map_err(link_err)?;

    let video_bytes = run_pipeline(&pipeline, "reelsmith-join", || {
        let mut feed = AudioFeed::for_video(
            &audio_src,
            audio,
            (frames, fps),
            priming_samples(audio_encoder),
        );
        let mut copier = Copier::new(&video, fps);
        for chunk in chunks {
            feed.push_ahead_of(chunk.first_frame + chunk.frames, fps)?;
            copier.copy(chunk)?;
        }
        feed.finish()?;
        video
            .end_of_stream()
            .map_err(|e| MediaError::pipeline("video-src", format!("end of stream: {e:?}")))?;
        Ok(copier.bytes)
    })?;
    drop(pipeline);
    std::fs::rename(&tmp.0, out).map_err(|source| MediaError::Io {
        path: out.to_owned(),
        source,
    })?;
    Ok(JoinReport {
        chunks: chunks.len(),
        frames,
        video_bytes,
        audio_encoder: audio_encoder.to_owned(),
        wall: started.elapsed(),
    })
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
        let reader = ChunkReader::open(&chunk.path)?;
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

/// Reads the encoded video samples of one chunk, in decode order.
struct ChunkReader {
    pipeline: PipelineGuard,
    sink: gst_app::AppSink,
    path: PathBuf,
}

impl ChunkReader {
    fn open(path: &Path) -> Result<ChunkReader, MediaError> {
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
            .caps(&gst::Caps::builder("video/x-h264").build())
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
        demux.connect_pad_added(move |_, pad| {
            if !sink_pad.is_linked() {
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
