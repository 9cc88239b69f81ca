//! `POST /v1/typography` and `GET /v1/typography/{id}`, black-box: validation and limits (clear
//! 400s, never charged), one credit per call with 402 when out of credits, `wait` semantics,
//! the response shape, and the public SVG/PNG files (outlines only, every box inside y 128–960).

use reelsmith_tests::{Daemon, fixture_files, split};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");

async fn post_as(d: &Daemon, key: &str, body: &Value) -> (u16, Value) {
    let r = d
        .http
        .post(d.url("/v1/typography"))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .unwrap();
    let (c, v, _) = split(r).await;
    (c, v)
}

async fn get_as(d: &Daemon, key: &str, path: &str) -> (u16, Value) {
    let r = d
        .http
        .get(d.url(path))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    let (c, v, _) = split(r).await;
    (c, v)
}

fn check_result(v: &Value) {
    assert_eq!(v["object"], "typography", "{v}");
    assert_eq!(v["status"], "completed", "{v}");
    assert!(v["id"].as_str().unwrap().starts_with("typo_"));
    assert_eq!(v["canvas"]["width"], 720);
    assert_eq!(v["canvas"]["height"], 1280);
    assert_eq!(v["canvas"]["safe_top"], 128.0);
    assert_eq!(v["canvas"]["safe_bottom"], 960.0);
    assert_eq!(v["credits_charged"], 1);
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"));
    assert!(!v["lines"].as_array().unwrap().is_empty());
    let objects = v["objects"].as_array().unwrap();
    assert!(!objects.is_empty());
    for (i, o) in objects.iter().enumerate() {
        assert_eq!(o["index"], i);
        assert!(
            o["name"].is_string() && o["kind"].is_string() && o["phase"].is_u64(),
            "{o}"
        );
        let y = o["box"]["y"].as_f64().unwrap();
        let h = o["box"]["h"].as_f64().unwrap();
        assert!(y >= 128.0 && y + h <= 960.0, "{o}");
        if o["kind"] == "text" {
            assert!(o["text"].is_string());
        } else {
            assert!(o["text"].is_null());
        }
    }
}

async fn fetch_public(d: &Daemon, url: &str) -> Vec<u8> {
    // Public: no Authorization header.
    let r = d.http.get(url).send().await.unwrap();
    assert_eq!(r.status(), 200, "{url}");
    r.bytes().await.unwrap().to_vec()
}

/// A daemon with a second account, "poor", that has `credits` credits: the daemon and that
/// account's key.
fn daemon_with_poor_account(credits: u32) -> (Daemon, String) {
    let mut d = Daemon::start(BIN, &[]);
    assert!(d.terminate().success());
    let out = reelsmith_tests::reelsmith_command(BIN)
        .args(["keys", "create", "--account", "poor", "--credits"])
        .arg(credits.to_string())
        .arg("--data-dir")
        .arg(d.data_dir())
        .output()
        .unwrap();
    assert!(out.status.success());
    let poor = String::from_utf8(out.stdout).unwrap().trim().to_string();
    d.restart();
    (d, poor)
}

/// The Vietnamese request with word timings, brand and look.
fn vietnamese() -> Value {
    json!({
        "role": "typography",
        "text": "Người Việt ưu tiên chất lượng",
        "quote": "Người Việt | ưu tiên chất lượng",
        "words": [
            {"word": "Người", "start": 0.0, "end": 0.3},
            {"word": "Việt", "start": 0.3, "end": 0.6},
            {"word": "ưu", "start": 0.8, "end": 1.0},
            {"word": "tiên", "start": 1.0, "end": 1.2},
            {"word": "chất", "start": 1.2, "end": 1.5},
            {"word": "lượng", "start": 1.5, "end": 1.9}
        ],
        "brand": {"colors": ["#E63946"]},
        "look": "brand-red",
        "wait": 60
    })
}

#[tokio::test]
async fn refused_typography_requests_name_the_field_and_charge_nothing() {
    let (d, poor) = daemon_with_poor_account(1);
    let bad: &[(Value, &str, &str)] = &[
        (json!({"text": "x"}), "missing_field", "role"),
        (
            json!({"role": "banner", "text": "x"}),
            "invalid_role",
            "role",
        ),
        (json!({"role": "typography"}), "missing_field", "text"),
        (
            json!({"role": "typography", "text": "a".repeat(2001)}),
            "text_too_long",
            "text",
        ),
        (
            json!({"role": "typography", "text": "x", "quote": "q".repeat(301)}),
            "quote_too_long",
            "quote",
        ),
        (
            json!({"role": "typography", "text": "x", "duration": 0}),
            "invalid_duration",
            "duration",
        ),
        (
            json!({"role": "typography", "text": "x", "duration": 61}),
            "invalid_duration",
            "duration",
        ),
        (
            json!({"role": "typography", "text": "x", "wait": 101}),
            "invalid_wait",
            "wait",
        ),
        (
            json!({"role": "typography", "text": "x", "look": "no spaces"}),
            "invalid_look",
            "look",
        ),
        (
            json!({"role": "typography", "text": "x", "brand": {"colors": ["#12345"]}}),
            "invalid_brand",
            "brand.colors",
        ),
        (
            json!({"role": "typography", "text": "x", "words": [{"word": "x"}]}),
            "invalid_words",
            "words",
        ),
        // Only line breaks, nothing to set: the client's text, not a 500.
        (
            json!({"role": "typography", "text": "| -> |"}),
            "missing_field",
            "text",
        ),
    ];
    for (body, code, param) in bad {
        let (c, v) = post_as(&d, &poor, body).await;
        assert_eq!(c, 400, "{body} → {v}");
        assert_eq!(v["error"]["code"], *code, "{body} → {v}");
        assert_eq!(v["error"]["param"], *param, "{body} → {v}");
        assert_eq!(v["error"]["type"], "invalid_request_error");
    }
    // The one credit is still there.
    let one_more = json!({"role": "typography", "text": "one more", "wait": 60});
    let (c, v) = post_as(&d, &poor, &one_more).await;
    assert_eq!(c, 200, "{v}");
}

#[tokio::test]
async fn typography_is_set_in_outlines_timed_to_the_words_and_in_the_brand() {
    let d = Daemon::start(BIN, &[]);
    let (c, v) = post_as(&d, &d.key, &vietnamese()).await;
    assert_eq!(c, 200, "{v}");
    check_result(&v);
    assert_eq!(v["language"], "vi");
    assert_eq!(v["look"], "brand-red");
    assert_eq!(v["brand"]["colors"][0], "#E63946");
    assert_eq!(v["brand"]["applied"], true);
    let objects = v["objects"].as_array().unwrap();
    let texts: Vec<&Value> = objects.iter().filter(|o| o["kind"] == "text").collect();
    let last = texts.last().unwrap();
    assert!(last["start"].as_f64().unwrap() >= 0.8, "{last}");
    assert!(last["phase"].as_u64().unwrap() > texts[0]["phase"].as_u64().unwrap());
    for o in objects {
        let svg = fetch_public(&d, o["svg_url"].as_str().unwrap()).await;
        let svg = String::from_utf8(svg).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("<path") || svg.contains("<rect"),
            "{svg}"
        );
        assert!(!svg.contains("<text"), "text must be outlined");
        let png = fetch_public(&d, o["image_url"].as_str().unwrap()).await;
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    }
    let preview = fetch_public(&d, v["preview_url"].as_str().unwrap()).await;
    assert!(preview.starts_with(b"\x89PNG"));
}

#[tokio::test]
async fn a_typography_result_is_read_again_only_by_its_account() {
    let (d, poor) = daemon_with_poor_account(2);
    let (c, v) = post_as(&d, &poor, &vietnamese()).await;
    assert_eq!(c, 200, "{v}");
    let id = v["id"].as_str().unwrap();
    let (c, again) = get_as(&d, &poor, &format!("/v1/typography/{id}?wait=5")).await;
    assert_eq!(c, 200, "{again}");
    assert_eq!(again["objects"], v["objects"]);
    let (c, other) = get_as(&d, &d.key, &format!("/v1/typography/{id}")).await;
    assert_eq!(c, 404, "{other}");
    assert_eq!(other["error"]["code"], "typography_not_found");
    let (c, e) = get_as(&d, &poor, &format!("/v1/typography/{id}?wait=101")).await;
    assert_eq!(
        (c, e["error"]["code"].as_str()),
        (400, Some("invalid_wait"))
    );
    let unknown = "/v1/typography/typo_000000000000000000000000";
    let (c, missing) = get_as(&d, &d.key, unknown).await;
    assert_eq!(
        (c, missing["error"]["code"].as_str()),
        (404, Some("typography_not_found"))
    );
}

#[tokio::test]
async fn wait_zero_answers_at_once_and_a_get_with_wait_returns_the_poster() {
    let d = Daemon::start(BIN, &[]);
    let text = "Why most small businesses fail in year one.";
    let body = json!({"role": "opening_poster", "text": text, "language": "en"});
    let (c, v) = post_as(&d, &d.key, &body).await;
    // Processing, or already done if it was that quick.
    assert!(c == 202 || c == 200, "{v}");
    if c == 202 {
        assert_eq!(v["status"], "processing");
    }
    let id = v["id"].as_str().unwrap();
    let (c, done) = get_as(&d, &d.key, &format!("/v1/typography/{id}?wait=60")).await;
    assert_eq!(c, 200, "{done}");
    check_result(&done);
    let lines = done["lines"].as_array().unwrap();
    assert!(lines.len() <= 3);
    for l in lines {
        let l = l.as_str().unwrap();
        assert_eq!(l, l.to_uppercase());
        assert!(l.split_whitespace().count() <= 4);
    }
}

#[tokio::test]
async fn each_call_charges_one_credit_and_an_empty_account_gets_402() {
    let (d, poor) = daemon_with_poor_account(1);
    let body = json!({"role": "typography", "text": "one more", "wait": 60});
    let (c, v) = post_as(&d, &poor, &body).await;
    assert_eq!(c, 200, "{v}");
    let (c, v) = post_as(&d, &poor, &body).await;
    assert_eq!(c, 402, "{v}");
    assert_eq!(v["error"]["code"], "credit_exhausted");
    assert_eq!(v["error"]["type"], "payment_required");
    // Another account's credits are its own.
    let (c, v) = post_as(&d, &d.key, &body).await;
    assert_eq!(c, 200, "{v}");
}

#[tokio::test]
async fn a_cta_poster_with_the_narrator_shown_sits_in_the_lower_band() {
    let d = Daemon::start(BIN, &[]);
    let body =
        json!({"role": "cta_poster", "text": "Call us today", "wait": 60, "show_narrator": true});
    let (c, cta) = post_as(&d, &d.key, &body).await;
    assert_eq!(c, 200, "{cta}");
    check_result(&cta);
    for o in cta["objects"].as_array().unwrap() {
        assert!(o["box"]["y"].as_f64().unwrap() >= 640.0, "lower band: {o}");
    }
}

const OVERLAY_SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 720 1280" width="720" height="1280">
<g data-wc-object="panel" data-wc-kind="callout" data-wc-anim="fade"><rect x="60" y="300" width="600" height="300" fill="#FF00FF"/></g>
<g data-wc-object="title" data-wc-kind="text"><text x="80" y="700" font-size="72" font-family="Inter" fill="#00FF00">Xin chào</text></g>
</svg>"##;

async fn inspector(d: &Daemon, body: Value) -> Value {
    let (c, v, _) = d.post("/v1/scene_inspector", &body).await;
    assert_eq!(c, 200, "{v}");
    v
}

/// Branch B through modify_scene, then O, seen by the renderer: the screenshot changes and
/// the overlay poster shows the uploaded panel where the SVG put it.
#[tokio::test]
async fn overlay_upload_through_modify_scene_shows_in_the_render() {
    let fixture = fixture_files(vec![(
        "overlay.svg",
        "image/svg+xml",
        OVERLAY_SVG.as_bytes().to_vec(),
    )])
    .await;
    let allow = format!("[\"{fixture}\"]");
    let d = Daemon::start(BIN, &[("REELSMITH__FETCH__ALLOW", &allow)]);
    let (id, vf) = d.scenes_ready_video().await;
    let shot = |seek: f64| json!({ "id": id, "action": "screenshot_scene_280x498", "voice_file": vf, "seek_seconds": seek });
    let before = inspector(&d, shot(1.0)).await;
    let before_url = before["result"]["screenshot"]["url"]
        .as_str()
        .unwrap()
        .to_string();
    let before_jpeg = fetch_public(&d, &before_url).await;

    let url = format!("http://{fixture}/overlay.svg");
    let (c, v, _) = d
        .post(
            "/v1/modify_scene",
            &json!({ "id": id, "by": "voice_file", "value": vf,
                     "fields": [{ "field_name": "remotion.upload_overlay", "value": { "url": url } }] }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let applied = &v["applied"]["remotion.upload_overlay"];
    assert_eq!(applied["source"], "svg2spec", "{v}");
    assert_eq!(applied["objects"].as_array().unwrap().len(), 2, "{v}");

    let after = inspector(&d, shot(1.0)).await;
    let after_jpeg = fetch_public(&d, after["result"]["screenshot"]["url"].as_str().unwrap()).await;
    assert_ne!(
        before_jpeg, after_jpeg,
        "the overlay changes the rendered frame"
    );

    let poster = inspector(
        &d,
        json!({ "id": id, "action": "overlay_poster", "voice_file": vf }),
    )
    .await;
    let png = fetch_public(
        &d,
        poster["result"]["overlay_poster"]["url"].as_str().unwrap(),
    )
    .await;
    let pm = tiny_skia::Pixmap::decode_png(&png).unwrap();
    // The panel (canvas 60,300 600×300) sits at preview (23,117 233×117): magenta in its middle.
    let sx = pm.width() as f32 / 720.0;
    let p = pm
        .pixel((360.0 * sx) as u32, (450.0 * sx) as u32)
        .unwrap()
        .demultiply();
    assert!(p.red() > 200 && p.green() < 60 && p.blue() > 200, "{p:?}");
    // Outside the panel and the title: black.
    let q = pm.pixel((360.0 * sx) as u32, (1100.0 * sx) as u32).unwrap();
    assert!(q.red() < 30 && q.green() < 30, "{q:?}");

    // O: a text edit on the uploaded SVG; poster rules come back as warnings.
    let (c, v, _) = d
        .post(
            "/v1/modify_scene",
            &json!({ "id": id, "by": "voice_file", "value": vf,
                     "fields": [{ "field_name": "overlay.text_edit", "value": { "wc_object": "title", "lines": ["new copy here"] } }] }),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    let warnings = v["applied"]["overlay.text_edit"]["warnings"]
        .as_array()
        .unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("uppercase")),
        "{v}"
    );
}

#[tokio::test]
async fn without_a_language_the_words_to_set_decide_it() {
    let d = Daemon::start(BIN, &[]);
    for (text, want) in [
        (
            "Người Việt bắt đầu ngày mới bằng một ly cà phê sữa đá.",
            "vi",
        ),
        (
            "Most small businesses lose their best customers in the first month.",
            "en",
        ),
    ] {
        let (c, v) = post_as(
            &d,
            &d.key,
            &json!({ "role": "opening_poster", "text": text }),
        )
        .await;
        assert!(c == 200 || c == 202, "{v}");
        assert_eq!(v["language"], want, "{text}: {v}");
    }
    // An explicit language wins.
    let body = json!({ "role": "typography", "text": "Start today.", "language": "vi" });
    let (c, v) = post_as(&d, &d.key, &body).await;
    assert!(c == 200 || c == 202, "{v}");
    assert_eq!(v["language"], "vi", "{v}");
}
