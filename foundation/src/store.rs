//! The redb store: the source of truth for every record. Values are JSON
//! documents (readable with any redb tool, easy to evolve with serde
//! defaults); blobs never live here, only under the data directory.
//!
//! All writes go through [`Store::write`], one redb transaction per call, so a
//! state change and the webhook it causes commit together or not at all.

use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use serde::{Serialize, de::DeserializeOwned};
use std::path::Path;
use std::sync::Arc;

use crate::link_bases::LinkBases;
use crate::model::{Account, Delivery, Job, QueueEntry};

/// A table of JSON records keyed by string. The job core's tables are below; a capability
/// folder (content, plans, …) declares its own `Table` constant beside its model and reads
/// and writes it through [`Store::record`], [`Store::records`] and the `Tx` methods of the
/// same names, so the store never has to know the records of the folders above it.
#[derive(Clone, Copy)]
pub struct Table {
    def: TableDefinition<'static, &'static str, &'static [u8]>,
    name: &'static str,
}

impl Table {
    pub const fn new(name: &'static str) -> Table {
        Table {
            def: TableDefinition::new(name),
            name,
        }
    }
}

const ACCOUNTS: Table = Table::new("accounts");
/// SHA-256 of an API key → account name.
const API_KEYS: TableDefinition<&str, &str> = TableDefinition::new("api_keys");
const JOBS: Table = Table::new("jobs");
/// topic id → the work it waits for, with the lease of the worker on it.
const QUEUE: Table = Table::new("queue");
/// delivery id → a webhook delivery not yet acknowledged or abandoned.
const OUTBOX: Table = Table::new("outbox");
/// topic id → the video document (scenes) as JSON.
const DOCUMENTS: Table = Table::new("documents");

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Db(#[from] redb::Error),
    #[error("corrupt record in {table}/{key}: {source}")]
    Corrupt {
        table: &'static str,
        key: String,
        source: serde_json::Error,
    },
}

impl StoreError {
    /// The database file is held by another process (redb locks it on open).
    pub fn is_in_use(&self) -> bool {
        matches!(self, StoreError::Db(redb::Error::DatabaseAlreadyOpen))
    }
}

/// A store failure reaching a client is an internal error (its cause only in the log).
impl From<StoreError> for crate::error::Error {
    fn from(e: StoreError) -> Self {
        crate::error::Error::internal(e)
    }
}

macro_rules! from_redb {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self { StoreError::Db(e.into()) }
        }
    )*};
}
from_redb!(
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError
);

pub type StoreResult<T> = Result<T, StoreError>;

pub struct Store {
    db: Database,
    /// Where job links are served now: every job read is moved onto them (`None`: as stored).
    bases: Option<Arc<LinkBases>>,
}

fn decode<T: DeserializeOwned>(table: &'static str, key: &str, bytes: &[u8]) -> StoreResult<T> {
    serde_json::from_slice(bytes).map_err(|source| StoreError::Corrupt {
        table,
        key: key.to_string(),
        source,
    })
}

fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).expect("records always serialise")
}

impl Store {
    /// Opens (or creates) `reelsmith.redb` and makes sure every table exists.
    pub fn open(path: &Path) -> StoreResult<Store> {
        let db = Database::create(path)?;
        let txn = db.begin_write()?;
        {
            for table in [ACCOUNTS, JOBS, QUEUE, OUTBOX, DOCUMENTS] {
                txn.open_table(table.def)?;
            }
            txn.open_table(API_KEYS)?;
        }
        txn.commit()?;
        Ok(Store { db, bases: None })
    }

    /// The store, reading every job's `review_url` and `video_url` on `bases` (whatever base
    /// they were stored with), so links follow the configured `base_url`.
    pub fn with_link_bases(self, bases: LinkBases) -> Store {
        Store {
            bases: Some(Arc::new(bases)),
            ..self
        }
    }

    /// Runs `f` in one write transaction and commits it. When `f` fails
    /// nothing is written.
    pub fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut Tx) -> Result<T, E>,
    ) -> Result<T, E> {
        let txn = self.db.begin_write().map_err(StoreError::from)?;
        let mut tx = Tx {
            txn,
            bases: self.bases.clone(),
        };
        let out = f(&mut tx)?;
        tx.txn.commit().map_err(StoreError::from)?;
        Ok(out)
    }

    /// The record under `key` in `table`; `None` when absent (or the table was never written).
    pub fn record<T: DeserializeOwned>(&self, table: Table, key: &str) -> StoreResult<Option<T>> {
        let txn = self.db.begin_read()?;
        let t = match txn.open_table(table.def) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        match t.get(key)? {
            Some(v) => Ok(Some(decode(table.name, key, v.value())?)),
            None => Ok(None),
        }
    }

    /// Every record of `table`, in key order.
    pub fn records<T: DeserializeOwned>(&self, table: Table) -> StoreResult<Vec<(String, T)>> {
        let txn = self.db.begin_read()?;
        let t = match txn.open_table(table.def) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for row in t.iter()? {
            let (k, v) = row?;
            out.push((
                k.value().to_string(),
                decode(table.name, k.value(), v.value())?,
            ));
        }
        Ok(out)
    }

    pub fn job(&self, topic: &str) -> StoreResult<Option<Job>> {
        Ok(self.record(JOBS, topic)?.map(|j| rebased(&self.bases, j)))
    }

    pub fn document<T: DeserializeOwned>(&self, topic: &str) -> StoreResult<Option<T>> {
        self.record(DOCUMENTS, topic)
    }

    pub fn account(&self, name: &str) -> StoreResult<Option<Account>> {
        self.record(ACCOUNTS, name)
    }

    pub(crate) fn account_count(&self) -> StoreResult<u64> {
        let txn = self.db.begin_read()?;
        Ok(txn.open_table(ACCOUNTS.def)?.len()?)
    }

    /// The account an API key belongs to, by the key's hash.
    pub(crate) fn account_for_key_hash(&self, hash: &str) -> StoreResult<Option<Account>> {
        let name = {
            let txn = self.db.begin_read()?;
            let table = txn.open_table(API_KEYS)?;
            table.get(hash)?.map(|v| v.value().to_string())
        };
        match name {
            Some(n) => self.account(&n),
            None => Ok(None),
        }
    }

    pub fn queue(&self) -> StoreResult<Vec<(String, QueueEntry)>> {
        self.records(QUEUE)
    }

    pub fn outbox(&self) -> StoreResult<Vec<(String, Delivery)>> {
        self.records(OUTBOX)
    }

    /// One outbox row as it stands now (a scan's snapshot may be older).
    pub fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        self.record(OUTBOX, id)
    }

    pub fn jobs(&self) -> StoreResult<Vec<(String, Job)>> {
        Ok(self
            .records(JOBS)?
            .into_iter()
            .map(|(k, j)| (k, rebased(&self.bases, j)))
            .collect())
    }
}

/// `job` with its links on `bases`, when the store has them.
fn rebased(bases: &Option<Arc<LinkBases>>, mut job: Job) -> Job {
    if let Some(b) = bases {
        job.review_url = job.review_url.map(|u| b.review_url(&u));
        job.video_url = job.video_url.map(|u| b.video_url(&u));
    }
    job
}

/// One open write transaction.
pub struct Tx {
    txn: redb::WriteTransaction,
    /// The store's link bases: jobs read here are moved onto them too.
    bases: Option<Arc<LinkBases>>,
}

impl Tx {
    /// The record under `key` in `table`, seen by this transaction.
    pub fn record<T: DeserializeOwned>(&self, table: Table, key: &str) -> StoreResult<Option<T>> {
        let t = self.txn.open_table(table.def)?;
        let v = t.get(key)?;
        match v {
            Some(v) => Ok(Some(decode(table.name, key, v.value())?)),
            None => Ok(None),
        }
    }

    /// Writes (or replaces) the record under `key` in `table`.
    pub fn put_record<T: Serialize>(
        &mut self,
        table: Table,
        key: &str,
        value: &T,
    ) -> StoreResult<()> {
        let mut t = self.txn.open_table(table.def)?;
        t.insert(key, encode(value).as_slice())?;
        Ok(())
    }

    /// Removes the record under `key`; true when there was one.
    pub fn remove_record(&mut self, table: Table, key: &str) -> StoreResult<bool> {
        let mut t = self.txn.open_table(table.def)?;
        Ok(t.remove(key)?.is_some())
    }

    pub fn account(&self, name: &str) -> StoreResult<Option<Account>> {
        self.record(ACCOUNTS, name)
    }

    pub(crate) fn put_account(&mut self, a: &Account) -> StoreResult<()> {
        self.put_record(ACCOUNTS, &a.name, a)
    }

    pub(crate) fn put_key_hash(&mut self, hash: &str, account: &str) -> StoreResult<()> {
        let mut table = self.txn.open_table(API_KEYS)?;
        table.insert(hash, account)?;
        Ok(())
    }

    pub fn job(&self, topic: &str) -> StoreResult<Option<Job>> {
        Ok(self.record(JOBS, topic)?.map(|j| rebased(&self.bases, j)))
    }

    pub fn put_job(&mut self, job: &Job) -> StoreResult<()> {
        self.put_record(JOBS, &job.topic_id, job)
    }

    pub fn document<T: DeserializeOwned>(&self, topic: &str) -> StoreResult<Option<T>> {
        self.record(DOCUMENTS, topic)
    }

    pub fn put_document<T: Serialize>(&mut self, topic: &str, doc: &T) -> StoreResult<()> {
        self.put_record(DOCUMENTS, topic, doc)
    }

    /// Every queue entry, seen by this transaction.
    pub fn queue(&self) -> StoreResult<Vec<(String, QueueEntry)>> {
        let t = self.txn.open_table(QUEUE.def)?;
        let mut out = Vec::new();
        for row in t.iter()? {
            let (k, v) = row?;
            out.push((
                k.value().to_string(),
                decode(QUEUE.name, k.value(), v.value())?,
            ));
        }
        Ok(out)
    }

    pub(crate) fn queue_entry(&self, topic: &str) -> StoreResult<Option<QueueEntry>> {
        self.record(QUEUE, topic)
    }

    pub(crate) fn put_queue_entry(&mut self, topic: &str, e: &QueueEntry) -> StoreResult<()> {
        self.put_record(QUEUE, topic, e)
    }

    pub(crate) fn remove_queue_entry(&mut self, topic: &str) -> StoreResult<bool> {
        self.remove_record(QUEUE, topic)
    }

    pub fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        self.record(OUTBOX, id)
    }

    pub(crate) fn put_delivery(&mut self, id: &str, d: &Delivery) -> StoreResult<()> {
        self.put_record(OUTBOX, id, d)
    }

    pub(crate) fn remove_delivery(&mut self, id: &str) -> StoreResult<bool> {
        self.remove_record(OUTBOX, id)
    }
}
