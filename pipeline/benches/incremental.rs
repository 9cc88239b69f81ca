//! Incremental re-export, measured (not asserted): a 10-scene video built in process from a
//! script on embedded defaults, rendered from scratch, then re-rendered after one text edit
//! (a caption word of one scene). Both in one run; prints the times and the ratio. The aim of
//! issue 20 is a re-export at least 5× faster than the full render.
//!
//! Two edits are measured: the last caption word of a middle scene (invisible in that scene's
//! first frame, so one chunk is encoded again) and its first caption word (shown in the first
//! frame, which the scene before fades into: two chunks).
//!
//!     cargo bench -p pipeline --bench incremental

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use foundation::config::Settings;
use foundation::document::VideoDocument;
use foundation::model::VideoLength;
use video::render::{Report, render_document};

const SCRIPT: &str = "Most small teams never publish a single video on their phones. \
    They believe that editing takes hours and that nobody on the team owns it. \
    The truth is much simpler than that, and it starts with one short script. \
    Teams that post every week grow faster each month than teams that post once a quarter. \
    A recent survey of two hundred marketers confirms the very same trend again. \
    First, write one script a week and keep it well under two minutes long. \
    Second, record the narration in one take and let the software cut the scenes. \
    Third, pick one picture for every idea instead of chasing the perfect footage. \
    Finally, publish on the same day every week so your audience knows when to look. \
    Follow us for a new tip every Monday, and share this video with your team today.";

fn render(settings: &Settings, doc: &VideoDocument, out: &Path) -> (Duration, Report) {
    let dir = settings.video_dir(&doc.topic_id);
    let started = Instant::now();
    let report = render_document(settings, doc, &dir, out, &mut |_, _| {})
        .unwrap_or_else(|f| panic!("render: {} {:?}", f.message, f.cause));
    (started.elapsed(), report)
}

fn main() {
    let data = tempfile::tempdir().expect("temp dir");
    let settings = support::settings(data.path());
    let mut doc = support::build(
        &settings,
        "wcincrementalbench001",
        SCRIPT,
        VideoLength::Normal,
    );
    let out = data.path().join("out.mp4");
    let chunks = settings.video_dir(&doc.topic_id).join("chunks");
    let scene = doc.segments.len() / 2;
    println!(
        "video: {} scenes, {:.1} s; edited scene {}",
        doc.segments.len(),
        doc.total_duration(),
        scene + 1
    );

    let (full, report) = render(&settings, &doc, &out);
    println!(
        "full render:        {:>7.0} ms  ({} chunks, {} frames; join {:.0} ms)",
        full.as_secs_f64() * 1e3,
        report.rendered,
        report.rendered_frames,
        report.join_wall.as_secs_f64() * 1e3
    );
    let (same, report) = render(&settings, &doc, &out);
    println!(
        "unchanged:          {:>7.0} ms  ({} chunks encoded)  {:.1}× faster",
        same.as_secs_f64() * 1e3,
        report.rendered,
        full.as_secs_f64() / same.as_secs_f64()
    );

    let words = doc.segments[scene].words.len();
    for (what, word) in [("last caption word", words - 1), ("first caption word", 0)] {
        doc.segments[scene].words[word].word = "Nobody".into();
        let (edit, report) = render(&settings, &doc, &out);
        println!(
            "edit ({what}): {:>7.0} ms  ({} of {} chunks, {} of {} frames)  {:.1}× faster than the full render",
            edit.as_secs_f64() * 1e3,
            report.rendered,
            report.chunks,
            report.rendered_frames,
            report.frames,
            full.as_secs_f64() / edit.as_secs_f64()
        );
    }
    // The same full render again, now that everything is warm, for a fair ratio.
    std::fs::remove_dir_all(&chunks).expect("remove the chunks");
    let (warm_full, _) = render(&settings, &doc, &out);
    println!(
        "full render again (warm, after removing the chunk cache): {:.0} ms",
        warm_full.as_secs_f64() * 1e3
    );
}
