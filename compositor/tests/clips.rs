//! Video clips as layers: frame-accurate decoding (sequential, random access, looping, trims),
//! clip backgrounds and presenter clips through the renderer, and clear resolve errors.
//!
//! The clips are made here with our own encoder from a synthetic source whose frames carry their
//! index as 12 black/white blocks, so every test can read back which source frame it got.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use compositor::frame::{FRAME_BYTES, View};
use compositor::geom::{CANVAS_W, PreviewRect};
use compositor::media::{
    AudioTrack, ClipDecoder, EncodeSettings, EncoderChoice, FrameSource, encode_mp4, probe_clip,
};
use compositor::plan::{
    Background, Clip, Narrator, ProceduralStyle, ScenePlan, Transition, VideoPlan,
};
use compositor::{ResolveError, resolve};

const BITS: usize = 12;

/// A clip of `frames` frames at `fps` whose frame `i` shows `i` in binary along its top.
pub struct Counter {
    pub width: u32,
    pub height: u32,
    pub frames: u64,
    pub fps: u32,
}

impl FrameSource for Counter {
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn fps(&self) -> u32 {
        self.fps
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        let (w, h) = (self.width as usize, self.height as usize);
        let band = h / 4;
        for (y, row) in rgba.chunks_exact_mut(w * 4).enumerate().take(h) {
            for (x, px) in row.chunks_exact_mut(4).enumerate() {
                let block = x * BITS / w;
                let v = if y < band {
                    if (index >> (BITS - 1 - block)) & 1 == 1 {
                        255
                    } else {
                        0
                    }
                } else {
                    ((x / 8 + y / 8 + index as usize * 3) % 2 * 120 + 40) as u8
                };
                px.copy_from_slice(&[v, v, (y * 255 / h) as u8, 255]);
            }
        }
    }
}

/// Reads the frame index back from the top band of an RGBA image `w` pixels wide.
pub fn read_index(rgba: &[u8], w: usize, band_y: usize) -> u64 {
    (0..BITS).fold(0, |acc, b| {
        let x = (b * w + w / 2) / BITS;
        let v = rgba[(band_y * w + x) * 4];
        (acc << 1) | u64::from(v > 128)
    })
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reelsmith-clip-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn make_clip(name: &str, source: &Counter) -> PathBuf {
    let out = scratch().join(name);
    let seconds = source.frames as f64 / f64::from(source.fps);
    let audio = AudioTrack {
        sample_rate: 48_000,
        samples: vec![0; (48_000.0 * seconds) as usize + 1],
    };
    encode_mp4(
        source,
        &audio,
        &EncodeSettings {
            width: source.width,
            height: source.height,
            encoder: EncoderChoice::Software,
            keyframe_interval_secs: 1,
            crf: 18,
            ..EncodeSettings::default()
        },
        &out,
        &mut |_, _| {},
    )
    .expect("encode the fixture clip");
    out
}

/// 3 s portrait clip at 30 fps (90 frames).
fn portrait() -> &'static Path {
    static CLIP: OnceLock<PathBuf> = OnceLock::new();
    CLIP.get_or_init(|| {
        make_clip(
            "portrait.mp4",
            &Counter {
                width: 360,
                height: 640,
                frames: 90,
                fps: 30,
            },
        )
    })
}

/// 2 s landscape clip at 25 fps (50 frames): another rate and aspect.
fn landscape() -> &'static Path {
    static CLIP: OnceLock<PathBuf> = OnceLock::new();
    CLIP.get_or_init(|| {
        make_clip(
            "landscape.mp4",
            &Counter {
                width: 480,
                height: 270,
                frames: 50,
                fps: 25,
            },
        )
    })
}

#[test]
fn probe_reads_size_rate_and_duration() {
    let info = probe_clip(portrait()).unwrap();
    assert_eq!((info.width, info.height), (360, 640));
    assert!((info.fps - 30.0).abs() < 1e-6, "{info:?}");
    assert!((info.duration - 3.0).abs() < 0.04, "{info:?}");
    let info = probe_clip(landscape()).unwrap();
    assert_eq!((info.width, info.height), (480, 270));
    assert!((info.fps - 25.0).abs() < 1e-6, "{info:?}");
}

#[test]
fn decoder_is_frame_accurate_forwards_backwards_and_past_the_end() {
    let info = probe_clip(portrait()).unwrap();
    let (w, h) = (360u32, 640u32);
    let mut d = ClipDecoder::open(portrait(), &info, w, h).unwrap();
    let index_at = |d: &mut ClipDecoder, t: f64| {
        let f = d.frame_at(t).unwrap();
        f.with_pixels(|px, stride| {
            assert_eq!(stride, w as usize * 4);
            read_index(px, w as usize, 20)
        })
        .unwrap()
    };
    // Sequential, every frame (mid-frame times and exact frame starts).
    for k in 0..90u64 {
        assert_eq!(index_at(&mut d, (k as f64 + 0.5) / 30.0), k, "sequential");
        assert_eq!(index_at(&mut d, k as f64 / 30.0), k, "frame start");
    }
    // Random access: backwards and far forwards seek.
    for k in [10u64, 3, 77, 40, 0, 89, 45] {
        assert_eq!(index_at(&mut d, (k as f64 + 0.25) / 30.0), k, "random {k}");
    }
    // Past the end: the last frame holds.
    assert_eq!(index_at(&mut d, 5.0), 89);
    assert_eq!(index_at(&mut d, 0.01), 0);
}

fn scene(duration: f64, background: Background) -> ScenePlan {
    ScenePlan {
        background_fit: Default::default(),
        duration,
        background,
        narrator: None,
        captions: vec![],
        caption_y: 330.0,
        overlay: vec![],
        transition: Transition::Cut,
    }
}

fn plan(scenes: Vec<ScenePlan>) -> VideoPlan {
    VideoPlan {
        fps: 30,
        scenes,
        fonts_dir: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/fonts")),
    }
}

#[test]
fn background_clip_loops_its_trim_window_frame_by_frame() {
    // Trim 1.0–2.0 s (frames 30..60) looped over a 2.5 s scene; rendered the way the encoder
    // does it: prefetch a window, then render the window's frames in any order.
    let clip = Clip {
        path: portrait().to_owned(),
        start: 1.0,
        end: Some(2.0),
    };
    let v = resolve(&plan(vec![scene(2.5, Background::Clip(clip))])).unwrap();
    assert!(v.has_clips());
    let mut frame = vec![0u8; FRAME_BYTES];
    let window = 4;
    let mut seen = Vec::new();
    for first in (0..v.frame_count()).step_by(window) {
        let count = (v.frame_count() - first).min(window as u64);
        v.prefetch(first, count);
        for i in (first..first + count).rev() {
            v.render_frame(i, &mut frame);
            seen.push((i, read_index(&frame, CANVAS_W as usize, 40)));
        }
    }
    for (i, got) in seen {
        assert_eq!(got, 30 + i % 30, "output frame {i}");
    }
    assert!(v.media_errors().is_empty(), "{:?}", v.media_errors());
    v.release_media();
}

#[test]
fn stills_seek_into_clips_without_prefetch() {
    let mut s = scene(3.0, Background::Clip(Clip::new(landscape())));
    s.narrator = Some(Narrator::Clip {
        clip: Clip::new(portrait()),
        rect: PreviewRect::new(70.0, 90.0, 140.0, 140.0),
    });
    let v = resolve(&plan(vec![s])).unwrap();
    let mut frame = vec![0u8; FRAME_BYTES];
    // The landscape clip (2 s at 25 fps) loops: scene time 2.7 s is clip time 0.7 s = frame 17.
    for (t, want) in [(2.7, 17u64), (0.3, 7), (1.95, 48), (0.0, 0)] {
        v.render_scene(0, t, View::Full, &mut frame);
        // Cover-fitting 480×270 into 720×1280 keeps the middle 152 px of width, so the index
        // band's middle blocks are what is visible; compare the decoded block pattern instead.
        let info = probe_clip(landscape()).unwrap();
        let mut d = ClipDecoder::open(landscape(), &info, 720, 1280).unwrap();
        let expected = d.frame_at(t % 2.0).unwrap();
        let same = expected
            .with_pixels(|px, _| px[..720 * 4 * 200] == frame[..720 * 4 * 200])
            .unwrap();
        assert!(same, "t={t}: background differs from clip frame {want}");
    }
    assert!(v.media_errors().is_empty());
}

#[test]
fn undecodable_or_missing_clips_fail_to_resolve_clearly() {
    let dir = scratch();
    let junk = dir.join("junk.mp4");
    std::fs::write(
        &junk,
        (0..40_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let wav = dir.join("voice.wav");
    let mut w = hound::WavWriter::create(
        &wav,
        hound::WavSpec {
            channels: 1,
            sample_rate: 48_000,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        },
    )
    .unwrap();
    for _ in 0..4800 {
        w.write_sample(0i16).unwrap();
    }
    w.finalize().unwrap();
    for (path, needle) in [
        (junk.clone(), "junk.mp4"),
        (dir.join("missing.mp4"), "missing.mp4"),
        (wav.clone(), "no video stream"),
    ] {
        let p = plan(vec![scene(1.0, Background::Clip(Clip::new(&path)))]);
        let e = resolve(&p).unwrap_err();
        assert!(
            matches!(
                e,
                ResolveError::Clip {
                    scene: 0,
                    role: "background",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains(needle), "{e}");
    }
    // A presenter clip is checked the same way, and a bad trim is an error too.
    let mut s = scene(
        1.0,
        Background::Procedural {
            seed: 1,
            style: ProceduralStyle::Grid,
            palette: compositor::plan::Palette::OCEAN,
        },
    );
    s.narrator = Some(Narrator::Clip {
        clip: Clip::new(&junk),
        rect: PreviewRect::new(70.0, 90.0, 140.0, 140.0),
    });
    let e = resolve(&plan(vec![s])).unwrap_err();
    assert!(
        matches!(
            e,
            ResolveError::Clip {
                role: "narrator",
                ..
            }
        ),
        "{e}"
    );
    let trimmed = Clip {
        path: portrait().to_owned(),
        start: 2.5,
        end: Some(1.0),
    };
    let e = resolve(&plan(vec![scene(1.0, Background::Clip(trimmed))])).unwrap_err();
    assert!(e.to_string().contains("trim"), "{e}");
}
