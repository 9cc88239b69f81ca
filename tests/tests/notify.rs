//! Notifications, black-box: email through a real SMTP server on 127.0.0.1 (`aiosmtpd`, pinned
//! in requirements-dev.txt, writing a Maildir), Telegram through a protocol-faithful fake Bot
//! API, every validation code, partial and skipped channels, and the hourly limit (429 with
//! `Retry-After`, surviving a restart).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reelsmith_tests::browser::Browser;
use reelsmith_tests::warp::{self, Filter};
use reelsmith_tests::{Daemon, bytes::Bytes, venv_tool};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const TOKEN: &str = "123456:test-token";
const CHAT: &str = "987654321";

/// `python -m aiosmtpd` with the Maildir handler, killed on drop.
struct Smtp {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Smtp {
    fn start() -> Smtp {
        Smtp::start_with(&[])
    }

    /// With extra `aiosmtpd` flags (`--tlscert`/`--tlskey`: STARTTLS, required by default).
    fn start_with(extra: &[String]) -> Smtp {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = tempfile::tempdir().unwrap();
        let child = Command::new(venv_tool("python"))
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(extra)
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(dir.path().join("mail"))
            .stdout(Stdio::null())
            .spawn()
            .expect("aiosmtpd starts");
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "aiosmtpd did not listen"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Smtp { child, port, dir }
    }

    /// The raw messages received so far.
    fn messages(&self) -> Vec<String> {
        let new: PathBuf = self.dir.path().join("mail/new");
        let mut out: Vec<String> = std::fs::read_dir(&new)
            .map(|d| {
                d.filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out
    }

    fn wait_for(&self, n: usize) -> Vec<String> {
        let start = Instant::now();
        loop {
            let m = self.messages();
            if m.len() >= n {
                return m;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{} of {n} mails",
                m.len()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Smtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fake Telegram Bot API: `POST /bot<token>/<method>` with JSON, answering
/// `{ok: true, result: {message_id}}`, or `{ok: false}` with 400 while `fail` is set.
struct BotApi {
    addr: SocketAddr,
    calls: Arc<Mutex<Vec<(String, Value)>>>,
    fail: Arc<Mutex<bool>>,
}

impl BotApi {
    async fn start() -> BotApi {
        let calls: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let fail: Arc<Mutex<bool>> = Arc::default();
        let (c, f) = (calls.clone(), fail.clone());
        let route = warp::post()
            .and(warp::path::param::<String>())
            .and(warp::path::param::<String>())
            .and(warp::path::end())
            .and(warp::body::bytes())
            .map(move |bot: String, method: String, body: Bytes| {
                let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let mut calls = c.lock().unwrap();
                calls.push((format!("{bot}/{method}"), v));
                let (code, reply) = if *f.lock().unwrap() || bot != format!("bot{TOKEN}") {
                    (400, json!({"ok": false, "error_code": 400, "description": "Bad Request: chat not found"}))
                } else {
                    (200, json!({"ok": true, "result": {"message_id": 1000 + calls.len()}}))
                };
                warp::reply::with_status(
                    warp::reply::json(&reply),
                    warp::http::StatusCode::from_u16(code).unwrap(),
                )
            });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(warp::serve(route).incoming(listener).run());
        BotApi { addr, calls, fail }
    }

    fn calls(&self) -> Vec<(String, Value)> {
        self.calls.lock().unwrap().clone()
    }
}

/// A daemon with SMTP on `smtp` and the Bot API on `bot`, its account's email and chat set as
/// given.
async fn daemon(smtp: Option<&Smtp>, bot: Option<&BotApi>, email: &str, chat: &str) -> Daemon {
    daemon_with(smtp, bot, email, chat, &[]).await
}

/// [`daemon`] with `extra` settings in its environment.
async fn daemon_with(
    smtp: Option<&Smtp>,
    bot: Option<&BotApi>,
    email: &str,
    chat: &str,
    extra: &[(&str, &str)],
) -> Daemon {
    let mut env: Vec<(String, String)> = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    if let Some(s) = smtp {
        env.push(("REELSMITH__SMTP__HOST".into(), "127.0.0.1".into()));
        env.push(("REELSMITH__SMTP__PORT".into(), s.port.to_string()));
        env.push(("REELSMITH__SMTP__STARTTLS".into(), "false".into()));
        env.push((
            "REELSMITH__SMTP__FROM".into(),
            "Reelsmith <bot@reelsmith.test>".into(),
        ));
    }
    if let Some(b) = bot {
        env.push((
            "REELSMITH__TELEGRAM__API_BASE".into(),
            format!("http://{}", b.addr),
        ));
        env.push(("REELSMITH__TELEGRAM__BOT_TOKEN".into(), TOKEN.into()));
        env.push((
            "REELSMITH__FETCH__ALLOW".into(),
            format!("[\"{}\"]", b.addr),
        ));
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut d = Daemon::start(BIN, &env);
    d.cli_offline(&[
        "accounts",
        "set",
        "--account",
        "default",
        "--email",
        email,
        "--telegram-chat-id",
        chat,
    ]);
    d
}

/// The mail with quoted-printable undone (soft line breaks joined, `=XX` decoded), so bodies
/// can be searched whatever transfer encoding the sender picked for each part.
fn decoded(mail: &str) -> String {
    let joined = mail.replace("=\r\n", "").replace("=\n", "");
    let b = joined.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = (b[i] == b'=' && i + 2 < b.len())
            .then(|| u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).ok()?, 16).ok())
            .flatten();
        match hex {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn header<'a>(mail: &'a str, name: &str) -> Option<&'a str> {
    mail.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
}

#[tokio::test(flavor = "multi_thread")]
async fn an_html_notification_arrives_by_smtp_sanitised_and_on_telegram() {
    let smtp = Smtp::start();
    let bot = BotApi::start().await;
    let d = daemon(Some(&smtp), Some(&bot), "jane@example.com", CHAT).await;
    let (c, v, _) = d
        .post(
            "/v1/notification/send",
            &json!({
                "subject": "Render finished",
                "message": "Your video is <b>ready</b><script>alert(1)</script> <a href=\"https://example.com/v\" onclick=\"x()\">open</a>",
                "parse_mode": "HTML"
            }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["object"], "notification");
    assert_eq!(v["status"], "sent");
    assert_eq!(v["subject"], "Render finished");
    assert_eq!(v["media_kind"], Value::Null);
    assert_eq!(v["delivery"], json!(["email", "telegram"]));
    assert_eq!(v["email"]["status"], "sent");
    assert_eq!(v["email"]["recipient_email_masked"], "j***@example.com");
    assert_eq!(v["telegram"]["status"], "sent");
    assert_eq!(v["telegram"]["chat_id_masked"], "98****21");
    assert_eq!(v["telegram"]["telegram_message_id"], 1001);
    assert!(v.get("note").is_none() && v["request_id"].as_str().unwrap().starts_with("req_"));

    let mail = &decoded(&smtp.wait_for(1)[0]);
    assert_eq!(header(mail, "Subject"), Some("Render finished"), "{mail}");
    assert_eq!(header(mail, "To"), Some("jane@example.com"), "{mail}");
    assert!(mail.contains("Your video is <b>ready</b>"), "{mail}");
    assert!(
        mail.contains("Content-Type: text/plain") && mail.contains("Your video is ready open"),
        "{mail}"
    );
    assert!(
        mail.contains("<a href=\"https://example.com/v\">open</a>"),
        "{mail}"
    );
    assert!(
        !mail.contains("script") && !mail.contains("onclick"),
        "{mail}"
    );

    let calls = bot.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].0, format!("bot{TOKEN}/sendMessage"));
    assert_eq!(calls[0].1["chat_id"], CHAT);
    assert_eq!(calls[0].1["parse_mode"], "HTML");
    assert_eq!(
        calls[0].1["text"],
        "<b>Render finished</b>\nYour video is <b>ready</b> <a href=\"https://example.com/v\">open</a>"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plain_email_carries_subject_body_and_the_photo_link() {
    let smtp = Smtp::start();
    let bot = BotApi::start().await;
    let d = daemon(Some(&smtp), Some(&bot), "ops@example.com", CHAT).await;
    let photo = format!("http://{}/poster.jpg", bot.addr);
    let (c, v, _) = d
        .post(
            "/v1/notification/send",
            &json!({"subject": "Poster ready", "message": "See the poster.", "photo_url": photo}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["media_kind"], "photo");
    let mail = &decoded(&smtp.wait_for(1)[0]);
    assert_eq!(header(mail, "Subject"), Some("Poster ready"));
    assert!(mail.contains("See the poster."), "{mail}");
    assert!(mail.contains(&format!("Photo: {photo}")), "{mail}");
    let calls = bot.calls();
    assert_eq!(calls[0].0, format!("bot{TOKEN}/sendPhoto"));
    assert_eq!(calls[0].1["photo"], photo);
    assert_eq!(
        calls[0].1["caption"],
        "<b>Poster ready</b>\nSee the poster."
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_validation_code_names_its_field() {
    let bot = BotApi::start().await;
    let d = daemon(None, Some(&bot), "", CHAT).await;
    let photo = format!("http://{}/a.jpg", bot.addr);
    let cases = [
        (json!({"message": "m"}), "missing_field", "subject"),
        (json!({"subject": "s"}), "missing_field", "message"),
        (
            json!({"subject": "ü".repeat(101), "message": "m"}),
            "subject_too_long",
            "subject",
        ),
        (
            json!({"subject": "s", "message": "x".repeat(4001)}),
            "message_too_long",
            "message",
        ),
        (
            json!({"subject": "s", "message": "x".repeat(1025), "photo_url": photo}),
            "message_too_long",
            "message",
        ),
        (
            json!({"subject": "s", "message": "m", "parse_mode": "BBCode"}),
            "invalid_parse_mode",
            "parse_mode",
        ),
        (
            json!({"subject": "s", "message": "m", "photo_url": photo, "video_url": photo}),
            "conflicting_media",
            "video_url",
        ),
        (
            json!({"subject": "s", "message": "m", "photo_url": "http://10.0.0.1/a.jpg"}),
            "invalid_photo_url",
            "photo_url",
        ),
        (
            json!({"subject": "s", "message": "m", "video_url": "file:///etc/passwd"}),
            "invalid_video_url",
            "video_url",
        ),
    ];
    for (body, code, param) in cases {
        let (c, v, _) = d.post("/v1/notification/send", &body).await;
        assert_eq!(
            (c, v["error"]["code"].as_str(), v["error"]["param"].as_str()),
            (400, Some(code), Some(param)),
            "{body}: {v}"
        );
    }
    assert!(bot.calls().is_empty(), "nothing was sent");
}

/// The page at `url` answers 200 with HTML that names both channels.
async fn assert_setup_page(d: &Daemon, url: &str) {
    let r = d.http.get(url).send().await.unwrap();
    let status = r.status().as_u16();
    let kind = r.headers()["content-type"].to_str().unwrap().to_string();
    let html = r.text().await.unwrap();
    assert_eq!(status, 200, "{url}: {html}");
    assert!(kind.starts_with("text/html"), "{url}: {kind}");
    assert!(
        html.contains("Email") && html.contains("Telegram"),
        "{url}: {html}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn only_telegram_skips_email_as_not_connected_and_both_setup_urls_open_a_page() {
    let bot = BotApi::start().await;
    let mut d = daemon(None, Some(&bot), "", CHAT).await;
    let (c, v, _) = d
        .post(
            "/v1/notification/send",
            &json!({"subject": "Hi", "message": "there"}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        v["email"],
        json!({"status": "skipped", "reason": "not_connected", "recipient_email_masked": null}),
        "{v}"
    );
    assert_eq!(v["status"], "sent", "the only connected channel delivered");
    assert_eq!(v["delivery"], json!(["telegram"]));
    assert!(v["note"].as_str().unwrap().contains("email"));
    assert_setup_page(&d, v["setup_url"].as_str().unwrap()).await;

    d.cli_offline(&[
        "accounts",
        "set",
        "--account",
        "default",
        "--telegram-chat-id",
        "",
    ]);
    let (c, v, _) = d
        .post(
            "/v1/notification/send",
            &json!({"subject": "Hi", "message": "there"}),
        )
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("no_delivery_channel")),
        "{v}"
    );
    let setup_url = v["error"]["details"]["setup_url"].as_str().unwrap();
    assert_setup_page(&d, setup_url).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn one_failing_channel_is_partial_and_all_failing_is_502() {
    let smtp = Smtp::start();
    let bot = BotApi::start().await;
    let d = daemon(Some(&smtp), Some(&bot), "jane@example.com", CHAT).await;
    *bot.fail.lock().unwrap() = true;
    let (c, v, _) = d
        .post(
            "/v1/notification/send",
            &json!({"subject": "Hi", "message": "there"}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["status"], "partial");
    assert_eq!(v["delivery"], json!(["email"]));
    assert_eq!(v["telegram"]["status"], "failed");
    assert_eq!(v["telegram"]["reason"], "telegram_rejected");
    smtp.wait_for(1);

    drop(smtp); // the relay goes away: now both fail
    let (c, v, _) = d
        .post(
            "/v1/notification/send",
            &json!({"subject": "Hi", "message": "there"}),
        )
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (502, Some("notification_send_failed")),
        "{v}"
    );
    let details = &v["error"]["details"];
    assert_eq!(
        (
            details["email"]["status"].as_str(),
            details["telegram"]["status"].as_str()
        ),
        (Some("failed"), Some("failed"))
    );
    assert!(!v.to_string().contains("127.0.0.1"), "no internals: {v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn telegram_is_skipped_over_its_byte_limit_while_the_email_goes() {
    let smtp = Smtp::start();
    let bot = BotApi::start().await;
    let d = daemon(Some(&smtp), Some(&bot), "jane@example.com", CHAT).await;
    // 200 + 4000 bytes: valid, but over Telegram's 4096 once the subject line is added.
    let (c, v, _) = d
        .post(
            "/v1/notification/send",
            &json!({"subject": "s".repeat(200), "message": "x".repeat(4000)}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["status"], "partial");
    assert_eq!(v["telegram"]["status"], "skipped");
    assert_eq!(v["telegram"]["reason"], "message_too_long");
    assert_eq!(v["email"]["status"], "sent");
    assert!(bot.calls().is_empty());
    smtp.wait_for(1);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sixty_first_notification_in_an_hour_is_429_even_after_a_restart() {
    let bot = BotApi::start().await;
    let mut d = daemon(None, Some(&bot), "", CHAT).await;
    let body = json!({"subject": "tick", "message": "tock"});
    for i in 0..59 {
        let (c, v, _) = d.post("/v1/notification/send", &body).await;
        assert_eq!(c, 200, "#{i}: {v}");
    }
    d.kill_and_restart();
    let (c, v, _) = d.post("/v1/notification/send", &body).await;
    assert_eq!(c, 200, "{v}");
    let (c, v, h) = d.post("/v1/notification/send", &body).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (429, Some("rate_limited")),
        "{v}"
    );
    let details = &v["error"]["details"];
    assert_eq!(
        (
            details["rate_limit_max"].as_u64(),
            details["rate_limit_count"].as_u64()
        ),
        (Some(60), Some(60))
    );
    let retry = details["retry_after_seconds"].as_u64().unwrap();
    assert!((3500..=3600).contains(&retry), "{retry}");
    assert_eq!(h["retry-after"].to_str().unwrap(), retry.to_string());
    assert_eq!(bot.calls().len(), 60);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_sending_endpoint_counts_against_one_hourly_limit_and_sends_nothing_over_it() {
    let smtp = Smtp::start();
    let mut d = daemon_with(
        Some(&smtp),
        None,
        "jane@example.com",
        "",
        &[
            ("REELSMITH__NOTIFY__MAX_PER_HOUR", "3"),
            ("REELSMITH__NOTIFY__OPERATOR_EMAIL", "team@reelsmith.test"),
        ],
    )
    .await;
    let senders = [
        (
            "/v1/notification/send",
            json!({"subject": "Hi", "message": "there"}),
        ),
        (
            "/v1/client_link/send",
            json!({"link_type": "setup", "channels": {"email": true}}),
        ),
        ("/v1/error/report", json!({"error_message": "stalled"})),
    ];
    // One mail through each endpoint spends the account's 3.
    for (path, body) in &senders {
        let (c, v, _) = d.post(path, body).await;
        assert_eq!(c, 200, "{path}: {v}");
    }
    assert_eq!(smtp.wait_for(3).len(), 3);
    for (path, body) in &senders {
        let (c, v, h) = d.post(path, body).await;
        assert_eq!(
            (c, v["error"]["code"].as_str()),
            (429, Some("rate_limited")),
            "{path}: {v}"
        );
        let details = &v["error"]["details"];
        assert_eq!(
            (
                details["rate_limit_max"].as_u64(),
                details["rate_limit_count"].as_u64()
            ),
            (Some(3), Some(3)),
            "{path}: {v}"
        );
        let retry = details["retry_after_seconds"].as_u64().unwrap();
        assert!((3500..=3600).contains(&retry), "{path}: {retry}");
        assert_eq!(h["retry-after"].to_str().unwrap(), retry.to_string());
    }
    assert_eq!(smtp.messages().len(), 3, "nothing sent once refused");
    let out = d.cli_offline(&["reports", "list"]);
    assert_eq!(out.matches("stalled").count(), 1, "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn error_report_answers_every_code_and_reports_list_shows_what_was_stored() {
    let mut d = Daemon::start(BIN, &[]);
    let cases = [
        (json!({}), "missing_field", "error_message"),
        (
            json!({"error_message": "x".repeat(4001)}),
            "error_message_too_long",
            "error_message",
        ),
        (
            json!({"error_message": "x", "module": "m".repeat(81)}),
            "module_too_long",
            "module",
        ),
        (
            json!({"error_message": "x", "module": ["agent"]}),
            "invalid_module",
            "module",
        ),
        (
            json!({"error_message": "x", "context": "req_1"}),
            "invalid_context",
            "context",
        ),
    ];
    for (body, code, param) in cases {
        let (c, v, _) = d.post("/v1/error/report", &body).await;
        assert_eq!(
            (c, v["error"]["code"].as_str(), v["error"]["param"].as_str()),
            (400, Some(code), Some(param)),
            "{body}: {v}"
        );
    }
    let context: serde_json::Map<String, Value> =
        (0..55).map(|i| (format!("k{i:02}"), json!(i))).collect();
    let (c, v, _) = d
        .post(
            "/v1/error/report",
            &json!({"error_message": "voice upload stalled", "context": context}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (
            v["object"].as_str(),
            v["reported"].as_bool(),
            v["module"].as_str()
        ),
        (Some("error_report"), Some(true), Some("agent"))
    );
    assert_eq!(v["context_keys"].as_array().unwrap().len(), 50);
    let out = d.cli_offline(&["reports", "list"]);
    assert!(out.contains("default  agent  (stored)"), "{out}");
    assert!(out.contains("voice upload stalled"), "{out}");
    assert!(out.contains("· k49: 49") && !out.contains("k50"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn error_report_is_forwarded_by_email_and_a_failed_forward_is_502_but_stored() {
    let smtp = Smtp::start();
    let port = smtp.port.to_string();
    let mut d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__SMTP__HOST", "127.0.0.1"),
            ("REELSMITH__SMTP__PORT", &port),
            ("REELSMITH__SMTP__STARTTLS", "false"),
            ("REELSMITH__NOTIFY__OPERATOR_EMAIL", "team@reelsmith.test"),
        ],
    );
    let body = json!({"error_message": "scene 3 failed", "module": "editor", "context": {"topic_id": "rs_abc", "scene_id": 3}});
    let (c, v, _) = d.post("/v1/error/report", &body).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["context_keys"], json!(["scene_id", "topic_id"]));
    let mail = &decoded(&smtp.wait_for(1)[0]);
    assert_eq!(header(mail, "To"), Some("team@reelsmith.test"), "{mail}");
    assert_eq!(
        header(mail, "Subject"),
        Some("[reelsmith] editor error from default"),
        "{mail}"
    );
    assert!(
        mail.contains("scene 3 failed") && mail.contains("topic_id: rs_abc"),
        "{mail}"
    );

    drop(smtp);
    let (c, v, _) = d.post("/v1/error/report", &body).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (502, Some("error_report_failed")),
        "{v}"
    );
    let out = d.cli_offline(&["reports", "list"]);
    assert_eq!(out.matches("scene 3 failed").count(), 2, "{out}");
    assert!(
        out.contains("(forwarded)") && out.contains("(stored)"),
        "{out}"
    );
}

async fn page(d: &Daemon, url: &str) -> (u16, String) {
    let r = d.http.get(url).send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn client_link_answers_every_code_and_clamps_the_ttl() {
    let d = Daemon::start(BIN, &[]);
    let cases = [
        (json!({}), "missing_field", "link_type"),
        (
            json!({"link_type": "invoice"}),
            "invalid_link_type",
            "link_type",
        ),
        (json!({"link_type": "record"}), "missing_field", "topic_id"),
        (
            json!({"link_type": "record", "topic_id": "bad id!"}),
            "invalid_topic_id",
            "topic_id",
        ),
        (
            json!({"link_type": "setup", "channels": "email"}),
            "invalid_channels",
            "channels",
        ),
        (
            json!({"link_type": "setup", "channels": {"pager": true}}),
            "invalid_channels",
            "channels",
        ),
    ];
    for (body, code, param) in cases {
        let (c, v, _) = d.post("/v1/client_link/send", &body).await;
        assert_eq!(
            (c, v["error"]["code"].as_str(), v["error"]["param"].as_str()),
            (400, Some(code), Some(param)),
            "{body}: {v}"
        );
    }
    let (c, v, _) = d
        .post(
            "/v1/client_link/send",
            &json!({"link_type": "setup", "ttl_days": 99}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(
        (
            v["object"].as_str(),
            v["expires_in_days"].as_i64(),
            v["notified"].as_bool()
        ),
        (Some("client_link"), Some(30), Some(false))
    );
    assert!(
        v.get("results").is_none() && v.get("topic_id").is_none(),
        "{v}"
    );
    let (_, v, _) = d
        .post(
            "/v1/client_link/send",
            &json!({"link_type": "content_plan"}),
        )
        .await;
    assert_eq!(v["expires_in_days"], 7);
}

#[tokio::test(flavor = "multi_thread")]
async fn asking_for_email_without_an_email_on_file_is_client_link_failed() {
    let d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post(
            "/v1/client_link/send",
            &json!({"link_type": "setup", "channels": {"email": true}}),
        )
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str(), v["error"]["param"].as_str()),
        (500, Some("client_link_failed"), Some("channels")),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no email on file")
    );
    // Without the email channel the same account still gets its link.
    let (c, v, _) = d
        .post("/v1/client_link/send", &json!({"link_type": "setup"}))
        .await;
    assert_eq!(c, 200, "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_link_type_opens_its_page_and_altered_or_expired_links_do_not() {
    let d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({"source": "text", "script_text": reelsmith_tests::script(90)}),
        )
        .await;
    assert!(c == 200 || c == 202, "{v}");
    let topic = v["id"].as_str().unwrap().to_string();
    let browser = Browser::start().await;
    let mut urls = Vec::new();
    for (body, expect) in [
        (json!({"link_type": "record", "topic_id": topic}), "Status:"),
        (
            json!({"link_type": "record", "topic_id": topic, "page": "record2.html"}),
            "Status:",
        ),
        (
            json!({"link_type": "record", "topic_id": "rs_notmadeyet"}),
            "not available yet",
        ),
        (json!({"link_type": "content_plan"}), "Content plan"),
        (json!({"link_type": "setup"}), "Telegram"),
        (json!({"link_type": "social_dashboard"}), "1 videos"),
        (json!({"link_type": "publish_schedule"}), "Week 1"),
    ] {
        let (c, v, _) = d.post("/v1/client_link/send", &body).await;
        assert_eq!(c, 200, "{body}: {v}");
        let url = v["magic_url"].as_str().unwrap().to_string();
        assert!(url.starts_with(&format!("{}/app/link/", d.base)), "{url}");
        let (status, html) = page(&d, &url).await;
        assert_eq!(status, 200, "{body}: {html}");
        assert!(html.contains(expect), "{body}: {html}");
        // The page a person sees in Chromium says the same.
        let seen = browser.open(&url).await;
        assert!(seen.contains(expect), "{body}: {seen}");
        let name = format!("link-{}", body["link_type"].as_str().unwrap());
        browser.screenshot(&format!("{name}-{}", urls.len())).await;
        urls.push(url);
    }
    // One character of the signature changed: 403, nothing of the account shown.
    let mut tampered = urls[0].clone();
    let last = tampered.pop().unwrap();
    tampered.push(if last == '0' { '1' } else { '0' });
    let (status, html) = page(&d, &tampered).await;
    assert_eq!(status, 403, "{html}");
    assert!(!html.contains(&topic) && html.contains("not valid"));
    let seen = browser.open(&tampered).await;
    assert!(
        seen.contains("not valid") && !seen.contains(&topic),
        "{seen}"
    );
    // Correctly signed but expired: 410.
    let token = reelsmith_tests::client_link_token(
        reelsmith_tests::SECRET,
        &json!({"a": "default", "t": "record", "i": topic, "p": "record.html", "e": 1_000_000}),
    );
    let (status, html) = page(&d, &d.url(&format!("/app/link/{token}"))).await;
    assert_eq!(status, 410, "{html}");
    assert!(html.contains("expired") && !html.contains("Status:"));
    let seen = browser.open(&d.url(&format!("/app/link/{token}"))).await;
    assert!(
        seen.contains("expired") && !seen.contains("Status:"),
        "{seen}"
    );
    browser.screenshot("link-expired").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn client_link_channels_send_the_link_and_sms_is_skipped() {
    let smtp = Smtp::start();
    let bot = BotApi::start().await;
    let d = daemon(Some(&smtp), Some(&bot), "jane@example.com", CHAT).await;
    let (c, v, _) = d
        .post("/v1/client_link/send", &json!({"link_type": "setup", "channels": {"telegram": true, "sms": true, "email": true}}))
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["notified"], true);
    assert_eq!(v["results"]["telegram"]["status"], "sent");
    assert_eq!(v["results"]["email"]["status"], "sent");
    assert_eq!(
        v["results"]["sms"],
        json!({"status": "skipped", "reason": "sms_not_configured"})
    );
    let url = v["magic_url"].as_str().unwrap();
    assert!(bot.calls()[0].1["text"].as_str().unwrap().contains(url));
    let mail = &decoded(&smtp.wait_for(1)[0]);
    assert_eq!(header(mail, "Subject"), Some("Your link"), "{mail}");
    assert!(mail.contains("Open your page"), "{mail}");
}

#[tokio::test(flavor = "multi_thread")]
async fn email_goes_over_starttls_to_a_relay_that_requires_it() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/smtp");
    let smtp = Smtp::start_with(&[
        "--tlscert".into(),
        fixtures.join("cert.pem").display().to_string(),
        "--tlskey".into(),
        fixtures.join("key.pem").display().to_string(),
    ]);
    let port = smtp.port.to_string();
    let ca = fixtures.join("cert.pem").display().to_string();
    let mut d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__SMTP__HOST", "127.0.0.1"),
            ("REELSMITH__SMTP__PORT", &port),
            ("REELSMITH__SMTP__CA_FILE", &ca),
        ],
    );
    d.cli_offline(&[
        "accounts",
        "set",
        "--account",
        "default",
        "--email",
        "jane@example.com",
    ]);
    let (c, v, _) = d
        .post(
            "/v1/notification/send",
            &json!({"subject": "Over TLS", "message": "sealed"}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let mail = &decoded(&smtp.wait_for(1)[0]);
    assert_eq!(header(mail, "Subject"), Some("Over TLS"), "{mail}");
    assert!(mail.contains("sealed"), "{mail}");

    // The relay's certificate is not trusted without `ca_file`: nothing goes in the clear.
    let mut d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__SMTP__HOST", "127.0.0.1"),
            ("REELSMITH__SMTP__PORT", &port),
        ],
    );
    d.cli_offline(&[
        "accounts",
        "set",
        "--account",
        "default",
        "--email",
        "jane@example.com",
    ]);
    let (c, v, _) = d
        .post(
            "/v1/notification/send",
            &json!({"subject": "Over TLS", "message": "sealed"}),
        )
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (502, Some("notification_send_failed")),
        "{v}"
    );
    assert_eq!(smtp.messages().len(), 1);
}
