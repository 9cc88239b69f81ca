//! `POST /v1/search_broll`: the typed request (every rule of the spec, with its code and
//! `param`), the search over the configured B-roll provider (the embedded library with its
//! keyword index and the illustration index, or Pexels) and the reply. Library files, and the
//! pictures and clips rendered from illustrations, are published once under
//! `{origin_url}/library/`, so a result's `url` works directly as `mediaUrl` in modify_scene
//! branch A (which reads our own public files without a network round trip).

use std::path::Path;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use foundation::config::Settings;
use foundation::document::MediaKind;
use foundation::error::{Code, Error, Result};
use foundation::fetch::Fetcher;
use foundation::fields::Body;
use foundation::public::OnDemand;
use video::build;
use video::build::{
    BrollConfig, BrollItem, BrollKind, BrollProvider, Library, Offline, Pexels, Ratio, http,
};

use crate::media::clips::IllustrationClips;

/// Results per call when `limit` is not sent, and the most allowed.
pub(crate) const DEFAULT_LIMIT: usize = 10;
pub(crate) const MAX_LIMIT: usize = 20;
/// The public folder library files are published to (never swept).
pub(crate) const LIBRARY_FOLDER: &str = "library";
/// Where illustration renderings are published, below [`LIBRARY_FOLDER`] (as in their cache:
/// `images/`, `clips/`).
const ILLUSTRATIONS_FOLDER: &str = "illustrations";

foundation::document::wire_enum! {
    /// `kind` on the wire.
    pub enum SearchKind: Code::InvalidKind {
        /// Stock clips.
        Video = "video",
        /// Photos.
        Image = "image",
    }
}

impl SearchKind {
    fn media(self) -> MediaKind {
        match self {
            SearchKind::Video => MediaKind::Video,
            SearchKind::Image => MediaKind::Image,
        }
    }
}

foundation::document::wire_enum! {
    /// `ratio` on the wire.
    #[derive(Default)]
    pub enum SearchRatio: Code::InvalidRatio {
        #[default]
        Portrait = "portrait",
        Landscape = "landscape",
        Square = "square",
    }
}

impl SearchRatio {
    fn broll(self) -> Ratio {
        match self {
            SearchRatio::Portrait => Ratio::Portrait,
            SearchRatio::Landscape => Ratio::Landscape,
            SearchRatio::Square => Ratio::Square,
        }
    }

    /// Whether a `w`×`h` asset has this shape (square within 5 %).
    fn fits(self, w: u32, h: u32) -> bool {
        let (w, h) = (f64::from(w.max(1)), f64::from(h.max(1)));
        match self {
            _ if (w / h - 1.0).abs() <= 0.05 => self == SearchRatio::Square,
            SearchRatio::Portrait => h > w,
            SearchRatio::Landscape => w > h,
            SearchRatio::Square => false,
        }
    }
}

/// A validated search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    pub keyword: String,
    pub kind: SearchKind,
    pub ratio: SearchRatio,
    pub limit: usize,
}

impl SearchRequest {
    /// The curated grid list: the single word `grid` with kind=video.
    fn wants_grid(&self) -> bool {
        self.kind == SearchKind::Video && self.keyword.eq_ignore_ascii_case("grid")
    }
}

/// The body of `POST /v1/search_broll`.
#[derive(Deserialize, ToSchema)]
pub struct SearchBody {
    /// 1 to 3 words work best; `grid` with kind=video lists the curated grid backgrounds.
    #[schema(min_length = 1, pattern = r"\S")]
    keyword: String,
    kind: SearchKind,
    /// Filters kind=video only (default portrait).
    ratio: Option<SearchRatio>,
    #[schema(minimum = 1, maximum = 20)]
    limit: Option<i64>,
}

/// Read by `foundation::fields::body::read` into a [`SearchRequest`].
impl Body for SearchBody {
    type Valid = SearchRequest;
    const CODES: &'static [(&'static str, Code)] = &[
        ("kind", Code::InvalidKind),
        ("ratio", Code::InvalidRatio),
        ("limit", Code::InvalidLimit),
    ];

    /// `limit` 1–20 (`invalid_limit`); the rest is the schema's.
    fn validate(self) -> Result<SearchRequest> {
        let limit = match self.limit {
            None => DEFAULT_LIMIT,
            Some(n) if (1..=MAX_LIMIT as i64).contains(&n) => n as usize,
            Some(_) => {
                return Err(
                    Error::new(Code::InvalidLimit, "`limit` must be 1 to 20.").param("limit")
                );
            }
        };
        Ok(SearchRequest {
            keyword: self.keyword.trim().to_string(),
            kind: self.kind,
            ratio: self.ratio.unwrap_or_default(),
            limit,
        })
    }
}

/// One result.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SearchResult {
    /// 1-based rank.
    pub number: usize,
    #[serde(rename = "type")]
    pub kind: SearchKind,
    /// The canonical asset URL, usable directly as `mediaUrl` in modify_scene.
    pub url: String,
    pub thumbnail_url: String,
    pub title: String,
    /// `reelsmith_library`, `reelsmith_grid` or `pexels`.
    pub source: String,
    /// Seconds; 0 for images.
    pub duration: f64,
    pub width: u32,
    pub height: u32,
    pub author: String,
    /// Images: the page the photo comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_url: Option<String>,
    /// The picture's subject, normalised to 0..1 of `width` and `height` (library assets; a
    /// stock picture gets its box when it becomes a scene's background).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focus: Option<FocusBox>,
}

/// A subject's box normalised to 0..1 of the picture (`compositor::focus::Focus`).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct FocusBox {
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub x: f64,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub y: f64,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub w: f64,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub h: f64,
}

impl From<compositor::focus::Focus> for FocusBox {
    fn from(f: compositor::focus::Focus) -> FocusBox {
        FocusBox {
            x: f.x,
            y: f.y,
            w: f.w,
            h: f.h,
        }
    }
}

/// `{object: list, kind, keyword, ratio, total, results[]}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SearchReply {
    /// Always `list`.
    #[schema(example = "list")]
    pub object: &'static str,
    pub kind: SearchKind,
    pub keyword: String,
    pub ratio: SearchRatio,
    pub total: usize,
    pub results: Vec<SearchResult>,
}

/// An illustration that could not be rendered (its cause is logged, not answered).
fn not_rendered(e: impl std::fmt::Display) -> Error {
    Error::internal("illustration not rendered").because(e)
}

/// The search capability, built once from config.
pub struct Search {
    settings: std::sync::Arc<Settings>,
    offline: Offline,
    pexels: Option<Pexels>,
    clips: std::sync::Arc<IllustrationClips>,
}

impl Search {
    /// The library from `{assets_dir}/broll` with the illustration index, and Pexels when
    /// `[broll] provider = "pexels"`.
    pub fn new(
        settings: std::sync::Arc<Settings>,
        fetcher: &Fetcher,
        runtime: &tokio::runtime::Handle,
    ) -> std::result::Result<Search, String> {
        let library = std::sync::Arc::new(Library::load(&settings.assets_dir.join("broll"))?);
        let offline = video::build::offline(&settings, library)?;
        let b = settings.section::<BrollConfig>();
        let pexels = (b.provider == BrollKind::Pexels).then(|| Pexels {
            http: http(fetcher, runtime, b.timeout_secs),
            base_url: b.base_url.clone(),
            api_key: b.api_key.clone(),
        });
        let clips = IllustrationClips::new(
            offline.clone(),
            settings.public_dir(),
            format!("{LIBRARY_FOLDER}/{ILLUSTRATIONS_FOLDER}/clips/"),
        );
        Ok(Search {
            settings,
            offline,
            pexels,
            clips: std::sync::Arc::new(clips),
        })
    }

    /// What makes the illustration clips this search lists, when first asked for: the public
    /// files' [`OnDemand`] maker.
    pub fn on_demand(&self) -> std::sync::Arc<dyn OnDemand> {
        self.clips.clone()
    }

    /// Runs `req` (blocking: call it off the async threads). A provider failure is 502
    /// `search_failed`.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchReply> {
        let items = if req.wants_grid() {
            build::grid_items(req.limit)
        } else {
            self.found(req)?
        };
        let results = items
            .into_iter()
            .enumerate()
            .map(|(i, item)| self.result(i + 1, req.kind, item))
            .collect::<Result<Vec<_>>>()?;
        Ok(SearchReply {
            object: "list",
            kind: req.kind,
            keyword: req.keyword.clone(),
            ratio: req.ratio,
            total: results.len(),
            results,
        })
    }

    fn found(&self, req: &SearchRequest) -> Result<Vec<BrollItem>> {
        let q = build::Query {
            keyword: &req.keyword,
            context: "",
            kind: Some(req.kind.media()),
            ratio: req.ratio.broll(),
            limit: if self.pexels.is_some() {
                req.limit
            } else {
                self.offline.len().max(1)
            },
        };
        let provider: &dyn BrollProvider = match &self.pexels {
            Some(p) => p,
            None => &self.offline,
        };
        let mut items = provider.search(&q).map_err(|e| {
            Error::new(
                Code::SearchFailed,
                "The stock media search failed; try again later.",
            )
            .because(e)
        })?;
        if req.kind == SearchKind::Video {
            items.retain(|i| req.ratio.fits(i.width, i.height));
        }
        items.truncate(req.limit);
        Ok(items)
    }

    fn result(&self, number: usize, kind: SearchKind, item: BrollItem) -> Result<SearchResult> {
        if let Some((style, seed)) = &item.procedural {
            return self.procedural_result(number, style, *seed, item.clone());
        }
        let (url, thumbnail_url) = match &item.local {
            // Its clip is encoded on first use (`IllustrationClips`); its picture previews it.
            Some(path) if Offline::is_illustration_clip(&item) => {
                self.offline.prepare_picture(&item).map_err(not_rendered)?;
                let picture = item.local_thumb.as_deref().unwrap_or(path);
                let url = format!("{}/{}", self.settings.origin_url, self.library_rel(path)?);
                (url, self.preview(picture, MediaKind::Image)?)
            }
            Some(path) => {
                self.offline.prepare(&item).map_err(not_rendered)?;
                (self.publish(path)?, self.preview(path, item.kind)?)
            }
            None => (item.url.clone(), item.thumbnail_url.clone()),
        };
        let context_url = (kind == SearchKind::Image).then(|| url.clone());
        Ok(SearchResult {
            number,
            kind,
            url,
            thumbnail_url,
            title: item.title,
            source: item.source,
            duration: if kind == SearchKind::Image {
                0.0
            } else {
                item.duration
            },
            width: item.width,
            height: item.height,
            author: item.author,
            context_url,
            focus: item.focus.map(FocusBox::from),
        })
    }

    /// A procedural background (the grid list) as a PNG still painted by the compositor, with a
    /// 280×498 thumbnail, both published once under `public/library/procedural/`. Its `type` is
    /// `image`: the URL is a still, and modify_scene takes it as one.
    fn procedural_result(
        &self,
        number: usize,
        style: &str,
        seed: u64,
        item: BrollItem,
    ) -> Result<SearchResult> {
        let name = format!("{LIBRARY_FOLDER}/procedural/{style}-{seed}");
        let (png, thumb) = (format!("{name}.png"), format!("{name}_thumb.png"));
        let public = self.settings.public_dir();
        if !public.join(&thumb).exists() {
            let failed = || Error::internal(format!("procedural still {style}:{seed} not painted"));
            let bytes = video::render::procedural_still(style, seed).ok_or_else(failed)?;
            let small = crate::media::thumbs::thumbnail(&bytes).map_err(Error::internal)?;
            foundation::files::write_atomic(&public.join(&png), &bytes).map_err(Error::internal)?;
            foundation::files::write_atomic(&public.join(&thumb), &small)
                .map_err(Error::internal)?;
        }
        let origin = &self.settings.origin_url;
        Ok(SearchResult {
            number,
            kind: SearchKind::Image,
            url: format!("{origin}/{png}"),
            thumbnail_url: format!("{origin}/{thumb}"),
            title: item.title,
            source: item.source,
            duration: 0.0,
            width: item.width,
            height: item.height,
            author: item.author,
            context_url: None,
            focus: None,
        })
    }

    /// The public URL of the preview of library file `path`, made by our compositor the first
    /// time (a clip's middle frame at 280×498, an image scaled to 280 wide) and kept under
    /// `public/library/previews/`.
    fn preview(&self, path: &Path, kind: MediaKind) -> Result<String> {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .ok_or_else(|| Error::internal("library file without a name"))?;
        let folder = if kind == MediaKind::Video {
            "clips"
        } else {
            "images"
        };
        let rel = format!("{LIBRARY_FOLDER}/previews/{folder}/{stem}.png");
        let target = self.settings.public_dir().join(&rel);
        if !target.exists() {
            let made = match kind {
                MediaKind::Video => crate::media::thumbs::clip_thumbnail(path),
                MediaKind::Image => std::fs::read(path)
                    .map_err(|e| e.to_string())
                    .and_then(|bytes| crate::media::thumbs::thumbnail(&bytes)),
            };
            let png = made.map_err(|e| {
                Error::internal("library preview not made")
                    .because(format!("{}: {e}", path.display()))
            })?;
            foundation::files::write_atomic(&target, &png).map_err(Error::internal)?;
        }
        Ok(format!("{}/{rel}", self.settings.origin_url))
    }

    /// Where library file `path` (or an illustration's rendering, under `illustrations/`) is
    /// published, below the public root: `library/…`.
    fn library_rel(&self, path: &Path) -> Result<String> {
        let root = self.settings.assets_dir.join("broll");
        let rel = match (path.strip_prefix(&root), &self.offline.art) {
            (Ok(rel), _) => rel.to_path_buf(),
            (Err(_), Some(art)) => match path.strip_prefix(art.cache()) {
                Ok(rel) => Path::new(ILLUSTRATIONS_FOLDER).join(rel),
                Err(_) => return Err(Error::internal("library file outside the library")),
            },
            (Err(_), None) => return Err(Error::internal("library file outside the library")),
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        Ok(format!("{LIBRARY_FOLDER}/{rel}"))
    }

    /// The public URL of library file `path`, copying it under `public/library/` the first time.
    fn publish(&self, path: &Path) -> Result<String> {
        let rel = self.library_rel(path)?;
        let target = self.settings.public_dir().join(&rel);
        if !target.exists() {
            let bytes = std::fs::read(path).map_err(|e| {
                Error::internal("library file unreadable")
                    .because(format!("{}: {e}", path.display()))
            })?;
            foundation::files::write_atomic(&target, &bytes).map_err(Error::internal)?;
        }
        Ok(format!("{}/{rel}", self.settings.origin_url))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;
    use serde_json::Value;
    use serde_json::json;

    fn code(body: Value) -> (Code, Option<String>) {
        let e = body::read::<SearchBody>(&body).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn every_rule_answers_its_code_and_param() {
        let cases = [
            (json!({"kind": "video"}), Code::MissingField, "keyword"),
            (json!({"keyword": "sun"}), Code::MissingField, "kind"),
            (
                json!({"keyword": "sun", "kind": "audio"}),
                Code::InvalidKind,
                "kind",
            ),
            (
                json!({"keyword": "sun", "kind": "video", "ratio": "wide"}),
                Code::InvalidRatio,
                "ratio",
            ),
            (
                json!({"keyword": "sun", "kind": "video", "limit": 0}),
                Code::InvalidLimit,
                "limit",
            ),
            (
                json!({"keyword": "sun", "kind": "video", "limit": 21}),
                Code::InvalidLimit,
                "limit",
            ),
            (
                json!({"keyword": "sun", "kind": "video", "limit": "5"}),
                Code::InvalidLimit,
                "limit",
            ),
        ];
        for (body, want, param) in cases {
            assert_eq!(code(body.clone()), (want, Some(param.into())), "{body}");
        }
        let ok = body::read::<SearchBody>(&json!({"keyword": " Grid ", "kind": "VIDEO"})).unwrap();
        assert_eq!((ok.limit, ok.ratio), (DEFAULT_LIMIT, SearchRatio::Portrait));
        assert!(ok.wants_grid());
    }

    #[test]
    fn ratios_tell_shapes_apart() {
        assert!(SearchRatio::Portrait.fits(720, 1280));
        assert!(SearchRatio::Landscape.fits(1280, 720));
        assert!(SearchRatio::Square.fits(1000, 1020));
        assert!(!SearchRatio::Portrait.fits(1000, 1000));
    }
}
