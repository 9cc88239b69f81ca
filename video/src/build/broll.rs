//! B-roll: the visuals behind scenes without the user's own media (DESIGN.md §2, providers).
//!
//! A [`BrollProvider`] searches assets by keyword. The embedded default is the local [`Library`]
//! in `{assets_dir}/broll` (self-made CC0 images and short clips listed in `library.json` with
//! keyword tags) searched through a small keyword index; [`Pexels`] is the connector. Scene
//! building calls [`pick_for_scenes`], which takes the best match per scene without repeating
//! an asset in adjacent scenes and falls back to procedural backgrounds (the curated `grid` set
//! among them) when nothing matches or the provider fails.
//!
//! Scoring: query and tags are tokenised (lowercase, punctuation trimmed, a light English
//! plural/-ing stemmer, stopwords dropped). A query token matching a tag scores 2, matching a
//! word of the title 1; the scene's keyword counts three times, the rest of its text once. An
//! asset already used earlier in the video loses a point, so a long video spreads out.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use compositor::focus::Focus;
use serde::Deserialize;
use serde_json::Value;

use foundation::connector::{Http, join};
use foundation::document::{BrollSource, MediaKind};

/// Requested aspect (search_broll's `ratio`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ratio {
    #[default]
    Portrait,
    Landscape,
    Square,
}

impl Ratio {
    pub fn as_str(self) -> &'static str {
        match self {
            Ratio::Portrait => "portrait",
            Ratio::Landscape => "landscape",
            Ratio::Square => "square",
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq)]
pub struct BrollItem {
    /// Stable within its source (`library:solar-panels`, `pexels-photo:123`, `grid:midnight`).
    pub id: String,
    pub kind: MediaKind,
    /// Canonical asset URL (`library:{file}` for library files, `procedural:{style}:{seed}` for
    /// procedural backgrounds, an https URL for stock).
    pub url: String,
    pub thumbnail_url: String,
    pub title: String,
    /// `reelsmith_library`, `reelsmith_grid`, `reelsmith_procedural` or `pexels`.
    pub source: String,
    pub author: String,
    pub width: u32,
    pub height: u32,
    /// Seconds (0 for images).
    pub duration: f64,
    /// Library files on disk: the asset and its thumbnail.
    pub local: Option<PathBuf>,
    pub local_thumb: Option<PathBuf>,
    /// Procedural backgrounds: style and seed for the renderer.
    pub procedural: Option<(String, u64)>,
    /// Match score (library search; 0 for connectors, whose order is theirs).
    pub score: f64,
    /// The subject's box (library assets: from `library.json`; stock: found on download).
    pub focus: Option<Focus>,
}

/// A B-roll search.
#[derive(Debug, Clone, Default)]
pub struct Query<'a> {
    /// 1–3 words; weighs most.
    pub keyword: &'a str,
    /// The scene's narration, for extra matches (library only).
    pub context: &'a str,
    /// Only this kind, when given.
    pub kind: Option<MediaKind>,
    pub ratio: Ratio,
    pub limit: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum BrollError {
    #[error("B-roll search failed: {0}")]
    Upstream(String),
    #[error("B-roll download failed: {0}")]
    Download(String),
}

/// A B-roll search capability.
pub trait BrollProvider: Send + Sync {
    /// Where its picks come from (recorded as the scene's `broll_source`).
    fn source(&self) -> BrollSource;
    /// Best matches first, at most `q.limit`.
    fn search(&self, q: &Query<'_>) -> Result<Vec<BrollItem>, BrollError>;
    /// The asset's bytes.
    fn download(&self, item: &BrollItem) -> Result<Vec<u8>, BrollError>;
}

// ---------------------------------------------------------------------------------------------
// The local library.

#[derive(Debug, Deserialize)]
struct LibraryFile {
    assets: Vec<LibraryAsset>,
}

#[derive(Debug, Clone, Deserialize)]
struct LibraryAsset {
    id: String,
    file: String,
    kind: MediaKind,
    title: String,
    tags: Vec<String>,
    #[serde(default)]
    thumbnail: Option<String>,
    width: u32,
    height: u32,
    #[serde(default)]
    duration: f64,
    /// The subject's box, normalised (the generator's edge-density pass).
    #[serde(default)]
    focus: Option<Focus>,
}

/// The local B-roll library with its keyword index.
#[derive(Debug, Default)]
pub struct Library {
    root: PathBuf,
    assets: Vec<LibraryAsset>,
    /// Per asset: stemmed tag tokens and title tokens.
    tags: Vec<Vec<String>>,
    titles: Vec<Vec<String>>,
}

/// The curated grid backgrounds (search_broll's `grid`): (name, palette seed).
pub(crate) const GRID_SET: &[(&str, u64)] = &[
    ("midnight", 0),
    ("sunset", 1),
    ("ocean", 2),
    ("midnight-fine", 3),
    ("sunset-fine", 4),
    ("ocean-fine", 5),
];

/// Procedural fallbacks for scenes nothing matched, cycled: (style, seed).
const FALLBACKS: &[(&str, u64)] = &[
    ("grid", 0),
    ("gradient", 1),
    ("bokeh", 2),
    ("grid", 4),
    ("gradient", 5),
    ("bokeh", 3),
];

impl Library {
    /// Loads `{dir}/library.json`. A missing library is empty (procedural backgrounds only).
    pub fn load(dir: &Path) -> Result<Library, String> {
        let path = dir.join("library.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Library {
                    root: dir.to_path_buf(),
                    ..Library::default()
                });
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let file: LibraryFile =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for a in &file.assets {
            if !is_plain_relative(&a.file)
                || a.thumbnail
                    .as_deref()
                    .is_some_and(|t| !is_plain_relative(t))
            {
                return Err(format!("library asset {} has an unsafe path", a.id));
            }
        }
        let tags = file
            .assets
            .iter()
            .map(|a| a.tags.iter().flat_map(|t| tokenize(t)).collect())
            .collect();
        let titles = file.assets.iter().map(|a| tokenize(&a.title)).collect();
        Ok(Library {
            root: dir.to_path_buf(),
            assets: file.assets,
            tags,
            titles,
        })
    }

    pub fn len(&self) -> usize {
        self.assets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.assets.is_empty()
    }

    /// The tags of the asset whose result id is `id` (`library:{id}`).
    #[cfg(test)]
    pub(crate) fn tags_of(&self, id: &str) -> Option<Vec<String>> {
        let id = id.strip_prefix("library:")?;
        self.assets
            .iter()
            .find(|a| a.id == id)
            .map(|a| a.tags.clone())
    }

    fn item(&self, i: usize, score: f64) -> BrollItem {
        let a = &self.assets[i];
        let thumb = a.thumbnail.clone().unwrap_or_else(|| a.file.clone());
        BrollItem {
            id: format!("library:{}", a.id),
            kind: a.kind,
            url: format!("library:{}", a.file),
            thumbnail_url: format!("library:{thumb}"),
            title: a.title.clone(),
            source: "reelsmith_library".into(),
            author: "Reelsmith (CC0)".into(),
            width: a.width,
            height: a.height,
            duration: a.duration,
            local: Some(self.root.join(&a.file)),
            local_thumb: Some(self.root.join(thumb)),
            procedural: None,
            score,
            focus: a.focus.filter(Focus::is_valid),
        }
    }

    /// Scores of every asset for a query (same order as the library).
    fn scores(&self, q: &Query<'_>) -> Vec<f64> {
        let mut weights: HashMap<String, f64> = HashMap::new();
        for t in tokenize(q.context) {
            *weights.entry(t).or_default() += 1.0;
        }
        for t in tokenize(q.keyword) {
            *weights.entry(t).or_default() += 3.0;
        }
        (0..self.assets.len())
            .map(|i| {
                weights
                    .iter()
                    .map(|(t, w)| {
                        if self.tags[i].contains(t) {
                            2.0 * w
                        } else if self.titles[i].contains(t) {
                            *w
                        } else {
                            0.0
                        }
                    })
                    .sum()
            })
            .collect()
    }
}

fn is_plain_relative(p: &str) -> bool {
    let path = Path::new(p);
    !p.is_empty()
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// The curated grid list as search results.
pub fn grid_items(limit: usize) -> Vec<BrollItem> {
    GRID_SET
        .iter()
        .take(limit)
        .map(|(name, seed)| {
            procedural_item("grid", *seed, &format!("Grid · {name}"), "reelsmith_grid")
        })
        .collect()
}

fn procedural_item(style: &str, seed: u64, title: &str, source: &str) -> BrollItem {
    BrollItem {
        id: format!("{style}:{seed}"),
        kind: MediaKind::Video,
        url: format!("procedural:{style}:{seed}"),
        thumbnail_url: String::new(),
        title: title.into(),
        source: source.into(),
        author: "Reelsmith".into(),
        width: compositor::geom::CANVAS_W,
        height: compositor::geom::CANVAS_H,
        duration: 0.0,
        local: None,
        local_thumb: None,
        procedural: Some((style.into(), seed)),
        score: 0.0,
        focus: None,
    }
}

impl BrollProvider for Library {
    fn source(&self) -> BrollSource {
        BrollSource::Library
    }

    fn search(&self, q: &Query<'_>) -> Result<Vec<BrollItem>, BrollError> {
        let limit = q.limit.max(1);
        if q.keyword.trim().eq_ignore_ascii_case("grid") && q.kind != Some(MediaKind::Image) {
            return Ok(grid_items(limit));
        }
        let scores = self.scores(q);
        let mut order: Vec<usize> = (0..self.assets.len())
            .filter(|&i| scores[i] > 0.0 && q.kind.is_none_or(|k| k == self.assets[i].kind))
            .collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        Ok(order
            .into_iter()
            .take(limit)
            .map(|i| self.item(i, scores[i]))
            .collect())
    }

    fn download(&self, item: &BrollItem) -> Result<Vec<u8>, BrollError> {
        let path = item
            .local
            .as_ref()
            .ok_or_else(|| BrollError::Download("not a library asset".into()))?;
        std::fs::read(path).map_err(|e| BrollError::Download(format!("{}: {e}", path.display())))
    }
}

// ---------------------------------------------------------------------------------------------
// Tokenising.

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "for", "with", "by",
    "from", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these",
    "those", "as", "we", "you", "they", "he", "she", "i", "our", "your", "their", "not", "so",
    "do", "does", "can", "will", "just", "than", "then", "there", "what", "which", "who", "how",
    "every", "each", "more", "most", "very", "into", "about", "one", "all", "have", "has", "get",
];

/// Lowercase words without punctuation, lightly stemmed, stopwords dropped.
pub(crate) fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == '-' || c == '/')
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| w.chars().count() > 1 && !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// `runn` → `run`, `shopp` → `shop` (what is left of a doubled consonant before -ing); `ll`, `ss`
/// and `zz` stay (`spelling` → `spell`).
fn undouble(b: &str) -> &str {
    let bytes = b.as_bytes();
    match bytes {
        [.., x, y] if x == y && !b"aeiouylsz".contains(y) => &b[..b.len() - 1],
        _ => b,
    }
}

/// A deliberately small English stemmer: plural and -ing endings.
fn stem(w: &str) -> String {
    let w = w
        .strip_suffix("'s")
        .or_else(|| w.strip_suffix("’s"))
        .unwrap_or(w);
    if !w.is_ascii() {
        return w.to_string();
    }
    if let Some(b) = w.strip_suffix("ies")
        && b.len() >= 2
    {
        return format!("{b}y");
    }
    for suf in ["sses", "shes", "ches", "xes"] {
        if w.ends_with(suf) {
            return w[..w.len() - 2].to_string();
        }
    }
    if let Some(b) = w.strip_suffix("ing")
        && b.len() >= 4
    {
        return undouble(b).to_string();
    }
    if let Some(b) = w.strip_suffix('s')
        && b.len() >= 3
        && !b.ends_with('s')
        && !b.ends_with('u')
        && !b.ends_with('i')
    {
        return b.to_string();
    }
    w.to_string()
}

// ---------------------------------------------------------------------------------------------
// Picking per scene.

/// What a scene gets.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    pub item: BrollItem,
    /// Which provider found it (procedural when none did).
    pub provider: BrollSource,
}

/// Candidates looked at per scene: enough that a long video on one topic finds a picture it has
/// not shown yet before it repeats one.
pub(crate) const PICK_WINDOW: usize = 40;

/// One scene to pick for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SceneQuery<'a> {
    pub keyword: &'a str,
    pub text: &'a str,
    /// `None` when the scene already has the user's media (nothing is picked).
    pub wanted: bool,
}

/// The best asset per scene: the provider's best match that differs from the previous scene's
/// asset and, while any relevant one is left, was not used earlier in the video; else a procedural background that differs from the
/// previous scene's. Provider failures are logged and fall back to procedural backgrounds.
pub(crate) fn pick_for_scenes(
    provider: &dyn BrollProvider,
    scenes: &[SceneQuery<'_>],
) -> Vec<Option<Pick>> {
    let mut used: HashMap<String, usize> = HashMap::new();
    let mut prev: Option<String> = None;
    let mut fallback = 0usize;
    let mut out = Vec::with_capacity(scenes.len());
    for s in scenes {
        if !s.wanted {
            prev = None;
            out.push(None);
            continue;
        }
        // Stills only: placement moves and scales a still around the overlay, the captions and
        // the narrator (`build::placement`); a clip can only cover the frame.
        let q = Query {
            keyword: s.keyword,
            context: s.text,
            kind: Some(MediaKind::Image),
            ratio: Ratio::Portrait,
            limit: PICK_WINDOW,
        };
        let found = match provider.search(&q) {
            Ok(items) => items,
            Err(e) => {
                tracing::warn!(provider = %provider.source(), error = %e, "B-roll search failed; using a procedural background");
                Vec::new()
            }
        };
        let best = found
            .into_iter()
            .filter(|it| prev.as_deref() != Some(it.id.as_str()))
            .enumerate()
            .map(|(rank, it)| {
                let penalty = *used.get(&it.id).unwrap_or(&0) as f64;
                // Connectors rank by their own order; the library by score.
                let value = if it.score > 0.0 {
                    it.score - penalty * 100.0
                } else {
                    -(rank as f64) - penalty * 100.0
                };
                (value, rank, it)
            })
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
            .map(|(_, _, it)| it);
        let pick = match best {
            Some(item) => Pick {
                item,
                provider: provider.source(),
            },
            None => {
                let mut k = fallback;
                loop {
                    let (style, seed) = FALLBACKS[k % FALLBACKS.len()];
                    let id = format!("{style}:{seed}");
                    k += 1;
                    if prev.as_deref() != Some(id.as_str()) {
                        fallback = k;
                        let title = format!("Procedural {style} background");
                        let source = if style == "grid" {
                            "reelsmith_grid"
                        } else {
                            "reelsmith_procedural"
                        };
                        break Pick {
                            item: procedural_item(style, seed, &title, source),
                            provider: BrollSource::Procedural,
                        };
                    }
                }
            }
        };
        *used.entry(pick.item.id.clone()).or_default() += 1;
        prev = Some(pick.item.id.clone());
        out.push(Some(pick));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Pexels.

/// The Pexels API connector: `GET {base}/v1/search` (photos) and `GET {base}/videos/search`,
/// `Authorization: <key>`.
pub struct Pexels {
    pub http: Http,
    pub base_url: String,
    pub api_key: String,
}

impl Pexels {
    fn get(&self, path: &str, q: &Query<'_>, per_page: usize) -> Result<Value, BrollError> {
        let mut url = url::Url::parse(&join(&self.base_url, path))
            .map_err(|e| BrollError::Upstream(format!("bad base URL: {e}")))?;
        url.query_pairs_mut()
            .append_pair("query", q.keyword.trim())
            .append_pair("per_page", &per_page.to_string())
            .append_pair("orientation", q.ratio.as_str());
        let reply = self
            .http
            .send(
                reqwest::Method::GET,
                url.as_str(),
                &[("authorization", self.api_key.clone())],
                None,
            )
            .map_err(BrollError::Upstream)?;
        if reply.status != 200 {
            return Err(BrollError::Upstream(format!(
                "Pexels answered HTTP {}: {}",
                reply.status,
                reply.snippet()
            )));
        }
        reply.json().map_err(BrollError::Upstream)
    }
}

/// The best file of a Pexels video for a 720×1280 canvas: an MP4 at least 640 px on its short
/// side, as small as possible; else the largest.
fn best_video_file(files: &[Value]) -> Option<&Value> {
    let mp4: Vec<&Value> = files
        .iter()
        .filter(|f| f["link"].is_string())
        .filter(|f| f["file_type"].as_str().is_none_or(|t| t == "video/mp4"))
        .collect();
    let short = |f: &Value| {
        f["width"]
            .as_u64()
            .unwrap_or(0)
            .min(f["height"].as_u64().unwrap_or(0))
    };
    mp4.iter()
        .filter(|f| short(f) >= 640)
        .min_by_key(|f| short(f))
        .or_else(|| mp4.iter().max_by_key(|f| short(f)))
        .copied()
}

fn photo_items(v: &Value, ratio: Ratio) -> Vec<BrollItem> {
    let key = match ratio {
        Ratio::Portrait => "portrait",
        Ratio::Landscape => "landscape",
        Ratio::Square => "large",
    };
    v["photos"]
        .as_array()
        .map(|a| a.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|p| {
            let src = &p["src"];
            let url = src[key]
                .as_str()
                .or(src["large2x"].as_str())
                .or(src["original"].as_str())?;
            Some(BrollItem {
                id: format!("pexels-photo:{}", p["id"]),
                kind: MediaKind::Image,
                url: url.to_string(),
                thumbnail_url: src["medium"]
                    .as_str()
                    .or(src["small"].as_str())
                    .unwrap_or(url)
                    .to_string(),
                title: p["alt"].as_str().unwrap_or("").to_string(),
                source: "pexels".into(),
                author: p["photographer"].as_str().unwrap_or("").to_string(),
                width: p["width"].as_u64().unwrap_or(0) as u32,
                height: p["height"].as_u64().unwrap_or(0) as u32,
                duration: 0.0,
                local: None,
                local_thumb: None,
                procedural: None,
                score: 0.0,
                focus: None,
            })
        })
        .collect()
}

fn video_items(v: &Value) -> Vec<BrollItem> {
    v["videos"]
        .as_array()
        .map(|a| a.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|x| {
            let file = best_video_file(x["video_files"].as_array()?)?;
            let url = file["link"].as_str()?;
            Some(BrollItem {
                id: format!("pexels-video:{}", x["id"]),
                kind: MediaKind::Video,
                url: url.to_string(),
                thumbnail_url: x["image"].as_str().unwrap_or("").to_string(),
                title: x["url"]
                    .as_str()
                    .and_then(|u| u.trim_end_matches('/').rsplit('/').next())
                    .unwrap_or("")
                    .replace('-', " "),
                source: "pexels".into(),
                author: x["user"]["name"].as_str().unwrap_or("").to_string(),
                width: file["width"].as_u64().unwrap_or(0) as u32,
                height: file["height"].as_u64().unwrap_or(0) as u32,
                duration: x["duration"].as_f64().unwrap_or(0.0),
                local: None,
                local_thumb: None,
                procedural: None,
                score: 0.0,
                focus: None,
            })
        })
        .collect()
}

impl BrollProvider for Pexels {
    fn source(&self) -> BrollSource {
        BrollSource::Pexels
    }

    fn search(&self, q: &Query<'_>) -> Result<Vec<BrollItem>, BrollError> {
        if q.keyword.trim().is_empty() {
            return Ok(Vec::new());
        }
        let limit = q.limit.clamp(1, 80);
        match q.kind {
            Some(MediaKind::Image) => Ok(photo_items(&self.get("v1/search", q, limit)?, q.ratio)),
            Some(MediaKind::Video) => Ok(video_items(&self.get("videos/search", q, limit)?)),
            None => {
                // Scenes: photos first (lighter), clips after.
                let mut items = photo_items(&self.get("v1/search", q, limit)?, q.ratio);
                items.truncate(limit);
                Ok(items)
            }
        }
    }

    fn download(&self, item: &BrollItem) -> Result<Vec<u8>, BrollError> {
        self.http.download(&item.url).map_err(BrollError::Download)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library() -> Library {
        Library::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/broll")).unwrap()
    }

    #[test]
    fn tokenizer_stems_and_drops_stopwords() {
        assert_eq!(
            tokenize("The Solar-panels, cities' skylines & coffee cups running"),
            ["solar", "panel", "city", "skyline", "coffee", "cup", "run"]
        );
        assert_eq!(tokenize("Hà Nội các bạn"), ["hà", "nội", "các", "bạn"]);
        assert_eq!(stem("glass"), "glass");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("boxes"), "box");
    }

    #[test]
    fn every_library_asset_carries_a_valid_focus() {
        let lib = library();
        for i in 0..lib.len() {
            let item = lib.item(i, 1.0);
            let f = item
                .focus
                .unwrap_or_else(|| panic!("{} has no focus", item.id));
            assert!(f.is_valid() && f.w < 1.0 && f.h < 1.0, "{}: {f:?}", item.id);
        }
    }

    #[test]
    fn library_loads_and_every_file_exists() {
        let lib = library();
        assert!(lib.len() >= 30, "a few dozen assets, got {}", lib.len());
        let mut total = 0u64;
        for i in 0..lib.len() {
            let it = lib.item(i, 0.0);
            let meta = std::fs::metadata(it.local.as_ref().unwrap()).unwrap();
            total += meta.len();
            assert!(it.local_thumb.as_ref().unwrap().exists(), "{it:?}");
            assert!(!lib.tags[i].is_empty());
        }
        assert!(total < 8 * 1024 * 1024, "library is {total} bytes");
        assert!(lib.assets.iter().any(|a| a.kind == MediaKind::Video));
    }

    fn check(keyword: &str, context: &str, want_tag: &str) {
        let lib = library();
        let got = lib
            .search(&Query {
                keyword,
                context,
                limit: 3,
                ..Query::default()
            })
            .unwrap();
        assert!(!got.is_empty(), "no match for {keyword:?}");
        let best = &lib.assets[lib
            .assets
            .iter()
            .position(|a| format!("library:{}", a.id) == got[0].id)
            .unwrap()];
        assert!(
            best.tags.iter().any(|t| t == want_tag),
            "{keyword:?}: best {} tags {:?}",
            best.id,
            best.tags
        );
    }

    #[test]
    fn keyword_index_finds_the_obvious_asset() {
        check(
            "solar panels",
            "Solar power is cheaper every year.",
            "solar",
        );
        check("city", "The city never sleeps at night.", "city");
        check("growth chart", "Revenue grew by 40 percent.", "chart");
        check("coffee", "Start the morning with a coffee.", "coffee");
        check("team meeting", "Our team meets every Monday.", "team");
        check(
            "phone",
            "Short clips reach people on their phones.",
            "phone",
        );
    }

    #[test]
    fn grid_keyword_returns_the_curated_set() {
        let lib = library();
        let got = lib
            .search(&Query {
                keyword: "Grid",
                kind: Some(MediaKind::Video),
                limit: 20,
                ..Query::default()
            })
            .unwrap();
        assert_eq!(got.len(), GRID_SET.len());
        assert!(got.iter().all(|g| g.source == "reelsmith_grid"));
    }

    #[test]
    fn picks_never_repeat_in_adjacent_scenes() {
        let lib = library();
        let texts = [
            ("solar panels", "Solar panels on every roof."),
            ("solar panels", "Solar panels again and again."),
            ("solar panels", "More solar panels."),
            ("zzqx", "Nothing in the library matches this qqq."),
            ("zzqx", "Nor this vvv."),
            ("", ""),
        ];
        let scenes: Vec<SceneQuery> = texts
            .iter()
            .map(|(k, t)| SceneQuery {
                keyword: k,
                text: t,
                wanted: true,
            })
            .collect();
        let picks = pick_for_scenes(&lib, &scenes);
        let ids: Vec<String> = picks
            .iter()
            .map(|p| p.as_ref().unwrap().item.id.clone())
            .collect();
        for w in ids.windows(2) {
            assert_ne!(w[0], w[1], "{ids:?}");
        }
        assert_eq!(picks[0].as_ref().unwrap().provider, BrollSource::Library);
        assert_eq!(picks[3].as_ref().unwrap().provider, BrollSource::Procedural);
        assert!(picks[3].as_ref().unwrap().item.procedural.is_some());
        // Deterministic.
        assert_eq!(picks, pick_for_scenes(&lib, &scenes));
    }

    struct Failing;
    impl BrollProvider for Failing {
        fn source(&self) -> BrollSource {
            BrollSource::Pexels
        }
        fn search(&self, _: &Query<'_>) -> Result<Vec<BrollItem>, BrollError> {
            Err(BrollError::Upstream("down".into()))
        }
        fn download(&self, _: &BrollItem) -> Result<Vec<u8>, BrollError> {
            Err(BrollError::Download("down".into()))
        }
    }

    #[test]
    fn provider_failure_falls_back_to_procedural() {
        let scenes = [SceneQuery {
            keyword: "x",
            text: "y",
            wanted: true,
        }; 3];
        let picks = pick_for_scenes(&Failing, &scenes);
        assert!(
            picks
                .iter()
                .all(|p| p.as_ref().unwrap().provider == BrollSource::Procedural)
        );
    }

    #[test]
    fn pexels_shapes_parse() {
        let photos = serde_json::json!({"photos": [{"id": 7, "width": 4000, "height": 6000, "photographer": "Ann",
            "alt": "Solar farm", "src": {"original": "https://images.example/7.jpg", "portrait": "https://images.example/7p.jpg", "medium": "https://images.example/7m.jpg"}}]});
        let p = photo_items(&photos, Ratio::Portrait);
        assert_eq!(p[0].url, "https://images.example/7p.jpg");
        assert_eq!(p[0].author, "Ann");
        let videos = serde_json::json!({"videos": [{"id": 9, "duration": 12, "image": "https://i.example/9.jpg",
        "url": "https://www.pexels.com/video/solar-farm-at-dawn-9/", "user": {"name": "Bo"},
        "video_files": [
            {"link": "https://v.example/9-hd.mp4", "file_type": "video/mp4", "width": 1080, "height": 1920},
            {"link": "https://v.example/9-sd.mp4", "file_type": "video/mp4", "width": 720, "height": 1280},
            {"link": "https://v.example/9-tiny.mp4", "file_type": "video/mp4", "width": 360, "height": 640}
        ]}]});
        let v = video_items(&videos);
        assert_eq!(v[0].url, "https://v.example/9-sd.mp4");
        assert_eq!(v[0].duration, 12.0);
        assert_eq!(v[0].title, "solar farm at dawn 9");
    }

    #[test]
    fn pexels_connector_speaks_the_api_to_a_fake_server() {
        let server = foundation::testserver::start(|req| {
            if req.headers.get("authorization").map(String::as_str) != Some("px-key") {
                return (401, "application/json".into(), b"{}".to_vec());
            }
            let body = match req.path() {
                "/v1/search" => serde_json::json!({"page": 1, "per_page": 2, "photos": [
                    {"id": 1, "width": 3000, "height": 4000, "photographer": "Ann", "alt": "Solar roof",
                     "src": {"original": "https://img.example/1.jpg", "portrait": "https://img.example/1p.jpg", "medium": "https://img.example/1m.jpg"}}]}),
                "/videos/search" => {
                    serde_json::json!({"videos": [{"id": 2, "duration": 8, "image": "https://img.example/2.jpg",
                    "url": "https://www.pexels.com/video/roof-2/", "user": {"name": "Bo"},
                    "video_files": [{"link": "https://v.example/2.mp4", "file_type": "video/mp4", "width": 720, "height": 1280}]}]})
                }
                _ => return (404, "text/plain".into(), Vec::new()),
            };
            assert_eq!(req.query("query").as_deref(), Some("solar roof"));
            assert_eq!(req.query("orientation").as_deref(), Some("portrait"));
            (
                200,
                "application/json".into(),
                body.to_string().into_bytes(),
            )
        });
        let (_rt, http) = foundation::testserver::http_for(&server);
        let px = Pexels {
            http,
            base_url: server.url(),
            api_key: "px-key".into(),
        };
        let q = |kind| Query {
            keyword: "solar roof",
            context: "",
            kind,
            ratio: Ratio::Portrait,
            limit: 5,
        };
        let (photos, videos) = std::thread::scope(|s| {
            s.spawn(|| {
                (
                    px.search(&q(Some(MediaKind::Image))),
                    px.search(&q(Some(MediaKind::Video))),
                )
            })
            .join()
            .unwrap()
        });
        let photos = photos.unwrap();
        assert_eq!(photos[0].url, "https://img.example/1p.jpg");
        assert_eq!(photos[0].source, "pexels");
        let videos = videos.unwrap();
        assert_eq!(videos[0].url, "https://v.example/2.mp4");
        let seen = server.requests();
        assert_eq!(seen[0].query("per_page").as_deref(), Some("5"));
        let bad = Pexels {
            api_key: "wrong".into(),
            ..px
        };
        let err = std::thread::scope(|s| s.spawn(|| bad.search(&q(None))).join().unwrap());
        assert!(matches!(err, Err(BrollError::Upstream(_))));
    }
}
