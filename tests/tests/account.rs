//! The account black-box: the shared 402 guard on every charging endpoint (`credit_exhausted`,
//! `account_expired`, nothing charged or created when refused), `reelsmith accounts set` and
//! `GET /v1/account` read back from the records.

use reelsmith_tests::{Daemon, script, split};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");

/// Runs `reelsmith accounts set --account default ARGS` with the daemon stopped.
fn accounts_set(d: &mut Daemon, args: &[&str]) {
    assert!(d.terminate().success());
    let out = reelsmith_tests::reelsmith_command(BIN)
        .args(["accounts", "set", "--account", "default"])
        .args(args)
        .arg("--data-dir")
        .arg(d.data_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    d.restart();
}

/// Every endpoint that charges credits, with a body it accepts.
fn charging_calls() -> Vec<(&'static str, Value)> {
    vec![
        (
            "/v1/typography",
            json!({"role": "opening_poster", "text": "Why most small businesses fail in year one."}),
        ),
        ("/v1/create_content", json!({"content": "a b c d e f"})),
        ("/v1/enhance_script", json!({"script_text": script(90)})),
        (
            "/v1/create_image",
            json!({"prompt": "solar panels on a roof", "ratio": "square"}),
        ),
    ]
}

async fn credits(d: &Daemon) -> i64 {
    let (c, v, _) = d.get("/v1/account").await;
    assert_eq!(c, 200, "{v}");
    v["credits_remaining"].as_i64().unwrap()
}

fn assert_402(path: &str, c: u16, v: &Value, code: &str) {
    assert_eq!(c, 402, "{path}: {v}");
    assert_eq!(v["error"]["code"], code, "{path}: {v}");
    assert_eq!(v["error"]["type"], "payment_required", "{path}");
    let pricing = v["error"]["details"]["pricing_url"].as_str().unwrap();
    assert!(pricing.starts_with("http"), "{path}: {pricing}");
}

#[tokio::test]
async fn every_charging_endpoint_refuses_an_empty_account_and_charges_nothing() {
    let mut d = Daemon::start(BIN, &[]);
    accounts_set(&mut d, &["--credits", "0"]);
    for (path, body) in charging_calls() {
        let (c, v, _) = d.post(path, &body).await;
        assert_402(path, c, &v, "credit_exhausted");
        assert_eq!(v["error"]["details"]["credits_remaining"], 0, "{path}");
    }
    assert_eq!(credits(&d).await, 0);
    let (_, v, _) = d.post("/v1/create_image", &json!({"prompt": "sun"})).await;
    let pricing = v["error"]["details"]["pricing_url"].as_str().unwrap();
    let page = d.http.get(pricing).send().await.unwrap();
    assert_eq!(page.status(), 200, "{pricing} opens without a key");
    assert!(page.text().await.unwrap().contains("Plans and credits"));
    let (_, videos, _) = d.get("/v1/videos").await;
    assert_eq!(videos["total_count"], 0, "no job was created: {videos}");
}

#[tokio::test]
async fn an_expired_account_is_refused_until_its_validity_is_extended() {
    let mut d = Daemon::start(BIN, &[]);
    accounts_set(&mut d, &["--credits", "10", "--valid-to", "2020-01-31"]);
    for (path, body) in charging_calls() {
        let (c, v, _) = d.post(path, &body).await;
        assert_402(path, c, &v, "account_expired");
        assert_eq!(v["error"]["details"]["valid_to"], "2020-01-31T00:00:00Z");
    }
    assert_eq!(credits(&d).await, 10, "nothing was taken");

    accounts_set(&mut d, &["--valid-to", "never"]);
    let (path, body) = &charging_calls()[0];
    let (c, v, _) = d.post(path, body).await;
    assert!(c == 200 || c == 202, "{v}");
    assert_eq!(credits(&d).await, 9);
}

#[tokio::test]
async fn the_account_reads_back_what_accounts_set_stored() {
    let mut d = Daemon::start(BIN, &[]);
    let (c, v, _) = d.get("/v1/account").await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["object"], "account");
    assert_eq!(v["company_id"], "default");
    assert_eq!(v["plan"], "paid");
    assert_eq!(v["credits_remaining"], 1000);
    assert_eq!(v["valid_to"], Value::Null);
    assert_eq!(v["connected_platforms"], json!([]));
    let groups = v["channel_groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0]["channel_group"], 0);
    assert_eq!(groups[0]["is_primary"], true);

    accounts_set(
        &mut d,
        &[
            "--plan",
            "trial",
            "--credits",
            "42",
            "--valid-to",
            "2031-05-01",
            "--email",
            "ops@example.com",
            "--name",
            "Lan Pham",
            "--location",
            "Hanoi",
            "--industry",
            "solar",
            "--sub-industry",
            "residential",
        ],
    );
    let (c, v, _) = d.get("/v1/account").await;
    assert_eq!(c, 200, "{v}");
    let got: Vec<&Value> = [
        "plan",
        "credits_remaining",
        "valid_to",
        "email",
        "name",
        "location",
        "industry",
        "sub_industry",
    ]
    .iter()
    .map(|k| &v[*k])
    .collect();
    assert_eq!(
        got,
        [
            &json!("trial"),
            &json!(42),
            &json!("2031-05-01T00:00:00Z"),
            &json!("ops@example.com"),
            &json!("Lan Pham"),
            &json!("Hanoi"),
            &json!("solar"),
            &json!("residential"),
        ]
    );

    let r = d.http.get(d.url("/v1/account")).send().await.unwrap();
    let (c, v, _) = split(r).await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (401, Some("missing_api_key"))
    );
}

#[tokio::test]
async fn foundation_videos_lists_templates_for_the_industry_with_rendered_thumbnails() {
    let mut d = Daemon::start(BIN, &[]);
    let (c, all, _) = d.get("/v1/foundation_videos").await;
    assert_eq!(c, 200, "{all}");
    assert_eq!(all["object"], "list");
    let total = all["total"].as_u64().unwrap();
    assert!(total >= 5, "{all}");
    let groups: std::collections::HashSet<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["group"].as_str().unwrap())
        .collect();
    assert_eq!(groups.len(), 5, "every format: {groups:?}");
    let first = &all["data"][0];
    for k in ["id", "title", "description", "industry", "look"] {
        assert!(first[k].is_string(), "{k}: {first}");
    }
    assert!(!first["scenes"].as_array().unwrap().is_empty());
    let r = d
        .http
        .get(first["thumbnail_url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let png = tiny_skia::Pixmap::decode_png(&r.bytes().await.unwrap()).unwrap();
    assert_eq!((png.width(), png.height()), (280, 498));

    // The account's industry is the default filter; general templates stay.
    accounts_set(&mut d, &["--industry", "solar"]);
    let (_, solar, _) = d.get("/v1/foundation_videos").await;
    let industries: Vec<&str> = solar["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["industry"].as_str().unwrap())
        .collect();
    assert!(
        industries.contains(&"solar")
            && industries.iter().all(|i| ["solar", "general"].contains(i)),
        "{industries:?}"
    );
    let (_, sub, _) = d.get("/v1/foundation_videos?sub_industry=commercial").await;
    assert!(
        sub["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["sub_industry"].is_null() || t["sub_industry"] == "commercial"),
        "{sub}"
    );
    let (_, dental, _) = d.get("/v1/foundation_videos?industry=dental").await;
    assert!(
        dental["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["industry"] == "dental")
    );
    let (_, page1, _) = d.get("/v1/foundation_videos?page=1").await;
    assert_eq!(
        page1["data"],
        json!([]),
        "fewer than 20 templates: one page"
    );
    let (c, bad, _) = d.get("/v1/foundation_videos?page=x").await;
    assert_eq!(
        (
            c,
            bad["error"]["code"].as_str(),
            bad["error"]["param"].as_str()
        ),
        (400, Some("invalid_page"), Some("page"))
    );
}
