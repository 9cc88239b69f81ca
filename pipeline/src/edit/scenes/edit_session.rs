//! `POST /v1/edit_session`: its typed request ([`EditSessionRequest`], [`EditAction`]), its
//! reply ([`EditSessionReply`]) and [`Editor::edit_session`], which moves a video's session
//! through start, commit, abort and status (the journal itself is [`super::session`]).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::schema::{Object, ObjectBuilder, SchemaType, Type};

use super::{Editor, scenes_not_ready};
use crate::edit::scenes::select::checked_topic_id;
use foundation::error::{Code, Error, Result};
use foundation::fields::Body;
use foundation::schema;
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
/// the state the action left, one form per state. Each form's `action` and `active` are
/// constants where the state has one, so no reply fits two forms.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum EditSessionReply {
    Off(EditSessionOff),
    Started(EditSessionStarted),
    Committed(EditSessionCommitted),
    Aborted(EditSessionAborted),
    Active(EditSessionActive),
    Inactive(EditSessionInactive),
}

/// The video a reply is about.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SessionVideo {
    /// Always `edit_session`.
    #[schema(schema_with = object_name)]
    pub object: &'static str,
    pub id: String,
    pub topic_id: String,
}

/// Sessions are off (`cache_enabled` false): every edit is written straight through.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct EditSessionOff {
    #[serde(flatten)]
    pub video: SessionVideo,
    pub action: EditAction,
    /// Whether this server uses edit sessions at all.
    pub cache_enabled: bool,
    #[schema(schema_with = inactive)]
    pub active: bool,
    pub note: &'static str,
    /// Only for `commit`: always false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed: Option<bool>,
}

/// `start`: the session is active.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct EditSessionStarted {
    #[serde(flatten)]
    pub video: SessionVideo,
    #[schema(schema_with = start)]
    pub action: EditAction,
    /// Whether this server uses edit sessions at all.
    pub cache_enabled: bool,
    #[schema(schema_with = active)]
    pub active: bool,
    pub ttl_seconds: u64,
    pub started: String,
    pub staged_writes: u64,
}

/// `commit`: whether a session was flushed, and how many staged writes it held.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct EditSessionCommitted {
    #[serde(flatten)]
    pub video: SessionVideo,
    #[schema(schema_with = commit)]
    pub action: EditAction,
    /// Whether this server uses edit sessions at all.
    pub cache_enabled: bool,
    pub committed: bool,
    #[schema(schema_with = inactive)]
    pub active: bool,
    pub staged_writes: u64,
}

/// `abort`: whether a session was discarded, and how many staged writes it held.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct EditSessionAborted {
    #[serde(flatten)]
    pub video: SessionVideo,
    #[schema(schema_with = abort)]
    pub action: EditAction,
    /// Whether this server uses edit sessions at all.
    pub cache_enabled: bool,
    pub aborted: bool,
    pub discarded_writes: u64,
    #[schema(schema_with = inactive)]
    pub active: bool,
}

/// `status` of an active session.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct EditSessionActive {
    #[serde(flatten)]
    pub video: SessionVideo,
    #[schema(schema_with = status)]
    pub action: EditAction,
    /// Whether this server uses edit sessions at all.
    pub cache_enabled: bool,
    #[schema(schema_with = active)]
    pub active: bool,
    pub staged_writes: u64,
    pub started: String,
    pub last_write: Option<String>,
    pub ttl_seconds: u64,
    pub expires_at: String,
}

/// `status` without a session (`started` and `last_write` are null).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct EditSessionInactive {
    #[serde(flatten)]
    pub video: SessionVideo,
    #[schema(schema_with = status)]
    pub action: EditAction,
    /// Whether this server uses edit sessions at all.
    pub cache_enabled: bool,
    #[schema(schema_with = inactive)]
    pub active: bool,
    pub staged_writes: u64,
    pub started: Option<String>,
    pub last_write: Option<String>,
}

/// A string schema that takes only `value`.
fn only(value: &str) -> Object {
    schema::constant(
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::String))
            .build(),
        value.into(),
    )
}

fn object_name() -> Object {
    only("edit_session")
}

fn start() -> Object {
    only(EditAction::Start.as_str())
}

fn commit() -> Object {
    only(EditAction::Commit.as_str())
}

fn abort() -> Object {
    only(EditAction::Abort.as_str())
}

fn status() -> Object {
    only(EditAction::Status.as_str())
}

/// `active` of a state that has a session.
fn active() -> Object {
    flag(true)
}

/// `active` of a state without a session.
fn inactive() -> Object {
    flag(false)
}

fn flag(value: bool) -> Object {
    schema::constant(
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::Boolean))
            .build(),
        value.into(),
    )
}

/// What an action left, before it becomes the reply's form ([`EditSessionReply::new`]).
#[derive(Debug, Clone, PartialEq)]
enum SessionState {
    Off,
    Started {
        ttl_seconds: u64,
        started: String,
        staged_writes: u64,
    },
    Committed {
        committed: bool,
        staged_writes: u64,
    },
    Aborted {
        aborted: bool,
        discarded_writes: u64,
    },
    Active {
        staged_writes: u64,
        started: String,
        last_write: Option<String>,
        ttl_seconds: u64,
        expires_at: String,
    },
    Inactive,
}

impl EditSessionReply {
    /// The reply for `topic` after `action` left `state`.
    fn new(topic: &str, action: EditAction, cache_enabled: bool, state: SessionState) -> Self {
        let video = SessionVideo {
            object: "edit_session",
            id: topic.to_string(),
            topic_id: topic.to_string(),
        };
        match state {
            SessionState::Off => EditSessionReply::Off(EditSessionOff {
                video,
                action,
                cache_enabled,
                active: false,
                note: SESSIONS_OFF,
                committed: (action == EditAction::Commit).then_some(false),
            }),
            SessionState::Started {
                ttl_seconds,
                started,
                staged_writes,
            } => EditSessionReply::Started(EditSessionStarted {
                video,
                action,
                cache_enabled,
                active: true,
                ttl_seconds,
                started,
                staged_writes,
            }),
            SessionState::Committed {
                committed,
                staged_writes,
            } => EditSessionReply::Committed(EditSessionCommitted {
                video,
                action,
                cache_enabled,
                committed,
                active: false,
                staged_writes,
            }),
            SessionState::Aborted {
                aborted,
                discarded_writes,
            } => EditSessionReply::Aborted(EditSessionAborted {
                video,
                action,
                cache_enabled,
                aborted,
                discarded_writes,
                active: false,
            }),
            SessionState::Active {
                staged_writes,
                started,
                last_write,
                ttl_seconds,
                expires_at,
            } => EditSessionReply::Active(EditSessionActive {
                video,
                action,
                cache_enabled,
                active: true,
                staged_writes,
                started,
                last_write,
                ttl_seconds,
                expires_at,
            }),
            SessionState::Inactive => EditSessionReply::Inactive(EditSessionInactive {
                video,
                action,
                cache_enabled,
                active: false,
                staged_writes: 0,
                started: None,
                last_write: None,
            }),
        }
    }
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
            SessionState::Off
        };
        Ok(EditSessionReply::new(
            topic,
            req.action,
            cache_enabled,
            state,
        ))
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
                    ttl_seconds: ttl,
                    started: iso(info.started),
                    staged_writes: info.staged_writes,
                }
            }
            EditAction::Commit => {
                let n = self.commit_locked(topic)?;
                SessionState::Committed {
                    committed: n.is_some(),
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
                }
            }
            EditAction::Status => match self.sessions.info(topic) {
                Some(i) => SessionState::Active {
                    staged_writes: i.staged_writes,
                    started: iso(i.started),
                    last_write: i.last_write.map(iso),
                    ttl_seconds: ttl,
                    expires_at: iso(i.last_write.unwrap_or(i.started) + ttl as i64),
                },
                None => SessionState::Inactive,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body::read;
    use serde_json::{Value, json};

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
        let reply = EditSessionReply::new("wcT", EditAction::Status, true, SessionState::Inactive);
        assert_eq!(
            serde_json::to_value(reply).unwrap(),
            json!({"object": "edit_session", "id": "wcT", "topic_id": "wcT", "action": "status",
                   "cache_enabled": true, "active": false, "staged_writes": 0,
                   "started": null, "last_write": null})
        );
    }
}
