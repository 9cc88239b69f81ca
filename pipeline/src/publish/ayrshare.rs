//! The connector to an Ayrshare-style social publishing API (`[publish] publisher =
//! "ayrshare"`): one profile per channel group (`POST /profiles` → `profileKey`, sent as the
//! `Profile-Key` header; group 0 posts as the primary profile, without one), `POST /post` with
//! `post`, `platforms`, `mediaUrls` and `scheduleDate`, its per-platform answers (`postIds[]`
//! for successes, `errors[]` for refusals) mapped to `posts[]`, `POST /analytics/social`, and
//! `GET /user` (the profile's `activeSocialAccounts` and `displayNames`): a platform is
//! connected on the setup page only once it is linked at the aggregator, and its handle and
//! display name are the aggregator's.
//! Every call goes through the SSRF guard (`foundation::connector`).
//!
//! Profile errors: the aggregator answers `{status: "error", code, message}`; code 146 (title
//! already used) is `upstream_username_taken` and code 137 (profile limit of the plan) is
//! `profile_limit_reached`, as the aggregator documents them; any other failure is 502
//! `connect_failed`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::publish::platform::Platform;
use crate::publish::publisher::{Publisher, UpstreamAccount};
use crate::publish::record::{PostContent, PublishRecord};
use foundation::config::Settings;
use foundation::connector::{Http, join};
use foundation::error::{Code, Error, Result};
use foundation::fetch::Fetcher;
use foundation::fields::Choice;
use foundation::model::PostResult;
use foundation::time::iso;

/// The aggregator's code for a profile title already in use.
pub(crate) const TITLE_TAKEN: i64 = 146;
/// The aggregator's code for a plan without room for another profile.
pub(crate) const PROFILE_LIMIT: i64 = 137;

pub struct Ayrshare {
    http: Http,
    base: String,
    api_key: String,
}

/// The aggregator's name of a platform.
pub(crate) fn upstream_name(p: Platform) -> &'static str {
    match p {
        Platform::X => "twitter",
        Platform::GoogleBusiness => "gmb",
        other => other.as_str(),
    }
}

fn from_upstream(name: &str) -> Option<Platform> {
    match name {
        "twitter" => Some(Platform::X),
        "gmb" => Some(Platform::GoogleBusiness),
        other => Platform::parse(other),
    }
}

impl Ayrshare {
    pub fn new(
        settings: &Settings,
        fetcher: &Fetcher,
        runtime: tokio::runtime::Handle,
    ) -> Ayrshare {
        let publish = settings.section::<crate::publish::config::PublishConfig>();
        Ayrshare {
            http: Http {
                fetcher: fetcher.clone(),
                runtime,
                timeout: Duration::from_secs(publish.timeout_secs),
                max_bytes: 4 * 1024 * 1024,
            },
            base: publish.base_url.clone(),
            api_key: publish.api_key.clone(),
        }
    }

    fn headers(&self, profile_key: Option<&str>) -> Vec<(&'static str, String)> {
        let mut h = vec![("authorization", format!("Bearer {}", self.api_key))];
        if let Some(k) = profile_key {
            h.push(("profile-key", k.to_string()));
        }
        h
    }

    /// The text of a post: title, then the text or description.
    fn text(record: &PublishRecord) -> String {
        let body = match &record.content {
            PostContent::Text { text } => text.clone(),
            PostContent::Article { html, .. } => ammonia::Builder::empty()
                .clean(html)
                .to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            PostContent::Video { .. } => record.description.clone(),
        };
        let mut parts = vec![record.title.clone()];
        if !body.is_empty() && body != record.title {
            parts.push(body);
        }
        parts.join("\n\n")
    }

    fn body(record: &PublishRecord) -> Value {
        let mut media: Vec<String> = record.video_url().map(str::to_string).into_iter().collect();
        media.extend(record.images());
        let mut body = json!({
            "post": Self::text(record),
            "platforms": record.platforms.iter().map(|p| upstream_name(*p)).collect::<Vec<_>>(),
        });
        if !media.is_empty() {
            body["mediaUrls"] = json!(media);
        }
        if record.video_url().is_some() {
            body["isVideo"] = json!(true);
        }
        if let Some(at) = record.scheduled_at {
            body["scheduleDate"] = json!(iso(at));
        }
        body
    }
}

/// Maps `/post`'s answer to one result per platform of `asked`.
pub fn results(asked: &[Platform], reply: &Value, scheduled: bool) -> Vec<PostResult> {
    let mut out: BTreeMap<Platform, PostResult> = BTreeMap::new();
    let posts = reply
        .get("postIds")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for p in posts {
        let Some(platform) = p["platform"].as_str().and_then(from_upstream) else {
            continue;
        };
        let ok = p["status"].as_str().is_none_or(|s| s == "success");
        out.insert(
            platform,
            PostResult {
                platform: platform.as_str().into(),
                success: ok,
                post_url: p["postUrl"].as_str().map(str::to_string),
                post_id: p["id"].as_str().map(str::to_string),
                error: (!ok).then(|| "The platform refused the post.".to_string()),
            },
        );
    }
    let errors = reply
        .get("errors")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for e in errors {
        let Some(platform) = e["platform"].as_str().and_then(from_upstream) else {
            continue;
        };
        let message = e["message"]
            .as_str()
            .unwrap_or("The platform refused the post.");
        out.insert(
            platform,
            PostResult {
                platform: platform.as_str().into(),
                success: false,
                post_url: None,
                post_id: None,
                error: Some(message.chars().take(300).collect()),
            },
        );
    }
    asked
        .iter()
        .map(|p| {
            out.remove(p).unwrap_or_else(|| PostResult {
                platform: p.as_str().into(),
                success: scheduled,
                post_url: None,
                post_id: reply["id"]
                    .as_str()
                    .filter(|_| scheduled)
                    .map(str::to_string),
                error: (!scheduled)
                    .then(|| "The publisher gave no answer for this platform.".into()),
            })
        })
        .collect()
}

/// The linked account of `platform` in a `/user` answer, if the platform is active there.
pub fn linked(user: &Value, platform: Platform) -> Option<UpstreamAccount> {
    let name = upstream_name(platform);
    let active = user["activeSocialAccounts"]
        .as_array()?
        .iter()
        .any(|p| p.as_str() == Some(name));
    if !active {
        return None;
    }
    let names = user["displayNames"].as_array().cloned().unwrap_or_default();
    let entry = names.iter().find(|d| d["platform"].as_str() == Some(name));
    let field = |k: &str| {
        entry
            .and_then(|e| e[k].as_str())
            .unwrap_or("")
            .chars()
            .take(80)
            .collect::<String>()
    };
    Some(UpstreamAccount {
        username: field("username").trim_start_matches('@').to_string(),
        display_name: field("displayName"),
    })
}

fn failed_all(asked: &[Platform], why: &str) -> Vec<PostResult> {
    asked
        .iter()
        .map(|p| PostResult {
            platform: p.as_str().into(),
            success: false,
            post_url: None,
            post_id: None,
            error: Some(why.into()),
        })
        .collect()
}

impl Publisher for Ayrshare {
    fn name(&self) -> &'static str {
        "ayrshare"
    }

    fn provision(&self, account: &str, label: &str) -> Result<Option<String>> {
        let failed = |why: String| {
            Error::new(
                Code::ConnectFailed,
                "The publishing profile could not be made.",
            )
            .because(why)
        };
        let reply = self
            .http
            .post_json(
                &join(&self.base, "profiles"),
                &self.headers(None),
                &json!({"title": format!("{account} · {label}")}),
            )
            .map_err(failed)?;
        let v = reply.json().map_err(failed)?;
        if reply.status == 200
            && let Some(key) = v["profileKey"].as_str()
        {
            return Ok(Some(key.to_string()));
        }
        match v["code"].as_i64() {
            Some(TITLE_TAKEN) => Err(Error::new(
                Code::UpstreamUsernameTaken,
                "The publisher already has a profile with this name; choose another label.",
            )
            .param("label")),
            Some(PROFILE_LIMIT) => Err(Error::new(
                Code::ProfileLimitReached,
                "The publisher has no room for another profile.",
            )),
            _ => Err(failed(format!("{}: {}", reply.status, reply.snippet()))),
        }
    }

    fn remove_profile(&self, profile_key: &str) {
        let r = self.http.send(
            reqwest::Method::DELETE,
            &join(&self.base, "profiles"),
            &self.headers(Some(profile_key)),
            None,
        );
        if let Err(e) = r {
            tracing::warn!(error = %e, "removing a publishing profile failed");
        }
    }

    fn schedules_upstream(&self) -> bool {
        true
    }

    fn post(&self, record: &PublishRecord, profile_key: Option<&str>) -> Vec<PostResult> {
        let url = join(&self.base, "post");
        let reply = match self
            .http
            .post_json(&url, &self.headers(profile_key), &Self::body(record))
        {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, request = %record.request_id, "publisher unreachable");
                return failed_all(&record.platforms, "The publisher could not be reached.");
            }
        };
        match reply.json() {
            Ok(v) if v.is_object() => {
                let scheduled = v["status"].as_str() == Some("scheduled");
                results(&record.platforms, &v, scheduled)
            }
            _ => {
                tracing::warn!(status = reply.status, body = %reply.snippet(), "publisher answered no JSON");
                failed_all(
                    &record.platforms,
                    "The publisher's answer could not be read.",
                )
            }
        }
    }

    fn linked_account(
        &self,
        profile_key: Option<&str>,
        platform: Platform,
    ) -> Result<Option<UpstreamAccount>> {
        let failed = |why: String| {
            Error::new(
                Code::ConnectFailed,
                "The publishing service could not be asked about this account.",
            )
            .because(why)
        };
        let reply = self
            .http
            .send(
                reqwest::Method::GET,
                &join(&self.base, "user"),
                &self.headers(profile_key),
                None,
            )
            .map_err(failed)?;
        let v = reply
            .json()
            .ok()
            .filter(|_| reply.status == 200)
            .ok_or_else(|| failed(format!("{}: {}", reply.status, reply.snippet())))?;
        linked(&v, platform).map(Some).ok_or_else(|| {
            Error::new(
                Code::ConnectFailed,
                format!(
                    "{} is not linked to this channel group at the publishing service; link it \
                     there first.",
                    platform.display()
                ),
            )
            .param("platform")
        })
    }

    fn analytics(
        &self,
        profile_key: Option<&str>,
        platforms: &[Platform],
    ) -> Result<Option<BTreeMap<Platform, Value>>> {
        if platforms.is_empty() {
            return Ok(Some(BTreeMap::new()));
        }
        let body =
            json!({"platforms": platforms.iter().map(|p| upstream_name(*p)).collect::<Vec<_>>()});
        let reply = self
            .http
            .post_json(
                &join(&self.base, "analytics/social"),
                &self.headers(profile_key),
                &body,
            )
            .map_err(|e| {
                Error::new(
                    Code::ReadFailed,
                    "The publisher's analytics could not be read.",
                )
                .because(e)
            })?;
        let v = reply
            .json()
            .ok()
            .filter(|_| reply.status == 200)
            .ok_or_else(|| {
                Error::new(
                    Code::ReadFailed,
                    "The publisher's analytics could not be read.",
                )
                .because(format!("{}: {}", reply.status, reply.snippet()))
            })?;
        let mut out = BTreeMap::new();
        for p in platforms {
            if let Some(a) = v.get(upstream_name(*p)) {
                out.insert(*p, a.get("analytics").cloned().unwrap_or_else(|| a.clone()));
            }
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linked_account_is_read_from_the_profile_and_an_unlinked_one_is_none() {
        let user = json!({
            "activeSocialAccounts": ["twitter", "gmb"],
            "displayNames": [{"platform": "twitter", "username": "@studio", "displayName": "Studio"}],
        });
        assert_eq!(
            linked(&user, Platform::X),
            Some(UpstreamAccount {
                username: "studio".into(),
                display_name: "Studio".into()
            })
        );
        assert_eq!(
            linked(&user, Platform::GoogleBusiness).unwrap().username,
            ""
        );
        assert_eq!(linked(&user, Platform::Facebook), None);
    }

    #[test]
    fn a_partial_failure_maps_each_platform() {
        let reply = json!({
            "status": "error",
            "id": "abc",
            "postIds": [{"status": "success", "id": "tw1", "postUrl": "https://twitter.com/x/status/1", "platform": "twitter"}],
            "errors": [{"action": "post", "status": "error", "code": 156, "message": "Token expired", "platform": "instagram"}],
        });
        let r = results(
            &[Platform::X, Platform::Instagram, Platform::Linkedin],
            &reply,
            false,
        );
        assert!(r[0].success && r[0].post_url.as_deref() == Some("https://twitter.com/x/status/1"));
        assert_eq!(r[0].platform, "x");
        assert!(!r[1].success && r[1].error.as_deref() == Some("Token expired"));
        assert!(!r[2].success);
    }
}
