//! The API node's side: the chunks a render lacks go to the queue as tasks, their inputs to
//! the blob store; the render waits for the chunks and copies them into its chunk folder.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::sync::OnceCell;

use super::blobs::Blobs;
use super::queue::{Exhausted, Queue};
use super::task::{ChunkResult, ChunkTask, Input, Outcome, Progress};
use crate::render::chunks::key::{Key, file_digest, font_files, scene_files};
use crate::render::chunks::{Failure, Offload, Offloaded, Pending, Render};
use foundation::config::Settings;
use foundation::error::Code;
use foundation::ids;
use foundation::jobs::JobFailure;

/// How often the render looks in the blob store for chunks whose completion it did not hear
/// (one sent while NATS was restarting, say).
const LOOK_EVERY: Duration = Duration::from_secs(3);

/// Render workers, as the API node reaches them: the queue (connected on first use, so the
/// node starts while NATS is down) and the blob store.
pub struct Farm {
    settings: foundation::config::QueueConfig,
    queue: OnceCell<Queue>,
    blobs: Blobs,
    runtime: tokio::runtime::Handle,
}

fn unavailable(e: impl std::fmt::Display) -> Failure {
    Failure::Encode(
        JobFailure::new(
            Code::RenderFailed,
            "The render workers could not be reached; export the video again later.",
        )
        .because(e),
    )
}

impl Offload for Farm {
    /// Has workers make `pending` (chunks of `render`, keyed for `encoder`) and copies each
    /// into its place; `progress` gets the frames of them done so far. Blocks: called from a
    /// render, on a blocking thread.
    fn render(
        &self,
        render: &Render<'_>,
        encoder: &str,
        pending: Vec<Pending>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Offloaded, Failure> {
        if pending.is_empty() {
            return Ok(Offloaded::default());
        }
        self.runtime
            .block_on(self.dispatch(render, encoder, pending, progress))
    }
}

impl Farm {
    /// The farm `settings` configure (`queue.kind = "nats"`). Must run inside a tokio runtime.
    pub fn new(settings: &Settings) -> Result<Farm, String> {
        Ok(Farm {
            settings: settings.queue.clone(),
            queue: OnceCell::new(),
            blobs: Blobs::open(
                &settings.section::<super::config::StorageConfig>(),
                &settings.data_dir,
            )?,
            runtime: tokio::runtime::Handle::current(),
        })
    }

    async fn queue(&self) -> Result<&Queue, Failure> {
        self.queue
            .get_or_try_init(|| Queue::connect(&self.settings, "reelsmith-api"))
            .await
            .map_err(unavailable)
    }

    async fn dispatch(
        &self,
        render: &Render<'_>,
        encoder: &str,
        pending: Vec<Pending>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Offloaded, Failure> {
        let started = Instant::now();
        let queue = self.queue().await?;
        let id = ids::file_token();
        // Subscribed before the first task goes out, so no answer is missed.
        let mut answers = queue.answers(&id).await.map_err(unavailable)?;
        let mut exhausted = queue.exhausted().await.map_err(unavailable)?;
        let mut report = Offloaded::default();
        let mut waiting = Waiting::default();
        let mut made = self
            .submit(
                render,
                encoder,
                (queue, &id),
                pending,
                &mut waiting,
                &mut report,
            )
            .await;
        report.submit = started.elapsed();
        if made.is_ok() {
            let subjects = (&mut answers, &mut exhausted);
            made = self
                .wait(queue, &id, subjects, (&mut waiting, &mut report), progress)
                .await;
        }
        if let Err(failure) = made {
            withdraw(queue, &waiting).await;
            return Err(failure);
        }
        report.wall = started.elapsed();
        tracing::info!(
            topic = %render.doc.topic_id,
            render = %id,
            chunks = report.chunks,
            uploaded = report.uploaded,
            downloaded = report.downloaded,
            worker_fetched = report.worker_fetched,
            worker_stored = report.worker_stored,
            wall_ms = report.wall.as_millis() as u64,
            submit_ms = report.submit.as_millis() as u64,
            worker_ms = report.worker.as_millis() as u64,
            longest_ms = report.longest.as_millis() as u64,
            render_ms = report.render.as_millis() as u64,
            "chunks rendered by workers"
        );
        Ok(report)
    }

    /// Uploads the inputs of `pending` and queues a task for each, as render `id`.
    async fn submit(
        &self,
        render: &Render<'_>,
        encoder: &str,
        (queue, id): (&Queue, &str),
        pending: Vec<Pending>,
        waiting: &mut Waiting,
        report: &mut Offloaded,
    ) -> Result<(), Failure> {
        for part in pending {
            let inputs = self.upload_inputs(render, &part, report).await?;
            let task = ChunkTask {
                render: id.to_owned(),
                topic: render.doc.topic_id.clone(),
                key: part.key.clone(),
                encoder: encoder.to_owned(),
                encode: render.encode.clone(),
                plan: render.plan.clone(),
                scene: part.scene,
                frames: part.frames.clone(),
                incoming: part.incoming.clone(),
                inputs,
            };
            let seq = queue.submit(&task).await.map_err(unavailable)?;
            waiting.add(part, seq);
        }
        Ok(())
    }

    /// Waits until every chunk of render `id` is in: answers from workers, JetStream's
    /// advisories, and a look in the blob store every [`LOOK_EVERY`].
    async fn wait(
        &self,
        queue: &Queue,
        id: &str,
        (answers, exhausted): (&mut async_nats::Subscriber, &mut async_nats::Subscriber),
        (waiting, report): (&mut Waiting, &mut Offloaded),
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), Failure> {
        // A render waits as long as a task can take in JetStream's hands: every delivery's
        // ack wait, with no word from any worker.
        let silence = queue.ack_wait() * (queue.max_deliver().max(1) as u32 + 1);
        let mut heard = Instant::now();
        let mut look = tokio::time::interval(LOOK_EVERY);
        while !waiting.is_empty() {
            tokio::select! {
                message = answers.next() => {
                    let Some(message) = message else {
                        return Err(unavailable("the answer subscription ended"));
                    };
                    heard = Instant::now();
                    let kind = message.subject.split('.').nth(2).unwrap_or_default();
                    self.answer(kind, &message.payload, waiting, report).await?;
                }
                Some(message) = exhausted.next() => {
                    if let Ok(advisory) = serde_json::from_slice::<Exhausted>(&message.payload) {
                        self.exhausted(queue, id, &advisory, waiting).await?;
                    }
                }
                _ = look.tick() => {
                    if self.look_in_store(waiting, report).await? {
                        heard = Instant::now();
                    }
                    if heard.elapsed() > silence {
                        return Err(unavailable(format!(
                            "no render worker answered for {}s; {} chunks outstanding",
                            silence.as_secs(),
                            waiting.len()
                        )));
                    }
                }
            }
            progress(waiting.frames_done());
        }
        Ok(())
    }

    /// Stores every file chunk `part` reads (unless stored before) and names them.
    async fn upload_inputs(
        &self,
        render: &Render<'_>,
        part: &Pending,
        report: &mut Offloaded,
    ) -> Result<Vec<Input>, Failure> {
        let plan = &render.plan;
        let scenes = part.scene..=part.scene + usize::from(part.incoming.is_some());
        let mut paths: Vec<PathBuf> = scenes
            .filter_map(|s| plan.scenes.get(s))
            .flat_map(scene_files)
            .collect();
        paths.extend(font_files(&plan.fonts_dir));
        let mut inputs = Vec::with_capacity(paths.len());
        let mut seen = HashSet::new();
        for path in paths {
            if !seen.insert(path.clone()) {
                continue;
            }
            let Some(digest) = file_digest(&path) else {
                return Err(no_longer_reads(part.scene));
            };
            let digest = hex::encode(digest);
            report.uploaded += self
                .blobs
                .put_input(&path, &digest)
                .await
                .map_err(|e| match e {
                    super::blobs::BlobError::Unreadable(_) => no_longer_reads(part.scene),
                    e => unavailable(e),
                })?;
            inputs.push(Input { path, digest });
        }
        Ok(inputs)
    }

    /// One answer from a worker: a chunk done (copied in), a dead letter (the render fails),
    /// or a heartbeat.
    async fn answer(
        &self,
        kind: &str,
        payload: &[u8],
        waiting: &mut Waiting,
        report: &mut Offloaded,
    ) -> Result<(), Failure> {
        if kind == "progress" {
            if let Ok(beat) = serde_json::from_slice::<Progress>(payload) {
                waiting.progress(&beat.key, beat.done);
            }
            return Ok(());
        }
        let Ok(result) = serde_json::from_slice::<ChunkResult>(payload) else {
            tracing::warn!("an answer on a render's subject did not parse; ignored");
            return Ok(());
        };
        match result.outcome {
            Outcome::Done {
                fetch_ms,
                render_ms,
                store_ms,
                fetched_bytes,
                stored_bytes,
            } => {
                if !waiting.contains(&result.key) {
                    return Ok(()); // a duplicate completion: the same bytes, already here
                }
                if self.fetch(&result.key, waiting, report).await? {
                    let worker = Duration::from_millis(fetch_ms + render_ms + store_ms);
                    report.worker += worker;
                    report.longest = report.longest.max(worker);
                    report.render += Duration::from_millis(render_ms);
                    report.worker_fetched += fetched_bytes;
                    report.worker_stored += stored_bytes;
                }
                Ok(())
            }
            Outcome::Failed {
                input,
                message,
                cause,
            } => {
                if !waiting.contains(&result.key) {
                    return Ok(());
                }
                let failure = JobFailure::new(Code::RenderFailed, message)
                    .because(format!("worker {}: {cause}", result.worker));
                Err(match input {
                    true => Failure::Input(failure),
                    false => Failure::Encode(failure),
                })
            }
        }
    }

    /// JetStream gave up on a task: every delivery went unacknowledged (the workers that took
    /// it died). If it is one of this render's, files the dead letter the workers could not,
    /// takes the task out of the queue and fails the render; another render's is ignored.
    async fn exhausted(
        &self,
        queue: &Queue,
        render: &str,
        advisory: &Exhausted,
        waiting: &Waiting,
    ) -> Result<(), Failure> {
        let Some(part) = waiting.by_seq(advisory.stream_seq) else {
            return Ok(());
        };
        let cause = format!(
            "task {} delivered {} times without an answer",
            advisory.stream_seq, advisory.deliveries
        );
        let letter = ChunkResult {
            render: render.to_owned(),
            key: part.key.clone(),
            worker: "jetstream".into(),
            outcome: Outcome::Failed {
                input: false,
                message: "every worker that took this chunk stopped".into(),
                cause: cause.clone(),
            },
        };
        if let Err(e) = queue.report(&letter).await {
            tracing::warn!(error = %e, "the dead letter of an exhausted chunk was not stored");
        }
        if let Err(e) = queue.remove_tasks(&[advisory.stream_seq]).await {
            tracing::warn!(error = %e, "an exhausted chunk task was not removed");
        }
        Err(Failure::Encode(
            JobFailure::new(
                Code::RenderFailed,
                format!(
                    "Scene {} was given to render workers {} times and never finished; \
                     export the video again.",
                    part.scene + 1,
                    advisory.deliveries
                ),
            )
            .because(cause),
        ))
    }

    /// Copies the chunk under `key` into its place, if the store has it; whether it did.
    async fn fetch(
        &self,
        key: &str,
        waiting: &mut Waiting,
        report: &mut Offloaded,
    ) -> Result<bool, Failure> {
        let Some((path, frames)) = waiting
            .parts
            .get(key)
            .map(|(part, ..)| (part.path.clone(), part.frames.end - part.frames.start))
        else {
            return Ok(false);
        };
        let fetched = self.blobs.fetch_chunk(key, &path).await;
        let Some(bytes) = fetched.map_err(unavailable)? else {
            return Ok(false);
        };
        report.downloaded += bytes;
        report.chunks += 1;
        report.frames += frames;
        waiting.done(key);
        Ok(true)
    }

    /// Fetches every waiting chunk the store already has; whether any was.
    async fn look_in_store(
        &self,
        waiting: &mut Waiting,
        report: &mut Offloaded,
    ) -> Result<bool, Failure> {
        let mut any = false;
        for key in waiting.keys() {
            if self.blobs.has_chunk(&key).await.map_err(unavailable)? {
                any |= self.fetch(&key, waiting, report).await?;
            }
        }
        Ok(any)
    }
}

fn no_longer_reads(scene: usize) -> Failure {
    Failure::Input(JobFailure::new(
        Code::RenderFailed,
        format!(
            "A medium of scene {} could not be read; replace it and export again.",
            scene + 1
        ),
    ))
}

/// How long a failed render spends taking its tasks out of the queue (NATS may be why it
/// failed).
const WITHDRAW_FOR: Duration = Duration::from_secs(5);

/// Takes the tasks of a failed render that no worker finished out of the work queue, so
/// workers do not spend time on a video that will not use them (best effort: a task a
/// worker holds is finished and stored under its key, which a re-export then finds).
async fn withdraw(queue: &Queue, waiting: &Waiting) {
    let seqs = waiting.unfinished_tasks();
    match tokio::time::timeout(WITHDRAW_FOR, queue.remove_tasks(&seqs)).await {
        Ok(Ok(removed)) => tracing::info!(removed, "withdrew the queued chunks of a failed render"),
        Ok(Err(e)) => tracing::warn!(error = %e, "the chunks of a failed render stay queued"),
        Err(_) => tracing::warn!("the chunks of a failed render stay queued (NATS is slow)"),
    }
}

/// The chunks a render still waits for, each with the frames of it a worker says are done.
#[derive(Default)]
struct Waiting {
    parts: HashMap<Key, (Pending, u64)>,
    /// Each waiting chunk's task, by its sequence in the task stream.
    seqs: HashMap<u64, Key>,
    /// Frames of the chunks already in.
    finished: u64,
}

impl Waiting {
    /// Waits for `part`, queued as task `seq`.
    fn add(&mut self, part: Pending, seq: u64) {
        self.seqs.insert(seq, part.key.clone());
        self.parts.insert(part.key.clone(), (part, 0));
    }

    /// The task sequences of the chunks still waited for.
    fn unfinished_tasks(&self) -> Vec<u64> {
        self.seqs
            .iter()
            .filter(|(_, key)| self.parts.contains_key(*key))
            .map(|(seq, _)| *seq)
            .collect()
    }

    /// The waiting chunk queued as task `seq`.
    fn by_seq(&self, seq: u64) -> Option<&Pending> {
        self.seqs
            .get(&seq)
            .and_then(|key| self.parts.get(key))
            .map(|(part, _)| part)
    }

    fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    fn len(&self) -> usize {
        self.parts.len()
    }

    fn keys(&self) -> Vec<Key> {
        self.parts.keys().cloned().collect()
    }

    fn contains(&self, key: &str) -> bool {
        self.parts.contains_key(key)
    }

    fn progress(&mut self, key: &str, done: u64) {
        if let Some(part) = self.parts.get_mut(key) {
            part.1 = done.min(part.0.frames.end - part.0.frames.start);
        }
    }

    fn done(&mut self, key: &str) {
        if let Some((part, _)) = self.parts.remove(key) {
            self.finished += part.frames.end - part.frames.start;
        }
    }

    fn frames_done(&self) -> u64 {
        self.finished + self.parts.values().map(|p| p.1).sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(key: &str, frames: std::ops::Range<u64>) -> Pending {
        Pending {
            scene: 0,
            frames,
            incoming: None,
            key: key.into(),
            path: PathBuf::from(format!("/chunks/{key}.mp4")),
        }
    }

    #[test]
    fn progress_counts_heartbeats_and_finished_chunks_once() {
        let mut waiting = Waiting::default();
        waiting.add(part("a", 0..30), 7);
        waiting.add(part("b", 30..50), 8);
        assert_eq!(waiting.by_seq(8).map(|p| p.key.as_str()), Some("b"));
        waiting.progress("a", 12);
        waiting.progress("b", 999); // never past the chunk's frames
        assert_eq!(waiting.frames_done(), 12 + 20);
        waiting.done("a");
        waiting.done("a"); // a duplicate completion counts nothing
        assert_eq!(waiting.frames_done(), 30 + 20);
        assert_eq!(waiting.len(), 1);
        assert!(!waiting.contains("a"));
        assert!(
            waiting.by_seq(7).is_none(),
            "a finished chunk's task is not waited for"
        );
        waiting.progress("a", 5); // a late heartbeat of a finished chunk
        assert_eq!(waiting.frames_done(), 50);
    }
}
