//! The blob store the API node and render workers exchange files through: a folder they all
//! mount, or an S3-compatible bucket (`[storage]`), both through the `object_store` crate.
//!
//! ```text
//! inputs/{sha256}      a file a chunk reads, named by its bytes (uploaded once)
//! chunks/{key}.mp4     an encoded chunk, named by its chunk key
//! ```
//!
//! Both are content-addressed, so a second upload of the same name is the same bytes and
//! writers never coordinate.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::buffered::BufWriter;
use object_store::local::LocalFileSystem;
use object_store::path::Path as Location;
use object_store::{ObjectStore, ObjectStoreExt};
use tokio::io::AsyncWriteExt;

use crate::render::farm::config::{StorageConfig, StorageKind};

/// Why a blob could not be moved.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BlobError {
    #[error("blob store: {0}")]
    Store(#[from] object_store::Error),
    #[error("local file: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0} does not read")]
    Unreadable(String),
}

/// The blob store, with the inputs this process knows are stored.
pub(crate) struct Blobs {
    store: Arc<dyn ObjectStore>,
    stored: Mutex<HashSet<String>>,
}

fn input(digest: &str) -> Location {
    Location::from(format!("inputs/{digest}"))
}

fn chunk(key: &str) -> Location {
    Location::from(format!("chunks/{key}.mp4"))
}

impl Blobs {
    /// The store `config` names; a local one defaults to `{data_dir}/blobs`.
    pub fn open(config: &StorageConfig, data_dir: &Path) -> Result<Blobs, String> {
        let store: Arc<dyn ObjectStore> = match config.kind {
            StorageKind::Local => {
                let dir = config.dir.clone().unwrap_or_else(|| data_dir.join("blobs"));
                std::fs::create_dir_all(&dir)
                    .map_err(|e| format!("storage.dir {}: {e}", dir.display()))?;
                Arc::new(
                    LocalFileSystem::new_with_prefix(&dir)
                        .map_err(|e| format!("storage.dir {}: {e}", dir.display()))?,
                )
            }
            StorageKind::S3 => {
                if config.bucket.is_empty() {
                    return Err("storage.bucket is required when storage.kind = \"s3\"".into());
                }
                let mut s3 = AmazonS3Builder::new()
                    .with_bucket_name(&config.bucket)
                    .with_region(&config.region)
                    .with_access_key_id(&config.access_key_id)
                    .with_secret_access_key(&config.secret_access_key)
                    .with_allow_http(config.allow_http);
                if !config.endpoint.is_empty() {
                    s3 = s3.with_endpoint(&config.endpoint);
                }
                Arc::new(s3.build().map_err(|e| format!("storage: {e}"))?)
            }
        };
        Ok(Blobs {
            store,
            stored: Mutex::default(),
        })
    }

    /// Stores the file at `path` under `digest` (its SHA-256) unless the store has it;
    /// returns the bytes uploaded.
    pub(crate) async fn put_input(&self, path: &Path, digest: &str) -> Result<u64, BlobError> {
        if self.stored.lock().is_ok_and(|s| s.contains(digest)) {
            return Ok(0);
        }
        let location = input(digest);
        let sent = match self.store.head(&location).await {
            Ok(_) => 0,
            Err(object_store::Error::NotFound { .. }) => self.upload(path, &location).await?,
            Err(e) => return Err(e.into()),
        };
        if let Ok(mut stored) = self.stored.lock() {
            stored.insert(digest.to_owned());
        }
        Ok(sent)
    }

    /// Copies the input stored under `digest` to `dest`; returns the bytes fetched.
    pub(crate) async fn fetch_input(&self, digest: &str, dest: &Path) -> Result<u64, BlobError> {
        self.download(&input(digest), dest).await
    }

    /// Stores the encoded chunk at `file` under `key`; returns its size.
    pub(crate) async fn put_chunk(&self, key: &str, file: &Path) -> Result<u64, BlobError> {
        self.upload(file, &chunk(key)).await
    }

    /// Copies the chunk under `key` to `dest`: `Ok(None)` when the store has no such chunk
    /// (yet), else the bytes fetched.
    pub(crate) async fn fetch_chunk(
        &self,
        key: &str,
        dest: &Path,
    ) -> Result<Option<u64>, BlobError> {
        match self.download(&chunk(key), dest).await {
            Ok(n) => Ok(Some(n)),
            Err(BlobError::Store(object_store::Error::NotFound { .. })) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether the chunk under `key` is stored.
    pub(crate) async fn has_chunk(&self, key: &str) -> Result<bool, BlobError> {
        match self.store.head(&chunk(key)).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Streams `path` to `location` (multipart for large files); the object appears whole.
    async fn upload(&self, path: &Path, location: &Location) -> Result<u64, BlobError> {
        let mut file = tokio::fs::File::open(path)
            .await
            .map_err(|_| BlobError::Unreadable(path.display().to_string()))?;
        let mut writer = BufWriter::new(self.store.clone(), location.clone());
        let sent = tokio::io::copy(&mut file, &mut writer).await;
        match sent {
            Ok(sent) => {
                writer.shutdown().await?;
                Ok(sent)
            }
            Err(e) => {
                let _ = writer.abort().await;
                Err(e.into())
            }
        }
    }

    /// Streams `location` to `dest` through a temporary name, so `dest` appears only whole.
    async fn download(&self, location: &Location, dest: &Path) -> Result<u64, BlobError> {
        let got = self.store.get(location).await?;
        let part = dest.with_extension("part");
        let mut file = tokio::fs::File::create(&part).await?;
        let mut stream = got.into_stream();
        let mut n = 0u64;
        while let Some(bytes) = stream.next().await {
            let bytes = match bytes {
                Ok(b) => b,
                Err(e) => {
                    let _ = tokio::fs::remove_file(&part).await;
                    return Err(e.into());
                }
            };
            n += bytes.len() as u64;
            file.write_all(&bytes).await?;
        }
        file.sync_all().await?;
        drop(file);
        tokio::fs::rename(&part, dest).await?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(dir: &Path) -> Blobs {
        let config = StorageConfig {
            dir: Some(dir.join("store")),
            ..StorageConfig::default()
        };
        Blobs::open(&config, dir).unwrap()
    }

    #[tokio::test]
    async fn an_input_is_uploaded_once_and_reads_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = local(dir.path());
        let src = dir.path().join("a.png");
        std::fs::write(&src, b"some bytes").unwrap();
        assert_eq!(blobs.put_input(&src, "d1").await.unwrap(), 10);
        assert_eq!(blobs.put_input(&src, "d1").await.unwrap(), 0);
        // Another process (a fresh Blobs) sees it stored and does not upload again.
        assert_eq!(local(dir.path()).put_input(&src, "d1").await.unwrap(), 0);
        let dest = dir.path().join("copy.png");
        assert_eq!(blobs.fetch_input("d1", &dest).await.unwrap(), 10);
        assert_eq!(std::fs::read(&dest).unwrap(), b"some bytes");
    }

    #[tokio::test]
    async fn a_missing_chunk_is_none_and_a_stored_one_is_fetched() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = local(dir.path());
        let dest = dir.path().join("c.mp4");
        assert!(!blobs.has_chunk("k").await.unwrap());
        assert_eq!(blobs.fetch_chunk("k", &dest).await.unwrap(), None);
        assert!(!dest.exists(), "nothing is left behind for a missing chunk");
        let src = dir.path().join("enc.mp4");
        std::fs::write(&src, vec![7u8; 3 << 20]).unwrap();
        assert_eq!(blobs.put_chunk("k", &src).await.unwrap(), 3 << 20);
        assert!(blobs.has_chunk("k").await.unwrap());
        assert_eq!(blobs.fetch_chunk("k", &dest).await.unwrap(), Some(3 << 20));
        assert_eq!(std::fs::read(&dest).unwrap(), std::fs::read(&src).unwrap());
    }

    #[tokio::test]
    async fn an_unreadable_input_says_which_file() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = local(dir.path());
        let err = blobs
            .put_input(&dir.path().join("gone.png"), "d2")
            .await
            .unwrap_err();
        assert!(matches!(err, BlobError::Unreadable(p) if p.ends_with("gone.png")));
    }
}
