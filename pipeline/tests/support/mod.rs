//! What the incremental test and bench share: settings on embedded defaults in a data dir, and
//! a video built in process from a script (espeak-ng, the library B-roll, generated overlays).
//! Included by path (`#[path = …] mod support;`) from `tests/` and `benches/`.

use std::path::Path;
use std::sync::Arc;

use foundation::config::{Config, Settings};
use foundation::document::VideoDocument;
use foundation::model::{Language, OutputType, Source, VideoLength};
use video::build::{BuildRequest, Providers, build_document};

/// Settings on embedded defaults, with `data` as the data dir.
pub fn settings(data: &Path) -> Settings {
    Config {
        data_dir: data.to_path_buf(),
        assets_dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets"),
        ..Config::default()
    }
    .finish("127.0.0.1:8080".parse().unwrap())
    .expect("settings")
}

/// The English video `script` makes, as `topic`.
pub fn build(
    settings: &Settings,
    topic: &str,
    script: &str,
    video_length: VideoLength,
) -> VideoDocument {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let fetcher = foundation::fetch::Fetcher::new(&[], "test");
    let espeak = Arc::new(video::build::Espeak::new().expect("espeak-ng"));
    let providers =
        Providers::from_settings(settings, &fetcher, rt.handle(), espeak).expect("providers");
    let req = BuildRequest {
        topic,
        source: Source::Text,
        text: script,
        language: Language::English,
        video_length,
        research_enabled: false,
        faceless: false,
        output_type: OutputType::Scene,
    };
    build_document(settings, &providers, &req, &mut |_, _, _| {})
        .expect("the video builds")
        .0
}
