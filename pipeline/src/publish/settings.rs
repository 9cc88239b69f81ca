//! Platform settings (`GET`/`POST /v1/platform_settings`): per account, channel group and
//! platform, what the publisher applies to every post there — hashtags added to the text, the
//! visibility (only `public` posts are listed in the group's feeds; `unlisted` posts keep their
//! page; a `private` post's page answers 404 to the public) and a first comment. Stored in their own table, validated field by
//! field (`invalid_settings`, `invalid_platforms`, `invalid_channel_group`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::publish::connections::invalid_group;
use crate::publish::groups;
use crate::publish::platform::Platform;
use foundation::error::{Code, Error, Result};
use foundation::fields::Fields;
use foundation::store::{Store, StoreResult, Table};

/// `{account}/{group:010}/{platform}` → [`PlatformSettings`].
pub(crate) const PLATFORM_SETTINGS: Table = Table::new("platform_settings");

pub(crate) const MAX_HASHTAGS: usize = 30;
pub(crate) const FIRST_COMMENT_MAX_CHARS: usize = 500;

foundation::document::wire_enum! {
    /// Who sees a post, from the most open to the most restricted (a post going to several
    /// platforms takes the most restricted of theirs).
    #[derive(Default, PartialOrd, Ord)]
    pub enum Visibility: Code::InvalidSettings {
        #[default]
        Public = "public",
        Unlisted = "unlisted",
        Private = "private",
    }
}

/// The settings of one platform in one group.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlatformSettings {
    /// Added to every post's text, each with a leading `#` (at most 30; letters, digits and `_`,
    /// up to 50 each).
    /// `null` reads as absent.
    #[serde(default)]
    #[schema(max_items = 30, inline, nullable)]
    pub hashtags: Vec<Hashtag>,
    /// Default `public`; only public posts are listed in the group's feeds, and a private
    /// post's page answers 404 to the public (`null` reads as absent).
    #[serde(default)]
    #[schema(nullable)]
    pub visibility: Visibility,
    /// Posted as the first comment where the platform has comments (at most 500 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 500, nullable)]
    pub first_comment: Option<String>,
}

/// One hashtag, with or without its `#`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(value_type = String, pattern = "^#?[A-Za-z0-9_]{1,50}$")]
pub struct Hashtag(pub String);

/// The body of `POST /v1/platform_settings`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SettingsRequest {
    pub platform: Platform,
    /// Replaces the platform's settings in the group.
    pub settings: PlatformSettings,
    /// Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0)]
    pub channel_group: Option<u32>,
}

/// `{object: platform_settings, channel_group, settings {platform: {...}}}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SettingsReply {
    /// Always `platform_settings`.
    #[schema(example = "platform_settings")]
    pub object: &'static str,
    pub channel_group: u32,
    /// Every platform with stored settings in the group, by wire name.
    pub settings: BTreeMap<String, PlatformSettings>,
}

impl SettingsRequest {
    /// Reads a JSON body field by field.
    pub fn read(body: &Value) -> Result<Self> {
        let f = Fields::of(body)?;
        if !f.has("platform") {
            return Err(Error::missing("platform"));
        }
        let platform = f.choice::<Platform>("platform")?.expect("present");
        let Some(raw) = f.object("settings", Code::InvalidSettings)? else {
            return Err(Error::missing("settings"));
        };
        let settings = read_settings(raw)?;
        let channel_group = match f.i64("channel_group", Code::InvalidChannelGroup)? {
            None => None,
            Some(n) => Some(u32::try_from(n).map_err(|_| invalid_group())?),
        };
        Ok(SettingsRequest {
            platform,
            settings,
            channel_group,
        })
    }
}

fn bad(param: &str, message: impl Into<String>) -> Error {
    Error::new(Code::InvalidSettings, message).param(format!("settings.{param}"))
}

/// The settings object, each key checked.
fn read_settings(raw: &Map<String, Value>) -> Result<PlatformSettings> {
    let body = Value::Object(raw.clone());
    let f = Fields::of(&body)?;
    if let Some(k) = f
        .names()
        .find(|k| !["hashtags", "visibility", "first_comment"].contains(k))
    {
        return Err(bad(k, format!("`settings.{k}` is not a known setting.")));
    }
    let mut hashtags = Vec::new();
    match f.value("hashtags") {
        None => {}
        Some(Value::Array(items)) if items.len() <= MAX_HASHTAGS => {
            for item in items {
                let tag = item.as_str().filter(|t| valid_hashtag(t)).ok_or_else(|| {
                    bad(
                        "hashtags",
                        "Hashtags are letters, digits and `_` (1 to 50), with or without `#`.",
                    )
                })?;
                hashtags.push(Hashtag(tag.to_string()));
            }
        }
        Some(_) => {
            return Err(bad(
                "hashtags",
                format!("`settings.hashtags` must be a list of at most {MAX_HASHTAGS} hashtags."),
            ));
        }
    }
    let visibility = f
        .choice::<Visibility>("visibility")
        .map_err(|_| {
            bad(
                "visibility",
                "`visibility` must be public, unlisted or private.",
            )
        })?
        .unwrap_or_default();
    let first_comment = f
        .str_or("first_comment", Code::InvalidSettings)
        .map_err(|_| bad("first_comment", "`first_comment` must be a string."))?
        .map(str::to_string);
    if first_comment
        .as_ref()
        .is_some_and(|c| c.chars().count() > FIRST_COMMENT_MAX_CHARS)
    {
        return Err(bad(
            "first_comment",
            format!("`first_comment` is longer than {FIRST_COMMENT_MAX_CHARS} characters."),
        ));
    }
    Ok(PlatformSettings {
        hashtags,
        visibility,
        first_comment,
    })
}

fn valid_hashtag(t: &str) -> bool {
    let body = t.strip_prefix('#').unwrap_or(t);
    (1..=50).contains(&body.len()) && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn key(account: &str, group: u32, platform: Platform) -> String {
    format!("{account}/{group:010}/{}", platform.as_str())
}

/// The settings of one platform in one group (defaults when none were stored).
pub(crate) fn get_one(
    store: &Store,
    account: &str,
    group: u32,
    platform: Platform,
) -> StoreResult<PlatformSettings> {
    Ok(store
        .record(PLATFORM_SETTINGS, &key(account, group, platform))?
        .unwrap_or_default())
}

/// `GET /v1/platform_settings`: every platform with stored settings in the group.
pub fn get(store: &Store, account: &str, group: u32) -> Result<SettingsReply> {
    groups::existing(store, account, group)?;
    let mut settings = BTreeMap::new();
    for p in Platform::ALL {
        if let Some(s) = store.record(PLATFORM_SETTINGS, &key(account, group, p))? {
            settings.insert(p.as_str().to_string(), s);
        }
    }
    Ok(SettingsReply {
        object: "platform_settings",
        channel_group: group,
        settings,
    })
}

/// `POST /v1/platform_settings`: stores the platform's settings in the group and answers with
/// the group's settings.
pub fn set(store: &Store, account: &str, req: &SettingsRequest) -> Result<SettingsReply> {
    let group = groups::existing(store, account, req.channel_group.unwrap_or(0))?;
    store.write(|tx| {
        tx.put_record(
            PLATFORM_SETTINGS,
            &key(account, group, req.platform),
            &req.settings,
        )
    })?;
    get(store, account, group)
}

/// The text hashtags add to a post (`#a #b`), empty when there are none.
pub(crate) fn hashtag_line(s: &PlatformSettings) -> String {
    s.hashtags
        .iter()
        .map(|h| format!("#{}", h.0.trim_start_matches('#')))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(v: Value) -> (Code, Option<String>) {
        let e = SettingsRequest::read(&v).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn settings_are_read_and_each_bad_key_names_itself() {
        let ok = SettingsRequest::read(&json!({"platform": "youtube",
            "settings": {"hashtags": ["#a", "b_2"], "visibility": "unlisted"}}))
        .unwrap();
        assert_eq!(ok.settings.visibility, Visibility::Unlisted);
        assert_eq!(hashtag_line(&ok.settings), "#a #b_2");
        assert_eq!(
            code(json!({"platform": "myspace", "settings": {}})).0,
            Code::InvalidPlatforms
        );
        assert_eq!(
            code(json!({"platform": "x", "settings": {"colour": 1}})),
            (Code::InvalidSettings, Some("settings.colour".into()))
        );
        assert_eq!(
            code(json!({"platform": "x", "settings": {"hashtags": ["no space"]}})),
            (Code::InvalidSettings, Some("settings.hashtags".into()))
        );
        assert_eq!(
            code(json!({"platform": "x", "settings": {}, "channel_group": -1})).0,
            Code::InvalidChannelGroup
        );
        assert_eq!(code(json!({"platform": "x"})).0, Code::MissingField);
    }
}
