//! Golden outputs of the designer: the composition SVG (exact) and its rendering (PNG, small
//! tolerance), English and Vietnamese, every role, default and brand colours.
//!
//! - Fonts are the pinned files in `assets/fonts`; nothing depends on the machine.
//! - PNG tolerance: a pixel differs when a channel is off by more than 2; a case fails when more
//!   than 0.1 % of pixels differ. SVGs must match byte for byte (the design is deterministic).
//! - `MAKE_REF=1 cargo test -p typography --test integration golden::` rewrites the references.
//! - On failure `target/golden-failures/typography-<name>.png` shows expected | diff | actual.

use std::path::PathBuf;
use tiny_skia::{IntSize, Pixmap, Transform};
use typography::design::{Cta, DesignInput, FontSet, Rgb, Role, SAFE_BOTTOM, SAFE_TOP, design};

const MAX_CHANNEL_DELTA: u8 = 2;
const MAX_BAD_FRACTION: f64 = 0.001;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fonts() -> FontSet {
    FontSet::from_dir(&manifest().join("../assets/fonts")).unwrap()
}

/// Renders an SVG with no font database at all: the outlines must carry every glyph.
fn render(svg: &str) -> Pixmap {
    let opt = usvg::Options {
        resources_dir: None,
        fontdb: std::sync::Arc::new(usvg::fontdb::Database::new()),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &opt).unwrap();
    let mut pm = Pixmap::new(720, 1280).unwrap();
    // A dark plate so white text shows in the reference images.
    pm.fill(tiny_skia::Color::from_rgba8(24, 28, 36, 255));
    resvg::render(&tree, Transform::identity(), &mut pm.as_mut());
    pm
}

fn check(name: &str, input: DesignInput<'_>) {
    let d = design(&fonts(), &input).unwrap();
    for o in &d.objects {
        assert!(
            o.rect.y >= SAFE_TOP && o.rect.bottom() <= SAFE_BOTTOM,
            "{name}: {o:?}"
        );
    }
    let svg = d.composition_svg();
    assert!(!svg.contains("<text"));
    let actual = render(&svg);
    let dir = manifest().join("tests/golden");
    let svg_path = dir.join(format!("{name}.svg"));
    let png_path = dir.join(format!("{name}.png"));
    if std::env::var_os("MAKE_REF").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&svg_path, &svg).unwrap();
        std::fs::write(&png_path, actual.encode_png().unwrap()).unwrap();
        return;
    }
    let expected = Pixmap::load_png(&png_path)
        .unwrap_or_else(|e| panic!("missing {} ({e}); run with MAKE_REF=1", png_path.display()));
    let (w, h) = (actual.width(), actual.height());
    assert_eq!((expected.width(), expected.height()), (w, h), "{name}");
    let mut diff = Pixmap::new(w, h).unwrap();
    let mut bad = 0usize;
    for ((e, a), d) in expected
        .data()
        .chunks_exact(4)
        .zip(actual.data().chunks_exact(4))
        .zip(diff.data_mut().chunks_exact_mut(4))
    {
        let off = e
            .iter()
            .zip(a)
            .any(|(x, y)| x.abs_diff(*y) > MAX_CHANNEL_DELTA);
        if off {
            bad += 1;
            d.copy_from_slice(&[255, 0, 0, 255]);
        } else {
            d.copy_from_slice(&[e[0] / 3, e[1] / 3, e[2] / 3, 255]);
        }
    }
    let fraction = bad as f64 / (w * h) as f64;
    if fraction > MAX_BAD_FRACTION {
        let out = manifest().join("../target/golden-failures");
        std::fs::create_dir_all(&out).unwrap();
        let mut strip = Pixmap::new(w * 3, h).unwrap();
        for (i, pm) in [&expected, &diff, &actual].into_iter().enumerate() {
            strip.draw_pixmap(
                (i as u32 * w) as i32,
                0,
                pm.as_ref(),
                &tiny_skia::PixmapPaint::default(),
                Transform::identity(),
                None,
            );
        }
        let p = out.join(format!("typography-{name}.png"));
        strip.save_png(&p).unwrap();
        panic!(
            "{name}: {:.3} % of pixels differ; see {}",
            fraction * 100.0,
            p.display()
        );
    }
    let expected_svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(
        expected_svg == svg,
        "{name}: SVG differs from {}",
        svg_path.display()
    );
    let _ = IntSize::from_wh(w, h);
}

#[test]
fn typography_english() {
    check(
        "typography_en",
        DesignInput {
            role: Some(Role::Typography),
            text: "Most teams lose 30% of their leads -> because nobody calls back",
            look: Some("clean"),
            ..Default::default()
        },
    );
}

#[test]
fn typography_vietnamese_brand() {
    check(
        "typography_vi_brand",
        DesignInput {
            role: Some(Role::Typography),
            text: "Người Việt | ưu tiên chất lượng → hơn giá rẻ",
            colors: &[Rgb(0xE6, 0x39, 0x46), Rgb(0xF1, 0xFA, 0xEE)],
            look: Some("đỏ-1"),
            ..Default::default()
        },
    );
}

#[test]
fn opening_poster_english() {
    check(
        "opening_poster_en",
        DesignInput {
            role: Some(Role::OpeningPoster),
            text: "Why do most small businesses fail in their very first year?",
            look: Some("bold_2"),
            ..Default::default()
        },
    );
}

#[test]
fn opening_poster_vietnamese_narrator() {
    check(
        "opening_poster_vi_narrator",
        DesignInput {
            role: Some(Role::OpeningPoster),
            text: "Bí quyết giữ chân khách hàng trong thời đại số.",
            show_narrator: true,
            colors: &[Rgb(0x2A, 0x9D, 0x8F)],
            look: Some("teal"),
            ..Default::default()
        },
    );
}

#[test]
fn cta_poster_english_brand() {
    let cta = Cta {
        company_name: "Northwind Roofing".into(),
        phone: "+1 555 0100".into(),
        email: "hi@northwind.example".into(),
    };
    check(
        "cta_poster_en_brand",
        DesignInput {
            role: Some(Role::CtaPoster),
            text: "Book your free inspection today.",
            cta: Some(&cta),
            colors: &[Rgb(0x1D, 0x35, 0x57), Rgb(0xFF, 0xB7, 0x03)],
            look: Some("navy"),
            ..Default::default()
        },
    );
}

#[test]
fn cta_poster_vietnamese() {
    let cta = Cta {
        company_name: "Nha khoa Ánh Dương".into(),
        phone: "0909 123 456".into(),
        email: String::new(),
    };
    check(
        "cta_poster_vi",
        DesignInput {
            role: Some(Role::CtaPoster),
            text: "Đặt lịch hôm nay",
            cta: Some(&cta),
            look: Some("warm"),
            ..Default::default()
        },
    );
}
