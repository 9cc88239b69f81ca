//! Shared bits of the fuzz targets: where the project's assets are, and a current-thread
//! runtime for the targets that drive async code.

use std::path::PathBuf;
use std::sync::LazyLock;

/// The project's `assets/` folder (fonts for svg2spec and the typography designer).
pub fn assets_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets")
}

/// The pinned fonts, `assets/fonts`.
pub fn fonts_dir() -> PathBuf {
    assets_dir().join("fonts")
}

/// One runtime per process, built once (building one per input would dominate the run).
pub static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
});

/// `data` as UTF-8, or `None` (text targets skip inputs that are not text: their real callers
/// only ever see `&str`).
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}
