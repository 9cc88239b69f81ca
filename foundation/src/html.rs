//! The one escaping helper of every HTML page we serve: text and quoted attribute values are
//! escaped, and control characters that a page has no use for (NUL, ESC, the rest of C0 but
//! tab, line feed and carriage return, and DEL) are dropped, so no stored text reaches a
//! browser raw.

/// Whether `c` is a control character that pages never carry.
fn unwanted(c: char) -> bool {
    (c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r')) || ('\u{80}'..='\u{9f}').contains(&c)
}

/// `s` without the control characters pages never carry.
pub fn strip_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(unwanted) {
        s.chars()
            .filter(|c| !unwanted(*c))
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}

/// `s` as HTML text or a quoted attribute value.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if unwanted(c) => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(
            esc("a<b>&\"'\0\u{1b}[31m\u{7f}\u{85}\tc\nd"),
            "a&lt;b&gt;&amp;&quot;&#39;[31m\tc\nd"
        );
        assert_eq!(strip_controls("x\0y\u{1b}z\r\n"), "xyz\r\n");
        assert!(matches!(
            strip_controls("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
