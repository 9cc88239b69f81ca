//! `POST /v1/video_data`: the request ([`VideoDataRequest`], a [`Body`]) and the
//! small envelope of the reply ([`VideoData`]). The scene tree itself is the expiring public
//! file the envelope points at (`VideoDocument::to_public`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::Result;
use crate::fields::Body;
use crate::public::Published;

/// The body of `POST /v1/video_data`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VideoDataRequest {
    /// The video's topic id (`id` is accepted as an alias).
    #[schema(min_length = 1)]
    pub video_id: String,
    /// Adds the diagnostics of each scene to the tree (default false).
    #[serde(default)]
    pub include_diagnostics: bool,
}

/// Read by [`body::read`](crate::fields::body::read): `video_id` (or `id`) is required.
impl Body for VideoDataRequest {
    type Valid = VideoDataRequest;
    const ALIASES: &'static [(&'static str, &'static str)] = &[("id", "video_id")];

    fn validate(self) -> Result<Self> {
        Ok(VideoDataRequest {
            video_id: self.video_id.trim().to_string(),
            ..self
        })
    }
}

/// The `object` name of a [`VideoData`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum VideoDataTag {
    VideoData,
}

/// How the scene tree is delivered: always as a file to download.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryMode {
    DownloadUrl,
}

/// What a client should do next with the envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NextAction {
    DownloadDataUrl,
}

/// The reply of `POST /v1/video_data`: where to download the scene tree, and a summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VideoData {
    pub object: VideoDataTag,
    pub id: String,
    pub topic_id: String,
    pub delivery_mode: DeliveryMode,
    /// The client skill that reads the tree.
    pub skill_required: String,
    #[schema(format = "uri")]
    pub review_url: String,
    pub data: VideoDataFile,
    pub instructions: String,
    pub next_action: NextAction,
    pub meta: VideoDataMeta,
}

/// The temporary public JSON file holding the full scene tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VideoDataFile {
    /// Download it (no auth) before `expires_at`.
    #[schema(format = "uri")]
    pub url: String,
    /// `application/json`.
    pub mime_type: String,
    pub bytes: u64,
    #[schema(format = DateTime)]
    pub expires_at: String,
    /// 900.
    pub ttl_seconds: u64,
}

/// A summary of the video, so a client can decide before downloading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VideoDataMeta {
    pub title: String,
    pub total_segments: usize,
    /// Seconds, to the millisecond.
    pub total_duration: f64,
    pub include_diagnostics: bool,
    /// What the tree leaves out.
    pub trimmed: Vec<String>,
}

const INSTRUCTIONS: &str = "Download data.url (no auth) before it expires; it holds the full scene tree. Select scenes by voice_file (stable), never by id or scene_index (display order). Fetch a scene's remotion_spec_url only when its remotion_spec_state is ready. Rects under overlay.* are in 280x498 editor preview space; spec content is in 720x1280 canvas space.";

/// What the tree leaves out.
const TRIMMED: &[&str] = &["segments[].words", "script", "internal file names"];

/// The summary of a published tree, for [`VideoData::new`].
#[derive(Debug, Clone, PartialEq)]
pub struct TreeSummary {
    pub review_url: String,
    pub title: String,
    pub total_segments: usize,
    /// Seconds.
    pub total_duration: f64,
}

impl VideoData {
    /// The envelope of the tree of `req.video_id`, published as `file`.
    pub fn new(req: &VideoDataRequest, file: &Published, tree: TreeSummary) -> VideoData {
        VideoData {
            object: VideoDataTag::VideoData,
            id: req.video_id.clone(),
            topic_id: req.video_id.clone(),
            delivery_mode: DeliveryMode::DownloadUrl,
            skill_required: "video_data_reader".into(),
            review_url: tree.review_url,
            data: VideoDataFile {
                url: file.url.clone(),
                mime_type: "application/json".into(),
                bytes: file.bytes,
                expires_at: file.expires_at_iso(),
                ttl_seconds: file.ttl_seconds,
            },
            instructions: INSTRUCTIONS.into(),
            next_action: NextAction::DownloadDataUrl,
            meta: VideoDataMeta {
                title: tree.title,
                total_segments: tree.total_segments,
                total_duration: (tree.total_duration * 1000.0).round() / 1000.0,
                include_diagnostics: req.include_diagnostics,
                trimmed: TRIMMED.iter().map(|s| s.to_string()).collect(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;
    use serde_json::{Value, json};

    fn read(body: Value) -> Result<VideoDataRequest> {
        crate::fields::body::read::<VideoDataRequest>(&body)
    }

    #[test]
    fn the_request_takes_video_id_or_id_with_the_specs_codes() {
        let r = read(json!({"video_id": " vid1 ", "include_diagnostics": true})).unwrap();
        assert_eq!((r.video_id.as_str(), r.include_diagnostics), ("vid1", true));
        assert_eq!(read(json!({"id": "vid2"})).unwrap().video_id, "vid2");
        for (body, code, param) in [
            (json!({}), Code::MissingField, "video_id"),
            (json!({"video_id": "  "}), Code::MissingField, "video_id"),
            (json!({"video_id": 3}), Code::InvalidField, "video_id"),
            (json!({"id": 3}), Code::InvalidField, "video_id"),
            (
                json!({"video_id": "v", "include_diagnostics": "yes"}),
                Code::InvalidField,
                "include_diagnostics",
            ),
        ] {
            let e = read(body.clone()).unwrap_err();
            assert_eq!((e.code, e.param.as_deref()), (code, Some(param)), "{body}");
        }
    }

    #[test]
    fn the_envelope_rounds_the_duration_and_names_the_file() {
        let req = read(json!({"video_id": "v1"})).unwrap();
        let file = Published {
            url: "https://o/tmp/video_data/v1-x.json".into(),
            path: "/x".into(),
            bytes: 10,
            expires_at: 0,
            ttl_seconds: 900,
        };
        let tree = TreeSummary {
            review_url: "https://r".into(),
            title: "T".into(),
            total_segments: 2,
            total_duration: 12.34567,
        };
        let v = serde_json::to_value(VideoData::new(&req, &file, tree)).unwrap();
        assert_eq!(v["object"], "video_data");
        assert_eq!(v["delivery_mode"], "download_url");
        assert_eq!(v["next_action"], "download_data_url");
        assert_eq!(v["data"]["ttl_seconds"], 900);
        assert_eq!(v["meta"]["total_duration"], 12.346);
        assert_eq!(v["topic_id"], "v1");
    }
}
