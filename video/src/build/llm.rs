//! The writer connector: an OpenAI-compatible chat completions API (OpenAI, Ollama, llama.cpp,
//! vLLM). `POST {base_url}/chat/completions` with `{model, messages, temperature}` and
//! `Authorization: Bearer <api_key>`; the narration is `choices[0].message.content`, cleaned of
//! markdown and capped to the length target at a sentence boundary.
//!
//! `research_enabled` reaches the model as an instruction in the system message (chat APIs have
//! no standard switch for it): on, the model may add well-established facts from its own
//! knowledge; off, it uses only the input. The flag is recorded with the narration either way.
//!
//! Overlay copy: once the narration is split into scenes, a second call asks the model for the
//! copy of each scene's overlay, as JSON (`{"overlays":[{"scene":1,"copy":"…"}]}`, the schema
//! and the rules of [`crate::build::copy`] in the system message). What it answers is only a
//! proposal: scene building keeps it where it obeys the rules.

use serde_json::{Value, json};

use crate::build::copy::MAX_WORDS;
use crate::build::writer::{CopyScene, WriteRequest, Writer, WriterError, Written, cap_words};
use foundation::connector::{Http, join};
use foundation::model::Source;

pub(crate) struct ChatWriter {
    pub http: Http,
    pub base_url: String,
    pub model: String,
    pub api_key: String,
}

/// The chat messages for a request.
pub fn messages(req: &WriteRequest<'_>) -> Value {
    let language = req.language.name();
    let research = if req.research_enabled {
        "Research: enabled. You may add well-established facts from your own knowledge when they support the input; never invent numbers, names or quotes."
    } else {
        "Research: disabled. Use only facts stated in the input; add nothing from outside it."
    };
    let system = format!(
        "You write the narration of a short vertical video, spoken by one narrator. \
         Write in {language}. Aim for about {target} words and never more than {max} words. \
         Plain spoken sentences only: no title, headings, lists, emojis, hashtags, markdown or stage directions. \
         Open with a hook that makes the viewer stay; close with one short call to action. {research}",
        target = req.target_words(),
        max = req.max_words(),
    );
    let kind = match req.source {
        Source::Blog => "blog post",
        _ => "idea",
    };
    json!([
        { "role": "system", "content": system },
        { "role": "user", "content": format!("Turn this {kind} into the narration.\n\n{}", req.input) },
    ])
}

/// The chat messages that ask for the overlay copy of `scenes`.
pub(crate) fn copy_messages(scenes: &[CopyScene<'_>], language: &str) -> Value {
    let system = format!(
        "You write the on-screen overlay copy of a short vertical video, in {language}. \
         For each scene you get its type and its spoken text; the spoken text is also shown as captions. \
         Write copy that condenses the moment: a key phrase for HOOK, KEY POINT and DATA, \
         the number with its unit followed by a short label for STAT (for example \"3 in 5 shoppers\" or \"40% more sales\"), \
         a short imperative for CALL TO ACTION. Rules: at most {MAX_WORDS} words; a complete phrase, never a cut sentence; \
         never end on a function word (the, that, and, of, to, a, và, của, là, thì, mà, để, …); \
         never repeat the spoken sentence word for word; no emojis, hashtags or quotation marks. \
         Answer with JSON only, exactly this schema: \
         {{\"overlays\": [{{\"scene\": <scene number>, \"copy\": \"<the copy>\"}}]}}"
    );
    let scenes: Vec<Value> = scenes
        .iter()
        .enumerate()
        .map(|(i, s)| json!({ "scene": i + 1, "type": s.scene_type.as_str(), "text": s.text }))
        .collect();
    json!([
        { "role": "system", "content": system },
        { "role": "user", "content": json!({ "scenes": scenes }).to_string() },
    ])
}

/// The model's answer → one proposal per scene (`None` where it gave none or the answer is
/// not the JSON asked for). Code fences around the JSON are tolerated.
pub(crate) fn parse_copy(raw: &str, scenes: usize) -> Vec<Option<String>> {
    let mut out = vec![None; scenes];
    let (Some(a), Some(b)) = (raw.find('{'), raw.rfind('}')) else {
        return out;
    };
    let Ok(v) = serde_json::from_str::<Value>(raw.get(a..=b).unwrap_or("")) else {
        return out;
    };
    for o in v["overlays"].as_array().into_iter().flatten() {
        let (Some(n), Some(copy)) = (o["scene"].as_u64(), o["copy"].as_str()) else {
            continue;
        };
        if let Some(slot) = (n as usize).checked_sub(1).and_then(|i| out.get_mut(i)) {
            *slot = Some(copy.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    out
}

/// Model output → narration: markdown, list markers, headings and labels removed, lines joined.
pub(crate) fn clean_narration(raw: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in raw.lines() {
        let mut l = line.trim();
        if l.starts_with("```") || l.starts_with('#') && l.trim_start_matches('#').trim().is_empty()
        {
            continue;
        }
        if l.starts_with('#') {
            // A heading: not narration.
            continue;
        }
        l = l.trim_start_matches(['-', '*', '•', '>']).trim_start();
        // Numbered list markers ("1." / "2)").
        if let Some((num, rest)) = l.split_once(['.', ')'])
            && !num.is_empty()
            && num.len() <= 2
            && num.chars().all(|c| c.is_ascii_digit())
            && rest.starts_with(' ')
        {
            l = rest.trim_start();
        }
        // Labels such as "Narration:" or "Hook:" at the start of a line.
        if let Some((label, rest)) = l.split_once(':')
            && !label.is_empty()
            && label.split_whitespace().count() <= 2
            && label.chars().all(|c| c.is_alphabetic() || c == ' ')
            && !rest.trim().is_empty()
            && label.chars().next().is_some_and(char::is_uppercase)
            && [
                "narration",
                "hook",
                "script",
                "call to action",
                "cta",
                "intro",
                "outro",
                "narrator",
            ]
            .contains(&label.trim().to_lowercase().as_str())
        {
            l = rest.trim_start();
        }
        let l = l.replace(['*', '_', '`'], "");
        if !l.trim().is_empty() {
            out.push(l.trim().to_string());
        }
    }
    out.join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// What one chat completion answered: the assistant's text and the model that wrote it.
pub struct ChatReply {
    pub content: String,
    pub model: Option<String>,
}

/// One OpenAI-compatible `chat/completions` call (not streamed): the one place the connectors
/// that talk to a chat model (the script writer here, the content writer) build the request and
/// read `choices[0].message.content`. The error is a message for the log, never for a client.
pub fn chat_completion(
    http: &Http,
    base_url: &str,
    model: &str,
    api_key: &str,
    messages: Value,
) -> Result<ChatReply, String> {
    let body = json!({
        "model": model,
        "messages": messages,
        "temperature": 0.7,
        "stream": false,
    });
    let mut headers = Vec::new();
    if !api_key.is_empty() {
        headers.push(("authorization", format!("Bearer {api_key}")));
    }
    let reply = http.post_json(&join(base_url, "chat/completions"), &headers, &body)?;
    if reply.status != 200 {
        return Err(format!(
            "chat completions answered HTTP {}: {}",
            reply.status,
            reply.snippet()
        ));
    }
    let v = reply.json()?;
    let content = v["choices"][0]["message"]["content"]
        .as_str()
        .ok_or("no choices[0].message.content")?
        .to_string();
    Ok(ChatReply {
        content,
        model: v["model"].as_str().map(str::to_string),
    })
}

impl Writer for ChatWriter {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn write(&self, req: &WriteRequest<'_>) -> Result<Written, WriterError> {
        let reply = chat_completion(
            &self.http,
            &self.base_url,
            &self.model,
            &self.api_key,
            messages(req),
        )
        .map_err(WriterError::Upstream)?;
        let content = reply.content.as_str();
        let narration = cap_words(&clean_narration(content), req.max_words());
        if narration.split_whitespace().count() == 0 {
            return Err(WriterError::Empty);
        }
        Ok(Written {
            narration,
            provider: "openai".into(),
            model: reply.model.unwrap_or_else(|| self.model.clone()),
            research_enabled: req.research_enabled,
        })
    }

    fn overlay_copy(&self, scenes: &[CopyScene<'_>], language: &str) -> Vec<Option<String>> {
        match chat_completion(
            &self.http,
            &self.base_url,
            &self.model,
            &self.api_key,
            copy_messages(scenes, language),
        ) {
            Ok(reply) => parse_copy(&reply.content, scenes.len()),
            Err(e) => {
                tracing::warn!(error = %e, "the writer proposed no overlay copy");
                vec![None; scenes.len()]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::document::SceneType;
    use foundation::model::{Language, VideoLength};
    use foundation::testserver;

    #[test]
    fn cleans_markdown_and_labels() {
        let raw = "# Why solar?\n\n**Hook:** Your roof could *pay* you.\n\n- Panels last 25 years.\n2. Bills drop fast.\n```\nNarration: Follow for more.";
        assert_eq!(
            clean_narration(raw),
            "Your roof could pay you. Panels last 25 years. Bills drop fast. Follow for more."
        );
        assert_eq!(clean_narration("Note: this stays."), "Note: this stays.");
    }

    #[test]
    fn speaks_chat_completions_to_a_fake_server() {
        let long_answer = (0..60)
            .map(|i| format!("Sentence number {i} tells the viewer one more useful thing."))
            .collect::<Vec<_>>()
            .join(" ");
        let server = testserver::start(move |req| {
            if req.path() != "/v1/chat/completions" {
                return (404, "text/plain".into(), b"nope".to_vec());
            }
            let body = json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": "fake-model-2",
                "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": format!("## Title\n{long_answer}")}}]
            });
            (
                200,
                "application/json".into(),
                body.to_string().into_bytes(),
            )
        });
        let (_rt, http) = testserver::http_for(&server);
        let w = ChatWriter {
            http,
            base_url: format!("{}/v1/", server.url()),
            model: "fake-model".into(),
            api_key: "sk-test".into(),
        };
        let req = WriteRequest {
            input: "Remote teams need rituals to stay close.",
            source: Source::Idea,
            language: Language::Vietnamese,
            video_length: VideoLength::Short,
            research_enabled: false,
        };
        let got = std::thread::scope(|s| s.spawn(|| w.write(&req)).join().unwrap()).unwrap();
        let n = got.narration.split_whitespace().count();
        assert!(n <= req.max_words() && n > 200, "{n}");
        assert!(got.narration.starts_with("Sentence number 0"));
        assert_eq!(got.model, "fake-model-2");
        assert!(!got.research_enabled);
        let seen = server.requests();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].method, "POST");
        assert_eq!(seen[0].headers["authorization"], "Bearer sk-test");
        let body = seen[0].json();
        assert_eq!(body["model"], "fake-model");
        assert_eq!(body["messages"][0]["role"], "system");
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.contains("Vietnamese") && system.contains("Research: disabled"),
            "{system}"
        );
        assert!(
            body["messages"][1]["content"]
                .as_str()
                .unwrap()
                .contains("Remote teams")
        );
    }

    #[test]
    fn asks_for_overlay_copy_as_json_and_reads_it() {
        let server = testserver::start(|_| {
            let content = "```json\n{\"overlays\": [{\"scene\": 2, \"copy\": \"40%  more sales\"}, {\"scene\": 9, \"copy\": \"x\"}]}\n```";
            let body = json!({"choices": [{"message": {"role": "assistant", "content": content}}]});
            (
                200,
                "application/json".into(),
                body.to_string().into_bytes(),
            )
        });
        let (_rt, http) = testserver::http_for(&server);
        let w = ChatWriter {
            http,
            base_url: server.url(),
            model: "m".into(),
            api_key: String::new(),
        };
        let scenes = [
            CopyScene {
                text: "Why do shops fail?",
                scene_type: SceneType::Hook,
            },
            CopyScene {
                text: "Sales grew 40% with video.",
                scene_type: SceneType::Stat,
            },
        ];
        let got = std::thread::scope(|s| {
            s.spawn(|| w.overlay_copy(&scenes, "English"))
                .join()
                .unwrap()
        });
        assert_eq!(got, [None, Some("40% more sales".to_string())]);
        let body = server.requests()[0].json();
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.contains("\"overlays\"") && system.contains("function word"),
            "{system}"
        );
        let user: Value =
            serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
        assert_eq!(user["scenes"][1]["type"], "STAT");
        assert_eq!(parse_copy("no json here", 2), [None, None]);
    }

    #[test]
    fn upstream_errors_are_errors() {
        let server = testserver::start(|_| (500, "application/json".into(), b"{}".to_vec()));
        let (_rt, http) = testserver::http_for(&server);
        let w = ChatWriter {
            http,
            base_url: server.url(),
            model: "m".into(),
            api_key: String::new(),
        };
        let req = WriteRequest {
            input: "x",
            source: Source::Idea,
            language: Language::English,
            video_length: VideoLength::Short,
            research_enabled: true,
        };
        let err = std::thread::scope(|s| s.spawn(|| w.write(&req)).join().unwrap());
        assert!(matches!(err, Err(WriterError::Upstream(_))), "{err:?}");
        assert!(!server.requests()[0].headers.contains_key("authorization"));
    }
}
