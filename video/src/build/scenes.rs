//! The one scene assembly: scene drafts from any source become the video document.
//!
//! Text sources (script, idea, blog) draft a scene per stretch of the script, with the media the
//! user placed in it; media sources (audio and video files or URLs) draft a scene per cut of the
//! recording, with its slice of the audio, the transcript's words and, for video, the source as
//! the presenter. [`assemble`] then does the same for every draft, whatever its source:
//!
//! 1. **Direction** ([`crate::build::direction`]): scene type, pattern, keyword, talking point,
//!    quote, and the roll (a presenter is A-roll, a recording without one B-roll).
//! 2. **Narration**: the voice speaks a text draft; a recorded draft keeps its own audio. Either
//!    way the WAV is published in the video's public folder with its word sidecar
//!    `{voice_file}_words.json`.
//! 3. **Visuals**: inline media is fetched through the guard; scenes without media or presenter
//!    get B-roll ([`crate::build::broll`]).
//! 4. **Overlays** ([`crate::build::overlays`]) for the scene types that call for one.
//!
//! `output_type=text` stops after direction: the scenes are the editable script.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use compositor::geom::PreviewRect;

use crate::build::broll::{self, Pick, SceneQuery};
use crate::build::direction::{self, Direction, SceneInput};
use crate::build::overlays::{self, OverlayFonts, SceneOverlay};
use crate::build::placement::{self, SceneBoxes};
use crate::build::providers::Providers;
use crate::build::script::InlineMedia;
use crate::build::voice::{Narration, VoiceProvider, write_wav};
use crate::build::writer::CopyScene;
use foundation::config::Settings;
use foundation::document::{
    Background, BrollSource, CAPTION_RECT, MediaKind, NARRATOR_PLACEHOLDER, NARRATOR_RECT,
    NarratorInfo, Roll, Segment, VideoDocument, VideoTrim,
};
use foundation::error::Code;
use foundation::ids;
use foundation::jobs::JobFailure;
use foundation::language;
use foundation::model::OutputType;

/// Largest inline media file fetched for a scene.
const INLINE_MEDIA_MAX_BYTES: u64 = 50 * 1024 * 1024;
/// The whole 280×498 preview: a presenter from the source video is the entire picture.
const FULL_FRAME: PreviewRect = PreviewRect::new(0.0, 0.0, 280.0, 498.0);

/// One scene before assembly.
#[derive(Debug, Clone, Default)]
pub struct SceneDraft {
    /// What is said, as the scene's text.
    pub text: String,
    /// Media the user placed on this scene in the script (text sources).
    pub media: Option<InlineMedia>,
    /// The scene's recorded audio and word timings, scene-relative (media sources); `None`
    /// means the voice speaks `text`.
    pub narration: Option<Narration>,
    /// The source video shown as the scene's presenter (video sources).
    pub presenter: Option<Presenter>,
}

/// A slice of the source video playing full-frame as a scene's presenter.
#[derive(Debug, Clone, PartialEq)]
pub struct Presenter {
    /// The clip, in the video folder.
    pub file: String,
    /// The scene's window into it, seconds.
    pub trim: VideoTrim,
    /// Where the client's media came from (the scene's `mediaUrl`), empty for uploads.
    pub url: String,
}

/// Wall time of each stage of a build (the benchmark reports these).
#[derive(Debug, Clone, Default)]
pub struct StageTimes {
    pub write: Duration,
    pub split_and_direct: Duration,
    pub voice: Duration,
    /// Seconds of narration synthesised or published (voice realtime factor = `voice /
    /// audio_seconds`).
    pub audio_seconds: f64,
    pub media: Duration,
    pub overlays: Duration,
    pub total: Duration,
}

/// How far assembly goes, and how much narration it may make.
#[derive(Debug, Clone, Copy)]
pub struct Goal {
    /// `text` stops after direction: the scenes are the editable script.
    pub output_type: OutputType,
    /// The bound on the narration really spoken or recorded
    /// ([`crate::build::script::max_narration_secs`]).
    pub max_narration_secs: f64,
}

/// Where the assembled files go and how they are reached.
struct Folders {
    /// The video folder (private).
    dir: PathBuf,
    /// The video's public folder on disk.
    public: PathBuf,
    /// `{origin_url}/{public folder}`.
    base_url: String,
}

impl Folders {
    fn of(settings: &Settings, doc: &VideoDocument) -> Folders {
        let folder = doc.public_folder();
        Folders {
            dir: settings.video_dir(&doc.topic_id),
            public: settings.public_dir().join(&folder),
            base_url: format!("{}/{folder}", settings.origin_url),
        }
    }

    fn url(&self, file: &str) -> String {
        format!("{}/{file}", self.base_url)
    }

    /// Makes `file` of the video folder reachable in the public folder, without a second copy
    /// when the file system allows it.
    fn publish(&self, file: &str) -> std::io::Result<()> {
        let (src, dst) = (self.dir.join(file), self.public.join(file));
        if dst.exists() {
            std::fs::remove_file(&dst)?;
        }
        std::fs::hard_link(&src, &dst).or_else(|_| std::fs::copy(&src, &dst).map(|_| ()))
    }
}

/// Turns `drafts` into the scenes of `doc` (whose header — title, language, faceless, voice,
/// public key, source — the caller set). Files go to the video folder and its public folder;
/// the document is returned, not stored. `progress(step, fraction 0..1, note)` reports along
/// the way; `times` collects the stages' wall time. The voice stops once the narration passes
/// `goal.max_narration_secs`, and the build fails with `narration_too_long`.
pub fn assemble(
    settings: &Settings,
    providers: &Providers,
    mut doc: VideoDocument,
    drafts: Vec<SceneDraft>,
    goal: Goal,
    progress: &mut dyn FnMut(u8, f64, &str),
    times: &mut StageTimes,
) -> Result<VideoDocument, JobFailure> {
    let t = Instant::now();
    let inputs: Vec<SceneInput<'_>> = drafts
        .iter()
        .map(|d| SceneInput {
            text: &d.text,
            has_media: d.media.is_some(),
        })
        .collect();
    let mut directions = direction::direct(&inputs, doc.faceless);
    model_copy(providers, &inputs, &mut directions, &doc.language);
    let mut segments: Vec<Segment> = drafts
        .iter()
        .zip(&directions)
        .enumerate()
        .map(|(i, (d, dir))| new_segment(i, d, dir, &doc))
        .collect();
    times.split_and_direct += t.elapsed();
    progress(2, 0.1, "Directing the scenes");
    if goal.output_type == OutputType::Text {
        doc.segments = segments;
        return Ok(doc);
    }

    let folders = Folders::of(settings, &doc);
    std::fs::create_dir_all(&folders.dir).map_err(JobFailure::internal)?;
    std::fs::create_dir_all(&folders.public).map_err(JobFailure::internal)?;

    let t = Instant::now();
    let n = drafts.len();
    let mut drafts = drafts;
    let mut spoken = 0.0;
    let speaking = Speaking(providers.voice.as_ref());
    for (i, (seg, draft)) in segments.iter_mut().zip(&mut drafts).enumerate() {
        let (narration, note) = match draft.narration.take() {
            Some(recorded) => (recorded, "Cutting the narration into scenes"),
            None => (speaking.speak(&doc, seg, i)?, "Recording the narration"),
        };
        spoken += narration.duration();
        if spoken > goal.max_narration_secs {
            return Err(narration_too_long(goal.max_narration_secs, i + 1, n));
        }
        let file = format!("{}.wav", seg.voice_file);
        publish_narration(&folders, seg, narration, &file)?;
        times.audio_seconds += seg.duration;
        progress(3, 0.1 + 0.6 * (i + 1) as f64 / n as f64, note);
    }
    times.voice += t.elapsed();
    // The narration is done: the voice's memory goes back before the visuals are made.
    drop(speaking);

    let t = Instant::now();
    progress(4, 0.75, "Choosing the visuals");
    visuals(providers, &folders, &mut segments, &drafts)?;
    times.media += t.elapsed();

    let t = Instant::now();
    progress(4, 0.9, "Designing the overlays");
    design_overlays(settings, &folders, &mut segments, &doc)?;
    times.overlays += t.elapsed();

    doc.segments = segments;
    Ok(doc)
}

/// Asks the writer for the overlay copy of the scenes that have an overlay and takes what obeys
/// the copy rules (the embedded writer proposes nothing).
fn model_copy(
    providers: &Providers,
    inputs: &[SceneInput<'_>],
    directions: &mut [Direction],
    language: &str,
) {
    let wanted: Vec<usize> = (0..directions.len())
        .filter(|&i| direction::wants_overlay(directions[i].scene_type))
        .collect();
    if wanted.is_empty() {
        return;
    }
    let scenes: Vec<CopyScene<'_>> = wanted
        .iter()
        .map(|&i| CopyScene {
            text: inputs[i].text,
            scene_type: directions[i].scene_type,
        })
        .collect();
    let mut proposals = vec![None; directions.len()];
    for (&i, p) in wanted
        .iter()
        .zip(providers.writer.overlay_copy(&scenes, language))
    {
        proposals[i] = p;
    }
    let texts: Vec<&str> = inputs.iter().map(|s| s.text).collect();
    let taken = direction::adopt_copy(directions, &texts, &proposals);
    tracing::debug!(taken, asked = wanted.len(), "overlay copy from the writer");
}

/// Gives every scene that has a narrator the account's `name` (the narrator card shows it).
pub(crate) fn name_narrator(doc: &mut VideoDocument, name: &str) {
    let name = name.trim();
    if name.is_empty() {
        return;
    }
    for seg in &mut doc.segments {
        if !seg.narrator.name.is_empty() {
            seg.narrator.name = name.to_string();
        }
    }
}

/// A scene as direction and its draft describe it, before narration and visuals.
fn new_segment(i: usize, draft: &SceneDraft, dir: &Direction, doc: &VideoDocument) -> Segment {
    let roll = match (&draft.presenter, &draft.narration) {
        (Some(_), _) => Roll::ARoll,
        (None, Some(_)) => Roll::BRoll,
        (None, None) => dir.roll,
    };
    // Only a synthesised narration has a narrator the voice speaks for.
    let narrator = if doc.faceless || draft.narration.is_some() {
        NarratorInfo::default()
    } else {
        NarratorInfo {
            name: NARRATOR_PLACEHOLDER.into(),
            voice_id: doc.voice_id.clone(),
            ..NarratorInfo::default()
        }
    };
    let mut seg = Segment {
        voice_file: format!("v{}", ids::file_token()),
        id: i as u32 + 1,
        roll,
        scene_type: Some(dir.scene_type),
        pattern: dir.pattern.into(),
        keyword: dir.keyword.clone(),
        talking_point: dir.talking_point.clone(),
        quote: dir.quote.clone(),
        text: draft.text.clone(),
        background: Background::Procedural {
            style: "gradient".into(),
            seed: seed_of(&dir.keyword),
        },
        caption_rect: CAPTION_RECT,
        narrator_rect: NARRATOR_RECT,
        narrator,
        ..Default::default()
    };
    if let Some(p) = &draft.presenter {
        seg.narrator_rect = FULL_FRAME;
        seg.narrator_video = Some(p.file.clone());
        seg.video_trim = Some(p.trim);
        seg.media_type = Some(MediaKind::Video);
        seg.media_url = p.url.clone();
    }
    seg
}

/// A voice in use: its [`VoiceProvider::release`] runs when this is dropped, so the memory a
/// narration loaded (Piper's worker: 222 MB after one scene) goes back however the narration
/// ends, also when a scene fails to speak or the narration runs too long. The editor's
/// one-scene `revoice` and `add_scene` used to leave the worker beside the daemon until the next
/// build, through any render in between; now the next of several one-scene edits loads the
/// model again (0.69 s on a slow 2-core machine, 2026-12-02).
struct Speaking<'a>(&'a dyn VoiceProvider);

impl Speaking<'_> {
    /// The voice speaks scene `i`'s text; the scene's narrator names the voice that spoke.
    fn speak(
        &self,
        doc: &VideoDocument,
        seg: &mut Segment,
        i: usize,
    ) -> Result<Narration, JobFailure> {
        let voice_id = scene_voice(self.0, doc, seg);
        if !seg.narrator.voice_id.is_empty() {
            seg.narrator.voice_id = voice_id.clone();
        }
        self.0.synthesize(&seg.text, &voice_id).map_err(|e| {
            JobFailure::new(
                Code::SceneBuildFailed,
                format!("The narration of scene {} could not be synthesised.", i + 1),
            )
            .because(e)
        })
    }
}

impl Drop for Speaking<'_> {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// The narration passed its bound at scene `at` of `n`: the voice stops there.
fn narration_too_long(max_secs: f64, at: usize, n: usize) -> JobFailure {
    JobFailure::new(
        Code::NarrationTooLong,
        format!(
            "The narration ran past {max_secs:.0} s by scene {at} of {n}; a video of this source holds at most {max_secs:.0} s. Shorten the text."
        ),
    )
}

/// The voice of a scene: its narrator's in the video's language, unless the scene is clearly
/// in the other language ([`language::clearly`]: a mixed script), which takes that language's
/// voice.
fn scene_voice(voice: &dyn VoiceProvider, doc: &VideoDocument, seg: &Segment) -> String {
    match language::clearly(&seg.text) {
        Some(l) if l.name() != doc.language => voice.pick_voice("", l.name()),
        _ if seg.narrator.voice_id.is_empty() => doc.voice_id.clone(),
        _ => voice.pick_voice(&seg.narrator.voice_id, &doc.language),
    }
}

/// Speaks scene `index` of `doc` again, its current text with the voice the build would pick,
/// into a fresh narration file (the files of older versions of the document stay as they are):
/// its duration, word timings and audio URLs follow the new audio.
pub fn revoice(
    settings: &Settings,
    voice: &dyn VoiceProvider,
    doc: &mut VideoDocument,
    index: usize,
) -> Result<(), JobFailure> {
    let folders = Folders::of(settings, doc);
    let mut seg = doc.segments[index].clone();
    let narration = Speaking(voice).speak(doc, &mut seg, index)?;
    let file = format!("{}_voice_{}.wav", seg.voice_file, ids::file_token());
    publish_narration(&folders, &mut seg, narration, &file)?;
    doc.segments[index] = seg;
    Ok(())
}

/// Builds one new scene that says `text` and inserts it at `at` of `doc`, as [`assemble`] builds
/// every scene: directed among the video's scenes, spoken with the video's voice, given B-roll
/// and an overlay, and named for the video's narrator. Returns its `voice_file`. Scenes after
/// it keep their files; the caller renumbers `id`s.
pub fn add_scene(
    settings: &Settings,
    providers: &Providers,
    doc: &mut VideoDocument,
    at: usize,
    text: &str,
) -> Result<String, JobFailure> {
    let mut texts: Vec<&str> = doc.segments.iter().map(|s| s.text.as_str()).collect();
    texts.insert(at, text);
    let inputs: Vec<SceneInput<'_>> = texts
        .iter()
        .map(|text| SceneInput {
            text,
            has_media: false,
        })
        .collect();
    let mut directions = direction::direct(&inputs, doc.faceless);
    model_copy(
        providers,
        &inputs[at..=at],
        &mut directions[at..=at],
        &doc.language,
    );
    let draft = SceneDraft {
        text: text.to_string(),
        ..SceneDraft::default()
    };
    let mut seg = new_segment(at, &draft, &directions[at], doc);
    // The account's name, as the other scenes' narrator shows it.
    let named = doc
        .segments
        .iter()
        .map(|s| &s.narrator.name)
        .find(|n| !n.is_empty() && n.as_str() != NARRATOR_PLACEHOLDER);
    if let Some(name) = named.filter(|_| !seg.narrator.name.is_empty()) {
        seg.narrator.name = name.clone();
    }
    let folders = Folders::of(settings, doc);
    let narration = Speaking(providers.voice.as_ref()).speak(doc, &mut seg, at)?;
    let file = format!("{}.wav", seg.voice_file);
    publish_narration(&folders, &mut seg, narration, &file)?;
    let mut one = [seg];
    visuals(providers, &folders, &mut one, std::slice::from_ref(&draft))?;
    let [mut seg] = one;
    design_overlay(&overlay_fonts(settings)?, &folders, &mut seg, at, doc)?;
    let voice_file = seg.voice_file.clone();
    doc.segments.insert(at, seg);
    Ok(voice_file)
}

/// Writes the scene's narration WAV, publishes it with its word sidecar
/// (`{voice_file}_words.json`, the editor's caption preview; `video_data` trims words from the
/// scene tree), and sets duration, words and the audio URLs.
fn publish_narration(
    folders: &Folders,
    seg: &mut Segment,
    narration: Narration,
    file: &str,
) -> Result<(), JobFailure> {
    write_wav(&folders.dir.join(file), &narration).map_err(JobFailure::internal)?;
    folders.publish(file).map_err(JobFailure::internal)?;
    seg.duration = narration.duration();
    seg.audio_file = file.to_string();
    seg.audio_url = folders.url(file);
    if !seg.narrator.name.is_empty() {
        seg.narrator.audio_url = seg.audio_url.clone();
    }
    seg.words = narration.words;
    seg.spoken_text = Some(seg.text.clone());
    let words_json = serde_json::to_vec(&seg.words).map_err(JobFailure::internal)?;
    foundation::files::write_atomic(
        &folders
            .public
            .join(format!("{}_words.json", file.trim_end_matches(".wav"))),
        &words_json,
    )
    .map_err(JobFailure::internal)
}

/// Inline media wins; scenes without it or a presenter get B-roll.
fn visuals(
    providers: &Providers,
    folders: &Folders,
    segments: &mut [Segment],
    drafts: &[SceneDraft],
) -> Result<(), JobFailure> {
    for (seg, draft) in segments.iter_mut().zip(drafts) {
        if let Some(media) = &draft.media {
            apply_inline(providers, folders, seg, media)?;
        }
    }
    let queries: Vec<SceneQuery<'_>> = segments
        .iter()
        .zip(drafts)
        .map(|(s, d)| SceneQuery {
            keyword: &s.keyword,
            text: &s.text,
            wanted: d.media.is_none() && d.presenter.is_none(),
        })
        .collect();
    let picks = broll::pick_for_scenes(providers.broll.as_ref(), &queries);
    for (seg, pick) in segments.iter_mut().zip(picks) {
        if let Some(pick) = pick {
            apply_pick(providers, folders, seg, pick)?;
        }
    }
    Ok(())
}

/// Overlays for the scene types that call for one.
fn design_overlays(
    settings: &Settings,
    folders: &Folders,
    segments: &mut [Segment],
    doc: &VideoDocument,
) -> Result<(), JobFailure> {
    let fonts = overlay_fonts(settings)?;
    for (index, seg) in segments.iter_mut().enumerate() {
        design_overlay(&fonts, folders, seg, index, doc)?;
    }
    Ok(())
}

fn overlay_fonts(settings: &Settings) -> Result<OverlayFonts, JobFailure> {
    OverlayFonts::load(&settings.assets_dir.join("fonts")).map_err(|e| {
        JobFailure::new(
            Code::SceneBuildFailed,
            "A font the overlays need is missing on this server.",
        )
        .because(e)
    })
}

/// The overlay of scene `index` (when its type calls for one) and how its background fits.
fn design_overlay(
    fonts: &OverlayFonts,
    folders: &Folders,
    seg: &mut Segment,
    index: usize,
    doc: &VideoDocument,
) -> Result<(), JobFailure> {
    let boxes = SceneBoxes {
        seg: &*seg,
        index,
        narrator_shown: seg.is_a_roll() && !doc.faceless,
    };
    let spec = SceneOverlay {
        voice_file: &seg.voice_file,
        scene_type: seg.scene_type,
        quote: &seg.quote,
        a_roll: boxes.narrator_shown,
        language: &doc.language,
        words: &seg.words,
        duration: seg.duration,
        band: placement::overlay_band(&boxes),
    };
    let written = overlays::build(fonts, &spec, &folders.public).map_err(JobFailure::internal)?;
    let rects: Vec<_> = written
        .iter()
        .flat_map(|w| w.spec.objects().map(|o| o.rect))
        .collect();
    let fit = placement::background_fit(&boxes, &rects);
    if let Some(w) = written {
        seg.remotion_spec = w.token;
    }
    seg.background_fit = fit;
    Ok(())
}

/// Fetches the scene's inline media and makes it the background.
fn apply_inline(
    providers: &Providers,
    folders: &Folders,
    seg: &mut Segment,
    media: &InlineMedia,
) -> Result<(), JobFailure> {
    let (file, kind) = fetch_inline(providers, &folders.dir, &seg.voice_file, media)?;
    folders.publish(&file).map_err(JobFailure::internal)?;
    seg.media_url = media.url.clone();
    seg.broll_source = Some(BrollSource::User);
    seg.visual = media
        .alt
        .clone()
        .unwrap_or_else(|| "The creator's own media".into());
    if seg.is_a_roll() {
        seg.user_asset_url = media.url.clone();
    }
    seg.broll_url = media.url.clone();
    seg.media_type = Some(kind);
    match kind {
        MediaKind::Video => {
            if let Ok(d) = compositor::media::probe_duration(&folders.dir.join(&file)) {
                seg.video_trim = Some(VideoTrim {
                    start: 0.0,
                    end: d.min(seg.duration.max(0.1)),
                });
            }
            seg.background = Background::Video { file };
        }
        MediaKind::Image => {
            seg.thumbnail_url = folders.url(&file);
            seg.broll_thumbnail_url = seg.thumbnail_url.clone();
            seg.background_subject = std::fs::read(folders.dir.join(&file))
                .ok()
                .and_then(|b| placement::subject_of_picture(&b, None));
            seg.background = Background::Image { file };
        }
    }
    Ok(())
}

/// Sets a scene's background from a B-roll pick: library and stock files are copied into the
/// video folder and published; procedural backgrounds are drawn at render time.
fn apply_pick(
    providers: &Providers,
    folders: &Folders,
    seg: &mut Segment,
    pick: Pick,
) -> Result<(), JobFailure> {
    let item = pick.item;
    if let Some((style, seed)) = &item.procedural {
        seg.background = Background::Procedural {
            style: style.clone(),
            seed: *seed,
        };
        seg.broll_source = Some(BrollSource::Procedural);
        seg.visual = item.title.clone();
        return Ok(());
    }
    let bytes = match providers.broll.download(&item) {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(error = %e, id = %item.id, "B-roll download failed; procedural background");
            seg.broll_source = Some(BrollSource::Procedural);
            seg.visual = "Procedural gradient background".into();
            return Ok(());
        }
    };
    let ext = match (item.kind, MediaKind::sniff(&bytes)) {
        (MediaKind::Video, _) => "mp4",
        (MediaKind::Image, Some((MediaKind::Image, ext))) => ext,
        (MediaKind::Image, _) => "jpg",
    };
    let file = format!("{}_broll.{ext}", seg.voice_file);
    foundation::files::write_atomic(&folders.dir.join(&file), &bytes)
        .map_err(JobFailure::internal)?;
    folders.publish(&file).map_err(JobFailure::internal)?;
    seg.media_url = folders.url(&file);
    seg.broll_url = seg.media_url.clone();
    seg.media_type = Some(item.kind);
    seg.visual = item.title.clone();
    seg.broll_source = Some(pick.provider);
    // Thumbnail: the image itself, or the clip's poster frame.
    let thumb_url = match (&item.local_thumb, item.kind) {
        (_, MediaKind::Image) => seg.media_url.clone(),
        (Some(local), MediaKind::Video) => {
            let tf = format!("{}_broll_thumb.jpg", seg.voice_file);
            match std::fs::read(local) {
                Ok(b) => {
                    foundation::files::write_atomic(&folders.public.join(&tf), &b)
                        .map_err(JobFailure::internal)?;
                    folders.url(&tf)
                }
                Err(_) => String::new(),
            }
        }
        (None, MediaKind::Video) => item.thumbnail_url.clone(),
    };
    seg.thumbnail_url = thumb_url.clone();
    seg.broll_thumbnail_url = thumb_url;
    seg.background = match item.kind {
        MediaKind::Video => {
            seg.video_trim = Some(VideoTrim {
                start: 0.0,
                end: if item.duration > 0.0 {
                    item.duration.min(seg.duration.max(0.1))
                } else {
                    seg.duration
                },
            });
            Background::Video { file }
        }
        MediaKind::Image => {
            seg.background_subject = placement::subject_of_picture(&bytes, item.focus);
            Background::Image { file }
        }
    };
    Ok(())
}

/// Fetches inline media through the guarded client, decodes it within limits and stores it as
/// `{stem}_media.{ext}`; returns the file and its kind (by its bytes; the URL's extension is
/// never trusted).
fn fetch_inline(
    providers: &Providers,
    dir: &Path,
    stem: &str,
    media: &InlineMedia,
) -> Result<(String, MediaKind), JobFailure> {
    let url = &media.url;
    let resp = providers
        .runtime
        .block_on(
            providers
                .fetcher
                .get(url, INLINE_MEDIA_MAX_BYTES, Duration::from_secs(60)),
        )
        .map_err(|e| {
            JobFailure::new(
                Code::MediaFetchFailed,
                format!("Could not fetch inline media {url}: {}.", e.public()),
            )
            .because(e)
        })?;
    // Decoded within limits before a scene points at it (`foundation::media_check`).
    let scratch = dir.join(format!("{stem}_media.part"));
    let checked =
        foundation::media_check::check_bytes(&resp.body, None, &scratch).map_err(|r| {
            JobFailure::new(
                Code::MediaDecodeFailed,
                format!("Inline media {url} was refused: {r}."),
            )
        })?;
    let file = format!("{stem}_media.{}", checked.ext);
    match checked.kind {
        MediaKind::Video => std::fs::rename(&scratch, dir.join(&file)),
        MediaKind::Image => foundation::files::write_atomic(&dir.join(&file), &resp.body),
    }
    .map_err(JobFailure::internal)?;
    Ok((file, checked.kind))
}

/// A stable seed from a keyword (FNV-1a: the same across runs and platforms).
pub(crate) fn seed_of(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::voice::VoiceError;

    fn doc(faceless: bool) -> VideoDocument {
        VideoDocument {
            topic_id: "wcScenes".into(),
            title: String::new(),
            language: "English".into(),
            faceless,
            script: String::new(),
            segments: Vec::new(),
            voice_id: "en-us".into(),
            public_key: "k".into(),
            source: "text".into(),
            writer: None,
            music: Default::default(),
        }
    }

    fn recorded() -> Narration {
        Narration {
            sample_rate: crate::build::voice::SAMPLE_RATE,
            samples: vec![0; 4800],
            words: Vec::new(),
        }
    }

    fn segments(drafts: &[SceneDraft], doc: &VideoDocument) -> Vec<Segment> {
        let inputs: Vec<SceneInput<'_>> = drafts
            .iter()
            .map(|d| SceneInput {
                text: &d.text,
                has_media: d.media.is_some(),
            })
            .collect();
        let dirs = direction::direct(&inputs, doc.faceless);
        drafts
            .iter()
            .zip(&dirs)
            .enumerate()
            .map(|(i, (d, dir))| new_segment(i, d, dir, doc))
            .collect()
    }

    #[test]
    fn every_source_is_directed_and_the_roll_follows_what_the_draft_brings() {
        let text = |t: &str| SceneDraft {
            text: t.into(),
            ..SceneDraft::default()
        };
        let texts = [
            "Why do teams never publish?",
            "Teams grow 3.5% faster.",
            "Follow us now.",
        ];
        // Text: direction's rhythm, a narrator the voice speaks for.
        let d = doc(false);
        let segs = segments(&texts.map(text), &d);
        assert_eq!(segs[0].roll, Roll::ARoll);
        assert_eq!(segs[0].narrator.name, "Narrator");
        assert_eq!(
            segs[1].scene_type,
            Some(foundation::document::SceneType::Stat)
        );
        // Audio: the same direction, every scene B-roll, no synthesised narrator.
        let audio = texts.map(|t| SceneDraft {
            narration: Some(recorded()),
            ..text(t)
        });
        let segs = segments(&audio, &d);
        assert!(segs.iter().all(|s| s.roll == Roll::BRoll));
        assert!(segs.iter().all(|s| s.narrator == NarratorInfo::default()));
        assert_eq!(
            segs[1].scene_type,
            Some(foundation::document::SceneType::Stat)
        );
        // Video: the presenter is every scene's full-frame A-roll with its own slice.
        let presenter = Presenter {
            file: "source.mp4".into(),
            trim: VideoTrim {
                start: 1.0,
                end: 2.5,
            },
            url: "https://x.example/v.mp4".into(),
        };
        let video = audio.clone().map(|d| SceneDraft {
            presenter: Some(presenter.clone()),
            ..d
        });
        let segs = segments(&video, &d);
        for s in &segs {
            assert_eq!(s.roll, Roll::ARoll);
            assert_eq!(s.narrator_rect, FULL_FRAME);
            assert_eq!(s.narrator_video.as_deref(), Some("source.mp4"));
            assert_eq!(
                s.video_trim,
                Some(VideoTrim {
                    start: 1.0,
                    end: 2.5
                })
            );
            assert_eq!(s.media_type, Some(MediaKind::Video));
        }
        assert_eq!(
            segs[0].scene_type,
            Some(foundation::document::SceneType::Hook)
        );
    }

    #[test]
    fn a_published_narration_has_its_wav_url_and_word_sidecar() {
        let tmp = tempfile::tempdir().unwrap();
        let folders = Folders {
            dir: tmp.path().join("videos/t"),
            public: tmp.path().join("public/specs/t-k"),
            base_url: "http://o/specs/t-k".into(),
        };
        std::fs::create_dir_all(&folders.dir).unwrap();
        std::fs::create_dir_all(&folders.public).unwrap();
        let mut seg = Segment {
            voice_file: "vabc".into(),
            ..Segment::default()
        };
        let mut n = recorded();
        n.words = vec![typography::TimedWord {
            word: "Hi.".into(),
            start: 0.0,
            end: 0.08,
        }];
        publish_narration(&folders, &mut seg, n, "vabc.wav").unwrap();
        assert!((seg.duration - 0.1).abs() < 1e-9);
        assert_eq!(seg.audio_url, "http://o/specs/t-k/vabc.wav");
        assert!(folders.public.join("vabc.wav").is_file());
        assert!(
            seg.narrator.audio_url.is_empty(),
            "no narrator to speak for"
        );
        let sidecar = std::fs::read(folders.public.join("vabc_words.json")).unwrap();
        let words: Vec<typography::TimedWord> = serde_json::from_slice(&sidecar).unwrap();
        assert_eq!(words, seg.words);
    }

    /// A voice that speaks every text as 0.1 s of silence (or fails, when `fails`) and counts
    /// the times its memory was given back.
    #[derive(Default)]
    struct Counting {
        fails: bool,
        released: std::sync::atomic::AtomicUsize,
    }

    impl VoiceProvider for Counting {
        fn synthesize(&self, _: &str, _: &str) -> Result<Narration, VoiceError> {
            if self.fails {
                return Err(VoiceError::Synthesis("the model is broken".into()));
            }
            Ok(recorded())
        }
        fn voices(&self) -> Vec<crate::build::voice::VoiceInfo> {
            Vec::new()
        }
        fn release(&self) {
            self.released
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn a_revoiced_scene_gives_the_voice_back_whether_it_spoke_or_failed() {
        let tmp = tempfile::tempdir().unwrap();
        let settings = foundation::config::Config {
            data_dir: tmp.path().to_owned(),
            ..foundation::config::Config::default()
        }
        .finish("127.0.0.1:1".parse().unwrap())
        .unwrap();
        let mut d = doc(false);
        d.segments = vec![Segment {
            voice_file: "vabc".into(),
            text: "Hello there.".into(),
            ..Segment::default()
        }];
        let folders = Folders::of(&settings, &d);
        std::fs::create_dir_all(&folders.dir).unwrap();
        std::fs::create_dir_all(&folders.public).unwrap();
        let released = |v: &Counting| v.released.load(std::sync::atomic::Ordering::SeqCst);

        let speaks = Counting::default();
        revoice(&settings, &speaks, &mut d, 0).unwrap();
        assert!((d.segments[0].duration - 0.1).abs() < 1e-9);
        assert_eq!(released(&speaks), 1);

        let fails = Counting {
            fails: true,
            ..Counting::default()
        };
        let before = serde_json::to_value(&d.segments).unwrap();
        let e = revoice(&settings, &fails, &mut d, 0).unwrap_err();
        assert_eq!(e.code, Code::SceneBuildFailed);
        assert_eq!(
            released(&fails),
            1,
            "a failed narration gives the voice back too"
        );
        assert_eq!(
            serde_json::to_value(&d.segments).unwrap(),
            before,
            "a failed narration changes nothing"
        );
    }

    #[test]
    fn name_narrator_names_only_scenes_with_a_narrator() {
        let mut d = doc(false);
        d.segments = vec![Segment::default(), Segment::default()];
        d.segments[0].narrator.name = NARRATOR_PLACEHOLDER.into();
        name_narrator(&mut d, " Lan Pham ");
        assert_eq!(d.segments[0].narrator.name, "Lan Pham");
        assert_eq!(d.segments[1].narrator.name, "", "no narrator, no name");
        name_narrator(&mut d, "");
        assert_eq!(
            d.segments[0].narrator.name, "Lan Pham",
            "an empty name changes nothing"
        );
    }
}
