//! The typography designer input: a `/v1/typography` body through its validation, then (as
//! the endpoint does before charging) the typography crate's layout of the request.

use std::sync::LazyLock;

use foundation::fields::body;
use pipeline::design::TypographyBody;
use typography::design::{self, DesignInput, FontSet};

static FONTS: LazyLock<FontSet> = LazyLock::new(|| {
    FontSet::from_dir(&reelsmith_fuzz::fonts_dir()).expect("the pinned fonts load")
});

fn main() {
    LazyLock::force(&FONTS);
    afl::fuzz!(|data: &[u8]| {
        let Ok(json) = serde_json::from_slice(data) else {
            return;
        };
        let Ok(req) = body::read::<TypographyBody>(&json) else {
            return;
        };
        let input = DesignInput {
            role: Some(req.role),
            text: &req.text,
            quote: req.quote.as_deref(),
            words: &req.words,
            duration: req.duration,
            show_narrator: req.show_narrator,
            exact: req.exact,
            colors: &req.colors,
            cta: req.cta.as_ref(),
            look: req.look.as_deref(),
        };
        let _ = design::design(&FONTS, &input);
    });
}
