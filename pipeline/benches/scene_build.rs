//! Scene building for a 150-word script, measured (not asserted): wall time of the whole build
//! and of each stage, and the realtime factor of voice synthesis (synthesis time ÷ audio
//! length; below 1 is faster than real time), for each embedded narrator in the same run:
//! espeak-ng first, then the neural voice (Piper, `make voices`), with the process's peak RSS
//! after each. Offline defaults otherwise: the local B-roll library, generated overlays.
//!
//!     cargo bench -p pipeline --bench scene_build

use std::sync::Arc;
use std::time::Duration;

use foundation::config::Config;
use foundation::model::{Language, OutputType, Source, VideoLength};
use video::build::{
    BuildRequest, Embedded, Piper, Providers, StageTimes, VoiceProvider, build_document,
};

const SCRIPT: &str = "Why do small teams never publish videos? Most of them believe that editing takes \
hours and that nobody on the team owns it. The truth is simpler. Short clips reach people where they \
already scroll every single day. Teams that post weekly grow 3.5% faster each month than teams that \
post once a quarter. A recent survey of two hundred marketers confirms the same trend. First, write \
one script a week and keep it under two minutes. Second, record the narration in one take and let \
the software cut the scenes at every sentence. Third, pick one visual per idea instead of chasing \
perfect footage. Solar panels, coffee cups and city skylines all work when they match the words. \
Finally, publish on the same day every week so your audience learns when to expect you. Follow us \
for a new tip every Monday. Consistency beats talent when the clock keeps ticking.";

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The process's peak resident set so far, in MB (`VmHWM`).
fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let data = tempfile::tempdir().expect("temp dir");
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let config = Config {
        data_dir: data.path().to_path_buf(),
        assets_dir: assets.clone(),
        ..Config::default()
    };
    let settings = config
        .finish("127.0.0.1:8080".parse().unwrap())
        .expect("settings");
    let fetcher = foundation::fetch::Fetcher::new(&[], "bench");
    let espeak = video::build::Espeak::new().expect("espeak-ng");
    let neural = Piper::installed(&assets.join("voices"), &video::build::Host::InProcess)
        .expect("voices readable");
    assert!(!neural.is_empty(), "no neural voice: run `make voices`");
    let engines: [(&str, Arc<dyn VoiceProvider>); 2] = [
        ("espeak-ng", Arc::new(espeak.clone())),
        ("piper", Arc::new(Embedded::new(neural, espeak))),
    ];
    println!(
        "scene_build: 150-word script ({} words), {runs} runs per narrator, {} cores",
        SCRIPT.split_whitespace().count(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let mut medians = Vec::new();
    for (name, voice) in engines {
        let providers =
            Providers::from_settings(&settings, &fetcher, rt.handle(), voice).expect("providers");
        let (total, rtf) = measure(name, &settings, &providers, runs);
        medians.push((name, total, rtf, peak_rss_mb()));
    }
    for (name, total, rtf, rss) in &medians {
        println!(
            "{name:>9}: build {total:7.1} ms, voice RTF {rtf:.3} ({:.1}× realtime), peak RSS so far {rss:.0} MB",
            1.0 / rtf
        );
    }
    println!(
        "piper ÷ espeak-ng: build time {:.2}×",
        medians[1].1 / medians[0].1
    );
}

/// `runs` builds with one narrator; prints each and returns the medians of the build time (ms)
/// and the voice's realtime factor.
fn measure(
    name: &str,
    settings: &foundation::config::Settings,
    providers: &Providers,
    runs: usize,
) -> (f64, f64) {
    let mut all: Vec<StageTimes> = Vec::new();
    for run in 0..runs {
        let topic = format!("wcbench{run:017}");
        let req = BuildRequest {
            topic: &topic,
            source: Source::Text,
            text: SCRIPT,
            language: Language::English,
            video_length: VideoLength::Short,
            research_enabled: false,
            faceless: false,
            output_type: OutputType::Scene,
        };
        let (doc, t) = std::thread::scope(|s| {
            s.spawn(|| build_document(settings, providers, &req, &mut |_, _, _| {}))
                .join()
                .expect("no panic")
        })
        .expect("build succeeds");
        println!(
            "{name} run {run}: scenes {:2}  total {:7.1} ms | split+direct {:5.2} ms  voice {:7.1} ms  media {:6.1} ms  overlays {:6.1} ms | audio {:5.2} s  voice RTF {:.3}",
            doc.segments.len(),
            ms(t.total),
            ms(t.split_and_direct),
            ms(t.voice),
            ms(t.media),
            ms(t.overlays),
            t.audio_seconds,
            t.voice.as_secs_f64() / t.audio_seconds
        );
        all.push(t);
    }
    let median = |f: &dyn Fn(&StageTimes) -> f64| {
        let mut v: Vec<f64> = all.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (
        median(&|t| ms(t.total)),
        median(&|t| t.voice.as_secs_f64() / t.audio_seconds),
    )
}
