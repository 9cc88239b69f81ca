//! Channel groups and connections, black-box: group 0 is immutable and first, numbers are never
//! reused, the per-account limit, 402 `plan_required` on a free plan, and connecting a platform
//! through the setup page in Chromium, after which `GET /v1/accounts` lists it.

use reelsmith_tests::Daemon;
use reelsmith_tests::browser::Browser;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");

async fn send(
    d: &Daemon,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut r = d.http.request(method, d.url(path)).bearer_auth(&d.key);
    if let Some(b) = body {
        r = r.json(&b);
    }
    let (c, v, _) = reelsmith_tests::split(r.send().await.unwrap()).await;
    (c, v)
}

fn numbers(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|g| g["channel_group"].as_u64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn group_zero_is_fixed_numbers_are_never_reused_and_the_limit_holds() {
    let d = Daemon::start(BIN, &[("REELSMITH__PUBLISH__CHANNEL_GROUP_LIMIT", "3")]);
    let (c, v, _) = d.get("/v1/channel_groups").await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(numbers(&v["data"]), [0]);
    assert_eq!(
        (v["limit"].as_u64(), v["data"][0]["is_primary"].as_bool()),
        (Some(3), Some(true))
    );
    use reqwest::Method;
    for (m, body) in [
        (Method::PATCH, Some(json!({"label": "x"}))),
        (Method::DELETE, None),
    ] {
        let (c, v) = send(&d, m, "/v1/channel_groups/0", body).await;
        assert_eq!(
            (c, v["error"]["code"].as_str()),
            (404, Some("invalid_channel_group")),
            "{v}"
        );
    }
    let (c, v, _) = d
        .post("/v1/channel_groups", &json!({"label": "Brand A"}))
        .await;
    assert_eq!((c, v["channel_group"].as_u64()), (201, Some(1)), "{v}");
    let (c, v, _) = d
        .post("/v1/channel_groups", &json!({"label": "Brand B"}))
        .await;
    assert_eq!((c, v["channel_group"].as_u64()), (201, Some(2)), "{v}");
    // Three groups with group 0: the limit.
    let (c, v, _) = d
        .post("/v1/channel_groups", &json!({"label": "Brand C"}))
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (409, Some("channel_group_limit")),
        "{v}"
    );
    assert!(v["error"]["details"]["pricing_url"].is_string(), "{v}");
    let (c, v) = send(&d, Method::DELETE, "/v1/channel_groups/2", None).await;
    assert_eq!((c, v["deleted"].as_bool()), (200, Some(true)), "{v}");
    // Number 2 is gone for good: the next group is 3.
    let (c, v, _) = d
        .post("/v1/channel_groups", &json!({"label": "Brand C"}))
        .await;
    assert_eq!((c, v["channel_group"].as_u64()), (201, Some(3)), "{v}");
    let (c, v, _) = d.get("/v1/channel_groups/2").await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("invalid_channel_group")),
        "{v}"
    );
    let (c, v) = send(
        &d,
        Method::PATCH,
        "/v1/channel_groups/1",
        Some(json!({"label": "Renamed"})),
    )
    .await;
    assert_eq!((c, v["label"].as_str()), (200, Some("Renamed")), "{v}");
    let long = "x".repeat(41);
    let (c, v) = send(
        &d,
        Method::PATCH,
        "/v1/channel_groups/1",
        Some(json!({"label": long})),
    )
    .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("invalid_label")),
        "{v}"
    );
    let (c, v, _) = d.get("/v1/channel_groups/one").await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("invalid_channel_group")),
        "{v}"
    );
    // GET /v1/account reads the same groups, primary first.
    let (_, v, _) = d.get("/v1/account").await;
    assert_eq!(numbers(&v["channel_groups"]), [0, 1, 3], "{v}");
    assert_eq!(v["channel_groups"][1]["label"], "Renamed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_free_plan_may_not_create_groups_or_connect_accounts() {
    let mut d = Daemon::start(BIN, &[]);
    d.cli_offline(&["accounts", "set", "--account", "default", "--plan", "free"]);
    let (c, v, _) = d
        .post("/v1/channel_groups", &json!({"label": "Brand"}))
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (402, Some("plan_required")),
        "{v}"
    );
    assert!(
        v["error"]["details"]["pricing_url"]
            .as_str()
            .unwrap()
            .ends_with("/pricing")
    );
    let (c, page) = d.connect_platform("youtube", 0, "reelsmith").await;
    assert_eq!(c, 402, "{page}");
    assert!(page.contains("paid plan"), "{page}");
    let (_, v, _) = d.get("/v1/accounts").await;
    assert_eq!(v["data"], json!([]), "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn connecting_on_the_setup_page_in_chromium_lists_the_account() {
    let d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post("/v1/channel_groups", &json!({"label": "Brand A"}))
        .await;
    assert_eq!(c, 201, "{v}");
    let (_, v, _) = d.get("/v1/channel_groups").await;
    let setup = v["setup_url"].as_str().unwrap().to_string();
    let browser = Browser::start().await;
    let text = browser.open(&setup).await;
    assert!(
        text.contains("No social accounts are connected yet"),
        "{text}"
    );
    browser
        .find("#platform")
        .await
        .select_by_value("linkedin")
        .await
        .unwrap();
    browser
        .find("#channel_group")
        .await
        .select_by_value("1")
        .await
        .unwrap();
    browser
        .find("#username")
        .await
        .send_keys("@reelsmith_studio")
        .await
        .unwrap();
    browser
        .find("#display_name")
        .await
        .send_keys("Reelsmith Studio")
        .await
        .unwrap();
    browser.find("#connect").await.click().await.unwrap();
    let status = browser.text("[role=status]").await;
    assert!(
        status.contains("Connected LinkedIn as @reelsmith_studio in channel group 1"),
        "{status}"
    );
    let listed = browser.text("#connected").await;
    assert!(
        listed.contains("LinkedIn · @reelsmith_studio · group 1 (Brand A)"),
        "{listed}"
    );
    browser.screenshot("publish-setup-connected").await;
    browser.close().await;

    let (c, v, _) = d.get("/v1/accounts").await;
    assert_eq!(c, 200, "{v}");
    let a = &v["data"][0];
    assert_eq!(
        (
            a["platform"].as_str(),
            a["username"].as_str(),
            a["display_name"].as_str()
        ),
        (
            Some("linkedin"),
            Some("reelsmith_studio"),
            Some("Reelsmith Studio")
        ),
        "{v}"
    );
    assert_eq!(
        (
            a["channel_group"].as_u64(),
            a["channel_group_label"].as_str()
        ),
        (Some(1), Some("Brand A"))
    );
    assert_eq!(v["channel_group"], Value::Null);
    for (q, n) in [("0", 0), ("1", 1), ("all", 1)] {
        let (c, v, _) = d.get(&format!("/v1/accounts?channel_group={q}")).await;
        assert_eq!(
            (c, v["data"].as_array().unwrap().len()),
            (200, n),
            "{q}: {v}"
        );
    }
    let (c, v, _) = d.get("/v1/accounts?channel_group=9").await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("invalid_channel_group")),
        "{v}"
    );
    let (c, v, _) = d.get("/v1/accounts?channel_group=-1").await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (400, Some("invalid_channel_group")),
        "{v}"
    );
    let (_, v, _) = d.get("/v1/account").await;
    assert_eq!(v["connected_platforms"], json!(["linkedin"]), "{v}");
    assert_eq!(v["channel_groups"][1]["connected_count"], 1, "{v}");
    // A post in the group, then the group deleted: its accounts are disconnected, the post and
    // the feed stay online.
    let (c, v, _) = d
        .post(
            "/v1/publish",
            &json!({"text": "Hello from Brand A", "channel_group": 1}),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["request_ids"][0].as_str().unwrap().to_string();
    let done = d
        .wait_for(&id, std::time::Duration::from_secs(30), |s| {
            s["status"] != "processing"
        })
        .await;
    let post_url = done["result"]["posts"][0]["post_url"]
        .as_str()
        .unwrap()
        .to_string();
    let r = d
        .http
        .delete(d.url("/v1/channel_groups/1"))
        .bearer_auth(&d.key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (_, v, _) = d.get("/v1/accounts").await;
    assert_eq!(v["data"], json!([]), "{v}");
    let page = d.http.get(&post_url).send().await.unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.text().await.unwrap().contains("Hello from Brand A"));
    let feed = format!("{}/atom.xml", post_url.rsplit_once("/posts/").unwrap().0);
    assert_eq!(
        d.http.get(&feed).send().await.unwrap().status().as_u16(),
        200
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn platform_settings_are_stored_per_group_and_validated() {
    let d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post(
            "/v1/platform_settings",
            &json!({"platform": "youtube", "settings": {"hashtags": ["shorts", "#howto"], "visibility": "unlisted"}}),
        )
        .await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["settings"]["youtube"]["visibility"], "unlisted", "{v}");
    let (_, v, _) = d.get("/v1/platform_settings?channel_group=0").await;
    assert_eq!(
        v["settings"]["youtube"]["hashtags"],
        json!(["shorts", "#howto"]),
        "{v}"
    );
    for (body, code) in [
        (
            json!({"platform": "myspace", "settings": {}}),
            "invalid_platforms",
        ),
        (
            json!({"platform": "x", "settings": {"colour": "red"}}),
            "invalid_settings",
        ),
        (
            json!({"platform": "x", "settings": {"visibility": "secret"}}),
            "invalid_settings",
        ),
        (
            json!({"platform": "x", "settings": {}, "channel_group": -2}),
            "invalid_channel_group",
        ),
        (json!({"platform": "x"}), "missing_field"),
    ] {
        let (c, v, _) = d.post("/v1/platform_settings", &body).await;
        assert_eq!(
            (c, v["error"]["code"].as_str()),
            (400, Some(code)),
            "{body}: {v}"
        );
    }
    let (c, v, _) = d
        .post(
            "/v1/platform_settings",
            &json!({"platform": "x", "settings": {}, "channel_group": 4}),
        )
        .await;
    assert_eq!(
        (c, v["error"]["code"].as_str()),
        (404, Some("invalid_channel_group")),
        "{v}"
    );
}
