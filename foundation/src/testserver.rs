//! A tiny HTTP/1.1 server on 127.0.0.1 for connector unit tests: it speaks the real protocol
//! (request line, headers, `Content-Length` body; one request per connection) and answers with
//! what the test's handler returns, recording every request it saw.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Path and query as sent.
    pub target: String,
    /// Lowercase header names.
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }
    pub fn query(&self, key: &str) -> Option<String> {
        let q = self.target.split_once('?')?.1;
        url::form_urlencoded::parse(q.as_bytes())
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    }
}

/// An answer: status, content type, body.
pub type Answer = (u16, String, Vec<u8>);

/// A running fake server.
pub struct Server {
    pub addr: String,
    pub seen: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }
}

/// Starts a server answering every request with `handler` (on a background thread).
pub fn start(handler: impl Fn(&Request) -> Answer + Send + Sync + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let seen: Arc<Mutex<Vec<Request>>> = Arc::default();
    let s = seen.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut reader = BufReader::new(conn.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let method = parts.next().unwrap_or("").to_string();
            let target = parts.next().unwrap_or("").to_string();
            let mut headers = HashMap::new();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':') {
                    headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            let len: usize = headers
                .get("content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0u8; len];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let req = Request {
                method,
                target,
                headers,
                body,
            };
            let (status, ctype, out) = handler(&req);
            s.lock().unwrap().push(req);
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                out.len()
            );
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(&out);
            let _ = conn.flush();
        }
    });
    Server { addr, seen }
}

/// A runtime plus an [`crate::connector::Http`] that allows `server` through the guard.
pub fn http_for(server: &Server) -> (tokio::runtime::Runtime, crate::connector::Http) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let http = crate::connector::Http {
        fetcher: crate::fetch::Fetcher::new(std::slice::from_ref(&server.addr), "test"),
        runtime: rt.handle().clone(),
        timeout: std::time::Duration::from_secs(10),
        max_bytes: 64 * 1024 * 1024,
    };
    (rt, http)
}
