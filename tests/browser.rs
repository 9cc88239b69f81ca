//! A real browser for the black-box tests: Debian's `chromium`, driven over
//! WebDriver by `chromedriver` (package `chromium-driver`, installed by
//! `make setup-test`) through the `fantoccini` client.
//!
//! Each [`Browser`] is its own chromedriver process with its own empty
//! profile, started headless with the flags this sandbox needs (no
//! background networking: the machine's closed network refuses it).
//! Screenshots go to [`output_dir`] for a person to look at.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use fantoccini::{Client, Locator, elements::Element};
use serde_json::{Value, json};

/// Phone-sized window: the pages must work at phone width.
pub const WINDOW: (u32, u32) = (430, 932);

fn tool(var: &str, default: &str) -> PathBuf {
    let path = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(default));
    assert!(
        path.exists(),
        "{} not found: install Debian chromium and chromium-driver (`make setup-test`) or set {var}",
        path.display()
    );
    path
}

/// Where screenshots land: `$REELSMITH_TEST_OUTPUT`, else `target/test-output`.
pub fn output_dir() -> PathBuf {
    let dir = std::env::var_os("REELSMITH_TEST_OUTPUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/test-output"));
    std::fs::create_dir_all(&dir).expect("test output dir");
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// A headless Chromium session; the driver process ends with it.
pub struct Browser {
    pub client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub async fn start() -> Browser {
        let driver_bin = tool("REELSMITH_CHROMEDRIVER", "/usr/bin/chromedriver");
        let chromium = tool("REELSMITH_CHROMIUM", "/usr/bin/chromium");
        let port = free_port();
        let driver = Command::new(driver_bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let base = format!("http://127.0.0.1:{port}");
        wait_ready(&base).await;
        let profile = tempfile::tempdir().expect("profile dir");
        let client = fantoccini::ClientBuilder::rustls()
            .expect("rustls connector")
            .capabilities(capabilities(&chromium, &profile))
            .connect(&base)
            .await
            .expect("WebDriver session");
        Browser {
            client,
            driver,
            _profile: profile,
        }
    }

    /// Opens `url` and returns the page's HTTP-visible text (its `body` text).
    pub async fn open(&self, url: &str) -> String {
        self.client.goto(url).await.expect("navigate");
        self.text("body").await
    }

    /// The visible text of the first element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        self.find(css).await.text().await.expect("element text")
    }

    /// Waits up to 10 s for an element matching `css`.
    pub async fn find(&self, css: &str) -> Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no element {css:?}: {e}"))
    }

    /// Runs `script` in the page and returns its value.
    pub async fn eval(&self, script: &str) -> Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}"))
    }

    /// Drags the first element matching `css` by (`dx`, `dy`) CSS pixels with a real pointer:
    /// pressed at (`at_x`, `at_y`) from the element's centre, moved in steps, released.
    pub async fn drag(&self, css: &str, (at_x, at_y): (f64, f64), (dx, dy): (f64, f64)) {
        use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
        let element = self.find(css).await;
        let step = Some(Duration::from_millis(60));
        let mouse = MouseActions::new("mouse".into())
            .then(PointerAction::MoveToElement {
                element,
                duration: None,
                x: at_x,
                y: at_y,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::MoveBy {
                duration: step,
                x: dx / 2.0,
                y: dy / 2.0,
            })
            .then(PointerAction::MoveBy {
                duration: step,
                x: dx - dx / 2.0,
                y: dy - dy / 2.0,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        self.client
            .perform_actions(mouse)
            .await
            .unwrap_or_else(|e| panic!("drag {css}: {e}"));
    }

    /// Waits up to `secs` for `script` (a JS expression) to be truthy; returns its value.
    pub async fn wait_for(&self, script: &str, secs: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let v = self.eval(&format!("return ({script});")).await;
            if !(v.is_null() || v == Value::Bool(false) || v == json!(0) || v == json!("")) {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "waited {secs} s for `{script}`; page says: {}",
                self.eval("return document.body.innerText.slice(0, 800);")
                    .await
            );
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }

    /// Saves a PNG screenshot as `{output_dir}/{name}.png` and returns its path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.client.screenshot().await.expect("screenshot");
        let path = output_dir().join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write screenshot");
        path
    }

    /// Ends the WebDriver session (closing Chromium) and the driver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn capabilities(
    chromium: &std::path::Path,
    profile: &tempfile::TempDir,
) -> serde_json::Map<String, Value> {
    let args = vec![
        "--headless=new".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-dev-shm-usage".into(),
        "--disable-quic".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--autoplay-policy=no-user-gesture-required".into(),
        format!("--window-size={},{}", WINDOW.0, WINDOW.1),
        format!("--user-data-dir={}", profile.path().display()),
    ];
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium, "args": args },
    });
    match caps {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

async fn wait_ready(base: &str) {
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let ready = http
            .get(format!("{base}/status"))
            .send()
            .await
            .ok()
            .filter(|r| r.status().is_success());
        if let Some(r) = ready
            && r.json::<Value>()
                .await
                .ok()
                .and_then(|v| v["value"]["ready"].as_bool())
                == Some(true)
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "chromedriver did not start on {base}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
