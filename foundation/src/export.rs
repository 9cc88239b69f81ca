//! `POST /v1/export_video`: its request. The export itself is `jobs::Engine::export_video`,
//! and the reply the job's `model::StatusObject`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::{Code, Result};
use crate::fields::Body;

/// The body of `POST /v1/export_video`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExportVideoRequest {
    /// The topic id of a scene-ready video (`topic_id` is accepted as an alias).
    #[schema(pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub id: String,
}

/// Read by [`body::read`](crate::fields::body::read): `id` (or `topic_id`) is required; another
/// type than a string is `invalid_id`.
impl Body for ExportVideoRequest {
    type Valid = ExportVideoRequest;
    const CODES: &'static [(&'static str, Code)] = &[("id", Code::InvalidId)];
    const ALIASES: &'static [(&'static str, &'static str)] = &[("topic_id", "id")];

    fn validate(self) -> Result<Self> {
        Ok(ExportVideoRequest {
            id: self.id.trim().to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn the_id_is_required_and_must_be_a_string() {
        let read = |v: Value| crate::fields::body::read::<ExportVideoRequest>(&v);
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
