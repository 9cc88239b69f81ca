//! Writing files so that readers never see half of one.

use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` through a hidden temporary file in the same folder (created when
/// missing), synced, then renamed into place: `path` holds the old content or the new, never
/// part of it. The temporary file is removed when anything fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a file path has a folder"))?;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{}.part", crate::ids::file_token()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Below this much free space, a write that failed is put down to a full disk.
pub(crate) const LOW_DISK_BYTES: u64 = 16 * 1024 * 1024;

/// Whether the file system holding `path` has less than [`LOW_DISK_BYTES`] free for ordinary
/// writes; `false` when it cannot be told.
pub fn disk_nearly_full(path: &Path) -> bool {
    rustix::fs::statvfs(path)
        .map(|s| s.f_bavail.saturating_mul(s.f_frsize) < LOW_DISK_BYTES)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_files_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/spec.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        // A folder in the way of the rename fails cleanly.
        std::fs::create_dir(dir.path().join("a/b/dir")).unwrap();
        std::fs::write(dir.path().join("a/b/dir/x"), b"").unwrap();
        assert!(write_atomic(&dir.path().join("a/b/dir"), b"x").is_err());
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            2
        );
    }
}
