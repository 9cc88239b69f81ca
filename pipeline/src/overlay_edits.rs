//! modify_scene branches B (`remotion.upload_overlay`), M (`remotion.add_element`) and
//! O (`overlay.text_edit`): the overlay-design half of scene editing. The scene-editing module
//! finds the scene, holds the per-video lock, persists the document, bumps the spec version and
//! publishes `scene_modified`; this module changes the spec and its files.

use serde_json::Value;

use crate::config::Settings;
use crate::document::VideoDocument;
use crate::error::{Code, Error};
use crate::fetch::Fetcher;

/// What branch B/M/O edits need besides the document.
pub struct OverlayEditContext<'a> {
    pub settings: &'a Settings,
    pub fetcher: &'a Fetcher,
    /// For the downloads of branch B (callers run on a blocking thread).
    pub runtime: &'a tokio::runtime::Handle,
}

/// The field names this module handles.
pub const FIELDS: &[&str] = &[
    "remotion.upload_overlay",
    "remotion.add_element",
    "overlay.text_edit",
];

/// Applies one B/M/O field to scene `index` of `doc` and returns the branch's `applied` object.
/// On error nothing in `doc` or on disk has changed.
pub fn apply(
    ctx: &OverlayEditContext<'_>,
    doc: &mut VideoDocument,
    index: usize,
    field: &str,
    value: &Value,
) -> Result<Value, Error> {
    let _ = (ctx, doc, index, value);
    Err(Error::new(
        Code::InvalidFieldName,
        format!("`{field}` edits are not available on this server yet."),
    )
    .param("fields"))
}
