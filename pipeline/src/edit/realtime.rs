//! Realtime editor messages: one broadcast channel per video.
//!
//! A successful `modify_scene` publishes `scene_modified`; a finished voice upload publishes
//! `scene_voice_upload_applied` (spec: Events, "Realtime editor messages"). Every open editor of
//! the video (the api crate's event stream, the editor page) subscribes to the video's channel.
//! Messages are fire-and-forget: nobody listening is not an error, and a subscriber that falls
//! more than [`CAPACITY`] messages behind skips the oldest ones.
//!
//! Message shape: `{type, topic_id, voice_file, at, ...payload}`, serialised once when it is
//! published; every subscriber gets the same text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::broadcast;

/// Messages buffered per video for slow subscribers.
pub(crate) const CAPACITY: usize = 256;

/// One published message: its `type` and its JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub kind: &'static str,
    pub json: Arc<str>,
}

/// The fields every message carries, with the payload's fields after them.
#[derive(Serialize)]
struct Envelope<'a, P> {
    #[serde(rename = "type")]
    kind: &'a str,
    topic_id: &'a str,
    voice_file: &'a str,
    at: String,
    #[serde(flatten)]
    payload: P,
}

/// The per-video channels.
#[derive(Default)]
pub struct Hub {
    channels: Mutex<HashMap<String, broadcast::Sender<Message>>>,
}

impl Hub {
    pub fn new() -> Hub {
        Hub::default()
    }

    fn sender(&self, topic: &str) -> broadcast::Sender<Message> {
        let mut map = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        // Drop channels nobody listens to any more, so the map stays small.
        map.retain(|t, s| t == topic || s.receiver_count() > 0);
        map.entry(topic.to_string())
            .or_insert_with(|| broadcast::channel(CAPACITY).0)
            .clone()
    }

    /// Subscribes to the video's messages from now on.
    pub fn subscribe(&self, topic: &str) -> broadcast::Receiver<Message> {
        self.sender(topic).subscribe()
    }

    /// Publishes `kind` for scene `voice_file` of `topic` with `payload`'s fields (a struct)
    /// after the envelope's; returns how many subscribers received it.
    pub fn publish<P: Serialize>(
        &self,
        topic: &str,
        kind: &'static str,
        voice_file: &str,
        payload: P,
    ) -> usize {
        let envelope = Envelope {
            kind,
            topic_id: topic,
            voice_file,
            at: foundation::time::iso(foundation::time::now()),
            payload,
        };
        let json = match serde_json::to_string(&envelope) {
            Ok(j) => j,
            Err(e) => {
                tracing::error!(topic, kind, error = %e, "realtime message not serialisable");
                return 0;
            }
        };
        tracing::debug!(topic, kind, voice_file, "realtime message");
        let msg = Message {
            kind,
            json: json.into(),
        };
        self.sender(topic).send(msg).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn subscribers_of_a_video_get_its_messages_only() {
        let hub = Hub::new();
        let mut a = hub.subscribe("wcA");
        let mut b = hub.subscribe("wcB");
        assert_eq!(
            hub.publish("wcA", "scene_modified", "v1", json!({"scene_id": 2})),
            1
        );
        let m: Value = serde_json::from_str(&a.try_recv().unwrap().json).unwrap();
        assert_eq!(m["type"], "scene_modified");
        assert_eq!(m["voice_file"], "v1");
        assert_eq!(m["scene_id"], 2);
        assert!(b.try_recv().is_err());
        assert_eq!(hub.publish("wcC", "scene_modified", "v", json!({})), 0);
    }
}
