//! One H.264 encoder for a run of chunks: each chunk a video-only MP4 of its own, as
//! [`encode_video`] writes it, but x264 stays open from one chunk to the next.
//!
//! ```text
//! chunk k's frames, then chunk k−1's … ─► x264 thread (one encoder, an IDR at each chunk's
//!                                          first frame) ─► chunk k's appsrc ─► h264parse ─► mp4mux ─► file k
//!                                                        └► chunk k−1's appsrc ─► …            ─► file k−1
//! ```
//!
//! An encoder of its own per chunk has to be drained at each chunk's end: x264 holds its
//! lookahead's frames back, and while it finishes them nothing new is drawn, so the cores sat
//! partly idle for 165–310 ms per chunk (2 cores). Its frames were allocated, and faulted in,
//! afresh for every chunk too. Here the next chunk's frames push the last one's out: x264
//! sees one stream with an IDR frame forced at each chunk's first frame, and x264's GOPs are
//! closed, so every frame of a chunk is coded before the next chunk's IDR and none refers
//! across it ([`x264::Picture::idr`]). Each chunk's packets go to a muxer of its own, with
//! the times they would have had in a stream of their own; a thread per chunk waits for its
//! muxer to close the file and moves it into place.
//!
//! The price: x264's rate control carries its state from chunk to chunk, so a chunk's bytes
//! depend on the chunks encoded before it in the run, not on its frames alone (its pictures
//! are the same, at the same quality settings). The render cache keys a chunk by its frames
//! and settings, and any file under the key is a correct chunk; a chunk encoded apart (a
//! render worker's, a re-export's) is an equally good one.
//!
//! Hardware encoders are not kept open: with one of them each chunk is an [`encode_video`].

use std::collections::VecDeque;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;
use std::time::Instant;

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

use super::FrameSource;
use super::convert::I420Layout;
use super::encode::{
    EncodeReport, EncodeSettings, FrameSink, Job, SOFTWARE_ENCODER, TempOutput,
    choose_video_encoder, encode_video, h264_caps, i420_caps, mp4_sink, post_stop, push_everything,
    render_pool, temp_path, timestamp, watch_bus, x264_asm, x264_threads,
};
use super::error::MediaError;
use super::gst_util::{PipelineGuard, init, make, set_state};
use super::x264_thread::{self, SoftwareEncoder, Stream, failed};

/// What goes to the x264 thread: a chunk's start, then its frames.
pub(super) enum Message {
    Chunk(ChunkOut),
    Frame(gst::Buffer),
}

/// Where a chunk's encoded frames go. Dropped before its stream ended (the encoder failed,
/// the renderer stopped handing over frames, or the x264 thread never saw it), it stops its
/// muxer, which then leaves no file.
pub(super) struct ChunkOut {
    stream: Stream,
    /// How many frames the chunk has, and how many of them went into x264 so far.
    frames: u64,
    sent: u64,
    /// The chunk's muxer's bus, to stop it if the chunk cannot be finished.
    bus: gst::Bus,
    ended: bool,
}

/// Encodes chunks one after another; see the module docs.
pub struct ChunkEncoder {
    mode: Mode,
}

enum Mode {
    /// x264, kept open.
    Kept(Box<Kept>),
    /// A hardware encoder: each chunk encoded apart.
    Apart(EncodeSettings),
}

struct Kept {
    settings: EncodeSettings,
    fps: u32,
    avc_config: Vec<u8>,
    inbox: Option<SyncSender<Message>>,
    thread: Option<JoinHandle<Result<(), MediaError>>>,
    pool: Option<rayon::ThreadPool>,
    window: usize,
    /// x264's time (ns) of the next chunk's first frame, less the stream's own.
    next_shift: i64,
    /// Chunks whose files are not in place yet: each thread waits for its muxer.
    muxing: Vec<JoinHandle<Result<(), MediaError>>>,
}

impl ChunkEncoder {
    /// Opens the encoder `settings` choose for chunks at `fps` frames per second.
    pub fn open(settings: &EncodeSettings, fps: u32) -> Result<ChunkEncoder, MediaError> {
        init()?;
        let (name, _) = choose_video_encoder(settings)?;
        if name != SOFTWARE_ENCODER {
            return Ok(ChunkEncoder {
                mode: Mode::Apart(settings.clone()),
            });
        }
        if fps == 0 || fps > 240 {
            return Err(MediaError::InvalidInput(format!(
                "unsupported frame rate {fps} fps"
            )));
        }
        let layout = I420Layout::new(settings.width, settings.height)?;
        let (pool, window) = render_pool(settings)?;
        let software = SoftwareEncoder::open(settings, fps, x264_threads(settings), x264_asm())?;
        let avc_config = software.avc_config.clone();
        let (inbox, frames) = sync_channel(window);
        let thread = std::thread::Builder::new()
            .name("reelsmith-x264".into())
            .spawn(move || run(software.into_inner(), frames, layout))
            .map_err(|e| MediaError::pipeline("x264", format!("starting its thread: {e}")))?;
        Ok(ChunkEncoder {
            mode: Mode::Kept(Box::new(Kept {
                settings: settings.clone(),
                fps,
                avc_config,
                inbox: Some(inbox),
                thread: Some(thread),
                pool,
                window,
                next_shift: 0,
                muxing: Vec::new(),
            })),
        })
    }

    /// Renders every frame of `frames` into the chunk at `out`. With x264 kept open this
    /// returns once the frames are in the encoder: the file appears at `out` later, complete,
    /// by [`ChunkEncoder::finish`] at the latest. The report's `finish` is zero then, and its
    /// wall time covers the rendering. `progress` gets frames handed over and the total.
    pub fn encode(
        &mut self,
        frames: &dyn FrameSource,
        out: &Path,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<EncodeReport, MediaError> {
        match &mut self.mode {
            Mode::Apart(settings) => encode_video(frames, settings, out, progress),
            Mode::Kept(kept) => kept.encode(frames, out, progress),
        }
    }

    /// Ends the stream and waits until every chunk's file is in place.
    pub fn finish(mut self) -> Result<(), MediaError> {
        match &mut self.mode {
            Mode::Apart(_) => Ok(()),
            Mode::Kept(kept) => kept.finish(),
        }
    }
}

impl Drop for ChunkEncoder {
    /// Without [`ChunkEncoder::finish`] (a failed render), the chunks whose frames were all
    /// handed over are still finished, and the one that was not is removed.
    fn drop(&mut self) {
        if let Mode::Kept(kept) = &mut self.mode {
            let _ = kept.finish();
        }
    }
}

impl Kept {
    fn encode(
        &mut self,
        frames: &dyn FrameSource,
        out: &Path,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<EncodeReport, MediaError> {
        let started = Instant::now();
        let job = Job::validate(frames, None, &self.settings)?;
        if job.fps != self.fps {
            return Err(MediaError::InvalidInput(format!(
                "a chunk at {} fps for an encoder opened at {}",
                job.fps, self.fps
            )));
        }
        self.reap()?;
        let inbox = self
            .inbox
            .clone()
            .ok_or_else(|| MediaError::pipeline("x264", "the encoder was finished"))?;
        let (chunk, muxing) = self.start_muxer(out, job.frame_count)?;
        if inbox.send(Message::Chunk(chunk)).is_err() {
            // The thread is gone (its error comes out of `finish`); the chunk it never saw was
            // dropped with the message, which stopped its muxer.
            let _ = muxing.join();
            return Err(MediaError::pipeline("x264", "the encoder stopped"));
        }
        self.muxing.push(muxing);
        let sink = FrameSink::Chunks(inbox);
        let pushed = push_everything(
            &job,
            frames,
            None,
            sink,
            self.pool.as_ref(),
            self.window,
            progress,
        );
        // A stopped encoder fails the push; its own error, or a muxer's, says why.
        let stages = pushed.map_err(|e| self.finish().err().unwrap_or(e))?;
        let length = timestamp(job.frame_count, u64::from(job.fps)).nseconds();
        self.next_shift += i64::try_from(length)
            .map_err(|_| MediaError::pipeline("x264", "a timestamp out of range"))?;
        Ok(EncodeReport {
            encoder: SOFTWARE_ENCODER.to_owned(),
            hardware: false,
            audio_encoder: None,
            frames: job.frame_count,
            duration_secs: job.frame_count as f64 / f64::from(job.fps),
            wall: started.elapsed(),
            stages,
        })
    }

    /// A muxer writing the chunk at `out` (under a temporary name until it is complete), the
    /// x264 thread's way into it, and the thread that moves its file into place.
    fn start_muxer(
        &self,
        out: &Path,
        frames: u64,
    ) -> Result<(ChunkOut, JoinHandle<Result<(), MediaError>>), MediaError> {
        let tmp = TempOutput(temp_path(out)?);
        let pipeline = PipelineGuard(gst::Pipeline::with_name("reelsmith-chunk"));
        let link_err =
            |e: gst::glib::BoolError| MediaError::pipeline("reelsmith-chunk", e.to_string());
        let caps = i420_caps(self.settings.width, self.settings.height, self.fps)?;
        let src = gst_app::AppSrc::builder()
            .name("video-src")
            .format(gst::Format::Time)
            .is_live(false)
            .block(true)
            .caps(&h264_caps(&caps, &self.avc_config)?)
            .max_bytes(0)
            .build();
        // The x264 thread's first sample carries the chunk's segment (x264_thread.rs).
        src.set_property("handle-segment-change", true);
        let parse = make("h264parse")?;
        pipeline
            .add_many([src.upcast_ref(), &parse])
            .map_err(link_err)?;
        src.link(&parse).map_err(link_err)?;
        let mux = mp4_sink(&pipeline, &tmp.0)?;
        parse.link(&mux).map_err(link_err)?;
        let bus = pipeline
            .bus()
            .ok_or_else(|| MediaError::pipeline("reelsmith-chunk", "pipeline has no bus"))?;
        set_state(&pipeline, gst::State::Playing)?;
        let chunk = ChunkOut {
            stream: Stream::new(src, self.next_shift),
            frames,
            sent: 0,
            bus: bus.clone(),
            ended: false,
        };
        let out = out.to_owned();
        let muxing = std::thread::Builder::new()
            .name("reelsmith-chunk-mux".into())
            .spawn(move || close_when_done(&pipeline, &bus, &tmp, &out))
            .map_err(|e| MediaError::pipeline("reelsmith-chunk", format!("its thread: {e}")))?;
        Ok((chunk, muxing))
    }

    /// Joins the muxers that are done; the first failure among them is returned.
    fn reap(&mut self) -> Result<(), MediaError> {
        let mut outcome = Ok(());
        let (done, going): (Vec<_>, Vec<_>) = self.muxing.drain(..).partition(|m| m.is_finished());
        self.muxing = going;
        for muxing in done {
            outcome = outcome.and(joined(muxing));
        }
        outcome
    }

    fn finish(&mut self) -> Result<(), MediaError> {
        // The thread flushes x264 and ends every stream once the inbox closes.
        self.inbox = None;
        let encoded = self.thread.take().map_or(Ok(()), joined);
        let mut muxed = Ok(());
        for muxing in self.muxing.drain(..) {
            muxed = muxed.and(joined(muxing));
        }
        // A muxer's own error explains a failed push better than the push's.
        muxed.and(encoded)
    }
}

fn joined(thread: JoinHandle<Result<(), MediaError>>) -> Result<(), MediaError> {
    thread
        .join()
        .unwrap_or_else(|_| Err(MediaError::pipeline("x264", "an encoding thread panicked")))
}

/// Waits for the muxer of `pipeline` to write its last byte to `tmp`, then closes it and
/// moves the file to `out`; a stopped or failed muxer leaves no file.
fn close_when_done(
    pipeline: &PipelineGuard,
    bus: &gst::Bus,
    tmp: &TempOutput,
    out: &Path,
) -> Result<(), MediaError> {
    let watched = watch_bus(bus, pipeline);
    // Null finalises and closes the file before it is renamed.
    set_state(pipeline, gst::State::Null)?;
    match watched {
        Ok(()) => tmp.finish(out),
        Err(e) => Err(e.into_error("reelsmith-chunk")),
    }
}

/// The x264 thread: encodes the frames of each chunk announced before them, into that chunk's
/// muxer, and ends each chunk's stream once its last frame came out.
fn run(
    mut encoder: x264::Encoder,
    inbox: Receiver<Message>,
    layout: I420Layout,
) -> Result<(), MediaError> {
    let mut chunks = Chunks(VecDeque::new());
    for message in inbox {
        match message {
            Message::Chunk(chunk) => chunks.0.push_back(chunk),
            Message::Frame(frame) => {
                let (time, duration) = x264_thread::timing(&frame)?;
                let chunk = chunks
                    .0
                    .back_mut()
                    .ok_or_else(|| MediaError::pipeline("x264", "a frame before its chunk"))?;
                let pts = time + chunk.stream.shift();
                chunk.stream.durations.insert(pts, duration);
                let idr = chunk.sent == 0;
                chunk.sent += 1;
                if let Some(packet) = x264_thread::encode(&mut encoder, &frame, layout, pts, idr)? {
                    chunks.route(packet)?;
                }
            }
        }
    }
    while let Some(packet) = encoder.flush().map_err(failed)? {
        chunks.route(packet)?;
    }
    chunks.end_complete()
}

impl ChunkOut {
    fn complete(&self) -> bool {
        self.sent == self.frames && self.stream.drained()
    }

    /// Ends the stream: its muxer writes its index, and its thread moves the file into place.
    fn end(&mut self) -> Result<(), MediaError> {
        self.stream.end()?;
        self.ended = true;
        Ok(())
    }
}

impl Drop for ChunkOut {
    fn drop(&mut self) {
        if !self.ended {
            post_stop(&self.bus);
        }
    }
}

/// The chunks whose streams are open, oldest first.
struct Chunks(VecDeque<ChunkOut>);

impl Chunks {
    /// Sends `packet` into the chunk it belongs to, ending the streams of the chunks before it.
    fn route(&mut self, packet: x264::Packet<'_>) -> Result<(), MediaError> {
        loop {
            let front = self
                .0
                .front_mut()
                .ok_or_else(|| MediaError::pipeline("x264", "a frame after every chunk"))?;
            if front.stream.durations.contains_key(&packet.pts) {
                return front.stream.push(packet);
            }
            // A frame of a later chunk: the oldest must be complete, since x264 codes every
            // frame of a chunk before the next chunk's IDR frame.
            if !front.complete() {
                return Err(MediaError::pipeline(
                    "x264",
                    "a chunk's frame came out before the last chunk's were all out",
                ));
            }
            front.end()?;
            self.0.pop_front();
        }
    }

    /// Ends the stream of every chunk whose frames all came out; the others are stopped when
    /// dropped.
    fn end_complete(&mut self) -> Result<(), MediaError> {
        while let Some(chunk) = self.0.front_mut().filter(|c| c.complete()) {
            chunk.end()?;
            self.0.pop_front();
        }
        Ok(())
    }
}
