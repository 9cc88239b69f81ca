//! `/v1/openapi.json`, black-box: served without a key, accepted by a real OpenAPI 3.1
//! validator (`openapi-spec-validator`, pinned in requirements-dev.txt), in step with the
//! router both ways, and shown as the reference page under `{app_url}/docs`.

use reelsmith_tests::{Daemon, openapi_document, venv_tool};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");

#[tokio::test]
async fn the_document_is_public_and_a_valid_openapi_3_1_document() {
    let d = Daemon::start(BIN, &[]);
    let doc = openapi_document(&d).await;
    assert_eq!(doc["openapi"], "3.1.0");
    let file = d.dir.path().join("openapi.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let out = std::process::Command::new(venv_tool("openapi-spec-validator"))
        .arg(&file)
        .output()
        .expect("the validator runs");
    assert!(
        out.status.success(),
        "openapi-spec-validator rejected the document:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A concrete URL for a templated path: every `{param}` becomes `x`.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|seg| if seg.starts_with('{') { "x" } else { seg })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn every_documented_operation_is_served_and_unknown_ones_are_not() {
    let d = Daemon::start(BIN, &[]);
    let doc = openapi_document(&d).await;
    let paths = doc["paths"].as_object().expect("paths");
    assert!(paths.len() >= 20, "{} paths", paths.len());
    for (path, item) in paths {
        for method in item.as_object().unwrap().keys() {
            if method == "get" && path.ends_with("/events") || path.starts_with("/media/") {
                // A stream that would not end; a file server, where an unknown name answers
                // like an unknown route.
                continue;
            }
            let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let r = d
                .http
                .request(m, d.url(&concrete(path)))
                .bearer_auth(&d.key)
                .header("content-type", "application/json")
                .body("{}")
                .send()
                .await
                .unwrap();
            let (_, v, _) = reelsmith_tests::split(r).await;
            let code = v["error"]["code"].as_str().unwrap_or("");
            // A served route may answer `route_not_found` for an unknown id (the inbox does);
            // only the router's own answer says the route does not exist.
            let unrouted =
                code == "route_not_found" && v["error"]["message"] == "No route matches this path.";
            assert!(
                !unrouted && code != "method_not_allowed",
                "{method} {path} is documented but not served: {v}"
            );
        }
    }
    let (c, v, _) = d.get("/v1/not_a_route").await;
    assert_eq!(
        (c, &v["error"]["code"]),
        (404, &Value::from("route_not_found"))
    );
}

#[tokio::test]
async fn the_reference_page_is_rendered_from_the_document() {
    let d = Daemon::start(BIN, &[]);
    let r = d.http.get(d.url("/app/docs")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = r.text().await.unwrap();
    for path in [
        "/v1/typography",
        "/v1/create_video",
        "/healthz",
        "ErrorEnvelope",
    ] {
        assert!(html.contains(path), "the page misses {path}");
    }
    assert!(!html.contains("<script"), "no scripts");
}
