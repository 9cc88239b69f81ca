//! Media in: the `create_video` request, media sources (obtain — refused while downloading when the header declares
//! too long a length (`declared`) —, probe, adjust, transcribe, cut
//! into scenes), and uploaded assets with their presigned PUTs. Uses `build`, `render` and
//! `foundation`.

pub(crate) mod adjust;
pub(crate) mod assets;
pub(crate) mod config;
pub(crate) mod create;
pub(crate) mod declared;
pub(crate) mod media_source;
pub(crate) mod transcribe;

// The facade: what the crates above may name.
pub use assets::{
    Asset, AssetForm, AssetType, Base64Upload, PresignToken, Presigner, UploadAssetReply,
    UploadAssetRequest, check_media, classify, decode_base64, extension, folder_token, presign,
    stored_name,
};
pub use config::{MediaConfig, TranscriptionConfig, TranscriptionKind};
pub use create::{
    BLOG_MAX_WORDS, CreateVideoForm, CreateVideoJson, CreateVideoRequest, CreateVideoUpload,
    IDEA_MIN_WORDS, SCRIPT_MAX_WORDS, SCRIPT_MIN_WORDS, Upload, callback_url_schema,
    check_metadata_size, checked_topic_id, form_field_value, truncate_words,
    validate as validate_create_video, validate_callback,
};
pub use media_source::{build as build_from_media, probe_upload};
