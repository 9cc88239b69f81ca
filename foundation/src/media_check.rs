//! The one gate for images and clips that a client brings in (a background swap, a narrator
//! video, an uploaded asset): the bytes are decoded here, within size limits, before anything is
//! accepted, so a scene never points at media the renderer cannot read.
//!
//! Images: the header is read first (format, width, height) and refused over
//! [`MAX_IMAGE_SIDE`] a side or [`MAX_IMAGE_PIXELS`] in all, before a pixel buffer exists; then
//! the whole image is decoded by the renderer's own decoder (`compositor::raster`). A PNG or
//! WebP whose bytes go on after the image's end (a polyglot) is refused. Clips: GStreamer opens
//! the container and decodes the first frame (`compositor::media::probe_clip`), within
//! [`MAX_CLIP_PIXELS`].
//!
//! Every refusal is a [`Refusal`] whose words are safe for a client (no path, no library text);
//! the door that called turns it into its own code and `param`.

use std::fmt;
use std::path::Path;

use crate::document::MediaKind;
use crate::error::{Code, Error};

/// Largest accepted image side, in pixels (the renderer's own limit).
pub(crate) const MAX_IMAGE_SIDE: u32 = compositor::raster::MAX_IMAGE_DIM;
/// Largest accepted image area: 40 megapixels (a 160 MB RGBA buffer at most).
pub(crate) const MAX_IMAGE_PIXELS: u64 = 40_000_000;
/// Largest accepted clip frame area: 4096×4096.
pub(crate) const MAX_CLIP_PIXELS: u64 = 4096 * 4096;

/// What a decoded medium turned out to be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Checked {
    pub kind: MediaKind,
    /// The extension the stored file gets (`png`, `jpg`, `webp`, `mp4`, `mov`, `webm`).
    pub ext: &'static str,
    pub width: u32,
    pub height: u32,
    /// Clips only: length in seconds.
    pub duration: Option<f64>,
}

/// Why a medium was refused, in words a client may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No bytes at all.
    Empty,
    /// Not a PNG, JPEG or WebP image, nor an MP4, MOV or WebM clip (by its bytes).
    Unrecognised,
    /// Recognised, but of the other kind than the caller asked for.
    WrongKind {
        expected: MediaKind,
        found: MediaKind,
    },
    /// A declared size of zero, over a side limit or over the pixel limit.
    Size { width: u32, height: u32 },
    /// A clip's frame size outside 1 to `MAX_IMAGE_SIDE` a side or over [`MAX_CLIP_PIXELS`].
    FrameSize,
    /// Bytes after the end of the image (a file that is two formats at once).
    TrailingData,
    /// The decoder failed: truncated or corrupt.
    Undecodable(MediaKind),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Empty => f.write_str("the file is empty"),
            Refusal::Unrecognised => f.write_str(
                "the file is not a PNG, JPEG or WebP image, nor an MP4, MOV or WebM video",
            ),
            Refusal::WrongKind { expected, found } => write!(
                f,
                "the file is {} {}, not {} {}",
                article(*found),
                found.as_str(),
                article(*expected),
                expected.as_str()
            ),
            Refusal::Size { width, height } => write!(
                f,
                "its size {width}×{height} is outside the accepted range (1 to {MAX_IMAGE_SIDE} \
                 pixels a side, at most {MAX_IMAGE_PIXELS} pixels)"
            ),
            Refusal::FrameSize => write!(
                f,
                "its frame size is outside the accepted range (1 to {MAX_IMAGE_SIDE} pixels a \
                 side, at most {MAX_CLIP_PIXELS} pixels)"
            ),
            Refusal::TrailingData => {
                f.write_str("the file carries other data after the end of the image")
            }
            Refusal::Undecodable(kind) => write!(
                f,
                "the {} could not be decoded (truncated or corrupt)",
                kind.as_str()
            ),
        }
    }
}

fn article(kind: MediaKind) -> &'static str {
    match kind {
        MediaKind::Image => "an",
        MediaKind::Video => "a",
    }
}

impl Refusal {
    /// The error a door answers with: `code` and `param` are the door's, the words are ours.
    pub fn error(&self, code: Code, what: &str, param: &str) -> Error {
        Error::new(code, format!("{what} was refused: {self}.")).param(param)
    }
}

/// The kind a URL's path names by its extension (`None` when it names none we know).
pub fn kind_of_url(url: &str) -> Option<MediaKind> {
    let path = url::Url::parse(url).ok()?.path().to_ascii_lowercase();
    let ext = path.rsplit_once('.')?.1.to_string();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "webp" | "gif" => Some(MediaKind::Image),
        "mp4" | "m4v" | "mov" | "webm" | "mkv" => Some(MediaKind::Video),
        _ => None,
    }
}

/// An image fetched from `url`: refused when the URL names a video (a mislabelled file), then
/// [`check_image`].
pub fn check_image_at(url: &str, bytes: &[u8]) -> Result<Checked, Refusal> {
    if kind_of_url(url) == Some(MediaKind::Video) {
        let found = sniff(bytes)?.0;
        return Err(Refusal::WrongKind {
            expected: MediaKind::Video,
            found,
        });
    }
    check_image(bytes)
}

/// Checks an image in memory: header, limits, trailing data, then a full decode.
pub fn check_image(bytes: &[u8]) -> Result<Checked, Refusal> {
    let (kind, ext) = sniff(bytes)?;
    if kind != MediaKind::Image {
        return Err(Refusal::WrongKind {
            expected: MediaKind::Image,
            found: kind,
        });
    }
    let size = imagesize::blob_size(bytes).map_err(|_| Refusal::Undecodable(kind))?;
    let (width, height) = (size.width as u64, size.height as u64);
    within(width, height, MAX_IMAGE_PIXELS)?;
    check_end(bytes, ext, kind)?;
    let decoded = compositor::raster::decode_image(bytes).map_err(|e| {
        tracing::info!(error = %e, "image refused: it does not decode");
        Refusal::Undecodable(kind)
    })?;
    Ok(Checked {
        kind,
        ext,
        width: decoded.width(),
        height: decoded.height(),
        duration: None,
    })
}

/// Checks a clip on disk (GStreamer reads files): its kind by the first bytes, then the
/// container opened and the first frame decoded, within [`MAX_CLIP_PIXELS`]. Blocking.
pub fn check_clip(path: &Path) -> Result<Checked, Refusal> {
    let head = read_head(path)?;
    let (kind, ext) = match sniff(&head) {
        // AVI (RIFF) is a container GStreamer opens, but never a scene medium by itself.
        Err(Refusal::Unrecognised) if head.len() >= 12 && &head[8..12] == b"AVI " => {
            (MediaKind::Video, "avi")
        }
        other => other?,
    };
    if kind != MediaKind::Video {
        return Err(Refusal::WrongKind {
            expected: MediaKind::Video,
            found: kind,
        });
    }
    if matches!(ext, "mp4" | "mov") && !bmff_complete(path) {
        // GStreamer would wait out its open timeout on a second such file in one process.
        return Err(Refusal::Undecodable(kind));
    }
    let info = compositor::media::probe_clip(path).map_err(|e| {
        tracing::info!(error = %e, "clip refused: it does not decode");
        match e {
            compositor::media::MediaError::InvalidInput(_) => Refusal::FrameSize,
            _ => Refusal::Undecodable(kind),
        }
    })?;
    within(
        u64::from(info.width),
        u64::from(info.height),
        MAX_CLIP_PIXELS,
    )
    .map_err(|_| Refusal::FrameSize)?;
    Ok(Checked {
        kind,
        ext,
        width: info.width,
        height: info.height,
        duration: Some(info.duration),
    })
}

/// Checks a medium of `expected` kind (or either kind) given as bytes; a clip is written to
/// `scratch` (a path in the caller's folder) to be probed and removed again unless it passes.
pub fn check_bytes(
    bytes: &[u8],
    expected: Option<MediaKind>,
    scratch: &Path,
) -> Result<Checked, Refusal> {
    let (found, _) = sniff(bytes)?;
    if let Some(expected) = expected.filter(|e| *e != found) {
        return Err(Refusal::WrongKind { expected, found });
    }
    match found {
        MediaKind::Image => check_image(bytes),
        MediaKind::Video => {
            if std::fs::write(scratch, bytes).is_err() {
                return Err(Refusal::Undecodable(found));
            }
            let checked = check_clip(scratch);
            if checked.is_err() {
                let _ = std::fs::remove_file(scratch);
            }
            checked
        }
    }
}

/// Whether an MP4/MOV file's top-level boxes tile the file and include `moov` (the index a
/// player needs): a truncated upload fails this without opening a decoder.
fn bmff_complete(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return false;
    };
    let (mut at, mut moov) = (0u64, false);
    while at < len {
        let mut head = [0u8; 16];
        if f.seek(SeekFrom::Start(at)).is_err() || f.read_exact(&mut head[..8]).is_err() {
            return false;
        }
        let size = match u32::from_be_bytes([head[0], head[1], head[2], head[3]]) {
            0 => len - at,
            1 => {
                if f.read_exact(&mut head[8..16]).is_err() {
                    return false;
                }
                u64::from_be_bytes(head[8..16].try_into().expect("8 bytes"))
            }
            n => u64::from(n),
        };
        if size < 8 || at + size > len {
            return false;
        }
        moov |= &head[4..8] == b"moov";
        at += size;
    }
    moov
}

fn sniff(bytes: &[u8]) -> Result<(MediaKind, &'static str), Refusal> {
    if bytes.is_empty() {
        return Err(Refusal::Empty);
    }
    MediaKind::sniff(bytes).ok_or(Refusal::Unrecognised)
}

/// Whether an image's declared size is within the limits (for formats read by header only).
pub fn check_size(width: u64, height: u64) -> Result<(), Refusal> {
    within(width, height, MAX_IMAGE_PIXELS)
}

fn within(width: u64, height: u64, max_pixels: u64) -> Result<(), Refusal> {
    let side = u64::from(MAX_IMAGE_SIDE);
    if width == 0 || height == 0 || width > side || height > side || width * height > max_pixels {
        return Err(Refusal::Size {
            width: width.min(u64::from(u32::MAX)) as u32,
            height: height.min(u64::from(u32::MAX)) as u32,
        });
    }
    Ok(())
}

fn read_head(path: &Path) -> Result<Vec<u8>, Refusal> {
    use std::io::Read;
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)
        .and_then(|f| f.take(64).read_to_end(&mut head))
        .map_err(|_| Refusal::Empty)?;
    Ok(head)
}

/// A PNG must end with its `IEND` chunk, a WebP with its RIFF length: more bytes are another
/// file riding along, fewer a truncated one. A JPEG must close its last scan with an `EOI`
/// marker (its decoder would fill a truncated scan with grey); bytes after it are allowed, as
/// cameras append their own trailers.
fn check_end(bytes: &[u8], ext: &str, kind: MediaKind) -> Result<(), Refusal> {
    let end = match ext {
        "jpg" => {
            let marker = |m: u8| move |w: &[u8]| w == [0xff, m];
            let last_scan = bytes.windows(2).rposition(marker(0xda));
            let closed = last_scan.is_some_and(|at| bytes[at..].windows(2).any(marker(0xd9)));
            return if closed {
                Ok(())
            } else {
                Err(Refusal::Undecodable(kind))
            };
        }
        "png" => png_end(bytes),
        "webp" => {
            let riff = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
            // The RIFF length counts from byte 8; an odd length is padded to even.
            let end = 8 + riff + (riff & 1);
            (end <= bytes.len() || 8 + riff == bytes.len()).then_some(end.min(bytes.len()))
        }
        _ => return Ok(()),
    };
    match end {
        None => Err(Refusal::Undecodable(kind)),
        Some(end) if end < bytes.len() => Err(Refusal::TrailingData),
        Some(_) => Ok(()),
    }
}

/// The end of a PNG's `IEND` chunk, walking the chunk lengths from the signature.
fn png_end(bytes: &[u8]) -> Option<usize> {
    let mut at = 8usize;
    loop {
        let len = u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let kind = bytes.get(at + 4..at + 8)?;
        let end = at.checked_add(12)?.checked_add(len)?;
        if end > bytes.len() {
            return None;
        }
        if kind == b"IEND" {
            return Some(end);
        }
        at = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        tiny_skia::Pixmap::new(w, h).unwrap().encode_png().unwrap()
    }

    /// A PNG signature and IHDR declaring `w`×`h`, with no image data.
    fn png_header(w: u32, h: u32) -> Vec<u8> {
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        out.extend_from_slice(&13u32.to_be_bytes());
        out.extend_from_slice(b"IHDR");
        out.extend_from_slice(&w.to_be_bytes());
        out.extend_from_slice(&h.to_be_bytes());
        out.extend_from_slice(&[8, 6, 0, 0, 0]);
        out.extend_from_slice(&[0, 0, 0, 0]); // CRC: never reached, the size is refused first
        out
    }

    #[test]
    fn a_real_png_passes_with_its_size() {
        let c = check_image(&png(30, 20)).unwrap();
        assert_eq!(
            (c.kind, c.ext, c.width, c.height),
            (MediaKind::Image, "png", 30, 20)
        );
    }

    #[test]
    fn broken_and_hostile_images_are_refused_for_what_they_are() {
        let good = png(30, 20);
        let mut polyglot = good.clone();
        polyglot.extend_from_slice(b"<html><script>alert(1)</script></html>");
        let cases: Vec<(&str, Vec<u8>, Refusal)> = vec![
            ("empty", vec![], Refusal::Empty),
            (
                "html",
                b"<html><body>hi</body></html>".to_vec(),
                Refusal::Unrecognised,
            ),
            (
                "huge",
                png_header(100_000, 100_000),
                Refusal::Size {
                    width: 100_000,
                    height: 100_000,
                },
            ),
            (
                "zero",
                png_header(0, 10),
                Refusal::Size {
                    width: 0,
                    height: 10,
                },
            ),
            (
                "too many pixels",
                png_header(8000, 8000),
                Refusal::Size {
                    width: 8000,
                    height: 8000,
                },
            ),
            (
                "truncated",
                good[..good.len() / 2].to_vec(),
                Refusal::Undecodable(MediaKind::Image),
            ),
            ("polyglot", polyglot, Refusal::TrailingData),
            (
                "jpeg head only",
                vec![0xff, 0xd8, 0xff, 0xe0, 0, 16],
                Refusal::Undecodable(MediaKind::Image),
            ),
        ];
        for (name, bytes, want) in cases {
            assert_eq!(check_image(&bytes).unwrap_err(), want, "{name}");
        }
    }

    #[test]
    fn a_clip_is_not_an_image_and_words_carry_no_internals() {
        let mp4 = b"\0\0\0\x18ftypisom\0\0\0\0isomiso2".to_vec();
        let e = check_image(&mp4).unwrap_err();
        assert_eq!(
            e,
            Refusal::WrongKind {
                expected: MediaKind::Image,
                found: MediaKind::Video
            }
        );
        let err = e.error(Code::MediaDecodeFailed, "The background", "fields");
        assert_eq!(
            err.message,
            "The background was refused: the file is a video, not an image."
        );
    }

    #[test]
    fn a_truncated_clip_does_not_probe() {
        let dir = tempfile::tempdir().unwrap();
        let mp4 = b"\0\0\0\x18ftypisom\0\0\0\0isomiso2\0\0\0\x08free".to_vec();
        let scratch = dir.path().join("clip.mp4");
        let e = check_bytes(&mp4, None, &scratch).unwrap_err();
        assert_eq!(e, Refusal::Undecodable(MediaKind::Video));
        assert!(!scratch.exists(), "a refused clip leaves no file");
    }
}
