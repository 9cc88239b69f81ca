//! Generated overlays: for each scene whose `scene_type` calls for one (HOOK, STAT, KEY POINT,
//! DATA, CALL TO ACTION; see [`crate::build::direction::wants_overlay`]) an [`OverlaySpec`] designed
//! with the typography crate, its objects set as transparent PNGs.
//!
//! Layout: every object lies inside y 128–960 of the 720×1280 canvas (the spec's typography
//! band), stacked in the band `build::placement` gives the scene (between the narrator card
//! and the captions on A-roll; beside the picture's subject, top or bottom, on B-roll). Poster rules apply to hooks and calls to action: uppercase, at most 3 lines of at
//! most 4 words. Objects enter when their words are spoken (from the scene's word timings).
//!
//! Files: `{voice_file}_spec.json` and `{voice_file}_{layout_id}.png`, written atomically into
//! the video's public folder (`data_dir/public/{doc.public_folder()}`), payloads first so a
//! spec never names a missing file. The version token is the spec file's modification time
//! (nanoseconds, 16 hex), the `?v=` of `remotion_spec_url`.

use std::path::{Path, PathBuf};

use compositor::geom::CanvasRect;
use compositor::plan::Animation;
use compositor::spec::{
    ObjectKind, OverlaySpec, SpecGroup, SpecObject, SpecPayload, SpecSource, TemporalPolicy,
    is_plain_file_name,
};
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, PremultipliedColorU8, Transform};
use typography::{Font, break_lines, layout_line, pick_font, rasterize_line};

use typography::TimedWord;

use crate::build::copy;
use crate::build::placement::{Anchor, OverlayBand, SAFE_BOTTOM, SAFE_TOP};
use foundation::document::{SceneType, spec_file_name};

/// The typography band of the canvas (spec `typography`: safe_top, safe_bottom), owned by
/// [`typography::canvas`].
const CANVAS_W: f64 = typography::canvas::CANVAS_W as f64;
/// Side margin of overlay copy.
const MARGIN: f64 = 60.0;

const ACCENT: [u8; 4] = [255, 210, 63, 255];
const WHITE: [u8; 4] = [255, 255, 255, 255];
const INK: [u8; 4] = [20, 22, 40, 255];
const BACKDROP: [u8; 4] = [12, 14, 30, 170];

/// Fonts for overlays: a heavy display face first, Noto for anything it lacks.
pub struct OverlayFonts {
    fonts: Vec<Font>,
}

impl OverlayFonts {
    /// Loads the pinned fonts from `{assets_dir}/fonts`.
    pub fn load(fonts_dir: &Path) -> Result<OverlayFonts, String> {
        let mut fonts = Vec::new();
        for name in ["Inter-ExtraBold.otf", "NotoSans-Bold.ttf"] {
            let p = fonts_dir.join(name);
            let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            fonts.push(Font::from_bytes(bytes).map_err(|e| format!("{}: {e}", p.display()))?);
        }
        Ok(OverlayFonts { fonts })
    }
}

/// What the overlay of one scene is built from.
pub struct SceneOverlay<'a> {
    pub voice_file: &'a str,
    /// The scene's creative type; none (or FACT) designs no overlay.
    pub scene_type: Option<SceneType>,
    pub quote: &'a str,
    pub a_roll: bool,
    pub language: &'a str,
    pub words: &'a [TimedWord],
    pub duration: f64,
    /// Where the stack goes (`build::placement::overlay_band`).
    pub band: OverlayBand,
}

/// A written overlay.
#[derive(Debug, Clone)]
pub struct Written {
    pub spec: OverlaySpec,
    /// The version token (`segment.remotion_spec`).
    pub token: String,
    pub spec_path: PathBuf,
}

/// A block of text set on a transparent pixmap.
struct Block {
    pixmap: Pixmap,
    text: String,
}

/// Poster copy: uppercase, at most 3 lines of at most 4 words, lines balanced. Copy longer
/// than a poster (only a client's own quote can be) keeps its first 12 words, less any
/// function words that would end it.
pub(crate) fn poster_lines(text: &str) -> Vec<String> {
    let words: Vec<String> = text
        .split_whitespace()
        .take(12)
        .map(|w| w.to_uppercase())
        .collect();
    let words = copy::words::trim_function_end(&words);
    if words.is_empty() {
        return Vec::new();
    }
    let lines = words.len().div_ceil(4).min(3);
    let per = words.len().div_ceil(lines);
    words.chunks(per).map(|c| c.join(" ")).collect()
}

fn fill_rounded(pm: &mut Pixmap, x: f32, y: f32, w: f32, h: f32, r: f32, rgba: [u8; 4]) {
    let r = r.min(w / 2.0).min(h / 2.0);
    let mut pb = PathBuilder::new();
    pb.move_to(x + r, y);
    pb.line_to(x + w - r, y);
    pb.quad_to(x + w, y, x + w, y + r);
    pb.line_to(x + w, y + h - r);
    pb.quad_to(x + w, y + h, x + w - r, y + h);
    pb.line_to(x + r, y + h);
    pb.quad_to(x, y + h, x, y + h - r);
    pb.line_to(x, y + r);
    pb.quad_to(x, y, x + r, y);
    pb.close();
    if let Some(path) = pb.finish() {
        let mut paint = Paint::default();
        paint.set_color(Color::from_rgba8(rgba[0], rgba[1], rgba[2], rgba[3]));
        paint.anti_alias = true;
        pm.fill_path(
            &path,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

/// Sets `lines` centred at `px` in `color`, on an optional rounded backdrop.
fn set_block(
    fonts: &OverlayFonts,
    lines: &[String],
    px: f32,
    color: [u8; 4],
    backdrop: Option<[u8; 4]>,
) -> Option<Block> {
    if lines.is_empty() {
        return None;
    }
    let pad = if backdrop.is_some() { px * 0.45 } else { 4.0 };
    let mut rendered = Vec::new();
    let mut width = 0f32;
    let mut line_h = 0f32;
    for l in lines {
        let font = pick_font(&fonts.fonts, l)?;
        let m = font.line_metrics(px);
        line_h = line_h.max(m.ascent - m.descent);
        let layout = layout_line(font, l, px);
        let cov = rasterize_line(font, &layout);
        width = width.max(layout.width.max(cov.width as f32));
        rendered.push((layout.width, m.ascent, cov));
    }
    let gap = px * 0.12;
    let h = (line_h + gap) * lines.len() as f32 - gap + 2.0 * pad;
    let w = width + 2.0 * pad;
    let mut pm = Pixmap::new(w.ceil() as u32 + 2, h.ceil() as u32 + 2)?;
    if let Some(bg) = backdrop {
        fill_rounded(&mut pm, 1.0, 1.0, w, h, px * 0.35, bg);
    }
    let pw = pm.width() as i32;
    let ph = pm.height() as i32;
    for (i, (lw, ascent, cov)) in rendered.iter().enumerate() {
        let x0 = ((pm.width() as f32 - lw) / 2.0).round() as i32 + cov.left;
        let baseline = 1.0 + pad + i as f32 * (line_h + gap) + ascent;
        let y0 = baseline.round() as i32 + cov.top;
        let pixels = pm.pixels_mut();
        for row in 0..cov.height as i32 {
            for col in 0..cov.width as i32 {
                let a = cov.data[(row * cov.width as i32 + col) as usize];
                let (x, y) = (x0 + col, y0 + row);
                if a == 0 || x < 0 || y < 0 || x >= pw || y >= ph {
                    continue;
                }
                let idx = (y * pw + x) as usize;
                let src_a = u32::from(a) * u32::from(color[3]) / 255;
                let dst = pixels[idx];
                // Source-over in premultiplied space.
                let blend = |s: u8, d: u8| -> u8 {
                    ((u32::from(s) * src_a + u32::from(d) * (255 - src_a)) / 255) as u8
                };
                let out_a = (src_a + u32::from(dst.alpha()) * (255 - src_a) / 255) as u8;
                let r = blend(color[0], dst.red()).min(out_a);
                let g = blend(color[1], dst.green()).min(out_a);
                let b = blend(color[2], dst.blue()).min(out_a);
                if let Some(p) = PremultipliedColorU8::from_rgba(r, g, b, out_a) {
                    pixels[idx] = p;
                }
            }
        }
    }
    Some(Block {
        pixmap: pm,
        text: lines.join("\n"),
    })
}

/// When the first of `phrase`'s words is spoken (seconds), if it can be found.
fn spoken_at(words: &[TimedWord], phrase: &str) -> Option<f64> {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let first = norm(phrase.split_whitespace().next()?);
    if first.is_empty() {
        return None;
    }
    words
        .iter()
        .find(|w| norm(&w.word) == first)
        .map(|w| w.start)
}

struct Placed {
    id: &'static str,
    kind: ObjectKind,
    block: Block,
    animation: Animation,
    start: f64,
}

/// Designs the overlay of one scene, or `None` when its type has none or it has no copy.
fn design(fonts: &OverlayFonts, s: &SceneOverlay<'_>) -> Option<Vec<(CanvasRect, Placed)>> {
    let scene_type = s
        .scene_type
        .filter(|t| crate::build::direction::wants_overlay(*t))?;
    let designer = Designer {
        fonts,
        s,
        quote: s.quote.trim(),
        vi: s.language == "Vietnamese",
        // Sizes shrink on A-roll, whose band is narrower.
        k: if s.a_roll { 0.7 } else { 1.0 },
    };
    let items = match scene_type {
        SceneType::Hook => designer.hook()?,
        SceneType::Stat => designer.stat()?,
        SceneType::KeyPoint | SceneType::Data => designer.point(scene_type)?,
        SceneType::CallToAction => designer.call_to_action()?,
        SceneType::Fact => return None,
    };
    if items.is_empty() {
        return None;
    }
    Some(stack(&s.band, items))
}

/// The blocks of one scene's overlay, by scene type.
struct Designer<'a> {
    fonts: &'a OverlayFonts,
    s: &'a SceneOverlay<'a>,
    /// The scene's quote, trimmed.
    quote: &'a str,
    /// Vietnamese copy for the fixed labels.
    vi: bool,
    /// The size factor: 0.7 on A-roll, 1 on B-roll.
    k: f32,
}

impl Designer<'_> {
    /// When `phrase` is spoken, or 0.2 s; never in the scene's last half second.
    fn start_of(&self, phrase: &str) -> f64 {
        spoken_at(self.s.words, phrase)
            .unwrap_or(0.2)
            .clamp(0.0, (self.s.duration - 0.5).max(0.0))
    }

    /// `text` broken into at most 3 lines at `px` (scaled like [`Designer::block`]) that fit
    /// between the margins.
    fn wrap(&self, text: &str, px: f32) -> Vec<String> {
        let (px, max_w) = (px * self.k, (CANVAS_W - 2.0 * MARGIN) as f32);
        break_lines(&self.fonts.fonts[0], text, px, max_w - px)
            .into_iter()
            .take(3)
            .collect()
    }

    fn block(
        &self,
        lines: &[String],
        px: f32,
        ink: [u8; 4],
        pad: Option<[u8; 4]>,
    ) -> Option<Block> {
        set_block(self.fonts, lines, px * self.k, ink, pad)
    }

    fn hook(&self) -> Option<Vec<Placed>> {
        let lines = poster_lines(self.quote);
        Some(vec![Placed {
            id: "hook",
            kind: ObjectKind::Text,
            block: self.block(&lines, 62.0, WHITE, Some(BACKDROP))?,
            animation: Animation::Pop,
            start: 0.0,
        }])
    }

    /// The number, big, when it is said; its label under it a quarter second later.
    fn stat(&self) -> Option<Vec<Placed>> {
        let (number, label) = copy::split_stat(self.quote);
        if number.is_empty() {
            return None;
        }
        let said = self.start_of(&number);
        let mut items = vec![Placed {
            id: "stat_number",
            kind: ObjectKind::Stat,
            block: self.block(std::slice::from_ref(&number), 132.0, ACCENT, None)?,
            animation: Animation::Pop,
            start: said,
        }];
        if !label.is_empty() {
            let lines = self.wrap(&label.to_uppercase(), 40.0);
            if let Some(block) = self.block(&lines, 40.0, WHITE, Some(BACKDROP)) {
                items.push(Placed {
                    id: "stat_label",
                    kind: ObjectKind::Label,
                    block,
                    animation: Animation::SlideUp,
                    start: said + 0.25,
                });
            }
        }
        Some(items)
    }

    /// A tag naming the kind of point, then the point.
    fn point(&self, scene_type: SceneType) -> Option<Vec<Placed>> {
        let tag = match (scene_type, self.vi) {
            (SceneType::Data, false) => "DATA",
            (SceneType::Data, true) => "DỮ LIỆU",
            (_, false) => "KEY POINT",
            (_, true) => "Ý CHÍNH",
        };
        let mut items = vec![Placed {
            id: "tag",
            kind: ObjectKind::Label,
            block: self.block(&[tag.to_string()], 28.0, INK, Some(ACCENT))?,
            animation: Animation::SlideRight,
            start: 0.0,
        }];
        let lines = self.wrap(self.quote, 52.0);
        if let Some(block) = self.block(&lines, 52.0, WHITE, Some(BACKDROP)) {
            items.push(Placed {
                id: "point",
                kind: ObjectKind::Text,
                block,
                animation: Animation::SlideUp,
                start: self.start_of(self.quote).max(0.15),
            });
        }
        Some(items)
    }

    /// The quote, then a follow button at 40 % of the scene (at most 1.5 s in).
    fn call_to_action(&self) -> Option<Vec<Placed>> {
        let lines = poster_lines(self.quote);
        let mut items = Vec::new();
        if let Some(block) = self.block(&lines, 54.0, WHITE, Some(BACKDROP)) {
            items.push(Placed {
                id: "cta_text",
                kind: ObjectKind::Text,
                block,
                animation: Animation::Fade,
                start: 0.0,
            });
        }
        let button = if self.vi {
            "THEO DÕI NGAY"
        } else {
            "FOLLOW FOR MORE"
        };
        items.push(Placed {
            id: "cta_button",
            kind: ObjectKind::Callout,
            block: self.block(&[button.to_string()], 34.0, INK, Some(ACCENT))?,
            animation: Animation::Pop,
            start: (self.s.duration * 0.4).min(1.5),
        });
        Some(items)
    }
}

/// Stacks `items` vertically inside `band` at its anchor, centred across, scaled down where
/// they are too tall or too wide.
fn stack(band: &OverlayBand, items: Vec<Placed>) -> Vec<(CanvasRect, Placed)> {
    let gap = 18.0;
    let total: f64 = items
        .iter()
        .map(|p| f64::from(p.block.pixmap.height()))
        .sum::<f64>()
        + gap * (items.len() - 1) as f64;
    let max_w_px = items
        .iter()
        .map(|p| f64::from(p.block.pixmap.width()))
        .fold(0.0, f64::max);
    let scale = ((band.bottom - band.top) / total)
        .min((CANVAS_W - 2.0 * MARGIN + 40.0) / max_w_px)
        .min(1.0);
    let spare = (band.bottom - band.top) - total * scale;
    let mut y = band.top
        + match band.anchor {
            Anchor::Top => 0.0,
            Anchor::Centre => spare / 2.0,
            Anchor::Bottom => spare,
        };
    let r2 = |v: f64| (v * 100.0).round() / 100.0;
    let mut out = Vec::new();
    for p in items {
        let w = f64::from(p.block.pixmap.width()) * scale;
        let h = f64::from(p.block.pixmap.height()) * scale;
        let rect = CanvasRect::new(r2((CANVAS_W - w) / 2.0), r2(y), r2(w), r2(h));
        y += h + gap * scale;
        out.push((rect, p));
    }
    debug_assert!(
        out.iter()
            .all(|(r, _)| r.y >= SAFE_TOP - 1e-6 && r.y + r.h <= SAFE_BOTTOM + 1e-6)
    );
    out
}

/// The modification-time token of a file (16 hex digits).
pub(crate) fn version_token(path: &Path) -> std::io::Result<String> {
    let t = std::fs::metadata(path)?.modified()?;
    let nanos = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    Ok(format!("{nanos:016x}"))
}

/// Designs and writes the overlay of one scene into `folder`; `Ok(None)` when the scene gets
/// none.
pub fn build(
    fonts: &OverlayFonts,
    s: &SceneOverlay<'_>,
    folder: &Path,
) -> std::io::Result<Option<Written>> {
    let Some(placed) = design(fonts, s) else {
        return Ok(None);
    };
    std::fs::create_dir_all(folder)?;
    let mut objects = Vec::new();
    for (z, (rect, p)) in placed.into_iter().enumerate() {
        let file = format!("{}_{}.png", s.voice_file, p.id);
        debug_assert!(is_plain_file_name(&file));
        let png = compositor::raster::encode_png(p.block.pixmap.as_ref())
            .map_err(std::io::Error::other)?;
        foundation::files::write_atomic(&folder.join(&file), &png)?;
        objects.push(SpecObject {
            layout_id: p.id.to_string(),
            kind: p.kind,
            text: Some(p.block.text.clone()),
            rect,
            z: z as i32 + 1,
            animation: p.animation,
            start: p.start,
            end: None,
            payload: SpecPayload::Png { file },
        });
    }
    let (x0, y0, x1, y1) = objects.iter().fold(
        (f64::MAX, f64::MAX, f64::MIN, f64::MIN),
        |(a, b, c, d), o| {
            (
                a.min(o.rect.x),
                b.min(o.rect.y),
                c.max(o.rect.x + o.rect.w),
                d.max(o.rect.y + o.rect.h),
            )
        },
    );
    let mut spec = OverlaySpec::new(SpecSource::Generated);
    spec.groups.push(SpecGroup {
        id: "main".into(),
        rect: CanvasRect::new(
            x0,
            y0,
            ((x1 - x0) * 100.0).round() / 100.0,
            ((y1 - y0) * 100.0).round() / 100.0,
        ),
        temporal_policy: TemporalPolicy::Timed,
        objects,
    });
    spec.validate()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let spec_path = folder.join(spec_file_name(s.voice_file));
    let json = serde_json::to_vec_pretty(&spec).expect("specs serialise");
    foundation::files::write_atomic(&spec_path, &json)?;
    let token = version_token(&spec_path)?;
    Ok(Some(Written {
        spec,
        token,
        spec_path,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn centred(a_roll: bool) -> OverlayBand {
        let (top, bottom) = if a_roll {
            crate::build::placement::A_ROLL_BAND
        } else {
            crate::build::placement::B_ROLL_BAND
        };
        OverlayBand {
            top,
            bottom,
            anchor: Anchor::Centre,
        }
    }

    fn fonts() -> OverlayFonts {
        OverlayFonts::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/fonts")).unwrap()
    }

    #[test]
    fn poster_copy_rules() {
        assert_eq!(poster_lines("why do teams fail"), ["WHY DO TEAMS FAIL"]);
        assert_eq!(
            poster_lines("one two three four five six seven"),
            ["ONE TWO THREE FOUR", "FIVE SIX SEVEN"]
        );
        assert_eq!(
            poster_lines(
                "most small businesses post videos that nobody finishes watching and then"
            ),
            [
                "MOST SMALL BUSINESSES",
                "POST VIDEOS THAT",
                "NOBODY FINISHES WATCHING"
            ],
            "a 12-word cut never ends on a function word"
        );
        let l = poster_lines(&"w ".repeat(20));
        assert!(l.len() <= 3 && l.iter().all(|x| x.split_whitespace().count() <= 4));
        assert!(poster_lines("").is_empty());
    }

    #[test]
    fn every_type_stays_in_the_band_and_writes_files() {
        let dir = tempfile::tempdir().unwrap();
        let f = fonts();
        let words = vec![
            TimedWord {
                word: "Teams".into(),
                start: 0.1,
                end: 0.4,
            },
            TimedWord {
                word: "grew".into(),
                start: 0.5,
                end: 0.7,
            },
            TimedWord {
                word: "3.5%".into(),
                start: 0.8,
                end: 1.4,
            },
        ];
        for (ty, quote, lang) in [
            (
                SceneType::Hook,
                "Why do most small teams never publish",
                "English",
            ),
            (SceneType::Stat, "3.5% faster each month", "English"),
            (SceneType::KeyPoint, "Short clips reach people", "English"),
            (
                SceneType::Data,
                "Nghiên cứu cho thấy thói quen",
                "Vietnamese",
            ),
            (
                SceneType::CallToAction,
                "Hãy theo dõi kênh để nhận mẹo",
                "Vietnamese",
            ),
        ] {
            for a_roll in [false, true] {
                let s = SceneOverlay {
                    voice_file: "vabc",
                    scene_type: Some(ty),
                    quote,
                    a_roll,
                    language: lang,
                    words: &words,
                    duration: 4.0,
                    band: centred(a_roll),
                };
                let w = build(&f, &s, dir.path()).unwrap().expect("an overlay");
                assert_eq!(w.token.len(), 16);
                for o in w.spec.objects() {
                    assert!(
                        o.rect.y >= SAFE_TOP && o.rect.y + o.rect.h <= SAFE_BOTTOM,
                        "{ty} {o:?}"
                    );
                    assert!(
                        o.rect.x >= 0.0 && o.rect.x + o.rect.w <= 720.0,
                        "{ty} {o:?}"
                    );
                    if a_roll {
                        assert!(
                            o.rect.y >= 591.0,
                            "A-roll copy stays below the narrator: {o:?}"
                        );
                    }
                    let png = std::fs::read(dir.path().join(o.payload.file())).unwrap();
                    assert!(png.starts_with(b"\x89PNG"));
                }
                let back: OverlaySpec =
                    serde_json::from_slice(&std::fs::read(&w.spec_path).unwrap()).unwrap();
                assert_eq!(back, w.spec);
                if ty == SceneType::Stat {
                    let n = w.spec.objects().next().unwrap();
                    assert_eq!(n.layout_id, "stat_number");
                    assert!((n.start - 0.8).abs() < 1e-9, "enters when spoken");
                }
            }
        }
        let none = SceneOverlay {
            voice_file: "v",
            scene_type: Some(SceneType::Fact),
            quote: "x y",
            a_roll: false,
            language: "English",
            words: &[],
            duration: 2.0,
            band: centred(false),
        };
        assert!(build(&f, &none, dir.path()).unwrap().is_none());
    }
}
