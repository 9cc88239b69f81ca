//! `POST /v1/scene_inspector`'s typed request and reply. The handler (in `api`) renders the
//! two still actions with the server compositor and forwards every live-editor action to an
//! open editor tab (`crate::edit::live`), or answers the spec's `unavailable` envelope.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::edit::scenes::select::{SceneValue, Selector, display_id_field};
use foundation::error::{Code, Error, Result};
use foundation::fields::Body;

foundation::document::wire_enum! {
    /// Every action of the spec; the first two render on the server.
    pub enum InspectorAction: Code::InvalidAction {
        ScreenshotScene = "screenshot_scene_280x498",
        OverlayPoster = "overlay_poster",
        ListLiveEditors = "list_live_editors",
        ListInstances = "list_instances",
        GetPreviewState = "get_preview_state",
        GetSceneDomSnapshot = "get_scene_dom_snapshot",
        GetComputedBoxes = "get_computed_boxes",
        ActivateScene = "activate_scene",
        ReloadPreview = "reload_preview",
        PausePreview = "pause_preview",
        PlayPreview = "play_preview",
        SeekPreview = "seek_preview",
    }
}

impl InspectorAction {
    /// Whether the server compositor answers it (no live editor needed).
    pub fn renders_on_server(self) -> bool {
        matches!(
            self,
            InspectorAction::ScreenshotScene | InspectorAction::OverlayPoster
        )
    }
}

/// `POST /v1/scene_inspector`'s body.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct SceneInspectorRequest {
    /// Topic id of the video (`topic_id` is accepted as an alias).
    #[schema(example = "wc1a2b3c4d5e6f", pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub id: String,
    pub action: InspectorAction,
    /// The scene's stable name (preferred over `scene_id`); the still actions need one of them.
    pub voice_file: Option<String>,
    /// The scene's display id.
    #[schema(schema_with = display_id_field)]
    pub scene_id: Option<SceneValue>,
    /// DOM selector for snapshot and boxes (live editors only).
    pub selector: Option<String>,
    /// Lets the elected tab switch scenes (live editors only).
    pub activate: Option<bool>,
    /// Time in the scene for `seek_preview` and the screenshot.
    #[schema(minimum = 0.0)]
    pub seek_seconds: Option<f64>,
    /// Command timeout; the server clamps it to 1000–15000 ms.
    pub timeout_ms: Option<i64>,
    /// Probe window; the server clamps it to 150–2000 ms.
    pub probe_timeout_ms: Option<i64>,
    /// Parsed and ignored: stills are always published as files.
    pub return_base64: Option<bool>,
    /// Action-specific options (free-form).
    #[schema(value_type = Option<Object>)]
    pub options: Option<serde_json::Map<String, Value>>,
}

/// A scene_inspector call, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    pub id: String,
    pub action: InspectorAction,
    /// `voice_file` if sent, else `scene_id`; blank counts as absent.
    pub scene: Option<Selector>,
    pub selector: Option<String>,
    pub activate: Option<bool>,
    pub seek_seconds: Option<f64>,
    pub timeout_ms: Option<i64>,
    pub probe_timeout_ms: Option<i64>,
    pub options: Option<serde_json::Map<String, Value>>,
}

impl Body for SceneInspectorRequest {
    type Valid = Inspection;
    const CODES: &'static [(&'static str, Code)] = &[
        ("id", Code::InvalidId),
        ("action", Code::InvalidAction),
        ("voice_file", Code::InvalidValue),
        ("scene_id", Code::InvalidValue),
        ("selector", Code::InvalidValue),
        ("activate", Code::InvalidValue),
        ("seek_seconds", Code::InvalidValue),
        ("timeout_ms", Code::InvalidValue),
        ("probe_timeout_ms", Code::InvalidValue),
        ("return_base64", Code::InvalidValue),
        ("options", Code::InvalidValue),
    ];
    const ALIASES: &'static [(&'static str, &'static str)] = &[("topic_id", "id")];

    fn validate(self) -> Result<Inspection> {
        if self.seek_seconds.is_some_and(|s| s < 0.0) {
            return Err(Error::new(
                Code::InvalidValue,
                "`seek_seconds` must be a number of seconds, 0 or more.",
            )
            .param("seek_seconds"));
        }
        let voice_file = self
            .voice_file
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        let scene = match (voice_file, self.scene_id) {
            (Some(v), _) => Some(Selector::VoiceFile(v)),
            (None, Some(id)) => Selector::scene_id(&id)?,
            (None, None) => None,
        };
        Ok(Inspection {
            id: self.id.trim().to_string(),
            action: self.action,
            scene,
            selector: self.selector,
            activate: self.activate,
            seek_seconds: self.seek_seconds,
            timeout_ms: self.timeout_ms,
            probe_timeout_ms: self.probe_timeout_ms,
            options: self.options,
        })
    }
}

/// `scene_inspector`'s 200 body (the handler adds `request_id`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct InspectorReply {
    /// Always `scene_inspector_result`.
    #[schema(example = "scene_inspector_result")]
    pub object: &'static str,
    /// `completed`, or `unavailable` for live-editor actions without an editor.
    pub status: &'static str,
    /// When unavailable: `no_live_editor`, `no_active_editor`, `editor_timeout` or
    /// `editor_disconnected`; else null.
    pub code: Option<&'static str>,
    pub action: InspectorAction,
    pub topic_id: String,
    pub company_id: String,
    /// The elected editor tab's instance id (live actions), else null.
    #[schema(value_type = Option<String>)]
    pub selected_browser: Option<String>,
    pub result: InspectorResult,
}

/// What the action produced.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum InspectorResult {
    Screenshot(ScreenshotResult),
    Poster(PosterResult),
    Unavailable(Unavailable),
    Live(LiveResult),
}

/// A live action's result.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum LiveResult {
    /// `list_live_editors`, `list_instances`: the open tabs.
    Editors(LiveEditorsResult),
    /// Every other live action: the elected tab's answer, e.g. `get_preview_state`'s
    /// `{playing, paused, scene, time}` or `get_computed_boxes`' `{scene_uid, boxes[]}`.
    Answer(LiveAnswer),
}

/// The tabs open on the video.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct LiveEditorsResult {
    pub count: usize,
    pub editors: Vec<crate::edit::live::TabInfo>,
}

/// What the elected tab answered, with its instance id.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct LiveAnswer {
    pub editor_instance: String,
    /// The action's fields (see the action).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub data: serde_json::Map<String, Value>,
}

/// Why a live-editor action could not run.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Unavailable {
    pub message: &'static str,
}

/// The scene a still shows.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct StillScene {
    pub action: InspectorAction,
    /// Display id, as a string.
    pub scene_id: String,
    pub voice_file: String,
    pub scene_index: usize,
}

/// A published still: a public URL that expires.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct StillFile {
    pub url: String,
    /// `image/jpeg` (screenshot) or `image/png` (poster).
    pub mime_type: &'static str,
    pub width: u32,
    pub height: u32,
    pub bytes: u64,
    pub expires_at: String,
    pub ttl_seconds: u64,
}

/// `screenshot_scene_280x498`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ScreenshotResult {
    #[serde(flatten)]
    pub scene: StillScene,
    pub screenshot: StillFile,
}

/// `overlay_poster`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PosterResult {
    #[serde(flatten)]
    pub scene: StillScene,
    pub overlay_poster: StillFile,
    /// The eight audit dimensions to check the poster against.
    pub review_checklist: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;
    use serde_json::json;

    fn err(body: Value) -> (Code, Option<String>) {
        let e = body::read::<SceneInspectorRequest>(&body).expect_err("rejected");
        (e.code, e.param)
    }

    #[test]
    fn the_request_keeps_the_spec_codes_and_params() {
        let ok = body::read::<SceneInspectorRequest>(
            &json!({"topic_id": " wcX ", "action": "overlay_poster", "scene_id": 3, "return_base64": true}),
        )
        .unwrap();
        assert_eq!(ok.scene, Some(Selector::Id(3)));
        assert_eq!(
            (ok.id.as_str(), ok.action),
            ("wcX", InspectorAction::OverlayPoster)
        );
        let read = |b: Value| body::read::<SceneInspectorRequest>(&b).unwrap().scene;
        let both = json!({"id": "wcX", "action": "overlay_poster", "scene_id": "2", "voice_file": "v.mp3"});
        assert_eq!(read(both), Some(Selector::VoiceFile("v.mp3".into())));
        let blank =
            json!({"id": "wcX", "action": "overlay_poster", "scene_id": " 2 ", "voice_file": " "});
        assert_eq!(read(blank), Some(Selector::Id(2)));
        let cases = [
            (
                json!({"action": "overlay_poster"}),
                Code::MissingField,
                "id",
            ),
            (json!({"id": "wcX"}), Code::MissingField, "action"),
            (
                json!({"id": "wcX", "action": ""}),
                Code::MissingField,
                "action",
            ),
            (
                json!({"id": "wcX", "action": 3}),
                Code::InvalidAction,
                "action",
            ),
            (
                json!({"id": "wcX", "action": "overlay_poster", "scene_id": "two"}),
                Code::InvalidValue,
                "scene_id",
            ),
            (
                json!({"id": "wcX", "action": "overlay_poster", "scene_id": -1}),
                Code::InvalidValue,
                "scene_id",
            ),
            (
                json!({"id": "wcX", "action": "eval"}),
                Code::InvalidAction,
                "action",
            ),
            (
                json!({"id": "wcX", "action": "overlay_poster", "seek_seconds": -1}),
                Code::InvalidValue,
                "seek_seconds",
            ),
            (
                json!({"id": "wcX", "action": "overlay_poster", "voice_file": 5}),
                Code::InvalidValue,
                "voice_file",
            ),
            (
                json!({"id": "wcX", "action": "seek_preview", "timeout_ms": "fast"}),
                Code::InvalidValue,
                "timeout_ms",
            ),
            (
                json!({"id": "wcX", "action": "overlay_poster", "return_base64": "yes"}),
                Code::InvalidValue,
                "return_base64",
            ),
        ];
        for (body, code, param) in cases {
            assert_eq!(err(body.clone()), (code, Some(param.to_string())), "{body}");
        }
    }

    #[test]
    fn action_names_round_trip() {
        for name in InspectorAction::NAMES {
            let a = InspectorAction::parse(name).unwrap();
            assert_eq!(serde_json::to_value(a).unwrap(), json!(name));
        }
    }
}
