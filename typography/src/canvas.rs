//! The canvas every crate draws on: the 720×1280 portrait frame and the safe band inside it.
//!
//! typography sits at the bottom of the crate chain, so it owns these numbers; the compositor
//! (`compositor::geom`) and the pipeline import them instead of repeating them. Values are whole
//! pixels; the designer's `f32` views live in [`crate::design`] and are derived from these.

/// Width of the final video frame, pixels.
pub const CANVAS_W: u32 = 720;
/// Height of the final video frame, pixels.
pub const CANVAS_H: u32 = 1280;
/// Top of the safe band: designed objects never reach above this y.
pub const SAFE_TOP: u32 = 128;
/// Bottom of the safe band: designed objects never reach below this y.
pub const SAFE_BOTTOM: u32 = 960;

// The band is a non-empty strip inside the canvas.
const _: () = assert!(SAFE_TOP < SAFE_BOTTOM && SAFE_BOTTOM <= CANVAS_H);
