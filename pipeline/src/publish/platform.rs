//! The platforms a post can go to (spec: `publish.platforms`), with their wire names.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use foundation::error::Code;
use foundation::fields::Choice;

/// A social platform.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    Youtube,
    Tiktok,
    Instagram,
    Facebook,
    Linkedin,
    X,
    Threads,
    Pinterest,
    Reddit,
    Bluesky,
    GoogleBusiness,
}

impl Platform {
    pub const ALL: [Platform; 11] = [
        Platform::Youtube,
        Platform::Tiktok,
        Platform::Instagram,
        Platform::Facebook,
        Platform::Linkedin,
        Platform::X,
        Platform::Threads,
        Platform::Pinterest,
        Platform::Reddit,
        Platform::Bluesky,
        Platform::GoogleBusiness,
    ];

    pub fn as_str(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|p| *p == self).expect("listed")]
    }

    /// Platforms that post pictures rather than text: an article going to them and to text
    /// platforms is sent as two requests (spec: up to two request ids).
    pub(crate) fn is_photo(self) -> bool {
        matches!(self, Platform::Instagram | Platform::Pinterest)
    }

    /// How people call it.
    pub fn display(self) -> &'static str {
        match self {
            Platform::Youtube => "YouTube",
            Platform::Tiktok => "TikTok",
            Platform::Instagram => "Instagram",
            Platform::Facebook => "Facebook",
            Platform::Linkedin => "LinkedIn",
            Platform::X => "X",
            Platform::Threads => "Threads",
            Platform::Pinterest => "Pinterest",
            Platform::Reddit => "Reddit",
            Platform::Bluesky => "Bluesky",
            Platform::GoogleBusiness => "Google Business",
        }
    }
}

impl Choice for Platform {
    const NAMES: &'static [&'static str] = &[
        "youtube",
        "tiktok",
        "instagram",
        "facebook",
        "linkedin",
        "x",
        "threads",
        "pinterest",
        "reddit",
        "bluesky",
        "google_business",
    ];
    const CODE: Code = Code::InvalidPlatforms;
    fn parse(s: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|n| *n == s)
            .map(|i| Self::ALL[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_platform_reads_back_from_its_wire_name() {
        for p in Platform::ALL {
            assert_eq!(Platform::parse(p.as_str()), Some(p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
        assert_eq!(Platform::parse("myspace"), None);
    }
}
