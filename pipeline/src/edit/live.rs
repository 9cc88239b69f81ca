//! Live editors: every editor tab open on a video registers here (the api crate carries it
//! over a WebSocket) and `scene_inspector`'s live actions are forwarded to one of them.
//!
//! The protocol is JSON text both ways. The server sends `{type: "probe", request_id}` and
//! `{type: "command", request_id, action, voice_file?, selector?, activate, seek_seconds?,
//! options}`; the tab answers `{type: "reply", request_id, ok, result?, error?}` and reports
//! `{type: "state", scene, playing, time, visible, mounted}` whenever that changes.
//!
//! Election (spec: "probes all open editor tabs, elects one healthy foreground tab within the
//! probe window"): every tab is probed at once; among those that answer within the window a
//! visible tab with a mounted scene preview wins, then any visible tab, then any that answered.
//! A command waits for its answer up to its timeout. A tab that disconnects drops its pending
//! answers, so a waiting call ends at once instead of at its timeout.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

/// The message of the `unavailable` envelope when no tab is open.
pub(crate) const NO_LIVE_EDITOR: &str =
    "No editor tab is open on this video; open the review page to use live inspection.";

/// Spec defaults and clamps (Limits: scene_inspector timeouts).
pub const TIMEOUT_MS: (i64, i64, i64) = (7000, 1000, 15000);
pub const PROBE_MS: (i64, i64, i64) = (800, 150, 2000);

/// `value` or the default, clamped to the range: `(default, min, max)`.
pub fn clamp_ms(value: Option<i64>, (default, min, max): (i64, i64, i64)) -> Duration {
    Duration::from_millis(value.unwrap_or(default).clamp(min, max) as u64)
}

/// What a tab last reported about itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TabState {
    /// The `voice_file` of the scene the tab shows.
    #[serde(default)]
    pub scene: Option<String>,
    #[serde(default)]
    pub playing: bool,
    /// Seconds into the scene.
    #[serde(default)]
    pub time: f64,
    /// Whether the tab is in the foreground.
    #[serde(default)]
    pub visible: bool,
    /// Whether a scene preview is mounted.
    #[serde(default)]
    pub mounted: bool,
    /// `editor` or `player`.
    #[serde(default)]
    pub mode: String,
}

/// One connected tab, as `list_live_editors` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct TabInfo {
    pub instance_id: String,
    pub connected_at: String,
    #[serde(flatten)]
    pub state: TabState,
}

struct Tab {
    id: String,
    connected_at: String,
    state: TabState,
    tx: mpsc::UnboundedSender<String>,
}

struct Pending {
    tab: String,
    answer: oneshot::Sender<Answer>,
}

/// A tab's answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Ok(Value),
    Refused(String),
}

/// Why a forwarded action did not complete: the `code` of the `unavailable` envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// No tab is open on the video.
    NoLiveEditor,
    /// Tabs are open, but none answered the probe in time.
    NoActiveEditor,
    /// The elected tab did not answer within `timeout_ms`.
    Timeout,
    /// The elected tab closed before it answered.
    Disconnected,
}

impl Failure {
    pub fn code(self) -> &'static str {
        match self {
            Failure::NoLiveEditor => "no_live_editor",
            Failure::NoActiveEditor => "no_active_editor",
            Failure::Timeout => "editor_timeout",
            Failure::Disconnected => "editor_disconnected",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Failure::NoLiveEditor => NO_LIVE_EDITOR,
            Failure::NoActiveEditor => {
                "Editor tabs are open on this video, but none answered in time; bring one to the foreground and try again."
            }
            Failure::Timeout => {
                "The editor tab did not answer within timeout_ms; try again or raise timeout_ms."
            }
            Failure::Disconnected => "The editor tab closed before it answered; try again.",
        }
    }
}

/// A live action, as sent to the elected tab.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The action's wire name (`get_preview_state`, …).
    pub action: &'static str,
    pub voice_file: Option<String>,
    pub selector: Option<String>,
    pub activate: bool,
    pub seek_seconds: Option<f64>,
    pub options: Map<String, Value>,
}

/// The elected tab and what it answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Forwarded {
    pub instance_id: String,
    pub answer: Answer,
}

/// Every open tab, by video.
#[derive(Default)]
pub struct LiveEditors {
    tabs: Mutex<HashMap<String, Vec<Tab>>>,
    pending: Mutex<HashMap<u64, Pending>>,
    next: AtomicU64,
}

/// Removes the tab from the registry when its connection ends (dropped by the transport).
pub struct Registration {
    live: Arc<LiveEditors>,
    topic: String,
    pub id: String,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.live.unregister(&self.topic, &self.id);
    }
}

impl LiveEditors {
    fn lock_tabs(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Tab>>> {
        self.tabs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a tab of `topic`; messages for it arrive on the returned receiver.
    pub fn register(
        self: &Arc<Self>,
        topic: &str,
    ) -> (Registration, mpsc::UnboundedReceiver<String>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let id = format!("ed_{}", foundation::public::token());
        self.lock_tabs()
            .entry(topic.to_string())
            .or_default()
            .push(Tab {
                id: id.clone(),
                connected_at: foundation::time::iso(foundation::time::now()),
                state: TabState::default(),
                tx,
            });
        let reg = Registration {
            live: self.clone(),
            topic: topic.to_string(),
            id,
        };
        (reg, rx)
    }

    fn unregister(&self, topic: &str, id: &str) {
        let mut tabs = self.lock_tabs();
        if let Some(list) = tabs.get_mut(topic) {
            list.retain(|t| t.id != id);
            if list.is_empty() {
                tabs.remove(topic);
            }
        }
        drop(tabs);
        // Dropping the senders wakes every call waiting on this tab.
        self.lock_pending().retain(|_, p| p.tab != id);
    }

    /// Handles one text message from tab `id`: a state report or an answer.
    pub fn receive(&self, topic: &str, id: &str, text: &str) {
        let Ok(msg) = serde_json::from_str::<Value>(text) else {
            return;
        };
        match msg["type"].as_str() {
            Some("state") => {
                if let Ok(state) = serde_json::from_value::<TabState>(msg.clone())
                    && let Some(tab) = self
                        .lock_tabs()
                        .get_mut(topic)
                        .and_then(|l| l.iter_mut().find(|t| t.id == id))
                {
                    tab.state = state;
                }
            }
            Some("reply") => {
                let Some(request) = msg["request_id"].as_u64() else {
                    return;
                };
                let mut pending = self.lock_pending();
                if pending.get(&request).is_some_and(|p| p.tab == id) {
                    let p = pending.remove(&request).expect("present");
                    let answer = if msg["ok"] == true {
                        Answer::Ok(msg.get("result").cloned().unwrap_or(Value::Null))
                    } else {
                        Answer::Refused(
                            msg["error"]
                                .as_str()
                                .unwrap_or("The editor refused the action.")
                                .chars()
                                .take(300)
                                .collect(),
                        )
                    };
                    let _ = p.answer.send(answer);
                }
            }
            _ => {}
        }
    }

    /// The tabs open on `topic`.
    pub fn list(&self, topic: &str) -> Vec<TabInfo> {
        self.lock_tabs()
            .get(topic)
            .map(|l| {
                l.iter()
                    .map(|t| TabInfo {
                        instance_id: t.id.clone(),
                        connected_at: t.connected_at.clone(),
                        state: t.state.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Sends `body` (with a fresh `request_id`) to tab `id` and waits up to `wait`.
    async fn ask(
        &self,
        topic: &str,
        id: &str,
        mut body: Value,
        wait: Duration,
    ) -> Result<Answer, Failure> {
        let request = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        body["request_id"] = json!(request);
        let (tx, rx) = oneshot::channel();
        self.lock_pending().insert(
            request,
            Pending {
                tab: id.to_string(),
                answer: tx,
            },
        );
        let sent = self
            .lock_tabs()
            .get(topic)
            .and_then(|l| l.iter().find(|t| t.id == id))
            .is_some_and(|t| t.tx.send(body.to_string()).is_ok());
        if !sent {
            self.lock_pending().remove(&request);
            return Err(Failure::Disconnected);
        }
        let out = match tokio::time::timeout(wait, rx).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_)) => Err(Failure::Disconnected),
            Err(_) => Err(Failure::Timeout),
        };
        self.lock_pending().remove(&request);
        out
    }

    /// Probes every tab of `topic` within `window` and elects one.
    pub(crate) async fn elect(&self, topic: &str, window: Duration) -> Result<String, Failure> {
        let ids: Vec<String> = self
            .list(topic)
            .into_iter()
            .map(|t| t.instance_id)
            .collect();
        if ids.is_empty() {
            return Err(Failure::NoLiveEditor);
        }
        let probes = ids.iter().map(|id| async move {
            let answer = self.ask(topic, id, json!({"type": "probe"}), window).await;
            (id.clone(), answer)
        });
        let answers = futures_util::future::join_all(probes).await;
        let mut best: Option<(u8, String)> = None;
        for (id, answer) in answers {
            let Ok(Answer::Ok(v)) = answer else { continue };
            let rank = match (v["visible"] == true, v["mounted"] == true) {
                (true, true) => 3,
                (true, false) => 2,
                _ => 1,
            };
            if best.as_ref().is_none_or(|(r, _)| rank > *r) {
                best = Some((rank, id));
            }
        }
        best.map(|(_, id)| id).ok_or(Failure::NoActiveEditor)
    }

    /// Elects a tab of `topic` and runs `command` on it.
    pub async fn forward(
        &self,
        topic: &str,
        command: &Command,
        probe: Duration,
        timeout: Duration,
    ) -> Result<Forwarded, Failure> {
        let id = self.elect(topic, probe).await?;
        let body = json!({
            "type": "command",
            "action": command.action,
            "voice_file": command.voice_file,
            "selector": command.selector,
            "activate": command.activate,
            "seek_seconds": command.seek_seconds,
            "options": command.options,
        });
        let answer = self.ask(topic, &id, body, timeout).await?;
        Ok(Forwarded {
            instance_id: id,
            answer,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake tab: answers probes, and commands with `reply` (or not at all).
    async fn tab(
        live: Arc<LiveEditors>,
        topic: &'static str,
        reply: Option<Value>,
        answer_probes: bool,
    ) -> Registration {
        let (reg, mut rx) = live.register(topic);
        let id = reg.id.clone();
        tokio::spawn(async move {
            while let Some(text) = rx.recv().await {
                let msg: Value = serde_json::from_str(&text).unwrap();
                let r = msg["request_id"].clone();
                let out = match msg["type"].as_str() {
                    Some("probe") if answer_probes => {
                        json!({"type": "reply", "request_id": r, "ok": true, "result": {"visible": true, "mounted": true}})
                    }
                    Some("command") => match &reply {
                        Some(v) => {
                            json!({"type": "reply", "request_id": r, "ok": true, "result": v})
                        }
                        None => continue,
                    },
                    _ => continue,
                };
                live.receive(topic, &id, &out.to_string());
            }
        });
        reg
    }

    fn command() -> Command {
        Command {
            action: "get_preview_state",
            voice_file: None,
            selector: None,
            activate: false,
            seek_seconds: None,
            options: Map::new(),
        }
    }

    const SHORT: Duration = Duration::from_millis(200);

    #[tokio::test]
    async fn no_tab_is_no_live_editor_and_a_silent_tab_is_no_active_editor() {
        let live = Arc::new(LiveEditors::default());
        let r = live.forward("wcA", &command(), SHORT, SHORT).await;
        assert_eq!(r, Err(Failure::NoLiveEditor));
        let _silent = tab(live.clone(), "wcA", None, false).await;
        let r = live.forward("wcA", &command(), SHORT, SHORT).await;
        assert_eq!(r, Err(Failure::NoActiveEditor));
    }

    #[tokio::test]
    async fn an_answering_tab_is_elected_and_answers() {
        let live = Arc::new(LiveEditors::default());
        let reg = tab(live.clone(), "wcB", Some(json!({"playing": false})), true).await;
        let r = live.forward("wcB", &command(), SHORT, SHORT).await.unwrap();
        assert_eq!(r.instance_id, reg.id);
        assert_eq!(r.answer, Answer::Ok(json!({"playing": false})));
    }

    #[tokio::test]
    async fn a_tab_that_never_answers_times_out_and_one_that_leaves_ends_the_wait() {
        let live = Arc::new(LiveEditors::default());
        let reg = tab(live.clone(), "wcC", None, true).await;
        let r = live.forward("wcC", &command(), SHORT, SHORT).await;
        assert_eq!(r, Err(Failure::Timeout));
        let waiting = {
            let live = live.clone();
            tokio::spawn(async move {
                live.forward("wcC", &command(), SHORT, Duration::from_secs(30))
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(400)).await;
        let started = std::time::Instant::now();
        drop(reg);
        let r = waiting.await.unwrap();
        assert_eq!(r, Err(Failure::Disconnected));
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(live.list("wcC").is_empty());
    }
}
