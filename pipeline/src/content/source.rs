//! The Researching stage: the source of a piece read into plain text. A URL is fetched through
//! the SSRF guard ([`Fetcher::get`], every redirect hop guarded, size and time capped) and its
//! main text extracted by `dom_smoothie` (a port of Mozilla's Readability); a plain-text page is
//! taken as it is. An idea or pasted text is used as given.

use std::time::Duration;

use dom_smoothie::{Config, Readability, TextMode};

use crate::content::record::ContentInput;
use foundation::error::Code;
use foundation::fetch::{FetchError, Fetcher};
use foundation::jobs::JobFailure;

/// Pages larger than this are not read.
pub(crate) const PAGE_MAX_BYTES: u64 = 5 * 1024 * 1024;
/// How long a page may take.
pub(crate) const PAGE_TIMEOUT: Duration = Duration::from_secs(20);
/// A page with fewer words of main text has nothing to write from.
pub(crate) const MIN_PAGE_WORDS: usize = 30;

/// The text a piece is written from.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceText {
    /// The page's title; empty for ideas and pasted text.
    pub title: String,
    /// Paragraphs separated by blank lines.
    pub text: String,
    /// The page read, for URL sources.
    pub url: Option<String>,
    /// The input was an idea (a few words to grow from), not material to draw on.
    pub is_idea: bool,
}

/// Reads `input`; URL pages are fetched on `runtime`.
pub fn read(
    input: &ContentInput,
    fetcher: &Fetcher,
    runtime: &tokio::runtime::Handle,
) -> Result<SourceText, JobFailure> {
    match input {
        ContentInput::Idea(idea) => Ok(SourceText {
            title: String::new(),
            text: idea.clone(),
            url: None,
            is_idea: true,
        }),
        ContentInput::Text(text) => Ok(SourceText {
            title: String::new(),
            text: text.clone(),
            url: None,
            is_idea: false,
        }),
        ContentInput::Url(url) => {
            let page = runtime
                .block_on(fetcher.get(url, PAGE_MAX_BYTES, PAGE_TIMEOUT))
                .map_err(|e| fetch_failure(&e))?;
            let body = String::from_utf8_lossy(&page.body);
            let html = page
                .content_type
                .as_deref()
                .is_none_or(|t| t.contains("html"))
                || body.trim_start().starts_with('<');
            let (title, text) = if html {
                main_text(&body, page.final_url.as_str())?
            } else if page
                .content_type
                .as_deref()
                .is_some_and(|t| t.starts_with("text/"))
            {
                (String::new(), body.trim().to_string())
            } else {
                return Err(JobFailure::new(
                    Code::ContentUnreadable,
                    "The URL is not a web page or a text document.",
                ));
            };
            if video::build::word_count(&text) < MIN_PAGE_WORDS {
                return Err(JobFailure::new(
                    Code::ContentUnreadable,
                    "The page at the URL has too little readable text to write from.",
                ));
            }
            Ok(SourceText {
                title,
                text,
                url: Some(page.final_url.to_string()),
                is_idea: false,
            })
        }
    }
}

/// The client's sentence for a fetch that failed (never the network library's words).
fn fetch_failure(e: &FetchError) -> JobFailure {
    let message = match e {
        FetchError::Blocked(why) => format!("The URL is not accepted: {why}."),
        FetchError::Status(s) => format!("The page at the URL answered HTTP {s}."),
        FetchError::TooLarge(n) => format!("The page at the URL is larger than {n} bytes."),
        FetchError::Network(_) => "The page at the URL could not be reached.".into(),
        FetchError::Redirects => "The page at the URL redirects too many times.".into(),
        FetchError::Refused(why) => format!("The page at the URL was refused: {why}."),
    };
    JobFailure::new(Code::ContentFetchFailed, message).because(e)
}

/// The title and main text (paragraphs separated by blank lines) of an HTML page.
pub(crate) fn main_text(html: &str, url: &str) -> Result<(String, String), JobFailure> {
    let unreadable = |e: &dyn std::fmt::Display| {
        JobFailure::new(
            Code::ContentUnreadable,
            "The main text of the page at the URL could not be found.",
        )
        .because(e)
    };
    let cfg = Config {
        text_mode: TextMode::Formatted,
        ..Config::default()
    };
    let mut reader = Readability::new(html, Some(url), Some(cfg)).map_err(|e| unreadable(&e))?;
    let article = reader.parse().map_err(|e| unreadable(&e))?;
    let text = paragraphs(&article.text_content);
    Ok((article.title.trim().to_string(), text))
}

/// Lines joined into paragraphs: blank lines separate them, inner whitespace is collapsed.
fn paragraphs(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<!doctype html><html><head><title>Solar at home | Energy Weekly</title></head>
<body><nav><a href="/">Home</a> · <a href="/news">News</a> · <a href="/about">About us</a></nav>
<article><h1>Solar at home</h1>
<p>Solar panels on a family roof now pay for themselves in about seven years in most sunny regions, because prices fell sharply over the last decade.</p>
<p>Panels keep working on cloudy days, though they make less power. A battery stores the midday surplus for the evening, when families use the most electricity.</p>
<p>Installers recommend checking the roof's angle and shade first. A south-facing roof without trees nearby gives the best yield, and a simple inspection avoids costly surprises.</p>
</article>
<footer>Copyright Energy Weekly. Subscribe to our newsletter. Privacy policy. Cookie settings.</footer>
<script>var tracking = "should never appear";</script></body></html>"#;

    #[test]
    fn extracts_the_article_without_navigation_footer_or_scripts() {
        let (title, text) = main_text(PAGE, "https://example.com/solar").unwrap();
        assert!(title.contains("Solar at home"), "{title}");
        assert!(text.contains("pay for themselves"), "{text}");
        assert!(text.contains("south-facing roof"), "{text}");
        assert!(!text.contains("tracking"), "{text}");
        assert!(!text.contains("Cookie settings"), "{text}");
        assert!(text.contains("\n\n"), "paragraphs are kept: {text}");
    }

    #[test]
    fn ideas_and_text_are_used_as_given() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let f = Fetcher::new(&[], "test");
        let idea = read(
            &ContentInput::Idea("remote teams need weekly rituals".into()),
            &f,
            rt.handle(),
        )
        .unwrap();
        assert!(idea.is_idea && idea.text == "remote teams need weekly rituals");
    }
}
