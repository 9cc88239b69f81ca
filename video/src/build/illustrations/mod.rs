//! Illustrations: the large offline part of the B-roll library. An index of open illustrations
//! with keywords ([`index`], from `make illustrations`), searched through a synonym list
//! ([`synonyms`]), and made into B-roll in the product's style by the compositor
//! (`compositor::illustration`): a 720×1280 picture or a looping clip, rendered the first time
//! it is used and cached by content under `{data_dir}/cache/illustrations`. [`Offline`] is the
//! embedded B-roll provider: the self-made library and the illustrations, searched together.

pub mod index;
mod offline;
pub(crate) mod synonyms;

pub use offline::Offline;

use std::path::{Path, PathBuf};

use compositor::illustration::{self, Art};
use compositor::plan::Palette;
use sha2::{Digest, Sha256};

use crate::build::broll::{BrollError, BrollItem};
use foundation::document::MediaKind;
use index::Index;

/// `source` of illustration results.
pub(crate) const SOURCE: &str = "reelsmith_illustrations";
/// Results' `author`: the set and its licence.
pub(crate) const AUTHOR: &str = "Fluent Emoji by Microsoft (MIT)";
/// The palettes the backdrops are painted in, chosen per illustration.
const PALETTES: [Palette; 3] = [Palette::MIDNIGHT, Palette::SUNSET, Palette::OCEAN];

/// The index, where its SVGs are, and the cache of rendered B-roll.
#[derive(Debug)]
pub struct Illustrations {
    pub index: Index,
    dir: PathBuf,
    cache: PathBuf,
}

impl Illustrations {
    /// The index in `dir` (`{assets_dir}/illustrations`), caching into `cache`. Not installed
    /// (no `index.json`): `None`, with a warning, and the library answers alone.
    pub fn open(dir: &Path, cache: &Path) -> Result<Option<Illustrations>, String> {
        if !dir.join("index.json").exists() {
            tracing::warn!(dir = %dir.display(), "no illustration index (run make illustrations); B-roll from the small library only");
            return Ok(None);
        }
        Ok(Some(Illustrations {
            index: Index::load(dir)?,
            dir: dir.to_path_buf(),
            cache: cache.to_path_buf(),
        }))
    }

    /// Best matches for `keyword` of `kind`, at most `limit`.
    pub fn search(&self, keyword: &str, kind: MediaKind, limit: usize) -> Vec<BrollItem> {
        self.index
            .search(keyword)
            .into_iter()
            .filter_map(|(i, score)| self.item(i, kind, score))
            .take(limit)
            .collect()
    }

    fn svg_path(&self, id: &str) -> PathBuf {
        self.dir.join("svg").join(format!("{id}.svg"))
    }

    /// Entry `i` as a result; `None` when its SVG is missing.
    fn item(&self, i: usize, kind: MediaKind, score: f64) -> Option<BrollItem> {
        let e = &self.index.entries[i];
        let svg = std::fs::read(self.svg_path(&e.id)).ok()?;
        let key = cache_key(&e.id, &svg);
        let picture = self
            .cache
            .join("images")
            .join(format!("{}-{key}.png", e.id));
        let (id, local, duration) = match kind {
            MediaKind::Image => (format!("illustration:{}", e.id), picture.clone(), 0.0),
            MediaKind::Video => (
                format!("illustration:{}:clip", e.id),
                self.cache.join("clips").join(format!("{}-{key}.mp4", e.id)),
                f64::from(illustration::CLIP_SECONDS),
            ),
        };
        Some(BrollItem {
            url: id.clone(),
            thumbnail_url: format!("illustration:{}", e.id),
            id,
            kind,
            title: e.title.clone(),
            source: SOURCE.into(),
            author: AUTHOR.into(),
            width: compositor::geom::CANVAS_W,
            height: compositor::geom::CANVAS_H,
            duration,
            local: Some(local),
            local_thumb: Some(picture),
            procedural: None,
            score,
            focus: Some(illustration::subject_box()),
        })
    }

    /// Where rendered pictures and clips are kept.
    pub fn cache(&self) -> &Path {
        &self.cache
    }

    /// Whether `item` is one of ours.
    pub fn owns(item: &BrollItem) -> bool {
        item.source == SOURCE
    }

    /// The clip whose cached file is named `file` (`{id}-{key}.mp4`, as [`Illustrations::search`]
    /// names it), when `id` is in the index and `key` matches its SVG today; `None` for any other
    /// name. Whether it is rendered yet does not matter.
    pub fn clip_named(&self, file: &str) -> Option<BrollItem> {
        let (id, key) = file.strip_suffix(".mp4")?.rsplit_once('-')?;
        let i = self.index.entries.iter().position(|e| e.id == id)?;
        let item = self.item(i, MediaKind::Video, 0.0)?;
        let local = item.local.as_ref()?;
        (local.file_name()?.to_str()? == format!("{id}-{key}.mp4")).then_some(item)
    }

    /// Renders `item`'s picture (and for a clip, the clip) into the cache unless it is there.
    pub fn prepare(&self, item: &BrollItem) -> Result<(), BrollError> {
        self.render(item, item.kind)
    }

    /// Renders `item`'s picture into the cache unless it is there, not its clip: what a search
    /// result shows before the clip is asked for.
    pub fn prepare_picture(&self, item: &BrollItem) -> Result<(), BrollError> {
        self.render(item, MediaKind::Image)
    }

    /// The picture, and the clip too when `upto` is [`MediaKind::Video`].
    fn render(&self, item: &BrollItem, upto: MediaKind) -> Result<(), BrollError> {
        let name = item
            .id
            .strip_prefix("illustration:")
            .map(|s| s.trim_end_matches(":clip"))
            .ok_or_else(|| BrollError::Download(format!("{} is not an illustration", item.id)))?;
        let failed = |e: String| BrollError::Download(format!("illustration {name}: {e}"));
        let (Some(local), Some(picture)) = (&item.local, &item.local_thumb) else {
            return Err(failed("no cache path".into()));
        };
        let clip_wanted = upto == MediaKind::Video && item.kind == MediaKind::Video;
        if picture.exists() && (!clip_wanted || local.exists()) {
            return Ok(());
        }
        let svg =
            std::fs::read_to_string(self.svg_path(name)).map_err(|e| failed(e.to_string()))?;
        if has_external_reference(&svg) {
            return Err(failed("refers to something outside itself".into()));
        }
        let art = art_of(name, &svg);
        if !picture.exists() {
            let png = illustration::picture_png(&art).map_err(failed)?;
            foundation::files::write_atomic(picture, &png).map_err(|e| failed(e.to_string()))?;
        }
        if clip_wanted && !local.exists() {
            if let Some(parent) = local.parent() {
                std::fs::create_dir_all(parent).map_err(|e| failed(e.to_string()))?;
            }
            illustration::encode_clip(&art, local).map_err(|e| failed(e.to_string()))?;
        }
        Ok(())
    }
}

/// The picture's palette and seed, fixed per illustration.
fn art_of<'a>(name: &str, svg: &'a str) -> Art<'a> {
    let h = Sha256::digest(name.as_bytes());
    let seed = u64::from_le_bytes(h[..8].try_into().expect("8 bytes"));
    Art {
        svg,
        palette: PALETTES[(seed % PALETTES.len() as u64) as usize],
        seed,
    }
}

/// What a rendering depends on: the renderer, the illustration's name (palette and seed) and
/// its SVG.
fn cache_key(name: &str, svg: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(compositor::RENDERER_VERSION.as_bytes());
    h.update([0]);
    h.update(name.as_bytes());
    h.update([0]);
    h.update(svg);
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An `href` or `url(` that does not point inside the document (`#…`).
pub(crate) fn has_external_reference(svg: &str) -> bool {
    let lower = svg.to_ascii_lowercase();
    let after = |pat: &str| {
        lower.match_indices(pat).any(|(i, _)| {
            let rest = lower[i + pat.len()..].trim_start_matches([' ', '=', '"', '\'']);
            !rest.starts_with('#')
        })
    };
    after("href") || after("url(")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::broll::{BrollProvider, Library, Query, Ratio};

    fn assets() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets")
    }

    fn offline(cache: &Path) -> Offline {
        let art = Illustrations::open(&assets().join("illustrations"), cache)
            .unwrap()
            .expect("the illustration index is installed: run make illustrations");
        Offline {
            library: std::sync::Arc::new(Library::load(&assets().join("broll")).unwrap()),
            art: Some(std::sync::Arc::new(art)),
        }
    }

    fn terms() -> Vec<String> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/broll_terms.txt");
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect()
    }

    fn query(keyword: &str, kind: MediaKind) -> Query<'_> {
        Query {
            keyword,
            context: "",
            kind: Some(kind),
            ratio: Ratio::Portrait,
            limit: 10,
        }
    }

    /// The keywords a result carries: the library's tags, the index's keywords.
    fn keywords_of(o: &Offline, item: &BrollItem) -> Vec<String> {
        let name = item.id.trim_end_matches(":clip");
        if let Some(id) = name.strip_prefix("illustration:") {
            let art = o.art.as_ref().unwrap();
            let e = art.index.entries.iter().find(|e| e.id == id).unwrap();
            return e.keywords.clone();
        }
        o.library.tags_of(&item.id).unwrap_or_default()
    }

    #[test]
    fn search_covers_ninety_percent_of_the_term_list_with_relevant_results_only() {
        let cache = tempfile::tempdir().unwrap();
        let o = offline(cache.path());
        let terms = terms();
        assert_eq!(terms.len(), 200, "the list has 200 terms");
        for kind in [MediaKind::Image, MediaKind::Video] {
            let mut missed = Vec::new();
            for term in &terms {
                let found = o.search(&query(term, kind)).unwrap();
                let all_relevant = found.iter().all(|it| {
                    it.kind == kind && synonyms::relevant(term, &it.title, &keywords_of(&o, it))
                });
                if found.is_empty() || !all_relevant {
                    missed.push(term.as_str());
                }
            }
            let coverage = 1.0 - missed.len() as f64 / terms.len() as f64;
            eprintln!(
                "{kind:?}: coverage {:.1} %, missed {missed:?}",
                coverage * 100.0
            );
            assert!(coverage >= 0.9, "{kind:?}: {coverage}: {missed:?}");
        }
    }

    #[test]
    fn nothing_relevant_is_no_result() {
        let cache = tempfile::tempdir().unwrap();
        let o = offline(cache.path());
        for kind in [MediaKind::Image, MediaKind::Video] {
            assert!(o.search(&query("zzqx", kind)).unwrap().is_empty());
        }
    }

    #[test]
    fn titles_name_what_is_shown() {
        let cache = tempfile::tempdir().unwrap();
        let o = offline(cache.path());
        let found = o.search(&query("doctor", MediaKind::Image)).unwrap();
        assert!(
            found.iter().any(|i| i.title == "Health worker"),
            "{found:?}"
        );
        let coffee = o.search(&query("coffee", MediaKind::Video)).unwrap();
        assert!(
            coffee.iter().any(|i| i.title == "Hot beverage"),
            "{coffee:?}"
        );
    }

    #[test]
    fn a_picture_and_a_clip_render_once_into_the_cache() {
        let cache = tempfile::tempdir().unwrap();
        let o = offline(cache.path());
        let art = o.art.as_ref().unwrap();
        for kind in [MediaKind::Image, MediaKind::Video] {
            let item = art.search("bakery", kind, 1).remove(0);
            let started = std::time::Instant::now();
            let bytes = o.download(&item).unwrap();
            eprintln!(
                "{kind:?} {}: {:?}, {} bytes",
                item.id,
                started.elapsed(),
                bytes.len()
            );
            let local = item.local.as_ref().unwrap();
            let modified = std::fs::metadata(local).unwrap().modified().unwrap();
            o.download(&item).unwrap();
            assert_eq!(
                std::fs::metadata(local).unwrap().modified().unwrap(),
                modified,
                "cached"
            );
            if kind == MediaKind::Image {
                let p = compositor::raster::decode_image(&bytes).unwrap();
                assert_eq!((p.width(), p.height()), (720, 1280));
            } else {
                let d = compositor::media::probe_duration(local).unwrap();
                assert!(
                    (d - f64::from(illustration::CLIP_SECONDS)).abs() < 0.1,
                    "{d}"
                );
            }
        }
    }

    #[test]
    fn a_search_result_renders_its_picture_and_its_clip_only_when_asked() {
        let cache = tempfile::tempdir().unwrap();
        let o = offline(cache.path());
        let art = o.art.as_ref().unwrap();
        let item = art.search("coffee", MediaKind::Video, 1).remove(0);
        o.prepare_picture(&item).unwrap();
        let local = item.local.as_ref().unwrap();
        assert!(item.local_thumb.as_ref().unwrap().exists(), "the picture");
        assert!(!local.exists(), "no clip yet");
        let name = local.file_name().unwrap().to_str().unwrap();
        let named = art.clip_named(name).expect("the clip's own name");
        assert_eq!(named.id, item.id);
        art.prepare(&named).unwrap();
        assert!(local.exists(), "the clip, once asked for");
        let (id, _) = name.rsplit_once('-').unwrap();
        for other in [
            format!("{id}-0000000000000000.mp4"),
            format!("no-such-art-{}", name.rsplit_once('-').unwrap().1),
            name.replace(".mp4", ".png"),
            "../x.mp4".to_string(),
        ] {
            assert!(art.clip_named(&other).is_none(), "{other}");
        }
    }

    #[test]
    fn scenes_draw_on_the_whole_index_without_repeating() {
        use crate::build::broll::{SceneQuery, pick_for_scenes};
        let cache = tempfile::tempdir().unwrap();
        let o = offline(cache.path());
        let keywords = [
            "coffee", "coffee", "bakery", "bakery", "bakery", "doctor", "doctor", "money", "money",
            "zzqx",
        ];
        let scenes: Vec<SceneQuery> = keywords
            .iter()
            .map(|k| SceneQuery {
                keyword: k,
                text: "",
                wanted: true,
            })
            .collect();
        let picks = pick_for_scenes(&o, &scenes);
        let shown: Vec<&BrollItem> = picks.iter().flatten().map(|p| &p.item).collect();
        let mut ids: Vec<&str> = shown[..9].iter().map(|i| i.id.as_str()).collect();
        for (item, k) in shown.iter().zip(keywords).take(9) {
            let kw = keywords_of(&o, item);
            assert!(synonyms::relevant(k, &item.title, &kw), "{k}: {item:?}");
        }
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 9, "no picture twice: {shown:?}");
        assert!(shown.iter().filter(|i| Illustrations::owns(i)).count() >= 5);
        assert!(
            shown[9].procedural.is_some(),
            "nothing relevant: a procedural background"
        );
    }

    #[test]
    fn external_references_are_refused() {
        assert!(has_external_reference(
            r#"<image href="https://x.example/a.png"/>"#
        ));
        assert!(has_external_reference(
            r#"<path fill="url( 'file:///etc')"/>"#
        ));
        assert!(!has_external_reference(
            r##"<use href="#a"/><path fill="url(#g)"/>"##
        ));
    }
}
