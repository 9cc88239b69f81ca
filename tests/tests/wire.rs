//! Wire pins: the JSON shape of each endpoint's reply, kept in `tests/golden/wire/`, so a move
//! of types between crates or a new model for one concept cannot change what a client reads.
//!
//! A pin keeps every key and the type of every value. It keeps the values of the keys that
//! name a state or a closed set (`status`, `stage`, `object`, `code`, `param`, …), and reads
//! everything else, which changes from run to run (ids, times, tokens, ports, durations), as
//! its type. An array keeps each distinct element shape once, in order of first appearance.
//! `REELSMITH_WRITE_WIRE=1 cargo test -p reelsmith --test blackbox wire::` writes the pins.

use std::path::PathBuf;
use std::time::Duration;

use reelsmith_tests::{Daemon, script};
use serde_json::{Map, Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");

/// Keys whose string values are a state or a closed set: kept as they are.
const VERBATIM: &[&str] = &[
    "object",
    "status",
    "stage",
    "code",
    "param",
    "type",
    "action",
    "output_type",
    "source",
    "state",
];

/// The shape of `v`, read under `key`.
fn shape(v: &Value, key: Option<&str>) -> Value {
    match v {
        Value::Null => json!("null"),
        Value::Bool(_) => json!("bool"),
        Value::Number(n) if n.is_f64() => json!("number"),
        Value::Number(_) => json!("integer"),
        Value::String(s) if key.is_some_and(|k| VERBATIM.contains(&k)) => json!(s),
        Value::String(_) => json!("string"),
        Value::Array(items) => {
            let mut shapes: Vec<Value> = Vec::new();
            for item in items {
                let s = shape(item, None);
                if !shapes.contains(&s) {
                    shapes.push(s);
                }
            }
            Value::Array(shapes)
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), shape(v, Some(k))))
                .collect::<Map<_, _>>(),
        ),
    }
}

/// The replies of one test, by call name: their HTTP status and shape.
#[derive(Default)]
struct Pins(Map<String, Value>);

impl Pins {
    fn add(&mut self, call: &str, code: u16, body: &Value) {
        let pin = json!({ "http": code, "body": shape(body, None) });
        self.0.insert(call.to_string(), pin);
    }

    /// Compares with `tests/golden/wire/{name}.json` (or writes it, with
    /// `REELSMITH_WRITE_WIRE=1`), naming every call whose shape changed.
    fn check(self, name: &str) {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/wire")
            .join(format!("{name}.json"));
        let got = Value::Object(self.0);
        if std::env::var_os("REELSMITH_WRITE_WIRE").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
            return;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (write it with REELSMITH_WRITE_WIRE=1)",
                path.display()
            )
        });
        let want: Value = serde_json::from_str(&text).unwrap();
        let changed: Vec<String> = want
            .as_object()
            .unwrap()
            .iter()
            .filter(|(call, pin)| got.get(call.as_str()) != Some(pin))
            .map(|(call, pin)| {
                let now = got.get(call.as_str()).unwrap_or(&Value::Null);
                format!("{call}:\n  pinned {pin}\n  now    {now}")
            })
            .collect();
        assert!(
            changed.is_empty() && want.as_object().unwrap().len() == got.as_object().unwrap().len(),
            "wire shapes changed in {}:\n{}",
            path.display(),
            changed.join("\n")
        );
    }
}

async fn post(d: &Daemon, pins: &mut Pins, call: &str, path: &str, body: Value) -> Value {
    let (code, v, _) = d.post(path, &body).await;
    pins.add(call, code, &v);
    v
}

async fn get(d: &Daemon, pins: &mut Pins, call: &str, path: &str) -> Value {
    let (code, v, _) = d.get(path).await;
    pins.add(call, code, &v);
    v
}

#[tokio::test]
async fn the_video_endpoints_keep_their_wire_shapes() {
    let d = Daemon::start(BIN, &[]);
    let mut pins = Pins::default();
    let request = json!({ "script_text": script(90), "output_type": "scene" });
    let accepted = post(&d, &mut pins, "create_video", "/v1/create_video", request).await;
    let id = accepted["id"].as_str().expect("id").to_string();
    let ready = d
        .wait_for(&id, Duration::from_secs(300), |v| {
            v["status"] != "processing"
        })
        .await;
    pins.add("status (scenes ready)", 200, &ready);
    let tree = d.scene_tree(&id).await;
    pins.add("video_data file", 200, &tree);
    let vf = tree["segments"][0]["voice_file"]
        .as_str()
        .unwrap()
        .to_string();
    post(
        &d,
        &mut pins,
        "video_data",
        "/v1/video_data",
        json!({ "video_id": id }),
    )
    .await;
    let at = json!({ "id": id, "voice_file": vf });
    post(&d, &mut pins, "scene_geometry", "/v1/scene_geometry", at).await;
    for action in ["start", "status"] {
        let body = json!({ "id": id, "action": action });
        let call = format!("edit_session {action}");
        post(&d, &mut pins, &call, "/v1/edit_session", body).await;
    }
    let fields = json!([{ "field_name": "quote", "value": "Small steps add up." }]);
    let edit = json!({ "id": id, "by": "voice_file", "value": vf, "fields": fields });
    post(&d, &mut pins, "modify_scene", "/v1/modify_scene", edit).await;
    let commit = json!({ "id": id, "action": "commit" });
    post(
        &d,
        &mut pins,
        "edit_session commit",
        "/v1/edit_session",
        commit,
    )
    .await;
    get(&d, &mut pins, "videos", "/v1/videos").await;
    get(&d, &mut pins, "account", "/v1/account").await;
    pins.check("video");
}

#[tokio::test]
async fn the_studio_endpoints_keep_their_wire_shapes() {
    let d = Daemon::start(BIN, &[]);
    let mut pins = Pins::default();
    let poster = json!({ "role": "opening_poster", "text": "Why most small businesses fail." });
    let job = post(&d, &mut pins, "typography", "/v1/typography", poster).await;
    let id = job["id"].as_str().expect("typography id");
    let started = std::time::Instant::now();
    loop {
        let (code, v, _) = d.get(&format!("/v1/typography/{id}")).await;
        if v["status"] != "processing" || started.elapsed() > Duration::from_secs(120) {
            pins.add("typography status", code, &v);
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let search = json!({ "keyword": "city", "kind": "image", "limit": 2 });
    post(&d, &mut pins, "search_broll", "/v1/search_broll", search).await;
    let image = json!({ "prompt": "solar panels on a roof", "ratio": "square" });
    post(&d, &mut pins, "create_image", "/v1/create_image", image).await;
    let group = json!({ "label": "Brand A" });
    post(
        &d,
        &mut pins,
        "channel_groups create",
        "/v1/channel_groups",
        group,
    )
    .await;
    for (call, path) in [
        ("channel_groups", "/v1/channel_groups"),
        ("production_plan", "/v1/production_plan"),
        ("roadmap", "/v1/roadmap"),
        ("platform_settings", "/v1/platform_settings"),
        ("analytics", "/v1/analytics"),
        ("accounts", "/v1/accounts"),
        ("foundation_videos", "/v1/foundation_videos"),
    ] {
        get(&d, &mut pins, call, path).await;
    }
    pins.check("studio");
}

#[tokio::test]
async fn error_envelopes_keep_their_wire_shape() {
    let d = Daemon::start(BIN, &[]);
    let mut pins = Pins::default();
    post(
        &d,
        &mut pins,
        "empty create_video",
        "/v1/create_video",
        json!({}),
    )
    .await;
    let short = json!({ "script_text": "Too short.", "output_type": "scene" });
    post(&d, &mut pins, "short script", "/v1/create_video", short).await;
    let bad = json!({ "script_text": script(90), "output_type": "gif" });
    post(
        &d,
        &mut pins,
        "unknown output_type",
        "/v1/create_video",
        bad,
    )
    .await;
    get(
        &d,
        &mut pins,
        "unknown status id",
        "/v1/status/wc0000000000000000000000",
    )
    .await;
    let unknown = json!({ "id": "wc0000000000000000000000", "action": "status" });
    post(
        &d,
        &mut pins,
        "edit_session unknown video",
        "/v1/edit_session",
        unknown,
    )
    .await;
    let r = d
        .http
        .get(d.url("/v1/account"))
        .bearer_auth("rsk_not_a_key")
        .send()
        .await
        .unwrap();
    let code = r.status().as_u16();
    pins.add("bad key", code, &r.json::<Value>().await.unwrap());
    pins.check("errors");
}
