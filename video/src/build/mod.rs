//! Scene building: a script (or an idea or blog post turned into narration by the writer) is
//! split into scene drafts (`work.rs`; media sources draft theirs in `ingest`), and the one
//! scene assembly (`scenes.rs`) directs, voices, gives B-roll and overlays to the drafts of any
//! source. Uses `render` and `foundation`.

pub(crate) mod broll;
pub(crate) mod config;
pub(crate) mod copy;
pub(crate) mod direction;
pub(crate) mod illustrations;
pub(crate) mod llm;
pub(crate) mod overlays;
pub(crate) mod placement;
pub(crate) mod providers;
pub(crate) mod scenes;
pub(crate) mod script;
pub(crate) mod spoken;
pub(crate) mod voice;
pub(crate) mod work;
pub(crate) mod writer;

// The facade: what the crates above may name.
pub use broll::{BrollItem, BrollProvider, Library, Pexels, Query, Ratio, grid_items};
pub use config::{BrollConfig, BrollKind, VoiceConfig, VoiceKind, WriterConfig, WriterKind};
pub use copy::{check as check_copy, normalized, split_stat};
pub use direction::{PATTERNS, SceneInput, direct, wants_overlay};
pub use illustrations::Offline;
pub use llm::chat_completion;
pub use overlays::{OverlayFonts, SceneOverlay, build as build_overlay};
pub use placement::{A_ROLL_BAND, Anchor, B_ROLL_BAND, OverlayBand, subject_of_picture};
pub use providers::{Providers, http, offline};
pub use scenes::{StageTimes, add_scene, revoice};
pub use script::{
    estimated_speech_secs, overlong_word, split_script, split_sentences, spoken_words, word_count,
};
pub use voice::{
    Embedded, Espeak, Host, Narration, Piper, SAMPLE_RATE, VoiceError, VoiceInfo, VoiceProvider,
    WORKER_COMMAND, serve_worker, write_wav,
};
pub use work::{BuildRequest, Context, build as build_from_script, build_document};
pub use writer::{cap_words, is_stopword, narrate, rank_sentences, title};
