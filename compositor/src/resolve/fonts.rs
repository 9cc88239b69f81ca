//! The pinned fonts, read and parsed once per process.
//!
//! Every scene a chunked render resolves (one at a time, alone) needs the caption fonts, and
//! parsing one is not cheap: `Font::from_bytes` lays out every glyph of the face, about 14 ms
//! and 10 MB of outlines each. So each parsed file is kept and used again while its size and
//! modification time are what they were when it was read; and a fallback face is loaded only
//! when the plan has text the faces before it lack, so a video in Latin script holds one face.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use typography::Font;
use usvg::fontdb::Database;

use super::ResolveError;
use crate::layers::captions::CAPTION_FONTS;
use crate::layers::{self, Fonts};
use crate::plan::{OverlayPayload, VideoPlan};

/// Faces SVG overlay text may name, beside the caption fonts; each is optional.
const SVG_EXTRA_FONTS: [&str; 3] = [
    "Inter-Regular.otf",
    "NotoSans-Regular.ttf",
    "Inter-ExtraBold.otf",
];

/// Parsed font files.
static FACES: Memo<Font> = Memo::new();
/// SVG font databases, by fonts folder.
static SVG_DATABASES: Memo<Arc<Database>> = Memo::new();

/// The fonts `plan` draws with: the caption fonts it needs (see [`caption_fonts_for`]), and
/// the SVG font database when an overlay is SVG.
pub(super) fn load_fonts(plan: &VideoPlan) -> Result<Fonts, ResolveError> {
    let dir = &plan.fonts_dir;
    let texts = layers::caption_font_texts(plan);
    let bold = caption_fonts_for(dir, texts.iter().map(String::as_str))?;
    let svg = plan.scenes.iter().any(|s| {
        s.overlay.iter().any(|o| {
            matches!(
                o.payload,
                OverlayPayload::Svg(_) | OverlayPayload::SvgFile(_)
            )
        })
    });
    let svg_db = if svg { Some(svg_database(dir)?) } else { None };
    Ok(Fonts { bold, svg_db })
}

/// The caption fonts ([`CAPTION_FONTS`], in fallback order) from `fonts_dir`: what
/// [`crate::captions::caption_text_box`] measures with, and what every scene's captions and
/// narrator names are set in.
pub fn caption_fonts(fonts_dir: &Path) -> Result<Vec<Font>, ResolveError> {
    CAPTION_FONTS
        .iter()
        .map(|name| face(&fonts_dir.join(name)))
        .collect()
}

/// The shortest run of [`CAPTION_FONTS`] in which every one of `texts` is covered by some face.
/// Text is set in the first face that covers it (`typography::pick_font`), so the faces after
/// that run would never be picked: drawing with the run is drawing with them all.
fn caption_fonts_for<'a>(
    dir: &Path,
    texts: impl Iterator<Item = &'a str> + Clone,
) -> Result<Vec<Font>, ResolveError> {
    let mut fonts: Vec<Font> = Vec::with_capacity(CAPTION_FONTS.len());
    for name in CAPTION_FONTS {
        let covered = |text: &str| fonts.iter().any(|f| f.covers(text));
        if !fonts.is_empty() && texts.clone().all(covered) {
            break;
        }
        fonts.push(face(&dir.join(name))?);
    }
    Ok(fonts)
}

/// The font file at `path`, parsed.
fn face(path: &Path) -> Result<Font, ResolveError> {
    FACES.get_or_make(path, std::slice::from_ref(&path.to_path_buf()), || {
        let bytes = read(path)?;
        Font::from_bytes(bytes).map_err(|e| ResolveError::Font {
            path: path.to_owned(),
            reason: e.to_string(),
        })
    })
}

/// The font database SVG overlays set text with: the caption fonts and the optional extras
/// of `dir`, sans-serif being Inter.
fn svg_database(dir: &Path) -> Result<Arc<Database>, ResolveError> {
    let files: Vec<PathBuf> = CAPTION_FONTS
        .iter()
        .chain(&SVG_EXTRA_FONTS)
        .map(|name| dir.join(name))
        .collect();
    SVG_DATABASES.get_or_make(dir, &files, || {
        let mut db = Database::new();
        for (i, path) in files.iter().enumerate() {
            match read(path) {
                Ok(bytes) => db.load_font_data(bytes),
                Err(e) if i < CAPTION_FONTS.len() => return Err(e),
                Err(_) => {}
            }
        }
        db.set_sans_serif_family("Inter");
        Ok(Arc::new(db))
    })
}

fn read(path: &Path) -> Result<Vec<u8>, ResolveError> {
    std::fs::read(path).map_err(|e| ResolveError::Font {
        path: path.to_owned(),
        reason: e.to_string(),
    })
}

/// What a file was when it was read: its size and modification time, or `None` when it
/// could not be read.
type Stamp = Option<(u64, SystemTime)>;

fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// A value made from files, with the stamps the files had.
type Kept<T> = (Vec<Stamp>, T);

/// Values made from files, by key, kept while the files' stamps stay the same.
struct Memo<T>(Mutex<Option<HashMap<PathBuf, Kept<T>>>>);

impl<T: Clone> Memo<T> {
    const fn new() -> Self {
        Memo(Mutex::new(None))
    }

    /// The value kept for `key` if `files` are unchanged since it was made, else `make`'s
    /// (kept when it succeeds). `make` runs outside the lock: another thread's lookup need
    /// not wait for it.
    fn get_or_make(
        &self,
        key: &Path,
        files: &[PathBuf],
        make: impl FnOnce() -> Result<T, ResolveError>,
    ) -> Result<T, ResolveError> {
        let stamps: Vec<Stamp> = files.iter().map(|p| stamp(p)).collect();
        // Entries are only ever inserted whole: a panic elsewhere cannot leave one half made.
        let lock = || self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let current = |(kept, value): &Kept<T>| (*kept == stamps).then(|| value.clone());
        if let Some(value) = lock().as_ref().and_then(|m| m.get(key)).and_then(current) {
            return Ok(value);
        }
        let value = make()?;
        lock()
            .get_or_insert_with(HashMap::new)
            .insert(key.to_owned(), (stamps, value.clone()));
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A private copy of the pinned fonts, so a test may change them.
    fn fonts_copy() -> tempfile::TempDir {
        let pinned = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/fonts");
        let dir = tempfile::tempdir().unwrap();
        for name in CAPTION_FONTS.iter().chain(&SVG_EXTRA_FONTS) {
            std::fs::copy(pinned.join(name), dir.path().join(name)).unwrap();
        }
        dir
    }

    #[test]
    fn a_folder_is_parsed_once_while_its_files_stay_the_same() {
        let dir = fonts_copy();
        let first = svg_database(dir.path()).unwrap();
        let again = svg_database(dir.path()).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
    }

    #[test]
    fn a_font_file_changed_on_disk_is_read_again() {
        let dir = fonts_copy();
        let first = dir.path().join(CAPTION_FONTS[0]);
        face(&first).unwrap();
        std::fs::write(&first, b"not a font").unwrap();
        let Err(err) = face(&first) else {
            panic!("a font that no longer parses was served from the cache");
        };
        assert!(matches!(err, ResolveError::Font { path, .. } if path == first));
    }

    #[test]
    fn a_fallback_face_is_loaded_only_for_text_the_first_lacks() {
        let dir = fonts_copy();
        let latin = caption_fonts_for(dir.path(), ["Every", "scene"].into_iter()).unwrap();
        assert_eq!(latin.len(), 1);
        // Inter has Vietnamese; U+0500 (Cyrillic supplement) only Noto has.
        let vietnamese = caption_fonts_for(dir.path(), ["Việt"].into_iter()).unwrap();
        assert_eq!(vietnamese.len(), 1);
        let cyrillic = caption_fonts_for(dir.path(), ["Every", "\u{500}"].into_iter()).unwrap();
        assert_eq!(cyrillic.len(), CAPTION_FONTS.len());
        assert_eq!(
            caption_fonts_for(dir.path(), [].into_iter()).unwrap().len(),
            1
        );
    }
}
