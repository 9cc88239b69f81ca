//! `POST /v1/enhance_script`: a script (80 to 500 words, the codes of `create_video`'s
//! `script_text`) tightened into one with the same meaning — an async job like
//! `create_content` (1 credit, `callback_url`, `metadata`), its result in `result.script` of the
//! status object and on the viewer page.
//!
//! The embedded editor only removes what carries no meaning: filler words ("really",
//! "basically", "thật sự là", spoken "um" and "uh", "like" or "you know" set off by commas),
//! wordy phrases with a short equal ("in order to" → "to", "due to
//! the fact that" → "because"), a word said twice in a row and a sentence said twice. It stops
//! before the script would fall under 80 words, so the result is always a valid `script_text`.
//! The chat connector is asked for the same (and its answer is used only within 80 to 500
//! words).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

use crate::content::chat::ChatContent;
use crate::content::record::EnhanceRequest;
use crate::content::request::{CONTENT_CODES, check_content_metadata};
use foundation::config::Mode;
use foundation::error::{Code, Error, Result};
use foundation::fetch::Fetcher;
use foundation::fields::Body;
use foundation::jobs::{AcceptedWriting, Engine, JobFailure};
use foundation::model::{EnhancedScript, WriterStage, WrittenResult};
use video::build::{split_sentences, word_count};
use video::ingest::{SCRIPT_MAX_WORDS, SCRIPT_MIN_WORDS, validate_callback};

/// Credits one call costs.
pub(crate) const COST: i64 = 1;

/// The body of `POST /v1/enhance_script`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EnhanceScriptRequest {
    /// The script to tighten: 80 to 500 words.
    #[schema(pattern = r"^[ \t\n]*[^\s]+([ \t\n]+[^\s]+){79,499}[ \t\n]*$")]
    pub script_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = video::ingest::callback_url_schema)]
    pub callback_url: Option<String>,
    /// Echoed in the status object: at most 16 keys (and 16 KiB as JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::content::request::metadata_schema)]
    pub metadata: Option<Map<String, Value>>,
}

/// Read by `foundation::fields::body::read`.
impl Body for EnhanceScriptRequest {
    type Valid = EnhanceScriptRequest;
    const CODES: &'static [(&'static str, Code)] = CONTENT_CODES;

    /// 80 to 500 words (`script_too_short`, `script_too_long`) and the metadata rules.
    fn validate(self) -> Result<Self> {
        let n = word_count(&self.script_text);
        if n < SCRIPT_MIN_WORDS {
            return Err(Error::new(
                Code::ScriptTooShort,
                format!("`script_text` has {n} words; at least {SCRIPT_MIN_WORDS} are needed."),
            )
            .param("script_text"));
        }
        if n > SCRIPT_MAX_WORDS {
            return Err(Error::new(
                Code::ScriptTooLong,
                format!("`script_text` has {n} words; at most {SCRIPT_MAX_WORDS} are allowed."),
            )
            .param("script_text"));
        }
        check_content_metadata(self.metadata.as_ref())?;
        Ok(self)
    }
}

/// Validates a request: the job to store and the record of what it asks.
pub async fn validate(
    req: EnhanceScriptRequest,
    mode: Mode,
    fetcher: &Fetcher,
) -> Result<(AcceptedWriting, EnhanceRequest)> {
    let callback_url = match &req.callback_url {
        None => None,
        Some(u) => Some(validate_callback(u, mode, fetcher).await?),
    };
    Ok((
        AcceptedWriting {
            metadata: Value::Object(req.metadata.unwrap_or_default()),
            callback_url,
            input_truncated_from: None,
            cost: COST,
        },
        EnhanceRequest {
            script: req.script_text.trim().to_string(),
        },
    ))
}

/// The job: Researching reads the script's sentences, Deep research completed tightens them.
pub fn run(
    engine: &Engine,
    topic: &str,
    chat: Option<&ChatContent>,
    req: &EnhanceRequest,
) -> Result<WrittenResult, JobFailure> {
    engine.set_writer_stage(topic, WriterStage::Researching, "Reading the script");
    engine.set_writer_stage(
        topic,
        WriterStage::DeepResearchCompleted,
        "Tightening the script",
    );
    Ok(WrittenResult::Script(enhanced(chat, &req.script)))
}

/// The tightened `script`: the chat connector's when one is configured and its answer keeps
/// 80 to 500 words, else the embedded editor's.
pub(crate) fn enhanced(chat: Option<&ChatContent>, script: &str) -> EnhancedScript {
    let from_chat = chat.and_then(|c| {
        let answer = c.complete(messages(script)).map_err(
            |e| tracing::warn!(error = %e, "the writing service failed; tightening offline"),
        );
        answer
            .ok()
            .filter(|s| (SCRIPT_MIN_WORDS..=SCRIPT_MAX_WORDS).contains(&word_count(s)))
    });
    let (tightened, writer) = match from_chat {
        Some(s) => (s, "openai"),
        None => (tighten(script, SCRIPT_MIN_WORDS), "extractive"),
    };
    EnhancedScript {
        words_before: word_count(script),
        words_after: word_count(&tightened),
        script: tightened,
        writer: writer.into(),
    }
}

/// The chat messages asking for a tighter script.
pub fn messages(script: &str) -> Value {
    json!([
        { "role": "system", "content": format!(
            "You edit narration scripts for short videos. Tighten the script: keep its meaning, \
             its facts, its order and its language; remove filler words, wordy phrases and \
             repetition; keep between {SCRIPT_MIN_WORDS} and {SCRIPT_MAX_WORDS} words. Answer with \
             the script only, as plain sentences.") },
        { "role": "user", "content": script },
    ])
}

/// Phrases that say nothing, or say it long: (words, replacement).
const EDITS: &[(&str, &str)] = &[
    ("due to the fact that", "because"),
    ("at this point in time", "now"),
    ("in the event that", "if"),
    ("it is important to note that", ""),
    ("as a matter of fact", ""),
    ("a large number of", "many"),
    ("the majority of", "most"),
    ("each and every", "every"),
    ("first and foremost", "first"),
    ("in order to", "to"),
    ("kind of", ""),
    ("sort of", ""),
    ("basically", ""),
    ("actually", ""),
    ("literally", ""),
    ("really", ""),
    ("very", ""),
    ("just", ""),
    ("totally", ""),
    ("definitely", ""),
    ("thực ra thì", ""),
    ("thật sự là", ""),
    ("nói chung là", ""),
    ("về cơ bản thì", ""),
    ("rất là", "rất"),
    ("cực kỳ là", "cực kỳ"),
];

/// Spoken fillers that are also ordinary words ("I like it", "do you know why"): removed only
/// where punctuation sets them off, at the start of a sentence or after a comma, and followed
/// by a comma or the end of the sentence ("It was, like, huge." → "It was huge.").
const SET_OFF_FILLERS: &[&str] = &["you know", "i mean", "you see", "like"];

/// Sentence-closing punctuation, kept when the word carrying it is removed.
const CLOSING: &[char] = &['.', '!', '?', '…'];

/// `script` without fillers, wordy phrases, doubled words and repeated sentences, never under
/// `min_words` words. A sentence counts as repeated when its words, once tightened, are the
/// words of an earlier one (case and punctuation aside), as a transcript repeats itself.
pub(crate) fn tighten(script: &str, min_words: usize) -> String {
    let mut total = word_count(script);
    let mut seen: Vec<String> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    for sentence in split_sentences(script) {
        let n = word_count(&sentence);
        let edited = tighten_sentence(&sentence);
        let m = word_count(&edited);
        let key = sentence_key(&edited);
        // Nothing but fillers, or said before: the whole sentence goes.
        if (m == 0 || seen.contains(&key)) && total - n >= min_words {
            total -= n;
            continue;
        }
        if m > 0 && total - n + m >= min_words {
            total = total - n + m;
            seen.push(key);
            out.push(edited);
        } else {
            seen.push(sentence_key(&sentence));
            out.push(sentence);
        }
    }
    out.join(" ")
}

/// A sentence's words, lowercase and without punctuation: what makes two sentences the same.
fn sentence_key(sentence: &str) -> String {
    sentence
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One sentence with [`EDITS`] applied and fillers and doubled words removed; the first
/// letter stays a capital and the closing punctuation stays. A filler set off by commas takes
/// its comma with it.
fn tighten_sentence(sentence: &str) -> String {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let norm: Vec<String> = words
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if let Some((len, with)) = edit_at(&words, &norm, i, out.last()) {
            let last = words[i + len - 1];
            let closing: String = last.chars().filter(|c| CLOSING.contains(c)).collect();
            if with.is_empty() {
                if let Some(prev) = out.last_mut() {
                    // "did, um, the work" → "did the work"; "works, you know." → "works."
                    if prev.ends_with(',') && (last.ends_with(',') || !closing.is_empty()) {
                        prev.pop();
                    }
                    prev.push_str(&closing);
                }
            } else {
                out.push(format!("{with}{closing}"));
            }
            i += len;
            continue;
        }
        let doubled = i > 0 && norm[i] == norm[i - 1] && !norm[i].is_empty();
        if !doubled {
            out.push(words[i].to_string());
        }
        i += 1;
    }
    let mut s = out.join(" ");
    if sentence.chars().next().is_some_and(char::is_uppercase) {
        let mut c = s.chars();
        if let Some(f) = c.next() {
            s = f.to_uppercase().collect::<String>() + c.as_str();
        }
    }
    s
}

/// The edit that starts at word `i`, if any: how many words it covers and what replaces them
/// (`""`: nothing). `prev` is the last word kept so far.
fn edit_at(
    words: &[&str],
    norm: &[String],
    i: usize,
    prev: Option<&String>,
) -> Option<(usize, &'static str)> {
    let starts = |phrase: &str| {
        let p: Vec<&str> = phrase.split(' ').collect();
        (i + p.len() <= words.len() && p.iter().zip(&norm[i..]).all(|(a, b)| a == b))
            .then_some(p.len())
    };
    if let Some(edit) = EDITS
        .iter()
        .find_map(|(phrase, with)| starts(phrase).map(|len| (len, *with)))
    {
        return Some(edit);
    }
    if is_hesitation(words[i], &norm[i]) {
        return Some((1, ""));
    }
    let opened = prev.is_none_or(|p| p.ends_with(','));
    SET_OFF_FILLERS.iter().find_map(|phrase| {
        let len = starts(phrase)?;
        let last = words[i + len - 1];
        let closed = i + len == words.len() || last.ends_with(',') || last.ends_with(CLOSING);
        (opened && closed).then_some((len, ""))
    })
}

/// A hesitation sound: "um", "umm", "uh", "uhm", "er", "erm", "hmm", "ah". An all-capitals
/// word ("ER", a ward) is a name, not a sound.
fn is_hesitation(raw: &str, norm: &str) -> bool {
    let core = raw.trim_matches(|c: char| !c.is_alphanumeric());
    if core.chars().count() > 1 && core.chars().all(char::is_uppercase) {
        return false;
    }
    let mut chars = norm.chars();
    let (Some(first), rest) = (chars.next(), chars.as_str()) else {
        return false;
    };
    let only = |set: &[char]| !rest.is_empty() && rest.chars().all(|c| set.contains(&c));
    match first {
        'u' => only(&['h', 'm']),
        'h' => only(&['m']),
        'a' => only(&['h']),
        'e' => rest.starts_with('r') && only(&['r', 'm']) && rest != "rr",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;

    #[test]
    fn fillers_go_and_the_meaning_stays() {
        let cases = [
            (
                "Basically, we really need to ship faster.",
                "We need to ship faster.",
            ),
            (
                "We did this in order to save time.",
                "We did this to save time.",
            ),
            ("It was the the best plan.", "It was the best plan."),
            ("Thực ra thì chúng tôi rất là bận.", "Chúng tôi rất bận."),
            (
                "Plain words stay as they are.",
                "Plain words stay as they are.",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(tighten(input, 0), want, "{input}");
        }
    }

    #[test]
    fn a_repeated_sentence_goes_but_never_below_the_minimum() {
        assert_eq!(
            tighten("One two three. One two three. Four.", 0),
            "One two three. Four."
        );
        let script = "We really really want this. ".repeat(20);
        let out = tighten(&script, 80);
        assert!(word_count(&out) >= 80, "{}", word_count(&out));
        assert!(word_count(&out) < word_count(&script));
    }

    #[test]
    fn spoken_fillers_go_where_they_are_fillers() {
        let cases = [
            ("Um, so we ship on Friday.", "So we ship on Friday."),
            ("We did, uh, the whole roof.", "We did the whole roof."),
            ("Ummm we start. Hmm.", "We start."),
            ("It was, like, huge.", "It was huge."),
            ("Like, it works every time.", "It works every time."),
            ("It works, you know.", "It works."),
            ("I mean, the price is fair.", "The price is fair."),
            // The same words as ordinary words stay.
            ("I like the new panels.", "I like the new panels."),
            ("Do you know the answer?", "Do you know the answer?"),
            ("I mean it.", "I mean it."),
            ("Take her to the ER today.", "Take her to the ER today."),
        ];
        for (input, want) in cases {
            assert_eq!(tighten(input, 0), want, "{input}");
        }
    }

    #[test]
    fn a_transcript_loses_its_fillers_and_its_repeated_sentences() {
        let transcript = "Um, so, today I want to talk about solar panels. \
            Uh, solar panels cut your power bills. Solar panels cut your power bills! \
            You know, they work on cloudy days too. I mean, the the battery stores the surplus. \
            So, um, today I want to talk about solar panels. Call us, like, this week.";
        assert_eq!(
            tighten(transcript, 0),
            "So, today I want to talk about solar panels. Solar panels cut your power bills. \
             They work on cloudy days too. The battery stores the surplus. Call us this week."
        );
    }

    #[test]
    fn the_chat_connector_tightens_and_an_answer_out_of_range_is_not_used() {
        use foundation::testserver;
        let good = "Tight words stay. ".repeat(30);
        for (answer, want_writer) in [
            (good.clone(), "openai"),
            ("Too short.".into(), "extractive"),
        ] {
            let reply = answer.clone();
            let server = testserver::start(move |_| {
                let body = json!({"choices": [{"index": 0,
                    "message": {"role": "assistant", "content": reply}}]});
                (
                    200,
                    "application/json".into(),
                    body.to_string().into_bytes(),
                )
            });
            let (_rt, http) = testserver::http_for(&server);
            let chat = ChatContent {
                http,
                base_url: server.url(),
                model: "m".into(),
                api_key: String::new(),
            };
            let script = "We really want this to work well. ".repeat(15);
            let out =
                std::thread::scope(|s| s.spawn(|| enhanced(Some(&chat), &script)).join().unwrap());
            assert_eq!(out.writer, want_writer);
            assert!(out.words_after >= SCRIPT_MIN_WORDS);
            let sent = server.requests()[0].json();
            let system = sent["messages"][0]["content"].as_str().unwrap();
            assert!(system.contains("keep its meaning"), "{system}");
            assert_eq!(sent["messages"][1]["content"], script.as_str());
        }
    }

    #[test]
    fn script_text_answers_with_create_videos_codes() {
        for (body, code) in [
            (json!({}), Code::MissingField),
            (json!({"script_text": "too short"}), Code::ScriptTooShort),
            (
                json!({"script_text": "w ".repeat(501)}),
                Code::ScriptTooLong,
            ),
            (json!({"script_text": 4}), Code::InvalidField),
        ] {
            let e = body::read::<EnhanceScriptRequest>(&body).unwrap_err();
            assert_eq!(
                (e.code, e.param.as_deref()),
                (code, Some("script_text")),
                "{body}"
            );
        }
        assert!(
            body::read::<EnhanceScriptRequest>(&json!({"script_text": "w ".repeat(80)})).is_ok()
        );
    }
}
