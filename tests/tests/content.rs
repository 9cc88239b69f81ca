//! Written content end to end against the real daemon: every format written with a signed
//! `video.completed` webhook (`data.type = content`), the writer stages seen in order while
//! gated fixture servers hold each stage's real work (the page, the chat model, the image
//! search), a URL read through `fetch.allow`, a clean failure with a refund, 402 without a job,
//! every validation code, enhance_script and collect_ideas.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reelsmith_tests::warp::{self, Filter};
use reelsmith_tests::{Daemon, Receiver, SECRET, verify_signature};
use serde_json::{Value, json};
use tokio::sync::watch;

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(120);

/// The deliveries the receiver got for job `id`: (event type, body, raw).
fn events(r: &Receiver, id: &str) -> Vec<(String, Value, reelsmith_tests::Received)> {
    r.deliveries()
        .into_iter()
        .filter_map(|d| {
            let v = d.json();
            (v["data"]["id"] == id).then(|| (v["event_type"].as_str().unwrap().to_string(), v, d))
        })
        .collect()
}

async fn done(d: &Daemon, id: &str) -> Value {
    d.wait_for(id, LONG, |v| v["status"] != "processing").await
}

async fn page(d: &Daemon, url: &str) -> String {
    let r = d.http.get(url).send().await.unwrap();
    assert_eq!(r.status(), 200, "{url}");
    r.text().await.unwrap()
}

const STAGES: [&str; 6] = [
    "Queued",
    "Processing",
    "Researching",
    "Deep research completed",
    "Checking media",
    "Completed",
];

fn stage_history(v: &Value) -> Vec<String> {
    v["details"]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["status"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn each_content_type_is_written_with_a_signed_webhook() {
    let d = Daemon::start(BIN, &[]);
    let hook = Receiver::start(vec![]).await;
    let cases = [
        ("blog", "English", "why remote teams need weekly rituals"),
        (
            "facebook",
            "English",
            "how small cafes can win regular customers",
        ),
        (
            "x",
            "Vietnamese",
            "cà phê buổi sáng giúp đội làm việc từ xa gắn kết hơn",
        ),
        (
            "linkedin",
            "English",
            "what solar panels on the roof really save",
        ),
    ];
    let mut ids = Vec::new();
    for (kind, language, idea) in cases {
        let (c, v, _) = d
            .post(
                "/v1/create_content",
                &json!({ "content": idea, "content_type": kind, "language": language,
                         "callback_url": hook.url, "metadata": { "kind": kind } }),
            )
            .await;
        assert_eq!(c, 202, "{v}");
        assert_eq!(v["type"], "content");
        assert_eq!(v["status"], "processing");
        assert_eq!(v["details"]["status"], "Queued");
        assert!(
            v["result"]["review_url"]
                .as_str()
                .unwrap()
                .contains("/app/content/")
        );
        assert!(v["request_id"].as_str().unwrap().starts_with("req_"));
        ids.push((kind, v["id"].as_str().unwrap().to_string()));
    }
    for (kind, id) in &ids {
        let v = done(&d, id).await;
        assert_eq!(v["status"], "completed", "{v}");
        assert_eq!(v["type"], "content");
        assert_eq!(v["details"]["status"], "Completed");
        assert_eq!(stage_history(&v), STAGES, "{kind}");
        assert_eq!(v["metadata"]["kind"], *kind);
        let piece = &v["result"]["content"];
        assert_eq!(piece["content_type"], *kind);
        assert_eq!(piece["writer"], "extractive");
        let images = piece["images"].as_array().unwrap();
        assert!(!images.is_empty(), "{kind}: images picked");
        for img in images {
            let r = d
                .http
                .get(img["url"].as_str().unwrap())
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{img}");
        }
        let md = piece["markdown"].as_str().unwrap();
        assert!(!md.contains('{'), "{kind}: unfilled slot in {md}");
        match *kind {
            "blog" => {
                let words = piece["word_count"].as_u64().unwrap();
                assert!((600..=1500).contains(&words), "blog: {words} words");
                assert!(md.starts_with("# ") && md.contains("\n## "), "{md}");
                let html = piece["html"].as_str().unwrap();
                assert!(html.contains("<h2>") && html.contains("<img"), "{html}");
            }
            "x" => {
                let posts = piece["posts"].as_array().unwrap();
                assert!(posts.len() >= 3);
                for p in posts {
                    assert!(p.as_str().unwrap().chars().count() <= 280, "{p}");
                }
                let viewer = page(&d, v["result"]["review_url"].as_str().unwrap()).await;
                assert_eq!(viewer.matches("<article class=post>").count(), posts.len());
            }
            "linkedin" => assert!(piece["characters"].as_u64().unwrap() <= 3000),
            _ => assert!(md.lines().next().unwrap().contains("👇"), "{md}"),
        }
        let viewer = page(&d, v["result"]["review_url"].as_str().unwrap()).await;
        assert!(!viewer.contains("<script"), "the viewer runs nothing");
        assert!(viewer.contains(&pages_text(piece["title"].as_str().unwrap())));
    }
    // One signed `video.completed` per piece, `data.type = content`, nothing else.
    hook.wait_for(ids.len(), Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    for (_, id) in &ids {
        let ev = events(&hook, id);
        let kinds: Vec<&str> = ev.iter().map(|(k, _, _)| k.as_str()).collect();
        assert_eq!(kinds, ["video.completed"], "{id}");
        let (_, body, raw) = &ev[0];
        assert_eq!(body["data"]["type"], "content");
        assert!(body["data"]["result"]["content"]["markdown"].is_string());
        assert!(verify_signature(
            SECRET,
            &raw.header("x-service-signature"),
            &raw.body
        ));
    }
    // A content id is not a video.
    let (c, v, _) = d.post("/v1/export_video", &json!({ "id": ids[0].1 })).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("video_not_found"))
    );
}

/// What the viewer shows for `title` (HTML-escaped like the page does).
fn pages_text(title: &str) -> String {
    title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A gate a fixture handler waits on until the test opens it.
#[derive(Clone)]
struct Gate(watch::Sender<bool>);

impl Gate {
    fn new() -> Gate {
        Gate(watch::channel(false).0)
    }
    fn open(&self) {
        self.0.send_replace(true);
    }
    async fn pass(&self) {
        let mut rx = self.0.subscribe();
        let _ = rx.wait_for(|open| *open).await;
    }
}

const ARTICLE: &str = r#"<!doctype html><html><head><title>Solar at home | Energy Weekly</title></head>
<body><nav><a href="/">Home</a> · <a href="/news">News</a> · <a href="/about">About</a></nav>
<article><h1>Solar at home</h1>
<p>Solar panels on a family roof now pay for themselves in about seven years in most sunny regions, because panel prices fell sharply over the last decade.</p>
<p>Panels keep working on cloudy days, though they make less power. A home battery stores the midday surplus for the evening, when families use the most electricity.</p>
<p>Installers recommend checking the roof's angle and shade first. A south-facing roof without trees nearby gives the best yield, and a simple inspection avoids costly surprises later.</p>
</article><footer>Subscribe to our newsletter. Cookie settings.</footer></body></html>"#;

/// Serves `/article` (held by `page_gate`), a chat model at `/v1/chat/completions` (held by
/// `chat_gate`, answering `answer`) and a Pexels-style photo search at `/v1/search` (held by
/// `media_gate`). Returns `host:port` and the chat requests seen.
async fn fixtures(
    page_gate: Gate,
    chat_gate: Gate,
    media_gate: Gate,
    answer: String,
) -> (String, Arc<Mutex<Vec<Value>>>) {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let article = warp::path!("article").and(warp::get()).then(move || {
        let g = page_gate.clone();
        async move {
            g.pass().await;
            warp::reply::html(ARTICLE)
        }
    });
    let s = seen.clone();
    let chat = warp::path!("v1" / "chat" / "completions")
        .and(warp::post())
        .and(warp::body::json())
        .then(move |body: Value| {
            let (g, s, answer) = (chat_gate.clone(), s.clone(), answer.clone());
            async move {
                s.lock().unwrap().push(body);
                g.pass().await;
                warp::reply::json(&json!({
                    "id": "chatcmpl-1", "object": "chat.completion", "model": "fake-writer",
                    "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": answer}}]
                }))
            }
        });
    let search = warp::path!("v1" / "search")
        .and(warp::get())
        .and(warp::header::<String>("authorization"))
        .then(move |key: String| {
            let g = media_gate.clone();
            async move {
                assert_eq!(key, "pexels-key");
                g.pass().await;
                warp::reply::json(&json!({ "photos": [
                    {"id": 11, "alt": "Solar panels on a roof", "photographer": "A",
                     "width": 1200, "height": 800,
                     "src": {"landscape": "https://images.example/11.jpg", "medium": "https://images.example/11m.jpg"}},
                    {"id": 12, "alt": "A home battery", "photographer": "B",
                     "width": 1200, "height": 800,
                     "src": {"landscape": "https://images.example/12.jpg", "medium": "https://images.example/12m.jpg"}}
                ]}))
            }
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        warp::serve(article.or(chat).or(search))
            .incoming(listener)
            .run(),
    );
    (addr.to_string(), seen)
}

#[tokio::test]
async fn a_url_is_read_and_each_writer_stage_is_seen_while_its_work_runs() {
    let (page_gate, chat_gate, media_gate) = (Gate::new(), Gate::new(), Gate::new());
    let blog: String = (0..70)
        .map(|i| {
            format!(
                "Paragraph {i} explains how a home battery keeps solar power for the evening.\n\n"
            )
        })
        .collect();
    let answer =
        format!("# Solar power at home\n\n{blog}## Key takeaways\n\nCheck the roof first.");
    let (host, chat_seen) = fixtures(
        page_gate.clone(),
        chat_gate.clone(),
        media_gate.clone(),
        answer,
    )
    .await;
    let allow = format!("[\"{host}\"]");
    let base = format!("http://{host}/v1");
    let d = Daemon::start(
        BIN,
        &[
            ("REELSMITH__FETCH__ALLOW", &allow),
            ("REELSMITH__WRITER__PROVIDER", "openai"),
            ("REELSMITH__WRITER__BASE_URL", &base),
            ("REELSMITH__WRITER__MODEL", "fake-writer"),
            ("REELSMITH__BROLL__PROVIDER", "pexels"),
            ("REELSMITH__BROLL__BASE_URL", &format!("http://{host}")),
            ("REELSMITH__BROLL__API_KEY", "pexels-key"),
        ],
    );
    let hook = Receiver::start(vec![]).await;
    let url = format!("http://{host}/article");
    let (c, v, _) = d
        .post(
            "/v1/create_content",
            &json!({ "content": url, "callback_url": hook.url }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let review = v["result"]["review_url"].as_str().unwrap().to_string();

    // Each stage is seen while the fixture holds its work; then the work is let through.
    let at = |stage: &'static str| move |v: &Value| v["details"]["status"] == stage;
    let seen = d.wait_for(&id, LONG, at("Researching")).await;
    assert_eq!(seen["status"], "processing");
    let viewer = page(&d, &review).await;
    assert!(viewer.contains("being written"), "{viewer}");
    page_gate.open();
    d.wait_for(&id, LONG, at("Deep research completed")).await;
    chat_gate.open();
    d.wait_for(&id, LONG, at("Checking media")).await;
    media_gate.open();
    let v = done(&d, &id).await;
    assert_eq!(v["status"], "completed", "{v}");
    assert_eq!(stage_history(&v), STAGES);

    // The page's main text reached the model's prompt; its navigation and footer did not.
    let chat = chat_seen.lock().unwrap().clone();
    assert_eq!(chat.len(), 1);
    assert_eq!(chat[0]["model"], "fake-writer");
    let system = chat[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("blog post in Markdown"), "{system}");
    let user = chat[0]["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("south-facing roof"), "{user}");
    assert!(
        !user.contains("Cookie settings") && !user.contains("About"),
        "{user}"
    );

    let piece = &v["result"]["content"];
    assert_eq!(piece["writer"], "openai");
    assert_eq!(piece["title"], "Solar power at home");
    assert_eq!(piece["source_url"], url.as_str());
    assert!(piece["word_count"].as_u64().unwrap() >= 600);
    let images: Vec<&str> = piece["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        images,
        [
            "https://images.example/11.jpg",
            "https://images.example/12.jpg"
        ]
    );
    assert!(
        piece["html"]
            .as_str()
            .unwrap()
            .contains("https://images.example/11.jpg")
    );
    let viewer = page(&d, &review).await;
    assert!(
        viewer.contains("Solar power at home") && viewer.contains("<h2>"),
        "{viewer}"
    );
    hook.wait_for(1, Duration::from_secs(30)).await;
    assert_eq!(events(&hook, &id)[0].0, "video.completed");
}

/// Starts a daemon with an extra account `poor` of `credits` credits; returns it and its key.
async fn with_poor_account(credits: &str, env: &[(&str, &str)]) -> (Daemon, String) {
    let mut d = Daemon::start(BIN, env);
    assert!(d.terminate().success());
    let out = reelsmith_tests::reelsmith_command(BIN)
        .args([
            "keys",
            "create",
            "--account",
            "poor",
            "--credits",
            credits,
            "--data-dir",
        ])
        .arg(d.data_dir())
        .output()
        .unwrap();
    assert!(out.status.success());
    d.restart();
    (d, String::from_utf8(out.stdout).unwrap().trim().to_string())
}

async fn post_as(d: &Daemon, key: &str, path: &str, body: &Value) -> (u16, Value) {
    let r = d
        .http
        .post(d.url(path))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .unwrap();
    let (c, v, _) = reelsmith_tests::split(r).await;
    (c, v)
}

#[tokio::test]
async fn an_unreachable_url_fails_cleanly_refunds_and_an_empty_account_gets_402() {
    // A port whose listener never accepts: the job's fetch waits in its backlog (so the job
    // still holds its credit below) until the listener closes and resets it.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let allow = format!("[\"{addr}\"]");
    let (d, poor) = with_poor_account("1", &[("REELSMITH__FETCH__ALLOW", &allow)]).await;
    let hook = Receiver::start(vec![]).await;
    let body = json!({ "content": format!("http://{addr}/gone"), "callback_url": hook.url });
    let (c, v) = post_as(&d, &poor, "/v1/create_content", &body).await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();

    // The only credit is taken: the next call is refused and creates no job.
    let (c, refused) = post_as(
        &d,
        &poor,
        "/v1/create_content",
        &json!({"content": "a b c d e f"}),
    )
    .await;
    assert_eq!(c, 402, "{refused}");
    assert_eq!(refused["error"]["code"], "credit_exhausted");
    assert_eq!(refused["error"]["type"], "payment_required");
    assert!(refused.get("id").is_none());
    drop(silent);

    let r = d
        .http
        .get(d.url(&format!("/v1/status/{id}")))
        .bearer_auth(&poor)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut v = Value::Null;
    for _ in 0..300 {
        let r = d
            .http
            .get(d.url(&format!("/v1/status/{id}")))
            .bearer_auth(&poor)
            .send()
            .await
            .unwrap();
        v = r.json().await.unwrap();
        if v["status"] != "processing" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(v["status"], "failed", "{v}");
    assert_eq!(v["error"]["code"], "content_fetch_failed");
    let message = v["error"]["message"].as_str().unwrap();
    assert_eq!(v["result"]["error"], message);
    assert_eq!(message, "The page at the URL could not be reached.");
    assert_eq!(
        v["details"]["status"], "Researching",
        "it failed while reading"
    );
    hook.wait_for(1, Duration::from_secs(30)).await;
    let ev = events(&hook, &id);
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].0, "video.failed");
    assert_eq!(ev[0].1["data"]["error"]["code"], "content_fetch_failed");
    assert_eq!(ev[0].1["data"]["type"], "content");

    // The failed job gave its credit back.
    let (c, v) = post_as(
        &d,
        &poor,
        "/v1/create_content",
        &json!({"content": "a b c d e f"}),
    )
    .await;
    assert_eq!(c, 202, "{v}");
}

#[tokio::test]
async fn every_validation_code_of_create_content() {
    let d = Daemon::start(BIN, &[]);
    let many: serde_json::Map<String, Value> =
        (0..17).map(|i| (format!("k{i}"), json!(i))).collect();
    let ok = "five words make an idea";
    for (body, code, param) in [
        (json!({}), "missing_field", Some("content")),
        (json!({"content": "   "}), "missing_field", Some("content")),
        (json!({"content": 12}), "invalid_field", Some("content")),
        (
            json!({"content": "too few words"}),
            "input_too_short",
            Some("content"),
        ),
        (
            json!({"content": "http://10.0.0.7/post"}),
            "unsupported_media_url",
            Some("content"),
        ),
        (
            json!({"content": "https://localhost/post"}),
            "unsupported_media_url",
            Some("content"),
        ),
        (
            json!({"content": ok, "content_type": "tiktok"}),
            "invalid_content_type",
            Some("content_type"),
        ),
        (
            json!({"content": ok, "language": "French"}),
            "invalid_language",
            Some("language"),
        ),
        (
            json!({"content": ok, "metadata": many}),
            "invalid_metadata",
            Some("metadata"),
        ),
        (
            json!({"content": ok, "metadata": [1]}),
            "invalid_metadata",
            Some("metadata"),
        ),
        (
            json!({"content": ok, "callback_url": "ftp://example.com/x"}),
            "invalid_callback_url",
            Some("callback_url"),
        ),
        (json!([1, 2]), "invalid_json", None),
    ] {
        let (c, v, _) = d.post("/v1/create_content", &body).await;
        assert_eq!(c, 400, "{body} → {v}");
        assert_eq!(v["error"]["code"], code, "{body} → {v}");
        assert_eq!(v["error"]["param"].as_str(), param, "{body} → {v}");
    }
    let r = d
        .http
        .post(d.url("/v1/create_content"))
        .json(&json!({"content": ok}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // Sixteen keys are fine.
    let sixteen: serde_json::Map<String, Value> =
        (0..16).map(|i| (format!("k{i}"), json!(i))).collect();
    let (c, v, _) = d
        .post(
            "/v1/create_content",
            &json!({"content": ok, "metadata": sixteen}),
        )
        .await;
    assert_eq!(c, 202, "{v}");
}

#[tokio::test]
async fn production_mode_wants_https_callbacks_for_written_content() {
    let d = Daemon::start(BIN, &[("REELSMITH__MODE", "production")]);
    let words = "w ".repeat(90);
    for (path, body) in [
        (
            "/v1/create_content",
            json!({"content": "five words make an idea", "callback_url": "http://example.com/hook"}),
        ),
        (
            "/v1/enhance_script",
            json!({"script_text": words, "callback_url": "http://example.com/hook"}),
        ),
    ] {
        let (c, v, _) = d.post(path, &body).await;
        assert_eq!(c, 400, "{path} {v}");
        assert_eq!(v["error"]["code"], "invalid_callback_url", "{path}");
        assert_eq!(v["error"]["param"], "callback_url");
    }
}

#[tokio::test]
async fn enhance_script_tightens_a_script_end_to_end() {
    let d = Daemon::start(BIN, &[]);
    let hook = Receiver::start(vec![]).await;
    let script = "Basically, our team really wants to help you save money on energy. \
        We install solar panels in order to cut your power bills every month. \
        Actually, the panels keep working on cloudy days, and a battery stores the surplus. \
        Due to the fact that prices fell, most homes pay back the cost in about seven years. \
        It is important to note that a roof inspection comes first. \
        We check the angle, the shade and the condition of the roof before anything else. \
        Our installers are really very careful and they clean up after every single job. \
        Call us today, and we will visit your home this week for a free quote.";
    let (c, v, _) = d
        .post("/v1/enhance_script", &json!({"script_text": "too short"}))
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("script_too_short"))
    );
    let (c, v, _) = d
        .post(
            "/v1/enhance_script",
            &json!({"script_text": script, "callback_url": hook.url}),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    assert_eq!(v["type"], "content");
    let id = v["id"].as_str().unwrap().to_string();
    let v = done(&d, &id).await;
    assert_eq!(v["status"], "completed", "{v}");
    let result = &v["result"]["script"];
    let tightened = result["script"].as_str().unwrap();
    let before = script.split_whitespace().count() as u64;
    assert_eq!(result["words_before"], before);
    let after = result["words_after"].as_u64().unwrap();
    assert!((80..before).contains(&after), "{after} of {before}");
    assert!(
        tightened.starts_with("Our team wants to help you save money on energy."),
        "{tightened}"
    );
    assert!(tightened.contains("to cut your power bills") && !tightened.contains("Basically"));
    assert!(tightened.contains("Because prices fell"), "{tightened}");
    let viewer = page(&d, v["result"]["review_url"].as_str().unwrap()).await;
    assert!(viewer.contains("Our team wants to help you"), "{viewer}");
    hook.wait_for(1, Duration::from_secs(30)).await;
    let ev = events(&hook, &id);
    assert_eq!(ev[0].0, "video.completed");
    assert_eq!(ev[0].1["data"]["result"]["script"]["script"], tightened);
}

#[tokio::test]
async fn enhance_script_drops_a_transcripts_fillers_and_repeated_sentences() {
    let d = Daemon::start(BIN, &[]);
    let transcript = "Um, so, today I want to talk about why small teams should publish videos. \
        Uh, a short clip reaches people who never read a long post. \
        A short clip reaches people who never read a long post! \
        You know, most viewers decide in the first three seconds whether they stay. \
        So, um, the opening line has to name the problem, like, right away. \
        I mean, nobody waits for a slow introduction on a phone. \
        Hmm, the middle of the clip shows one clear example from a real customer. \
        Then the closing line tells people exactly what to do next, uh, in plain words. \
        Um, so, today I want to talk about why small teams should publish videos. \
        Teams that post every week learn faster, because each clip shows what works. \
        I like short clips, and our customers like them too.";
    let (c, v, _) = d
        .post("/v1/enhance_script", &json!({ "script_text": transcript }))
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let v = done(&d, &id).await;
    assert_eq!(v["status"], "completed", "{v}");
    let script = v["result"]["script"]["script"].as_str().unwrap();
    let words: Vec<String> = script
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    for filler in ["um", "uh", "hmm"] {
        assert!(!words.iter().any(|w| w == filler), "{filler} in {script}");
    }
    for phrase in [
        "You know",
        "I mean,",
        "like, right",
        "name the problem, right",
    ] {
        assert!(!script.contains(phrase), "{phrase:?} in {script}");
    }
    assert!(script.contains("name the problem right away."), "{script}");
    // Said twice (once with other fillers and punctuation), kept once.
    assert_eq!(
        script.matches("reaches people who never read").count(),
        1,
        "{script}"
    );
    assert_eq!(
        script.matches("why small teams should publish").count(),
        1,
        "{script}"
    );
    // "like" as a word stays.
    assert!(script.contains("I like short clips, and our customers like them too."));
    assert!(v["result"]["script"]["words_after"].as_u64().unwrap() >= 80);
}

#[tokio::test]
async fn collect_ideas_plans_one_idea_per_format_in_turn() {
    let d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post(
            "/v1/collect_ideas",
            &json!({"industry": "dental care", "count": 6}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["object"], "idea_list");
    let formats: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["VE", "QA", "POV", "CS", "MB", "VE"]);
    assert!(
        v["data"][0]["title"]
            .as_str()
            .unwrap()
            .contains("dental care")
    );
    let (c, v, _) = d.post("/v1/collect_ideas", &json!({})).await;
    assert_eq!((c, v["count"].as_u64()), (200, Some(5)));
    let (c, v, _) = d.post("/v1/collect_ideas", &json!({"count": 11})).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("invalid_count"))
    );
}

#[tokio::test]
async fn written_content_is_not_listed_as_a_video() {
    let d = Daemon::start(BIN, &[]);
    let (status, job, _) = d
        .post(
            "/v1/create_content",
            &json!({"content": "how small bakeries can sell more bread online", "content_type": "x"}),
        )
        .await;
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    assert_eq!(done(&d, &id).await["status"], "completed");
    let (status, videos, _) = d.get("/v1/videos").await;
    assert_eq!(status, 200, "{videos}");
    assert_eq!(videos["total_count"], 0, "{videos}");
    let (_, plan, _) = d.get("/v1/roadmap").await;
    assert_eq!(plan["total_completed"], 0, "{plan}");
}
