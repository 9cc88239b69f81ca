//! The HTTP edge against the real daemon: security headers on every page kind, the read-only
//! player's own token at every door, slow and idle sockets, uploads that declare too much, the
//! webhook test inbox's bounds, control characters kept out of pages, and the XSS corpus
//! (`tests/corpus/xss.txt`) through every page in a real Chromium.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use reelsmith_tests::browser::Browser;
use reelsmith_tests::{Daemon, script};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(240);

/// The daemon's address (`host:port`).
fn addr(d: &Daemon) -> SocketAddr {
    d.base
        .trim_start_matches("http://")
        .parse()
        .expect("base is host:port")
}

/// A client that does not follow redirects.
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// A scene-ready video: (topic id, review url).
async fn scene_video(d: &Daemon, text: &str) -> (String, String) {
    let ready = d
        .scenes_ready(&json!({ "script_text": text, "output_type": "scene" }))
        .await;
    (ready.id, ready.review_url)
}

/// The player's own link, where `review_url&readonly=true` sends a browser.
async fn player_link(review: &str) -> String {
    let r = no_redirects()
        .get(format!("{review}&readonly=true"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    assert!(to.contains("readonly=true"), "{to}");
    to
}

fn token_of(url: &str) -> String {
    let q = url.split_once('?').unwrap().1;
    q.split('&')
        .find_map(|p| p.strip_prefix("token="))
        .unwrap()
        .to_string()
}

fn header(r: &reqwest::Response, name: &str) -> String {
    r.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

/// Checks the headers every page must carry and returns its policy.
async fn page_headers(http: &reqwest::Client, url: &str) -> (u16, String) {
    let r = http.get(url).send().await.unwrap();
    let status = r.status().as_u16();
    assert!(
        header(&r, "content-type").starts_with("text/html"),
        "{url}: {status}"
    );
    assert_eq!(header(&r, "x-content-type-options"), "nosniff", "{url}");
    assert_eq!(header(&r, "referrer-policy"), "no-referrer", "{url}");
    let csp = header(&r, "content-security-policy");
    assert!(csp.contains("default-src"), "{url}: {csp}");
    assert!(csp.contains("base-uri 'none'"), "{url}: {csp}");
    (status, csp)
}

#[tokio::test(flavor = "multi_thread")]
async fn every_page_kind_sends_csp_nosniff_and_no_referrer() {
    let d = Daemon::start(
        BIN,
        &[(
            "REELSMITH__HTTP__EMBED_ORIGINS",
            "[\"https://blog.example.com\"]",
        )],
    );
    let (id, review) = scene_video(&d, &script(80)).await;
    let player = player_link(&review).await;
    let (c, piece, _) = d
        .post(
            "/v1/create_content",
            &json!({"content": "why weekly short videos help small teams"}),
        )
        .await;
    assert_eq!(c, 202, "{piece}");
    let (_, group, _) = d.get("/v1/channel_groups").await;
    let (c, page) = d.connect_platform("x", 0, "studio").await;
    assert_eq!(c, 200, "{page}");
    let (c, v, _) = d
        .post(
            "/v1/publish",
            &json!({"text": "A short note", "platforms": ["x"]}),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let post = d
        .wait_for(v["request_ids"][0].as_str().unwrap(), LONG, |s| {
            s["status"] != "processing"
        })
        .await;
    let post_url = post["result"]["posts"][0]["post_url"]
        .as_str()
        .unwrap_or_else(|| panic!("{post}"))
        .to_string();
    let mut links = Vec::new();
    for body in [
        json!({"link_type": "record", "topic_id": id}),
        json!({"link_type": "content_plan"}),
    ] {
        let (c, v, _) = d.post("/v1/client_link/send", &body).await;
        assert_eq!(c, 200, "{v}");
        links.push(v["magic_url"].as_str().unwrap().to_string());
    }

    let http = &d.http;
    let (_, editor) = page_headers(http, &review).await;
    assert!(editor.contains("frame-ancestors 'none'"), "{editor}");
    assert!(editor.contains("script-src 'self'"), "{editor}");
    let (c, embed) = page_headers(http, &player).await;
    assert_eq!(c, 200);
    // The app connects to the daemon's own origin only: no WebSocket to any other host.
    let own = format!("connect-src 'self' ws://{};", addr(&d));
    for csp in [&editor, &embed] {
        assert!(csp.contains(&own), "{csp}");
        assert!(!csp.contains(" ws: ") && !csp.contains(" wss:"), "{csp}");
    }
    assert!(
        embed.contains("frame-ancestors https://blog.example.com;"),
        "{embed}"
    );
    let plain_pages = [
        (d.url(&format!("/app/editor/{id}?token=0000")), 404),
        (player.replace("&readonly=true", ""), 403),
        (
            piece["result"]["review_url"].as_str().unwrap().to_string(),
            200,
        ),
        (group["setup_url"].as_str().unwrap().to_string(), 200),
        (group["schedule_url"].as_str().unwrap().to_string(), 200),
        (post_url, 200),
        (links[0].clone(), 200),
        (links[1].clone(), 200),
        (format!("{}x", links[1]), 403),
        (d.url("/app/docs"), 200),
        (d.url("/app/pricing"), 200),
    ];
    for (url, want) in plain_pages {
        let (c, csp) = page_headers(http, &url).await;
        assert_eq!(c, want, "{url}");
        assert!(csp.contains("frame-ancestors 'none'"), "{url}: {csp}");
        assert!(!csp.contains("script-src"), "{url}: no script runs: {csp}");
    }
    // JSON replies, answers and errors alike, are never sniffed.
    for path in ["/v1/account", "/v1/status/nope", "/healthz"] {
        let r = http
            .get(d.url(path))
            .bearer_auth(&d.key)
            .send()
            .await
            .unwrap();
        assert_eq!(header(&r, "x-content-type-options"), "nosniff", "{path}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_player_token_opens_the_player_and_its_media_and_no_other_door() {
    let d = Daemon::start(BIN, &[]);
    let (id, review) = scene_video(&d, &script(80)).await;
    let player = player_link(&review).await;
    let token = token_of(&player);
    assert_ne!(token, token_of(&review), "the player has its own token");
    let http = no_redirects();
    let at = |path: &str| d.url(&format!("/app/editor/{id}{path}?token={token}"));

    let r = http.get(&player).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("data-mode=\"player\""));
    let r = http.get(at("/data")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let view: Value = r.json().await.unwrap();
    let scene = view["scenes"][0]["voice_file"]
        .as_str()
        .unwrap()
        .to_string();
    let r = http
        .get(at(&format!("/still/{scene}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the player's stills");

    // The editor's page: a page saying so.
    let r = http.get(at("")).send().await.unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("player only"));
    // Every other door: the envelope.
    let doors = [
        ("GET", "/events", json!(null)),
        ("GET", "/live", json!(null)),
        ("GET", "/status", json!(null)),
        ("POST", "/modify", json!({"voice_file": scene, "text": "x"})),
        ("POST", "/session", json!({"action": "start"})),
        ("POST", "/geometry", json!({"voice_file": scene})),
        ("POST", "/export", json!({})),
        ("POST", "/script", json!({})),
        ("POST", "/broll", json!({"query": "sea"})),
        ("POST", "/upload", json!(null)),
        ("POST", "/undo", json!(null)),
        ("POST", "/revoice", json!({"voice_file": scene})),
        ("POST", "/reorder", json!({"order": [scene]})),
        ("POST", "/delete", json!({"voice_file": scene})),
        ("POST", "/add", json!({"text": "A new scene."})),
        ("POST", "/redo", json!(null)),
        ("GET", "/versions", json!(null)),
    ];
    for (method, path, body) in doors {
        let url = if path == "/upload" {
            format!("{}&filename=a.png", at(path))
        } else {
            at(path)
        };
        let mut req = http.request(method.parse().unwrap(), url);
        if path == "/live" {
            req = req
                .header("connection", "upgrade")
                .header("upgrade", "websocket")
                .header("sec-websocket-version", "13")
                .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==");
        }
        if path == "/upload" {
            req = req.body(vec![1u8; 16]);
        } else if !body.is_null() {
            req = req.json(&body);
        }
        let r = req.send().await.unwrap();
        let status = r.status().as_u16();
        let v: Value = r.json().await.unwrap_or(Value::Null);
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (403, Some("read_only_link")),
            "{method} {path}: {v}"
        );
    }
    // The review link still opens every one of them.
    let review_token = token_of(&review);
    let r = http
        .get(d.url(&format!("/app/editor/{id}/status?token={review_token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// A socket from `from` to the daemon, sending `bytes` first.
async fn socket_from(from: &str, to: SocketAddr, bytes: &[u8]) -> TcpStream {
    let s = TcpSocket::new_v4().unwrap();
    s.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let mut stream = s.connect(to).await.unwrap();
    if !bytes.is_empty() {
        stream.write_all(bytes).await.unwrap();
    }
    stream
}

/// Reads until the peer closes (or `within` passes): what it sent, and whether it closed.
async fn read_to_close(stream: &mut TcpStream, within: Duration) -> (String, bool) {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&out).into(), true),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
            Err(_) => return (String::from_utf8_lossy(&out).into(), false),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_and_slow_sockets_are_capped_per_address_and_timed_out() {
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__HTTP__HEADER_READ_TIMEOUT_SECS", "2"),
            ("REELSMITH__HTTP__BODY_READ_TIMEOUT_SECS", "2"),
            ("REELSMITH__HTTP__MAX_CONNECTIONS_PER_CLIENT", "50"),
        ],
    );
    let to = addr(&d);
    // 200 idle sockets from one address: 50 are held, the rest closed at once.
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(socket_from("127.0.0.2", to, b"").await);
    }
    let started = Instant::now();
    let r = d.http.get(d.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "healthz answers"
    );
    let mut closed_at_once = 0;
    for s in idle.iter_mut().skip(50) {
        if read_to_close(s, Duration::from_millis(300)).await.1 {
            closed_at_once += 1;
        }
    }
    assert_eq!(
        closed_at_once, 150,
        "over the cap: closed before anything is read"
    );

    // Half a request head is closed after the header timeout.
    let mut half = socket_from(
        "127.0.0.3",
        to,
        b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: ",
    )
    .await;
    let started = Instant::now();
    let (_, closed) = read_to_close(&mut half, Duration::from_secs(8)).await;
    assert!(closed, "half a head is not kept");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(1500) && waited < Duration::from_secs(6),
        "{waited:?}"
    );
    // The idle ones are gone too, so the address may connect again.
    for s in idle.iter_mut().take(50) {
        assert!(
            read_to_close(s, Duration::from_secs(6)).await.1,
            "idle closed"
        );
    }
    let mut again = socket_from(
        "127.0.0.2",
        to,
        b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    )
    .await;
    let (reply, _) = read_to_close(&mut again, Duration::from_secs(5)).await;
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");

    // A body that stalls is answered or dropped after the body timeout.
    let (_, inbox, _) = d.post("/app/webhook_test", &json!({})).await;
    let path = format!("/app/webhook_test/{}", inbox["id"].as_str().unwrap());
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"a\":"
    );
    let mut slow = socket_from("127.0.0.4", to, head.as_bytes()).await;
    let started = Instant::now();
    let (reply, closed) = read_to_close(&mut slow, Duration::from_secs(8)).await;
    assert!(closed || reply.starts_with("HTTP/1.1 4"), "{reply}");
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
}

/// Sends a request head that declares a huge body, and a few bytes of it.
async fn declare_huge(d: &Daemon, path: &str, content_type: &str) -> (String, Duration) {
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {key}\r\n\
         content-type: {content_type}\r\ncontent-length: 900000000000\r\n\r\n--b\r\n",
        key = d.key
    );
    let mut s = socket_from("127.0.0.1", addr(d), head.as_bytes()).await;
    let started = Instant::now();
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf))
        .await
        .expect("answered without waiting for the body")
        .unwrap();
    (
        String::from_utf8_lossy(&buf[..n]).into_owned(),
        started.elapsed(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn uploads_declaring_more_than_the_cap_get_the_spec_codes_before_the_body() {
    let d = Daemon::start(BIN, &[]);
    let (id, review) = scene_video(&d, &script(80)).await;
    let token = token_of(&review);
    let multipart = "multipart/form-data; boundary=b";
    for (path, ct, want) in [
        ("/v1/upload_asset".to_string(), multipart, "400 Bad Request"),
        ("/v1/create_video".to_string(), multipart, "400 Bad Request"),
        (
            format!("/app/editor/{id}/upload?token={token}&filename=a.png"),
            "image/png",
            "413 Payload Too Large",
        ),
    ] {
        let (reply, took) = declare_huge(&d, &path, ct).await;
        assert!(
            reply.starts_with(&format!("HTTP/1.1 {want}")),
            "{path}: {reply}"
        );
        assert!(
            reply.to_ascii_lowercase().contains("connection: close"),
            "{path}: {reply}"
        );
        assert!(took < Duration::from_secs(2), "{path}: {took:?}");
    }
    // The spec's codes: `asset_too_large` (500 MB) and `file_too_large` (100 MB), from the
    // declared length alone (headers only, not a byte of the body).
    for (path, declared, code) in [
        ("/v1/upload_asset", 600_000_000u64, "asset_too_large"),
        ("/v1/create_video", 200_000_000, "file_too_large"),
    ] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {key}\r\n\
             content-type: {multipart}\r\ncontent-length: {declared}\r\n\r\n",
            key = d.key
        );
        let mut s = socket_from("127.0.0.1", addr(&d), head.as_bytes()).await;
        let (status, headers, body) = read_response(&mut s).await.expect("an answer");
        assert!(status.starts_with("HTTP/1.1 400"), "{path}: {status}");
        assert!(headers.contains("connection: close"), "{path}: {headers}");
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["error"]["code"], code, "{path}: {v}");
        assert!(v["error"]["details"]["max_bytes"].is_u64(), "{path}: {v}");
    }
}

/// Reads one HTTP/1.1 answer (with a `content-length` body) from `stream`: its status line, its
/// header lines (lower-cased) and its body; `None` when the connection closes first.
async fn read_response(stream: &mut TcpStream) -> Option<(String, String, Vec<u8>)> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        match tokio::time::timeout(Duration::from_secs(30), stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => data.extend_from_slice(&buf[..n]),
            _ => return None,
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).to_ascii_lowercase();
    let (status, headers) = head.split_once("\r\n").unwrap_or((&head, ""));
    let length: usize = headers
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    let mut body = data[head_end + 4..].to_vec();
    while body.len() < length {
        match tokio::time::timeout(Duration::from_secs(30), stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => body.extend_from_slice(&buf[..n]),
            _ => return None,
        }
    }
    Some((status.to_uppercase(), headers.to_string(), body))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_left_unread_never_breaks_the_next_request_on_the_connection() {
    let d = Daemon::start(BIN, &[]);
    let ready = d
        .scenes_ready(&json!({ "script_text": script(80), "output_type": "scene" }))
        .await;
    let (id, voice_file) = (&ready.id, &ready.voice_files[0]);
    let token = token_of(&ready.review_url);
    let player = token_of(&player_link(&ready.review_url).await);
    // Routes that never read a body: the health check (405 to a POST), the editor's preview
    // clip, and export (refused to the read-only player's token before anything is read).
    let routes = [
        "/healthz".to_string(),
        format!("/app/editor/{id}/preview/{voice_file}?token={token}"),
        format!("/app/editor/{id}/export?token={player}"),
    ];
    // Large enough that most of it is still on its way when the answer is made.
    let body = format!("{{\"pad\":\"{}\"}}", "x".repeat(48 * 1024));
    for round in 0..30 {
        let path = &routes[round % routes.len()];
        let first = format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
             content-length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut s = socket_from("127.0.0.1", addr(&d), first.as_bytes()).await;
        let (status, headers, _) = read_response(&mut s)
            .await
            .unwrap_or_else(|| panic!("round {round}, {path}: no answer"));
        assert!(!status.contains(" 5"), "round {round}, {path}: {status}");
        assert!(
            !headers.contains("connection: close"),
            "round {round}, {path}: a small unread body is read, the connection kept"
        );
        s.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
            .await
            .unwrap();
        let (status, _, _) = read_response(&mut s)
            .await
            .unwrap_or_else(|| panic!("round {round}, {path}: the second request got no answer"));
        assert!(
            status.starts_with("HTTP/1.1 200"),
            "round {round}: {status}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_webhook_test_inbox_is_capped_per_address_expires_and_refuses_big_posts() {
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__HTTP__INBOX_MAX_PER_CLIENT", "3"),
            ("REELSMITH__HTTP__INBOX_TTL_SECS", "2"),
        ],
    );
    let mut ids = Vec::new();
    for _ in 0..3 {
        let (c, v, _) = d.post("/app/webhook_test", &json!({})).await;
        assert_eq!(c, 201, "{v}");
        ids.push(v["id"].as_str().unwrap().to_string());
    }
    let (c, v, h) = d.post("/app/webhook_test", &json!({})).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (429, Some("rate_limited")),
        "{v}"
    );
    assert!(h.contains_key("retry-after"));

    // The body is refused from its declared length, before it is read: declare 2 MiB and send
    // none (a client still writing 2 MiB may see the closed connection before the answer).
    let request = format!(
        "POST /app/webhook_test/{} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        ids[0],
        2 * 1024 * 1024
    );
    let mut big = socket_from("127.0.0.1", addr(&d), request.as_bytes()).await;
    let (reply, _) = read_to_close(&mut big, Duration::from_secs(10)).await;
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(reply.contains("payload_too_large"), "{reply}");
    let (c, _, _) = d
        .post(&format!("/app/webhook_test/{}", ids[0]), &json!({"ok": 1}))
        .await;
    assert_eq!(c, 200);

    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (c, _, _) = d.get(&format!("/app/webhook_test/{}", ids[0])).await;
    assert_eq!(c, 404, "expired with what it received");
    let (c, _, _) = d.post("/app/webhook_test", &json!({})).await;
    assert_eq!(c, 201, "the address may make inboxes again");
}

#[tokio::test(flavor = "multi_thread")]
async fn control_characters_never_reach_a_page() {
    let d = Daemon::start(BIN, &[]);
    let text = format!("Bell\u{7} nul\u{0} escape\u{1b}[31m red. {}", script(80));
    let (_, review) = scene_video(&d, &text).await;
    let page = d
        .http
        .get(&review)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("escape"), "the scene text is on the page");
    let bad: Vec<char> = page
        .chars()
        .filter(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
}

/// The hostile lines of `tests/corpus/xss.txt`.
fn xss_corpus() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/xss.txt");
    std::fs::read_to_string(path)
        .expect("the corpus")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Opens `url` in `b`, lets it settle, and checks nothing of the corpus ran.
async fn runs_nothing(b: &Browser, url: &str, settle: &str) {
    b.client.goto(url).await.expect("open the page");
    b.wait_for(settle, 60).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        b.client.get_alert_text().await.is_err(),
        "{url}: an alert opened"
    );
    let ran = b
        .eval("return typeof window.__xss !== 'undefined' || [...document.querySelectorAll('iframe')].some(f => { try { return f.contentWindow.__xss !== undefined; } catch (e) { return false; } });")
        .await;
    assert_eq!(ran, json!(false), "{url}: a payload ran");
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_text_runs_on_no_page_in_a_real_browser() {
    let corpus = xss_corpus();
    let d = Daemon::start(BIN, &[]);
    // Scene text and the title (the first sentence) hold the corpus, one payload a sentence.
    let text = format!("{}. {}", corpus.join(". "), script(80));
    let (id, review) = scene_video(&d, &text).await;
    let player = player_link(&review).await;
    let (c, piece, _) = d
        .post("/v1/create_content", &json!({"content": corpus.join("\n")}))
        .await;
    assert_eq!(c, 202, "{piece}");
    let (c, page) = d.connect_platform("x", 0, "studio").await;
    assert_eq!(c, 200, "{page}");
    let (c, v, _) = d
        .post(
            "/v1/publish",
            &json!({"text": corpus.join("\n\n"), "platforms": ["x"]}),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let post = d
        .wait_for(v["request_ids"][0].as_str().unwrap(), LONG, |s| {
            s["status"] != "processing"
        })
        .await;
    let post_url = post["result"]["posts"][0]["post_url"]
        .as_str()
        .unwrap_or_else(|| panic!("{post}"))
        .to_string();
    let piece_id = piece["id"].as_str().unwrap();
    d.wait_for(piece_id, LONG, |s| s["status"] != "processing")
        .await;
    let (c, link, _) = d
        .post(
            "/v1/client_link/send",
            &json!({"link_type": "record", "topic_id": id}),
        )
        .await;
    assert_eq!(c, 200, "{link}");

    let b = Browser::start().await;
    let loaded = "document.readyState === 'complete'";
    runs_nothing(
        &b,
        &review,
        "document.querySelector('.stage, .editor, [data-box]')",
    )
    .await;
    runs_nothing(&b, &player, "document.querySelector('.player')").await;
    runs_nothing(&b, piece["result"]["review_url"].as_str().unwrap(), loaded).await;
    runs_nothing(&b, &post_url, loaded).await;
    let record = link["magic_url"].as_str().unwrap();
    runs_nothing(&b, record, loaded).await;
    // The text is on the pages, as text.
    let shown = b.eval("return document.body.innerText;").await;
    assert!(
        shown.as_str().unwrap().contains("onerror"),
        "the record page shows the hostile text: {shown}"
    );
    b.close().await;
}

/// What the read-only player's link can reach: every editor and player route the OpenAPI
/// document describes, opened with the player's token, and every URL found in their replies.
/// Returns each reply's text (binary bodies as lossy text).
async fn walk_player_routes(d: &Daemon, id: &str, player: &str) -> Vec<(String, String)> {
    let http = no_redirects();
    let token = token_of(player);
    let doc = reelsmith_tests::openapi_document(d).await;
    let data: Value = http
        .get(d.url(&format!("/app/editor/{id}/data?token={token}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let scene = data["scenes"][0]["voice_file"]
        .as_str()
        .unwrap()
        .to_string();
    let mut seen = Vec::new();
    let mut todo = vec![("GET".to_string(), player.to_string())];
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.starts_with("/app/editor/{topic_id}") {
            continue;
        }
        let path = path
            .replace("{topic_id}", id)
            .replace("{voice_file}", &scene);
        for method in item.as_object().unwrap().keys() {
            let url = d.url(&format!("{path}?token={token}&readonly=true"));
            todo.push((method.to_uppercase(), url));
        }
    }
    let mut visited = std::collections::HashSet::new();
    while let Some((method, url)) = todo.pop() {
        if !visited.insert((method.clone(), url.clone())) || visited.len() > 300 {
            continue;
        }
        let mut req = http.request(method.parse().unwrap(), &url);
        if method == "POST" {
            req = req.json(&json!({ "voice_file": scene }));
        }
        let Ok(r) = req.send().await else { continue };
        let location = header(&r, "location");
        let body = String::from_utf8_lossy(&r.bytes().await.unwrap()).into_owned();
        for found in urls_in(&format!("{location} {body}"), &d.base) {
            todo.push(("GET".into(), found));
        }
        seen.push((format!("{method} {url}"), format!("{location}\n{body}")));
    }
    seen
}

/// The daemon's URLs in `text`, absolute or site-relative (HTML `&amp;` undone).
fn urls_in(text: &str, base: &str) -> Vec<String> {
    let ends = |c: char| c.is_whitespace() || "\"'<>()\\`".contains(c);
    let mut out = Vec::new();
    for (prefix, absolute) in [(base, true), ("\"/app/", false), ("'/app/", false)] {
        for (at, _) in text.match_indices(prefix) {
            let start = if absolute { at } else { at + 1 };
            let rest = &text[start..];
            let url = &rest[..rest.find(ends).unwrap_or(rest.len())];
            let url = url.replace("&amp;", "&");
            out.push(if absolute {
                url
            } else {
                format!("{base}{url}")
            });
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn the_player_link_alone_never_leads_to_the_edit_token_the_key_or_metadata() {
    let d = Daemon::start(BIN, &[]);
    let marker = "private-client-note-5150";
    let ready = d
        .scenes_ready(&json!({ "script_text": script(80), "metadata": { "note": marker } }))
        .await;
    let player = player_link(&ready.review_url).await;
    let edit_token = token_of(&ready.review_url);
    let replies = walk_player_routes(&d, &ready.id, &player).await;
    assert!(
        replies.len() >= 10,
        "the walk reached {} replies",
        replies.len()
    );
    for (request, body) in &replies {
        assert!(
            !body.contains(&edit_token),
            "{request} leaks the edit token: {body}"
        );
        assert!(!body.contains(&d.key), "{request} leaks the API key");
        assert!(
            !body.contains(marker),
            "{request} leaks the metadata: {body}"
        );
    }
    // The player still gets what it plays: the scenes with their caption timings.
    let data = &replies
        .iter()
        .find(|(r, _)| r.starts_with("GET ") && r.contains("/data?"))
        .expect("the data route was walked")
        .1;
    let view: Value = serde_json::from_str(data.trim_start()).unwrap();
    assert_eq!(view["object"], "player_view", "{view}");
    assert!(
        view["scenes"][0]["words"]
            .as_array()
            .is_some_and(|w| !w.is_empty())
    );
}
