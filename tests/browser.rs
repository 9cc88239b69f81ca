//! A real browser for the black-box tests: Debian's `chromium`, driven over
//! WebDriver by `chromedriver` (package `chromium-driver`, installed by
//! `make setup-test`) through the `fantoccini` client.
//!
//! Each [`Browser`] is a chromedriver process with its own empty profile, driving one
//! Chromium started headless with the flags this sandbox needs (no background networking: the
//! machine's closed network refuses it). Starting one costs about 1.5 CPU-s, so a browser a
//! test has finished with is kept for the next ([`Browser::start`]): its page is left for
//! `about:blank`, the storage and cookies of the origin it was on are cleared and its window
//! size restored. Each daemon is its own origin (its own port), so no test sees another's
//! pages. A browser whose test failed is never kept, and the kept ones are killed, process
//! group and all, when the test process exits.
//! Screenshots go to [`output_dir`] for a person to look at; a test that fails with a
//! browser open leaves one there too (`failed-{test}-{n}.png`, taken as the browser drops).
//!
//! Tests find elements as a person does: by role and accessible name ([`role`], [`Browser::get`],
//! [`Browser::press`]), by label ([`named`]) or by visible text ([`text`]), never by CSS class.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};
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

/// A headless Chromium for one test at a time; see the module's notes on reuse.
pub struct Browser {
    pub client: Client,
    /// `None` once handed back (by [`Browser::close`] or the drop).
    session: Option<Session>,
    /// Numbers the failure screenshots of one test's browsers.
    seq: usize,
}

/// Browsers started so far in this process (each test's failure screenshots are told apart).
static STARTED: AtomicUsize = AtomicUsize::new(0);

impl Browser {
    /// A browser on `about:blank` at [`WINDOW`] size: a kept one, else a new one.
    pub async fn start() -> Browser {
        let session = match kept_session().await {
            Some(session) => session,
            None => on_browser_runtime(Session::launch()).await,
        };
        Browser {
            client: session.client.clone(),
            session: Some(session),
            seq: STARTED.fetch_add(1, Ordering::Relaxed),
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

    /// Drags `element` by (`dx`, `dy`) CSS pixels with a real pointer: pressed at
    /// (`at_x`, `at_y`) from the element's centre, moved in steps, released.
    pub async fn drag(&self, element: Element, (at_x, at_y): (f64, f64), (dx, dy): (f64, f64)) {
        use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
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
            .unwrap_or_else(|e| panic!("drag: {e}"));
    }

    /// Waits up to 30 s for the element `script` (a JS expression, such as [`role`]) finds, and
    /// returns it for WebDriver (to type into, click or drag).
    pub async fn element(&self, script: &str) -> Element {
        let found = self.wait_for(script, 30).await;
        match found.get(ELEMENT_KEY).and_then(Value::as_str) {
            Some(id) => Element::from_element_id(self.client.clone(), id.to_string().into()),
            None => panic!("`{script}` is not an element: {found}"),
        }
    }

    /// The element with ARIA `role` and accessible name `name` (see [`role`]), waited for.
    pub async fn get(&self, role_name: &str, name: &str) -> Element {
        self.element(&role(role_name, name)).await
    }

    /// Clicks the element `script` finds (waited for) with a real click; where something
    /// covers it (the sticky header over a scrolled page), with the element's own click.
    pub async fn click(&self, script: &str) {
        let element = self.element(script).await;
        if element.click().await.is_err() {
            self.eval(&format!("{script}.click(); return true;")).await;
        }
    }

    /// Presses the button named `name` once it is enabled (within 30 s), as [`Browser::click`].
    pub async fn press(&self, name: &str) {
        let button = role("button", name);
        self.wait_for(&format!("{button} && !{button}.disabled"), 30)
            .await;
        self.click(&button).await;
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

    /// Hands the browser back, to be kept for the next test once its page is blank (so the
    /// page's connections to the daemon are closed when this returns).
    pub async fn close(mut self) {
        if let Some(session) = self.session.take() {
            on_browser_runtime(session.hand_back()).await;
        }
    }
}

impl Drop for Browser {
    /// A test that panics with this browser open leaves a screenshot of the page, and the
    /// browser is killed; otherwise it is handed back in the background.
    fn drop(&mut self) {
        let Some(session) = self.session.take() else {
            return;
        };
        if std::thread::panicking() {
            self.failure_screenshot();
            session.kill();
        } else {
            BROWSER_RUNTIME.spawn(session.hand_back());
        }
    }
}

impl Browser {
    /// The page as the failing test left it, in `{output_dir}/failed-{test}-{n}.png` (the test
    /// thread is named after the test). Never panics: it runs while a panic unwinds.
    fn failure_screenshot(&self) {
        use tokio::runtime::{Handle, RuntimeFlavor};
        let Ok(handle) = Handle::try_current() else {
            return;
        };
        if handle.runtime_flavor() != RuntimeFlavor::MultiThread {
            return;
        }
        let client = self.client.clone();
        let png = tokio::task::block_in_place(|| {
            handle.block_on(async {
                tokio::time::timeout(Duration::from_secs(10), client.screenshot()).await
            })
        });
        let test = std::thread::current()
            .name()
            .unwrap_or("test")
            .rsplit("::")
            .next()
            .unwrap_or("test")
            .to_string();
        if let Ok(Ok(png)) = png {
            let path = output_dir().join(format!("failed-{test}-{}.png", self.seq));
            if std::fs::write(&path, png).is_ok() {
                eprintln!("the page when the test failed: {}", path.display());
            }
        }
    }
}

/// WebDriver's key of an element in a script's result.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A small accessibility query in the page (installed once per page as `window.__a11y`):
/// `one(role, name, root)`, `all(role, root)` and `named(name)`. A role is found by its
/// element (`button`, `textarea`, `nav`, …) or its `role` attribute; the accessible name is
/// `aria-labelledby`, `aria-label`, the label, an image's `alt`, else the visible text. A
/// name ending in `*` matches names that start with the rest.
const A11Y: &str = r#"(window.__a11y ??= (() => {
  const text = (s) => (s ?? '').replace(/\s+/g, ' ').trim();
  const implicit = {
    button: 'button, input[type=button], input[type=submit], input[type=file], [role=button]',
    textbox: 'textarea, input:not([type]), input[type=text], input[type=url], input[type=search], [role=textbox]',
    checkbox: 'input[type=checkbox], [role=checkbox]', slider: 'input[type=range], [role=slider]',
    combobox: 'select, [role=combobox]', link: 'a[href], [role=link]', img: 'img, [role=img]',
    navigation: 'nav, [role=navigation]', main: 'main, [role=main]', banner: 'header, [role=banner]',
    complementary: 'aside, [role=complementary]', region: 'section[aria-label], [role=region]',
    form: 'form[aria-label], [role=form]', list: 'ul, ol, [role=list]', listitem: 'li, [role=listitem]',
    progressbar: 'progress, [role=progressbar]', heading: 'h1, h2, h3, h4, h5, h6, [role=heading]',
    figure: 'figure, [role=figure]', group: 'fieldset, [role=group]',
  };
  const name = (e) => {
    const by = e.getAttribute('aria-labelledby');
    if (by) return text(by.split(/\s+/).map((id) => document.getElementById(id)?.innerText ?? '').join(' '));
    if (e.getAttribute('aria-label')) return text(e.getAttribute('aria-label'));
    if (e.labels?.length) return text([...e.labels].map((l) => l.innerText).join(' '));
    if (e.tagName === 'IMG') return text(e.alt);
    if (e.matches('input, textarea, select')) return text(e.title || e.placeholder);
    return text(e.innerText || e.textContent || e.title);
  };
  const fits = (e, want) => { const n = name(e); return want.endsWith('*') ? n.startsWith(want.slice(0, -1)) : n === want; };
  const all = (role, root = document) => root ? [...root.querySelectorAll(implicit[role] ?? `[role="${role}"]`)].filter((e) => !e.getAttribute('role') || e.getAttribute('role') === role) : [];
  const one = (role, want, root) => all(role, root).find((e) => fits(e, want)) ?? null;
  const named = (want) => [...document.querySelectorAll('[aria-label], [aria-labelledby], input, textarea, select')].find((e) => fits(e, want)) ?? null;
  return { all, one, named, name };
})())"#;

/// A JS expression: the element with ARIA `role` (`button`, `textbox`, `img`, `navigation`,
/// `status`, …) and accessible name `name` (`"Narration*"`: a name that starts so), or null.
pub fn role(role: &str, name: &str) -> String {
    format!("{A11Y}.one({role:?}, {name:?})")
}

/// A JS expression: every element with ARIA `role` (an array).
pub fn roles(role: &str) -> String {
    format!("{A11Y}.all({role:?})")
}

/// A JS expression: every element with ARIA `role` inside the element `within` (a JS
/// expression such as [`role`]); empty when that is not there.
pub fn roles_in(within: &str, role: &str) -> String {
    format!("{A11Y}.all({role:?}, {within})")
}

/// A JS expression: the element labelled `name` (its `aria-label` or its label), or null.
pub fn named(name: &str) -> String {
    format!("{A11Y}.named({name:?})")
}

/// A JS expression: the innermost element whose visible text is `text`, or null.
pub fn text(text: &str) -> String {
    format!(
        "([...document.querySelectorAll('body *')].filter((e) => (e.innerText ?? '').replace(/\\s+/g, ' ').trim() === {text:?}).pop() ?? null)"
    )
}

/// One chromedriver and the Chromium it drives, in a process group of their own.
struct Session {
    client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
    /// The window size it started with, restored before it is used again.
    window: (u64, u64),
}

/// Kept browsers, blank and ready; at most [`KEPT`].
static IDLE: Mutex<Vec<Session>> = Mutex::new(Vec::new());
/// More kept browsers than the test threads ever hold at once (a test may hold two) only
/// cost memory.
const KEPT: usize = 4;
/// The process groups of every live session, killed when the process exits.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// The runtime the WebDriver sessions run on. fantoccini runs each session as a task of the
/// runtime that connected it, and each test has a runtime of its own that ends with it, so a
/// session kept for the next test must belong to one that lives as long as the process.
static BROWSER_RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("browsers")
        .enable_all()
        .build()
        .expect("browser runtime")
});

/// Runs `work` on [`BROWSER_RUNTIME`] and waits for it; its panic is the caller's.
async fn on_browser_runtime<T: Send + 'static>(
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> T {
    BROWSER_RUNTIME
        .spawn(work)
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
}

/// A kept session that still answers, or `None`.
async fn kept_session() -> Option<Session> {
    loop {
        let session = IDLE.lock().expect("idle browsers").pop()?;
        if session.client.current_url().await.is_ok() {
            return Some(session);
        }
        session.kill();
    }
}

impl Session {
    async fn launch() -> Session {
        use std::os::unix::process::CommandExt;
        let driver_bin = tool("REELSMITH_CHROMEDRIVER", "/usr/bin/chromedriver");
        let chromium = tool("REELSMITH_CHROMIUM", "/usr/bin/chromium");
        let port = free_port();
        let driver = Command::new(driver_bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Chromium outlives a killed chromedriver; killing the group takes both.
            .process_group(0)
            .spawn()
            .expect("start chromedriver");
        GROUPS.lock().expect("groups").push(driver.id() as i32);
        once_at_exit();
        let base = format!("http://127.0.0.1:{port}");
        wait_ready(&base).await;
        let profile = tempfile::tempdir().expect("profile dir");
        let client = fantoccini::ClientBuilder::rustls()
            .expect("rustls connector")
            .capabilities(capabilities(&chromium, &profile))
            .connect(&base)
            .await
            .expect("WebDriver session");
        let window = client.get_window_size().await.expect("window size");
        Session {
            client,
            driver,
            _profile: profile,
            window,
        }
    }

    /// Blanks the page (clearing its origin's storage and cookies first) and keeps the
    /// session, or kills it where that fails or enough are kept.
    async fn hand_back(self) {
        let c = &self.client;
        let _ = c
            .execute(
                "try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}",
                vec![],
            )
            .await;
        let _ = c.delete_all_cookies().await;
        let blank = c.goto("about:blank").await.is_ok()
            && c.windows().await.is_ok_and(|w| w.len() == 1)
            && match c.get_window_size().await {
                Ok(size) if size == self.window => true,
                Ok(_) => {
                    let (w, h) = self.window;
                    c.set_window_size(w as u32, h as u32).await.is_ok()
                }
                Err(_) => false,
            };
        let mut idle = IDLE.lock().expect("idle browsers");
        if blank && idle.len() < KEPT {
            idle.push(self);
        } else {
            drop(idle);
            self.kill();
        }
    }

    /// Kills chromedriver and its Chromium.
    fn kill(mut self) {
        let group = self.driver.id() as i32;
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is touched.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        let _ = self.driver.wait();
        GROUPS.lock().expect("groups").retain(|g| *g != group);
    }
}

/// Registers [`kill_groups`] to run when the process exits, once.
fn once_at_exit() {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: registers a plain `extern "C"` function with no arguments.
        unsafe { libc::atexit(kill_groups) };
    });
}

/// Kills every live session's process group (the kept browsers), as the test process exits.
extern "C" fn kill_groups() {
    let groups = match GROUPS.try_lock() {
        Ok(groups) => groups,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return,
    };
    for group in groups.iter() {
        // SAFETY: as in `Session::kill`.
        unsafe { libc::kill(-group, libc::SIGKILL) };
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
