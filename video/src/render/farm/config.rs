//! `[storage]`: the blob store of render workers.

use std::path::PathBuf;

use foundation::config::Section;
use serde::Deserialize;

/// The blob store render workers and the API node exchange chunk inputs and chunks through
/// (`queue.kind = "nats"`): a folder all of them mount, or an S3-compatible bucket. Public
/// media is always served by the API node from its data directory.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorageConfig {
    pub kind: StorageKind,
    /// The folder of `kind = "local"`; default `{data_dir}/blobs`.
    pub dir: Option<PathBuf>,
    /// The bucket of `kind = "s3"`.
    pub bucket: String,
    /// The S3 endpoint (`http://garage:3900`); empty means AWS itself.
    pub endpoint: String,
    pub region: String,
    pub access_key_id: String,
    pub secret_access_key: String,
    /// Allows an `http://` endpoint (a store inside the cluster's network).
    pub allow_http: bool,
}

/// Which blob store (`storage.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageKind {
    #[default]
    Local,
    S3,
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            kind: StorageKind::Local,
            dir: None,
            bucket: String::new(),
            endpoint: String::new(),
            region: "us-east-1".into(),
            access_key_id: String::new(),
            secret_access_key: String::new(),
            allow_http: false,
        }
    }
}

impl Section for StorageConfig {
    const NAME: &'static str = "storage";
}
