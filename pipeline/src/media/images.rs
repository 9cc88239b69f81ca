//! `POST /v1/create_image`: the typed request, the image makers and the image set.
//!
//! The embedded maker designs an image locally and deterministically for a prompt: the best
//! library photo for it (the B-roll keyword index), cropped to the ratio, graded by a tint
//! seeded from the prompt, with the prompt's key phrase set by the typography crate. The
//! connector calls an OpenAI-compatible `/images/generations` once per image. Images are charged
//! one credit each through the shared 402 guard, in the transaction that stores the set; images
//! that could not be made are refunded.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tiny_skia::Pixmap;
use utoipa::ToSchema;

use crate::media::config::ImagesKind;
use crate::media::search::SearchRatio;
use foundation::accounts::{self, Charge};
use foundation::config::Settings;
use foundation::connector::{Http, join};
use foundation::document::MediaKind;
use foundation::error::{Code, Error, Result};
use foundation::fetch::Fetcher;
use foundation::fields::Body;
use foundation::ids;
use foundation::model::Account;
use foundation::public::{Lifetime, PublicFiles};
use foundation::store::{Store, Table};
use video::build;
use video::build::{BrollProvider, Library, http};

/// The stored image sets, keyed by set id.
const IMAGE_SETS: Table = Table::new("image_sets");
pub(crate) const MAX_PROMPT_CHARS: usize = 2000;
pub(crate) const MAX_COUNT: i64 = 4;
/// Credits per image.
pub(crate) const COST_PER_IMAGE: i64 = 1;

impl SearchRatio {
    /// The generated image's size: portrait 768×1344, landscape 1344×768, square 768×768.
    pub(crate) fn image_size(self) -> (u32, u32) {
        match self {
            SearchRatio::Portrait => (768, 1344),
            SearchRatio::Landscape => (1344, 768),
            SearchRatio::Square => (768, 768),
        }
    }
}

/// A validated `create_image` call.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageRequest {
    pub prompt: String,
    pub ratio: SearchRatio,
    pub count: u32,
    pub topic_id: Option<String>,
}

/// The body of `POST /v1/create_image`.
#[derive(Deserialize, ToSchema)]
pub struct ImageBody {
    #[schema(min_length = 1, max_length = 2000, pattern = r"\S")]
    prompt: String,
    /// portrait 768×1344 (default), landscape 1344×768, square 768×768.
    ratio: Option<SearchRatio>,
    #[schema(minimum = 1, maximum = 4)]
    count: Option<i64>,
    /// A video of this account: the images go to its asset folder.
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    topic_id: Option<String>,
}

/// Read by `foundation::fields::body::read` into a [`ImageRequest`].
impl Body for ImageBody {
    type Valid = ImageRequest;
    const CODES: &'static [(&'static str, Code)] = &[
        ("ratio", Code::InvalidRatio),
        ("count", Code::InvalidCount),
        ("topic_id", Code::InvalidTopicId),
    ];

    fn validate(self) -> Result<ImageRequest> {
        let prompt = self.prompt.trim().to_string();
        if prompt.chars().count() > MAX_PROMPT_CHARS {
            return Err(Error::new(
                Code::PromptTooLong,
                "`prompt` must be at most 2000 characters.",
            )
            .param("prompt"));
        }
        let count = match self.count {
            None => 1,
            Some(n) if (1..=MAX_COUNT).contains(&n) => n as u32,
            Some(_) => {
                return Err(
                    Error::new(Code::InvalidCount, "`count` must be 1 to 4.").param("count")
                );
            }
        };
        let topic_id = self
            .topic_id
            .map(|t| ids::checked_topic_id(&t, Code::InvalidTopicId, "topic_id"))
            .transpose()?;
        Ok(ImageRequest {
            prompt,
            ratio: self.ratio.unwrap_or_default(),
            count,
            topic_id,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImageSetStatus {
    Completed,
    Partial,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ImageOut {
    /// 1-based.
    pub number: u32,
    pub url: String,
    pub thumbnail_url: String,
    pub ratio: SearchRatio,
}

/// Why the set is partial.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ImageSetError {
    /// `image_generation_failed`.
    pub code: String,
    pub message: String,
    /// The number of the first image that failed.
    pub failed_at_number: u32,
}

/// `{object: image_set, status, count, ratio, prompt, images[]}`; with `status: partial` (HTTP
/// 502) only the survivors and `error`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ImageSet {
    /// Always `image_set`.
    #[schema(example = "image_set")]
    pub object: String,
    pub id: String,
    pub status: ImageSetStatus,
    /// Images asked for.
    pub count: u32,
    pub ratio: SearchRatio,
    pub prompt: String,
    pub images: Vec<ImageOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ImageSetError>,
    pub credits_charged: i64,
}

/// The faces the designer sets a key phrase in, in fallback order (under `{assets_dir}/fonts`).
const DESIGN_FONTS: [&str; 2] = ["Inter-ExtraBold.otf", "NotoSans-Bold.ttf"];

/// The embedded designer: library photos and the pinned fonts.
pub(crate) struct Designer {
    library: Library,
    /// Where [`DESIGN_FONTS`] are. They are parsed for each design and dropped after it: parsed,
    /// the two hold about 36 MB (every glyph laid out), which a daemon would otherwise keep for
    /// as long as it runs, designing images or not. Parsing them takes milliseconds.
    fonts_dir: PathBuf,
}

impl Designer {
    /// The library from `{assets_dir}/broll`, the fonts from `{assets_dir}/fonts` (each must be
    /// there).
    pub fn load(assets_dir: &Path) -> std::result::Result<Designer, String> {
        let fonts_dir = assets_dir.join("fonts");
        for name in DESIGN_FONTS {
            let p = fonts_dir.join(name);
            std::fs::metadata(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        Ok(Designer {
            library: Library::load(&assets_dir.join("broll"))?,
            fonts_dir,
        })
    }

    /// Variant `n` (1-based) of a `w`×`h` PNG for `prompt`, deterministic for its inputs.
    pub fn design(
        &self,
        prompt: &str,
        w: u32,
        h: u32,
        n: u32,
    ) -> std::result::Result<Vec<u8>, String> {
        designed(
            &self.library,
            &load_fonts(&self.fonts_dir)?,
            prompt,
            w,
            h,
            n,
        )
    }
}

/// Who makes the images.
enum Maker {
    Embedded(Designer),
    Openai {
        http: Http,
        base_url: String,
        model: String,
        api_key: String,
    },
}

/// The `create_image` service.
pub struct Images {
    settings: Arc<Settings>,
    store: Arc<Store>,
    maker: Maker,
}

impl Images {
    pub fn new(
        settings: Arc<Settings>,
        store: Arc<Store>,
        fetcher: &Fetcher,
        runtime: &tokio::runtime::Handle,
    ) -> std::result::Result<Images, String> {
        let c = settings.section::<crate::media::config::ImagesConfig>();
        let maker = match c.provider {
            ImagesKind::Embedded => Maker::Embedded(Designer::load(&settings.assets_dir)?),
            ImagesKind::Openai => Maker::Openai {
                http: http(fetcher, runtime, c.timeout_secs),
                base_url: c.base_url.clone(),
                model: c.model.clone(),
                api_key: c.api_key.clone(),
            },
        };
        Ok(Images {
            settings,
            store,
            maker,
        })
    }

    /// Charges, makes and publishes the images (blocking). A failure before any image is 502
    /// `image_generation_failed`; after some, the set comes back `partial`.
    pub fn create(&self, account: &Account, req: &ImageRequest) -> Result<ImageSet> {
        if let Some(topic) = &req.topic_id {
            let owned = self
                .store
                .job(topic)?
                .is_some_and(|j| j.account == account.name);
            if !owned {
                return Err(
                    Error::new(Code::VideoNotFound, "No such video on this account.")
                        .param("topic_id"),
                );
            }
        }
        let id = format!("img_{}", ids::file_token());
        let cost = i64::from(req.count) * COST_PER_IMAGE;
        let mut set = ImageSet {
            object: "image_set".into(),
            id: id.clone(),
            status: ImageSetStatus::Completed,
            count: req.count,
            ratio: req.ratio,
            prompt: req.prompt.clone(),
            images: Vec::new(),
            error: None,
            credits_charged: cost,
        };
        let pricing_url = self.settings.pricing_url();
        let charge = Charge::credits(cost, &pricing_url);
        self.store.write(|tx| -> Result<()> {
            accounts::charge(tx, &account.name, &charge)?;
            tx.put_record(IMAGE_SETS, &id, &set)?;
            Ok(())
        })?;
        let folder = match &req.topic_id {
            Some(topic) => format!("{topic}/images"),
            None => format!("images/{}", ids::file_token()),
        };
        for n in 1..=req.count {
            match self
                .make(&req.prompt, req.ratio, n)
                .and_then(|png| self.publish(&folder, n, &png, req.ratio))
            {
                Ok(image) => set.images.push(image),
                Err(cause) => {
                    tracing::warn!(%id, number = n, %cause, "image generation failed");
                    set.error = Some(ImageSetError {
                        code: Code::ImageGenerationFailed.as_str().into(),
                        message: format!("Image {n} could not be made."),
                        failed_at_number: n,
                    });
                    break;
                }
            }
        }
        let made = set.images.len() as i64;
        let refund = cost - made * COST_PER_IMAGE;
        set.credits_charged = made * COST_PER_IMAGE;
        if set.error.is_some() {
            set.status = ImageSetStatus::Partial;
        }
        self.store.write(|tx| -> Result<()> {
            if refund > 0 {
                accounts::refund(tx, &account.name, refund)?;
            }
            tx.put_record(IMAGE_SETS, &id, &set)?;
            Ok(())
        })?;
        if made == 0 {
            return Err(Error::new(
                Code::ImageGenerationFailed,
                "The image could not be made; no credit was taken.",
            )
            .details(json!({ "failed_at_number": 1 })));
        }
        Ok(set)
    }

    /// One PNG of the ratio's size.
    fn make(
        &self,
        prompt: &str,
        ratio: SearchRatio,
        n: u32,
    ) -> std::result::Result<Vec<u8>, String> {
        let (w, h) = ratio.image_size();
        match &self.maker {
            Maker::Embedded(designer) => designer.design(prompt, w, h, n),
            Maker::Openai {
                http,
                base_url,
                model,
                api_key,
            } => {
                let body = json!({
                    "model": model, "prompt": prompt, "n": 1,
                    "size": format!("{w}x{h}"), "response_format": "b64_json",
                });
                let reply = http.post_json(
                    &join(base_url, "images/generations"),
                    &[("authorization", format!("Bearer {api_key}"))],
                    &body,
                )?;
                if reply.status != 200 {
                    return Err(format!(
                        "images API answered HTTP {}: {}",
                        reply.status,
                        reply.snippet()
                    ));
                }
                let v = reply.json()?;
                let b64 = v["data"][0]["b64_json"]
                    .as_str()
                    .ok_or("no data[0].b64_json")?;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .map_err(|e| format!("bad base64: {e}"))?;
                let img = compositor::raster::decode_image(&bytes)?;
                // The connector's sizes are a request; the set promises the ratio's size.
                let sized = compositor::raster::cover(img.as_ref(), w, h)
                    .ok_or("image could not be sized")?;
                compositor::raster::encode_png(sized.as_ref())
            }
        }
    }

    fn publish(
        &self,
        folder: &str,
        n: u32,
        png: &[u8],
        ratio: SearchRatio,
    ) -> std::result::Result<ImageOut, String> {
        let public = PublicFiles::new(&self.settings);
        let token = ids::file_token();
        let image = public
            .write(
                Lifetime::Asset,
                &format!("{folder}/image_{n}_{token}.png"),
                png,
            )
            .map_err(|e| e.to_string())?;
        let thumb = crate::media::thumbs::thumbnail(png)?;
        let thumb = public
            .write(
                Lifetime::Asset,
                &format!("{folder}/image_{n}_{token}_thumb.png"),
                &thumb,
            )
            .map_err(|e| e.to_string())?;
        Ok(ImageOut {
            number: n,
            url: image.url,
            thumbnail_url: thumb.url,
            ratio,
        })
    }
}

fn load_fonts(dir: &Path) -> std::result::Result<Vec<typography::Font>, String> {
    DESIGN_FONTS
        .iter()
        .map(|name| {
            let p = dir.join(name);
            let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            typography::Font::from_bytes(bytes).map_err(|e| format!("{}: {e}", p.display()))
        })
        .collect()
}

/// A stable 64-bit hash of `s` (FNV-1a): the embedded design's seed.
fn seed(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The prompt's key phrase: its first clause, at most five words, upper case.
pub(crate) fn key_phrase(prompt: &str) -> String {
    let clause = prompt
        .split(['.', ',', ';', ':', '!', '?', '\n'])
        .find(|c| !c.trim().is_empty())
        .unwrap_or(prompt);
    clause
        .split_whitespace()
        .take(5)
        .collect::<Vec<_>>()
        .join(" ")
        .to_uppercase()
}

/// The embedded design of image `n` for `prompt`: deterministic for a given prompt and number.
fn designed(
    library: &Library,
    fonts: &[typography::Font],
    prompt: &str,
    w: u32,
    h: u32,
    n: u32,
) -> std::result::Result<Vec<u8>, String> {
    let s = seed(prompt) ^ u64::from(n);
    let q = build::Query {
        keyword: prompt,
        context: "",
        kind: Some(MediaKind::Image),
        ratio: build::Ratio::Portrait,
        limit: 4,
    };
    let picks = library.search(&q).map_err(|e| e.to_string())?;
    let mut canvas = match picks
        .get((n as usize - 1) % picks.len().max(1))
        .and_then(|p| p.local.clone())
    {
        Some(path) => {
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let img = compositor::raster::decode_image(&bytes)?;
            compositor::raster::cover(img.as_ref(), w, h).ok_or("could not crop")?
        }
        None => {
            let mut p = Pixmap::new(w, h).ok_or("bad size")?;
            p.fill(tiny_skia::Color::from_rgba8(
                20 + (s % 60) as u8,
                30,
                60 + (s % 90) as u8,
                255,
            ));
            p
        }
    };
    grade(&mut canvas, s);
    set_phrase(&mut canvas, fonts, &key_phrase(prompt));
    compositor::raster::encode_png(canvas.as_ref())
}

/// A gentle tint and a darker lower third, seeded: the look of the set.
fn grade(p: &mut Pixmap, s: u64) {
    let tint = [
        (s & 0x1f) as u32,
        ((s >> 5) & 0x1f) as u32,
        ((s >> 10) & 0x1f) as u32,
    ];
    let h = p.height() as usize;
    let w = p.width() as usize;
    for (i, px) in p.data_mut().chunks_exact_mut(4).enumerate() {
        let y = i / w;
        let shade = if y > h / 2 {
            255 - ((y - h / 2) * 140 / h) as u32
        } else {
            255
        };
        for c in 0..3 {
            let v = (u32::from(px[c]) * 225 / 255 + tint[c]) * shade / 255;
            px[c] = v.min(u32::from(px[3])) as u8;
        }
    }
}

/// Sets `phrase` in white across the lower third, as large as fits in three lines.
fn set_phrase(p: &mut Pixmap, fonts: &[typography::Font], phrase: &str) {
    let Some(font) = typography::pick_font(fonts, phrase) else {
        return;
    };
    let (w, h) = (p.width() as f32, p.height() as f32);
    let max_w = w * 0.84;
    let mut px = w / 9.0;
    let mut lines = typography::break_lines(font, phrase, px, max_w);
    while px > 16.0 && (lines.len() > 3 || lines.iter().any(|l| font.measure(l, px) > max_w)) {
        px *= 0.9;
        lines = typography::break_lines(font, phrase, px, max_w);
    }
    let lh = font.line_metrics(px).line_height();
    let mut baseline = h * 0.78 - lh * (lines.len() as f32 - 1.0);
    for line in &lines {
        let layout = typography::layout_line(font, line, px);
        let cov = typography::rasterize_line(font, &layout);
        let x = ((w - layout.width) / 2.0).round() as i32 + cov.left;
        let y = baseline.round() as i32 + cov.top;
        compositor::raster::paint_coverage(
            p,
            &cov.data,
            cov.width as usize,
            cov.height as usize,
            x,
            y,
            [255, 255, 255, 255],
        );
        baseline += lh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;
    use serde_json::Value;

    fn code(body: Value) -> (Code, Option<String>) {
        let e = body::read::<ImageBody>(&body).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn every_rule_answers_its_code_and_param() {
        let long = "x".repeat(2001);
        let cases = [
            (json!({}), Code::MissingField, "prompt"),
            (json!({"prompt": long}), Code::PromptTooLong, "prompt"),
            (
                json!({"prompt": "p", "ratio": "wide"}),
                Code::InvalidRatio,
                "ratio",
            ),
            (
                json!({"prompt": "p", "count": 0}),
                Code::InvalidCount,
                "count",
            ),
            (
                json!({"prompt": "p", "count": 5}),
                Code::InvalidCount,
                "count",
            ),
            (
                json!({"prompt": "p", "topic_id": "../x"}),
                Code::InvalidTopicId,
                "topic_id",
            ),
        ];
        for (body, want, param) in cases {
            assert_eq!(code(body.clone()), (want, Some(param.into())), "{body}");
        }
        let ok = body::read::<ImageBody>(&json!({"prompt": "é".repeat(2000)})).unwrap();
        assert_eq!((ok.count, ok.ratio), (1, SearchRatio::Portrait));
    }

    #[test]
    fn the_key_phrase_is_the_first_clause() {
        assert_eq!(
            key_phrase("solar panels on a red roof at dawn, photo"),
            "SOLAR PANELS ON A RED"
        );
    }
}
