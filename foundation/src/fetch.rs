//! The one outbound HTTP client. Every URL that comes from a user passes the
//! SSRF guard: the host is resolved first and *every* resolved address must
//! be public; the connection is then pinned to a checked address (no second
//! DNS answer can swap in a private one), and redirects are followed by hand,
//! each hop guarded again. `fetch.allow` exempts exact `host:port` pairs
//! (test fixtures on loopback).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use reqwest::Url;

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{0}")]
    Blocked(String),
    #[error("could not reach the host: {0}")]
    Network(String),
    #[error("the server answered HTTP {0}")]
    Status(u16),
    #[error("the response is larger than {0} bytes")]
    TooLarge(u64),
    #[error("too many redirects")]
    Redirects,
    /// The caller's look at the bytes so far stopped the download (its words are public).
    #[error("{0}")]
    Refused(String),
}

impl FetchError {
    /// What a client may read: the kind of failure without the network library's words.
    pub fn public(&self) -> String {
        match self {
            FetchError::Network(_) => "could not reach the host".into(),
            other => other.to_string(),
        }
    }
}

/// Whether an address must never be the target of a user-supplied URL.
pub(crate) fn is_forbidden_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_forbidden_v4(v4),
        IpAddr::V6(v6) => is_forbidden_v6(v6),
    }
}

fn is_forbidden_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || o[0] == 0 // "this network"
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // CGNAT 100.64/10
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // benchmarking 198.18/15
        || o[0] >= 240 // reserved
}

fn is_forbidden_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    // Addresses that embed an IPv4 address are judged by it.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_forbidden_v4(v4);
    }
    let embedded =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if s[0] == 0x64 && s[1] == 0xff9b {
        // NAT64 well-known (64:ff9b::/96) and local-use (64:ff9b:1::/48) prefixes
        return s[2] == 1 || is_forbidden_v4(embedded(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        // 6to4
        return is_forbidden_v4(embedded(s[1], s[2]));
    }
    if s[..6] == [0, 0, 0, 0, 0, 0] {
        // IPv4-compatible (deprecated) ::a.b.c.d, and :: / ::1
        return true;
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // unique local
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x2001 && s[1] == 0) // Teredo
        || s[0] == 0x0100 && s[1..4] == [0, 0, 0] // discard-only
}

/// Outbound HTTP with the guard.
#[derive(Clone)]
pub struct Fetcher {
    allow: Vec<(String, u16)>,
    user_agent: String,
}

/// An answer's `Content-Type`, when it has a readable one.
fn content_type_of(resp: &reqwest::Response) -> Option<String> {
    resp.headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// What a guarded URL resolved to.
#[derive(Debug, Clone)]
pub struct Target {
    pub url: Url,
    pub addrs: Vec<SocketAddr>,
}

pub struct Response {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    pub final_url: Url,
}

impl Fetcher {
    pub fn new(allow: &[String], user_agent: &str) -> Fetcher {
        let allow = allow
            .iter()
            .filter_map(|a| {
                let (h, p) = a.rsplit_once(':')?;
                Some((
                    h.trim_matches(['[', ']']).to_ascii_lowercase(),
                    p.parse().ok()?,
                ))
            })
            .collect();
        Fetcher {
            allow,
            user_agent: user_agent.to_string(),
        }
    }

    fn allowed(&self, host: &str, port: u16) -> bool {
        self.allow.iter().any(|(h, p)| h == host && *p == port)
    }

    /// Checks a URL without fetching it: scheme, host name, and every address
    /// it resolves to.
    pub async fn guard(&self, raw: &str) -> Result<Target, FetchError> {
        let (url, allowed) = self.check(raw)?;
        let port = url
            .port_or_known_default()
            .ok_or_else(|| FetchError::Blocked("the URL has no port".into()))?;
        let host = url
            .host()
            .ok_or_else(|| FetchError::Blocked("the URL has no host".into()))?;
        let addrs = resolve(&host, port).await?;
        if !allowed && addrs.iter().any(|a| is_forbidden_ip(a.ip())) {
            return Err(FetchError::Blocked(
                "the host resolves to a loopback, private, link-local or reserved address".into(),
            ));
        }
        Ok(Target { url, addrs })
    }

    /// Everything [`Fetcher::guard`] checks that needs no DNS: the scheme, credentials, the
    /// port, local and internal host names, and IP literals. Returns the parsed URL and whether
    /// `fetch.allow` lists its host. A URL that passes may still be refused once resolved.
    pub fn check(&self, raw: &str) -> Result<(Url, bool), FetchError> {
        let url = Url::parse(raw.trim())
            .map_err(|_| FetchError::Blocked("the URL is not a valid absolute URL".into()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Blocked(
                "only http and https URLs are accepted".into(),
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(FetchError::Blocked(
                "URLs with credentials are not accepted".into(),
            ));
        }
        let port = url
            .port_or_known_default()
            .ok_or_else(|| FetchError::Blocked("the URL has no port".into()))?;
        let host_str = match url.host() {
            Some(url::Host::Domain(d)) => d.trim_end_matches('.').to_ascii_lowercase(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            None => return Err(FetchError::Blocked("the URL has no host".into())),
        };
        if self.allowed(&host_str, port) {
            return Ok((url, true));
        }
        match url.host() {
            Some(url::Host::Domain(_)) => {
                let labels_block = host_str == "localhost"
                    || host_str.ends_with(".localhost")
                    || host_str.ends_with(".local")
                    || host_str.ends_with(".internal")
                    || !host_str.contains('.');
                if labels_block {
                    return Err(FetchError::Blocked(
                        "the host is a local or internal name".into(),
                    ));
                }
            }
            Some(url::Host::Ipv4(ip)) if is_forbidden_ip(IpAddr::V4(ip)) => {
                return Err(FetchError::Blocked(
                    "the host resolves to a loopback, private, link-local or reserved address"
                        .into(),
                ));
            }
            Some(url::Host::Ipv6(ip)) if is_forbidden_ip(IpAddr::V6(ip)) => {
                return Err(FetchError::Blocked(
                    "the host resolves to a loopback, private, link-local or reserved address"
                        .into(),
                ));
            }
            _ => {}
        }
        Ok((url, false))
    }

    fn client(&self, target: &Target, timeout: Duration) -> Result<reqwest::Client, FetchError> {
        let mut b = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .user_agent(self.user_agent.clone())
            .no_proxy();
        if let Some(url::Host::Domain(d)) = target.url.host() {
            b = b.resolve_to_addrs(d, &target.addrs);
        }
        b.build().map_err(|e| FetchError::Network(e.to_string()))
    }

    /// GET with the guard on every hop, a size cap and a timeout.
    pub async fn get(
        &self,
        url: &str,
        max_bytes: u64,
        timeout: Duration,
    ) -> Result<Response, FetchError> {
        self.get_watched(
            url,
            max_bytes,
            timeout,
            &mut |_: &[u8]| Ok::<(), String>(()),
        )
        .await
    }

    /// [`Fetcher::get`] that shows `watch` the body so far after every chunk; an `Err` from it
    /// drops the connection at once and fails with [`FetchError::Refused`] (a media URL whose
    /// header already says it is too long is not downloaded whole).
    pub async fn get_watched(
        &self,
        url: &str,
        max_bytes: u64,
        timeout: Duration,
        watch: &mut (dyn FnMut(&[u8]) -> Result<(), String> + Send),
    ) -> Result<Response, FetchError> {
        let (mut resp, final_url) = self.open(url, timeout, None).await?;
        if resp.content_length().is_some_and(|l| l > max_bytes) {
            return Err(FetchError::TooLarge(max_bytes));
        }
        let status = resp.status().as_u16();
        let content_type = content_type_of(&resp);
        let mut body = Vec::new();
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| FetchError::Network(without_url(e)))?
        {
            if body.len() as u64 + chunk.len() as u64 > max_bytes {
                return Err(FetchError::TooLarge(max_bytes));
            }
            body.extend_from_slice(&chunk);
            watch(&body).map_err(FetchError::Refused)?;
        }
        Ok(Response {
            status,
            content_type,
            body,
            final_url,
        })
    }

    /// The first bytes of a resource, at most `max_bytes` (asked for with `Range`; a server
    /// that sends the whole is cut off there), with the guard on every hop and a timeout;
    /// reading stops as soon as `enough` says the bytes so far suffice. Enough to read a media
    /// file's header without downloading it.
    pub async fn get_head(
        &self,
        url: &str,
        max_bytes: u64,
        timeout: Duration,
        enough: &(dyn Fn(&[u8]) -> bool + Sync),
    ) -> Result<Response, FetchError> {
        let (mut resp, final_url) = self.open(url, timeout, Some(max_bytes)).await?;
        let status = resp.status().as_u16();
        let content_type = content_type_of(&resp);
        let mut body = Vec::new();
        while (body.len() as u64) < max_bytes
            && !enough(&body)
            && let Some(chunk) = resp
                .chunk()
                .await
                .map_err(|e| FetchError::Network(without_url(e)))?
        {
            body.extend_from_slice(&chunk);
        }
        body.truncate(usize::try_from(max_bytes).unwrap_or(usize::MAX));
        Ok(Response {
            status,
            content_type,
            body,
            final_url,
        })
    }

    /// Sends a GET (for the first `head` bytes only, when given) with the guard on every hop,
    /// following up to five redirects; a status other than 2xx is an error. Returns the answer,
    /// its body unread, and the URL that gave it.
    async fn open(
        &self,
        url: &str,
        timeout: Duration,
        head: Option<u64>,
    ) -> Result<(reqwest::Response, Url), FetchError> {
        let mut current = url.to_string();
        for _ in 0..5 {
            let target = self.guard(&current).await?;
            let client = self.client(&target, timeout)?;
            let mut request = client.get(target.url.clone());
            if let Some(n) = head.filter(|&n| n > 0) {
                request = request.header(reqwest::header::RANGE, format!("bytes=0-{}", n - 1));
            }
            let resp = request
                .send()
                .await
                .map_err(|e| FetchError::Network(without_url(e)))?;
            let status = resp.status().as_u16();
            if (300..400).contains(&status) {
                let loc = resp
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or(FetchError::Status(status))?;
                current = target
                    .url
                    .join(loc)
                    .map_err(|_| FetchError::Blocked("bad redirect location".into()))?
                    .to_string();
                continue;
            }
            if !(200..300).contains(&status) {
                return Err(FetchError::Status(status));
            }
            return Ok((resp, target.url));
        }
        Err(FetchError::Redirects)
    }

    /// POST a body once; redirects are never followed (a 3xx is returned as
    /// the status). `guarded` applies the SSRF guard (production callbacks).
    pub async fn post(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: String,
        timeout: Duration,
        guarded: bool,
    ) -> Result<u16, FetchError> {
        let target = if guarded {
            self.guard(url).await?
        } else {
            let url = Url::parse(url)
                .map_err(|_| FetchError::Blocked("the URL is not a valid absolute URL".into()))?;
            Target { url, addrs: vec![] }
        };
        let client = if guarded {
            self.client(&target, timeout)?
        } else {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(timeout)
                .user_agent(self.user_agent.clone())
                .no_proxy()
                .build()
                .map_err(|e| FetchError::Network(e.to_string()))?
        };
        let mut req = client.post(target.url).body(body);
        for (k, v) in headers {
            req = req.header(*k, v);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| FetchError::Network(without_url(e)))?;
        Ok(resp.status().as_u16())
    }
}

fn without_url(e: reqwest::Error) -> String {
    if e.is_timeout() {
        "timed out".into()
    } else if e.is_connect() {
        "connection failed".into()
    } else {
        e.without_url().to_string()
    }
}

async fn resolve(host: &url::Host<&str>, port: u16) -> Result<Vec<SocketAddr>, FetchError> {
    match host {
        url::Host::Ipv4(ip) => Ok(vec![SocketAddr::new(IpAddr::V4(*ip), port)]),
        url::Host::Ipv6(ip) => Ok(vec![SocketAddr::new(IpAddr::V6(*ip), port)]),
        url::Host::Domain(d) => {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((*d, port))
                .await
                .map_err(|_| FetchError::Blocked("the host name could not be resolved".into()))?
                .collect();
            if addrs.is_empty() {
                return Err(FetchError::Blocked(
                    "the host name could not be resolved".into(),
                ));
            }
            Ok(addrs)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(url: &str) -> bool {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let f = Fetcher::new(&[], "test");
        matches!(rt.block_on(f.guard(url)), Err(FetchError::Blocked(_)))
    }

    #[test]
    fn rejects_private_targets_in_every_notation() {
        for url in [
            "http://127.0.0.1/a.mp4",
            "http://127.1/a.mp4",
            "http://2130706433/a.mp4",
            "http://0x7f000001/a.mp4",
            "http://0177.0.0.1/a.mp4",
            "http://0/a.mp4",
            "http://10.0.0.5/x",
            "http://172.16.3.4/x",
            "http://192.168.1.1/x",
            "http://169.254.169.254/latest/meta-data",
            "http://100.64.0.1/x",
            "http://[::1]/x",
            "http://[::ffff:127.0.0.1]/x",
            "http://[::ffff:7f00:1]/x",
            "http://[64:ff9b::a00:1]/x",
            "http://[64:ff9b::7f00:1]/x",
            "http://[fd00::1]/x",
            "http://[fe80::1]/x",
            "http://[2002:c0a8:0101::1]/x",
            "http://localhost/x",
            "http://LOCALHOST./x",
            "http://foo.localhost/x",
            "http://printer.local/x",
            "http://intranet/x",
            "file:///etc/passwd",
            "ftp://example.com/a.mp4",
            "gopher://example.com/",
            "http://user:pw@example.com/a.mp4",
            "not a url",
        ] {
            assert!(blocked(url), "{url} should be blocked");
        }
    }

    #[test]
    fn public_literals_pass() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let f = Fetcher::new(&[], "test");
        for url in [
            "http://93.184.216.34/a.mp4",
            "https://[2606:4700::1111]/a.png",
        ] {
            assert!(rt.block_on(f.guard(url)).is_ok(), "{url}");
        }
    }

    #[test]
    fn allow_list_is_exact() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let f = Fetcher::new(&["127.0.0.1:4000".into()], "test");
        assert!(rt.block_on(f.guard("http://127.0.0.1:4000/a.mp4")).is_ok());
        assert!(rt.block_on(f.guard("http://127.0.0.1:4001/a.mp4")).is_err());
    }
}
