//! Render workers at scale (`make test-scale`, ignored by `make test`): many videos across
//! workers, and the figures of a farmed render: scheduling overhead, bytes moved, CPU per
//! video on the API node and on the workers, and the wall-time model they give. The blob
//! store is Garage here (s3s-fs serves `make test`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use reelsmith_tests::cluster::{Nats, Netns, S3, Worker, cpu_seconds, queue_env};
use reelsmith_tests::{Daemon, Receiver, script};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(900);

/// NATS and Garage on this host, as the API node and its workers see them.
fn farm_env(nats: &Nats, s3: &S3) -> Vec<(String, String)> {
    let mut env = queue_env(nats, 10);
    env.extend(s3.env());
    env
}

fn start_daemon(env: &[(String, String)]) -> Daemon {
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Daemon::start(BIN, &pairs)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "make test-scale"]
async fn twenty_videos_across_two_workers_all_complete_none_twice() {
    let nats = Nats::start();
    let s3 = S3::garage_on("127.0.0.1");
    let env = farm_env(&nats, &s3);
    let workers = [Worker::start(BIN, &env), Worker::start(BIN, &env)];
    let mut env_daemon = env.clone();
    env_daemon.push(("REELSMITH__RENDER__WORKERS".into(), "4".into()));
    let d = start_daemon(&env_daemon);
    let hooks = Receiver::start(vec![]).await;
    let started = Instant::now();
    let mut ids = Vec::new();
    for i in 0..20 {
        let body = json!({ "script_text": script(80 + i), "output_type": "video",
                           "callback_url": hooks.url });
        let (c, v, _) = d.post("/v1/create_video", &body).await;
        assert_eq!(c, 202, "{v}");
        ids.push(v["id"].as_str().unwrap().to_string());
    }
    for id in &ids {
        let done = d.wait_for(id, LONG, |v| v["status"] != "processing").await;
        assert_eq!(done["status"], "completed", "{done}");
    }
    let wall = started.elapsed();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut terminal: HashMap<String, usize> = HashMap::new();
    for e in hooks.deliveries().iter().map(|r| r.json()) {
        if e["event_type"] == "video.completed" || e["event_type"] == "video.failed" {
            *terminal
                .entry(e["data"]["id"].as_str().unwrap().into())
                .or_default() += 1;
        }
    }
    for id in &ids {
        assert_eq!(terminal.get(id), Some(&1), "one terminal webhook for {id}");
    }
    // No chunk was made twice: every finished key is distinct across both workers.
    let mut keys: Vec<String> = workers
        .iter()
        .flat_map(|w| w.lines_with("chunk task finished"))
        .filter_map(|l| l.split("key=").nth(1).map(|k| k[..32].to_owned()))
        .collect();
    let made = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), made, "a chunk was rendered twice");
    let per_worker: Vec<usize> = workers
        .iter()
        .map(|w| w.lines_with("chunk task finished").len())
        .collect();
    eprintln!(
        "20 videos, {made} chunks ({per_worker:?} per worker) in {:.1} s: {:.1} videos/min",
        wall.as_secs_f64(),
        20.0 * 60.0 / wall.as_secs_f64()
    );
}

/// The numbers of a `key=value` log line.
fn fields(line: &str) -> HashMap<String, f64> {
    line.split_whitespace()
        .filter_map(|f| f.split_once('='))
        .filter_map(|(k, v)| v.parse().ok().map(|v| (k.to_owned(), v)))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "make test-scale"]
async fn figures_of_a_farmed_render_and_the_worker_count_model() {
    let nats = Nats::start();
    let s3 = S3::garage_on("127.0.0.1");
    let env = farm_env(&nats, &s3);
    let worker = Worker::start(BIN, &env);
    let d = start_daemon(&env);
    let (id, _) = d.scenes_ready_video().await;
    let (api_cpu, worker_cpu) = (cpu_seconds(d.pid()), worker.cpu_seconds());
    let started = Instant::now();
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": id })).await;
    assert_eq!(c, 202, "{v}");
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    let export = started.elapsed().as_secs_f64();
    let api_cpu = cpu_seconds(d.pid()) - api_cpu;
    let worker_cpu = worker.cpu_seconds() - worker_cpu;
    let line = d
        .log_lines()
        .into_iter()
        .rfind(|l| l.contains("chunks rendered by workers"))
        .expect("the render went to the worker");
    let f = fields(&line);
    let ms = |k: &str| f.get(k).copied().unwrap_or(0.0) / 1000.0;
    let chunks = f["chunks"];
    let (wall, submit, work, longest) = (
        ms("wall_ms"),
        ms("submit_ms"),
        ms("worker_ms"),
        ms("longest_ms"),
    );
    let overhead = (wall - submit - work) / chunks;
    let moved = f["uploaded"] + f["downloaded"] + f["worker_fetched"] + f["worker_stored"];
    eprintln!(
        "one worker, {chunks} chunks: export {export:.2} s, farm wall {wall:.2} s (submit {submit:.2} s), worker time {work:.2} s (longest chunk {longest:.2} s)"
    );
    eprintln!("scheduling overhead per chunk: {:.0} ms", overhead * 1000.0);
    eprintln!(
        "bytes moved per video: {:.1} MB (uploaded {:.1}, workers fetched {:.1}, stored {:.1}, downloaded {:.1})",
        moved / 1e6,
        f["uploaded"] / 1e6,
        f["worker_fetched"] / 1e6,
        f["worker_stored"] / 1e6,
        f["downloaded"] / 1e6
    );
    eprintln!("CPU per video: API node {api_cpu:.2} s, worker {worker_cpu:.2} s");
    // The model: the API node's part (export − farm wall + submit) stays; the chunks spread
    // over n workers (never faster than the longest chunk), each round paying the overhead.
    let fixed = export - wall + submit;
    eprintln!("workers  predicted wall of this video  videos/min with many queued");
    for n in [1.0f64, 2.0, 4.0, 8.0, 16.0, 100.0] {
        let rounds = (chunks / n).ceil();
        let predicted = fixed + (work / n).max(longest) + overhead * rounds;
        // Throughput: workers' CPU spread over n hosts against the API node's own CPU per video.
        let per_min = (60.0 * n / worker_cpu).min(60.0 / api_cpu);
        eprintln!("{n:>7}  {predicted:>8.2} s  {per_min:>10.1}");
    }
    assert!(chunks >= 2.0 && work > 0.0 && overhead >= 0.0, "{line}");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "make test-scale (root: ip netns)"]
async fn workers_in_their_own_network_namespaces_render_over_the_network() {
    let nats = Nats::start_on("0.0.0.0");
    let s3 = S3::garage_on("0.0.0.0");
    let hosts = [Netns::new(1), Netns::new(2)];
    let workers: Vec<Worker> = hosts
        .iter()
        .map(|ns| {
            let mut env = queue_env(&nats, 10);
            env[1].1 = nats.url_at(&ns.host_ip);
            env.extend(s3.env_at(&ns.host_ip));
            Worker::start_in(Some(ns), BIN, &env)
        })
        .collect();
    // Like separate hosts: this host's loopback is not theirs.
    assert!(!hosts[0].reaches("127.0.0.1", nats.port()));
    assert!(hosts[0].reaches(&hosts[0].host_ip, nats.port()));
    let mut env = queue_env(&nats, 10);
    env.extend(s3.env());
    let d = start_daemon(&env);
    let body = json!({ "script_text": script(90), "output_type": "video" });
    let (c, v, _) = d.post("/v1/create_video", &body).await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    for (i, w) in workers.iter().enumerate() {
        let made = w.lines_with("chunk task finished").len();
        eprintln!("worker in namespace {} made {made} chunks", i + 1);
        assert!(made > 0, "worker {i} made no chunk");
    }
}
