//! Reading input media: duration, and audio decoded to PCM (mono, or interleaved channels).
//!
//! Both open the file with `filesrc ! decodebin` and keep decodebin from running decoders whose
//! output nobody needs (`autoplug-select` → *expose*): measuring a duration needs no decoder at
//! all, and decoding narration out of an uploaded video should not decode its pictures.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gstreamer as gst;
use gstreamer::glib;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

use super::AudioTrack;
use super::encode::AAC_FRAME;
use super::error::MediaError;
use super::gst_util::{
    PipelineGuard, bus_error, capsfilter, has_factory, init, is_unsupported_format, make, set_state,
};

/// How long opening a file (typefinding, demuxing headers) may take before we give up.
const OPEN_TIMEOUT: Duration = Duration::from_secs(60);
/// How often a wait looks whether the pipeline still streams (see [`streaming`]).
const STALL_CHECK: Duration = Duration::from_millis(200);
/// Consecutive looks with no streaming task after which a pipeline counts as stalled: long
/// enough to ride over one element handing the stream to the next.
const STALL_CHECKS: u32 = 5;
/// Posted by `no-more-pads` when a file turns out to have no audio stream.
const NO_AUDIO_MESSAGE: &str = "reelsmith-no-audio";
/// Posted by `no-more-pads` when a file turns out to have no stream at all.
const NO_STREAMS_MESSAGE: &str = "reelsmith-no-streams";
/// Posted by `no-more-pads` when a clip turns out to have no video stream.
pub(crate) const NO_VIDEO_MESSAGE: &str = "reelsmith-no-video";
/// The AAC decoder we prefer: one small library.
const FAAD: &str = "faad";
/// Decoders decodebin ranks first that we pass over for [`FAAD`] where it is installed:
/// libav's AAC decoders bring libavcodec and libavfilter, with their whole tree of codec
/// libraries, into the daemon for the rest of its life (53 MB resident for a
/// `gst-launch-1.0` decode, against 12 MB with faad). Only a clip's H.264 still needs libav.
const PASSED_OVER_FOR_FAAD: [&str; 2] = ["avdec_aac", "avdec_aac_fixed"];

/// The length in seconds of any audio or video file GStreamer can demux.
///
/// Reads only the container (or parser) metadata; when the container does not state a duration
/// the streams are read to the end without decoding and the last position is used.
pub fn probe_duration(path: &Path) -> Result<f64, MediaError> {
    check_readable(path)?;
    init()?;
    // Expose every stream before its decoder: demuxers and parsers know the duration.
    let (pipeline, decodebin) = open(path, |_klass| true)?;
    let pipeline_weak = pipeline.downgrade();
    let streams = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&streams);
    decodebin.connect_pad_added(move |_, pad| {
        seen.store(true, Ordering::SeqCst);
        if let Some(pipeline) = pipeline_weak.upgrade() {
            attach_fakesink(&pipeline, pad);
        }
    });
    // A container with no stream at all never prerolls; say so instead of waiting it out.
    decodebin.connect_no_more_pads(move |decodebin| {
        if !streams.load(Ordering::SeqCst) {
            let msg =
                gst::message::Application::builder(gst::Structure::new_empty(NO_STREAMS_MESSAGE))
                    .src(decodebin)
                    .build();
            let _ = decodebin.post_message(msg);
        }
    });

    set_state(&pipeline, gst::State::Paused)?;
    wait_for(&pipeline, path, gst::MessageType::AsyncDone)?;
    if let Some(duration) = pipeline.query_duration::<gst::ClockTime>() {
        return Ok(duration.nseconds() as f64 / 1e9);
    }
    // No duration in the headers (e.g. a raw ADTS stream): read it through once.
    set_state(&pipeline, gst::State::Playing)?;
    wait_for(&pipeline, path, gst::MessageType::Eos)?;
    pipeline
        .query_position::<gst::ClockTime>()
        .or_else(|| pipeline.query_duration::<gst::ClockTime>())
        .filter(|t| !t.is_zero())
        .map(|t| t.nseconds() as f64 / 1e9)
        .ok_or_else(|| MediaError::UnknownDuration {
            path: path.to_owned(),
        })
}

/// Decodes the first audio stream of any audio or video file to mono signed 16-bit PCM at
/// `sample_rate` (channels are mixed down, the rate converted).
pub fn decode_audio(path: &Path, sample_rate: u32) -> Result<AudioTrack, MediaError> {
    let samples = Arc::new(Mutex::new(Vec::<i16>::new()));
    let sink_samples = Arc::clone(&samples);
    decode_audio_blocks(path, (sample_rate, 1), move |block| {
        sink_samples
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(block);
    })?;
    let samples = std::mem::take(&mut *samples.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(AudioTrack {
        sample_rate,
        samples,
    })
}

/// [`decode_audio`] at `channels` (1: mixed down to mono; 2: stereo, interleaved left then
/// right, a mono stream in both), handing the samples to `each` block by block as they are
/// decoded (on a streaming thread, whole frames), holding none of them.
pub fn decode_audio_blocks(
    path: &Path,
    (sample_rate, channels): (u32, u16),
    each: impl FnMut(&[i16]) + Send + 'static,
) -> Result<(), MediaError> {
    if !(8_000..=192_000).contains(&sample_rate) {
        return Err(MediaError::InvalidInput(format!(
            "unsupported output sample rate {sample_rate} Hz (expected 8000–192000)"
        )));
    }
    if !(1..=2).contains(&channels) {
        return Err(MediaError::InvalidInput(format!(
            "unsupported output channels {channels} (expected 1 or 2)"
        )));
    }
    check_readable(path)?;
    init()?;
    // Expose video and image streams undecoded; audio is decoded as usual.
    let (pipeline, decodebin) = open(path, |klass| {
        klass.contains("Video") || klass.contains("Image")
    })?;

    let caps = super::gst_util::s16le_caps(sample_rate, channels)?;
    let convert = make("audioconvert")?;
    let resample = make("audioresample")?;
    let filter = capsfilter(&caps)?;
    let realign = Arc::new(Mutex::new(Realign::default()));
    let sink = block_sink(&caps, Arc::clone(&realign), each);
    let chain = [&convert, &resample, &filter, sink.upcast_ref()];
    pipeline
        .add_many(chain)
        .map_err(|e| MediaError::pipeline("decode", e.to_string()))?;
    gst::Element::link_many(chain).map_err(|e| MediaError::pipeline("decode", e.to_string()))?;
    let audio_linked = link_first_audio(&pipeline, &decodebin, (&convert, &caps), realign);
    set_state(&pipeline, gst::State::Playing)?;
    wait_for(&pipeline, path, gst::MessageType::Eos)?;
    set_state(&pipeline, gst::State::Null)?;

    if !audio_linked.load(Ordering::SeqCst) {
        return Err(MediaError::NoAudio {
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// How the samples of a decoder that does not place them right are put right as they are
/// handed on (see [`faad_realign`]); the default leaves them as they are.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Realign {
    /// Samples of silence handed on before the first decoded one.
    lead_in: usize,
    /// Samples handed on at most, the lead-in included.
    end: Option<usize>,
}

impl Realign {
    /// Hands `decoded` on to `each` as this says: the lead-in first (when `handed` is 0), and
    /// nothing past the end. `handed` counts what was handed on; `scratch` holds the silence.
    fn hand_on(
        &self,
        decoded: &[i16],
        (handed, scratch): (&mut usize, &mut Vec<i16>),
        each: &mut impl FnMut(&[i16]),
    ) {
        if *handed == 0 && self.lead_in > 0 {
            scratch.clear();
            scratch.resize(self.lead_in, 0);
            each(scratch);
            *handed = self.lead_in;
        }
        let room = self
            .end
            .map_or(decoded.len(), |end| end.saturating_sub(*handed));
        let take = &decoded[..decoded.len().min(room)];
        if !take.is_empty() {
            each(take);
            *handed += take.len();
        }
    }
}

/// An appsink of `caps` (S16LE) that hands each decoded buffer's samples to `each`, put right
/// as `realign` says once the first buffer comes.
fn block_sink(
    caps: &gst::Caps,
    realign: Arc<Mutex<Realign>>,
    mut each: impl FnMut(&[i16]) + Send + 'static,
) -> gst_app::AppSink {
    let (mut block, mut scratch) = (Vec::<i16>::new(), Vec::<i16>::new());
    let mut handed = 0;
    gst_app::AppSink::builder()
        .sync(false)
        .caps(caps)
        .callbacks(
            gst_app::AppSinkCallbacks::builder()
                .new_sample(move |sink| {
                    let sample = sink.pull_sample().map_err(|_| gst::FlowError::Eos)?;
                    let buffer = sample.buffer().ok_or(gst::FlowError::Error)?;
                    let map = buffer.map_readable().map_err(|_| gst::FlowError::Error)?;
                    block.clear();
                    block.extend(
                        map.chunks_exact(2)
                            .map(|b| i16::from_le_bytes([b[0], b[1]])),
                    );
                    let realign = *realign.lock().unwrap_or_else(|e| e.into_inner());
                    realign.hand_on(&block, (&mut handed, &mut scratch), &mut each);
                    Ok(gst::FlowSuccess::Ok)
                })
                .build(),
        )
        .build()
}

/// Links `decodebin`'s first raw audio pad to `convert` and drains every other pad; when
/// decodebin has no more pads and none was audio, posts [`NO_AUDIO_MESSAGE`]. The flag says
/// whether an audio pad was linked. Sets `realign` for the linked stream's decoder
/// ([`faad_realign`], in `out`, the chain's output caps).
fn link_first_audio(
    pipeline: &gst::Pipeline,
    decodebin: &gst::Element,
    (convert, out): (&gst::Element, &gst::Caps),
    realign: Arc<Mutex<Realign>>,
) -> Arc<AtomicBool> {
    let out_format = out
        .structure(0)
        .and_then(|s| Some((s.get::<i32>("rate").ok()?, s.get::<i32>("channels").ok()?)));
    let audio_linked = Arc::new(AtomicBool::new(false));
    let pipeline_weak = pipeline.downgrade();
    let convert_weak = convert.downgrade();
    let linked = Arc::clone(&audio_linked);
    decodebin.connect_pad_added(move |_, pad| {
        let (Some(pipeline), Some(convert)) = (pipeline_weak.upgrade(), convert_weak.upgrade())
        else {
            return;
        };
        let is_raw_audio = pad
            .current_caps()
            .unwrap_or_else(|| pad.query_caps(None))
            .structure(0)
            .is_some_and(|s| s.name() == "audio/x-raw");
        // The first audio stream feeds our chain; everything else is drained and dropped.
        if is_raw_audio && !linked.swap(true, Ordering::SeqCst) {
            if let Some(sinkpad) = convert.static_pad("sink")
                && pad.link(&sinkpad).is_ok()
            {
                if let Some(format) = out_format {
                    *realign.lock().unwrap_or_else(|e| e.into_inner()) = faad_realign(pad, format);
                }
                return;
            }
            linked.store(false, Ordering::SeqCst);
        }
        attach_fakesink(&pipeline, pad);
    });
    let linked = Arc::clone(&audio_linked);
    decodebin.connect_no_more_pads(move |decodebin| {
        if !linked.load(Ordering::SeqCst) {
            let msg =
                gst::message::Application::builder(gst::Structure::new_empty(NO_AUDIO_MESSAGE))
                    .src(decodebin)
                    .build();
            let _ = decodebin.post_message(msg);
        }
    });
    audio_linked
}

/// How to put right the samples of the decoder behind decodebin's `pad`, in the chain's output
/// `(rate, channels)`. faad (2.10) gives nothing for a stream's first AAC frame and stamps the
/// second at 0, so its audio comes one frame (21 ms at 48 kHz) early against libav's or
/// ffmpeg's, which decode the encoder's priming as players do; and it gives the last frame
/// whole, past the track's end. We put the first frame back as silence and stop at the end.
/// Exact for AAC-LC, what we write and what phones record. Other decoders are left as they are.
fn faad_realign(pad: &gst::Pad, (out_rate, channels): (i32, i32)) -> Realign {
    let Some(target) = pad
        .downcast_ref::<gst::GhostPad>()
        .and_then(|ghost| ghost.target())
    else {
        return Realign::default();
    };
    let from_faad = target
        .parent_element()
        .and_then(|decoder| decoder.factory())
        .is_some_and(|factory| factory.name() == FAAD);
    let rate = target
        .current_caps()
        .and_then(|caps| caps.structure(0).and_then(|s| s.get::<i32>("rate").ok()))
        .and_then(|rate| u64::try_from(rate).ok())
        .filter(|&rate| rate > 0);
    let (Some(rate), true, Ok(out_rate), Ok(channels)) = (
        rate,
        from_faad,
        u64::try_from(out_rate),
        usize::try_from(channels),
    ) else {
        return Realign::default();
    };
    let samples =
        |frames: u64| usize::try_from(frames).map_or(usize::MAX, |f| f.saturating_mul(channels));
    let end = pad
        .query_duration::<gst::ClockTime>()
        .map(|d| samples(super::encode::scale(d.nseconds(), out_rate, 1_000_000_000)));
    Realign {
        lead_in: samples(super::encode::scale(AAC_FRAME, out_rate, rate)),
        end,
    }
}

/// A readable regular file, or an I/O error naming it.
pub(crate) fn check_readable(path: &Path) -> Result<(), MediaError> {
    let io = |source| MediaError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        )));
    }
    if meta.len() == 0 {
        return Err(MediaError::UnsupportedFormat {
            path: path.to_owned(),
            detail: "the file is empty".into(),
        });
    }
    Ok(())
}

/// `filesrc ! decodebin` in a fresh pipeline. Decoders whose klass satisfies `expose` are not
/// run: decodebin exposes the (parsed, still encoded) stream instead.
pub(crate) fn open(
    path: &Path,
    expose: fn(&str) -> bool,
) -> Result<(PipelineGuard, gst::Element), MediaError> {
    let pipeline = PipelineGuard(gst::Pipeline::with_name("reelsmith-decode"));
    let src = make("filesrc")?;
    src.set_property("location", path.to_string_lossy().as_ref());
    let decodebin = make("decodebin")?;
    pipeline
        .add_many([&src, &decodebin])
        .map_err(|e| MediaError::pipeline("decode", e.to_string()))?;
    src.link(&decodebin)
        .map_err(|e| MediaError::pipeline("decode", e.to_string()))?;

    // GstAutoplugSelectResult is registered by decodebin's class, so it exists by now.
    if let Some(select) = glib::Type::from_name("GstAutoplugSelectResult") {
        decodebin.connect("autoplug-select", false, move |args| {
            let factory = args
                .get(3)
                .and_then(|v| v.get::<gst::ElementFactory>().ok());
            let passed_over = factory.as_ref().is_some_and(|f| {
                PASSED_OVER_FOR_FAAD.contains(&f.name().as_str()) && has_factory(FAAD)
            });
            let skip = factory.is_some_and(|f| {
                let klass = f.metadata(gst::ELEMENT_METADATA_KLASS).unwrap_or_default();
                klass.contains("Decoder") && expose(klass)
            });
            glib::EnumClass::with_type(select)?.to_value_by_nick(if skip {
                "expose"
            } else if passed_over {
                "skip"
            } else {
                "try"
            })
        });
    }
    Ok((pipeline, decodebin))
}

/// Drains a stream nobody needs.
pub(crate) fn attach_fakesink(pipeline: &gst::Pipeline, pad: &gst::Pad) {
    let Ok(sink) = gst::ElementFactory::make("fakesink")
        .property("sync", false)
        .build()
    else {
        return;
    };
    if pipeline.add(&sink).is_err() {
        return;
    }
    let _ = sink.sync_state_with_parent();
    if let Some(sinkpad) = sink.static_pad("sink") {
        let _ = pad.link(&sinkpad);
    }
}

/// Waits for `until` (EOS or ASYNC_DONE) on the pipeline's bus, turning errors into
/// [`MediaError`]s: "not a media file" errors become [`MediaError::UnsupportedFormat`].
///
/// decodebin drops an error its demuxer posts while decodebin is still bringing that demuxer
/// up (it filters errors of an element it is trying), and a file whose headers fail that fast
/// (a header-only MP4, say) then neither errors nor exposes a stream. Nothing would ever come,
/// so a pipeline in which no streaming task runs any more, for [`STALL_CHECKS`] looks in a
/// row, is a file that did not open: [`MediaError::UnsupportedFormat`].
pub(crate) fn wait_for(
    pipeline: &gst::Pipeline,
    path: &Path,
    until: gst::MessageType,
) -> Result<(), MediaError> {
    let bus = pipeline
        .bus()
        .ok_or_else(|| MediaError::pipeline("decode", "pipeline has no bus"))?;
    // Opening is bounded; reading a long file to its end is not.
    let deadline = (until == gst::MessageType::AsyncDone).then(|| Instant::now() + OPEN_TIMEOUT);
    let mut idle = 0;
    loop {
        let slice = deadline.map_or(STALL_CHECK, |d| {
            STALL_CHECK.min(d.saturating_duration_since(Instant::now()))
        });
        let Some(msg) = bus.timed_pop_filtered(
            gst::ClockTime::from_nseconds(slice.as_nanos() as u64),
            &[
                until,
                gst::MessageType::Error,
                gst::MessageType::Application,
            ],
        ) else {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(MediaError::pipeline(
                    "decode",
                    format!("{}: timed out opening the file", path.display()),
                ));
            }
            idle = if streaming(pipeline) { 0 } else { idle + 1 };
            if idle >= STALL_CHECKS {
                return Err(MediaError::UnsupportedFormat {
                    path: path.to_owned(),
                    detail: "The file stopped streaming before any playable stream.".into(),
                });
            }
            continue;
        };
        match msg.view() {
            gst::MessageView::Error(err) => {
                if is_unsupported_format(err) || is_missing_decoder(err) {
                    let detail = err.error().to_string();
                    return Err(MediaError::UnsupportedFormat {
                        path: path.to_owned(),
                        detail,
                    });
                }
                return Err(bus_error(err));
            }
            gst::MessageView::Application(app)
                if app
                    .structure()
                    .is_some_and(|s| s.name() == NO_AUDIO_MESSAGE) =>
            {
                return Err(MediaError::NoAudio {
                    path: path.to_owned(),
                });
            }
            gst::MessageView::Application(app)
                if app
                    .structure()
                    .is_some_and(|s| s.name() == NO_VIDEO_MESSAGE) =>
            {
                return Err(MediaError::NoVideo {
                    path: path.to_owned(),
                });
            }
            gst::MessageView::Application(app)
                if app
                    .structure()
                    .is_some_and(|s| s.name() == NO_STREAMS_MESSAGE) =>
            {
                return Err(MediaError::UnsupportedFormat {
                    path: path.to_owned(),
                    detail: "This file contains no playable streams.".into(),
                });
            }
            gst::MessageView::Application(_) => {}
            // ASYNC_DONE from a child bin is not the pipeline's preroll.
            gst::MessageView::AsyncDone(_) if msg.src() != Some(pipeline.upcast_ref()) => {}
            _ => return Ok(()),
        }
    }
}

/// Whether some pad of some element in `pipeline` runs a streaming task: a source pushing, a
/// demuxer pulling, a queue forwarding.
fn streaming(pipeline: &gst::Pipeline) -> bool {
    pipeline.iterate_recurse().into_iter().any(|element| {
        element.is_ok_and(|e| {
            e.pads()
                .iter()
                .any(|pad| pad.task_state() == gst::TaskState::Started)
        })
    })
}

fn is_missing_decoder(err: &gst::message::Error) -> bool {
    err.error().matches(gst::StreamError::CodecNotFound)
        || err.error().matches(gst::CoreError::MissingPlugin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipeline_in_which_nothing_streams_is_not_waited_out() {
        // A sink waiting for a preroll no task will ever bring, as when decodebin has dropped
        // its demuxer's error: the wait gives up as soon as it sees nothing streams, not after
        // the open timeout.
        init().unwrap();
        let pipeline = PipelineGuard(gst::Pipeline::with_name("stalled"));
        pipeline.add(&make("fakesink").unwrap()).unwrap();
        set_state(&pipeline, gst::State::Paused).unwrap();
        let waited = wait_for(
            &pipeline,
            Path::new("stalled.mp4"),
            gst::MessageType::AsyncDone,
        );
        assert!(
            matches!(waited, Err(MediaError::UnsupportedFormat { .. })),
            "{waited:?}"
        );
    }

    fn handed_on(realign: Realign, blocks: &[&[i16]]) -> Vec<Vec<i16>> {
        let (mut handed, mut scratch, mut out) = (0, Vec::new(), Vec::new());
        for block in blocks {
            realign.hand_on(block, (&mut handed, &mut scratch), &mut |b: &[i16]| {
                out.push(b.to_vec())
            });
        }
        out
    }

    #[test]
    fn realign_by_default_hands_every_block_on_as_it_is() {
        let blocks: [&[i16]; 2] = [&[1, 2], &[3]];
        assert_eq!(
            handed_on(Realign::default(), &blocks),
            vec![vec![1, 2], vec![3]]
        );
    }

    #[test]
    fn realign_puts_the_lead_in_first_once_and_stops_at_the_end() {
        let realign = Realign {
            lead_in: 2,
            end: Some(5),
        };
        let blocks: [&[i16]; 3] = [&[1, 2], &[3, 4], &[5]];
        assert_eq!(
            handed_on(realign, &blocks),
            vec![vec![0, 0], vec![1, 2], vec![3]]
        );
    }
}
