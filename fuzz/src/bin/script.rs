//! The script splitter and inline-media parser (`pipeline::build::script`): any text through
//! `split_script` and the helpers create_video validates scripts with.

use pipeline::build::script;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let Some(text) = reelsmith_fuzz::text(data) else {
            return;
        };
        let _ = script::estimated_speech_secs(text);
        let _ = script::overlong_word(text);
        let _ = script::split_sentences(text);
        let scenes = script::split_script(text);
        // Scene texts are the script's spoken words, never more than it has.
        let spoken: usize = scenes.iter().map(|s| script::word_count(&s.text)).sum();
        assert!(spoken <= script::word_count(text), "scenes hold more words than the script");
        assert!(scenes.iter().all(|s| !s.text.trim().is_empty()), "an empty scene");
    });
}
