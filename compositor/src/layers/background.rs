//! Background plates: a procedural look painted from a seed or a still image cover-fitted,
//! each a little larger than the canvas and panned with whole-pixel offsets (a gentle Ken Burns
//! drift), so every frame is a straight row copy. Clip backgrounds live in `crate::clip`.

use crate::focus::{self, BackgroundFit};
use crate::geom::{CANVAS_H, CANVAS_W};
use crate::media::convert::{EvenRect, I420Layout, PlanarPicture};
use crate::paint::{Rng, color, mix, rounded_rect, shader_paint};
use crate::plan::{Palette, ProceduralStyle, Rgb};
use crate::raster;
use std::path::Path;
use std::sync::OnceLock;
use tiny_skia::{
    Color, FillRule, FilterQuality, GradientStop, LinearGradient, Paint, PathBuilder, Pattern,
    Pixmap, PixmapMut, PixmapPaint, PixmapRef, Point, RadialGradient, SpreadMode, Transform,
};

/// An opaque plate a little larger than the canvas, panned with whole-pixel offsets: every frame
/// is a straight row copy, never a blend or a resample.
pub(crate) struct PlateBackground {
    plate: Pixmap,
    /// The plate as the encoder converts it, so a frame's background needs no conversion
    /// (`None` for a plate of odd size, which frames convert the usual way). Made by the first
    /// frame that asks: stills and half-size previews never do.
    planar: OnceLock<Option<Box<PlanarPicture>>>,
    /// Offset of the canvas window in the plate at the scene start and end.
    from: (f64, f64),
    to: (f64, f64),
    duration: f64,
}

/// Drift speed of backgrounds, canvas pixels per second (gentle).
const DRIFT_PX_PER_S: f64 = 14.0;

impl PlateBackground {
    /// A painted plate: the faceless look, from its seed.
    pub(crate) fn procedural(
        seed: u64,
        style: ProceduralStyle,
        palette: Palette,
        duration: f64,
    ) -> Self {
        Self::drifting(paint_procedural(seed, style, palette), seed, duration)
    }

    /// A still image on the plate as `fit` places it; the error is why the file is unusable.
    pub(crate) fn image(
        index: usize,
        path: &Path,
        fit: BackgroundFit,
        duration: f64,
    ) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let img = raster::decode_image(&bytes)?;
        let plate = fitted_plate(img.as_ref(), fit)?;
        // The drift direction comes from the image's own bytes (and the scene's position),
        // never from where the file lives, so the same video renders the same frames on every
        // machine and in every checkout.
        let seed = bytes.iter().step_by(61).fold(index as u64, |h, &b| {
            h.wrapping_mul(31).wrapping_add(u64::from(b))
        });
        Ok(Self::drifting(plate, seed, duration))
    }

    /// `plate` drifting across the scene in a direction picked by `seed`.
    fn drifting(plate: Pixmap, seed: u64, duration: f64) -> Self {
        let mx = f64::from(plate.width() - CANVAS_W);
        let my = f64::from(plate.height() - CANVAS_H);
        // Travel at most the margin, at a gentle speed.
        let travel = (duration * DRIFT_PX_PER_S).min(mx.min(my) * 0.9);
        let (cx, cy) = (mx / 2.0, my / 2.0);
        let angle = (seed % 8) as f64 * std::f64::consts::FRAC_PI_4 + 0.3;
        let (dx, dy) = (angle.cos() * travel / 2.0, angle.sin() * travel / 2.0);
        PlateBackground {
            plate,
            planar: OnceLock::new(),
            from: (cx - dx, cy - dy),
            to: (cx + dx, cy + dy),
            duration,
        }
    }

    /// The canvas's top-left on the plate at scene time `t`.
    fn offset(&self, t: f64) -> (usize, usize) {
        let f = (t / self.duration).clamp(0.0, 1.0);
        let max_x = (self.plate.width() - CANVAS_W) as usize;
        let max_y = (self.plate.height() - CANVAS_H) as usize;
        let ox = ((self.from.0 + (self.to.0 - self.from.0) * f).round() as usize).min(max_x);
        let oy = ((self.from.1 + (self.to.1 - self.from.1) * f).round() as usize).min(max_y);
        (ox, oy)
    }

    pub(crate) fn draw(&self, t: f64, dst: &mut PixmapMut<'_>) {
        let full = EvenRect {
            x0: 0,
            y0: 0,
            x1: CANVAS_W as usize,
            y1: CANVAS_H as usize,
        };
        self.draw_rect(t, dst.data_mut(), full);
    }

    /// Copies the part of the frame at `t` inside `rect` into `rgba` (a canvas frame).
    pub(crate) fn draw_rect(&self, t: f64, rgba: &mut [u8], rect: EvenRect) {
        let (ox, oy) = self.offset(t);
        let pw = self.plate.width() as usize * 4;
        let row = CANVAS_W as usize * 4;
        let (x0, x1) = (
            rect.x0.min(CANVAS_W as usize),
            rect.x1.min(CANVAS_W as usize),
        );
        let src = self.plate.data();
        for y in rect.y0..rect.y1.min(CANVAS_H as usize) {
            let s = (oy + y) * pw + (ox + x0) * 4;
            rgba[y * row + x0 * 4..y * row + x1 * 4].copy_from_slice(&src[s..s + (x1 - x0) * 4]);
        }
    }

    /// The frame at `t` as the encoder's I420 (`layout`, the canvas's size) in `out`, without
    /// converting a pixel: bit-exact with drawing it and converting. False when it cannot.
    pub(crate) fn draw_i420(&self, t: f64, layout: &I420Layout, out: &mut [u8]) -> bool {
        let offset = self.offset(t);
        let planar = self.planar.get_or_init(|| {
            let (w, h) = (self.plate.width() as usize, self.plate.height() as usize);
            PlanarPicture::new(self.plate.data(), w, h).map(Box::new)
        });
        planar
            .as_ref()
            .is_some_and(|p| p.window(offset, layout, out))
    }
}

/// The opaque plate of a still picture under `fit` (see `crate::focus`): covering it, or a
/// soft dimmed cover with the picture in its window (or alone, as a backdrop).
fn fitted_plate(img: PixmapRef<'_>, fit: BackgroundFit) -> Result<Pixmap, String> {
    // Cover 110 % of the canvas: the margin is the Ken Burns travel.
    let (w, h) = focus::plate_size();
    let covered = raster::cover(img, w, h).ok_or("image could not be scaled".to_string())?;
    // Flatten any transparency onto black: the plate must be opaque.
    let mut plate = Pixmap::new(w, h).ok_or("no memory".to_string())?;
    plate.fill(Color::BLACK);
    let soft = match fit {
        BackgroundFit::Cover => covered,
        BackgroundFit::Window { .. } | BackgroundFit::Backdrop => soft_copy(covered.as_ref())?,
    };
    plate.draw_pixmap(
        0,
        0,
        soft.as_ref(),
        &PixmapPaint::default(),
        Transform::identity(),
        None,
    );
    if let BackgroundFit::Window { rect } = fit {
        let (pw, ph) = (
            rect.w.round().max(1.0) as u32,
            rect.h.round().max(1.0) as u32,
        );
        let picture = raster::resize(img, pw, ph).ok_or("image could not be scaled".to_string())?;
        let (mx, my) = focus::plate_margin();
        let (x, y) = ((rect.x + mx).round() as f32, (rect.y + my).round() as f32);
        draw_framed(&mut plate, picture.as_ref(), x, y);
    }
    Ok(plate)
}

/// Draws a window's picture at `(x, y)` as a card: rounded corners over a soft shadow, so it
/// reads as a deliberate frame on its soft copy rather than a misplaced layer.
fn draw_framed(plate: &mut Pixmap, picture: PixmapRef<'_>, x: f32, y: f32) {
    let (w, h) = (picture.width() as f32, picture.height() as f32);
    if let Some(shadow) = rounded_rect(x + 6.0, y + 14.0, w, h, WINDOW_RADIUS) {
        let mut paint = Paint::default();
        paint.set_color_rgba8(0, 0, 0, 90);
        paint.anti_alias = true;
        plate.fill_path(
            &shadow,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
    let Some(card) = rounded_rect(x, y, w, h, WINDOW_RADIUS) else {
        return;
    };
    let paint = Paint {
        anti_alias: true,
        shader: Pattern::new(
            picture,
            SpreadMode::Pad,
            FilterQuality::Nearest,
            1.0,
            Transform::from_translate(x, y),
        ),
        ..Paint::default()
    };
    plate.fill_path(
        &card,
        &paint,
        FillRule::Winding,
        Transform::identity(),
        None,
    );
}

/// Corner radius of a window's picture, plate pixels.
const WINDOW_RADIUS: f32 = 28.0;

/// A blurred, dimmed copy of a plate: shrunk by [`SOFT_DIV`] and scaled back up, at
/// [`SOFT_DIM`] brightness.
fn soft_copy(plate: PixmapRef<'_>) -> Result<Pixmap, String> {
    let (w, h) = (plate.width(), plate.height());
    let small = raster::resize(plate, (w / SOFT_DIV).max(1), (h / SOFT_DIV).max(1))
        .ok_or("image could not be scaled".to_string())?;
    let mut soft =
        raster::resize(small.as_ref(), w, h).ok_or("image could not be scaled".to_string())?;
    for p in soft.data_mut().chunks_exact_mut(4) {
        for c in &mut p[..3] {
            *c = (f32::from(*c) * SOFT_DIM) as u8;
        }
    }
    Ok(soft)
}

/// How much a soft copy is shrunk before it is scaled back up (the blur), and its brightness.
const SOFT_DIV: u32 = 24;
const SOFT_DIM: f32 = 0.55;

/// Extra plate pixels on each axis beyond the canvas: the procedural drift's travel.
const MARGIN: u32 = 80;
/// Spacing of the grid look's lines, plate pixels.
const GRID_CELL: f32 = 60.0;

/// Paints a procedural plate: base gradient, the style's light, then the vignette.
pub(crate) fn paint_procedural(seed: u64, style: ProceduralStyle, pal: Palette) -> Pixmap {
    let (w, h) = (CANVAS_W + MARGIN, CANVAS_H + MARGIN);
    let mut p = Pixmap::new(w, h).expect("constant, non-zero size");
    let mut rng = Rng::new(seed);
    p.fill(color(pal.base, 1.0));
    paint_base_gradient(&mut p, style, pal);
    match style {
        ProceduralStyle::Grid => paint_grid(&mut p, &mut rng, pal),
        ProceduralStyle::Gradient => paint_light_pools(&mut p, &mut rng, pal),
        ProceduralStyle::Bokeh => paint_bokeh(&mut p, &mut rng, pal),
    }
    paint_vignette(&mut p);
    p
}

/// The two-tone linear gradient every style starts from.
fn paint_base_gradient(p: &mut Pixmap, style: ProceduralStyle, pal: Palette) {
    let (wf, hf) = (p.width() as f32, p.height() as f32);
    let (start, end, c0, c1) = match style {
        ProceduralStyle::Grid => (
            (0.0, 0.0),
            (0.0, hf),
            mix(pal.base, pal.glow, 0.25),
            pal.base,
        ),
        ProceduralStyle::Gradient => ((0.0, 0.0), (wf, hf), pal.base, pal.glow),
        ProceduralStyle::Bokeh => (
            (0.0, 0.0),
            (wf * 0.3, hf),
            pal.base,
            mix(pal.base, pal.glow, 0.7),
        ),
    };
    let base = LinearGradient::new(
        Point::from_xy(start.0, start.1),
        Point::from_xy(end.0, end.1),
        vec![
            GradientStop::new(0.0, color(c0, 1.0)),
            GradientStop::new(1.0, color(c1, 1.0)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let Some(paint) = shader_paint(base) {
        fill_all(p, &paint);
    }
}

/// A fine technical grid (every fourth line brighter) under a soft glow, with lit nodes.
fn paint_grid(p: &mut Pixmap, rng: &mut Rng, pal: Palette) {
    let (wf, hf) = (p.width() as f32, p.height() as f32);
    radial_glow(
        p,
        rng.range(0.25, 0.75) * wf,
        rng.range(0.25, 0.5) * hf,
        wf * 0.9,
        pal.glow,
        0.55,
    );
    let cell = GRID_CELL;
    let mut paint = Paint {
        anti_alias: false,
        ..Paint::default()
    };
    let mut line = |p: &mut Pixmap, r: tiny_skia::Rect, major: bool| {
        paint.set_color(color(pal.accent, if major { 0.20 } else { 0.08 }));
        p.fill_rect(r, &paint, Transform::identity(), None);
    };
    let mut i = 0;
    let mut x = 0.0;
    while x < wf {
        if let Some(r) = tiny_skia::Rect::from_xywh(x, 0.0, 2.0, hf) {
            line(p, r, i % 4 == 0);
        }
        x += cell;
        i += 1;
    }
    let (mut i, mut y) = (0, 0.0);
    while y < hf {
        if let Some(r) = tiny_skia::Rect::from_xywh(0.0, y, wf, 2.0) {
            line(p, r, i % 4 == 0);
        }
        y += cell;
        i += 1;
    }
    // A few lit nodes on major intersections.
    for _ in 0..10 {
        let gx = (rng.range(0.0, wf / (cell * 4.0))).floor() * cell * 4.0 + 1.0;
        let gy = (rng.range(0.0, hf / (cell * 4.0))).floor() * cell * 4.0 + 1.0;
        radial_glow(p, gx, gy, 26.0, pal.accent, 0.55);
    }
}

/// Three large soft pools of light.
fn paint_light_pools(p: &mut Pixmap, rng: &mut Rng, pal: Palette) {
    let (wf, hf) = (p.width() as f32, p.height() as f32);
    for _ in 0..3 {
        let c = if rng.unit() < 0.5 {
            pal.accent
        } else {
            pal.glow
        };
        radial_glow(
            p,
            rng.range(0.0, 1.0) * wf,
            rng.range(0.0, 1.0) * hf,
            rng.range(0.35, 0.7) * wf,
            c,
            0.35,
        );
    }
}

/// A glow with out-of-focus light discs.
fn paint_bokeh(p: &mut Pixmap, rng: &mut Rng, pal: Palette) {
    let (wf, hf) = (p.width() as f32, p.height() as f32);
    radial_glow(p, wf * 0.5, hf * 0.35, wf, pal.glow, 0.35);
    for _ in 0..34 {
        let c = if rng.unit() < 0.6 {
            pal.accent
        } else {
            mix(pal.glow, Rgb::new(255, 255, 255), 0.4)
        };
        let r = rng.range(18.0, 110.0);
        let (cx, cy) = (rng.range(0.0, wf), rng.range(0.0, hf));
        let a = rng.range(0.10, 0.35) * (1.0 - r / 160.0);
        radial_disc(p, (cx, cy, r), c, a, (0.75, 0.8));
    }
}

/// The vignette keeps the edges calm and text readable.
fn paint_vignette(p: &mut Pixmap) {
    let (wf, hf) = (p.width() as f32, p.height() as f32);
    let (cx, cy) = (wf / 2.0, hf / 2.0);
    let vignette = RadialGradient::new(
        Point::from_xy(cx, cy),
        0.0,
        Point::from_xy(cx, cy),
        hf * 0.62,
        vec![
            GradientStop::new(0.45, Color::from_rgba8(0, 0, 0, 0)),
            GradientStop::new(1.0, Color::from_rgba8(0, 0, 0, 120)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let Some(paint) = shader_paint(vignette) {
        fill_all(p, &paint);
    }
}

fn fill_all(p: &mut Pixmap, paint: &Paint<'_>) {
    let rect = tiny_skia::Rect::from_xywh(0.0, 0.0, p.width() as f32, p.height() as f32);
    if let Some(rect) = rect {
        p.fill_rect(rect, paint, Transform::identity(), None);
    }
}

fn radial_glow(p: &mut Pixmap, cx: f32, cy: f32, r: f32, c: Rgb, alpha: f32) {
    radial_disc(p, (cx, cy, r), c, alpha, (0.6, 0.35));
}

/// A soft disc centred at `(cx, cy)` with radius `r`: `alpha` at the centre, `alpha × mid.1` at
/// `mid.0` of the radius, transparent at the edge.
fn radial_disc(p: &mut Pixmap, (cx, cy, r): (f32, f32, f32), c: Rgb, alpha: f32, mid: (f32, f32)) {
    let shader = RadialGradient::new(
        Point::from_xy(cx, cy),
        0.0,
        Point::from_xy(cx, cy),
        r,
        vec![
            GradientStop::new(0.0, color(c, alpha)),
            GradientStop::new(mid.0, color(c, alpha * mid.1)),
            GradientStop::new(1.0, color(c, 0.0)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let (Some(paint), Some(circle)) = (
        shader_paint(shader),
        PathBuilder::from_circle(cx, cy, r.max(0.5)),
    ) {
        p.fill_path(
            &circle,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}
