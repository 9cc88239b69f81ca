//! `POST /v1/error/report`: the typed request (spec limits: message 4000 characters, module 80,
//! context an object of which at most 50 keys are rendered), the stored report (redb table
//! `error_reports`, listed by `reelsmith reports list`) and its forwarding by email to the
//! operator address (`notify.operator_email`). A report is stored before it is forwarded, so a
//! failed delivery (502 `error_report_failed`) loses nothing. A forwarded report counts against
//! the account's hourly message limit, as every other sending endpoint does.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::notify::channel::{Outgoing, Refused};
use crate::notify::send::Notifier;
use foundation::error::{Code, Error};
use foundation::fields::Body;
use foundation::model::Account;
use foundation::store::{Store, StoreResult, Table};
use foundation::time::now;

/// Longest `error_message`, characters.
pub(crate) const MAX_MESSAGE_CHARS: usize = 4000;
/// Longest `module`, characters.
pub(crate) const MAX_MODULE_CHARS: usize = 80;
/// Context keys rendered (in the forwarded email and the listing); the rest are kept, unshown.
pub(crate) const MAX_CONTEXT_KEYS: usize = 50;
/// `module` when none is given.
pub(crate) const DEFAULT_MODULE: &str = "agent";

/// Stored reports, keyed `{created_at:012}-{hex}` so they list in order.
pub(crate) const REPORT_TABLE: Table = Table::new("error_reports");

/// A validated report.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportRequest {
    pub error_message: String,
    pub module: String,
    pub context: Map<String, Value>,
}

/// A stored report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorReport {
    pub account: String,
    pub created_at: i64,
    pub module: String,
    pub error_message: String,
    pub context: Map<String, Value>,
    /// Whether the operator's email accepted it (`false` also when none is configured).
    pub forwarded: bool,
}

impl ErrorReport {
    /// The rendered context: at most [`MAX_CONTEXT_KEYS`] `key: value` lines, by key name.
    pub fn context_lines(&self) -> Vec<String> {
        self.context
            .iter()
            .take(MAX_CONTEXT_KEYS)
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}: {s}"),
                v => format!("{k}: {v}"),
            })
            .collect()
    }
}

/// The reply of `error/report` (`request_id` is added by the HTTP layer).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorReportReply {
    /// Always `error_report`.
    pub object: String,
    /// Always true.
    pub reported: bool,
    pub module: String,
    /// The context keys rendered (at most 50, the first by name).
    pub context_keys: Vec<String>,
}

/// The body of `POST /v1/error/report`.
#[derive(Deserialize, ToSchema)]
pub struct ErrorReportBody {
    /// What went wrong (at most 4000 characters, not blank).
    #[schema(min_length = 1, max_length = 4000, pattern = r"\S")]
    error_message: String,
    /// The reporting component; `agent` when absent.
    #[schema(max_length = 80)]
    module: Option<String>,
    /// Facts of the failing call (`request_id`, `topic_id`, `voice_file`, `scene_id`); at most
    /// 50 keys are rendered.
    #[schema(value_type = Option<Object>)]
    context: Option<Map<String, Value>>,
}

/// Read by `foundation::fields::body::read` into a [`ReportRequest`].
impl Body for ErrorReportBody {
    type Valid = ReportRequest;
    const CODES: &'static [(&'static str, Code)] = &[
        ("module", Code::InvalidModule),
        ("context", Code::InvalidContext),
    ];

    fn validate(self) -> Result<ReportRequest, Error> {
        let n = self.error_message.chars().count();
        if n > MAX_MESSAGE_CHARS {
            return Err(invalid(
                Code::ErrorMessageTooLong,
                "error_message",
                format!("`error_message` has {n} characters; the limit is {MAX_MESSAGE_CHARS}."),
            ));
        }
        let module = self
            .module
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .unwrap_or(DEFAULT_MODULE)
            .to_string();
        let n = module.chars().count();
        if n > MAX_MODULE_CHARS {
            return Err(invalid(
                Code::ModuleTooLong,
                "module",
                format!("`module` has {n} characters; the limit is {MAX_MODULE_CHARS}."),
            ));
        }
        Ok(ReportRequest {
            error_message: self.error_message,
            module,
            context: self.context.unwrap_or_default(),
        })
    }
}

fn invalid(code: Code, param: &str, msg: impl Into<String>) -> Error {
    Error::new(code, msg).param(param)
}

/// Stores the report, then forwards it to the operator when one is configured. A forwarded
/// report is a message of the account: over its hourly limit the call is refused (429
/// `rate_limited`) before anything is stored or sent.
pub async fn report(
    notifier: &Notifier,
    operator_email: &str,
    account: &Account,
    req: ReportRequest,
) -> Result<ErrorReportReply, Error> {
    let forward = notifier
        .senders
        .email
        .clone()
        .filter(|_| !operator_email.is_empty());
    if forward.is_some() {
        notifier.count_one(&account.name).await?;
    }
    let mut rec = ErrorReport {
        account: account.name.clone(),
        created_at: now(),
        module: req.module,
        error_message: req.error_message,
        context: req.context,
        forwarded: false,
    };
    let key = format!("{:012}-{}", rec.created_at, foundation::ids::file_token());
    put(notifier, &key, &rec).await?;
    let reply = ErrorReportReply {
        object: "error_report".into(),
        reported: true,
        module: rec.module.clone(),
        context_keys: rec.context.keys().take(MAX_CONTEXT_KEYS).cloned().collect(),
    };
    let Some(sender) = forward else {
        return Ok(reply);
    };
    let msg = Outgoing {
        subject: format!("[reelsmith] {} error from {}", rec.module, rec.account),
        message: format!(
            "{}\n\nModule: {}\nAccount: {}\n\n{}",
            rec.error_message,
            rec.module,
            rec.account,
            rec.context_lines().join("\n")
        ),
        parse_mode: None,
        media: None,
    };
    let to = operator_email.to_string();
    let sent = foundation::blocking::spawn(move || sender.send(&to, &msg))
        .await
        .map_err(Error::internal)?;
    match sent {
        Ok(_) => {
            rec.forwarded = true;
            put(notifier, &key, &rec).await?;
            Ok(reply)
        }
        Err(Refused::Skipped(why)) | Err(Refused::Failed(why, _)) => Err(Error::new(
            Code::ErrorReportFailed,
            "The report is stored but could not be forwarded to the service team.",
        )
        .because(why)),
    }
}

/// Stores `rec` under `key`, off the reactor (a redb commit fsyncs).
async fn put(notifier: &Notifier, key: &str, rec: &ErrorReport) -> Result<(), Error> {
    let (store, key, rec) = (notifier.store.clone(), key.to_string(), rec.clone());
    foundation::blocking::run(
        move || Ok(store.write(|tx| tx.put_record(REPORT_TABLE, &key, &rec))?),
    )
    .await
}

/// Every stored report, oldest first.
pub fn list(store: &Store) -> StoreResult<Vec<ErrorReport>> {
    Ok(store
        .records::<ErrorReport>(REPORT_TABLE)?
        .into_iter()
        .map(|(_, r)| r)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;
    use serde_json::json;

    #[test]
    fn every_rule_answers_with_its_code() {
        let cases = [
            (json!({}), Code::MissingField, "error_message"),
            (
                json!({"error_message": "x".repeat(4001)}),
                Code::ErrorMessageTooLong,
                "error_message",
            ),
            (
                json!({"error_message": "x", "module": 5}),
                Code::InvalidModule,
                "module",
            ),
            (
                json!({"error_message": "x", "module": "m".repeat(81)}),
                Code::ModuleTooLong,
                "module",
            ),
            (
                json!({"error_message": "x", "context": [1]}),
                Code::InvalidContext,
                "context",
            ),
        ];
        for (body, code, param) in cases {
            let e = body::read::<ErrorReportBody>(&body).unwrap_err();
            assert_eq!((e.code, e.param.as_deref()), (code, Some(param)), "{body}");
        }
        let ok =
            body::read::<ErrorReportBody>(&json!({"error_message": "é".repeat(4000)})).unwrap();
        assert_eq!(ok.module, DEFAULT_MODULE);
    }

    #[test]
    fn at_most_fifty_context_keys_are_rendered() {
        let context: Map<String, Value> = (0..60).map(|i| (format!("k{i:02}"), json!(i))).collect();
        let r = ErrorReport {
            account: "a".into(),
            created_at: 0,
            module: "m".into(),
            error_message: "e".into(),
            context,
            forwarded: false,
        };
        let lines = r.context_lines();
        assert_eq!(lines.len(), 50);
        assert_eq!(lines[49], "k49: 49");
    }
}
