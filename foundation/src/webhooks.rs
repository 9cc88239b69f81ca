//! Signed webhooks with a durable outbox.
//!
//! [`queue_event`] writes a delivery row inside the caller's transaction — the
//! same one that changes the job's state — so an event exists exactly when
//! its state change does. The [`Dispatcher`] then delivers rows along the
//! retry schedule (offsets from the event's creation) until a 2xx, an
//! abandon (any 4xx but 408/429), the last attempt, or the maximum age.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hmac::{KeyInit, Mac};
use serde_json::json;
use sha2::Sha256;
use tokio::sync::Notify;
use tracing::Instrument;

use crate::config::{Mode, Settings, WebhookConfig};
use crate::delivery_log::{self, Attempt, DeliveryState};
use crate::fetch::{FetchError, Fetcher};
use crate::ids;
use crate::model::{Delivery, Job};
use crate::store::{Store, StoreResult, Tx};
use crate::time::{iso, now};

pub(crate) const API_VERSION: &str = "0.1.0";
pub(crate) const USER_AGENT: &str = "Service-Webhook/0.1.0";

/// `hex(HMAC_SHA256(secret, "{timestamp}.{body}"))`.
pub fn sign(secret: &str, timestamp: i64, body: &str) -> String {
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// The `X-Service-Signature` header value: `t=…,v1=…` with one `v1` per secret, the current
/// secret first (as Stripe signs during a secret rotation). With one secret the header is the
/// spec's `t=<timestamp>,v1=<hex>` exactly.
pub(crate) fn signature_header<'a>(
    secrets: impl IntoIterator<Item = &'a str>,
    timestamp: i64,
    body: &str,
) -> String {
    let mut header = format!("t={timestamp}");
    for secret in secrets {
        header.push_str(",v1=");
        header.push_str(&sign(secret, timestamp, body));
    }
    header
}

/// Adds a delivery of `event_type` for `job` to the outbox, inside `tx`.
/// Does nothing when the job has no `callback_url`.
pub(crate) fn queue_event(tx: &mut Tx, job: &Job, event_type: &str) -> StoreResult<()> {
    let Some(url) = &job.callback_url else {
        return Ok(());
    };
    let event_id = ids::event_id();
    let created = now();
    let body = json!({
        "event_id": event_id,
        "event_type": event_type,
        "created_at": iso(created),
        "api_version": API_VERSION,
        "data": job.status_object(),
    })
    .to_string();
    let delivery = Delivery {
        topic_id: job.topic_id.clone(),
        seq: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as i128)
            .unwrap_or_default(),
        event_id,
        event_type: event_type.to_string(),
        url: url.clone(),
        body,
        created_at: created,
        attempts: 0,
        next_at: created,
        next_at_ms: None,
    };
    let id = ids::delivery_id();
    tx.put_delivery(&id, &delivery)?;
    delivery_log::record_new(tx, &id, &delivery)
}

/// What one attempt's outcome means for the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Delivered,
    Retry,
    Abandon,
}

fn classify(result: &Result<u16, FetchError>) -> Outcome {
    match result {
        Ok(s) if (200..300).contains(s) => Outcome::Delivered,
        Ok(408) | Ok(429) => Outcome::Retry,
        Ok(s) if (500..600).contains(s) => Outcome::Retry,
        // A redirect is a failed attempt; it is never followed.
        Ok(s) if (300..400).contains(s) => Outcome::Retry,
        Ok(_) => Outcome::Abandon,
        // A target the guard refuses will never become deliverable.
        Err(FetchError::Blocked(_)) => Outcome::Abandon,
        Err(_) => Outcome::Retry,
    }
}

/// The longest the dispatcher sleeps between scans of the outbox.
const SCAN_EVERY: Duration = Duration::from_millis(500);

fn now_ms() -> i64 {
    (crate::time::now_nanos() / 1_000_000) as i64
}

/// When the attempt after `attempts_made` of an event created at `created_ms` is due (unix
/// ms): the spec's schedule offset from creation, run `time_scale` times fast. `None` after
/// the last attempt, or when its offset is past the maximum age: the row is dropped.
fn retry_at_ms(cfg: &WebhookConfig, created_ms: i64, attempts_made: u32) -> Option<i64> {
    let offset = *cfg.retry_schedule_secs.get(attempts_made as usize)?;
    (offset <= cfg.max_age_secs)
        .then(|| created_ms + (offset * 1000 / u64::from(cfg.time_scale.max(1))) as i64)
}

/// Delivers outbox rows in the background.
pub struct Dispatcher {
    store: Arc<Store>,
    settings: Arc<Settings>,
    fetcher: Fetcher,
    /// Rung when a new row is written, so the first attempt is immediate.
    pub wake: Arc<Notify>,
    /// Jobs with an attempt in flight: one delivery per job at a time, so a
    /// receiver sees `video.processing` before `video.completed`.
    in_flight: Arc<Mutex<HashSet<String>>>,
}

impl Dispatcher {
    pub fn new(store: Arc<Store>, settings: Arc<Settings>, fetcher: Fetcher) -> Dispatcher {
        Dispatcher {
            store,
            settings,
            fetcher,
            wake: Arc::new(Notify::new()),
            in_flight: Arc::default(),
        }
    }

    /// Runs until `shutdown` resolves. Attempts in flight at shutdown stay in
    /// the outbox and are retried after a restart.
    pub async fn run(self: Arc<Self>, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            let next = match self.tick() {
                Ok(next) => next,
                Err(e) => {
                    tracing::error!(error = %e, "webhook outbox scan failed");
                    None
                }
            };
            // Sleep until the next row is due, at most half a second (rows may be written by
            // another task without a wake, and a clock may jump).
            let nap = next
                .map(|at| Duration::from_millis(at.saturating_sub(now_ms()).max(1) as u64))
                .unwrap_or(SCAN_EVERY)
                .min(SCAN_EVERY);
            tokio::select! {
                _ = &mut shutdown => break,
                _ = self.wake.notified() => {}
                _ = tokio::time::sleep(nap) => {}
            }
        }
    }

    /// Starts every due attempt; returns when the next row not yet due is (unix ms).
    fn tick(self: &Arc<Self>) -> StoreResult<Option<i64>> {
        let t = now_ms();
        let (mut due, later): (Vec<(String, Delivery)>, Vec<_>) = self
            .store
            .outbox()?
            .into_iter()
            .partition(|(_, d)| d.due_at_ms() <= t);
        let next = later.iter().map(|(_, d)| d.due_at_ms()).min();
        // Oldest first; only the oldest due delivery of each job is sent now.
        due.sort_by_key(|(_, d)| d.seq);
        for (id, d) in due {
            let key = if d.topic_id.is_empty() {
                id.clone()
            } else {
                d.topic_id.clone()
            };
            if !self.in_flight.lock().expect("poisoned").insert(key.clone()) {
                continue;
            }
            // The scan may predate an attempt that finished since (it wrote the row, then let
            // the key go): the row is sent only as it stands now, or the event goes out twice.
            let d = match self.store.delivery(&id) {
                Ok(Some(row)) if row.attempts == d.attempts && row.due_at_ms() <= t => row,
                current => {
                    self.in_flight.lock().expect("poisoned").remove(&key);
                    current?;
                    continue;
                }
            };
            let this = self.clone();
            // Every line of a delivery's attempt names the video and the delivery.
            let span = tracing::info_span!("webhook", topic_id = %d.topic_id, delivery = %id);
            tokio::spawn(
                async move {
                    this.attempt(&id, d).await;
                    this.in_flight.lock().expect("poisoned").remove(&key);
                    // The job's next event may be waiting on this one.
                    this.wake.notify_one();
                }
                .instrument(span),
            );
        }
        Ok(next)
    }

    async fn attempt(&self, id: &str, d: Delivery) {
        let cfg = &self.settings.webhook;
        let attempt = d.attempts + 1;
        let ts = now();
        let headers = [
            ("Content-Type", "application/json".to_string()),
            ("User-Agent", USER_AGENT.to_string()),
            ("X-Service-Event", d.event_id.clone()),
            ("X-Service-Event-Type", d.event_type.clone()),
            (
                "X-Service-Signature",
                signature_header(cfg.signing_secrets(), ts, &d.body),
            ),
            ("X-Service-Delivery", id.to_string()),
            ("X-Service-Attempt", attempt.to_string()),
        ];
        let guarded = self.settings.mode == Mode::Production;
        let started = std::time::Instant::now();
        let result = self
            .fetcher
            .post(
                &d.url,
                &headers,
                d.body.clone(),
                Duration::from_secs(cfg.timeout_secs),
                guarded,
            )
            .await;
        let outcome = classify(&result);
        let logged = Attempt {
            number: attempt,
            at: iso(ts),
            status_code: result.as_ref().ok().copied(),
            latency_ms: started.elapsed().as_millis() as u64,
            error: match &result {
                Ok(s) if (200..300).contains(s) => None,
                Ok(s) => Some(format!("the receiver answered HTTP {s}")),
                Err(e) => Some(e.public()),
            },
        };
        tracing::info!(event = %d.event_id, event_type = %d.event_type, attempt, ?result, ?outcome, "webhook attempt");
        let written = self.store.write(|tx| -> StoreResult<()> {
            let retry_at = retry_at_ms(cfg, d.created_at_ms(), attempt);
            let state = match (outcome, retry_at) {
                (Outcome::Delivered, _) => DeliveryState::Delivered,
                (Outcome::Retry, Some(_)) => DeliveryState::Pending,
                _ => DeliveryState::Failed,
            };
            crate::telemetry::webhook_attempt(match (state, outcome) {
                (DeliveryState::Delivered, _) => "delivered",
                (DeliveryState::Pending, _) => "retry",
                (_, Outcome::Abandon) => "abandoned",
                _ => "dropped",
            });
            match retry_at.filter(|_| state == DeliveryState::Pending) {
                Some(next_at) => {
                    let mut d = d.clone();
                    d.attempts = attempt;
                    d.next_at = next_at.div_euclid(1000);
                    d.next_at_ms = Some(next_at);
                    tx.put_delivery(id, &d)?;
                }
                None => {
                    // Done: the body stays, so the delivery can be sent again on request.
                    delivery_log::keep_body(tx, id, &d)?;
                    tx.remove_delivery(id)?;
                }
            }
            delivery_log::record_attempt(tx, id, logged, state)
        });
        if let Err(e) = written {
            tracing::error!(error = %e, "webhook outbox update failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_matches_a_known_vector() {
        // printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac secret
        assert_eq!(
            sign("secret", 1_700_000_000, r#"{"a":1}"#),
            "49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686"
        );
        assert_eq!(
            signature_header(["s"], 5, "b"),
            format!("t=5,v1={}", sign("s", 5, "b"))
        );
    }

    /// The spec: attempt 1 at 0 s, then 1 min, 5 min, 15 min, 30 min, 1 h, 3 h, 6 h, 12 h and
    /// 24 h from creation; nothing after the tenth.
    const SPEC_SCHEDULE: [i64; 10] = [0, 60, 300, 900, 1800, 3600, 10800, 21600, 43200, 86400];

    #[test]
    fn the_default_schedule_is_the_specs_and_stops_after_ten() {
        let cfg = WebhookConfig::default();
        let at: Vec<i64> = (0..11).map_while(|n| retry_at_ms(&cfg, 0, n)).collect();
        assert_eq!(at, SPEC_SCHEDULE.map(|s| s * 1000));
    }

    #[test]
    fn a_compressed_clock_keeps_the_schedules_shape() {
        let cfg = WebhookConfig {
            time_scale: 3600,
            ..WebhookConfig::default()
        };
        let at: Vec<i64> = (0..11).map_while(|n| retry_at_ms(&cfg, 5_000, n)).collect();
        assert_eq!(at, SPEC_SCHEDULE.map(|s| 5_000 + s * 1000 / 3600));
    }

    #[test]
    fn an_offset_past_the_maximum_age_drops_the_row() {
        let cfg = WebhookConfig {
            max_age_secs: 3600,
            ..WebhookConfig::default()
        };
        assert_eq!((0..11).map_while(|n| retry_at_ms(&cfg, 0, n)).count(), 6);
    }

    #[test]
    fn a_rotation_signs_with_every_secret_current_first() {
        assert_eq!(
            signature_header(["new", "old"], 5, "b"),
            format!("t=5,v1={},v1={}", sign("new", 5, "b"), sign("old", 5, "b"))
        );
    }

    #[test]
    fn outcomes() {
        assert_eq!(classify(&Ok(200)), Outcome::Delivered);
        assert_eq!(classify(&Ok(204)), Outcome::Delivered);
        assert_eq!(classify(&Ok(500)), Outcome::Retry);
        assert_eq!(classify(&Ok(503)), Outcome::Retry);
        assert_eq!(classify(&Ok(408)), Outcome::Retry);
        assert_eq!(classify(&Ok(429)), Outcome::Retry);
        assert_eq!(classify(&Ok(301)), Outcome::Retry);
        assert_eq!(classify(&Ok(400)), Outcome::Abandon);
        assert_eq!(classify(&Ok(410)), Outcome::Abandon);
        assert_eq!(
            classify(&Err(FetchError::Network("x".into()))),
            Outcome::Retry
        );
    }
}
