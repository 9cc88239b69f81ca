//! Where a job's links are served now. A job keeps its `review_url` and `video_url` as the
//! absolute URLs they were when made; the store moves them onto the current bases whenever it
//! reads a job ([`crate::store::Store::with_link_bases`]), so a changed `base_url`,
//! `app_url` or `origin_url` takes effect on the next read, for old rows as for new ones.

use crate::config::Settings;

/// The path part of a review page below `{app_url}` (`/editor/{topic}?token=…`).
pub(crate) const EDITOR_PATH: &str = "/editor/";
/// The path part of a written piece's viewer below `{app_url}` (`/content/{topic}?token=…`).
pub(crate) const CONTENT_PATH: &str = "/content/";
/// The path part of a rendered MP4 below `{origin_url}` (`/videos/{name}.mp4`).
pub const VIDEOS_PATH: &str = "/videos/";

/// The bases a job's links are built on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkBases {
    /// `{app_url}`: the editor and the content viewer.
    pub app_url: String,
    /// `{origin_url}`: rendered videos.
    pub origin_url: String,
}

impl LinkBases {
    pub fn of(settings: &Settings) -> LinkBases {
        LinkBases {
            app_url: settings.app_url.clone(),
            origin_url: settings.origin_url.clone(),
        }
    }

    /// A stored `review_url` on the current `{app_url}`.
    pub fn review_url(&self, url: &str) -> String {
        rebase(url, &self.app_url, &[EDITOR_PATH, CONTENT_PATH])
    }

    /// A stored `video_url` on the current `{origin_url}`.
    pub fn video_url(&self, url: &str) -> String {
        rebase(url, &self.origin_url, &[VIDEOS_PATH])
    }
}

/// `url` with everything before the last of `markers` in its path replaced by `base`: the
/// path below the base and the query are kept. A URL without a marker is not one of ours and
/// stays as it is.
fn rebase(url: &str, base: &str, markers: &[&str]) -> String {
    let path = &url[..url.find(['?', '#']).unwrap_or(url.len())];
    match markers.iter().filter_map(|m| path.rfind(m)).max() {
        Some(at) => format!("{base}{}", &url[at..]),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_links_move_onto_the_current_bases_keeping_path_and_query() {
        let bases = LinkBases {
            app_url: "https://reels.example/app".into(),
            origin_url: "https://cdn.example".into(),
        };
        for (stored, want) in [
            (
                "http://127.0.0.1:4100/app/editor/wc1?token=ab",
                "https://reels.example/app/editor/wc1?token=ab",
            ),
            (
                "http://old/app/editor/wc1?token=ab&view=script",
                "https://reels.example/app/editor/wc1?token=ab&view=script",
            ),
            (
                "http://old/pages/content/wc2?token=cd",
                "https://reels.example/app/content/wc2?token=cd",
            ),
            (
                "https://reels.example/app/editor/wc1?token=ab",
                "https://reels.example/app/editor/wc1?token=ab",
            ),
        ] {
            assert_eq!(bases.review_url(stored), want, "{stored}");
        }
        assert_eq!(
            bases.video_url("http://127.0.0.1:4100/media/videos/wc1_x.mp4"),
            "https://cdn.example/videos/wc1_x.mp4"
        );
        // Not one of ours: left alone.
        assert_eq!(
            bases.video_url("https://elsewhere.example/clip.mp4"),
            "https://elsewhere.example/clip.mp4"
        );
    }
}
