//! `GET /v1/openapi.json`: every route that exists, kept in step with the
//! router by a test that compares the two lists.

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

/// The body of every 4xx and 5xx answer: `{error: {type, code, message, param, details},
/// request_id}`. Handlers reference it from their `#[utoipa::path]` responses as
/// `body = crate::openapi::ErrorEnvelope`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
    /// The id of this request, also in the `X-Request-Id` header.
    pub request_id: String,
}

/// What went wrong: a stable `code` per cause, a readable `message` and the field at fault.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorBody {
    /// The family of the error, from the HTTP status: `invalid_request_error`,
    /// `authentication_error`, `payment_required`, `not_found`, `method_not_allowed`,
    /// `precondition_failed`, `payload_too_large`, `unprocessable_entity`,
    /// `rate_limit_error`, `upstream_error` or `api_error`.
    #[serde(rename = "type")]
    #[schema(example = "invalid_request_error")]
    pub kind: String,
    /// The stable error code (spec §errors), e.g. `missing_field`.
    #[schema(example = "missing_field")]
    pub code: String,
    /// A clear message for people; never carries server paths or library text.
    pub message: String,
    /// The request field at fault, when one is (dotted for nested fields).
    pub param: Option<String>,
    /// Extra facts for some codes (for example the id of a failed typography result).
    pub details: Option<Value>,
}

/// The component schemas shared by every operation.
#[derive(utoipa::OpenApi)]
#[openapi(components(schemas(ErrorEnvelope, ErrorBody)))]
struct Schemas;

/// (method, path, summary) of every served route.
pub const ROUTES: &[(&str, &str, &str)] = &[
    ("get", "/healthz", "Liveness check (no auth)."),
    ("get", "/v1/openapi.json", "This document."),
    (
        "post",
        "/v1/create_video",
        "Submit a video job (202, status object).",
    ),
    ("get", "/v1/status/{id}", "Status object of a job."),
    (
        "post",
        "/v1/export_video",
        "Render the MP4 of a scene-ready video.",
    ),
    (
        "post",
        "/v1/video_data",
        "Scene data of a video: a small envelope and an expiring public JSON file.",
    ),
    (
        "post",
        "/v1/scene_inspector",
        "Scene screenshot or overlay poster from the server compositor; live-editor actions.",
    ),
    (
        "post",
        "/v1/upload_asset",
        "Upload a temporary asset: multipart `file`, JSON presign, or JSON base64.",
    ),
    (
        "put",
        "/v1/upload_asset/put/{folder}/{name}",
        "Presigned upload of an asset's bytes (signed URL from `mode: presign`, no auth).",
    ),
    (
        "post",
        "/app/webhook_test",
        "Create a webhook test inbox (no auth).",
    ),
    (
        "get",
        "/app/webhook_test/{inbox}",
        "Deliveries received by a test inbox, newest first.",
    ),
    (
        "post",
        "/app/webhook_test/{inbox}",
        "Receive a delivery into a test inbox.",
    ),
    (
        "get",
        "/app/editor/{topic_id}",
        "Review page opened by review_url (signed token).",
    ),
    (
        "post",
        "/v1/typography",
        "Design text as outlined SVG/PNG objects (1 credit; 200 done, 202 processing).",
    ),
    (
        "get",
        "/v1/typography/{id}",
        "A typography result; `?wait=` seconds (0 to 100) to wait while processing.",
    ),
    (
        "post",
        "/v1/modify_scene",
        "Edit one scene in place (200 applied or clarification, 202 queued upload).",
    ),
    (
        "post",
        "/v1/edit_session",
        "Start, commit, abort or inspect an edit session (journaled cache).",
    ),
    (
        "post",
        "/v1/scene_geometry",
        "Read-only layout geometry of one scene, with optional diagnostics.",
    ),
    (
        "get",
        "/app/editor/{topic_id}/events",
        "Realtime editor messages as server-sent events (signed token).",
    ),
    (
        "get",
        "/media/{path}",
        "Public media files (no auth, unguessable names).",
    ),
];

pub fn document() -> Value {
    let mut paths = serde_json::Map::new();
    for (method, path, summary) in ROUTES {
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        let mut op = json!({
            "summary": summary,
            "responses": {
                "default": { "description": "Success body, or the error envelope `{error:{type,code,message,param,details}, request_id}`." }
            }
        });
        if path.starts_with("/v1/") {
            op["security"] = json!([{ "bearer": [] }]);
        }
        let params: Vec<Value> = path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
            .map(|name| json!({ "name": name, "in": "path", "required": true, "schema": { "type": "string" } }))
            .collect();
        if !params.is_empty() {
            op["parameters"] = Value::Array(params);
        }
        entry[*method] = op;
    }
    let schemas = <Schemas as utoipa::OpenApi>::openapi()
        .components
        .map(|c| serde_json::to_value(c.schemas).expect("schemas serialize"))
        .unwrap_or_else(|| json!({}));
    json!({
        "openapi": "3.1.0",
        "info": { "title": "Reelsmith", "version": "0.1.0" },
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } },
            "schemas": schemas,
        },
        "paths": paths,
    })
}
