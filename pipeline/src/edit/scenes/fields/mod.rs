//! `modify_scene`'s `fields`, read into the typed edits of one family.
//!
//! Each `{field_name, value}` item is a struct ([`items`]) whose value is a type of its own
//! ([`values`], and `overlay_request` for B, M and O): serde reads an item as its family, and the
//! schema of `fields` ([`SceneFields`]) is derived from the same types. What neither can say is
//! here: the errors name the item (`fields[0].value`) with the branch's code, an unknown name is
//! `invalid_field_name`, and the rules across items hold (one family per call, the families sent
//! once, `disable_overlay` alone, `mediaType` only beside `mediaUrl`).

mod items;
mod values;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

pub use items::*;
use values::{DisableValue, RollSwitchValue};

use super::parse::{Edit, Family, FieldEdits, Meta, RollChange, bad};
use crate::edit::overlay_request::{self as overlay, OverlayEdit, OverlayField, shape_refused};
use foundation::error::{Code, Error, Result};
use video::render::read_music;

/// Reads `fields` (the envelope's member) into edits of one family. Checks everything that does
/// not need the document: the names, then each value's shape, then each value's rules, item by
/// item.
pub(crate) fn read(fields: &Value) -> Result<FieldEdits> {
    let items = match fields {
        Value::Null => return Err(Error::missing("fields")),
        Value::Array(a) if a.is_empty() => {
            return Err(Error::new(
                Code::MissingField,
                "`fields` must list at least one `{field_name, value}`.",
            )
            .param("fields"));
        }
        Value::Array(a) => a,
        _ => {
            return Err(Error::new(
                Code::InvalidField,
                "`fields` must be an array of `{field_name, value}`.",
            )
            .param("fields"));
        }
    };
    let mut sent = Vec::with_capacity(items.len());
    for (i, it) in items.iter().enumerate() {
        let name = match it.get("field_name") {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim(),
            _ => {
                return Err(Error::new(
                    Code::MissingField,
                    format!("`fields[{i}].field_name` is required."),
                )
                .param(format!("fields[{i}].field_name")));
            }
        };
        sent.push(Sent {
            name,
            value: it.get("value").unwrap_or(&Value::Null),
            param: format!("fields[{i}].value"),
        });
    }
    let family = family_of(sent[0].name)?;
    for item in &sent[1..] {
        let other = family_of(item.name)?;
        if other != family {
            return Err(mixed(family, other));
        }
    }
    let edits = SceneFields::read(family, &sent)?.edits(&sent)?;
    let edits = one_family(family, sent.len(), edits)?;
    Ok(FieldEdits { family, edits })
}

/// One item as sent: its name, its value (`null` when absent), and the `param` naming it.
struct Sent<'a> {
    name: &'a str,
    value: &'a Value,
    param: String,
}

impl Sent<'_> {
    /// The item as `T` (the item, or its family), or `refused` for a value of another shape.
    fn typed<T: DeserializeOwned>(&self, refused: fn(&str, &str) -> Error) -> Result<T> {
        serde_json::from_value(json!({ "field_name": self.name, "value": self.value }))
            .map_err(|_| refused(self.name, &self.param))
    }
}

/// The family of the field `name`.
fn family_of(name: &str) -> Result<Family> {
    Ok(if BackgroundItem::named(name) {
        Family::Media
    } else if LayoutItem::named(name) {
        Family::Layout
    } else if VoiceUploadField::named(name) {
        Family::Voice
    } else if NarratorVideoField::named(name) {
        Family::NarratorVideo
    } else if RollItem::named(name) {
        Family::Roll
    } else if SegmentTextField::named(name) {
        Family::Text
    } else if MetadataItem::named(name) {
        Family::Metadata
    } else if DisableOverlayField::named(name) {
        Family::Disable
    } else if VideoMusicField::named(name) {
        Family::VideoSettings
    } else if UploadOverlayField::named(name) {
        Family::Overlay(OverlayField::UploadOverlay)
    } else if AddElementField::named(name) {
        Family::Overlay(OverlayField::AddElement)
    } else if TextEditField::named(name) {
        Family::Overlay(OverlayField::TextEdit)
    } else {
        return Err(unknown_field(name));
    })
}

fn mixed(family: Family, other: Family) -> Error {
    Error::new(
        Code::MixedFieldFamilies,
        format!(
            "One call changes one family of fields; `{}` and `{}` must be sent separately.",
            family.as_str(),
            other.as_str()
        ),
    )
    .param("fields")
}

/// Items of `sent`, all named in one family, each read as `T`.
fn list<T: DeserializeOwned>(
    sent: &[Sent<'_>],
    refused: fn(&str, &str) -> Error,
) -> Result<Vec<T>> {
    sent.iter().map(|s| s.typed(refused)).collect()
}

impl SceneFields {
    /// `sent`, whose items are all of `family`, with each value read as its item's type.
    fn read(family: Family, sent: &[Sent<'_>]) -> Result<SceneFields> {
        Ok(match family {
            Family::Media => SceneFields::Background(BackgroundFields(list(sent, plain)?)),
            Family::Layout => SceneFields::Layout(LayoutFields(list(sent, plain)?)),
            Family::Voice => SceneFields::VoiceUpload(VoiceUploadFields(list(sent, url)?)),
            Family::NarratorVideo => {
                SceneFields::NarratorVideo(NarratorVideoFields(list(sent, url)?))
            }
            Family::Roll => SceneFields::Roll(RollFields(list(sent, roll)?)),
            Family::Text => SceneFields::SegmentText(SegmentTextFields(list(sent, plain)?)),
            Family::Metadata => SceneFields::Metadata(MetadataFields(list(sent, plain)?)),
            Family::Disable => {
                SceneFields::DisableOverlay(DisableOverlayFields(list(sent, plain)?))
            }
            Family::VideoSettings => {
                SceneFields::VideoSettings(VideoSettingsFields(list(sent, music)?))
            }
            Family::Overlay(OverlayField::UploadOverlay) => {
                SceneFields::UploadOverlay(UploadOverlayFields(list(sent, upload)?))
            }
            Family::Overlay(OverlayField::AddElement) => {
                SceneFields::AddElement(AddElementFields(list(sent, element)?))
            }
            Family::Overlay(OverlayField::TextEdit) => {
                SceneFields::TextEdit(TextEditFields(list(sent, text_edit)?))
            }
        })
    }

    /// The edits of the items, their rules checked in order; `sent` names them in errors.
    fn edits(self, sent: &[Sent<'_>]) -> Result<Vec<Edit>> {
        match self {
            SceneFields::Background(l) => each(l.0, sent, background),
            SceneFields::Layout(l) => {
                let mut out = Vec::new();
                for (item, s) in l.0.into_iter().zip(sent) {
                    match item {
                        LayoutItem::Child(child) => out.push(layout(child, &s.param)?),
                        LayoutItem::Batch(batch) => out.extend(read_batch(batch.value, &s.param)?),
                    }
                }
                Ok(out)
            }
            SceneFields::VoiceUpload(l) => each(l.0, sent, |f, p| {
                Ok(Edit::VoiceUpload {
                    url: f.value.checked(p)?,
                })
            }),
            SceneFields::NarratorVideo(l) => each(l.0, sent, |f, p| {
                Ok(Edit::NarratorVideo {
                    url: f.value.checked(p)?,
                })
            }),
            SceneFields::Roll(l) => each(l.0, sent, |it, p| roll_change(it, p).map(Edit::Roll)),
            SceneFields::SegmentText(l) => {
                each(l.0, sent, |f, p| values::segment_text(&f.value, p))
            }
            SceneFields::Metadata(l) => each(l.0, sent, |it, p| metadata(it, p).map(Edit::Meta)),
            SceneFields::DisableOverlay(l) => {
                each(l.0, sent, |f, p| DisableValue::edit(f.value.as_ref(), p))
            }
            SceneFields::VideoSettings(l) => {
                each(l.0, sent, |f, p| read_music(&f.value, p).map(Edit::Music))
            }
            SceneFields::UploadOverlay(l) => each(l.0, sent, |f, _| {
                overlay::upload(&f.value).map(Edit::Overlay)
            }),
            SceneFields::AddElement(l) => each(l.0, sent, |f, _| {
                overlay::add_element(f.value).map(|a| Edit::Overlay(OverlayEdit::AddElement(a)))
            }),
            SceneFields::TextEdit(l) => each(l.0, sent, |f, _| {
                overlay::text_edit(f.value).map(|t| Edit::Overlay(OverlayEdit::TextEdit(t)))
            }),
        }
    }
}

/// The edit `edit` makes of each item, in order, with the `param` that names it.
fn each<T>(
    items: Vec<T>,
    sent: &[Sent<'_>],
    edit: impl Fn(T, &str) -> Result<Edit>,
) -> Result<Vec<Edit>> {
    items
        .into_iter()
        .zip(sent)
        .map(|(item, s)| edit(item, &s.param))
        .collect()
}

/// A value of another shape, for the fields whose branch has no sentence of its own for it.
fn plain(name: &str, param: &str) -> Error {
    bad(param, format!("`{param}` is not a value `{name}` takes."))
}

fn url(_: &str, param: &str) -> Error {
    bad(param, format!("`{param}` must be an http(s) URL."))
}

fn roll(_: &str, param: &str) -> Error {
    values::roll_refused(param)
}

fn music(_: &str, param: &str) -> Error {
    Error::new(
        Code::InvalidMusic,
        "`video.music` must be `auto`, `none` or a track id.",
    )
    .param(param)
}

fn upload(_: &str, _: &str) -> Error {
    shape_refused(OverlayField::UploadOverlay)
}

fn element(_: &str, _: &str) -> Error {
    shape_refused(OverlayField::AddElement)
}

fn text_edit(_: &str, _: &str) -> Error {
    shape_refused(OverlayField::TextEdit)
}

/// A name that no item has.
fn unknown_field(name: &str) -> Error {
    if name.starts_with("overlay.caption.") {
        return Error::new(
            Code::InvalidFieldName,
            "Only `overlay.caption.y` of the caption can be changed.",
        )
        .param("fields");
    }
    Error::new(
        Code::InvalidFieldName,
        format!("`{name}` is not a field modify_scene can change."),
    )
    .param("fields")
    .details(json!({ "field_name": name }))
}

/// A: the URL, or (beside it) the kind.
fn background(item: BackgroundItem, param: &str) -> Result<Edit> {
    Ok(match item {
        BackgroundItem::Url(f) => Edit::Background {
            url: f.value.checked(param)?,
            kind: None,
        },
        // Only meaningful beside mediaUrl; merged by `one_family`.
        BackgroundItem::Type(f) => Edit::Background {
            url: String::new(),
            kind: Some(values::media_kind(&f.value, param)?),
        },
    })
}

/// C, D, E or F.
fn layout(child: LayoutChild, param: &str) -> Result<Edit> {
    match child {
        LayoutChild::ObjectRect(f) => f.value.edit(param),
        LayoutChild::GroupRect(f) => f.value.edit(param),
        LayoutChild::NarratorRect(f) => f.value.edit(param),
        LayoutChild::NarratorSide(f) => {
            let side = f.field_name.as_str().chars().last().unwrap_or('h');
            Ok(f.value.edit(side))
        }
        LayoutChild::CaptionY(f) => Ok(f.value.edit()),
    }
}

/// G: each child read as the layout field it names (`{param}[i].value`); a child of another
/// family, or another batch, is refused.
fn read_batch(batch: values::LayoutBatch, param: &str) -> Result<Vec<Edit>> {
    let children: Vec<(String, Value)> = match batch {
        values::LayoutBatch::Items(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, it)| {
                let name = it
                    .get("field_name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        bad(
                            &format!("{param}[{i}].field_name"),
                            "Each batch item needs `field_name` and `value`.",
                        )
                    })?;
                Ok((
                    name.to_string(),
                    it.get("value").cloned().unwrap_or(Value::Null),
                ))
            })
            .collect::<Result<_>>()?,
        values::LayoutBatch::Keyed(m) => m.into_iter().collect(),
    };
    if children.is_empty() {
        return Err(bad(param, "`layout.batch` is empty."));
    }
    let mut out = Vec::new();
    for (i, (name, value)) in children.iter().enumerate() {
        family_of(name)?;
        if !LayoutChild::named(name) {
            return Err(Error::new(
                Code::MixedFieldFamilies,
                format!(
                    "`layout.batch` takes layout fields only (overlay.narrator.*, overlay.caption.y, remotion.object.rect, remotion.group.rect), not `{name}`."
                ),
            )
            .param("fields"));
        }
        let child = Sent {
            name,
            value,
            param: format!("{param}[{i}].value"),
        };
        out.push(layout(child.typed(plain)?, &child.param)?);
    }
    Ok(out)
}

/// J.
fn roll_change(item: RollItem, param: &str) -> Result<RollChange> {
    match item {
        RollItem::Active(f) => Ok(RollChange::Set(values::roll_name(&f.value, param)?)),
        RollItem::Switch(f) => RollSwitchValue::change(f.value.as_ref(), param),
    }
}

/// L.
fn metadata(item: MetadataItem, param: &str) -> Result<Meta> {
    Ok(match item {
        MetadataItem::SceneType(f) => Meta::SceneType(values::scene_type(&f.value, param)?),
        MetadataItem::Pattern(f) => Meta::Pattern(values::pattern(&f.value, param)?),
        MetadataItem::Text(f) => {
            let text = values::meta_text(&f.value, param)?;
            match f.field_name {
                MetaTextName::Quote => Meta::Quote(text),
                MetaTextName::Visual => Meta::Visual(text),
                MetaTextName::Keyword => Meta::Keyword(text),
                MetaTextName::TalkingPoint => Meta::TalkingPoint(text),
            }
        }
        MetadataItem::TypographyOnly(f) => values::typography_only(&f.value, param)?,
    })
}

/// Checks that `edits` (from `sent` items of `family`) are what the family takes: N alone, one
/// upload, text or roll per call, `mediaType` beside `mediaUrl` (merged into one edit).
fn one_family(family: Family, sent: usize, mut edits: Vec<Edit>) -> Result<Vec<Edit>> {
    match family {
        Family::Disable if sent > 1 => {
            return Err(Error::new(
                Code::MixedFieldFamilies,
                "`disable_overlay` must be sent alone.",
            )
            .param("fields"));
        }
        Family::Media => {
            let url = edits.iter().find_map(|e| match e {
                Edit::Background { url, .. } if !url.is_empty() => Some(url.clone()),
                _ => None,
            });
            let kind = edits.iter().find_map(|e| match e {
                Edit::Background { kind, .. } => *kind,
                _ => None,
            });
            let Some(url) = url else {
                return Err(Error::new(
                    Code::MissingField,
                    "`mediaUrl` is required to swap the background.",
                )
                .param("fields"));
            };
            edits = vec![Edit::Background { url, kind }];
        }
        Family::Voice | Family::NarratorVideo | Family::Text | Family::Roll if edits.len() > 1 => {
            return Err(Error::new(
                Code::InvalidFieldName,
                format!("`{}` is sent once per call.", family.as_str()),
            )
            .param("fields"));
        }
        _ => {}
    }
    Ok(edits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::overlay_request::{
        MAX_ELEMENT_TEXT, MAX_LINES, Position, RectSpace, TextKind,
    };
    use crate::edit::scenes::parse::{MAX_CANVAS_EXTENT, MAX_TEXT_CHARS, RectPatch};
    use compositor::geom::{CanvasRect, PreviewRect as GeomPreviewRect};
    use foundation::document::{Music, Roll, SceneType};
    use values::Xywh;
    use video::build::PATTERNS;

    /// One item named `name` with `value`, read as the whole of `fields`.
    fn parse1(name: &str, value: Value) -> Result<Vec<Edit>> {
        read(&json!([{ "field_name": name, "value": value }])).map(|f| f.edits)
    }

    #[test]
    fn video_music_takes_auto_none_or_a_track_id() {
        assert_eq!(
            parse1("video.music", json!("none")).unwrap(),
            vec![Edit::Music(Music::Off)]
        );
        assert_eq!(
            parse1("video.music", json!("warm-story")).unwrap(),
            vec![Edit::Music(Music::Track("warm-story".into()))]
        );
        for bad in [json!("disco"), json!(3)] {
            let e = parse1("video.music", bad).unwrap_err();
            assert_eq!(e.code, Code::InvalidMusic);
            assert_eq!(e.param.as_deref(), Some("fields[0].value"));
        }
    }

    /// Every branch's field with a valid value parses to the expected edit.
    #[test]
    fn valid_values_parse() {
        let cases: Vec<(&str, Value, Edit)> = vec![
            (
                "mediaUrl",
                json!("https://cdn.example.com/a.jpg"),
                Edit::Background {
                    url: "https://cdn.example.com/a.jpg".into(),
                    kind: None,
                },
            ),
            (
                "remotion.object.rect",
                json!({"layout_id": "title", "x": 28, "y": 49.8, "w": 140, "h": 99.6}),
                Edit::ObjectRect {
                    layout_id: "title".into(),
                    rect: GeomPreviewRect::new(28.0, 49.8, 140.0, 99.6).to_canvas(),
                },
            ),
            (
                "remotion.object.rect",
                json!({"layout_id": "title", "rect": {"x": 72, "y": 128, "w": 360, "h": 256}, "coordinate_space": "canvas"}),
                Edit::ObjectRect {
                    layout_id: "title".into(),
                    rect: CanvasRect::new(72.0, 128.0, 360.0, 256.0),
                },
            ),
            (
                "remotion.group.rect",
                json!({"id": "g1", "x": 0, "y": -40, "w": 720, "h": 300}),
                Edit::GroupRect {
                    id: "g1".into(),
                    rect: CanvasRect::new(0.0, -40.0, 720.0, 300.0),
                    scale_children: true,
                    wrapper_only: false,
                },
            ),
            (
                "remotion.group.rect",
                json!({"id": "g1", "x": 0, "y": 0, "w": 280, "h": 498, "coordinate_space": "preview", "scale_children": false}),
                Edit::GroupRect {
                    id: "g1".into(),
                    rect: CanvasRect::new(0.0, 0.0, 720.0, 1280.0),
                    scale_children: false,
                    wrapper_only: false,
                },
            ),
            (
                "overlay.narrator.rect",
                json!({"x": 10, "y": 20, "w": 100, "h": 120}),
                Edit::NarratorRect(RectPatch {
                    x: Some(10.0),
                    y: Some(20.0),
                    w: Some(100.0),
                    h: Some(120.0),
                }),
            ),
            (
                "overlay.narrator.y",
                json!(33),
                Edit::NarratorRect(RectPatch {
                    y: Some(33.0),
                    ..Default::default()
                }),
            ),
            ("overlay.caption.y", json!(250), Edit::CaptionY(250.0)),
            (
                "voice.upload",
                json!({"url": "https://x.example/v.wav"}),
                Edit::VoiceUpload {
                    url: "https://x.example/v.wav".into(),
                },
            ),
            (
                "narrator.upload_video",
                json!("https://x.example/n.mp4"),
                Edit::NarratorVideo {
                    url: "https://x.example/n.mp4".into(),
                },
            ),
            (
                "roll.active",
                json!("b-roll"),
                Edit::Roll(RollChange::Set(Roll::BRoll)),
            ),
            ("roll.switch", json!(true), Edit::Roll(RollChange::Toggle)),
            (
                "segment.text",
                json!(" New words here "),
                Edit::Text("New words here".into()),
            ),
            (
                "type",
                json!("key point"),
                Edit::Meta(Meta::SceneType(SceneType::KeyPoint)),
            ),
            (
                "type",
                json!("CALL_TO_ACTION"),
                Edit::Meta(Meta::SceneType(SceneType::CallToAction)),
            ),
            (
                "pattern",
                json!("Myth-Fact"),
                Edit::Meta(Meta::Pattern("myth_fact")),
            ),
            (
                "quote",
                json!("Be brief."),
                Edit::Meta(Meta::Quote("Be brief.".into())),
            ),
            (
                "typography_only",
                json!(true),
                Edit::Meta(Meta::TypographyOnly(true)),
            ),
            ("disable_overlay", json!(true), Edit::DisableOverlay),
            ("remotion_spec.none", json!("none"), Edit::DisableOverlay),
        ];
        for (name, value, want) in cases {
            let got = parse1(name, value.clone());
            assert_eq!(
                got.as_ref().ok(),
                Some(&vec![want]),
                "{name} {value}: {got:?}"
            );
        }
    }

    /// Invalid values are rejected with the code and param that name the problem.
    #[test]
    fn invalid_values_are_named() {
        let cases: Vec<(&str, Value, Code)> = vec![
            ("mediaUrl", json!("ftp://x/a.png"), Code::InvalidValue),
            ("mediaUrl", json!(5), Code::InvalidValue),
            ("mediaType", json!("gif"), Code::InvalidValue),
            (
                "remotion.object.rect",
                json!({"x": 1, "y": 1, "w": 1, "h": 1}),
                Code::InvalidValue,
            ),
            (
                "remotion.object.rect",
                json!({"layout_id": "a", "x": 1, "y": 1, "w": 0, "h": 1}),
                Code::InvalidValue,
            ),
            (
                "remotion.object.rect",
                json!({"layout_id": "a", "x": 1, "y": 1, "w": 5, "h": 1, "coordinate_space": "mm"}),
                Code::InvalidValue,
            ),
            (
                "remotion.group.rect",
                json!({"id": "g", "x": 0, "y": 99999, "w": 5, "h": 5}),
                Code::InvalidValue,
            ),
            (
                "remotion.group.rect",
                json!({"x": 0, "y": 0, "w": 5, "h": 5}),
                Code::InvalidValue,
            ),
            (
                "overlay.narrator.rect",
                json!({"x": 1, "y": 2, "w": 3}),
                Code::InvalidValue,
            ),
            ("overlay.narrator.x", json!("left"), Code::InvalidValue),
            ("overlay.caption.y", json!(null), Code::InvalidValue),
            ("overlay.caption.x", json!(5), Code::InvalidFieldName),
            ("voice.upload", json!("not a url"), Code::InvalidValue),
            ("roll.active", json!("C-roll"), Code::InvalidValue),
            ("segment.text", json!("   "), Code::InvalidValue),
            (
                "segment.text",
                json!("x".repeat(MAX_TEXT_CHARS + 1)),
                Code::InvalidValue,
            ),
            ("type", json!("STORY"), Code::InvalidValue),
            ("pattern", json!("freestyle"), Code::InvalidValue),
            ("typography_only", json!("maybe"), Code::InvalidValue),
            ("disable_overlay", json!(false), Code::InvalidValue),
            ("layout.batch", json!([]), Code::InvalidValue),
            (
                "layout.batch",
                json!([{"field_name": "pattern", "value": "list"}]),
                Code::MixedFieldFamilies,
            ),
            ("bogus.field", json!(1), Code::InvalidFieldName),
        ];
        for (name, value, code) in cases {
            match parse1(name, value.clone()) {
                Err(e) => {
                    assert_eq!(e.code, code, "{name} {value}: {e}");
                    assert!(e.param.is_some(), "{name}: error names no param");
                }
                Ok(v) => panic!("{name} {value} parsed as {v:?}"),
            }
        }
    }

    fn overlay(name: &str, value: Value) -> Result<OverlayEdit> {
        match parse1(name, value)?.pop() {
            Some(Edit::Overlay(o)) => Ok(o),
            other => panic!("{name} parsed as {other:?}"),
        }
    }

    /// B, M and O values parse to typed edits; M keeps the coordinate space it was sent in.
    #[test]
    fn overlay_values_parse_to_typed_edits() {
        use crate::edit::overlay_request::{AddElement, Element, Placement, TextEdit};
        let upload = |url: &str| OverlayEdit::Upload { url: url.into() };
        let text = |kind, text: &str| Element::Text {
            kind,
            text: text.into(),
        };
        let cases: Vec<(&str, Value, OverlayEdit)> = vec![
            (
                "remotion.upload_overlay",
                json!(" https://x.example/o.svg "),
                upload("https://x.example/o.svg"),
            ),
            (
                "remotion.upload_overlay",
                json!({"url": "http://x.example/o.png"}),
                upload("http://x.example/o.png"),
            ),
            (
                "remotion.add_element",
                json!(" Hi "),
                OverlayEdit::AddElement(AddElement {
                    element: text(TextKind::Text, "Hi"),
                    placement: Placement::Position(Position::Center),
                    space: RectSpace::Preview,
                }),
            ),
            (
                "remotion.add_element",
                json!({"kind": "stat", "text": "42%", "rect": {"x": 28, "y": 49.8, "w": 112, "h": 60}}),
                OverlayEdit::AddElement(AddElement {
                    element: text(TextKind::Stat, "42%"),
                    placement: Placement::Rect(
                        GeomPreviewRect::new(28.0, 49.8, 112.0, 60.0).to_canvas(),
                    ),
                    space: RectSpace::Preview,
                }),
            ),
            (
                "remotion.add_element",
                json!({"kind": "label", "value": "NEW", "position": " centre ", "coordinate_space": "canvas"}),
                OverlayEdit::AddElement(AddElement {
                    element: text(TextKind::Label, "NEW"),
                    placement: Placement::Position(Position::Center),
                    space: RectSpace::Canvas,
                }),
            ),
            (
                "remotion.add_element",
                json!({"kind": "image", "image_url": "https://x.example/a.png", "rect": {"x": 0, "y": 0, "w": 360, "h": 640}, "coordinate_space": "canvas", "position": 5}),
                OverlayEdit::AddElement(AddElement {
                    element: Element::Image {
                        url: "https://x.example/a.png".into(),
                    },
                    placement: Placement::Rect(CanvasRect::new(0.0, 0.0, 360.0, 640.0)),
                    space: RectSpace::Canvas,
                }),
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": " title ", "lines": "ONE | TWO->THREE"}),
                OverlayEdit::TextEdit(TextEdit {
                    wc_object: "title".into(),
                    lines: Some(vec!["ONE".into(), "TWO".into(), "THREE".into()]),
                    fill: None,
                }),
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "title", "lines": null, "fill": " #00ff00 "}),
                OverlayEdit::TextEdit(TextEdit {
                    wc_object: "title".into(),
                    lines: None,
                    fill: Some(typography::design::Rgb(0, 255, 0)),
                }),
            ),
        ];
        for (name, value, want) in cases {
            let got = overlay(name, value.clone());
            assert_eq!(got.as_ref().ok(), Some(&want), "{name} {value}: {got:?}");
            assert_eq!(want.field().as_str(), name);
        }
    }

    /// Every B/M/O value check answers `invalid_value` on `fields[].value` with the branch's
    /// own sentence.
    #[test]
    fn overlay_value_errors_keep_their_codes_params_and_messages() {
        let shape = "`remotion.add_element` takes a string (text) or `{kind, text, position | rect, coordinate_space}`.";
        let space = "`coordinate_space` must be `preview` (280×498, default) or `canvas` (720×1280), not `mm`.";
        let cases: Vec<(&str, Value, &str)> = vec![
            (
                "remotion.upload_overlay",
                json!(42),
                "`remotion.upload_overlay` takes a URL string or `{url}`.",
            ),
            (
                "remotion.upload_overlay",
                json!({"url": "  "}),
                "`remotion.upload_overlay` takes a URL string or `{url}`.",
            ),
            (
                "remotion.upload_overlay",
                json!("ftp://x.example/o.svg"),
                "The overlay URL must be http(s).",
            ),
            ("remotion.add_element", json!(null), shape),
            ("remotion.add_element", json!([1]), shape),
            (
                "remotion.add_element",
                json!({"kind": "video", "text": "x"}),
                "`kind` must be text, stat, label, callout or image, not `video`.",
            ),
            (
                "remotion.add_element",
                json!({"kind": 5, "text": "x"}),
                "`kind` must be text, stat, label, callout or image, not `5`.",
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "rect": {"x": 0, "y": 0, "w": 5}}),
                "`rect` needs numeric x, y, w, h.",
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "rect": {"x": 0, "y": 0, "w": 5, "h": 5}, "coordinate_space": "mm"}),
                space,
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "position": "top", "coordinate_space": "mm"}),
                space,
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "rect": {"x": 0, "y": 0, "w": 0, "h": 5}}),
                "`rect` must have a positive size and overlap the canvas.",
            ),
            (
                "remotion.add_element",
                json!({"text": "x", "rect": {"x": 720, "y": 0, "w": 5, "h": 5}, "coordinate_space": "canvas"}),
                "`rect` must have a positive size and overlap the canvas.",
            ),
            (
                "remotion.add_element",
                json!({"position": "middle", "text": "x"}),
                "`position` must be top, bottom, left, right or center.",
            ),
            (
                "remotion.add_element",
                json!({"position": 1, "text": "x"}),
                "`position` must be a string.",
            ),
            (
                "remotion.add_element",
                json!({"text": " "}),
                "A text element needs non-empty `text`.",
            ),
            (
                "remotion.add_element",
                json!("x".repeat(MAX_ELEMENT_TEXT + 1)),
                "An element's `text` may have at most 300 characters.",
            ),
            (
                "remotion.add_element",
                json!({"kind": "image", "text": "x"}),
                "An image element needs `url`.",
            ),
            (
                "remotion.add_element",
                json!({"kind": "image", "url": "file:///etc/passwd"}),
                "The overlay URL must be http(s).",
            ),
            (
                "overlay.text_edit",
                json!("title"),
                "`overlay.text_edit` takes `{wc_object, lines?, fill?}`.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": " ", "lines": ["A"]}),
                "`wc_object` (the data-wc-object to edit) is required.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "lines": ["A", 1]}),
                "`lines` must be an array of strings.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "lines": 3}),
                "`lines` must be an array of strings.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "lines": " | "}),
                "`lines` must hold 1 to 20 lines.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "lines": vec!["A"; MAX_LINES + 1]}),
                "`lines` must hold 1 to 20 lines.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "fill": "red"}),
                "`fill` must be a `#RRGGBB` colour.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "fill": 255}),
                "`fill` must be a `#RRGGBB` colour.",
            ),
            (
                "overlay.text_edit",
                json!({"wc_object": "t", "fill": null}),
                "`overlay.text_edit` needs `lines` or `fill`.",
            ),
        ];
        for (name, value, message) in cases {
            let e = overlay(name, value.clone()).unwrap_err();
            assert_eq!(
                (e.code, e.param.as_deref(), e.message.as_str()),
                (Code::InvalidValue, Some("fields[].value"), message),
                "{name} {value}"
            );
        }
    }

    #[test]
    fn envelope_fields() {
        let fam = |v: Value| read(&v).map(|f| (f.family, f.edits.len()));
        let code = |v: Value| read(&v).unwrap_err().code;
        assert_eq!(
            fam(json!([{"field_name": "mediaUrl", "value": "https://x.example/a"}, {"field_name": "mediaType", "value": "video"}])).unwrap(),
            (Family::Media, 1)
        );
        assert_eq!(
            fam(json!([{"field_name": "overlay.narrator.x", "value": 5}, {"field_name": "overlay.caption.y", "value": 200}])).unwrap(),
            (Family::Layout, 2)
        );
        assert_eq!(
            fam(json!([{"field_name": "layout.batch", "value": [
                {"field_name": "overlay.narrator.rect", "value": {"x": 1, "y": 2, "w": 50, "h": 50}},
                {"field_name": "remotion.group.rect", "value": {"id": "g1", "x": 0, "y": 0, "w": 10, "h": 10}}
            ]}])).unwrap(),
            (Family::Layout, 2)
        );
        assert_eq!(
            fam(json!([{"field_name": "pattern", "value": "list"}, {"field_name": "quote", "value": "q"}])).unwrap(),
            (Family::Metadata, 2)
        );
        assert_eq!(code(json!([])), Code::MissingField);
        assert_eq!(code(json!({"field_name": "quote"})), Code::InvalidField);
        assert_eq!(code(json!([{"value": 1}])), Code::MissingField);
        assert_eq!(
            code(
                json!([{"field_name": "quote", "value": "q"}, {"field_name": "overlay.caption.y", "value": 200}])
            ),
            Code::MixedFieldFamilies
        );
        assert_eq!(
            code(
                json!([{"field_name": "disable_overlay", "value": true}, {"field_name": "overlay.disable", "value": true}])
            ),
            Code::MixedFieldFamilies
        );
        assert_eq!(
            code(json!([{"field_name": "mediaType", "value": "image"}])),
            Code::MissingField
        );
        assert_eq!(
            code(
                json!([{"field_name": "segment.text", "value": "a"}, {"field_name": "segment.text", "value": "b"}])
            ),
            Code::InvalidFieldName
        );
        assert!(read(&Value::Null).is_err());
    }

    #[test]
    fn every_canonical_pattern_and_scene_type_is_accepted() {
        assert!(PATTERNS.iter().all(|p| values::pattern(p, "p").is_ok()));
        assert!(
            SceneType::NAMES
                .iter()
                .all(|t| values::scene_type(t, "t").is_ok())
        );
    }

    /// A number the schema documents for `name`'s `property` (a `#[schema]` attribute takes a
    /// literal, so the constants the reader checks are held to it here).
    fn documented<T: utoipa::PartialSchema>(property: &str, keyword: &str) -> f64 {
        let schema = serde_json::to_value(T::schema()).unwrap();
        let found = schema["properties"][property][keyword]
            .as_f64()
            .or_else(|| {
                schema["allOf"].as_array().and_then(|all| {
                    all.iter()
                        .find_map(|s| s["properties"][property][keyword].as_f64())
                })
            });
        found.unwrap_or_else(|| panic!("no {keyword} for {property} in {schema}"))
    }

    #[test]
    fn the_schemas_limits_are_the_readers_constants() {
        use crate::edit::scenes::parse::MAX_META_CHARS;
        // A documented rect stays within the reader's extent in either space (preview px scale
        // up about 2.57×).
        let limit = documented::<Xywh>("w", "maximum");
        assert_eq!(documented::<Xywh>("x", "minimum"), -limit);
        assert!(limit * 720.0 / 280.0 <= MAX_CANVAS_EXTENT);
        assert_eq!(
            documented::<SegmentTextField>("value", "maxLength"),
            MAX_TEXT_CHARS as f64
        );
        assert_eq!(
            documented::<MetaTextField>("value", "maxLength"),
            MAX_META_CHARS as f64
        );
        assert_eq!(
            documented::<overlay::ElementValue>("text", "maxLength"),
            MAX_ELEMENT_TEXT as f64
        );
        assert_eq!(
            documented::<overlay::TextEditLines>("lines", "maxItems"),
            MAX_LINES as f64
        );
    }

    /// Each item's schema names exactly the names it is read by, so the document lists every
    /// alias and no item answers to another's name.
    #[test]
    fn every_item_is_documented_with_the_names_it_reads() {
        let names = |schema: utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>| {
            let v = serde_json::to_value(schema).unwrap();
            v["properties"]["field_name"]["$ref"]
                .as_str()
                .map(str::to_string)
        };
        assert_eq!(
            names(<MediaUrlField as utoipa::PartialSchema>::schema()).as_deref(),
            Some("#/components/schemas/MediaUrlName")
        );
        assert_eq!(MediaUrlName::NAMES, &["mediaUrl", "media_url"]);
        assert_eq!(
            DisableOverlayName::NAMES,
            &[
                "disable_overlay",
                "remotion.disable_overlay",
                "overlay.disable",
                "remotion_spec.none"
            ]
        );
        for name in [
            "mediaUrl",
            "layout.batch",
            "roll.switch",
            "overlay.text_edit",
        ] {
            assert!(family_of(name).is_ok(), "{name}");
        }
        assert_eq!(
            family_of("quote").unwrap(),
            family_of("talking_point").unwrap()
        );
    }

    /// O takes new lines, a new fill, or both; either alone is documented as its own form.
    #[test]
    fn a_text_edit_is_read_as_the_form_its_members_name() {
        let read = |v: Value| serde_json::from_value::<overlay::TextEditValue>(v).unwrap();
        assert!(matches!(
            read(json!({"wc_object": "t", "lines": ["A"], "fill": "#000000"})),
            overlay::TextEditValue::Lines(_)
        ));
        assert!(matches!(
            read(json!({"wc_object": "t", "fill": "#000000"})),
            overlay::TextEditValue::Fill(_)
        ));
        let e = parse1("overlay.text_edit", json!({"wc_object": "t"})).unwrap_err();
        assert_eq!(
            (e.code, e.param.as_deref()),
            (Code::InvalidValue, Some("fields[].value"))
        );
    }

    /// D names its group by `id` or `group_id`, with the rect beside it or under `rect`.
    #[test]
    fn a_group_is_named_by_id_or_group_id() {
        let rect = CanvasRect::new(0.0, 10.0, 720.0, 300.0);
        for value in [
            json!({"group_id": "g1", "x": 0, "y": 10, "w": 720, "h": 300}),
            json!({"id": "g1", "rect": {"x": 0, "y": 10, "w": 720, "h": 300}}),
        ] {
            assert_eq!(
                parse1("remotion.group.rect", value).unwrap(),
                vec![Edit::GroupRect {
                    id: "g1".into(),
                    rect,
                    scale_children: true,
                    wrapper_only: false,
                }]
            );
        }
        let e = parse1(
            "remotion.group.rect",
            json!({"x": 0, "y": 0, "w": 5, "h": 5}),
        )
        .unwrap_err();
        assert_eq!(e.param.as_deref(), Some("fields[0].value.id"));
    }
}
