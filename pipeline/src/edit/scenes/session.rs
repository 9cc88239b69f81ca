//! Edit sessions: a video's whole document cached in memory while a client makes many edits,
//! backed by a write-ahead journal so staged edits survive a crash.
//!
//! Journal: `data_dir/journal/{topic}.jsonl`, one JSON line per event, each a full snapshot
//! (the document and the overlay specs staged so far), appended and `fsync`ed before the edit is
//! acknowledged. Start writes a `start` line; every staged edit a `write` line. On start-up every
//! journal is replayed: the last complete line is the session's state (a torn last line from a
//! crash mid-write is dropped, and the file is rewritten without it), so the session is active
//! again with its staged edits. Commit writes the specs and the document once, then deletes the
//! journal; abort deletes it. Snapshots instead of deltas keep replay trivially correct; a
//! document is tens of kilobytes, so this is cheap at editing speed.
//!
//! Staged overlay-spec edits (branches C/D) live in the session too and reach the spec files on
//! commit. Branches B/M/O write their own overlay files directly; only the scene's version
//! token is staged for them.
//!
//! Locking is the caller's: every method that changes a session runs under the video's lock.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use compositor::spec::OverlaySpec;
use serde::{Deserialize, Serialize};

use foundation::document::VideoDocument;

/// One journal line.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// `start` or `write`.
    kind: String,
    /// Unix seconds of this event.
    at: i64,
    started: i64,
    staged_writes: u64,
    doc: VideoDocument,
    #[serde(default)]
    specs: BTreeMap<String, OverlaySpec>,
}

/// A session's public state.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    pub started: i64,
    pub last_write: Option<i64>,
    pub staged_writes: u64,
}

/// An active session.
pub struct Session {
    pub doc: VideoDocument,
    /// Overlay specs staged by voice_file.
    pub specs: BTreeMap<String, OverlaySpec>,
    pub started: i64,
    pub last_write: Option<i64>,
    pub staged_writes: u64,
    journal: File,
}

impl Session {
    pub fn info(&self) -> Info {
        Info {
            started: self.started,
            last_write: self.last_write,
            staged_writes: self.staged_writes,
        }
    }

    /// Unix seconds of the last activity (start or write).
    pub(crate) fn last_activity(&self) -> i64 {
        self.last_write.unwrap_or(self.started)
    }

    fn append(&mut self, kind: &str, at: i64) -> io::Result<()> {
        let entry = Entry {
            kind: kind.into(),
            at,
            started: self.started,
            staged_writes: self.staged_writes,
            doc: self.doc.clone(),
            specs: self.specs.clone(),
        };
        let mut line = serde_json::to_vec(&entry).map_err(io::Error::other)?;
        line.push(b'\n');
        self.journal.write_all(&line)?;
        self.journal.sync_data()
    }
}

/// Every active session of this process.
pub struct Sessions {
    dir: PathBuf,
    map: Mutex<HashMap<String, Session>>,
}

fn journal_path(dir: &Path, topic: &str) -> PathBuf {
    dir.join(format!("{topic}.jsonl"))
}

impl Sessions {
    /// Opens the journal folder and replays every journal in it.
    pub fn open(dir: &Path) -> io::Result<Sessions> {
        std::fs::create_dir_all(dir)?;
        let mut map = HashMap::new();
        for e in std::fs::read_dir(dir)? {
            let path = e?.path();
            let Some(topic) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".jsonl"))
                .filter(|t| foundation::ids::is_topic_id(t))
                .map(str::to_string)
            else {
                continue;
            };
            match replay(&path)? {
                Some(s) => {
                    tracing::info!(%topic, staged = s.staged_writes, "edit session replayed from its journal");
                    map.insert(topic, s);
                }
                None => {
                    tracing::warn!(%topic, "empty or unreadable edit journal removed");
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        Ok(Sessions {
            dir: dir.to_path_buf(),
            map: Mutex::new(map),
        })
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The session's document, if a session is active.
    pub fn doc(&self, topic: &str) -> Option<VideoDocument> {
        self.map().get(topic).map(|s| s.doc.clone())
    }

    /// A staged spec of the session, if any.
    pub fn spec(&self, topic: &str, voice_file: &str) -> Option<OverlaySpec> {
        self.map()
            .get(topic)
            .and_then(|s| s.specs.get(voice_file).cloned())
    }

    pub fn info(&self, topic: &str) -> Option<Info> {
        self.map().get(topic).map(Session::info)
    }

    /// Starts a session over `doc` (or returns the active one unchanged).
    pub fn start(&self, topic: &str, doc: VideoDocument, now: i64) -> io::Result<Info> {
        let mut map = self.map();
        if let Some(s) = map.get(topic) {
            return Ok(s.info());
        }
        let path = journal_path(&self.dir, topic);
        let journal = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .open(&path)?;
        let mut s = Session {
            doc,
            specs: BTreeMap::new(),
            started: now,
            last_write: None,
            staged_writes: 0,
            journal,
        };
        s.append("start", now)?;
        sync_dir(&self.dir);
        let info = s.info();
        map.insert(topic.to_string(), s);
        Ok(info)
    }

    /// Stages an edit: the new document and the specs it changed. `Ok(false)` when no session
    /// is active (the caller writes through). On a journal error the session is unchanged.
    pub fn stage(
        &self,
        topic: &str,
        doc: &VideoDocument,
        specs: &BTreeMap<String, OverlaySpec>,
        now: i64,
    ) -> io::Result<bool> {
        let mut map = self.map();
        let Some(s) = map.get_mut(topic) else {
            return Ok(false);
        };
        let (old_doc, old_specs, old_last, old_n) = (
            std::mem::replace(&mut s.doc, doc.clone()),
            s.specs.clone(),
            s.last_write,
            s.staged_writes,
        );
        s.specs
            .extend(specs.iter().map(|(k, v)| (k.clone(), v.clone())));
        s.last_write = Some(now);
        s.staged_writes += 1;
        if let Err(e) = s.append("write", now) {
            s.doc = old_doc;
            s.specs = old_specs;
            s.last_write = old_last;
            s.staged_writes = old_n;
            return Err(e);
        }
        Ok(true)
    }

    /// Ends the session and hands back its state (commit flushes it, abort drops it). The
    /// journal stays until [`Sessions::forget`], so a crash mid-commit replays it.
    pub fn take(&self, topic: &str) -> Option<Session> {
        self.map().remove(topic)
    }

    /// Puts a session back (a commit that could not be written).
    pub fn restore(&self, topic: &str, s: Session) {
        self.map().insert(topic.to_string(), s);
    }

    /// Deletes the journal of an ended session.
    pub fn forget(&self, topic: &str) -> io::Result<()> {
        match std::fs::remove_file(journal_path(&self.dir, topic)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => {
                sync_dir(&self.dir);
                Ok(())
            }
        }
    }

    /// Topics whose session has been idle at least `idle_secs` at `now`.
    pub fn idle(&self, now: i64, idle_secs: u64) -> Vec<String> {
        self.map()
            .iter()
            .filter(|(_, s)| now - s.last_activity() >= idle_secs as i64)
            .map(|(t, _)| t.clone())
            .collect()
    }
}

/// Makes a created or deleted journal's directory entry durable.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// The session a journal describes: its last complete line. A torn tail is cut off.
fn replay(path: &Path) -> io::Result<Option<Session>> {
    let reader = BufReader::new(File::open(path)?);
    let mut last: Option<Entry> = None;
    let mut good = Vec::new();
    let mut torn = false;
    for line in reader.split(b'\n') {
        let line = line?;
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Entry>(&line) {
            Ok(e) => {
                good.push(line);
                last = Some(e);
            }
            Err(_) => torn = true,
        }
    }
    let Some(e) = last else {
        return Ok(None);
    };
    if torn {
        let tmp = path.with_extension("jsonl.tmp");
        let mut f = File::create(&tmp)?;
        for l in &good {
            f.write_all(l)?;
            f.write_all(b"\n")?;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
    }
    let journal = OpenOptions::new().append(true).open(path)?;
    Ok(Some(Session {
        last_write: (e.kind == "write").then_some(e.at),
        doc: e.doc,
        specs: e.specs,
        started: e.started,
        staged_writes: e.staged_writes,
        journal,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(title: &str) -> VideoDocument {
        let mut d = crate::edit::scenes::test_doc("wcS", Vec::new());
        d.title = title.into();
        d
    }

    #[test]
    fn staged_writes_replay_after_a_crash_and_a_torn_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = Sessions::open(dir.path()).unwrap();
            s.start("wcS", doc("v0"), 100).unwrap();
            assert!(s.stage("wcS", &doc("v1"), &BTreeMap::new(), 110).unwrap());
            assert!(s.stage("wcS", &doc("v2"), &BTreeMap::new(), 120).unwrap());
            assert!(
                !s.stage("wcOther", &doc("x"), &BTreeMap::new(), 120)
                    .unwrap()
            );
            // The process dies here: no commit, nothing dropped cleanly.
        }
        // A crash in the middle of a third write.
        let path = dir.path().join("wcS.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"kind\":\"write\",\"at\":13").unwrap();
        drop(f);

        let s = Sessions::open(dir.path()).unwrap();
        assert_eq!(s.doc("wcS").unwrap().title, "v2");
        assert_eq!(
            s.info("wcS").unwrap(),
            Info {
                started: 100,
                last_write: Some(120),
                staged_writes: 2
            }
        );
        // Appending after replay still gives a readable journal.
        assert!(s.stage("wcS", &doc("v3"), &BTreeMap::new(), 130).unwrap());
        drop(s);
        let s = Sessions::open(dir.path()).unwrap();
        assert_eq!(s.doc("wcS").unwrap().title, "v3");
        assert_eq!(s.idle(130 + 10, 10), vec!["wcS".to_string()]);
        assert!(s.idle(135, 10).is_empty());
        let taken = s.take("wcS").unwrap();
        assert_eq!(taken.staged_writes, 3);
        s.forget("wcS").unwrap();
        assert!(!path.exists());
        assert!(Sessions::open(dir.path()).unwrap().info("wcS").is_none());
    }

    #[test]
    fn start_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let s = Sessions::open(dir.path()).unwrap();
        let a = s.start("wcS", doc("a"), 5).unwrap();
        s.stage("wcS", &doc("b"), &BTreeMap::new(), 6).unwrap();
        let b = s.start("wcS", doc("c"), 7).unwrap();
        assert_eq!(a.started, b.started);
        assert_eq!(s.doc("wcS").unwrap().title, "b");
    }
}
