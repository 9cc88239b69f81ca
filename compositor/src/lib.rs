//! The render core of Reelsmith.
//!
//! The pipeline builds a [`plan::VideoPlan`] for a video (scenes with backgrounds, narrator
//! cards, word-timed captions and overlay objects) and hands it here. The crate then works like
//! resvg: [`resolve()`] does everything that can fail (fonts, image decoding, SVG parsing)
//! and pre-rasterises every static layer; the resulting [`ResolvedVideo`] renders frames
//! that cannot fail ([`frame`]), pulled in parallel by the MP4 encoder in [`media`] through
//! [`media::FrameSource`], and the editor's stills come from the same renderer ([`still`]).
//!
//! Spaces: the video canvas is 720×1280, the editor preview 280×498; [`geom`] keeps them apart.
//! This crate knows nothing of HTTP, async runtimes or storage, and its only text engine is the
//! `typography` crate with the pinned fonts in `assets/fonts`.
#![forbid(unsafe_code)]

mod blit;
pub mod chunk;
mod clip;
mod clip_cache;
pub mod contact_sheet;
pub mod focus;
pub mod frame;
pub mod geom;
pub mod half;
pub mod illustration;
mod layers;
pub mod media;
mod paint;
pub mod plan;
pub mod raster;
pub mod resolve;
pub mod spec;
pub mod still;
pub mod svg2spec;

pub use frame::{FRAME_BYTES, View};

/// The renderer's version: the crate version and a digest of the source that decides a
/// frame's pixels (this crate and `typography`, see `build.rs`). A cache of rendered output
/// keys on it, so any change to the renderer renders everything again.
pub const RENDERER_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("REELSMITH_RENDERER_DIGEST")
);
pub use layers::captions;
pub use plan::VideoPlan;
pub use resolve::{ResolveError, ResolvedVideo, resolve};
pub use still::{overlay_poster, screenshot_280x498};
