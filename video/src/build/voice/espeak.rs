//! The embedded, offline narration voice: libespeak-ng bound through a small hand-written FFI.
//!
//! This is the only module of the voice provider that contains `unsafe` code. espeak-ng keeps
//! global state (one current voice, one callback, one synthesis at a time), so every call into it
//! goes through one process-wide [`Mutex`]. The library is initialised once, in synchronous
//! retrieval mode (`AUDIO_OUTPUT_SYNCHRONOUS`): `espeak_Synth` returns only when the whole text
//! has been synthesised, and the audio and events arrive on the calling thread through the synth
//! callback, which appends them to a capture buffer.
//!
//! Word timings come from `espeakEVENT_WORD` events (`text_position`, 1-based in characters,
//! and `audio_position` in ms); [`super::align_words`] maps them onto the input's
//! whitespace-separated words. Audio comes out at the engine's rate (22 050 Hz) and is resampled
//! to 48 kHz.

use std::ffi::{CStr, CString, c_char, c_int, c_short, c_void};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::{
    InputWord, Narration, SAMPLE_RATE, VoiceError, VoiceInfo, VoiceProvider, WordEvent,
    align_words, input_words, resample_to,
};

/// Raw declarations from `espeak-ng/speak_lib.h` (API revision 12, libespeak-ng 1.51).
mod ffi {
    use std::ffi::{c_char, c_int, c_short, c_uint, c_void};

    pub const AUDIO_OUTPUT_SYNCHRONOUS: c_int = 2;
    pub const INITIALIZE_DONT_EXIT: c_int = 0x8000;
    pub const EE_OK: c_int = 0;
    pub const POS_CHARACTER: c_int = 1;
    pub const CHARS_UTF8: c_uint = 1;
    pub const EVENT_LIST_TERMINATED: c_int = 0;
    pub const EVENT_WORD: c_int = 1;
    pub const PARAM_RATE: c_int = 1;
    /// `espeakPHONEMES_IPA`: phonemes as IPA characters (UTF-8).
    pub const PHONEMES_IPA: c_int = 0x02;

    /// `espeak_EVENT.id`.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub union EventId {
        pub number: c_int,
        pub name: *const c_char,
        pub string: [c_char; 8],
    }

    /// `espeak_EVENT`.
    #[repr(C)]
    pub struct Event {
        pub kind: c_int,
        pub unique_identifier: c_uint,
        pub text_position: c_int,
        pub length: c_int,
        pub audio_position: c_int,
        pub sample: c_int,
        pub user_data: *mut c_void,
        pub id: EventId,
    }

    /// `espeak_VOICE`.
    #[repr(C)]
    pub struct Voice {
        pub name: *const c_char,
        pub languages: *const c_char,
        pub identifier: *const c_char,
        pub gender: u8,
        pub age: u8,
        pub variant: u8,
        pub xx1: u8,
        pub score: c_int,
        pub spare: *mut c_void,
    }

    /// `t_espeak_callback`.
    pub type SynthCallback = unsafe extern "C" fn(*mut c_short, c_int, *mut Event) -> c_int;

    #[link(name = "espeak-ng")]
    unsafe extern "C" {
        pub fn espeak_Initialize(
            output: c_int,
            buflength: c_int,
            path: *const c_char,
            options: c_int,
        ) -> c_int;
        pub fn espeak_SetSynthCallback(callback: Option<SynthCallback>);
        pub fn espeak_Synth(
            text: *const c_void,
            size: usize,
            position: c_uint,
            position_type: c_int,
            end_position: c_uint,
            flags: c_uint,
            unique_identifier: *mut c_uint,
            user_data: *mut c_void,
        ) -> c_int;
        pub fn espeak_ListVoices(voice_spec: *mut Voice) -> *mut *const Voice;
        pub fn espeak_SetVoiceByProperties(voice_spec: *mut Voice) -> c_int;
        pub fn espeak_SetParameter(parameter: c_int, value: c_int, relative: c_int) -> c_int;
        pub fn espeak_TextToPhonemes(
            textptr: *mut *const c_void,
            textmode: c_int,
            phonememode: c_int,
        ) -> *const c_char;
    }
}

/// A voice as listed by the engine: its primary language doubles as the voice id, and every
/// language it declares is accepted as an id.
#[derive(Debug, Clone)]
struct EngineVoice {
    info: VoiceInfo,
    languages: Vec<String>,
}

/// State behind the engine lock once espeak-ng is initialised.
struct Engine {
    sample_rate: u32,
    voices: Vec<EngineVoice>,
}

/// The process-wide lock around espeak-ng; `None` until initialised, `Some(Err)` if that failed.
static ENGINE: Mutex<Option<Result<Engine, String>>> = Mutex::new(None);

/// What the synth callback collects during one `espeak_Synth` call (always under [`ENGINE`]).
struct Capture {
    samples: Vec<i16>,
    /// `(text_position, audio_position)` of each word event.
    words: Vec<(c_int, c_int)>,
}

static CAPTURE: Mutex<Capture> = Mutex::new(Capture {
    samples: Vec::new(),
    words: Vec::new(),
});

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The protected data stays consistent even if a holder panicked (each use resets it).
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Receives audio and events from espeak-ng during `espeak_Synth` (synchronous mode: on the
/// thread that called it, while it holds [`ENGINE`]).
unsafe extern "C" fn synth_callback(
    wav: *mut c_short,
    numsamples: c_int,
    events: *mut ffi::Event,
) -> c_int {
    let mut capture = lock(&CAPTURE);
    if !wav.is_null() && numsamples > 0 {
        // SAFETY: espeak-ng passes a buffer of `numsamples` initialised samples that stays valid
        // for the duration of this call; we copy it out before returning.
        let chunk = unsafe { std::slice::from_raw_parts(wav, numsamples as usize) };
        capture.samples.extend_from_slice(chunk);
    }
    let mut ev = events;
    while !ev.is_null() {
        // SAFETY: `events` points to an array terminated by an event of type
        // `espeakEVENT_LIST_TERMINATED`; we stop at the terminator and never read past it.
        let e = unsafe { &*ev };
        if e.kind == ffi::EVENT_LIST_TERMINATED {
            break;
        }
        if e.kind == ffi::EVENT_WORD {
            capture.words.push((e.text_position, e.audio_position));
        }
        // SAFETY: the current event is not the terminator, so the next element exists.
        ev = unsafe { ev.add(1) };
    }
    0 // continue synthesis
}

/// Initialises espeak-ng if needed and returns the guard with the ready engine.
fn engine() -> Result<MutexGuard<'static, Option<Result<Engine, String>>>, VoiceError> {
    let mut guard = lock(&ENGINE);
    if guard.is_none() {
        *guard = Some(initialise());
    }
    match guard.as_ref() {
        Some(Ok(_)) => Ok(guard),
        Some(Err(e)) => Err(VoiceError::Unavailable(e.clone())),
        None => unreachable!("initialised above"),
    }
}

/// One-time library setup; called with [`ENGINE`] held.
fn initialise() -> Result<Engine, String> {
    // SAFETY: called once, under the engine lock. A null path selects the default data
    // directory; DONT_EXIT makes the library return an error instead of exiting the process when
    // its data is missing.
    let rate = unsafe {
        ffi::espeak_Initialize(
            ffi::AUDIO_OUTPUT_SYNCHRONOUS,
            0,
            std::ptr::null(),
            ffi::INITIALIZE_DONT_EXIT,
        )
    };
    if rate <= 0 {
        return Err(format!(
            "espeak_Initialize failed ({rate}); is espeak-ng-data installed?"
        ));
    }
    // SAFETY: `synth_callback` matches `t_espeak_callback` and lives for the whole program.
    unsafe { ffi::espeak_SetSynthCallback(Some(synth_callback)) };
    let voices = list_voices();
    if voices.is_empty() {
        return Err("espeak-ng lists no voices".to_string());
    }
    Ok(Engine {
        sample_rate: rate as u32,
        voices,
    })
}

/// Reads the engine's voice table; called with [`ENGINE`] held.
fn list_voices() -> Vec<EngineVoice> {
    let mut out: Vec<EngineVoice> = Vec::new();
    // SAFETY: with a null spec espeak-ng returns a null-terminated array of pointers to voice
    // records it owns; they stay valid until the next ListVoices call, which cannot happen while
    // we hold the engine lock. Every string is copied before the lock is released.
    unsafe {
        let list = ffi::espeak_ListVoices(std::ptr::null_mut());
        if list.is_null() {
            return out;
        }
        let mut i = 0;
        loop {
            let v = *list.add(i);
            if v.is_null() {
                break;
            }
            i += 1;
            let v = &*v;
            let identifier = cstr(v.identifier);
            // MBROLA voices need separately installed diphone data; variants are not voices.
            if identifier.starts_with("mb/") || identifier.starts_with("!v") {
                continue;
            }
            let languages = parse_languages(v.languages);
            let Some(primary) = languages.first().cloned() else {
                continue;
            };
            if out.iter().any(|o| o.info.id == primary) {
                continue;
            }
            out.push(EngineVoice {
                info: VoiceInfo {
                    language: primary.split('-').next().unwrap_or(&primary).to_string(),
                    id: primary,
                    name: cstr(v.name).replace('_', " "),
                },
                languages,
            });
        }
    }
    out.sort_by(|a, b| a.info.id.cmp(&b.info.id));
    out
}

/// Copies a C string, `""` for null.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string valid for the duration of the call.
unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: non-null and NUL-terminated per this function's contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Parses `espeak_VOICE.languages`: repeated (priority byte, NUL-terminated name), ended by an
/// empty entry.
///
/// # Safety
/// `p` is null or points to such a list.
unsafe fn parse_languages(p: *const c_char) -> Vec<String> {
    let mut out = Vec::new();
    if p.is_null() {
        return out;
    }
    let mut cur = p;
    // SAFETY: we read one priority byte, then a NUL-terminated name, and stop at the terminating
    // zero priority byte or at an empty name; all within the list per this function's contract.
    unsafe {
        while *cur != 0 {
            let name = CStr::from_ptr(cur.add(1));
            let bytes = name.to_bytes();
            if bytes.is_empty() {
                break;
            }
            out.push(String::from_utf8_lossy(bytes).to_ascii_lowercase());
            cur = cur.add(1 + bytes.len() + 1);
        }
    }
    out
}

/// Selects the voice of `language`; called with [`ENGINE`] held.
fn select_language(language: &str) -> Result<(), VoiceError> {
    let lang =
        CString::new(language).map_err(|_| VoiceError::UnknownVoice(language.to_string()))?;
    // SAFETY: `spec` is a zeroed voice record whose only set field points to `lang`, alive until
    // after the call; the engine lock is held by our caller.
    let status = unsafe {
        let mut spec: ffi::Voice = std::mem::zeroed();
        spec.languages = lang.as_ptr();
        ffi::espeak_SetVoiceByProperties(&mut spec)
    };
    if status != ffi::EE_OK {
        return Err(VoiceError::UnknownVoice(language.to_string()));
    }
    Ok(())
}

/// One clause of a text as espeak-ng phonemizes it: the bytes of the input it covers and its
/// phonemes in IPA, words separated by spaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PhonemeClause {
    /// Byte range of the input text the clause was read from.
    pub bytes: std::ops::Range<usize>,
    /// IPA phonemes (UTF-8), one space between words, no clause punctuation.
    pub ipa: String,
}

/// The IPA phonemes of `text` in `language` (an espeak-ng voice such as `en-us`), clause by
/// clause, as neural voices trained on espeak-ng phonemes (Piper) expect them.
pub(crate) fn phonemize(text: &str, language: &str) -> Result<Vec<PhonemeClause>, VoiceError> {
    let guard = engine()?;
    let Some(Ok(_engine)) = guard.as_ref() else {
        unreachable!("engine() returns only a ready engine");
    };
    select_language(language)?;
    let text_c = CString::new(text.replace('\0', " ")).expect("NULs were replaced");
    let base = text_c.as_ptr() as usize;
    let end = base + text.len();
    let mut cursor: *const c_void = text_c.as_ptr().cast();
    let mut clauses = Vec::new();
    while !cursor.is_null() {
        let start = (cursor as usize).saturating_sub(base).min(text.len());
        // SAFETY: `cursor` points into `text_c`, a NUL-terminated UTF-8 buffer alive for the whole
        // loop; espeak-ng advances it past the clause it read, or sets it to null at the end. The
        // returned string is the engine's own buffer, copied before the next call; the engine
        // lock is held throughout.
        let ipa = unsafe {
            let out = ffi::espeak_TextToPhonemes(
                &mut cursor,
                ffi::CHARS_UTF8 as c_int,
                ffi::PHONEMES_IPA,
            );
            cstr(out)
        };
        let stop = if cursor.is_null() {
            text.len()
        } else {
            (cursor as usize).clamp(base, end) - base
        };
        let ipa = ipa.split_whitespace().collect::<Vec<_>>().join(" ");
        if !ipa.is_empty() {
            clauses.push(PhonemeClause {
                bytes: start..stop.max(start),
                ipa,
            });
        }
        if stop <= start && !cursor.is_null() {
            break; // no progress: never loop forever on odd input
        }
    }
    Ok(clauses)
}

/// Runs one synthesis; `_locked` proves the caller holds [`ENGINE`]. Returns the engine-rate
/// samples and raw word events.
fn synthesize_raw(
    _locked: &Engine,
    text: &str,
    language: &str,
    rate_wpm: u32,
) -> Result<Capture, VoiceError> {
    select_language(language)?;
    // The engine reads up to the first NUL; keep character positions intact by blanking any.
    let text_c = CString::new(text.replace('\0', " ")).expect("NULs were replaced");
    // SAFETY: plain integer parameter; engine lock held.
    unsafe { ffi::espeak_SetParameter(ffi::PARAM_RATE, rate_wpm as c_int, 0) };

    {
        let mut capture = lock(&CAPTURE);
        capture.samples.clear();
        capture.words.clear();
    }
    // SAFETY: `text_c` is a NUL-terminated UTF-8 buffer of the given size that outlives the call
    // (synchronous mode returns only when synthesis is complete); null identifier/user data are
    // allowed. The callback only touches `CAPTURE`.
    let status = unsafe {
        ffi::espeak_Synth(
            text_c.as_ptr().cast::<c_void>(),
            text_c.as_bytes_with_nul().len(),
            0,
            ffi::POS_CHARACTER,
            0,
            ffi::CHARS_UTF8,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    let mut capture = lock(&CAPTURE);
    let taken = Capture {
        samples: std::mem::take(&mut capture.samples),
        words: std::mem::take(&mut capture.words),
    };
    if status != ffi::EE_OK {
        return Err(VoiceError::Synthesis(format!(
            "espeak_Synth returned {status}"
        )));
    }
    Ok(taken)
}

/// The espeak-ng voice provider (English, Vietnamese and the other languages espeak-ng ships).
///
/// Voice ids are espeak-ng language codes such as `"en-us"`, `"en"` (British), `"vi"`,
/// `"vi-vn-x-south"`; see [`VoiceProvider::voices`]. Calls are serialised process-wide; run
/// them on a blocking thread (`tokio::task::spawn_blocking`) from async code.
#[derive(Debug, Clone)]
pub struct Espeak {
    rate_wpm: u32,
}

impl Espeak {
    /// Speaking rate used by [`Espeak::new`], in words per minute (espeak-ng's default).
    pub const DEFAULT_RATE_WPM: u32 = 175;

    /// Starts the engine (once per process) and returns a provider at the default rate.
    ///
    /// Fails with [`VoiceError::Unavailable`] when libespeak-ng or its data is missing.
    pub fn new() -> Result<Self, VoiceError> {
        drop(engine()?);
        Ok(Espeak {
            rate_wpm: Self::DEFAULT_RATE_WPM,
        })
    }

    /// Resolves a voice id (case-insensitive) to the language espeak-ng should select.
    fn resolve(engine: &Engine, voice_id: &str) -> Option<String> {
        let id = voice_id.trim().to_ascii_lowercase();
        if id.is_empty() {
            return None;
        }
        engine
            .voices
            .iter()
            .any(|v| v.info.id == id || v.languages.contains(&id))
            .then_some(id)
    }
}

impl VoiceProvider for Espeak {
    fn synthesize(&self, text: &str, voice_id: &str) -> Result<Narration, VoiceError> {
        let guard = engine()?;
        let Some(Ok(engine)) = guard.as_ref() else {
            unreachable!("engine() returns only a ready engine");
        };
        let language = Self::resolve(engine, voice_id)
            .ok_or_else(|| VoiceError::UnknownVoice(voice_id.to_string()))?;
        let words: Vec<InputWord<'_>> = input_words(text);
        if words.is_empty() {
            return Ok(Narration {
                sample_rate: SAMPLE_RATE,
                samples: Vec::new(),
                words: Vec::new(),
            });
        }
        let raw = synthesize_raw(engine, text, &language, self.rate_wpm)?;
        let engine_rate = engine.sample_rate;
        drop(guard);

        let samples = resample_to(&raw.samples, engine_rate, SAMPLE_RATE);
        let events: Vec<WordEvent> = raw
            .words
            .iter()
            .filter(|(pos, _)| *pos > 0)
            .map(|&(pos, ms)| WordEvent {
                char_pos: (pos - 1) as usize,
                time: f64::from(ms.max(0)) / 1000.0,
            })
            .collect();
        let timings = align_words(&words, &events, &samples, SAMPLE_RATE);
        Ok(Narration {
            sample_rate: SAMPLE_RATE,
            samples,
            words: timings,
        })
    }

    fn voices(&self) -> Vec<VoiceInfo> {
        match engine() {
            Ok(guard) => match guard.as_ref() {
                Some(Ok(engine)) => engine.voices.iter().map(|v| v.info.clone()).collect(),
                _ => Vec::new(),
            },
            Err(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn espeak() -> Espeak {
        Espeak::new().expect("espeak-ng is installed (libespeak-ng1, espeak-ng-data)")
    }

    fn check_invariants(n: &Narration, text: &str) {
        let expected: Vec<&str> = text.split_whitespace().collect();
        let got: Vec<&str> = n.words.iter().map(|w| w.word.as_str()).collect();
        assert_eq!(got, expected);
        assert_eq!(n.sample_rate, 48_000);
        let duration = n.duration();
        let mut prev_end = 0.0;
        for w in &n.words {
            assert!(
                w.start >= prev_end - 1e-9,
                "overlap at {w:?}: {:?}",
                n.words
            );
            assert!(w.end >= w.start, "{w:?}");
            prev_end = w.end;
        }
        assert!(n.words[0].start >= 0.0);
        let last = n.words.last().unwrap().end;
        assert!(
            last <= duration + 1e-9 && (duration - last) < 0.3,
            "last end {last}, duration {duration}"
        );
    }

    #[test]
    fn lists_english_and_vietnamese() {
        let voices = espeak().voices();
        for id in ["en-us", "vi"] {
            assert!(
                voices.iter().any(|v| v.id == id),
                "{id} missing from {voices:?}"
            );
        }
        let vi = voices.iter().find(|v| v.id == "vi").unwrap();
        assert_eq!(vi.language, "vi");
        assert!(vi.name.contains("Vietnamese"), "{vi:?}");
    }

    #[test]
    fn unknown_voice_is_rejected() {
        let e = espeak()
            .synthesize("Hello there.", "xx-klingon")
            .unwrap_err();
        assert!(
            matches!(e, VoiceError::UnknownVoice(ref v) if v == "xx-klingon"),
            "{e:?}"
        );
        assert!(matches!(
            espeak().synthesize("Hi", ""),
            Err(VoiceError::UnknownVoice(_))
        ));
    }

    #[test]
    fn english_sentence_has_one_timing_per_word() {
        let text = "Hello, world. In 2024 the rate rose 3.5% — don't panic! See e.g. the U.S. report at https://example.com/a?b=1 now.";
        let n = espeak().synthesize(text, "en-us").unwrap();
        check_invariants(&n, text);
        assert!(n.duration() > 3.0, "{}", n.duration());
        // Aliases and case-insensitive ids work.
        let n = espeak().synthesize("Short one.", "EN").unwrap();
        check_invariants(&n, "Short one.");
    }

    #[test]
    fn word_starts_follow_speech_not_even_spacing() {
        let text =
            "I am an extraordinarily uncompromising internationalisation consultant, so I do it.";
        let n = espeak().synthesize(text, "en-us").unwrap();
        check_invariants(&n, text);
        let gaps: Vec<f64> = n
            .words
            .windows(2)
            .map(|w| w[1].start - w[0].start)
            .collect();
        // "I", "am", "an" are short; the long words take far longer than even spacing would give.
        let short = gaps[..2].iter().copied().fold(f64::MAX, f64::min);
        let long = gaps[3..5].iter().copied().fold(0.0, f64::max);
        assert!(long > 3.0 * short, "gaps {gaps:?}");
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!(var.sqrt() / mean > 0.4, "gaps too even: {gaps:?}");
    }

    #[test]
    fn vietnamese_with_diacritics() {
        let text = "Xin chào các bạn, hôm nay trời đẹp quá. Năm 2024 thật tuyệt vời!";
        let n = espeak().synthesize(text, "vi").unwrap();
        check_invariants(&n, text);
        // Each word got its own event: starts strictly increase.
        assert!(
            n.words.windows(2).all(|w| w[1].start > w[0].start),
            "{:?}",
            n.words
        );
    }

    #[test]
    fn odd_inputs_still_give_one_timing_per_word() {
        for text in [
            "— … !!",
            "a\0b c",
            "word",
            "The café's naïve résumé: 1,000,000 people (approx.) said \"no\" — twice.",
            "  spaced\n\nout\ttext  ",
            "Party 🎉🎉 time — emoji 👍 don't shift positions: café ok.",
        ] {
            let n = espeak().synthesize(text, "en-us").unwrap();
            assert_eq!(
                n.words.len(),
                text.split_whitespace().count(),
                "{text:?}: {:?}",
                n.words
            );
            let mut prev = 0.0;
            for w in &n.words {
                assert!(
                    w.start >= prev - 1e-9 && w.end >= w.start && w.end <= n.duration() + 1e-9,
                    "{text:?}: {:?}",
                    n.words
                );
                prev = w.end;
            }
        }
        let empty = espeak().synthesize(" \n ", "vi").unwrap();
        assert!(empty.samples.is_empty() && empty.words.is_empty());
    }

    #[test]
    fn concurrent_calls_are_serialised() {
        let e = espeak();
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|i| {
                    let e = e.clone();
                    s.spawn(move || {
                        let text = format!("Thread number {i} speaks these few words.");
                        let n = e
                            .synthesize(&text, if i % 2 == 0 { "en-us" } else { "vi" })
                            .unwrap();
                        assert_eq!(n.words.len(), text.split_whitespace().count());
                        n.duration()
                    })
                })
                .collect();
            for h in handles {
                assert!(h.join().unwrap() > 0.5);
            }
        });
    }

    #[test]
    fn narration_round_trips_as_wav() {
        let n = espeak()
            .synthesize("Testing the narration file.", "en-us")
            .unwrap();
        let dir = std::env::temp_dir().join(format!("espeak-wav-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("scene.wav");
        super::super::write_wav(&path, &n).unwrap();
        let mut r = hound::WavReader::open(&path).unwrap();
        assert_eq!(r.spec().sample_rate, 48_000);
        assert_eq!(r.spec().channels, 1);
        let back: Vec<i16> = r.samples::<i16>().map(Result::unwrap).collect();
        assert_eq!(back, n.samples);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
