//! The editor's scene-level changes that `modify_scene` has no branch for: speaking a scene's
//! edited text again (re-voice), reordering scenes, deleting one and adding one. Each runs under the video's
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
use foundation::document::{Segment, VideoDocument};
use foundation::error::{Code, Error, Result};
use foundation::jobs::JobFailure;
use video::build::Providers;

/// Realtime message of a re-voice, reorder, delete or add: open editors reload the video.
pub(crate) const SCENES_CHANGED: &str = "scenes_changed";

/// Which change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Revoice,
    Reorder,
    Delete,
    Add,
}

impl Change {
    /// The version label undo shows for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Revoice => "revoice",
            Change::Reorder => "reorder",
            Change::Delete => "delete",
            Change::Add => "add",
        }
    }
}

/// What a re-voice, reorder, delete or add answers (and publishes as `scenes_changed`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Arranged {
    /// Always `scene_arrangement`.
    #[schema(example = "scene_arrangement")]
    pub object: &'static str,
    pub id: String,
    pub change: Change,
    /// Re-voice: the scene's length before and after, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<LengthChange>,
    /// Add: the new scene.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added: Option<SceneOrder>,
    /// Every scene in its order after the change.
    pub scenes: Vec<SceneOrder>,
}

/// What one change reports beside the new order.
#[derive(Debug, Default)]
struct Detail {
    duration: Option<LengthChange>,
    /// The `voice_file` of an added scene.
    added: Option<String>,
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
            let voice = editor.providers()?.voice;
            video::build::revoice(&editor.settings, voice.as_ref(), doc, index)
                .map_err(|f| build_failed("The scene's text could not be spoken.", f))?;
            Ok(Detail {
                duration: Some(LengthChange {
                    voice_file: voice_file.to_string(),
                    from,
                    to: doc.segments[index].duration,
                }),
                added: None,
            })
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
            Ok(Detail::default())
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
            Ok(Detail::default())
        })
    }

    /// Adds a scene that says `text` after scene `after` (first when `None`), built as the
    /// scene builder builds every scene: spoken with the video's voice, its visual picked.
    pub fn add_scene(
        &self,
        account: &str,
        topic: &str,
        after: Option<&str>,
        text: &str,
    ) -> Result<Arranged> {
        self.arrange(account, topic, Change::Add, |editor, doc| {
            let at = match after {
                Some(vf) => index_of(doc, vf).map_err(|e| e.param("after"))? + 1,
                None => 0,
            };
            let providers = editor.providers()?;
            let added = video::build::add_scene(&editor.settings, &providers, doc, at, text)
                .map_err(|f| build_failed("The new scene could not be built.", f))?;
            Ok(Detail {
                duration: None,
                added: Some(added),
            })
        })
    }

    /// The configured voice, writer and B-roll, as the scene builder has them.
    fn providers(&self) -> Result<Providers> {
        Providers::from_settings(
            &self.settings,
            &self.fetcher,
            &self.runtime,
            self.voice.clone(),
        )
        .map_err(|e| {
            Error::new(
                Code::SceneBuildFailed,
                "The configured providers are unavailable.",
            )
            .because(e)
        })
    }

    /// Runs `change` on a copy of the document under the video's lock, renumbers the scenes,
    /// persists, records a version and tells open editors. A refused change changes nothing.
    fn arrange(
        &self,
        account: &str,
        topic: &str,
        change: Change,
        apply: impl FnOnce(&Editor, &mut VideoDocument) -> Result<Detail>,
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
        let detail = apply(self, &mut new)?;
        for (i, s) in new.segments.iter_mut().enumerate() {
            s.id = i as u32 + 1;
        }
        self.persist(&new, &BTreeMap::new())?;
        self.record_version(baseline, &new, change.as_str());
        let scenes: Vec<SceneOrder> = new.segments.iter().map(SceneOrder::of).collect();
        let arranged = Arranged {
            object: "scene_arrangement",
            id: topic.to_string(),
            change,
            duration: detail.duration,
            added: detail
                .added
                .and_then(|vf| scenes.iter().find(|s| s.voice_file == vf).cloned()),
            scenes,
        };
        self.hub.publish(topic, SCENES_CHANGED, "", &arranged);
        Ok(arranged)
    }
}

impl SceneOrder {
    fn of(s: &Segment) -> SceneOrder {
        SceneOrder {
            voice_file: s.voice_file.clone(),
            id: s.id,
            duration: s.duration,
        }
    }
}

/// A build failure as the editor's error (its cause only in the log).
fn build_failed(message: &str, f: JobFailure) -> Error {
    Error::new(Code::SceneBuildFailed, message).because(format!("{}: {:?}", f.message, f.cause))
}

fn index_of(doc: &VideoDocument, voice_file: &str) -> Result<usize> {
    doc.segments
        .iter()
        .position(|s| s.voice_file == voice_file)
        .ok_or_else(|| {
            Error::new(Code::SceneNotFound, "The video has no such scene.").param("voice_file")
        })
}
