//! The embedded B-roll provider: the self-made library and the illustrations, one ranking.

use std::sync::Arc;

use super::Illustrations;
use crate::build::broll::{BrollError, BrollItem, BrollProvider, Library, Query};
use foundation::document::{BrollSource, MediaKind};

/// The library files and, when installed, the illustration index.
pub struct Offline {
    pub library: Arc<Library>,
    pub art: Option<Illustrations>,
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
