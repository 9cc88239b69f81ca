//! `reelsmith worker`: a stateless render worker. It pulls one chunk task at a time, fetches
//! the files the chunk reads from the blob store (keeping them, by digest, for the next task),
//! renders and encodes the chunk exactly as the API node would, stores it under its key and
//! answers on the render's subject.
//!
//! While it renders it sends JetStream an in-progress heartbeat every third of the ack wait,
//! so a long chunk is not handed to another worker; a worker killed mid-chunk stops beating
//! and the task is delivered again after the ack wait. A task that cannot be made (an input
//! that does not decode) is a dead letter at once; any other failure is retried by JetStream
//! until its last delivery, which makes it a dead letter.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, AckKind};
use compositor::media::encoder_identity;

use super::blobs::Blobs;
use super::queue::Queue;
use super::task::{ChunkResult, ChunkTask, Outcome, Progress};
use crate::render::chunks::key::scene_files_mut;
use crate::render::chunks::{Failure, render_part};
use foundation::config::Settings;

/// How long a fetched input is kept after the last task that used it: the worker's copies
/// are a cache of the blob store, never the only copy.
const INPUTS_KEPT: Duration = Duration::from_secs(24 * 3600);

/// How long to wait before trying NATS again while it cannot be reached.
const RECONNECT_EVERY: Duration = Duration::from_secs(1);

/// A render worker.
pub struct Worker {
    queue: Queue,
    blobs: Arc<Blobs>,
    /// `{data_dir}/worker`: fetched inputs by digest, fonts folders, chunks being encoded.
    dir: PathBuf,
    name: String,
}

/// Why a task failed on this worker.
struct TaskError {
    /// The client's to fix: no other worker would do better.
    input: bool,
    message: String,
    cause: String,
}

impl TaskError {
    fn server(cause: impl std::fmt::Display) -> TaskError {
        TaskError {
            input: false,
            message: "The video could not be encoded.".into(),
            cause: cause.to_string(),
        }
    }
}

impl From<Failure> for TaskError {
    fn from(f: Failure) -> TaskError {
        let input = matches!(f, Failure::Input(_));
        let f = f.into_job();
        TaskError {
            input,
            cause: f.cause.unwrap_or_else(|| f.message.clone()),
            message: f.message,
        }
    }
}

/// What a finished task moved and how long it took.
struct Made {
    fetch: Duration,
    render: Duration,
    store: Duration,
    fetched: u64,
    stored: u64,
}

impl Worker {
    /// Connects to the queue (waiting for NATS while it is down, until `shutdown`) and the
    /// blob store.
    pub async fn connect(
        settings: &Settings,
        shutdown: &mut (impl Future<Output = ()> + Unpin),
    ) -> Result<Option<Worker>, String> {
        let name = worker_name();
        let blobs = Arc::new(Blobs::open(
            &settings.section::<super::config::StorageConfig>(),
            &settings.data_dir,
        )?);
        let dir = settings.data_dir.join("worker");
        std::fs::create_dir_all(dir.join("inputs")).map_err(|e| e.to_string())?;
        std::fs::create_dir_all(dir.join("out")).map_err(|e| e.to_string())?;
        loop {
            match Queue::connect(&settings.queue, &name).await {
                Ok(queue) => {
                    return Ok(Some(Worker {
                        queue,
                        blobs,
                        dir,
                        name,
                    }));
                }
                Err(e) => tracing::warn!(error = %e, "the chunk queue is not reachable yet"),
            }
            tokio::select! {
                _ = &mut *shutdown => return Ok(None),
                _ = tokio::time::sleep(RECONNECT_EVERY) => {}
            }
        }
    }

    /// Takes tasks until `shutdown`; a task being rendered is finished first.
    pub async fn run(&self, mut shutdown: impl Future<Output = ()> + Unpin) -> Result<(), String> {
        tracing::info!(worker = %self.name, "render worker waiting for chunks");
        let consumer = self.queue.consumer().await.map_err(|e| e.to_string())?;
        loop {
            let next = tokio::select! {
                _ = &mut shutdown => return Ok(()),
                next = self.queue.next_task(&consumer) => next,
            };
            match next {
                Ok(Some(message)) => self.take(message).await,
                // The pull expired with the queue empty: ask again.
                Ok(None) => {}
                // NATS restarting: the client reconnects by itself; ask again shortly.
                Err(e) => {
                    tracing::debug!(error = %e, "pulling chunk tasks");
                    tokio::time::sleep(RECONNECT_EVERY / 4).await;
                }
            }
        }
    }

    /// One delivered task, to its ack.
    async fn take(&self, message: jetstream::Message) {
        let delivered = message.info().map(|i| i.delivered).unwrap_or(1);
        let task: ChunkTask = match serde_json::from_slice(&message.payload) {
            Ok(task) => task,
            Err(e) => {
                tracing::warn!(error = %e, "a chunk task did not parse; terminated");
                let _ = message.ack_with(AckKind::Term).await;
                return;
            }
        };
        tracing::info!(key = %task.key, scene = task.scene + 1, delivered, "chunk task started");
        let done = Arc::new(AtomicU64::new(0));
        let work = self.make(&task, done.clone());
        tokio::pin!(work);
        let mut beat = tokio::time::interval(self.queue.ack_wait() / 3);
        beat.tick().await;
        let made = loop {
            tokio::select! {
                made = &mut work => break made,
                _ = beat.tick() => {
                    let _ = message.ack_with(AckKind::Progress).await;
                    let progress = Progress { key: task.key.clone(), done: done.load(Ordering::Relaxed) };
                    self.queue.progress(&task.render, &progress).await;
                }
            }
        };
        self.answer(&message, &task, delivered, made).await;
        let forgotten = forget_unused(&self.dir.join("inputs"), INPUTS_KEPT);
        if forgotten > 0 {
            tracing::info!(forgotten, "inputs no task used for a day deleted");
        }
    }

    /// Reports the task's end and acks it: done, a dead letter, or back to the queue.
    async fn answer(
        &self,
        message: &jetstream::Message,
        task: &ChunkTask,
        delivered: i64,
        made: Result<Made, TaskError>,
    ) {
        let outcome = match made {
            Ok(m) => Outcome::Done {
                fetch_ms: m.fetch.as_millis() as u64,
                render_ms: m.render.as_millis() as u64,
                store_ms: m.store.as_millis() as u64,
                fetched_bytes: m.fetched,
                stored_bytes: m.stored,
            },
            Err(e) if !e.input && delivered < self.queue.max_deliver() => {
                tracing::warn!(key = %task.key, delivered, cause = %e.cause, "chunk failed; it goes back to the queue");
                let _ = message.ack_with(AckKind::Nak(Some(RECONNECT_EVERY))).await;
                return;
            }
            Err(e) => Outcome::Failed {
                input: e.input,
                message: e.message,
                cause: e.cause,
            },
        };
        let failed = matches!(outcome, Outcome::Failed { .. });
        let result = ChunkResult {
            render: task.render.clone(),
            key: task.key.clone(),
            worker: self.name.clone(),
            outcome,
        };
        if let Err(e) = self.queue.report(&result).await {
            // Unreported, the task is delivered again; the chunk (if made) is already stored.
            tracing::warn!(key = %task.key, error = %e, "could not report a chunk");
            return;
        }
        let ack = if failed { AckKind::Term } else { AckKind::Ack };
        if let Err(e) = message.ack_with(ack).await {
            tracing::warn!(key = %task.key, error = %e, "could not ack a chunk task");
        }
        tracing::info!(key = %task.key, scene = task.scene + 1, failed, "chunk task finished");
    }

    /// Fetches the inputs, renders the chunk and stores it.
    async fn make(&self, task: &ChunkTask, done: Arc<AtomicU64>) -> Result<Made, TaskError> {
        let started = Instant::now();
        let (plan, fetched) = self.localise(task).await?;
        let fetch = started.elapsed();
        let out = self.dir.join("out").join(format!("{}.mp4", task.key));
        let rendering = Instant::now();
        let job = (task.clone(), out.clone());
        let frames = tokio::task::spawn_blocking(move || {
            let (task, out) = job;
            let ours = encoder_identity(&task.encode).map_err(TaskError::server)?;
            if ours != task.encoder {
                return Err(TaskError::server(format!(
                    "this worker's encoder is {ours:?}, the task's {:?}",
                    task.encoder
                )));
            }
            let part = (task.scene, task.frames.clone(), task.incoming.as_deref());
            render_part(&plan, &task.topic, part, &task.encode, &out, &mut |n| {
                done.store(n, Ordering::Relaxed);
            })
            .map_err(TaskError::from)
        })
        .await
        .map_err(TaskError::server)??;
        let render = rendering.elapsed();
        let storing = Instant::now();
        let stored = self.blobs.put_chunk(&task.key, &out).await;
        let _ = std::fs::remove_file(&out);
        let stored = stored.map_err(TaskError::server)?;
        tracing::debug!(key = %task.key, frames, "chunk stored");
        Ok(Made {
            fetch,
            render,
            store: storing.elapsed(),
            fetched,
            stored,
        })
    }

    /// The task's plan naming this worker's copies of its inputs (fetched when missing), and
    /// the bytes fetched.
    async fn localise(
        &self,
        task: &ChunkTask,
    ) -> Result<(compositor::plan::VideoPlan, u64), TaskError> {
        let mut local = HashMap::new();
        let mut fetched = 0;
        for input in &task.inputs {
            let ext = input
                .path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("bin");
            let copy = self
                .dir
                .join("inputs")
                .join(format!("{}.{ext}", input.digest));
            if copy.is_file() {
                // Marks it used, for `forget_unused`.
                let _ = std::fs::File::open(&copy)
                    .and_then(|f| f.set_modified(std::time::SystemTime::now()));
            } else {
                fetched += self
                    .blobs
                    .fetch_input(&input.digest, &copy)
                    .await
                    .map_err(TaskError::server)?;
            }
            local.insert(input.path.clone(), copy);
        }
        let mut plan = task.plan.clone();
        let fonts = self.fonts_folder(&plan.fonts_dir, &local)?;
        plan.fonts_dir = fonts;
        let scenes = task.scene..=task.scene + usize::from(task.incoming.is_some());
        for scene in plan
            .scenes
            .iter_mut()
            .take(scenes.end() + 1)
            .skip(*scenes.start())
        {
            for path in scene_files_mut(scene) {
                if let Some(copy) = local.get(path.as_path()) {
                    *path = copy.clone();
                }
            }
        }
        Ok((plan, fetched))
    }

    /// A folder holding the task's fonts under their names: `fonts/{digest of the set}`.
    fn fonts_folder(
        &self,
        fonts_dir: &Path,
        local: &HashMap<PathBuf, PathBuf>,
    ) -> Result<PathBuf, TaskError> {
        let mut fonts: Vec<(&PathBuf, &PathBuf)> = local
            .iter()
            .filter(|(path, _)| path.parent() == Some(fonts_dir))
            .collect();
        fonts.sort();
        let set: String = fonts
            .iter()
            .map(|(_, copy)| copy.file_name().unwrap_or_default().to_string_lossy())
            .collect();
        let folder = self
            .dir
            .join("fonts")
            .join(crate::render::chunks::key::frame(set.as_bytes()));
        if folder.is_dir() {
            return Ok(folder);
        }
        let part = folder.with_extension("part");
        let _ = std::fs::remove_dir_all(&part);
        std::fs::create_dir_all(&part).map_err(TaskError::server)?;
        for (path, copy) in fonts {
            let name = path.file_name().unwrap_or_default();
            std::fs::copy(copy, part.join(name)).map_err(TaskError::server)?;
        }
        // Another task of this worker may have made it meanwhile: either folder is the same.
        if std::fs::rename(&part, &folder).is_err() && !folder.is_dir() {
            return Err(TaskError::server("could not make the fonts folder"));
        }
        Ok(folder)
    }
}

/// Deletes the files of `dir` not used (modified) within `kept`; returns how many went.
fn forget_unused(dir: &Path, kept: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let old = |e: &std::fs::DirEntry| {
        e.metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > kept)
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()) && old(e))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// `{host}-{pid}`: which worker answered, in the API node's logs.
fn worker_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "worker".into());
    format!("{host}-{}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_unused_for_longer_than_kept_are_forgotten_and_used_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let (stale, fresh) = (dir.path().join("a.jpg"), dir.path().join("b.jpg"));
        std::fs::write(&stale, b"a").unwrap();
        std::fs::write(&fresh, b"b").unwrap();
        let two_days = std::time::SystemTime::now() - Duration::from_secs(48 * 3600);
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .and_then(|f| f.set_modified(two_days))
            .unwrap();
        assert_eq!(forget_unused(dir.path(), INPUTS_KEPT), 1);
        assert!(!stale.exists() && fresh.exists());
        assert_eq!(forget_unused(&dir.path().join("none"), INPUTS_KEPT), 0);
    }
}
