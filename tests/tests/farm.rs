//! Render workers on other processes (`queue.kind = "nats"`): a real `nats-server` with
//! JetStream, a real S3 server (`s3s-fs`) or a shared folder, `reelsmith worker` processes,
//! and the daemon rendering through them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reelsmith_tests::cluster::{
    Nats, S3, Worker, frame_digests, luma_psnr, queue_env, tls_certificates,
};
use reelsmith_tests::{Daemon, Receiver, corrupt, script};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(300);

fn start_daemon(env: &[(String, String)]) -> Daemon {
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Daemon::start(BIN, &pairs)
}

/// A shared folder as the blob store: workers on this host.
fn folder_env(dir: &Path) -> Vec<(String, String)> {
    vec![("REELSMITH__STORAGE__DIR".into(), dir.display().to_string())]
}

/// Creates a video of `words` words rendered to MP4 (`callback` gets its webhooks); returns
/// its id.
async fn create(d: &Daemon, words: usize, callback: Option<&str>) -> String {
    let mut body = json!({ "script_text": script(words), "output_type": "video" });
    if let Some(url) = callback {
        body["callback_url"] = json!(url);
    }
    let (c, v, _) = d.post("/v1/create_video", &body).await;
    assert_eq!(c, 202, "{v}");
    v["id"].as_str().unwrap().to_string()
}

/// Waits for video `id` to complete; returns its published MP4.
async fn completed(d: &Daemon, id: &str) -> PathBuf {
    let done = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    let url = done["result"]["video_url"].as_str().unwrap();
    d.data_dir()
        .join("public/videos")
        .join(url.rsplit('/').next().unwrap())
}

/// The daemon's log line reporting what workers did for its last render.
fn farm_line(d: &Daemon) -> String {
    d.log_lines()
        .into_iter()
        .rfind(|l| l.contains("chunks rendered by workers"))
        .expect("the render went to workers")
}

#[tokio::test(flavor = "multi_thread")]
async fn three_workers_on_s3_render_the_frames_one_machine_renders() {
    let nats = Nats::start();
    let s3 = S3::start();
    let mut env = queue_env(&nats, 30);
    env.extend(s3.env());
    let workers: Vec<Worker> = (0..3).map(|_| Worker::start(BIN, &env)).collect();
    let mut d = start_daemon(&env);
    let id = create(&d, 90, None).await;
    let farmed = completed(&d, &id).await;
    eprintln!("{}", farm_line(&d));
    for (i, w) in workers.iter().enumerate() {
        assert!(
            !w.lines_with("chunk task finished").is_empty(),
            "worker {i} rendered no chunk"
        );
    }
    let kept = tempfile::tempdir().unwrap();
    let farmed_copy = kept.path().join("farmed.mp4");
    std::fs::copy(&farmed, &farmed_copy).unwrap();

    // The same document rendered again by one process alone, from an empty chunk cache.
    let chunks = d.data_dir().join("videos").join(&id).join("chunks");
    let farmed_keys = chunk_names(&chunks);
    std::fs::remove_dir_all(&chunks).unwrap();
    d.cli_offline(&["rerender", "--topic", &id]);
    let alone = completed(&d, &id).await;
    assert_ne!(alone, farmed);
    // Every chunk had the same key: the same inputs, placement, next first frame and encoder.
    assert_eq!(farmed_keys, chunk_names(&chunks));
    // The same pictures, frame for frame. Not the same bytes: the workers encode each chunk
    // apart, one process keeps its encoder open from chunk to chunk, so x264's rate control
    // differs. Two such encodings of a 150-word video were 46.9 dB apart at their worst frame;
    // the same video one frame late fell to 17.5 dB (2026-12-02).
    let (farmed_frames, alone_frames) = (frame_digests(&farmed_copy), frame_digests(&alone));
    assert!(alone_frames.len() > 100, "{} frames", alone_frames.len());
    assert_eq!(farmed_frames.len(), alone_frames.len());
    let psnr = luma_psnr(&farmed_copy, &alone);
    assert_eq!(psnr.len(), alone_frames.len());
    let far: Vec<(usize, f64)> = psnr
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, db)| db < 35.0)
        .collect();
    assert!(
        far.is_empty(),
        "frames (index, dB) beyond encoding noise: {far:?}"
    );
}

/// The chunk files of a chunk folder (names carry the keys), sorted.
fn chunk_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("full-") && !n.contains("-audio-"))
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_killed_mid_chunk_costs_a_redelivery_and_one_terminal_webhook() {
    let nats = Nats::start();
    let blobs = tempfile::tempdir().unwrap();
    let mut env = queue_env(&nats, 2);
    env.extend(folder_env(blobs.path()));
    let mut doomed = Worker::start(BIN, &env);
    let d = start_daemon(&env);
    let hooks = Receiver::start(vec![]).await;
    let id = create(&d, 90, Some(&hooks.url)).await;
    doomed.wait_for_line("chunk task started", LONG);
    doomed.kill();
    let survivor = Worker::start(BIN, &env);
    completed(&d, &id).await;
    assert!(
        !survivor.lines_with("delivered=2").is_empty(),
        "the killed worker's chunk was delivered again"
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let terminal: Vec<_> = hooks
        .deliveries()
        .into_iter()
        .map(|r| r.json())
        .filter(|e| e["data"]["id"] == id.as_str())
        .filter(|e| e["event_type"] == "video.completed" || e["event_type"] == "video.failed")
        .collect();
    assert_eq!(terminal.len(), 1, "{terminal:?}");
    assert_eq!(terminal[0]["event_type"], "video.completed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_nats_restart_mid_render_does_not_stop_the_video() {
    let mut nats = Nats::start();
    let blobs = tempfile::tempdir().unwrap();
    let mut env = queue_env(&nats, 5);
    env.extend(folder_env(blobs.path()));
    let worker = Worker::start(BIN, &env);
    let d = start_daemon(&env);
    let id = create(&d, 90, None).await;
    worker.wait_for_line("chunk task finished", LONG);
    nats.restart();
    let mp4 = completed(&d, &id).await;
    assert!(!frame_digests(&mp4).is_empty());
    assert!(
        worker.lines_with("chunk task finished").len() > 1,
        "the worker went on after the restart"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chunk_whose_input_does_not_decode_is_a_dead_letter_and_fails_the_video() {
    let nats = Nats::start();
    let blobs = tempfile::tempdir().unwrap();
    let mut env = queue_env(&nats, 5);
    env.extend(folder_env(blobs.path()));
    let worker = Worker::start(BIN, &env);
    let d = start_daemon(&env);
    // Scene 1's background: the API node resolves a scene only for the first frame the scene
    // before it fades into, so scene 1 is read by the worker alone.
    let (id, first) = d.scenes_ready_video().await;
    let names: Vec<String> = ["png", "jpg", "jpeg", "webp"]
        .iter()
        .map(|ext| format!("{first}_broll.{ext}"))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let broken = corrupt(&d.data_dir().join("videos").join(&id), &names);
    assert!(broken > 0, "scene 1 has no image background to corrupt");
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 202, "{v}");
    let failed = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], "render_failed", "{failed}");
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(message.contains("background image"), "{message}");
    assert!(
        !message.contains('/'),
        "no paths reach the client: {message}"
    );
    // Undecodable input is not retried: one delivery, and the task kept as a dead letter.
    assert!(worker.lines_with("delivered=2").is_empty());
    assert!(nats.stream_messages("REELSMITH_DEAD").await >= 1);
    // The video's other chunks were taken out of the queue with it.
    assert_eq!(nats.stream_messages("REELSMITH_CHUNKS").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chunk_every_worker_dies_on_is_a_dead_letter_and_fails_the_video() {
    let nats = Nats::start();
    let blobs = tempfile::tempdir().unwrap();
    let mut env = queue_env(&nats, 2);
    env.push(("REELSMITH__QUEUE__MAX_DELIVER".into(), "2".into()));
    env.extend(folder_env(blobs.path()));
    let d = start_daemon(&env);
    let id = create(&d, 90, None).await;
    // The first worker dies on its first task; the second on that task's second delivery
    // (after rendering whatever else it was given while the ack wait ran out).
    for line in ["chunk task started", "delivered=2"] {
        let mut worker = Worker::start(BIN, &env);
        worker.wait_for_line(line, LONG);
        worker.kill();
    }
    // JetStream finds a task's deliveries spent when a worker next asks for work.
    let healthy = Worker::start(BIN, &env);
    let failed = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], "render_failed", "{failed}");
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(message.contains("never finished"), "{message}");
    // JetStream's max-deliveries advisory ended the render, not the wait for silence.
    assert!(
        d.log_lines()
            .iter()
            .any(|l| l.contains("delivered 2 times without an answer")),
        "the render failed on the advisory"
    );
    assert!(nats.stream_messages("REELSMITH_DEAD").await >= 1);
    assert_eq!(nats.stream_messages("REELSMITH_CHUNKS").await, 0);
    assert!(
        healthy.lines_with("delivered=3").is_empty(),
        "the task was not given out again"
    );
    assert!(
        healthy.lines_with("delivered=3").is_empty(),
        "the task was not given out again"
    );
}

/// `env` with `REELSMITH__QUEUE__{key}` set to `value` as well.
fn with_queue(mut env: Vec<(String, String)>, pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    for (k, v) in pairs {
        env.push((format!("REELSMITH__QUEUE__{k}"), (*v).to_owned()));
    }
    env
}

#[tokio::test(flavor = "multi_thread")]
async fn nats_with_a_password_lets_the_right_one_render_and_refuses_a_wrong_one() {
    let nats = Nats::start_with(
        "127.0.0.1",
        &["--user", "reelsmith", "--pass", "s3cret-pass"],
    );
    let blobs = tempfile::tempdir().unwrap();
    let mut base = queue_env(&nats, 10);
    base.extend(folder_env(blobs.path()));
    let env = with_queue(
        base.clone(),
        &[("NATS_USER", "reelsmith"), ("NATS_PASSWORD", "s3cret-pass")],
    );
    let impostor = Worker::spawn(
        None,
        BIN,
        &with_queue(
            base,
            &[("NATS_USER", "reelsmith"), ("NATS_PASSWORD", "guess")],
        ),
    );
    let _worker = Worker::start(BIN, &env);
    let d = start_daemon(&env);
    let id = create(&d, 90, None).await;
    completed(&d, &id).await;
    let refused = impostor.lines_with("not reachable yet");
    assert!(!refused.is_empty(), "the wrong password was not refused");
    assert!(
        refused[0].to_lowercase().contains("authorization"),
        "{}",
        refused[0]
    );
    assert!(impostor.lines_with("waiting for chunks").is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn nats_over_tls_with_a_private_ca_renders_and_an_unknown_ca_is_refused() {
    let certs = tempfile::tempdir().unwrap();
    let (ca, cert, key) = tls_certificates(certs.path());
    let (cert, key) = (cert.display().to_string(), key.display().to_string());
    let nats = Nats::start_with(
        "127.0.0.1",
        &["--tls", "--tlscert", &cert, "--tlskey", &key],
    );
    let blobs = tempfile::tempdir().unwrap();
    let mut base = queue_env(&nats, 10);
    base.extend(folder_env(blobs.path()));
    let url = nats.url().replace("nats://", "tls://");
    let base = with_queue(base, &[("NATS_URL", &url)]);
    let env = with_queue(base.clone(), &[("NATS_TLS_CA", &ca.display().to_string())]);
    let stranger = Worker::spawn(None, BIN, &base);
    let _worker = Worker::start(BIN, &env);
    let d = start_daemon(&env);
    let id = create(&d, 90, None).await;
    completed(&d, &id).await;
    assert!(
        !stranger.lines_with("not reachable yet").is_empty(),
        "a worker that does not trust the CA connected"
    );
    assert!(stranger.lines_with("waiting for chunks").is_empty());
}
