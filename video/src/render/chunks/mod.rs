//! Per-scene chunk rendering: a video is encoded scene by scene, one chunk per scene (its
//! crossfade into the next scene included), into chunks kept under their cache keys ([`key`])
//! in the video's chunk folder ([`ChunkDir`]), then the chunks are joined with the soundtrack
//! without re-encoding (`compositor::media::join_mp4`).
//!
//! A re-export after an edit encodes only the chunks whose keys changed; every other chunk is
//! the same file, so its frames are bit-identical to the render that made it. Scenes are visited
//! last to first: a scene that fades into the next one needs that scene's first frame (its
//! digest for the key, its pixels to render), which the previous step has just made. So each
//! scene is resolved at most once, one at a time, and memory stays flat in the video's length.
//! The chunks a walk lacks go through one x264 encoder kept open from chunk to chunk
//! (`compositor::media::ChunkEncoder`): the next chunk's frames push the last one's out of
//! x264's lookahead, where an encoder per chunk stalled on each chunk's drain. A chunk's
//! pictures depend on its key alone; its bytes also on the chunks encoded before it in the
//! walk (x264's rate control carries over), so any file under a key is a right one.
//! With `render.lanes` above one, the scenes are cut into that many runs of about as many
//! frames, each walked so on a thread of its own with an encoder of its own; a run that ends
//! where a crossfade begins draws the next run's first frame itself.

mod cache;
pub mod key;
mod offload;

use std::path::Path;
use std::time::{Duration, Instant};

use compositor::chunk::{SceneChunk, incoming_frame};
use compositor::media::{
    ChunkEncoder, ChunkFile, EncodeSettings, FrameSource, encode_audio_from, encode_video,
    encoder_identity, join_mp4,
};
use compositor::plan::{Transition, VideoPlan};
use compositor::resolve::Timeline;
use compositor::{RENDERER_VERSION, ResolvedVideo};

pub use cache::ChunkDir;
use key::{Key, Placement};
pub(crate) use offload::Offloaded;
pub use offload::{Offload, Pending};

use crate::render::plan::{resolve_dropping_bad_overlays, resolve_message};
use crate::render::sound::Mix;
use crate::render::sound::encoded::{TurnedDown, encode_under_ceiling, peaks_over_in};
use compositor::half::HalfSize;
use foundation::document::VideoDocument;
use foundation::error::Code;
use foundation::jobs::JobFailure;

/// Why a chunked render failed.
#[derive(Debug)]
pub enum Failure {
    /// An input of the video no longer reads (a medium broke on disk, a narration file is
    /// gone): the client's to fix, by replacing it.
    Input(JobFailure),
    /// The server's own encoding failed.
    Encode(JobFailure),
}

impl Failure {
    /// The job failure, whichever side it came from.
    pub fn into_job(self) -> JobFailure {
        match self {
            Failure::Input(f) | Failure::Encode(f) => f,
        }
    }
}

fn encode_failed(e: impl std::fmt::Display) -> Failure {
    Failure::Encode(
        JobFailure::new(Code::RenderFailed, "The video could not be encoded.").because(e),
    )
}

/// What a chunked render did.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Chunks in the video.
    pub chunks: usize,
    /// Chunks encoded by this render (the rest were reused from the cache).
    pub rendered: usize,
    /// Frames in the video, and how many of them this render encoded.
    pub frames: u64,
    pub rendered_frames: u64,
    /// The H.264 encoder's identity (element, plugin version, settings).
    pub encoder: String,
    /// Wall time of the chunks (the soundtrack is made alongside), and of the join.
    pub chunks_wall: Duration,
    pub join_wall: Duration,
    /// What render workers did, when the chunks went to them.
    pub farm: Option<Offloaded>,
    /// Runs of scenes encoded at once (at most [`Render::lanes`]; one with render workers).
    pub lanes: usize,
}

/// The soundtrack of a render: the key of its inputs, and how to mix it when the cache has
/// no encoding of it.
pub struct Soundtrack<'a> {
    pub key: Key,
    /// Called on a thread of its own, while the video's chunks render.
    pub mix: &'a (dyn Fn() -> Result<Mix<'static>, JobFailure> + Sync),
}

/// One chunked render: the document, its plan, where its chunks live and how they are encoded.
pub struct Render<'a> {
    pub doc: &'a VideoDocument,
    pub plan: VideoPlan,
    pub dir: ChunkDir,
    pub encode: EncodeSettings,
    /// Chunks at half the product's size (the editor's preview clips, `render::half`).
    pub half: bool,
    /// Render workers that encode the missing chunks instead of this process
    /// (`queue.kind = "nats"`); `None` encodes them here.
    pub farm: Option<&'a dyn Offload>,
    /// Runs of scenes this process encodes at once (`render.lanes`), each with an encoder of
    /// its own: the same chunks, sooner where cores are idle, at one encoder's memory per lane.
    pub lanes: usize,
}

impl Render<'_> {
    /// Renders the chunks the cache lacks, joins every chunk with `audio` into `out`, and
    /// (`prune`) deletes the chunks of its family this render did not use (and, at the
    /// product size, the first-frame digests of scenes the video no longer has).
    /// `progress` gets frames done and the video's total (cached chunks count as done).
    pub fn run(
        &self,
        sound: &Soundtrack<'_>,
        out: &Path,
        prune: bool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Report, Failure> {
        let timeline = Timeline::of(&self.plan).map_err(|e| {
            Failure::Input(JobFailure::new(Code::RenderFailed, resolve_message(&e)))
        })?;
        let encoder = encoder_identity(&self.encode).map_err(|e| {
            Failure::Encode(
                JobFailure::new(
                    Code::RenderFailed,
                    "The renderer is misconfigured on this server.",
                )
                .because(e),
            )
        })?;
        self.dir.create().map_err(encode_failed)?;
        let started = Instant::now();
        let mut walk = Walk::new(self, &timeline, &encoder);
        // The soundtrack (mix, encode, check) is mostly one thread's work: it fills the cores
        // the video's encodes leave idle instead of waiting for them (its mix at the lowest
        // priority, `super::in_spare_time`, so that it takes none from them).
        let (chunks, audio) = std::thread::scope(|scope| {
            let audio = scope.spawn(|| self.soundtrack(sound, &timeline));
            let chunks = walk.all(progress).and_then(|chunks| {
                let farmed = self.farmed(&mut walk, &timeline, &encoder, progress)?;
                Ok((chunks, farmed))
            });
            (chunks, audio.join())
        });
        let (chunks, farm) = chunks?;
        let chunks_wall = started.elapsed();
        let audio = audio.map_err(|_| encode_failed("the soundtrack thread panicked"))??;
        let joined = join_mp4(&chunks, timeline.fps(), &audio, out).map_err(encode_failed)?;
        if prune {
            // First-frame digests belong to the product-size family: a preview (one scene
            // alone) neither needs nor keeps the others.
            let mut keep: Vec<_> = chunks.iter().map(|c| c.path.clone()).collect();
            keep.push(audio);
            let pictures = (!self.half).then(|| walk.pictures.iter().cloned().collect());
            self.dir.prune(&keep, pictures.as_ref());
        }
        Ok(Report {
            chunks: chunks.len(),
            rendered: walk.rendered,
            frames: timeline.frame_count(),
            rendered_frames: walk.rendered_frames,
            lanes: walk.lanes,
            encoder,
            chunks_wall,
            join_wall: joined.wall,
            farm,
        })
    }

    /// Hands the chunks the walk left to render workers, when there are workers, and waits
    /// for them to be in the chunk folder.
    fn farmed(
        &self,
        walk: &mut Walk<'_>,
        timeline: &Timeline,
        encoder: &str,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Option<Offloaded>, Failure> {
        let Some(farm) = self.farm else {
            return Ok(None);
        };
        let pending = std::mem::take(&mut walk.pending);
        let total = timeline.frame_count();
        let base = walk.done;
        let report = farm.render(self, encoder, pending, &mut |done| {
            progress(base + done, total);
        })?;
        walk.rendered += report.chunks;
        walk.rendered_frames += report.frames;
        progress(total, total);
        Ok(Some(report))
    }
}

/// Scene `scene` of `plan` resolved alone; a scene whose overlay does not resolve loses it.
fn resolve_alone(plan: &VideoPlan, topic: &str, scene: usize) -> Result<ResolvedVideo, Failure> {
    let mut alone = VideoPlan {
        scenes: vec![plan.scenes[scene].clone()],
        ..plan.clone()
    };
    resolve_dropping_bad_overlays(topic, &mut alone, scene).map_err(Failure::Input)
}

/// Encodes timeline frames `frames` of scene `scene` of `plan` to `out` at the product size,
/// crossfading into scene `scene + 1` when `incoming` (the digest of that scene's first frame,
/// as the chunk's key has it) is given: a chunk made apart from the walk, by a render worker.
/// The same resolving and drawing as the walk's, so the same frames; a first frame drawn here
/// that is not the one the key names fails, rather than store other frames under the key.
pub(crate) fn render_part(
    plan: &VideoPlan,
    topic: &str,
    (scene, frames, incoming): (usize, std::ops::Range<u64>, Option<&str>),
    encode: &EncodeSettings,
    out: &Path,
    progress: &mut dyn FnMut(u64),
) -> Result<u64, Failure> {
    let timeline = Timeline::of(plan)
        .map_err(|e| Failure::Input(JobFailure::new(Code::RenderFailed, resolve_message(&e))))?;
    let fades = incoming.is_some();
    if scene >= plan.scenes.len() || (fades && scene + 1 >= plan.scenes.len()) {
        return Err(encode_failed(format!(
            "chunk task names scene {scene} of {}",
            plan.scenes.len()
        )));
    }
    let resolved = resolve_alone(plan, topic, scene)?;
    let pixels = match incoming {
        Some(digest) => {
            let pixels = incoming_frame(&resolve_alone(plan, topic, scene + 1)?);
            let drawn = key::frame(&pixels);
            if drawn != digest {
                return Err(encode_failed(format!(
                    "scene {}'s first frame drew as {drawn}, the chunk key names {digest}",
                    scene + 2
                )));
            }
            Some(pixels)
        }
        None => None,
    };
    let chunk = SceneChunk::new(&timeline, scene, &resolved, pixels.as_deref()).part(frames);
    let report =
        encode_video(&chunk, encode, out, &mut |done, _| progress(done)).map_err(encode_failed)?;
    Ok(report.frames)
}

impl Render<'_> {
    /// The encoded soundtrack of `sound`, cut to the video's length: from the cache, or mixed
    /// and encoded into it.
    fn soundtrack(
        &self,
        sound: &Soundtrack<'_>,
        timeline: &Timeline,
    ) -> Result<std::path::PathBuf, Failure> {
        let length = (timeline.frame_count(), timeline.fps());
        let path = self
            .dir
            .audio(&key::audio(&sound.key, length, self.encode.audio_bitrate));
        if path.is_file() {
            return Ok(path);
        }
        let mix = super::in_spare_time(sound.mix)
            .ok_or_else(|| encode_failed("the mixing thread panicked"))?
            .map_err(Failure::Input)?;
        let (rate, channels) = (mix.rate(), mix.channels());
        // Trial encodes go beside the cache entry, which appears only once under the ceiling.
        let trial = path.with_extension("trial.mp4");
        encode_under_ceiling(|rounds, ceiling| {
            let mut samples = TurnedDown::new(mix.samples(), rounds, rate);
            encode_audio_from((&mut samples, rate), length, &self.encode, &trial)?;
            peaks_over_in(&trial, (rate, channels), ceiling)
        })
        .map_err(encode_failed)?;
        std::fs::rename(&trial, &path).map_err(encode_failed)?;
        Ok(path)
    }
}

/// A scene's first frame, as the scene before it fades into it.
struct FirstFrame {
    digest: Key,
    /// The pixels, when this render drew them.
    pixels: Option<Vec<u8>>,
}

/// A scene's chunk: its frames, under their key.
struct Part {
    key: Key,
    path: std::path::PathBuf,
    frames: std::ops::Range<u64>,
    /// The digest of the next scene's first frame when the scene crossfades into it.
    incoming: Option<Key>,
}

/// The scenes whose first frames are `starts` (in order; the video has `total` frames) cut into
/// at most `lanes` runs of about as many frames each: a run starts at the first scene at or
/// past each `total / lanes` mark. A video of one scene is one run.
fn runs(
    starts: impl Iterator<Item = u64>,
    total: u64,
    lanes: usize,
) -> Vec<std::ops::Range<usize>> {
    let lanes = lanes.max(1) as u64;
    let mut firsts = vec![0];
    let mut scenes = 0;
    for (scene, start) in starts.enumerate() {
        scenes = scene + 1;
        let marks_passed = (firsts.len() as u64) * total;
        if scene > 0 && (firsts.len() as u64) < lanes && start * lanes >= marks_passed {
            firsts.push(scene);
        }
    }
    firsts.push(scenes);
    firsts.dedup();
    firsts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// The walk over a video's scenes, last to first.
struct Walk<'a> {
    render: &'a Render<'a>,
    timeline: &'a Timeline,
    encoder: &'a str,
    pictures: Vec<Key>,
    rendered: usize,
    rendered_frames: u64,
    done: u64,
    /// The missing chunks left to render workers (only when the render has a farm).
    pending: Vec<Pending>,
    /// Runs of scenes walked at once.
    lanes: usize,
    /// Whether this walk is one of several at once: its encodes then plan frames in line
    /// ([`EncodeSettings::serial_lookahead`]), which the other lanes' work makes up for.
    beside_others: bool,
}

impl<'a> Walk<'a> {
    fn new(render: &'a Render<'a>, timeline: &'a Timeline, encoder: &'a str) -> Self {
        let fonts = key::fonts_digest(&render.plan.fonts_dir);
        let pictures = render
            .plan
            .scenes
            .iter()
            .map(|s| key::picture(s, &fonts, RENDERER_VERSION))
            .collect();
        Walk {
            render,
            timeline,
            encoder,
            pictures,
            rendered: 0,
            rendered_frames: 0,
            done: 0,
            pending: Vec::new(),
            lanes: 1,
            beside_others: false,
        }
    }

    /// Whether scene `scene` crossfades into a scene after it.
    fn fades(&self, scene: usize) -> bool {
        scene + 1 < self.render.plan.scenes.len()
            && self.render.plan.scenes[scene].transition == Transition::Fade
    }

    /// Every scene's chunks, in timeline order (scenes shorter than a frame have none): in
    /// runs of scenes encoded at once ([`Walk::runs`]), or one run.
    fn all(&mut self, progress: &mut dyn FnMut(u64, u64)) -> Result<Vec<ChunkFile>, Failure> {
        let total = self.timeline.frame_count();
        let runs = self.runs();
        self.lanes = runs.len().max(1);
        let chunks = if runs.len() < 2 {
            let scenes = 0..self.pictures.len();
            self.range(scenes, None, &mut |done| progress(done, total))?
        } else {
            self.in_lanes(&runs, &mut |done| progress(done, total))?
        };
        progress(self.done, total);
        Ok(chunks)
    }

    /// The runs of scenes the walk encodes at once ([`Render::lanes`]): one when render
    /// workers encode the chunks instead.
    fn runs(&self) -> Vec<std::ops::Range<usize>> {
        let lanes = if self.render.farm.is_some() {
            1
        } else {
            self.render.lanes
        };
        let starts = (0..self.pictures.len()).map(|s| self.timeline.scene_frames(s).start);
        runs(starts, self.timeline.frame_count(), lanes)
    }

    /// Walks each of `runs` on a thread of its own, at once, and adds up what they did.
    /// `progress` gets the frames of all runs done, on this thread.
    fn in_lanes(
        &mut self,
        runs: &[std::ops::Range<usize>],
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<ChunkFile>, Failure> {
        let mut walks: Vec<Walk<'a>> = runs.iter().map(|_| self.lane()).collect();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<(usize, u64)>();
        let results = std::thread::scope(|scope| {
            let handles: Vec<_> = walks
                .iter_mut()
                .zip(runs)
                .enumerate()
                .map(|(lane, (walk, scenes))| {
                    let done_tx = done_tx.clone();
                    scope.spawn(move || {
                        let next = walk.boundary(scenes.end)?;
                        walk.range(scenes.clone(), next, &mut |done| {
                            let _ = done_tx.send((lane, done));
                        })
                    })
                })
                .collect();
            drop(done_tx);
            let mut done = vec![0; runs.len()];
            for (lane, frames) in done_rx {
                done[lane] = frames;
                progress(done.iter().sum());
            }
            handles.into_iter().map(|h| h.join()).collect::<Vec<_>>()
        });
        let mut chunks = Vec::with_capacity(self.pictures.len());
        for (walk, result) in walks.into_iter().zip(results) {
            self.rendered += walk.rendered;
            self.rendered_frames += walk.rendered_frames;
            self.done += walk.done;
            chunks.extend(result.map_err(|_| encode_failed("a render lane panicked"))??);
        }
        Ok(chunks)
    }

    /// A walk of its own over some of the same video's scenes, for a lane.
    fn lane(&self) -> Walk<'a> {
        Walk {
            pictures: self.pictures.clone(),
            rendered: 0,
            rendered_frames: 0,
            done: 0,
            pending: Vec::new(),
            lanes: 1,
            beside_others: true,
            ..*self
        }
    }

    /// Scene `next`'s first frame, for a lane that ends before it, when the scene before it
    /// fades into it: the remembered digest, else drawn.
    fn boundary(&self, next: usize) -> Result<Option<FirstFrame>, Failure> {
        if next == 0 || next >= self.pictures.len() || !self.fades(next - 1) {
            return Ok(None);
        }
        let remembered = self.render.dir.first_frame(&self.pictures[next]);
        let resolved = match remembered {
            Some(_) => None,
            None => Some(self.resolve(next)?),
        };
        Ok(Some(self.first_frame(next, resolved.as_ref(), remembered)))
    }

    /// The chunks of `scenes`, in timeline order, walked last to first; the last of them
    /// fades into `next` when it fades. `progress` gets this walk's frames done.
    fn range(
        &mut self,
        scenes: std::ops::Range<usize>,
        mut next: Option<FirstFrame>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<ChunkFile>, Failure> {
        let mut chunks = Vec::with_capacity(scenes.len());
        // Opened at the first chunk the cache lacks; its files are all in place once finished.
        let mut encoder = None;
        for scene in scenes.rev() {
            let incoming = if self.fades(scene) { next.take() } else { None };
            let (chunk, first) = self.scene(scene, incoming, &mut encoder, progress)?;
            chunks.extend(chunk);
            next = first;
        }
        if let Some(encoder) = encoder {
            let started = Instant::now();
            encoder.finish().map_err(encode_failed)?;
            tracing::debug!(
                topic = %self.render.doc.topic_id,
                finish_ms = started.elapsed().as_millis(),
                "chunks finished"
            );
        }
        chunks.reverse();
        Ok(chunks)
    }

    /// Scene `scene`'s chunk (reused or rendered; none for a scene shorter than a frame): all
    /// its frames, its crossfade into the next scene included. Also its first frame, when the
    /// scene before fades into it.
    ///
    /// One chunk per scene, not the crossfade apart: when each chunk started and drained an
    /// encoder of its own, that cost a 9-frame crossfade about 200 ms. Without its 12 crossfade
    /// chunks, a 13-scene video's chunks took a median 0.4 s less (13 alternated pairs on 2
    /// cores, 10.2–15.2 s), and 0.6 s less system time. An edit that changes a scene's first
    /// frame now encodes the scene before it again, not only that scene's 9 crossfading frames.
    fn scene(
        &mut self,
        scene: usize,
        incoming: Option<FirstFrame>,
        encoder: &mut Option<ChunkEncoder>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(Option<ChunkFile>, Option<FirstFrame>), Failure> {
        let frames = self.timeline.scene_frames(scene);
        let fades = !self.timeline.crossfade_frames(scene).is_empty();
        let incoming = incoming.filter(|_| fades);
        let part = (!frames.is_empty()).then(|| self.part(scene, frames, incoming.as_ref()));
        let before_fades = scene > 0 && self.fades(scene - 1);
        let remembered = before_fades
            .then(|| self.render.dir.first_frame(&self.pictures[scene]))
            .flatten();
        let missing = part.as_ref().is_some_and(|p| !p.path.is_file());
        // With render workers, this process resolves a scene only for its first frame.
        let resolved =
            if (missing && self.render.farm.is_none()) || (before_fades && remembered.is_none()) {
                Some(self.resolve(scene)?)
            } else {
                None
            };
        if let Some(part) = &part {
            let farmed = missing && self.render.farm.is_some();
            if farmed {
                self.pending.push(Pending {
                    scene,
                    frames: part.frames.clone(),
                    incoming: part.incoming.clone(),
                    key: part.key.clone(),
                    path: part.path.clone(),
                });
            } else if let (true, Some(resolved)) = (missing, &resolved) {
                let pixels = match (&part.incoming, incoming.and_then(|f| f.pixels)) {
                    (None, _) => None,
                    (Some(_), Some(pixels)) => Some(pixels),
                    (Some(_), None) => Some(incoming_frame(&self.resolve(scene + 1)?)),
                };
                let chunk = SceneChunk::new(self.timeline, scene, resolved, pixels.as_deref());
                self.encode(&chunk, &part.path, encoder, progress)?;
            }
            if !farmed {
                self.done += part.frames.end - part.frames.start;
                progress(self.done);
            }
        }
        if let Some(resolved) = &resolved {
            self.warn_media_errors(scene, resolved);
        }
        let first = before_fades.then(|| self.first_frame(scene, resolved.as_ref(), remembered));
        let chunk = part.map(|p| ChunkFile {
            path: p.path,
            first_frame: p.frames.start,
            frames: p.frames.end - p.frames.start,
        });
        Ok((chunk, first))
    }

    /// The chunk of `frames` of scene `scene`, which fades into `incoming` when given.
    fn part(
        &self,
        scene: usize,
        frames: std::ops::Range<u64>,
        incoming: Option<&FirstFrame>,
    ) -> Part {
        let placement = Placement {
            frames: frames.clone(),
            start: self.timeline.scene_start(scene).unwrap_or(0.0),
            fps: self.timeline.fps(),
            incoming: incoming.map(|f| f.digest.as_str()),
        };
        let key = key::chunk(&self.pictures[scene], &placement, self.encoder);
        Part {
            path: self.render.dir.chunk(&key),
            key,
            frames,
            incoming: incoming.map(|f| f.digest.clone()),
        }
    }

    /// Scene `scene`'s first frame: drawn from `resolved` when the scene was resolved, else
    /// the remembered digest.
    fn first_frame(
        &self,
        scene: usize,
        resolved: Option<&ResolvedVideo>,
        remembered: Option<Key>,
    ) -> FirstFrame {
        match resolved {
            Some(resolved) => {
                let pixels = incoming_frame(resolved);
                let digest = key::frame(&pixels);
                self.render
                    .dir
                    .remember_first_frame(&self.pictures[scene], &digest);
                FirstFrame {
                    digest,
                    pixels: Some(pixels),
                }
            }
            None => FirstFrame {
                digest: remembered.unwrap_or_default(),
                pixels: None,
            },
        }
    }

    /// Scene `scene` resolved alone; a scene whose overlay does not resolve loses it.
    ///
    /// After the scene before has handed all its frames over, not beside them. With an encoder
    /// per chunk (until 2026-12-02), resolving scene `k - 1` while scene `k`'s encoder drained
    /// its last frames (scene `k` handed back and dropped first) took a median 0.2 s (0.5 s with
    /// scene `k` still held) off a 9–10 s walk of 13 scenes, but the daemon's render peak for a
    /// 5-minute video (`bench_memory.py`) rose from 238–270 MB to 265–321 MB, past the 300 MB
    /// aim. Its first resolve grew the RSS by about 29 MB on a cold heap (41 MB while
    /// resolving), though a scene's layers hold about 10 MB (a 150-word video's: plate 4.5 MB,
    /// its planar copy 3.3 MB, captions up to 1.5 MB). `malloc_trim` brought the peak back to
    /// 247–261 MB but its system time cost the gain, and waiting for the soundtrack to be made
    /// first still peaked at 264–317 MB (measured 2026-12-01, alternated runs on 2 cores).
    /// The kept encoder now holds its frames through each resolve, and there the same
    /// 5-minute render peaked at 232–233 MB against 221–246 MB with encoders apart: x264's
    /// frames are mapped once per walk instead of once per chunk. With it, resolving scene
    /// `k - 1` on a thread of its own while scene `k` encoded saved nothing (a 150-word
    /// script: median of 6 alternated runs 9.50 s against 9.55 s, 2026-12-02, 2 cores):
    /// x264 is still at work on the frames it holds while the walk resolves.
    fn resolve(&self, scene: usize) -> Result<ResolvedVideo, Failure> {
        let started = Instant::now();
        let resolved = resolve_alone(&self.render.plan, &self.render.doc.topic_id, scene);
        tracing::debug!(
            topic = %self.render.doc.topic_id,
            scene = scene + 1,
            ms = started.elapsed().as_millis(),
            "scene resolved"
        );
        resolved
    }

    /// Encodes `chunk` to `path`, at half size when the render asks for it, with `encoder`
    /// (opened here for the walk's first missing chunk): its file is in place once the
    /// encoder is finished.
    fn encode(
        &mut self,
        chunk: &SceneChunk<'_>,
        path: &Path,
        encoder: &mut Option<ChunkEncoder>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), Failure> {
        let half = HalfSize { inner: chunk };
        let frames: &dyn FrameSource = if self.render.half { &half } else { chunk };
        let base = self.done;
        let encoder = match encoder {
            Some(encoder) => encoder,
            None => {
                let settings = EncodeSettings {
                    serial_lookahead: self.beside_others,
                    ..self.render.encode.clone()
                };
                let opened = ChunkEncoder::open(&settings, self.timeline.fps());
                encoder.insert(opened.map_err(encode_failed)?)
            }
        };
        let report = encoder
            .encode(frames, path, &mut |done, _| progress(base + done))
            .map_err(encode_failed)?;
        let stages = &report.stages;
        tracing::debug!(
            topic = %self.render.doc.topic_id,
            frames = report.frames,
            wall_ms = report.wall.as_millis(),
            render_cpu_ms = (stages.render + stages.convert).as_millis(),
            push_blocked_ms = stages.push.as_millis(),
            "chunk encoded"
        );
        self.rendered += 1;
        self.rendered_frames += report.frames;
        Ok(())
    }

    fn warn_media_errors(&self, scene: usize, resolved: &ResolvedVideo) {
        for error in resolved.media_errors() {
            tracing::warn!(
                topic = %self.render.doc.topic_id,
                scene = scene + 1,
                %error,
                "a clip stopped decoding; its last frame was held"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn runs_cut_the_scenes_where_each_share_of_the_frames_begins() {
        // Scenes of 100, 50, 50, 100 and 100 frames: 400 in all.
        let starts = [0, 100, 150, 200, 300];
        assert_eq!(runs(starts.into_iter(), 400, 1), vec![0..5]);
        assert_eq!(runs(starts.into_iter(), 400, 2), [0..3, 3..5]);
        assert_eq!(runs(starts.into_iter(), 400, 4), [0..1, 1..3, 3..4, 4..5]);
    }

    #[test]
    fn a_long_scene_makes_fewer_runs_and_one_scene_is_one_run() {
        // A first scene of 390 frames holds every mark but the last.
        assert_eq!(runs([0, 390].into_iter(), 400, 4), [0..1, 1..2]);
        assert_eq!(runs([0].into_iter(), 400, 2), vec![0..1]);
        assert_eq!(
            runs(std::iter::empty(), 0, 2),
            Vec::<std::ops::Range<usize>>::new()
        );
    }
}
