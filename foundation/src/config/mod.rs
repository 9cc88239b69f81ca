//! Typed configuration. The daemon layers defaults → TOML file →
//! `REELSMITH__SECTION__KEY` environment → command-line flags into a
//! [`Config`], and validates it once with [`Config::finish`].

mod sections;

pub use sections::{Section, Sections};

use serde::Deserialize;
use std::net::SocketAddr;
use std::path::PathBuf;

/// `dev` allows http and loopback callback URLs; `production` requires https
/// callbacks and applies the SSRF guard to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Dev,
    Production,
}

/// The config file. The sections every crate shares are its fields; a crate's own sections
/// (`[notify]`, `[http]`, …) are [`Section`]s it declares, kept in `sections` and claimed by the
/// composition root, which refuses a table that no crate claims.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Config {
    pub mode: Mode,
    /// Address to bind; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Holds `reelsmith.redb`, per-video files and the public media folder.
    pub data_dir: PathBuf,
    /// Public address of the API; defaults to the bound address.
    pub base_url: Option<String>,
    /// Public host of temporary media; defaults to `{base_url}/media`.
    pub origin_url: Option<String>,
    /// Public web pages (editor, viewer, webhook test inbox); defaults to `{base_url}/app`.
    pub app_url: Option<String>,
    /// Where pinned fonts and the B-roll library live.
    pub assets_dir: PathBuf,
    pub webhook: WebhookConfig,
    pub fetch: FetchConfig,
    pub render: RenderConfig,
    /// Admission: how much work may wait at once; where scene chunks render.
    pub queue: QueueConfig,
    pub public: PublicConfig,
    /// Every other table, for the crate that owns it.
    #[serde(flatten)]
    pub sections: Sections,
}

/// The process's open-file limit (the soft `RLIMIT_NOFILE`), when it has a finite one.
pub fn open_file_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the limit into the struct we own and pass by pointer.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    (read == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// Lifetimes of the public origin's expiring files.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PublicConfig {
    /// Screenshots, posters, video-data files (spec: 900 s).
    pub temp_ttl_secs: u64,
    /// Uploaded assets (spec: 24 h).
    pub asset_ttl_secs: u64,
    /// How often the sweeper deletes expired files.
    pub sweep_interval_secs: u64,
}

impl Default for PublicConfig {
    fn default() -> Self {
        PublicConfig {
            temp_ttl_secs: 900,
            asset_ttl_secs: 24 * 3600,
            sweep_interval_secs: 60,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebhookConfig {
    /// The single shared HMAC-SHA256 secret of v0.1.0.
    pub signing_secret: String,
    /// Older secrets still signing during a rotation: each adds one more `v1=` to
    /// `X-Service-Signature`, after the current secret's, so receivers not yet switched keep
    /// verifying. Empty outside a rotation, when the header is exactly `t=…,v1=…`.
    pub previous_signing_secrets: Vec<String>,
    /// Attempt offsets from the event's creation, in seconds; its length is
    /// the attempt count.
    pub retry_schedule_secs: Vec<u64>,
    /// Per-attempt timeout; the spec's acknowledgement window.
    pub timeout_secs: u64,
    /// Deliveries older than this are dropped.
    pub max_age_secs: u64,
    /// Dev and tests only: the retry schedule runs this many times faster (3600: an hour of
    /// schedule passes in a second), so a test can watch all of it. Production takes only 1.
    pub time_scale: u32,
}

impl WebhookConfig {
    /// The secrets that sign a delivery: the current one, then those of a rotation.
    pub(crate) fn signing_secrets(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.signing_secret.as_str())
            .chain(self.previous_signing_secrets.iter().map(String::as_str))
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct FetchConfig {
    /// `host:port` pairs exempt from the private-address guard (test fixtures).
    pub allow: Vec<String>,
    /// Largest media download, bytes.
    pub max_bytes: Option<u64>,
}

/// The most scene runs one render encodes at once (`render.lanes`).
pub const MAX_RENDER_LANES: usize = 8;

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderConfig {
    /// Jobs worked on at once (scene building and rendering share the pool).
    pub workers: usize,
    /// Runs of a video's scenes one render encodes at once, each with an x264 encoder of its
    /// own (1 to [`MAX_RENDER_LANES`]): the same chunks, sooner, for an encoder's memory more
    /// per lane (about 90 MB at 720×1280).
    pub lanes: usize,
    /// x264 speed preset used when no hardware encoder is present.
    pub preset: String,
    /// Seconds a worker's lease on a job lasts before another may take it.
    pub lease_secs: u64,
    /// H.264 encoder: `auto` (nvh264enc / vah264enc / vaapih264enc when installed and a probe
    /// encode succeeds, else x264 with `preset`), `x264`, `nvh264` or `vaapi` (those two fail
    /// renders clearly when the hardware does not work). Always High profile, yuv420p.
    pub encoder: String,
}

/// Bounds on queued work, so a burst of requests is answered 429 with `Retry-After` instead of
/// growing the queue without end. Posts scheduled for later do not count until they are due.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueueConfig {
    /// Jobs of one account queued or running at once (429 `too_many_jobs` beyond).
    pub max_jobs_per_account: usize,
    /// Jobs of all accounts queued or running at once (429 `queue_full` beyond).
    pub max_jobs: usize,
    /// The `Retry-After` a refused request is given, seconds.
    pub retry_after_secs: u64,
    /// Where a video's scene chunks are rendered: in this process (`embedded`), or by render
    /// workers (`reelsmith worker`) pulling them from NATS JetStream (`nats`), their inputs
    /// and outputs in `[storage]`. Jobs themselves stay in this node's redb store either way.
    pub kind: QueueKind,
    /// The NATS server of `kind = "nats"` (`tls://…` requires TLS).
    pub nats_url: String,
    /// How this node proves who it is to NATS: a user and password, a token, or a credentials
    /// file (`.creds`: JWT and NKey seed); at most one of the three.
    pub nats_user: String,
    pub nats_password: String,
    pub nats_token: String,
    pub nats_credentials: Option<PathBuf>,
    /// A PEM file of the CAs the NATS server's certificate is checked against; setting it
    /// requires TLS.
    pub nats_tls_ca: Option<PathBuf>,
    /// A client certificate and its key (PEM), for a server that verifies clients.
    pub nats_tls_cert: Option<PathBuf>,
    pub nats_tls_key: Option<PathBuf>,
    /// How long a worker may hold a chunk without a heartbeat before JetStream gives it to
    /// another worker, seconds. Workers beat every third of it while they render.
    pub ack_wait_secs: u64,
    /// Deliveries of one chunk task before it goes to the dead-letter subject.
    pub max_deliver: i64,
}

impl QueueConfig {
    /// The NATS settings make sense together: one way to authenticate, a password only with a
    /// user, a client certificate only with its key.
    fn check_nats(&self) -> Result<(), String> {
        let ways = [
            !self.nats_user.is_empty(),
            !self.nats_token.is_empty(),
            self.nats_credentials.is_some(),
        ];
        if ways.iter().filter(|w| **w).count() > 1 {
            return Err(
                "queue: set one of nats_user (with nats_password), nats_token and \
                 nats_credentials"
                    .into(),
            );
        }
        if !self.nats_password.is_empty() && self.nats_user.is_empty() {
            return Err("queue.nats_password needs queue.nats_user".into());
        }
        if self.nats_tls_cert.is_some() != self.nats_tls_key.is_some() {
            return Err("queue.nats_tls_cert and queue.nats_tls_key go together".into());
        }
        Ok(())
    }
}

/// Where scene chunks are rendered (`queue.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueKind {
    /// In this process, on its render workers (the embedded default).
    #[default]
    Embedded,
    /// By `reelsmith worker` processes, through NATS JetStream.
    Nats,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            max_jobs_per_account: 20,
            max_jobs: 200,
            retry_after_secs: 30,
            kind: QueueKind::Embedded,
            nats_url: "nats://127.0.0.1:4222".into(),
            nats_user: String::new(),
            nats_password: String::new(),
            nats_token: String::new(),
            nats_credentials: None,
            nats_tls_ca: None,
            nats_tls_cert: None,
            nats_tls_key: None,
            ack_wait_secs: 60,
            max_deliver: 5,
        }
    }
}

/// `./assets` when the working directory has one (a checkout, a container with the assets
/// beside the binary), else the assets of the source tree this binary was built from.
fn default_assets_dir() -> PathBuf {
    let here = PathBuf::from("assets");
    if here.join("fonts").is_dir() {
        here
    } else {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets"))
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mode: Mode::Dev,
            listen: "127.0.0.1:8080".parse().expect("static address"),
            data_dir: PathBuf::from("data"),
            base_url: None,
            origin_url: None,
            app_url: None,
            assets_dir: default_assets_dir(),
            webhook: WebhookConfig::default(),
            fetch: FetchConfig::default(),
            render: RenderConfig::default(),
            queue: QueueConfig::default(),
            public: PublicConfig::default(),
            sections: Sections::default(),
        }
    }
}

impl Default for WebhookConfig {
    fn default() -> Self {
        WebhookConfig {
            signing_secret: "whsec_reelsmith_dev_secret".into(),
            previous_signing_secrets: Vec::new(),
            retry_schedule_secs: vec![0, 60, 300, 900, 1800, 3600, 10800, 21600, 43200, 86400],
            timeout_secs: 30,
            max_age_secs: 86400 + 600,
            time_scale: 1,
        }
    }
}

impl Default for RenderConfig {
    fn default() -> Self {
        RenderConfig {
            workers: 1,
            lanes: 1,
            preset: "veryfast".into(),
            lease_secs: 120,
            encoder: "auto".into(),
        }
    }
}

/// The config after validation, with its three public URLs resolved against the bound address.
/// The shared sections are the [`Config`]'s own, reached through `Deref` (`settings.webhook`),
/// and a crate's own through [`Config::section`] (`settings.section::<VoiceConfig>()`), so each
/// section is declared once.
#[derive(Debug, Clone)]
pub struct Settings {
    config: Config,
    /// Public address of the API (`base_url`, else the bound address), no trailing `/`.
    pub base_url: String,
    /// Public host of temporary media (`origin_url`, else `{base_url}/media`).
    pub origin_url: String,
    /// Public web pages (`app_url`, else `{base_url}/app`).
    pub app_url: String,
}

impl std::ops::Deref for Settings {
    type Target = Config;
    fn deref(&self) -> &Config {
        &self.config
    }
}

impl std::ops::DerefMut for Settings {
    fn deref_mut(&mut self) -> &mut Config {
        &mut self.config
    }
}

impl Settings {
    /// Where a video's private files live: `{data_dir}/videos/{topic}`.
    pub fn video_dir(&self, topic: &str) -> PathBuf {
        self.data_dir.join("videos").join(topic)
    }

    /// Where a 402 sends the client to upgrade (`details.pricing_url`).
    pub fn pricing_url(&self) -> String {
        format!("{}/pricing", self.app_url)
    }

    /// The public media folder served under `{origin_url}`.
    pub fn public_dir(&self) -> PathBuf {
        self.data_dir.join("public")
    }
}

impl Config {
    /// Section `T` of the crate that owns it: read from its table the first time, its
    /// defaults when the file has none.
    pub fn section<T: Section>(&self) -> std::sync::Arc<T> {
        self.sections.get::<T>()
    }

    /// Validates the config and resolves the URLs against the address the
    /// server actually bound (port 0 becomes a real port).
    pub fn finish(self, bound: SocketAddr) -> Result<Settings, String> {
        self.check_webhook()?;
        self.check_intervals()?;
        self.check_render()?;
        self.check_fetch()?;
        self.check_capacity()?;
        self.queue.check_nats()?;
        let trim = |s: &str| s.trim_end_matches('/').to_string();
        let base_url = trim(
            self.base_url
                .as_deref()
                .unwrap_or(&format!("http://{bound}")),
        );
        let origin_url = trim(
            self.origin_url
                .as_deref()
                .unwrap_or(&format!("{base_url}/media")),
        );
        let app_url = trim(
            self.app_url
                .as_deref()
                .unwrap_or(&format!("{base_url}/app")),
        );
        Ok(Settings {
            config: self,
            base_url,
            origin_url,
            app_url,
        })
    }

    fn check_webhook(&self) -> Result<(), String> {
        let webhook = &self.webhook;
        if webhook.retry_schedule_secs.is_empty() {
            return Err("webhook.retry_schedule_secs must not be empty".into());
        }
        if webhook.retry_schedule_secs.windows(2).any(|w| w[0] > w[1]) {
            return Err("webhook.retry_schedule_secs must be ascending".into());
        }
        check_signing_secret(self.mode, "webhook.signing_secret", &webhook.signing_secret)?;
        for old in &webhook.previous_signing_secrets {
            check_signing_secret(self.mode, "webhook.previous_signing_secrets", old)?;
        }
        if webhook.time_scale == 0 || (self.mode == Mode::Production && webhook.time_scale != 1) {
            return Err("webhook.time_scale must be 1 in production (and never 0)".into());
        }
        Ok(())
    }

    /// Lifetimes and sweep intervals: none may be 0.
    fn check_intervals(&self) -> Result<(), String> {
        if self.public.temp_ttl_secs == 0
            || self.public.asset_ttl_secs == 0
            || self.public.sweep_interval_secs == 0
        {
            return Err("public.*_secs values must be at least 1".into());
        }
        Ok(())
    }

    fn check_render(&self) -> Result<(), String> {
        if self.render.workers == 0 {
            return Err("render.workers must be at least 1".into());
        }
        if !(1..=MAX_RENDER_LANES).contains(&self.render.lanes) {
            return Err(format!("render.lanes must be from 1 to {MAX_RENDER_LANES}"));
        }
        if let Err(e) = self
            .render
            .encoder
            .parse::<compositor::media::EncoderChoice>()
        {
            return Err(format!("render.encoder: {e}"));
        }
        if let Err(e) = self.render.preset.parse::<compositor::media::X264Preset>() {
            return Err(format!("render.preset: {e}"));
        }
        Ok(())
    }

    fn check_fetch(&self) -> Result<(), String> {
        for a in &self.fetch.allow {
            if a.rsplit_once(':')
                .and_then(|(_, p)| p.parse::<u16>().ok())
                .is_none()
            {
                return Err(format!("fetch.allow entry {a:?} must be host:port"));
            }
        }
        Ok(())
    }

    /// Queue limits: at least one of each.
    fn check_capacity(&self) -> Result<(), String> {
        if self.queue.max_jobs_per_account == 0 || self.queue.max_jobs == 0 {
            return Err("queue.max_jobs_per_account and queue.max_jobs must be at least 1".into());
        }
        Ok(())
    }
}

/// The shortest webhook signing secret production accepts (HMAC-SHA256 keys below the hash's
/// 32-byte size weaken it).
pub(crate) const MIN_SIGNING_SECRET_BYTES: usize = 32;
/// Secrets that ship in this repository (the example config, the built-in dev default): known
/// to everyone, so never a production secret.
pub(crate) const PLACEHOLDER_SECRETS: &[&str] = &[
    "change-me-to-a-long-random-secret",
    "whsec_reelsmith_dev_secret",
];

/// The fewest distinct characters a production secret has (a random hex secret of 32
/// characters has about 14).
pub(crate) const MIN_SECRET_DISTINCT_CHARS: usize = 8;

/// Whether `secret` looks typed rather than drawn: fewer than [`MIN_SECRET_DISTINCT_CHARS`]
/// distinct characters, or one character making up more than a third of it (`aaaa…`,
/// `abab…`, a long run padded with a few others). Random secrets (`openssl rand -hex 32`,
/// `-base64 32`) pass.
fn low_entropy(secret: &str) -> Option<String> {
    let mut counts = std::collections::HashMap::<char, usize>::new();
    for c in secret.chars() {
        *counts.entry(c).or_default() += 1;
    }
    let total = secret.chars().count();
    let most = counts.values().copied().max().unwrap_or(0);
    if counts.len() < MIN_SECRET_DISTINCT_CHARS {
        Some(format!(
            "has {} distinct characters; a random secret has at least {MIN_SECRET_DISTINCT_CHARS}",
            counts.len()
        ))
    } else if most * 3 > total {
        Some("repeats one character in more than a third of it".to_string())
    } else {
        None
    }
}

/// Production refuses a placeholder, short or low-entropy ([`low_entropy`]) webhook secret; dev
/// mode warns about it loudly.
fn check_signing_secret(mode: Mode, name: &str, secret: &str) -> Result<(), String> {
    let problem = if PLACEHOLDER_SECRETS.contains(&secret) {
        Some("is a placeholder from this repository".to_string())
    } else if secret.len() < MIN_SIGNING_SECRET_BYTES {
        Some(format!(
            "is {} bytes; at least {MIN_SIGNING_SECRET_BYTES} are needed",
            secret.len()
        ))
    } else {
        low_entropy(secret)
    };
    match (problem, mode) {
        (None, _) => Ok(()),
        (Some(p), Mode::Production) => Err(format!(
            "{name} {p}: set a random one, e.g. `openssl rand -hex 32`"
        )),
        (Some(p), _) => {
            tracing::warn!(
                "{name} {p}; webhooks are signed with a secret others may know. Fine for trying Reelsmith, never for production."
            );
            Ok(())
        }
    }
}

#[cfg(test)]
mod secret_tests {
    use super::*;

    #[test]
    fn production_refuses_placeholder_and_short_secrets_and_dev_accepts_them() {
        for bad in [
            "change-me-to-a-long-random-secret",
            "whsec_reelsmith_dev_secret",
            "short",
        ] {
            let e =
                check_signing_secret(Mode::Production, "webhook.signing_secret", bad).unwrap_err();
            assert!(e.contains("webhook.signing_secret"), "{e}");
            assert!(check_signing_secret(Mode::Dev, "webhook.signing_secret", bad).is_ok());
        }
        let good = "0123456789abcdef0123456789abcdef";
        assert!(check_signing_secret(Mode::Production, "webhook.signing_secret", good).is_ok());
    }

    #[test]
    fn production_refuses_secrets_of_few_distinct_or_one_dominant_character() {
        for bad in [
            "a".repeat(32),
            "ab".repeat(16),
            "0123456".repeat(5),
            format!("{}0123456789", "x".repeat(24)),
        ] {
            let e =
                check_signing_secret(Mode::Production, "webhook.signing_secret", &bad).unwrap_err();
            assert!(e.contains("webhook.signing_secret"), "{bad}: {e}");
            assert!(check_signing_secret(Mode::Dev, "webhook.signing_secret", &bad).is_ok());
        }
        for good in [
            "test-signing-secret-0123456789-abcdefgh",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "q7kVb1Zr9oXw3mYtL0pSe8uNcA2dHfGj4iK6Bx5CvRE=",
        ] {
            assert!(
                check_signing_secret(Mode::Production, "webhook.signing_secret", good).is_ok(),
                "{good}"
            );
        }
    }
}

#[cfg(test)]
mod queue_tests {
    use super::*;

    fn queue(edit: impl FnOnce(&mut QueueConfig)) -> Result<(), String> {
        let mut q = QueueConfig::default();
        edit(&mut q);
        q.check_nats()
    }

    #[test]
    fn nats_takes_one_way_to_authenticate_and_whole_pairs() {
        assert!(queue(|_| {}).is_ok());
        assert!(
            queue(|q| {
                q.nats_user = "rs".into();
                q.nats_password = "pw".into();
            })
            .is_ok()
        );
        let two = queue(|q| {
            q.nats_user = "rs".into();
            q.nats_token = "t".into();
        });
        assert!(two.unwrap_err().contains("one of"));
        assert!(queue(|q| q.nats_password = "pw".into()).is_err());
        assert!(queue(|q| q.nats_tls_cert = Some("c.pem".into())).is_err());
        assert!(
            queue(|q| {
                q.nats_tls_cert = Some("c.pem".into());
                q.nats_tls_key = Some("c.key".into());
            })
            .is_ok()
        );
    }
}
