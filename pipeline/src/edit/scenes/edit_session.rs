//! `POST /v1/edit_session`: its typed request ([`EditSessionRequest`], [`EditAction`]), its
//! reply ([`EditSessionReply`]) and [`Editor::edit_session`], which moves a video's session
//! through start, commit, abort and status (the journal itself is [`super::session`]).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::{PartialSchema, ToSchema};

use super::{Editor, scenes_not_ready};
use crate::edit::scenes::select::checked_topic_id;
use foundation::error::{Code, Error, Result};
use foundation::fields::Body;
use foundation::schema::{self, Components};
use foundation::store::StoreError;
use foundation::time::iso;

foundation::document::wire_enum! {
    /// What `edit_session` does.
    pub enum EditAction: Code::InvalidAction {
        /// Cache the whole document in memory (journalled) until commit.
        Start = "start",
        /// Flush the staged document once.
        Commit = "commit",
        /// Discard the staged edits.
        Abort = "abort",
        /// Report the session's state.
        Status = "status",
    }
}

/// `POST /v1/edit_session`'s body.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct EditSessionRequest {
    /// Topic id of the video (`topic_id` is accepted as an alias).
    #[schema(example = "wc1a2b3c4d5e6f", pattern = "^(wc|topic)[A-Za-z0-9]{1,64}$")]
    pub id: String,
    pub action: EditAction,
}

impl Body for EditSessionRequest {
    type Valid = EditSessionRequest;
    const CODES: &'static [(&'static str, Code)] =
        &[("id", Code::InvalidId), ("action", Code::InvalidAction)];
    const ALIASES: &'static [(&'static str, &'static str)] = &[("topic_id", "id")];

    /// The id must be a topic id.
    fn validate(self) -> Result<EditSessionRequest> {
        Ok(EditSessionRequest {
            id: checked_topic_id(&self.id)?,
            ..self
        })
    }
}

/// `edit_session`'s 200 body (the handler adds `request_id`): the video and the action, with
/// the [`SessionState`] it left. Its schema is an `anyOf` of one named object per state (see
/// the `PartialSchema` impl below).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditSessionReply {
    /// Always `edit_session`.
    pub object: &'static str,
    pub id: String,
    pub topic_id: String,
    pub action: EditAction,
    /// Whether this server uses edit sessions at all.
    pub cache_enabled: bool,
    #[serde(flatten)]
    pub state: SessionState,
}

/// The action's outcome; which fields appear depends on the action. The shapes overlap (a
/// `start` reply is also a valid `status` reply without `last_write`), so the reply's schema is
/// an `anyOf` of them, not the `oneOf` a derive would write.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SessionState {
    /// Sessions are off (`cache_enabled` false): every edit is written straight through.
    Off {
        active: bool,
        note: &'static str,
        /// Only for `commit`: always false.
        #[serde(skip_serializing_if = "Option::is_none")]
        committed: Option<bool>,
    },
    /// `start`: the session is active.
    Started {
        active: bool,
        ttl_seconds: u64,
        started: String,
        staged_writes: u64,
    },
    /// `commit`: whether a session was flushed, and how many staged writes it held.
    Committed {
        committed: bool,
        active: bool,
        staged_writes: u64,
    },
    /// `abort`: whether a session was discarded, and how many staged writes it held.
    Aborted {
        aborted: bool,
        discarded_writes: u64,
        active: bool,
    },
    /// `status` of an active session.
    Active {
        active: bool,
        staged_writes: u64,
        started: String,
        last_write: Option<String>,
        ttl_seconds: u64,
        expires_at: String,
    },
    /// `status` without a session (`started` and `last_write` are null).
    Inactive {
        active: bool,
        staged_writes: u64,
        started: Option<String>,
        last_write: Option<String>,
    },
}

impl utoipa::PartialSchema for EditSessionReply {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let mut c = Components::default();
        reply_schema(&mut c)
    }
}

impl ToSchema for EditSessionReply {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        let mut c = Components::default();
        reply_schema(&mut c);
        c.add_to(schemas);
        <EditAction as ToSchema>::schemas(schemas);
        schemas.push((EditAction::name().into_owned(), EditAction::schema()));
    }
}

/// [`EditSessionReply`]'s schema: one component per [`SessionState`], each with the reply's
/// own fields.
fn reply_schema(c: &mut Components) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    let int = json!({ "type": "integer", "minimum": 0 });
    let time = json!({ "type": "string" });
    let maybe_time = json!({ "type": ["string", "null"] });
    let mut shape = |name: &str, about: &str, state: Value| {
        let mut properties = json!({
            "object": { "type": "string", "const": "edit_session" },
            "id": { "type": "string" },
            "topic_id": { "type": "string" },
            "action": schema::reference(&EditAction::name()),
            "cache_enabled": { "type": "boolean", "description": "Whether this server uses edit sessions at all." },
        });
        let (Some(all), Value::Object(state)) = (properties.as_object_mut(), state) else {
            unreachable!("both are JSON objects");
        };
        all.extend(state);
        let required: Vec<&String> = all.keys().collect();
        let object = json!({ "type": "object", "description": about, "properties": all, "required": required });
        c.named(name, object)
    };
    let states = vec![
        shape(
            "EditSessionOff",
            "Sessions are off (`cache_enabled` false): every edit is written straight through; `committed` (false) only for `commit`.",
            json!({ "active": { "const": false }, "note": { "type": "string" } }),
        ),
        shape(
            "EditSessionStarted",
            "`start`: the session is active.",
            json!({ "active": { "const": true }, "ttl_seconds": int, "started": time, "staged_writes": int }),
        ),
        shape(
            "EditSessionCommitted",
            "`commit`: whether a session was flushed, and how many staged writes it held.",
            json!({ "committed": { "type": "boolean" }, "active": { "const": false }, "staged_writes": int }),
        ),
        shape(
            "EditSessionAborted",
            "`abort`: whether a session was discarded, and how many staged writes it held.",
            json!({ "aborted": { "type": "boolean" }, "discarded_writes": int, "active": { "const": false } }),
        ),
        shape(
            "EditSessionActive",
            "`status` of an active session.",
            json!({ "active": { "const": true }, "staged_writes": int, "started": time, "last_write": maybe_time, "ttl_seconds": int, "expires_at": time }),
        ),
        shape(
            "EditSessionInactive",
            "`status` without a session (`started` and `last_write` are null).",
            json!({ "active": { "const": false }, "staged_writes": int, "started": maybe_time, "last_write": maybe_time }),
        ),
    ];
    schema::raw(json!({
        "description": "`edit_session`'s 200 body: the video, the action, and the state it left.",
        "anyOf": states,
    }))
}

/// Sent when sessions are off.
const SESSIONS_OFF: &str = "Edit sessions are off on this server (cache_enabled = false): every edit is written straight through, serialised per video.";

impl Editor {
    /// `POST /v1/edit_session`.
    pub fn edit_session(
        &self,
        account: &str,
        req: &EditSessionRequest,
    ) -> Result<EditSessionReply> {
        let topic = req.id.as_str();
        let fetch_failed = |e: StoreError| {
            tracing::error!(%topic, error = %e, "edit session: document load failed");
            Error::new(
                Code::TopicFetchFailed,
                "The video's document could not be loaded.",
            )
            .param("id")
        };
        match self.store.job(topic) {
            Ok(Some(j)) if j.account == account => {}
            Ok(_) => {
                return Err(Error::new(
                    Code::TopicNotFound,
                    "No video with this id exists on the account.",
                )
                .param("id"));
            }
            Err(e) => return Err(fetch_failed(e)),
        }
        let cache_enabled = self
            .settings
            .section::<crate::edit::config::EditConfig>()
            .cache_enabled;
        let state = if cache_enabled {
            let lock = self.lock(topic);
            let _guard = lock.lock().unwrap_or_else(|p| p.into_inner());
            self.session_action(topic, req.action, fetch_failed)?
        } else {
            SessionState::Off {
                active: false,
                note: SESSIONS_OFF,
                committed: (req.action == EditAction::Commit).then_some(false),
            }
        };
        Ok(EditSessionReply {
            object: "edit_session",
            id: topic.to_string(),
            topic_id: topic.to_string(),
            action: req.action,
            cache_enabled,
            state,
        })
    }

    /// Runs `action` on the session of `topic` (held lock).
    fn session_action(
        &self,
        topic: &str,
        action: EditAction,
        fetch_failed: impl Fn(StoreError) -> Error,
    ) -> Result<SessionState> {
        let ttl = self
            .settings
            .section::<crate::edit::config::EditConfig>()
            .session_idle_secs;
        Ok(match action {
            EditAction::Start => {
                let doc = match self.document(topic) {
                    Ok(Some(d)) => d,
                    Ok(None) => return Err(scenes_not_ready()),
                    Err(e) => return Err(fetch_failed(e)),
                };
                let info = self
                    .sessions
                    .start(topic, doc, foundation::time::now())
                    .map_err(Error::internal)?;
                SessionState::Started {
                    active: true,
                    ttl_seconds: ttl,
                    started: iso(info.started),
                    staged_writes: info.staged_writes,
                }
            }
            EditAction::Commit => {
                let n = self.commit_locked(topic)?;
                SessionState::Committed {
                    committed: n.is_some(),
                    active: false,
                    staged_writes: n.unwrap_or(0),
                }
            }
            EditAction::Abort => {
                let s = self.sessions.take(topic);
                if s.is_some() {
                    self.sessions.forget(topic).map_err(Error::internal)?;
                    // The stored document is current again: a version, so an undo after the
                    // abort goes back from what the editor now shows.
                    if let Ok(Some(doc)) = self.store.document(topic) {
                        self.record_version(None, &doc, "abort");
                    }
                }
                SessionState::Aborted {
                    aborted: s.is_some(),
                    discarded_writes: s.map(|s| s.staged_writes).unwrap_or(0),
                    active: false,
                }
            }
            EditAction::Status => match self.sessions.info(topic) {
                Some(i) => SessionState::Active {
                    active: true,
                    staged_writes: i.staged_writes,
                    started: iso(i.started),
                    last_write: i.last_write.map(iso),
                    ttl_seconds: ttl,
                    expires_at: iso(i.last_write.unwrap_or(i.started) + ttl as i64),
                },
                None => SessionState::Inactive {
                    active: false,
                    staged_writes: 0,
                    started: None,
                    last_write: None,
                },
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body::read;
    use serde_json::json;

    fn code_param(body: Value) -> (Code, Option<String>) {
        let e = read::<EditSessionRequest>(&body).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn the_request_keeps_the_spec_codes_and_params() {
        let ok = read::<EditSessionRequest>(&json!({"topic_id": "wcABCDEFGH", "action": "commit"}));
        assert_eq!(ok.map(|r| r.action).ok(), Some(EditAction::Commit));
        let p = |s: &str| Some(s.to_string());
        assert_eq!(
            code_param(json!({"action": "start"})),
            (Code::MissingField, p("id"))
        );
        assert_eq!(
            code_param(json!({"id": "x y", "action": "start"})),
            (Code::InvalidId, p("id"))
        );
        assert_eq!(
            code_param(json!({"id": "wcABCDEFGH"})),
            (Code::MissingField, p("action"))
        );
        assert_eq!(
            code_param(json!({"id": "wcABCDEFGH", "action": "pause"})),
            (Code::InvalidAction, p("action"))
        );
        assert_eq!(
            code_param(json!({"id": "wcABCDEFGH", "action": 3})),
            (Code::InvalidAction, p("action"))
        );
        assert_eq!(
            code_param(json!({"id": 7, "action": "start"})),
            (Code::InvalidId, p("id"))
        );
        assert_eq!(
            code_param(json!({"id": " ", "topic_id": "wcABCDEFGH", "action": "start"})),
            (Code::MissingField, p("id"))
        );
    }

    #[test]
    fn an_inactive_status_reports_null_times() {
        let reply = EditSessionReply {
            object: "edit_session",
            id: "wcT".into(),
            topic_id: "wcT".into(),
            action: EditAction::Status,
            cache_enabled: true,
            state: SessionState::Inactive {
                active: false,
                staged_writes: 0,
                started: None,
                last_write: None,
            },
        };
        assert_eq!(
            serde_json::to_value(reply).unwrap(),
            json!({"object": "edit_session", "id": "wcT", "topic_id": "wcT", "action": "status",
                   "cache_enabled": true, "active": false, "staged_writes": 0,
                   "started": null, "last_write": null})
        );
    }
}
