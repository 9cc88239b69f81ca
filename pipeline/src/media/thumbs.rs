//! Previews of the images and clips this folder publishes, made by our compositor's decoders.

use std::path::Path;

use compositor::media::{ClipDecoder, probe_clip};

/// Width of an image preview; a clip preview is the editor's 280×498 still size.
pub(crate) const THUMB_WIDTH: u32 = 280;
/// Height of a clip preview.
pub(crate) const CLIP_THUMB_HEIGHT: u32 = 498;

/// A 280-wide PNG preview.
pub fn thumbnail(png: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let img = compositor::raster::decode_image(png)?;
    let h = (img.height() * THUMB_WIDTH / img.width()).max(1);
    let small = compositor::raster::resize(img.as_ref(), THUMB_WIDTH, h)
        .ok_or("thumbnail could not be sized")?;
    compositor::raster::encode_png(small.as_ref())
}

/// A 280×498 PNG of the clip's middle frame, cover-fitted, decoded by the compositor's clip
/// decoder (the same crop and scale a render of the clip shows).
pub(crate) fn clip_thumbnail(path: &Path) -> std::result::Result<Vec<u8>, String> {
    let info = probe_clip(path).map_err(|e| e.to_string())?;
    let mut decoder = ClipDecoder::open(path, &info, THUMB_WIDTH, CLIP_THUMB_HEIGHT)
        .map_err(|e| e.to_string())?;
    let frame = decoder
        .frame_at(info.duration / 2.0)
        .map_err(|e| e.to_string())?;
    let (w, h) = (THUMB_WIDTH as usize, CLIP_THUMB_HEIGHT as usize);
    let rgba = frame
        .with_pixels(|px, stride| {
            let mut out = Vec::with_capacity(w * h * 4);
            for row in px.chunks(stride).take(h) {
                out.extend_from_slice(&row[..w * 4]);
            }
            out
        })
        .ok_or("clip frame could not be read")?;
    let thumb = compositor::raster::from_straight_rgba(THUMB_WIDTH, CLIP_THUMB_HEIGHT, rgba)
        .ok_or("clip frame has the wrong size")?;
    compositor::raster::encode_png(thumb.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_clip_gets_a_280x498_preview_of_its_middle_frame() {
        let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/broll/clips/sunrise.mp4");
        let png = clip_thumbnail(&clip).unwrap();
        let img = compositor::raster::decode_image(&png).unwrap();
        assert_eq!(
            (img.width(), img.height()),
            (THUMB_WIDTH, CLIP_THUMB_HEIGHT)
        );
        let px = img.data();
        let first = &px[..4];
        assert!(
            px.chunks_exact(4).any(|p| p != first),
            "a real picture, not a flat fill"
        );
    }
}
