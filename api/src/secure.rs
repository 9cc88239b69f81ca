//! The security headers of every reply, set in one place: `routes` passes each response through
//! [`Headers::apply`] after the rejection handler, so no handler can forget them.
//!
//! - Every reply: `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer` (page
//!   links carry tokens; a click away must not hand them to the next site).
//! - Every HTML page: a content security policy. Pages are server-made HTML with inline styles
//!   and no scripts of their own: no script runs, nothing is fetched but pictures and clips,
//!   forms post back to this origin only, and no site may frame them (`frame-ancestors 'none'`;
//!   they carry tokens, some of them write tokens).
//! - The editor's shell runs this server's scripts (never inline ones) and talks to it over
//!   `fetch`, server-sent events and a WebSocket, to its own origin only (`'self'`, plus the
//!   `ws:`/`wss:` form of the app's origin for browsers before CSP3, where `'self'` does not
//!   cover WebSockets); it may never be framed.
//! - The read-only player runs the same scripts and may be framed by `http.embed_origins`.
//!
//! A handler that answers a page names its kind by putting a [`Page`] into the response's
//! extensions ([`mark`]); an HTML reply without one is a plain page. A reply that already has a
//! policy (the sandboxing one of `/media`) keeps it.

use foundation::config::Settings;
use warp::http::HeaderValue;
use warp::http::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY};
use warp::reply::Response;

/// Which policy a page gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Page {
    /// The editor app's shell (scripts of this origin, realtime connections).
    Editor,
    /// The read-only player (the app's scripts; framed by the configured origins).
    Player,
}

/// Marks `resp` as a page of `kind`.
pub(crate) fn mark(mut resp: Response, kind: Page) -> Response {
    resp.extensions_mut().insert(kind);
    resp
}

/// The policies, made once from the settings.
#[derive(Clone)]
pub(crate) struct Headers {
    plain: HeaderValue,
    editor: HeaderValue,
    player: HeaderValue,
}

/// `scheme://host[:port]` of a URL (the media origin, for the policies).
fn origin_of(url: &str) -> &str {
    let after = url.find("://").map_or(0, |i| i + 3);
    match url[after..].find('/') {
        Some(i) => &url[..after + i],
        None => url,
    }
}

/// The WebSocket origin of an `http(s)://` origin (`ws://`, `wss://`).
fn websocket_origin(origin: &str) -> String {
    if let Some(rest) = origin.strip_prefix("https://") {
        format!("wss://{rest}")
    } else if let Some(rest) = origin.strip_prefix("http://") {
        format!("ws://{rest}")
    } else {
        String::new()
    }
}

impl Headers {
    pub(crate) fn new(settings: &Settings) -> Headers {
        let media = origin_of(&settings.origin_url);
        let live = websocket_origin(origin_of(&settings.app_url));
        let plain = format!(
            "default-src 'none'; img-src 'self' data: https: {media}; \
             media-src 'self' https: {media}; style-src 'unsafe-inline'; \
             form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        );
        let app = |ancestors: &str| {
            format!(
                "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                 img-src 'self' data: blob: {media}; media-src 'self' blob: {media}; \
                 connect-src 'self' {live}; object-src 'none'; frame-ancestors {ancestors}; \
                 base-uri 'none'; form-action 'none'"
            )
        };
        let ancestors = match settings
            .section::<crate::serve::HttpConfig>()
            .embed_origins
            .as_slice()
        {
            [] => "'none'".to_string(),
            list => list.join(" "),
        };
        let value = |s: String| {
            // The origins are checked when the config is read, so this always holds.
            HeaderValue::from_str(&s).unwrap_or_else(|_| {
                HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'")
            })
        };
        Headers {
            plain: value(plain),
            editor: value(app("'none'")),
            player: value(app(&ancestors)),
        }
    }

    /// Adds the headers `resp` lacks.
    pub(crate) fn apply(&self, mut resp: Response) -> Response {
        let page = resp.extensions().get::<Page>().copied();
        let html = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/html"));
        let h = resp.headers_mut();
        h.insert(
            "x-content-type-options",
            HeaderValue::from_static("nosniff"),
        );
        h.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
        let policy = match page {
            Some(Page::Editor) => Some(&self.editor),
            Some(Page::Player) => Some(&self.player),
            None if html => Some(&self.plain),
            None => None,
        };
        if let Some(p) = policy
            && !h.contains_key(CONTENT_SECURITY_POLICY)
        {
            h.insert(CONTENT_SECURITY_POLICY, p.clone());
        }
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(origins: &[&str]) -> Settings {
        let mut c = foundation::config::Config::default();
        c.sections.set(crate::serve::HttpConfig {
            embed_origins: origins.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        });
        c.finish("127.0.0.1:9".parse().unwrap()).unwrap()
    }

    fn csp(h: &Headers, resp: Response) -> String {
        let r = h.apply(resp);
        assert_eq!(r.headers()["x-content-type-options"], "nosniff");
        assert_eq!(r.headers()["referrer-policy"], "no-referrer");
        r.headers()
            .get(CONTENT_SECURITY_POLICY)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    }

    fn page() -> Response {
        warp::Reply::into_response(warp::reply::html("<p>x</p>"))
    }

    #[test]
    fn pages_get_a_policy_json_gets_nosniff_only() {
        let h = Headers::new(&settings(&["*"]));
        let plain = csp(&h, page());
        assert!(plain.contains("default-src 'none'"), "{plain}");
        assert!(plain.contains("frame-ancestors 'none'"), "{plain}");
        assert!(!plain.contains("script-src"), "{plain}");
        let json = warp::Reply::into_response(warp::reply::json(&1));
        assert_eq!(csp(&h, json), "");
        assert!(csp(&h, mark(page(), Page::Editor)).contains("frame-ancestors 'none'"));
        assert!(csp(&h, mark(page(), Page::Player)).contains("frame-ancestors *;"));
    }

    #[test]
    fn the_player_is_framed_only_by_the_configured_origins() {
        let h = Headers::new(&settings(&["https://a.example", "https://b.example:8443"]));
        let p = csp(&h, mark(page(), Page::Player));
        assert!(
            p.contains("frame-ancestors https://a.example https://b.example:8443;"),
            "{p}"
        );
        let none = Headers::new(&settings(&[]));
        assert!(csp(&none, mark(page(), Page::Player)).contains("frame-ancestors 'none'"));
    }

    #[test]
    fn the_app_connects_to_its_own_origin_only() {
        let h = Headers::new(&settings(&["*"]));
        for kind in [Page::Editor, Page::Player] {
            let p = csp(&h, mark(page(), kind));
            assert!(
                p.contains("connect-src 'self' ws://127.0.0.1:9;"),
                "{kind:?}: {p}"
            );
        }
        assert_eq!(
            websocket_origin("https://app.example.com"),
            "wss://app.example.com"
        );
    }
}
