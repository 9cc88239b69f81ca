//! The API reference page: the OpenAPI document rendered as one HTML page on the server. Every
//! text from the document is escaped; the page has no scripts and loads nothing from elsewhere.

use serde_json::Value;

use crate::pages::esc;

const STYLE: &str = "body{font:15px system-ui;margin:2rem auto;max-width:920px;padding:0 1rem}\
    h2{margin-top:2.5rem;border-bottom:1px solid #ccc}h3{margin:1.5rem 0 .3rem}\
    code,pre{font:13px ui-monospace,monospace}pre{background:#f4f4f4;padding:.6rem;overflow:auto}\
    .m{display:inline-block;min-width:4rem;font-weight:bold;text-transform:uppercase}\
    .auth{color:#a40}table{border-collapse:collapse}td{padding:.15rem .6rem .15rem 0;vertical-align:top}";

/// The whole page for `doc`.
pub fn render(doc: &Value) -> String {
    let title = doc["info"]["title"].as_str().unwrap_or("API");
    let mut html = format!(
        "<!doctype html><html><head><meta charset=utf-8><meta name=viewport content=\"width=device-width\">\
         <title>{t} API reference</title><style>{STYLE}</style></head><body><h1>{t} API reference</h1>\
         <p>{d}</p><p>Version {v} · machine-readable: <a href=\"/v1/openapi.json\"><code>/v1/openapi.json</code></a> (OpenAPI {o}).</p>",
        t = esc(title),
        d = esc(doc["info"]["description"].as_str().unwrap_or("")),
        v = esc(doc["info"]["version"].as_str().unwrap_or("")),
        o = esc(doc["openapi"].as_str().unwrap_or("")),
    );
    html.push_str("<h2>Operations</h2>");
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            operation(&mut html, method, path, op);
        }
    }
    html.push_str("<h2>Schemas</h2>");
    for (name, schema) in doc["components"]["schemas"]
        .as_object()
        .into_iter()
        .flatten()
    {
        html.push_str(&format!(
            "<h3 id=\"schema-{n}\">{n}</h3>{p}",
            n = esc(name),
            p = pre(schema)
        ));
    }
    html.push_str("</body></html>");
    html
}

fn pre(v: &Value) -> String {
    format!(
        "<pre>{}</pre>",
        esc(&serde_json::to_string_pretty(v).unwrap_or_default())
    )
}

fn operation(html: &mut String, method: &str, path: &str, op: &Value) {
    let auth = if op.get("security").is_some() {
        " <span class=auth>needs the API key</span>"
    } else {
        ""
    };
    html.push_str(&format!(
        "<h3><span class=m>{m}</span> <code>{p}</code>{auth}</h3><p>{s}</p>",
        m = esc(method),
        p = esc(path),
        s = esc(op["summary"]
            .as_str()
            .or(op["description"].as_str())
            .unwrap_or("")),
    ));
    if let Some(params) = op["parameters"].as_array() {
        html.push_str("<table>");
        for p in params {
            html.push_str(&format!(
                "<tr><td><code>{n}</code></td><td>{i}{r}</td><td>{d}</td></tr>",
                n = esc(p["name"].as_str().unwrap_or("")),
                i = esc(p["in"].as_str().unwrap_or("")),
                r = if p["required"] == true {
                    ", required"
                } else {
                    ""
                },
                d = esc(p["description"].as_str().unwrap_or("")),
            ));
        }
        html.push_str("</table>");
    }
    if let Some(content) = op["requestBody"]["content"].as_object() {
        for (kind, media) in content {
            html.push_str(&format!(
                "<p>Request body (<code>{}</code>):</p>",
                esc(kind)
            ));
            html.push_str(&pre(&media["schema"]));
        }
    }
    html.push_str("<table>");
    for (status, r) in op["responses"].as_object().into_iter().flatten() {
        html.push_str(&format!(
            "<tr><td><b>{s}</b></td><td>{d}</td></tr>",
            s = esc(status),
            d = esc(r["description"].as_str().unwrap_or("")),
        ));
    }
    html.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_lists_every_operation_and_escapes_the_document() {
        let doc = serde_json::json!({
            "openapi": "3.1.0",
            "info": { "title": "T<script>", "version": "1" },
            "paths": { "/a": { "get": { "summary": "<b>x</b>", "responses": { "200": { "description": "ok" } } } } },
            "components": { "schemas": { "S": { "type": "object" } } },
        });
        let html = render(&doc);
        assert!(html.contains("<code>/a</code>"));
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
        assert!(!html.contains("<script>"));
        assert!(!html.contains("src="), "no external resources");
    }
}
