//! Support for the black-box tests in `tests/tests/`: start the real
//! `reelsmith` binary on 127.0.0.1:0 with a temporary data directory, talk
//! HTTP to it, and receive its webhooks on a real local server.
//!
//! The test files are compiled as integration tests of the `reelsmith`
//! package (see `daemon/Cargo.toml`) so cargo builds the binary for them.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hmac::{KeyInit, Mac};
use serde_json::Value;
use warp::Filter;
use warp::http::{HeaderMap, StatusCode};

/// Crates the test files use through this one (they are targets of the `reelsmith` package,
/// whose dev-dependencies stay small).
pub use ::{bytes, futures_util, tempfile, tokio_tungstenite, warp};

pub mod browser;
pub mod cluster;
pub mod speech;

/// `line` without terminal colour codes (CSI sequences: ESC [ parameters final-byte).
pub fn strip_colours(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Overwrites with junk every file in `dir` whose name ends with one of `suffixes`; returns how
/// many there were.
pub fn corrupt(dir: &Path, suffixes: &[&str]) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if suffixes.iter().any(|s| name.ends_with(s)) {
            // Truncate in place: a published hard link sees the same junk.
            std::fs::write(&path, b"this is not media at all").unwrap();
            n += 1;
        }
    }
    n
}

pub const SECRET: &str = "test-signing-secret-0123456789-abcdefgh";

/// The x264 preset of every render in the suite: the daemons', the CLI's and the render
/// workers', so that their chunk caches agree. The tests prove behaviour, not compression;
/// `ultrafast` cut the render-heavy tests' time by a fifth (301 → 238 s for `contact_sheet`,
/// `render`, `editing`, `sound` and `failures`). The product's preset is encoded by
/// `compositor`'s tests and the benches.
pub const TEST_PRESET: &str = "ultrafast";

/// The variable that sets [`TEST_PRESET`] (the config's `render.preset`); a test that passes
/// it itself overrides it.
pub(crate) const PRESET_VAR: &str = "REELSMITH__RENDER__PRESET";

/// The `reelsmith` executable `bin` as the suite runs it: rendering at [`TEST_PRESET`].
pub fn reelsmith_command(bin: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(bin);
    command.env(PRESET_VAR, TEST_PRESET);
    command
}

/// A running daemon process.
pub struct Daemon {
    bin: PathBuf,
    child: Option<Child>,
    pub dir: tempfile::TempDir,
    pub base: String,
    pub key: String,
    env: Vec<(String, String)>,
    pub http: reqwest::Client,
    /// The daemon's log lines (stderr, also passed on to ours), the last 50 000 kept.
    log: Arc<Mutex<Vec<String>>>,
}

impl Daemon {
    /// Starts the daemon with a base config file plus `env` overrides
    /// (`REELSMITH__SECTION__KEY` pairs), which also exercises that layer.
    pub fn start(bin: &str, env: &[(&str, &str)]) -> Daemon {
        Daemon::start_in(tempfile::tempdir().expect("temp dir"), bin, env)
    }

    /// Like [`Daemon::start`], in a temp dir the caller made (its `data` folder may already
    /// exist, for example as a small tmpfs).
    pub fn start_in(dir: tempfile::TempDir, bin: &str, env: &[(&str, &str)]) -> Daemon {
        let mut d = Daemon {
            bin: PathBuf::from(bin),
            child: None,
            dir,
            base: String::new(),
            key: String::new(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .expect("client"),
            log: Arc::default(),
        };
        d.spawn();
        d.key = std::fs::read_to_string(d.dir.path().join("data/bootstrap-key"))
            .expect("bootstrap key written")
            .trim()
            .to_string();
        d
    }

    /// The daemon's log lines so far, without terminal colour codes.
    pub fn log_lines(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|l| strip_colours(l))
            .collect()
    }

    /// The daemon's process id (while it runs).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn config_path(&self) -> PathBuf {
        self.dir.path().join("reelsmith.toml")
    }

    /// The base config. The narrator is espeak-ng, many times faster than the neural voice:
    /// the tests of the neural voice ask for it with `REELSMITH__VOICE__PROVIDER=piper`.
    fn spawn(&mut self) {
        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
        let toml = format!(
            "mode = \"dev\"\nlisten = \"127.0.0.1:0\"\ndata_dir = {:?}\nassets_dir = {:?}\n[webhook]\nsigning_secret = \"{SECRET}\"\n[voice]\nprovider = \"espeak\"\n",
            self.data_dir().display().to_string(),
            assets.display().to_string(),
        );
        std::fs::write(self.config_path(), toml).expect("config written");
        let mut child = reelsmith_command(&self.bin)
            .args(["serve", "--config"])
            .arg(self.config_path())
            .env("REELSMITH_LOG", "info")
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("daemon starts");
        let stderr = child.stderr.take().expect("stderr");
        let log = self.log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("{line}");
                let mut kept = log.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() >= 50_000 {
                    kept.drain(..10_000);
                }
                kept.push(line);
            }
        });
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let first = lines
            .next()
            .expect("daemon printed a line")
            .expect("readable stdout");
        let addr = first
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {first}"));
        self.base = addr.to_string();
        // Keep draining stdout so the daemon never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines.by_ref() {});
        self.child = Some(child);
    }

    /// Stops with SIGKILL (no cleanup at all) and starts again on the same
    /// data directory.
    pub fn kill_and_restart(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().expect("kill");
            c.wait().expect("reaped");
        }
        self.spawn();
    }

    /// Sends SIGTERM and waits for a clean exit; returns the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let mut c = self.child.take().expect("running");
        // SAFETY: plain kill(2) on our own child's pid.
        unsafe {
            libc::kill(c.id() as i32, libc::SIGTERM);
        }
        let start = Instant::now();
        loop {
            if let Some(s) = c.try_wait().expect("wait") {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "daemon did not stop on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn restart(&mut self) {
        self.spawn();
    }

    /// Sets (or replaces) one environment override for the next start, as
    /// [`Daemon::start`]'s `env` does.
    pub fn set_env(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_string(), value.to_string()));
    }

    /// Stops the daemon (the CLI's offline commands need its data dir to themselves), runs
    /// `reelsmith ARGS --data-dir DIR`, asserts it succeeded and starts the daemon again.
    /// Returns the command's stdout.
    pub fn cli_offline(&mut self, args: &[&str]) -> String {
        assert!(self.terminate().success());
        let out = reelsmith_command(&self.bin)
            .args(args)
            .arg("--data-dir")
            .arg(self.data_dir())
            .output()
            .expect("the reelsmith CLI runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.restart();
        String::from_utf8(out.stdout).expect("utf-8 output")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value, HeaderMap) {
        let r = self
            .http
            .post(self.url(path))
            .bearer_auth(&self.key)
            .json(body)
            .send()
            .await
            .expect("request sent");
        split(r).await
    }

    /// Posts `create_video` with `request` and waits until the video's scenes are ready for
    /// review.
    pub async fn scenes_ready(&self, request: &Value) -> ScenesReady {
        let (c, v, _) = self.post("/v1/create_video", request).await;
        assert_eq!(c, 202, "{v}");
        let id = v["id"].as_str().unwrap().to_string();
        let done = self
            .wait_for(&id, Duration::from_secs(300), |v| {
                v["status"] != "processing"
            })
            .await;
        assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");
        let review_url = done["result"]["review_url"].as_str().unwrap().to_string();
        let voice_files = self.scene_tree(&id).await["segments"]
            .as_array()
            .expect("segments")
            .iter()
            .map(|s| s["voice_file"].as_str().unwrap().to_string())
            .collect();
        ScenesReady {
            id,
            review_url,
            voice_files,
        }
    }

    /// A scene video of a 90-word script, ready for review: its id and its first scene's
    /// `voice_file`.
    pub async fn scenes_ready_video(&self) -> (String, String) {
        let request = serde_json::json!({ "script_text": script(90), "output_type": "scene" });
        let ready = self.scenes_ready(&request).await;
        (ready.id, ready.voice_files[0].clone())
    }

    /// The full scene tree of video `id`: `POST /v1/video_data`, then its public file.
    pub async fn scene_tree(&self, id: &str) -> Value {
        let (c, v, _) = self
            .post("/v1/video_data", &serde_json::json!({ "video_id": id }))
            .await;
        assert_eq!(c, 200, "{v}");
        let url = v["data"]["url"].as_str().expect("data.url");
        self.http
            .get(url)
            .send()
            .await
            .expect("video_data file")
            .json()
            .await
            .expect("JSON scene tree")
    }

    pub async fn get(&self, path: &str) -> (u16, Value, HeaderMap) {
        let r = self
            .http
            .get(self.url(path))
            .bearer_auth(&self.key)
            .send()
            .await
            .expect("request sent");
        split(r).await
    }

    /// Connects `platform` as `@handle` to channel group `group` the way the account holder
    /// does: the setup page's form (`setup_url` of `GET /v1/channel_groups`), posted as a
    /// browser posts it. Returns the page's status and text.
    pub async fn connect_platform(
        &self,
        platform: &str,
        group: u32,
        handle: &str,
    ) -> (u16, String) {
        let (c, v, _) = self.get("/v1/channel_groups").await;
        assert_eq!(c, 200, "{v}");
        let setup = v["setup_url"].as_str().expect("setup_url").to_string();
        let r = self
            .http
            .post(&setup)
            .form(&[
                ("platform", platform),
                ("channel_group", &group.to_string()),
                ("username", handle),
                ("display_name", ""),
            ])
            .send()
            .await
            .expect("setup form sent");
        let code = r.status().as_u16();
        (code, r.text().await.expect("page text"))
    }

    /// Polls `/v1/status/{id}` until `done` says so, or panics after `timeout`.
    pub async fn wait_for(
        &self,
        id: &str,
        timeout: Duration,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let start = Instant::now();
        loop {
            let (code, v, _) = self.get(&format!("/v1/status/{id}")).await;
            assert_eq!(code, 200, "{v}");
            if done(&v) {
                return v;
            }
            assert!(
                start.elapsed() < timeout,
                "timed out waiting; last status {v}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// A video whose scenes are ready for review ([`Daemon::scenes_ready`]).
pub struct ScenesReady {
    pub id: String,
    pub review_url: String,
    /// Its scenes' `voice_file`s, in order.
    pub voice_files: Vec<String>,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub async fn split(r: reqwest::Response) -> (u16, Value, HeaderMap) {
    let code = r.status().as_u16();
    let headers = r.headers().clone();
    let text = r.text().await.expect("body");
    let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (code, v, headers)
}

/// A script of `n` words in sentences of about 12 words.
pub fn script(n: usize) -> String {
    const WORDS: &[&str] = &[
        "video", "teams", "publish", "stories", "every", "week", "because", "short", "clips",
        "reach", "people", "quickly", "and", "clearly", "with", "simple", "words",
    ];
    let mut out = String::new();
    for i in 0..n {
        let w = WORDS[(i * 7 + i / 3) % WORDS.len()];
        if i % 12 == 0 {
            let mut c = w.chars();
            let first = c.next().unwrap().to_ascii_uppercase();
            out.push(first);
            out.push_str(c.as_str());
        } else {
            out.push_str(w);
        }
        out.push(if i % 12 == 11 || i == n - 1 { '.' } else { ' ' });
        if i % 12 == 11 {
            out.push(' ');
        }
    }
    out.trim().to_string()
}

/// `(unix seconds, RFC 3339 UTC)` of `secs` from now, for schedules.
pub fn utc_after(secs: u64) -> (u64, String) {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + secs;
    let days = t / 86_400;
    let (h, m, s) = ((t % 86_400) / 3600, (t % 3600) / 60, t % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        t,
        format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z"),
    )
}

/// One webhook delivery as the receiver saw it.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: String,
    /// When it arrived.
    pub at: Instant,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("webhook body is JSON")
    }
    pub fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    }
}

/// A real HTTP server that records deliveries and answers with the statuses
/// it is told to (then 200 forever).
pub struct Receiver {
    pub url: String,
    pub got: Arc<Mutex<Vec<Received>>>,
    answers: Arc<Mutex<Vec<u16>>>,
}

impl Receiver {
    pub async fn start(answers: Vec<u16>) -> Receiver {
        Receiver::start_for(None, answers).await
    }

    /// Like [`Receiver::start`], but only deliveries of `event_type` consume
    /// the scripted answers (others get 200).
    pub async fn start_for(event_type: Option<&str>, answers: Vec<u16>) -> Receiver {
        let only = event_type.map(|e| format!("\"event_type\":\"{e}\""));
        let got: Arc<Mutex<Vec<Received>>> = Arc::default();
        let answers = Arc::new(Mutex::new(answers));
        let (g, a) = (got.clone(), answers.clone());
        let route = warp::post()
            .and(warp::header::headers_cloned())
            .and(warp::body::bytes())
            .map(move |headers: HeaderMap, body: Bytes| {
                let body = String::from_utf8_lossy(&body).into_owned();
                let scripted = only.as_ref().is_none_or(|o| body.contains(o.as_str()));
                g.lock().unwrap().push(Received {
                    headers,
                    body,
                    at: Instant::now(),
                });
                let mut a = a.lock().unwrap();
                let code = if a.is_empty() || !scripted {
                    200
                } else {
                    a.remove(0)
                };
                warp::reply::with_status("ok", StatusCode::from_u16(code).unwrap())
            });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        tokio::spawn(warp::serve(route).incoming(listener).run());
        Receiver {
            url: format!("http://{addr}/hook"),
            got,
            answers,
        }
    }

    pub fn deliveries(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    pub fn set_answers(&self, a: Vec<u16>) {
        *self.answers.lock().unwrap() = a;
    }

    /// Waits until at least `n` deliveries arrived.
    pub async fn wait_for(&self, n: usize, timeout: Duration) -> Vec<Received> {
        let start = Instant::now();
        loop {
            let d = self.deliveries();
            if d.len() >= n {
                return d;
            }
            assert!(
                start.elapsed() < timeout,
                "expected {n} deliveries, got {}: {d:?}",
                d.len()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Verifies `X-Service-Signature` the way a client would: split on commas,
/// read `t` and every `v1` (a secret rotation sends one per secret), recompute HMAC-SHA256
/// over `t.raw_body`, accept when any `v1` matches in constant time, and reject timestamps
/// older than five minutes.
pub fn verify_signature(secret: &str, header: &str, raw_body: &str) -> bool {
    let mut t = None;
    let mut v1s = Vec::new();
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", x)) => t = x.parse::<i64>().ok(),
            Some(("v1", x)) => v1s.extend(hex::decode(x).ok()),
            _ => {}
        }
    }
    let Some(t) = t else {
        return false;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    if (now - t).abs() > 300 {
        return false;
    }
    v1s.iter().any(|v1| {
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{t}.").as_bytes());
        mac.update(raw_body.as_bytes());
        mac.verify_slice(v1).is_ok()
    })
}

/// A local fixture server (the config's `fetch.allow` must list it): serves
/// `/image.png` (a real PNG) and 404 for anything else. Returns `host:port`.
pub async fn fixture_server() -> String {
    let mut pm = tiny_skia::Pixmap::new(320, 320).unwrap();
    let mut paint = tiny_skia::Paint::default();
    paint.set_color_rgba8(30, 140, 220, 255);
    pm.fill_rect(
        tiny_skia::Rect::from_xywh(0.0, 0.0, 320.0, 320.0).unwrap(),
        &paint,
        tiny_skia::Transform::identity(),
        None,
    );
    paint.set_color_rgba8(250, 200, 40, 255);
    pm.fill_rect(
        tiny_skia::Rect::from_xywh(80.0, 80.0, 160.0, 160.0).unwrap(),
        &paint,
        tiny_skia::Transform::identity(),
        None,
    );
    let png = Bytes::from(pm.encode_png().unwrap());
    let route = warp::path!("image.png").map(move || {
        warp::http::Response::builder()
            .header("content-type", "image/png")
            .body(png.clone())
            .unwrap()
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(warp::serve(route).incoming(listener).run());
    addr.to_string()
}

/// A PNG of `w`×`h` (two flat colours), for fixtures.
pub fn png_bytes(w: u32, h: u32) -> Vec<u8> {
    let mut pm = tiny_skia::Pixmap::new(w, h).unwrap();
    pm.fill(tiny_skia::Color::from_rgba8(200, 60, 90, 255));
    let mut paint = tiny_skia::Paint::default();
    paint.set_color_rgba8(20, 20, 20, 255);
    pm.fill_rect(
        tiny_skia::Rect::from_xywh(0.0, 0.0, w as f32 / 2.0, h as f32).unwrap(),
        &paint,
        tiny_skia::Transform::identity(),
        None,
    );
    pm.encode_png().unwrap()
}

/// A mono 16-bit PCM WAV of a 440 Hz tone, `seconds` long at `rate` Hz.
pub fn wav_bytes(seconds: f64, rate: u32) -> Vec<u8> {
    let n = (seconds * rate as f64) as usize;
    let mut out = Vec::with_capacity(44 + n * 2);
    let data = (n * 2) as u32;
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * 2).to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    for i in 0..n {
        let t = i as f64 / rate as f64;
        let s = (t * 440.0 * std::f64::consts::TAU).sin() * 8000.0;
        out.extend_from_slice(&(s as i16).to_le_bytes());
    }
    out
}

/// A 2 s 180×320 H.264 MP4 from GStreamer's test source.
pub fn h264_mp4() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("clip.mp4");
    let ok = std::process::Command::new("gst-launch-1.0")
        .args([
            "-q",
            "-e",
            "videotestsrc",
            "pattern=smpte",
            "num-buffers=60",
            "!",
        ])
        .args(["video/x-raw,width=180,height=320,framerate=30/1", "!"])
        .args([
            "x264enc",
            "speed-preset=ultrafast",
            "!",
            "h264parse",
            "!",
            "mp4mux",
            "!",
        ])
        .arg("filesink")
        .arg(format!("location={}", out.display()))
        .status()
        .expect("gst-launch-1.0 runs");
    assert!(ok.success());
    std::fs::read(out).unwrap()
}

/// A local fixture server for the given files: `(path without leading slash, content type,
/// bytes)`; 404 for anything else. The config's `fetch.allow` must list it. Returns
/// `host:port`.
pub async fn fixture_files<P: Into<String>, B: Into<Bytes>>(
    files: impl IntoIterator<Item = (P, &'static str, B)>,
) -> String {
    let files: Arc<Vec<(String, &'static str, Bytes)>> = Arc::new(
        files
            .into_iter()
            .map(|(p, t, b)| (p.into(), t, b.into()))
            .collect(),
    );
    let route = warp::path::full().map(move |full: warp::path::FullPath| {
        let path = full.as_str().trim_start_matches('/');
        match files.iter().find(|(p, _, _)| *p == path) {
            Some((_, t, b)) => warp::http::Response::builder()
                .header("content-type", *t)
                .body(b.clone())
                .unwrap(),
            None => warp::http::Response::builder()
                .status(404)
                .body(Bytes::new())
                .unwrap(),
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(warp::serve(route).incoming(listener).run());
    addr.to_string()
}

/// A tool of the Python test venv (`make venv`): `$REELSMITH_VENV/bin/{name}`, else
/// `.venv/bin/{name}` at the workspace root. Panics with the fix when it is missing.
pub fn venv_tool(name: &str) -> PathBuf {
    let venv = std::env::var_os("REELSMITH_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv"));
    let tool = venv.join("bin").join(name);
    assert!(
        tool.exists(),
        "{} is missing: run `make venv` (pinned in requirements-dev.txt)",
        tool.display()
    );
    tool
}

/// Signs client-link claims independently of the daemon: `{base64url JSON}.{hex HMAC-SHA256
/// over "client_link:" + payload}`, so tests can make links the daemon never minted (expired).
pub fn client_link_token(secret: &str, claims: &Value) -> String {
    use base64::Engine;
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(serde_json::to_vec(claims).expect("JSON"));
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).expect("key");
    mac.update(b"client_link:");
    mac.update(payload.as_bytes());
    format!("{payload}.{}", hex::encode(mac.finalize().into_bytes()))
}

/// Fetches `/v1/openapi.json` without an API key, as any client of the reference would.
pub async fn openapi_document(d: &Daemon) -> Value {
    let r = d
        .http
        .get(d.url("/v1/openapi.json"))
        .send()
        .await
        .expect("request sent");
    let (code, doc, _) = split(r).await;
    assert_eq!(code, 200, "{doc}");
    doc
}

/// One sample of a Prometheus text exposition.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: std::collections::BTreeMap<String, String>,
    pub value: f64,
}

/// Parses the Prometheus text format (0.0.4) exactly: `# HELP`/`# TYPE` comments, then
/// `name{label="value",…} value` lines with `\\`, `\"` and `\n` escapes in label values.
/// Panics on anything malformed, naming the line. Returns the samples and each family's type.
pub fn parse_prometheus(text: &str) -> (Vec<Sample>, std::collections::BTreeMap<String, String>) {
    let mut samples = Vec::new();
    let mut types = std::collections::BTreeMap::new();
    let name_ok = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            && !n.starts_with(|c: char| c.is_ascii_digit())
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or_else(|| panic!("{line}"));
            assert!(name_ok(name), "{line}");
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                "{line}"
            );
            types.insert(name.to_string(), kind.to_string());
            continue;
        }
        if line.starts_with('#') {
            assert!(line.starts_with("# HELP "), "{line}");
            continue;
        }
        let (name_end, mut labels) = (
            line.find(['{', ' ']).unwrap_or_else(|| panic!("{line}")),
            std::collections::BTreeMap::new(),
        );
        let name = &line[..name_end];
        assert!(name_ok(name), "{line}");
        let mut rest = &line[name_end..];
        if let Some(body) = rest.strip_prefix('{') {
            let next = |at: &mut usize| {
                let c = body[*at..]
                    .chars()
                    .next()
                    .unwrap_or_else(|| panic!("{line}"));
                *at += c.len_utf8();
                c
            };
            let mut at = 0;
            loop {
                match body[at..].chars().next() {
                    Some('}') => {
                        at += 1;
                        break;
                    }
                    Some(',') => {
                        at += 1;
                        continue;
                    }
                    _ => {}
                }
                let eq = body[at..].find('=').unwrap_or_else(|| panic!("{line}"));
                let key = &body[at..at + eq];
                assert!(name_ok(key), "{line}");
                at += eq + 1;
                assert_eq!(next(&mut at), '"', "{line}");
                let mut value = String::new();
                loop {
                    match next(&mut at) {
                        '"' => break,
                        '\\' => match next(&mut at) {
                            'n' => value.push('\n'),
                            c @ ('\\' | '"') => value.push(c),
                            other => panic!("bad escape {other:?} in {line}"),
                        },
                        c => value.push(c),
                    }
                }
                labels.insert(key.to_string(), value);
            }
            rest = &body[at..];
        }
        let mut fields = rest.split_whitespace();
        let raw = fields.next().unwrap_or_else(|| panic!("{line}"));
        let value = match raw {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            "NaN" => f64::NAN,
            v => v.parse().unwrap_or_else(|_| panic!("{line}")),
        };
        if let Some(ts) = fields.next() {
            ts.parse::<i64>().unwrap_or_else(|_| panic!("{line}"));
        }
        assert!(fields.next().is_none(), "{line}");
        samples.push(Sample {
            name: name.to_string(),
            labels,
            value,
        });
    }
    (samples, types)
}
