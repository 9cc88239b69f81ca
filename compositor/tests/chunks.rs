//! Per-scene chunks: a scene rendered alone gives the whole-video renderer's frames, and chunks
//! encoded apart join, without re-encoding, into one MP4 with every frame where it belongs.

use std::path::{Path, PathBuf};
use std::process::Command;

use compositor::chunk::{SceneChunk, incoming_frame};
use compositor::frame::FRAME_BYTES;
use compositor::geom::PreviewRect;
use compositor::media::convert::I420Layout;
use compositor::media::{
    AudioTrack, ChunkEncoder, ChunkFile, ClipDecoder, EncodeSettings, EncoderChoice, FrameSource,
    encode_audio, encode_mp4, encode_video, join_mp4, probe_clip,
};
use compositor::plan::{
    Background, CaptionChunk, Clip, Narrator, Palette, ProceduralStyle, ScenePlan, TimedWord,
    Transition, VideoPlan,
};
use compositor::resolve;
use compositor::resolve::Timeline;

const FPS: u32 = 30;
const BITS: usize = 12;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reelsmith-chunks-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Frames that show their own index in binary along the top band.
struct Counter {
    width: u32,
    height: u32,
    frames: std::ops::Range<u64>,
}

impl FrameSource for Counter {
    fn frame_count(&self) -> u64 {
        self.frames.end - self.frames.start
    }
    fn fps(&self) -> u32 {
        FPS
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        let index = self.frames.start + index;
        let (w, h) = (self.width as usize, self.height as usize);
        for (y, row) in rgba.chunks_exact_mut(w * 4).enumerate().take(h) {
            for (x, px) in row.chunks_exact_mut(4).enumerate() {
                let bit = (index >> (BITS - 1 - x * BITS / w)) & 1 == 1;
                let v = if y < h / 4 {
                    if bit { 255 } else { 0 }
                } else {
                    ((x / 8 + y / 8 + index as usize) % 2 * 100 + 60) as u8
                };
                px.copy_from_slice(&[v, v, v, 255]);
            }
        }
    }
}

fn read_index(rgba: &[u8], w: usize) -> u64 {
    (0..BITS).fold(0, |acc, b| {
        let x = (b * w + w / 2) / BITS;
        (acc << 1) | u64::from(rgba[(20 * w + x) * 4] > 128)
    })
}

fn settings(width: u32, height: u32) -> EncodeSettings {
    EncodeSettings {
        width,
        height,
        encoder: EncoderChoice::Software,
        ..EncodeSettings::default()
    }
}

fn tone(seconds: f64) -> AudioTrack {
    let n = (48_000.0 * seconds) as usize;
    AudioTrack {
        sample_rate: 48_000,
        samples: (0..n)
            .map(|i| ((i as f64 * 0.05).sin() * 8000.0) as i16)
            .collect(),
    }
}

/// How [`chunked`] encodes its chunks.
#[derive(Clone, Copy)]
enum Encoders {
    /// An encoder of its own per chunk ([`encode_video`]).
    Apart,
    /// One [`ChunkEncoder`] for all, fed last chunk first, as the render's walk feeds it.
    KeptLastFirst,
}

/// Encodes frames `0 .. total` as chunks cut at `cuts` and joins them.
fn chunked(dir: &Path, size: (u32, u32), cuts: &[u64], total: u64) -> PathBuf {
    chunked_by(Encoders::Apart, dir, size, cuts, total)
}

fn chunked_by(
    encoders: Encoders,
    dir: &Path,
    (width, height): (u32, u32),
    cuts: &[u64],
    total: u64,
) -> PathBuf {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(total);
    let settings = settings(width, height);
    let mut kept = match encoders {
        Encoders::Apart => None,
        Encoders::KeptLastFirst => Some(ChunkEncoder::open(&settings, FPS).unwrap()),
    };
    let mut chunks: Vec<ChunkFile> = bounds
        .windows(2)
        .enumerate()
        .rev()
        .map(|(i, w)| {
            let path = dir.join(format!("chunk{i}.mp4"));
            let source = Counter {
                width,
                height,
                frames: w[0]..w[1],
            };
            let report = match kept.as_mut() {
                Some(encoder) => encoder.encode(&source, &path, &mut |_, _| {}),
                None => encode_video(&source, &settings, &path, &mut |_, _| {}),
            };
            let report = report.unwrap();
            assert_eq!(report.frames, w[1] - w[0]);
            assert!(report.audio_encoder.is_none());
            ChunkFile {
                path,
                first_frame: w[0],
                frames: w[1] - w[0],
            }
        })
        .collect();
    chunks.reverse();
    if let Some(encoder) = kept {
        encoder.finish().unwrap();
    }
    let out = dir.join("joined.mp4");
    let audio = dir.join("audio.mp4");
    let tone = tone(total as f64 / f64::from(FPS));
    encode_audio(&tone, (total, FPS), &settings, &audio).unwrap();
    let report = join_mp4(&chunks, FPS, &audio, &out).unwrap();
    assert_eq!((report.chunks, report.frames), (chunks.len(), total));
    out
}

fn num(v: &serde_json::Value) -> f64 {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .or_else(|| v.as_f64())
        .unwrap()
}

#[test]
fn joined_chunks_show_every_frame_at_its_time_with_the_audio_in_sync() {
    let dir = scratch("join");
    let out = chunked(&dir, (192, 128), &[31, 32, 70], 95);
    every_frame_at_its_time(&out, 95);
}

/// One encoder kept open across the chunks (the walk's way, last chunk first) makes chunks
/// that each decode alone, a one-frame chunk among them, and join as chunks encoded apart do.
#[test]
fn chunks_of_one_kept_encoder_join_with_every_frame_at_its_time() {
    let dir = scratch("kept");
    let out = chunked_by(Encoders::KeptLastFirst, &dir, (192, 128), &[31, 32, 70], 95);
    every_frame_at_its_time(&out, 95);
    for (i, frames) in [(0, 31), (1, 1), (2, 38), (3, 25)] {
        let chunk = dir.join(format!("chunk{i}.mp4"));
        let probe = crate::ffprobe(&chunk, true);
        assert_eq!(num(&probe["streams"][0]["nb_read_frames"]), frames as f64);
        assert_eq!(num(&probe["streams"][0]["start_time"]), 0.0, "chunk {i}");
    }
}

/// A kept encoder dropped unfinished (a render that failed between or within chunks) still
/// puts the chunks whose frames were all handed over in place, and leaves nothing of the one
/// whose frames were not.
#[test]
fn a_dropped_kept_encoder_keeps_whole_chunks_and_leaves_no_part() {
    let dir = scratch("dropped");
    let (width, height) = (128, 96);
    let mut encoder = ChunkEncoder::open(&settings(width, height), FPS).unwrap();
    let whole = dir.join("whole.mp4");
    let source = Counter {
        width,
        height,
        frames: 0..20,
    };
    encoder.encode(&source, &whole, &mut |_, _| {}).unwrap();
    // The next chunk stops after 5 of its 20 frames: its progress callback unwinds.
    let cut = dir.join("cut.mp4");
    let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let source = Counter {
            width,
            height,
            frames: 20..40,
        };
        let _ = encoder.encode(&source, &cut, &mut |done, _| assert!(done < 5));
    }));
    assert!(stopped.is_err());
    drop(encoder);
    let probe = crate::ffprobe(&whole, true);
    assert_eq!(num(&probe["streams"][0]["nb_read_frames"]), 20.0);
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, ["whole.mp4"]);
}

/// Every frame of `out` (`total` of them) decodes at its own time, the audio beside it.
fn every_frame_at_its_time(out: &Path, total: u64) {
    let probe = crate::ffprobe(out, true);
    let streams = probe["streams"].as_array().unwrap();
    let video = streams.iter().find(|s| s["codec_type"] == "video").unwrap();
    let audio = streams.iter().find(|s| s["codec_type"] == "audio").unwrap();
    assert_eq!(num(&video["nb_read_frames"]), total as f64);
    let one_frame = 1.0 / f64::from(FPS);
    let expected = total as f64 / f64::from(FPS);
    let (v, a) = (num(&video["duration"]), num(&audio["duration"]));
    assert!(
        (v - expected).abs() <= one_frame,
        "video lasts {v} s, not {expected}"
    );
    assert!((a - v).abs() <= one_frame, "audio {a} s vs video {v} s");
    let (vs, as_) = (num(&video["start_time"]), num(&audio["start_time"]));
    assert!(
        (vs - as_).abs() <= one_frame,
        "streams start at {vs} and {as_}"
    );

    // Every frame decodes at its own time: read the index each one shows.
    let info = probe_clip(out).unwrap();
    let (width, height) = (info.width, info.height);
    let mut decoder = ClipDecoder::open(out, &info, width, height).unwrap();
    for k in 0..total {
        let frame = decoder
            .frame_at((k as f64 + 0.25) / f64::from(FPS))
            .unwrap();
        let got = frame
            .with_pixels(|px, _| read_index(px, width as usize))
            .unwrap();
        assert_eq!(got, k, "frame {k} of the joined file");
    }
}

#[test]
fn the_joined_file_starts_with_moov() {
    let dir = scratch("moov");
    let out = chunked(&dir, (128, 96), &[20], 45);
    let data = std::fs::read(&out).unwrap();
    let mut at = 0;
    let mut boxes = Vec::new();
    while at + 8 <= data.len() {
        let size = u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        boxes.push(String::from_utf8_lossy(&data[at + 4..at + 8]).into_owned());
        assert!(size >= 8);
        at += size;
    }
    let moov = boxes.iter().position(|b| b == "moov").unwrap();
    let mdat = boxes.iter().position(|b| b == "mdat").unwrap();
    assert!(moov < mdat, "{boxes:?}");
}

/// The last frames an encoder holds are encoded after the last push: a chunk's report says
/// how long that took, apart from the rest of its wall time.
#[test]
fn a_report_times_the_encoder_finishing_after_the_last_frame() {
    let dir = scratch("finish");
    let out = dir.join("a.mp4");
    let source = Counter {
        width: 128,
        height: 96,
        frames: 0..10,
    };
    let report = encode_video(&source, &settings(128, 96), &out, &mut |_, _| {}).unwrap();
    let stages = report.stages;
    assert!(stages.finish > std::time::Duration::ZERO, "{stages:?}");
    assert!(stages.finish + stages.push <= report.wall, "{report:?}");
}

#[test]
fn chunks_with_a_gap_or_other_settings_are_refused() {
    let dir = scratch("refuse");
    let a = dir.join("a.mp4");
    let b = dir.join("b.mp4");
    let source = |frames| Counter {
        width: 128,
        height: 96,
        frames,
    };
    encode_video(&source(0..10), &settings(128, 96), &a, &mut |_, _| {}).unwrap();
    // Another size is another encoding: its parameter sets cannot continue the first chunk's.
    let b_source = Counter {
        width: 160,
        height: 96,
        frames: 10..20,
    };
    encode_video(&b_source, &settings(160, 96), &b, &mut |_, _| {}).unwrap();
    let chunk = |path: &Path, first| ChunkFile {
        path: path.to_owned(),
        first_frame: first,
        frames: 10,
    };
    let out = dir.join("out.mp4");
    let audio = dir.join("audio.mp4");
    encode_audio(&tone(1.0), (20, FPS), &settings(128, 96), &audio).unwrap();
    let gap = join_mp4(&[chunk(&a, 0), chunk(&a, 11)], FPS, &audio, &out);
    assert!(gap.unwrap_err().to_string().contains("expected"));
    let mixed = join_mp4(&[chunk(&a, 0), chunk(&b, 10)], FPS, &audio, &out);
    assert!(mixed.unwrap_err().to_string().contains("other settings"));
    let short = join_mp4(
        &[ChunkFile {
            frames: 12,
            ..chunk(&a, 0)
        }],
        FPS,
        &audio,
        &out,
    );
    assert!(short.unwrap_err().to_string().contains("holds 10 frames"));
    assert!(!out.exists(), "no output from a failed join");
}

fn fonts() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/fonts"))
}

fn words(text: &str, from: f64) -> Vec<CaptionChunk> {
    let words = text
        .split(' ')
        .enumerate()
        .map(|(i, w)| TimedWord {
            word: w.into(),
            start: from + i as f64 * 0.3,
            end: from + i as f64 * 0.3 + 0.25,
        })
        .collect();
    vec![CaptionChunk { words }]
}

fn scene(duration: f64, background: Background, transition: Transition) -> ScenePlan {
    ScenePlan {
        background_fit: Default::default(),
        duration,
        background,
        narrator: Some(Narrator::Card {
            name: "Lan".into(),
            rect: PreviewRect::new(150.0, 40.0, 110.0, 150.0),
        }),
        captions: words("every frame is the same", 0.0),
        caption_y: 330.0,
        overlay: vec![],
        transition,
    }
}

/// A clip whose frames count, as a background.
fn counter_clip(dir: &Path) -> PathBuf {
    let path = dir.join("counter.mp4");
    let source = Counter {
        width: 360,
        height: 640,
        frames: 0..60,
    };
    encode_mp4(
        &source,
        &tone(2.0),
        &settings(360, 640),
        &path,
        &mut |_, _| {},
    )
    .unwrap();
    path
}

/// Durations that are not whole frames, so scene starts fall between frames.
fn three_scenes(dir: &Path) -> VideoPlan {
    let procedural = |seed| Background::Procedural {
        seed,
        style: ProceduralStyle::Bokeh,
        palette: Palette::SUNSET,
    };
    VideoPlan {
        fps: FPS,
        scenes: vec![
            scene(1.37, procedural(7), Transition::Fade),
            scene(
                1.21,
                Background::Clip(Clip::new(counter_clip(dir))),
                Transition::Fade,
            ),
            scene(1.05, procedural(9), Transition::Cut),
        ],
        fonts_dir: fonts(),
    }
}

#[test]
fn a_scene_resolved_alone_renders_the_whole_videos_frames() {
    let dir = scratch("frames");
    let plan = three_scenes(&dir);
    let whole = resolve(&plan).unwrap();
    let timeline = whole.timeline().clone();
    let layout = I420Layout::new(720, 1280).unwrap();
    let (mut a, mut b) = (vec![0u8; FRAME_BYTES], vec![0u8; FRAME_BYTES]);
    let (mut ya, mut yb) = (vec![0u8; layout.size], vec![0u8; layout.size]);
    let mut covered = 0;
    for scene in 0..plan.scenes.len() {
        let alone = resolve(&VideoPlan {
            scenes: vec![plan.scenes[scene].clone()],
            ..plan.clone()
        })
        .unwrap();
        let next = plan.scenes.get(scene + 1).map(|s| {
            let next = resolve(&VideoPlan {
                scenes: vec![s.clone()],
                ..plan.clone()
            })
            .unwrap();
            incoming_frame(&next)
        });
        let chunk = SceneChunk::new(&timeline, scene, &alone, next.as_deref());
        let frames = chunk.frames();
        assert_eq!(
            frames.start, covered,
            "scene {scene} starts where the last ended"
        );
        covered = frames.end;
        chunk.prepare(0, chunk.frame_count());
        whole.prefetch(frames.start, frames.end - frames.start);
        for k in 0..chunk.frame_count() {
            let index = frames.start + k;
            chunk.render(k, &mut a);
            whole.render_frame(index, &mut b);
            assert!(a == b, "scene {scene}, frame {index}: RGBA differs");
            let fast_a = chunk.render_i420(k, &mut a, &layout, &mut ya);
            let fast_b = whole.render_frame_i420(index, &mut b, &layout, &mut yb);
            assert_eq!(fast_a, fast_b, "frame {index}: same path");
            assert!(!fast_a || ya == yb, "frame {index}: I420 differs");
        }
        // Its crossfade alone, as a chunk of its own, gives the same frames.
        let fade = timeline.crossfade_frames(scene);
        assert_eq!(fade.is_empty(), next.is_none(), "scene {scene}");
        let tail = SceneChunk::new(&timeline, scene, &alone, next.as_deref()).part(fade.clone());
        assert_eq!(tail.frames(), fade);
        for k in 0..tail.frame_count() {
            tail.render(k, &mut a);
            whole.render_frame(fade.start + k, &mut b);
            assert!(a == b, "scene {scene}, crossfade frame {}", fade.start + k);
        }
    }
    assert_eq!(covered, whole.frame_count(), "the chunks cover the video");
}

#[test]
fn a_clip_scenes_first_frame_is_the_same_after_its_frames_were_rendered() {
    // The walk draws a scene's first frame (what the scene before fades into) after encoding
    // the scene; a render of only the scene before draws it from a fresh resolve. Both must
    // give the same pixels, or one chunk key would name two contents.
    let dir = scratch("first-frame");
    let plan = three_scenes(&dir);
    let timeline = Timeline::of(&plan).unwrap();
    let alone = || {
        resolve(&VideoPlan {
            scenes: vec![plan.scenes[1].clone()],
            ..plan.clone()
        })
        .unwrap()
    };
    let fresh = incoming_frame(&alone());
    let used = alone();
    let body = timeline.scene_frames(1).start..timeline.crossfade_frames(1).start;
    let chunk = SceneChunk::new(&timeline, 1, &used, None).part(body);
    let mut rgba = vec![0u8; FRAME_BYTES];
    for first in (0..chunk.frame_count()).step_by(4) {
        let count = (chunk.frame_count() - first).min(4);
        chunk.prepare(first, count);
        for k in first..first + count {
            chunk.render(k, &mut rgba);
        }
    }
    assert!(incoming_frame(&used) == fresh, "the first frame changed");
}

/// The H.264 stream of `mp4`, as ffmpeg copies it out.
fn elementary_stream(mp4: &Path) -> Vec<u8> {
    let mp4 = mp4.as_os_str();
    crate::ffmpeg([
        "-i".as_ref(),
        mp4,
        "-map".as_ref(),
        "0:v".as_ref(),
        "-c".as_ref(),
        "copy".as_ref(),
        "-f".as_ref(),
        "h264".as_ref(),
        "-".as_ref(),
    ])
}

/// Set in the child processes of [`the_same_frames_encode_to_the_same_bytes_whatever_the_heap_held`]:
/// encode the chunk to this path and stop.
const ENCODE_ONCE_TO: &str = "REELSMITH_TEST_ENCODE_ONCE_TO";

/// Scene 0 of [`three_scenes`] fading into scene 1, encoded to `out`.
fn encode_the_fading_scene(dir: &Path, out: &Path) {
    let plan = three_scenes(dir);
    let timeline = Timeline::of(&plan).unwrap();
    let alone = |scene: usize| {
        resolve(&VideoPlan {
            scenes: vec![plan.scenes[scene].clone()],
            ..plan.clone()
        })
        .unwrap()
    };
    let (first, next) = (alone(0), incoming_frame(&alone(1)));
    let chunk = SceneChunk::new(&timeline, 0, &first, Some(&next));
    encode_video(&chunk, &settings(720, 1280), out, &mut |_, _| {}).unwrap();
}

#[test]
#[cfg(target_env = "gnu")]
fn the_same_frames_encode_to_the_same_bytes_whatever_the_heap_held() {
    // A cached chunk is only as good as the encoder is deterministic: encoded again by a full
    // render, or by a worker on another host, the same frames must give the same bytes. x264's
    // AVX-512 code reads memory it never wrote, so its output followed whatever the heap held
    // (see `x264_asm` in `media/encode.rs`). Each encode runs in a child process whose glibc fills fresh
    // allocations with another byte (MALLOC_PERTURB_).
    if let Some(out) = std::env::var_os(ENCODE_ONCE_TO) {
        let out = PathBuf::from(out);
        encode_the_fading_scene(out.parent().unwrap(), &out);
        return;
    }
    let dir = scratch("determinism");
    let streams: Vec<Vec<u8>> = ["0", "37", "170"]
        .iter()
        .map(|perturb| {
            let out = dir.join(format!("perturb{perturb}.mp4"));
            let status = Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    // This test's own name, as libtest gave it to this thread (`chunks::…`).
                    std::thread::current().name().unwrap(),
                    "--quiet",
                ])
                .env(ENCODE_ONCE_TO, &out)
                .env("MALLOC_PERTURB_", perturb)
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(
                status.success(),
                "the encode with MALLOC_PERTURB_={perturb} failed"
            );
            elementary_stream(&out)
        })
        .collect();
    for (run, stream) in streams.iter().enumerate().skip(1) {
        assert!(stream == &streams[0], "encode {run} differs from the first");
    }
}

/// The payload of `mp4`'s `mdat` box: the encoded samples, without the header's timestamps.
fn mdat(mp4: &Path) -> Vec<u8> {
    let bytes = std::fs::read(mp4).unwrap();
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let size = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let (header, size) = match size {
            1 => (
                16,
                u64::from_be_bytes(bytes[at + 8..at + 16].try_into().unwrap()) as usize,
            ),
            0 => (8, bytes.len() - at),
            n => (8, n),
        };
        if &bytes[at + 4..at + 8] == b"mdat" {
            return bytes[at + header..at + size].to_vec();
        }
        at += size.max(8);
    }
    panic!("{} has no mdat", mp4.display());
}

#[test]
fn x264_planning_frames_in_line_encodes_the_same_samples() {
    let dir = scratch("serial-lookahead");
    let source = Counter {
        width: 320,
        height: 576,
        frames: 0..90,
    };
    let encode = |serial_lookahead: bool| {
        let path = dir.join(format!("serial-{serial_lookahead}.mp4"));
        let settings = EncodeSettings {
            serial_lookahead,
            ..settings(320, 576)
        };
        encode_video(&source, &settings, &path, &mut |_, _| {}).unwrap();
        mdat(&path)
    };
    let (threaded, in_line) = (encode(false), encode(true));
    assert!(threaded.len() > 1000, "{} bytes of samples", threaded.len());
    assert!(threaded == in_line, "the bitstreams differ");
    let _ = std::fs::remove_dir_all(&dir);
}
