//! The music-bed library: `assets/music/music.json` (made with its loops by
//! `assets/music/make_music.py`), the check of a requested track id, and the `auto` choice by
//! the script's mood.
//!
//! The index is compiled in, so a request's `music` is checked without I/O; the loops
//! themselves (stereo Ogg Vorbis) are read from `{assets_dir}/music/` when a video is rendered.

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use compositor::media::{CHANNELS, MediaError, SAMPLE_RATE, decode_audio_blocks};
use serde::Deserialize;

use super::bed::Loop;
use foundation::document::{Music, VideoDocument};
use foundation::error::{Code, Error, Result};

/// The index as committed beside the loops.
const INDEX: &str = include_str!("../../../../assets/music/music.json");

/// One loop of the library.
#[derive(Debug, Clone, Deserialize)]
pub struct Track {
    pub id: String,
    /// Relative to `{assets_dir}/music`.
    pub file: String,
    /// Mood tags, matched against the script by [`auto`].
    pub moods: Vec<String>,
}

#[derive(Deserialize)]
struct Index {
    tracks: Vec<Track>,
}

/// Every track, in the index's order.
pub(crate) fn tracks() -> &'static [Track] {
    static TRACKS: OnceLock<Vec<Track>> = OnceLock::new();
    TRACKS.get_or_init(|| {
        serde_json::from_str::<Index>(INDEX)
            .expect("assets/music/music.json is valid")
            .tracks
    })
}

/// The track with `id`.
pub fn find(id: &str) -> Option<&'static Track> {
    tracks().iter().find(|t| t.id == id)
}

/// Whether `music` names something that exists (`auto`, `none`, or a library id).
pub(crate) fn is_known(music: &Music) -> bool {
    match music {
        Music::Auto | Music::Off => true,
        Music::Track(id) => find(id).is_some(),
    }
}

/// Reads a client's `music` value (`param` names the field): `auto`, `none`, or a library
/// track id; anything else is 400 `invalid_music`, naming the ids.
pub fn read(value: &str, param: &str) -> Result<Music> {
    let music = Music::from(value.trim().to_ascii_lowercase());
    if is_known(&music) {
        return Ok(music);
    }
    let ids: Vec<&str> = tracks().iter().map(|t| t.id.as_str()).collect();
    Err(Error::new(
        Code::InvalidMusic,
        format!(
            "`{param}` must be `auto`, `none` or a track id: {}.",
            ids.join(", ")
        ),
    )
    .param(param))
}

/// The OpenAPI schema of a `music` value: the words and the library's ids.
pub fn schema() -> utoipa::openapi::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let mut names = vec![Music::AUTO, Music::NONE];
    names.extend(tracks().iter().map(|t| t.id.as_str()));
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .enum_values(Some(names))
        .default(Some(Music::AUTO.into()))
        .description(Some("The music bed under the narration: `auto` picks a track of the self-made CC0 library by the script's mood, `none` is narration only, or a track id. Ducked under speech; the mix is published at -14 LUFS integrated, true peak at most -1 dBTP. Anything else is 400 `invalid_music`."))
        .build()
}

/// The track a document plays: its own choice, or [`auto`]'s; `None` for narration only.
pub fn resolve(doc: &VideoDocument) -> Option<&'static Track> {
    match &doc.music {
        Music::Off => None,
        Music::Track(id) => find(id),
        Music::Auto => Some(auto(&doc.script, &doc.topic_id)),
    }
}

/// Words of a script that point at a mood tag, English and Vietnamese.
const MOOD_WORDS: &[(&str, &[&str])] = &[
    (
        "calm",
        &[
            "calm",
            "relax",
            "sleep",
            "breathe",
            "peace",
            "thư giãn",
            "bình yên",
        ],
    ),
    (
        "wellness",
        &["health", "wellness", "yoga", "mindful", "sức khỏe"],
    ),
    (
        "tech",
        &[
            "ai",
            "app",
            "software",
            "data",
            "digital",
            "code",
            "tech",
            "công nghệ",
        ],
    ),
    (
        "business",
        &[
            "business",
            "sales",
            "customers",
            "revenue",
            "marketing",
            "kinh doanh",
        ],
    ),
    (
        "energetic",
        &["grow", "fast", "boost", "win", "power", "tăng"],
    ),
    (
        "story",
        &["story", "remember", "family", "journey", "câu chuyện"],
    ),
    (
        "food",
        &["food", "recipe", "coffee", "cook", "taste", "món", "cà phê"],
    ),
    (
        "fitness",
        &["workout", "fitness", "gym", "run", "goal", "tập"],
    ),
    (
        "education",
        &["learn", "study", "lesson", "explain", "why", "học"],
    ),
    ("beauty", &["beauty", "skin", "style", "fashion", "làm đẹp"]),
];

/// The library track whose mood tags best match `script`; ties (and a script that matches no
/// mood) go to a track picked by a stable hash of `seed`, so a video keeps its track.
pub fn auto(script: &str, seed: &str) -> &'static Track {
    let words: Vec<String> = script
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let text = format!(" {} ", words.join(" "));
    let mood_score = |mood: &str| -> usize {
        MOOD_WORDS
            .iter()
            .filter(|(m, _)| *m == mood)
            .flat_map(|(_, ws)| ws.iter())
            .map(|w| text.matches(&format!(" {w} ")).count())
            .sum()
    };
    let score = |t: &Track| -> usize { t.moods.iter().map(|m| mood_score(m)).sum() };
    let all = tracks();
    let start = (stable_hash(seed) % all.len() as u64) as usize;
    // The first best from the hash's start: strictly greater scores replace it.
    let mut best = &all[start];
    let mut best_score = score(best);
    for i in 1..all.len() {
        let t = &all[(start + i) % all.len()];
        let s = score(t);
        if s > best_score {
            (best, best_score) = (t, s);
        }
    }
    best
}

/// FNV-1a: the same track for the same video on every run and platform.
fn stable_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The loop's samples at 48 kHz in −1…1, stereo (left, right interleaved; a mono file in both
/// channels), decoded by GStreamer.
pub fn load(assets_dir: &Path, track: &Track) -> std::result::Result<Loop, MediaError> {
    let path = assets_dir.join("music").join(&track.file);
    let samples = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&samples);
    decode_audio_blocks(&path, (SAMPLE_RATE, CHANNELS), move |block| {
        let mut samples = sink.lock().unwrap_or_else(|e| e.into_inner());
        samples.extend(block.iter().map(|&s| f32::from(s) / 32768.0));
    })?;
    let samples = std::mem::take(&mut *samples.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(Loop {
        samples,
        channels: usize::from(CHANNELS),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_has_six_to_ten_cc0_tracks_with_files() {
        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/music");
        let n = tracks().len();
        assert!((6..=10).contains(&n), "{n} tracks");
        for t in tracks() {
            assert!(assets.join(&t.file).is_file(), "{} is missing", t.file);
            assert!(!t.moods.is_empty(), "{}", t.id);
        }
        assert!(INDEX.contains("CC0"));
    }

    #[test]
    fn every_loop_is_stereo_with_channels_that_differ() {
        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
        for t in tracks() {
            let one = load(&assets, t).unwrap();
            assert_eq!(one.channels, 2, "{}", t.id);
            let power = |f: &dyn Fn(f32, f32) -> f32| -> f32 {
                one.samples
                    .chunks_exact(2)
                    .map(|lr| f(lr[0], lr[1]).powi(2))
                    .sum()
            };
            let mid = power(&|l, r| (l + r) / 2.0);
            let side = power(&|l, r| (l - r) / 2.0);
            // Panned instruments and a little width: a side 6 to 20 dB under the middle (a
            // copy of one channel in both would have no side at all; a side as loud as the
            // middle would fall apart in mono).
            let below = 10.0 * (mid / side.max(1e-12)).log10();
            assert!(
                (6.0..=20.0).contains(&below),
                "{}: side {below:.1} dB under the middle",
                t.id
            );
            // Balanced: neither channel more than 1 dB louder.
            let tilt = 10.0 * (power(&|l, _| l) / power(&|_, r| r)).log10();
            assert!(tilt.abs() < 1.0, "{}: leans {tilt:.1} dB", t.id);
        }
    }

    #[test]
    fn auto_follows_the_scripts_mood_and_is_stable() {
        let calm = auto(
            "Breathe in. Relax and let the calm come back to you.",
            "wcA",
        );
        assert!(calm.moods.iter().any(|m| m == "calm"), "{}", calm.id);
        let tech = auto(
            "Our app uses AI to turn your data into a digital plan.",
            "wcB",
        );
        assert!(tech.moods.iter().any(|m| m == "tech"), "{}", tech.id);
        assert_eq!(auto("nothing", "wcC").id, auto("nothing", "wcC").id);
    }

    #[test]
    fn known_ids_auto_and_none_are_accepted_others_not() {
        assert!(is_known(&Music::Auto));
        assert!(is_known(&Music::Off));
        assert!(is_known(&Music::Track("calm-tide".into())));
        assert!(!is_known(&Music::Track("no-such-track".into())));
        assert_eq!(read(" None ", "music").unwrap(), Music::Off);
        let e = read("jazz", "music").unwrap_err();
        assert_eq!(
            (e.code, e.param.as_deref()),
            (Code::InvalidMusic, Some("music"))
        );
    }
}
