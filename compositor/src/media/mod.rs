//! GStreamer, in process: the compositor's only door to encoded media.
//!
//! Two directions meet here:
//! - **assembly** ([`encode_mp4`]): frames pulled from a [`FrameSource`] are rendered in bounded,
//!   rayon-parallel windows, converted to I420 by us (BT.709 limited range, see [`convert`]) and
//!   pushed with frame-accurate timestamps into `appsrc ! H.264 encoder ! mp4mux (faststart)`,
//!   next to the soundtrack pushed as 16-bit PCM into `appsrc ! AAC encoder`. The output is the
//!   product format of DESIGN §3: 720×1280, 30 fps, H.264 High yuv420p, AAC 48 kHz stereo
//!   ([`CHANNELS`]; a mono source is centred), `moov` first.
//! - **inputs** ([`probe_duration`], [`decode_audio`]): any file GStreamer can demux, measured or
//!   decoded to mono PCM for the planner; video clips ([`probe_clip`], [`ClipDecoder`]) decoded
//!   frame-accurately, cover-fitted to a layer's size, just ahead of the renderer (see `clip.rs`).
//!
//! Every pipeline is torn down to `Null` on every exit path, and every failure (a bus error, a
//! missing plugin, bad input) comes back as a typed [`MediaError`], never a panic.

mod chunk_encoder;
mod clip;
pub mod convert;
mod decode;
mod encode;
mod error;
mod gst_util;
mod join;
mod x264_thread;

pub use chunk_encoder::ChunkEncoder;
pub use clip::{
    ClipDecoder, ClipFrame, ClipInfo, ClipPixels, YuvColour, YuvPlanes, cover_crop, probe_clip,
};
pub use decode::{decode_audio, decode_audio_blocks, probe_duration};
pub use encode::{
    EncodeReport, EncodeSettings, EncoderChoice, StageTimes, X264Preset, encode_audio,
    encode_audio_from, encode_mp4, encode_video, encoder_identity, selected_encoder,
};
pub use error::MediaError;
pub use join::{ChunkFile, JoinReport, join_mp4};

/// The audio rate of the product format (AAC 48 kHz): narration is produced, stored and
/// decoded at this rate, so the encoder never resamples it.
pub const SAMPLE_RATE: u32 = 48_000;

/// The audio channels of the product format: stereo (left, right). The soundtrack is mixed in
/// stereo (narration centred, the music bed wide); a mono source is put in both channels.
pub const CHANNELS: u16 = 2;

/// Frames come from the renderer; rendering is infallible.
pub trait FrameSource: Sync {
    /// How many frames the video has.
    fn frame_count(&self) -> u64;
    /// Frames per second (30 for the product format).
    fn fps(&self) -> u32;
    /// Draws frame `index` into `rgba` (tightly packed, `width × height × 4` bytes, opaque).
    /// Every pixel must be written: the buffer is reused and still holds an earlier frame.
    fn render(&self, index: u64, rgba: &mut [u8]);
    /// Renders frame `index` straight into `i420` (laid out as `layout`), with `rgba` (a frame
    /// of scratch) for whatever needs blending, when the source can do that more cheaply than
    /// [`FrameSource::render`] followed by a whole-frame conversion. Returns false, having
    /// written nothing that matters, to have the encoder do exactly that instead (the default).
    fn render_i420(
        &self,
        index: u64,
        rgba: &mut [u8],
        layout: &convert::I420Layout,
        i420: &mut [u8],
    ) -> bool {
        let _ = (index, rgba, layout, i420);
        false
    }
    /// Called on the encoding thread before frames `first .. first + count` are rendered in
    /// parallel: the place for sequential work the window needs (decoding video clips). The
    /// default does nothing.
    fn prepare(&self, first: u64, count: u64) {
        let _ = (first, count);
    }
}

/// 16-bit samples read in order, as an encoder takes them: mono, or interleaved (left, right
/// for stereo).
pub trait SampleSource {
    /// How many channels its samples interleave.
    fn channels(&self) -> u16;
    /// Writes the next samples into `out` (a whole number of frames long: a sample of each
    /// channel) and returns how many; fewer than `out.len()` only at the end, 0 once it has
    /// ended.
    fn read(&mut self, out: &mut [i16]) -> usize;
}

/// Mono samples in memory, consumed from the front.
impl SampleSource for &[i16] {
    fn channels(&self) -> u16 {
        1
    }

    fn read(&mut self, out: &mut [i16]) -> usize {
        let n = out.len().min(self.len());
        out[..n].copy_from_slice(&self[..n]);
        *self = &self[n..];
        n
    }
}

/// Mono 16-bit PCM: the narration pushed into an encode, or what [`decode_audio`] returns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AudioTrack {
    /// Samples per second (48 000 in practice; others are resampled when encoding).
    pub sample_rate: u32,
    /// Interleaved-free mono samples, in time order.
    pub samples: Vec<i16>,
}

impl AudioTrack {
    /// Length in seconds (0 when the rate is 0).
    pub fn duration_secs(&self) -> f64 {
        if self.sample_rate == 0 {
            0.0
        } else {
            self.samples.len() as f64 / f64::from(self.sample_rate)
        }
    }
}
