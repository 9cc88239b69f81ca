//! The embedded recogniser: `appsrc ! pocketsphinx ! fakesink` (16 kHz mono S16LE).
//!
//! The element ends an utterance when its voice-activity detector hears a pause (and at EOS),
//! then pushes the utterance's hypothesis as a `text/plain` buffer. Pad probes on both sides of
//! the element run in the one streaming thread, in order, so when a hypothesis leaves the
//! element we know exactly how many samples it had been fed: the utterance ends there and began
//! where the previous one ended. Words are then laid over the voiced runs inside that window.
//!
//! A long recording is fed in pieces of at most [`PIECE_SECS`], cut at quiet moments, with
//! [`GAP`] of silence between them, so no utterance outgrows a piece; a count of samples fed
//! maps back to the recording through [`in_recording`].

use std::ops::Range;
use std::sync::{Arc, Mutex};

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

use super::{TranscribeError, Transcriber, Transcript, quiet_cuts, spread_words, voiced_runs};
use crate::build::voice::resample_to;

/// The rate the acoustic model expects.
const RATE: u32 = 16_000;
/// Samples per pushed buffer (100 ms).
const CHUNK: usize = 1600;
/// The longest piece of a recording the recogniser hears as one stretch, seconds. Its search
/// tables grow with the utterance, and its voice-activity detector ends one only after half a
/// second of pause, which steady speech may never give: fed whole, a 290 s recording was one
/// utterance, and the recogniser held 300 MB (140 MB in 30 s pieces, measured with
/// `gst-launch-1.0`; the model alone is about 110 MB).
const PIECE_SECS: f64 = 30.0;
/// How far before [`PIECE_SECS`] the quietest moment to cut at is looked for, seconds.
const CUT_SEARCH_SECS: f64 = 8.0;
/// Silence fed between two pieces, samples: one second, twice what the detector needs to end
/// an utterance. The pieces go through one recogniser, whose running cepstral mean carries over
/// (a recogniser per piece starts that afresh each time and heard 12 % more words wrong, on the
/// 290 s recording; with the silence, the word error rate was the whole recording's).
const GAP: usize = RATE as usize;

/// PocketSphinx through GStreamer (English, Debian's `pocketsphinx-en-us` model).
pub(crate) struct PocketSphinx;

/// Hypotheses with the sample count fed when each was finalised.
#[derive(Default)]
struct Heard {
    fed: u64,
    utterances: Vec<(u64, String)>,
}

/// Brings the pipeline to `Null` on every exit path.
struct Guard(gst::Pipeline);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.set_state(gst::State::Null);
    }
}

fn failed(e: impl std::fmt::Display) -> TranscribeError {
    TranscribeError::Failed(e.to_string())
}

impl Transcriber for PocketSphinx {
    fn transcribe(&self, samples: &[i16], sample_rate: u32) -> Result<Transcript, TranscribeError> {
        gst::init().map_err(|e| TranscribeError::Unavailable(e.to_string()))?;
        if gst::ElementFactory::find("pocketsphinx").is_none() {
            return Err(TranscribeError::Unavailable(
                "the GStreamer element `pocketsphinx` is not installed \
                 (Debian: gstreamer1.0-pocketsphinx pocketsphinx-en-us)"
                    .into(),
            ));
        }
        let pcm = resample_to(samples, sample_rate, RATE);
        hear(&pcm, PIECE_SECS)
    }
}

/// The words of `pcm` (at [`RATE`]), heard in pieces of at most `piece_secs`.
fn hear(pcm: &[i16], piece_secs: f64) -> Result<Transcript, TranscribeError> {
    if pcm.is_empty() {
        return Ok(Transcript::default());
    }
    let pieces = quiet_cuts(pcm, RATE, piece_secs, CUT_SEARCH_SECS);
    let heard = run(pcm, &pieces)?;

    let mut words = Vec::new();
    let mut prev_end = 0usize;
    for (fed, text) in &heard.utterances {
        let end = in_recording(*fed, &pieces).max(prev_end);
        let tokens: Vec<&str> = text
            .split_whitespace()
            .filter(|w| !(w.starts_with('<') || w.starts_with('[') || w.starts_with("++")))
            .collect();
        if !tokens.is_empty() {
            let runs = voiced_runs(pcm, RATE, prev_end, end, None, 0.12);
            let window = (
                prev_end as f64 / f64::from(RATE),
                end as f64 / f64::from(RATE),
            );
            words.extend(spread_words(&tokens, &runs, window));
        }
        prev_end = end;
    }
    Ok(Transcript { words })
}

/// Hears `pcm`'s `pieces` one after the other, with [`GAP`] of silence between two.
fn run(pcm: &[i16], pieces: &[Range<usize>]) -> Result<Heard, TranscribeError> {
    let src = gst_app::AppSrc::builder()
        .caps(
            &gst::Caps::builder("audio/x-raw")
                .field("format", "S16LE")
                .field("layout", "interleaved")
                .field("rate", RATE as i32)
                .field("channels", 1i32)
                .build(),
        )
        .format(gst::Format::Time)
        .build();
    let ps = gst::ElementFactory::make("pocketsphinx")
        .build()
        .map_err(|e| TranscribeError::Unavailable(e.to_string()))?;
    let sink = gst::ElementFactory::make("fakesink")
        .property("sync", false)
        .build()
        .map_err(failed)?;
    let pipeline = Guard(gst::Pipeline::with_name("reelsmith-transcribe"));
    pipeline
        .0
        .add_many([src.upcast_ref(), &ps, &sink])
        .map_err(failed)?;
    gst::Element::link_many([src.upcast_ref(), &ps, &sink]).map_err(failed)?;
    let heard = listen(&ps)?;
    feed(&src, pcm, pieces)?;
    pipeline
        .0
        .set_state(gst::State::Playing)
        .map_err(|e| failed(format!("cannot start the recogniser: {e}")))?;
    wait_for_eos(&pipeline.0)?;
    let _ = pipeline.0.set_state(gst::State::Null);
    let heard = std::mem::take(&mut *heard.lock().map_err(|_| failed("poisoned"))?);
    Ok(heard)
}

/// Probes on the recogniser's pads: samples fed in, and each utterance that comes out with
/// the sample count it was heard at.
fn listen(ps: &gst::Element) -> Result<Arc<Mutex<Heard>>, TranscribeError> {
    let heard = Arc::new(Mutex::new(Heard::default()));
    let fed = Arc::clone(&heard);
    ps.static_pad("sink")
        .ok_or_else(|| failed("pocketsphinx has no sink pad"))?
        .add_probe(gst::PadProbeType::BUFFER, move |_, info| {
            if let Some(buffer) = info.buffer()
                && let Ok(mut h) = fed.lock()
            {
                h.fed += (buffer.size() / 2) as u64;
            }
            gst::PadProbeReturn::Ok
        });
    let out = Arc::clone(&heard);
    ps.static_pad("src")
        .ok_or_else(|| failed("pocketsphinx has no src pad"))?
        .add_probe(gst::PadProbeType::BUFFER, move |_, info| {
            if let Some(buffer) = info.buffer()
                && let Ok(map) = buffer.map_readable()
                && let Ok(mut h) = out.lock()
            {
                let text = String::from_utf8_lossy(&map).trim().to_string();
                let at = h.fed;
                if !text.is_empty() {
                    h.utterances.push((at, text));
                }
            }
            gst::PadProbeReturn::Ok
        });
    Ok(heard)
}

/// Queues the whole recording (at most 5 minutes: under 10 MB) in `src`, its `pieces` apart
/// by [`GAP`] of silence, then EOS.
fn feed(
    src: &gst_app::AppSrc,
    pcm: &[i16],
    pieces: &[Range<usize>],
) -> Result<(), TranscribeError> {
    let ns_per_sample = 1_000_000_000u64 / u64::from(RATE);
    let silence = vec![0i16; GAP];
    let mut pushed = 0u64;
    for (i, piece) in pieces.iter().enumerate() {
        let gap: &[i16] = if i == 0 { &[] } else { &silence };
        for chunk in gap.chunks(CHUNK).chain(pcm[piece.clone()].chunks(CHUNK)) {
            let bytes: Vec<u8> = chunk.iter().flat_map(|s| s.to_le_bytes()).collect();
            let mut buffer = gst::Buffer::from_mut_slice(bytes);
            {
                let b = buffer
                    .get_mut()
                    .ok_or_else(|| failed("buffer not writable"))?;
                b.set_pts(gst::ClockTime::from_nseconds(pushed * ns_per_sample));
                b.set_duration(gst::ClockTime::from_nseconds(
                    chunk.len() as u64 * ns_per_sample,
                ));
            }
            src.push_buffer(buffer).map_err(failed)?;
            pushed += chunk.len() as u64;
        }
    }
    src.end_of_stream().map_err(failed)?;
    Ok(())
}

/// Where in the recording the `fed`-th sample fed to the recogniser is, for a recording fed
/// as `pieces` with [`GAP`] of silence between two: a sample of a gap is the end of the piece
/// before it.
fn in_recording(fed: u64, pieces: &[Range<usize>]) -> usize {
    let fed = usize::try_from(fed).unwrap_or(usize::MAX);
    for (k, piece) in pieces.iter().enumerate() {
        // Piece k is fed after k gaps; the gap after it ends GAP samples after it does.
        let before = k * GAP;
        if fed <= piece.end + before + GAP || k + 1 == pieces.len() {
            return fed.saturating_sub(before).clamp(piece.start, piece.end);
        }
    }
    0
}

/// Waits for the recogniser to finish, or reports its error.
fn wait_for_eos(pipeline: &gst::Pipeline) -> Result<(), TranscribeError> {
    let bus = pipeline
        .bus()
        .ok_or_else(|| failed("pipeline has no bus"))?;
    // Recognition runs faster than real time; 5 minutes of speech takes well under this.
    let limit = gst::ClockTime::from_seconds(600);
    match bus.timed_pop_filtered(limit, &[gst::MessageType::Eos, gst::MessageType::Error]) {
        Some(msg) => match msg.view() {
            gst::MessageView::Error(err) => Err(failed(format!(
                "{} ({})",
                err.error(),
                err.debug().map(|d| d.to_string()).unwrap_or_default()
            ))),
            _ => Ok(()),
        },
        None => Err(failed("the recogniser timed out")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fed_sample_maps_back_to_its_place_in_the_recording() {
        let pieces = [0..100, 100..250, 250..300];
        // In the first piece, as it is.
        assert_eq!(in_recording(40, &pieces), 40);
        // In the gap after it: the piece's end.
        assert_eq!(in_recording(100 + GAP as u64 / 2, &pieces), 100);
        // In the second piece, one gap later.
        assert_eq!(in_recording((GAP + 180) as u64, &pieces), 180);
        // In the last piece, two gaps later; past the end, the end.
        assert_eq!(in_recording((2 * GAP + 260) as u64, &pieces), 260);
        assert_eq!(in_recording(u64::MAX, &pieces), 300);
    }

    /// `text` spoken by espeak-ng, or `None` where the Debian recogniser plugin is not
    /// installed (CI installs it, see the Makefile): the tests that hear speech run only there.
    fn spoken(text: &str) -> Option<crate::build::voice::Narration> {
        let _ = gst::init();
        if gst::ElementFactory::find("pocketsphinx").is_none() {
            eprintln!("pocketsphinx not installed; skipped");
            return None;
        }
        let voice = crate::build::voice::Espeak::new().expect("espeak-ng");
        Some(crate::build::voice::VoiceProvider::synthesize(&voice, text, "en-us").unwrap())
    }

    #[test]
    fn recognises_espeak_speech_with_ordered_timings() {
        let Some(n) = spoken("Hello and welcome to the show. Today we talk about making videos.")
        else {
            return;
        };
        let t = PocketSphinx.transcribe(&n.samples, n.sample_rate).unwrap();
        assert!(t.words.len() >= 4, "{t:?}");
        assert!(t.words.windows(2).all(|w| w[0].end <= w[1].start + 1e-9));
        assert!(t.words.last().unwrap().end <= n.duration() + 0.05);
    }

    #[test]
    fn speech_heard_in_pieces_has_words_in_every_piece_in_order() {
        let Some(n) = spoken(
            "Hello and welcome to the show. Today we talk about making short videos. \
             We start with a script, then we record the voice, and then we cut the scenes. \
             Music goes under the voice, and captions go on top of the picture.",
        ) else {
            return;
        };
        let pcm = resample_to(&n.samples, n.sample_rate, RATE);
        let pieces = quiet_cuts(&pcm, RATE, 4.0, CUT_SEARCH_SECS);
        assert!(pieces.len() >= 3, "{} s in {pieces:?}", n.duration());
        let t = hear(&pcm, 4.0).unwrap();
        assert!(t.words.windows(2).all(|w| w[0].end <= w[1].start + 1e-9));
        assert!(t.words.last().unwrap().end <= n.duration() + 0.05);
        for piece in &pieces {
            let (start, end) = (piece.start as f64 / 16e3, piece.end as f64 / 16e3);
            assert!(
                t.words.iter().any(|w| w.start >= start && w.end <= end),
                "no word heard in {start:.1}..{end:.1} s: {t:?}"
            );
        }
    }
}
