//! The narrator card: the A-roll presenter when the account has no presenter clip. A panel
//! with an avatar circle (the name's initials) and the name, pre-rendered once, and two
//! "speaking" rings pulsing around the avatar per frame. The presenter clip itself is
//! `crate::clip::ClipNarrator`; both sit in the rect [`narrator_bounds`] keeps on the canvas.

use super::{Fonts, text_mask, text_width, union};
use crate::blit::Sprite;
use crate::geom::{CANVAS_H, CANVAS_W, PreviewRect};
use crate::paint::{color, mix, rounded_rect, shader_paint};
use crate::plan::{Palette, Rgb};
use crate::raster;
use tiny_skia::{
    Color, FillRule, GradientStop, LinearGradient, Paint, PathBuilder, Pixmap, PixmapMut, Point,
    SpreadMode, Stroke, Transform,
};
use typography::Font;

/// The narrator rect on the canvas, whole pixels, kept inside the canvas: `(x, y, w, h)`;
/// `None` unless the rect is finite with a positive size.
pub(crate) fn narrator_bounds(rect: &PreviewRect) -> Option<(u32, u32, u32, u32)> {
    if !rect.is_valid() {
        return None;
    }
    let c = rect.to_canvas();
    let x = c.x.clamp(0.0, f64::from(CANVAS_W) - 8.0).round() as u32;
    let y = c.y.clamp(0.0, f64::from(CANVAS_H) - 8.0).round() as u32;
    let w = c.w.round().clamp(8.0, f64::from(CANVAS_W - x)) as u32;
    let h = c.h.round().clamp(8.0, f64::from(CANVAS_H - y)) as u32;
    Some((x, y, w, h))
}

/// The animated narrator card: a static pre-rendered card plus a pulsing ring drawn per frame.
pub(crate) struct NarratorCard {
    card: Sprite,
    /// Avatar centre and radius, canvas space.
    avatar: (f32, f32, f32),
    accent: Rgb,
}

/// Period of the "speaking" pulse.
const PULSE_PERIOD_S: f64 = 1.6;

/// Up to two initials: of the first and the last word of the name.
fn initials(name: &str) -> String {
    let mut it = name.split_whitespace().filter_map(|w| w.chars().next());
    let first = it.next();
    let last = it.next_back();
    first
        .into_iter()
        .chain(last)
        .flat_map(char::to_uppercase)
        .collect()
}

/// Where the avatar sits on a card: wide cards put it left of the name, tall ones above it.
#[derive(Clone, Copy)]
struct CardLayout {
    w: f32,
    h: f32,
    wide: bool,
    /// Avatar centre and radius, card space.
    cx: f32,
    cy: f32,
    r: f32,
}

impl CardLayout {
    fn new(w: f32, h: f32) -> Self {
        let wide = w > h * 1.3;
        let r = if wide {
            h * 0.32
        } else {
            (w * 0.3).min(h * 0.27)
        };
        let (cx, cy) = if wide {
            (h * 0.5, h * 0.5)
        } else {
            (w * 0.5, h * 0.40)
        };
        CardLayout {
            w,
            h,
            wide,
            cx,
            cy,
            r,
        }
    }
}

impl NarratorCard {
    /// Paints the card into the canvas rect `(x, y, w, h)` (see [`narrator_bounds`]).
    pub(crate) fn prepare(
        (x, y, w, h): (u32, u32, u32, u32),
        name: &str,
        pal: Palette,
        fonts: &Fonts,
    ) -> Self {
        let (x, y) = (x as i32, y as i32);
        let mut card = Pixmap::new(w, h).expect("clamped, non-zero size");
        let lay = CardLayout::new(w as f32, h as f32);
        paint_panel(&mut card, &lay);
        paint_avatar(&mut card, &lay, pal, &initials(name), &fonts.bold);
        paint_name(&mut card, &lay, name, &fonts.bold);
        NarratorCard {
            card: Sprite { x, y, pixmap: card },
            avatar: (x as f32 + lay.cx, y as f32 + lay.cy, lay.r),
            accent: pal.accent,
        }
    }

    /// The card and its widest pulse ring (with room for anti-aliasing).
    pub(crate) fn bounds(&self) -> (i64, i64, i64, i64) {
        let (cx, cy, r) = self.avatar;
        let reach = r + 3.0 + r * 0.35 + (r * 0.08).max(2.0) + 2.0;
        union(
            self.card.bounds(),
            (
                (cx - reach).floor() as i64,
                (cy - reach).floor() as i64,
                (cx + reach).ceil() as i64,
                (cy + reach).ceil() as i64,
            ),
        )
    }

    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        self.card.draw(dst);
        let (cx, cy, r) = self.avatar;
        // Two expanding rings, half a period apart, fading as they grow.
        for k in 0..2 {
            let phase = ((t / PULSE_PERIOD_S + k as f64 * 0.5).fract()) as f32;
            let radius = r + 3.0 + phase * r * 0.35;
            let alpha = 0.6 * (1.0 - phase);
            if let Some(circle) = PathBuilder::from_circle(cx, cy, radius) {
                let mut paint = Paint {
                    anti_alias: true,
                    ..Paint::default()
                };
                paint.set_color(color(self.accent, alpha));
                let stroke = Stroke {
                    width: (r * 0.08).max(2.0) * (1.0 - phase * 0.5),
                    ..Stroke::default()
                };
                dst.stroke_path(&circle, &paint, &stroke, Transform::identity(), None);
            }
        }
    }
}

/// The translucent rounded panel with its thin light border.
fn paint_panel(card: &mut Pixmap, lay: &CardLayout) {
    let (wf, hf) = (lay.w, lay.h);
    let mut paint = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    let radius = (wf.min(hf) * 0.12).clamp(6.0, 32.0);
    if let Some(panel) = rounded_rect(1.0, 1.0, wf - 2.0, hf - 2.0, radius) {
        paint.set_color(Color::from_rgba8(10, 12, 22, 170));
        card.fill_path(
            &panel,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
        paint.set_color(Color::from_rgba8(255, 255, 255, 46));
        let stroke = Stroke {
            width: 2.0,
            ..Stroke::default()
        };
        card.stroke_path(&panel, &paint, &stroke, Transform::identity(), None);
    }
}

/// The avatar: an accent-gradient circle with the initials in a dark ink.
fn paint_avatar(card: &mut Pixmap, lay: &CardLayout, pal: Palette, ini: &str, bold: &[Font]) {
    let (acx, acy, r) = (lay.cx, lay.cy, lay.r);
    let avatar_fill = LinearGradient::new(
        Point::from_xy(acx - r, acy - r),
        Point::from_xy(acx + r, acy + r),
        vec![
            GradientStop::new(0.0, color(pal.accent, 1.0)),
            GradientStop::new(1.0, color(mix(pal.accent, pal.glow, 0.6), 1.0)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let (Some(p), Some(circle)) = (
        shader_paint(avatar_fill),
        PathBuilder::from_circle(acx, acy, r.max(1.0)),
    ) {
        card.fill_path(&circle, &p, FillRule::Winding, Transform::identity(), None);
    }
    if let Some(m) = text_mask(bold, ini, (r * 0.85).max(8.0)) {
        let ink = mix(pal.base, Rgb::new(0, 0, 0), 0.3);
        let gx = (acx - m.advance / 2.0).round() as i32 + m.cov.left;
        let metrics = bold[0].line_metrics((r * 0.85).max(8.0));
        let baseline = (acy + (metrics.ascent * 0.72) / 2.0).round() as i32;
        raster::paint_coverage(
            card,
            &m.cov.data,
            m.cov.width as usize,
            m.cov.height as usize,
            gx,
            baseline + m.cov.top,
            [ink.r, ink.g, ink.b, 255],
        );
    }
}

/// The name in white, shrunk to fit the space beside/below the avatar.
fn paint_name(card: &mut Pixmap, lay: &CardLayout, name: &str, bold: &[Font]) {
    let (wf, hf, wide) = (lay.w, lay.h, lay.wide);
    let (acy, r) = (lay.cy, lay.r);
    let (name_x0, name_w, name_cy) = if wide {
        (hf, wf - hf - hf * 0.15, hf * 0.5)
    } else {
        (wf * 0.08, wf * 0.84, acy + r + (hf - (acy + r)) * 0.5)
    };
    let mut px = (hf * if wide { 0.24 } else { 0.13 }).clamp(12.0, 44.0);
    while px > 12.0 && text_width(bold, name, px) > name_w {
        px -= 1.0;
    }
    if let Some(m) = text_mask(bold, name, px) {
        let metrics = bold[0].line_metrics(px);
        let pen = if wide {
            name_x0
        } else {
            name_x0 + ((name_w - m.advance) / 2.0).max(0.0)
        };
        let baseline = (name_cy + (metrics.ascent + metrics.descent) / 2.0).round() as i32;
        raster::paint_coverage(
            card,
            &m.cov.data,
            m.cov.width as usize,
            m.cov.height as usize,
            pen.round() as i32 + m.cov.left,
            baseline + m.cov.top,
            [255, 255, 255, 255],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initials_from_names() {
        assert_eq!(initials("Ada Lovelace"), "AL");
        assert_eq!(initials("ngọc"), "N");
        assert_eq!(initials("Jean Paul Sartre"), "JS");
        assert_eq!(initials("  "), "");
    }
}
