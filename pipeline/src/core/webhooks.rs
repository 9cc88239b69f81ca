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

use crate::core::config::{Mode, Settings};
use crate::core::delivery_log::{self, Attempt, DeliveryState};
use crate::core::fetch::{FetchError, Fetcher};
use crate::core::ids;
use crate::core::model::{Delivery, Job};
use crate::core::store::{Store, StoreResult, Tx};
use crate::core::time::{iso, now};

pub const API_VERSION: &str = "0.1.0";
pub const USER_AGENT: &str = "Service-Webhook/0.1.0";

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
pub fn signature_header<'a>(
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
pub fn queue_event(tx: &mut Tx, job: &Job, event_type: &str) -> StoreResult<()> {
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
            if let Err(e) = self.tick() {
                tracing::error!(error = %e, "webhook outbox scan failed");
            }
            tokio::select! {
                _ = &mut shutdown => break,
                _ = self.wake.notified() => {}
                _ = tokio::time::sleep(Duration::from_millis(500)) => {}
            }
        }
    }

    fn tick(self: &Arc<Self>) -> StoreResult<()> {
        let t = now();
        let mut due: Vec<(String, Delivery)> = self
            .store
            .outbox()?
            .into_iter()
            .filter(|(_, d)| d.next_at <= t)
            .collect();
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
        Ok(())
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
        let schedule = &cfg.retry_schedule_secs;
        let max_age = cfg.max_age_secs as i64;
        let written = self.store.write(|tx| -> StoreResult<()> {
            let retry_at = schedule
                .get(attempt as usize)
                .map(|off| d.created_at + *off as i64)
                .filter(|next_at| next_at - d.created_at <= max_age);
            let state = match (outcome, retry_at) {
                (Outcome::Delivered, _) => DeliveryState::Delivered,
                (Outcome::Retry, Some(_)) => DeliveryState::Pending,
                _ => DeliveryState::Failed,
            };
            crate::core::telemetry::webhook_attempt(match (state, outcome) {
                (DeliveryState::Delivered, _) => "delivered",
                (DeliveryState::Pending, _) => "retry",
                (_, Outcome::Abandon) => "abandoned",
                _ => "dropped",
            });
            match retry_at.filter(|_| state == DeliveryState::Pending) {
                Some(next_at) => {
                    let mut d = d.clone();
                    d.attempts = attempt;
                    d.next_at = next_at;
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
