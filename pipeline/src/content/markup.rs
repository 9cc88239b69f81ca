//! Markdown → HTML for pieces and the viewer page: `pulldown-cmark` renders, `ammonia` keeps
//! only safe tags and attributes (no scripts, styles, event handlers or `javascript:` links),
//! so text from a fetched page or a model can never run in a reader's browser.

use pulldown_cmark::{Options, Parser, html};

use foundation::html::{esc, strip_controls};

/// `markdown` as sanitised HTML.
pub(crate) fn to_html(markdown: &str) -> String {
    let mut out = String::new();
    html::push_html(
        &mut out,
        Parser::new_ext(&strip_controls(markdown), Options::ENABLE_STRIKETHROUGH),
    );
    ammonia::clean(&out)
}

/// Plain text as sanitised HTML paragraphs (line breaks kept), for posts that are not
/// Markdown.
pub fn text_to_html(text: &str) -> String {
    esc(text)
        .split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .map(|p| format!("<p>{}</p>", p.trim().replace('\n', "<br>")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_markdown_and_removes_anything_that_could_run() {
        let html = to_html(
            "# Title\n\nSome *text* [ok](https://example.com) [bad](javascript:alert(1))\n\n<script>alert(1)</script><img src=x onerror=alert(1)>",
        );
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<em>text</em>"), "{html}");
        assert!(html.contains("href=\"https://example.com\""), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
    }

    #[test]
    fn text_keeps_paragraphs_and_escapes_tags() {
        assert_eq!(
            text_to_html("a <b>\nline\n\nnext"),
            "<p>a &lt;b&gt;<br>line</p><p>next</p>"
        );
    }
}
