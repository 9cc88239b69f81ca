//! Unit tests of the whole designer: determinism, styles, timing, bands, output, cutting.

use super::*;

fn fonts() -> FontSet {
    FontSet::from_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/fonts"))
        .unwrap()
}

fn inside_band(d: &Design, top: f32) {
    for o in &d.objects {
        assert!(
            o.rect.y >= top && o.rect.bottom() <= SAFE_BOTTOM,
            "{} {:?} leaves the band",
            o.name,
            o.rect
        );
        assert!(
            o.rect.x >= 0.0 && o.rect.right() <= CANVAS_W,
            "{} {:?}",
            o.name,
            o.rect
        );
    }
}

#[test]
fn same_look_same_design_and_styles_vary() {
    let f = fonts();
    let input = DesignInput {
        role: Some(Role::Typography),
        text: "Ba bước | để tăng doanh thu",
        look: Some("brand-A"),
        ..Default::default()
    };
    let a = design(&f, &input).unwrap();
    let b = design(&f, &input).unwrap();
    assert_eq!(a, b);
    let styles: std::collections::HashSet<_> = ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .map(|l| {
            design(
                &f,
                &DesignInput {
                    look: Some(l),
                    ..input.clone()
                },
            )
            .unwrap()
            .style
        })
        .collect();
    assert!(styles.len() >= 3, "{styles:?}");
}

#[test]
fn words_time_the_lines() {
    let f = fonts();
    let words: Vec<TimedWord> = ["Grow", "your", "sales", "today"]
        .iter()
        .enumerate()
        .map(|(i, w)| TimedWord {
            word: w.to_string(),
            start: i as f64 * 0.5,
            end: i as f64 * 0.5 + 0.4,
        })
        .collect();
    let d = design(
        &f,
        &DesignInput {
            role: Some(Role::Typography),
            text: "Grow your sales | today",
            words: &words,
            ..Default::default()
        },
    )
    .unwrap();
    let texts: Vec<_> = d
        .objects
        .iter()
        .filter(|o| o.kind == ObjectKind::Text)
        .collect();
    assert!(texts.len() >= 2);
    for t in &texts {
        let first = t
            .text
            .as_deref()
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        let w = words.iter().find(|w| w.word == first).unwrap();
        assert_eq!(t.start, w.start, "{first}");
    }
    assert_eq!(texts.last().unwrap().start, 1.5);
    assert!(texts.last().unwrap().phase > texts[0].phase);
    assert!((d.duration - 2.4).abs() < 1e-9);
    inside_band(&d, SAFE_TOP);
}

#[test]
fn posters_and_narrator_band_and_cta() {
    let f = fonts();
    let d = design(
        &f,
        &DesignInput {
            role: Some(Role::OpeningPoster),
            text: "Vì sao khách hàng rời bỏ bạn sau tháng đầu tiên?",
            show_narrator: true,
            ..Default::default()
        },
    )
    .unwrap();
    inside_band(&d, NARRATOR_BAND_TOP);
    assert!(d.lines.len() <= 3);
    let cta = Cta {
        company_name: "Acme Dental Care".into(),
        phone: "0909 123 456".into(),
        email: "hello@acme.vn".into(),
    };
    let d = design(
        &f,
        &DesignInput {
            role: Some(Role::CtaPoster),
            text: "Call us",
            cta: Some(&cta),
            colors: &[Rgb(0x12, 0x34, 0x56)],
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        d.lines.join(" "),
        "ACME DENTAL CARE 0909 123 456 hello@acme.vn"
    );
    assert!(d.lines.len() <= 5);
    assert!(d.brand_applied);
    assert_eq!(d.colors[0], Rgb(0x12, 0x34, 0x56));
    inside_band(&d, SAFE_TOP);
    let exact = design(
        &f,
        &DesignInput {
            role: Some(Role::OpeningPoster),
            text: "x",
            quote: Some("one two three four five | b | c | d"),
            exact: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(exact.warnings.len(), 2, "{:?}", exact.warnings);
    assert_eq!(exact.lines[0], "ONE TWO THREE FOUR FIVE");
}

#[test]
fn svgs_are_outlines_only() {
    let f = fonts();
    let d = design(
        &f,
        &DesignInput {
            text: "Xin chào thế giới",
            ..Default::default()
        },
    )
    .unwrap();
    for o in &d.objects {
        let svg = o.svg();
        assert!(!svg.contains("<text"), "{svg}");
        assert!(svg.starts_with("<svg"));
    }
    let c = d.composition_svg();
    assert_eq!(c.matches("data-wc-object").count(), d.objects.len());
}

#[test]
fn overlong_text_is_cut_to_fit() {
    let f = fonts();
    let text = "lorem ipsum dolor sit amet ".repeat(70);
    let d = design(
        &f,
        &DesignInput {
            text: &text,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(d.truncated);
    inside_band(&d, SAFE_TOP);
}

#[test]
fn nothing_to_set() {
    let f = fonts();
    let e = design(
        &f,
        &DesignInput {
            text: " | -> ",
            ..Default::default()
        },
    );
    assert_eq!(e, Err(DesignError::NoText));
}
