//! Step 2, style: how a design looks.
//!
//! A `look` picks one of [`Style::ALL`] by a stable hash, so the same look always gives the same
//! style (without a look, the copy itself is hashed). Brand colours, main first, replace the
//! default palette; text over video keeps to colours that read.

use super::Role;
use super::copy::CopyLines;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    pub const WHITE: Rgb = Rgb(255, 255, 255);
    pub const INK: Rgb = Rgb(17, 17, 20);

    /// Parses `#RRGGBB` (case-insensitive).
    pub fn parse(s: &str) -> Option<Rgb> {
        let h = s.strip_prefix('#')?;
        if h.len() != 6 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let c = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
        Some(Rgb(c(0)?, c(2)?, c(4)?))
    }

    /// `#RRGGBB`, uppercase.
    pub fn hex(self) -> String {
        format!("#{:02X}{:02X}{:02X}", self.0, self.1, self.2)
    }

    /// Relative luminance (WCAG).
    pub fn luminance(self) -> f32 {
        let ch = |c: u8| {
            let c = c as f32 / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * ch(self.0) + 0.7152 * ch(self.1) + 0.0722 * ch(self.2)
    }

    /// White or near-black, whichever reads better on `self`.
    pub fn contrast(self) -> Rgb {
        if self.luminance() > 0.4 {
            Rgb::INK
        } else {
            Rgb::WHITE
        }
    }
}

/// The palette when the caller sends no brand colours.
pub const DEFAULT_COLORS: [Rgb; 2] = [Rgb(255, 200, 61), Rgb(62, 193, 211)];

/// The visual styles a `look` picks from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// Centred lines; the key line in the main colour over a soft highlight bar.
    Stack,
    /// Left-aligned lines beside a vertical accent bar.
    Bar,
    /// Each line on a box of the main colour.
    Boxes,
    /// Centred lines, alternating colours, an accent underline.
    Underline,
}

impl Style {
    pub const ALL: [Style; 4] = [Style::Stack, Style::Bar, Style::Boxes, Style::Underline];

    pub fn as_str(self) -> &'static str {
        match self {
            Style::Stack => "stack",
            Style::Bar => "bar",
            Style::Boxes => "boxes",
            Style::Underline => "underline",
        }
    }

    /// The entrance preset of headline lines.
    pub(super) fn text_animation(self) -> &'static str {
        match self {
            Style::Stack => "slide-up",
            Style::Bar => "slide-right",
            Style::Boxes => "pop",
            Style::Underline => "fade",
        }
    }
}

/// The style for `look` (or, without one, for the copy itself).
pub(super) fn pick_style(role: Role, look: Option<&str>, copy: &CopyLines) -> Style {
    let key = match look.filter(|l| !l.is_empty()) {
        Some(look) => fnv(&["look", look]),
        None => fnv(&[
            role.as_str(),
            &copy.head.join("\n"),
            &copy.contacts.join("\n"),
        ]),
    };
    Style::ALL[(key % Style::ALL.len() as u64) as usize]
}

/// The main and secondary colours, and whether they are the caller's brand colours (a brand
/// with one colour gets white as its second).
pub(super) fn brand_colors(brand: &[Rgb]) -> ([Rgb; 2], bool) {
    let brand_applied = !brand.is_empty();
    let colors = [
        brand.first().copied().unwrap_or(DEFAULT_COLORS[0]),
        brand.get(1).copied().unwrap_or(if brand_applied {
            Rgb::WHITE
        } else {
            DEFAULT_COLORS[1]
        }),
    ];
    (colors, brand_applied)
}

/// The fill of headline line `n` (1-based) of `count`: the style decides which lines carry the
/// main colour; `keyed` says whether the line has a highlight of its own (`Stack`).
pub(super) fn headline_fill(
    style: Style,
    colors: [Rgb; 2],
    n: usize,
    count: usize,
    keyed: bool,
) -> Rgb {
    match style {
        Style::Boxes => colors[0].contrast(),
        Style::Stack if keyed && count > 1 => readable(colors[0]),
        Style::Underline if n.is_multiple_of(2) => readable(colors[0]),
        Style::Bar if n == 1 && count > 1 => readable(colors[0]),
        _ => Rgb::WHITE,
    }
}

/// A brand colour used as a text fill over video: too dark to read becomes white.
fn readable(c: Rgb) -> Rgb {
    if c.luminance() < 0.18 { Rgb::WHITE } else { c }
}

/// FNV-1a: a stable hash (std's hasher may change between releases).
fn fnv(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0xff]) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
