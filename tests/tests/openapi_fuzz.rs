//! schemathesis (pinned in requirements-dev.txt) against the live daemon: a bounded number of
//! generated requests per operation of `/v1/openapi.json`, failing on any 5xx, any answer that
//! breaks its documented schema, and any "schema validation mismatch" (generated valid requests
//! mostly refused: the schema would not say what the API accepts). Rules across fields are
//! `oneOf`s of exclusive forms: `create_video` by `source`, `scene_geometry` by selector,
//! `modify_scene` by field family. `make test` runs the examples and coverage phases
//! ([`QUICK_PHASES`]); `make fuzz-api` adds Hypothesis's random fuzzing ([`FULL_PHASES`]).
//!
//! Left out, and why:
//! - `PUT /v1/upload_asset/put/{folder}/{name}`: its URL carries an HMAC signature that no
//!   generated URL can match, so every case is a 400 that proves nothing.
//! - operations marked `x-reelsmith-pending` (`/media`, outside `/v1`): the document describes
//!   them without a typed body.
//!
//! The account has an email channel (a real SMTP server, `aiosmtpd`, that discards what it
//! gets), so valid `notification/send` cases are sent, not refused with `no_delivery_channel`,
//! and every platform connected in channel group 0 (the setup page's form), so valid `publish`
//! cases are published, not refused with `no_platforms_connected`.
//!
//! Accepted `create_video` cases queue real jobs; they answer 202 at once and build in the
//! background, which the daemon abandons when the test ends.
//!
//! URLs fetched before answering: the test machine has no DNS, so a URL on a generated public
//! host never resolves. The hooks module `tests/fuzz_hooks.py` stands in for DNS where it
//! matters: for positive `modify_scene` cases it points `mediaUrl`, `voice.upload`,
//! `narrator.upload_video` and `remotion.upload_overlay` at a local media server (a real PNG,
//! MP4 and WAV) that `fetch.allow` lists. It rewrites the body on the wire (the transport's
//! `json` argument), not the case: schemathesis revalidates an edited case, and no URL on this
//! machine both matches the URL pattern (a dotted alphabetic host, no port) and reaches a local
//! server, so editing the case would turn a schema-valid case negative. Negative cases are sent
//! as generated. A rewritten case also points `id` and the scene selector at a video the test
//! made first (its scenes ready), so it reaches a real video whichever ids the generator drew
//! (they change with every change to the schema, and once none of them named a real video).
//! The test asserts that some rewritten case was accepted: the schema check for
//! `modify_scene` is only meaningful when generated cases reach a real video (otherwise their
//! 404s hide the mismatch warning).
//!
//! `create_video`'s `video_url`/`audio_url` are left as generated (refused with
//! `unsupported_media_url`): its text, idea and blog forms are accepted, so no mismatch is
//! hidden. Rewriting them as well was tried: the extra 202s change which ids schemathesis draws
//! later, and with this seed no case of `modify_scene`, `edit_session`, `export_video`,
//! `scene_geometry` or `scene_inspector` then reached a real video (0 accepted, against 16, 18,
//! 18, 13 and 32 without it).

use std::path::Path;
use std::time::Duration;

use reelsmith_tests::{
    Daemon, fixture_files, h264_mp4, openapi_document, png_bytes, tempfile, venv_tool, wav_bytes,
};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");

/// Generated cases per operation and phase: 50 found a response-schema bug (edit_session's
/// overlapping states) and an integer-reading bug (`1500.0`) that 20 did not.
const MAX_EXAMPLES: &str = "50";

/// What `make test` runs: each operation's documented examples and schemathesis's coverage
/// phase, which sends every field's boundary values and, for each constraint, values that
/// break it (9,901 cases). Measured alone on 2 cores: 46.5-51.4 s and 57-63 CPU-s.
const QUICK_PHASES: &str = "examples,coverage";

/// What `make fuzz-api` runs (`FUZZ_API=full`): the quick phases and Hypothesis's generated
/// cases on top (13,318 cases), 130.7 s and 160 CPU-s measured in turn with the quick ones.
const FULL_PHASES: &str = "examples,coverage,fuzzing";

/// The phases this run asks for: [`FULL_PHASES`] with `FUZZ_API=full`, else [`QUICK_PHASES`].
fn phases() -> &'static str {
    match std::env::var("FUZZ_API").as_deref() {
        Ok("full") => FULL_PHASES,
        _ => QUICK_PHASES,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn schemathesis_finds_no_server_error_and_no_schema_mismatch() {
    let media = media_server().await;
    let log = tempfile::NamedTempFile::new().expect("rewrite log");
    let allow = format!("[\"{media}\"]");
    let smtp = SmtpSink::start();
    let smtp_port = smtp.port.to_string();
    let mut d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__FETCH__ALLOW", &allow),
            ("REELSMITH__SMTP__HOST", "127.0.0.1"),
            ("REELSMITH__SMTP__PORT", &smtp_port),
            ("REELSMITH__SMTP__STARTTLS", "false"),
        ],
    );
    d.cli_offline(&[
        "accounts",
        "set",
        "--account",
        "default",
        "--email",
        "fuzz@reelsmith.test",
    ]);
    // Every platform connected in group 0, so valid `publish` cases are published, not refused
    // with `no_platforms_connected`.
    for p in PLATFORMS {
        let (c, page) = d.connect_platform(p, 0, "fuzz").await;
        assert_eq!(c, 200, "{page}");
    }
    // The target of the rewritten `modify_scene` cases, so they reach a real video whatever ids
    // the generator draws (which ids it draws changes with every change to the schema).
    let (video_id, voice_file) = d.scenes_ready_video().await;
    let doc = openapi_document(&d).await;
    let mut excluded = vec!["/v1/upload_asset/put/{folder}/{name}".to_string()];
    for (path, item) in doc["paths"].as_object().unwrap() {
        if item
            .as_object()
            .unwrap()
            .values()
            .any(|op| op["x-reelsmith-pending"] == true)
            && !excluded.contains(path)
        {
            excluded.push(path.clone());
        }
    }
    let mut cmd = std::process::Command::new(venv_tool("schemathesis"));
    cmd.arg("run")
        .arg(d.url("/v1/openapi.json"))
        .args(["--header", &format!("Authorization: Bearer {}", d.key)])
        .args(["--max-examples", MAX_EXAMPLES, "--seed", "20240601"])
        .arg("--generation-deterministic")
        .args(["--phases", phases()])
        // A first video search paints the picture of every illustration it returns (its clip
        // is encoded only when fetched), and the suite shares the 2 cores with the other
        // black-box tests: 30 s was too tight when searches encoded clips. This test is after
        // 5xx and schema mismatches, not latency.
        .args(["--request-timeout", "90"])
        // 405 answers carry no `Allow` header yet: the rejection handler does not know the
        // route's methods. Re-enable once it does (reported to the lead).
        // A timed word needs `start <= end`, which JSON Schema cannot say across two fields, so a
        // schema-valid `words` item may be refused with `invalid_words`.
        .args([
            "--exclude-checks",
            "unsupported_method,positive_data_acceptance",
        ])
        .env("NO_COLOR", "1")
        .env(
            "SCHEMATHESIS_HOOKS",
            Path::new(env!("CARGO_MANIFEST_DIR")).join(HOOKS),
        )
        .env("REELSMITH_FUZZ_MEDIA", format!("http://{media}"))
        .env("REELSMITH_FUZZ_VIDEO_ID", &video_id)
        .env("REELSMITH_FUZZ_VOICE_FILE", &voice_file)
        .env("REELSMITH_FUZZ_LOG", log.path());
    for path in &excluded {
        cmd.args(["--exclude-path", path]);
    }
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .unwrap()
        .expect("schemathesis runs");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The report, shown by `make fuzz-api` (`--nocapture`); `make test` shows it on failure.
    println!("{text}");
    assert!(out.status.success(), "schemathesis failed:\n{text}");
    let mismatched = mismatched_operations(&text);
    assert!(
        mismatched.is_empty(),
        "the schema does not say what the API accepts for {mismatched:?}:\n{text}"
    );
    let rewritten = std::fs::read_to_string(log.path()).expect("rewrite log readable");
    assert!(
        rewritten
            .lines()
            .any(|l| l.starts_with("POST /v1/modify_scene 2")),
        "no positive modify_scene case with a rewritten URL was accepted, so none reached a real \
         video and its schema went unchecked; answers to rewritten cases:\n{rewritten}"
    );
}

/// The platforms `publish` names.
const PLATFORMS: &[&str] = &[
    "youtube",
    "tiktok",
    "instagram",
    "facebook",
    "linkedin",
    "x",
    "threads",
    "pinterest",
    "reddit",
    "bluesky",
    "google_business",
];

/// The schemathesis hooks module, from the `reelsmith` package's directory.
const HOOKS: &str = "../tests/fuzz_hooks.py";

/// The files `fuzz_hooks.py` points fetched URLs at: a PNG for backgrounds and overlays, an
/// H.264 MP4 for videos, a WAV for voices. Returns `host:port`.
async fn media_server() -> String {
    fixture_files(vec![
        ("image.png", "image/png", png_bytes(320, 568)),
        ("clip.mp4", "video/mp4", h264_mp4()),
        ("voice.wav", "audio/wav", wav_bytes(2.0, 16_000)),
    ])
    .await
}

/// A real SMTP server (`aiosmtpd` from the venv, messages discarded) so that the fuzzed
/// account has an email channel: without one every valid `notification/send` is refused with
/// `no_delivery_channel`, which schemathesis would rightly read as a mismatch. Killed on drop.
struct SmtpSink {
    child: std::process::Child,
    port: u16,
}

impl SmtpSink {
    fn start() -> SmtpSink {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = std::process::Command::new(venv_tool("python"))
            .args(["-m", "aiosmtpd", "-n", "-c", "aiosmtpd.handlers.Sink", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("aiosmtpd starts");
        let start = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "aiosmtpd did not listen"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        SmtpSink { child, port }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The operations listed under schemathesis's "Schema validation mismatch" warning.
fn mismatched_operations(report: &str) -> Vec<String> {
    let Some(start) = report.find("Schema validation mismatch:") else {
        return Vec::new();
    };
    report[start..]
        .lines()
        .skip(1)
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.trim_start().starts_with("- "))
        .map(|l| l.trim_start()[2..].trim().to_string())
        .collect()
}
