//! The HTTP plumbing every connector shares (writer, voice, B-roll): one request through the
//! SSRF guard of [`Fetcher::guard`] with the resolved address pinned, no redirects, a timeout
//! and a size cap. A connector's host is operator configuration, not user input, but it still
//! passes the guard so a misconfigured URL cannot reach private addresses; a local model
//! server must be listed in `fetch.allow`.
//!
//! Connectors are synchronous (scene building runs on blocking threads) and drive this async
//! code through the runtime handle they were built with.

use std::time::Duration;

use crate::fetch::{FetchError, Fetcher};

/// What a connector request answered.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> Result<serde_json::Value, String> {
        serde_json::from_slice(&self.body).map_err(|e| format!("the reply is not JSON: {e}"))
    }

    /// The start of the body as text, for error messages in logs.
    pub fn snippet(&self) -> String {
        let s = String::from_utf8_lossy(&self.body[..self.body.len().min(200)]).into_owned();
        s.replace('\n', " ")
    }
}

/// A configured connector endpoint.
#[derive(Clone)]
pub struct Http {
    pub fetcher: Fetcher,
    pub runtime: tokio::runtime::Handle,
    pub timeout: Duration,
    /// Largest reply body accepted.
    pub max_bytes: u64,
}

impl Http {
    /// Sends one request and waits for the whole reply (blocking the calling thread, which must
    /// not be a runtime worker).
    pub fn send(
        &self,
        method: reqwest::Method,
        url: &str,
        headers: &[(&str, String)],
        body: Option<Vec<u8>>,
    ) -> Result<Reply, String> {
        self.runtime
            .block_on(send(self, method, url, headers, body))
            .map_err(|e| e.to_string())
    }

    /// A JSON POST.
    pub fn post_json(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
    ) -> Result<Reply, String> {
        let mut h: Vec<(&str, String)> = headers.to_vec();
        h.push(("content-type", "application/json".into()));
        self.send(
            reqwest::Method::POST,
            url,
            &h,
            Some(serde_json::to_vec(body).expect("JSON values serialise")),
        )
    }

    /// A guarded GET that follows redirects (media downloads, e.g. a CDN behind a stock API).
    pub fn download(&self, url: &str) -> Result<Vec<u8>, String> {
        self.runtime
            .block_on(self.fetcher.get(url, self.max_bytes, self.timeout))
            .map(|r| r.body)
            .map_err(|e| e.to_string())
    }
}

async fn send(
    http: &Http,
    method: reqwest::Method,
    url: &str,
    headers: &[(&str, String)],
    body: Option<Vec<u8>>,
) -> Result<Reply, FetchError> {
    let target = http.fetcher.guard(url).await?;
    let mut b = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(http.timeout)
        .user_agent("Reelsmith/0.1")
        .no_proxy();
    if let Some(url::Host::Domain(d)) = target.url.host() {
        b = b.resolve_to_addrs(d, &target.addrs);
    }
    let client = b.build().map_err(|e| FetchError::Network(e.to_string()))?;
    let mut req = client.request(method, target.url.clone());
    for (k, v) in headers {
        req = req.header(*k, v);
    }
    if let Some(body) = body {
        req = req.body(body);
    }
    let mut resp = req
        .send()
        .await
        .map_err(|e| FetchError::Network(quiet(e)))?;
    let status = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let mut out = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| FetchError::Network(quiet(e)))?
    {
        if out.len() as u64 + chunk.len() as u64 > http.max_bytes {
            return Err(FetchError::TooLarge(http.max_bytes));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(Reply {
        status,
        content_type,
        body: out,
    })
}

fn quiet(e: reqwest::Error) -> String {
    if e.is_timeout() {
        "timed out".into()
    } else if e.is_connect() {
        "connection failed".into()
    } else {
        e.without_url().to_string()
    }
}

/// `{base}/{path}` with exactly one slash between them.
pub fn join(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}
