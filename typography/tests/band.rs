//! Property test: whatever the copy, role, flags, colours or look, no object ever leaves the
//! band y 128–960 (posters with the narrator shown: 640–960) or the canvas' width, and every
//! design is deterministic. Inputs come from a seeded generator, so failures reproduce.

use typography::design::{
    CANVAS_W, Cta, DesignError, DesignInput, FontSet, NARRATOR_BAND_TOP, Rgb, Role, SAFE_BOTTOM,
    SAFE_TOP, TimedWord, design,
};

const VOCAB: &[&str] = &[
    "the",
    "growth",
    "Việt",
    "NGƯỜI",
    "khách",
    "hàng",
    "30%",
    "$1,000",
    "supercalifragilistic",
    "ỨNG",
    "dụng",
    "a",
    "I",
    "ĐƯỢC",
    "quyết",
    "Wow!",
    "→",
    "|",
    "->",
    "\n",
    "marketing",
    "Nguyễn",
    "Thị",
    "Huỳnh",
    "Dương",
    "WWWWWWWWWWWW",
    "ỹ",
    "in",
    "of",
    "tomorrow",
    "2024",
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn no_object_ever_leaves_the_band() {
    let fonts = FontSet::from_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/fonts"),
    )
    .unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut designed = 0;
    for case in 0..250 {
        let n = 1 + rng.below(if case % 10 == 0 { 300 } else { 25 });
        let text: Vec<&str> = (0..n).map(|_| VOCAB[rng.below(VOCAB.len())]).collect();
        let text = text.join(" ");
        let role = [Role::Typography, Role::OpeningPoster, Role::CtaPoster][rng.below(3)];
        let words: Vec<TimedWord> = text
            .split_whitespace()
            .enumerate()
            .map(|(i, w)| TimedWord {
                word: w.into(),
                start: i as f64 * 0.3,
                end: i as f64 * 0.3 + 0.25,
            })
            .collect();
        let colors: Vec<Rgb> = (0..rng.below(3))
            .map(|_| Rgb(rng.next() as u8, rng.next() as u8, rng.next() as u8))
            .collect();
        let cta = Cta {
            company_name: text
                .split_whitespace()
                .take(rng.below(7))
                .collect::<Vec<_>>()
                .join(" "),
            phone: if rng.below(2) == 0 {
                "+84 909 000 111".into()
            } else {
                String::new()
            },
            email: if rng.below(2) == 0 {
                "someone.long.name@example.com".into()
            } else {
                String::new()
            },
        };
        let look = format!("look{}", rng.below(6));
        let quote = text
            .split_whitespace()
            .take(rng.below(12))
            .collect::<Vec<_>>()
            .join(" ");
        let input = DesignInput {
            role: Some(role),
            text: &text,
            quote: (rng.below(2) == 0).then_some(quote.as_str()),
            words: if rng.below(2) == 0 { &words } else { &[] },
            duration: None,
            show_narrator: rng.below(2) == 0,
            exact: rng.below(3) == 0,
            colors: &colors,
            cta: Some(&cta),
            look: (rng.below(4) != 0).then_some(look.as_str()),
        };
        let d = match design(&fonts, &input) {
            Ok(d) => d,
            Err(DesignError::NoText) => continue,
            Err(e) => panic!("case {case}: {e}"),
        };
        designed += 1;
        let top = if role != Role::Typography && input.show_narrator {
            NARRATOR_BAND_TOP
        } else {
            SAFE_TOP
        };
        for o in &d.objects {
            assert!(
                o.rect.y >= top && o.rect.bottom() <= SAFE_BOTTOM,
                "case {case} {role:?} {text:?}: {} {:?}",
                o.name,
                o.rect
            );
            assert!(
                o.rect.x >= 0.0 && o.rect.right() <= CANVAS_W,
                "case {case}: {:?}",
                o.rect
            );
            assert!(o.start >= 0.0 && o.start < o.end && o.end <= d.duration);
        }
        assert_eq!(
            design(&fonts, &input).unwrap(),
            d,
            "case {case} not deterministic"
        );
    }
    assert!(designed > 200, "only {designed} designs");
}
