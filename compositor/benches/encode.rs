//! MP4 assembly throughput, rendering excluded: encode-only fps per x264 preset (and against
//! ffmpeg/libx264 on the same frames when ffmpeg is installed), and the cost of our RGBA→I420
//! conversion on one thread, split by rows, and spread over frames.
//!
//! Run: `cargo bench -p compositor --bench encode` (add `-- 300` for a longer clip).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use compositor::media::convert::{I420Layout, rgba_to_i420, rgba_to_i420_par};
use compositor::media::{
    AudioTrack, EncodeSettings, EncoderChoice, FrameSource, X264Preset, encode_mp4,
};
use rayon::prelude::*;

const W: u32 = 720;
const H: u32 = 1280;
const FPS: u32 = 30;
/// Distinct pre-rendered frames; `render` only copies, so the numbers are encode-only.
const DISTINCT: usize = 16;

/// Pre-rendered frames with moving structure (so the encoder has real motion to code).
struct Canned {
    frames: u64,
    images: Vec<Vec<u8>>,
}

impl Canned {
    fn new(frames: u64) -> Self {
        let (w, h) = (W as usize, H as usize);
        let images = (0..DISTINCT)
            .map(|k| {
                let mut img = vec![0u8; w * h * 4];
                for (i, px) in img.chunks_exact_mut(4).enumerate() {
                    let (x, y) = (i % w, i / w);
                    let (mx, my) = (x + 6 * k, y + 3 * k);
                    let ring = ((mx as f32 - 360.0).hypot(my as f32 - 640.0) / 9.0) as usize;
                    px.copy_from_slice(&[
                        (mx / 3 % 256) as u8,
                        (ring * 23 % 256) as u8,
                        ((mx ^ my) & 0xff) as u8,
                        255,
                    ]);
                }
                img
            })
            .collect();
        Canned { frames, images }
    }
}

impl FrameSource for Canned {
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn fps(&self) -> u32 {
        FPS
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        rgba.copy_from_slice(&self.images[index as usize % DISTINCT]);
    }
}

fn main() {
    let frames: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(150);
    let source = Canned::new(frames);
    let audio = AudioTrack {
        sample_rate: 48_000,
        samples: (0..frames * 48_000 / u64::from(FPS))
            .map(|i| ((i as f64 * 0.0576).sin() * 8000.0) as i16)
            .collect(),
    };
    let dir = std::env::temp_dir();
    println!(
        "{frames} frames {W}x{H} @ {FPS} fps, {} rayon threads",
        rayon::current_num_threads()
    );

    // Warm-up: GStreamer init, plugin loading and the hardware probe are not encode time.
    let _ = encode_mp4(
        &Canned {
            frames: 10,
            images: source.images.clone(),
        },
        &audio,
        &EncodeSettings::default(),
        &dir.join("reelsmith-bench-warmup.mp4"),
        &mut |_, _| {},
    );

    // 1. Encode-only throughput per preset.
    let mut veryfast_fps = 0.0;
    for preset in [X264Preset::Veryfast, X264Preset::Ultrafast] {
        let settings = EncodeSettings {
            preset,
            encoder: EncoderChoice::Software,
            ..EncodeSettings::default()
        };
        let out = dir.join(format!("reelsmith-bench-{preset}.mp4"));
        let report = encode_mp4(&source, &audio, &settings, &out, &mut |_, _| {}).expect("encode");
        let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
        if preset == X264Preset::Veryfast {
            veryfast_fps = report.fps();
        }
        println!(
            "encode {preset:>9}: {:6.1} fps ({:.2} s wall, {:.1}× realtime, {} KiB)",
            report.fps(),
            report.wall.as_secs_f64(),
            report.fps() / f64::from(FPS),
            size / 1024
        );
    }
    if let Ok(report) = encode_mp4(
        &source,
        &audio,
        &EncodeSettings::default(),
        &dir.join("reelsmith-bench-auto.mp4"),
        &mut |_, _| {},
    ) {
        println!(
            "encode      auto: {:6.1} fps with {}",
            report.fps(),
            report.encoder
        );
    }

    // 1b. Hardware encoders on the same frames, against x264 veryfast; "not available" on a
    // machine without them (the probe encode fails), so CPU-only machines run unchanged.
    for (name, choice) in [
        ("nvh264", EncoderChoice::Nvenc),
        ("vaapi", EncoderChoice::Vaapi),
    ] {
        let settings = EncodeSettings {
            encoder: choice,
            ..EncodeSettings::default()
        };
        let out = dir.join(format!("reelsmith-bench-{name}.mp4"));
        match encode_mp4(&source, &audio, &settings, &out, &mut |_, _| {}) {
            Ok(report) => println!(
                "encode {name:>9}: {:6.1} fps with {} ({:.2} s wall, {} KiB) → hardware/x264 veryfast = {:.2}",
                report.fps(),
                report.encoder,
                report.wall.as_secs_f64(),
                std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0) / 1024,
                report.fps() / veryfast_fps
            ),
            Err(e) => println!("encode {name:>9}: not available ({e})"),
        }
    }
    keep_outputs(&dir);

    // 2. The same frames through ffmpeg/libx264 veryfast (raw RGBA on a pipe), video only.
    if let Some(ffmpeg_fps) = ffmpeg_fps(&source) {
        println!(
            "ffmpeg  veryfast: {ffmpeg_fps:6.1} fps (video only) → ours/ffmpeg = {:.2}",
            veryfast_fps / ffmpeg_fps
        );
    }

    // 3. RGBA→I420 conversion.
    let layout = I420Layout::new(W, H).unwrap();
    let n = 60usize;
    let inputs: Vec<&[u8]> = (0..n)
        .map(|i| source.images[i % DISTINCT].as_slice())
        .collect();
    let mut outputs = vec![vec![0u8; layout.size]; n];
    let single = time_per_frame(n, || {
        for (src, out) in inputs.iter().zip(outputs.iter_mut()) {
            rgba_to_i420(src, &layout, out).unwrap();
        }
    });
    let rows = time_per_frame(n, || {
        for (src, out) in inputs.iter().zip(outputs.iter_mut()) {
            rgba_to_i420_par(src, &layout, out).unwrap();
        }
    });
    let frames_par = time_per_frame(n, || {
        inputs
            .par_iter()
            .zip(outputs.par_iter_mut())
            .for_each(|(src, out)| rgba_to_i420(src, &layout, out).unwrap());
    });
    println!(
        "RGBA→I420: single {single:.2} ms/frame; rows-parallel {rows:.2} ms/frame ({:.2}× faster); \
         frames-parallel {frames_par:.2} ms/frame ({:.2}× faster, what encode_mp4 does)",
        single / rows,
        single / frames_par
    );
    println!(
        "conversion share of a veryfast encode: {:.1} % of wall time",
        frames_par * veryfast_fps / 10.0
    );
}

/// With `REELSMITH_BENCH_OUT` set, copies the encoded MP4s there, for a quality comparison
/// (for example `ffmpeg -lavfi ssim`) on another machine.
fn keep_outputs(dir: &std::path::Path) {
    let Some(out) = std::env::var_os("REELSMITH_BENCH_OUT") else {
        return;
    };
    let out = std::path::PathBuf::from(out);
    std::fs::create_dir_all(&out).expect("bench output dir");
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("reelsmith-bench-")
            && name.ends_with(".mp4")
            && !name.contains("warmup")
        {
            std::fs::copy(entry.path(), out.join(&name)).expect("copy bench output");
        }
    }
}

/// Milliseconds per frame of `run` (which converts `n` frames), best of three.
fn time_per_frame(n: usize, mut run: impl FnMut()) -> f64 {
    run(); // warm caches and the rayon pool
    (0..3)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed().as_secs_f64() * 1000.0 / n as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn ffmpeg_fps(source: &Canned) -> Option<f64> {
    let out = std::env::temp_dir().join("reelsmith-bench-ffmpeg.mp4");
    let size = format!("{W}x{H}");
    let rate = FPS.to_string();
    let started = Instant::now();
    let mut child = Command::new("ffmpeg")
        .args([
            "-y", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", &size,
        ])
        .args([
            "-r", &rate, "-i", "-", "-c:v", "libx264", "-preset", "veryfast",
        ])
        .args([
            "-profile:v",
            "high",
            "-pix_fmt",
            "yuv420p",
            "-movflags",
            "+faststart",
        ])
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let mut rgba = vec![0u8; (W * H * 4) as usize];
    for i in 0..source.frames {
        source.render(i, &mut rgba);
        stdin.write_all(&rgba).ok()?;
    }
    drop(stdin);
    let status = child.wait().ok()?;
    status
        .success()
        .then(|| source.frames as f64 / started.elapsed().as_secs_f64())
}
