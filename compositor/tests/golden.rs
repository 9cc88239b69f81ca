//! Golden-image tests: real renders compared with reference PNGs in `tests/golden/`.
//!
//! - Fonts are the pinned files in `assets/fonts`; fixture images are generated here, so nothing
//!   depends on the machine.
//! - Tolerance: a pixel differs when any channel is off by more than 2; a test fails when more
//!   than 0.1 % of pixels differ.
//! - `MAKE_REF=1 cargo test -p compositor --test integration golden::` rewrites the references.
//! - On failure, `target/golden-failures/<name>.png` shows expected | diff | actual side by side.

use compositor::frame::{FRAME_BYTES, View};
use compositor::geom::{CANVAS_H, CANVAS_W, CanvasRect, PREVIEW_H, PREVIEW_W, PreviewRect};
use compositor::media::{AudioTrack, EncodeSettings, EncoderChoice, FrameSource, encode_mp4};
use compositor::plan::{
    Animation, Background, CaptionChunk, Clip, Narrator, OverlayObject, OverlayPayload, Palette,
    ProceduralStyle, ScenePlan, TimedWord, Transition, VideoPlan,
};
use compositor::resolve;
use compositor::{ResolvedVideo, overlay_poster, screenshot_280x498};
use std::path::{Path, PathBuf};
use tiny_skia::{
    Color, GradientStop, IntSize, LinearGradient, Paint, PathBuilder, Pixmap, Point, SpreadMode,
    Transform,
};

const MAX_CHANNEL_DELTA: u8 = 2;
const MAX_BAD_FRACTION: f64 = 0.001;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fonts_dir() -> PathBuf {
    manifest().join("../assets/fonts")
}

/// Compares opaque RGBA pixels with `tests/golden/<name>.png`.
fn check(name: &str, width: u32, height: u32, rgba: &[u8]) {
    let actual = Pixmap::from_vec(rgba.to_vec(), IntSize::from_wh(width, height).unwrap()).unwrap();
    let path = manifest().join("tests/golden").join(format!("{name}.png"));
    if std::env::var_os("MAKE_REF").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual.encode_png().unwrap()).unwrap();
        return;
    }
    let expected = Pixmap::load_png(&path).unwrap_or_else(|e| {
        panic!(
            "missing reference {} ({e}); run with MAKE_REF=1",
            path.display()
        )
    });
    assert_eq!(
        (expected.width(), expected.height()),
        (width, height),
        "{name}: size differs from reference"
    );
    let mut diff = Pixmap::new(width, height).unwrap();
    let mut bad = 0usize;
    for ((e, a), d) in expected
        .data()
        .chunks_exact(4)
        .zip(actual.data().chunks_exact(4))
        .zip(diff.data_mut().chunks_exact_mut(4))
    {
        let delta = e
            .iter()
            .zip(a)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        if delta > MAX_CHANNEL_DELTA {
            bad += 1;
            d.copy_from_slice(&[255, 0, 0, 255]);
        } else {
            let g = a[0] / 4 + a[1] / 4 + a[2] / 4;
            d.copy_from_slice(&[g, g, g, 255]);
        }
    }
    let fraction = bad as f64 / f64::from(width * height);
    if fraction > MAX_BAD_FRACTION {
        let out = manifest().join("../target/golden-failures");
        std::fs::create_dir_all(&out).unwrap();
        let mut sheet = Pixmap::new(width * 3, height).unwrap();
        for (i, p) in [&expected, &diff, &actual].into_iter().enumerate() {
            sheet.draw_pixmap(
                (width * i as u32) as i32,
                0,
                p.as_ref(),
                &tiny_skia::PixmapPaint::default(),
                Transform::identity(),
                None,
            );
        }
        let file = out.join(format!("{name}.png"));
        sheet.save_png(&file).unwrap();
        panic!(
            "{name}: {bad} pixels ({:.3} %) differ by more than {MAX_CHANNEL_DELTA}; see {}",
            fraction * 100.0,
            file.display()
        );
    }
}

fn base_scene(style: ProceduralStyle, palette: Palette) -> ScenePlan {
    ScenePlan {
        background_fit: Default::default(),
        duration: 4.0,
        background: Background::Procedural {
            seed: 42,
            style,
            palette,
        },
        narrator: None,
        captions: vec![],
        caption_y: 330.0,
        overlay: vec![],
        transition: Transition::Cut,
    }
}

fn video(scenes: Vec<ScenePlan>) -> ResolvedVideo {
    resolve(&VideoPlan {
        fps: 30,
        scenes,
        fonts_dir: fonts_dir(),
    })
    .unwrap()
}

fn render(v: &ResolvedVideo, scene: usize, t: f64) -> Vec<u8> {
    let mut frame = vec![0u8; FRAME_BYTES];
    v.render_scene(scene, t, View::Full, &mut frame);
    frame
}

fn check_frame(name: &str, v: &ResolvedVideo, scene: usize, t: f64) {
    check(name, CANVAS_W, CANVAS_H, &render(v, scene, t));
}

fn words(text: &str, start: f64, step: f64) -> CaptionChunk {
    CaptionChunk {
        words: text
            .split_whitespace()
            .enumerate()
            .map(|(i, w)| TimedWord {
                word: w.to_string(),
                start: start + i as f64 * step,
                end: start + i as f64 * step + step * 0.9,
            })
            .collect(),
    }
}

const STAT_SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="400" height="220" viewBox="0 0 400 220">
  <rect x="4" y="4" width="392" height="212" rx="28" fill="#ffffff" fill-opacity="0.95"/>
  <rect x="28" y="28" width="12" height="164" rx="6" fill="#ff4d6d"/>
  <text x="64" y="122" font-family="Inter" font-weight="700" font-size="96" fill="#111111">42%</text>
  <text x="66" y="178" font-family="Inter" font-size="34" fill="#444444">faster renders</text>
</svg>"##;

const BADGE_SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" viewBox="0 0 200 200">
  <circle cx="100" cy="100" r="92" fill="#ffd60a"/>
  <path d="M55 105 L88 138 L148 70" stroke="#111" stroke-width="18" fill="none" stroke-linecap="round" stroke-linejoin="round"/>
</svg>"##;

fn stat_object(animation: Animation, y: f64, z: i32) -> OverlayObject {
    OverlayObject {
        rect: CanvasRect::new(160.0, y, 400.0, 220.0),
        z,
        animation,
        start: 1.0,
        end: 3.8,
        payload: OverlayPayload::Svg(STAT_SVG.into()),
    }
}

/// A synthetic "photo": sky gradient, sun, hills. Written as JPEG to exercise that decoder.
fn photo_fixture(dir: &Path) -> PathBuf {
    let (w, h) = (1200u32, 900u32);
    let mut p = Pixmap::new(w, h).unwrap();
    let sky = LinearGradient::new(
        Point::from_xy(0.0, 0.0),
        Point::from_xy(0.0, h as f32),
        vec![
            GradientStop::new(0.0, Color::from_rgba8(40, 90, 170, 255)),
            GradientStop::new(1.0, Color::from_rgba8(250, 180, 120, 255)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    )
    .unwrap();
    let paint = Paint {
        shader: sky,
        ..Paint::default()
    };
    p.fill_rect(
        tiny_skia::Rect::from_xywh(0.0, 0.0, w as f32, h as f32).unwrap(),
        &paint,
        Transform::identity(),
        None,
    );
    let mut solid = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    solid.set_color_rgba8(255, 230, 140, 255);
    p.fill_path(
        &PathBuilder::from_circle(800.0, 380.0, 110.0).unwrap(),
        &solid,
        tiny_skia::FillRule::Winding,
        Transform::identity(),
        None,
    );
    let mut pb = PathBuilder::new();
    pb.move_to(0.0, 650.0);
    pb.quad_to(300.0, 480.0, 600.0, 640.0);
    pb.quad_to(900.0, 780.0, 1200.0, 560.0);
    pb.line_to(1200.0, 900.0);
    pb.line_to(0.0, 900.0);
    pb.close();
    solid.set_color_rgba8(30, 70, 50, 255);
    p.fill_path(
        &pb.finish().unwrap(),
        &solid,
        tiny_skia::FillRule::Winding,
        Transform::identity(),
        None,
    );
    let path = dir.join("photo.jpg");
    let rgb: Vec<u8> = p
        .data()
        .chunks_exact(4)
        .flat_map(|c| [c[0], c[1], c[2]])
        .collect();
    jpeg_encoder::Encoder::new(std::fs::File::create(&path).unwrap(), 92)
        .encode(&rgb, w as u16, h as u16, jpeg_encoder::ColorType::Rgb)
        .unwrap();
    path
}

fn fixture_dir(name: &str) -> PathBuf {
    let dir = manifest().join("../target/golden-fixtures").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn procedural_backgrounds() {
    let v = video(vec![
        base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT),
        base_scene(ProceduralStyle::Bokeh, Palette::SUNSET),
        base_scene(ProceduralStyle::Gradient, Palette::OCEAN),
    ]);
    check_frame("procedural_grid", &v, 0, 1.0);
    check_frame("procedural_bokeh", &v, 1, 1.0);
    check_frame("procedural_gradient", &v, 2, 1.0);
}

#[test]
fn image_background_ken_burns() {
    let photo = photo_fixture(&fixture_dir("image_background"));
    let mut s = base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT);
    s.background = Background::Image(photo);
    let v = video(vec![s]);
    check_frame("image_background", &v, 0, 2.0);
    // The drift moves the picture, but gently: start and end differ, yet not by much.
    let (a, b) = (render(&v, 0, 0.0), render(&v, 0, 3.99));
    assert_ne!(a, b);
}

#[test]
fn a_library_picture_windowed_off_the_overlay_and_as_a_backdrop() {
    use compositor::focus::{self, BackgroundFit, Subject};
    let picture = manifest().join("../assets/broll/images/laptop.jpg");
    let bytes = std::fs::read(&picture).unwrap();
    let img = compositor::raster::decode_image(&bytes).unwrap();
    let subject = Subject {
        focus: focus::detect(img.as_ref()),
        width: img.width(),
        height: img.height(),
    };
    // The subject in the slot between an overlay at the band's top and the captions.
    let slot = CanvasRect::new(0.0, 474.0, 720.0, 280.0);
    let rect = focus::window_for(&subject, slot).unwrap();
    let placed = focus::subject_on_canvas(&subject, BackgroundFit::Window { rect }).unwrap();
    assert!(
        placed.y >= slot.y && placed.y + placed.h <= slot.y + slot.h,
        "{placed:?}"
    );
    let scene = |fit| {
        let mut s = base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT);
        s.background = Background::Image(picture.clone());
        s.background_fit = fit;
        s
    };
    let v = video(vec![
        scene(BackgroundFit::Window { rect }),
        scene(BackgroundFit::Backdrop),
    ]);
    check_frame("image_background_window", &v, 0, 2.0);
    check_frame("image_background_backdrop", &v, 1, 2.0);
}

#[test]
fn captions_highlight_the_spoken_word() {
    let mut s = base_scene(ProceduralStyle::Gradient, Palette::MIDNIGHT);
    s.captions = vec![
        words("Every scene gets captions that", 0.2, 0.3),
        words("follow the voice word by word", 2.0, 0.3),
    ];
    let v = video(vec![s]);
    // Third word ("captions") of the first chunk is being spoken.
    check_frame("captions_highlight", &v, 0, 0.2 + 2.0 * 0.3 + 0.1);
    // Before the first word nothing shows; between chunks the next one takes over.
    let plain = video(vec![base_scene(
        ProceduralStyle::Gradient,
        Palette::MIDNIGHT,
    )]);
    assert_eq!(render(&v, 0, 0.05), render(&plain, 0, 0.05));
}

#[test]
fn vietnamese_caption() {
    let mut s = base_scene(ProceduralStyle::Bokeh, Palette::OCEAN);
    s.captions = vec![words("Xin chào thế giới, đây là tiếng Việt", 0.0, 0.25)];
    s.caption_y = 300.0;
    let v = video(vec![s]);
    check_frame("caption_vietnamese", &v, 0, 1.1);
}

#[test]
fn narrator_cards() {
    let mut wide = base_scene(ProceduralStyle::Grid, Palette::OCEAN);
    wide.narrator = Some(Narrator::Card {
        name: "Ada Lovelace".into(),
        rect: PreviewRect::new(20.0, 60.0, 240.0, 80.0),
    });
    wide.captions = vec![words("Hello from the narrator", 0.0, 0.4)];
    let mut tall = base_scene(ProceduralStyle::Gradient, Palette::SUNSET);
    tall.narrator = Some(Narrator::Card {
        name: "Nguyễn Văn An".into(),
        rect: PreviewRect::new(60.0, 70.0, 160.0, 200.0),
    });
    tall.captions = vec![words("Xin chào các bạn thân mến", 0.6, 0.3)];
    tall.caption_y = 1000.0;
    let mut square = base_scene(ProceduralStyle::Bokeh, Palette::MIDNIGHT);
    // The default narrator rect of a built scene.
    square.narrator = Some(Narrator::Card {
        name: "Reelsmith".into(),
        rect: PreviewRect::new(70.0, 90.0, 140.0, 140.0),
    });
    let v = video(vec![wide, tall, square]);
    check_frame("narrator_card_wide", &v, 0, 0.5);
    check_frame("narrator_card_tall", &v, 1, 0.9);
    check_frame("narrator_card_square", &v, 2, 0.3);
    // Halo and bars breathe while the narrator is silent.
    assert_ne!(render(&v, 2, 0.2), render(&v, 2, 0.9));
    // The voice bars follow the narration: speaking differs from silence.
    assert_ne!(render(&v, 1, 0.3), render(&v, 1, 0.9));
}

#[test]
fn overlay_objects_mid_animation() {
    let mut s = base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT);
    s.overlay = vec![
        stat_object(Animation::SlideUp, 240.0, 1),
        OverlayObject {
            rect: CanvasRect::new(460.0, 560.0, 200.0, 200.0),
            z: 2,
            animation: Animation::Pop,
            start: 1.1,
            end: 3.8,
            payload: OverlayPayload::Svg(BADGE_SVG.into()),
        },
        OverlayObject {
            rect: CanvasRect::new(60.0, 600.0, 360.0, 36.0),
            z: 0,
            animation: Animation::GrowX,
            start: 1.0,
            end: 3.8,
            payload: OverlayPayload::Svg(
                r##"<svg xmlns="http://www.w3.org/2000/svg" width="360" height="36"><rect width="360" height="36" rx="18" fill="#50c8ff"/></svg>"##.into(),
            ),
        },
    ];
    let v = video(vec![s]);
    // 0.2 s into the 0.45 s entrances: slide-up partly risen, pop overshooting, bar half grown.
    check_frame("overlay_mid_animation", &v, 0, 1.2);
    check_frame("overlay_settled", &v, 0, 2.5);
    // Before start and after end the objects are gone.
    let plain = video(vec![base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT)]);
    assert_eq!(render(&v, 0, 0.5), render(&plain, 0, 0.5));
    assert_eq!(render(&v, 0, 3.9), render(&plain, 0, 3.9));
}

#[test]
fn every_preset_renders_between_hidden_and_settled() {
    let plain = video(vec![base_scene(ProceduralStyle::Gradient, Palette::OCEAN)]);
    for a in Animation::ALL {
        let mut s = base_scene(ProceduralStyle::Gradient, Palette::OCEAN);
        s.overlay = vec![stat_object(a, 500.0, 0)];
        let v = video(vec![s]);
        let (before, mid, settled) = (render(&v, 0, 0.9), render(&v, 0, 1.15), render(&v, 0, 2.0));
        assert_eq!(before, render(&plain, 0, 0.9), "{a:?}");
        assert_ne!(mid, settled, "{a:?} does not move");
        assert_ne!(mid, render(&plain, 0, 1.15), "{a:?} invisible mid-way");
    }
}

fn full_video() -> ResolvedVideo {
    let photo = photo_fixture(&fixture_dir("full"));
    let mut s = base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT);
    s.background = Background::Image(photo);
    s.narrator = Some(Narrator::Card {
        name: "Ada Lovelace".into(),
        rect: PreviewRect::new(16.0, 56.0, 200.0, 64.0),
    });
    s.overlay = vec![stat_object(Animation::SlideLeft, 300.0, 0)];
    s.captions = vec![
        words("Render once, preview anywhere", 0.2, 0.35),
        words("the same pixels", 1.8, 0.35),
    ];
    s.transition = Transition::Fade;
    let next = base_scene(ProceduralStyle::Bokeh, Palette::SUNSET);
    video(vec![s, next])
}

#[test]
fn screenshot_and_poster() {
    let v = full_video();
    let jpeg = screenshot_280x498(&v, 0, Some(1.3));
    assert!(jpeg.starts_with(&[0xFF, 0xD8]));
    let mut dec = zune_jpeg::JpegDecoder::new_with_options(
        zune_jpeg::zune_core::bytestream::ZCursor::new(&jpeg),
        zune_jpeg::zune_core::options::DecoderOptions::default()
            .jpeg_set_out_colorspace(zune_jpeg::zune_core::colorspace::ColorSpace::RGBA),
    );
    let pixels = dec.decode().unwrap();
    let info = dec.info().unwrap();
    assert_eq!(
        (u32::from(info.width), u32::from(info.height)),
        (PREVIEW_W, PREVIEW_H)
    );
    check("screenshot_280x498", PREVIEW_W, PREVIEW_H, &pixels);
    // The default seek is 40 % into the scene.
    assert_eq!(
        screenshot_280x498(&v, 0, None),
        screenshot_280x498(&v, 0, Some(1.6))
    );

    let png = overlay_poster(&v, 0).expect("scene 0 has an overlay");
    let poster = Pixmap::decode_png(&png).unwrap();
    assert_eq!((poster.width(), poster.height()), (PREVIEW_W, PREVIEW_H));
    check("overlay_poster", PREVIEW_W, PREVIEW_H, poster.data());
    // Black around the object.
    assert_eq!(
        poster.pixel(2, 2).unwrap(),
        tiny_skia::PremultipliedColorU8::from_rgba(0, 0, 0, 255).unwrap()
    );
    assert!(overlay_poster(&v, 1).is_none(), "scene 1 has no overlay");
    assert!(overlay_poster(&v, 7).is_none(), "no scene 7");
}

#[test]
fn full_frame_and_crossfade() {
    let v = full_video();
    // Full composition mid-scene, through the video timeline.
    let mut frame = vec![0u8; FRAME_BYTES];
    v.render_frame(39, &mut frame); // t = 1.3 s
    check("full_frame", CANVAS_W, CANVAS_H, &frame);
    // Inside the crossfade the frame sits between the two scenes.
    let d0 = v.scene_duration(0).unwrap();
    let idx = ((d0 - 0.15) * 30.0).round() as u64;
    v.render_frame(idx, &mut frame);
    let (s, t) = v.scene_at(idx as f64 / 30.0);
    assert_eq!(s, 0);
    let (a, b) = (render(&v, 0, t), render(&v, 1, 0.0));
    let between = frame.iter().zip(a.iter().zip(&b)).all(|(&f, (&x, &y))| {
        let (f, lo, hi) = (i16::from(f), i16::from(x.min(y)), i16::from(x.max(y)));
        f >= lo - 1 && f <= hi + 1
    });
    assert!(between);
    assert_ne!(frame, a);
    assert_ne!(frame, b);
}

/// A deterministic little film: a warm gradient with a disc orbiting and a bar sweeping, so
/// each frame differs and the time a frame comes from is visible.
struct Film {
    width: u32,
    height: u32,
    frames: u64,
    hue: u8,
}

impl FrameSource for Film {
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn fps(&self) -> u32 {
        30
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        let (w, h) = (self.width as f32, self.height as f32);
        let mut p = Pixmap::new(self.width, self.height).unwrap();
        let bg = LinearGradient::new(
            Point::from_xy(0.0, 0.0),
            Point::from_xy(w, h),
            vec![
                GradientStop::new(0.0, Color::from_rgba8(self.hue, 60, 120, 255)),
                GradientStop::new(1.0, Color::from_rgba8(240, 150, self.hue, 255)),
            ],
            SpreadMode::Pad,
            Transform::identity(),
        )
        .unwrap();
        let paint = Paint {
            shader: bg,
            ..Paint::default()
        };
        p.fill_rect(
            tiny_skia::Rect::from_xywh(0.0, 0.0, w, h).unwrap(),
            &paint,
            Transform::identity(),
            None,
        );
        let phase = index as f32 / self.frames as f32 * std::f32::consts::TAU;
        let mut solid = Paint {
            anti_alias: true,
            ..Paint::default()
        };
        solid.set_color_rgba8(255, 250, 220, 255);
        p.fill_path(
            &PathBuilder::from_circle(
                w / 2.0 + phase.cos() * w * 0.3,
                h / 2.0 + phase.sin() * h * 0.3,
                w.min(h) * 0.12,
            )
            .unwrap(),
            &solid,
            tiny_skia::FillRule::Winding,
            Transform::identity(),
            None,
        );
        solid.set_color_rgba8(20, 20, 30, 255);
        let x = index as f32 / self.frames as f32 * (w - 20.0);
        p.fill_rect(
            tiny_skia::Rect::from_xywh(x, 0.0, 20.0, h).unwrap(),
            &solid,
            Transform::identity(),
            None,
        );
        rgba.copy_from_slice(p.data());
    }
}

/// Encodes `film` to `dir/name` with our own x264 path, in a child process of its own (this test
/// binary again, running only [`encode_film_fixture_when_asked`]).
///
/// Why a child: encoded in this process while other tests run, x264's bytes for the same frames
/// differ now and then (3 runs in 8 of the whole binary here: frames a few levels apart,
/// PSNR > 50 dB, which moved `clip_background_presenter`'s sun edge past the tolerance: the flaky
/// `clip_background_and_presenter_clip`). Encoded alone in a process they were the same bytes
/// in every run, loaded or not. Decoding was never at fault: the frame for a time is a pure
/// function of the file and the time. Each test has its own fixture directory.
fn film_fixture(dir: &Path, name: &str, film: &Film) -> PathBuf {
    let path = dir.join(name);
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &this_module_test("encode_film_fixture_when_asked"),
            "--test-threads=1",
            "--quiet",
        ])
        .env("FILM_FIXTURE_OUT", &path)
        .env(
            "FILM_FIXTURE",
            format!(
                "{} {} {} {}",
                film.width, film.height, film.frames, film.hue
            ),
        )
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "encoding {} failed", path.display());
    path
}

/// The name libtest knows test `name` of this module by (`golden::name`: this file is a module
/// of the crate's one integration-test binary), for `--exact`.
fn this_module_test(name: &str) -> String {
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    format!("{module}::{name}")
}

/// The child's side of [`film_fixture`]; does nothing unless `FILM_FIXTURE_OUT` is set.
#[test]
fn encode_film_fixture_when_asked() {
    let (Some(out), Some(spec)) = (
        std::env::var_os("FILM_FIXTURE_OUT"),
        std::env::var("FILM_FIXTURE").ok(),
    ) else {
        return;
    };
    let n: Vec<u64> = spec.split(' ').map(|v| v.parse().unwrap()).collect();
    let film = Film {
        width: n[0] as u32,
        height: n[1] as u32,
        frames: n[2],
        hue: n[3] as u8,
    };
    let seconds = film.frames as f64 / 30.0;
    encode_mp4(
        &film,
        &AudioTrack {
            sample_rate: 48_000,
            samples: vec![0; (seconds * 48_000.0) as usize],
        },
        &EncodeSettings {
            width: film.width,
            height: film.height,
            encoder: EncoderChoice::Software,
            threads: Some(1),
            crf: 16,
            ..EncodeSettings::default()
        },
        Path::new(&out),
        &mut |_, _| {},
    )
    .unwrap();
}

/// The clip scene of the clip tests, its fixtures in folder `fixtures`: a background clip
/// trimmed to 0.5–1.5 s and looped, a presenter clip looped whole, captions from
/// `captions_at` seconds and one overlay object entering with `animation`.
fn clip_scene(fixtures: &str, captions_at: f64, animation: Animation) -> ScenePlan {
    let dir = fixture_dir(fixtures);
    let bg = film_fixture(
        &dir,
        "background.mp4",
        &Film {
            width: 480,
            height: 640,
            frames: 60,
            hue: 30,
        },
    );
    let presenter = film_fixture(
        &dir,
        "presenter.mp4",
        &Film {
            width: 320,
            height: 240,
            frames: 45,
            hue: 200,
        },
    );
    let mut s = base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT);
    s.background = Background::Clip(Clip {
        path: bg,
        start: 0.5,
        end: Some(1.5),
    });
    s.narrator = Some(Narrator::Clip {
        clip: Clip::new(presenter),
        rect: PreviewRect::new(150.0, 40.0, 110.0, 150.0),
    });
    s.captions = vec![words("Clips under captions", captions_at, 0.3)];
    s.overlay = vec![stat_object(animation, 420.0, 0)];
    s
}

#[test]
fn clip_background_and_presenter_clip() {
    // Trim 0.5–1.5 s of the background, looped; the presenter loops whole.
    let s = clip_scene("clips", 2.0, Animation::Fade);
    let mut bare = s.clone();
    bare.captions.clear();
    bare.overlay.clear();
    let v = video(vec![s]);
    // t = 2.2 s: background clip time 0.5 + (2.2 mod 1.0) = 0.7 s, presenter 2.2 mod 1.5 = 0.7 s.
    check_frame("clip_background_presenter", &v, 0, 2.2);
    // Both loops line up again after 3 s: the same picture, decoded after a seek back.
    let bare = video(vec![bare]);
    assert_eq!(render(&bare, 0, 3.2), render(&bare, 0, 0.2), "clips loop");
    let jpeg = screenshot_280x498(&v, 0, Some(2.2));
    let mut dec = zune_jpeg::JpegDecoder::new_with_options(
        zune_jpeg::zune_core::bytestream::ZCursor::new(&jpeg),
        zune_jpeg::zune_core::options::DecoderOptions::default()
            .jpeg_set_out_colorspace(zune_jpeg::zune_core::colorspace::ColorSpace::RGBA),
    );
    check(
        "clip_screenshot_280x498",
        PREVIEW_W,
        PREVIEW_H,
        &dec.decode().unwrap(),
    );
    assert!(v.media_errors().is_empty(), "{:?}", v.media_errors());
}

/// A screenshot of a clip scene is composed at preview size (the background decoded at 280×498,
/// the layers above it averaged down before they are laid over it). It must show what the
/// video's frame averaged down shows: the same layers in the same places, differing by
/// resampling only. A layer missing, misplaced or from another moment shows up as a large mean
/// difference and many far-off pixels.
#[test]
fn clip_still_composed_at_preview_size_matches_the_downscaled_frame() {
    use compositor::still::{downscaled_frame_280x498, preview_280x498};
    let s = clip_scene("clips_preview", 0.1, Animation::Pop);
    let v = video(vec![s]);
    let cold = preview_280x498(&v, 0, 0.7);
    // Out of order, across both loops and an overlay entering, as an editor asks.
    for t in [2.2, 0.25, 1.9, 0.7, 2.95, 1.05] {
        let fast = preview_280x498(&v, 0, t);
        let slow = downscaled_frame_280x498(&v, 0, t);
        let diffs: Vec<u8> = fast
            .data()
            .chunks_exact(4)
            .zip(slow.data().chunks_exact(4))
            .flat_map(|(a, b)| (0..3).map(move |c| a[c].abs_diff(b[c])))
            .collect();
        let mean = diffs.iter().map(|d| f64::from(*d)).sum::<f64>() / diffs.len() as f64;
        let far = diffs.iter().filter(|d| **d > 32).count() as f64 / diffs.len() as f64;
        assert!(mean < 1.5, "t = {t}: mean difference {mean:.2} per channel");
        assert!(
            far < 0.002,
            "t = {t}: {:.3} % of samples differ by more than 32",
            far * 100.0
        );
    }
    // The frame for a time is the same whichever seek or fill reached it: a cold still, the
    // same moment from the kept frames, and again after other moments and a release.
    assert_eq!(preview_280x498(&v, 0, 0.7).data(), cold.data());
    v.release_media();
    let _ = preview_280x498(&v, 0, 2.6);
    assert_eq!(preview_280x498(&v, 0, 0.7).data(), cold.data());
    assert!(v.media_errors().is_empty(), "{:?}", v.media_errors());
}

/// The encoder's fast path over clip backgrounds (decoded YUV kept as it is, only covered
/// regions blended in RGBA) must show what the renderer shows: the same layers in the same
/// places, off by no more than the RGB round trip it skips (a few steps where the clip's YUV
/// lies outside the RGB cube and the round trip clamps it). A layer drawing outside the region
/// it declares would be lost here, and show up as a large difference.
/// Every kind of layer over `s`'s background: a narrator card, two caption chunks and overlay
/// objects entering one after another across the frame (the first off its left edge), and a
/// crossfade into the next scene.
fn add_every_layer(s: &mut ScenePlan) {
    s.narrator = Some(Narrator::Card {
        name: "Ada Lovelace".into(),
        rect: PreviewRect::new(150.0, 40.0, 110.0, 150.0),
    });
    s.captions = vec![
        words("Layers under captions", 0.2, 0.3),
        words("and more words here", 1.6, 0.3),
    ];
    s.overlay = [
        Animation::Pop,
        Animation::SlideLeft,
        Animation::GrowX,
        Animation::GrowY,
        Animation::SlideDown,
    ]
    .into_iter()
    .enumerate()
    .map(|(i, anim)| {
        let mut o = stat_object(anim, 80.0 + 200.0 * i as f64, i as i32);
        o.start = 0.2 * i as f64;
        o.rect.x = -60.0 + 70.0 * i as f64;
        o
    })
    .collect();
    s.transition = Transition::Fade;
}

#[test]
fn encoder_fast_path_matches_the_renderer() {
    use compositor::media::convert::{I420Layout, rgba_to_i420};
    let dir = fixture_dir("clips_fast_path");
    let bg = film_fixture(
        &dir,
        "background.mp4",
        &Film {
            width: 480,
            height: 640,
            frames: 60,
            hue: 30,
        },
    );
    let presenter = film_fixture(
        &dir,
        "presenter.mp4",
        &Film {
            width: 320,
            height: 240,
            frames: 45,
            hue: 200,
        },
    );
    let mut a = base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT);
    a.background = Background::Clip(Clip::new(bg.clone()));
    add_every_layer(&mut a);
    let mut b = base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT);
    b.duration = 1.0;
    b.background = Background::Clip(Clip::new(bg));
    b.narrator = Some(Narrator::Clip {
        clip: Clip::new(presenter),
        rect: PreviewRect::new(20.0, 300.0, 110.0, 150.0),
    });
    let v = video(vec![a, b]);
    let layout = I420Layout::new(CANVAS_W, CANVAS_H).unwrap();
    let (mut fast, mut slow) = (vec![0u8; layout.size], vec![0u8; layout.size]);
    let mut scratch = vec![0x55u8; FRAME_BYTES];
    let mut frame = vec![0u8; FRAME_BYTES];
    let mut handled = 0;
    let count = v.frame_count();
    for index in (0..count).step_by(3) {
        v.prefetch(index, 1);
        if !v.render_frame_i420(index, &mut scratch, &layout, &mut fast) {
            continue;
        }
        handled += 1;
        v.render_frame(index, &mut frame);
        rgba_to_i420(&frame, &layout, &mut slow).unwrap();
        let worst = fast.iter().zip(&slow).map(|(x, y)| x.abs_diff(*y)).max();
        let off = fast
            .iter()
            .zip(&slow)
            .filter(|(x, y)| x.abs_diff(**y) > 2)
            .count();
        assert!(
            worst <= Some(12) && off * 1000 <= layout.size,
            "frame {index}: worst byte off by {worst:?}, {off} bytes off by more than 2"
        );
    }
    // Everything but the crossfade takes the fast path.
    assert!(handled * 10 >= count / 3 * 8, "{handled} of {count} frames");
    assert!(v.media_errors().is_empty(), "{:?}", v.media_errors());
}

#[test]
fn plate_scenes_take_the_fast_path_to_the_same_bytes() {
    use compositor::media::convert::{I420Layout, rgba_to_i420};
    let mut a = base_scene(ProceduralStyle::Bokeh, Palette::SUNSET);
    add_every_layer(&mut a);
    // A picture drifting over its plate: odd and even offsets on both axes.
    let mut b = base_scene(ProceduralStyle::Grid, Palette::MIDNIGHT);
    b.background = Background::Image(manifest().join("../assets/broll/images/laptop.jpg"));
    b.duration = 6.0;
    b.captions = vec![words("A still picture", 0.5, 0.4)];
    let v = video(vec![a, b]);
    let layout = I420Layout::new(CANVAS_W, CANVAS_H).unwrap();
    let (mut fast, mut slow) = (vec![0u8; layout.size], vec![1u8; layout.size]);
    let mut scratch = vec![0x55u8; FRAME_BYTES];
    let mut frame = vec![0u8; FRAME_BYTES];
    let mut handled = 0;
    let count = v.frame_count();
    for index in 0..count {
        if !v.render_frame_i420(index, &mut scratch, &layout, &mut fast) {
            continue;
        }
        handled += 1;
        v.render_frame(index, &mut frame);
        rgba_to_i420(&frame, &layout, &mut slow).unwrap();
        assert!(
            fast == slow,
            "frame {index} differs from the rendered and converted frame"
        );
    }
    // Everything but the crossfade takes the fast path.
    assert!(handled + 12 >= count, "{handled} of {count} frames");
}

#[test]
fn contact_sheet_has_a_labelled_tile_per_scene() {
    use compositor::contact_sheet::{TILE_H, TILE_W, contact_sheet, sheet_size, tile_origin};
    let scenes: Vec<_> = [
        (ProceduralStyle::Grid, Palette::OCEAN),
        (ProceduralStyle::Gradient, Palette::SUNSET),
        (ProceduralStyle::Bokeh, Palette::MIDNIGHT),
        (ProceduralStyle::Grid, Palette::SUNSET),
        (ProceduralStyle::Bokeh, Palette::OCEAN),
    ]
    .into_iter()
    .map(|(style, palette)| base_scene(style, palette))
    .collect();
    let v = video(scenes);
    let fonts = resolve::caption_fonts(&fonts_dir()).unwrap();
    let sheet = tiny_skia::Pixmap::decode_png(&contact_sheet(&v, &fonts)).unwrap();
    assert_eq!((sheet.width(), sheet.height()), sheet_size(5));
    let tile = |i: usize| -> Vec<u8> {
        let (x, y) = tile_origin(i);
        (y..y + TILE_H)
            .flat_map(|row| {
                let start = ((row * sheet.width() + x) * 4) as usize;
                sheet.data()[start..start + (TILE_W * 4) as usize].to_vec()
            })
            .collect()
    };
    let tiles: Vec<_> = (0..5).map(tile).collect();
    for (i, a) in tiles.iter().enumerate() {
        assert!(a.chunks(4).any(|p| p[..3] != a[..3]), "tile {i} is flat");
        for b in &tiles[i + 1..] {
            assert_ne!(a, b, "tiles repeat");
        }
    }
    // The label strip above the first tile holds light text.
    let (x, y) = tile_origin(0);
    let strip = (y - 30..y - 4).any(|row| {
        (x..x + 80).any(|col| sheet.data()[((row * sheet.width() + col) * 4) as usize] > 150)
    });
    assert!(strip, "scene 1 is labelled");
}
