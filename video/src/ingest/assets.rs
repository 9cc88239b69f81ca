//! Uploaded assets (`upload_asset`): which files are accepted, how they are named on the public
//! origin, and the HMAC-signed, single-use presigned PUT.
//!
//! - **Types**: any `audio/*`, `video/*`, `image/*`, plus the document types of the spec; or a
//!   known extension. [`classify`] picks the stored extension and the content type.
//! - **Names**: `assets/{32 hex}/{sanitised basename}`. The folder token is random (128 bits), the
//!   basename is reduced to `[A-Za-z0-9._-]`, so a client filename never becomes a path.
//! - **Presign**: `PUT {base_url}/v1/upload_asset/put/{folder}/{name}?iat=&exp=&max=&sig=`, where
//!   `sig = hex(HMAC-SHA256(key, "PUT\n{folder}/{name}\n{iat}\n{exp}\n{max}"))`. The key is 32
//!   random bytes kept in `{data_dir}/presign.key` (created on first use, never sent anywhere).
//!   A PUT first claims the token with an exclusive marker file, so a replay gets
//!   `presign_used` (409) even while the first upload is still streaming; a failed upload gives
//!   the claim back so the client can retry.
//! - **Requests and replies**: [`UploadAssetRequest`] (the two JSON shapes, one `Body`),
//!   [`AssetForm`] (the multipart shape, for the schema), [`Asset`] and [`AssetPresign`];
//!   [`presign`] answers the presign shape.

use std::io;
use std::path::{Path, PathBuf};

use hmac::{KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::Sha256;
use utoipa::ToSchema;

use foundation::config::Settings;
use foundation::error::{Code, Error};
use foundation::fields::Body;
use foundation::public::{Lifetime, PublicFiles, Published};

/// The JSON body of `POST /v1/upload_asset`: a presigned upload URL, or the file in base64.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum UploadAssetRequest {
    Presign(PresignRequest),
    Base64(Base64Upload),
}

/// The presign shape: the reply is an [`AssetPresign`], the bytes follow by `PUT`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PresignRequest {
    /// `presign` (any case).
    pub mode: PresignMode,
    /// The file's name; only its basename is kept, and it picks the extension.
    #[schema(min_length = 1)]
    pub filename: String,
    /// Informational, not bound to the signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}

/// The one `mode` of `upload_asset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PresignMode {
    Presign,
}

/// The base64 shape: the reply is an [`Asset`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Base64Upload {
    /// The file in base64 (standard or URL-safe, padding optional); a `data:…;base64,`
    /// prefix is stripped.
    #[schema(min_length = 1)]
    pub file_data: String,
    /// The file's name; only its basename is kept.
    #[schema(min_length = 1)]
    pub filename: String,
    /// The content type; else detected from the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}

impl Body for UploadAssetRequest {
    type Valid = UploadAssetRequest;
    const CODES: &'static [(&'static str, Code)] = &[("file_data", Code::InvalidFileData)];

    /// `mode` (any case) is the presign shape; no `mode` is the base64 shape, whose
    /// `file_data` may not be empty: a zero-byte file is `invalid_file_data`, not a missing
    /// field (spec).
    fn form(sent: &Map<String, Value>) -> Result<Option<&'static str>, Error> {
        let given = |name: &str| sent.get(name).filter(|v| !v.is_null());
        if given("mode").is_some_and(|m| m.as_str().is_none_or(|s| !s.trim().is_empty())) {
            return Ok(Some("mode"));
        }
        if given("file_data")
            .and_then(Value::as_str)
            .is_some_and(|s| s.trim().is_empty())
        {
            return Err(Error::new(
                Code::InvalidFileData,
                "`file_data` is empty: a file of zero bytes cannot be uploaded.",
            )
            .param("file_data"));
        }
        Ok(Some("file_data"))
    }

    /// Names trimmed; a blank `content_type` is absent.
    fn validate(self) -> Result<Self, Error> {
        let content_type =
            |c: Option<String>| c.map(|c| c.trim().to_string()).filter(|c| !c.is_empty());
        Ok(match self {
            UploadAssetRequest::Presign(p) => UploadAssetRequest::Presign(PresignRequest {
                mode: p.mode,
                filename: p.filename.trim().to_string(),
                content_type: content_type(p.content_type),
            }),
            UploadAssetRequest::Base64(b) => UploadAssetRequest::Base64(Base64Upload {
                file_data: b.file_data,
                filename: b.filename.trim().to_string(),
                content_type: content_type(b.content_type),
            }),
        })
    }
}

/// The multipart shape of `upload_asset` (for the schema; the API streams it).
#[derive(Debug, Clone, ToSchema)]
pub struct AssetForm {
    /// The file, at most 500 MB.
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

/// The reply of `POST /v1/upload_asset`: an asset, or a presigned upload URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum UploadAssetReply {
    Asset(Asset),
    Presign(AssetPresign),
}

/// The `object` name of an [`Asset`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AssetTag {
    Asset,
}

/// An uploaded asset (`object: asset`), public for 24 hours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Asset {
    pub object: AssetTag,
    /// Where the asset is served (no auth) until `expires_at`.
    #[schema(format = "uri")]
    pub url: String,
    pub content_type: String,
    #[schema(minimum = 1)]
    pub size_bytes: u64,
    /// The stored name: the client's basename reduced to `[A-Za-z0-9._-]`.
    pub filename: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
    pub ttl_hours: Hours,
}

impl Asset {
    /// The reply for a file published as `filename` with `content_type`.
    pub fn new(published: &Published, content_type: &str, filename: &str) -> Asset {
        Asset {
            object: AssetTag::Asset,
            url: published.url.clone(),
            content_type: content_type.to_string(),
            size_bytes: published.bytes,
            filename: filename.to_string(),
            expires_at: published.expires_at_iso(),
            ttl_hours: Hours::of_secs(published.ttl_seconds),
        }
    }
}

/// The `object` name of an [`AssetPresign`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AssetPresignTag {
    AssetPresign,
}

/// A presigned upload URL (`object: asset_presign`): `PUT` the bytes to `put_url`, with no
/// extra headers, before `put_expires_at`; the asset is then served at `url`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AssetPresign {
    pub object: AssetPresignTag,
    #[schema(format = "uri")]
    pub put_url: String,
    #[schema(format = "uri")]
    pub get_url: String,
    #[schema(format = "uri")]
    pub url: String,
    /// `assets/{folder}/{name}`.
    pub key: String,
    pub content_type: String,
    pub filename: String,
    /// Always empty: the PUT needs no headers.
    pub headers_required: Map<String, Value>,
    pub max_bytes: u64,
    #[schema(format = DateTime)]
    pub put_expires_at: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
    pub ttl_hours: Hours,
}

/// A lifetime in hours: a whole number when it is one (`24`), else a fraction (`0.5`).
#[derive(Debug, Clone, Copy, PartialEq, ToSchema)]
#[schema(value_type = f64)]
pub struct Hours(f64);

impl Hours {
    pub(crate) fn of_secs(secs: u64) -> Hours {
        Hours(secs as f64 / 3600.0)
    }
}

impl Serialize for Hours {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 && self.0 >= 0.0 {
            s.serialize_u64(self.0 as u64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Hours {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        f64::deserialize(d).map(Hours)
    }
}

/// Answers the presign shape: a signed, single-use `PUT` URL under `{base_url}` for a new
/// asset folder.
pub fn presign(
    req: &PresignRequest,
    settings: &Settings,
    public: &PublicFiles,
) -> Result<AssetPresign, Error> {
    let kind = classify(&req.filename, req.content_type.as_deref())?;
    let name = stored_name(&req.filename, &kind.ext);
    let presigner = Presigner::open(&settings.data_dir).map_err(|e| {
        tracing::error!(error = %e, "presign key unavailable");
        Error::new(
            Code::PresignFailed,
            "An upload URL could not be created; try again.",
        )
    })?;
    presigner.sweep_claims(
        settings
            .section::<crate::ingest::config::MediaConfig>()
            .presign_ttl_secs
            + 3600,
    );
    let iat = foundation::time::now();
    let token = PresignToken {
        folder: folder_token(),
        name: name.clone(),
        iat,
        exp: iat
            + settings
                .section::<crate::ingest::config::MediaConfig>()
                .presign_ttl_secs as i64,
        max_bytes: settings
            .section::<crate::ingest::config::MediaConfig>()
            .asset_max_bytes,
    };
    let key = format!("{}/{}", Lifetime::Asset.folder(), token.rel());
    let url = public.url(&key);
    let ttl = public.ttl(Lifetime::Asset).as_secs();
    Ok(AssetPresign {
        object: AssetPresignTag::AssetPresign,
        put_url: format!(
            "{}/v1/upload_asset/put/{}?{}",
            settings.base_url,
            token.rel(),
            presigner.query(&token)
        ),
        get_url: url.clone(),
        url,
        key,
        content_type: kind.content_type,
        filename: name,
        headers_required: Map::new(),
        max_bytes: token.max_bytes,
        put_expires_at: foundation::time::iso(token.exp),
        expires_at: foundation::time::iso(iat + ttl as i64),
        ttl_hours: Hours::of_secs(ttl),
    })
}

/// Extensions the spec allows, with the content type each implies.
const EXTENSIONS: &[(&str, &str)] = &[
    // audio
    ("mp3", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("m4a", "audio/mp4"),
    ("aac", "audio/aac"),
    ("ogg", "audio/ogg"),
    ("opus", "audio/opus"),
    ("flac", "audio/flac"),
    // video
    ("mp4", "video/mp4"),
    ("mov", "video/quicktime"),
    ("m4v", "video/x-m4v"),
    ("webm", "video/webm"),
    ("mkv", "video/x-matroska"),
    ("avi", "video/x-msvideo"),
    // image
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("png", "image/png"),
    ("webp", "image/webp"),
    ("gif", "image/gif"),
    ("bmp", "image/bmp"),
    ("avif", "image/avif"),
    ("svg", "image/svg+xml"),
    // documents
    ("html", "text/html"),
    ("htm", "text/html"),
    ("pdf", "application/pdf"),
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
];

/// Non-media content types the spec allows.
const DOCUMENT_TYPES: &[&str] = &[
    "text/html",
    "application/xhtml+xml",
    "application/pdf",
    "text/markdown",
    "text/x-markdown",
];

/// What an upload will be stored as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetType {
    /// Lower-case extension of the stored file (it decides the served `Content-Type`).
    pub ext: String,
    /// The content type reported back to the client.
    pub content_type: String,
}

fn ext_type(ext: &str) -> Option<&'static str> {
    EXTENSIONS.iter().find(|(e, _)| *e == ext).map(|(_, t)| *t)
}

/// The essence of a content type (`Audio/MPEG; x=1` → `audio/mpeg`), if it is well formed.
fn essence(ct: &str) -> Option<String> {
    let e = ct.split(';').next()?.trim().to_ascii_lowercase();
    let (top, sub) = e.split_once('/')?;
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&b))
    };
    (token(top) && token(sub)).then_some(e)
}

fn type_allowed(ct: &str) -> bool {
    ct.starts_with("audio/")
        || ct.starts_with("video/")
        || ct.starts_with("image/")
        || DOCUMENT_TYPES.contains(&ct)
}

/// The extension that serves `ct` correctly when the filename has none we know.
fn ext_for_type(ct: &str) -> Option<&'static str> {
    let direct = EXTENSIONS.iter().find(|(_, t)| *t == ct).map(|(e, _)| *e);
    direct.or(match ct {
        "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => Some("wav"),
        "audio/mp3" => Some("mp3"),
        "audio/x-m4a" => Some("m4a"),
        "audio/x-flac" => Some("flac"),
        "video/x-mp4" => Some("mp4"),
        "application/xhtml+xml" => Some("html"),
        "text/x-markdown" => Some("md"),
        _ => None,
    })
}

/// The last path component of a client-supplied name (both `/` and `\` separate).
pub(crate) fn basename(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or("").trim()
}

/// The extension of a client-supplied name, lower-case, without the dot.
pub fn extension(name: &str) -> Option<String> {
    let base = basename(name);
    let (stem, ext) = base.rsplit_once('.')?;
    (!stem.is_empty() || !ext.is_empty()).then(|| ext.to_ascii_lowercase())
}

/// Decides whether an upload is accepted, from its filename and optional content type.
///
/// Accepted when the extension is one of the spec's, or the content type is an allowed one
/// (the stored file then gets the matching extension). Otherwise `unsupported_asset_type`.
pub fn classify(filename: &str, content_type: Option<&str>) -> Result<AssetType, Error> {
    let given = content_type
        .and_then(essence)
        .filter(|c| c != "application/octet-stream");
    if let Some(ext) = extension(filename)
        && let Some(implied) = ext_type(&ext)
    {
        let content_type = match given {
            Some(c) if type_allowed(&c) => c,
            _ => implied.to_string(),
        };
        return Ok(AssetType { ext, content_type });
    }
    if let Some(ct) = given.filter(|c| type_allowed(c)) {
        let ext = ext_for_type(&ct).unwrap_or("bin").to_string();
        return Ok(AssetType {
            ext,
            content_type: ct,
        });
    }
    Err(Error::new(
        Code::UnsupportedAssetType,
        "Only audio, video, image, HTML, PDF and Markdown files are accepted (extensions: \
         mp3 wav m4a aac ogg opus flac, mp4 mov m4v webm mkv avi, jpg jpeg png webp gif bmp avif \
         svg, html htm pdf md markdown).",
    )
    .param("filename"))
}

/// Decodes an uploaded image or clip at `path` within the media limits (`foundation::media_check`)
/// before it is stored: a PNG, JPEG or WebP decoded whole, a GIF, BMP or AVIF by its header,
/// a video container opened and its first frame decoded. Audio, documents and SVG (checked by
/// svg2spec's guard when used as an overlay) pass as they are. Blocking. A refusal is 400
/// `invalid_file_data` naming `param`.
pub fn check_media(path: &Path, kind: &AssetType, param: &str) -> Result<(), Error> {
    use foundation::media_check::{self, Refusal};
    let refused = |r: Refusal| r.error(Code::InvalidFileData, "The file", param);
    match kind.ext.as_str() {
        "png" | "jpg" | "jpeg" | "webp" => {
            // The header first: a huge declared size is refused before the file is read whole.
            if let Ok(size) = imagesize::size(path) {
                media_check::check_size(size.width as u64, size.height as u64).map_err(refused)?;
            }
            let bytes = std::fs::read(path).map_err(|e| {
                Error::new(Code::UploadFailed, "The upload could not be read back.").because(e)
            })?;
            media_check::check_image(&bytes).map(drop).map_err(refused)
        }
        "gif" | "bmp" | "avif" => {
            let size = imagesize::size(path).map_err(|_| {
                refused(Refusal::Undecodable(foundation::document::MediaKind::Image))
            })?;
            media_check::check_size(size.width as u64, size.height as u64).map_err(refused)
        }
        "mp4" | "mov" | "m4v" | "webm" | "mkv" | "avi" => {
            media_check::check_clip(path).map(drop).map_err(refused)
        }
        _ => Ok(()),
    }
}

/// A safe stored basename for `filename`: `[A-Za-z0-9._-]` only, no leading dots, at most 80
/// characters, always ending in `.{ext}`.
pub fn stored_name(filename: &str, ext: &str) -> String {
    let base = basename(filename);
    let stem = match base.rsplit_once('.') {
        Some((s, _)) => s,
        None => base,
    };
    let mut clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    clean = clean.trim_start_matches(['.', '_']).to_string();
    clean.truncate(80 - ext.len() - 1);
    while clean.ends_with('.') {
        clean.pop();
    }
    if clean.is_empty() {
        clean = "file".into();
    }
    format!("{clean}.{ext}")
}

/// A fresh 32-hex folder token (128 random bits).
pub fn folder_token() -> String {
    format!(
        "{}{}",
        foundation::ids::file_token(),
        foundation::ids::file_token()
    )
}

/// Whether `s` is a folder token this module made.
fn is_folder_token(s: &str) -> bool {
    s.len() == 32
        && s.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// Whether `s` is a name [`stored_name`] could have produced.
fn is_stored_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 80
        && !s.starts_with('.')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

/// Decodes `file_data`: a `data:…;base64,` prefix is dropped, whitespace ignored, standard or
/// URL-safe alphabet, padding optional. Bad base64 or nothing decoded is `invalid_file_data`.
pub fn decode_base64(data: &str) -> Result<Vec<u8>, Error> {
    use base64::Engine as _;
    let bad = |m: &str| Err(Error::new(Code::InvalidFileData, m.to_string()).param("file_data"));
    let mut s = data.trim();
    if s.len() > 5 && s[..5].eq_ignore_ascii_case("data:") {
        match s.find(',') {
            Some(i) if s[..i].to_ascii_lowercase().ends_with(";base64") => s = &s[i + 1..],
            _ => return bad("`file_data` is a data URL without `;base64,`."),
        }
    }
    let compact: String = s.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let trimmed = compact.trim_end_matches('=');
    let engine = if trimmed.contains(['-', '_']) {
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
    } else {
        &base64::engine::general_purpose::STANDARD_NO_PAD
    };
    let bytes = match engine.decode(trimmed) {
        Ok(b) => b,
        Err(_) => return bad("`file_data` is not valid base64."),
    };
    if bytes.is_empty() {
        return bad("`file_data` decodes to zero bytes.");
    }
    Ok(bytes)
}

/// A presigned PUT as the client will send it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresignToken {
    pub folder: String,
    pub name: String,
    /// Unix seconds the URL was issued; the asset's lifetime counts from here.
    pub iat: i64,
    /// Unix seconds after which the PUT is refused.
    pub exp: i64,
    pub max_bytes: u64,
}

impl PresignToken {
    /// `{folder}/{name}`: the key below `assets/`.
    pub fn rel(&self) -> String {
        format!("{}/{}", self.folder, self.name)
    }

    fn payload(&self) -> String {
        format!(
            "PUT\n{}\n{}\n{}\n{}",
            self.rel(),
            self.iat,
            self.exp,
            self.max_bytes
        )
    }
}

/// The HMAC key of presigned URLs, kept in the data directory.
#[derive(Clone)]
pub struct Presigner {
    key: Vec<u8>,
    used_dir: PathBuf,
}

impl std::fmt::Debug for Presigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Presigner { .. }")
    }
}

impl Presigner {
    /// Loads `{data_dir}/presign.key`, creating it (32 random bytes, hex, mode 0600) on first use.
    pub fn open(data_dir: &Path) -> io::Result<Presigner> {
        let path = data_dir.join("presign.key");
        let key = match std::fs::read_to_string(&path) {
            Ok(s) => hex::decode(s.trim()).map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidData, "presign.key is not hex")
            })?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let mut key = [0u8; 32];
                rand::Rng::fill(&mut rand::rng(), &mut key[..]);
                let tmp = data_dir.join(format!(".presign.key.{}", foundation::ids::file_token()));
                {
                    use std::io::Write;
                    #[cfg(unix)]
                    use std::os::unix::fs::OpenOptionsExt;
                    let mut o = std::fs::OpenOptions::new();
                    o.write(true).create_new(true);
                    #[cfg(unix)]
                    o.mode(0o600);
                    let mut f = o.open(&tmp)?;
                    f.write_all(hex::encode(key).as_bytes())?;
                    f.sync_all()?;
                }
                // Another request may have created it meanwhile: the first one wins.
                match std::fs::hard_link(&tmp, &path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => {
                        let _ = std::fs::remove_file(&tmp);
                        return Err(e);
                    }
                }
                let _ = std::fs::remove_file(&tmp);
                return Presigner::open(data_dir);
            }
            Err(e) => return Err(e),
        };
        if key.len() < 16 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "presign.key is too short",
            ));
        }
        Ok(Presigner {
            key,
            used_dir: data_dir.join("uploads").join("presign-used"),
        })
    }

    fn mac(&self) -> hmac::Hmac<Sha256> {
        hmac::Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key length")
    }

    /// The hex signature of `t`.
    pub fn sign(&self, t: &PresignToken) -> String {
        let mut mac = self.mac();
        mac.update(t.payload().as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// The query string of a presigned URL for `t`.
    pub fn query(&self, t: &PresignToken) -> String {
        format!(
            "iat={}&exp={}&max={}&sig={}",
            t.iat,
            t.exp,
            t.max_bytes,
            self.sign(t)
        )
    }

    /// Checks a PUT: `folder`/`name` from the path, the raw query string, the time now.
    /// Tampering (any changed part) is `presign_invalid`; a valid but late URL `presign_expired`.
    pub fn verify(
        &self,
        folder: &str,
        name: &str,
        query: &str,
        now: i64,
    ) -> Result<PresignToken, Error> {
        let invalid = || {
            Error::new(
                Code::PresignInvalid,
                "This upload URL is not valid: it was changed or was not issued by this server.",
            )
        };
        if !is_folder_token(folder) || !is_stored_name(name) {
            return Err(invalid());
        }
        let (mut iat, mut exp, mut max, mut sig) = (None, None, None, None);
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let slot = match k {
                "iat" => &mut iat,
                "exp" => &mut exp,
                "max" => &mut max,
                "sig" => &mut sig,
                _ => continue,
            };
            if slot.replace(v).is_some() {
                return Err(invalid());
            }
        }
        let num = |v: Option<&str>| -> Option<i64> {
            let v = v?;
            (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .then(|| v.parse().ok())
                .flatten()
        };
        let (Some(iat), Some(exp), Some(max), Some(sig)) = (num(iat), num(exp), num(max), sig)
        else {
            return Err(invalid());
        };
        let token = PresignToken {
            folder: folder.to_string(),
            name: name.to_string(),
            iat,
            exp,
            max_bytes: max as u64,
        };
        let sig = hex::decode(sig).map_err(|_| invalid())?;
        let mut mac = self.mac();
        mac.update(token.payload().as_bytes());
        mac.verify_slice(&sig).map_err(|_| invalid())?;
        if now >= exp {
            return Err(Error::new(
                Code::PresignExpired,
                "This upload URL has expired; ask for a new one with `mode: presign`.",
            ));
        }
        Ok(token)
    }

    /// Claims `t` for one upload; `stored` is where its object lands. A second claim is
    /// `presign_used` (409), unless the first was made by a process that has since stopped
    /// (killed mid-upload) and left no object: that claim is given back and taken again.
    pub fn claim(&self, t: &PresignToken, stored: &Path) -> Result<Claim, Error> {
        std::fs::create_dir_all(&self.used_dir).map_err(|e| {
            tracing::error!(error = %e, "cannot create the presign marker folder");
            Error::new(Code::UploadFailed, "The upload could not be stored.")
        })?;
        let marker = self.used_dir.join(&t.folder);
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&marker);
        match created {
            Ok(mut f) => {
                use std::io::Write;
                // The claimant: a claim of a process that stopped is not binding.
                let _ = f.write_all(process_token().as_bytes());
                Ok(Claim { marker })
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let owner = std::fs::read_to_string(&marker).unwrap_or_default();
                if owner != process_token() && !stored.exists() {
                    tracing::info!(folder = %t.folder, "an interrupted presigned upload is taken again");
                    let _ = std::fs::remove_file(&marker);
                    return self.claim(t, stored);
                }
                Err(Error::new(
                    Code::PresignUsed,
                    "This upload URL was already used; each presigned URL takes one upload.",
                ))
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot claim a presigned upload");
                Err(Error::new(
                    Code::UploadFailed,
                    "The upload could not be stored.",
                ))
            }
        }
    }

    /// Deletes claim markers older than `max_age_secs` (their URLs have long expired).
    pub(crate) fn sweep_claims(&self, max_age_secs: u64) {
        let Ok(dir) = std::fs::read_dir(&self.used_dir) else {
            return;
        };
        let now = std::time::SystemTime::now();
        for entry in dir.flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age.as_secs() > max_age_secs);
            if old {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// A random token of this process, written into its claims.
fn process_token() -> &'static str {
    static TOKEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TOKEN.get_or_init(foundation::ids::file_token)
}

/// A claimed presigned upload: dropped without [`Claim::keep`] (a failed upload), the claim is
/// given back.
pub struct Claim {
    marker: PathBuf,
}

impl Claim {
    /// The upload succeeded: the URL stays used.
    pub fn keep(self) {
        std::mem::forget(self);
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.marker);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;
    use serde_json::json;

    #[test]
    fn a_json_upload_reads_as_the_shape_its_mode_names() {
        let p = body::read::<UploadAssetRequest>(
            &json!({"mode": "PRESIGN", "filename": " a.wav ", "content_type": " "}),
        );
        let expected = PresignRequest {
            mode: PresignMode::Presign,
            filename: "a.wav".into(),
            content_type: None,
        };
        assert_eq!(p.unwrap(), UploadAssetRequest::Presign(expected));
        let b = body::read::<UploadAssetRequest>(
            &json!({"file_data": "aGk=", "filename": "a.md", "mode": null}),
        );
        let expected = Base64Upload {
            file_data: "aGk=".into(),
            filename: "a.md".into(),
            content_type: None,
        };
        assert_eq!(b.unwrap(), UploadAssetRequest::Base64(expected));
    }

    #[test]
    fn a_bad_json_upload_keeps_its_code_and_param() {
        for (sent, code, param) in [
            (json!({"mode": "presign"}), Code::MissingField, "filename"),
            (
                json!({"mode": "put", "filename": "a"}),
                Code::InvalidField,
                "mode",
            ),
            (
                json!({"mode": 3, "filename": "a"}),
                Code::InvalidField,
                "mode",
            ),
            (
                json!({"filename": "a.png"}),
                Code::MissingField,
                "file_data",
            ),
            (
                json!({"file_data": "", "filename": "a"}),
                Code::InvalidFileData,
                "file_data",
            ),
            (
                json!({"file_data": 5, "filename": "a"}),
                Code::InvalidFileData,
                "file_data",
            ),
            (json!({"file_data": "aGk="}), Code::MissingField, "filename"),
            (
                json!({"file_data": "aGk=", "filename": 2}),
                Code::InvalidField,
                "filename",
            ),
        ] {
            let e = body::read::<UploadAssetRequest>(&sent).unwrap_err();
            assert_eq!((e.code, e.param.as_deref()), (code, Some(param)), "{sent}");
        }
    }

    #[test]
    fn classifies_by_extension_then_type() {
        let t = classify("clip.MP4", None).unwrap();
        assert_eq!(
            (t.ext.as_str(), t.content_type.as_str()),
            ("mp4", "video/mp4")
        );
        let t = classify("voice", Some("audio/x-wav")).unwrap();
        assert_eq!(
            (t.ext.as_str(), t.content_type.as_str()),
            ("wav", "audio/x-wav")
        );
        let t = classify("notes.md", Some("application/octet-stream")).unwrap();
        assert_eq!(t.content_type, "text/markdown");
        let t = classify("page", Some("application/xhtml+xml; charset=utf-8")).unwrap();
        assert_eq!(t.ext, "html");
        for (name, ct) in [
            ("run.exe", None),
            ("run.sh", Some("application/x-sh")),
            ("x", Some("application/json")),
            ("x.js", Some("text/javascript")),
            ("", None),
        ] {
            let e = classify(name, ct).unwrap_err();
            assert_eq!(e.code, Code::UnsupportedAssetType, "{name}");
        }
        // An allowed type with an unknown extension keeps the type, and a safe extension.
        let t = classify("a.weird", Some("image/x-icon")).unwrap();
        assert_eq!(
            (t.ext.as_str(), t.content_type.as_str()),
            ("bin", "image/x-icon")
        );
    }

    #[test]
    fn stored_names_never_escape() {
        for (input, want) in [
            ("../../etc/passwd.png", "passwd.png"),
            ("..\\..\\win.ini.jpg", "win.ini.jpg"),
            ("/abs/path/photo.jpeg", "photo.jpeg"),
            ("..png", "file.png"),
            ("my holiday (1).PNG", "my_holiday__1_.png"),
            (".hidden.wav", "hidden.wav"),
            ("", "file.mp3"),
            ("ünïcode.mp3", "n_code.mp3"),
        ] {
            let ext = extension(input)
                .unwrap_or_else(|| "mp3".into())
                .to_ascii_lowercase();
            let ext = if ext_type(&ext).is_some() {
                ext
            } else {
                "mp3".into()
            };
            let got = stored_name(input, &ext);
            assert_eq!(got, want, "{input}");
            assert!(is_stored_name(&got));
        }
        assert_eq!(stored_name(&"a".repeat(300), "mp4").len(), 80);
    }

    #[test]
    fn base64_shapes() {
        assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(
            decode_base64("data:text/plain;base64,aGVs\nbG8=").unwrap(),
            b"hello"
        );
        assert_eq!(decode_base64("_-8").unwrap(), vec![0xff, 0xef]);
        for bad in ["", "====", "not base64!", "data:text/plain,hello", "a"] {
            let e = decode_base64(bad).unwrap_err();
            assert_eq!(e.code, Code::InvalidFileData, "{bad:?}");
        }
    }

    fn token() -> PresignToken {
        PresignToken {
            folder: folder_token(),
            name: "clip.mp4".into(),
            iat: 1000,
            exp: 4600,
            max_bytes: 10,
        }
    }

    #[test]
    fn presign_rejects_tampering_expiry_and_replay() {
        let dir = tempfile::tempdir().unwrap();
        let p = Presigner::open(dir.path()).unwrap();
        // The key persists: a second open verifies the first one's URLs.
        let p2 = Presigner::open(dir.path()).unwrap();
        let t = token();
        let q = p.query(&t);
        assert_eq!(p2.verify(&t.folder, &t.name, &q, 2000).unwrap(), t);
        let code = |folder: &str, name: &str, q: &str, now| {
            p.verify(folder, name, q, now).unwrap_err().code
        };
        assert_eq!(code(&t.folder, &t.name, &q, 4600), Code::PresignExpired);
        let longer = q.replace("exp=4600", "exp=9600");
        assert_eq!(
            code(&t.folder, &t.name, &longer, 2000),
            Code::PresignInvalid
        );
        let bigger = q.replace("max=10", "max=99999");
        assert_eq!(
            code(&t.folder, &t.name, &bigger, 2000),
            Code::PresignInvalid
        );
        assert_eq!(code(&t.folder, "other.mp4", &q, 2000), Code::PresignInvalid);
        assert_eq!(code(&t.folder, "../x.mp4", &q, 2000), Code::PresignInvalid);
        assert_eq!(
            code(&folder_token(), &t.name, &q, 2000),
            Code::PresignInvalid
        );
        let doubled = format!("{q}&sig=00");
        assert_eq!(
            code(&t.folder, &t.name, &doubled, 2000),
            Code::PresignInvalid
        );
        assert_eq!(code(&t.folder, &t.name, "", 2000), Code::PresignInvalid);
        // Another data directory's key does not verify.
        let other = tempfile::tempdir().unwrap();
        let p3 = Presigner::open(other.path()).unwrap();
        assert_eq!(
            p3.verify(&t.folder, &t.name, &q, 2000).unwrap_err().code,
            Code::PresignInvalid
        );

        // Single use: a failed upload gives the claim back, a kept one does not.
        let stored = dir.path().join("stored.mp4");
        let c = p.claim(&t, &stored).unwrap();
        assert_eq!(p.claim(&t, &stored).err().unwrap().code, Code::PresignUsed);
        drop(c);
        p.claim(&t, &stored).unwrap().keep();
        assert_eq!(p.claim(&t, &stored).err().unwrap().code, Code::PresignUsed);
    }

    #[test]
    fn a_claim_left_by_a_stopped_process_is_taken_again_unless_its_object_landed() {
        let dir = tempfile::tempdir().unwrap();
        let p = Presigner::open(dir.path()).unwrap();
        let t = PresignToken {
            folder: folder_token(),
            name: "clip.mp4".into(),
            iat: 1000,
            exp: 5000,
            max_bytes: 10,
        };
        // What a process killed mid-upload leaves: a marker naming another process.
        std::fs::create_dir_all(&p.used_dir).unwrap();
        std::fs::write(p.used_dir.join(&t.folder), "a-process-long-gone").unwrap();
        let stored = dir.path().join("stored.mp4");
        p.claim(&t, &stored).unwrap().keep();
        // Its object landed before the kill: the URL stays used.
        std::fs::write(p.used_dir.join(&t.folder), "a-process-long-gone").unwrap();
        std::fs::write(&stored, b"whole").unwrap();
        assert_eq!(p.claim(&t, &stored).err().unwrap().code, Code::PresignUsed);
    }
}
