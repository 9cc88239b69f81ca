//! The job lifecycle: the spec's state machine, a durable queue in redb with
//! leases, and a bounded pool of workers.
//!
//! States: `processing` → `completed` | `failed`; `export_video` re-enters
//! `processing` with stage `rendering_video`. Every transition and the
//! webhook it causes are written in one transaction (see `webhooks`).
//!
//! Steps (DESIGN.md §3): 1 queued · 2 script · 3 voice · 4 media · 5 scenes
//! ready · 6 rendering · 7 rendered. Progress: building 0→1.0 (scene) or
//! 0→0.85 (video); rendering 0.85→1.0.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::sync::Notify;

use crate::config::Settings;
use crate::document::VideoDocument;
use crate::error::{Code, Error, Result};
use crate::ids;
use crate::model::{
    Job, JobError, JobPayload, JobStage, JobStatus, JobType, OutputType, PostResult, PublishJob,
    QueueEntry, StageMark, Task, VideoJob, WriterStage, WrittenJob, WrittenResult,
};
use crate::store::{Store, StoreError, StoreResult, Tx};
use crate::time::now;
use crate::webhooks::queue_event;

pub const RENDER_START: f64 = 0.85;

/// A failure of a job's work, stored on the job and sent in `video.failed`.
///
/// `message` is written for the client: our own sentence, never a library's text, a path or a
/// type name. What went wrong inside goes in `cause`, which is logged with the topic and never
/// leaves the server.
#[derive(Debug, Clone)]
pub struct JobFailure {
    pub code: Code,
    pub message: String,
    /// The internal cause, for the log only.
    pub cause: Option<String>,
}

impl JobFailure {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        JobFailure {
            code,
            message: message.into(),
            cause: None,
        }
    }

    /// Adds the internal cause (logged, never sent).
    pub fn because(mut self, cause: impl std::fmt::Display) -> Self {
        self.cause = Some(cause.to_string());
        self
    }

    /// A failure of the server itself (a file it could not write, say).
    pub fn internal(e: impl std::fmt::Display) -> Self {
        JobFailure::new(Code::Internal, "The job failed because of a server error.").because(e)
    }
}

/// A `create_video` request that passed validation: what the engine stores as a new job.
#[derive(Debug)]
pub struct Accepted {
    pub request: crate::model::VideoRequest,
    pub output_type: OutputType,
    pub metadata: serde_json::Value,
    pub callback_url: Option<String>,
    pub input_truncated_from: Option<usize>,
    /// The topic id the job must take (a production plan entry's, `create_video` with
    /// `topic_id`); `None` mints a new one.
    pub topic_id: Option<String>,
}

/// A written-content job that passed validation (`create_content`, `enhance_script`).
#[derive(Debug)]
pub struct AcceptedWriting {
    pub metadata: serde_json::Value,
    pub callback_url: Option<String>,
    pub input_truncated_from: Option<usize>,
    /// Credits the job costs, taken in the transaction that stores it.
    pub cost: i64,
}

/// A finished render.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The MP4's public URL (a fresh name per render).
    pub video_url: String,
    /// The fingerprint of the document rendered.
    pub document: String,
}

/// What a task produced.
#[derive(Debug)]
pub(crate) enum TaskOutput {
    /// A build: the document is stored.
    Built,
    /// A render: the MP4 and the document it shows.
    Rendered(Rendered),
    /// Written content: the piece or the script.
    Written(WrittenResult),
    /// A publish request: what each platform answered.
    Published(Vec<PostResult>),
}

/// One publish request that passed validation: the job to store under `request_id`, due at
/// `not_before` when scheduled (`None`: now).
#[derive(Debug)]
pub struct AcceptedPublish {
    pub request_id: String,
    pub metadata: serde_json::Value,
    pub not_before: Option<i64>,
    /// Credits the call costs, charged once with the first request of a call.
    pub cost: i64,
}

/// The work behind each queued task. The job core owns the queue, the leases and the state
/// machine; what a task does lives in the folders above it, and the composition root
/// (`crate::assemble`) hands the engine one runner that knows them all.
pub trait TaskRunner: Send + Sync {
    /// Steps 2–5: build the video document of `job`.
    fn build(&self, engine: &Engine, job: &Job) -> Result<(), JobFailure>;
    /// Steps 6–7: render the MP4 of `job`; returns its public URL and the document's
    /// fingerprint.
    fn render(&self, engine: &Engine, job: &Job) -> Result<Rendered, JobFailure>;
    /// Written content: read, research, write and illustrate `job`; returns what it wrote.
    fn write(&self, engine: &Engine, job: &Job) -> Result<WrittenResult, JobFailure>;
    /// A publish request: hand the post to the publisher; one result per platform.
    fn publish(&self, engine: &Engine, job: &Job) -> Result<Vec<PostResult>, JobFailure>;
}

/// Shared state of the job system.
pub struct Engine {
    pub store: Arc<Store>,
    pub settings: Arc<Settings>,
    /// Runs each task's work (build, render).
    tasks: Arc<dyn TaskRunner>,
    /// Rung when work is queued.
    pub wake_workers: Notify,
    /// Rung when a webhook row is written.
    pub wake_outbox: Arc<Notify>,
    /// Identifies this process's leases.
    worker_id: String,
}

impl Engine {
    pub fn new(
        store: Arc<Store>,
        settings: Arc<Settings>,
        tasks: Arc<dyn TaskRunner>,
        wake_outbox: Arc<Notify>,
    ) -> Engine {
        Engine {
            store,
            settings,
            tasks,
            wake_workers: Notify::new(),
            wake_outbox,
            worker_id: ids::delivery_id(),
        }
    }

    pub fn review_url(&self, topic: &str) -> String {
        let token = crate::links::sign(&self.settings.webhook.signing_secret, topic);
        format!(
            "{}{}{topic}?token={token}",
            self.settings.app_url,
            crate::link_bases::EDITOR_PATH
        )
    }

    /// The read-only player of a video: the review page with `readonly=true` and a token of the
    /// player scope, which opens nothing that edits (`links::ReviewScope`).
    pub fn player_url(&self, topic: &str) -> String {
        let token = crate::links::review_token(
            &self.settings.webhook.signing_secret,
            topic,
            crate::links::ReviewScope::Player,
        );
        format!(
            "{}/editor/{topic}?token={token}&readonly=true",
            self.settings.app_url
        )
    }

    /// The page that shows a written piece (signed like the review page).
    pub(crate) fn viewer_url(&self, topic: &str) -> String {
        let token = crate::links::sign(&self.settings.webhook.signing_secret, topic);
        format!(
            "{}{}{topic}?token={token}",
            self.settings.app_url,
            crate::link_bases::CONTENT_PATH
        )
    }

    /// Stores a new job, queues its build, and (with a callback) its
    /// `video.processing` event — all in one transaction. A job asked for under a given topic id
    /// that already has a video answers 409 `topic_exists`.
    pub fn create_video(
        &self,
        account: &str,
        accepted: Accepted,
        idempotency_key: Option<String>,
    ) -> Result<Job> {
        let t = now();
        let chosen = accepted.topic_id.is_some();
        let payload = JobPayload::Video(VideoJob {
            request: Some(accepted.request),
            ..VideoJob::default()
        });
        let topic_id = accepted.topic_id.unwrap_or_else(ids::topic_id);
        let job = Job {
            output_type: accepted.output_type,
            input_truncated_from: accepted.input_truncated_from,
            metadata: accepted.metadata,
            callback_url: accepted.callback_url,
            idempotency_key,
            ..Job::new(topic_id, account, payload, t)
        };
        let job = self.store.write(|tx| -> Result<Job> {
            let mut job = job;
            if chosen && tx.job(&job.topic_id)?.is_some() {
                return Err(Error::new(
                    Code::TopicExists,
                    "This topic already has a video; each topic becomes one video.",
                )
                .param("topic_id"));
            }
            self.admit(tx, account)?;
            tx.put_queue_entry(&job.topic_id, &QueueEntry::new(Task::Build, t))?;
            if job.callback_url.is_some() {
                job.processing_fired = true;
                queue_event(tx, &job, "video.processing")?;
            }
            tx.put_job(&job)?;
            Ok(job)
        })?;
        self.wake_workers.notify_one();
        self.wake_outbox.notify_one();
        Ok(job)
    }

    /// Stores a new written-content job of `account` in stage Queued with its viewer page as
    /// `review_url`, takes its credits through the shared 402 guard (`accounts::charge`), lets
    /// `store_request` write the caller's own record of it, and queues its work — all in one
    /// transaction, so a refused charge leaves no job and an accepted job is always paid for.
    /// Written content fires no `video.processing` (the spec names only `create_video` for it).
    pub fn create_written(
        &self,
        account: &str,
        accepted: AcceptedWriting,
        store_request: impl FnOnce(&mut Tx, &Job) -> Result<()>,
    ) -> Result<Job> {
        let t = now();
        let topic_id = ids::topic_id();
        let payload = JobPayload::Content(WrittenJob {
            stage: Some(WriterStage::Queued),
            stages: vec![StageMark {
                status: WriterStage::Queued,
                at: crate::time::iso(t),
            }],
            written: None,
        });
        let job = Job {
            review_url: Some(self.viewer_url(&topic_id)),
            step: WriterStage::Queued.step(),
            progress: WriterStage::Queued.progress(),
            input_truncated_from: accepted.input_truncated_from,
            metadata: accepted.metadata,
            callback_url: accepted.callback_url,
            credits_charged: accepted.cost,
            ..Job::new(topic_id, account, payload, t)
        };
        let pricing_url = self.settings.pricing_url();
        let charge = crate::accounts::Charge::credits(accepted.cost, &pricing_url);
        let job = self.store.write(|tx| -> Result<Job> {
            self.admit(tx, account)?;
            crate::accounts::charge(tx, account, &charge)?;
            store_request(tx, &job)?;
            tx.put_queue_entry(&job.topic_id, &QueueEntry::new(Task::Write, t))?;
            tx.put_job(&job)?;
            Ok(job)
        })?;
        self.wake_workers.notify_one();
        Ok(job)
    }

    /// Stores the publish requests of one `publish` call (one job each, `type: publish`, no
    /// webhooks: the spec names none), takes the call's credits through the shared 402 guard,
    /// lets `store_request` write the caller's own records and queues each request — due now,
    /// or at its `not_before` — all in one transaction: a refused charge leaves nothing behind,
    /// and a scheduled request is as durable as any queued job.
    pub fn create_publish(
        &self,
        account: &str,
        requests: Vec<AcceptedPublish>,
        store_request: impl FnOnce(&mut Tx) -> Result<()>,
    ) -> Result<Vec<Job>> {
        let t = now();
        let cost: i64 = requests.iter().map(|r| r.cost).sum();
        let pricing_url = self.settings.pricing_url();
        let charge = crate::accounts::Charge::credits(cost, &pricing_url);
        let due_now = requests
            .iter()
            .any(|r| r.not_before.is_none_or(|at| at <= t));
        let jobs = self.store.write(|tx| -> Result<Vec<Job>> {
            if due_now {
                self.admit(tx, account)?;
            }
            crate::accounts::charge(tx, account, &charge)?;
            store_request(tx)?;
            let mut jobs = Vec::new();
            for r in requests {
                let job = publish_job(account, &r, t);
                let mut entry = QueueEntry::new(Task::Publish, t);
                entry.not_before = r.not_before;
                tx.put_queue_entry(&job.topic_id, &entry)?;
                tx.put_job(&job)?;
                jobs.push(job);
            }
            Ok(jobs)
        })?;
        self.wake_workers.notify_one();
        Ok(jobs)
    }

    /// Moves a running written-content job to `stage` (not a state change: no event).
    pub fn set_writer_stage(&self, topic: &str, stage: WriterStage, notes: &str) {
        let r = self.store.write(|tx| -> StoreResult<()> {
            if let Some(mut job) = tx.job(topic)?
                && job.status == JobStatus::Processing
            {
                reach_stage(&mut job, stage);
                job.notes = Some(notes.to_string());
                tx.put_job(&job)?;
            }
            Ok(())
        });
        if let Err(e) = r {
            tracing::warn!(error = %e, topic, "writer stage update failed");
        }
    }

    /// A job of `account`, or 404.
    pub fn job_for(&self, account: &str, id: &str) -> Result<Job> {
        match self.store.job(id)? {
            Some(j) if j.account == account => Ok(j),
            _ => Err(Error::new(
                Code::VideoNotFound,
                "No video with this id exists on the account.",
            )
            .param("id")),
        }
    }

    /// The video document of `account`'s video `id`, for the scene endpoints (video_data,
    /// scene_geometry, scene_inspector, modify_scene): 400 `invalid_id` for a malformed id, 404
    /// `video_not_found`, 409 `script_not_ready` while the scenes are being built (or when the
    /// job failed before it had any), 502 `script_parse_failed` when the stored document does
    /// not parse.
    pub fn document_for(&self, account: &str, id: &str) -> Result<(Job, VideoDocument)> {
        if !ids::is_topic_id(id) {
            return Err(Error::new(Code::InvalidId, "`id` is not a topic id.").param("id"));
        }
        let job = self.job_for(account, id)?;
        if job.kind() != JobType::Video {
            return Err(not_a_video());
        }
        match self.store.document::<VideoDocument>(id) {
            Ok(Some(doc)) => Ok((job, doc)),
            Ok(None) => Err(Error::new(
                Code::ScriptNotReady,
                "The video has no scenes yet; poll its status until scenes are ready.",
            )
            .param("id")),
            Err(StoreError::Corrupt { .. }) => Err(Error::new(
                Code::ScriptParseFailed,
                "The stored scenes of this video could not be read.",
            )),
            Err(e) => Err(Error::internal(e)),
        }
    }

    /// `export_video`: queues a render (returns `true`) of a scene-ready video, of a rendered
    /// video whose document was edited since, and of a video whose render failed. While a
    /// render is queued or running, and when the document is the one rendered, it returns the
    /// current snapshot and queues nothing. A video whose scenes are not ready (a build still
    /// running, an `output_type=text` job, a failed build) is 409 `scenes_not_ready` and
    /// nothing changes.
    pub fn export_video(&self, account: &str, id: &str) -> Result<(bool, Job)> {
        if !ids::is_topic_id(id) {
            return Err(Error::new(Code::InvalidId, "`id` is not a topic id.").param("id"));
        }
        let out = self.store.write(|tx| -> Result<(bool, Job)> {
            let mut job = match tx.job(id)? {
                Some(j) if j.account == account && j.kind() == JobType::Video => j,
                Some(j) if j.account == account => return Err(not_a_video()),
                _ => {
                    return Err(Error::new(
                        Code::VideoNotFound,
                        "No video with this id exists on the account.",
                    )
                    .param("id"));
                }
            };
            match tx.queue_entry(id)?.map(|e| e.task) {
                // A render queued or running: the snapshot shows how far it is.
                Some(Task::Render) => return Ok((false, job)),
                // The scenes are still being built (or rebuilt after a script approval).
                Some(_) => return Err(scenes_not_ready()),
                None => {}
            }
            let render_failed = job.status == JobStatus::Failed && job.step >= 6;
            let ready = job.status == JobStatus::Completed && job.step >= 5;
            if !ready && !render_failed {
                return Err(scenes_not_ready());
            }
            if ready && job.video_url.is_some() {
                let doc: Option<crate::document::VideoDocument> = tx.document(id)?;
                let current = doc.map(|d| d.fingerprint());
                // Videos rendered before fingerprints were kept count as unchanged.
                let rendered = job.video_job().and_then(|v| v.rendered_document.clone());
                let unchanged = rendered.is_none() || rendered == current;
                if unchanged {
                    mark_exported(&mut job);
                    tx.put_job(&job)?;
                    return Ok((false, job));
                }
            }
            mark_exported(&mut job);
            job.error = None;
            job.output_type = OutputType::Video;
            job.status = JobStatus::Processing;
            job.stage = Some(JobStage::RenderingVideo);
            job.step = 6;
            job.progress = RENDER_START;
            job.terminal_fired = false;
            job.updated_at = now();
            self.admit(tx, account)?;
            tx.put_queue_entry(id, &QueueEntry::new(Task::Render, now()))?;
            tx.put_job(&job)?;
            Ok((true, job))
        })?;
        if out.0 {
            self.wake_workers.notify_one();
        }
        Ok(out)
    }

    /// The script view's approval: an `output_type=text` video whose script is ready goes on to
    /// scenes, narrating `script` (the reviewer's edited segments). The job becomes a text job
    /// with output_type `scene`, is queued for its build again and fires `video.completed` again
    /// when its scenes are ready. 409 `script_not_ready` for any other job.
    pub fn approve_script(&self, account: &str, id: &str, script: &str) -> Result<Job> {
        let out = self.store.write(|tx| -> Result<Job> {
            let mut job = match tx.job(id)? {
                Some(j) if j.account == account && j.kind() == JobType::Video => j,
                _ => {
                    return Err(Error::new(
                        Code::VideoNotFound,
                        "No video with this id exists on the account.",
                    )
                    .param("id"));
                }
            };
            let ready = job.output_type == OutputType::Text
                && job.status == JobStatus::Completed
                && tx.queue_entry(id)?.is_none();
            let request = job.video_job_mut().and_then(|v| v.request.as_mut());
            let Some(request) = request.filter(|_| ready) else {
                return Err(Error::new(
                    Code::ScriptNotReady,
                    "Only a finished script (output_type text) can be approved into scenes.",
                )
                .param("id"));
            };
            request.source = crate::model::Source::Text;
            request.language = crate::language::detect(script).language();
            request.text = Some(script.to_string());
            request.media_url = None;
            request.media_file = None;
            request.adjust = None;
            job.output_type = OutputType::Scene;
            job.status = JobStatus::Processing;
            job.stage = None;
            job.step = 2;
            job.progress = 0.1;
            job.notes = Some("Building the approved script's scenes".into());
            job.terminal_fired = false;
            job.updated_at = now();
            self.admit(tx, account)?;
            tx.put_queue_entry(id, &QueueEntry::new(Task::Build, now()))?;
            tx.put_job(&job)?;
            Ok(job)
        })?;
        self.wake_workers.notify_one();
        Ok(out)
    }

    /// Refuses new work of `account` over the queue's bounds (`[queue]`), inside the
    /// transaction that would queue it: 429 `queue_full` when all accounts' jobs in flight reach
    /// `max_jobs`, 429 `too_many_jobs` when the account's reach `max_jobs_per_account`. A job is
    /// in flight while it has a queue entry that is due (posts scheduled for later wait apart).
    pub fn admit(&self, tx: &Tx, account: &str) -> Result<()> {
        let cfg = &self.settings.queue;
        let t = now();
        let due: Vec<String> = tx
            .queue()?
            .into_iter()
            .filter(|(_, e)| e.not_before.is_none_or(|at| at <= t))
            .map(|(topic, _)| topic)
            .collect();
        if due.len() >= cfg.max_jobs {
            return Err(Error::new(
                Code::QueueFull,
                "The server has as much work queued as it takes; try again later.",
            )
            .retry_after(cfg.retry_after_secs));
        }
        let mut mine = 0;
        for topic in &due {
            if tx.job(topic)?.is_some_and(|j| j.account == account) {
                mine += 1;
            }
        }
        if mine >= cfg.max_jobs_per_account {
            return Err(Error::new(
                Code::TooManyJobs,
                format!(
                    "This account already has {mine} jobs in flight, the most it may have; try again when one finishes."
                ),
            )
            .details(json!({ "max_jobs": cfg.max_jobs_per_account, "jobs_in_flight": mine }))
            .retry_after(cfg.retry_after_secs));
        }
        Ok(())
    }

    /// Hands every lease back: called at start-up (a previous process died
    /// holding them) and at shutdown (its work is abandoned mid-way).
    pub fn release_leases(&self, only_mine: bool) -> StoreResult<usize> {
        let entries = self.store.queue()?;
        self.store.write(|tx| -> StoreResult<usize> {
            let mut n = 0;
            for (topic, mut e) in entries {
                if e.lease_owner.is_some()
                    && (!only_mine || e.lease_owner.as_deref() == Some(&self.worker_id))
                {
                    e.lease_owner = None;
                    e.lease_until = None;
                    tx.put_queue_entry(&topic, &e)?;
                    n += 1;
                }
            }
            Ok(n)
        })
    }

    /// Claims the oldest free queue entry.
    fn claim(&self) -> StoreResult<Option<(String, Task)>> {
        let mut entries = self.store.queue()?;
        entries.sort_by_key(|(_, e)| e.enqueued_at);
        let t = now();
        for (topic, _) in entries {
            let claimed = self.store.write(|tx| -> StoreResult<Option<Task>> {
                let Some(mut e) = tx.queue_entry(&topic)? else {
                    return Ok(None);
                };
                if e.lease_until.is_some_and(|u| u > t) || e.not_before.is_some_and(|at| at > t) {
                    return Ok(None);
                }
                e.lease_owner = Some(self.worker_id.clone());
                e.lease_until = Some(t + self.settings.render.lease_secs as i64);
                e.attempts += 1;
                tx.put_queue_entry(&topic, &e)?;
                Ok(Some(e.task))
            })?;
            if let Some(task) = claimed {
                return Ok(Some((topic, task)));
            }
        }
        Ok(None)
    }

    fn renew_lease(&self, topic: &str) -> StoreResult<()> {
        self.store.write(|tx| {
            if let Some(mut e) = tx.queue_entry(topic)?
                && e.lease_owner.as_deref() == Some(&self.worker_id)
            {
                e.lease_until = Some(now() + self.settings.render.lease_secs as i64);
                tx.put_queue_entry(topic, &e)?;
            }
            Ok(())
        })
    }

    /// Records progress of a running job (not a state change: no event).
    pub fn set_progress(&self, topic: &str, step: u8, progress: f64, notes: Option<&str>) {
        let r = self.store.write(|tx| -> StoreResult<()> {
            if let Some(mut job) = tx.job(topic)?
                && job.status == JobStatus::Processing
            {
                job.step = step;
                job.progress = progress.max(job.progress).min(1.0);
                if let Some(n) = notes {
                    job.notes = Some(n.to_string());
                }
                job.updated_at = now();
                tx.put_job(&job)?;
            }
            Ok(())
        });
        if let Err(e) = r {
            tracing::warn!(error = %e, topic, "progress update failed");
        }
    }

    /// Runs `workers` workers until `shutdown` is set; then hands back leases.
    pub async fn run_workers(self: Arc<Self>, shutdown: Arc<AtomicBool>, stop: Arc<Notify>) {
        match self.release_leases(false) {
            Ok(n) if n > 0 => tracing::info!(n, "resuming jobs interrupted by a previous stop"),
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "could not release stale leases"),
        }
        let mut handles = Vec::new();
        for i in 0..self.settings.render.workers {
            let this = self.clone();
            let shutdown = shutdown.clone();
            let stop = stop.clone();
            handles.push(tokio::spawn(
                async move { this.worker(i, shutdown, stop).await },
            ));
        }
        for h in handles {
            let _ = h.await;
        }
    }

    async fn worker(self: Arc<Self>, n: usize, shutdown: Arc<AtomicBool>, stop: Arc<Notify>) {
        while !shutdown.load(Ordering::SeqCst) {
            let claimed = match self.claim() {
                Ok(c) => c,
                Err(e) => {
                    tracing::error!(error = %e, "queue claim failed");
                    None
                }
            };
            let Some((topic, task)) = claimed else {
                tokio::select! {
                    _ = self.wake_workers.notified() => {}
                    _ = stop.notified() => {}
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
                continue;
            };
            // Every line of the job's work carries the job's task and topic.
            let span = tracing::info_span!("job", job = ?task, topic_id = %topic);
            span.in_scope(|| tracing::info!(worker = n, "job claimed"));
            let this = self.clone();
            let topic2 = topic.clone();
            let work_span = span.clone();
            let mut run = tokio::task::spawn_blocking(move || {
                work_span.in_scope(|| {
                    let outcome = this.run_task(&topic2, task);
                    crate::telemetry::job_run(task, outcome.is_ok());
                    outcome
                })
            });
            let renew_every = Duration::from_secs((self.settings.render.lease_secs / 3).max(1));
            let result = loop {
                // `notify_waiters` reaches only a waiting select, so the flag is read each turn
                // too: a stop that came between two turns is seen here.
                if shutdown.load(Ordering::SeqCst) {
                    break None;
                }
                tokio::select! {
                    r = &mut run => break Some(r),
                    _ = tokio::time::sleep(renew_every) => {
                        if let Err(e) = self.renew_lease(&topic) {
                            tracing::warn!(error = %e, "lease renewal failed");
                        }
                    }
                    _ = stop.notified() => {}
                }
            };
            match result {
                None => {
                    tracing::info!(%topic, "stopping mid-job; the job goes back to the queue");
                    return;
                }
                Some(Err(join)) => {
                    tracing::error!(%topic, error = %join, "job task panicked");
                    self.finish(
                        &topic,
                        Err(JobFailure::new(
                            Code::Internal,
                            "The job failed unexpectedly.",
                        )),
                    );
                }
                Some(Ok(outcome)) => span.in_scope(|| self.finish(&topic, outcome)),
            }
        }
    }

    /// Runs `topic`'s queued tasks on this thread, one after another, until nothing is queued
    /// for it (a build chains into its render for `output_type=video`): the worker of the
    /// one-shot commands. Returns the final job.
    pub fn run_queued(&self, topic: &str) -> Result<Job> {
        loop {
            let entry = self
                .store
                .queue()?
                .into_iter()
                .find(|(t, _)| t == topic)
                .map(|(_, e)| e);
            let Some(entry) = entry else { break };
            let outcome = self.run_task(topic, entry.task);
            self.finish(topic, outcome);
        }
        self.job_for_any(topic)
    }

    fn job_for_any(&self, topic: &str) -> Result<Job> {
        self.store.job(topic)?.ok_or_else(|| {
            Error::new(Code::VideoNotFound, "No video with this id exists.").param("id")
        })
    }

    /// Queues a fresh render of a video whose scenes are ready (`reelsmith rerender`): like a
    /// first export, but also for videos already rendered. Returns `false` when the video has
    /// no scenes to render.
    pub fn queue_rerender(&self, topic: &str) -> Result<bool> {
        self.store.write(|tx| -> Result<bool> {
            let Some(mut job) = tx.job(topic)? else {
                return Ok(false);
            };
            if tx.queue_entry(topic)?.is_some() {
                return Ok(false);
            }
            let ready =
                job.stage == Some(JobStage::ScenesReadyForReview) || job.video_url.is_some();
            if !ready {
                return Ok(false);
            }
            job.status = JobStatus::Processing;
            job.output_type = OutputType::Video;
            job.stage = Some(JobStage::RenderingVideo);
            job.step = 6;
            job.progress = RENDER_START;
            job.updated_at = now();
            tx.put_queue_entry(topic, &QueueEntry::new(Task::Render, now()))?;
            tx.put_job(&job)?;
            Ok(true)
        })
    }

    /// Runs one task.
    fn run_task(&self, topic: &str, task: Task) -> std::result::Result<TaskOutput, JobFailure> {
        let job = self
            .store
            .job(topic)
            .map_err(JobFailure::internal)?
            .ok_or_else(|| JobFailure::internal("job record missing"))?;
        match task {
            Task::Build => self.tasks.build(self, &job).map(|()| TaskOutput::Built),
            Task::Render => self.tasks.render(self, &job).map(TaskOutput::Rendered),
            Task::Write => self.tasks.write(self, &job).map(TaskOutput::Written),
            Task::Publish => self.tasks.publish(self, &job).map(TaskOutput::Published),
        }
    }

    /// Applies a task's outcome: the next state, the queue, and the event.
    fn finish(&self, topic: &str, outcome: std::result::Result<TaskOutput, JobFailure>) {
        let review_url = self.review_url(topic);
        let r = self.store.write(|tx| -> StoreResult<()> {
            let Some(mut job) = tx.job(topic)? else {
                tx.remove_queue_entry(topic)?;
                return Ok(());
            };
            job.updated_at = now();
            match outcome {
                Err(f) => failed(tx, &mut job, &f)?,
                Ok(TaskOutput::Written(written)) => {
                    tx.remove_queue_entry(topic)?;
                    reach_stage(&mut job, WriterStage::Completed);
                    job.status = JobStatus::Completed;
                    job.notes = None;
                    if let JobPayload::Content(w) = &mut job.payload {
                        w.written = Some(written);
                    }
                    fire_terminal(tx, &mut job, "video.completed")?;
                }
                Ok(TaskOutput::Published(posts)) => published(tx, &mut job, posts)?,
                Ok(TaskOutput::Rendered(rendered)) => {
                    tx.remove_queue_entry(topic)?;
                    job.video_url = Some(rendered.video_url);
                    if let Some(v) = job.video_job_mut() {
                        v.rendered_document = Some(rendered.document);
                    }
                    job.status = JobStatus::Completed;
                    job.stage = Some(JobStage::RenderingVideo);
                    job.step = 7;
                    job.progress = 1.0;
                    job.review_url = Some(review_url);
                    fire_terminal(tx, &mut job, "video.completed")?;
                }
                Ok(TaskOutput::Built) => built(tx, &mut job, review_url)?,
            }
            tx.put_job(&job)
        });
        match r {
            Ok(()) => {
                self.wake_workers.notify_one();
                self.wake_outbox.notify_one();
            }
            Err(e) => tracing::error!(error = %e, topic, "could not record job outcome"),
        }
    }
}

/// 409 `scenes_not_ready` (`param: id`): an export or edit of a video whose scenes are not
/// ready for review.
pub fn scenes_not_ready() -> Error {
    Error::new(
        Code::ScenesNotReady,
        "The video has not reached scenes_ready_for_review yet.",
    )
    .param("id")
}

/// A task failed: the job fails with the failure's public message, its credits go back, and
/// `video.failed` fires.
fn failed(tx: &mut Tx, job: &mut Job, f: &JobFailure) -> StoreResult<()> {
    tracing::warn!(
        topic = %job.topic_id,
        code = %f.code,
        message = %f.message,
        cause = f.cause.as_deref().unwrap_or(""),
        "job failed"
    );
    tx.remove_queue_entry(&job.topic_id)?;
    job.status = JobStatus::Failed;
    job.error = Some(JobError {
        code: f.code,
        message: public_message(f),
    });
    refund_charge(tx, job)?;
    fire_terminal(tx, job, "video.failed")
}

/// The publisher reported: completed when any platform took the post; when every one refused
/// it the request failed (`publish_failed`) and its credit goes back.
fn published(tx: &mut Tx, job: &mut Job, posts: Vec<PostResult>) -> StoreResult<()> {
    tx.remove_queue_entry(&job.topic_id)?;
    job.step = 2;
    job.progress = 1.0;
    job.notes = None;
    if posts.iter().any(|p| p.success) {
        job.status = JobStatus::Completed;
    } else {
        job.status = JobStatus::Failed;
        job.error = Some(JobError {
            code: Code::PublishFailed,
            message: "No platform accepted the post; see result.posts[].error.".into(),
        });
        refund_charge(tx, job)?;
    }
    if let JobPayload::Publish(p) = &mut job.payload {
        p.posts = posts;
    }
    Ok(())
}

/// The scenes are built: a video job queues its render; a text or scene job is done.
fn built(tx: &mut Tx, job: &mut Job, review_url: String) -> StoreResult<()> {
    match job.output_type {
        OutputType::Video => {
            job.step = 6;
            job.stage = Some(JobStage::RenderingVideo);
            job.progress = job.progress.max(RENDER_START);
            job.review_url = Some(review_url);
            return tx.put_queue_entry(&job.topic_id, &QueueEntry::new(Task::Render, now()));
        }
        OutputType::Text => {
            job.step = 2;
            job.review_url = Some(format!("{review_url}&view=script"));
        }
        OutputType::Scene => {
            job.stage = Some(JobStage::ScenesReadyForReview);
            job.step = 5;
            job.review_url = Some(review_url);
        }
    }
    tx.remove_queue_entry(&job.topic_id)?;
    job.status = JobStatus::Completed;
    job.progress = 1.0;
    fire_terminal(tx, job, "video.completed")
}

/// Gives back what `job` was charged, once.
fn refund_charge(tx: &mut Tx, job: &mut Job) -> StoreResult<()> {
    if job.credits_charged > 0 {
        crate::accounts::refund(tx, &job.account, job.credits_charged)?;
        job.credits_charged = 0;
    }
    Ok(())
}

/// A new publish job: `processing` at step 1 until the publisher reports (step 2).
fn publish_job(account: &str, r: &AcceptedPublish, t: i64) -> Job {
    let payload = JobPayload::Publish(PublishJob::default());
    Job {
        notes: r
            .not_before
            .map(|at| format!("Scheduled for {}.", crate::time::iso(at))),
        metadata: r.metadata.clone(),
        credits_charged: r.cost,
        ..Job::new(r.request_id.clone(), account, payload, t)
    }
}

/// The answer to a video endpoint called with the id of written content.
fn not_a_video() -> Error {
    Error::new(
        Code::VideoNotFound,
        "This id is written content, not a video; read it with GET /v1/status/{id}.",
    )
    .param("id")
}

/// Records that `job` reached writer stage `stage`: the stage, its step and progress, and a
/// mark in the stage history (once per stage).
fn reach_stage(job: &mut Job, stage: WriterStage) {
    let t = now();
    job.step = stage.step();
    job.progress = stage.progress().max(job.progress);
    job.updated_at = t;
    let JobPayload::Content(w) = &mut job.payload else {
        return;
    };
    w.stage = Some(stage);
    if !w.stages.iter().any(|m| m.status == stage) {
        w.stages.push(StageMark {
            status: stage,
            at: crate::time::iso(t),
        });
    }
}

/// `export_video` was accepted for this video.
fn mark_exported(job: &mut Job) {
    if let Some(v) = job.video_job_mut() {
        v.export_requested = true;
    }
}

/// Job failure messages are ours, not raw internals: internal codes get a
/// generic sentence.
fn public_message(f: &JobFailure) -> String {
    match f.code {
        Code::Internal => "The job failed because of a server error.".into(),
        _ => f.message.clone(),
    }
}

/// Fires a terminal event once per run.
fn fire_terminal(tx: &mut Tx, job: &mut Job, event: &str) -> StoreResult<()> {
    if !job.terminal_fired {
        job.terminal_fired = true;
        queue_event(tx, job, event)?;
    }
    Ok(())
}

impl Job {
    /// The `create_video` request of a video job; a failure for any other job (a task routed
    /// to the wrong kind of job).
    pub fn video(&self) -> Result<&crate::model::VideoRequest, JobFailure> {
        self.request()
            .ok_or_else(|| JobFailure::internal("a video task ran on a job that is not a video"))
    }
}

impl QueueEntry {
    pub fn new(task: Task, t: i64) -> QueueEntry {
        QueueEntry {
            task,
            enqueued_at: t,
            lease_until: None,
            lease_owner: None,
            attempts: 0,
            not_before: None,
        }
    }
}

impl From<StoreError> for JobFailure {
    fn from(e: StoreError) -> Self {
        JobFailure::internal(e)
    }
}
