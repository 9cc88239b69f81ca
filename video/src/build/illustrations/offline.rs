//! The embedded B-roll provider: the self-made library and the illustrations, one ranking.

use std::sync::Arc;

use super::Illustrations;
use crate::build::broll::{BrollError, BrollItem, BrollProvider, Library, Query};
use foundation::document::{BrollSource, MediaKind};

/// The library files and, when installed, the illustration index.
#[derive(Clone)]
pub struct Offline {
    pub library: Arc<Library>,
    pub art: Option<Arc<Illustrations>>,
}

impl Offline {
    /// Makes `item`'s local file exist (illustrations are rendered the first time); library
    /// files already do.
    pub fn prepare(&self, item: &BrollItem) -> Result<(), BrollError> {
        match &self.art {
            Some(art) if Illustrations::owns(item) => art.prepare(item),
            _ => Ok(()),
        }
    }

    /// Makes `item`'s picture exist, not its clip (an illustration clip is rendered when it is
    /// first used or asked for); library files already do.
    pub fn prepare_picture(&self, item: &BrollItem) -> Result<(), BrollError> {
        match &self.art {
            Some(art) if Illustrations::owns(item) => art.prepare_picture(item),
            _ => Ok(()),
        }
    }

    /// Whether `item` is an illustration clip, whose encoding waits until it is first used.
    pub fn is_illustration_clip(item: &BrollItem) -> bool {
        Illustrations::owns(item) && item.kind == MediaKind::Video
    }

    /// The illustration clip whose cached file is named `file`, rendered into the cache if it
    /// was not: its path there. `Ok(None)` when no illustration clip has that name today.
    pub fn clip_named(&self, file: &str) -> Result<Option<std::path::PathBuf>, BrollError> {
        let Some(item) = self.art.as_ref().and_then(|a| a.clip_named(file)) else {
            return Ok(None);
        };
        self.prepare(&item)?;
        Ok(item.local)
    }

    /// How many assets the two hold.
    pub fn len(&self) -> usize {
        self.library.len() + self.art.as_ref().map_or(0, |a| a.index.len() * 2)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl BrollProvider for Offline {
    fn source(&self) -> BrollSource {
        BrollSource::Library
    }

    /// Both searched, merged by score (the library first on a tie), at most `q.limit`.
    fn search(&self, q: &Query<'_>) -> Result<Vec<BrollItem>, BrollError> {
        let mut items = self.library.search(q)?;
        let grid = items.iter().any(|i| i.procedural.is_some());
        if let (Some(art), false) = (&self.art, grid) {
            let limit = q.limit.max(1);
            let kinds: &[MediaKind] = match q.kind {
                Some(MediaKind::Image) => &[MediaKind::Image],
                Some(MediaKind::Video) => &[MediaKind::Video],
                None => &[MediaKind::Image, MediaKind::Video],
            };
            for &kind in kinds {
                items.extend(art.search(q.keyword, kind, limit));
            }
            items.sort_by(|a, b| b.score.total_cmp(&a.score));
            items.truncate(limit);
        }
        Ok(items)
    }

    fn download(&self, item: &BrollItem) -> Result<Vec<u8>, BrollError> {
        self.prepare(item)?;
        self.library.download(item)
    }
}
