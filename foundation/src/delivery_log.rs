//! The webhook delivery log: every delivery a job's events made, with each attempt's time,
//! status code, latency and error, in its own redb table. The outbox (`webhooks.rs`) is the
//! work still to do; this is the history a client reads (`GET /v1/webhook_deliveries?id=`) and
//! redelivers from (`POST /v1/webhook_deliveries/{delivery}/redeliver`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::{Code, Error, Result};
use crate::model::Delivery;
use crate::store::{Store, StoreResult, Table, Tx};
use crate::time::{iso, now};

/// Delivery logs, keyed by delivery id.
const DELIVERY_LOG: Table = Table::new("webhook_delivery_log");

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// In the outbox: an attempt is due or will be retried.
    Pending,
    /// The receiver answered 2xx.
    Delivered,
    /// Given up: a final refusal (4xx other than 408/429, a blocked URL), or the retries ran
    /// out (10 attempts or 24 hours).
    Failed,
}

/// One attempt.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Attempt {
    /// 1 for the first attempt; a redelivery continues the count.
    pub number: u32,
    /// ISO 8601 UTC.
    pub at: String,
    /// The receiver's HTTP status; null when no answer came.
    pub status_code: Option<u16>,
    pub latency_ms: u64,
    /// Why it failed, in our words; null on success.
    pub error: Option<String>,
}

/// A delivery and its attempts.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DeliveryRecord {
    /// The delivery id (`X-Service-Delivery`).
    pub delivery: String,
    pub topic_id: String,
    pub event_id: String,
    pub event_type: String,
    pub url: String,
    pub state: DeliveryState,
    /// ISO 8601 UTC.
    pub created_at: String,
    pub attempts: Vec<Attempt>,
}

/// A log row: the delivery and its creation order (finer than `created_at`).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Logged {
    seq: i128,
    record: DeliveryRecord,
}

/// `GET /v1/webhook_deliveries`: `{object: list, id, data[]}`, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryList {
    #[schema(example = "list")]
    pub object: &'static str,
    /// The job's topic id.
    pub id: String,
    pub data: Vec<DeliveryRecord>,
}

/// Records a new delivery, pending (inside the transaction that queues it).
pub(crate) fn record_new(tx: &mut Tx, id: &str, d: &Delivery) -> StoreResult<()> {
    let record = DeliveryRecord {
        delivery: id.to_string(),
        topic_id: d.topic_id.clone(),
        event_id: d.event_id.clone(),
        event_type: d.event_type.clone(),
        url: d.url.clone(),
        state: DeliveryState::Pending,
        created_at: iso(d.created_at),
        attempts: Vec::new(),
    };
    tx.put_record(DELIVERY_LOG, id, &Logged { seq: d.seq, record })
}

/// Appends an attempt and the state it left the delivery in.
pub(crate) fn record_attempt(
    tx: &mut Tx,
    id: &str,
    attempt: Attempt,
    state: DeliveryState,
) -> StoreResult<()> {
    let Some(mut row): Option<Logged> = tx.record(DELIVERY_LOG, id)? else {
        // Deliveries queued before the log existed have no record.
        return Ok(());
    };
    row.record.attempts.push(attempt);
    row.record.state = state;
    tx.put_record(DELIVERY_LOG, id, &row)
}

/// The deliveries of topic `topic`, oldest first.
pub fn list(store: &Store, topic: &str) -> Result<Vec<DeliveryRecord>> {
    let mut rows: Vec<Logged> = store
        .records::<Logged>(DELIVERY_LOG)?
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| r.record.topic_id == topic)
        .collect();
    rows.sort_by_key(|r| r.seq);
    Ok(rows.into_iter().map(|r| r.record).collect())
}

/// Queues delivery `id` again: the same event id and body, a fresh signature at send time, and
/// a fresh retry schedule from now. `owns` says whether the caller's account owns a topic; an
/// unknown delivery or another account's is 404 `delivery_not_found`.
pub fn redeliver(store: &Store, id: &str, owns: impl Fn(&str) -> bool) -> Result<DeliveryRecord> {
    let not_found = || {
        Error::new(
            Code::DeliveryNotFound,
            "No webhook delivery with this id exists for the account.",
        )
        .param("delivery")
    };
    store.write(|tx| -> Result<DeliveryRecord> {
        let mut row: Logged = tx
            .record(DELIVERY_LOG, id)?
            .filter(|r: &Logged| owns(&r.record.topic_id))
            .ok_or_else(not_found)?;
        let mut d = stored_body(tx, id)?.ok_or_else(not_found)?;
        let t = now();
        d.attempts = row.record.attempts.len() as u32;
        d.created_at = t;
        d.next_at = t;
        d.next_at_ms = None;
        tx.put_delivery(id, &d)?;
        row.record.state = DeliveryState::Pending;
        tx.put_record(DELIVERY_LOG, id, &row)?;
        Ok(row.record)
    })
}

/// The outbox row a logged delivery would send again: its event, URL and exact body.
fn stored_body(tx: &mut Tx, id: &str) -> StoreResult<Option<Delivery>> {
    if let Some(d) = tx.delivery(id)? {
        return Ok(Some(d));
    }
    Ok(tx.record::<StoredBody>(DELIVERY_BODIES, id)?.map(|b| b.0))
}

/// The bodies of sent deliveries, kept so a delivery can be sent again byte for byte.
const DELIVERY_BODIES: Table = Table::new("webhook_delivery_bodies");

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredBody(Delivery);

/// Keeps `d` for redelivery once it leaves the outbox.
pub(crate) fn keep_body(tx: &mut Tx, id: &str, d: &Delivery) -> StoreResult<()> {
    tx.put_record(DELIVERY_BODIES, id, &StoredBody(d.clone()))
}
