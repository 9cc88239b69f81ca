//! Media in: the `create_video` request, media sources (obtain — refused while downloading when the header declares
//! too long a length (`declared`) —, probe, adjust, transcribe, cut
//! into scenes), and uploaded assets with their presigned PUTs. Uses `build`, `render` and
//! `foundation`.

pub mod adjust;
pub mod assets;
pub mod create;
pub mod declared;
pub mod media_source;
pub mod transcribe;
