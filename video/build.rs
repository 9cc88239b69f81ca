//! Stamps the soundtrack's version: a digest of the code that reads and mixes the narration
//! and the music bed (`src/render/sound/` and the narration reader in `src/render/plan.rs`).
//! The encoded soundtrack of a render is cached under a key that includes it
//! (`render::plan::soundtrack_key`), so a change to the mix encodes every soundtrack again.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let sources = [
        manifest.join("src/render/sound"),
        manifest.join("src/render/plan.rs"),
    ];
    let mut files = Vec::new();
    for source in &sources {
        println!("cargo:rerun-if-changed={}", source.display());
        collect(source, &mut files);
    }
    files.sort();
    // FNV-1a, 64 bits: a version stamp, not a security boundary.
    let mut digest = 0xcbf2_9ce4_8422_2325_u64;
    for file in &files {
        let bytes = std::fs::read(file).unwrap_or_default();
        for byte in file
            .strip_prefix(&manifest)
            .unwrap_or(file)
            .to_string_lossy()
            .bytes()
            .chain([0])
            .chain(bytes)
        {
            digest = (digest ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=REELSMITH_SOUND_DIGEST={digest:016x}");
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_owned());
        return;
    }
    for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
        collect(&entry.path(), out);
    }
}
