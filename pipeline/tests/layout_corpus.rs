//! Thirty videos built in process from varied scripts (English and Vietnamese, with and without
//! a narrator), and `scene_geometry`'s diagnostics over every scene: no overlay object, caption,
//! narrator or background subject may collide with another. Prints the count of scenes, of
//! scenes with a placed subject, and of collisions.
//!
//!     cargo test -p pipeline --test integration layout_corpus:: -- --nocapture

use std::sync::Arc;

use compositor::geom::PreviewRect;
use foundation::config::{Config, Settings};
use foundation::document::{SpecRef, SpecState};
use foundation::document::{VideoDocument, spec_file_name};
use foundation::model::{Language, OutputType, Source, VideoLength};
use pipeline::edit::{GeometryInput, SceneGeometry, build_geometry, overlap};
use video::build::{BuildRequest, Providers, build_document};

/// Openings, middles and closings; each video takes one of each by its number.
const HOOKS: &[&str] = &[
    "Why do small teams never publish videos on their phones?",
    "Most people waste hours every week on the wrong tasks.",
    "Solar panels now pay for themselves faster than ever.",
    "Your morning coffee routine shapes the whole day.",
    "Why does every city look the same from the car window?",
    "Great teams share one simple habit.",
];
const MIDDLES: &[&str] = &[
    "Teams that post weekly grow 35% faster each month than teams that post once a quarter.",
    "A recent survey of two hundred marketers shows the same trend in every report.",
    "Start with one clear idea and keep every scene short and focused.",
    "Cheap electricity from the roof changes the monthly budget of a family.",
    "Running three times a week keeps the heart healthy and the mind calm.",
    "Online shopping carts are abandoned 70% of the time before the final click.",
    "Good security starts with a strong password and a second lock on every account.",
    "Reading ten pages of a book every night adds up to twenty books a year.",
    "The calendar is the one tool every busy person already owns.",
];
const CLOSINGS: &[&str] = &[
    "Follow us for a new tip every Monday.",
    "Subscribe and share this video with your team today.",
    "Try it this week and tell us what changed in the comments.",
];
const VI_SCRIPTS: &[&str] = &[
    "Tại sao các nhóm nhỏ không bao giờ đăng video? Phần lớn mọi người nghĩ rằng việc biên tập \
     mất hàng giờ. Sự thật đơn giản hơn nhiều. Những nhóm đăng video mỗi tuần tăng trưởng nhanh \
     hơn 35% mỗi tháng. Hãy viết một kịch bản mỗi tuần và giữ nó dưới hai phút. Chọn một hình ảnh \
     cho mỗi ý tưởng thay vì tìm kiếm cảnh quay hoàn hảo. Hãy theo dõi kênh để nhận mẹo mới mỗi \
     thứ Hai.",
    "Buổi sáng của bạn bắt đầu bằng một tách cà phê. Thói quen nhỏ này quyết định cả ngày làm \
     việc. Một nghiên cứu gần đây cho thấy 60% người làm việc hiệu quả hơn khi có lịch cố định. \
     Hãy lập kế hoạch cho tuần tới trên lịch của bạn. Tắt điện thoại trong giờ tập trung. Hãy \
     theo dõi kênh để nhận thêm mẹo mỗi tuần.",
];

fn english_script(n: usize) -> String {
    let mut s = vec![HOOKS[n % HOOKS.len()]];
    for k in 0..5 {
        s.push(MIDDLES[(n * 2 + k * 3) % MIDDLES.len()]);
    }
    s.push(CLOSINGS[n % CLOSINGS.len()]);
    s.join(" ")
}

/// A collision: (video, scene, first box, second box).
type Collision = (usize, u32, String, String);

/// Every box of a scene's geometry that must stay clear of every other: (id, rect).
fn boxes(g: &SceneGeometry) -> Vec<(String, PreviewRect)> {
    let rect = |r: &foundation::document::RectOut| PreviewRect::new(r.x, r.y, r.w, r.h);
    let mut out: Vec<(String, PreviewRect)> = g
        .boxes
        .remotion
        .objects
        .iter()
        .map(|o| (o.id.clone(), rect(&o.rect)))
        .collect();
    if let Some(c) = &g.boxes.caption.text_rect_estimate {
        out.push(("caption_text".into(), rect(c)));
    }
    if g.boxes.narrator.visible {
        out.push(("narrator".into(), rect(&g.boxes.narrator.rect)));
    }
    if let Some(s) = &g.boxes.background_subject {
        out.push(("background_subject".into(), rect(s)));
    }
    out
}

fn collisions(video: usize, g: &SceneGeometry) -> Vec<Collision> {
    let b = boxes(g);
    let mut out = Vec::new();
    for (i, (ia, ra)) in b.iter().enumerate() {
        for (ib, rb) in &b[i + 1..] {
            if overlap(*ra, *rb).is_some() {
                out.push((video, g.scene_id, ia.clone(), ib.clone()));
            }
        }
    }
    out
}

fn scene_geometry(settings: &Settings, doc: &VideoDocument, index: usize) -> SceneGeometry {
    let seg = &doc.segments[index];
    let file = spec_file_name(&seg.voice_file);
    let path = settings.public_dir().join(doc.public_folder()).join(&file);
    let spec = video::render::read_spec(&path).expect("a readable spec");
    build_geometry(&GeometryInput {
        doc,
        index,
        spec: spec.as_ref(),
        spec_meta: SpecRef {
            file,
            url: String::new(),
            version: seg.remotion_spec.clone(),
            exists: spec.is_some(),
            state: SpecState::Ready,
        },
        poster: None,
        include_diagnostics: true,
        score: 1.0,
        company_id: "test",
    })
}

#[test]
fn thirty_videos_have_no_collisions() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let data = tempfile::tempdir().expect("temp dir");
    let config = Config {
        data_dir: data.path().to_path_buf(),
        assets_dir: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets"),
        ..Config::default()
    };
    let settings = config
        .finish("127.0.0.1:8080".parse().unwrap())
        .expect("settings");
    let fetcher = foundation::fetch::Fetcher::new(&[], "test");
    let espeak = Arc::new(video::build::Espeak::new().expect("espeak-ng"));
    let providers =
        Providers::from_settings(&settings, &fetcher, rt.handle(), espeak).expect("providers");
    let (mut scenes, mut placed, mut found) = (0usize, 0usize, Vec::new());
    for n in 0..30 {
        let vietnamese = n % 10 == 9;
        let text = if vietnamese {
            VI_SCRIPTS[(n / 10) % VI_SCRIPTS.len()].to_string()
        } else {
            english_script(n)
        };
        let topic = format!("wclayout{n:018}");
        let req = BuildRequest {
            topic: &topic,
            source: Source::Text,
            text: &text,
            language: if vietnamese {
                Language::Vietnamese
            } else {
                Language::English
            },
            video_length: VideoLength::Short,
            research_enabled: false,
            faceless: n % 3 == 2,
            output_type: OutputType::Scene,
        };
        let (doc, _) = build_document(&settings, &providers, &req, &mut |_, _, _| {})
            .unwrap_or_else(|e| panic!("video {n} builds: {e:?}"));
        for index in 0..doc.segments.len() {
            let g = scene_geometry(&settings, &doc, index);
            scenes += 1;
            placed += usize::from(g.boxes.background_subject.is_some());
            found.extend(collisions(n, &g));
        }
    }
    println!(
        "layout corpus: 30 videos, {scenes} scenes, {placed} with a placed subject, {} collisions",
        found.len()
    );
    assert!(placed > scenes / 4, "the corpus exercises placement");
    assert!(found.is_empty(), "collisions: {found:?}");
}
