//! Versions of the document for the editor's undo and redo (`edit::versions` keeps them):
//! recording one after each edit that persists, and restoring one under the video's lock.

use serde::Serialize;
use utoipa::ToSchema;

use super::{Editor, scenes_not_ready};
use crate::edit::versions::{Snapshot, Standing, Step, Version, Versions};
use foundation::document::VideoDocument;
use foundation::error::{Code, Error, Result};

/// Realtime message of an undo or redo: every open editor reloads the video.
pub(crate) const VERSION_RESTORED: &str = "version_restored";

/// What an undo or redo answers, and the realtime message it publishes.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Restored {
    /// Always `video_version`.
    #[schema(example = "video_version")]
    pub object: &'static str,
    pub id: String,
    pub step: Step,
    /// The new version the restored state became.
    pub version: Version,
    pub versions: Standing,
}

/// Where a video's versions stand (`GET …/versions`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct VersionsReply {
    /// Always `video_versions`.
    #[schema(example = "video_versions")]
    pub object: &'static str,
    pub id: String,
    pub versions: Standing,
}

impl Editor {
    fn versions(&self, topic: &str) -> Versions {
        Versions::of(&self.settings.video_dir(topic))
    }

    /// The document with every scene's overlay spec, as the editor sees them now.
    fn snapshot(&self, doc: &VideoDocument) -> Result<Snapshot> {
        let mut specs = std::collections::BTreeMap::new();
        for seg in &doc.segments {
            if let Some(spec) = self.spec(doc, &seg.voice_file)? {
                specs.insert(seg.voice_file.clone(), spec);
            }
        }
        Ok(Snapshot {
            document: doc.clone(),
            specs,
        })
    }

    /// The state before a video's first recorded edit (taken before the edit touches any file),
    /// or `None` once versions exist. Held lock.
    pub(super) fn baseline(&self, doc: &VideoDocument) -> Option<Snapshot> {
        match self.versions(&doc.topic_id).is_empty() {
            Ok(true) => self.snapshot(doc).ok(),
            _ => None,
        }
    }

    /// Records the persisted `doc` as a new version made by `label`. Held lock. The edit has
    /// already landed, so a failure to record is logged, not answered.
    pub(super) fn record_version(
        &self,
        baseline: Option<Snapshot>,
        doc: &VideoDocument,
        label: &str,
    ) {
        let recorded = self
            .snapshot(doc)
            .map_err(|e| std::io::Error::other(e.to_string()))
            .and_then(|after| {
                self.versions(&doc.topic_id)
                    .record(|| baseline, &after, label)
            });
        if let Err(e) = recorded {
            tracing::warn!(topic = %doc.topic_id, error = %e, "edit not recorded as a version");
        }
    }

    /// Where the versions of `topic` stand.
    pub fn versions_of(&self, account: &str, topic: &str) -> Result<VersionsReply> {
        self.job(account, topic)?;
        Ok(VersionsReply {
            object: "video_versions",
            id: topic.to_string(),
            versions: self.versions(topic).standing().map_err(Error::internal)?,
        })
    }

    /// Undo or redo: the version that way becomes the document (and every scene's spec) as a
    /// new version, staged in the open edit session like any edit.
    pub fn restore(&self, account: &str, topic: &str, step: Step) -> Result<Restored> {
        let job = self.job(account, topic)?;
        if job.step < 5 {
            return Err(scenes_not_ready());
        }
        let lock = self.lock(topic);
        let _guard = lock.lock().unwrap_or_else(|p| p.into_inner());
        let versions = self.versions(topic);
        let (snapshot, version) = versions
            .step(step)
            .map_err(Error::internal)?
            .ok_or_else(|| nothing_that_way(step))?;
        self.persist(&snapshot.document, &snapshot.specs)?;
        let restored = Restored {
            object: "video_version",
            id: topic.to_string(),
            step,
            version,
            versions: versions.standing().map_err(Error::internal)?,
        };
        self.hub.publish(topic, VERSION_RESTORED, "", &restored);
        Ok(restored)
    }
}

fn nothing_that_way(step: Step) -> Error {
    match step {
        Step::Undo => Error::new(
            Code::NothingToUndo,
            "There is no earlier version of this video to go back to.",
        ),
        Step::Redo => Error::new(
            Code::NothingToRedo,
            "There is no undone version to go forward to.",
        ),
    }
}
