//! The chunk folder of a video: encoded scene chunks named by their keys, and the digests of
//! scenes' first frames (what the scene before fades into), named by picture keys.
//!
//! ```text
//! {video_dir}/chunks/full-{chunk key}.mp4         product-size chunks
//! {video_dir}/chunks/half-{voice_file}-{key}.mp4  preview-size chunks, per scene
//! {video_dir}/chunks/first-{picture key}          the digest of that scene's first frame
//! ```
//!
//! A chunk file appears only complete (the encoder writes a temporary name and renames), so a
//! file under a key is that key's chunk; after a render, [`ChunkDir::prune`] deletes what the
//! render no longer uses.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::key::Key;

/// The chunk folder of one video, for one family of chunks (`full`, or one scene's `half`).
pub struct ChunkDir {
    dir: PathBuf,
    prefix: String,
}

const FIRST: &str = "first-";

impl ChunkDir {
    /// The chunks of `video_dir` named `{prefix}-{key}.mp4`.
    pub fn new(video_dir: &Path, prefix: &str) -> ChunkDir {
        ChunkDir {
            dir: video_dir.join("chunks"),
            prefix: format!("{prefix}-"),
        }
    }

    /// Creates the folder.
    pub fn create(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)
    }

    /// Where the chunk under `key` lives (whether or not it exists yet).
    pub fn chunk(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{}{key}.mp4", self.prefix))
    }

    /// Where the encoded soundtrack under `key` lives (a chunk of this family, kept by a
    /// prune that lists it).
    pub fn audio(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{}audio-{key}.mp4", self.prefix))
    }

    /// The remembered first-frame digest of the scene with picture key `picture`.
    pub(crate) fn first_frame(&self, picture: &str) -> Option<Key> {
        let text = std::fs::read_to_string(self.dir.join(format!("{FIRST}{picture}"))).ok()?;
        let text = text.trim();
        (text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit())).then(|| text.to_owned())
    }

    /// Remembers the first-frame digest of the scene with picture key `picture`. Losing it
    /// costs only a re-render of that frame, so a failed write is not an error.
    pub(crate) fn remember_first_frame(&self, picture: &str, digest: &str) {
        let _ = foundation::files::write_atomic(
            &self.dir.join(format!("{FIRST}{picture}")),
            digest.as_bytes(),
        );
    }

    /// Deletes this family's chunks other than `keep`, and first-frame digests of pictures
    /// other than `pictures` when `pictures` is given. Returns how many files went.
    pub(crate) fn prune(&self, keep: &[PathBuf], pictures: Option<&HashSet<Key>>) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let keep: HashSet<&Path> = keep.iter().map(PathBuf::as_path).collect();
        let mut removed = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let stale_chunk = name.starts_with(&self.prefix)
                && name.ends_with(".mp4")
                && !keep.contains(path.as_path());
            let stale_first = pictures.is_some_and(|pictures| {
                name.strip_prefix(FIRST)
                    .is_some_and(|key| !pictures.contains(key))
            });
            if (stale_chunk || stale_first) && std::fs::remove_file(&path).is_ok() {
                removed += 1;
            }
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prune_keeps_what_the_render_used_and_other_families() {
        let video = std::env::temp_dir().join(format!("reelsmith-chunkdir-{}", std::process::id()));
        let full = ChunkDir::new(&video, "full");
        full.create().unwrap();
        let half = ChunkDir::new(&video, "half-v1");
        for path in [full.chunk("a"), full.chunk("b"), half.chunk("c")] {
            std::fs::write(path, b"x").unwrap();
        }
        let key = "0123456789abcdef0123456789abcdef";
        full.remember_first_frame("p1", key);
        full.remember_first_frame("p2", key);
        assert_eq!(full.first_frame("p1").as_deref(), Some(key));
        assert_eq!(full.first_frame("nope"), None);

        let pictures: HashSet<Key> = ["p1".to_owned()].into();
        assert_eq!(full.prune(&[full.chunk("a")], Some(&pictures)), 2);
        assert!(full.chunk("a").is_file());
        assert!(!full.chunk("b").exists());
        assert!(half.chunk("c").is_file(), "another family is left alone");
        assert!(full.first_frame("p1").is_some());
        assert!(full.first_frame("p2").is_none());
        let _ = std::fs::remove_dir_all(&video);
    }
}
