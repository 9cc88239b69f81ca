//! What branches B (`remotion.upload_overlay`), M (`remotion.add_element`) and O
//! (`overlay.text_edit`) report under `applied`: typed results, so the reply's schema says
//! their shapes. Object rects are exact (not rounded), in both coordinate spaces.

use compositor::geom::{CanvasRect, PreviewRect};
use compositor::plan::Animation;
use compositor::spec::{ObjectKind, OverlaySpec, SpecObject, SpecSource};
use serde::Serialize;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::edit::overlay_request::RectSpace;
use foundation::document::RectOut;

/// One object of the overlay after the edit.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct OverlayObjectOut {
    /// Canvas px.
    #[schema(value_type = RectOut)]
    pub rect_canvas: CanvasRect,
    /// Preview px.
    #[schema(value_type = RectOut)]
    pub rect: PreviewRect,
    pub layout_id: String,
    #[schema(value_type = ObjectKindName)]
    pub kind: ObjectKind,
    /// Null for objects without text.
    pub text: Option<String>,
    #[schema(value_type = AnimationName)]
    pub animation: Animation,
}

impl OverlayObjectOut {
    pub fn of(o: &SpecObject) -> OverlayObjectOut {
        OverlayObjectOut {
            rect_canvas: o.rect,
            rect: o.rect.to_preview(),
            layout_id: o.layout_id.clone(),
            kind: o.kind,
            text: o.text.clone(),
            animation: o.animation,
        }
    }

    /// Every object of `spec`, in drawing order of its groups.
    pub fn all(spec: &OverlaySpec) -> Vec<OverlayObjectOut> {
        spec.objects().map(OverlayObjectOut::of).collect()
    }
}

/// How a raster overlay was placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RasterPlacement {
    /// An opaque picture: it fills the frame.
    FullFrame,
    /// A graphic with transparency: placed at its content's box.
    Graphic,
}

/// B: the uploaded overlay.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct UploadOverlayApplied {
    /// `svg2spec` (an SVG) or `raster` (an image).
    #[schema(value_type = UploadSourceName)]
    pub source: SpecSource,
    /// Raster uploads only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classification: Option<RasterPlacement>,
    pub objects: Vec<OverlayObjectOut>,
    /// Whether the SVG had a full-frame background (always false for rasters).
    pub background: bool,
    pub url: String,
    /// Whether the overlay was disabled (`none`) before.
    pub re_enabled: bool,
    /// `{voice_file}_spec.json`.
    pub remotion_spec_file: String,
}

/// M: the added element.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct AddElementApplied {
    /// Canvas px.
    #[schema(value_type = RectOut)]
    pub rect_canvas: CanvasRect,
    /// Preview px.
    #[schema(value_type = RectOut)]
    pub rect: PreviewRect,
    /// The new object's id (`el-{n}`).
    pub layout_id: String,
    #[schema(value_type = ObjectKindName)]
    pub kind: ObjectKind,
    /// `coordinate_space` as sent (`preview` when absent).
    pub coordinate_space: RectSpace,
}

/// O: the text edit.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TextEditApplied {
    pub wc_object: String,
    /// The new lines, null when only `fill` changed.
    pub lines: Option<Vec<String>>,
    /// The new fill (`#RRGGBB`), null when unchanged.
    pub fill: Option<String>,
    /// The object's text after the edit, null when it has none.
    pub text: Option<String>,
    /// Poster copy rules the new lines break (never errors).
    pub warnings: Vec<String>,
    pub objects: Vec<OverlayObjectOut>,
}

/// Every [`ObjectKind`], for its schema.
const OBJECT_KINDS: [ObjectKind; 9] = [
    ObjectKind::Text,
    ObjectKind::Stat,
    ObjectKind::Label,
    ObjectKind::Callout,
    ObjectKind::Image,
    ObjectKind::Decoration,
    ObjectKind::Object,
    ObjectKind::Bar,
    ObjectKind::Mark,
];

/// A string schema whose values are `values` as serde writes them.
fn names_schema<T: Serialize>(values: &[T]) -> RefOr<Schema> {
    let names = values.iter().filter_map(|v| {
        serde_json::to_value(v)
            .ok()
            .and_then(|n| n.as_str().map(str::to_string))
    });
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(names))
        .into()
}

/// The schema of a compositor [`ObjectKind`] (the compositor knows no OpenAPI).
pub struct ObjectKindName;

impl PartialSchema for ObjectKindName {
    fn schema() -> RefOr<Schema> {
        names_schema(&OBJECT_KINDS)
    }
}

impl ToSchema for ObjectKindName {}

/// The schema of a compositor [`Animation`].
pub(crate) struct AnimationName;

impl PartialSchema for AnimationName {
    fn schema() -> RefOr<Schema> {
        names_schema(&Animation::ALL)
    }
}

impl ToSchema for AnimationName {}

/// The [`SpecSource`]s an upload produces.
pub(crate) struct UploadSourceName;

impl PartialSchema for UploadSourceName {
    fn schema() -> RefOr<Schema> {
        names_schema(&[SpecSource::Svg2spec, SpecSource::Raster])
    }
}

impl ToSchema for UploadSourceName {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails to compile when the compositor gains a kind, so [`OBJECT_KINDS`] is updated.
    #[test]
    fn every_object_kind_is_in_the_schema() {
        for k in OBJECT_KINDS {
            match k {
                ObjectKind::Text
                | ObjectKind::Stat
                | ObjectKind::Label
                | ObjectKind::Callout
                | ObjectKind::Image
                | ObjectKind::Decoration
                | ObjectKind::Object
                | ObjectKind::Bar
                | ObjectKind::Mark => {}
            }
        }
        let names: Vec<String> = OBJECT_KINDS
            .iter()
            .map(|k| {
                serde_json::to_value(k)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(names.len(), 9);
        assert!(names.contains(&"callout".to_string()));
    }
}
