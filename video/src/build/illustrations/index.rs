//! The illustration index (`{assets_dir}/illustrations/index.json`, made by `make
//! illustrations`): one entry per illustration with its title and keywords, searched through
//! the synonym list.

use std::path::Path;

use serde::Deserialize;

use super::synonyms::{self, Phrase, Relation};
use crate::build::broll::tokenize;

#[derive(Debug, Deserialize)]
struct IndexFile {
    items: Vec<Entry>,
}

/// One illustration: `svg/{id}.svg` beside the index.
#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    pub id: String,
    /// What is shown ("Hot beverage").
    pub title: String,
    pub keywords: Vec<String>,
    /// The set's subgroup ("drink", "person-role").
    #[serde(default)]
    pub group: String,
}

/// The loaded index with each entry's tokens.
#[derive(Debug, Default)]
pub struct Index {
    pub entries: Vec<Entry>,
    titles: Vec<Vec<String>>,
    /// Title and keyword tokens together.
    words: Vec<Vec<String>>,
}

/// An id is a file name: lowercase letters, digits and hyphens only.
fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Index {
    /// Reads `{dir}/index.json`.
    pub fn load(dir: &Path) -> Result<Index, String> {
        let path = dir.join("index.json");
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: IndexFile =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(bad) = file.items.iter().find(|e| !plain_id(&e.id)) {
            return Err(format!("illustration id {:?} is not a plain name", bad.id));
        }
        let titles = file.items.iter().map(|e| tokenize(&e.title)).collect();
        let words = file
            .items
            .iter()
            .map(|e| {
                let mut w = tokenize(&e.title);
                w.extend(e.keywords.iter().flat_map(|k| tokenize(k)));
                w.sort();
                w.dedup();
                w
            })
            .collect();
        Ok(Index {
            entries: file.items,
            titles,
            words,
        })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries for `keyword`, best first, with their scores: the keyword, its synonyms and the
    /// pictures that show it; when a phrase of several words finds nothing, each of its words.
    /// Nothing relevant is an empty list.
    pub fn search(&self, keyword: &str) -> Vec<(usize, f64)> {
        let found = self.score(&synonyms::expand(keyword));
        if !found.is_empty() {
            return found;
        }
        let words = tokenize(keyword);
        if words.len() < 2 {
            return found;
        }
        let phrases: Vec<Phrase> = words
            .iter()
            .flat_map(|w| synonyms::expand(w))
            .map(|p| Phrase {
                relation: if p.relation == Relation::Same {
                    Relation::Synonym
                } else {
                    Relation::Shows
                },
                ..p
            })
            .collect();
        self.score(&phrases)
    }

    /// Each entry's best phrase (a phrase in the title counts one more), best first.
    fn score(&self, phrases: &[Phrase]) -> Vec<(usize, f64)> {
        let mut out: Vec<(usize, f64)> = (0..self.entries.len())
            .filter_map(|i| {
                phrases
                    .iter()
                    .filter(|p| synonyms::phrase_in(p, &self.words[i]))
                    .map(|p| {
                        let in_title = synonyms::phrase_in(p, &self.titles[i]);
                        p.relation.weight() + if in_title { 1.0 } else { 0.0 }
                    })
                    .max_by(f64::total_cmp)
                    .map(|s| (i, s))
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}
