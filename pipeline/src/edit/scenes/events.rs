//! The realtime messages scene editing publishes (the hub adds `type`, `topic_id`,
//! `voice_file` and `at`): typed payloads, serialised once by [`crate::edit::realtime::Hub`].

use serde::Serialize;

use super::applied::Applied;
use foundation::document::SceneRecord;
use foundation::error::Error;

/// `scene_modified` (every applied edit) and `scene_voice_upload_applied` (H).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SceneModified<'a> {
    pub scene_id: u32,
    /// Uploads (H, I): the `queue_id` of their 202.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_id: Option<&'a str>,
    pub family: &'static str,
    /// The field names sent.
    pub fields: Vec<&'a str>,
    pub applied: &'a Applied,
    pub segment: &'a SceneRecord,
}

/// `scene_upload_failed`: a queued upload (H, I) that could not be applied.
#[derive(Debug, Clone, Serialize)]
pub struct UploadFailed<'a> {
    pub queue_id: &'a str,
    pub error: PublicError<'a>,
}

/// An error as a client reads it (never its cause).
#[derive(Debug, Clone, Serialize)]
pub struct PublicError<'a> {
    pub code: &'static str,
    pub message: &'a str,
}

impl<'a> PublicError<'a> {
    pub fn of(e: &'a Error) -> PublicError<'a> {
        PublicError {
            code: e.code.as_str(),
            message: &e.message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::scenes::applied::RollSwitch;
    use foundation::document::Roll;
    use foundation::error::Code;
    use serde_json::json;

    #[test]
    fn upload_messages_serialise_as_before() {
        let applied = Applied::narrator_video(
            "https://x.example/n.mp4",
            RollSwitch {
                from: Roll::BRoll,
                to: Roll::ARoll,
            },
            3.0,
        );
        let segment = crate::edit::scenes::apply::tests::doc().segment_public(
            1,
            &foundation::document::PublicView {
                review_url: "",
                origin_url: "http://localhost",
                public_root: std::path::Path::new("/nonexistent"),
                include_diagnostics: false,
            },
        );
        let m = SceneModified {
            scene_id: 2,
            queue_id: Some("vq_1"),
            family: "narrator_video",
            fields: vec!["narrator.upload_video"],
            applied: &applied,
            segment: &segment,
        };
        let v = serde_json::to_value(&m).unwrap();
        assert_eq!(
            v,
            json!({
                "scene_id": 2,
                "queue_id": "vq_1",
                "family": "narrator_video",
                "fields": ["narrator.upload_video"],
                "applied": {
                    "narrator.upload_video": "https://x.example/n.mp4",
                    "roll": { "from": "B-roll", "to": "A-roll" },
                    "video_duration": 3.0,
                },
                "segment": serde_json::to_value(&segment).unwrap(),
            })
        );
        let m = SceneModified {
            queue_id: None,
            ..m
        };
        assert!(serde_json::to_value(&m).unwrap().get("queue_id").is_none());
        let e = Error::new(Code::DownloadFailed, "The file could not be downloaded.")
            .because("connection refused");
        let failed = UploadFailed {
            queue_id: "vq_1",
            error: PublicError::of(&e),
        };
        assert_eq!(
            serde_json::to_value(&failed).unwrap(),
            json!({
                "queue_id": "vq_1",
                "error": { "code": "download_failed", "message": "The file could not be downloaded." },
            })
        );
    }
}
