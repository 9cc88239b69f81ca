//! `POST /v1/export_video`: its request. The export itself is `jobs::Engine::export_video`,
//! and the reply the job's `model::StatusObject`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::{Code, Error, Result};
use crate::fields::Fields;

/// The body of `POST /v1/export_video`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExportVideoRequest {
    /// The topic id of a scene-ready video (`topic_id` is accepted as an alias).
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub id: String,
}

impl ExportVideoRequest {
    /// Reads the body: `id` (or `topic_id`) is required; another type than a string is
    /// `invalid_id`.
    pub fn read(body: &Value) -> Result<Self> {
        let f = Fields::of(body)?;
        let name = if f.has("id") { "id" } else { "topic_id" };
        let id = f
            .str_or(name, Code::InvalidId)
            .map_err(|e| e.param("id"))?
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| Error::missing("id"))?;
        Ok(ExportVideoRequest { id: id.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_id_is_required_and_must_be_a_string() {
        let read = |v: Value| ExportVideoRequest::read(&v);
        assert_eq!(read(json!({"id": " t1 "})).unwrap().id, "t1");
        assert_eq!(read(json!({"topic_id": "t2"})).unwrap().id, "t2");
        for (body, code) in [
            (json!({}), Code::MissingField),
            (json!({"id": ""}), Code::MissingField),
            (json!({"id": 7}), Code::InvalidId),
            (json!({"topic_id": []}), Code::InvalidId),
            (json!([]), Code::InvalidJson),
        ] {
            let e = read(body.clone()).unwrap_err();
            assert_eq!(e.code, code, "{body}");
            if code != Code::InvalidJson {
                assert_eq!(e.param.as_deref(), Some("id"), "{body}");
            }
        }
    }
}
