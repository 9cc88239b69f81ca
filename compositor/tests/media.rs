//! End-to-end tests of `compositor::media`: real GStreamer pipelines, checked with ffprobe and by
//! reading the MP4's top-level boxes ourselves.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use compositor::media::{
    AudioTrack, EncodeSettings, EncoderChoice, FrameSource, MediaError, decode_audio, encode_mp4,
    probe_duration,
};
use serde_json::Value;

const WIDTH: u32 = 720;
const HEIGHT: u32 = 1280;
const FPS: u32 = 30;
const FRAMES: u64 = 90; // 3 s
const ONE_FRAME: f64 = 1.0 / FPS as f64;

/// A moving diagonal gradient with the frame index drawn as 16 binary blocks along the top.
struct Synthetic {
    frames: u64,
}

impl FrameSource for Synthetic {
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn fps(&self) -> u32 {
        FPS
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        let (w, h) = (WIDTH as usize, HEIGHT as usize);
        let shift = (index * 8) as usize;
        for (y, row) in rgba.chunks_exact_mut(w * 4).enumerate().take(h) {
            for (x, px) in row.chunks_exact_mut(4).enumerate() {
                let block = x / (w / 16);
                let bit = y < 40 && block < 16 && (index >> (15 - block)) & 1 == 1;
                let v = if y < 40 {
                    if bit { 255 } else { 0 }
                } else {
                    ((x + y + shift) % 256) as u8
                };
                px.copy_from_slice(&[v, ((y * 255) / h) as u8, 255 - v, 255]);
            }
        }
    }
}

fn sine(sample_rate: u32, seconds: f64, freq: f64) -> AudioTrack {
    let n = (f64::from(sample_rate) * seconds).round() as usize;
    let samples = (0..n)
        .map(|i| {
            let t = i as f64 / f64::from(sample_rate);
            (0.5 * (2.0 * std::f64::consts::PI * freq * t).sin() * f64::from(i16::MAX)) as i16
        })
        .collect();
    AudioTrack {
        sample_rate,
        samples,
    }
}

fn rms(samples: &[i16]) -> f64 {
    let sum: f64 = samples.iter().map(|&s| f64::from(s).powi(2)).sum();
    (sum / samples.len().max(1) as f64).sqrt()
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reelsmith-media-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn software() -> EncodeSettings {
    EncodeSettings {
        encoder: EncoderChoice::Software,
        ..EncodeSettings::default()
    }
}

/// The reference encode (3 s, 48 kHz tone 2.5 s long, so padded), shared by several tests.
fn reference_mp4() -> &'static Path {
    static MP4: OnceLock<PathBuf> = OnceLock::new();
    MP4.get_or_init(|| {
        let out = scratch().join("reference.mp4");
        let mut calls = Vec::new();
        let report = encode_mp4(
            &Synthetic { frames: FRAMES },
            &sine(48_000, 2.5, 440.0),
            &software(),
            &out,
            &mut |done, total| calls.push((done, total)),
        )
        .expect("encode");
        assert_eq!(report.encoder, "libx264");
        assert!(!report.hardware);
        assert_eq!(report.frames, FRAMES);
        assert!((report.duration_secs - 3.0).abs() < 1e-9);
        assert_eq!(calls.last(), Some(&(FRAMES, FRAMES)));
        assert!(
            calls.windows(2).all(|w| w[0].0 <= w[1].0),
            "progress is monotonic"
        );
        eprintln!(
            "reference encode: {} frames in {:.2?} ({:.1} fps) with {} + {:?}",
            report.frames,
            report.wall,
            report.fps(),
            report.encoder,
            report.audio_encoder
        );
        out
    })
}

fn stream<'a>(probe: &'a Value, kind: &str) -> &'a Value {
    probe["streams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["codec_type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} stream in {probe:#}"))
}

fn num(v: &Value) -> f64 {
    v.as_str()
        .map(|s| s.parse().unwrap())
        .or_else(|| v.as_f64())
        .unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The top-level ISO-BMFF boxes of a file, in order.
fn top_level_boxes(path: &Path) -> Vec<String> {
    let data = std::fs::read(path).unwrap();
    let mut boxes = Vec::new();
    let mut at = 0usize;
    while at + 8 <= data.len() {
        let size32 = u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as u64;
        let kind = String::from_utf8_lossy(&data[at + 4..at + 8]).into_owned();
        let size = match size32 {
            0 => (data.len() - at) as u64,
            1 => u64::from_be_bytes(data[at + 8..at + 16].try_into().unwrap()),
            n => n,
        };
        assert!(size >= 8, "box {kind} at {at} has size {size}");
        boxes.push(kind);
        at += size as usize;
    }
    assert_eq!(at, data.len(), "boxes cover the file exactly");
    boxes
}

#[test]
fn encode_produces_the_product_format() {
    let mp4 = reference_mp4();
    let probe = crate::ffprobe(mp4, false);
    let video = stream(&probe, "video");
    let audio = stream(&probe, "audio");

    assert_eq!(video["codec_name"], "h264");
    assert_eq!(video["profile"], "High");
    assert_eq!(video["pix_fmt"], "yuv420p");
    assert_eq!(video["width"], WIDTH);
    assert_eq!(video["height"], HEIGHT);
    assert_eq!(video["r_frame_rate"], "30/1");
    assert_eq!(video["avg_frame_rate"], "30/1");
    assert_eq!(num(&video["nb_frames"]), FRAMES as f64);
    assert_eq!(video["color_space"], "bt709", "{video:#}");
    assert_eq!(video["color_range"], "tv");

    assert_eq!(audio["codec_name"], "aac");
    assert_eq!(num(&audio["sample_rate"]), 48_000.0);
    // Stereo, whatever the source: this one's mono tone is centred (its level, both
    // channels, is checked by `probe_and_decode_the_encoded_mp4`).
    assert_eq!(num(&audio["channels"]), 2.0);

    let expected = FRAMES as f64 / f64::from(FPS);
    let total = num(&probe["format"]["duration"]);
    assert!(
        (total - expected).abs() <= ONE_FRAME,
        "file lasts {total} s, expected {expected}"
    );
    let (v, a) = (num(&video["duration"]), num(&audio["duration"]));
    assert!((v - expected).abs() <= ONE_FRAME, "video lasts {v} s");
    assert!((a - v).abs() <= ONE_FRAME, "audio {a} s vs video {v} s");
    let (vs, as_) = (num(&video["start_time"]), num(&audio["start_time"]));
    assert!(
        (vs - as_).abs() <= ONE_FRAME,
        "streams start at {vs} and {as_}"
    );
}

#[test]
fn moov_precedes_mdat() {
    let boxes = top_level_boxes(reference_mp4());
    let moov = boxes.iter().position(|b| b == "moov").expect("moov box");
    let mdat = boxes.iter().position(|b| b == "mdat").expect("mdat box");
    assert!(moov < mdat, "top-level boxes: {boxes:?}");
    assert_eq!(boxes[0], "ftyp");
}

#[test]
fn no_temporary_files_are_left_behind() {
    let mp4 = reference_mp4();
    let leftovers: Vec<_> = std::fs::read_dir(mp4.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".reference.mp4"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn long_audio_at_another_rate_is_resampled_and_trimmed() {
    let out = scratch().join("trimmed.mp4");
    let frames = 45; // 1.5 s
    encode_mp4(
        &Synthetic { frames },
        &sine(44_100, 4.0, 300.0),
        &EncodeSettings {
            threads: Some(2),
            ..software()
        },
        &out,
        &mut |_, _| {},
    )
    .unwrap();
    let probe = crate::ffprobe(&out, false);
    let (video, audio) = (stream(&probe, "video"), stream(&probe, "audio"));
    assert_eq!(num(&audio["sample_rate"]), 48_000.0);
    let (v, a) = (num(&video["duration"]), num(&audio["duration"]));
    assert!((v - 1.5).abs() <= ONE_FRAME, "video lasts {v} s");
    assert!((a - v).abs() <= ONE_FRAME, "audio {a} s vs video {v} s");
}

/// A 16-bit WAV at `path` of `samples` (interleaved when `channels` is 2).
fn write_wav(path: &Path, (sample_rate, channels): (u32, u16), samples: &[i16]) {
    let spec = hound::WavSpec {
        channels,
        sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(path, spec).unwrap();
    for &s in samples {
        writer.write_sample(s).unwrap();
    }
    writer.finalize().unwrap();
}

/// The offset (samples) at which `burst` best matches `pcm`, searched within ±`reach` of
/// `at`.
fn best_offset(pcm: &[i16], burst: &[i16], at: usize, reach: usize) -> i64 {
    (at - reach..=at + reach)
        .max_by_key(|&k| {
            burst
                .iter()
                .zip(&pcm[k..])
                .map(|(&b, &p)| i64::from(b) * i64::from(p))
                .sum::<i64>()
        })
        .map(|k| k as i64 - at as i64)
        .unwrap()
}

#[test]
fn an_aac_recording_with_an_edit_list_decodes_in_place() {
    // A phone's or ffmpeg's M4A says in an edit list to skip its encoder's priming: the decode
    // starts at the recording's first sample, whichever AAC decoder GStreamer runs.
    let dir = scratch();
    let wav = dir.join("burst.wav");
    let tone = sine(48_000, 0.1, 440.0);
    let mut samples = vec![0i16; 96_000];
    samples[48_000..52_800].copy_from_slice(&tone.samples[..4_800]);
    write_wav(&wav, (48_000, 1), &samples);
    let m4a = dir.join("burst.m4a");
    crate::ffmpeg([
        "-y".as_ref(),
        "-i".as_ref(),
        wav.as_os_str(),
        "-c:a".as_ref(),
        "aac".as_ref(),
        "-b:a".as_ref(),
        "128k".as_ref(),
        m4a.as_os_str(),
    ]);

    let pcm = decode_audio(&m4a, 48_000).unwrap();
    // GStreamer (1.22) ends an edit-listed track up to a frame early, libav's decoder as faad.
    assert!(
        pcm.samples.len().abs_diff(96_000) <= 1_024,
        "{} samples, not 2 s",
        pcm.samples.len()
    );
    let offset = best_offset(&pcm.samples, &samples[48_000..52_800], 48_000, 2_048);
    assert!(offset.abs() <= 2, "the tone lands {offset} samples off");
}

#[test]
fn probe_and_decode_a_wav() {
    let path = scratch().join("tone.wav");
    let tone = sine(44_100, 1.5, 440.0);
    let stereo: Vec<i16> = tone.samples.iter().flat_map(|&s| [s, s]).collect();
    write_wav(&path, (44_100, 2), &stereo);

    let duration = probe_duration(&path).unwrap();
    assert!((duration - 1.5).abs() < 0.001, "{duration}");

    let pcm = decode_audio(&path, 48_000).unwrap();
    assert_eq!(pcm.sample_rate, 48_000);
    let expected = 72_000.0;
    assert!(
        (pcm.samples.len() as f64 - expected).abs() < 48.0,
        "{} samples",
        pcm.samples.len()
    );
    // Stereo with identical channels mixes down to the same tone (RMS of a 0.5 sine ≈ 0.354).
    let level = rms(&pcm.samples) / f64::from(i16::MAX);
    assert!((level - 0.354).abs() < 0.02, "rms {level}");

    let low = decode_audio(&path, 16_000).unwrap();
    assert!(
        (low.samples.len() as f64 - 24_000.0).abs() < 16.0,
        "{}",
        low.samples.len()
    );
}

#[test]
fn probe_and_decode_the_encoded_mp4() {
    let mp4 = reference_mp4();
    let duration = probe_duration(mp4).unwrap();
    assert!((duration - 3.0).abs() <= ONE_FRAME, "{duration}");

    let pcm = decode_audio(mp4, 48_000).unwrap();
    let seconds = pcm.duration_secs();
    assert!((seconds - 3.0).abs() <= ONE_FRAME, "{seconds} s of audio");
    // The tone (first 2.5 s) survives AAC; the padding (last 0.5 s) is silence.
    let tone = &pcm.samples[4_800..110_000];
    let pad = &pcm.samples[pcm.samples.len() - 12_000..];
    let level = rms(tone) / f64::from(i16::MAX);
    assert!((level - 0.354).abs() < 0.03, "tone rms {level}");
    assert!(rms(pad) < 50.0, "padding rms {}", rms(pad));
    assert_mono_is_centred(mp4, level);

    // A/V sync: the tone is where it was pushed, sample-exactly (the AAC encoder's priming is
    // compensated), not 1024 samples (21 ms) late.
    let misalignment = |shift: i64| {
        let reference = sine(48_000, 2.5, 440.0);
        let err: f64 = (10_000..40_000)
            .map(|k: i64| {
                let want = f64::from(reference.samples[(k - shift) as usize]);
                (f64::from(pcm.samples[k as usize]) - want).powi(2)
            })
            .sum();
        (err / 30_000.0).sqrt() / f64::from(i16::MAX)
    };
    let (aligned, late) = (misalignment(0), misalignment(1024));
    assert!(
        aligned < 0.03,
        "aligned error {aligned} (late by 1024: {late})"
    );
}

/// The stereo decode of `mp4`, whose source was mono at `level` (RMS, full scale): the same
/// samples in both channels (to within the codec's noise), each at that level (not 3 dB down).
fn assert_mono_is_centred(mp4: &Path, level: f64) {
    let samples = std::sync::Arc::new(std::sync::Mutex::new(Vec::<i16>::new()));
    let sink = std::sync::Arc::clone(&samples);
    compositor::media::decode_audio_blocks(mp4, (48_000, 2), move |block| {
        sink.lock().unwrap().extend_from_slice(block);
    })
    .unwrap();
    let samples = samples.lock().unwrap();
    let (left, right): (Vec<i16>, Vec<i16>) = samples.chunks_exact(2).map(|f| (f[0], f[1])).unzip();
    assert!(
        left.len().abs_diff(144_000) <= 48,
        "{} stereo frames, not 3 s",
        left.len()
    );
    // AAC codes the channels apart (or as mid and side): they come back equal to within its
    // noise, far under the tone.
    let side: Vec<i16> = left.iter().zip(&right).map(|(l, r)| l - r).collect();
    let side_level = rms(&side[4_800..110_000]) / f64::from(i16::MAX);
    assert!(
        side_level < level / 100.0,
        "left − right at rms {side_level}: not centred"
    );
    let left_level = rms(&left[4_800..110_000]) / f64::from(i16::MAX);
    assert!(
        (left_level - level).abs() < 0.01,
        "left rms {left_level}, mono {level}"
    );
}

#[test]
fn non_media_files_are_errors_not_panics() {
    let dir = scratch();
    let text = dir.join("notes.txt");
    std::fs::write(&text, "this is not a video, just some words\n".repeat(200)).unwrap();
    let garbage = dir.join("garbage.mp4");
    std::fs::write(
        &garbage,
        (0..50_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let empty = dir.join("empty.wav");
    std::fs::write(&empty, b"").unwrap();

    for path in [&text, &garbage, &empty] {
        let err = probe_duration(path).unwrap_err();
        assert!(
            matches!(err, MediaError::UnsupportedFormat { .. }),
            "{path:?}: {err}"
        );
        let err = decode_audio(path, 48_000).unwrap_err();
        assert!(
            matches!(err, MediaError::UnsupportedFormat { .. }),
            "{path:?}: {err}"
        );
    }
    let missing = dir.join("does-not-exist.mp3");
    assert!(matches!(
        probe_duration(&missing),
        Err(MediaError::Io { .. })
    ));
    assert!(matches!(
        decode_audio(&missing, 48_000),
        Err(MediaError::Io { .. })
    ));
    assert!(matches!(
        decode_audio(&text, 0),
        Err(MediaError::InvalidInput(_))
    ));
}

#[test]
fn bad_encode_inputs_are_clear_errors() {
    let dir = scratch();
    let out = dir.join("never.mp4");
    let tone = sine(48_000, 1.0, 440.0);
    let none = |_, _| {};

    let err = encode_mp4(&Synthetic { frames: 0 }, &tone, &software(), &out, &mut {
        none
    })
    .unwrap_err();
    assert!(
        matches!(err, MediaError::InvalidInput(ref m) if m.contains("no frames")),
        "{err}"
    );

    let silent = AudioTrack {
        sample_rate: 48_000,
        samples: Vec::new(),
    };
    let err = encode_mp4(&Synthetic { frames: 3 }, &silent, &software(), &out, &mut {
        none
    })
    .unwrap_err();
    assert!(
        matches!(err, MediaError::InvalidInput(ref m) if m.contains("no samples")),
        "{err}"
    );

    let odd = EncodeSettings {
        width: 719,
        ..software()
    };
    let err = encode_mp4(&Synthetic { frames: 3 }, &tone, &odd, &out, &mut { none }).unwrap_err();
    assert!(matches!(err, MediaError::InvalidInput(_)), "{err}");

    let nowhere = dir.join("no-such-dir").join("x.mp4");
    let err = encode_mp4(
        &Synthetic { frames: 3 },
        &tone,
        &software(),
        &nowhere,
        &mut { none },
    )
    .unwrap_err();
    assert!(matches!(err, MediaError::Io { .. }), "{err}");
    assert!(!out.exists());
}

#[test]
fn hardware_choice_falls_back_or_reports() {
    // Auto always succeeds (hardware or x264); Hardware either works or says what it tried.
    let out = scratch().join("auto.mp4");
    let report = encode_mp4(
        &Synthetic { frames: 6 },
        &sine(48_000, 0.2, 440.0),
        &EncodeSettings::default(),
        &out,
        &mut |_, _| {},
    )
    .unwrap();
    eprintln!(
        "auto picked {} (hardware: {})",
        report.encoder, report.hardware
    );
    let hw = EncodeSettings {
        encoder: EncoderChoice::Hardware,
        ..EncodeSettings::default()
    };
    match encode_mp4(
        &Synthetic { frames: 6 },
        &sine(48_000, 0.2, 440.0),
        &hw,
        &out,
        &mut |_, _| {},
    ) {
        Ok(r) => assert!(r.hardware),
        Err(e) => assert!(matches!(e, MediaError::NoHardwareEncoder { .. }), "{e}"),
    }
}

/// A renderer that dies mid-video: the encode must unwind (not hang on a blocked appsrc) and
/// leave no temporary files.
struct Exploding;

impl FrameSource for Exploding {
    fn frame_count(&self) -> u64 {
        60
    }
    fn fps(&self) -> u32 {
        FPS
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        assert!(index < 20, "renderer bug at frame {index}");
        rgba.fill(index as u8);
    }
}

#[test]
fn a_panicking_renderer_unwinds_and_cleans_up() {
    let dir = scratch().join("panic");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("boom.mp4");
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        encode_mp4(
            &Exploding,
            &sine(48_000, 2.0, 440.0),
            &software(),
            &out,
            &mut |_, _| {},
        )
    }));
    assert!(result.is_err(), "the renderer's panic propagates");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A 2-scene video whose first scene plays a clip background (trimmed, looped) under a
/// presenter clip, rendered and encoded end to end.
#[test]
fn a_video_with_clip_backgrounds_is_the_product_format() {
    use compositor::geom::PreviewRect;
    use compositor::plan::{
        Background, Clip, Narrator, Palette, ProceduralStyle, ScenePlan, Transition, VideoPlan,
    };
    let dir = scratch().join("clip-video");
    std::fs::create_dir_all(&dir).unwrap();
    // The clip itself comes from our encoder: 2 s of the synthetic pattern.
    let clip = dir.join("clip.mp4");
    encode_mp4(
        &Synthetic { frames: 60 },
        &sine(48_000, 2.0, 220.0),
        &software(),
        &clip,
        &mut |_, _| {},
    )
    .unwrap();
    let scene = |duration: f64, background: Background| ScenePlan {
        background_fit: Default::default(),
        duration,
        background,
        narrator: None,
        captions: vec![],
        caption_y: 330.0,
        overlay: vec![],
        transition: Transition::Fade,
    };
    let mut first = scene(
        2.4,
        Background::Clip(Clip {
            path: clip.clone(),
            start: 0.5,
            end: Some(1.5),
        }),
    );
    first.narrator = Some(Narrator::Clip {
        clip: Clip::new(&clip),
        rect: PreviewRect::new(70.0, 90.0, 140.0, 140.0),
    });
    let second = scene(
        1.35,
        Background::Procedural {
            seed: 3,
            style: ProceduralStyle::Bokeh,
            palette: Palette::SUNSET,
        },
    );
    let plan = VideoPlan {
        fps: FPS,
        scenes: vec![first, second],
        fonts_dir: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/fonts")),
    };
    let video = compositor::resolve(&plan).unwrap();
    let expected = 2.4 + 1.35;
    let out = dir.join("with-clips.mp4");
    let report = encode_mp4(
        &video,
        &sine(48_000, expected, 440.0),
        &software(),
        &out,
        &mut |_, _| {},
    )
    .unwrap();
    assert!(
        video.media_errors().is_empty(),
        "{:?}",
        video.media_errors()
    );
    assert_eq!(report.frames, (expected * 30.0_f64).round() as u64);

    let probe = crate::ffprobe(&out, false);
    let (v, a) = (stream(&probe, "video"), stream(&probe, "audio"));
    assert_eq!(v["codec_name"], "h264");
    assert_eq!(v["profile"], "High");
    assert_eq!(v["pix_fmt"], "yuv420p");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(720), Some(1280))
    );
    assert_eq!(v["avg_frame_rate"], "30/1");
    assert_eq!(num(&v["nb_frames"]), report.frames as f64);
    assert_eq!(a["codec_name"], "aac");
    let total = num(&probe["format"]["duration"]);
    assert!(
        (total - expected).abs() <= ONE_FRAME,
        "{total} s vs {expected} s"
    );
    let (vd, ad) = (num(&v["duration"]), num(&a["duration"]));
    assert!((vd - expected).abs() <= ONE_FRAME, "video {vd} s");
    assert!((ad - vd).abs() <= ONE_FRAME, "audio {ad} s vs video {vd} s");
    let (vs, as_) = (num(&v["start_time"]), num(&a["start_time"]));
    assert!(
        (vs - as_).abs() <= ONE_FRAME,
        "streams start at {vs} and {as_}"
    );
    let boxes = top_level_boxes(&out);
    let moov = boxes.iter().position(|b| b == "moov").unwrap();
    let mdat = boxes.iter().position(|b| b == "mdat").unwrap();
    assert!(moov < mdat, "{boxes:?}");
    // Once encoded, the decoders of finished scenes were closed (bounded resources).
    video.release_media();
}

#[test]
fn truncated_mp4_headers_are_refused_without_waiting() {
    let dir = scratch();
    for (name, bytes) in [
        ("ftyp.mp4", b"\0\0\0\x18ftypisom\0\0\0\0isomavc1".to_vec()),
        (
            "moov.mp4",
            b"\0\0\0\x18ftypisom\0\0\0\0isomavc1\0\0\0\x08moov".to_vec(),
        ),
        ("junk.mp4", b"\0\0\0\x18ftypjunkjunkjunk".to_vec()),
        ("text.mp4", b"definitely not a video".to_vec()),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        // Usually a clean UnsupportedFormat within milliseconds. Under load, decodebin
        // sometimes drops the MP4 demuxer's error on a header-only file (it filters errors of
        // an element it is still bringing up); the wait then sees that nothing streams and
        // says UnsupportedFormat too, instead of waiting out the open timeout (or, reading
        // audio, waiting for ever). Three rounds make that race likely on a busy machine.
        for _ in 0..3 {
            let probed = compositor::media::probe_duration(&path).map(|_| ());
            let decoded = compositor::media::decode_audio(&path, 16_000).map(|_| ());
            for r in [probed, decoded] {
                assert!(refused_without_waiting(&r), "{name}: {r:?}");
            }
        }
    }
}

/// An error that says the file is not media: never the open timeout, never a value.
fn refused_without_waiting(r: &Result<(), compositor::media::MediaError>) -> bool {
    use compositor::media::MediaError;
    match r {
        Err(MediaError::UnsupportedFormat { .. }) => true,
        // A demuxer refusing the state change outright names itself.
        Err(MediaError::Pipeline { message, .. }) => !message.contains("timed out"),
        _ => false,
    }
}
