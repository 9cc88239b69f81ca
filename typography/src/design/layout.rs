//! Layout at one size: a candidate's lines set at a headline size, placed across the canvas,
//! stacked by their real ink (stacked Vietnamese diacritics, descenders), and the style's
//! decorations around them. Fitting ([`super::fit`]) tries sizes; this answers for one.

use super::{Box2, CANVAS_W, FontSet, Rgb, Role, Style};
use crate::outline::{Bounds, line_ink};
use crate::{Font, LineLayout, layout_line, pick_font};

/// Horizontal room objects may use (x 24–696).
const EDGE: f32 = 24.0;
/// Side margin for text.
pub(super) const MARGIN: f32 = 48.0;

/// What stays the same while fitting tries sizes and candidates.
pub(super) struct Setup<'a> {
    pub fonts: &'a FontSet,
    pub role: Role,
    pub style: Style,
    /// Main, secondary.
    pub colors: [Rgb; 2],
}

/// A line being placed.
pub(super) struct Line {
    pub text: String,
    pub font: Font,
    pub layout: LineLayout,
    /// Ink relative to the pen origin on the baseline.
    pub ink: Bounds,
    pub contact: bool,
    /// Pen x and baseline once placed.
    pub x: f32,
    pub baseline: f32,
}

impl Line {
    /// Ink on the canvas, once placed.
    fn placed_ink(&self) -> Bounds {
        Bounds {
            x0: self.x + self.ink.x0,
            x1: self.x + self.ink.x1,
            y0: self.baseline + self.ink.y0,
            y1: self.baseline + self.ink.y1,
        }
    }

    /// The whole-pixel rect of the line's object (ink plus padding).
    pub fn rect(&self) -> Box2 {
        let pad = pad_of(self.layout.px);
        whole(Bounds {
            x0: self.x + self.ink.x0 - pad,
            x1: self.x + self.ink.x1 + pad,
            y0: self.baseline + self.ink.y0 - pad,
            y1: self.baseline + self.ink.y1 + pad,
        })
    }
}

/// A decoration being placed.
pub(super) struct Deco {
    pub name: String,
    pub rect: Bounds,
    pub fill: Rgb,
    pub opacity: f32,
    pub radius: f32,
    /// The lines it belongs to (timing).
    pub lines: Vec<usize>,
    pub animation: &'static str,
}

/// Sizes that follow from the headline size and that several placement steps share.
#[derive(Clone, Copy)]
struct Spacing {
    /// Width of `Bar`'s accent bar.
    bar_w: f32,
    /// Room between a line's ink and its `Boxes` box, across and down.
    box_pad_x: f32,
    box_pad_y: f32,
}

impl Spacing {
    fn at(px: f32) -> Spacing {
        Spacing {
            bar_w: (px * 0.12).clamp(8.0, 16.0).round(),
            box_pad_x: (px * 0.22).round(),
            box_pad_y: (px * 0.1).round(),
        }
    }
}

/// The lines laid out at `px` (headline; contact lines smaller), stacked from baseline 0, with
/// decorations; `None` when something is wider than the room.
pub(super) fn arrange(
    setup: &Setup<'_>,
    head: &[String],
    contacts: &[String],
    px: f32,
) -> Option<(Vec<Line>, Vec<Deco>)> {
    let spacing = Spacing::at(px);
    let mut lines = set_lines(setup, head, contacts, px)?;
    place_across(&mut lines, setup.style, spacing)?;
    stack(&mut lines, setup.role, setup.style, spacing);
    let decos = decorations(&lines, setup, px, spacing);
    Some((lines, decos))
}

/// Headline lines at `px`, contact lines at their smaller size, each in the first font that
/// covers it; lines without ink are dropped. `None` when nothing is left.
fn set_lines(
    setup: &Setup<'_>,
    head: &[String],
    contacts: &[String],
    px: f32,
) -> Option<Vec<Line>> {
    let cpx = (px * 0.4).clamp(24.0, 44.0);
    let head_fonts = if setup.role.is_poster() {
        &setup.fonts.heavy
    } else {
        &setup.fonts.bold
    };
    let mut lines: Vec<Line> = Vec::new();
    for (t, contact) in head
        .iter()
        .map(|t| (t, false))
        .chain(contacts.iter().map(|t| (t, true)))
    {
        let (list, size) = if contact {
            (&setup.fonts.regular, cpx)
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
    (!lines.is_empty()).then_some(lines)
}

/// Horizontal placement: centred, or left beside the bar for `Bar`. `None` when a line (with
/// its box, for `Boxes`) is wider than the room.
fn place_across(lines: &mut [Line], style: Style, sp: Spacing) -> Option<()> {
    let left = match style {
        Style::Bar => MARGIN + sp.bar_w + 20.0,
        _ => MARGIN,
    };
    let room = CANVAS_W - MARGIN - left;
    for l in lines {
        let w = l.ink.width();
        let extra = if style == Style::Boxes && !l.contact {
            2.0 * sp.box_pad_x
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
    Some(())
}

/// Vertical stacking from baseline 0: a pitch from the size, pushed apart wherever real ink
/// (stacked diacritics, descenders) would come closer than a small gap.
fn stack(lines: &mut [Line], role: Role, style: Style, sp: Spacing) {
    let mut prev: Option<(f32, f32, f32)> = None; // (baseline, ink bottom, px)
    for l in lines {
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
        let bottom = l.baseline + l.ink.y1 + if boxed { sp.box_pad_y } else { 0.0 };
        prev = Some((l.baseline, bottom, size));
    }
}

/// The style's decorations around the placed headline lines.
fn decorations(lines: &[Line], setup: &Setup<'_>, px: f32, sp: Spacing) -> Vec<Deco> {
    let head: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].contact).collect();
    let main = setup.colors[0];
    match setup.style {
        Style::Stack => highlight(lines, &head, px, main).into_iter().collect(),
        Style::Bar => vec![bar(lines, &head, sp, main)],
        Style::Boxes => boxes(lines, &head, px, sp, main),
        Style::Underline => underline(lines, &head, px, setup.colors[1])
            .into_iter()
            .collect(),
    }
}

/// `Stack`: a soft highlight under the key line (the one with a digit, else the last).
fn highlight(lines: &[Line], head: &[usize], px: f32, fill: Rgb) -> Option<Deco> {
    let k = head
        .iter()
        .copied()
        .find(|&i| lines[i].text.chars().any(|c| c.is_ascii_digit()))
        .or(head.last().copied())?;
    let b = lines[k].placed_ink();
    let h = (b.height() * 0.32).max(6.0);
    Some(Deco {
        name: "highlight".into(),
        rect: Bounds {
            x0: b.x0 - px * 0.12,
            x1: b.x1 + px * 0.12,
            y0: b.y1 - h * 0.8,
            y1: b.y1 - h * 0.8 + h,
        },
        fill,
        opacity: 0.45,
        radius: 4.0,
        lines: vec![k],
        animation: "grow-x",
    })
}

/// `Bar`: a vertical accent bar as tall as the headline block, in the left margin.
fn bar(lines: &[Line], head: &[usize], sp: Spacing, fill: Rgb) -> Deco {
    let mut b = Bounds::EMPTY;
    for &i in head {
        b = b.union(lines[i].placed_ink());
    }
    Deco {
        name: "bar".into(),
        rect: Bounds {
            x0: MARGIN,
            x1: MARGIN + sp.bar_w,
            y0: b.y0,
            y1: b.y1,
        },
        fill,
        opacity: 1.0,
        radius: sp.bar_w / 2.0,
        lines: head.to_vec(),
        animation: "grow-y",
    }
}

/// `Boxes`: a box of the main colour behind each headline line.
fn boxes(lines: &[Line], head: &[usize], px: f32, sp: Spacing, fill: Rgb) -> Vec<Deco> {
    head.iter()
        .enumerate()
        .map(|(n, &i)| {
            let b = lines[i].placed_ink();
            Deco {
                name: format!("box-{}", n + 1),
                rect: Bounds {
                    x0: b.x0 - sp.box_pad_x,
                    x1: b.x1 + sp.box_pad_x,
                    y0: b.y0 - sp.box_pad_y,
                    y1: b.y1 + sp.box_pad_y,
                },
                fill,
                opacity: 1.0,
                radius: (px * 0.12).round(),
                lines: vec![i],
                animation: "grow-x",
            }
        })
        .collect()
}

/// `Underline`: a short accent rule centred under the last headline line.
fn underline(lines: &[Line], head: &[usize], px: f32, fill: Rgb) -> Option<Deco> {
    let &k = head.last()?;
    let b = lines[k].placed_ink();
    let w = (b.width() * 0.45).max(40.0);
    let cx = (b.x0 + b.x1) / 2.0;
    let y = b.y1 + px * 0.16;
    Some(Deco {
        name: "underline".into(),
        rect: Bounds {
            x0: cx - w / 2.0,
            x1: cx + w / 2.0,
            y0: y,
            y1: y + (px * 0.1).clamp(6.0, 14.0),
        },
        fill,
        opacity: 1.0,
        radius: 3.0,
        lines: head.to_vec(),
        animation: "grow-x",
    })
}

/// Padding around a text line's ink at `px`.
fn pad_of(px: f32) -> f32 {
    (px * 0.08).max(4.0).ceil()
}

/// `b` grown outwards to whole pixels (at least 1×1).
pub(super) fn whole(b: Bounds) -> Box2 {
    let x = b.x0.floor();
    let y = b.y0.floor();
    Box2 {
        x,
        y,
        w: (b.x1.ceil() - x).max(1.0),
        h: (b.y1.ceil() - y).max(1.0),
    }
}

/// Extents of everything arranged (the object rects, as they will be output).
pub(super) fn extents(lines: &[Line], decos: &[Deco]) -> Bounds {
    let mut b = Bounds::EMPTY;
    for r in lines
        .iter()
        .map(Line::rect)
        .chain(decos.iter().map(|d| whole(d.rect)))
    {
        b = b.union(Bounds {
            x0: r.x,
            y0: r.y,
            x1: r.right(),
            y1: r.bottom(),
        });
    }
    b
}
