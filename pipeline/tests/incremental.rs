//! Incremental re-render: a video built in process from a script, rendered, edited in one
//! scene and rendered again. Only the edited scene's chunks are encoded again, and the result
//! decodes to exactly the frames of a render of the edited video from scratch.
//!
//!     cargo test -p pipeline --test integration incremental:: -- --nocapture

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Command;

use compositor::resolve::Timeline;
use foundation::config::Settings;
use foundation::document::VideoDocument;
use foundation::model::VideoLength;
use video::render::{
    ChunkDir, Render, Report, Soundtrack, encode_settings, plan_for, render_document, soundtrack,
    soundtrack_key,
};

const SCRIPT: &str = "Most small teams never publish videos. Editing feels slow and expensive. \
    Teams that post weekly grow faster every month. Write one short script each week. \
    Pick one picture for every idea. Follow us for a new tip every Monday.";

/// Renders `doc` into `out` with its chunks in `chunks` (a fresh folder renders from scratch),
/// `lanes` runs of scenes at once; `progress` gets frames done and the total.
fn render_into(
    settings: &Settings,
    doc: &VideoDocument,
    (chunks, lanes): (&Path, usize),
    out: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Report {
    let dir = settings.video_dir(&doc.topic_id);
    let mix = || soundtrack(settings, doc, &dir);
    let sound = Soundtrack {
        key: soundtrack_key(settings, doc, &dir),
        mix: &mix,
    };
    Render {
        doc,
        plan: plan_for(settings, doc, &dir),
        dir: ChunkDir::new(chunks, "full"),
        encode: encode_settings(settings, None).unwrap(),
        half: false,
        farm: None,
        lanes,
    }
    .run(&sound, out, true, progress)
    .unwrap_or_else(|f| panic!("render: {:?}", f.into_job()))
}

/// What ffmpeg writes to stdout reading `mp4` with `args` after its input.
fn ffmpeg(mp4: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(mp4)
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

/// The names of the files of a chunk folder (each names its key), sorted.
fn chunk_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir.join("chunks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mp4"))
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every frame of `mp4`, decoded to I420 by ffmpeg.
fn frames(mp4: &Path) -> Vec<Vec<u8>> {
    let raw = ffmpeg(mp4, &["-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]);
    let size = 720 * 1280 * 3 / 2;
    assert_eq!(raw.len() % size, 0);
    raw.chunks(size).map(<[u8]>::to_vec).collect()
}

/// Whether two decoded frames differ by no more than encoding noise: a small mean difference
/// and few samples far off (a changed caption word alone moves thousands of samples by more
/// than 64).
///
/// One plain loop over the samples: this package's tests build at opt-level 0 (the workspace's
/// `Cargo.toml`), where each iterator adapter is a call per sample; two passes of zip and map
/// took the package's integration tests (this binary, all four) from 65 s to 158 s.
fn alike(a: &[u8], b: &[u8]) -> bool {
    let (mut total, mut far) = (0u64, 0usize);
    for i in 0..a.len().min(b.len()) {
        let d = a[i].abs_diff(b[i]);
        total += u64::from(d);
        far += usize::from(d > 64);
    }
    let mean = total as f64 / a.len() as f64;
    mean < 1.0 && far * 2000 < a.len()
}

/// Indices of frames that differ between `a` and `b` (which must have as many).
fn differing(a: &[Vec<u8>], b: &[Vec<u8>]) -> Vec<usize> {
    assert_eq!(a.len(), b.len(), "frame counts");
    (0..a.len()).filter(|&i| a[i] != b[i]).collect()
}

#[test]
fn an_edit_of_one_scene_re_encodes_only_its_chunks_and_matches_a_render_from_scratch() {
    let data = tempfile::tempdir().unwrap();
    let settings = support::settings(data.path());
    let mut doc = support::build(
        &settings,
        "wcincremental00000001",
        SCRIPT,
        VideoLength::Short,
    );
    let scenes = doc.segments.len();
    assert!(scenes >= 4, "the script makes several scenes, got {scenes}");
    let dir = settings.video_dir(&doc.topic_id);

    let first = data.path().join("first.mp4");
    let report = render_document(&settings, &doc, &dir, &first, &mut |_, _| {}).unwrap();
    assert_eq!(
        report.rendered, report.chunks,
        "a first render encodes every chunk"
    );
    // One chunk per scene, its crossfade into the next scene included.
    assert_eq!(report.chunks, scenes);

    let again = data.path().join("again.mp4");
    let report = render_document(&settings, &doc, &dir, &again, &mut |_, _| {}).unwrap();
    assert_eq!(report.rendered, 0, "nothing changed, nothing is encoded");
    assert_eq!(
        differing(&frames(&first), &frames(&again)),
        Vec::<usize>::new()
    );

    // A text edit in a middle scene: one spoken word's caption.
    let edited = scenes / 2;
    doc.segments[edited].words[0].word = "Nobody".into();
    let incremental = data.path().join("incremental.mp4");
    let report = render_document(&settings, &doc, &dir, &incremental, &mut |_, _| {}).unwrap();
    let timeline = Timeline::of(&plan_for(&settings, &doc, &dir)).unwrap();
    let count = |r: std::ops::Range<u64>| r.end - r.start;
    let allowed = count(timeline.scene_frames(edited)) + count(timeline.scene_frames(edited - 1));
    assert!(
        report.rendered >= 1 && report.rendered_frames <= allowed,
        "the edited scene, and the scene fading into it only if its first frame changed: \
         {report:?}, at most {allowed} frames"
    );
    println!(
        "incremental: {} of {} chunks encoded, {} of {} frames",
        report.rendered, report.chunks, report.rendered_frames, report.frames
    );

    // The untouched scenes' frames are those of the first render, itself a render from
    // scratch of those scenes: the same chunks, so the same decoded frames, bit for bit.
    // The scene before the edited one was encoded again only if it fades into a changed
    // first frame; then all of it is the new chunk's.
    let from = match report.rendered {
        1 => edited,
        _ => edited - 1,
    };
    let touched = timeline.scene_frames(from).start..timeline.scene_frames(edited).end;
    let (incremental, first) = (frames(&incremental), frames(&first));
    let untouched: Vec<usize> = differing(&incremental, &first)
        .into_iter()
        .filter(|&i| !touched.contains(&(i as u64)))
        .collect();
    assert_eq!(untouched, Vec::<usize>::new(), "untouched frames changed");
    assert!(
        !differing(&incremental, &first).is_empty(),
        "the edit is visible in the new video"
    );

    // And the whole re-export shows what a render of the edited video from scratch shows.
    // Compared within the encoder's noise, not bit for bit: x264 has been seen to encode the
    // same frames to slightly different bytes late in a long-running process (noted in
    // issue 20), which a fresh render of every chunk would expose.
    let scratch = tempfile::tempdir().unwrap();
    let full = data.path().join("full.mp4");
    let report = render_into(&settings, &doc, (scratch.path(), 1), &full, &mut |_, _| {});
    assert_eq!(
        report.rendered, report.chunks,
        "from scratch, every chunk is encoded"
    );
    let full = frames(&full);
    assert_eq!(full.len(), incremental.len(), "frame counts");
    for (i, (a, b)) in incremental.iter().zip(&full).enumerate() {
        assert!(
            alike(a, b),
            "frame {i} differs from a render from scratch beyond the encoder's noise"
        );
    }
    assert!(
        first.iter().zip(&full).any(|(a, b)| !alike(a, b)),
        "the comparison tells the video before the edit from the edited one"
    );
}

#[test]
fn two_lanes_encode_the_chunks_one_lane_does_and_report_progress_in_order() {
    let data = tempfile::tempdir().unwrap();
    let settings = support::settings(data.path());
    let doc = support::build(
        &settings,
        "wclanes00000000000001",
        SCRIPT,
        VideoLength::Short,
    );
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (one_mp4, two_mp4) = (data.path().join("one.mp4"), data.path().join("two.mp4"));

    let one_report = render_into(&settings, &doc, (one.path(), 1), &one_mp4, &mut |_, _| {});
    let mut seen = Vec::new();
    let two_report = render_into(
        &settings,
        &doc,
        (two.path(), 2),
        &two_mp4,
        &mut |done, total| seen.push((done, total)),
    );

    assert_eq!(
        (one_report.lanes, two_report.lanes),
        (1, 2),
        "two runs of scenes at once"
    );
    assert_eq!(
        two_report.rendered, two_report.chunks,
        "every chunk encoded"
    );
    assert_eq!(
        (
            two_report.chunks,
            two_report.frames,
            two_report.rendered_frames
        ),
        (
            one_report.chunks,
            one_report.frames,
            one_report.rendered_frames
        )
    );
    let (a, b) = (chunk_names(one.path()), chunk_names(two.path()));
    assert_eq!(
        a.len(),
        one_report.chunks + 1,
        "the chunks and the soundtrack"
    );
    assert_eq!(a, b, "the same keys");
    // The same pictures, though not the same bytes: each lane keeps an encoder of its own
    // open across its chunks, whose rate control carries from chunk to chunk.
    let (one_frames, two_frames) = (frames(&one_mp4), frames(&two_mp4));
    assert_eq!(one_frames.len(), two_frames.len(), "frame counts");
    for (i, (a, b)) in one_frames.iter().zip(&two_frames).enumerate() {
        assert!(alike(a, b), "frame {i} differs beyond the encoder's noise");
    }

    let total = two_report.frames;
    assert_eq!(
        seen.last(),
        Some(&(total, total)),
        "progress ends at the whole video"
    );
    assert!(
        seen.windows(2).all(|w| w[0].0 <= w[1].0),
        "progress never goes back: {seen:?}"
    );
    assert!(seen.len() > 2, "progress is reported along the way");
}
