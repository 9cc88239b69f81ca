//! Scene editing: `POST /v1/modify_scene`, `POST /v1/edit_session`, `POST /v1/scene_geometry`
//! (the editor's realtime stream is `editor/events.rs`).
//!
//! The domain lives in `pipeline::edit::scenes`. Each operation is one function here
//! ([`modify`], [`session`], [`geometry`]): it runs the editor's blocking work (redb, files, the
//! per-video lock) on a blocking thread and serialises the typed reply. The `/v1` routes and the
//! editor's (`editor/edits.rs`) differ only in who may call them: an API key here, the review
//! link's token there.

use std::sync::Arc;

use foundation::fields::body;
use foundation::model::Account;
use pipeline::edit::{
    EditSessionReply, EditSessionRequest, GeometryQuery, GeometryReply, ModifyScene,
    ModifySceneReply, ModifySceneRequest, Outcome, SceneGeometryRequest, UploadQueued,
};
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

use crate::State;
use crate::blocking::blocking;
use crate::filters::{auth, typed, typed_body, with_state};
use crate::reply::json_reply;

/// Edit bodies are small JSON (URLs, rects, text).
const BODY_LIMIT: usize = 256 * 1024;

pub fn routes(state: Arc<State>) -> BoxedFilter<(Response,)> {
    let modify = warp::path!("v1" / "modify_scene")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed_body(BODY_LIMIT, body::read::<ModifySceneRequest>))
        .and(with_state(state.clone()))
        .and_then(modify_scene);
    let session = warp::path!("v1" / "edit_session")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed::<EditSessionRequest>(BODY_LIMIT))
        .and(with_state(state.clone()))
        .and_then(edit_session);
    let geometry = warp::path!("v1" / "scene_geometry")
        .and(warp::post())
        .and(auth(state.clone()))
        .and(typed_body(BODY_LIMIT, body::read::<SceneGeometryRequest>))
        .and(with_state(state))
        .and_then(scene_geometry);
    modify.or(session).unify().or(geometry).unify().boxed()
}

/// Edits one scene in place (branches A–O); one family of fields per call.
///
/// 200 with the applied edit (or a clarification of an ambiguous text match), 202 when a voice
/// or narrator-video upload is queued.
#[utoipa::path(
    post,
    path = "/v1/modify_scene",
    tag = "editing",
    request_body = ModifySceneRequest,
    responses(
        (status = 200, description = "The edit applied, or a clarification (nothing changed)", body = ModifySceneReply),
        (status = 202, description = "A voice or narrator-video upload is queued", body = UploadQueued),
        (status = 400, description = "`missing_field`, `invalid_id`, `invalid_by`, `invalid_value`, `invalid_field`, `invalid_field_name`, `mixed_field_families`, `unsupported_media_url`, `file_too_large`"),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`"),
        (status = 404, description = "`video_not_found`, `scene_not_found`"),
        (status = 409, description = "`scenes_not_ready`, `remotion_spec_disabled`, `overlay_not_available`"),
        (status = 422, description = "`svg2spec_failed`, `no_svg_overlay_source`, `media_decode_failed` (an image or clip that does not decode within the size limits)"),
        (status = 502, description = "`download_failed`"),
    ),
    security(("bearer" = []))
)]
pub async fn modify_scene(
    account: Account,
    req: ModifyScene,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    modify(&state, account.name, req).await
}

/// `modify_scene` on `account`'s video: 200 with the applied edit (or a clarification), 202
/// with a queued upload.
pub(crate) async fn modify(
    state: &State,
    account: String,
    req: ModifyScene,
) -> Result<Response, Rejection> {
    crate::metrics::topic(&req.id);
    let e = state.editor.clone();
    Ok(match blocking(move || e.modify(&account, &req)).await? {
        Outcome::Reply(reply) => json_reply(StatusCode::OK, &reply),
        Outcome::Queued(queued) => json_reply(StatusCode::ACCEPTED, &queued),
    })
}

/// Starts, commits, aborts or reports a video's edit session.
#[utoipa::path(
    post,
    path = "/v1/edit_session",
    tag = "editing",
    request_body = EditSessionRequest,
    responses(
        (status = 200, description = "The session's state after the action", body = EditSessionReply),
        (status = 400, description = "`missing_field`, `invalid_id`, `invalid_action`"),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`"),
        (status = 404, description = "`topic_not_found`"),
        (status = 409, description = "`scenes_not_ready`"),
        (status = 502, description = "`topic_fetch_failed`"),
    ),
    security(("bearer" = []))
)]
pub async fn edit_session(
    account: Account,
    req: EditSessionRequest,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    session(&state, account.name, req).await
}

/// `edit_session` on `account`'s video: 200 with the state the action left.
pub(crate) async fn session(
    state: &State,
    account: String,
    req: EditSessionRequest,
) -> Result<Response, Rejection> {
    crate::metrics::topic(&req.id);
    let e = state.editor.clone();
    let reply = blocking(move || e.edit_session(&account, &req)).await?;
    Ok(json_reply(StatusCode::OK, &reply))
}

/// The layout of one scene in the 280×498 editor preview; read-only, never renders.
#[utoipa::path(
    post,
    path = "/v1/scene_geometry",
    tag = "editing",
    request_body = SceneGeometryRequest,
    responses(
        (status = 200, description = "The geometry, or a clarification of an ambiguous text match", body = GeometryReply),
        (status = 400, description = "`missing_field`, `invalid_id`, `invalid_by`, `invalid_value`, `invalid_field`"),
        (status = 401, description = "`missing_api_key`, `invalid_api_key`"),
        (status = 404, description = "`video_not_found`, `scene_not_found`"),
        (status = 409, description = "`script_not_ready`"),
        (status = 500, description = "`scene_geometry_failed`"),
        (status = 502, description = "`script_parse_failed`"),
    ),
    security(("bearer" = []))
)]
pub async fn scene_geometry(
    account: Account,
    req: GeometryQuery,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    geometry(&state, account.name, req).await
}

/// `scene_geometry` of a scene of `account`'s video: 200 with the geometry (or a
/// clarification).
pub(crate) async fn geometry(
    state: &State,
    account: String,
    req: GeometryQuery,
) -> Result<Response, Rejection> {
    crate::metrics::topic(&req.id);
    let e = state.editor.clone();
    let reply = blocking(move || e.geometry(&account, &req)).await?;
    Ok(json_reply(StatusCode::OK, &reply))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        modify_scene,
        edit_session,
        scene_geometry,
        crate::inspector::scene_inspector
    ))]
    struct EditingDoc;

    #[test]
    fn the_editing_paths_describe_their_typed_bodies() {
        use utoipa::OpenApi;
        let doc = serde_json::to_value(EditingDoc::openapi()).unwrap();
        let body_ref = |path: &str| {
            doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
                ["$ref"]
                .as_str()
                .map(str::to_string)
        };
        for (path, schema) in [
            ("/v1/modify_scene", "ModifySceneRequest"),
            ("/v1/edit_session", "EditSessionRequest"),
            ("/v1/scene_geometry", "SceneGeometryRequest"),
            ("/v1/scene_inspector", "SceneInspectorRequest"),
        ] {
            assert_eq!(
                body_ref(path),
                Some(format!("#/components/schemas/{schema}")),
                "{path}"
            );
            assert!(
                doc["components"]["schemas"][schema].is_object(),
                "{schema} is not in the components"
            );
        }
        // One form per way of naming the scene, each with the video's `id` required and the
        // optional `include_diagnostics` not.
        let schemas = &doc["components"]["schemas"];
        let forms = schemas["SceneGeometryRequest"]["oneOf"].as_array().unwrap();
        assert_eq!(forms.len(), 5);
        for form in forms {
            let name = form["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
            let parts = schemas[name]["allOf"].as_array().unwrap();
            assert_eq!(parts[0]["$ref"], "#/components/schemas/GeometryTarget");
        }
        assert_eq!(schemas["GeometryTarget"]["required"], json!(["id"]));
        let action = &doc["components"]["schemas"]["EditAction"]["enum"];
        assert_eq!(action, &json!(["start", "commit", "abort", "status"]));
    }

    /// `applied` is described key by key, each branch's value with its own schema, and every
    /// reference in the document resolves.
    #[test]
    fn applied_is_described_precisely() {
        let doc = crate::openapi::document();
        let schemas = &doc["components"]["schemas"];
        assert_eq!(
            schemas["SceneModification"]["properties"]["applied"]["$ref"],
            "#/components/schemas/Applied"
        );
        assert_eq!(
            schemas["UploadQueued"]["properties"]["applied"]["$ref"],
            "#/components/schemas/Applied"
        );
        let applied = &schemas["Applied"];
        assert!(
            applied["required"].is_null(),
            "every key is optional: {applied}"
        );
        for key in [
            "mediaUrl",
            "remotion.object.rect",
            "overlay.narrator.rect",
            "roll",
            "segment.text",
            "type",
            "remotion.upload_overlay",
            "remotion.add_element",
            "overlay.text_edit",
        ] {
            assert!(applied["properties"][key].is_object(), "{key}: {applied}");
        }
        let kinds = &schemas["ObjectKindName"]["enum"];
        assert!(
            kinds
                .as_array()
                .is_some_and(|k| k.contains(&json!("callout")))
        );
        fn refs(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        out.push(r.clone());
                    }
                    m.values().for_each(|x| refs(x, out));
                }
                Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
                _ => {}
            }
        }
        let mut all = Vec::new();
        refs(&doc, &mut all);
        for r in all {
            let name = r.trim_start_matches("#/components/schemas/");
            assert!(schemas[name].is_object(), "{r} does not resolve");
        }
    }
}
