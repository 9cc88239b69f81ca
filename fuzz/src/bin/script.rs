//! The script splitter and inline-media parser (`video::build::script`): any text through
//! `split_script` and the helpers create_video validates scripts with.

use video::build::script;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let Some(text) = reelsmith_fuzz::text(data) else {
            return;
        };
        let _ = script::estimated_speech_secs(text);
        let _ = script::overlong_word(text);
        let _ = script::split_sentences(text);
        let scenes = script::split_script(text);
        // The module's invariant: the scenes hold exactly the words the limits count (the
        // script's words with inline media taken out), in order, none dropped or repeated.
        let held: Vec<&str> = scenes
            .iter()
            .flat_map(|s| s.text.split_whitespace())
            .collect();
        assert_eq!(
            held,
            script::spoken_words(text),
            "scenes and spoken words differ"
        );
    });
}
