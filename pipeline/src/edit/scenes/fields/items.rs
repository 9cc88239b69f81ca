//! Every `{field_name, value}` item `modify_scene` takes, one struct each (its names, with their
//! aliases, and its value's type), and the families they form. An item is read as its family
//! ([`super::read_field`]): serde picks the item by its `field_name`.

use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::values::{
    CaptionY, DisableValue, GroupRect, LayoutBatch, NarratorRect, NarratorSide, ObjectRect,
    RollSwitchValue, UrlValue,
};
use crate::edit::overlay_request::{
    AddElementName, AddElementValue, TextEditName, TextEditValue, UploadOverlayName,
};
use foundation::document::{MediaKind, Roll, SceneType};
use video::render::music_schema;

/// Declares each item: the struct `{field_name, value}` (an absent `value` reads as `null`,
/// which only an `Option` value takes), and the wire enum of its `field_name`s where they are
/// listed (B, M and O name theirs, which `overlay_request` defines beside the edits they make).
macro_rules! items {
    ($(
        $(#[$doc:meta])*
        $item:ident($names:ident $({ $($variant:ident = $wire:tt),+ $(,)? })?)
            => $(#[$vattr:meta])* $value:ty;
    )+) => {$(
        $(foundation::document::wire_enum! {
            /// The item's `field_name`, and its aliases.
            pub enum $names { $($variant = $wire),+ }
        })?

        items!(@item $(#[$doc])* $item, $names, $(#[$vattr])* $value);
    )+};
    (@item $(#[$doc:meta])* $item:ident, $names:ident, $(#[$vattr:meta])* $value:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
        pub struct $item {
            pub field_name: $names,
            $(#[$vattr])*
            pub value: $value,
        }

        impl $item {
            /// Whether `name` is one of this item's names.
            pub(crate) fn named(name: &str) -> bool {
                $names::parse(name).is_some()
            }
        }
    };
}

items! {
    /// A: the new background, an image or a video.
    MediaUrlField(MediaUrlName { MediaUrl = "mediaUrl", MediaUrlSnake = "media_url" }) => UrlValue;
    /// A: what the background is, when its URL's extension does not say.
    MediaTypeField(MediaTypeName { MediaType = "mediaType", MediaTypeSnake = "media_type" })
        => #[schema(value_type = MediaKind)] String;
    /// C: an object's rect.
    ObjectRectField(ObjectRectName { ObjectRect = "remotion.object.rect" }) => ObjectRect;
    /// D: a group's frame.
    GroupRectField(GroupRectName { GroupRect = "remotion.group.rect" }) => GroupRect;
    /// E: the narrator's rect, 280×498 preview px.
    NarratorRectField(NarratorRectName { NarratorRect = "overlay.narrator.rect" })
        => NarratorRect;
    /// E: one side of the narrator's rect, preview px.
    NarratorSideField(NarratorSideName {
        X = "overlay.narrator.x",
        Y = "overlay.narrator.y",
        W = "overlay.narrator.w",
        H = "overlay.narrator.h",
    }) => NarratorSide;
    /// F: the caption's Y, preview px (only its Y can change).
    CaptionYField(CaptionYName { CaptionY = "overlay.caption.y" }) => CaptionY;
    /// G: layout fields in one call, one write and one realtime message.
    LayoutBatchField(LayoutBatchName { LayoutBatch = "layout.batch" }) => LayoutBatch;
    /// H (async): a recording that becomes the scene's narration.
    VoiceUploadField(VoiceUploadName { VoiceUpload = "voice.upload" }) => UrlValue;
    /// I (async): a video of the narrator; a B-roll scene switches to A-roll once it is in.
    NarratorVideoField(NarratorVideoName { NarratorVideo = "narrator.upload_video" }) => UrlValue;
    /// J: the roll the scene shows (any spelling of a roll's name).
    RollActiveField(RollActiveName { RollActive = "roll.active" })
        => #[schema(value_type = Roll)] String;
    /// J: switch the roll (`true`, `null` or `toggle`), or set it by name.
    RollSwitchField(RollSwitchName { RollSwitch = "roll.switch" }) => Option<RollSwitchValue>;
    /// K: the scene's words; the word timings are rebuilt over the audio it has.
    SegmentTextField(SegmentTextName { SegmentText = "segment.text", Text = "text" })
        => #[schema(max_length = 2000, pattern = r"\S")] String;
    /// L: the scene's type (any case; `_` or `-` for spaces).
    SceneTypeField(SceneTypeName { Type = "type", SceneType = "scene_type" })
        => #[schema(value_type = SceneType)] String;
    /// L: the scene's pattern, one of the canonical patterns scene building writes.
    PatternField(PatternName { Pattern = "pattern" })
        => #[schema(schema_with = super::values::patterns_schema)] String;
    /// L: the scene's text metadata.
    MetaTextField(MetaTextName {
        Quote = "quote",
        Visual = "visual",
        Keyword = "keyword",
        TalkingPoint = "talking_point",
    }) => #[schema(max_length = 1000)] String;
    /// L: whether the scene is typography only (clears `visual`).
    TypographyOnlyField(TypographyOnlyName { TypographyOnly = "typography_only" })
        => #[schema(value_type = bool)] Value;
    /// N: turn the scene's overlay off; its files are kept. Sent alone.
    DisableOverlayField(DisableOverlayName {
        DisableOverlay = "disable_overlay",
        RemotionDisableOverlay = "remotion.disable_overlay",
        OverlayDisable = "overlay.disable",
        SpecNone = "remotion_spec.none",
    }) => Option<DisableValue>;
    /// P: the video's music bed, a setting of the whole video.
    VideoMusicField(VideoMusicName { VideoMusic = "video.music" })
        => #[schema(schema_with = music_schema)] String;
    /// B: an overlay to download (SVG through svg2spec, other formats classified).
    UploadOverlayField(UploadOverlayName) => UrlValue;
    /// M: an element to add.
    AddElementField(AddElementName) => AddElementValue;
    /// O: new lines or fill for one object of an svg2spec overlay.
    TextEditField(TextEditName) => TextEditValue;
}

/// Declares a family of several items: an enum serde reads as whichever item the
/// `field_name` names.
macro_rules! family {
    ($(#[$doc:meta])* $family:ident { $($variant:ident($item:ident)),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
        #[serde(untagged)]
        pub enum $family { $($variant($item)),+ }

        impl $family {
            /// Whether `name` is one of this family's fields.
            pub(crate) fn named(name: &str) -> bool {
                false $(|| $item::named(name))+
            }
        }
    };
}

family! {
    /// A's items.
    BackgroundItem { Url(MediaUrlField), Type(MediaTypeField) }
}

family! {
    /// The layout fields a batch takes (C, D, E, F).
    LayoutChild {
        ObjectRect(ObjectRectField),
        GroupRect(GroupRectField),
        NarratorRect(NarratorRectField),
        NarratorSide(NarratorSideField),
        CaptionY(CaptionYField),
    }
}

family! {
    /// The layout family: its fields, or a batch of them (G).
    LayoutItem { Child(LayoutChild), Batch(LayoutBatchField) }
}

family! {
    /// J's items.
    RollItem { Active(RollActiveField), Switch(RollSwitchField) }
}

family! {
    /// L's items.
    MetadataItem {
        SceneType(SceneTypeField),
        Pattern(PatternField),
        Text(MetaTextField),
        TypographyOnly(TypographyOnlyField),
    }
}

/// Declares the list of one family's items, `once` when the family is sent one item per call.
macro_rules! lists {
    ($($(#[$doc:meta])* $list:ident($item:ty) $(, once = $once:tt)?;)+) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, ToSchema)]
        #[schema(min_items = 1 $(, max_items = $once)?)]
        pub struct $list(pub Vec<$item>);
    )+};
}

lists! {
    /// The `background` family: `mediaUrl`, with `mediaType` beside it when needed.
    BackgroundFields(BackgroundItem);
    /// The `layout` family.
    LayoutFields(LayoutItem);
    /// The `voice_upload` family.
    VoiceUploadFields(VoiceUploadField), once = 1;
    /// The `narrator_video` family.
    NarratorVideoFields(NarratorVideoField), once = 1;
    /// The `roll` family.
    RollFields(RollItem), once = 1;
    /// The `segment_text` family.
    SegmentTextFields(SegmentTextField), once = 1;
    /// The `metadata` family.
    MetadataFields(MetadataItem);
    /// The `disable_overlay` family, sent alone.
    DisableOverlayFields(DisableOverlayField), once = 1;
    /// The `video_settings` family.
    VideoSettingsFields(VideoMusicField), once = 1;
    /// The `remotion.upload_overlay` family.
    UploadOverlayFields(UploadOverlayField);
    /// The `remotion.add_element` family.
    AddElementFields(AddElementField);
    /// The `overlay.text_edit` family.
    TextEditFields(TextEditField);
}

/// `modify_scene`'s `fields`: one family of `{field_name, value}` items per call; each field
/// takes its own value type. A `mediaType` item needs a `mediaUrl` item beside it.
#[derive(Debug, Clone, PartialEq, ToSchema)]
#[serde(untagged)]
pub enum SceneFields {
    Background(BackgroundFields),
    Layout(LayoutFields),
    VoiceUpload(VoiceUploadFields),
    NarratorVideo(NarratorVideoFields),
    Roll(RollFields),
    SegmentText(SegmentTextFields),
    Metadata(MetadataFields),
    DisableOverlay(DisableOverlayFields),
    VideoSettings(VideoSettingsFields),
    UploadOverlay(UploadOverlayFields),
    AddElement(AddElementFields),
    TextEdit(TextEditFields),
}
