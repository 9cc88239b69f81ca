//! `modify_scene`'s typed edits ([`super::parse`]) applied to a document in memory.
//!
//! Applying never touches the disk: it changes a clone of the document and, for C/D, the scene's
//! overlay spec in memory; the caller persists both only when every field applied, so a rejected
//! edit changes nothing.

use compositor::geom::CanvasRect;
use compositor::spec::{OverlaySpec, TemporalPolicy};
use serde_json::json;

use super::applied::{Applied, GroupRectApplied, ObjectRectApplied, RollSwitch};
use super::parse::{Edit, MIN_NARRATOR_SIDE, MediaKind, Meta, RollChange, bad};
use compositor::geom::PreviewRect;
use typography::TimedWord;
use video::build::VoiceProvider;

use foundation::document::{Background, Roll, SPEC_DISABLED, Segment, VideoDocument};
use foundation::document::{RectOut, spec_state};
use foundation::error::{Code, Error, Result};

/// A downloaded background, ready to attach (branch A). The file is already in the video's
/// folder under a fresh name; the caller deletes it when the edit is rejected.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedMedia {
    pub url: String,
    pub kind: MediaKind,
    pub file: String,
    /// A picture's subject, found when it was downloaded (`build::placement`).
    pub subject: Option<compositor::focus::Subject>,
}

/// What applying needs besides the document.
pub struct Inputs<'a> {
    /// Retimes words for branch K.
    pub voice: &'a dyn VoiceProvider,
    /// Branch A's downloaded file.
    pub media: Option<&'a PreparedMedia>,
    /// The target scene's overlay spec (loaded by the caller when an edit needs it).
    pub spec: Option<&'a mut OverlaySpec>,
}

/// Applies `edits` (one family) to scene `index`. Returns what they changed and whether the
/// spec changed. On error the caller drops the clone: nothing changed.
pub fn apply(
    inputs: Inputs<'_>,
    doc: &mut VideoDocument,
    index: usize,
    edits: &[Edit],
) -> Result<(Applied, bool)> {
    let voice_id = voice_id_of(doc);
    let language = doc.language.clone();
    for e in edits {
        if let Edit::Music(m) = e {
            doc.music = m.clone();
        }
    }
    let seg = doc
        .segments
        .get_mut(index)
        .ok_or_else(|| Error::internal("scene index out of range"))?;
    if edits.iter().any(Edit::needs_spec) && seg.overlay_disabled() {
        return Err(disabled());
    }
    let mut pass = Pass {
        inputs,
        voice_id,
        language,
        applied: Applied::default(),
        spec_changed: false,
        narrator: seg.narrator_rect,
        narrator_set: false,
    };
    for e in edits {
        pass.edit(seg, e)?;
    }
    if pass.narrator_set {
        let narrator = pass.narrator;
        check_narrator_rect(&narrator)?;
        seg.narrator_rect = narrator;
        seg.narrator_touched = true;
        pass.applied.narrator_rect = Some(narrator);
        pass.applied.narrator_touched = Some(true);
    }
    if edits.iter().any(|e| matches!(e, Edit::Text(_))) {
        doc.script = doc
            .segments
            .iter()
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
    }
    Ok((pass.applied, pass.spec_changed))
}

/// What the edits of one call share while they apply.
struct Pass<'a> {
    inputs: Inputs<'a>,
    voice_id: String,
    /// The video's language (`English`, `Vietnamese`).
    language: String,
    /// The `applied` object of the reply.
    applied: Applied,
    spec_changed: bool,
    /// Narrator sides (branch E) gather here and are checked together at the end.
    narrator: PreviewRect,
    narrator_set: bool,
}

impl Pass<'_> {
    fn edit(&mut self, seg: &mut Segment, e: &Edit) -> Result<()> {
        let applied = &mut self.applied;
        match e {
            Edit::Background { .. } => {
                let m = self
                    .inputs
                    .media
                    .ok_or_else(|| Error::internal("background not prepared"))?;
                apply_background(seg, m);
                applied.media_url = Some(m.url.clone());
                applied.media_type = Some(m.kind);
                applied.lane = Some(seg.roll);
            }
            Edit::ObjectRect { .. } | Edit::GroupRect { .. } => self.spec_edit(e)?,
            Edit::NarratorRect(p) => {
                let n = &mut self.narrator;
                n.x = p.x.unwrap_or(n.x);
                n.y = p.y.unwrap_or(n.y);
                n.w = p.w.unwrap_or(n.w);
                n.h = p.h.unwrap_or(n.h);
                self.narrator_set = true;
            }
            Edit::CaptionY(y) => {
                let max = 498.0 - seg.caption_rect.h;
                if !(0.0..=max).contains(y) {
                    return Err(bad(
                        "fields",
                        format!("`overlay.caption.y` must be from 0 to {max} (preview px)."),
                    ));
                }
                seg.caption_rect.y = *y;
                applied.caption_y = Some(*y);
            }
            Edit::Roll(change) => {
                let to = match change {
                    RollChange::Set(r) => *r,
                    RollChange::Toggle if seg.is_a_roll() => Roll::BRoll,
                    RollChange::Toggle => Roll::ARoll,
                };
                let from = std::mem::replace(&mut seg.roll, to);
                applied.roll = Some(RollSwitch { from, to });
            }
            Edit::Text(t) => {
                let voice = text_voice(self.inputs.voice, t, &self.voice_id, &self.language);
                seg.words = retime(self.inputs.voice, t, &voice, seg.duration);
                seg.text = t.clone();
                applied.text = Some(t.clone());
                applied.duration = Some(seg.duration);
                applied.word_count = Some(seg.words.len());
            }
            Edit::Meta(m) => apply_meta(seg, m, applied),
            // Set on the document by `apply`: it is the whole video's.
            Edit::Music(m) => applied.music = Some(String::from(m.clone())),
            Edit::DisableOverlay => {
                seg.remotion_spec = SPEC_DISABLED.to_string();
                applied.remotion_spec = Some(SPEC_DISABLED);
                applied.remotion_spec_state = Some(spec_state(SPEC_DISABLED, true));
            }
            Edit::VoiceUpload { .. } | Edit::NarratorVideo { .. } | Edit::Overlay { .. } => {
                return Err(Error::internal(
                    "asynchronous or overlay edit applied inline",
                ));
            }
        }
        Ok(())
    }

    /// Branches C and D: the scene's overlay spec in memory.
    fn spec_edit(&mut self, e: &Edit) -> Result<()> {
        let s = self.inputs.spec.as_deref_mut().ok_or_else(no_spec)?;
        match e {
            Edit::ObjectRect { layout_id, rect } => {
                let moved = move_object(s, layout_id, *rect)?;
                self.applied.object_rects.push(ObjectRectApplied {
                    layout_id: layout_id.clone(),
                    rect_canvas: RectOut::from(*rect),
                    rect: RectOut::from(rect.to_preview()),
                    moved_objects: moved,
                });
            }
            Edit::GroupRect {
                id,
                rect,
                scale_children,
                wrapper_only,
            } => {
                let children = if *wrapper_only {
                    Children::Keep
                } else if *scale_children {
                    Children::Scale
                } else {
                    Children::Translate
                };
                move_group(s, id, *rect, children)?;
                self.applied.group_rects.push(GroupRectApplied {
                    id: id.clone(),
                    rect_canvas: RectOut::from(*rect),
                    rect: RectOut::from(rect.to_preview()),
                    scale_children: *scale_children,
                    wrapper_only: *wrapper_only,
                });
            }
            _ => return Err(Error::internal("not an overlay geometry edit")),
        }
        self.spec_changed = true;
        Ok(())
    }
}

pub fn disabled() -> Error {
    Error::new(
        Code::RemotionSpecDisabled,
        "This scene's overlay is disabled (`none`); upload an overlay before changing its layout.",
    )
    .param("fields")
}

fn no_spec() -> Error {
    Error::new(
        Code::OverlayNotAvailable,
        "This scene has no overlay spec yet, so it has no objects or groups to move.",
    )
    .param("fields")
}

/// The voice the document was narrated with.
/// The voice whose timings new scene text is laid out with: the video's, unless the text is
/// clearly in the other language ([`foundation::language::clearly`]), which takes that
/// language's voice (as scene building voices a mixed script).
fn text_voice(voice: &dyn VoiceProvider, text: &str, voice_id: &str, language: &str) -> String {
    match foundation::language::clearly(text) {
        Some(l) if l.name() != language => voice.pick_voice("", l.name()),
        _ => voice_id.to_string(),
    }
}

pub(crate) fn voice_id_of(doc: &VideoDocument) -> String {
    if !doc.voice_id.is_empty() {
        doc.voice_id.clone()
    } else if doc.language.eq_ignore_ascii_case("vietnamese") {
        "vi".into()
    } else {
        "en-us".into()
    }
}

/// The narrator rect must keep a usable size and at least 10×10 preview px on screen.
pub(crate) fn check_narrator_rect(r: &PreviewRect) -> Result<()> {
    let ok = [r.x, r.y, r.w, r.h].iter().all(|v| v.is_finite())
        && r.w >= MIN_NARRATOR_SIDE
        && r.h >= MIN_NARRATOR_SIDE
        && r.w <= 2.0 * 280.0
        && r.h <= 2.0 * 498.0
        && r.x <= 280.0 - MIN_NARRATOR_SIDE
        && r.y <= 498.0 - MIN_NARRATOR_SIDE
        && r.x + r.w >= MIN_NARRATOR_SIDE
        && r.y + r.h >= MIN_NARRATOR_SIDE;
    if ok {
        Ok(())
    } else {
        Err(bad(
            "fields",
            "The narrator rect (280×498 preview) needs sides of at least 10 px, at most twice the preview, and 10×10 px on screen.",
        ))
    }
}

fn apply_background(seg: &mut Segment, m: &PreparedMedia) {
    let bg = match m.kind {
        MediaKind::Image => Background::Image {
            file: m.file.clone(),
        },
        MediaKind::Video => Background::Video {
            file: m.file.clone(),
        },
    };
    // The B-roll lane (background) always takes the asset, so a later roll switch shows it.
    seg.background = bg;
    // The new picture covers the frame; scene_geometry reports where its subject meets the
    // overlay, the captions or the narrator.
    seg.background_subject = m.subject;
    seg.background_fit = compositor::focus::BackgroundFit::Cover;
    seg.broll_url = m.url.clone();
    seg.broll_thumbnail_url = m.url.clone();
    seg.video_trim = None;
    if seg.is_a_roll() {
        // The narrator stays on screen; the asset sits beside it.
        seg.user_asset_url = m.url.clone();
    } else {
        seg.media_url = m.url.clone();
        seg.media_type = Some(m.kind);
        seg.thumbnail_url = m.url.clone();
    }
}

fn apply_meta(seg: &mut Segment, m: &Meta, applied: &mut Applied) {
    match m {
        Meta::SceneType(t) => {
            seg.scene_type = Some(*t);
            applied.scene_type = Some(*t);
        }
        Meta::Pattern(p) => {
            seg.pattern = p.to_string();
            applied.pattern = Some(p);
        }
        Meta::Quote(q) => {
            seg.quote = q.clone();
            applied.quote = Some(q.clone());
        }
        Meta::Visual(v) => {
            seg.visual = v.clone();
            applied.visual = Some(v.clone());
        }
        Meta::Keyword(k) => {
            seg.keyword = k.clone();
            applied.keyword = Some(k.clone());
        }
        Meta::TalkingPoint(t) => {
            seg.talking_point = t.clone();
            applied.talking_point = Some(t.clone());
        }
        Meta::TypographyOnly(on) => {
            seg.typography_only = *on;
            if *on {
                seg.visual.clear();
                applied.visual = Some(String::new());
            }
            applied.typography_only = Some(*on);
        }
    }
}

/// Word timings for `text` over audio of `duration` seconds (branches K and H).
///
/// The text is synthesised with the document's voice only to learn each word's relative timing;
/// those timings are scaled linearly so the last word ends where the narration's audio ends
/// (`duration`); the audio itself is not replaced. When synthesis fails, words are spread over
/// the duration in proportion to their length (plus one character for the gap).
pub(crate) fn retime(
    voice: &dyn VoiceProvider,
    text: &str,
    voice_id: &str,
    duration: f64,
) -> Vec<TimedWord> {
    let duration = duration.max(0.0);
    if let Ok(n) = voice.synthesize(text, voice_id)
        && n.duration() > 0.0
        && !n.words.is_empty()
    {
        let k = duration / n.duration();
        return n
            .words
            .iter()
            .map(|w| TimedWord {
                word: w.word.clone(),
                start: (w.start * k).min(duration),
                end: (w.end * k).min(duration),
            })
            .collect();
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let total: usize = words.iter().map(|w| w.chars().count() + 1).sum();
    let mut t = 0.0;
    words
        .iter()
        .map(|w| {
            let len = duration * (w.chars().count() + 1) as f64 / total.max(1) as f64;
            let word = TimedWord {
                word: w.to_string(),
                start: t,
                end: (t + len * 0.9).min(duration),
            };
            t += len;
            word
        })
        .collect()
}

/// Suffix of a logical id that addresses every timed object of a group at once.
pub(crate) const ONE_BY_ONE_SUFFIX: &str = ".one_by_one";

fn bbox(rects: impl Iterator<Item = CanvasRect>) -> Option<CanvasRect> {
    rects.fold(None, |acc: Option<CanvasRect>, r| {
        Some(match acc {
            None => r,
            Some(a) => {
                let x0 = a.x.min(r.x);
                let y0 = a.y.min(r.y);
                let x1 = (a.x + a.w).max(r.x + r.w);
                let y1 = (a.y + a.h).max(r.y + r.h);
                CanvasRect::new(x0, y0, x1 - x0, y1 - y0)
            }
        })
    })
}

/// The bounding rect of a group's objects (canvas).
pub(crate) fn objects_bbox(group: &compositor::spec::SpecGroup) -> Option<CanvasRect> {
    bbox(group.objects.iter().map(|o| o.rect))
}

/// Maps `r` from frame `from` to frame `to` (translate, and scale when `scale`).
fn remap(r: CanvasRect, from: CanvasRect, to: CanvasRect, scale: bool) -> CanvasRect {
    let (sx, sy) = if scale {
        (to.w / from.w, to.h / from.h)
    } else {
        (1.0, 1.0)
    };
    CanvasRect::new(
        to.x + (r.x - from.x) * sx,
        to.y + (r.y - from.y) * sy,
        r.w * sx,
        r.h * sy,
    )
}

/// Branch C. An object id sets that object's rect. A logical `{group}.one_by_one` id moves the
/// group's timed items together: `rect` is their new bounding box, each item keeps its place
/// and size relative to it (and the group frame follows). Returns the moved layout ids.
pub(crate) fn move_object(
    spec: &mut OverlaySpec,
    layout_id: &str,
    rect: CanvasRect,
) -> Result<Vec<String>> {
    if let Some(o) = spec.object_mut(layout_id) {
        o.rect = rect;
        return Ok(vec![layout_id.to_string()]);
    }
    if let Some(gid) = layout_id.strip_suffix(ONE_BY_ONE_SUFFIX)
        && let Some(g) = spec
            .groups
            .iter_mut()
            .find(|g| g.id == gid && !g.objects.is_empty())
    {
        let from = objects_bbox(g).expect("group has objects");
        if from.w <= 0.0 || from.h <= 0.0 {
            return Err(bad("fields", "The group's items have no area to scale."));
        }
        for o in &mut g.objects {
            o.rect = remap(o.rect, from, rect, true);
        }
        g.rect = remap(g.rect, from, rect, true);
        return Ok(g.objects.iter().map(|o| o.layout_id.clone()).collect());
    }
    Err(bad(
        "fields",
        format!(
            "No object `{layout_id}` in this scene's overlay (see scene_geometry's object_layer)."
        ),
    )
    .details(json!({ "layout_ids": object_layer_ids(spec) })))
}

/// The ids `remotion.object.rect` accepts: one logical id per one-by-one group, every other
/// object by its own id.
pub(crate) fn object_layer_ids(spec: &OverlaySpec) -> Vec<String> {
    let mut out = Vec::new();
    for g in &spec.groups {
        if g.temporal_policy == TemporalPolicy::OneByOne && g.objects.len() > 1 {
            out.push(format!("{}{ONE_BY_ONE_SUFFIX}", g.id));
        } else {
            out.extend(g.objects.iter().map(|o| o.layout_id.clone()));
        }
    }
    out
}

/// What a group's children do when its frame changes (branch D).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Children {
    /// Move and scale with the frame (`scale_children`, the default).
    Scale,
    /// Move with the frame, keep their size (`scale_children: false`).
    Translate,
    /// Stay exactly where they are (`wrapper_only`, advanced).
    Keep,
}

/// Branch D. Sets the group frame (not clamped: negative y is allowed) and moves its children
/// as `children` says.
pub(crate) fn move_group(
    spec: &mut OverlaySpec,
    id: &str,
    rect: CanvasRect,
    children: Children,
) -> Result<()> {
    let Some(g) = spec.groups.iter_mut().find(|g| g.id == id) else {
        let ids: Vec<&str> = spec.groups.iter().map(|g| g.id.as_str()).collect();
        return Err(bad(
            "fields",
            format!("No group `{id}` in this scene's overlay."),
        )
        .details(json!({ "group_ids": ids })));
    };
    let from = g.rect;
    g.rect = rect;
    let scale = match children {
        Children::Keep => return Ok(()),
        Children::Scale => from.w > 0.0 && from.h > 0.0,
        Children::Translate => false,
    };
    for o in &mut g.objects {
        o.rect = remap(o.rect, from, rect, scale);
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::edit::scenes::fields;
    use compositor::plan::Animation;
    use compositor::spec::{ObjectKind, SpecGroup, SpecObject, SpecPayload, SpecSource};
    use foundation::document::{CAPTION_RECT, NARRATOR_RECT};
    use foundation::document::{MediaKind, Music, SceneType};
    use serde_json::Value;
    use video::build::{Narration, VoiceError, VoiceInfo};

    /// Half a second per word, so timings are easy to predict.
    pub(crate) struct FakeVoice;

    impl VoiceProvider for FakeVoice {
        fn synthesize(&self, text: &str, _voice: &str) -> Result<Narration, VoiceError> {
            let words: Vec<TimedWord> = text
                .split_whitespace()
                .enumerate()
                .map(|(i, w)| TimedWord {
                    word: w.into(),
                    start: i as f64 * 0.5,
                    end: i as f64 * 0.5 + 0.4,
                })
                .collect();
            Ok(Narration {
                sample_rate: 48_000,
                samples: vec![0; words.len() * 24_000],
                words,
            })
        }
        fn voices(&self) -> Vec<VoiceInfo> {
            Vec::new()
        }
    }

    pub(crate) fn doc() -> VideoDocument {
        let seg = |i: u32, roll: Roll| Segment {
            voice_file: format!("v{i}"),
            id: i,
            roll,
            text: "one two three four".into(),
            visual: "a city at night".into(),
            duration: 4.0,
            caption_rect: CAPTION_RECT,
            narrator_rect: NARRATOR_RECT,
            remotion_spec: "1".into(),
            ..Default::default()
        };
        let mut d =
            crate::edit::scenes::test_doc("wcDoc", vec![seg(1, Roll::ARoll), seg(2, Roll::BRoll)]);
        d.voice_id = "en-us".into();
        d.public_key = "k".into();
        d
    }

    fn object(id: &str, rect: CanvasRect) -> SpecObject {
        SpecObject {
            layout_id: id.into(),
            kind: ObjectKind::Text,
            text: Some("HI".into()),
            rect,
            z: 0,
            animation: Animation::Fade,
            start: 0.0,
            end: None,
            payload: SpecPayload::Svg {
                file: format!("{id}.svg"),
            },
        }
    }

    pub(crate) fn spec() -> OverlaySpec {
        let mut s = OverlaySpec::new(SpecSource::Generated);
        s.groups.push(SpecGroup {
            id: "g1".into(),
            rect: CanvasRect::new(100.0, 200.0, 400.0, 400.0),
            temporal_policy: TemporalPolicy::Scene,
            objects: vec![object("title", CanvasRect::new(100.0, 200.0, 200.0, 100.0))],
        });
        s.groups.push(SpecGroup {
            id: "list".into(),
            rect: CanvasRect::new(60.0, 700.0, 600.0, 300.0),
            temporal_policy: TemporalPolicy::OneByOne,
            objects: vec![
                object("i1", CanvasRect::new(60.0, 700.0, 600.0, 100.0)),
                object("i2", CanvasRect::new(60.0, 900.0, 600.0, 100.0)),
            ],
        });
        s
    }

    fn parse1(name: &str, value: Value) -> Result<Vec<Edit>> {
        fields::read(&json!([{ "field_name": name, "value": value }])).map(|f| f.edits)
    }

    fn run(
        doc: &mut VideoDocument,
        index: usize,
        edits: &[Edit],
        spec: Option<&mut OverlaySpec>,
    ) -> Result<(Value, bool)> {
        apply(
            Inputs {
                voice: &FakeVoice,
                media: None,
                spec,
            },
            doc,
            index,
            edits,
        )
        .map(|(a, changed)| (serde_json::to_value(a).expect("serialises"), changed))
    }

    #[test]
    fn background_swap_follows_the_lane() {
        let m = PreparedMedia {
            url: "https://x.example/a.png".into(),
            kind: MediaKind::Image,
            file: "media_1.png".into(),
            subject: None,
        };
        let e = [Edit::Background {
            url: m.url.clone(),
            kind: None,
        }];
        let mut d = doc();
        // B-roll: the asset is the background and every synced field.
        let inputs = |m| Inputs {
            voice: &FakeVoice,
            media: Some(m),
            spec: None,
        };
        apply(inputs(&m), &mut d, 1, &e).unwrap();
        let s = &d.segments[1];
        assert_eq!(
            s.background,
            Background::Image {
                file: "media_1.png".into()
            }
        );
        for u in [
            &s.media_url,
            &s.thumbnail_url,
            &s.broll_url,
            &s.broll_thumbnail_url,
        ] {
            assert_eq!(u, &m.url);
        }
        assert_eq!(s.media_type, Some(MediaKind::Image));
        // A-roll: the narrator stays; the asset becomes brollUrl and user_asset_url.
        let before = d.segments[0].clone();
        apply(inputs(&m), &mut d, 0, &e).unwrap();
        let s = &d.segments[0];
        assert_eq!(s.roll, Roll::ARoll);
        assert_eq!(s.narrator_rect, before.narrator_rect);
        assert_eq!(s.media_url, before.media_url);
        assert_eq!(s.broll_url, m.url);
        assert_eq!(s.user_asset_url, m.url);
    }

    #[test]
    fn object_rects_convert_and_one_by_one_moves_all_items() {
        let mut d = doc();
        let mut s = spec();
        // Preview → canvas through geom: (28, 49.8) preview is (72, 128) canvas.
        let e = parse1(
            "remotion.object.rect",
            json!({"layout_id": "title", "x": 28, "y": 49.8, "w": 140, "h": 99.6}),
        )
        .unwrap();
        let (applied, changed) = run(&mut d, 0, &e, Some(&mut s)).unwrap();
        assert!(changed);
        let r = s.groups[0].objects[0].rect;
        assert!(
            (r.x - 72.0).abs() < 1e-9
                && (r.y - 128.0).abs() < 1e-9
                && (r.w - 360.0).abs() < 1e-9
                && (r.h - 256.0).abs() < 1e-9,
            "{r:?}"
        );
        assert_eq!(applied["remotion.object.rect"][0]["rect"]["x"], json!(28.0));
        // The logical id moves both items: bbox (60,700,600,300) → (0,100,300,150).
        let e = parse1("remotion.object.rect", json!({"layout_id": "list.one_by_one", "x": 0, "y": 100, "w": 300, "h": 150, "coordinate_space": "canvas"})).unwrap();
        run(&mut d, 0, &e, Some(&mut s)).unwrap();
        let items: Vec<CanvasRect> = s.groups[1].objects.iter().map(|o| o.rect).collect();
        assert_eq!(
            items,
            vec![
                CanvasRect::new(0.0, 100.0, 300.0, 50.0),
                CanvasRect::new(0.0, 200.0, 300.0, 50.0)
            ]
        );
        // Unknown id: named, nothing changed.
        let before = s.clone();
        let e = parse1(
            "remotion.object.rect",
            json!({"layout_id": "nope", "x": 0, "y": 0, "w": 5, "h": 5}),
        )
        .unwrap();
        let err = run(&mut d, 0, &e, Some(&mut s)).unwrap_err();
        assert_eq!(err.code, Code::InvalidValue);
        assert_eq!(s, before);
        // No spec at all → overlay_not_available.
        assert_eq!(
            run(&mut d, 0, &e, None).unwrap_err().code,
            Code::OverlayNotAvailable
        );
    }

    #[test]
    fn group_rects_scale_translate_or_keep_children() {
        let g = |s: &OverlaySpec| (s.groups[0].rect, s.groups[0].objects[0].rect);
        // Scale (default): frame (100,200,400,400) → (0,-40,800,200); child (100,200,200,100).
        let mut s = spec();
        let e = parse1(
            "remotion.group.rect",
            json!({"id": "g1", "x": 0, "y": -40, "w": 800, "h": 200}),
        )
        .unwrap();
        run(&mut doc(), 0, &e, Some(&mut s)).unwrap();
        assert_eq!(
            g(&s),
            (
                CanvasRect::new(0.0, -40.0, 800.0, 200.0),
                CanvasRect::new(0.0, -40.0, 400.0, 50.0)
            )
        );
        // Translate only.
        let mut s = spec();
        let e = parse1(
            "remotion.group.rect",
            json!({"id": "g1", "x": 110, "y": 190, "w": 50, "h": 50, "scale_children": false}),
        )
        .unwrap();
        run(&mut doc(), 0, &e, Some(&mut s)).unwrap();
        assert_eq!(g(&s).1, CanvasRect::new(110.0, 190.0, 200.0, 100.0));
        // Wrapper only.
        let mut s = spec();
        let e = parse1(
            "remotion.group.rect",
            json!({"id": "g1", "x": 0, "y": 0, "w": 720, "h": 1280, "wrapper_only": true}),
        )
        .unwrap();
        run(&mut doc(), 0, &e, Some(&mut s)).unwrap();
        assert_eq!(
            g(&s),
            (
                CanvasRect::new(0.0, 0.0, 720.0, 1280.0),
                CanvasRect::new(100.0, 200.0, 200.0, 100.0)
            )
        );
        let e = parse1(
            "remotion.group.rect",
            json!({"id": "zz", "x": 0, "y": 0, "w": 1, "h": 1}),
        )
        .unwrap();
        assert_eq!(
            run(&mut doc(), 0, &e, Some(&mut spec())).unwrap_err().code,
            Code::InvalidValue
        );
    }

    #[test]
    fn layout_edits_on_a_disabled_overlay_are_refused() {
        let mut d = doc();
        d.segments[0].remotion_spec = SPEC_DISABLED.into();
        let e = parse1(
            "remotion.object.rect",
            json!({"layout_id": "title", "x": 0, "y": 0, "w": 5, "h": 5}),
        )
        .unwrap();
        assert_eq!(
            run(&mut d, 0, &e, Some(&mut spec())).unwrap_err().code,
            Code::RemotionSpecDisabled
        );
        // Narrator and caption are not part of the overlay.
        let e = parse1("overlay.caption.y", json!(200)).unwrap();
        assert!(run(&mut d, 0, &e, None).is_ok());
    }

    #[test]
    fn narrator_and_caption_layout() {
        let mut d = doc();
        let e = parse1("overlay.narrator.x", json!(20)).unwrap();
        run(&mut d, 0, &e, None).unwrap();
        let s = &d.segments[0];
        assert_eq!(
            s.narrator_rect,
            PreviewRect::new(20.0, NARRATOR_RECT.y, NARRATOR_RECT.w, NARRATOR_RECT.h)
        );
        assert!(s.narrator_touched);
        for (v, ok) in [
            (json!({"x": 0, "y": 0, "w": 280, "h": 498}), true),
            (json!({"x": 275, "y": 0, "w": 100, "h": 100}), false),
            (json!({"x": 0, "y": 0, "w": 5, "h": 100}), false),
        ] {
            let mut d = doc();
            let e = parse1("overlay.narrator.rect", v.clone()).unwrap();
            let r = run(&mut d, 0, &e, None);
            assert_eq!(r.is_ok(), ok, "{v}");
            if !ok {
                assert!(
                    !d.segments[0].narrator_touched && d.segments[0].narrator_rect == NARRATOR_RECT
                );
            }
        }
        for (y, ok) in [(0.0, true), (438.0, true), (438.5, false), (-1.0, false)] {
            let mut d = doc();
            let r = run(&mut d, 0, &[Edit::CaptionY(y)], None);
            assert_eq!(r.is_ok(), ok, "{y}");
            assert_eq!(
                d.segments[0].caption_rect.y,
                if ok { y } else { CAPTION_RECT.y }
            );
            assert_eq!(
                d.segments[0].caption_rect.h, CAPTION_RECT.h,
                "only y changes"
            );
        }
    }

    #[test]
    fn roll_switch_keeps_both_lanes() {
        let mut d = doc();
        d.segments[0].broll_url = "https://x.example/b.png".into();
        let before = d.segments[0].clone();
        run(&mut d, 0, &[Edit::Roll(RollChange::Toggle)], None).unwrap();
        assert_eq!(d.segments[0].roll, Roll::BRoll);
        run(&mut d, 0, &[Edit::Roll(RollChange::Set(Roll::ARoll))], None).unwrap();
        let s = &d.segments[0];
        assert_eq!(
            (
                s.roll.as_str(),
                &s.background,
                &s.broll_url,
                s.narrator_rect
            ),
            (
                "A-roll",
                &before.background,
                &before.broll_url,
                before.narrator_rect
            )
        );
    }

    #[test]
    fn text_edit_retimes_words_over_the_same_duration() {
        let mut d = doc();
        run(
            &mut d,
            0,
            &[Edit::Text("alpha beta gamma delta epsilon".into())],
            None,
        )
        .unwrap();
        let s = &d.segments[0];
        assert_eq!(s.duration, 4.0, "duration unchanged");
        assert_eq!(s.words.len(), 5);
        assert_eq!(s.words[4].word, "epsilon");
        // Fake voice: 2.5 s of speech scaled to 4 s; word 4 starts at 2.0 · 1.6 = 3.2.
        assert!((s.words[4].start - 3.2).abs() < 1e-9, "{:?}", s.words[4]);
        assert!(s.words.iter().all(|w| w.end <= 4.0));
        assert!(d.script.starts_with("alpha beta"));
        // The fallback without a voice spreads words over the duration.
        struct Mute;
        impl VoiceProvider for Mute {
            fn synthesize(&self, _: &str, v: &str) -> Result<Narration, VoiceError> {
                Err(VoiceError::UnknownVoice(v.into()))
            }
            fn voices(&self) -> Vec<VoiceInfo> {
                Vec::new()
            }
        }
        let w = retime(&Mute, "aa bb", "x", 2.0);
        assert_eq!(w.len(), 2);
        assert!((w[1].start - 1.0).abs() < 1e-9 && w[1].end <= 2.0);
    }

    #[test]
    fn new_text_clearly_in_the_other_language_is_timed_with_that_languages_voice() {
        struct Two;
        impl VoiceProvider for Two {
            fn synthesize(&self, _: &str, v: &str) -> Result<Narration, VoiceError> {
                Err(VoiceError::UnknownVoice(v.into()))
            }
            fn voices(&self) -> Vec<VoiceInfo> {
                [("en-us", "en"), ("vi", "vi")]
                    .map(|(id, language)| VoiceInfo {
                        id: id.into(),
                        language: language.into(),
                        name: id.into(),
                    })
                    .to_vec()
            }
        }
        let vi = "Người Việt bắt đầu ngày mới bằng một ly cà phê sữa đá.";
        assert_eq!(text_voice(&Two, vi, "en-us", "English"), "vi");
        assert_eq!(text_voice(&Two, vi, "vi", "Vietnamese"), "vi");
        let en = "Most people start the day with a strong cup of coffee.";
        assert_eq!(text_voice(&Two, en, "en-us", "English"), "en-us");
        assert_eq!(text_voice(&Two, en, "vi", "Vietnamese"), "en-us");
        assert_eq!(
            text_voice(&Two, "Cà phê.", "en-us", "English"),
            "en-us",
            "too short"
        );
    }

    #[test]
    fn metadata_edits() {
        let mut d = doc();
        let edits = [
            Edit::Meta(Meta::SceneType(SceneType::Stat)),
            Edit::Meta(Meta::Pattern("list")),
            Edit::Meta(Meta::TypographyOnly(true)),
        ];
        let (applied, _) = run(&mut d, 1, &edits, None).unwrap();
        let s = &d.segments[1];
        assert_eq!(
            (
                s.scene_type,
                s.pattern.as_str(),
                s.visual.as_str(),
                s.typography_only
            ),
            (Some(SceneType::Stat), "list", "", true)
        );
        assert_eq!(applied["visual"], "");
    }

    #[test]
    fn music_is_set_on_the_whole_video() {
        let mut d = doc();
        let music = Music::Track("calm-tide".into());
        let applied = applied_json(&mut d, 1, &[Edit::Music(music.clone())]);
        assert_eq!(d.music, music);
        assert_eq!(applied["video.music"], "calm-tide");
        applied_json(&mut d, 0, &[Edit::Music(Music::Off)]);
        assert_eq!(d.music, Music::Off);
    }

    #[test]
    fn disabling_keeps_files_and_blocks_layout() {
        let mut d = doc();
        run(&mut d, 0, &[Edit::DisableOverlay], None).unwrap();
        assert_eq!(d.segments[0].remotion_spec, SPEC_DISABLED);
        assert!(d.segments[0].overlay_disabled());
    }

    /// The wire JSON of `applied` per family, written out as the reply has always carried it.
    fn applied_json(d: &mut VideoDocument, index: usize, edits: &[Edit]) -> Value {
        let mut s = spec();
        run(d, index, edits, Some(&mut s)).unwrap().0
    }

    #[test]
    fn background_applied_json() {
        let m = PreparedMedia {
            url: "https://x.example/a.png".into(),
            kind: MediaKind::Image,
            file: "media_1.png".into(),
            subject: None,
        };
        let e = [Edit::Background {
            url: m.url.clone(),
            kind: None,
        }];
        let inputs = Inputs {
            voice: &FakeVoice,
            media: Some(&m),
            spec: None,
        };
        let (a, _) = apply(inputs, &mut doc(), 1, &e).unwrap();
        assert_eq!(
            serde_json::to_value(a).unwrap(),
            json!({ "mediaUrl": "https://x.example/a.png", "mediaType": "image", "lane": "B-roll" })
        );
    }

    #[test]
    fn layout_applied_json() {
        let mut edits = Vec::new();
        for (name, value) in [
            (
                "remotion.object.rect",
                json!({"layout_id": "title", "x": 28, "y": 49.8, "w": 140, "h": 99.6}),
            ),
            (
                "remotion.object.rect",
                json!({"layout_id": "list.one_by_one", "x": 0, "y": 100, "w": 300, "h": 150, "coordinate_space": "canvas"}),
            ),
            (
                "remotion.group.rect",
                json!({"id": "g1", "x": 0, "y": -40, "w": 800, "h": 200, "wrapper_only": true}),
            ),
            ("overlay.narrator.x", json!(20)),
            ("overlay.caption.y", json!(200)),
        ] {
            edits.extend(parse1(name, value).unwrap());
        }
        assert_eq!(
            applied_json(&mut doc(), 0, &edits),
            json!({
                "remotion.object.rect": [
                    {
                        "layout_id": "title",
                        "rect_canvas": { "x": 72.0, "y": 128.0, "w": 360.0, "h": 256.0 },
                        "rect": { "x": 28.0, "y": 49.8, "w": 140.0, "h": 99.6 },
                        "moved_objects": ["title"],
                    },
                    {
                        "layout_id": "list.one_by_one",
                        "rect_canvas": { "x": 0.0, "y": 100.0, "w": 300.0, "h": 150.0 },
                        "rect": { "x": 0.0, "y": 38.906, "w": 116.667, "h": 58.359 },
                        "moved_objects": ["i1", "i2"],
                    },
                ],
                "remotion.group.rect": [{
                    "id": "g1",
                    "rect_canvas": { "x": 0.0, "y": -40.0, "w": 800.0, "h": 200.0 },
                    "rect": { "x": 0.0, "y": -15.563, "w": 311.111, "h": 77.813 },
                    "scale_children": true,
                    "wrapper_only": true,
                }],
                "overlay.narrator.rect": { "x": 20.0, "y": 90.0, "w": 140.0, "h": 140.0 },
                "overlay.narrator.touched": true,
                "overlay.caption.y": 200.0,
            })
        );
    }

    #[test]
    fn roll_text_and_disable_applied_json() {
        let mut d = doc();
        assert_eq!(
            applied_json(&mut d, 0, &[Edit::Roll(RollChange::Toggle)]),
            json!({ "roll": { "from": "A-roll", "to": "B-roll" } })
        );
        assert_eq!(
            applied_json(&mut d, 0, &[Edit::Text("alpha beta".into())]),
            json!({ "segment.text": "alpha beta", "duration": 4.0, "word_count": 2 })
        );
        assert_eq!(
            applied_json(&mut d, 1, &[Edit::DisableOverlay]),
            json!({ "remotion_spec": "none", "remotion_spec_state": "disabled" })
        );
    }

    #[test]
    fn metadata_applied_json() {
        let edits = [
            Edit::Meta(Meta::SceneType(SceneType::KeyPoint)),
            Edit::Meta(Meta::Pattern("list")),
            Edit::Meta(Meta::Quote("q".into())),
            Edit::Meta(Meta::Visual("v".into())),
            Edit::Meta(Meta::Keyword("k".into())),
            Edit::Meta(Meta::TalkingPoint("tp".into())),
            Edit::Meta(Meta::TypographyOnly(true)),
        ];
        assert_eq!(
            applied_json(&mut doc(), 1, &edits),
            json!({
                "type": "KEY POINT",
                "pattern": "list",
                "quote": "q",
                "visual": "",
                "keyword": "k",
                "talking_point": "tp",
                "typography_only": true,
            })
        );
        assert_eq!(
            applied_json(&mut doc(), 1, &[Edit::Meta(Meta::TypographyOnly(false))]),
            json!({ "typography_only": false })
        );
    }
}
