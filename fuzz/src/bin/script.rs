//! The script splitter and inline-media parser (`video/src/build/script.rs`): any text through
//! `split_script` and the helpers create_video validates scripts with.

use video::build;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let Some(text) = reelsmith_fuzz::text(data) else {
            return;
        };
        let _ = build::estimated_speech_secs(text);
        let _ = build::overlong_word(text);
        let _ = build::split_sentences(text);
        let scenes = build::split_script(text);
        // The module's invariant: the scenes hold exactly the words the limits count (the
        // script's words with inline media taken out), in order, none dropped or repeated.
        let held: Vec<&str> = scenes
            .iter()
            .flat_map(|s| s.text.split_whitespace())
            .collect();
        assert_eq!(
            held,
            build::spoken_words(text),
            "scenes and spoken words differ"
        );
    });
}
