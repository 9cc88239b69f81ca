//! Previews of the images this folder publishes.

/// A 280-wide PNG preview.
pub fn thumbnail(png: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let img = compositor::raster::decode_image(png)?;
    let h = (img.height() * 280 / img.width()).max(1);
    compositor::raster::resize(img.as_ref(), 280, h)
        .ok_or("thumbnail could not be sized")?
        .encode_png()
        .map_err(|e| e.to_string())
}
