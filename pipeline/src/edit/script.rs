//! The script view's approval (`POST /app/editor/{topic_id}/script`): the reviewer's edited
//! segments of an `output_type=text` video, in order. Approving joins them into the script
//! the scenes are narrated from (`Engine::approve_script`).

use serde::Deserialize;
use utoipa::ToSchema;

use foundation::error::{Code, Error, Result};
use foundation::fields::Body;

/// Most words a script may have (create_video's `script_text` limit).
pub(crate) const MAX_WORDS: usize = 500;
/// Most segments one approval may carry.
pub(crate) const MAX_SEGMENTS: usize = 100;

/// The body of a script approval.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ScriptApproval {
    /// The segments' narration in order; empty ones are dropped. 1 to 500 words in all.
    #[schema(min_items = 1, max_items = 100)]
    pub segments: Vec<String>,
}

impl Body for ScriptApproval {
    type Valid = ScriptApproval;
    const CODES: &'static [(&'static str, Code)] = &[("segments", Code::InvalidValue)];

    /// Each segment's whitespace collapsed and empty ones dropped; at most 100 segments and 1
    /// to 500 words in all.
    fn validate(self) -> Result<ScriptApproval> {
        if self.segments.len() > MAX_SEGMENTS {
            return Err(
                Error::new(Code::InvalidValue, "`segments` may hold at most 100 texts.")
                    .param("segments"),
            );
        }
        let segments: Vec<String> = self
            .segments
            .iter()
            .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|text| !text.is_empty())
            .collect();
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
}

impl ScriptApproval {
    /// The script to narrate: one paragraph per segment.
    pub fn script(&self) -> String {
        self.segments.join("\n\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body::read;
    use serde_json::json;

    #[test]
    fn segments_are_trimmed_and_joined_and_bad_bodies_name_segments() {
        let ok =
            read::<ScriptApproval>(&json!({"segments": [" One  two. ", "", "Three."]})).unwrap();
        assert_eq!(ok.script(), "One two.\n\nThree.");
        for body in [
            json!({}),
            json!({"segments": ["", " "]}),
            json!({"segments": "text"}),
            json!({"segments": [3]}),
            json!({"segments": ["word ".repeat(501)]}),
            json!({"segments": vec!["word"; 101]}),
        ] {
            let e = read::<ScriptApproval>(&body).unwrap_err();
            assert_eq!(e.param.as_deref(), Some("segments"), "{body}");
        }
    }
}
