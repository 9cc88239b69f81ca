//! Illustration clips made on first use. A video search lists illustration clips by their
//! public URLs under `library/illustrations/clips/` without encoding them (about a second each
//! on 2 cores, so a search of ten used to take over ten): the media route, or modify_scene
//! reading our own public file, asks [`IllustrationClips`] to make one the first time it is
//! needed. Only a clip of the index with its current cache key is made, each at most once.

use std::io;
use std::path::PathBuf;

use foundation::public::OnDemand;
use video::build::Offline;

/// Makes `library/illustrations/clips/{id}-{key}.mp4`: the clip rendered into the illustration
/// cache, then published beside the search's other library files.
pub struct IllustrationClips {
    offline: Offline,
    /// The public root.
    public: PathBuf,
    /// Where the search publishes the clips, below the public root (`/`-separated, ending `/`).
    folder: String,
}

impl std::fmt::Debug for IllustrationClips {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IllustrationClips")
            .field("public", &self.public)
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

impl IllustrationClips {
    pub(crate) fn new(offline: Offline, public: PathBuf, folder: String) -> IllustrationClips {
        IllustrationClips {
            offline,
            public,
            folder,
        }
    }
}

impl OnDemand for IllustrationClips {
    fn make(&self, rel: &str) -> io::Result<bool> {
        let Some(name) = rel.strip_prefix(&self.folder) else {
            return Ok(false);
        };
        let started = std::time::Instant::now();
        let Some(cached) = self.offline.clip_named(name).map_err(io::Error::other)? else {
            return Ok(false);
        };
        let target = self.public.join(rel);
        if !target.exists() {
            foundation::files::write_atomic(&target, &std::fs::read(&cached)?)?;
            let ms = started.elapsed().as_millis() as u64;
            tracing::info!(clip = name, ms, "illustration clip made on first use");
        }
        Ok(true)
    }
}
