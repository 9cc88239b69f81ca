//! The embedded writer (offline, deterministic): a piece in each format's shape from the
//! research, in English or Vietnamese, and the limits every writer's output is held to.
//!
//! | format | shape | limit |
//! |---|---|---|
//! | blog | `# title`, an introduction, `##` sections, key takeaways; Markdown and HTML | 600 to 1500 words |
//! | facebook | a hook line, a body of short paragraphs, a call to action, hashtags | 63,206 characters |
//! | x | a numbered thread (`1/7`): hook, one point per post, call to action | 280 characters per post |
//! | linkedin | a hook line, one- or two-sentence paragraphs, takeaways with arrows, a question, hashtags | 3000 characters |
//!
//! The blog is built section by section: the source's sentences (best first, kept in their
//! order) are shared out over the sections of [`phrases`], then each section grows with its
//! own explanations, round by round, until the piece reaches [`BLOG_TARGET_WORDS`]. An idea of
//! five words therefore becomes a structured article about that idea; a long source stays
//! mostly its own sentences and is capped at [`BLOG_MAX_WORDS`].

use crate::content::phrases::{self, Phrases};
use crate::content::research::Research;
use foundation::model::{ContentType, Language};
use video::build::word_count;

pub(crate) const BLOG_MIN_WORDS: usize = 600;
pub(crate) const BLOG_TARGET_WORDS: usize = 700;
pub(crate) const BLOG_MAX_WORDS: usize = 1500;
pub(crate) const FACEBOOK_MAX_CHARS: usize = 63_206;
pub(crate) const X_POST_MAX_CHARS: usize = 280;
pub(crate) const LINKEDIN_MAX_CHARS: usize = 3000;

/// A piece before images are picked.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub title: String,
    /// The piece as Markdown (x: the posts separated by blank lines).
    pub markdown: String,
    /// x: the numbered posts.
    pub posts: Vec<String>,
}

impl Draft {
    /// Words of the piece, without Markdown heading marks.
    pub fn words(&self) -> usize {
        self.markdown
            .split_whitespace()
            .filter(|w| !w.chars().all(|c| c == '#'))
            .count()
    }

    /// Characters as posted (x: of the longest post).
    pub fn characters(&self) -> usize {
        if self.posts.is_empty() {
            self.markdown.chars().count()
        } else {
            self.posts
                .iter()
                .map(|p| p.chars().count())
                .max()
                .unwrap_or(0)
        }
    }
}

/// The embedded writer's piece of `kind`.
pub fn write(kind: ContentType, r: &Research) -> Draft {
    match kind {
        ContentType::Blog => blog(r),
        ContentType::Facebook => facebook(r),
        ContentType::X => x_thread(r),
        ContentType::Linkedin => linkedin(r),
    }
}

/// Fallback keywords when the research found fewer than three.
fn fallback_keywords(language: Language) -> [&'static str; 3] {
    match language {
        Language::English => ["the goal", "a steady routine", "honest review"],
        Language::Vietnamese => ["mục tiêu", "thói quen đều đặn", "việc xem lại trung thực"],
    }
}

/// The research's three keywords, with fallbacks.
fn keywords(r: &Research) -> [String; 3] {
    let fb = fallback_keywords(r.language);
    [
        r.keyword(0, fb[0]),
        r.keyword(1, fb[1]),
        r.keyword(2, fb[2]),
    ]
}

/// Fills a phrase for `r`.
fn say(r: &Research, template: &str) -> String {
    let k = keywords(r);
    phrases::fill(template, &r.topic, [&k[0], &k[1], &k[2]])
}

/// Source sentences worth using, best first, up to `budget` words, then put back in their
/// original order.
fn material(r: &Research, budget: usize) -> Vec<String> {
    if r.is_idea {
        return Vec::new();
    }
    let mut keep = Vec::new();
    let mut words = 0;
    for p in &r.points {
        let n = word_count(p);
        if words + n > budget {
            continue;
        }
        keep.push(p.clone());
        words += n;
    }
    let order = |s: &String| {
        r.sentences
            .iter()
            .position(|x| x == s)
            .unwrap_or(usize::MAX)
    };
    keep.sort_by_key(order);
    keep
}

/// A blog post: title, introduction, sections, key takeaways; 600 to 1500 words.
pub fn blog(r: &Research) -> Draft {
    let p = phrases::of(r.language);
    let source = material(r, BLOG_MAX_WORDS - 250);
    let n_sections = p.sections.len();
    let per_section = (source.len() / (n_sections + 1)).max(1);
    let mut source = source.into_iter();
    // The introduction: the idea's own framing, then the source's opening sentences.
    let mut intro: Vec<String> = p.intro.iter().map(|l| say(r, l)).collect();
    intro.extend(source.by_ref().take(per_section));
    let mut bodies: Vec<Vec<String>> = (0..n_sections)
        .map(|_| source.by_ref().take(per_section).collect())
        .collect();
    // Whatever is left of the source goes to the sections in turn.
    for (i, s) in source.enumerate() {
        bodies[i % n_sections].push(s);
    }
    let conclusion: Vec<String> = p.conclusion.iter().map(|l| say(r, l)).collect();
    let count = |bodies: &[Vec<String>]| {
        word_count(&r.topic)
            + intro
                .iter()
                .chain(&conclusion)
                .map(|s| word_count(s))
                .sum::<usize>()
            + bodies
                .iter()
                .flatten()
                .map(|s| word_count(s))
                .sum::<usize>()
            + p.sections
                .iter()
                .map(|s| word_count(s.heading))
                .sum::<usize>()
            + word_count(p.conclusion_heading)
    };
    // Grow: each round gives every section its next explanation.
    let mut round = 0;
    while count(&bodies) < BLOG_TARGET_WORDS {
        let mut added = false;
        for (section, body) in p.sections.iter().zip(bodies.iter_mut()) {
            if let Some(line) = section.lines.get(round) {
                body.push(say(r, line));
                added = true;
            }
        }
        if !added {
            break;
        }
        round += 1;
    }
    let mut md = format!("# {}\n\n{}\n", r.topic, paragraphs_of(&intro, 3));
    for (section, body) in p.sections.iter().zip(&bodies) {
        if body.is_empty() {
            continue;
        }
        md.push_str(&format!(
            "\n## {}\n\n{}\n",
            section.heading,
            paragraphs_of(body, 3)
        ));
    }
    md.push_str(&format!(
        "\n## {}\n\n{}\n",
        p.conclusion_heading,
        paragraphs_of(&conclusion, 3)
    ));
    Draft {
        title: r.topic.clone(),
        markdown: cap_markdown_words(&md, BLOG_MAX_WORDS),
        posts: Vec::new(),
    }
}

/// Sentences in paragraphs of at most `per` sentences, separated by blank lines.
fn paragraphs_of(sentences: &[String], per: usize) -> String {
    sentences
        .chunks(per)
        .map(|c| c.join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Markdown cut at the last whole paragraph within `max` words (heading marks not counted).
pub(crate) fn cap_markdown_words(md: &str, max: usize) -> String {
    let mut out = Vec::new();
    let mut words = 0;
    for block in md.split("\n\n") {
        let n = block
            .split_whitespace()
            .filter(|w| !w.chars().all(|c| c == '#'))
            .count();
        if words + n > max {
            break;
        }
        words += n;
        out.push(block.trim_end());
    }
    // A heading left without its text goes too.
    while out.last().is_some_and(|b| b.starts_with('#')) {
        out.pop();
    }
    let mut s = out.join("\n\n");
    s.push('\n');
    s
}

/// Hashtags from the keywords: `#RemoteTeams`.
fn hashtags(r: &Research, n: usize) -> String {
    r.keywords
        .iter()
        .take(n)
        .map(|k| {
            let tag: String = k
                .split_whitespace()
                .map(|w| {
                    let mut c = w.chars().filter(|c| c.is_alphanumeric());
                    match c.next() {
                        Some(f) => f.to_uppercase().collect::<String>() + &c.collect::<String>(),
                        None => String::new(),
                    }
                })
                .collect();
            format!("#{tag}")
        })
        .filter(|t| t.chars().count() > 2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Points for a short post: the source's best sentences (in order), or for an idea the
/// explanations of the key-ideas and practice sections.
fn short_points(r: &Research, p: &Phrases, budget_words: usize) -> Vec<String> {
    let from_source = material(r, budget_words);
    if !from_source.is_empty() {
        return from_source;
    }
    let mut out = Vec::new();
    let mut words = 0;
    for line in p
        .sections
        .iter()
        .skip(1)
        .take(2)
        .flat_map(|s| s.lines.iter())
    {
        let l = say(r, line);
        words += word_count(&l);
        out.push(l);
        if words >= budget_words {
            break;
        }
    }
    out
}

/// A Facebook post: hook, body, call to action, hashtags.
pub fn facebook(r: &Research) -> Draft {
    let p = phrases::of(r.language);
    let body = short_points(r, p, 220);
    let mut text = format!("{}\n\n", say(r, p.facebook_hook));
    text.push_str(&paragraphs_of(&body, 2));
    text.push_str(&format!(
        "\n\n{}\n\n{}",
        say(r, p.facebook_cta),
        hashtags(r, 3)
    ));
    let text = cap_chars(text.trim(), FACEBOOK_MAX_CHARS);
    Draft {
        title: r.topic.clone(),
        markdown: text,
        posts: Vec::new(),
    }
}

/// An X thread: a hook, one point per post, a call to action; numbered `i/n`, every post at
/// most 280 characters.
pub(crate) fn x_thread(r: &Research) -> Draft {
    let p = phrases::of(r.language);
    let mut parts = vec![say(r, p.x_hook)];
    parts.extend(short_points(r, p, 160).into_iter().take(6));
    parts.push(say(r, p.x_cta));
    let posts = number_posts(&parts);
    Draft {
        title: r.topic.clone(),
        markdown: posts.join("\n\n"),
        posts,
    }
}

/// Texts → numbered posts of at most [`X_POST_MAX_CHARS`] characters: a text too long for one
/// post is split at word boundaries over several.
pub(crate) fn number_posts(texts: &[String]) -> Vec<String> {
    // Room for " 10/10" keeps every numbered post within the limit.
    let room = X_POST_MAX_CHARS - 7;
    let pieces: Vec<String> = texts
        .iter()
        .flat_map(|t| split_chars(t.trim(), room))
        .filter(|t| !t.is_empty())
        .collect();
    let n = pieces.len();
    pieces
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}/{n} {t}", i + 1))
        .collect()
}

/// `text` in chunks of at most `max` characters, cut between words (a word longer than
/// `max` is cut inside).
pub(crate) fn split_chars(text: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let mut word = word.to_string();
        while word.chars().count() > max {
            let head: String = word.chars().take(max).collect();
            word = word.chars().skip(max).collect();
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(head);
        }
        let len = cur.chars().count() + usize::from(!cur.is_empty()) + word.chars().count();
        if len > max && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&word);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A LinkedIn post: a hook line, short paragraphs, takeaways, a question, hashtags; at most
/// 3000 characters.
pub fn linkedin(r: &Research) -> Draft {
    let p = phrases::of(r.language);
    let k = keywords(r);
    let points = short_points(r, p, 260);
    let mut blocks = vec![say(r, p.linkedin_hook)];
    blocks.extend(points.iter().take(5).cloned());
    let takeaways: Vec<String> = k.iter().map(|k| format!("→ {k}")).collect();
    blocks.push(format!(
        "{}\n{}",
        p.linkedin_takeaways,
        takeaways.join("\n")
    ));
    blocks.push(say(r, p.linkedin_question));
    blocks.push(hashtags(r, 3));
    let mut text = String::new();
    for b in blocks.iter().filter(|b| !b.trim().is_empty()) {
        let next = if text.is_empty() {
            b.clone()
        } else {
            format!("{text}\n\n{b}")
        };
        if next.chars().count() > LINKEDIN_MAX_CHARS {
            continue;
        }
        text = next;
    }
    Draft {
        title: r.topic.clone(),
        markdown: text,
        posts: Vec::new(),
    }
}

/// At most `max` characters, cut at the last paragraph, line or word that fits.
pub(crate) fn cap_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max).collect();
    for sep in ["\n\n", "\n", " "] {
        if let Some(i) = head.rfind(sep)
            && i > 0
        {
            return head[..i].trim_end().to_string();
        }
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::research::analyse;
    use crate::content::source::SourceText;

    fn research(text: &str, is_idea: bool, language: Language) -> Research {
        analyse(
            &SourceText {
                title: String::new(),
                text: text.into(),
                url: None,
                is_idea,
            },
            language,
        )
    }

    fn article(language: Language, sentences: usize) -> String {
        (0..sentences)
            .map(|i| match language {
                Language::English => format!(
                    "Point {i}: solar panels on family roofs lower power bills and keep working on cloudy days."
                ),
                Language::Vietnamese => format!(
                    "Ý {i}: tấm pin mặt trời trên mái nhà giúp gia đình giảm hóa đơn điện cả vào ngày nhiều mây."
                ),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every format, in both languages, from an idea of five words and from long material,
    /// keeps its limits.
    #[test]
    fn every_format_keeps_its_limits_in_english_and_vietnamese() {
        let cases = [
            ("why remote teams need rituals", true, Language::English),
            ("vì sao đội làm việc từ xa", true, Language::Vietnamese),
            (&*article(Language::English, 12), false, Language::English),
            (
                &*article(Language::Vietnamese, 12),
                false,
                Language::Vietnamese,
            ),
            (&*article(Language::English, 400), false, Language::English),
            (
                &*article(Language::Vietnamese, 400),
                false,
                Language::Vietnamese,
            ),
        ]
        .map(|(t, i, l)| (t.to_string(), i, l));
        for (text, is_idea, language) in &cases {
            let r = research(text, *is_idea, *language);
            let what = format!("{language:?} idea={is_idea} words={}", word_count(text));

            let b = blog(&r);
            let n = b.words();
            assert!(
                (BLOG_MIN_WORDS..=BLOG_MAX_WORDS).contains(&n),
                "blog {what}: {n} words"
            );
            assert!(b.markdown.starts_with("# "), "blog {what}");
            assert!(
                b.markdown.matches("\n## ").count() >= 3,
                "blog {what}: headings"
            );
            assert!(!b.markdown.contains('{'), "blog {what}: unfilled slot");

            let f = facebook(&r);
            assert!(f.characters() <= FACEBOOK_MAX_CHARS, "facebook {what}");
            assert!(
                f.markdown.lines().next().unwrap().contains("👇"),
                "facebook hook {what}"
            );
            assert!(f.markdown.contains('#'), "facebook hashtags {what}");

            let x = x_thread(&r);
            assert!(x.posts.len() >= 3, "x {what}: {:?}", x.posts);
            let total = x.posts.len();
            for (i, post) in x.posts.iter().enumerate() {
                assert!(post.chars().count() <= X_POST_MAX_CHARS, "x {what}: {post}");
                assert!(
                    post.starts_with(&format!("{}/{total} ", i + 1)),
                    "x {what}: {post}"
                );
            }

            let l = linkedin(&r);
            assert!(l.characters() <= LINKEDIN_MAX_CHARS, "linkedin {what}");
            assert!(
                l.markdown.contains("\n\n→") || l.markdown.contains("\n→"),
                "linkedin {what}"
            );
            let longest = l
                .markdown
                .split("\n\n")
                .map(|p| p.chars().count())
                .max()
                .unwrap();
            assert!(
                longest <= 600,
                "linkedin {what}: short paragraphs ({longest})"
            );
        }
    }

    #[test]
    fn a_blog_from_material_keeps_the_sources_sentences_first() {
        let text = article(Language::English, 20);
        let b = blog(&research(&text, false, Language::English));
        assert!(
            b.markdown.contains("Point 0: solar panels"),
            "{}",
            b.markdown
        );
        assert!(b.markdown.contains("Point 19:"));
    }

    #[test]
    fn splitting_keeps_words_whole_and_numbers_posts() {
        assert_eq!(split_chars("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(split_chars("abcdefgh", 3), ["abc", "def", "gh"]);
        let long = "word ".repeat(200);
        let posts = number_posts(&["Hook".to_string(), long]);
        assert!(posts.len() > 3);
        assert!(posts[0].starts_with(&format!("1/{} Hook", posts.len())));
        assert!(posts.iter().all(|p| p.chars().count() <= X_POST_MAX_CHARS));
    }

    #[test]
    fn caps_cut_at_boundaries() {
        assert_eq!(cap_chars("one two\n\nthree four", 12), "one two");
        assert_eq!(cap_chars("short", 10), "short");
        let md = "# T\n\none two three\n\n## H\n\nfour five six seven";
        assert_eq!(cap_markdown_words(md, 5), "# T\n\none two three\n");
    }
}
