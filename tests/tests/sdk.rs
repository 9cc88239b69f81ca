//! The generated SDKs (`clients/`, made by `make clients` from the served document) against a
//! real daemon: each runs its flow as a user of that language would write it (create_video from
//! JSON → status → upload_asset → modify_scene with the uploaded picture → export_video → the
//! MP4). The flows themselves check every reply through the generated types, and exit non-zero,
//! saying why, at the first step that is not what the API documents.

use std::path::{Path, PathBuf};
use std::process::Command;

use reelsmith_tests::{Daemon, venv_tool};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");

fn clients() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../clients")
}

/// Runs `flow` against a fresh daemon and checks it wrote a real MP4.
async fn passes(mut flow: Command) {
    let d = Daemon::start(BIN, &[]);
    let out = d.dir.path().join("flow.mp4");
    flow.arg(d.url("")).arg(&d.key).arg(&out);
    let ran = tokio::task::spawn_blocking(move || flow.output())
        .await
        .unwrap()
        .expect("the flow starts");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(ran.status.success(), "the flow failed:\n{said}");
    assert!(said.contains("exported"), "{said}");
    let mp4 = std::fs::read(&out).expect("the flow wrote the MP4");
    assert_eq!(&mp4[4..8], b"ftyp");
}

/// Where `make clients` put `generated`, or a panic that says so.
fn generated(generated: PathBuf) -> PathBuf {
    assert!(
        generated.exists(),
        "{} is missing: run `make clients`",
        generated.display()
    );
    generated
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_client_makes_edits_and_exports_a_video() {
    generated(clients().join("python/reelsmith_client"));
    let mut flow = Command::new(venv_tool("python"));
    flow.arg(clients().join("python/flow.py"));
    passes(flow).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_client_makes_edits_and_exports_a_video() {
    let mut flow = Command::new("node");
    flow.arg(generated(clients().join("typescript/dist/flow.js")));
    passes(flow).await;
}
