//! The overlay spec: what the API calls a scene's `remotion_spec`.
//!
//! A spec is plain data, stored as `{voice_file}_spec.json` beside the scene's files. It holds
//! groups of objects in 720×1280 canvas space; each object has a kind, a rect, a stacking order,
//! an entrance animation, a time window and a payload (an SVG or PNG file next to the spec). The
//! pipeline writes specs (generated overlays, svg2spec, uploads, edits); the renderer reads them
//! through [`OverlaySpec::to_overlay_objects`]; the geometry endpoint reads their rects.
//!
//! Payload paths are relative file names inside the folder that holds the spec, never absolute
//! and never with `..`, so a spec can be moved with its folder and never points elsewhere.

use crate::geom::CanvasRect;
use crate::plan::{Animation, OverlayObject, OverlayPayload};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The current spec schema version.
pub const SCHEMA: u32 = 1;

/// Where a spec came from; some edits only apply to some sources (the spec's branch O needs
/// `svg2spec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SpecSource {
    /// Designed by the server during scene building (typography crate).
    #[default]
    Generated,
    /// An uploaded SVG converted by `svg2spec`.
    Svg2spec,
    /// An uploaded raster image (PNG, JPEG, WebP) placed by the raster classifier.
    Raster,
    /// The typography endpoint's output attached to a scene.
    Typography,
}

/// How a group's objects share the scene's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TemporalPolicy {
    /// Every object is on screen for the whole scene.
    #[default]
    Scene,
    /// Objects enter one after another (word-timed); the group's logical id
    /// `{group}.one_by_one` moves them together.
    OneByOne,
    /// Each object keeps its own `start`/`end`.
    Timed,
}

/// What an object is, for editors, geometry and poster rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    /// Set text (outlined glyphs).
    #[default]
    Text,
    /// A number with its label.
    Stat,
    /// A short tag.
    Label,
    /// A boxed remark.
    Callout,
    /// A picture.
    Image,
    /// Shapes that carry no text.
    Decoration,
    /// svg2spec's generic kind.
    Object,
    /// svg2spec: a bar (charts).
    Bar,
    /// svg2spec: a mark (ticks, underlines).
    Mark,
}

/// The pixels of an object: a file next to the spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "snake_case")]
pub enum SpecPayload {
    /// An SVG file (no external references; checked again when resolved).
    Svg { file: String },
    /// A PNG (or JPEG/WebP) file.
    Png { file: String },
}

impl SpecPayload {
    /// The payload's file name.
    pub fn file(&self) -> &str {
        match self {
            SpecPayload::Svg { file } | SpecPayload::Png { file } => file,
        }
    }
}

/// One object of a spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecObject {
    /// Unique within the spec; what `remotion.object.rect` edits address.
    pub layout_id: String,
    pub kind: ObjectKind,
    /// The words it shows, when it shows words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Where it settles, canvas space.
    pub rect: CanvasRect,
    /// Stacking order; higher draws later.
    #[serde(default)]
    pub z: i32,
    #[serde(default)]
    pub animation: Animation,
    /// Seconds from scene start when it starts entering.
    #[serde(default)]
    pub start: f64,
    /// Seconds from scene start when it has left; `None` means the end of the scene.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<f64>,
    pub payload: SpecPayload,
}

/// A group of objects with its bounding rect (canvas space) and temporal policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecGroup {
    /// Unique within the spec; what `remotion.group.rect` edits address.
    pub id: String,
    /// The group's frame in canvas space. Moving or resizing it moves its objects.
    pub rect: CanvasRect,
    #[serde(default)]
    pub temporal_policy: TemporalPolicy,
    pub objects: Vec<SpecObject>,
}

/// A scene's overlay spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverlaySpec {
    /// Schema version ([`SCHEMA`]).
    pub schema: u32,
    pub source: SpecSource,
    /// A full-frame layer drawn under every object (svg2spec's non-object groups), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<SpecPayload>,
    pub groups: Vec<SpecGroup>,
    /// For `svg2spec` specs: the uploaded SVG (a file next to the spec), kept so text edits
    /// (modify_scene branch O) can change it and convert again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_svg: Option<String>,
}

/// Why a spec is not usable.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SpecError {
    #[error("unsupported spec schema {0}")]
    Schema(u32),
    #[error("object `{0}`: its rect must be finite with a positive size")]
    Rect(String),
    #[error("object `{0}`: its time window is invalid")]
    Time(String),
    #[error("layout id `{0}` is used twice")]
    DuplicateId(String),
    #[error("payload file `{0}` must be a plain file name")]
    PayloadPath(String),
}

/// Whether `name` is a plain file name (no folders, no `..`, nothing absolute).
pub fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !name.starts_with('.')
}

impl OverlaySpec {
    /// An empty spec of the given source.
    pub fn new(source: SpecSource) -> Self {
        OverlaySpec {
            schema: SCHEMA,
            source,
            background: None,
            groups: Vec::new(),
            source_svg: None,
        }
    }

    /// Every object, group by group, in document order.
    pub fn objects(&self) -> impl Iterator<Item = &SpecObject> {
        self.groups.iter().flat_map(|g| g.objects.iter())
    }

    /// Number of objects.
    pub fn object_count(&self) -> usize {
        self.groups.iter().map(|g| g.objects.len()).sum()
    }

    /// The object with `layout_id`, mutable.
    pub fn object_mut(&mut self, layout_id: &str) -> Option<&mut SpecObject> {
        self.groups
            .iter_mut()
            .flat_map(|g| g.objects.iter_mut())
            .find(|o| o.layout_id == layout_id)
    }

    /// Checks what serde cannot: schema, rects, time windows, unique ids, plain payload names.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.schema != SCHEMA {
            return Err(SpecError::Schema(self.schema));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(bg) = &self.background
            && !is_plain_file_name(bg.file())
        {
            return Err(SpecError::PayloadPath(bg.file().to_string()));
        }
        if let Some(src) = &self.source_svg
            && !is_plain_file_name(src)
        {
            return Err(SpecError::PayloadPath(src.clone()));
        }
        for o in self.objects() {
            if !o.rect.is_valid() {
                return Err(SpecError::Rect(o.layout_id.clone()));
            }
            let end_ok = o.end.is_none_or(|e| e.is_finite() && e > o.start);
            if !o.start.is_finite() || o.start < 0.0 || !end_ok {
                return Err(SpecError::Time(o.layout_id.clone()));
            }
            if !seen.insert(o.layout_id.as_str()) {
                return Err(SpecError::DuplicateId(o.layout_id.clone()));
            }
            if !is_plain_file_name(o.payload.file()) {
                return Err(SpecError::PayloadPath(o.payload.file().to_string()));
            }
        }
        Ok(())
    }

    /// The render plan's overlay objects for a scene of `duration` seconds, payload files
    /// resolved inside `dir` (the folder holding the spec). The background layer, when present,
    /// becomes a full-canvas object under everything else.
    pub fn to_overlay_objects(&self, dir: &Path, duration: f64) -> Vec<OverlayObject> {
        let payload = |p: &SpecPayload| match p {
            SpecPayload::Svg { file } => OverlayPayload::SvgFile(dir.join(file)),
            SpecPayload::Png { file } => OverlayPayload::Png(dir.join(file)),
        };
        let mut out = Vec::with_capacity(self.object_count() + 1);
        if let Some(bg) = &self.background {
            out.push(OverlayObject {
                rect: CanvasRect::new(0.0, 0.0, 720.0, 1280.0),
                z: i32::MIN,
                animation: Animation::Fade,
                start: 0.0,
                end: duration,
                payload: payload(bg),
            });
        }
        for o in self.objects() {
            let start = o.start.min(duration);
            let end = o.end.unwrap_or(duration).clamp(start, duration);
            if end <= start {
                continue;
            }
            out.push(OverlayObject {
                rect: o.rect,
                z: o.z,
                animation: o.animation,
                start,
                end,
                payload: payload(&o.payload),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(id: &str, file: &str) -> SpecObject {
        SpecObject {
            layout_id: id.into(),
            kind: ObjectKind::Text,
            text: Some("HELLO".into()),
            rect: CanvasRect::new(60.0, 200.0, 600.0, 180.0),
            z: 1,
            animation: Animation::Pop,
            start: 0.5,
            end: None,
            payload: SpecPayload::Svg { file: file.into() },
        }
    }

    fn spec() -> OverlaySpec {
        let mut s = OverlaySpec::new(SpecSource::Generated);
        s.groups.push(SpecGroup {
            id: "g1".into(),
            rect: CanvasRect::new(60.0, 200.0, 600.0, 400.0),
            temporal_policy: TemporalPolicy::OneByOne,
            objects: vec![object("o1", "o1.svg"), object("o2", "o2.svg")],
        });
        s
    }

    #[test]
    fn round_trips_through_json() {
        let s = spec();
        let json = serde_json::to_string(&s).unwrap();
        let back: OverlaySpec = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        assert!(json.contains(r#""animation":"pop""#), "{json}");
        assert!(json.contains(r#""temporal_policy":"one_by_one""#), "{json}");
    }

    #[test]
    fn validation_names_the_problem() {
        assert_eq!(spec().validate(), Ok(()));
        let mut s = spec();
        s.groups[0].objects[1].layout_id = "o1".into();
        assert_eq!(s.validate(), Err(SpecError::DuplicateId("o1".into())));
        let mut s = spec();
        s.groups[0].objects[0].payload = SpecPayload::Png {
            file: "../../etc/passwd".into(),
        };
        assert!(matches!(s.validate(), Err(SpecError::PayloadPath(_))));
        let mut s = spec();
        s.groups[0].objects[0].end = Some(0.1);
        assert_eq!(s.validate(), Err(SpecError::Time("o1".into())));
        let mut s = spec();
        s.groups[0].objects[0].rect = CanvasRect::new(0.0, 0.0, 0.0, 10.0);
        assert_eq!(s.validate(), Err(SpecError::Rect("o1".into())));
    }

    #[test]
    fn overlay_objects_clip_to_the_scene() {
        let mut s = spec();
        s.groups[0].objects[1].start = 9.0;
        let objs = s.to_overlay_objects(Path::new("/v"), 4.0);
        assert_eq!(
            objs.len(),
            1,
            "an object starting after the scene ends is dropped"
        );
        assert_eq!(objs[0].end, 4.0);
        assert_eq!(
            objs[0].payload,
            OverlayPayload::SvgFile(Path::new("/v/o1.svg").to_path_buf())
        );
    }
}
