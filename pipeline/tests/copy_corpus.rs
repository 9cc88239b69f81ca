//! The copy rules over a corpus of scripts (`tests/corpus/scripts/*.txt`, English and
//! Vietnamese, 80–300 words each): every script is split into scenes and directed as scene
//! building does, every overlay is designed, and the copy of every text object it sets is
//! checked against the scene's spoken text. Run it with `--nocapture` to see the summary.

use std::path::{Path, PathBuf};

use foundation::document::SceneType;
use video::build;
use video::build::{
    A_ROLL_BAND, Anchor, B_ROLL_BAND, OverlayBand, OverlayFonts, SceneInput, SceneOverlay,
    check_copy, normalized, split_script, split_stat,
};

/// Overlay objects whose text is fixed, not copy (the tag and the CTA button).
const FIXED: &[&str] = &["tag", "cta_button"];

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/scripts");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
}

/// What one script's overlays gave: objects checked and the violations found.
struct Tally {
    objects: usize,
    violations: Vec<String>,
}

fn check_script(fonts: &OverlayFonts, path: &Path, out: &Path, tally: &mut Tally) {
    let text = std::fs::read_to_string(path).unwrap();
    let words = text.split_whitespace().count();
    assert!(
        (80..=300).contains(&words),
        "{}: {words} words",
        path.display()
    );
    let name = path.file_stem().unwrap().to_string_lossy().to_string();
    // The script's own language, as scene building detects it; the file name says which it is.
    let language = foundation::language::detect(&text).language().name();
    let named = if name.starts_with("vi-") {
        "Vietnamese"
    } else {
        "English"
    };
    if language != named {
        tally
            .violations
            .push(format!("{name}: detected as {language}"));
    }
    let drafts = split_script(&text);
    let inputs: Vec<SceneInput<'_>> = drafts
        .iter()
        .map(|d| SceneInput {
            text: &d.text,
            has_media: false,
        })
        .collect();
    for (i, (d, dir)) in drafts.iter().zip(build::direct(&inputs, false)).enumerate() {
        let mut fail = |what: String| {
            tally
                .violations
                .push(format!("{name} scene {}: {what}", i + 1))
        };
        if build::wants_overlay(dir.scene_type)
            && let Err(v) = check_copy(&dir.quote, dir.scene_type, &d.text)
        {
            fail(format!("{:?} {v} ({:?})", dir.quote, d.text));
        }
        let a_roll = dir.roll == foundation::document::Roll::ARoll;
        let s = SceneOverlay {
            voice_file: &format!("v{i}"),
            scene_type: Some(dir.scene_type),
            quote: &dir.quote,
            a_roll,
            language,
            words: &[],
            duration: 4.0,
            // The widest band of the scene's roll, centred: the copy's words, not its place.
            band: centred_band(a_roll),
        };
        let Some(w) = build::build_overlay(fonts, &s, out).unwrap() else {
            continue;
        };
        let mut set = Vec::new();
        for o in w
            .spec
            .objects()
            .filter(|o| !FIXED.contains(&o.layout_id.as_str()))
        {
            let shown = o.text.clone().unwrap_or_default().replace('\n', " ");
            tally.objects += 1;
            if let Err(v) = check_copy(&shown, SceneType::KeyPoint, &d.text) {
                fail(format!("{} {shown:?}: {v}", o.layout_id));
            }
            set.extend(normalized(&shown));
        }
        let (number, label) = match dir.scene_type {
            SceneType::Stat => split_stat(&dir.quote),
            _ => (dir.quote.clone(), String::new()),
        };
        let whole: Vec<String> = normalized(&format!("{number} {label}"));
        if set != whole {
            fail(format!(
                "overlay sets {set:?}, its copy is {whole:?} (cut by layout)"
            ));
        }
    }
}

#[test]
fn every_overlay_of_the_corpus_obeys_the_copy_rules() {
    let fonts =
        OverlayFonts::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/fonts")).unwrap();
    let files = corpus();
    let vi = files
        .iter()
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("vi-"))
        .count();
    assert!(
        files.len() >= 50 && vi >= 15,
        "{} scripts, {vi} Vietnamese",
        files.len()
    );
    let out = tempfile::tempdir().unwrap();
    let mut tally = Tally {
        objects: 0,
        violations: Vec::new(),
    };
    for f in &files {
        check_script(&fonts, f, out.path(), &mut tally);
    }
    println!(
        "copy corpus: {} scripts ({vi} Vietnamese), {} overlay objects checked, {} violations",
        files.len(),
        tally.objects,
        tally.violations.len()
    );
    assert!(tally.objects > files.len() * 3, "{} objects", tally.objects);
    assert!(tally.violations.is_empty(), "{:#?}", tally.violations);
}

fn centred_band(a_roll: bool) -> OverlayBand {
    let (top, bottom) = if a_roll { A_ROLL_BAND } else { B_ROLL_BAND };
    OverlayBand {
        top,
        bottom,
        anchor: Anchor::Centre,
    }
}
