//! Motion typography and posters: words → designed, outlined objects on the 720×1280 canvas.
//!
//! [`design`] is what `POST /v1/typography` runs (and what scene building can run for generated
//! overlays). It is pure and deterministic: the same input, fonts and `look` give byte-identical
//! SVG, so a `look` shared across calls gives one consistent style.
//!
//! The steps:
//! 1. Copy: `typography` sets `quote` (default `text`) with its forced breaks; posters are
//!    uppercase with at most 3 lines of at most 4 words, written from `text` (or `quote`) by
//!    [`poster_copy`] unless `exact`; `cta_poster` sets the company name over its contact lines.
//! 2. Style: one of [`Style::ALL`], picked by hashing `look` (or, without a look, the copy).
//! 3. Fit: the largest size at which every object (text and decorations, with the real ink of
//!    stacked Vietnamese diacritics) fits the band y 128–960 (posters with `show_narrator`: the
//!    lower band 640–960) and x 24–696.
//! 4. Time: each line starts when its first word is spoken (`words`), else lines are staggered;
//!    `phase` numbers the distinct entrance times.
//! 5. Output: each object as a standalone SVG of paths (no `<text>`), and the whole as an
//!    svg2spec-compatible composition ([`Design::composition_svg`]).

use std::fmt::Write;

mod copy;
mod style;

pub use copy::{poster_copy, poster_warnings};
pub use style::{DEFAULT_COLORS, Rgb, Style};

use crate::canvas;
use crate::outline::{Bounds, line_ink, outline_line};
use crate::{Font, LineLayout, layout_line, pick_font};
use copy::CopyLines;

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
/// Horizontal room objects may use (x 24–696).
const EDGE: f32 = 24.0;
/// Side margin for text.
const MARGIN: f32 = 48.0;
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

impl DesignObject {
    /// The object as a standalone SVG document of `rect`'s size.
    pub fn svg(&self) -> String {
        let (w, h) = (self.rect.w, self.rect.h);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">{}</svg>",
            self.body
        )
    }
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

impl Design {
    /// The whole design as one canvas-sized (720×1280) SVG in which every object is a `data-wc-object` group,
    /// so it can go straight through svg2spec.
    pub fn composition_svg(&self) -> String {
        let (w, h) = (canvas::CANVAS_W, canvas::CANVAS_H);
        let mut s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">"
        );
        for o in &self.objects {
            let _ = write!(
                s,
                "<g data-wc-object=\"{}\" data-wc-kind=\"{}\" data-wc-anim=\"{}\" data-wc-z=\"{}\" transform=\"translate({} {})\">{}</g>",
                o.name,
                if o.kind == ObjectKind::Text {
                    "text"
                } else {
                    "object"
                },
                o.animation,
                o.index,
                o.rect.x,
                o.rect.y,
                o.body
            );
        }
        s.push_str("</svg>");
        s
    }
}

/// A line being placed.
struct Line {
    text: String,
    font: Font,
    layout: LineLayout,
    /// Ink relative to the pen origin on the baseline.
    ink: Bounds,
    contact: bool,
    /// Pen x and baseline once placed.
    x: f32,
    baseline: f32,
}

/// A decoration being placed.
struct Deco {
    name: String,
    rect: Bounds,
    fill: Rgb,
    opacity: f32,
    radius: f32,
    /// The lines it belongs to (timing).
    lines: Vec<usize>,
    animation: &'static str,
}

fn pad_of(px: f32) -> f32 {
    (px * 0.08).max(4.0).ceil()
}

/// The lines laid out at `px` (headline) and `cpx` (contact), stacked from baseline 0, with
/// decorations; `None` when something is wider than the room.
fn arrange(
    fonts: &FontSet,
    role: Role,
    style: Style,
    head: &[String],
    contacts: &[String],
    px: f32,
    colors: [Rgb; 2],
) -> Option<(Vec<Line>, Vec<Deco>)> {
    let cpx = (px * 0.4).clamp(24.0, 44.0);
    let head_fonts = if role.is_poster() {
        &fonts.heavy
    } else {
        &fonts.bold
    };
    let mut lines: Vec<Line> = Vec::new();
    for (t, contact) in head
        .iter()
        .map(|t| (t, false))
        .chain(contacts.iter().map(|t| (t, true)))
    {
        let (list, size) = if contact {
            (&fonts.regular, cpx)
        } else {
            (head_fonts, px)
        };
        let font = pick_font(list, t)?.clone();
        let layout = layout_line(&font, t, size);
        let ink = line_ink(&font, &layout);
        if ink.is_empty() {
            continue;
        }
        lines.push(Line {
            text: t.clone(),
            font,
            layout,
            ink,
            contact,
            x: 0.0,
            baseline: 0.0,
        });
    }
    if lines.is_empty() {
        return None;
    }
    // Horizontal placement.
    let bar_w = (px * 0.12).clamp(8.0, 16.0).round();
    let box_pad_x = (px * 0.22).round();
    let box_pad_y = (px * 0.1).round();
    let left = match style {
        Style::Bar => MARGIN + bar_w + 20.0,
        _ => MARGIN,
    };
    let room = CANVAS_W - MARGIN - left;
    for l in &mut lines {
        let w = l.ink.width();
        let extra = if style == Style::Boxes && !l.contact {
            2.0 * box_pad_x
        } else {
            0.0
        };
        if w + extra > room + 2.0 * (MARGIN - EDGE) - 1.0 || w + extra > CANVAS_W - 2.0 * EDGE {
            return None;
        }
        l.x = match style {
            Style::Bar => left - l.ink.x0,
            _ => ((CANVAS_W - w) / 2.0 - l.ink.x0).round(),
        };
        if l.x + l.ink.x0 - extra / 2.0 < EDGE || l.x + l.ink.x1 + extra / 2.0 > CANVAS_W - EDGE {
            return None;
        }
    }
    // Vertical stacking: a pitch from the size, pushed apart wherever real ink (stacked
    // diacritics, descenders) would come closer than a small gap.
    let mut prev: Option<(f32, f32, f32)> = None; // (baseline, ink bottom, px)
    for l in &mut lines {
        let size = l.layout.px;
        let boxed = style == Style::Boxes && !l.contact;
        let (pitch, gap) = match (role.is_poster(), boxed) {
            (_, true) => (size * 1.3, size * 0.3),
            (true, false) => (size * 1.06, size * 0.1),
            (false, false) => (size * 1.2, size * 0.14),
        };
        l.baseline = match prev {
            None => 0.0,
            Some((b, bottom, ppx)) => {
                let pitch = if l.contact && ppx > size {
                    (ppx * 0.35).max(size * 1.5)
                } else {
                    pitch
                };
                (b + pitch).max(bottom + gap - l.ink.y0)
            }
        };
        let bottom = l.baseline + l.ink.y1 + if boxed { box_pad_y } else { 0.0 };
        prev = Some((l.baseline, bottom, size));
    }
    // Decorations.
    let ink_of = |l: &Line| Bounds {
        x0: l.x + l.ink.x0,
        x1: l.x + l.ink.x1,
        y0: l.baseline + l.ink.y0,
        y1: l.baseline + l.ink.y1,
    };
    let head_idx: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].contact).collect();
    let mut decos = Vec::new();
    match style {
        Style::Stack => {
            // A soft highlight under the key line: the one with a digit, else the last.
            let key = head_idx
                .iter()
                .copied()
                .find(|&i| lines[i].text.chars().any(|c| c.is_ascii_digit()))
                .or(head_idx.last().copied());
            if let Some(k) = key {
                let b = ink_of(&lines[k]);
                let h = (b.height() * 0.32).max(6.0);
                decos.push(Deco {
                    name: "highlight".into(),
                    rect: Bounds {
                        x0: b.x0 - px * 0.12,
                        x1: b.x1 + px * 0.12,
                        y0: b.y1 - h * 0.8,
                        y1: b.y1 - h * 0.8 + h,
                    },
                    fill: colors[0],
                    opacity: 0.45,
                    radius: 4.0,
                    lines: vec![k],
                    animation: "grow-x",
                });
            }
        }
        Style::Bar => {
            let mut b = Bounds::EMPTY;
            for &i in &head_idx {
                b = b.union(ink_of(&lines[i]));
            }
            decos.push(Deco {
                name: "bar".into(),
                rect: Bounds {
                    x0: MARGIN,
                    x1: MARGIN + bar_w,
                    y0: b.y0,
                    y1: b.y1,
                },
                fill: colors[0],
                opacity: 1.0,
                radius: bar_w / 2.0,
                lines: head_idx.clone(),
                animation: "grow-y",
            });
        }
        Style::Boxes => {
            for (n, &i) in head_idx.iter().enumerate() {
                let b = ink_of(&lines[i]);
                decos.push(Deco {
                    name: format!("box-{}", n + 1),
                    rect: Bounds {
                        x0: b.x0 - box_pad_x,
                        x1: b.x1 + box_pad_x,
                        y0: b.y0 - box_pad_y,
                        y1: b.y1 + box_pad_y,
                    },
                    fill: colors[0],
                    opacity: 1.0,
                    radius: (px * 0.12).round(),
                    lines: vec![i],
                    animation: "grow-x",
                });
            }
        }
        Style::Underline => {
            if let Some(&k) = head_idx.last() {
                let b = ink_of(&lines[k]);
                let w = (b.width() * 0.45).max(40.0);
                let cx = (b.x0 + b.x1) / 2.0;
                let y = b.y1 + px * 0.16;
                decos.push(Deco {
                    name: "underline".into(),
                    rect: Bounds {
                        x0: cx - w / 2.0,
                        x1: cx + w / 2.0,
                        y0: y,
                        y1: y + (px * 0.1).clamp(6.0, 14.0),
                    },
                    fill: colors[1],
                    opacity: 1.0,
                    radius: 3.0,
                    lines: head_idx.clone(),
                    animation: "grow-x",
                });
            }
        }
    }
    Some((lines, decos))
}

/// The whole-pixel rect of a text line object (ink plus padding).
fn line_rect(l: &Line) -> Box2 {
    let pad = pad_of(l.layout.px);
    whole(Bounds {
        x0: l.x + l.ink.x0 - pad,
        x1: l.x + l.ink.x1 + pad,
        y0: l.baseline + l.ink.y0 - pad,
        y1: l.baseline + l.ink.y1 + pad,
    })
}

fn whole(b: Bounds) -> Box2 {
    let x = b.x0.floor();
    let y = b.y0.floor();
    Box2 {
        x,
        y,
        w: (b.x1.ceil() - x).max(1.0),
        h: (b.y1.ceil() - y).max(1.0),
    }
}

/// Extents of everything arranged (object rects).
fn extents(lines: &[Line], decos: &[Deco]) -> Bounds {
    let mut b = Bounds::EMPTY;
    for l in lines {
        let r = line_rect(l);
        b = b.union(Bounds {
            x0: r.x,
            y0: r.y,
            x1: r.right(),
            y1: r.bottom(),
        });
    }
    for d in decos {
        let r = whole(d.rect);
        b = b.union(Bounds {
            x0: r.x,
            y0: r.y,
            x1: r.right(),
            y1: r.bottom(),
        });
    }
    b
}

fn normalise(w: &str) -> String {
    w.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
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
    let CopyLines {
        head,
        contacts,
        warnings,
        ..
    } = &copy;
    let warnings = warnings.clone();
    // 2. Style and colours.
    let style = style::pick_style(role, input.look, &copy);
    let (colors, brand_applied) = style::brand_colors(input.colors);
    // 3. Fit.
    let (band_top, band_bottom) = if role.is_poster() && input.show_narrator {
        (NARRATOR_BAND_TOP, SAFE_BOTTOM)
    } else {
        (SAFE_TOP, SAFE_BOTTOM)
    };
    let band_h = band_bottom - band_top;
    let (max_px, min_px) = match role {
        Role::Typography => (104.0f32, 26.0f32),
        _ => (168.0, 22.0),
    };
    let wrap = |px: f32, head: &[String]| -> Vec<String> {
        if role.is_poster() {
            return head.to_vec();
        }
        let font = &fonts.bold;
        let room = CANVAS_W - 2.0 * MARGIN - 40.0;
        head.iter()
            .flat_map(|piece| {
                let f = pick_font(font, piece).expect("non-empty list");
                crate::break_lines(f, piece, px, room - 2.0 * (px * 0.22))
            })
            .collect()
    };
    let candidates = copy.candidates();
    let mut truncated = false;
    let mut fitted: Option<(f32, Vec<Line>, Vec<Deco>)> = None;
    for candidate in &candidates {
        let mut px = max_px;
        while px >= min_px && fitted.as_ref().is_none_or(|f| px > f.0) {
            let set = wrap(px, candidate);
            if let Some((lines, decos)) = arrange(fonts, role, style, &set, contacts, px, colors) {
                let e = extents(&lines, &decos);
                if e.height() <= band_h {
                    fitted = Some((px, lines, decos));
                    break;
                }
            }
            px -= 2.0;
        }
    }
    if fitted.is_none() {
        // Too much copy even at the smallest size: keep the lines that fit.
        let px = min_px;
        let mut set = wrap(px, head);
        while !set.is_empty() {
            set.pop();
            if let Some(last) = set.last_mut() {
                let cut = last.trim_end_matches(|c: char| !c.is_alphanumeric());
                *last = format!("{cut}…");
            }
            if let Some((lines, decos)) = arrange(fonts, role, style, &set, contacts, px, colors)
                && extents(&lines, &decos).height() <= band_h
            {
                truncated = true;
                fitted = Some((px, lines, decos));
                break;
            }
        }
    }
    let Some((px, mut lines, mut decos)) = fitted else {
        return Err(DesignError::NoText);
    };
    // Centre the block in its band.
    let e = extents(&lines, &decos);
    let dy = (band_top + (band_h - e.height()) / 2.0 - e.y0).round();
    for l in &mut lines {
        l.baseline += dy;
    }
    for d in &mut decos {
        d.rect.y0 += dy;
        d.rect.y1 += dy;
    }
    // 4. Time.
    let words = input.words;
    let duration = input
        .duration
        .or_else(|| {
            words
                .iter()
                .map(|w| w.end)
                .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))))
                .map(|e| e + 0.5)
        })
        .unwrap_or(DEFAULT_DURATION)
        .clamp(1.0, MAX_DURATION);
    let stagger = (duration * 0.08).min(0.35);
    let mut cursor = 0;
    let starts: Vec<f64> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let first = l
                .text
                .split_whitespace()
                .map(normalise)
                .find(|w| !w.is_empty());
            let found = first.and_then(|f| {
                let at = words[cursor..]
                    .iter()
                    .position(|w| normalise(&w.word) == f)?
                    + cursor;
                cursor = at + 1;
                Some(words[at].start)
            });
            found
                .unwrap_or(i as f64 * stagger)
                .clamp(0.0, (duration - 0.5).max(0.0))
        })
        .collect();
    let mut distinct: Vec<f64> = starts.clone();
    for d in &decos {
        let s = d
            .lines
            .iter()
            .map(|&i| starts[i])
            .fold(f64::INFINITY, f64::min);
        distinct.push(s.min(duration));
    }
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    let phase_of = |s: f64| distinct.iter().position(|&d| d == s).unwrap_or(0);
    // 5. Output: decorations first (under the text), then lines.
    let mut objects = Vec::new();
    for d in &decos {
        let rect = whole(d.rect);
        let start = d
            .lines
            .iter()
            .map(|&i| starts[i])
            .fold(f64::INFINITY, f64::min)
            .min(duration);
        let radius = d.radius.min(rect.h / 2.0).min(rect.w / 2.0);
        let body = format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" fill=\"{}\"{}/>",
            fmt2(d.rect.x0 - rect.x),
            fmt2(d.rect.y0 - rect.y),
            fmt2(d.rect.width()),
            fmt2(d.rect.height()),
            fmt2(radius),
            d.fill.hex(),
            if d.opacity < 1.0 {
                format!(" fill-opacity=\"{}\"", fmt2(d.opacity))
            } else {
                String::new()
            }
        );
        objects.push(DesignObject {
            index: 0,
            name: d.name.clone(),
            kind: ObjectKind::Decoration,
            text: None,
            rect,
            phase: phase_of(start),
            start,
            end: duration,
            animation: d.animation,
            body,
        });
    }
    let head_count = lines.iter().filter(|l| !l.contact).count();
    let mut head_n = 0;
    let mut contact_n = 0;
    for (i, l) in lines.iter().enumerate() {
        let rect = line_rect(l);
        let (name, fill, outline) = if l.contact {
            contact_n += 1;
            (format!("contact-{contact_n}"), Rgb::WHITE, true)
        } else {
            head_n += 1;
            let keyed = decos.iter().any(|d| d.lines == [i]);
            let fill = style::headline_fill(style, colors, head_n, head_count, keyed);
            (format!("line-{head_n}"), fill, style != Style::Boxes)
        };
        let o = outline_line(&l.font, &l.layout, l.x - rect.x, l.baseline - rect.y);
        let stroke = if outline {
            format!(
                " stroke=\"#000000\" stroke-opacity=\"0.35\" stroke-width=\"{}\" stroke-linejoin=\"round\" paint-order=\"stroke\"",
                fmt2((l.layout.px * 0.05).max(1.5))
            )
        } else {
            String::new()
        };
        let body = format!("<path d=\"{}\" fill=\"{}\"{stroke}/>", o.d, fill.hex());
        objects.push(DesignObject {
            index: 0,
            name,
            kind: ObjectKind::Text,
            text: Some(l.text.clone()),
            rect,
            phase: phase_of(starts[i]),
            start: starts[i],
            end: duration,
            animation: if l.contact {
                "fade"
            } else {
                style.text_animation()
            },
            body,
        });
    }
    for (i, o) in objects.iter_mut().enumerate() {
        o.index = i;
    }
    let _ = px;
    Ok(Design {
        role,
        style,
        lines: lines.iter().map(|l| l.text.clone()).collect(),
        objects,
        duration,
        colors,
        brand_applied,
        warnings,
        truncated,
    })
}

fn fmt2(v: f32) -> String {
    let r = (v * 100.0).round() / 100.0;
    format!("{}", if r == 0.0 { 0.0 } else { r })
}

#[cfg(test)]
mod tests {
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
}
