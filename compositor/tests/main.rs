//! `compositor`'s integration tests: each file beside this one is a module of this one test binary
//! (`cargo test -p compositor --test integration chunks::` runs one file's tests).

mod chunks;
mod clips;
mod golden;
mod invariants;
mod media;
mod svg2spec_hostile;
mod x264_parity;

/// Runs `program` (ffmpeg or ffprobe, quiet but for errors) with `args`; its stdout. Fails the
/// test when it fails.
fn run_quiet<I, S>(program: &str, args: I) -> Vec<u8>
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = std::process::Command::new(program)
        .args(["-v", "error"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} is installed: {e}"));
    assert!(
        out.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs ffmpeg with `args`; its stdout.
fn ffmpeg<I, S>(args: I) -> Vec<u8>
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    run_quiet("ffmpeg", args)
}

/// ffprobe's JSON of `path`'s streams and format; with `count_frames`, each stream's
/// `nb_read_frames` too (which decodes the file).
fn ffprobe(path: &std::path::Path, count_frames: bool) -> serde_json::Value {
    let mut args: Vec<&std::ffi::OsStr> =
        ["-print_format", "json", "-show_streams", "-show_format"]
            .iter()
            .map(std::ffi::OsStr::new)
            .collect();
    if count_frames {
        args.push("-count_frames".as_ref());
    }
    args.push(path.as_os_str());
    serde_json::from_slice(&run_quiet("ffprobe", args)).expect("ffprobe writes JSON")
}
