//! The accept loop: warp's filter served over HTTP/1.1 by hyper, with the limits that keep
//! slow or idle clients from starving the daemon (`http.*` settings):
//!
//! - a connection must send a whole request head within `header_read_timeout_secs` (hyper's
//!   header read timeout; it also bounds how long a kept-alive connection may sit idle);
//! - a request body that sends nothing for `body_read_timeout_secs` fails ([`TimedBody`]), and
//!   its handler answers as for any body that could not be read;
//! - a body its handler left unread (a route that takes none, a refusal before reading) is read
//!   to its end after the answer is made, up to [`DRAIN_MAX`] bytes within [`DRAIN_WAIT`], so
//!   the connection can carry the next request; a larger, slower or stalled rest makes the
//!   answer say `Connection: close`, and the connection closes after it;
//! - one client address holds at most `max_connections_per_client` connections, and all
//!   clients together `max_connections`; one more is closed as soon as it is accepted, before
//!   anything is read from it.
//!
//! Every request carries its peer as a [`ClientAddr`] extension (`warp::ext::get`). On
//! shutdown, the listener closes and open connections finish their request in flight.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use foundation::config::{Mode, Section};
use hyper::body::{Body, Frame, Incoming};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Deserialize;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, Sleep};
use warp::Filter;
use warp::reply::Response;

/// The HTTP edge: what a slow or hostile client can hold, and who may frame the player.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpConfig {
    /// A connection that has not sent a whole request head within this many seconds is closed
    /// (also the idle limit of a kept-alive connection).
    pub header_read_timeout_secs: u64,
    /// A request body that sends nothing for this many seconds fails and its connection closes.
    pub body_read_timeout_secs: u64,
    /// Open connections allowed from one client address; more are closed at once (0: no cap).
    pub max_connections_per_client: usize,
    /// Open connections allowed in all, kept under the process's file limit so files and the
    /// store can always be opened; more are closed at once (0: no cap).
    pub max_connections: usize,
    /// Origins that may frame the read-only player (`frame-ancestors`): `"*"` for any page,
    /// `[]` for none, or a list like `["https://blog.example.com"]`. Every other page, the
    /// editor included, may never be framed.
    pub embed_origins: Vec<String>,
    /// Webhook test inboxes one client address may hold at once.
    pub inbox_max_per_client: usize,
    /// A webhook test inbox (and what it received) is deleted this many seconds after it was
    /// made.
    pub inbox_ttl_secs: u64,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            header_read_timeout_secs: 10,
            body_read_timeout_secs: 30,
            max_connections_per_client: 256,
            max_connections: 2048,
            embed_origins: vec!["*".into()],
            inbox_max_per_client: 10,
            inbox_ttl_secs: 3600,
        }
    }
}

impl HttpConfig {
    /// What to warn about at start when `max_connections` (0: no cap) could use up the
    /// open-file limit `limit`: connections would then starve the store and media files.
    pub fn connections_over_file_limit(&self, limit: u64) -> Option<String> {
        let cap = self.max_connections as u64;
        (cap == 0 || cap > limit).then(|| {
            let cap = if cap == 0 {
                "no cap".to_string()
            } else {
                cap.to_string()
            };
            format!(
                "http.max_connections ({cap}) exceeds the open-file limit ({limit}): at that \
                 many connections files and the store can no longer be opened; lower it or \
                 raise the limit (`ulimit -n`, systemd `LimitNOFILE=`)"
            )
        })
    }
}

impl Section for HttpConfig {
    const NAME: &'static str = "http";

    fn check(&self, _mode: Mode) -> Result<(), String> {
        if self.header_read_timeout_secs == 0
            || self.body_read_timeout_secs == 0
            || self.inbox_ttl_secs == 0
        {
            return Err("http.*_secs values must be at least 1".into());
        }
        for o in &self.embed_origins {
            let origin = o == "*"
                || ((o.starts_with("https://") || o.starts_with("http://"))
                    && o.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b".:/-*".contains(&b)));
            if !origin {
                return Err(format!(
                    "http.embed_origins entry {o:?} must be \"*\" or an origin like https://example.com"
                ));
            }
        }
        Ok(())
    }
}

/// The address a request came from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientAddr(pub(crate) SocketAddr);

/// Serves `filter` on `listener` under `limits` until `stop` turns true.
pub(crate) async fn serve<F>(
    listener: TcpListener,
    filter: F,
    limits: HttpConfig,
    mut stop: watch::Receiver<bool>,
) where
    F: Filter<Extract = (Response,), Error = std::convert::Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
{
    let clients = Clients::new(limits.max_connections_per_client, limits.max_connections);
    // Every connection task holds a clone; when all are gone, every connection has finished.
    let (open_tx, mut open_rx) = mpsc::channel::<()>(1);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stopped(&mut stop) => break,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // Out of file descriptors or the like: let the open connections finish.
                tracing::warn!(error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = clients.admit(peer.ip()) else {
            tracing::debug!(%peer, "connection refused: too many from this address");
            drop(stream);
            continue;
        };
        let (stop, open) = (stop.clone(), open_tx.clone());
        let served = (filter.clone(), limits.clone());
        tokio::spawn(async move {
            connection(stream, peer, served, stop).await;
            drop((slot, open));
        });
    }
    drop(listener);
    drop(open_tx);
    let _ = open_rx.recv().await;
}

/// One connection's HTTP/1.1 server, with the timeouts. On stop, its request in flight
/// finishes, then it closes.
async fn connection<F>(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    (filter, limits): (F, HttpConfig),
    mut stop: watch::Receiver<bool>,
) where
    F: Filter<Extract = (Response,), Error = std::convert::Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
{
    let body_timeout = Duration::from_secs(limits.body_read_timeout_secs);
    let svc = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let unread = Unread::default();
        let mut req = req.map(|b| TimedBody::new(b, body_timeout, unread.clone()));
        req.extensions_mut().insert(ClientAddr(peer));
        let answer = tower_service::Service::call(&mut warp::service(filter.clone()), req);
        async move {
            // The request (and its body) is dropped once the answer is made.
            let resp = answer.await?;
            Ok::<_, std::convert::Infallible>(settle(resp, &unread, body_timeout).await)
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(limits.header_read_timeout_secs))
        .serve_connection(TokioIo::new(stream), svc)
        .with_upgrades();
    tokio::pin!(conn);
    let result = tokio::select! {
        r = conn.as_mut() => r,
        () = stopped(&mut stop) => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(%peer, error = %e, "connection closed with an error");
    }
}

/// Resolves once `stop` turns true (or its sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// Open connections per client address, and in all.
#[derive(Clone)]
struct Clients {
    cap: usize,
    total_cap: usize,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
    total: Arc<std::sync::atomic::AtomicUsize>,
}

/// One admitted connection: gives its place back when dropped.
struct Slot {
    clients: Clients,
    ip: IpAddr,
}

impl Clients {
    fn new(cap: usize, total_cap: usize) -> Clients {
        Clients {
            cap,
            total_cap,
            open: Arc::default(),
            total: Arc::default(),
        }
    }

    fn admit(&self, ip: IpAddr) -> Option<Slot> {
        use std::sync::atomic::Ordering;
        let mut open = self.open.lock().expect("poisoned");
        let total = self.total.load(Ordering::SeqCst);
        let n = open.entry(ip).or_default();
        if (self.cap > 0 && *n >= self.cap) || (self.total_cap > 0 && total >= self.total_cap) {
            if *n == 0 {
                open.remove(&ip);
            }
            return None;
        }
        *n += 1;
        self.total.fetch_add(1, Ordering::SeqCst);
        Some(Slot {
            clients: self.clone(),
            ip,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.clients.open.lock().expect("poisoned");
        self.clients
            .total
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// Bodies left unread are read to their end after the answer up to this many bytes; beyond,
/// the connection closes instead.
const DRAIN_MAX: u64 = 256 * 1024;
/// How long the rest of an unread body may take to arrive (at most the body read timeout).
const DRAIN_WAIT: Duration = Duration::from_secs(5);

/// What a request's handler left of its body, handed over when the body is dropped.
#[derive(Clone, Default)]
struct Unread(Arc<Mutex<Leftover>>);

#[derive(Default)]
struct Leftover {
    /// The body's unread rest, when it had not ended.
    rest: Option<Incoming>,
    /// The body stalled (or failed) while a handler read it: nothing more is waited for.
    broken: bool,
}

/// `resp`, once the request's body is settled: its unread rest is drained (bounded) so the
/// connection stays usable, or the answer says `Connection: close`.
async fn settle(resp: Response, unread: &Unread, body_timeout: Duration) -> Response {
    let left = std::mem::take(&mut *unread.0.lock().expect("poisoned"));
    let rest = match left {
        Leftover { broken: true, .. } => return crate::reply::closing(resp),
        Leftover { rest: None, .. } => return resp,
        Leftover {
            rest: Some(rest), ..
        } => rest,
    };
    let fits = rest.size_hint().lower() <= DRAIN_MAX;
    let within = DRAIN_WAIT.min(body_timeout);
    if fits
        && matches!(
            tokio::time::timeout(within, drain(rest, DRAIN_MAX)).await,
            Ok(true)
        )
    {
        resp
    } else {
        crate::reply::closing(resp)
    }
}

/// Reads `body` to its end and discards it; false when it fails or holds more than `max` bytes.
async fn drain(mut body: Incoming, max: u64) -> bool {
    let mut seen = 0u64;
    loop {
        match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            None => return true,
            Some(Ok(frame)) => {
                seen += frame.data_ref().map_or(0, |d| d.len() as u64);
                if seen > max {
                    return false;
                }
            }
            Some(Err(_)) => return false,
        }
    }
}

/// A request body that fails when the client sends nothing for `timeout`; dropped before its
/// end, it hands its rest to [`settle`].
pub(crate) struct TimedBody {
    /// Always there until the body is dropped.
    inner: Option<Incoming>,
    timeout: Duration,
    idle: Pin<Box<Sleep>>,
    /// Whether a handler has read from it yet: the clock starts then, not when the head came.
    reading: bool,
    /// Whether its end (or an error) was reached.
    done: bool,
    unread: Unread,
}

impl TimedBody {
    fn new(inner: Incoming, timeout: Duration, unread: Unread) -> TimedBody {
        TimedBody {
            inner: Some(inner),
            timeout,
            idle: Box::pin(tokio::time::sleep(timeout)),
            reading: false,
            done: false,
            unread,
        }
    }

    /// The body stalled or failed: it is not waited for again, and its connection closes.
    fn fail(&mut self) {
        self.done = true;
        self.unread.0.lock().expect("poisoned").broken = true;
    }
}

impl Drop for TimedBody {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else {
            return;
        };
        if !self.done && !inner.is_end_stream() {
            self.unread.0.lock().expect("poisoned").rest = Some(inner);
        }
    }
}

/// The error of a body that stalled.
#[derive(Debug, thiserror::Error)]
#[error("the request body sent nothing for {0:?}")]
struct BodyStalled(Duration);

impl Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if !self.reading {
            self.reading = true;
            let first = Instant::now() + self.timeout;
            self.idle.as_mut().reset(first);
        }
        let this = &mut *self;
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(None);
        };
        match Pin::new(inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                let next = Instant::now() + this.timeout;
                this.idle.as_mut().reset(next);
                match &frame {
                    None => this.done = true,
                    Some(Err(_)) => this.fail(),
                    Some(Ok(_)) => {}
                }
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => match this.idle.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.fail();
                    Poll::Ready(Some(Err(BodyStalled(this.timeout).into())))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(Incoming::is_end_stream)
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner
            .as_ref()
            .map_or_else(|| hyper::body::SizeHint::with_exact(0), Incoming::size_hint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_address_holds_at_most_its_cap_and_gets_places_back() {
        let clients = Clients::new(2, 0);
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let first = clients.admit(a).unwrap();
        let _second = clients.admit(a).unwrap();
        assert!(clients.admit(a).is_none());
        assert!(
            clients.admit(b).is_some(),
            "other addresses are not affected"
        );
        drop(first);
        assert!(clients.admit(a).is_some());
        assert!(Clients::new(0, 0).admit(a).is_some(), "0: no cap");
    }

    #[test]
    fn all_addresses_together_hold_at_most_the_total_cap() {
        let clients = Clients::new(0, 2);
        let ips: Vec<IpAddr> = (2..6)
            .map(|i| format!("127.0.0.{i}").parse().unwrap())
            .collect();
        let first = clients.admit(ips[0]).unwrap();
        let _second = clients.admit(ips[1]).unwrap();
        assert!(clients.admit(ips[2]).is_none());
        assert!(
            clients.open.lock().unwrap().len() == 2,
            "a refusal keeps no entry"
        );
        drop(first);
        assert!(clients.admit(ips[3]).is_some());
    }
}
