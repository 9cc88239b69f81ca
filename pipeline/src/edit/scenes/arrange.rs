//! The editor's scene-level changes that `modify_scene` has no branch for: speaking a scene's
//! edited text again (re-voice), reordering scenes and deleting one. Each runs under the video's
//! lock like every edit, persists the same way (staged in an open edit session) and records a
//! version, so undo reaches it.
//!
//! Scene identity follows the spec: a scene's `voice_file` is stable; its `id` (the display
//! order) is renumbered after a reorder or delete. Files are never deleted here: a deleted
//! scene's narration, media and spec stay for the versions that name them.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use utoipa::ToSchema;

use super::{Editor, scenes_not_ready};
use crate::core::document::VideoDocument;
use crate::core::error::{Code, Error, Result};

/// Realtime message of a re-voice, reorder or delete: open editors reload the video.
pub const SCENES_CHANGED: &str = "scenes_changed";

/// Which change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Revoice,
    Reorder,
    Delete,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Revoice => "revoice",
            Change::Reorder => "reorder",
            Change::Delete => "delete",
        }
    }
}

/// What a re-voice, reorder or delete answers (and publishes as `scenes_changed`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Arranged {
    /// Always `scene_arrangement`.
    #[schema(example = "scene_arrangement")]
    pub object: &'static str,
    pub id: String,
    /// `revoice`, `reorder` or `delete`.
    #[schema(example = "revoice")]
    pub change: &'static str,
    /// Re-voice: the scene's length before and after, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<LengthChange>,
    /// Every scene in its order after the change.
    pub scenes: Vec<SceneOrder>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct LengthChange {
    pub voice_file: String,
    pub from: f64,
    pub to: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SceneOrder {
    pub voice_file: String,
    /// Display order, from 1.
    pub id: u32,
    pub duration: f64,
}

impl Editor {
    /// Speaks scene `voice_file`'s current text again with the video's voice: the scene's
    /// duration and word timings follow the new audio.
    pub fn revoice(&self, account: &str, topic: &str, voice_file: &str) -> Result<Arranged> {
        self.arrange(account, topic, Change::Revoice, |editor, doc| {
            let index = index_of(doc, voice_file)?;
            let from = doc.segments[index].duration;
            crate::build::scenes::revoice(&editor.settings, editor.voice.as_ref(), doc, index)
                .map_err(|f| {
                    Error::new(
                        Code::SceneBuildFailed,
                        "The scene's text could not be spoken.",
                    )
                    .because(format!("{}: {:?}", f.message, f.cause))
                })?;
            Ok(Some(LengthChange {
                voice_file: voice_file.to_string(),
                from,
                to: doc.segments[index].duration,
            }))
        })
    }

    /// Puts the scenes in `order` (every `voice_file` once).
    pub fn reorder(&self, account: &str, topic: &str, order: &[String]) -> Result<Arranged> {
        self.arrange(account, topic, Change::Reorder, |_, doc| {
            let wanted: HashSet<&str> = order.iter().map(String::as_str).collect();
            let have: HashSet<&str> = doc.segments.iter().map(|s| s.voice_file.as_str()).collect();
            if wanted != have || order.len() != doc.segments.len() {
                return Err(Error::new(
                    Code::InvalidValue,
                    "`order` must name every scene's voice_file exactly once.",
                )
                .param("order"));
            }
            let mut by_file: BTreeMap<String, _> = doc
                .segments
                .drain(..)
                .map(|s| (s.voice_file.clone(), s))
                .collect();
            doc.segments = order.iter().filter_map(|vf| by_file.remove(vf)).collect();
            Ok(None)
        })
    }

    /// Deletes scene `voice_file`; a video keeps at least one scene.
    pub fn delete_scene(&self, account: &str, topic: &str, voice_file: &str) -> Result<Arranged> {
        self.arrange(account, topic, Change::Delete, |_, doc| {
            let index = index_of(doc, voice_file)?;
            if doc.segments.len() == 1 {
                return Err(Error::new(
                    Code::InvalidValue,
                    "A video keeps at least one scene; this is its last.",
                )
                .param("voice_file"));
            }
            doc.segments.remove(index);
            Ok(None)
        })
    }

    /// Runs `change` on a copy of the document under the video's lock, renumbers the scenes,
    /// persists, records a version and tells open editors. A refused change changes nothing.
    fn arrange(
        &self,
        account: &str,
        topic: &str,
        change: Change,
        apply: impl FnOnce(&Editor, &mut VideoDocument) -> Result<Option<LengthChange>>,
    ) -> Result<Arranged> {
        let job = self.job(account, topic)?;
        if job.step < 5 {
            return Err(scenes_not_ready());
        }
        let lock = self.lock(topic);
        let _guard = lock.lock().unwrap_or_else(|p| p.into_inner());
        let doc = self.document(topic)?.ok_or_else(scenes_not_ready)?;
        let baseline = self.baseline(&doc);
        let mut new = doc.clone();
        let duration = apply(self, &mut new)?;
        for (i, s) in new.segments.iter_mut().enumerate() {
            s.id = i as u32 + 1;
        }
        self.persist(&new, &BTreeMap::new())?;
        self.record_version(baseline, &new, change.as_str());
        let arranged = Arranged {
            object: "scene_arrangement",
            id: topic.to_string(),
            change: change.as_str(),
            duration,
            scenes: new
                .segments
                .iter()
                .map(|s| SceneOrder {
                    voice_file: s.voice_file.clone(),
                    id: s.id,
                    duration: s.duration,
                })
                .collect(),
        };
        self.hub.publish(topic, SCENES_CHANGED, "", &arranged);
        Ok(arranged)
    }
}

fn index_of(doc: &VideoDocument, voice_file: &str) -> Result<usize> {
    doc.segments
        .iter()
        .position(|s| s.voice_file == voice_file)
        .ok_or_else(|| {
            Error::new(Code::SceneNotFound, "The video has no such scene.").param("voice_file")
        })
}
