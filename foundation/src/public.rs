//! The public media origin's expiring files: screenshots, overlay posters and `video_data` files
//! (900 s) and uploaded assets (24 h), served without auth under `{origin_url}`.
//!
//! Lifetime belongs to the folder, not to an index: everything under `tmp/` lives
//! `public.temp_ttl_secs`, everything under `assets/` lives `public.asset_ttl_secs`, counted from
//! the file's modification time. A file is written to a hidden temporary name and renamed into
//! place, so a URL never shows a half-written file. The media route answers 410 for an expired
//! file even before the sweeper ([`PublicFiles::sweep`]) has deleted it.

use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::config::Settings;
use crate::{ids, time};

/// How long a published file lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifetime {
    /// Screenshots, posters, video-data files: `public.temp_ttl_secs` (900 s).
    Temp,
    /// Uploaded assets: `public.asset_ttl_secs` (24 h).
    Asset,
}

impl Lifetime {
    /// The top folder under the public root holding files of this lifetime.
    pub fn folder(self) -> &'static str {
        match self {
            Lifetime::Temp => "tmp",
            Lifetime::Asset => "assets",
        }
    }
}

/// A file now reachable under `{origin_url}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    /// The public URL (no query string).
    pub url: String,
    /// Path on disk.
    pub path: PathBuf,
    pub bytes: u64,
    /// Unix seconds.
    pub expires_at: i64,
    pub ttl_seconds: u64,
}

impl Published {
    /// `expires_at` as ISO 8601 UTC.
    pub fn expires_at_iso(&self) -> String {
        time::iso(self.expires_at)
    }
}

/// Files of the public folder made the first time they are asked for, by the capability that
/// names them: a URL is handed out before its file exists, and the media route and
/// [`PublicFiles::local_file`] have it made on first use.
pub trait OnDemand: Send + Sync + std::fmt::Debug {
    /// Makes the file at `rel` (below the public root, `/`-separated) when it is one of this
    /// maker's: `Ok(true)` once it exists, `Ok(false)` for a name that is not its own. Blocking.
    fn make(&self, rel: &str) -> io::Result<bool>;
}

/// The expiring part of the public folder.
#[derive(Debug, Clone)]
pub struct PublicFiles {
    root: PathBuf,
    origin_url: String,
    temp_ttl: Duration,
    asset_ttl: Duration,
    on_demand: Option<Arc<dyn OnDemand>>,
}

/// A random 16-hex token: unguessable file names and cache busters.
pub fn token() -> String {
    ids::file_token()
}

fn unix(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl PublicFiles {
    pub fn new(settings: &Settings) -> Self {
        PublicFiles {
            root: settings.data_dir.join("public"),
            origin_url: settings.origin_url.clone(),
            temp_ttl: Duration::from_secs(settings.public.temp_ttl_secs),
            asset_ttl: Duration::from_secs(settings.public.asset_ttl_secs),
            on_demand: None,
        }
    }

    /// These files, with `maker` making its own the first time they are asked for.
    pub fn making(self, maker: Arc<dyn OnDemand>) -> Self {
        PublicFiles {
            on_demand: Some(maker),
            ..self
        }
    }

    /// Whether `rel` is missing and a maker could make it: only then is [`Self::make_missing`]
    /// worth a blocking thread. One `stat`.
    pub fn may_make(&self, rel: &str) -> bool {
        self.on_demand.is_some() && self.path(rel).is_ok_and(|p| !p.exists())
    }

    /// Makes the file at `rel` when it is missing and the maker names it; a missing file no
    /// maker names stays missing (`Ok`). Blocking.
    pub fn make_missing(&self, rel: &str) -> io::Result<()> {
        let path = self.path(rel)?;
        if let Some(maker) = &self.on_demand
            && !path.exists()
        {
            maker.make(rel)?;
        }
        Ok(())
    }

    pub fn ttl(&self, lifetime: Lifetime) -> Duration {
        match lifetime {
            Lifetime::Temp => self.temp_ttl,
            Lifetime::Asset => self.asset_ttl,
        }
    }

    /// The public URL of `rel` (a path below the public root, `/`-separated).
    pub fn url(&self, rel: &str) -> String {
        format!("{}/{}", self.origin_url, rel)
    }

    /// The file behind one of our own public URLs (`{origin_url}/…`, query ignored), when it
    /// exists (made first when a maker names it) and has not expired: read locally instead of
    /// fetched over the network. Blocking.
    pub fn local_file(&self, url: &str) -> Option<PathBuf> {
        let rel = url.strip_prefix(&self.origin_url)?.strip_prefix('/')?;
        let rel = rel.split(['?', '#']).next()?;
        let path = self.path(rel).ok()?;
        if let Err(e) = self.make_missing(rel) {
            tracing::warn!(file = rel, error = %e, "a public file could not be made");
        }
        (path.is_file() && !self.is_expired(rel, SystemTime::now())).then_some(path)
    }

    /// Where `rel` lives on disk. `rel` is built by this module's callers from generated names;
    /// anything that could leave the root is refused.
    pub fn path(&self, rel: &str) -> io::Result<PathBuf> {
        let p = Path::new(rel);
        if rel.is_empty() || !p.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "public path must be relative and plain",
            ));
        }
        Ok(self.root.join(p))
    }

    /// Writes `bytes` atomically at `{folder of lifetime}/{name}` (`name` may contain `/`),
    /// replacing any file there, and returns its URL and expiry.
    pub fn write(&self, lifetime: Lifetime, name: &str, bytes: &[u8]) -> io::Result<Published> {
        let rel = format!("{}/{}", lifetime.folder(), name);
        let path = self.path(&rel)?;
        crate::files::write_atomic(&path, bytes)?;
        self.published(lifetime, &rel, bytes.len() as u64, SystemTime::now())
    }

    /// Moves an already written file (an upload streamed to disk) into place at
    /// `{folder}/{name}`; its lifetime counts from `created` (its mtime is set to it).
    pub fn adopt(
        &self,
        lifetime: Lifetime,
        name: &str,
        file: &Path,
        created: SystemTime,
    ) -> io::Result<Published> {
        let rel = format!("{}/{}", lifetime.folder(), name);
        let path = self.path(&rel)?;
        std::fs::create_dir_all(path.parent().expect("joined below root"))?;
        std::fs::File::options()
            .write(true)
            .open(file)?
            .set_modified(created)?;
        std::fs::rename(file, &path)?;
        let bytes = std::fs::metadata(&path)?.len();
        self.published(lifetime, &rel, bytes, created)
    }

    fn published(
        &self,
        lifetime: Lifetime,
        rel: &str,
        bytes: u64,
        created: SystemTime,
    ) -> io::Result<Published> {
        let ttl = self.ttl(lifetime);
        Ok(Published {
            url: self.url(rel),
            path: self.path(rel)?,
            bytes,
            expires_at: unix(created + ttl),
            ttl_seconds: ttl.as_secs(),
        })
    }

    /// The lifetime of a request path below the public root, when it is an expiring file.
    fn lifetime_of(rel: &str) -> Option<Lifetime> {
        match rel.split('/').next()? {
            "tmp" => Some(Lifetime::Temp),
            "assets" => Some(Lifetime::Asset),
            _ => None,
        }
    }

    /// Whether the file at request path `rel` has expired (`false` for files that never expire
    /// and for files that do not exist: the file server answers those).
    pub fn is_expired(&self, rel: &str, now: SystemTime) -> bool {
        let Some(lifetime) = Self::lifetime_of(rel) else {
            return false;
        };
        let Ok(path) = self.path(rel) else {
            return false;
        };
        match std::fs::metadata(&path).and_then(|m| m.modified()) {
            Ok(modified) => modified + self.ttl(lifetime) <= now,
            Err(_) => false,
        }
    }

    /// Deletes every expired file (and expired, empty folders) below the expiring folders;
    /// returns how many files went. Leftover `.part` files older than the lifetime go too.
    pub fn sweep(&self, now: SystemTime) -> io::Result<usize> {
        let mut removed = 0;
        for lifetime in [Lifetime::Temp, Lifetime::Asset] {
            let dir = self.root.join(lifetime.folder());
            if dir.is_dir() {
                removed += sweep_dir(&dir, self.ttl(lifetime), now, false)?;
            }
        }
        Ok(removed)
    }
}

fn sweep_dir(
    dir: &Path,
    ttl: Duration,
    now: SystemTime,
    remove_if_empty: bool,
) -> io::Result<usize> {
    let mut removed = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            removed += sweep_dir(&path, ttl, now, true)?;
        } else if let Ok(modified) = entry.metadata().and_then(|m| m.modified())
            && modified + ttl <= now
        {
            match std::fs::remove_file(&path) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    // A folder expires like a file: when it has been untouched for the lifetime. One a writer
    // has just made (to put its file in next) is fresh, so the sweep leaves it. Removal fails
    // harmlessly when the folder is not empty.
    let expired = |m: std::fs::Metadata| m.modified().is_ok_and(|t| t + ttl <= now);
    if remove_if_empty && std::fs::metadata(dir).is_ok_and(expired) {
        let _ = std::fs::remove_dir(dir);
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path) -> PublicFiles {
        PublicFiles {
            root: dir.to_path_buf(),
            origin_url: "http://h/media".into(),
            temp_ttl: Duration::from_secs(900),
            asset_ttl: Duration::from_secs(86400),
            on_demand: None,
        }
    }

    /// Makes `made/{n}.txt` for any `n`, counting its calls.
    #[derive(Debug)]
    struct Counter(PathBuf, std::sync::atomic::AtomicUsize);

    impl OnDemand for Counter {
        fn make(&self, rel: &str) -> io::Result<bool> {
            self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if !rel.starts_with("made/") {
                return Ok(false);
            }
            crate::files::write_atomic(&self.0.join(rel), b"made")?;
            Ok(true)
        }
    }

    #[test]
    fn a_file_its_maker_names_is_made_once_on_first_use() {
        let dir = tempfile::tempdir().unwrap();
        let maker = Arc::new(Counter(dir.path().to_path_buf(), Default::default()));
        let pf = files(dir.path()).making(maker.clone());
        let path = pf
            .local_file("http://h/media/made/a.txt?v=1")
            .expect("made");
        assert_eq!(std::fs::read(path).unwrap(), b"made");
        pf.local_file("http://h/media/made/a.txt").expect("kept");
        pf.make_missing("made/a.txt").unwrap();
        assert!(!pf.may_make("made/a.txt") && pf.may_make("made/new.txt"));
        assert_eq!(
            maker.1.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "made once"
        );
        assert!(pf.local_file("http://h/media/other/b.txt").is_none());
        assert!(pf.make_missing("../escape").is_err());
        assert!(
            files(dir.path())
                .local_file("http://h/media/made/c.txt")
                .is_none(),
            "no maker"
        );
    }

    #[test]
    fn writes_atomically_and_expires_by_folder() {
        let dir = tempfile::tempdir().unwrap();
        let pf = files(dir.path());
        let name = format!("shots/{}.jpg", token());
        let p = pf.write(Lifetime::Temp, &name, b"jpeg").unwrap();
        assert_eq!(p.url, format!("http://h/media/tmp/{name}"));
        assert_eq!(std::fs::read(&p.path).unwrap(), b"jpeg");
        assert_eq!(p.ttl_seconds, 900);
        let rel = format!("tmp/{name}");
        let now = SystemTime::now();
        assert!(!pf.is_expired(&rel, now));
        assert!(pf.is_expired(&rel, now + Duration::from_secs(901)));
        assert!(!pf.is_expired("videos/x.mp4", now + Duration::from_secs(10_000_000)));
        // Nothing but the final file is left in the folder.
        let names: Vec<_> = std::fs::read_dir(p.path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn sweep_deletes_only_expired_files() {
        let dir = tempfile::tempdir().unwrap();
        let pf = files(dir.path());
        let a = pf.write(Lifetime::Temp, "a/x.json", b"{}").unwrap();
        let b = pf.write(Lifetime::Asset, "k/y.png", b"png").unwrap();
        let now = SystemTime::now();
        assert_eq!(pf.sweep(now).unwrap(), 0);
        assert_eq!(pf.sweep(now + Duration::from_secs(1000)).unwrap(), 1);
        assert!(!a.path.exists() && !a.path.parent().unwrap().exists());
        assert!(b.path.exists());
        assert_eq!(pf.sweep(now + Duration::from_secs(90_000)).unwrap(), 1);
        assert!(!b.path.exists());
    }

    /// A writer makes its folder and then its file: a sweep in between must not take the
    /// folder (it used to, and the writer's file then had nowhere to go).
    #[test]
    fn sweep_leaves_a_folder_a_writer_has_just_made() {
        let dir = tempfile::tempdir().unwrap();
        let pf = files(dir.path());
        let fresh = dir.path().join("assets/k");
        std::fs::create_dir_all(&fresh).unwrap();
        assert_eq!(pf.sweep(SystemTime::now()).unwrap(), 0);
        assert!(fresh.is_dir());
        pf.write(Lifetime::Asset, "k/y.png", b"png").unwrap();
    }

    #[test]
    fn refuses_paths_that_leave_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let pf = files(dir.path());
        for bad in ["../x", "/etc/passwd", "a/../../b", ""] {
            assert!(pf.path(bad).is_err(), "{bad}");
        }
        assert!(pf.write(Lifetime::Temp, "../../escape", b"x").is_err());
    }
}
