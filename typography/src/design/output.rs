//! Step 5, output: each placed line and decoration as a [`DesignObject`] whose body is SVG
//! paths in object-local coordinates (text as outlines, never `<text>`), decorations first so
//! they draw under the text; and the SVG documents a design hands out.

use std::fmt::Write;

use super::layout::{Deco, Line, whole};
use super::style::headline_fill;
use super::timing::Timing;
use super::{Design, DesignObject, ObjectKind, Rgb, Style};
use crate::canvas;
use crate::outline::outline_line;

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

impl Design {
    /// The whole design as one canvas-sized (720×1280) SVG in which every object is a
    /// `data-wc-object` group, so it can go straight through svg2spec.
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

/// The design's objects in drawing order, indexed.
pub(super) fn objects(
    lines: &[Line],
    decos: &[Deco],
    style: Style,
    colors: [Rgb; 2],
    timing: &Timing,
) -> Vec<DesignObject> {
    let mut objects: Vec<DesignObject> = decos
        .iter()
        .zip(&timing.deco_starts)
        .map(|(d, &start)| deco_object(d, start, timing))
        .collect();
    let head_count = lines.iter().filter(|l| !l.contact).count();
    let mut head_n = 0;
    let mut contact_n = 0;
    for (i, l) in lines.iter().enumerate() {
        let (name, fill, outlined) = if l.contact {
            contact_n += 1;
            (format!("contact-{contact_n}"), Rgb::WHITE, true)
        } else {
            head_n += 1;
            let keyed = decos.iter().any(|d| d.lines == [i]);
            let fill = headline_fill(style, colors, head_n, head_count, keyed);
            (format!("line-{head_n}"), fill, style != Style::Boxes)
        };
        let rect = l.rect();
        let start = timing.line_starts[i];
        objects.push(DesignObject {
            index: 0,
            name,
            kind: ObjectKind::Text,
            text: Some(l.text.clone()),
            rect,
            phase: timing.phase_of(start),
            start,
            end: timing.duration,
            animation: if l.contact {
                "fade"
            } else {
                style.text_animation()
            },
            body: text_body(l, rect.x, rect.y, fill, outlined),
        });
    }
    for (i, o) in objects.iter_mut().enumerate() {
        o.index = i;
    }
    objects
}

/// A decoration: one rounded rect.
fn deco_object(d: &Deco, start: f64, timing: &Timing) -> DesignObject {
    let rect = whole(d.rect);
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
    DesignObject {
        index: 0,
        name: d.name.clone(),
        kind: ObjectKind::Decoration,
        text: None,
        rect,
        phase: timing.phase_of(start),
        start,
        end: timing.duration,
        animation: d.animation,
        body,
    }
}

/// A text line as one path relative to its object's top-left (`x0`, `y0`); `outlined` adds a
/// soft dark stroke under the fill so the line reads over any video.
fn text_body(l: &Line, x0: f32, y0: f32, fill: Rgb, outlined: bool) -> String {
    let o = outline_line(&l.font, &l.layout, l.x - x0, l.baseline - y0);
    let stroke = if outlined {
        format!(
            " stroke=\"#000000\" stroke-opacity=\"0.35\" stroke-width=\"{}\" stroke-linejoin=\"round\" paint-order=\"stroke\"",
            fmt2((l.layout.px * 0.05).max(1.5))
        )
    } else {
        String::new()
    };
    format!("<path d=\"{}\" fill=\"{}\"{stroke}/>", o.d, fill.hex())
}

/// A number rounded to two decimals, without a trailing `.0` and never `-0`.
fn fmt2(v: f32) -> String {
    let r = (v * 100.0).round() / 100.0;
    format!("{}", if r == 0.0 { 0.0 } else { r })
}
