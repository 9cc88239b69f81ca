//! `scene_geometry`: the layout of one scene in the 280×498 editor preview, computed from the
//! document and the scene's overlay spec. Read-only; never renders.
//!
//! Conversions:
//! - canvas (720×1280) ↔ preview (280×498): `compositor::geom` (`to_preview`/`to_canvas`), the
//!   one place that converts between them;
//! - narrator media (280×498 over the presenter clip) → preview: the media is fitted to the
//!   narrator rect, so a face `f` becomes
//!   `(rect.x + f.x·rect.w/280, rect.y + f.y·rect.h/498, f.w·rect.w/280, f.h·rect.h/498)`
//!   ([`face_in_preview`]); `segment.narrator_face` itself is never changed.
//!
//! Collision math (approximate, as the spec says): boxes are axis-aligned rects in preview
//! space; two boxes *overlap* when their intersection's area is at least
//! [`OVERLAP_MIN_FRACTION`] of the smaller box's area (slivers from rounding do not count).
//! `overlap` reports the intersection rect, its area and that fraction. A box is *in* a dead zone
//! when it overlaps the zone by the same rule. Caption text is an estimate
//! ([`caption_text_estimate`]): the longest four-word caption chunk at the renderer's largest
//! caption size, wrapped at its maximum width, centred on the caption container.
//!
//! The background's subject ([`background_subject`]) is the box `compositor::focus` gives for
//! the still background under its fit, grown by the drift: the rect the renderer draws.
//! `background_subject_overlap` (error) is an overlay object, the caption text or the shown
//! narrator on it.
//!
//! Severities: `remotion_object_overlaps_narrator_face` error; `…_overlaps_narrator_body` info;
//! objects in a dead zone warning; a group frame in a dead zone warning when one of its objects
//! is in that zone too, info when only the (invisible) frame is; `caption_text_overlaps_
//! narrator_face` warning. Warnings (`warnings[]`) all have severity warning:
//! `remotion_object_too_small_for_mobile` (text-bearing objects under [`MIN_TEXT_H`] preview px
//! high, any object under [`MIN_SIDE`] px on a side), `narrator_face_outside_narrator` (the
//! face box leaves the narrator rect), `missing_narrator_face` (a visible narrator without a
//! face box). `summary.error_count` counts errors; `summary.warning_count` counts violations of
//! severity warning plus every warning.

use compositor::captions::{self, CAPTION_MAX_LINES, CAPTION_WORDS};
use compositor::geom::{CanvasRect, PreviewRect, preview_y_to_canvas};
use compositor::spec::{ObjectKind, OverlaySpec, TemporalPolicy};
use foundation::document::{SpecRef, SpecState};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::edit::scenes::apply::{ONE_BY_ONE_SUFFIX, objects_bbox};
use crate::edit::scenes::select::{
    ById, ByText, ByVoiceFile, SceneValue, SelectBy, Selector, checked_topic_id, display_id_field,
    exactly_one_form, scene_text_field,
};
use foundation::document::{Background, PosterState, RectOut, Segment, VideoDocument, round3};
use foundation::error::{Code, Result};
use foundation::fields::Body;

/// Preview width and height.
pub(crate) const W: f64 = 280.0;
pub const H: f64 = 498.0;
/// Top 10 percent.
pub(crate) const DEAD_TOP_H: f64 = 49.8;
/// Bottom 25 percent starts here.
pub(crate) const DEAD_BOTTOM_Y: f64 = 373.5;
pub(crate) const DEAD_BOTTOM_H: f64 = 124.5;
/// Fraction of the smaller box an intersection must cover to count as an overlap.
pub(crate) const OVERLAP_MIN_FRACTION: f64 = 0.01;
/// Text-bearing objects lower than this (preview px) are too small on a phone.
pub(crate) const MIN_TEXT_H: f64 = 16.0;
/// Any object with a side under this (preview px) is too small on a phone.
pub(crate) const MIN_SIDE: f64 = 8.0;
/// The renderer's caption sizes (canvas px), largest first, its wrap width and line height,
/// owned by `compositor::captions` (a change in the number of sizes fails to compile here).
const CAPTION_PX: [f64; 4] = {
    let p = captions::CAPTION_PX;
    [p[0] as f64, p[1] as f64, p[2] as f64, p[3] as f64]
};
const CAPTION_MAX_W: f64 = captions::CAPTION_MAX_W as f64;
const CAPTION_LINE_HEIGHT: f64 = captions::CAPTION_LINE_HEIGHT as f64;
/// Average advance of a bold caption glyph, in ems.
const CAPTION_EM_ADVANCE: f64 = 0.56;

/// `POST /v1/scene_geometry`'s body: the video and the scene, named exactly one way:
/// `voice_file`, `scene_id`, or `by` with `value`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum SceneGeometryRequest {
    VoiceFile(GeometryOfVoiceFile),
    SceneId(GeometryOfSceneId),
    ByVoiceFile(GeometryByVoiceFile),
    ById(GeometryById),
    ByText(GeometryByText),
}

/// The scene named by its stable `voice_file`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct GeometryOfVoiceFile {
    #[serde(flatten)]
    pub target: GeometryTarget,
    #[schema(schema_with = scene_text_field)]
    pub voice_file: SceneValue,
}

/// The scene named by its display id.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct GeometryOfSceneId {
    #[serde(flatten)]
    pub target: GeometryTarget,
    #[schema(schema_with = display_id_field)]
    pub scene_id: SceneValue,
}

/// The scene named by `by: voice_file` with `value`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct GeometryByVoiceFile {
    #[serde(flatten)]
    pub target: GeometryTarget,
    #[serde(flatten)]
    pub scene: ByVoiceFile,
}

/// The scene named by `by: id` with `value`.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct GeometryById {
    #[serde(flatten)]
    pub target: GeometryTarget,
    #[serde(flatten)]
    pub scene: ById,
}

/// The scene named by `by: text` with `value` (and `min_score`).
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct GeometryByText {
    #[serde(flatten)]
    pub target: GeometryTarget,
    #[serde(flatten)]
    pub scene: ByText,
}

/// What every form of [`SceneGeometryRequest`] names besides the scene.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct GeometryTarget {
    /// Topic id of the video (`topic_id` is accepted as an alias).
    #[schema(example = "wc1a2b3c4d5e6f", pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub id: String,
    /// Adds `violations`, `warnings`, their counts and the poster state.
    #[schema(default = false)]
    pub include_diagnostics: Option<bool>,
}

/// A scene_geometry call, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct GeometryQuery {
    pub id: String,
    pub selector: Selector,
    pub include_diagnostics: bool,
}

impl Body for SceneGeometryRequest {
    type Valid = GeometryQuery;
    const CODES: &'static [(&'static str, Code)] = &[
        ("id", Code::InvalidId),
        ("voice_file", Code::InvalidValue),
        ("scene_id", Code::InvalidValue),
        ("by", Code::InvalidBy),
        ("value", Code::InvalidValue),
        ("min_score", Code::InvalidValue),
    ];
    const ALIASES: &'static [(&'static str, &'static str)] = &[("topic_id", "id")];

    fn form(sent: &Map<String, Value>) -> Result<Option<&'static str>> {
        exactly_one_form(sent).map(Some)
    }

    fn validate(self) -> Result<GeometryQuery> {
        let (selector, target) = match self {
            SceneGeometryRequest::VoiceFile(f) => (
                Selector::of(SelectBy::VoiceFile, &f.voice_file, None, "voice_file")?,
                f.target,
            ),
            SceneGeometryRequest::SceneId(f) => (
                Selector::of(SelectBy::Id, &f.scene_id, None, "scene_id")?,
                f.target,
            ),
            SceneGeometryRequest::ByVoiceFile(f) => (f.scene.selector()?, f.target),
            SceneGeometryRequest::ById(f) => (f.scene.selector()?, f.target),
            SceneGeometryRequest::ByText(f) => (f.scene.selector()?, f.target),
        };
        Ok(GeometryQuery {
            id: checked_topic_id(&target.id)?,
            selector,
            include_diagnostics: target.include_diagnostics.unwrap_or(false),
        })
    }
}

/// A point in the editor preview.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct PointOut {
    pub x: f64,
    pub y: f64,
}

/// The overlay poster's state (diagnostics only).
#[derive(Debug, Clone, PartialEq)]
pub struct PosterMeta {
    pub file: String,
    pub url: String,
    pub version: String,
    pub exists: bool,
    pub state: SpecState,
    pub warnings: Vec<String>,
}

/// Everything geometry needs.
pub struct Input<'a> {
    pub doc: &'a VideoDocument,
    pub index: usize,
    pub spec: Option<&'a OverlaySpec>,
    pub spec_meta: SpecRef,
    pub poster: Option<PosterMeta>,
    pub include_diagnostics: bool,
    pub score: f64,
    pub company_id: &'a str,
}

/// `scene_geometry`'s 200 body (the handler adds `request_id`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SceneGeometry {
    /// Always `scene_geometry`.
    #[schema(example = "scene_geometry")]
    pub object: &'static str,
    pub id: String,
    pub topic_id: String,
    pub company_id: String,
    pub scene_id: u32,
    pub voice_file: String,
    /// Match score of the selector (1 for `voice_file` and `id`).
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub score: f64,
    pub coordinate_space: PreviewSpace,
    pub safe_zones: SafeZones,
    pub scene: SceneSummary,
    pub boxes: Boxes,
    /// With `include_diagnostics`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violations: Option<Vec<Violation>>,
    /// With `include_diagnostics`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<Warning>>,
    pub remotion_spec: RemotionSpecState,
    pub summary: Summary,
}

/// The space every box is in: 280×498 editor preview pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct PreviewSpace {
    pub width: u32,
    pub height: u32,
    pub unit: &'static str,
}

/// The fixed dead zones and the safe band between them.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SafeZones {
    pub dead_top: Zone,
    pub dead_bottom: Zone,
    pub safe_rect: Zone,
}

/// One zone of [`SafeZones`].
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Zone {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub coordinate_space: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

/// The scene's text and direction.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SceneSummary {
    pub text: String,
    pub talking_point: String,
    #[serde(rename = "type")]
    pub scene_type: String,
    pub pattern: String,
    pub keyword: String,
    pub visual: String,
    pub quote: String,
    pub show_narrator: bool,
    pub active_roll: String,
}

/// Every box of the scene.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Boxes {
    pub narrator: NarratorBox,
    pub caption: CaptionBox,
    pub remotion: RemotionBoxes,
    /// The still background's subject where the renderer draws it (its drift included);
    /// `null` without a known subject, on clips and procedural looks, and when the picture is
    /// a soft backdrop.
    pub background_subject: Option<RectOut>,
}

/// The narrator and its face.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct NarratorBox {
    pub rect: RectOut,
    pub visible: bool,
    pub touched: bool,
    /// In narrator-media space; never mutated.
    pub face_source: Option<RectOut>,
    pub face_source_coordinate_space: &'static str,
    /// `face_source` placed through the narrator rect.
    pub face: Option<RectOut>,
    pub face_center: Option<PointOut>,
    pub face_coordinate_space_note: &'static str,
}

/// The caption container and the estimated text inside it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CaptionBox {
    pub container_rect: RectOut,
    pub text_rect_estimate: Option<RectOut>,
    pub visible: bool,
    pub mutable_fields: [&'static str; 1],
}

/// The overlay's groups and objects.
#[derive(Debug, Clone, PartialEq, Default, Serialize, ToSchema)]
pub struct RemotionBoxes {
    pub groups: Vec<GroupBox>,
    pub objects: Vec<ObjectBox>,
    pub object_layer: ObjectLayer,
    pub sequence_objects: Vec<SequenceObject>,
}

/// A group frame.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct GroupBox {
    pub id: String,
    pub rect: RectOut,
    pub rect_canvas: RectOut,
    pub temporal_policy: &'static str,
    pub update_field: &'static str,
}

/// An object of the overlay.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ObjectBox {
    pub id: String,
    pub rect: RectOut,
    pub group: String,
}

/// What `remotion.object.rect` can move.
#[derive(Debug, Clone, PartialEq, Default, Serialize, ToSchema)]
pub struct ObjectLayer {
    pub objects: Vec<LayerObject>,
}

/// One entry of the object layer: an object, or a one-by-one group's items together.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct LayerObject {
    pub layout_id: String,
    pub rect: RectOut,
    pub rect_canvas: RectOut,
    pub temporal_policy: &'static str,
    pub update_field: &'static str,
    /// The items a logical `{group}.one_by_one` id moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<String>>,
}

/// An object shown for part of the scene.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SequenceObject {
    pub id: String,
    pub group: String,
    pub start: f64,
    pub end: f64,
    pub rect: RectOut,
}

/// The spec file (and, with diagnostics, poster) state.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct RemotionSpecState {
    pub remotion_spec_file: String,
    pub remotion_spec_url: String,
    pub remotion_spec_version: String,
    pub remotion_spec_exists: bool,
    pub remotion_spec_state: SpecState,
    /// Present with diagnostics only. Flattened as a struct of optional fields (not an
    /// `Option` of a struct), so its schema says "these keys may appear", which a flattened
    /// `Option` does not.
    #[serde(flatten)]
    pub poster: PosterState,
}

/// Counts and the basis of the overlay geometry.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Summary {
    pub remotion_object_count: usize,
    pub remotion_object_layer_count: usize,
    pub remotion_sequence_object_count: usize,
    pub remotion_group_count: usize,
    pub remotion_temporal_policies: Vec<&'static str>,
    /// `spec_file`, `none` or `disabled`.
    pub remotion_geometry_basis: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning_count: Option<usize>,
}

/// Two boxes that overlap (see the module docs for the rule).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Violation {
    pub code: &'static str,
    /// `error`, `warning` or `info`.
    pub severity: &'static str,
    pub a: String,
    pub b: &'static str,
    pub overlap: Overlap,
}

/// A problem of one box.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Warning {
    pub code: &'static str,
    /// Always `warning`.
    pub severity: &'static str,
    pub object: String,
    pub rect: Option<RectOut>,
    pub message: String,
}

/// The intersection of two boxes.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Overlap {
    pub rect: RectOut,
    pub area: f64,
    pub fraction_of_smaller: f64,
}

fn zone(y: f64, h: f64, reason: Option<&'static str>) -> Zone {
    Zone {
        x: 0.0,
        y,
        w: W,
        h,
        coordinate_space: "editor_preview",
        reason,
    }
}

/// The spec's fixed safe zones.
pub fn safe_zones() -> SafeZones {
    SafeZones {
        dead_top: zone(0.0, DEAD_TOP_H, Some("top_10_percent_reserved")),
        dead_bottom: zone(
            DEAD_BOTTOM_Y,
            DEAD_BOTTOM_H,
            Some("bottom_25_percent_reserved"),
        ),
        safe_rect: zone(DEAD_TOP_H, DEAD_BOTTOM_Y - DEAD_TOP_H, None),
    }
}

/// A face box in narrator-media space (280×498 over the presenter media) placed in preview
/// space through the narrator rect.
pub(crate) fn face_in_preview(narrator: PreviewRect, face: PreviewRect) -> PreviewRect {
    let kx = narrator.w / W;
    let ky = narrator.h / H;
    PreviewRect::new(
        narrator.x + face.x * kx,
        narrator.y + face.y * ky,
        face.w * kx,
        face.h * ky,
    )
}

/// Estimated rect of the caption text (preview), or `None` when the scene has no words.
pub(crate) fn caption_text_estimate(seg: &Segment) -> Option<PreviewRect> {
    let words: Vec<&str> = if seg.words.is_empty() {
        seg.text.split_whitespace().collect()
    } else {
        seg.words
            .iter()
            .map(|w| w.word.trim())
            .filter(|w| !w.is_empty())
            .collect()
    };
    let chars = words
        .chunks(CAPTION_WORDS)
        .map(|c| c.iter().map(|w| w.chars().count()).sum::<usize>() + c.len().saturating_sub(1))
        .max()?;
    let (mut px, mut lines, mut width) = (CAPTION_PX[0], 1usize, 0.0);
    for size in CAPTION_PX {
        px = size;
        width = chars as f64 * CAPTION_EM_ADVANCE * px;
        lines = (width / CAPTION_MAX_W).ceil().max(1.0) as usize;
        if lines <= CAPTION_MAX_LINES {
            break;
        }
    }
    let w = width.min(CAPTION_MAX_W);
    let h = lines as f64 * (px * CAPTION_LINE_HEIGHT).round();
    let cy = preview_y_to_canvas(seg.caption_rect.y + seg.caption_rect.h / 2.0);
    Some(CanvasRect::new(360.0 - w / 2.0, cy - h / 2.0, w, h).to_preview())
}

fn intersection(a: PreviewRect, b: PreviewRect) -> Option<PreviewRect> {
    let x0 = a.x.max(b.x);
    let y0 = a.y.max(b.y);
    let x1 = (a.x + a.w).min(b.x + b.w);
    let y1 = (a.y + a.h).min(b.y + b.h);
    (x1 > x0 && y1 > y0).then(|| PreviewRect::new(x0, y0, x1 - x0, y1 - y0))
}

/// The overlap of `a` and `b` by the module's rule.
pub fn overlap(a: PreviewRect, b: PreviewRect) -> Option<Overlap> {
    let i = intersection(a, b)?;
    let area = i.w * i.h;
    let smaller = (a.w * a.h).min(b.w * b.h);
    if smaller <= 0.0 {
        return None;
    }
    let fraction = area / smaller;
    (fraction >= OVERLAP_MIN_FRACTION).then(|| Overlap {
        rect: i.into(),
        area: round3(area),
        fraction_of_smaller: round3(fraction),
    })
}

fn dead_top() -> PreviewRect {
    PreviewRect::new(0.0, 0.0, W, DEAD_TOP_H)
}

fn dead_bottom() -> PreviewRect {
    PreviewRect::new(0.0, DEAD_BOTTOM_Y, W, DEAD_BOTTOM_H)
}

fn policy(p: TemporalPolicy) -> &'static str {
    match p {
        TemporalPolicy::Scene => "scene",
        TemporalPolicy::OneByOne => "one_by_one",
        TemporalPolicy::Timed => "timed",
    }
}

fn text_bearing(k: ObjectKind) -> bool {
    matches!(
        k,
        ObjectKind::Text | ObjectKind::Stat | ObjectKind::Label | ObjectKind::Callout
    )
}

fn narrator_box(seg: &Segment, show_narrator: bool) -> NarratorBox {
    let narrator = seg.narrator_rect;
    let face = seg.narrator_face.map(|f| face_in_preview(narrator, f));
    NarratorBox {
        rect: narrator.into(),
        visible: show_narrator,
        touched: seg.narrator_touched,
        face_source: seg.narrator_face.map(Into::into),
        face_source_coordinate_space: "narrator_media_280x498",
        face: face.map(RectOut::from),
        face_center: face.map(|f| {
            let (x, y) = f.center();
            PointOut {
                x: round3(x),
                y: round3(y),
            }
        }),
        face_coordinate_space_note: "face_source is in narrator-media space (280×498 over the presenter media) and is never mutated; face and face_center are that box placed through overlay.narrator.rect into the 280×498 editor preview.",
    }
}

/// The overlay's boxes, its temporal policies, and every object for diagnostics.
struct OverlayBoxes {
    boxes: RemotionBoxes,
    policies: Vec<&'static str>,
    /// (layout id, kind, rect, group index)
    all_objects: Vec<(String, ObjectKind, PreviewRect, usize)>,
}

fn overlay_boxes(spec: Option<&OverlaySpec>, duration: f64) -> OverlayBoxes {
    let mut out = OverlayBoxes {
        boxes: RemotionBoxes::default(),
        policies: Vec::new(),
        all_objects: Vec::new(),
    };
    let Some(spec) = spec else {
        return out;
    };
    let b = &mut out.boxes;
    for (gi, g) in spec.groups.iter().enumerate() {
        let pol = policy(g.temporal_policy);
        if !out.policies.contains(&pol) {
            out.policies.push(pol);
        }
        b.groups.push(GroupBox {
            id: g.id.clone(),
            rect: g.rect.to_preview().into(),
            rect_canvas: g.rect.into(),
            temporal_policy: pol,
            update_field: "remotion.group.rect",
        });
        for o in &g.objects {
            let r = o.rect.to_preview();
            b.objects.push(ObjectBox {
                id: o.layout_id.clone(),
                rect: r.into(),
                group: g.id.clone(),
            });
            out.all_objects.push((o.layout_id.clone(), o.kind, r, gi));
            if g.temporal_policy != TemporalPolicy::Scene || o.end.is_some() || o.start > 0.0 {
                b.sequence_objects.push(SequenceObject {
                    id: o.layout_id.clone(),
                    group: g.id.clone(),
                    start: o.start,
                    end: o.end.unwrap_or(duration),
                    rect: r.into(),
                });
            }
        }
        let layer = |layout_id: String, rect: CanvasRect, members| LayerObject {
            layout_id,
            rect: rect.to_preview().into(),
            rect_canvas: rect.into(),
            temporal_policy: pol,
            update_field: "remotion.object.rect",
            members,
        };
        if g.temporal_policy == TemporalPolicy::OneByOne && g.objects.len() > 1 {
            let bb = objects_bbox(g).expect("group has objects");
            let members = g.objects.iter().map(|o| o.layout_id.clone()).collect();
            b.object_layer.objects.push(layer(
                format!("{}{ONE_BY_ONE_SUFFIX}", g.id),
                bb,
                Some(members),
            ));
        } else {
            for o in &g.objects {
                b.object_layer
                    .objects
                    .push(layer(o.layout_id.clone(), o.rect, None));
            }
        }
    }
    out
}

fn spec_state(meta: &SpecRef) -> RemotionSpecState {
    RemotionSpecState {
        remotion_spec_file: meta.file.clone(),
        remotion_spec_url: meta.url.clone(),
        remotion_spec_version: meta.version.clone(),
        remotion_spec_exists: meta.exists,
        remotion_spec_state: meta.state,
        poster: PosterState::default(),
    }
}

fn poster_state(poster: &PosterMeta) -> PosterState {
    PosterState {
        remotion_poster_file: Some(poster.file.clone()),
        remotion_poster_url: Some(poster.url.clone()),
        remotion_poster_version: Some(poster.version.clone()),
        remotion_poster_state: Some(poster.state),
        remotion_poster_exists: Some(poster.exists),
        remotion_poster_warnings: Some(poster.warnings.clone()),
    }
}

/// The whole `scene_geometry` body (without `request_id`).
pub fn build(input: &Input<'_>) -> SceneGeometry {
    let doc = input.doc;
    let seg = &doc.segments[input.index];
    let show_narrator = seg.is_a_roll() && !doc.faceless;
    let caption_text = caption_text_estimate(seg);
    let overlay = overlay_boxes(input.spec, seg.duration);
    let meta = &input.spec_meta;
    let basis = match (meta.state, input.spec.is_some()) {
        (SpecState::Disabled, _) => "disabled",
        (_, true) => "spec_file",
        _ => "none",
    };
    let boxes = &overlay.boxes;
    let mut summary = Summary {
        remotion_object_count: boxes.objects.len(),
        remotion_object_layer_count: boxes.object_layer.objects.len(),
        remotion_sequence_object_count: boxes.sequence_objects.len(),
        remotion_group_count: boxes.groups.len(),
        remotion_temporal_policies: overlay.policies.clone(),
        remotion_geometry_basis: basis,
        error_count: None,
        warning_count: None,
    };
    let mut remotion_spec = spec_state(meta);
    let (mut violations, mut warnings) = (None, None);
    if input.include_diagnostics {
        let narrator = seg.narrator_rect;
        let d = diagnose(&Scene {
            show_narrator,
            narrator,
            face: seg.narrator_face.map(|f| face_in_preview(narrator, f)),
            face_source: seg.narrator_face,
            caption_text,
            subject: background_subject(seg),
            objects: &overlay.all_objects,
            groups: input
                .spec
                .map(|s| {
                    s.groups
                        .iter()
                        .map(|g| (g.id.clone(), g.rect.to_preview()))
                        .collect()
                })
                .unwrap_or_default(),
        });
        let count = |sev: &str| d.violations.iter().filter(|v| v.severity == sev).count();
        summary.error_count = Some(count("error"));
        summary.warning_count = Some(count("warning") + d.warnings.len());
        remotion_spec.poster = input.poster.as_ref().map(poster_state).unwrap_or_default();
        violations = Some(d.violations);
        warnings = Some(d.warnings);
    }
    SceneGeometry {
        object: "scene_geometry",
        id: doc.topic_id.clone(),
        topic_id: doc.topic_id.clone(),
        company_id: input.company_id.to_string(),
        scene_id: seg.id,
        voice_file: seg.voice_file.clone(),
        score: input.score,
        coordinate_space: PreviewSpace {
            width: 280,
            height: 498,
            unit: "editor_preview_px",
        },
        safe_zones: safe_zones(),
        scene: SceneSummary {
            text: seg.text.clone(),
            talking_point: seg.talking_point.clone(),
            scene_type: seg.scene_type_name().to_string(),
            pattern: seg.pattern.clone(),
            keyword: seg.keyword.clone(),
            visual: seg.visual.clone(),
            quote: seg.quote.clone(),
            show_narrator,
            active_roll: seg.roll.as_str().to_string(),
        },
        boxes: Boxes {
            narrator: narrator_box(seg, show_narrator),
            caption: CaptionBox {
                container_rect: seg.caption_rect.into(),
                text_rect_estimate: caption_text.map(RectOut::from),
                visible: caption_text.is_some(),
                mutable_fields: ["overlay.caption.y"],
            },
            remotion: overlay.boxes,
            background_subject: background_subject(seg).map(RectOut::from),
        },
        violations,
        warnings,
        remotion_spec,
        summary,
    }
}

/// The boxes diagnostics look at (preview space).
pub struct Scene<'a> {
    pub show_narrator: bool,
    pub narrator: PreviewRect,
    pub face: Option<PreviewRect>,
    pub face_source: Option<PreviewRect>,
    pub caption_text: Option<PreviewRect>,
    /// The still background's subject as the renderer places it ([`background_subject`]).
    pub subject: Option<PreviewRect>,
    /// (layout id, kind, rect, group index)
    pub objects: &'a [(String, ObjectKind, PreviewRect, usize)],
    /// (group id, frame)
    pub groups: Vec<(String, PreviewRect)>,
}

pub(crate) struct Diagnostics {
    pub violations: Vec<Violation>,
    pub warnings: Vec<Warning>,
}

fn violation(
    code: &'static str,
    severity: &'static str,
    a: &str,
    b: &'static str,
    overlap: Overlap,
) -> Violation {
    Violation {
        code,
        severity,
        a: a.to_string(),
        b,
        overlap,
    }
}

fn warning(code: &'static str, object: &str, rect: Option<PreviewRect>, message: &str) -> Warning {
    Warning {
        code,
        severity: "warning",
        object: object.to_string(),
        rect: rect.map(RectOut::from),
        message: message.to_string(),
    }
}

/// The subject of a still background where the renderer draws it (its fit and drift included,
/// `compositor::focus::subject_on_canvas`), in preview space; `None` without a known subject
/// or when the picture is only a soft backdrop.
pub fn background_subject(seg: &Segment) -> Option<PreviewRect> {
    if !matches!(seg.background, Background::Image { .. }) {
        return None;
    }
    let subject = seg.background_subject.as_ref()?;
    compositor::focus::subject_on_canvas(subject, seg.background_fit).map(CanvasRect::to_preview)
}

/// `background_subject_overlap` (error): every overlay object, the caption text and the shown
/// narrator against the background's subject.
fn subject_overlaps(s: &Scene<'_>, v: &mut Vec<Violation>) {
    let Some(subject) = s.subject else {
        return;
    };
    let mut boxes: Vec<(&str, PreviewRect)> = s
        .objects
        .iter()
        .map(|(id, _, r, _)| (id.as_str(), *r))
        .collect();
    if let Some(c) = s.caption_text {
        boxes.push(("caption_text", c));
    }
    if s.show_narrator {
        boxes.push(("narrator", s.narrator));
    }
    for (id, r) in boxes {
        if let Some(o) = overlap(r, subject) {
            v.push(violation(
                "background_subject_overlap",
                "error",
                id,
                "background_subject",
                o,
            ));
        }
    }
}

/// Violations and warnings of a scene (see the module docs for the rules).
pub(crate) fn diagnose(s: &Scene<'_>) -> Diagnostics {
    let mut v = Vec::new();
    let mut w = Vec::new();
    subject_overlaps(s, &mut v);
    let face = s.face.filter(|_| s.show_narrator);
    object_checks(s, face, &mut v, &mut w);
    group_zones(s, &mut v);
    if let (Some(f), Some(c)) = (face, s.caption_text)
        && let Some(o) = overlap(c, f)
    {
        v.push(violation(
            "caption_text_overlaps_narrator_face",
            "warning",
            "caption_text",
            "narrator_face",
            o,
        ));
    }
    narrator_face_checks(s, &mut w);
    Diagnostics {
        violations: v,
        warnings: w,
    }
}

/// Each overlay object against the narrator's `face` (when shown) and body, the dead zones,
/// and the smallest size a phone can read.
fn object_checks(
    s: &Scene<'_>,
    face: Option<PreviewRect>,
    v: &mut Vec<Violation>,
    w: &mut Vec<Warning>,
) {
    for (id, kind, r, _) in s.objects {
        if let Some(f) = face
            && let Some(o) = overlap(*r, f)
        {
            v.push(violation(
                "remotion_object_overlaps_narrator_face",
                "error",
                id,
                "narrator_face",
                o,
            ));
        }
        if s.show_narrator
            && let Some(o) = overlap(*r, s.narrator)
        {
            v.push(violation(
                "remotion_object_overlaps_narrator_body",
                "info",
                id,
                "narrator",
                o,
            ));
        }
        if let Some(o) = overlap(*r, dead_top()) {
            v.push(violation(
                "remotion_object_in_top_dead_zone",
                "warning",
                id,
                "dead_top",
                o,
            ));
        }
        if let Some(o) = overlap(*r, dead_bottom()) {
            v.push(violation(
                "remotion_object_in_bottom_dead_zone",
                "warning",
                id,
                "dead_bottom",
                o,
            ));
        }
        let small = r.w.min(r.h) < MIN_SIDE || (text_bearing(*kind) && r.h < MIN_TEXT_H);
        if small {
            w.push(warning(
                "remotion_object_too_small_for_mobile",
                id,
                Some(*r),
                &format!(
                    "Smaller than {MIN_TEXT_H} preview px high (text) or {MIN_SIDE} px on a side; hard to read on a phone."
                ),
            ));
        }
    }
}

/// Each group's wrapper in a dead zone: a warning when its content reaches in, else info.
fn group_zones(s: &Scene<'_>, v: &mut Vec<Violation>) {
    for (gi, (id, r)) in s.groups.iter().enumerate() {
        let members = s.objects.iter().filter(|o| o.3 == gi);
        for (zone_rect, code, b) in [
            (dead_top(), "remotion_group_in_top_dead_zone", "dead_top"),
            (
                dead_bottom(),
                "remotion_group_in_bottom_dead_zone",
                "dead_bottom",
            ),
        ] {
            if let Some(o) = overlap(*r, zone_rect) {
                let content = members.clone().any(|m| overlap(m.2, zone_rect).is_some());
                let severity = if content { "warning" } else { "info" };
                v.push(violation(code, severity, id, b, o));
            }
        }
    }
}

/// A shown narrator without a face box, or whose face box leaves the narrator rect.
fn narrator_face_checks(s: &Scene<'_>, w: &mut Vec<Warning>) {
    if !s.show_narrator {
        return;
    }
    match (s.face, s.face_source) {
        (None, _) | (_, None) => w.push(warning(
            "missing_narrator_face",
            "narrator",
            Some(s.narrator),
            "The narrator has no face box; face collisions cannot be checked.",
        )),
        (Some(f), Some(src)) => {
            let inside = src.x >= 0.0 && src.y >= 0.0 && src.x + src.w <= W && src.y + src.h <= H;
            if !inside {
                w.push(warning(
                    "narrator_face_outside_narrator",
                    "narrator_face",
                    Some(f),
                    "The face box reaches outside the narrator rect.",
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::scenes::apply::tests::{doc, spec};
    use compositor::spec::SpecGroup;
    use foundation::fields::body;
    use serde_json::json;

    #[test]
    fn a_request_names_its_scene_exactly_one_way() {
        let read = |b: Value| body::read::<SceneGeometryRequest>(&b);
        let q = read(json!({"topic_id": "wcX", "voice_file": " v1 "})).unwrap();
        let expected = GeometryQuery {
            id: "wcX".into(),
            selector: Selector::VoiceFile("v1".into()),
            include_diagnostics: false,
        };
        assert_eq!(q, expected);
        let q = read(json!({"id": "wcX", "scene_id": 2.0, "include_diagnostics": true})).unwrap();
        assert_eq!((q.selector, q.include_diagnostics), (Selector::Id(2), true));
        let q = read(json!({"id": "wcX", "by": "TEXT", "value": "hello", "min_score": 0.3}));
        let text = Selector::Text {
            query: "hello".into(),
            min_score: 0.3,
        };
        assert_eq!(q.unwrap().selector, text);
        for (sent, code, param) in [
            (json!({"id": "wcX"}), Code::MissingField, "voice_file"),
            (
                json!({"id": "wcX", "voice_file": "a", "scene_id": 1}),
                Code::InvalidField,
                "voice_file",
            ),
            (
                json!({"id": "wcX", "scene_id": "x"}),
                Code::InvalidValue,
                "scene_id",
            ),
            (
                json!({"id": "wcX", "scene_id": 1.5}),
                Code::InvalidValue,
                "scene_id",
            ),
            (
                json!({"id": "wcX", "voice_file": " "}),
                Code::MissingField,
                "voice_file",
            ),
            (
                json!({"id": "wcX", "voice_file": true}),
                Code::InvalidValue,
                "voice_file",
            ),
            (
                json!({"id": "wcX", "by": 1, "value": "x"}),
                Code::InvalidBy,
                "by",
            ),
            (
                json!({"id": "wcX", "by": "name", "value": "x"}),
                Code::InvalidBy,
                "by",
            ),
            (
                json!({"id": "wcX", "by": "id"}),
                Code::MissingField,
                "value",
            ),
            (
                json!({"id": "wcX", "by": "id", "value": "one"}),
                Code::InvalidValue,
                "value",
            ),
            (
                json!({"id": "wcX", "by": "text", "value": "a", "min_score": 2}),
                Code::InvalidValue,
                "min_score",
            ),
            (json!({"voice_file": "v"}), Code::MissingField, "id"),
            (
                json!({"id": " ", "voice_file": "v"}),
                Code::MissingField,
                "id",
            ),
            (json!({"id": 5, "voice_file": "v"}), Code::InvalidId, "id"),
            (
                json!({"id": "nope", "voice_file": "v"}),
                Code::InvalidId,
                "id",
            ),
            (
                json!({"id": "wcX", "voice_file": "v", "include_diagnostics": "yes"}),
                Code::InvalidField,
                "include_diagnostics",
            ),
        ] {
            let e = read(sent.clone()).unwrap_err();
            assert_eq!((e.code, e.param.as_deref()), (code, Some(param)), "{sent}");
        }
    }

    fn meta() -> SpecRef {
        SpecRef {
            file: "v1_spec.json".into(),
            url: "http://o/specs/x/v1_spec.json?v=1".into(),
            version: "1".into(),
            exists: true,
            state: SpecState::Ready,
        }
    }

    /// The geometry body as the wire sees it.
    fn geometry(d: &VideoDocument, s: Option<&OverlaySpec>, diag: bool) -> Value {
        serde_json::to_value(build(&Input {
            doc: d,
            index: 0,
            spec: s,
            spec_meta: meta(),
            poster: None,
            include_diagnostics: diag,
            score: 1.0,
            company_id: "acme",
        }))
        .expect("serialisable")
    }

    #[test]
    fn safe_zones_have_the_spec_numbers() {
        let z = serde_json::to_value(safe_zones()).unwrap();
        let f = |k: &str, f: &str| z[k][f].as_f64().unwrap();
        assert_eq!((f("dead_top", "y"), f("dead_top", "h")), (0.0, 49.8));
        assert_eq!(
            (f("dead_bottom", "y"), f("dead_bottom", "h")),
            (373.5, 124.5)
        );
        assert_eq!(f("safe_rect", "y"), 49.8);
        assert!((f("safe_rect", "h") - 323.7).abs() < 1e-9);
        assert_eq!(z["dead_top"]["reason"], "top_10_percent_reserved");
        assert_eq!(z["dead_bottom"]["reason"], "bottom_25_percent_reserved");
        assert_eq!(z["safe_rect"]["w"], 280.0);
        assert_eq!(z["safe_rect"]["coordinate_space"], "editor_preview");
    }

    #[test]
    fn face_goes_through_the_narrator_rect() {
        // Narrator (70,90,140,140): half the preview width, 140/498 of its height.
        let n = PreviewRect::new(70.0, 90.0, 140.0, 140.0);
        let f = face_in_preview(n, PreviewRect::new(140.0, 0.0, 140.0, 249.0));
        assert_eq!(f, PreviewRect::new(140.0, 90.0, 70.0, 70.0));
        let f = face_in_preview(n, PreviewRect::new(0.0, 0.0, 280.0, 498.0));
        assert_eq!(f, n);
    }

    #[test]
    fn boxes_summary_and_conversions() {
        let mut d = doc();
        d.segments[0].narrator_face = Some(PreviewRect::new(70.0, 124.5, 140.0, 249.0));
        let s = spec();
        let g = geometry(&d, Some(&s), false);
        assert_eq!(g["object"], "scene_geometry");
        assert_eq!(
            g["coordinate_space"],
            json!({"width": 280, "height": 498, "unit": "editor_preview_px"})
        );
        assert_eq!(g["scene"]["show_narrator"], true);
        assert_eq!(g["scene"]["active_roll"], "A-roll");
        let n = &g["boxes"]["narrator"];
        assert_eq!(
            n["face"],
            json!({"x": 105.0, "y": 125.0, "w": 70.0, "h": 70.0})
        );
        assert_eq!(n["face_center"], json!({"x": 140.0, "y": 160.0}));
        assert_eq!(n["face_source_coordinate_space"], "narrator_media_280x498");
        // Canvas (100,200,200,100) → preview (100·280/720, 200·498/1280, …).
        let title = &g["boxes"]["remotion"]["objects"][0];
        assert_eq!(
            title["rect"],
            json!({"x": 38.889, "y": 77.813, "w": 77.778, "h": 38.906})
        );
        let layer = g["boxes"]["remotion"]["object_layer"]["objects"]
            .as_array()
            .unwrap();
        let ids: Vec<&str> = layer
            .iter()
            .map(|o| o["layout_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, vec!["title", "list.one_by_one"]);
        assert_eq!(
            layer[0]["rect_canvas"],
            json!({"x": 100.0, "y": 200.0, "w": 200.0, "h": 100.0})
        );
        assert_eq!(layer[0]["update_field"], "remotion.object.rect");
        assert_eq!(
            layer[1]["rect_canvas"],
            json!({"x": 60.0, "y": 700.0, "w": 600.0, "h": 300.0})
        );
        assert_eq!(
            g["boxes"]["remotion"]["sequence_objects"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        let sum = &g["summary"];
        assert_eq!(sum["remotion_object_count"], 3);
        assert_eq!(sum["remotion_object_layer_count"], 2);
        assert_eq!(sum["remotion_sequence_object_count"], 2);
        assert_eq!(sum["remotion_group_count"], 2);
        assert_eq!(
            sum["remotion_temporal_policies"],
            json!(["scene", "one_by_one"])
        );
        assert_eq!(sum["remotion_geometry_basis"], "spec_file");
        assert!(g.get("violations").is_none());
        // Caption estimate: centred, inside the preview, around the container's centre.
        let c = caption_text_estimate(&d.segments[0]).unwrap();
        assert!((c.center().0 - 140.0).abs() < 1e-9);
        assert!((c.center().1 - (300.0 + 30.0)).abs() < 1e-6);
        assert!(c.w > 0.0 && c.w <= 620.0 * 280.0 / 720.0 + 1e-9);
    }

    fn codes(g: &Value, key: &str) -> Vec<(String, String)> {
        g[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["code"].as_str().unwrap().to_string(),
                    v["severity"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    fn has(list: &[(String, String)], code: &str, severity: &str) -> bool {
        list.iter().any(|(c, s)| c == code && s == severity)
    }

    /// One constructed scene per rule, each triggering its code.
    #[test]
    fn every_violation_and_warning_code() {
        use compositor::spec::TemporalPolicy;
        let mut d = doc();
        // Narrator (70,90,140,140) preview; face = its top half.
        d.segments[0].narrator_face = Some(PreviewRect::new(0.0, 0.0, 280.0, 249.0));
        let c = |x: f64, y: f64, w: f64, h: f64| PreviewRect::new(x, y, w, h).to_canvas();
        let mut s = spec();
        s.groups = vec![
            // Over the face (and so the body).
            SpecGroup {
                id: "gf".into(),
                rect: c(80.0, 100.0, 50.0, 30.0),
                temporal_policy: TemporalPolicy::Scene,
                objects: vec![obj("face_hit", c(80.0, 100.0, 50.0, 30.0))],
            },
            // In the top dead zone, content too → group warning.
            SpecGroup {
                id: "gtop".into(),
                rect: c(0.0, 0.0, 60.0, 40.0),
                temporal_policy: TemporalPolicy::Scene,
                objects: vec![obj("top", c(0.0, 10.0, 60.0, 30.0))],
            },
            // Bottom: only the frame reaches the dead zone → group info.
            SpecGroup {
                id: "gbottom".into(),
                rect: c(0.0, 300.0, 280.0, 120.0),
                temporal_policy: TemporalPolicy::Scene,
                objects: vec![obj("mid", c(10.0, 300.0, 100.0, 40.0))],
            },
            // An object in the bottom dead zone, and a tiny one.
            SpecGroup {
                id: "gb2".into(),
                rect: c(200.0, 380.0, 60.0, 60.0),
                temporal_policy: TemporalPolicy::Scene,
                objects: vec![
                    obj("low", c(200.0, 380.0, 60.0, 30.0)),
                    obj("tiny", c(200.0, 420.0, 30.0, 10.0)),
                ],
            },
        ];
        // Caption text over the face: move the caption up to the face.
        d.segments[0].caption_rect.y = 100.0;
        let g = geometry(&d, Some(&s), true);
        let v = codes(&g, "violations");
        let w = codes(&g, "warnings");
        assert!(
            has(&v, "remotion_object_overlaps_narrator_face", "error"),
            "{v:?}"
        );
        assert!(
            has(&v, "remotion_object_overlaps_narrator_body", "info"),
            "{v:?}"
        );
        assert!(
            has(&v, "remotion_object_in_top_dead_zone", "warning"),
            "{v:?}"
        );
        assert!(
            has(&v, "remotion_object_in_bottom_dead_zone", "warning"),
            "{v:?}"
        );
        assert!(
            has(&v, "remotion_group_in_top_dead_zone", "warning"),
            "{v:?}"
        );
        assert!(
            has(&v, "remotion_group_in_bottom_dead_zone", "info"),
            "{v:?}"
        );
        assert!(
            has(&v, "caption_text_overlaps_narrator_face", "warning"),
            "{v:?}"
        );
        assert!(
            has(&w, "remotion_object_too_small_for_mobile", "warning"),
            "{w:?}"
        );
        let first = &g["violations"][0];
        assert_eq!(
            (first["a"].as_str(), first["b"].as_str()),
            (Some("face_hit"), Some("narrator_face"))
        );
        assert!(first["overlap"]["area"].as_f64().unwrap() > 0.0);
        let errors = v.iter().filter(|x| x.1 == "error").count();
        assert_eq!(g["summary"]["error_count"], errors);
        assert_eq!(
            g["summary"]["warning_count"],
            v.iter().filter(|x| x.1 == "warning").count() + w.len()
        );

        // Face outside the narrator rect; then no face at all.
        d.segments[0].narrator_face = Some(PreviewRect::new(200.0, 0.0, 120.0, 100.0));
        let w = codes(&geometry(&d, None, true), "warnings");
        assert!(
            has(&w, "narrator_face_outside_narrator", "warning"),
            "{w:?}"
        );
        d.segments[0].narrator_face = None;
        let g = geometry(&d, None, true);
        assert!(has(
            &codes(&g, "warnings"),
            "missing_narrator_face",
            "warning"
        ));
        assert_eq!(g["summary"]["remotion_geometry_basis"], "none");
        // B-roll: no narrator, so no narrator diagnostics.
        d.segments[0].roll = foundation::document::Roll::BRoll;
        let g = geometry(&d, Some(&s), true);
        assert!(
            codes(&g, "violations")
                .iter()
                .all(|(c, _)| !c.contains("narrator"))
        );
        assert!(
            codes(&g, "warnings")
                .iter()
                .all(|(c, _)| !c.contains("narrator"))
        );
    }

    #[test]
    fn everything_on_the_background_subject_is_an_error() {
        let subject = PreviewRect::new(60.0, 150.0, 160.0, 120.0);
        let objects = vec![
            (
                "on".to_string(),
                ObjectKind::Text,
                PreviewRect::new(80.0, 200.0, 100.0, 30.0),
                0,
            ),
            (
                "off".to_string(),
                ObjectKind::Text,
                PreviewRect::new(80.0, 60.0, 100.0, 30.0),
                0,
            ),
        ];
        let scene = |subject| Scene {
            show_narrator: true,
            narrator: PreviewRect::new(70.0, 90.0, 140.0, 140.0),
            face: None,
            face_source: None,
            caption_text: Some(PreviewRect::new(40.0, 260.0, 200.0, 40.0)),
            subject,
            objects: &objects,
            groups: vec![],
        };
        let hits = |d: Diagnostics| -> Vec<(String, &'static str)> {
            d.violations
                .into_iter()
                .filter(|v| v.code == "background_subject_overlap")
                .map(|v| (v.a, v.severity))
                .collect()
        };
        assert_eq!(
            hits(diagnose(&scene(Some(subject)))),
            [
                ("on".to_string(), "error"),
                ("caption_text".to_string(), "error"),
                ("narrator".to_string(), "error"),
            ]
        );
        assert!(hits(diagnose(&scene(None))).is_empty());
    }

    #[test]
    fn overlap_ignores_slivers() {
        let a = PreviewRect::new(0.0, 0.0, 100.0, 100.0);
        assert!(overlap(a, PreviewRect::new(99.95, 0.0, 100.0, 100.0)).is_none());
        let o = overlap(a, PreviewRect::new(50.0, 50.0, 100.0, 100.0)).unwrap();
        assert_eq!(o.area, 2500.0);
        assert_eq!(o.fraction_of_smaller, 0.25);
        assert!(overlap(a, PreviewRect::new(100.0, 0.0, 5.0, 5.0)).is_none());
    }

    fn obj(id: &str, rect: CanvasRect) -> compositor::spec::SpecObject {
        let mut o = spec().groups[0].objects[0].clone();
        o.layout_id = id.into();
        o.rect = rect;
        o
    }
}
