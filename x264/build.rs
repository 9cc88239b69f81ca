//! Compiles the C layer over libx264 (`src/shim.c`) and links the system's libx264, found with
//! pkg-config (Debian's `libx264-dev`).

fn main() {
    println!("cargo:rerun-if-changed=src/shim.c");
    let library = match pkg_config::Config::new().probe("x264") {
        Ok(library) => library,
        Err(e) => panic!("libx264 not found (install libx264-dev; `make setup` does): {e}"),
    };
    let mut build = cc::Build::new();
    build.file("src/shim.c").warnings(true).extra_warnings(true);
    for path in &library.include_paths {
        build.include(path);
    }
    for (name, value) in &library.defines {
        build.define(name, value.as_deref());
    }
    build.compile("reelsmith_x264_shim");
}
