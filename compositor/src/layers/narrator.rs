//! The narrator card: the A-roll presenter when the account has no presenter clip. A frosted
//! panel in the scene's palette with the account's monogram badge (a rounded square, the
//! name's initials) and its name as a wordmark with an accent rule, pre-rendered once; per frame
//! a soft halo breathes behind the badge and a row of voice bars moves with the narration,
//! driven by the scene's word timings (frame = f(t), so goldens stay exact). The presenter clip
//! itself is `crate::clip::ClipNarrator`; both sit in the rect [`narrator_bounds`] keeps on the
//! canvas.

use super::{Fonts, text_mask, text_width, union};
use crate::blit::Sprite;
use crate::geom::{CANVAS_H, CANVAS_W, PreviewRect};
use crate::paint::{color, mix, rounded_rect, shader_paint};
use crate::plan::{Palette, Rgb, TimedWord};
use crate::raster;
use tiny_skia::{
    Color, FillRule, GradientStop, LinearGradient, Paint, PathBuilder, Pixmap, PixmapMut, Point,
    RadialGradient, SpreadMode, Stroke, Transform,
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

/// Voice bars on the card.
const BARS: usize = 9;
/// Seconds a bar takes to rise when a word starts.
const ATTACK_S: f64 = 0.06;
/// Seconds it takes to fall back after a word ends.
const RELEASE_S: f64 = 0.18;
/// Period of the idle breathing of halo and bars.
const BREATH_PERIOD_S: f64 = 3.2;

/// The animated narrator card: the panel and the badge pre-rendered, halo and voice bars drawn
/// per frame.
pub(crate) struct NarratorCard {
    /// Panel, wordmark and rule.
    panel: Sprite,
    /// The monogram badge, drawn over its halo.
    badge: Sprite,
    /// Badge centre and half side, canvas space.
    badge_at: (f32, f32, f32),
    /// The bars' box, canvas space: `(x, y, w, h)`.
    bars: (f32, f32, f32, f32),
    accent: Rgb,
    /// When the narrator speaks: `(start, end)` per word, seconds into the scene.
    speech: Vec<(f64, f64)>,
}

/// Up to two initials: of the first and the last word of the name.
pub(crate) fn initials(name: &str) -> String {
    let mut it = name.split_whitespace().filter_map(|w| w.chars().next());
    let first = it.next();
    let last = it.next_back();
    first
        .into_iter()
        .chain(last)
        .flat_map(char::to_uppercase)
        .collect()
}

/// How loud the narrator is at `t`, 0..1: each word rises over [`ATTACK_S`] from its start and
/// falls over [`RELEASE_S`] after its end.
fn voice_level(speech: &[(f64, f64)], t: f64) -> f32 {
    speech
        .iter()
        .map(|&(s, e)| {
            if t < s || t > e + RELEASE_S {
                0.0
            } else if t <= e {
                ((t - s) / ATTACK_S).min(1.0)
            } else {
                1.0 - (t - e) / RELEASE_S
            }
        })
        .fold(0.0, f64::max) as f32
}

/// Bar `i`'s height at `t`, 0..1 of the bar box: a low idle sway, and while the narrator speaks
/// two incommensurate waves per bar, tallest in the middle of the row.
fn bar_height(i: usize, t: f64, level: f32) -> f32 {
    let k = i as f64;
    let breath = 0.5 + 0.5 * (std::f64::consts::TAU * (t / BREATH_PERIOD_S + k * 0.11)).sin();
    let idle = 0.2 + 0.1 * breath as f32;
    let wave = 0.5
        + 0.3 * (std::f64::consts::TAU * (2.3 + 0.41 * k) * t + k * 1.7).sin()
        + 0.2 * (std::f64::consts::TAU * (3.7 + 0.23 * k) * t + k * 0.9).sin();
    let centre = 1.0 - ((k - (BARS as f64 - 1.0) / 2.0).abs() / BARS as f64) as f32;
    (idle + level * centre * (0.25 + 0.75 * wave as f32)).clamp(0.0, 1.0)
}

/// Where everything sits on a card, card space. Wide cards put the badge left of the name,
/// others stack badge, name and bars.
#[derive(Clone, Copy)]
struct CardLayout {
    w: f32,
    h: f32,
    /// Badge centre and half side.
    badge: (f32, f32, f32),
    /// Name: left, available width, centre line, size; centred when `centred`.
    name: (f32, f32, f32, f32),
    centred: bool,
    /// Bars box `(x, y, w, h)`.
    bars: (f32, f32, f32, f32),
}

impl CardLayout {
    fn new(w: f32, h: f32) -> Self {
        if w > h * 1.3 {
            Self::wide(w, h)
        } else {
            Self::stacked(w, h)
        }
    }

    fn wide(w: f32, h: f32) -> Self {
        let half = h * 0.3;
        let margin = h * 0.2;
        let x0 = margin + 2.0 * half + h * 0.16;
        let col = (w - x0 - margin).max(8.0);
        CardLayout {
            w,
            h,
            badge: (margin + half, h * 0.5, half),
            name: (x0, col, h * 0.4, (h * 0.24).clamp(12.0, 44.0)),
            centred: false,
            bars: (x0, h * 0.62, col.min(h * 1.3), h * 0.2),
        }
    }

    fn stacked(w: f32, h: f32) -> Self {
        let half = (w * 0.19).min(h * 0.17);
        let px = (h * 0.085).clamp(12.0, 40.0);
        let (gap, name_h, bars_h) = (h * 0.06, px * 1.3, h * 0.12);
        let top = (h - (2.0 * half + gap + name_h + gap + bars_h)) / 2.0;
        let name_cy = top + 2.0 * half + gap + name_h / 2.0;
        let bars_w = w * 0.42;
        CardLayout {
            w,
            h,
            badge: (w * 0.5, top + half, half),
            name: (w * 0.08, w * 0.84, name_cy, px),
            centred: true,
            bars: (
                (w - bars_w) / 2.0,
                name_cy + name_h / 2.0 + gap,
                bars_w,
                bars_h,
            ),
        }
    }
}

impl NarratorCard {
    /// Paints the card into the canvas rect `(x, y, w, h)` (see [`narrator_bounds`]); `words`
    /// are the scene's narration, which the voice bars follow.
    pub(crate) fn prepare(
        (x, y, w, h): (u32, u32, u32, u32),
        name: &str,
        pal: Palette,
        fonts: &Fonts,
        words: &[&TimedWord],
    ) -> Self {
        let (xf, yf) = (x as f32, y as f32);
        let lay = CardLayout::new(w as f32, h as f32);
        let mut panel = Pixmap::new(w, h).expect("clamped, non-zero size");
        paint_panel(&mut panel, &lay, pal);
        paint_name(&mut panel, &lay, pal, name, &fonts.bold);
        let (bcx, bcy, half) = lay.badge;
        let side = (2.0 * half).ceil().max(1.0) as u32;
        let mut badge = Pixmap::new(side, side).expect("non-zero size");
        paint_badge(&mut badge, pal, &initials(name), &fonts.bold);
        let (bx, by, bw, bh) = lay.bars;
        NarratorCard {
            panel: Sprite {
                x: x as i32,
                y: y as i32,
                pixmap: panel,
            },
            badge: Sprite {
                x: (xf + bcx - half).round() as i32,
                y: (yf + bcy - half).round() as i32,
                pixmap: badge,
            },
            badge_at: (xf + bcx, yf + bcy, half),
            bars: (xf + bx, yf + by, bw, bh),
            accent: pal.accent,
            speech: words.iter().map(|w| (w.start, w.end)).collect(),
        }
    }

    /// The card, its badge's halo (with room for anti-aliasing) and its bars.
    pub(crate) fn bounds(&self) -> (i64, i64, i64, i64) {
        let (cx, cy, half) = self.badge_at;
        let reach = half * HALO_REACH + 2.0;
        let (bx, by, bw, bh) = self.bars;
        let around = |x0: f32, y0: f32, x1: f32, y1: f32| {
            (
                x0.floor() as i64 - 1,
                y0.floor() as i64 - 1,
                x1.ceil() as i64 + 1,
                y1.ceil() as i64 + 1,
            )
        };
        union(
            union(
                self.panel.bounds(),
                around(cx - reach, cy - reach, cx + reach, cy + reach),
            ),
            around(bx, by, bx + bw, by + bh),
        )
    }

    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        self.panel.draw(dst);
        let level = voice_level(&self.speech, t);
        self.draw_halo(t, level, dst);
        self.badge.draw(dst);
        self.draw_bars(t, level, dst);
    }

    /// A soft accent glow behind the badge, breathing slowly and brighter while speaking.
    fn draw_halo(&self, t: f64, level: f32, dst: &mut PixmapMut<'_>) {
        let (cx, cy, half) = self.badge_at;
        let breath = 0.5 + 0.5 * (std::f64::consts::TAU * t / BREATH_PERIOD_S).sin() as f32;
        let strength = 0.18 + 0.12 * breath + 0.25 * level;
        let reach = half * (HALO_REACH - 0.12 * (1.0 - breath));
        let glow = RadialGradient::new(
            Point::from_xy(cx, cy),
            half * 0.6,
            Point::from_xy(cx, cy),
            reach,
            vec![
                GradientStop::new(0.0, color(self.accent, strength)),
                GradientStop::new(1.0, color(self.accent, 0.0)),
            ],
            SpreadMode::Pad,
            Transform::identity(),
        );
        if let (Some(p), Some(disc)) = (shader_paint(glow), PathBuilder::from_circle(cx, cy, reach))
        {
            dst.fill_path(&disc, &p, FillRule::Winding, Transform::identity(), None);
        }
    }

    /// The voice bars: rounded, mirrored about the box's middle line.
    fn draw_bars(&self, t: f64, level: f32, dst: &mut PixmapMut<'_>) {
        let (bx, by, bw, bh) = self.bars;
        let pitch = bw / BARS as f32;
        let thick = (pitch * 0.55).max(2.0);
        let mid = by + bh / 2.0;
        let mut paint = Paint {
            anti_alias: true,
            ..Paint::default()
        };
        paint.set_color(color(self.accent, 0.92));
        for i in 0..BARS {
            let len = (bh * bar_height(i, t, level)).max(thick);
            let x = bx + pitch * i as f32 + (pitch - thick) / 2.0;
            if let Some(bar) = rounded_rect(x, mid - len / 2.0, thick, len, thick / 2.0) {
                dst.fill_path(&bar, &paint, FillRule::Winding, Transform::identity(), None);
            }
        }
    }
}

/// How far the halo reaches, in badge half sides.
const HALO_REACH: f32 = 1.45;

/// The frosted panel: a vertical gradient from a deep shade of the palette, a thin light
/// border and an accent hairline along the top.
fn paint_panel(card: &mut Pixmap, lay: &CardLayout, pal: Palette) {
    let (wf, hf) = (lay.w, lay.h);
    let radius = (wf.min(hf) * 0.1).clamp(6.0, 28.0);
    let Some(panel) = rounded_rect(1.0, 1.0, wf - 2.0, hf - 2.0, radius) else {
        return;
    };
    let deep = mix(pal.base, Rgb::new(0, 0, 0), 0.45);
    let lift = mix(pal.base, pal.glow, 0.35);
    let fill = LinearGradient::new(
        Point::from_xy(0.0, 0.0),
        Point::from_xy(wf * 0.3, hf),
        vec![
            GradientStop::new(0.0, color(lift, 0.84)),
            GradientStop::new(1.0, color(deep, 0.88)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let Some(p) = shader_paint(fill) {
        card.fill_path(&panel, &p, FillRule::Winding, Transform::identity(), None);
    }
    let mut paint = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    paint.set_color(Color::from_rgba8(255, 255, 255, 40));
    let stroke = Stroke {
        width: 1.5,
        ..Stroke::default()
    };
    card.stroke_path(&panel, &paint, &stroke, Transform::identity(), None);
    // The accent hairline, inset from the corners.
    if let Some(line) = rounded_rect(radius * 1.5, 1.0, wf - radius * 3.0, 2.5, 1.25) {
        paint.set_color(color(pal.accent, 0.75));
        card.fill_path(
            &line,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

/// The monogram badge filling `badge`: a rounded square in an accent gradient with a soft
/// top light, the initials centred in a dark ink.
fn paint_badge(badge: &mut Pixmap, pal: Palette, ini: &str, bold: &[Font]) {
    let s = badge.width() as f32;
    let Some(square) = rounded_rect(0.5, 0.5, s - 1.0, s - 1.0, s * 0.28) else {
        return;
    };
    let fill = LinearGradient::new(
        Point::from_xy(0.0, 0.0),
        Point::from_xy(s, s),
        vec![
            GradientStop::new(
                0.0,
                color(mix(pal.accent, Rgb::new(255, 255, 255), 0.2), 1.0),
            ),
            GradientStop::new(1.0, color(mix(pal.accent, pal.glow, 0.55), 1.0)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let Some(p) = shader_paint(fill) {
        badge.fill_path(&square, &p, FillRule::Winding, Transform::identity(), None);
    }
    let sheen = LinearGradient::new(
        Point::from_xy(0.0, 0.0),
        Point::from_xy(0.0, s * 0.55),
        vec![
            GradientStop::new(0.0, Color::from_rgba8(255, 255, 255, 70)),
            GradientStop::new(1.0, Color::from_rgba8(255, 255, 255, 0)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let Some(p) = shader_paint(sheen) {
        badge.fill_path(&square, &p, FillRule::Winding, Transform::identity(), None);
    }
    let px = (s * if ini.chars().count() > 1 { 0.4 } else { 0.5 }).max(8.0);
    if let Some(m) = text_mask(bold, ini, px) {
        let ink = mix(pal.base, Rgb::new(0, 0, 0), 0.35);
        let metrics = bold[0].line_metrics(px);
        let gx = ((s - m.advance) / 2.0).round() as i32 + m.cov.left;
        let baseline = ((s + metrics.ascent * 0.72) / 2.0).round() as i32;
        raster::paint_coverage(
            badge,
            &m.cov.data,
            m.cov.width as usize,
            m.cov.height as usize,
            gx,
            baseline + m.cov.top,
            [ink.r, ink.g, ink.b, 255],
        );
    }
}

/// The name in white, shrunk to fit its column, with a short accent rule under it.
fn paint_name(card: &mut Pixmap, lay: &CardLayout, pal: Palette, name: &str, bold: &[Font]) {
    let (x0, col, cy, size) = lay.name;
    let mut px = size;
    while px > 12.0 && text_width(bold, name, px) > col {
        px -= 1.0;
    }
    let Some(m) = text_mask(bold, name, px) else {
        return;
    };
    let metrics = bold[0].line_metrics(px);
    let pen = if lay.centred {
        x0 + ((col - m.advance) / 2.0).max(0.0)
    } else {
        x0
    };
    let baseline = (cy + (metrics.ascent + metrics.descent) / 2.0).round() as i32;
    raster::paint_coverage(
        card,
        &m.cov.data,
        m.cov.width as usize,
        m.cov.height as usize,
        pen.round() as i32 + m.cov.left,
        baseline + m.cov.top,
        [255, 255, 255, 255],
    );
    let rule_w = (m.advance.min(col) * 0.22).max(12.0);
    let rule_x = if lay.centred {
        x0 + (col - rule_w) / 2.0
    } else {
        pen
    };
    let rule_y = baseline as f32 + -metrics.descent + px * 0.18;
    let mut paint = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    paint.set_color(color(pal.accent, 0.9));
    let thick = (px * 0.09).max(2.0);
    if let Some(rule) = rounded_rect(rule_x, rule_y, rule_w, thick, thick / 2.0) {
        card.fill_path(
            &rule,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
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

    #[test]
    fn voice_level_follows_the_words() {
        let speech = [(1.0, 1.4), (2.0, 2.3)];
        assert_eq!(voice_level(&speech, 0.5), 0.0);
        assert_eq!(voice_level(&speech, 1.2), 1.0);
        assert!(voice_level(&speech, 1.03) < 1.0, "rises over the attack");
        let falling = voice_level(&speech, 1.4 + RELEASE_S / 2.0);
        assert!(falling > 0.0 && falling < 1.0, "falls after the word");
        assert_eq!(voice_level(&speech, 1.8), 0.0, "silent between words");
    }

    #[test]
    fn bars_rise_only_while_speaking() {
        let quiet: f32 = (0..BARS).map(|i| bar_height(i, 1.23, 0.0)).sum();
        let speaking: f32 = (0..BARS).map(|i| bar_height(i, 1.23, 1.0)).sum();
        assert!(quiet < 0.3 * BARS as f32, "idle bars stay low: {quiet}");
        assert!(
            speaking > 2.0 * quiet,
            "speech lifts the bars: {speaking} vs {quiet}"
        );
    }

    #[test]
    fn stacked_layout_keeps_everything_on_the_card() {
        for (w, h) in [(360.0, 360.0), (411.0, 514.0), (200.0, 260.0)] {
            let lay = CardLayout::new(w, h);
            let (cx, cy, half) = lay.badge;
            assert!(
                cy - half * HALO_REACH > -half * 0.5,
                "{w}×{h}: halo too high"
            );
            assert!(cx - half > 0.0 && cy - half > 0.0);
            let (bx, by, bw, bh) = lay.bars;
            assert!(
                bx >= 0.0 && bx + bw <= w && by + bh <= h,
                "{w}×{h}: bars off card"
            );
        }
    }
}
