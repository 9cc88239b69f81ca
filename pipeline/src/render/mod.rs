//! Rendering: a video document becomes a compositor render plan, an MP4, or stills
//! (screenshots and overlay posters). Uses `core` only.

pub mod chunks;
pub mod contact_sheet;
pub mod half;
pub mod plan;
pub mod preview;
pub mod sound;
pub mod spec_file;
pub mod stills;
pub mod task;
