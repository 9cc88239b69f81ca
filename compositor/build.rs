//! Stamps the renderer's version: a digest of the source that decides a frame's pixels (this
//! crate and the typography crate it draws text with). Per-scene chunk caches key on it
//! (`compositor::RENDERER_VERSION`), so a build whose renderer changed in any way renders every
//! scene again, while a rebuild of unchanged renderer code keeps every cached chunk.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let roots = [manifest.join("src"), manifest.join("../typography/src")];
    let mut files = Vec::new();
    for root in &roots {
        println!("cargo:rerun-if-changed={}", root.display());
        collect(root, &mut files);
    }
    files.sort();
    // Two FNV-1a lanes with different offsets: a 128-bit fingerprint, no dependency.
    let mut lanes = [0xcbf2_9ce4_8422_2325_u64, 0x6c62_272e_07bb_0142_u64];
    for file in &files {
        let name = file
            .strip_prefix(&manifest)
            .unwrap_or(file)
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(file).unwrap_or_default();
        for byte in name.bytes().chain([0]).chain(bytes) {
            for lane in &mut lanes {
                *lane = (*lane ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    println!(
        "cargo:rustc-env=REELSMITH_RENDERER_DIGEST={:016x}{:016x}",
        lanes[0], lanes[1]
    );
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
