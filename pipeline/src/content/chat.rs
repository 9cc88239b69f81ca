//! The written-content connector: an OpenAI-compatible chat completions API (the writer of
//! `[writer] provider = "openai"`), with one prompt per format. The model's answer is held to
//! the same limits as the embedded writer's (`formats`): a blog is capped at 1500 words and
//! refused under 600 (the task then writes it offline), an X thread is renumbered and split so
//! that no post exceeds 280 characters, Facebook and LinkedIn posts are cut at their limits.

use serde_json::{Value, json};

use crate::content::formats::{
    self, BLOG_MAX_WORDS, BLOG_MIN_WORDS, Draft, FACEBOOK_MAX_CHARS, LINKEDIN_MAX_CHARS,
};
use crate::content::research::Research;
use foundation::connector::Http;
use foundation::model::ContentType;
use video::build::chat_completion;

/// The chat endpoint and model.
pub struct ChatContent {
    pub http: Http,
    pub base_url: String,
    pub model: String,
    pub api_key: String,
}

/// Why the model's answer was not used.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error("chat completions failed: {0}")]
    Upstream(String),
    #[error("the model's answer does not fit the format: {0}")]
    Unfit(String),
}

/// The format's instructions.
fn format_rules(kind: ContentType) -> &'static str {
    match kind {
        ContentType::Blog => {
            "Write a blog post in Markdown of 800 to 1200 words (never under 600 or over 1500). \
             Start with one '# ' title line, then a short introduction, then four to six sections \
             with '## ' headings, and end with a '## Key takeaways' section. Short paragraphs, no \
             tables, no images, no links you were not given."
        }
        ContentType::Facebook => {
            "Write one Facebook post: a first line that hooks the reader, a body of two to four \
             short paragraphs, a clear call to action that invites comments or shares, and two or \
             three hashtags on the last line. Plain text, no Markdown, at most 1500 characters."
        }
        ContentType::X => {
            "Write an X (Twitter) thread of five to eight posts. The first post hooks the reader; \
             each following post makes one point; the last post is a call to action. Every post \
             must be at most 260 characters. Separate posts with a line containing only '---'. \
             Do not number the posts; plain text, no Markdown."
        }
        ContentType::Linkedin => {
            "Write one LinkedIn post of at most 2500 characters: a one-line hook, then paragraphs \
             of one or two sentences separated by blank lines, three takeaways each on its own \
             line starting with '→', a closing question to the reader, and three hashtags on the \
             last line. Professional, first person, plain text, no Markdown."
        }
    }
}

/// The chat messages for a piece of `kind` from `r`.
pub fn messages(kind: ContentType, r: &Research) -> Value {
    let system = format!(
        "You are a professional content writer. Write in {}. {} Use only facts from the \
         material given; never invent numbers, names or quotes. Answer with the piece only.",
        r.language.name(),
        format_rules(kind)
    );
    let material = if r.is_idea {
        format!("The idea to write about: {}", r.topic)
    } else {
        let points: Vec<&str> = r.points.iter().take(40).map(String::as_str).collect();
        format!(
            "Topic: {}\nKeywords: {}\nMaterial (the source's key sentences):\n{}",
            r.topic,
            r.keywords.join(", "),
            points.join("\n")
        )
    };
    json!([
        { "role": "system", "content": system },
        { "role": "user", "content": material },
    ])
}

impl ChatContent {
    /// Asks the model for the piece and holds it to the format's limits.
    pub fn write(&self, kind: ContentType, r: &Research) -> Result<Draft, ChatError> {
        let answer = self.complete(messages(kind, r))?;
        shape(kind, r, &answer)
    }

    /// One chat completion: the assistant's text.
    pub fn complete(&self, messages: Value) -> Result<String, ChatError> {
        let reply = chat_completion(
            &self.http,
            &self.base_url,
            &self.model,
            &self.api_key,
            messages,
        )
        .map_err(ChatError::Upstream)?;
        Some(reply.content.trim().to_string())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| ChatError::Upstream("an empty choices[0].message.content".into()))
    }
}

/// The model's answer as a draft of `kind`, within the format's limits.
pub fn shape(kind: ContentType, r: &Research, answer: &str) -> Result<Draft, ChatError> {
    let answer = strip_fences(answer);
    match kind {
        ContentType::Blog => {
            let md = if answer.starts_with("# ") {
                answer.to_string()
            } else {
                format!("# {}\n\n{answer}", r.topic)
            };
            let md = formats::cap_markdown_words(&md, BLOG_MAX_WORDS);
            let title = md
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("# "))
                .unwrap_or(&r.topic)
                .trim()
                .to_string();
            let draft = Draft {
                title,
                markdown: md,
                posts: Vec::new(),
            };
            if draft.words() < BLOG_MIN_WORDS {
                return Err(ChatError::Unfit(format!(
                    "a blog of {} words",
                    draft.words()
                )));
            }
            Ok(draft)
        }
        ContentType::X => {
            let texts: Vec<String> = answer
                .split("\n---")
                .map(|p| unnumber(p.trim().trim_start_matches('-').trim()))
                .filter(|p| !p.is_empty())
                .collect();
            if texts.len() < 2 {
                return Err(ChatError::Unfit("a thread of fewer than two posts".into()));
            }
            let posts = formats::number_posts(&texts);
            Ok(Draft {
                title: r.topic.clone(),
                markdown: posts.join("\n\n"),
                posts,
            })
        }
        ContentType::Facebook | ContentType::Linkedin => {
            let max = if kind == ContentType::Facebook {
                FACEBOOK_MAX_CHARS
            } else {
                LINKEDIN_MAX_CHARS
            };
            Ok(Draft {
                title: r.topic.clone(),
                markdown: formats::cap_chars(answer, max),
                posts: Vec::new(),
            })
        }
    }
}

/// The answer without a surrounding code fence.
fn strip_fences(s: &str) -> &str {
    let s = s.trim();
    match s.strip_prefix("```") {
        Some(rest) => rest
            .split_once('\n')
            .map_or(rest, |(_, body)| body)
            .trim_end()
            .trim_end_matches("```")
            .trim(),
        None => s,
    }
}

/// A post without a number the model added anyway ("1/6 ", "2. ").
fn unnumber(p: &str) -> String {
    let first = p.split_whitespace().next().unwrap_or("");
    let numbered = first
        .trim_end_matches(['.', ')', ':'])
        .split('/')
        .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        && first != p;
    if numbered {
        p[first.len()..].trim().to_string()
    } else {
        p.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::research::analyse;
    use crate::content::source::SourceText;
    use foundation::model::Language;
    use foundation::testserver;

    fn research(language: Language) -> Research {
        analyse(
            &SourceText {
                title: String::new(),
                text: "why remote teams need weekly rituals".into(),
                url: None,
                is_idea: true,
            },
            language,
        )
    }

    fn fake_chat(answer: String) -> testserver::Server {
        testserver::start(move |req| {
            if req.path() != "/v1/chat/completions" {
                return (404, "text/plain".into(), b"nope".to_vec());
            }
            let body = json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": "fake",
                "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": answer}}]
            });
            (
                200,
                "application/json".into(),
                body.to_string().into_bytes(),
            )
        })
    }

    #[test]
    fn an_x_thread_from_the_model_is_renumbered_and_kept_within_280_characters() {
        let long = "This point runs long. ".repeat(30);
        let answer =
            format!("1/3 Rituals keep remote teams close.\n---\n2. {long}\n---\nFollow for more.");
        let server = fake_chat(answer);
        let (_rt, http) = testserver::http_for(&server);
        let chat = ChatContent {
            http,
            base_url: format!("{}/v1", server.url()),
            model: "m".into(),
            api_key: "sk-content".into(),
        };
        let r = research(Language::Vietnamese);
        let draft =
            std::thread::scope(|s| s.spawn(|| chat.write(ContentType::X, &r)).join().unwrap())
                .unwrap();
        assert!(draft.posts.len() >= 4, "{:?}", draft.posts);
        let n = draft.posts.len();
        assert_eq!(
            draft.posts[0],
            format!("1/{n} Rituals keep remote teams close.")
        );
        assert!(draft.posts.iter().all(|p| p.chars().count() <= 280));
        let seen = server.requests();
        assert_eq!(seen[0].headers["authorization"], "Bearer sk-content");
        let body = seen[0].json();
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.contains("Vietnamese") && system.contains("X (Twitter) thread"),
            "{system}"
        );
        assert!(
            body["messages"][1]["content"]
                .as_str()
                .unwrap()
                .contains("remote teams")
        );
    }

    #[test]
    fn each_format_has_its_own_prompt() {
        let r = research(Language::English);
        let prompts: Vec<String> = [
            ContentType::Blog,
            ContentType::Facebook,
            ContentType::X,
            ContentType::Linkedin,
        ]
        .iter()
        .map(|k| messages(*k, &r)[0]["content"].as_str().unwrap().to_string())
        .collect();
        assert!(prompts[0].contains("Markdown") && prompts[0].contains("## "));
        assert!(prompts[1].contains("call to action"));
        assert!(prompts[2].contains("260 characters"));
        assert!(prompts[3].contains("→"));
    }

    #[test]
    fn a_short_blog_is_refused_and_a_fenced_one_is_unwrapped() {
        let r = research(Language::English);
        assert!(matches!(
            shape(ContentType::Blog, &r, "# Hi\n\nToo short."),
            Err(ChatError::Unfit(_))
        ));
        let words = "word ".repeat(700);
        let d = shape(
            ContentType::Blog,
            &r,
            &format!("```markdown\n# Title\n\n{words}\n```"),
        )
        .unwrap();
        assert_eq!(d.title, "Title");
        assert!(!d.markdown.contains("```"));
    }
}
