//! Peak memory against video length, measured (not asserted): videos of about 1, 3 and 10
//! minutes built in process from scripts on embedded defaults (the API caps a script at 500
//! words, about 3.3 minutes; a recording can be longer), each in a process of its own so its
//! peak is its own. Prints the peak RSS of building the scenes and, separately, of rendering
//! them (the kernel's high-water mark is reset between the two), with the render's speed. The
//! aim of issue 20: a render's peak flat in length and under 300 MB.
//!
//!     cargo bench -p pipeline --bench memory
//!     MEMORY_MINUTES=1,3 cargo bench -p pipeline --bench memory

#[path = "../tests/support/mod.rs"]
mod support;

use std::process::Command;
use std::time::Instant;

use foundation::model::VideoLength;
use video::render::render_document;

const SENTENCES: &[&str] = &[
    "Most small teams never publish a single video on their phones.",
    "They believe that editing takes hours and that nobody owns it.",
    "The truth is much simpler, and it starts with one short script.",
    "Teams that post every week grow faster than teams that post once a quarter.",
    "A recent survey of two hundred marketers confirms the same trend.",
    "Write one script a week and keep it well under two minutes.",
    "Record the narration in one take and let the software cut the scenes.",
    "Pick one picture for every idea instead of chasing perfect footage.",
    "Reading ten pages every night adds up to twenty books a year.",
    "Running three times a week keeps the heart healthy and the mind calm.",
    "Good security starts with a strong password and a second lock on every account.",
    "The calendar is the one tool every busy person already owns.",
];

/// About `minutes` of narration (espeak-ng speaks about 150 words a minute).
fn script(minutes: f64) -> String {
    let words = (minutes * 150.0) as usize;
    let (mut out, mut n) = (Vec::new(), 0);
    for s in SENTENCES.iter().cycle() {
        if n >= words {
            break;
        }
        out.push(*s);
        n += s.split_whitespace().count();
    }
    out.push("Follow us for a new tip every Monday.");
    out.join(" ")
}

/// The kernel's high-water mark of this process's resident memory, MB.
fn peak_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Resets the high-water mark to the current resident size (Linux `clear_refs` 5).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// One length, in this process: build, then render, each with its own peak.
fn child(minutes: f64) {
    let data = tempfile::tempdir().expect("temp dir");
    let settings = support::settings(data.path());
    let built = Instant::now();
    let doc = support::build(
        &settings,
        "wcmemorybench00000001",
        &script(minutes),
        VideoLength::Normal,
    );
    let build_s = built.elapsed().as_secs_f64();
    let build_peak = peak_mb();
    reset_peak();
    let dir = settings.video_dir(&doc.topic_id);
    let out = data.path().join("out.mp4");
    let started = Instant::now();
    render_document(&settings, &doc, &dir, &out, &mut |_, _| {})
        .unwrap_or_else(|f| panic!("render: {} {:?}", f.message, f.cause));
    let render_s = started.elapsed().as_secs_f64();
    let seconds = doc.total_duration();
    println!(
        "{minutes:>4} min script: {seconds:>5.0} s of video, {} scenes; build {build_s:.1} s, \
         peak {build_peak:.0} MB; render {render_s:.1} s ({:.1}x realtime), peak {:.0} MB",
        doc.segments.len(),
        seconds / render_s,
        peak_mb()
    );
}

fn main() {
    // As the daemon does: the figures are the daemon's.
    video::render::tune_malloc();
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(args[i + 1].parse().expect("minutes"));
        return;
    }
    let minutes = std::env::var("MEMORY_MINUTES").unwrap_or_else(|_| "1,3,10".into());
    let exe = std::env::current_exe().expect("this bench");
    for m in minutes.split(',').filter(|m| !m.is_empty()) {
        let status = Command::new(&exe)
            .args(["--child", m])
            .status()
            .expect("the bench runs itself");
        assert!(status.success(), "the {m} minute run failed");
    }
}
