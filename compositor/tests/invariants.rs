//! Architecture and safety invariants of the render core, kept true by tests.

use compositor::frame::FRAME_BYTES;
use compositor::geom::CanvasRect;
use compositor::media::FrameSource;
use compositor::plan::{
    Animation, Background, OverlayObject, OverlayPayload, Palette, ProceduralStyle, ScenePlan,
    Transition, VideoPlan,
};
use compositor::resolve;
use rayon::prelude::*;
use std::path::PathBuf;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scene(overlay: Vec<OverlayObject>) -> ScenePlan {
    ScenePlan {
        background_fit: Default::default(),
        duration: 2.0,
        background: Background::Procedural {
            seed: 9,
            style: ProceduralStyle::Gradient,
            palette: Palette::OCEAN,
        },
        narrator: None,
        captions: vec![],
        caption_y: 330.0,
        overlay,
        transition: Transition::Fade,
    }
}

fn plan(scenes: Vec<ScenePlan>) -> VideoPlan {
    VideoPlan {
        fps: 30,
        scenes,
        fonts_dir: manifest().join("../assets/fonts"),
    }
}

// The dependency invariant (no tokio/warp/hyper/reqwest/redb) is checked once for the
// whole workspace in `tests/tests/architecture.rs`.

/// SVG overlays never load files or URLs: an `<image>` pointing at a real PNG on disk stays
/// empty, while the same picture as a `data:` URL shows.
#[test]
fn svg_overlays_resolve_no_external_references() {
    let dir = manifest().join("../target/golden-fixtures/external");
    std::fs::create_dir_all(&dir).unwrap();
    let mut red = tiny_skia::Pixmap::new(8, 8).unwrap();
    red.fill(tiny_skia::Color::from_rgba8(255, 0, 0, 255));
    let png_path = dir.join("red.png");
    red.save_png(&png_path).unwrap();
    let data_url = format!(
        "data:image/png;base64,{}",
        base64_encode(&red.encode_png().unwrap())
    );
    let svg = |href: &str| {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"><image width="100" height="100" xlink:href="{href}"/></svg>"#
        )
    };
    let object = |href: &str| OverlayObject {
        rect: CanvasRect::new(0.0, 0.0, 720.0, 1280.0),
        z: 0,
        animation: Animation::Fade,
        start: 0.0,
        end: 2.0,
        payload: OverlayPayload::Svg(svg(href)),
    };
    let file_url = format!("file://{}", png_path.display());
    let v = resolve(&plan(vec![
        scene(vec![object(png_path.to_str().unwrap())]),
        scene(vec![object(&file_url)]),
        scene(vec![object("red.png")]),
        scene(vec![object(&data_url)]),
    ]))
    .unwrap();
    let center_red = |scene| {
        let png = compositor::overlay_poster(&v, scene).unwrap();
        let p = tiny_skia::Pixmap::decode_png(&png).unwrap();
        let c = p.pixel(140, 249).unwrap();
        (c.red(), c.green())
    };
    assert_eq!(center_red(0), (0, 0));
    assert_eq!(center_red(1), (0, 0));
    assert_eq!(center_red(2), (0, 0));
    assert_eq!(center_red(3), (255, 0));
}

fn base64_encode(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Frames pulled in parallel through `FrameSource` equal frames rendered one by one, and the
/// frame count matches the summed durations.
#[test]
fn frame_source_is_deterministic_in_parallel() {
    let v = resolve(&plan(vec![scene(vec![]), scene(vec![])])).unwrap();
    let src: &dyn FrameSource = &v;
    assert_eq!(src.fps(), 30);
    assert_eq!(src.frame_count(), 120);
    let picks: Vec<u64> = vec![0, 30, 55, 58, 59, 60, 119, 500];
    let serial: Vec<Vec<u8>> = picks
        .iter()
        .map(|&i| {
            let mut f = vec![0u8; FRAME_BYTES];
            src.render(i, &mut f);
            f
        })
        .collect();
    let parallel: Vec<Vec<u8>> = picks
        .par_iter()
        .map(|&i| {
            let mut f = vec![7u8; FRAME_BYTES];
            src.render(i, &mut f);
            f
        })
        .collect();
    assert!(serial == parallel);
    // Frames are opaque.
    assert!(
        serial
            .iter()
            .all(|f| f.chunks_exact(4).all(|p| p[3] == 255))
    );
}

/// Oversize and malformed images fail at resolve time with a clear error, never a panic.
#[test]
fn hostile_images_fail_cleanly() {
    let dir = manifest().join("../target/golden-fixtures/hostile");
    std::fs::create_dir_all(&dir).unwrap();
    // A PNG header claiming 100000×10 pixels.
    let mut huge = Vec::from(&b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR"[..]);
    huge.extend_from_slice(&100_000u32.to_be_bytes());
    huge.extend_from_slice(&10u32.to_be_bytes());
    huge.extend_from_slice(&[8, 6, 0, 0, 0]);
    huge.extend_from_slice(&[0, 0, 0, 0]); // bad CRC is fine: either check rejects it
    let cases = [
        ("huge.png", huge),
        ("truncated.jpg", vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16]),
        ("text.png", b"hello".to_vec()),
    ];
    for (name, bytes) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let mut s = scene(vec![]);
        s.background = Background::Image(path.clone());
        let err = resolve(&plan(vec![s])).unwrap_err();
        assert!(err.to_string().contains(name), "{err}");
    }
}
