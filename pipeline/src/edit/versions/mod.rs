//! The versions of a video's document, for undo and redo of every edit.
//!
//! Each edit that persists (every `modify_scene` branch, uploads, restores) records a version:
//! a [`Snapshot`] of the whole document with every scene's overlay spec. The first edit also
//! records the built state before it, so the first edit can be undone. Undo and redo never
//! rewrite history: an undo restores the version before the current one *as a new version*,
//! and a redo restores the version the last undo left.
//!
//! On disk, beside the video's other files (`{video_dir}/versions/`):
//!
//! ```text
//! history.json   the stacks: current version, undo stack, redo stack, each version's label
//! {n}.json       one snapshot per version still reachable
//! ```
//!
//! Retention: at most [`RETAINED`] versions can be undone; older ones are deleted, and a new edit
//! drops the redo stack. The audio, narrator and media files a snapshot names are never deleted
//! by an edit (uploads and swaps write new file names), so a kept version restores with its
//! files.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use compositor::spec::OverlaySpec;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use foundation::document::VideoDocument;
use foundation::files::write_atomic;

/// How many steps back an undo can go.
pub(crate) const RETAINED: usize = 50;

/// The document and every scene's overlay spec (by `voice_file`) at one version.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Snapshot {
    pub document: VideoDocument,
    pub specs: BTreeMap<String, OverlaySpec>,
}

/// One version as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Version {
    /// Increases by one with every recorded version.
    pub version: u64,
    /// What made it: the edit's family as `modify_scene` answers it (`layout`, `segment_text`,
    /// `disable_overlay`, `voice_upload`, …), or `built`, `undo`, `redo`, `abort`.
    pub label: String,
    /// Unix seconds.
    pub at: i64,
}

/// The stacks (`history.json`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct History {
    next: u64,
    current: Option<Version>,
    /// Oldest first; the last one is what an undo restores.
    undo: Vec<Version>,
    /// The last one is what a redo restores.
    redo: Vec<Version>,
}

/// Where a video's versions stand.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Standing {
    /// The version the document is at; `None` before the first edit.
    pub current: Option<Version>,
    /// Versions an undo can go back to, newest first.
    pub undo: Vec<Version>,
    /// Versions a redo can go forward to, next first.
    pub redo: Vec<Version>,
    /// At most this many versions are kept for undo.
    pub retained: usize,
}

/// Which way a restore goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    Undo,
    Redo,
}

impl Step {
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Undo => "undo",
            Step::Redo => "redo",
        }
    }
}

/// One video's versions folder.
pub(crate) struct Versions {
    dir: PathBuf,
}

impl Versions {
    /// The versions of the video whose files are in `video_dir`.
    pub fn of(video_dir: &Path) -> Versions {
        Versions {
            dir: video_dir.join("versions"),
        }
    }

    /// Whether no version is recorded yet (the next edit must record the state before it).
    pub fn is_empty(&self) -> io::Result<bool> {
        Ok(self.history()?.current.is_none())
    }

    /// Records `after` as the new current version, made by `label`. `before` is the state the
    /// edit started from, recorded first when the history is empty (then `before` is called).
    pub fn record(
        &self,
        before: impl FnOnce() -> Option<Snapshot>,
        after: &Snapshot,
        label: &str,
    ) -> io::Result<Version> {
        let mut h = self.history()?;
        if h.current.is_none()
            && let Some(b) = before()
        {
            h.current = Some(self.write_version(&mut h, &b, "built")?);
        }
        let version = self.write_version(&mut h, after, label)?;
        if let Some(previous) = h.current.replace(version.clone()) {
            h.undo.push(previous);
        }
        let dropped: Vec<Version> = h.redo.drain(..).collect();
        let excess = h.undo.len().saturating_sub(RETAINED);
        let expired: Vec<Version> = h.undo.drain(..excess).collect();
        self.save(&h)?;
        for v in dropped.iter().chain(&expired) {
            self.remove(v);
        }
        Ok(version)
    }

    /// Moves one step: the snapshot to restore and the new version it becomes, or `None` when
    /// there is nothing that way.
    pub fn step(&self, step: Step) -> io::Result<Option<(Snapshot, Version)>> {
        let mut h = self.history()?;
        let popped = match step {
            Step::Undo => h.undo.pop(),
            Step::Redo => h.redo.pop(),
        };
        let (Some(target), Some(current)) = (popped, h.current.clone()) else {
            return Ok(None);
        };
        let snapshot = self.read(&target)?;
        let version = self.write_version(&mut h, &snapshot, step.as_str())?;
        match step {
            Step::Undo => h.redo.push(current),
            Step::Redo => h.undo.push(current),
        }
        h.current = Some(version.clone());
        self.save(&h)?;
        // Its content lives on as the new version.
        self.remove(&target);
        Ok(Some((snapshot, version)))
    }

    /// Where the versions stand.
    pub fn standing(&self) -> io::Result<Standing> {
        let h = self.history()?;
        Ok(Standing {
            current: h.current,
            undo: h.undo.into_iter().rev().collect(),
            redo: h.redo.into_iter().rev().collect(),
            retained: RETAINED,
        })
    }

    fn history(&self) -> io::Result<History> {
        match std::fs::read(self.dir.join("history.json")) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(io::Error::other),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(History::default()),
            Err(e) => Err(e),
        }
    }

    fn save(&self, h: &History) -> io::Result<()> {
        let bytes = serde_json::to_vec(h).map_err(io::Error::other)?;
        write_atomic(&self.dir.join("history.json"), &bytes)
    }

    fn path(&self, v: &Version) -> PathBuf {
        self.dir.join(format!("{}.json", v.version))
    }

    fn write_version(&self, h: &mut History, s: &Snapshot, label: &str) -> io::Result<Version> {
        h.next += 1;
        let version = Version {
            version: h.next,
            label: label.to_string(),
            at: foundation::time::now(),
        };
        let bytes = serde_json::to_vec(s).map_err(io::Error::other)?;
        write_atomic(&self.path(&version), &bytes)?;
        Ok(version)
    }

    fn read(&self, v: &Version) -> io::Result<Snapshot> {
        let bytes = std::fs::read(self.path(v))?;
        serde_json::from_slice(&bytes).map_err(io::Error::other)
    }

    fn remove(&self, v: &Version) {
        let _ = std::fs::remove_file(self.path(v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot told apart by its title.
    fn snap(title: &str) -> Snapshot {
        let document: VideoDocument = serde_json::from_value(serde_json::json!({
            "topic_id": "t1",
            "title": title,
            "language": "English",
            "faceless": false,
            "script": "",
            "segments": [],
        }))
        .expect("a minimal document");
        Snapshot {
            document,
            specs: BTreeMap::new(),
        }
    }

    fn title(s: Option<(Snapshot, Version)>) -> (String, String) {
        let (s, v) = s.expect("a step");
        (s.document.title, v.label)
    }

    #[test]
    fn the_first_edit_records_the_built_state_so_it_can_be_undone() {
        let dir = tempfile::tempdir().unwrap();
        let v = Versions::of(dir.path());
        assert!(v.is_empty().unwrap());
        v.record(|| Some(snap("built")), &snap("a"), "layout")
            .unwrap();
        let s = v.standing().unwrap();
        assert_eq!(s.current.unwrap().version, 2);
        assert_eq!(s.undo.len(), 1);
        assert_eq!(s.undo[0].label, "built");
        assert_eq!(
            title(v.step(Step::Undo).unwrap()),
            ("built".into(), "undo".into())
        );
        assert!(
            v.step(Step::Undo).unwrap().is_none(),
            "nothing before the build"
        );
    }

    #[test]
    fn undo_and_redo_restore_as_new_versions_and_a_new_edit_drops_the_redo_stack() {
        let dir = tempfile::tempdir().unwrap();
        let v = Versions::of(dir.path());
        v.record(|| Some(snap("built")), &snap("a"), "layout")
            .unwrap();
        v.record(
            || unreachable!("only the first edit"),
            &snap("b"),
            "overlay",
        )
        .unwrap();
        assert_eq!(title(v.step(Step::Undo).unwrap()).0, "a");
        assert_eq!(title(v.step(Step::Undo).unwrap()).0, "built");
        assert_eq!(title(v.step(Step::Redo).unwrap()).0, "a");
        let s = v.standing().unwrap();
        assert_eq!(
            s.current.as_ref().unwrap().version,
            6,
            "every step is a new version"
        );
        assert_eq!(s.redo.len(), 1);
        v.record(|| None, &snap("c"), "text").unwrap();
        assert!(
            v.step(Step::Redo).unwrap().is_none(),
            "a new edit drops redo"
        );
        assert_eq!(title(v.step(Step::Undo).unwrap()).0, "a");
        // Only reachable versions keep a file.
        let files = std::fs::read_dir(dir.path().join("versions"))
            .unwrap()
            .count();
        let s = v.standing().unwrap();
        assert_eq!(files, 1 + 1 + s.undo.len() + s.redo.len(), "{s:?}");
    }

    #[test]
    fn no_more_than_the_retained_versions_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let v = Versions::of(dir.path());
        for i in 0..RETAINED + 5 {
            v.record(|| Some(snap("built")), &snap(&i.to_string()), "text")
                .unwrap();
        }
        let s = v.standing().unwrap();
        assert_eq!(s.undo.len(), RETAINED);
        assert_eq!(s.undo.last().unwrap().label, "text", "the build fell off");
        let files = std::fs::read_dir(dir.path().join("versions"))
            .unwrap()
            .count();
        assert_eq!(files, RETAINED + 2);
    }
}
