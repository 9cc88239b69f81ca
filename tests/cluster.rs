//! The pieces of a multi-host render, as real processes on 127.0.0.1: a NATS server with
//! JetStream (Debian's `nats-server`), an S3 server (`s3s-fs`, or Garage for `make test-scale`,
//! each built into `.tools/` by `make`) and `reelsmith worker` processes.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A free TCP port on 127.0.0.1 (for servers that cannot report the one they picked).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn wait_for_port(port: u16, what: &str) {
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let until = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(Instant::now() < until, "{what} did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Where a tool lives: on `PATH`, or in the project's `.tools/`.
fn tool(name: &str, in_tools: &str) -> PathBuf {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.tools")
        .join(in_tools);
    if tools.is_file() {
        return tools;
    }
    for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
    {
        if dir.join(name).is_file() {
            return dir.join(name);
        }
    }
    panic!("{name} is not installed; `make setup-test` installs it");
}

/// A process whose stderr is kept, line by line.
struct Logged {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
}

impl Logged {
    fn spawn(mut command: Command, tag: &'static str) -> Logged {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{tag} starts: {e}"));
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let (stderr, kept) = (child.stderr.take().expect("stderr"), log.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let line = crate::strip_colours(&line);
                eprintln!("[{tag}] {line}");
                kept.lock().unwrap_or_else(|p| p.into_inner()).push(line);
            }
        });
        Logged { child, log }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `nats-server` with JetStream on a port of its own, its store in a temp dir that outlives
/// a restart.
pub struct Nats {
    /// The address it listens on (`127.0.0.1`, or `0.0.0.0` for workers in namespaces).
    bind: &'static str,
    port: u16,
    /// The HTTP monitoring port (`/jsz`).
    monitor: u16,
    store: tempfile::TempDir,
    /// Further `nats-server` arguments (authentication, TLS).
    extra: Vec<String>,
    process: Logged,
}

impl Nats {
    pub fn start() -> Nats {
        Nats::start_on("127.0.0.1")
    }

    /// A server listening on `bind` (`0.0.0.0`: reachable over the namespaces' veth links).
    pub fn start_on(bind: &'static str) -> Nats {
        Nats::start_with(bind, &[])
    }

    /// A server listening on `bind`, started with `extra` arguments as well (`--user`, `--tls`, …).
    pub fn start_with(bind: &'static str, extra: &[&str]) -> Nats {
        let store = tempfile::tempdir().expect("temp dir");
        let (port, monitor) = (free_port(), free_port());
        let extra: Vec<String> = extra.iter().map(|a| a.to_string()).collect();
        let process = Nats::spawn(bind, (port, monitor), store.path(), &extra);
        Nats {
            bind,
            port,
            monitor,
            store,
            extra,
            process,
        }
    }

    fn spawn(bind: &str, (port, monitor): (u16, u16), store: &Path, extra: &[String]) -> Logged {
        let mut command = Command::new(tool("nats-server", "nats-server"));
        command
            .args(["-js", "-a", bind, "-p", &port.to_string()])
            .args(["-m", &monitor.to_string(), "-sd"])
            .arg(store)
            .args(extra);
        let process = Logged::spawn(command, "nats");
        wait_for_port(port, "nats-server");
        process
    }

    pub fn url(&self) -> String {
        self.url_at("127.0.0.1")
    }

    /// Its URL as a host reaching it at `ip` sees it.
    pub fn url_at(&self, ip: &str) -> String {
        format!("nats://{ip}:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server (SIGKILL) and starts it again on the same port and store.
    pub fn restart(&mut self) {
        self.process.kill();
        self.process = Nats::spawn(
            self.bind,
            (self.port, self.monitor),
            self.store.path(),
            &self.extra,
        );
    }

    /// Messages stored in JetStream stream `name`, from the server's monitoring endpoint.
    pub async fn stream_messages(&self, name: &str) -> u64 {
        let url = format!("http://127.0.0.1:{}/jsz?streams=true", self.monitor);
        let jsz: serde_json::Value = reqwest::get(url).await.unwrap().json().await.unwrap();
        jsz["account_details"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|a| a["stream_detail"].as_array().cloned().unwrap_or_default())
            .filter(|s| s["name"] == name)
            .map(|s| s["state"]["messages"].as_u64().unwrap_or(0))
            .sum()
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.process.kill();
    }
}

/// An S3 server with one bucket, on a port of its own: `s3s-fs` (quick to build, in `make
/// test`) or Garage (a real distributed object store, in `make test-scale`).
pub struct S3 {
    port: u16,
    pub endpoint: String,
    pub bucket: &'static str,
    key: String,
    secret: String,
    region: &'static str,
    _root: tempfile::TempDir,
    process: Logged,
}

const S3_KEY: &str = "reelsmith-test-key";
const S3_SECRET: &str = "reelsmith-test-secret-0123456789";

/// Garage's key format: `GK` and 24 hex digits, a secret of 64.
const GARAGE_KEY: &str = "GK0123456789abcdef01234567";
const GARAGE_SECRET: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

impl S3 {
    pub fn start() -> S3 {
        S3::start_on("127.0.0.1")
    }

    /// `s3s-fs` listening on `bind`.
    pub fn start_on(bind: &str) -> S3 {
        let root = tempfile::tempdir().expect("temp dir");
        let bucket = "chunks";
        std::fs::create_dir(root.path().join(bucket)).expect("bucket folder");
        let port = free_port();
        let mut command = Command::new(tool("s3s-fs", "s3s-fs/bin/s3s-fs"));
        command
            .args(["--host", bind, "--port", &port.to_string()])
            .args(["--access-key", S3_KEY, "--secret-key", S3_SECRET])
            .arg(root.path());
        let process = Logged::spawn(command, "s3");
        wait_for_port(port, "s3s-fs");
        S3 {
            port,
            endpoint: format!("http://127.0.0.1:{port}"),
            bucket,
            key: S3_KEY.into(),
            secret: S3_SECRET.into(),
            region: "us-east-1",
            _root: root,
            process,
        }
    }

    /// A one-node Garage cluster listening for S3 on `bind`: its layout applied, the bucket
    /// made and a key allowed to read and write it, all through Garage's own CLI.
    pub fn garage_on(bind: &str) -> S3 {
        let root = tempfile::tempdir().expect("temp dir");
        let (port, rpc, admin) = (free_port(), free_port(), free_port());
        let config = root.path().join("garage.toml");
        let dir = root.path().display();
        std::fs::write(
            &config,
            format!(
                "metadata_dir = \"{dir}/meta\"\ndata_dir = \"{dir}/data\"\n\
                 db_engine = \"lmdb\"\nreplication_factor = 1\n\
                 rpc_bind_addr = \"127.0.0.1:{rpc}\"\nrpc_public_addr = \"127.0.0.1:{rpc}\"\n\
                 rpc_secret = \"{GARAGE_SECRET}\"\n\
                 [s3_api]\ns3_region = \"garage\"\napi_bind_addr = \"{bind}:{port}\"\n\
                 [admin]\napi_bind_addr = \"127.0.0.1:{admin}\"\n"
            ),
        )
        .expect("garage.toml");
        let garage = tool("garage", "garage/bin/garage");
        let mut command = Command::new(&garage);
        command.arg("-c").arg(&config).arg("server");
        let process = Logged::spawn(command, "garage");
        wait_for_port(port, "garage");
        let cli = |args: &[&str]| {
            let mut command = Command::new(&garage);
            command.arg("-c").arg(&config).args(args);
            stdout_of(command)
        };
        let node = cli(&["node", "id", "-q"]);
        let node = node.trim().split('@').next().expect("a node id").to_owned();
        cli(&["layout", "assign", "-z", "dc1", "-c", "1G", &node]);
        cli(&["layout", "apply", "--version", "1"]);
        let bucket = "chunks";
        cli(&["bucket", "create", bucket]);
        cli(&[
            "key",
            "import",
            "--yes",
            "-n",
            "reelsmith",
            GARAGE_KEY,
            GARAGE_SECRET,
        ]);
        cli(&[
            "bucket", "allow", "--read", "--write", bucket, "--key", GARAGE_KEY,
        ]);
        S3 {
            port,
            endpoint: format!("http://127.0.0.1:{port}"),
            bucket,
            key: GARAGE_KEY.into(),
            secret: GARAGE_SECRET.into(),
            region: "garage",
            _root: root,
            process,
        }
    }

    /// The `REELSMITH__STORAGE__*` settings of this store.
    pub fn env(&self) -> Vec<(String, String)> {
        self.env_at("127.0.0.1")
    }

    /// The settings of this store as a host reaching it at `ip` sees it.
    pub fn env_at(&self, ip: &str) -> Vec<(String, String)> {
        let endpoint = format!("http://{ip}:{}", self.port);
        [
            ("KIND", "s3"),
            ("BUCKET", self.bucket),
            ("ENDPOINT", &endpoint),
            ("REGION", self.region),
            ("ACCESS_KEY_ID", &self.key),
            ("SECRET_ACCESS_KEY", &self.secret),
            ("ALLOW_HTTP", "true"),
        ]
        .into_iter()
        .map(|(k, v)| (format!("REELSMITH__STORAGE__{k}"), v.to_owned()))
        .collect()
    }
}

impl Drop for S3 {
    fn drop(&mut self) {
        self.process.kill();
    }
}

/// A `reelsmith worker` process with a data dir of its own.
pub struct Worker {
    _dir: tempfile::TempDir,
    process: Logged,
}

impl Worker {
    /// Starts a worker with `env` (the queue and storage settings) and waits until it pulls.
    pub fn start(bin: &str, env: &[(String, String)]) -> Worker {
        Worker::start_in(None, bin, env)
    }

    /// Like [`Worker::start`], inside network namespace `netns` when given.
    pub fn start_in(netns: Option<&Netns>, bin: &str, env: &[(String, String)]) -> Worker {
        let worker = Worker::spawn(netns, bin, env);
        worker.wait_for_line("waiting for chunks", Duration::from_secs(30));
        worker
    }

    /// Starts a worker without waiting for it to reach the queue.
    pub fn spawn(netns: Option<&Netns>, bin: &str, env: &[(String, String)]) -> Worker {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut command = match netns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", &ns.name, bin]);
                c
            }
            None => Command::new(bin),
        };
        command
            .arg("worker")
            .arg("--data-dir")
            .arg(dir.path())
            .env("REELSMITH_LOG", "info")
            .env(crate::PRESET_VAR, crate::TEST_PRESET)
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        Worker {
            _dir: dir,
            process: Logged::spawn(command, "worker"),
        }
    }

    /// Its log lines so far.
    pub fn lines(&self) -> Vec<String> {
        self.process
            .log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The lines containing `text`.
    pub fn lines_with(&self, text: &str) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|l| l.contains(text))
            .collect()
    }

    /// Waits until a log line contains `text`; returns it.
    pub fn wait_for_line(&self, text: &str, timeout: Duration) -> String {
        let until = Instant::now() + timeout;
        loop {
            if let Some(line) = self.lines_with(text).pop() {
                return line;
            }
            assert!(Instant::now() < until, "worker never logged {text:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// CPU seconds the worker has used so far.
    pub fn cpu_seconds(&self) -> f64 {
        cpu_seconds(self.process.child.id())
    }

    /// SIGKILL: the worker stops where it is, mid-chunk or not.
    pub fn kill(&mut self) {
        self.process.kill();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.process.kill();
    }
}

/// The `REELSMITH__QUEUE__*` settings of render workers on `nats`.
pub fn queue_env(nats: &Nats, ack_wait_secs: u64) -> Vec<(String, String)> {
    vec![
        ("REELSMITH__QUEUE__KIND".into(), "nats".into()),
        ("REELSMITH__QUEUE__NATS_URL".into(), nats.url()),
        (
            "REELSMITH__QUEUE__ACK_WAIT_SECS".into(),
            ack_wait_secs.to_string(),
        ),
    ]
}

/// A private CA and a server certificate it signed for `127.0.0.1`, made by the `openssl`
/// command in `dir`: (`ca.pem`, `server.pem`, `server.key`).
pub fn tls_certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let openssl = |args: &str| {
        let mut command = Command::new("openssl");
        command.args(args.split_whitespace()).current_dir(dir);
        stdout_of(command);
    };
    let key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    openssl(&format!(
        "req -x509 {key} -days 2 -subj /CN=reelsmith-test-ca -keyout ca.key -out ca.pem"
    ));
    openssl(&format!(
        "req {key} -subj /CN=127.0.0.1 -keyout server.key -out server.csr"
    ));
    std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").expect("san.ext");
    openssl(
        "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
         -extfile san.ext -out server.pem",
    );
    (
        dir.join("ca.pem"),
        dir.join("server.pem"),
        dir.join("server.key"),
    )
}

/// What `command` prints on stdout; panics with the command and its stderr when it fails.
fn stdout_of(mut command: Command) -> String {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?} runs: {e}"));
    assert!(
        out.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What `ffmpeg -v error ARGS` prints on stdout; panics with its stderr when it fails.
fn ffmpeg(args: &[&std::ffi::OsStr]) -> String {
    let mut command = Command::new("ffmpeg");
    command.args(["-v", "error"]).args(args);
    stdout_of(command)
}

/// The MD5 of every decoded video frame of `mp4` (ffmpeg's `framemd5`), without timestamps.
pub fn frame_digests(mp4: &Path) -> Vec<String> {
    let args = ["-i".as_ref(), mp4.as_os_str()];
    let tail = ["-map", "0:v", "-f", "framemd5", "-"].map(std::ffi::OsStr::new);
    ffmpeg(&[&args[..], &tail[..]].concat())
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit(',').next().map(|h| h.trim().to_owned()))
        .collect()
}

/// The PSNR of the luma of each frame of `b` against the same frame of `a`, in dB (ffmpeg's
/// `psnr` filter; infinite where the two are equal): how near two encodings of the same frames
/// are.
pub fn luma_psnr(a: &Path, b: &Path) -> Vec<f64> {
    let inputs = ["-i".as_ref(), a.as_os_str(), "-i".as_ref(), b.as_os_str()];
    let filter = ["-lavfi", "[0:v][1:v]psnr=stats_file=-", "-f", "null", "-"];
    ffmpeg(&[&inputs[..], &filter.map(std::ffi::OsStr::new)[..]].concat())
        .lines()
        .filter_map(|l| l.split_whitespace().find_map(|f| f.strip_prefix("psnr_y:")))
        .map(|v| v.parse().unwrap_or(f64::INFINITY))
        .collect()
}

/// CPU seconds (user and system) process `pid` has used so far, from `/proc/{pid}/stat`.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at the state, field 3.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of the line: 11 and 12 counted from the state.
    let hz = 100.0; // USER_HZ on Linux
    (ticks(11) + ticks(12)) / hz
}

/// A network namespace joined to this host by a veth pair: a "host" of its own that reaches
/// this one only at [`Netns::host_ip`] (`ip netns`, as root).
pub struct Netns {
    pub name: String,
    /// This host's end of the link, as the namespace reaches it.
    pub host_ip: String,
}

fn ip(args: &[&str]) {
    let status = Command::new("ip").args(args).status().expect("ip runs");
    assert!(status.success(), "ip {}", args.join(" "));
}

impl Netns {
    /// Namespace number `n` (1–250): `10.77.{n}.1` here, `10.77.{n}.2` inside.
    pub fn new(n: u8) -> Netns {
        let name = format!("rsw{n}-{}", std::process::id());
        let (host, inside) = (format!("rsh{n}"), format!("rsn{n}"));
        let _ = Command::new("ip")
            .args(["link", "del", &host])
            .stderr(Stdio::null())
            .status();
        ip(&["netns", "add", &name]);
        ip(&[
            "link", "add", &host, "type", "veth", "peer", "name", &inside,
        ]);
        ip(&["link", "set", &inside, "netns", &name]);
        let host_ip = format!("10.77.{n}.1");
        ip(&["addr", "add", &format!("{host_ip}/24"), "dev", &host]);
        ip(&["link", "set", &host, "up"]);
        let exec = |args: &[&str]| {
            let mut all = vec!["netns", "exec", name.as_str(), "ip"];
            all.extend_from_slice(args);
            ip(&all);
        };
        exec(&["addr", "add", &format!("10.77.{n}.2/24"), "dev", &inside]);
        exec(&["link", "set", &inside, "up"]);
        exec(&["link", "set", "lo", "up"]);
        Netns { name, host_ip }
    }

    /// Whether a TCP connection from inside the namespace to `addr:port` succeeds.
    pub fn reaches(&self, addr: &str, port: u16) -> bool {
        Command::new("ip")
            .args(["netns", "exec", &self.name, "timeout", "3", "bash", "-c"])
            .arg(format!("echo > /dev/tcp/{addr}/{port}"))
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting the namespace deletes its end of the veth pair, and with it ours.
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
    }
}
