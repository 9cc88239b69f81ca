//! Platform settings (`GET`/`POST /v1/platform_settings`): per account, channel group and
//! platform, what the publisher applies to every post there — hashtags added to the text, the
//! visibility (only `public` posts are listed in the group's feeds; `unlisted` posts keep their
//! page; a `private` post's page answers 404 to the public) and a first comment. Stored in their own table, validated field by
//! field (`invalid_settings`, `invalid_platforms`, `invalid_channel_group`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use utoipa::ToSchema;

use crate::publish::groups;
use crate::publish::platform::Platform;
use foundation::error::{Code, Error, Result};
use foundation::fields::Body;
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

impl Body for SettingsRequest {
    type Valid = SettingsRequest;
    const CODES: &'static [(&'static str, Code)] = &[
        ("platform", Code::InvalidPlatforms),
        ("settings", Code::InvalidSettings),
        ("channel_group", Code::InvalidChannelGroup),
    ];
    const DEEP_PARAMS: &'static [&'static str] = &["settings"];

    /// The hashtags' count and spelling and the first comment's length, which the schema
    /// carries no code for.
    fn validate(self) -> Result<SettingsRequest> {
        let s = &self.settings;
        if s.hashtags.len() > MAX_HASHTAGS {
            return Err(bad(
                "hashtags",
                format!("`settings.hashtags` must be a list of at most {MAX_HASHTAGS} hashtags."),
            ));
        }
        if !s.hashtags.iter().all(|Hashtag(t)| valid_hashtag(t)) {
            return Err(bad(
                "hashtags",
                "Hashtags are letters, digits and `_` (1 to 50), with or without `#`.",
            ));
        }
        if s.first_comment
            .as_ref()
            .is_some_and(|c| c.chars().count() > FIRST_COMMENT_MAX_CHARS)
        {
            return Err(bad(
                "first_comment",
                format!("`first_comment` is longer than {FIRST_COMMENT_MAX_CHARS} characters."),
            ));
        }
        Ok(self)
    }
}

fn bad(param: &str, message: impl Into<String>) -> Error {
    Error::new(Code::InvalidSettings, message).param(format!("settings.{param}"))
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
    use foundation::fields::body::read;
    use serde_json::{Value, json};

    fn code(v: Value) -> (Code, Option<String>) {
        let e = read::<SettingsRequest>(&v).unwrap_err();
        (e.code, e.param)
    }

    #[test]
    fn settings_are_read_and_each_bad_key_names_itself() {
        let ok = read::<SettingsRequest>(&json!({"platform": "youtube",
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
        for (settings, param) in [
            (json!({"hashtags": [5]}), "settings.hashtags"),
            (json!({"hashtags": vec!["a"; 31]}), "settings.hashtags"),
            (json!({"visibility": "secret"}), "settings.visibility"),
            (json!({"first_comment": 5}), "settings.first_comment"),
            (
                json!({"first_comment": "c".repeat(501)}),
                "settings.first_comment",
            ),
        ] {
            assert_eq!(
                code(json!({"platform": "x", "settings": settings})),
                (Code::InvalidSettings, Some(param.into()))
            );
        }
    }
}
