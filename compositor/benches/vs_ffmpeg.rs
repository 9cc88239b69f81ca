//! Our compositor + encoder against an ffmpeg `filter_complex` pipeline composing the same
//! golden scene, all measured in one run:
//!
//! - the scene: a looped background clip (720×1280), a presenter clip cover-fitted into the
//!   narrator rect with rounded corners, four PNG overlay objects entering with fade / slide-left
//!   / pop / slide-up, word-timed captions with the spoken word highlighted, narration audio;
//! - final render: wall time and CPU ms per frame, ours vs ffmpeg, with identical x264 settings
//!   (veryfast, CRF 23, VBV 8000 kbit/s over 600 ms, GOP 60, High, yuv420p; AAC 128 kbit/s);
//! - compositing overhead: our render against an encode-only floor (a contiguous run of the same
//!   frames pre-rendered and cycled through the same encoder, so only encoding is left), and
//!   against the decode+encode floor (both clips decoded by our clip decoder at the sizes the
//!   compositor uses, the background's frames handed to the same encoder, no layers): overhead
//!   = ours / floor in CPU and wall, and ours / ffmpeg in wall;
//! - screenshot latency p50/p95 over warm calls of our still renderer at varying times, against
//!   `ffmpeg -ss T … -frames:v 1` on the same graph (inputs seeked, timings shifted by T).
//!
//! Inputs are generated in a temp dir (ffmpeg lavfi test sources, tiny-skia PNGs, a WAV).
//! Without ffmpeg the bench prints why and exits.
//!
//! Run: `cargo bench -p compositor --bench vs_ffmpeg`. Environment: `VS_FFMPEG_SECONDS` (scene
//! length, default 60), `VS_FFMPEG_STILLS` (screenshot calls per side, default 200),
//! `VS_FFMPEG_FLOOR_FRAMES` (pre-rendered frames for the floor, default 150),
//! `VS_FFMPEG_STILLS_ONLY` (set: skip the final render, measure only stills).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use compositor::frame::FRAME_BYTES;
use compositor::geom::{CanvasRect, PreviewRect};
use compositor::media::convert::{I420Layout, copy_i420};
use compositor::media::{
    AudioTrack, ClipDecoder, ClipFrame, ClipPixels, EncodeSettings, EncoderChoice, FrameSource,
    StageTimes, encode_mp4, probe_clip,
};
use compositor::plan::{
    Animation, Background, CaptionChunk, Clip, Narrator, OverlayObject, OverlayPayload, ScenePlan,
    TimedWord, Transition, VideoPlan, chunk_words,
};
use compositor::{overlay_poster, resolve, screenshot_280x498};
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Transform};

const FPS: u32 = 30;
const BG_SECONDS: f64 = 10.0;
const PRESENTER_SECONDS: f64 = 8.0;
const NARRATOR: PreviewRect = PreviewRect::new(150.0, 40.0, 110.0, 150.0);
const ENTER: f64 = 0.45;
const EXIT: f64 = 0.25;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// CPU seconds (user + system) of this process and of its waited-for children.
fn cpu_times() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the `(comm)`: state is field 3; utime 14, stime 15, cutime 16, cstime 17.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    let tick = 100.0;
    let get = |i: usize| f.get(i - 3).copied().unwrap_or(0.0) / tick;
    (get(14) + get(15), get(16) + get(17))
}

fn ffmpeg(dir: &Path, args: &[String]) {
    let out = Command::new("ffmpeg")
        .current_dir(dir)
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .output()
        .expect("ffmpeg runs");
    assert!(
        out.status.success(),
        "ffmpeg {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn s(v: &str) -> String {
    v.to_owned()
}

/// One overlay object of the golden scene, as both pipelines need it.
struct Object {
    file: &'static str,
    rect: (i32, i32, u32, u32),
    animation: Animation,
    start: f64,
    end: f64,
}

fn card_png(path: &Path, w: u32, h: u32, hue: (u8, u8, u8)) {
    let mut p = Pixmap::new(w, h).unwrap();
    let mut paint = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    let (wf, hf) = (w as f32, h as f32);
    let r = wf.min(hf) * 0.15;
    let mut pb = PathBuilder::new();
    pb.push_rect(tiny_skia::Rect::from_xywh(r, 0.0, wf - 2.0 * r, hf).unwrap());
    pb.push_rect(tiny_skia::Rect::from_xywh(0.0, r, wf, hf - 2.0 * r).unwrap());
    for (cx, cy) in [(r, r), (wf - r, r), (r, hf - r), (wf - r, hf - r)] {
        pb.push_circle(cx, cy, r);
    }
    paint.set_color(Color::from_rgba8(250, 250, 248, 235));
    p.fill_path(
        &pb.finish().unwrap(),
        &paint,
        FillRule::Winding,
        Transform::identity(),
        None,
    );
    paint.set_color(Color::from_rgba8(hue.0, hue.1, hue.2, 255));
    p.fill_path(
        &PathBuilder::from_circle(hf * 0.5, hf * 0.5, hf * 0.3).unwrap(),
        &paint,
        FillRule::Winding,
        Transform::identity(),
        None,
    );
    for k in 0..3 {
        let y = hf * (0.25 + 0.2 * k as f32);
        p.fill_rect(
            tiny_skia::Rect::from_xywh(hf, y, (wf - hf * 1.2) * (1.0 - 0.2 * k as f32), hf * 0.1)
                .unwrap(),
            &paint,
            Transform::identity(),
            None,
        );
    }
    p.save_png(path).unwrap();
}

/// The narrator rect on the canvas, as the compositor places it.
fn narrator_canvas() -> (i32, i32, u32, u32) {
    let c = NARRATOR.to_canvas();
    (
        c.x.round() as i32,
        c.y.round() as i32,
        c.w.round() as u32,
        c.h.round() as u32,
    )
}

fn mask_png(path: &Path, w: u32, h: u32) {
    let mut p = Pixmap::new(w, h).unwrap();
    p.fill(Color::BLACK);
    let (wf, hf) = (w as f32, h as f32);
    let r = (wf.min(hf) * 0.12).clamp(6.0, 32.0);
    let mut pb = PathBuilder::new();
    pb.push_rect(tiny_skia::Rect::from_xywh(r, 0.0, wf - 2.0 * r, hf).unwrap());
    pb.push_rect(tiny_skia::Rect::from_xywh(0.0, r, wf, hf - 2.0 * r).unwrap());
    for (cx, cy) in [(r, r), (wf - r, r), (r, hf - r), (wf - r, hf - r)] {
        pb.push_circle(cx, cy, r);
    }
    let mut paint = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    paint.set_color(Color::WHITE);
    p.fill_path(
        &pb.finish().unwrap(),
        &paint,
        FillRule::Winding,
        Transform::identity(),
        None,
    );
    p.save_png(path).unwrap();
}

fn narration(path: &Path, seconds: f64) -> AudioTrack {
    let rate = 48_000u32;
    let n = (seconds * f64::from(rate)).round() as usize;
    let samples: Vec<i16> = (0..n)
        .map(|i| {
            let t = i as f64 / f64::from(rate);
            let env = 0.5 + 0.5 * (t * std::f64::consts::TAU * 2.5).sin();
            (env * 0.3 * (t * std::f64::consts::TAU * 180.0).sin() * 32767.0) as i16
        })
        .collect();
    let mut w = hound::WavWriter::create(
        path,
        hound::WavSpec {
            channels: 1,
            sample_rate: rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        },
    )
    .unwrap();
    for &x in &samples {
        w.write_sample(x).unwrap();
    }
    w.finalize().unwrap();
    AudioTrack {
        sample_rate: rate,
        samples,
    }
}

const TEXT: &str = "Render the whole scene once and preview it anywhere with the same pixels. \
    Clips loop under captions while cards slide in, pop and fade. Every word lights up as it is \
    spoken, and the encoder never waits for the renderer.";

fn caption_chunks(seconds: f64) -> Vec<CaptionChunk> {
    let words: Vec<&str> = TEXT.split_whitespace().collect();
    let mut timed = Vec::new();
    let mut t = 0.3;
    let mut i = 0;
    while t + 0.4 < seconds {
        let w = words[i % words.len()];
        let len = 0.22 + 0.03 * w.len() as f64;
        timed.push(TimedWord {
            word: w.into(),
            start: t,
            end: t + len,
        });
        t += len + if w.ends_with('.') { 0.5 } else { 0.06 };
        i += 1;
    }
    chunk_words(&timed, 4)
}

fn ass_time(t: f64) -> String {
    let cs = (t * 100.0).round() as u64;
    format!(
        "{}:{:02}:{:02}.{:02}",
        cs / 360_000,
        cs / 6000 % 60,
        cs / 100 % 60,
        cs % 100
    )
}

/// The captions as ASS: one event per spoken word, the chunk with that word in yellow.
fn captions_ass(chunks: &[CaptionChunk], seconds: f64) -> String {
    let mut out = String::from(
        "[Script Info]\nScriptType: v4.00+\nPlayResX: 720\nPlayResY: 1280\nWrapStyle: 0\n\n\
         [V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, \
         OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, \
         Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n\
         Style: Default,Inter,58,&H00FFFFFF,&H00FFFFFF,&H28000000,&H00000000,-1,0,0,0,100,100,0,\
         0,1,5,0,5,50,50,0,1\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, \
         MarginR, MarginV, Effect, Text\n",
    );
    for (ci, chunk) in chunks.iter().enumerate() {
        let until = chunks
            .get(ci + 1)
            .map_or(seconds, |n| n.start())
            .min(seconds);
        for (wi, w) in chunk.words.iter().enumerate() {
            let end = chunk.words.get(wi + 1).map_or(until, |n| n.start);
            let text: Vec<String> = chunk
                .words
                .iter()
                .enumerate()
                .map(|(k, x)| {
                    if k == wi {
                        format!("{{\\c&H0AD6FF&}}{}{{\\c&HFFFFFF&}}", x.word)
                    } else {
                        x.word.clone()
                    }
                })
                .collect();
            let _ = writeln!(
                out,
                "Dialogue: 0,{},{},Default,,0,0,0,,{{\\pos(360,848)}}{}",
                ass_time(w.start),
                ass_time(end),
                text.join(" ")
            );
        }
    }
    out
}

/// The filter graph of the golden scene, its clock shifted by `offset` seconds (0 for the full
/// render; T for a still at T, whose clip inputs are seeked to T). `still` ends it with the
/// 280×498 downscale.
fn graph(objects: &[Object], offset: f64, still: bool) -> String {
    let (nx, ny, nw, nh) = narrator_canvas();
    let mut g = String::new();
    let _ = write!(
        g,
        "[0:v]scale=720:1280:force_original_aspect_ratio=increase,crop=720:1280,setsar=1[bg];\
         [1:v]scale={nw}:{nh}:force_original_aspect_ratio=increase,crop={nw}:{nh},format=rgba[p0];\
         [2:v]format=gray[mask];[p0][mask]alphamerge[pres];\
         [bg][pres]overlay=x={nx}:y={ny}[v0];"
    );
    let t = format!("(t+{offset})");
    for (i, o) in objects.iter().enumerate() {
        let (x, y, w, h) = o.rect;
        let input = 3 + i;
        let fade_in = (o.start - offset).max(0.0);
        let fade_out = (o.end - EXIT - offset).max(0.0);
        let p = format!("min(1,max(0,({t}-{})/{ENTER}))", o.start);
        let ease = format!("pow(1-{p},3)");
        let _ = write!(
            g,
            "[{input}:v]format=rgba,fade=t=in:st={fade_in}:d={ENTER}:alpha=1,\
             fade=t=out:st={fade_out}:d={EXIT}:alpha=1"
        );
        let (ox, oy) = match o.animation {
            Animation::SlideLeft => (format!("{x}+140*{ease}"), format!("{y}")),
            Animation::SlideUp => (format!("{x}"), format!("{y}+90*{ease}")),
            Animation::Pop => {
                let back = format!("(1+2.70158*pow({p}-1,3)+1.70158*pow({p}-1,2))");
                let _ = write!(
                    g,
                    ",scale=w='max(2,trunc({w}*(0.5+0.5*{back})/2)*2)':h='max(2,trunc({h}*(0.5+0.5*{back})/2)*2)':eval=frame"
                );
                (
                    format!("{x}+({w}-overlay_w)/2"),
                    format!("{y}+({h}-overlay_h)/2"),
                )
            }
            _ => (format!("{x}"), format!("{y}")),
        };
        let _ = write!(
            g,
            "[o{i}];[v{i}][o{i}]overlay=x='{ox}':y='{oy}':enable='between({t},{},{})'[v{}];",
            o.start,
            o.end,
            i + 1
        );
    }
    let last = objects.len();
    let _ = write!(
        g,
        "[v{last}]setpts=PTS+{offset}/TB,ass=captions.ass:fontsdir=fonts"
    );
    if still {
        g.push_str(",scale=280:498:flags=area");
    }
    g.push_str("[v]");
    g
}

fn inputs(objects: &[Object], offset: f64) -> Vec<String> {
    let mut a = vec![
        s("-ss"),
        format!("{:.3}", offset % BG_SECONDS),
        s("-stream_loop"),
        s("-1"),
        s("-i"),
        s("bg.mp4"),
        s("-ss"),
        format!("{:.3}", offset % PRESENTER_SECONDS),
        s("-stream_loop"),
        s("-1"),
        s("-i"),
        s("presenter.mp4"),
        s("-loop"),
        s("1"),
        s("-framerate"),
        s("30"),
        s("-i"),
        s("mask.png"),
    ];
    for o in objects {
        a.extend([
            s("-loop"),
            s("1"),
            s("-framerate"),
            s("30"),
            s("-i"),
            s(o.file),
        ]);
    }
    a
}

/// Pre-rendered frames cycled: rendering is a copy, so what is measured is encoding alone.
struct Floor {
    frames: u64,
    images: Vec<Vec<u8>>,
}

impl FrameSource for Floor {
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn fps(&self) -> u32 {
        FPS
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        rgba.copy_from_slice(&self.images[(index % self.images.len() as u64) as usize]);
    }
}

/// The decode+encode floor: the work a render cannot avoid. Both clips of the scene are decoded
/// through our clip decoder at the sizes the compositor asks for (the background at 720×1280,
/// the presenter at the narrator rect, both I420 and looped as the layers loop them), in order,
/// on the encoding thread ([`FrameSource::prepare`], as ours does); each background frame is
/// handed to the same encoder as it is. No layer is drawn and nothing is converted.
struct DecodeFloor {
    frames: u64,
    background: FloorClip,
    presenter: FloorClip,
    /// Background frames of the current window, by frame index.
    window: Mutex<Vec<(u64, ClipFrame)>>,
}

/// One looped clip of the floor.
struct FloorClip {
    decoder: Mutex<ClipDecoder>,
    duration: f64,
}

impl FloorClip {
    fn open(path: &Path, w: u32, h: u32) -> FloorClip {
        let info = probe_clip(path).unwrap();
        FloorClip {
            decoder: Mutex::new(ClipDecoder::open_as(path, &info, w, h, ClipPixels::I420).unwrap()),
            duration: info.duration,
        }
    }

    /// The frame shown at scene time `t` (the whole clip, looped).
    fn frame(&self, t: f64) -> ClipFrame {
        let mut d = self.decoder.lock().unwrap();
        d.frame_at(t.rem_euclid(self.duration)).unwrap()
    }
}

impl FrameSource for DecodeFloor {
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn fps(&self) -> u32 {
        FPS
    }
    fn render(&self, _: u64, rgba: &mut [u8]) {
        unreachable!(
            "every frame goes through render_i420 ({} bytes)",
            rgba.len()
        )
    }
    fn render_i420(&self, index: u64, _: &mut [u8], layout: &I420Layout, out: &mut [u8]) -> bool {
        let window = self.window.lock().unwrap();
        let (_, frame) = window.iter().find(|(i, _)| *i == index).unwrap();
        let frame = frame.clone();
        drop(window);
        frame
            .with_planes(layout.height, |planes| copy_i420(&planes, layout, out))
            .unwrap_or(false)
    }
    fn prepare(&self, first: u64, count: u64) {
        let mut window = Vec::with_capacity(count as usize);
        for index in first..first + count {
            let t = index as f64 / f64::from(FPS);
            window.push((index, self.background.frame(t)));
            std::hint::black_box(self.presenter.frame(t));
        }
        *self.window.lock().unwrap() = window;
    }
}

fn decode_floor(dir: &Path, frames: u64) -> DecodeFloor {
    let (_, _, nw, nh) = narrator_canvas();
    DecodeFloor {
        frames,
        background: FloorClip::open(&dir.join("bg.mp4"), 720, 1280),
        presenter: FloorClip::open(&dir.join("presenter.mp4"), nw, nh),
        window: Mutex::new(Vec::new()),
    }
}

struct Run {
    wall: Duration,
    cpu: f64,
    frames: u64,
    stages: Option<StageTimes>,
}

impl Run {
    fn ms_per_frame(&self) -> f64 {
        self.wall.as_secs_f64() * 1000.0 / self.frames as f64
    }
    fn cpu_ms_per_frame(&self) -> f64 {
        self.cpu * 1000.0 / self.frames as f64
    }
    fn fps(&self) -> f64 {
        self.frames as f64 / self.wall.as_secs_f64()
    }
}

fn ours(frames: &dyn FrameSource, audio: &AudioTrack, out: &Path) -> Run {
    let settings = EncodeSettings {
        encoder: EncoderChoice::Software,
        ..EncodeSettings::default()
    };
    let (c0, _) = cpu_times();
    let report = encode_mp4(frames, audio, &settings, out, &mut |_, _| {}).unwrap();
    let (c1, _) = cpu_times();
    Run {
        wall: report.wall,
        cpu: c1 - c0,
        frames: report.frames,
        stages: Some(report.stages),
    }
}

/// Overhead against the decode+encode floor (ours / floor, CPU and wall) and ours / ffmpeg wall,
/// with the aims beside them; then the floor / ffmpeg wall, the least any render of
/// this scene with these encoder settings can reach against ffmpeg on this machine.
fn print_decode_floor_overhead(ours: &Run, floor: &Run, ffmpeg: &Run) {
    let cpu = ours.cpu_ms_per_frame() / floor.cpu_ms_per_frame();
    let wall = ours.ms_per_frame() / floor.ms_per_frame();
    let vs_ffmpeg = ours.wall.as_secs_f64() / ffmpeg.wall.as_secs_f64();
    let floor_vs_ffmpeg = floor.wall.as_secs_f64() / ffmpeg.wall.as_secs_f64();
    println!(
        "overhead over the decode+encode floor: CPU {cpu:.3}× ({:+.1} %, aim ≤ +15 %), wall \
         {wall:.3}× ({:+.1} %)",
        (cpu - 1.0) * 100.0,
        (wall - 1.0) * 100.0
    );
    println!("ours / ffmpeg wall: {vs_ffmpeg:.3}× (aim ≤ 0.5×)");
    println!(
        "decode+encode floor / ffmpeg wall: {floor_vs_ffmpeg:.3}× (decoding and x264 alone, no \
         layers: no render of this scene at these settings goes below it)"
    );
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let seconds: f64 = env_or("VS_FFMPEG_SECONDS", 60.0);
    let stills: usize = env_or("VS_FFMPEG_STILLS", 200);
    let floor_frames: usize = env_or("VS_FFMPEG_FLOOR_FRAMES", 150);
    if Command::new("ffmpeg").arg("-version").output().is_err() {
        println!("vs_ffmpeg: ffmpeg is not installed; nothing to compare against, skipping");
        return;
    }
    let dir = std::env::temp_dir().join(format!("reelsmith-vs-ffmpeg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fonts = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/fonts"));
    let _ = std::fs::remove_file(dir.join("fonts"));
    std::os::unix::fs::symlink(&fonts, dir.join("fonts")).unwrap();

    // Inputs.
    let started = Instant::now();
    ffmpeg(
        &dir,
        &[
            s("-f"),
            s("lavfi"),
            s("-i"),
            format!("testsrc2=size=720x1280:rate=30:duration={BG_SECONDS}"),
            s("-c:v"),
            s("libx264"),
            s("-preset"),
            s("veryfast"),
            s("-pix_fmt"),
            s("yuv420p"),
            s("-g"),
            s("60"),
            s("bg.mp4"),
        ],
    );
    ffmpeg(
        &dir,
        &[
            s("-f"),
            s("lavfi"),
            s("-i"),
            format!("testsrc=size=480x480:rate=30:duration={PRESENTER_SECONDS}"),
            s("-c:v"),
            s("libx264"),
            s("-preset"),
            s("veryfast"),
            s("-pix_fmt"),
            s("yuv420p"),
            s("-g"),
            s("60"),
            s("presenter.mp4"),
        ],
    );
    let (_, _, nw, nh) = narrator_canvas();
    mask_png(&dir.join("mask.png"), nw, nh);
    let end = seconds - 0.5;
    let objects = [
        Object {
            file: "o1.png",
            rect: (60, 820, 400, 160),
            animation: Animation::Fade,
            start: 1.0,
            end,
        },
        Object {
            file: "o2.png",
            rect: (300, 1000, 380, 150),
            animation: Animation::SlideLeft,
            start: 2.5,
            end,
        },
        Object {
            file: "o3.png",
            rect: (40, 560, 300, 240),
            animation: Animation::Pop,
            start: 4.0,
            end,
        },
        Object {
            file: "o4.png",
            rect: (60, 1120, 600, 120),
            animation: Animation::SlideUp,
            start: 5.5,
            end,
        },
    ];
    for (o, hue) in objects.iter().zip([
        (230, 60, 80),
        (40, 160, 230),
        (250, 190, 40),
        (80, 200, 120),
    ]) {
        card_png(&dir.join(o.file), o.rect.2, o.rect.3, hue);
    }
    let audio = narration(&dir.join("narration.wav"), seconds);
    let chunks = caption_chunks(seconds);
    std::fs::write(dir.join("captions.ass"), captions_ass(&chunks, seconds)).unwrap();
    println!(
        "vs_ffmpeg: {seconds} s golden scene ({} frames), {} caption chunks, inputs made in {:.1?}",
        (seconds * f64::from(FPS)).round(),
        chunks.len(),
        started.elapsed()
    );

    // Our plan of the same scene.
    let plan = VideoPlan {
        fps: FPS,
        scenes: vec![ScenePlan {
            background_fit: Default::default(),
            duration: seconds,
            background: Background::Clip(Clip::new(dir.join("bg.mp4"))),
            narrator: Some(Narrator::Clip {
                clip: Clip::new(dir.join("presenter.mp4")),
                rect: NARRATOR,
            }),
            captions: chunks,
            caption_y: 330.0,
            overlay: objects
                .iter()
                .map(|o| OverlayObject {
                    rect: CanvasRect::new(
                        f64::from(o.rect.0),
                        f64::from(o.rect.1),
                        f64::from(o.rect.2),
                        f64::from(o.rect.3),
                    ),
                    z: 0,
                    animation: o.animation,
                    start: o.start,
                    end: o.end,
                    payload: OverlayPayload::Png(dir.join(o.file)),
                })
                .collect(),
            transition: Transition::Cut,
        }],
        fonts_dir: fonts.clone(),
    };
    let t = Instant::now();
    let video = resolve(&plan).unwrap();
    let resolve_time = t.elapsed();
    if std::env::var_os("VS_FFMPEG_STILLS_ONLY").is_some() {
        stills_part(&plan, &video, &objects, &dir, stills);
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }

    // Final render: ours, then ffmpeg.
    let ours_run = ours(&video, &audio, &dir.join("ours.mp4"));
    assert!(
        video.media_errors().is_empty(),
        "{:?}",
        video.media_errors()
    );
    video.release_media();
    let frames = ours_run.frames;
    let mut args = inputs(&objects, 0.0);
    args.extend([s("-i"), s("narration.wav"), s("-filter_complex")]);
    args.push(graph(&objects, 0.0, false));
    let audio_input = 3 + objects.len();
    args.extend(
        [
            "-map",
            "[v]",
            "-map",
            &format!("{audio_input}:a"),
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-crf",
            "23",
            "-maxrate",
            "8000k",
            "-bufsize",
            "4800k",
            "-g",
            "60",
            "-profile:v",
            "high",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-b:a",
            "128k",
            "-ar",
            "48000",
            "-movflags",
            "+faststart",
            "-frames:v",
            &frames.to_string(),
            "-t",
            &format!("{seconds}"),
            "ffmpeg.mp4",
        ]
        .map(s),
    );
    let (_, c0) = cpu_times();
    let t = Instant::now();
    ffmpeg(&dir, &args);
    let ff_run = Run {
        wall: t.elapsed(),
        cpu: cpu_times().1 - c0,
        frames,
        stages: None,
    };

    // Encode-only floor: a contiguous run of our own frames from mid-scene, cycled.
    let first = (frames / 2).saturating_sub(floor_frames as u64 / 2);
    video.prefetch(first, floor_frames as u64);
    let images: Vec<Vec<u8>> = (0..floor_frames as u64)
        .map(|i| {
            let mut f = vec![0u8; FRAME_BYTES];
            video.render_frame(first + i, &mut f);
            f
        })
        .collect();
    video.release_media();
    let floor = Floor { frames, images };
    let floor_run = ours(&floor, &audio, &dir.join("floor.mp4"));
    drop(floor);
    let decode_floor_run = {
        let source = decode_floor(&dir, frames);
        ours(&source, &audio, &dir.join("decode-floor.mp4"))
    };

    println!("\n== final render, {frames} frames (x264 veryfast CRF 23, same settings) ==");
    println!(
        "resolve (fonts, PNGs, captions, clip probes): {:.1} ms",
        ms(resolve_time)
    );
    for (name, r) in [
        ("ours (compositor+GStreamer)", &ours_run),
        ("ffmpeg filter_complex", &ff_run),
        ("encode-only floor (ours)", &floor_run),
        ("decode+encode floor (ours)", &decode_floor_run),
    ] {
        println!(
            "{name:<30} wall {:>7.2} s  {:>6.1} fps  {:>6.2} ms/frame  CPU {:>6.2} ms/frame",
            r.wall.as_secs_f64(),
            r.fps(),
            r.ms_per_frame(),
            r.cpu_ms_per_frame()
        );
    }
    for (name, r) in [
        ("ours", &ours_run),
        ("floor", &floor_run),
        ("d+e", &decode_floor_run),
    ] {
        if let Some(st) = r.stages {
            let per = |d: Duration| ms(d) / r.frames as f64;
            println!(
                "  {name:<6} per frame: prepare {:.2} ms (encoding thread), render {:.2} ms + \
                 RGBA→I420 {:.2} ms (summed over workers), blocked on the encoder {:.2} ms; \
                 then {:.0} ms finishing",
                per(st.prepare),
                per(st.render),
                per(st.convert),
                per(st.push),
                ms(st.finish)
            );
        }
    }
    println!(
        "wall-time ratio ffmpeg/ours: {:.2}×   CPU-per-frame ratio ffmpeg/ours: {:.2}×",
        ff_run.wall.as_secs_f64() / ours_run.wall.as_secs_f64(),
        ff_run.cpu_ms_per_frame() / ours_run.cpu_ms_per_frame()
    );
    println!(
        "compositing overhead over the encode floor: wall {:+.1} %, CPU {:+.1} %",
        (ours_run.ms_per_frame() / floor_run.ms_per_frame() - 1.0) * 100.0,
        (ours_run.cpu_ms_per_frame() / floor_run.cpu_ms_per_frame() - 1.0) * 100.0
    );
    print_decode_floor_overhead(&ours_run, &decode_floor_run, &ff_run);

    stills_part(&plan, &video, &objects, &dir, stills);
    video.release_media();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Stills, all in one run: the cold screenshot (a fresh resolve, decoders opened, one seek), warm
/// screenshots at `count` different times (each really rendered: no two calls ask for the same
/// moment twice in a row), the same moments by `ffmpeg -ss T … -frames:v 1` on the same graph,
/// and the overlay poster.
fn stills_part(
    plan: &VideoPlan,
    video: &compositor::ResolvedVideo,
    objects: &[Object],
    dir: &Path,
    count: usize,
) {
    if count == 0 {
        return;
    }
    let seconds = plan.scenes[0].duration;
    let times: Vec<f64> = (0..count)
        .map(|i| (i as f64 * 7.31 + 0.4) % (seconds - 0.2))
        .collect();
    let t = Instant::now();
    let cold = resolve(plan).unwrap();
    let cold_resolve = t.elapsed();
    std::hint::black_box(screenshot_280x498(&cold, 0, Some(times[0])));
    let cold_total = t.elapsed();
    drop(cold);
    let _ = screenshot_280x498(video, 0, Some(times[0]));
    let mut lat: Vec<Duration> = times
        .iter()
        .map(|&t| {
            let s = Instant::now();
            let jpeg = screenshot_280x498(video, 0, Some(t));
            std::hint::black_box(jpeg);
            s.elapsed()
        })
        .collect();
    lat.sort();
    let stages = still_stages(video, &times);
    let mut poster: Vec<Duration> = (0..count.min(50))
        .map(|_| {
            let s = Instant::now();
            std::hint::black_box(overlay_poster(video, 0));
            s.elapsed()
        })
        .collect();
    poster.sort();
    let mut ff_lat: Vec<Duration> = times
        .iter()
        .map(|&t| {
            let mut a = inputs(objects, t);
            a.push(s("-filter_complex"));
            a.push(graph(objects, t, true));
            a.extend(["-map", "[v]", "-frames:v", "1", "-q:v", "3", "shot.jpg"].map(s));
            let s = Instant::now();
            ffmpeg(dir, &a);
            s.elapsed()
        })
        .collect();
    ff_lat.sort();
    println!("\n== screenshot 280×498 JPEG, {count} warm calls at varying times ==");
    println!(
        "ours:   p50 {:>7.2} ms  p95 {:>7.2} ms",
        ms(percentile(&lat, 0.5)),
        ms(percentile(&lat, 0.95))
    );
    println!(
        "ffmpeg: p50 {:>7.2} ms  p95 {:>7.2} ms   (ffmpeg -ss T … -frames:v 1, same graph)",
        ms(percentile(&ff_lat, 0.5)),
        ms(percentile(&ff_lat, 0.95))
    );
    println!(
        "ratio ffmpeg/ours: p50 {:.1}×  p95 {:.1}×",
        ms(percentile(&ff_lat, 0.5)) / ms(percentile(&lat, 0.5)),
        ms(percentile(&ff_lat, 0.95)) / ms(percentile(&lat, 0.95))
    );
    println!(
        "  for comparison, the full-frame path (clip layers seeked by the video's decoders, \
         720×1280 frame, float area filter), mean per call: clip frames {:.2} ms, compose {:.2} ms, \
         downscale {:.2} ms, JPEG {:.2} ms",
        stages[0], stages[1], stages[2], stages[3]
    );
    println!(
        "cold (first still of a scene never seen): {:.2} ms, of which resolve {:.2} ms",
        ms(cold_total),
        ms(cold_resolve)
    );
    println!(
        "overlay poster 280×498 PNG: p50 {:>6.2} ms  p95 {:>6.2} ms",
        ms(percentile(&poster, 0.5)),
        ms(percentile(&poster, 0.95))
    );
}

/// Where a warm screenshot's time goes (mean ms per call over `times`, each stage timed on its
/// own with the public pieces the still is made of).
fn still_stages(video: &compositor::ResolvedVideo, times: &[f64]) -> [f64; 4] {
    use compositor::View;
    use compositor::geom::{CANVAS_H, CANVAS_W, PREVIEW_H, PREVIEW_W};
    let mut sum = [Duration::ZERO; 4];
    let mut frame = vec![0u8; FRAME_BYTES];
    for &t in times {
        let s = Instant::now();
        video.prefetch_scene(0, t);
        // The presenter alone is not prefetched by `prefetch_scene` (one layer): decode it here.
        video.render_scene(0, t, View::Full, &mut frame);
        sum[0] += s.elapsed();
        let s = Instant::now();
        video.render_scene(0, t, View::Full, &mut frame);
        sum[1] += s.elapsed();
        let s = Instant::now();
        let full = tiny_skia::PixmapRef::from_bytes(&frame, CANVAS_W, CANVAS_H).unwrap();
        let small = compositor::raster::resize(full, PREVIEW_W, PREVIEW_H).unwrap();
        sum[2] += s.elapsed();
        let s = Instant::now();
        let mut jpeg = Vec::new();
        jpeg_encoder::Encoder::new(&mut jpeg, compositor::still::JPEG_QUALITY)
            .encode(
                small.data(),
                PREVIEW_W as u16,
                PREVIEW_H as u16,
                jpeg_encoder::ColorType::Rgba,
            )
            .unwrap();
        sum[3] += s.elapsed();
    }
    let n = times.len().max(1) as f64;
    // The first stage included one compose: take it out.
    let compose = ms(sum[1]) / n;
    [
        ms(sum[0]) / n - compose,
        compose,
        ms(sum[2]) / n,
        ms(sum[3]) / n,
    ]
}
