//! MP4 assembly: rendered frames + narration → H.264 High / AAC in a fast-start MP4.
//!
//! ```text
//! appsrc (I420, bt709) ─► videoconvert ─► hardware h264 encoder ─► video/x-h264,profile=high ─► h264parse ─┐
//!    or: x264 thread (x264_thread.rs) ─► appsrc (video/x-h264, avc) ─────────────────────────► h264parse ─┤
//! appsrc (S16LE 1|2ch) ─► audioconvert ─► audioresample ─► 48 kHz stereo ─► AAC ─► aacparse ─────────────┴► mp4mux faststart ─► filesink (temp name)
//! ```
//!
//! The calling thread renders frames in windows of `2 × threads` on rayon, converts them to I420
//! itself and pushes them with timestamps computed from the frame index (no drift, whatever the
//! frame rate). The software encoder is libx264 on a thread of its own, fed through a channel
//! of one window; a hardware encoder runs in GStreamer's streaming thread behind an `appsrc`.
//! Either way the push blocks once about one window is queued, so memory stays bounded while
//! the encoder works on window *n* and rayon renders *n + 1*.
//! Audio is pushed ahead of the video it belongs to, padded with silence or trimmed to exactly
//! the video's length; it is encoded in stereo ([`CHANNELS`]), a mono source in both channels.
//! A second thread watches the bus; an error there stops the pipeline, which unblocks the
//! pushing thread, and the error is what the caller gets.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;
use gstreamer_video as gst_video;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::chunk_encoder::Message;
use super::convert::{I420Layout, rgba_to_i420};
use super::error::MediaError;
use super::gst_util::{
    PipelineGuard, bus_error, capsfilter, has_factory, init, make, missing, set_if_present,
    set_state,
};
use super::x264_thread::SoftwareEncoder;
use super::{AudioTrack, CHANNELS, FrameSource, SampleSource};

/// The output audio rate (DESIGN §3).
const OUTPUT_SAMPLE_RATE: i32 = super::SAMPLE_RATE as i32;

/// x264's speed/quality trade-off (`speed-preset`); faster presets give bigger files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum X264Preset {
    Ultrafast,
    Superfast,
    #[default]
    Veryfast,
    Faster,
    Fast,
    Medium,
    Slow,
    Slower,
    Veryslow,
}

impl X264Preset {
    /// Every preset, fastest first.
    pub const ALL: [X264Preset; 9] = [
        X264Preset::Ultrafast,
        X264Preset::Superfast,
        X264Preset::Veryfast,
        X264Preset::Faster,
        X264Preset::Fast,
        X264Preset::Medium,
        X264Preset::Slow,
        X264Preset::Slower,
        X264Preset::Veryslow,
    ];

    /// The name x264 (and `x264enc`'s `speed-preset`) uses.
    pub fn as_str(self) -> &'static str {
        match self {
            X264Preset::Ultrafast => "ultrafast",
            X264Preset::Superfast => "superfast",
            X264Preset::Veryfast => "veryfast",
            X264Preset::Faster => "faster",
            X264Preset::Fast => "fast",
            X264Preset::Medium => "medium",
            X264Preset::Slow => "slow",
            X264Preset::Slower => "slower",
            X264Preset::Veryslow => "veryslow",
        }
    }
}

impl fmt::Display for X264Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for X264Preset {
    type Err = MediaError;
    fn from_str(s: &str) -> Result<Self, MediaError> {
        X264Preset::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                MediaError::InvalidInput(format!(
                    "unknown x264 preset {s:?} (expected one of ultrafast … veryslow)"
                ))
            })
    }
}

/// Which H.264 encoder to use. Every choice writes High profile, yuv420p.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EncoderChoice {
    /// A hardware encoder when one is installed *and* passes a tiny probe encode on this
    /// machine, x264 (with the configured preset) otherwise.
    #[default]
    Auto,
    /// Always x264 (reproducible output, e.g. for tests). Config name `x264`.
    #[serde(rename = "x264")]
    Software,
    /// Any working hardware encoder or an error ([`MediaError::NoHardwareEncoder`]).
    Hardware,
    /// NVIDIA NVENC (`nvh264enc`, `nvcudah264enc`) or an error. Config name `nvh264`.
    #[serde(rename = "nvh264")]
    Nvenc,
    /// VA-API (`vah264enc`, `vaapih264enc`, `vah264lpenc`) or an error. Config name `vaapi`.
    Vaapi,
}

impl EncoderChoice {
    /// The config names, as [`FromStr`] accepts them.
    pub const NAMES: [&'static str; 5] = ["auto", "x264", "hardware", "nvh264", "vaapi"];

    /// The hardware factories this choice may use, most preferred first (empty for x264).
    pub fn hardware_candidates(self) -> &'static [&'static str] {
        match self {
            EncoderChoice::Auto | EncoderChoice::Hardware => HARDWARE_ENCODERS,
            EncoderChoice::Software => &[],
            EncoderChoice::Nvenc => &["nvh264enc", "nvcudah264enc", "nvautogpuh264enc"],
            EncoderChoice::Vaapi => &["vah264enc", "vaapih264enc", "vah264lpenc"],
        }
    }
}

impl FromStr for EncoderChoice {
    type Err = MediaError;
    fn from_str(s: &str) -> Result<Self, MediaError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(EncoderChoice::Auto),
            "x264" | "software" => Ok(EncoderChoice::Software),
            "hardware" => Ok(EncoderChoice::Hardware),
            "nvh264" | "nvenc" => Ok(EncoderChoice::Nvenc),
            "vaapi" | "va" => Ok(EncoderChoice::Vaapi),
            _ => Err(MediaError::InvalidInput(format!(
                "unknown encoder {s:?} (expected one of {})",
                EncoderChoice::NAMES.join(", ")
            ))),
        }
    }
}

/// How to encode; `Default` is the product format with x264 `veryfast`. Serialisable: a
/// render worker on another host encodes a chunk with the settings its task carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EncodeSettings {
    /// Frame width in pixels (even); the frame source renders at this size.
    pub width: u32,
    /// Frame height in pixels (even).
    pub height: u32,
    /// x264 speed preset (ignored by hardware encoders).
    pub preset: X264Preset,
    /// Hardware, software, or whichever works.
    pub encoder: EncoderChoice,
    /// Rayon workers for rendering and x264 threads; `None` uses the global rayon pool and
    /// x264's fixed default (`X264_THREADS`), the same on every host.
    pub threads: Option<usize>,
    /// x264 constant-rate-factor (lower is better; 23 is x264's default).
    pub crf: u8,
    /// Peak video bitrate in kbit/s (x264 VBV cap), so a busy scene cannot balloon the file.
    pub max_bitrate_kbps: u32,
    /// Seconds between keyframes (seeking granularity in players and editors).
    pub keyframe_interval_secs: u32,
    /// AAC bitrate in bit/s.
    pub audio_bitrate: u32,
    /// x264 plans frames (its lookahead) in its encoding thread instead of a thread of its own
    /// (`sync-lookahead=0`), which holds fewer frames: the same bitstream (so not part of
    /// [`encoder_identity`]), about 20 MB less per encoder at 720×1280, but slower alone (the
    /// raw frames of a 47 s render: 8.3 s against 6.5 s). For encoders that run beside
    /// others and so find no idle core to hand the lookahead to.
    #[serde(default)]
    pub serial_lookahead: bool,
}

impl Default for EncodeSettings {
    fn default() -> Self {
        EncodeSettings {
            width: 720,
            height: 1280,
            preset: X264Preset::Veryfast,
            encoder: EncoderChoice::Auto,
            threads: None,
            crf: 23,
            max_bitrate_kbps: 8_000,
            keyframe_interval_secs: 2,
            audio_bitrate: 128_000,
            serial_lookahead: false,
        }
    }
}

/// What [`encode_mp4`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodeReport {
    /// The H.264 encoder that was used (`libx264`, or a hardware element: `nvh264enc`, …).
    pub encoder: String,
    /// Whether that encoder is a hardware one.
    pub hardware: bool,
    /// The AAC encoder element that was used (`None` for a video-only chunk).
    pub audio_encoder: Option<String>,
    /// Frames encoded.
    pub frames: u64,
    /// Media length in seconds (`frames / fps`); the audio track has exactly this length.
    pub duration_secs: f64,
    /// Wall-clock time of the whole encode, rendering included.
    pub wall: Duration,
    /// Where the calling thread and the render workers spent their time.
    pub stages: StageTimes,
}

/// Time spent per stage of an encode, for benches and logs. `render` and `convert` are summed
/// over the rayon workers (CPU-ish time; frames rendered straight to I420 by
/// [`FrameSource::render_i420`] count as render only); `prepare` and `push` are wall time on
/// the calling thread. `push` is time blocked handing frames to a busy encoder: large means the encoder is
/// the bottleneck, near zero means rendering is.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StageTimes {
    /// [`FrameSource::prepare`] (sequential clip decoding).
    pub prepare: Duration,
    /// [`FrameSource::render`], summed over frames.
    pub render: Duration,
    /// RGBA → I420, summed over frames.
    pub convert: Duration,
    /// Blocked in `push_buffer` (encoder back-pressure).
    pub push: Duration,
    /// From the last frame pushed to a closed file: the encoder finishing the frames it holds
    /// and the muxer writing its index.
    pub finish: Duration,
}

impl EncodeReport {
    /// Frames per second of wall-clock time (rendering + conversion + encoding).
    pub fn fps(&self) -> f64 {
        self.frames as f64 / self.wall.as_secs_f64().max(1e-9)
    }
}

/// Renders every frame of `frames`, muxes it with `audio` and writes an MP4 to `out`.
///
/// The file appears at `out` only when complete (written under a temporary name in the same
/// directory, then renamed). `progress` is called on the calling thread with frames handed to the
/// encoder so far and the total, and once more with `(total, total)` when the file is finished.
pub fn encode_mp4(
    frames: &dyn FrameSource,
    audio: &AudioTrack,
    settings: &EncodeSettings,
    out: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<EncodeReport, MediaError> {
    encode_to(frames, Some(audio), settings, out, progress)
}

/// Renders every frame of `frames` into a video-only MP4 at `out`: one chunk of a video, which
/// [`join_mp4`](super::join_mp4) joins with others and the soundtrack without re-encoding. The
/// chunk starts on an IDR frame and its GOPs are closed (x264's default; hardware encoders are
/// set to the same GOP length), so it decodes on its own; chunks encoded with the same settings
/// carry the same parameter sets. Written and reported as [`encode_mp4`].
pub fn encode_video(
    frames: &dyn FrameSource,
    settings: &EncodeSettings,
    out: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<EncodeReport, MediaError> {
    encode_to(frames, None, settings, out, progress)
}

fn encode_to(
    frames: &dyn FrameSource,
    audio: Option<&AudioTrack>,
    settings: &EncodeSettings,
    out: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<EncodeReport, MediaError> {
    let started = Instant::now();
    let job = Job::validate(frames, audio, settings)?;
    init()?;

    let (video_encoder, hardware) = choose_video_encoder(settings)?;
    let audio_encoder = audio.map(|_| aac_encoder()).transpose()?;

    // Removed on every exit path (errors, and a panic unwinding out of `render`) unless renamed.
    let tmp = TempOutput(temp_path(out)?);
    let stages = run_encode(
        &job,
        frames,
        audio,
        settings,
        (video_encoder, audio_encoder),
        &tmp.0,
        progress,
    )?;
    tmp.finish(out)?;
    progress(job.frame_count, job.frame_count);

    Ok(EncodeReport {
        encoder: video_encoder.to_owned(),
        hardware,
        audio_encoder: audio_encoder.map(|e| e.name.to_owned()),
        frames: job.frame_count,
        duration_secs: job.frame_count as f64 / f64::from(job.fps),
        wall: started.elapsed(),
        stages,
    })
}

/// Encodes `audio` alone, as AAC in an MP4 at `out`: the soundtrack of a video of `frames`
/// frames at `fps`, exactly that long (padded with silence or cut) and shifted by the
/// encoder's priming delay, as [`encode_mp4`] pushes it. [`join_mp4`](super::join_mp4) copies
/// it beside the video chunks, so a soundtrack that did not change is not encoded again. The
/// file appears at `out` only when complete; returns the AAC encoder used.
pub fn encode_audio(
    audio: &AudioTrack,
    length: (u64, u32),
    settings: &EncodeSettings,
    out: &Path,
) -> Result<String, MediaError> {
    check_audio(audio)?;
    encode_audio_from(
        (&mut audio.samples.as_slice(), audio.sample_rate),
        length,
        settings,
        out,
    )
}

/// [`encode_audio`] of the samples `source` gives at `sample_rate` (mono or stereo, as it
/// says), read as the encoder takes them: a soundtrack made as it is encoded is never held
/// whole.
pub fn encode_audio_from(
    (source, sample_rate): (&mut dyn SampleSource, u32),
    (frames, fps): (u64, u32),
    settings: &EncodeSettings,
    out: &Path,
) -> Result<String, MediaError> {
    check_rate(sample_rate)?;
    check_channels(source.channels())?;
    if frames == 0 || fps == 0 || fps > 240 {
        return Err(MediaError::InvalidInput(format!(
            "a soundtrack for {frames} frames at {fps} fps"
        )));
    }
    init()?;
    let encoder = aac_encoder()?;
    let tmp = TempOutput(temp_path(out)?);
    let pipeline = PipelineGuard(gst::Pipeline::with_name("reelsmith-audio"));
    let mux = mp4_sink(&pipeline, &tmp.0)?;
    let input = (sample_rate, source.channels());
    let (src, last) = audio_branch(
        &pipeline,
        input,
        (encoder.name, settings.audio_bitrate),
        timestamp(frames, u64::from(fps)),
    )?;
    // Nothing else feeds this muxer: the feed may wait on the encoder instead of queueing
    // the whole soundtrack in the source.
    src.set_max_bytes(1 << 20);
    src.set_block(true);
    last.link(&mux)
        .map_err(|e| MediaError::pipeline("reelsmith-audio", e.to_string()))?;
    run_pipeline(&pipeline, "reelsmith-audio", || {
        AudioFeed::for_video(&src, (source, sample_rate), (frames, fps), encoder).finish()
    })?;
    drop(pipeline);
    tmp.finish(out)?;
    Ok(encoder.name.to_owned())
}

/// Samples in an AAC-LC frame: what an encoder takes and gives at a time.
pub(crate) const AAC_FRAME: u64 = 1024;

/// An AAC encoder, and how it shifts and cuts the audio it is given (samples at 48 kHz).
#[derive(Debug)]
pub(super) struct AacEncoder {
    pub(super) name: &'static str,
    /// Its delay ("priming"): the encoded track plays this many samples before the first one
    /// pushed. mp4mux (1.22) writes no edit list for it, so decoders play them first, and the
    /// audio would land this late and run this much longer than the video. [`AudioFeed`]
    /// starts the pushed audio this far in instead: the decoded output then lines up
    /// sample-exactly with the video.
    pub(super) priming: u64,
    /// What it still holds when the stream ends and never encodes: voaacenc neither drains its
    /// delay nor encodes a last partial frame. [`AudioFeed`] pushes this much silence past the
    /// job's end, so the track still covers the video; [`end_track_at`] ends it with the video.
    pub(super) held_back: u64,
}

/// The AAC encoders, in the order they are chosen. voaacenc first: it is one small library,
/// where libav's encoder brings libavcodec and libavfilter with their whole tree of codec
/// libraries into the daemon for the rest of its life (45 MB resident, measured with
/// `gst-launch-1.0`: 55 MB against voaacenc's 11 MB), and it encodes 2.5× faster (180 s of
/// stereo at 128 kb/s in 0.75 s of CPU against 1.85 s). voaacenc's and libav's timings were
/// measured by decoding a tone burst with ffmpeg; fdkaacenc's were not (no machine here has it).
pub(super) const AAC_ENCODERS: [AacEncoder; 3] = [
    AacEncoder {
        name: "voaacenc",
        priming: 1600,
        held_back: 1600 + AAC_FRAME,
    },
    AacEncoder {
        name: "avenc_aac",
        priming: AAC_FRAME,
        held_back: 0,
    },
    AacEncoder {
        name: "fdkaacenc",
        priming: 0,
        held_back: 0,
    },
];

/// The first of [`AAC_ENCODERS`] this machine has.
pub(super) fn aac_encoder() -> Result<&'static AacEncoder, MediaError> {
    AAC_ENCODERS
        .iter()
        .find(|e| has_factory(e.name))
        .ok_or_else(|| missing(AAC_ENCODERS[0].name))
}

/// What identifies the encoder `settings` resolve to on this machine, for cache keys of
/// encoded chunks: the element and the version of the plugin it comes from, and every setting
/// that changes the bitstream. Chunks encoded under one identity can be joined.
pub fn encoder_identity(settings: &EncodeSettings) -> Result<String, MediaError> {
    init()?;
    let (name, _) = choose_video_encoder(settings)?;
    let version = if name == SOFTWARE_ENCODER {
        x264::version().replace(' ', "-")
    } else {
        gst::ElementFactory::find(name)
            .and_then(|f| f.plugin())
            .map(|p| p.version().to_string())
            .unwrap_or_default()
    };
    let mut identity = format!(
        "{name} {version} {}x{} {} crf{} max{} gop{}s",
        settings.width,
        settings.height,
        settings.preset,
        settings.crf,
        settings.max_bitrate_kbps,
        settings.keyframe_interval_secs
    );
    if name == SOFTWARE_ENCODER {
        identity.push(' ');
        identity.push_str(&x264_run_identity(settings));
    }
    Ok(identity)
}

/// Validated numbers for one encode.
pub(super) struct Job {
    pub(super) frame_count: u64,
    pub(super) fps: u32,
    pub(super) layout: I420Layout,
}

impl Job {
    pub(super) fn validate(
        frames: &dyn FrameSource,
        audio: Option<&AudioTrack>,
        settings: &EncodeSettings,
    ) -> Result<Job, MediaError> {
        let frame_count = frames.frame_count();
        let fps = frames.fps();
        if frame_count == 0 {
            return Err(MediaError::InvalidInput(
                "the frame source has no frames".into(),
            ));
        }
        if fps == 0 || fps > 240 {
            return Err(MediaError::InvalidInput(format!(
                "unsupported frame rate {fps} fps"
            )));
        }
        if let Some(audio) = audio {
            check_audio(audio)?;
        }
        if settings.threads == Some(0) {
            return Err(MediaError::InvalidInput(
                "threads must be at least 1".into(),
            ));
        }
        let layout = I420Layout::new(settings.width, settings.height)?;
        Ok(Job {
            frame_count,
            fps,
            layout,
        })
    }
}

/// A soundtrack the encoder accepts: a sane rate and at least one sample.
pub(super) fn check_audio(audio: &AudioTrack) -> Result<(), MediaError> {
    check_rate(audio.sample_rate)?;
    if audio.samples.is_empty() {
        return Err(MediaError::InvalidInput(
            "the audio track has no samples".into(),
        ));
    }
    Ok(())
}

/// Input channels the encoder accepts: mono or stereo.
fn check_channels(channels: u16) -> Result<(), MediaError> {
    if (1..=CHANNELS).contains(&channels) {
        return Ok(());
    }
    Err(MediaError::InvalidInput(format!(
        "unsupported audio channels {channels} (expected 1 or {CHANNELS})"
    )))
}

/// A sample rate the encoder accepts.
fn check_rate(sample_rate: u32) -> Result<(), MediaError> {
    if (8_000..=192_000).contains(&sample_rate) {
        return Ok(());
    }
    Err(MediaError::InvalidInput(format!(
        "unsupported audio sample rate {sample_rate} Hz (expected 8000–192000)"
    )))
}

/// `value × num / den`, rounded down, without overflow.
pub(super) fn scale(value: u64, num: u64, den: u64) -> u64 {
    (u128::from(value) * u128::from(num) / u128::from(den)) as u64
}

/// The timestamp of unit `index` of a stream with `rate` units per second.
pub(super) fn timestamp(index: u64, rate: u64) -> gst::ClockTime {
    gst::ClockTime::from_nseconds(scale(index, gst::ClockTime::SECOND.nseconds(), rate))
}

/// A unique name next to `out`, so the final rename stays on one filesystem (atomic).
pub(super) fn temp_path(out: &Path) -> Result<PathBuf, MediaError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = out
        .file_name()
        .ok_or_else(|| MediaError::InvalidInput(format!("{} is not a file path", out.display())))?;
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(MediaError::Io {
            path: dir,
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "output directory does not exist",
            ),
        });
    }
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    Ok(dir.join(format!(
        ".{}.{}-{n}.part",
        name.to_string_lossy(),
        std::process::id()
    )))
}

/// The temporary output and mp4mux's fast-start scratch file; both are deleted on drop (after
/// a successful rename the first no longer exists and the second was already removed by mp4mux).
pub(super) struct TempOutput(pub(super) PathBuf);

impl TempOutput {
    /// Moves the finished file to `out` (same directory, so the rename is atomic).
    pub(super) fn finish(&self, out: &Path) -> Result<(), MediaError> {
        std::fs::rename(&self.0, out).map_err(|source| MediaError::Io {
            path: out.to_owned(),
            source,
        })
    }
}

impl Drop for TempOutput {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_file(faststart_path(&self.0));
    }
}

/// Where mp4mux parks the media data while it waits to write `moov` first.
pub(super) fn faststart_path(tmp: &Path) -> PathBuf {
    let mut p = tmp.as_os_str().to_owned();
    p.push(".mdat");
    PathBuf::from(p)
}

/// The software H.264 encoder: libx264, linked in (the `x264` crate), so always there.
pub(super) const SOFTWARE_ENCODER: &str = "libx264";

/// Hardware H.264 encoders, most preferred first.
const HARDWARE_ENCODERS: &[&str] = &[
    "nvh264enc",
    "nvcudah264enc",
    "nvautogpuh264enc",
    "vah264enc",
    "vaapih264enc",
    "qsvh264enc",
    "vah264lpenc",
    "v4l2h264enc",
];

pub(super) fn choose_video_encoder(
    settings: &EncodeSettings,
) -> Result<(&'static str, bool), MediaError> {
    let software = || Ok((SOFTWARE_ENCODER, false));
    let candidates = settings.encoder.hardware_candidates();
    match settings.encoder {
        EncoderChoice::Software => software(),
        EncoderChoice::Auto => {
            match working_hardware_encoder(candidates, settings.width, settings.height) {
                Ok(name) => Ok((name, true)),
                Err(_) => software(),
            }
        }
        EncoderChoice::Hardware | EncoderChoice::Nvenc | EncoderChoice::Vaapi => {
            working_hardware_encoder(candidates, settings.width, settings.height)
                .map(|name| (name, true))
                .map_err(|tried| MediaError::NoHardwareEncoder { tried })
        }
    }
}

/// Which encoder `choice` resolves to on this machine at `width × height`, without encoding
/// anything but the probe: `(factory, hardware)`. For logs and start-up checks.
pub fn selected_encoder(
    choice: EncoderChoice,
    width: u32,
    height: u32,
) -> Result<(&'static str, bool), MediaError> {
    init()?;
    choose_video_encoder(&EncodeSettings {
        width,
        height,
        encoder: choice,
        ..EncodeSettings::default()
    })
}

/// The first of `candidates` that is installed and really encodes a few frames at this size;
/// the answer is cached per (candidates, size) for the life of the process. `Err` lists what
/// was tried.
fn working_hardware_encoder(
    candidates: &'static [&'static str],
    width: u32,
    height: u32,
) -> Result<&'static str, String> {
    type Key = (&'static [&'static str], u32, u32);
    type Cache = Mutex<Vec<(Key, Result<&'static str, String>)>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    let key = (candidates, width, height);
    if let Some((_, found)) = cache.iter().find(|(k, _)| *k == key) {
        return found.clone();
    }
    let found = first_working(candidates, width, height);
    cache.push((key, found.clone()));
    found
}

/// The first of `candidates` that is installed and passes [`probe_encoder`]; `Err` lists each
/// installed candidate's failure, or says none is installed.
fn first_working(
    candidates: &[&'static str],
    width: u32,
    height: u32,
) -> Result<&'static str, String> {
    let mut tried = Vec::new();
    let mut found = None;
    for &name in candidates.iter().filter(|name| has_factory(name)) {
        match probe_encoder(name, width, height) {
            Ok(()) => {
                found = Some(name);
                break;
            }
            Err(e) => tried.push(format!("{name}: {e}")),
        }
    }
    found.ok_or_else(|| {
        if tried.is_empty() {
            "none installed".to_owned()
        } else {
            tried.join("; ")
        }
    })
}

/// Encodes a few test frames with `name`: the element must reach PLAYING and produce High
/// profile output (a present factory without a GPU or driver fails here, not mid-render).
fn probe_encoder(name: &str, width: u32, height: u32) -> Result<(), MediaError> {
    let pipeline = PipelineGuard(gst::Pipeline::new());
    let src = gst::ElementFactory::make("videotestsrc")
        .property("num-buffers", 5i32)
        .build()
        .map_err(|_| missing("videotestsrc"))?;
    let raw = capsfilter(&i420_caps(width, height, 30)?)?;
    let convert = make("videoconvert")?;
    let encoder = make(name)?;
    configure_hardware(&encoder, 30, &EncodeSettings::default());
    let h264 = capsfilter(&h264_high_caps())?;
    let sink = make("fakesink")?;
    let elements = [&src, &raw, &convert, &encoder, &h264, &sink];
    pipeline
        .add_many(elements)
        .map_err(|e| MediaError::pipeline(name, e.to_string()))?;
    gst::Element::link_many(elements).map_err(|e| MediaError::pipeline(name, e.to_string()))?;
    set_state(&pipeline, gst::State::Playing)?;
    let bus = pipeline
        .bus()
        .ok_or_else(|| MediaError::pipeline(name, "no bus"))?;
    match bus.timed_pop_filtered(
        gst::ClockTime::from_seconds(10),
        &[gst::MessageType::Eos, gst::MessageType::Error],
    ) {
        Some(msg) => match msg.view() {
            gst::MessageView::Error(err) => Err(bus_error(err)),
            _ => Ok(()),
        },
        None => Err(MediaError::pipeline(name, "timed out encoding test frames")),
    }
}

/// Caps our converted frames carry: I420, BT.709 limited range, square pixels.
pub(super) fn i420_caps(width: u32, height: u32, fps: u32) -> Result<gst::Caps, MediaError> {
    video_info(width, height, fps)?
        .to_caps()
        .map_err(|e| MediaError::pipeline("appsrc", e.to_string()))
}

fn video_info(width: u32, height: u32, fps: u32) -> Result<gst_video::VideoInfo, MediaError> {
    let colorimetry = gst_video::VideoColorimetry::new(
        gst_video::VideoColorRange::Range16_235,
        gst_video::VideoColorMatrix::Bt709,
        gst_video::VideoTransferFunction::Bt709,
        gst_video::VideoColorPrimaries::Bt709,
    );
    gst_video::VideoInfo::builder(gst_video::VideoFormat::I420, width, height)
        .fps(gst::Fraction::new(fps as i32, 1))
        .par(gst::Fraction::new(1, 1))
        .colorimetry(&colorimetry)
        .build()
        .map_err(|e| MediaError::InvalidInput(format!("video format {width}x{height}@{fps}: {e}")))
}

fn h264_high_caps() -> gst::Caps {
    gst::Caps::builder("video/x-h264")
        .field("profile", "high")
        .build()
}

/// The caps of our encoder's output: AVC access units with their `avcC` record, and the
/// size, rate and colour of the raw frames (`i420`) they were encoded from.
pub(super) fn h264_caps(i420: &gst::Caps, avc_config: &[u8]) -> Result<gst::Caps, MediaError> {
    let raw = i420
        .structure(0)
        .ok_or_else(|| MediaError::pipeline("video-src", "raw caps without a structure"))?;
    let mut caps = gst::Caps::builder("video/x-h264")
        .field("stream-format", "avc")
        .field("alignment", "au")
        .field("codec_data", gst::Buffer::from_slice(avc_config.to_vec()))
        .field("profile", "high")
        .build();
    {
        let structure = caps
            .get_mut()
            .and_then(|c| c.structure_mut(0))
            .expect("new caps are writable");
        for (name, value) in raw.iter() {
            if name != "format" {
                structure.set_value(name, value.clone());
            }
        }
    }
    Ok(caps)
}

fn configure_hardware(encoder: &gst::Element, fps: u32, settings: &EncodeSettings) {
    let gop = (fps * settings.keyframe_interval_secs.max(1)).to_string();
    for property in ["gop-size", "key-int-max", "keyframe-period", "idr-interval"] {
        set_if_present(encoder, property, &gop);
    }
    // nvenc/va default to constant bitrate targets; cap them like x264's VBV.
    let kbps = settings.max_bitrate_kbps.to_string();
    set_if_present(encoder, "max-bitrate", &kbps);
}

/// x264 frame threads where the settings leave them open. The thread count changes the
/// bitstream (each frame's rate control sees which others are done), so a fixed count is what
/// lets hosts with other core counts encode a chunk to the same bytes.
///
/// Each frame thread holds about 11.5 MB of frames at 720×1280. Measured on 2 cores, encoding
/// the raw frames of a 60 s render (1,790 frames, veryfast, CRF 23): 4 threads peaked at 156 MB
/// in 6.8–7.1 s, 2 threads at 133 MB in 6.7–6.9 s, with the same SSIM (0.9904) and 0.05 % more
/// bytes; the whole `reelsmith render` of that script peaked at 279–297 MB with 4 and 259–276 MB
/// with 2, in the same wall time (4 runs each). Two encode about 260 frames per second, nine
/// times realtime. A host with more cores renders more videos at once (`render.workers`), each
/// with an encoder of its own, so a render's memory counts there too (issue 40: at most 300 MB).
///
/// One thread per encoder with two render lanes (`render.lanes`) kept both cores busy across
/// each chunk's start and drain (measured with an encoder per chunk, before the walk kept one
/// open, `ChunkEncoder`): on a 150-word script the walk took 0.85–1.1 s less than one
/// lane at two threads (3 alternated runs, 8.2–8.9 s against 9.3–9.9 s), and 0.3–0.6 s less
/// than two lanes at two threads. But an encoder at one thread holds nearly as much as one at
/// two (ffmpeg's libx264 on 300 of those frames peaked at 131 MB and 155 MB, on one frame at
/// 63 MB), so two of them cost a second encoder: a 5-minute video's render peaked at
/// 344–349 MB against 232–266 MB (`bench_memory.py`, 2026-12-01, 2 cores). And the thread
/// count is in [`encoder_identity`], so two lanes' chunks would no longer be one lane's.
const X264_THREADS: u32 = 2;

/// x264's frame threads for `settings`: theirs, or [`X264_THREADS`].
pub(super) fn x264_threads(settings: &EncodeSettings) -> u32 {
    settings
        .threads
        .map_or(X264_THREADS, |n| n.min(u32::MAX as usize) as u32)
}

/// The instruction set x264 is held to, where it is not left to choose.
///
/// x264 (r3095, Debian's) reads memory it never wrote in its AVX-512 code: the same frames
/// encode to other bytes depending on what the heap held, so a chunk encoded by a worker, or
/// again by a full render, could differ from the cached one. Its AVX2 code does not, and it
/// is what hosts without AVX-512 use anyway, so holding every AVX2 host to it also makes
/// hosts with and without AVX-512 agree. It costs about 6 % of a render's wall time here.
pub(super) fn x264_asm() -> Option<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("lzcnt");
        if avx2 {
            return Some("avx2");
        }
    }
    None
}

/// How x264 runs, as far as it changes the bitstream: part of [`encoder_identity`].
fn x264_run_identity(settings: &EncodeSettings) -> String {
    let asm = x264_asm().map_or_else(|| format!("auto-{}", std::env::consts::ARCH), str::to_owned);
    format!("threads{} asm-{asm}", x264_threads(settings))
}

/// The video and audio `appsrc`s of a built pipeline.
struct Sources {
    video: gst_app::AppSrc,
    /// With the AAC encoder it feeds; `None` for a video-only chunk.
    audio: Option<(gst_app::AppSrc, &'static AacEncoder)>,
}

/// An `appsrc` for our audio samples at `sample_rate` in `channels` and the chain after it
/// (resampled to 48 kHz, in stereo — a mono input in both channels —, AAC, parsed, ended at
/// `length`), added to `pipeline` and linked: link the last element to the muxer.
pub(super) fn audio_branch(
    pipeline: &gst::Pipeline,
    (sample_rate, channels): (u32, u16),
    (audio_encoder, bitrate): (&str, u32),
    length: gst::ClockTime,
) -> Result<(gst_app::AppSrc, gst::Element), MediaError> {
    let link_err = |e: gst::glib::BoolError| MediaError::pipeline("audio-src", e.to_string());
    let audio_caps = super::gst_util::s16le_caps(sample_rate, channels)?;
    let audio_src = gst_app::AppSrc::builder()
        .name("audio-src")
        .caps(&audio_caps)
        .format(gst::Format::Time)
        .is_live(false)
        // Audio is tiny next to video and pushed ahead of it: never block on it (0 = unlimited).
        .max_bytes(0)
        .build();
    let aac_in = gst::Caps::builder("audio/x-raw")
        .field("rate", OUTPUT_SAMPLE_RATE)
        .field("channels", i32::from(CHANNELS))
        .build();
    let aenc = make(audio_encoder)?;
    if aenc.find_property("bitrate").is_some() {
        aenc.set_property_from_str("bitrate", &bitrate.to_string());
    }
    // What is the same in both channels stays so: libav's perceptual noise substitution makes
    // up noise in each channel apart, and its intensity stereo codes one channel's high bands
    // from the other's, which left a centred narration's side (left − right) only 26 LU under
    // its middle (pink noise: 12 LU); without them, mid/side coding gives it no side at all.
    set_if_present(&aenc, "aac-pns", "false");
    set_if_present(&aenc, "aac-is", "false");
    let mut chain: Vec<gst::Element> = vec![
        audio_src.clone().upcast(),
        make("audioconvert")?,
        make("audioresample")?,
        capsfilter(&aac_in)?,
        aenc,
    ];
    if has_factory("aacparse") {
        chain.push(make("aacparse")?);
    }
    pipeline.add_many(&chain).map_err(link_err)?;
    gst::Element::link_many(&chain).map_err(link_err)?;
    let last = chain.pop().expect("the chain is not empty");
    end_track_at(&last, length)?;
    Ok((audio_src, last))
}

/// Ends the encoded track that leaves `last` at `length`: a frame past it is dropped, and the
/// one across it is cut short (mp4mux writes a buffer's duration as its sample's). So the
/// track lasts as long as the video whatever whole frames the encoder gives, as libav's
/// encoder does by itself; a clip made by us then loops at its video's length.
fn end_track_at(last: &gst::Element, length: gst::ClockTime) -> Result<(), MediaError> {
    let pad = last
        .static_pad("src")
        .ok_or_else(|| MediaError::pipeline("audio-src", "the audio chain has no src pad"))?;
    pad.add_probe(gst::PadProbeType::BUFFER, move |_, info| {
        let Some(gst::PadProbeData::Buffer(buffer)) = info.data.as_mut() else {
            return gst::PadProbeReturn::Ok;
        };
        let Some(pts) = buffer.pts() else {
            return gst::PadProbeReturn::Ok;
        };
        if pts >= length {
            return gst::PadProbeReturn::Drop;
        }
        if buffer.duration().is_some_and(|d| pts + d > length) {
            buffer.make_mut().set_duration(length - pts);
        }
        gst::PadProbeReturn::Ok
    });
    Ok(())
}

/// A fast-start `mp4mux` writing to `tmp` (the media data parked beside it until `moov` is
/// written first), added to `pipeline` and linked to its sink.
pub(super) fn mp4_sink(pipeline: &gst::Pipeline, tmp: &Path) -> Result<gst::Element, MediaError> {
    let mux = make("mp4mux")?;
    mux.set_property("faststart", true);
    mux.set_property(
        "faststart-file",
        faststart_path(tmp).to_string_lossy().as_ref(),
    );
    let sink = make("filesink")?;
    sink.set_property("location", tmp.to_string_lossy().as_ref());
    let link_err = |e: gst::glib::BoolError| MediaError::pipeline("mp4mux", e.to_string());
    pipeline.add_many([&mux, &sink]).map_err(link_err)?;
    mux.link(&sink).map_err(link_err)?;
    Ok(mux)
}

fn build_pipeline(
    job: &Job,
    audio: Option<&AudioTrack>,
    settings: &EncodeSettings,
    (video_encoder, audio_encoder): (&str, Option<&'static AacEncoder>),
    software: Option<&SoftwareEncoder>,
    tmp: &Path,
    window: usize,
) -> Result<(PipelineGuard, Sources), MediaError> {
    let pipeline = PipelineGuard(gst::Pipeline::with_name("reelsmith-encode"));
    let link_err =
        |e: gst::glib::BoolError| MediaError::pipeline("reelsmith-encode", e.to_string());

    // Video branch.
    let video_caps = i420_caps(settings.width, settings.height, job.fps)?;
    let builder = gst_app::AppSrc::builder()
        .name("video-src")
        .format(gst::Format::Time)
        .is_live(false)
        .block(true);
    let mut video_chain: Vec<gst::Element> = Vec::new();
    let video = match software {
        // Encoded access units: small, and already bounded by the frames before the encoder.
        Some(encoder) => {
            let video = builder
                .caps(&h264_caps(&video_caps, &encoder.avc_config)?)
                .max_bytes(0)
                .build();
            // The x264 thread's first sample carries the stream's segment (x264_thread.rs).
            video.set_property("handle-segment-change", true);
            video_chain.push(video.clone().upcast());
            video
        }
        None => {
            let video = builder
                .caps(&video_caps)
                .max_bytes((job.layout.size * window) as u64)
                .build();
            video_chain.push(video.clone().upcast());
            video_chain.push(make("videoconvert")?);
            let encoder = make(video_encoder)?;
            configure_hardware(&encoder, job.fps, settings);
            video_chain.push(encoder);
            video_chain.push(capsfilter(&h264_high_caps())?);
            video
        }
    };
    video_chain.push(make("h264parse")?);
    pipeline.add_many(&video_chain).map_err(link_err)?;
    gst::Element::link_many(&video_chain).map_err(link_err)?;

    let mux = mp4_sink(&pipeline, tmp)?;
    if let Some(last) = video_chain.last() {
        last.link(&mux).map_err(link_err)?;
    }
    let audio = match (audio, audio_encoder) {
        (Some(audio), Some(encoder)) => {
            let (src, last) = audio_branch(
                &pipeline,
                (audio.sample_rate, 1),
                (encoder.name, settings.audio_bitrate),
                timestamp(job.frame_count, u64::from(job.fps)),
            )?;
            last.link(&mux).map_err(link_err)?;
            Some((src, encoder))
        }
        _ => None,
    };
    Ok((pipeline, Sources { video, audio }))
}

fn run_encode(
    job: &Job,
    frames: &dyn FrameSource,
    audio: Option<&AudioTrack>,
    settings: &EncodeSettings,
    encoders: (&str, Option<&'static AacEncoder>),
    tmp: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<StageTimes, MediaError> {
    let (pool, window) = render_pool(settings)?;

    let software = (encoders.0 == SOFTWARE_ENCODER)
        .then(|| SoftwareEncoder::open(settings, job.fps, x264_threads(settings), x264_asm()))
        .transpose()?;
    let (pipeline, sources) = build_pipeline(
        job,
        audio,
        settings,
        encoders,
        software.as_ref(),
        tmp,
        window,
    )?;
    let mut pcm = audio.map(|a| a.samples.as_slice());
    let mut pushed = None;
    let mut stages = run_pipeline(&pipeline, "reelsmith-encode", || {
        let feed = match (&sources.audio, audio, pcm.as_mut()) {
            (Some((src, encoder)), Some(audio), Some(pcm)) => Some(AudioFeed::for_video(
                src,
                (pcm, audio.sample_rate),
                (job.frame_count, job.fps),
                encoder,
            )),
            _ => None,
        };
        std::thread::scope(|scope| {
            let (sink, encoder) = match software {
                Some(encoder) => {
                    let video = sources.video.clone();
                    let (frames, thread) = encoder.spawn(scope, video, job.layout, window)?;
                    (FrameSink::X264(frames), Some(thread))
                }
                None => (FrameSink::AppSrc(&sources.video), None),
            };
            let stages = push_everything(job, frames, feed, sink, pool.as_ref(), window, progress);
            pushed = Some(Instant::now());
            let encoded = encoder.map_or(Ok(()), |thread| {
                thread.join().unwrap_or_else(|_| {
                    Err(MediaError::pipeline("x264", "the encoder thread panicked"))
                })
            });
            // A stopped encoder fails the push too; its own error says why.
            encoded.and(stages)
        })
    })?;
    stages.finish = pushed.map_or(Duration::ZERO, |t| t.elapsed());
    Ok(stages)
}

/// The rayon pool an encode renders on (`None`: the global one), and its window: how many
/// frames are rendered at once, and may wait for the encoder.
pub(super) fn render_pool(
    settings: &EncodeSettings,
) -> Result<(Option<rayon::ThreadPool>, usize), MediaError> {
    let pool = match settings.threads {
        Some(n) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("reelsmith-encode-{i}"))
                .build()
                .map_err(|e| MediaError::InvalidInput(format!("thread pool: {e}")))?,
        ),
        None => None,
    };
    let workers = pool
        .as_ref()
        .map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
    Ok((pool, (2 * workers).clamp(2, 64)))
}

/// Where rendered frames go.
pub(super) enum FrameSink<'a> {
    /// A hardware encoder's `appsrc`.
    AppSrc(&'a gst_app::AppSrc),
    /// The x264 thread's inbox.
    X264(SyncSender<gst::Buffer>),
    /// The inbox of an x264 thread kept open across chunks (`chunk_encoder.rs`).
    Chunks(SyncSender<Message>),
}

impl FrameSink<'_> {
    /// Hands over one frame, blocking while a window of them waits.
    fn push(&self, frame: gst::Buffer) -> Result<(), MediaError> {
        match self {
            FrameSink::AppSrc(src) => src
                .push_buffer(frame)
                .map(drop)
                .map_err(|e| MediaError::pipeline("video-src", format!("push failed: {e:?}"))),
            FrameSink::X264(inbox) => inbox
                .send(frame)
                .map_err(|_| MediaError::pipeline("x264", "the encoder stopped")),
            FrameSink::Chunks(inbox) => inbox
                .send(Message::Frame(frame))
                .map_err(|_| MediaError::pipeline("x264", "the encoder stopped")),
        }
    }

    /// Ends the stream of frames.
    fn finish(self) -> Result<(), MediaError> {
        match self {
            FrameSink::AppSrc(src) => src
                .end_of_stream()
                .map(drop)
                .map_err(|e| MediaError::pipeline("video-src", format!("end of stream: {e:?}"))),
            // The thread flushes x264 and ends its stream once the inbox closes.
            FrameSink::X264(inbox) => {
                drop(inbox);
                Ok(())
            }
            // The stream goes on with the next chunk.
            FrameSink::Chunks(_) => Ok(()),
        }
    }
}

/// Plays `pipeline` while `push` feeds it on this thread and a second thread watches the bus;
/// then stops it (which finalises and closes the output). A bus error explains a failed push
/// better than the push's own flow error, so it wins.
pub(super) fn run_pipeline<T>(
    pipeline: &gst::Pipeline,
    name: &str,
    push: impl FnOnce() -> Result<T, MediaError>,
) -> Result<T, MediaError> {
    let bus = pipeline
        .bus()
        .ok_or_else(|| MediaError::pipeline(name, "pipeline has no bus"))?;
    set_state(pipeline, gst::State::Playing)?;
    let outcome = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| watch_bus(&bus, pipeline));
        // Wakes the watcher if we leave early (push failure, or a panic unwinding from render).
        let stop = StopWatcher(&bus);
        let pushed = push();
        if pushed.is_err() {
            drop(stop);
        }
        let watched = watcher
            .join()
            .unwrap_or_else(|_| Err(Failed(MediaError::pipeline(name, "bus watcher panicked"))));
        match (pushed, watched) {
            // We stopped the watcher ourselves: the push's own error is the story.
            (Err(e), Err(Stopped)) => Err(e),
            (_, Err(Failed(e))) | (Err(e), Ok(())) => Err(e),
            (Ok(_), Err(Stopped)) => Err(MediaError::pipeline(name, "stopped early")),
            (Ok(value), Ok(())) => Ok(value),
        }
    });
    // Null finalises and closes the file before it is renamed.
    set_state(pipeline, gst::State::Null)?;
    outcome
}

/// Posts a stop request on the bus when dropped.
struct StopWatcher<'a>(&'a gst::Bus);

const STOP_MESSAGE: &str = "reelsmith-stop";

impl Drop for StopWatcher<'_> {
    fn drop(&mut self) {
        post_stop(self.0);
    }
}

/// Asks whoever watches `bus` ([`watch_bus`]) to stop watching.
pub(super) fn post_stop(bus: &gst::Bus) {
    let _ = bus.post(gst::message::Application::new(gst::Structure::new_empty(
        STOP_MESSAGE,
    )));
}

/// Why [`watch_bus`] returned before end of stream.
pub(super) enum Unwatched {
    /// A bus error (the pipeline is stopped).
    Failed(MediaError),
    /// The pushing side asked it to stop ([`StopWatcher`]).
    Stopped,
}
use Unwatched::{Failed, Stopped};

impl Unwatched {
    /// Why pipeline `name` ended without finishing.
    pub(super) fn into_error(self, name: &str) -> MediaError {
        match self {
            Failed(e) => e,
            Stopped => MediaError::pipeline(name, "stopped before its end"),
        }
    }
}

/// Waits for EOS; on an error, stops the pipeline (unblocking any `push_buffer`) and returns it.
pub(super) fn watch_bus(bus: &gst::Bus, pipeline: &gst::Pipeline) -> Result<(), Unwatched> {
    for msg in bus.iter_timed(gst::ClockTime::NONE) {
        match msg.view() {
            gst::MessageView::Eos(_) => return Ok(()),
            gst::MessageView::Error(err) => {
                let error = bus_error(err);
                let _ = pipeline.set_state(gst::State::Null);
                return Err(Failed(error));
            }
            gst::MessageView::Application(app)
                if app.structure().is_some_and(|s| s.name() == STOP_MESSAGE) =>
            {
                return Err(Stopped);
            }
            _ => {}
        }
    }
    Err(Failed(MediaError::pipeline(
        pipeline.name().as_str(),
        "bus closed before end of stream",
    )))
}

/// The frames pushed into an encode, reused once the encoder is done with them: a fresh
/// buffer per frame is fresh memory per frame, paged in and zeroed by the kernel each time.
struct FramePool(gst::BufferPool);

impl FramePool {
    fn new(size: usize) -> Result<FramePool, MediaError> {
        let failed = |e: String| MediaError::pipeline("video-src", format!("frame pool: {e}"));
        let size = u32::try_from(size).map_err(|e| failed(e.to_string()))?;
        let pool = gst::BufferPool::new();
        let mut config = pool.config();
        config.set_params(None, size, 0, 0);
        pool.set_config(config).map_err(|e| failed(e.to_string()))?;
        pool.set_active(true).map_err(|e| failed(e.to_string()))?;
        Ok(FramePool(pool))
    }

    fn acquire(&self) -> Result<gst::Buffer, gst::FlowError> {
        self.0.acquire_buffer(None)
    }
}

impl Drop for FramePool {
    fn drop(&mut self) {
        let _ = self.0.set_active(false);
    }
}

/// Feeds audio into its appsrc in 100 ms buffers, silence-padded to the job's length. It
/// counts in frames (one sample of each channel); the samples pushed are interleaved.
pub(super) struct AudioFeed<'a> {
    src: &'a gst_app::AppSrc,
    source: &'a mut dyn SampleSource,
    rate: u64,
    channels: usize,
    /// Input frames skipped at the start to cancel the encoder's priming delay (read and
    /// dropped before the first push).
    skip: u64,
    /// Frames to push in all: the job's length minus `skip`, plus the silence the encoder
    /// holds back at the end.
    total: u64,
    next: u64,
    /// One buffer's samples.
    block: Vec<i16>,
}

impl<'a> AudioFeed<'a> {
    /// The feed of `source`'s samples at `sample_rate` into `encoder` through `src` for a
    /// video of `frames` frames at `fps`: exactly that long once encoded, starting as far in
    /// as the encoder's priming to cancel its delay.
    pub(super) fn for_video(
        src: &'a gst_app::AppSrc,
        (source, sample_rate): (&'a mut dyn SampleSource, u32),
        (frames, fps): (u64, u32),
        encoder: &AacEncoder,
    ) -> AudioFeed<'a> {
        let rate = u64::from(sample_rate);
        let samples = scale(frames, rate, u64::from(fps));
        // The encoder's timings count at its 48 kHz; the same durations of input.
        let at_input_rate = |n: u64| scale(n, rate, OUTPUT_SAMPLE_RATE as u64);
        let skip = at_input_rate(encoder.priming).min(samples.saturating_sub(1));
        let channels = usize::from(source.channels());
        AudioFeed {
            src,
            source,
            rate,
            channels,
            skip,
            total: samples - skip + at_input_rate(encoder.held_back),
            next: 0,
            block: Vec::new(),
        }
    }

    /// Pushes the audio up to the end of frame `frame` and half a second more, so a muxer
    /// never waits on audio while video is being pushed.
    pub(super) fn push_ahead_of(&mut self, frame: u64, fps: u32) -> Result<(), MediaError> {
        self.push_until(scale(frame, self.rate, u64::from(fps)) + self.rate / 2)
    }

    /// Pushes the rest and ends the stream.
    pub(super) fn finish(&mut self) -> Result<(), MediaError> {
        self.push_until(self.total)?;
        self.src
            .end_of_stream()
            .map_err(|e| MediaError::pipeline("audio-src", format!("end of stream: {e:?}")))?;
        Ok(())
    }
}

impl AudioFeed<'_> {
    fn push_until(&mut self, until: u64) -> Result<(), MediaError> {
        let until = until.min(self.total);
        let chunk = (self.rate / 10).max(1);
        while self.skip > 0 {
            self.block
                .resize(self.skip.min(chunk) as usize * self.channels, 0);
            let read = self.source.read(&mut self.block) / self.channels;
            self.skip = if read == 0 {
                0
            } else {
                self.skip - read as u64
            };
        }
        while self.next < until {
            let end = (self.next + chunk).min(until);
            self.block
                .resize((end - self.next) as usize * self.channels, 0);
            // Past the source's end: silence.
            let read = self.source.read(&mut self.block);
            self.block[read..].fill(0);
            let mut bytes = Vec::with_capacity(self.block.len() * 2);
            for sample in &self.block {
                bytes.extend_from_slice(&sample.to_le_bytes());
            }
            let mut buffer = gst::Buffer::from_mut_slice(bytes);
            {
                let buffer = buffer.make_mut();
                let pts = timestamp(self.next, self.rate);
                buffer.set_pts(pts);
                buffer.set_duration(timestamp(end, self.rate) - pts);
                buffer.set_offset(self.next);
                buffer.set_offset_end(end);
            }
            self.src
                .push_buffer(buffer)
                .map_err(|e| MediaError::pipeline("audio-src", format!("push failed: {e:?}")))?;
            self.next = end;
        }
        Ok(())
    }
}

thread_local! {
    /// The RGBA frame a rendering thread draws into before converting it to I420: one per
    /// thread rather than one per frame of the window, so a window of 2 × threads frames in
    /// flight holds half the RGBA (3.7 MB a frame at 720×1280).
    static RGBA_SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

pub(super) fn push_everything(
    job: &Job,
    frames: &dyn FrameSource,
    mut feed: Option<AudioFeed<'_>>,
    video: FrameSink<'_>,
    pool: Option<&rayon::ThreadPool>,
    window: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<StageTimes, MediaError> {
    let fps = u64::from(job.fps);
    let layout = job.layout;
    let frames_pool = FramePool::new(layout.size)?;
    let mut stages = StageTimes::default();
    let render_ns = AtomicU64::new(0);
    let convert_ns = AtomicU64::new(0);

    let mut first = 0u64;
    while first < job.frame_count {
        let count = (job.frame_count - first).min(window as u64) as usize;
        // Audio for this window (and half a second more) goes first, so the muxer never waits
        // on audio while our video push is blocked.
        if let Some(feed) = feed.as_mut() {
            feed.push_ahead_of(first + count as u64, job.fps)?;
        }

        // Sequential work for the window (clip decoding) before the parallel render.
        let t = Instant::now();
        frames.prepare(first, count as u64);
        stages.prepare += t.elapsed();
        let mut buffers = (0..count)
            .map(|_| frames_pool.acquire())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| MediaError::pipeline("video-src", format!("allocating a frame: {e:?}")))?;
        let mut render = || {
            buffers
                .par_iter_mut()
                .enumerate()
                .try_for_each(|(i, buffer)| {
                    let index = first + i as u64;
                    let buffer = buffer.make_mut();
                    let pts = timestamp(index, fps);
                    buffer.set_pts(pts);
                    buffer.set_duration(timestamp(index + 1, fps) - pts);
                    buffer.set_offset(index);
                    buffer.set_offset_end(index + 1);
                    let mut map = buffer.map_writable().map_err(|e| {
                        MediaError::pipeline("video-src", format!("mapping a frame: {e}"))
                    })?;
                    RGBA_SCRATCH.with_borrow_mut(|rgba| {
                        rgba.resize(layout.rgba_len(), 0);
                        let t = Instant::now();
                        if frames.render_i420(index, rgba, &layout, &mut map) {
                            render_ns.fetch_add(nanos(t.elapsed()), Ordering::Relaxed);
                            return Ok(());
                        }
                        frames.render(index, rgba);
                        render_ns.fetch_add(nanos(t.elapsed()), Ordering::Relaxed);
                        let t = Instant::now();
                        let converted = rgba_to_i420(rgba, &layout, &mut map);
                        convert_ns.fetch_add(nanos(t.elapsed()), Ordering::Relaxed);
                        converted
                    })
                })
        };
        match pool {
            Some(pool) => pool.install(render)?,
            None => render()?,
        }
        let t = Instant::now();
        for buffer in buffers {
            video.push(buffer)?;
        }
        stages.push += t.elapsed();
        first += count as u64;
        progress(first, job.frame_count);
    }

    if let Some(feed) = feed.as_mut() {
        feed.finish()?;
    }
    video.finish()?;
    stages.render = Duration::from_nanos(render_ns.into_inner());
    stages.convert = Duration::from_nanos(convert_ns.into_inner());
    Ok(stages)
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_x264_identity_names_its_threads_and_instruction_set() {
        let x264 = EncodeSettings {
            encoder: EncoderChoice::Software,
            ..EncodeSettings::default()
        };
        let id = encoder_identity(&x264).unwrap();
        assert!(id.starts_with("libx264 0.1"), "{id}");
        assert!(id.ends_with(&x264_run_identity(&x264)), "{id}");
        assert!(id.contains(" threads2 asm-"), "{id}");
        let four = EncodeSettings {
            threads: Some(4),
            ..x264.clone()
        };
        assert_ne!(encoder_identity(&four).unwrap(), id);
        // Held to AVX2 wherever the host has it; left to x264 (and named so) elsewhere.
        assert_eq!(x264_asm().is_some(), id.ends_with("asm-avx2"), "{id}");
    }

    #[test]
    fn timestamps_do_not_drift() {
        // 30 fps: frame 30 is exactly one second, frame 1 is 33_333_333 ns.
        assert_eq!(timestamp(30, 30), gst::ClockTime::SECOND);
        assert_eq!(timestamp(1, 30).nseconds(), 33_333_333);
        assert_eq!(timestamp(90_000, 30), gst::ClockTime::from_seconds(3000));
        assert_eq!(scale(90, 48_000, 30), 144_000);
    }

    #[test]
    fn encoder_names_parse() {
        for (name, choice) in [
            ("auto", EncoderChoice::Auto),
            ("x264", EncoderChoice::Software),
            ("NVH264", EncoderChoice::Nvenc),
            ("vaapi", EncoderChoice::Vaapi),
            ("hardware", EncoderChoice::Hardware),
        ] {
            assert_eq!(name.parse::<EncoderChoice>().unwrap(), choice);
        }
        let e = "quicksync".parse::<EncoderChoice>().unwrap_err();
        assert!(e.to_string().contains("nvh264"), "{e}");
        assert!(EncoderChoice::Software.hardware_candidates().is_empty());
        assert!(
            EncoderChoice::Nvenc
                .hardware_candidates()
                .contains(&"nvh264enc")
        );
        assert!(
            EncoderChoice::Vaapi
                .hardware_candidates()
                .contains(&"vaapih264enc")
        );
    }

    #[test]
    fn an_installed_encoder_that_fails_the_probe_is_skipped() {
        init().unwrap();
        // `jpegenc` is installed but cannot produce H.264 High: it must be skipped with its
        // reason, exactly like an NVENC element on a machine without a GPU.
        let err = first_working(&["jpegenc", "no-such-encoder"], 64, 64).unwrap_err();
        assert!(err.starts_with("jpegenc: "), "{err}");
        assert_eq!(
            first_working(&["no-such-encoder"], 64, 64).unwrap_err(),
            "none installed"
        );
        // x264 passes the same probe, so the probe itself is sound.
        assert_eq!(
            first_working(&["jpegenc", "x264enc"], 64, 64),
            Ok("x264enc")
        );
    }

    #[test]
    fn auto_falls_back_to_x264_and_explicit_hardware_fails_clearly() {
        init().unwrap();
        for choice in [EncoderChoice::Nvenc, EncoderChoice::Vaapi] {
            if choice
                .hardware_candidates()
                .iter()
                .any(|name| has_factory(name))
            {
                continue; // a machine with the element: nothing to assert about absence
            }
            let err = selected_encoder(choice, 720, 1280).unwrap_err();
            assert!(matches!(err, MediaError::NoHardwareEncoder { .. }), "{err}");
        }
        let (name, hardware) = selected_encoder(EncoderChoice::Auto, 720, 1280).unwrap();
        assert_eq!(hardware, name != SOFTWARE_ENCODER);
        assert_eq!(
            selected_encoder(EncoderChoice::Software, 720, 1280).unwrap(),
            (SOFTWARE_ENCODER, false)
        );
    }

    #[test]
    fn presets_parse() {
        assert_eq!(
            "VeryFast".parse::<X264Preset>().unwrap(),
            X264Preset::Veryfast
        );
        assert!("turbo".parse::<X264Preset>().is_err());
        assert_eq!(X264Preset::default().to_string(), "veryfast");
    }
}
