//! Picks the editor's built files for `include_dir!`: `assets/editor/dist` when `make editor`
//! (`npm ci && npm run build`) has produced it, else a placeholder folder in `OUT_DIR` whose
//! page says how to build the editor. So `cargo build` and `cargo clippy` work on a clone where
//! Node was never run, and a build after `make editor` embeds the real app.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dist = manifest.join("../assets/editor/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    println!("cargo:rerun-if-changed=build.rs");
    let chosen = if dist.join("editor.js").is_file() {
        println!("cargo:rustc-env=EDITOR_BUILT=1");
        dist.canonicalize().expect("dist resolves")
    } else {
        let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("editor");
        std::fs::create_dir_all(&out).expect("placeholder folder");
        std::fs::write(
            out.join("editor.js"),
            "document.getElementById('app')?.insertAdjacentHTML('afterbegin',\
             '<p class=\"unbuilt\">The editor app is not built into this binary: run \
             <code>make editor</code>, then build the daemon again.</p>');\n",
        )
        .expect("placeholder script");
        std::fs::write(out.join("editor.css"), "").expect("placeholder style");
        println!("cargo:rustc-env=EDITOR_BUILT=0");
        out
    };
    println!("cargo:rustc-env=EDITOR_DIST={}", chosen.display());
}
