//! `applied`: what each field of an edit changed, in `modify_scene`'s reply, the 202 of an
//! upload (empty) and the realtime messages. One typed object for every branch: a key is present
//! only when its branch ran, so the wire JSON is exactly the branch's keys.

use compositor::geom::PreviewRect;
use serde::Serialize;
use utoipa::ToSchema;

use crate::edit::overlay_applied::{AddElementApplied, TextEditApplied, UploadOverlayApplied};
use crate::edit::overlay_edits::OverlayApplied;
use foundation::document::{MediaKind, RectOut, Roll, SceneType, SpecState};

/// What the fields of one call changed; keys and shapes depend on the branch.
#[derive(Debug, Clone, PartialEq, Default, Serialize, ToSchema)]
pub struct Applied {
    /// A: the new background's URL.
    #[serde(rename = "mediaUrl", skip_serializing_if = "Option::is_none")]
    pub media_url: Option<String>,
    /// A: `image` or `video`.
    #[serde(rename = "mediaType", skip_serializing_if = "Option::is_none")]
    pub media_type: Option<MediaKind>,
    /// A: the lane the scene shows (the background always takes the asset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lane: Option<Roll>,
    /// B: the uploaded overlay.
    #[serde(
        rename = "remotion.upload_overlay",
        skip_serializing_if = "Option::is_none"
    )]
    pub upload_overlay: Option<UploadOverlayApplied>,
    /// C: every object rect set, in order.
    #[serde(
        rename = "remotion.object.rect",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub object_rects: Vec<ObjectRectApplied>,
    /// D: every group rect set, in order.
    #[serde(
        rename = "remotion.group.rect",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub group_rects: Vec<GroupRectApplied>,
    /// E: the narrator rect after every side applied (preview px).
    #[serde(
        rename = "overlay.narrator.rect",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<RectOut>)]
    pub narrator_rect: Option<PreviewRect>,
    /// E: always true with `overlay.narrator.rect`.
    #[serde(
        rename = "overlay.narrator.touched",
        skip_serializing_if = "Option::is_none"
    )]
    pub narrator_touched: Option<bool>,
    /// F: the caption's new y (preview px).
    #[serde(rename = "overlay.caption.y", skip_serializing_if = "Option::is_none")]
    pub caption_y: Option<f64>,
    /// H: the voice file's URL.
    #[serde(rename = "voice.upload", skip_serializing_if = "Option::is_none")]
    pub voice_upload: Option<String>,
    /// I: the narrator video's URL.
    #[serde(
        rename = "narrator.upload_video",
        skip_serializing_if = "Option::is_none"
    )]
    pub narrator_video: Option<String>,
    /// I: the narrator video's length, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub video_duration: Option<f64>,
    /// P: the video's music bed now (`auto`, `none` or a track id).
    #[serde(rename = "video.music", skip_serializing_if = "Option::is_none")]
    pub music: Option<String>,
    /// J and I: the lane before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roll: Option<RollSwitch>,
    /// K: the new text.
    #[serde(rename = "segment.text", skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// K and H: the scene's narration length, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// H: the scene's length before the upload, seconds (the editor says when it changed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_duration: Option<f64>,
    /// K and H: how many timed words the scene has now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub word_count: Option<usize>,
    /// L: the scene type.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub scene_type: Option<SceneType>,
    /// L: the pattern.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<&'static str>,
    /// L.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// L (empty when `typography_only` turned on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visual: Option<String>,
    /// L.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// L.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub talking_point: Option<String>,
    /// L.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typography_only: Option<bool>,
    /// M: the added element.
    #[serde(
        rename = "remotion.add_element",
        skip_serializing_if = "Option::is_none"
    )]
    pub add_element: Option<AddElementApplied>,
    /// N: always `none`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "none")]
    pub remotion_spec: Option<&'static str>,
    /// N: always `disabled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remotion_spec_state: Option<SpecState>,
    /// O: the text edit.
    #[serde(rename = "overlay.text_edit", skip_serializing_if = "Option::is_none")]
    pub text_edit: Option<TextEditApplied>,
}

impl Applied {
    /// H: a voice upload applied: its URL, the scene's length before and after (seconds) and
    /// the word count.
    pub(crate) fn voice_upload(
        url: &str,
        (before, seconds): (f64, f64),
        word_count: usize,
    ) -> Applied {
        Applied {
            voice_upload: Some(url.to_string()),
            duration: Some(seconds),
            previous_duration: Some(before),
            word_count: Some(word_count),
            ..Applied::default()
        }
    }

    /// I: a narrator video applied: its URL, the lane change and the video's length.
    pub(crate) fn narrator_video(url: &str, roll: RollSwitch, seconds: f64) -> Applied {
        Applied {
            narrator_video: Some(url.to_string()),
            roll: Some(roll),
            video_duration: Some(seconds),
            ..Applied::default()
        }
    }

    /// Records what a B/M/O field did under its field name (a later one of the same field
    /// replaces an earlier one).
    pub fn overlay(&mut self, a: OverlayApplied) {
        match a {
            OverlayApplied::Upload(u) => self.upload_overlay = Some(u),
            OverlayApplied::AddElement(e) => self.add_element = Some(e),
            OverlayApplied::TextEdit(t) => self.text_edit = Some(t),
        }
    }
}

/// C: one object (or `{group}.one_by_one`) moved.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ObjectRectApplied {
    pub layout_id: String,
    /// The new rect, canvas px.
    pub rect_canvas: RectOut,
    /// The new rect, preview px.
    pub rect: RectOut,
    /// The layout ids that moved.
    pub moved_objects: Vec<String>,
}

/// D: one group frame set.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct GroupRectApplied {
    pub id: String,
    /// The new frame, canvas px.
    pub rect_canvas: RectOut,
    /// The new frame, preview px.
    pub rect: RectOut,
    pub scale_children: bool,
    pub wrapper_only: bool,
}

/// J and I: a lane change.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct RollSwitch {
    pub from: Roll,
    pub to: Roll,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn upload_applied_json() {
        let v = |a: &Applied| serde_json::to_value(a).unwrap();
        assert_eq!(v(&Applied::default()), json!({}));
        assert_eq!(
            v(&Applied::voice_upload(
                "https://x.example/v.wav",
                (7.0, 2.5),
                7
            )),
            json!({ "voice.upload": "https://x.example/v.wav", "duration": 2.5, "previous_duration": 7.0, "word_count": 7 })
        );
        let roll = RollSwitch {
            from: Roll::BRoll,
            to: Roll::ARoll,
        };
        assert_eq!(
            v(&Applied::narrator_video(
                "https://x.example/n.mp4",
                roll,
                3.0
            )),
            json!({
                "narrator.upload_video": "https://x.example/n.mp4",
                "roll": { "from": "B-roll", "to": "A-roll" },
                "video_duration": 3.0,
            })
        );
    }
}
