//! The chunk queue on NATS JetStream.
//!
//! - Tasks go to the work-queue stream [`TASK_STREAM`] (file storage, so a NATS restart keeps
//!   them), one message per chunk, deduplicated by `{render}-{key}` within the stream's window.
//!   Workers share the durable pull consumer [`WORKERS`]: explicit acks, an ack wait of
//!   `queue.ack_wait_secs` that a worker's in-progress heartbeats extend while it renders, and
//!   at most `queue.max_deliver` deliveries.
//! - A worker answers on the render's own subjects, which the API node subscribes to for the
//!   length of the render: `reelsmith.chunks.done.{render}` and `…progress.{render}`.
//! - A task that cannot be made goes to `reelsmith.chunks.dead.{render}`, kept by the stream
//!   [`DEAD_STREAM`] (the dead letters an operator reads) and seen by the render waiting for it.
//! - A task whose last delivery went unacknowledged (every worker that took it died) is
//!   announced by JetStream's max-deliveries advisory; the render waiting for it files the dead
//!   letter in the workers' stead and takes the task out of the work queue.

use std::time::Duration;

use async_nats::jetstream::{self, consumer, stream};
use bytes::Bytes;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use super::task::{ChunkResult, ChunkTask, Outcome, Progress};
use foundation::config::QueueConfig;

/// The work-queue stream of chunk tasks, and its one subject.
pub(crate) const TASK_STREAM: &str = "REELSMITH_CHUNKS";
pub(crate) const TASK_SUBJECT: &str = "reelsmith.chunks.task";
/// The stream of dead letters: tasks no worker could make.
pub(crate) const DEAD_STREAM: &str = "REELSMITH_DEAD";
/// The durable consumer every render worker pulls from.
pub(crate) const WORKERS: &str = "render-workers";

/// JetStream's advisory for a task of [`WORKERS`] delivered `max_deliver` times, unacknowledged.
pub(crate) const EXHAUSTED_SUBJECT: &str =
    "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.REELSMITH_CHUNKS.render-workers";

/// The part of that advisory the render reads.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct Exhausted {
    /// The task's sequence in [`TASK_STREAM`], as [`Queue::submit`] returned it.
    pub stream_seq: u64,
    pub deliveries: u64,
}

/// How long JetStream remembers a task's id to drop a second publish of it.
const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);
/// How long dead letters are kept.
const DEAD_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// The subject of one kind of answer (`done`, `dead`, `progress`) for render `render`.
pub(crate) fn answer_subject(kind: &str, render: &str) -> String {
    format!("reelsmith.chunks.{kind}.{render}")
}

/// Why the queue failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum QueueError {
    #[error("cannot reach NATS at {0}: {1}")]
    Connect(String, String),
    #[error("JetStream: {0}")]
    JetStream(String),
}

fn js(e: impl std::fmt::Display) -> QueueError {
    QueueError::JetStream(e.to_string())
}

/// A connection to the chunk queue.
#[derive(Clone)]
pub(crate) struct Queue {
    client: async_nats::Client,
    js: jetstream::Context,
    config: QueueConfig,
}

impl Queue {
    /// Connects as `name` and makes sure the streams and the workers' consumer exist.
    /// The client reconnects by itself after a NATS restart.
    pub async fn connect(config: &QueueConfig, name: &str) -> Result<Queue, QueueError> {
        let failed =
            |e: &dyn std::fmt::Display| QueueError::Connect(config.nats_url.clone(), e.to_string());
        let client = connect_options(config, name)
            .await
            .map_err(|e| failed(&e))?
            .connect(config.nats_url.as_str())
            .await
            .map_err(|e| failed(&e))?;
        let js = jetstream::new(client.clone());
        let queue = Queue {
            client,
            js,
            config: config.clone(),
        };
        queue.ensure().await?;
        Ok(queue)
    }

    async fn ensure(&self) -> Result<(), QueueError> {
        let tasks = self
            .js
            .get_or_create_stream(stream::Config {
                name: TASK_STREAM.into(),
                subjects: vec![TASK_SUBJECT.into()],
                retention: stream::RetentionPolicy::WorkQueue,
                storage: stream::StorageType::File,
                duplicate_window: DUPLICATE_WINDOW,
                ..Default::default()
            })
            .await
            .map_err(js)?;
        tasks
            .get_or_create_consumer(
                WORKERS,
                consumer::pull::Config {
                    durable_name: Some(WORKERS.into()),
                    ack_policy: consumer::AckPolicy::Explicit,
                    ack_wait: self.ack_wait(),
                    max_deliver: self.config.max_deliver,
                    ..Default::default()
                },
            )
            .await
            .map_err(js)?;
        self.js
            .get_or_create_stream(stream::Config {
                name: DEAD_STREAM.into(),
                subjects: vec![answer_subject("dead", ">")],
                storage: stream::StorageType::File,
                max_age: DEAD_MAX_AGE,
                ..Default::default()
            })
            .await
            .map_err(js)?;
        Ok(())
    }

    /// How long a delivered task may go without an ack or a heartbeat.
    pub(crate) fn ack_wait(&self) -> Duration {
        Duration::from_secs(self.config.ack_wait_secs.max(1))
    }

    /// Deliveries of one task before it is a dead letter.
    pub(crate) fn max_deliver(&self) -> i64 {
        self.config.max_deliver
    }

    /// Puts `task` on the queue; returns its sequence in [`TASK_STREAM`] once JetStream has
    /// stored it.
    pub async fn submit(&self, task: &ChunkTask) -> Result<u64, QueueError> {
        let publish = jetstream::message::PublishMessage::build()
            .payload(to_bytes(task))
            .message_id(format!("{}-{}", task.render, task.key));
        let ack = self
            .js
            .send_publish(TASK_SUBJECT, publish)
            .await
            .map_err(js)?
            .await
            .map_err(js)?;
        Ok(ack.sequence)
    }

    /// JetStream's max-deliveries advisories of the workers' consumer, from now on.
    pub(crate) async fn exhausted(&self) -> Result<async_nats::Subscriber, QueueError> {
        self.client.subscribe(EXHAUSTED_SUBJECT).await.map_err(js)
    }

    /// Takes tasks `seqs` out of the work queue; returns how many were still there.
    pub(crate) async fn remove_tasks(&self, seqs: &[u64]) -> Result<usize, QueueError> {
        let stream = self.js.get_stream(TASK_STREAM).await.map_err(js)?;
        let mut removed = 0;
        for &seq in seqs {
            // A task already acknowledged (or removed) is gone: nothing to do.
            if stream.delete_message(seq).await.is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// The answers to render `render` (done, dead, progress), from now on.
    pub async fn answers(&self, render: &str) -> Result<async_nats::Subscriber, QueueError> {
        self.client
            .subscribe(answer_subject("*", render))
            .await
            .map_err(js)
    }

    /// The workers' durable consumer, for [`Queue::next_task`]. It names the consumer on the
    /// server, so it stays good across NATS restarts.
    pub async fn consumer(&self) -> Result<consumer::PullConsumer, QueueError> {
        let stream = self.js.get_stream(TASK_STREAM).await.map_err(js)?;
        stream.get_consumer(WORKERS).await.map_err(js)
    }

    /// The next task for a worker that is free now, or `None` when a pull went unanswered for
    /// one ack wait (the queue is empty: ask again).
    ///
    /// A task is asked for only when the worker can start it, with one pull at a time.
    /// async-nats's pull stream (batches of one) could leave a second pull outstanding, so under
    /// load a worker was handed a task while it still rendered the one before; that task's ack
    /// wait ran out unheard and JetStream delivered it again (a chunk rendered twice).
    ///
    /// Each pull lives one ack wait, not async-nats's default 30 s: a pull that goes unanswered
    /// is then asked again well inside the dispatcher's silence window (at least two ack
    /// waits). CI once saw a worker wait out a whole 30 s pull with two tasks queued, and the
    /// dispatcher, silent for as long, failed the render.
    pub async fn next_task(
        &self,
        consumer: &consumer::PullConsumer,
    ) -> Result<Option<jetstream::Message>, QueueError> {
        let mut pull = consumer
            .batch()
            .max_messages(1)
            .expires(self.ack_wait())
            .messages()
            .await
            .map_err(js)?;
        pull.next().await.transpose().map_err(js)
    }

    /// Reports a finished task: a completion on the render's `done` subject; a failure as a
    /// dead letter, stored by JetStream.
    pub async fn report(&self, result: &ChunkResult) -> Result<(), QueueError> {
        match result.outcome {
            Outcome::Done { .. } => {
                let subject = answer_subject("done", &result.render);
                self.client
                    .publish(subject, to_bytes(result))
                    .await
                    .map_err(js)?;
                self.client.flush().await.map_err(js)
            }
            Outcome::Failed { .. } => {
                let subject = answer_subject("dead", &result.render);
                self.js
                    .publish(subject, to_bytes(result))
                    .await
                    .map_err(js)?
                    .await
                    .map_err(js)?;
                Ok(())
            }
        }
    }

    /// Tells the waiting render how far a chunk is (best effort: a lost heartbeat costs only a
    /// progress bar step).
    pub async fn progress(&self, render: &str, progress: &Progress) {
        let subject = answer_subject("progress", render);
        let _ = self.client.publish(subject, to_bytes(progress)).await;
    }
}

/// How this process connects as `name`: reconnecting forever, with the credentials and TLS
/// settings `config` names (checked to be consistent when the config was loaded).
async fn connect_options(
    config: &QueueConfig,
    name: &str,
) -> std::io::Result<async_nats::ConnectOptions> {
    let mut options = async_nats::ConnectOptions::new();
    if let Some(creds) = &config.nats_credentials {
        options = options.credentials_file(creds).await?;
    } else if !config.nats_user.is_empty() {
        options = options.user_and_password(config.nats_user.clone(), config.nats_password.clone());
    } else if !config.nats_token.is_empty() {
        options = options.token(config.nats_token.clone());
    }
    if let Some(ca) = &config.nats_tls_ca {
        options = options.add_root_certificates(ca.clone()).require_tls(true);
    }
    if let (Some(cert), Some(key)) = (&config.nats_tls_cert, &config.nats_tls_key) {
        options = options.add_client_certificate(cert.clone(), key.clone());
    }
    Ok(options
        .name(name)
        .connection_timeout(Duration::from_secs(5))
        .max_reconnects(None))
}

fn to_bytes(value: &impl Serialize) -> Bytes {
    Bytes::from(serde_json::to_vec(value).expect("queue messages always serialise"))
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, TcpListener, TcpStream};
    use std::process::{Child, Command};

    use async_nats::jetstream::AckKind;

    use super::*;

    /// Debian's `nats-server` with JetStream on a free port, killed on drop.
    struct NatsServer {
        child: Child,
        port: u16,
        _store: tempfile::TempDir,
    }

    impl NatsServer {
        fn start() -> NatsServer {
            let store = tempfile::tempdir().unwrap();
            let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                .and_then(|l| l.local_addr())
                .unwrap()
                .port();
            let child = Command::new("nats-server")
                .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
                .arg(store.path())
                .spawn()
                .expect("nats-server (make setup-test installs it)");
            let started = std::time::Instant::now();
            while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "nats-server did not start"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            NatsServer {
                child,
                port,
                _store: store,
            }
        }
    }

    impl Drop for NatsServer {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// A worker renders its task for longer than the ack wait (heartbeating, as it does); the
    /// task queued behind it is delivered once, when the worker asks for it, not held meanwhile
    /// and delivered again when its ack wait ran out unheard.
    #[tokio::test]
    async fn a_task_queued_behind_a_long_one_is_delivered_once() {
        let server = NatsServer::start();
        let config = QueueConfig {
            kind: foundation::config::QueueKind::Nats,
            nats_url: format!("nats://127.0.0.1:{}", server.port),
            ack_wait_secs: 1,
            ..QueueConfig::default()
        };
        let queue = Queue::connect(&config, "test").await.unwrap();
        for body in ["first", "second"] {
            queue
                .js
                .publish(TASK_SUBJECT, Bytes::from(body))
                .await
                .unwrap()
                .await
                .unwrap();
        }
        let mut consumer = queue.consumer().await.unwrap();
        let first = queue.next_task(&consumer).await.unwrap().expect("a task");
        assert_eq!(&first.payload[..], b"first");
        for _ in 0..8 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            first.ack_with(AckKind::Progress).await.unwrap();
        }
        // While it renders, the worker holds only its task and asks for no other.
        let info = consumer.info().await.unwrap();
        assert_eq!(
            (info.num_ack_pending, info.num_waiting, info.num_pending),
            (1, 0, 1)
        );
        first.double_ack().await.unwrap();
        let second = queue.next_task(&consumer).await.unwrap().expect("a task");
        assert_eq!(&second.payload[..], b"second");
        assert_eq!(second.info().unwrap().delivered, 1);
        second.double_ack().await.unwrap();
        let again = queue.next_task(&consumer).await.unwrap();
        assert!(
            again.is_none(),
            "delivered again: {:?}",
            again.map(|m| m.payload.clone())
        );
    }
}
