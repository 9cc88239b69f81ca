//! The script view's approval (`POST /app/editor/{topic_id}/script`): the reviewer's edited
//! segments of an `output_type=text` video, in order. Approving joins them into the script
//! the scenes are narrated from (`Engine::approve_script`).

use serde_json::Value;
use utoipa::ToSchema;

use foundation::error::{Code, Error, Result};
use foundation::fields::Fields;

/// Most words a script may have (create_video's `script_text` limit).
pub(crate) const MAX_WORDS: usize = 500;
/// Most segments one approval may carry.
pub(crate) const MAX_SEGMENTS: usize = 100;

/// The body of a script approval.
#[derive(Debug, Clone, PartialEq, ToSchema)]
pub struct ScriptApproval {
    /// The segments' narration in order; empty ones are dropped. 1 to 500 words in all.
    #[schema(min_items = 1, max_items = 100, value_type = Vec<String>)]
    pub segments: Vec<String>,
}

impl ScriptApproval {
    /// Reads the body: `segments` is required, a list of strings with at least one word.
    pub fn parse(body: &Value) -> Result<ScriptApproval> {
        let f = Fields::of(body)?;
        let invalid = |m: &str| Error::new(Code::InvalidValue, m).param("segments");
        let list = match f.value("segments") {
            None | Some(Value::Null) => return Err(Error::missing("segments")),
            Some(Value::Array(a)) => a,
            Some(_) => return Err(invalid("`segments` must be a list of texts.")),
        };
        if list.len() > MAX_SEGMENTS {
            return Err(invalid("`segments` may hold at most 100 texts."));
        }
        let mut segments = Vec::with_capacity(list.len());
        for item in list {
            let Value::String(text) = item else {
                return Err(invalid("Every segment must be a text."));
            };
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if !text.is_empty() {
                segments.push(text);
            }
        }
        let words: usize = segments.iter().map(|s| s.split(' ').count()).sum();
        if words == 0 {
            return Err(Error::missing("segments"));
        }
        if words > MAX_WORDS {
            return Err(Error::new(
                Code::ScriptTooLong,
                format!("The script has {words} words; at most {MAX_WORDS} are narrated."),
            )
            .param("segments"));
        }
        Ok(ScriptApproval { segments })
    }

    /// The script to narrate: one paragraph per segment.
    pub fn script(&self) -> String {
        self.segments.join("\n\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn segments_are_trimmed_and_joined_and_bad_bodies_name_segments() {
        let ok =
            ScriptApproval::parse(&json!({"segments": [" One  two. ", "", "Three."]})).unwrap();
        assert_eq!(ok.script(), "One two.\n\nThree.");
        for body in [
            json!({}),
            json!({"segments": ["", " "]}),
            json!({"segments": "text"}),
            json!({"segments": [3]}),
            json!({"segments": ["word ".repeat(501)]}),
        ] {
            let e = ScriptApproval::parse(&body).unwrap_err();
            assert_eq!(e.param.as_deref(), Some("segments"), "{body}");
        }
    }
}
