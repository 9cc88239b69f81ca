//! The record of a written-content job: what was asked (kept beside the job, whose own row is
//! the job core's) and what the source turned out to be. One row per topic id in the `content`
//! table, written in the transaction that creates the job.

use serde::{Deserialize, Serialize};

use foundation::model::{ContentType, Language};
use foundation::store::{Store, StoreResult, Table, Tx};

/// topic id → [`ContentRecord`].
pub(crate) const CONTENT: Table = Table::new("content");

/// Where a piece's material comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum ContentInput {
    /// A web page: its main text is read.
    Url(String),
    /// A short idea (up to [`crate::content::request::IDEA_MAX_WORDS`] words): the piece grows
    /// from it.
    Idea(String),
    /// Pasted text: the piece is drawn from it.
    Text(String),
}

/// A `create_content` request, validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PieceRequest {
    pub input: ContentInput,
    pub content_type: ContentType,
    pub language: Language,
}

/// An `enhance_script` request, validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnhanceRequest {
    pub script: String,
}

/// What a written-content job was asked to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Work {
    Piece(PieceRequest),
    Enhance(EnhanceRequest),
}

/// What the Researching stage read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceSummary {
    /// The page's title (URL sources) or the piece's topic.
    pub title: String,
    /// The page, for URL sources.
    #[serde(default)]
    pub url: Option<String>,
    /// Words of the text read.
    pub words: usize,
}

/// One written-content job's own record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentRecord {
    pub topic_id: String,
    pub work: Work,
    /// Filled once the source was read.
    #[serde(default)]
    pub source: Option<SourceSummary>,
}

impl ContentRecord {
    pub fn load(store: &Store, topic: &str) -> StoreResult<Option<ContentRecord>> {
        store.record(CONTENT, topic)
    }

    pub fn put(&self, tx: &mut Tx) -> StoreResult<()> {
        tx.put_record(CONTENT, &self.topic_id, self)
    }
}
