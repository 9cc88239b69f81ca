//! `reelsmith render --contact-sheet`: three reference videos — a script with a narrator, an
//! idea, a faceless script — built by the real binary, each with its contact sheet written to
//! `target/test-output/contact-sheets/` (or `$REELSMITH_TEST_OUTPUT/contact-sheets/`) for a
//! person to look at. The test checks each sheet has one distinct, non-blank tile per scene.
//! The reference videos ask for the sheet alone (no `-o`: the scenes are built, nothing is
//! encoded); `contact_sheet_defaults_to_the_mp4_path` makes one beside a rendered MP4.

use std::path::{Path, PathBuf};

use compositor::contact_sheet::{TILE_H, TILE_W, sheet_size, tile_origin};
use reelsmith_tests::{browser::output_dir, script};
use tiny_skia::Pixmap;

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");

/// One reference video: its name, what the input file holds, extra flags.
struct Reference {
    name: &'static str,
    input: String,
    flags: &'static [&'static str],
}

fn demo_script() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/demo-script.txt");
    std::fs::read_to_string(path).expect("the demo script")
}

/// Builds `r` with `--contact-sheet PATH` and no `-o` into the test output; returns the sheet's
/// path and the scene count the command reported.
fn sheet_alone(r: &Reference, work: &Path) -> (PathBuf, usize) {
    let input = work.join(format!("{}.txt", r.name));
    std::fs::write(&input, &r.input).unwrap();
    let sheets = output_dir().join("contact-sheets");
    std::fs::create_dir_all(&sheets).unwrap();
    let sheet = sheets.join(format!("{}.png", r.name));
    let _ = std::fs::remove_file(&sheet);
    let o = reelsmith_tests::reelsmith_command(BIN)
        .arg("render")
        .arg(&input)
        .args(r.flags)
        .arg("--contact-sheet")
        .arg(&sheet)
        .env("REELSMITH_LOG", "warn")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{}: {err}", r.name);
    assert!(
        !err.contains("Rendering the video") && !err.contains("of video)"),
        "{}: a sheet alone encodes nothing: {err}",
        r.name
    );
    let scenes = err
        .lines()
        .find_map(|l| l.strip_suffix(" scenes)")?.rsplit('(').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{}: no scene count in {err}", r.name));
    (sheet, scenes)
}

/// The pixels of tile `i`, row by row.
fn tile(sheet: &Pixmap, i: usize) -> Vec<u8> {
    let (x, y) = tile_origin(i);
    (y..y + TILE_H)
        .flat_map(|row| {
            let start = ((row * sheet.width() + x) * 4) as usize;
            sheet.data()[start..start + (TILE_W * 4) as usize].to_vec()
        })
        .collect()
}

fn check_sheet(name: &str, path: &Path, scenes: usize) {
    let sheet = Pixmap::load_png(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(scenes >= 2, "{name}: {scenes} scenes");
    assert_eq!(
        (sheet.width(), sheet.height()),
        sheet_size(scenes),
        "{name}"
    );
    let tiles: Vec<_> = (0..scenes).map(|i| tile(&sheet, i)).collect();
    for (i, t) in tiles.iter().enumerate() {
        let distinct = t
            .chunks(4)
            .map(|p| (p[0] / 16, p[1] / 16, p[2] / 16))
            .collect::<std::collections::HashSet<_>>()
            .len();
        assert!(
            distinct > 20,
            "{name}: tile {} is blank ({distinct} tones)",
            i + 1
        );
        assert!(
            tiles[i + 1..].iter().all(|u| u != t),
            "{name}: tile {} repeats",
            i + 1
        );
    }
}

#[test]
fn contact_sheets_of_the_reference_videos() {
    let work = tempfile::tempdir().unwrap();
    let references = [
        Reference {
            name: "text",
            input: demo_script(),
            flags: &[],
        },
        Reference {
            name: "idea",
            input: "How a small neighbourhood bakery can win regular customers with three \
                    short videos a week. Show the morning bake, answer one customer question, \
                    and share a weekly special. Keep each video under forty seconds and post at \
                    the same time every week."
                .into(),
            flags: &["--source", "idea"],
        },
        Reference {
            name: "faceless",
            input: script(90),
            flags: &["--faceless"],
        },
    ];
    for r in &references {
        let (sheet, scenes) = sheet_alone(r, work.path());
        check_sheet(r.name, &sheet, scenes);
    }
}

#[test]
fn a_contact_sheet_without_an_mp4_needs_its_path() {
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("s.txt");
    std::fs::write(&input, script(20)).unwrap();
    let o = reelsmith_tests::reelsmith_command(BIN)
        .arg("render")
        .arg(&input)
        .arg("--contact-sheet")
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--contact-sheet needs a PATH"), "{err}");
}

#[test]
fn contact_sheet_defaults_to_the_mp4_path() {
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("s.txt");
    std::fs::write(&input, script(85)).unwrap();
    let out = work.path().join("clip.mp4");
    let o = reelsmith_tests::reelsmith_command(BIN)
        .arg("render")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--faceless", "--contact-sheet"])
        .env("REELSMITH_LOG", "warn")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let png = std::fs::read(work.path().join("clip.png")).expect("the sheet beside the MP4");
    assert!(png.starts_with(b"\x89PNG"));
}
