//! `compositor`'s integration tests: each file beside this one is a module of this one test binary
//! (`cargo test -p compositor --test integration chunks::` runs one file's tests).

mod chunks;
mod clips;
mod golden;
mod invariants;
mod media;
mod svg2spec_hostile;

/// Runs ffmpeg (quiet but for errors) with `args`; its stdout. Fails the test when it fails.
fn ffmpeg<I, S>(args: I) -> Vec<u8>
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error"])
        .args(args)
        .output()
        .expect("ffmpeg is installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
