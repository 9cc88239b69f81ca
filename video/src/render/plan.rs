//! Video document → compositor render plan → MP4. The plan is built here
//! (pipeline knows the document); resolving and rendering belong to the
//! compositor, encoding to its GStreamer module.
//!
//! Per scene: the background (procedural, image, or a video clip with its trim window), the
//! narrator (the presenter clip when the scene has one, else the animated card), captions, and
//! the overlay objects of the scene's spec file (`{public}/{folder}/{voice_file}_spec.json`)
//! when its token says one was built. A spec that cannot be read, or whose payloads do not
//! resolve, costs the scene its overlay (with a warning), never the video.

use std::path::{Path, PathBuf};

use compositor::ResolveError;
use compositor::captions::caption_chunks;
use compositor::media::{EncodeSettings, EncoderChoice};
use compositor::plan::{
    Background as PlanBackground, Clip, Narrator, OverlayObject, OverlayPayload, Palette,
    ProceduralStyle, ScenePlan, Transition, VideoPlan,
};
use compositor::spec::OverlaySpec;

use crate::render::{chunks, spec_file};
use foundation::config::Settings;
use foundation::document::{
    Background, NARRATOR_PLACEHOLDER, Segment, VideoDocument, VideoTrim, spec_file_name,
};
use foundation::error::Code;
use foundation::jobs::JobFailure;

pub(crate) const FPS: u32 = 30;

/// A procedural background (`style` name and seed, as B-roll picks name them) as a 720×1280
/// PNG still, painted as the renderer paints it.
pub fn procedural_still(style_name: &str, seed: u64) -> Option<Vec<u8>> {
    let still =
        compositor::still::procedural_background(seed, style(style_name), palette_for(seed))?;
    compositor::raster::encode_png(still.as_ref()).ok()
}

fn palette_for(seed: u64) -> Palette {
    match seed % 3 {
        0 => Palette::MIDNIGHT,
        1 => Palette::SUNSET,
        _ => Palette::OCEAN,
    }
}

fn style(name: &str) -> ProceduralStyle {
    match name {
        "grid" => ProceduralStyle::Grid,
        "bokeh" => ProceduralStyle::Bokeh,
        _ => ProceduralStyle::Gradient,
    }
}

/// A clip of `file` in the video folder, with the scene's trim window when it is a sane one.
fn clip(dir: &Path, file: &str, trim: Option<VideoTrim>) -> Clip {
    let mut clip = Clip::new(dir.join(file));
    if let Some(t) = trim.filter(|t| t.start.is_finite() && t.start >= 0.0 && t.end > t.start) {
        clip.start = t.start;
        clip.end = t.end.is_finite().then_some(t.end);
    }
    clip
}

/// The folder holding the document's public per-scene files (specs and their payloads).
pub(crate) fn spec_folder(settings: &Settings, doc: &VideoDocument) -> PathBuf {
    settings.public_dir().join(doc.public_folder())
}

/// Reads, parses and validates the spec file at `path`; a missing file is an error here (the
/// scene's token says one was built).
fn read_spec(path: &Path) -> Result<OverlaySpec, String> {
    let spec = spec_file::read_spec(path)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the spec file is missing".to_string())?;
    spec.validate().map_err(|e| e.to_string())?;
    Ok(spec)
}

/// The overlay objects of `seg`: none when its token is empty or `none`; none (with a warning)
/// when the spec file is unreadable; objects whose payload file is missing are left out.
pub(crate) fn scene_overlay(
    settings: &Settings,
    doc: &VideoDocument,
    seg: &Segment,
) -> Vec<OverlayObject> {
    if seg.remotion_spec.is_empty() || seg.overlay_disabled() {
        return Vec::new();
    }
    let folder = spec_folder(settings, doc);
    let path = folder.join(spec_file_name(&seg.voice_file));
    let spec = match read_spec(&path) {
        Ok(spec) => spec,
        Err(error) => {
            tracing::warn!(
                topic = %doc.topic_id,
                scene = %seg.voice_file,
                path = %path.display(),
                %error,
                "overlay spec unreadable; the scene renders without its overlay"
            );
            return Vec::new();
        }
    };
    spec_objects(settings, doc, seg, &spec)
}

/// The overlay objects of `spec`, a scene's spec read from its file or staged in an open edit
/// session (whose payload files are already written); objects whose payload file is missing
/// are left out.
pub(crate) fn spec_objects(
    settings: &Settings,
    doc: &VideoDocument,
    seg: &Segment,
    spec: &OverlaySpec,
) -> Vec<OverlayObject> {
    let folder = spec_folder(settings, doc);
    spec.to_overlay_objects(&folder, seg.duration)
        .into_iter()
        .filter(|o| {
            let file = match &o.payload {
                OverlayPayload::SvgFile(p) | OverlayPayload::Png(p) => p,
                OverlayPayload::Svg(_) => return true,
            };
            let present = file.is_file();
            if !present {
                tracing::warn!(
                    topic = %doc.topic_id,
                    scene = %seg.voice_file,
                    payload = %file.display(),
                    "overlay payload missing; the object is left out"
                );
            }
            present
        })
        .collect()
}

/// The name a narrator card shows: the scene's narrator, or the product's own name while the
/// account has named none.
fn card_name(narrator: &str) -> &str {
    match narrator.trim() {
        "" | NARRATOR_PLACEHOLDER => CARD_DEFAULT_NAME,
        name => name,
    }
}

/// What a narrator card shows when the account has no name.
const CARD_DEFAULT_NAME: &str = "Reelsmith";

/// The render plan of a document whose files live in `dir`.
pub fn plan_for(settings: &Settings, doc: &VideoDocument, dir: &Path) -> VideoPlan {
    let n = doc.segments.len();
    let scenes = doc
        .segments
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let background = match &s.background {
                Background::Procedural { style: st, seed } => PlanBackground::Procedural {
                    seed: *seed,
                    style: style(st),
                    palette: palette_for(*seed),
                },
                Background::Image { file } => PlanBackground::Image(dir.join(file)),
                Background::Video { file } => PlanBackground::Clip(clip(dir, file, s.video_trim)),
            };
            let rect = s.narrator_rect;
            let narrator = (s.is_a_roll() && !doc.faceless).then(|| {
                match s.narrator_video.as_deref().filter(|f| !f.is_empty()) {
                    Some(file) => Narrator::Clip {
                        clip: clip(dir, file, None),
                        rect,
                    },
                    None => Narrator::Card {
                        name: card_name(&s.narrator.name).into(),
                        rect,
                    },
                }
            });
            ScenePlan {
                duration: s.duration,
                background,
                background_fit: s.background_fit,
                narrator,
                captions: caption_chunks(&s.words),
                caption_y: s.caption_rect.y + s.caption_rect.h / 2.0,
                overlay: scene_overlay(settings, doc, s),
                transition: if i + 1 < n {
                    Transition::Fade
                } else {
                    Transition::Cut
                },
            }
        })
        .collect();
    VideoPlan {
        fps: FPS,
        scenes,
        fonts_dir: settings.assets_dir.join("fonts"),
    }
}

/// [`plan_for`] with each scene's overlay from `staged(voice_file)` where an open edit session
/// holds one (the whole video's preview sees what the editor sees).
pub(crate) fn plan_with_staged_specs<'a>(
    settings: &Settings,
    doc: &VideoDocument,
    dir: &Path,
    staged: impl Fn(&str) -> Option<&'a OverlaySpec>,
) -> VideoPlan {
    let mut plan = plan_for(settings, doc, dir);
    for (seg, scene) in doc.segments.iter().zip(plan.scenes.iter_mut()) {
        if let Some(spec) = staged(&seg.voice_file)
            && !seg.remotion_spec.is_empty()
            && !seg.overlay_disabled()
        {
            scene.overlay = spec_objects(settings, doc, seg, spec);
        }
    }
    plan
}

/// The key of `doc`'s soundtrack, from its inputs (so a render whose sound did not change
/// neither mixes nor encodes it again): the mixing code's version, each scene's narration file
/// (its bytes) and duration, and the music bed (the choice and the file it resolves to).
pub fn soundtrack_key(settings: &Settings, doc: &VideoDocument, dir: &Path) -> chunks::key::Key {
    let music = serde_json::to_vec(&doc.music).expect("music always serialises");
    let track = crate::render::sound::library::resolve(doc);
    let track_id = track.map(|t| t.id.as_bytes().to_vec()).unwrap_or_default();
    let track_bytes = track
        .and_then(|t| chunks::key::file_digest(&settings.assets_dir.join("music").join(&t.file)))
        .unwrap_or_default();
    let scenes: Vec<Vec<u8>> = doc
        .segments
        .iter()
        .map(|s| {
            let mut part = chunks::key::file_digest(&dir.join(&s.audio_file))
                .unwrap_or_default()
                .to_vec();
            part.extend_from_slice(&s.duration.to_bits().to_le_bytes());
            part
        })
        .collect();
    let head: [&[u8]; 4] = [
        env!("REELSMITH_SOUND_DIGEST").as_bytes(),
        &music,
        &track_id,
        &track_bytes,
    ];
    chunks::key::of_parts(head.into_iter().chain(scenes.iter().map(Vec::as_slice)))
}

/// Renders `doc` to `out` (MP4), reporting frames done / total: scene by scene into the
/// video's chunk cache (`render::chunks`), only the scenes whose chunks changed since the last
/// render, then joined with the soundtrack.
pub fn render_document(
    settings: &Settings,
    doc: &VideoDocument,
    dir: &Path,
    out: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<chunks::Report, JobFailure> {
    render_document_on(settings, doc, dir, out, None, progress)
}

/// [`render_document`] with the missing chunks encoded elsewhere (`farm`: render workers)
/// instead of in this process when given.
pub(crate) fn render_document_on(
    settings: &Settings,
    doc: &VideoDocument,
    dir: &Path,
    out: &Path,
    farm: Option<&dyn chunks::Offload>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<chunks::Report, JobFailure> {
    let mix = || crate::render::sound::soundtrack(settings, doc, dir);
    let sound = chunks::Soundtrack {
        key: soundtrack_key(settings, doc, dir),
        mix: &mix,
    };
    let render = chunks::Render {
        doc,
        plan: plan_for(settings, doc, dir),
        dir: chunks::ChunkDir::new(dir, "full"),
        encode: encode_settings(settings, None)?,
        half: false,
        farm,
        lanes: settings.render.lanes,
    };
    let report = render
        .run(&sound, out, true, progress)
        .map_err(chunks::Failure::into_job)?;
    foundation::telemetry::encode(
        report.rendered_frames,
        report.chunks_wall + report.join_wall,
        false,
    );
    tracing::info!(
        topic = %doc.topic_id,
        frames = report.frames,
        chunks = report.chunks,
        rendered = report.rendered,
        rendered_frames = report.rendered_frames,
        chunks_ms = report.chunks_wall.as_millis() as u64,
        join_ms = report.join_wall.as_millis() as u64,
        lanes = report.lanes,
        encoder = %report.encoder,
        "video rendered"
    );
    Ok(report)
}

/// A smaller, faster encode than the product's: the editor's preview clips, at half the
/// product's size (`render::half`) with their own x264 preset.
#[derive(Debug, Clone, Copy)]
pub struct Reduced {
    pub preset: compositor::media::X264Preset,
}

/// The encoder settings of the server's configuration, at the product size or `reduced`.
pub fn encode_settings(
    settings: &Settings,
    reduced: Option<Reduced>,
) -> Result<EncodeSettings, JobFailure> {
    let misconfigured = |e: String| {
        JobFailure::new(
            Code::RenderFailed,
            "The renderer is misconfigured on this server.",
        )
        .because(e)
    };
    let encode = EncodeSettings {
        preset: settings
            .render
            .preset
            .parse()
            .map_err(|e| misconfigured(format!("render.preset: {e}")))?,
        encoder: settings
            .render
            .encoder
            .parse::<EncoderChoice>()
            .map_err(|e| misconfigured(format!("render.encoder: {e}")))?,
        ..EncodeSettings::default()
    };
    Ok(match reduced {
        Some(r) => EncodeSettings {
            width: compositor::half::HALF_W,
            height: compositor::half::HALF_H,
            preset: r.preset,
            ..encode
        },
        None => encode,
    })
}

/// Resolves `plan`, scenes `first ..` of the document (0 for the whole video, the scene's
/// index for a scene resolved alone); a scene whose overlay objects do not resolve (a corrupt
/// payload) loses its overlay with a warning and resolving is retried. Any other problem fails
/// the render, naming the document's scene.
pub(crate) fn resolve_dropping_bad_overlays(
    topic: &str,
    plan: &mut VideoPlan,
    first: usize,
) -> Result<compositor::ResolvedVideo, JobFailure> {
    loop {
        match compositor::resolve(plan) {
            Ok(resolved) => return Ok(resolved),
            Err(ResolveError::Overlay {
                scene,
                object,
                reason,
            }) if plan
                .scenes
                .get(scene)
                .is_some_and(|s| !s.overlay.is_empty()) =>
            {
                tracing::warn!(
                    topic,
                    scene = scene + first,
                    object,
                    %reason,
                    "overlay does not resolve; the scene renders without it"
                );
                plan.scenes[scene].overlay.clear();
            }
            Err(e) => {
                let e = e.in_scene(first);
                return Err(JobFailure::new(Code::RenderFailed, resolve_message(&e)).because(e));
            }
        }
    }
}

/// The client's sentence for a plan that does not resolve: which scene and which kind of input,
/// never the file, the library's words or the type.
pub(crate) fn resolve_message(e: &ResolveError) -> String {
    match e {
        ResolveError::NoScenes => "The video has no scenes to render.".into(),
        ResolveError::Fps(_) | ResolveError::TooLong(_) => {
            "The video's timing is outside what the renderer accepts.".into()
        }
        ResolveError::Duration { scene, .. } => {
            format!("Scene {} has an invalid duration.", scene + 1)
        }
        ResolveError::Font { .. } => "A font the renderer needs is missing on this server.".into(),
        ResolveError::Image { scene, .. } => {
            format!(
                "The background image of scene {} could not be read.",
                scene + 1
            )
        }
        ResolveError::Clip { scene, role, .. } => {
            format!(
                "The {role} video clip of scene {} could not be read.",
                scene + 1
            )
        }
        ResolveError::NarratorRect { scene, .. } => {
            format!("The narrator box of scene {} is invalid.", scene + 1)
        }
        ResolveError::Overlay { scene, .. } => {
            format!("The overlay of scene {} could not be prepared.", scene + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compositor::geom::CanvasRect;
    use compositor::plan::Animation;
    use compositor::spec::{ObjectKind, SpecGroup, SpecObject, SpecPayload, SpecSource};
    use foundation::config::Config;
    use foundation::document::{CAPTION_RECT, NARRATOR_RECT, Roll};

    fn settings(data: &Path) -> Settings {
        let config = Config {
            data_dir: data.to_owned(),
            ..Config::default()
        };
        config.finish("127.0.0.1:1".parse().unwrap()).unwrap()
    }

    fn doc() -> VideoDocument {
        let seg = |i: u32, roll: Roll| Segment {
            voice_file: format!("v{i}"),
            id: i,
            roll,
            duration: 3.0,
            caption_rect: CAPTION_RECT,
            narrator_rect: NARRATOR_RECT,
            ..Default::default()
        };
        // Through serde, so fields added to the document later take their defaults here.
        let mut doc: VideoDocument = serde_json::from_value(serde_json::json!({
            "topic_id": "wcRender",
            "title": "t",
            "language": "English",
            "faceless": false,
            "script": "",
            "segments": [],
            "public_key": "0123456789abcdef",
        }))
        .unwrap();
        doc.segments = vec![
            seg(1, Roll::ARoll),
            seg(2, Roll::BRoll),
            seg(3, Roll::ARoll),
        ];
        doc
    }

    fn spec() -> OverlaySpec {
        let mut s = OverlaySpec::new(SpecSource::Generated);
        let object = |id: &str| SpecObject {
            layout_id: id.into(),
            kind: ObjectKind::Text,
            text: None,
            rect: CanvasRect::new(60.0, 200.0, 300.0, 100.0),
            z: 0,
            animation: Animation::Pop,
            start: 0.2,
            end: None,
            payload: SpecPayload::Svg {
                file: format!("{id}.svg"),
            },
        };
        s.groups.push(SpecGroup {
            id: "g".into(),
            rect: CanvasRect::new(60.0, 200.0, 600.0, 300.0),
            temporal_policy: Default::default(),
            objects: vec![object("a"), object("b")],
        });
        s
    }

    #[test]
    fn clips_trims_presenters_and_specs_map_into_the_plan() {
        let data = std::env::temp_dir().join(format!("reelsmith-render-{}", std::process::id()));
        let settings = settings(&data);
        let mut doc = doc();
        let dir = Path::new("/videos/wcRender");
        doc.segments[0].background = Background::Video {
            file: "bg.mp4".into(),
        };
        doc.segments[0].video_trim = Some(VideoTrim {
            start: 1.5,
            end: 4.0,
        });
        doc.segments[0].narrator_video = Some("presenter.mp4".into());
        doc.segments[1].background = Background::Video {
            file: "b.mp4".into(),
        };
        doc.segments[1].video_trim = Some(VideoTrim {
            start: 3.0,
            end: 1.0,
        });
        // Scene 1: a readable spec with one payload missing; scene 2: token but unreadable
        // spec; scene 3: disabled.
        doc.segments[0].remotion_spec = "3".into();
        doc.segments[1].remotion_spec = "1".into();
        doc.segments[2].remotion_spec = "none".into();
        let folder = spec_folder(&settings, &doc);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(spec_file_name("v1")),
            serde_json::to_vec(&spec()).unwrap(),
        )
        .unwrap();
        std::fs::write(
            folder.join("a.svg"),
            "<svg xmlns='http://www.w3.org/2000/svg'/>",
        )
        .unwrap();
        std::fs::write(folder.join(spec_file_name("v2")), b"{ not json").unwrap();
        std::fs::write(
            folder.join(spec_file_name("v3")),
            serde_json::to_vec(&spec()).unwrap(),
        )
        .unwrap();

        let plan = plan_for(&settings, &doc, dir);
        assert_eq!(
            plan.scenes[0].background,
            PlanBackground::Clip(Clip {
                path: dir.join("bg.mp4"),
                start: 1.5,
                end: Some(4.0),
            })
        );
        assert!(
            matches!(&plan.scenes[0].narrator, Some(Narrator::Clip { clip, .. }) if clip.path == dir.join("presenter.mp4"))
        );
        // An inverted trim is ignored (the whole clip loops) rather than failing the video.
        assert_eq!(
            plan.scenes[1].background,
            PlanBackground::Clip(Clip::new(dir.join("b.mp4")))
        );
        assert!(plan.scenes[1].narrator.is_none(), "B-roll has no narrator");
        assert!(matches!(
            plan.scenes[2].narrator,
            Some(Narrator::Card { .. })
        ));
        assert_eq!(plan.scenes[0].overlay.len(), 1, "b.svg is missing");
        assert_eq!(
            plan.scenes[0].overlay[0].payload,
            OverlayPayload::SvgFile(folder.join("a.svg"))
        );
        assert_eq!(plan.scenes[0].overlay[0].end, 3.0);
        assert!(plan.scenes[1].overlay.is_empty(), "unreadable spec");
        assert!(plan.scenes[2].overlay.is_empty(), "disabled");
        let _ = std::fs::remove_dir_all(&data);
    }

    #[test]
    fn a_corrupt_overlay_payload_costs_the_scene_its_overlay_only() {
        let data =
            std::env::temp_dir().join(format!("reelsmith-render-bad-{}", std::process::id()));
        let mut settings = settings(&data);
        settings.assets_dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets"));
        let mut doc = doc();
        doc.segments.truncate(1);
        doc.segments[0].remotion_spec = "1".into();
        let folder = spec_folder(&settings, &doc);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(spec_file_name("v1")),
            serde_json::to_vec(&spec()).unwrap(),
        )
        .unwrap();
        std::fs::write(folder.join("a.svg"), "<svg").unwrap();
        std::fs::write(folder.join("b.svg"), "<svg").unwrap();
        let mut plan = plan_for(&settings, &doc, Path::new("/nowhere"));
        assert_eq!(plan.scenes[0].overlay.len(), 2);
        let resolved = resolve_dropping_bad_overlays(&doc.topic_id, &mut plan, 0).unwrap();
        assert!(!resolved.scene_has_overlay(0));
        let _ = std::fs::remove_dir_all(&data);
    }

    #[test]
    fn narrator_card_shows_the_account_name_or_the_product_name() {
        assert_eq!(card_name("Lan's Bakery"), "Lan's Bakery");
        assert_eq!(card_name(NARRATOR_PLACEHOLDER), CARD_DEFAULT_NAME);
        assert_eq!(card_name("  "), CARD_DEFAULT_NAME);
    }
}
