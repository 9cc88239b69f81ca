//! Motion typography and posters: words → designed, outlined objects on the 720×1280 canvas.
//!
//! [`design`] is what `POST /v1/typography` runs (and what scene building can run for generated
//! overlays). It is pure and deterministic: the same input, fonts and `look` give byte-identical
//! SVG, so a `look` shared across calls gives one consistent style.
//!
//! The steps, one file each, in the order [`design`] runs them:
//! 1. `copy.rs`: `typography` sets `quote` (default `text`) with its forced breaks; posters are
//!    uppercase with at most 3 lines of at most 4 words, written from `text` (or `quote`) by
//!    [`poster_copy`] unless `exact`; `cta_poster` sets the company name over its contact lines.
//! 2. `style.rs`: one of [`Style::ALL`], picked by hashing `look` (or, without a look, the
//!    copy); brand colours over the default palette.
//! 3. `fit.rs` (with `layout.rs`, which arranges the lines and decorations at one size): the
//!    largest size at which every object (text and decorations, with the real ink of stacked
//!    Vietnamese diacritics) fits the band y 128–960 (posters with `show_narrator`: the lower
//!    band 640–960) and x 24–696.
//! 4. `timing.rs`: each line starts when its first word is spoken (`words`), else lines are
//!    staggered; `phase` numbers the distinct entrance times.
//! 5. `output.rs`: each object as a standalone SVG of paths (no `<text>`), and the whole as an
//!    svg2spec-compatible composition ([`Design::composition_svg`]).
//!
//! This file holds the request and response types and the constants callers see.

mod copy;
mod fit;
mod layout;
mod output;
mod style;
#[cfg(test)]
mod tests;
mod timing;

pub use copy::{poster_copy, poster_warnings};
pub use style::{DEFAULT_COLORS, Rgb, Style};

use crate::{Font, canvas};
use fit::{Band, Fitted};
use layout::Setup;
use timing::Timing;

/// Canvas width in design units ([`canvas::CANVAS_W`]).
pub const CANVAS_W: f32 = canvas::CANVAS_W as f32;
/// Canvas height in design units ([`canvas::CANVAS_H`]).
pub const CANVAS_H: f32 = canvas::CANVAS_H as f32;
/// Top of the band every object stays inside ([`canvas::SAFE_TOP`]).
pub const SAFE_TOP: f32 = canvas::SAFE_TOP as f32;
/// Bottom of the band every object stays inside ([`canvas::SAFE_BOTTOM`]).
pub const SAFE_BOTTOM: f32 = canvas::SAFE_BOTTOM as f32;
/// Top of the lower band posters keep to when the narrator is shown.
pub const NARRATOR_BAND_TOP: f32 = 640.0;
/// Most lines a poster sets.
pub const POSTER_MAX_LINES: usize = 3;
/// Most words on one poster line.
pub const POSTER_MAX_WORDS: usize = 4;
/// Longest design, seconds.
pub const MAX_DURATION: f64 = 60.0;
/// Duration without `duration` or `words`.
pub const DEFAULT_DURATION: f64 = 5.0;

/// What is designed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Narration set as motion typography.
    Typography,
    /// An opening poster: a headline.
    OpeningPoster,
    /// A call-to-action poster: a headline over contact lines.
    CtaPoster,
}

impl Role {
    pub const NAMES: &'static [&'static str] = &["typography", "opening_poster", "cta_poster"];

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "typography" => Some(Role::Typography),
            "opening_poster" => Some(Role::OpeningPoster),
            "cta_poster" => Some(Role::CtaPoster),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Typography => "typography",
            Role::OpeningPoster => "opening_poster",
            Role::CtaPoster => "cta_poster",
        }
    }

    pub fn is_poster(self) -> bool {
        self != Role::Typography
    }
}

/// A word of narration, seconds from the start of the moment (the crate-wide type).
pub use crate::words::TimedWord;

/// Contact details for `cta_poster`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cta {
    pub company_name: String,
    pub phone: String,
    pub email: String,
}

/// Everything a design depends on besides fonts.
#[derive(Debug, Clone, Default)]
pub struct DesignInput<'a> {
    pub role: Option<Role>,
    pub text: &'a str,
    pub quote: Option<&'a str>,
    pub words: &'a [TimedWord],
    pub duration: Option<f64>,
    pub show_narrator: bool,
    pub exact: bool,
    /// Brand colours, main first.
    pub colors: &'a [Rgb],
    pub cta: Option<&'a Cta>,
    pub look: Option<&'a str>,
}

/// The fonts a design uses, each list in fallback order (e.g. Inter, then Noto).
#[derive(Debug, Clone)]
pub struct FontSet {
    /// Poster headlines.
    pub heavy: Vec<Font>,
    /// Typography lines.
    pub bold: Vec<Font>,
    /// Contact lines.
    pub regular: Vec<Font>,
}

impl FontSet {
    /// Loads the pinned fonts from `assets/fonts` bytes by file name; `read` returns a file's
    /// bytes. Fails when a required file is missing or unreadable.
    pub fn from_reader(
        mut read: impl FnMut(&str) -> Option<Vec<u8>>,
    ) -> Result<FontSet, DesignError> {
        let mut load = |names: &[&str]| -> Result<Vec<Font>, DesignError> {
            names
                .iter()
                .map(|n| {
                    let bytes =
                        read(n).ok_or_else(|| DesignError::Fonts(format!("{n} missing")))?;
                    Font::from_bytes(bytes).map_err(|e| DesignError::Fonts(format!("{n}: {e}")))
                })
                .collect()
        };
        Ok(FontSet {
            heavy: load(&["Inter-ExtraBold.otf", "NotoSans-Bold.ttf"])?,
            bold: load(&["Inter-Bold.otf", "NotoSans-Bold.ttf"])?,
            regular: load(&["Inter-Regular.otf", "NotoSans-Regular.ttf"])?,
        })
    }

    /// Loads the pinned fonts from a folder.
    pub fn from_dir(dir: &std::path::Path) -> Result<FontSet, DesignError> {
        FontSet::from_reader(|n| std::fs::read(dir.join(n)).ok())
    }
}

/// Why nothing could be designed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DesignError {
    #[error("there are no words to set")]
    NoText,
    #[error("fonts unavailable: {0}")]
    Fonts(String),
}

/// An axis-aligned box in canvas pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Box2 {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl Box2 {
    pub fn bottom(&self) -> f32 {
        self.y + self.h
    }
    pub fn right(&self) -> f32 {
        self.x + self.w
    }
}

/// Whether an object carries words or only shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    Text,
    Decoration,
}

impl ObjectKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectKind::Text => "text",
            ObjectKind::Decoration => "decoration",
        }
    }
}

/// One designed object.
#[derive(Debug, Clone, PartialEq)]
pub struct DesignObject {
    /// Position in [`Design::objects`] (drawing order: decorations under text).
    pub index: usize,
    /// Stable name (`line-1`, `contact-1`, `box-1`, `bar`, `underline`, `highlight`).
    pub name: String,
    pub kind: ObjectKind,
    /// The words it shows (text objects).
    pub text: Option<String>,
    /// Where it sits on the canvas (whole pixels).
    pub rect: Box2,
    /// Entrance order: objects with the same phase enter together.
    pub phase: usize,
    /// Seconds from the start of the moment when it enters.
    pub start: f64,
    /// Seconds when it has left (the end of the design).
    pub end: f64,
    /// Entrance preset (svg2spec's `data-wc-anim` names).
    pub animation: &'static str,
    /// The SVG body in object-local coordinates (0,0 = rect's top-left).
    pub body: String,
}

/// A finished design.
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    pub role: Role,
    pub style: Style,
    /// The lines as set (headline, then contact lines).
    pub lines: Vec<String>,
    pub objects: Vec<DesignObject>,
    pub duration: f64,
    /// Colours applied: main, secondary.
    pub colors: [Rgb; 2],
    /// Whether the brand colours were the caller's (else the default palette).
    pub brand_applied: bool,
    /// Poster copy rules an `exact` quote breaks (never errors).
    pub warnings: Vec<String>,
    /// Whether copy was cut because it could not fit the band even at the smallest size.
    pub truncated: bool,
}

/// Designs `input` with `fonts`.
pub fn design(fonts: &FontSet, input: &DesignInput<'_>) -> Result<Design, DesignError> {
    if fonts.heavy.is_empty() || fonts.bold.is_empty() || fonts.regular.is_empty() {
        return Err(DesignError::Fonts("a font list is empty".into()));
    }
    let role = input.role.unwrap_or(Role::Typography);
    // 1. Copy.
    let copy = copy::write_copy(role, input);
    if copy.is_empty() {
        return Err(DesignError::NoText);
    }
    // 2. Style and colours.
    let style = style::pick_style(role, input.look, &copy);
    let (colors, brand_applied) = style::brand_colors(input.colors);
    // 3. Fit.
    let setup = Setup {
        fonts,
        role,
        style,
        colors,
    };
    let Fitted {
        lines,
        decos,
        truncated,
    } = fit::fit(&setup, &copy, Band::of(role, input.show_narrator)).ok_or(DesignError::NoText)?;
    // 4. Time.
    let timing = Timing::new(input.duration, input.words, &lines, &decos);
    // 5. Output: decorations first (under the text), then lines.
    let objects = output::objects(&lines, &decos, style, colors, &timing);
    Ok(Design {
        role,
        style,
        lines: lines.into_iter().map(|l| l.text).collect(),
        objects,
        duration: timing.duration,
        colors,
        brand_applied,
        warnings: copy.warnings,
        truncated,
    })
}
