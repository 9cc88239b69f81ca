//! Pixel utilities shared by resolving and rendering: image decoding with size limits, PNG
//! encoding, good downscaling, and turning text coverage into coloured sprites.
//!
//! Decoders: `png`, `zune-jpeg` and `image-webp` directly rather than the `image` umbrella crate.
//! resvg already depends on exactly these three, so they add no new code to the build, and using
//! them directly lets us read each header and reject oversize images *before* any pixel buffer is
//! allocated. All pixmaps here are premultiplied RGBA, like tiny-skia's.

use tiny_skia::{IntSize, Pixmap, PixmapRef};

/// Largest accepted image side, in pixels.
pub const MAX_IMAGE_DIM: u32 = 8192;

/// Decodes PNG, JPEG or WebP bytes into a premultiplied pixmap.
pub fn decode_image(bytes: &[u8]) -> Result<Pixmap, String> {
    let (w, h, rgba) = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        decode_png(bytes)?
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        decode_jpeg(bytes)?
    } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        decode_webp(bytes)?
    } else {
        return Err("unsupported image format (expected PNG, JPEG or WebP)".into());
    };
    from_straight_rgba(w, h, rgba).ok_or_else(|| "image has no pixels".to_string())
}

fn check_dims(w: u32, h: u32) -> Result<(), String> {
    if w == 0 || h == 0 {
        return Err("image has zero size".into());
    }
    if w > MAX_IMAGE_DIM || h > MAX_IMAGE_DIM {
        return Err(format!(
            "image is {w}x{h}, larger than the {MAX_IMAGE_DIM}x{MAX_IMAGE_DIM} limit"
        ));
    }
    Ok(())
}

fn decode_png(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    let mut dec = png::Decoder::new_with_limits(
        std::io::Cursor::new(bytes),
        png::Limits {
            bytes: (MAX_IMAGE_DIM as usize).pow(2) * 8,
        },
    );
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = dec.read_info().map_err(|e| format!("PNG: {e}"))?;
    let (w, h) = (reader.info().width, reader.info().height);
    check_dims(w, h)?;
    let size = reader.output_buffer_size().ok_or("PNG: image too large")?;
    let mut buf = vec![0u8; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("PNG: {e}"))?;
    buf.truncate(info.buffer_size());
    let px = (w * h) as usize;
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Indexed => return Err("PNG: palette was not expanded".into()),
    };
    if rgba.len() != px * 4 {
        return Err("PNG: unexpected pixel data size".into());
    }
    Ok((w, h, rgba))
}

fn decode_jpeg(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    use zune_jpeg::zune_core::{
        bytestream::ZCursor, colorspace::ColorSpace, options::DecoderOptions,
    };
    let opts = DecoderOptions::default()
        .set_max_width(MAX_IMAGE_DIM as usize)
        .set_max_height(MAX_IMAGE_DIM as usize)
        .jpeg_set_out_colorspace(ColorSpace::RGBA);
    let mut dec = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), opts);
    dec.decode_headers().map_err(|e| format!("JPEG: {e:?}"))?;
    let info = dec.info().ok_or("JPEG: missing header")?;
    let (w, h) = (u32::from(info.width), u32::from(info.height));
    check_dims(w, h)?;
    let rgba = dec.decode().map_err(|e| format!("JPEG: {e:?}"))?;
    if rgba.len() != (w * h * 4) as usize {
        return Err("JPEG: unexpected pixel data size".into());
    }
    Ok((w, h, rgba))
}

fn decode_webp(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    let mut dec = image_webp::WebPDecoder::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("WebP: {e}"))?;
    let (w, h) = dec.dimensions();
    check_dims(w, h)?;
    let size = dec.output_buffer_size().ok_or("WebP: image too large")?;
    let mut buf = vec![0u8; size];
    dec.read_image(&mut buf).map_err(|e| format!("WebP: {e}"))?;
    let rgba = if dec.has_alpha() {
        buf
    } else {
        buf.chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect()
    };
    if rgba.len() != (w * h * 4) as usize {
        return Err("WebP: unexpected pixel data size".into());
    }
    Ok((w, h, rgba))
}

/// Encodes a pixmap as an 8-bit RGBA PNG (straight alpha, as PNG stores it).
///
/// Every PNG the daemon writes is an intermediate or a preview: an illustration, an overlay
/// block, a still, a poster. They are written once per build or request and read back by our
/// own renderer or a browser, so encoding time matters more than bytes: `fdeflate`'s fast mode
/// (png's `Compression::Fast`) encodes a 720×1280 illustration several times faster than the
/// zlib level-6 default tiny-skia's `encode_png` uses, for files a little larger.
pub fn encode_png(pixmap: PixmapRef<'_>) -> Result<Vec<u8>, String> {
    let straight = pixmap.to_owned().take_demultiplied();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer
        .write_image_data(&straight)
        .map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// Wraps straight-alpha RGBA as a premultiplied pixmap.
pub fn from_straight_rgba(w: u32, h: u32, mut rgba: Vec<u8>) -> Option<Pixmap> {
    for p in rgba.chunks_exact_mut(4) {
        let a = u16::from(p[3]);
        if a < 255 {
            for c in &mut p[..3] {
                *c = ((u16::from(*c) * a + 127) / 255) as u8;
            }
        }
    }
    Pixmap::from_vec(rgba, IntSize::from_wh(w, h)?)
}

/// One output sample's source contributions along an axis: (first index, weights).
struct Taps {
    start: usize,
    weights: Vec<f32>,
}

/// Box-filter (area-average) weights mapping `src` samples onto `dst` ≤ `src` samples.
fn area_taps(src: u32, dst: u32) -> Vec<Taps> {
    let scale = src as f64 / dst as f64;
    (0..dst)
        .map(|i| {
            let lo = i as f64 * scale;
            let hi = ((i + 1) as f64 * scale).min(src as f64);
            let start = lo.floor() as usize;
            let end = (hi.ceil() as usize).max(start + 1).min(src as usize);
            let weights = (start..end)
                .map(|s| ((hi.min(s as f64 + 1.0) - lo.max(s as f64)) / scale) as f32)
                .collect();
            Taps { start, weights }
        })
        .collect()
}

/// Resizes a premultiplied pixmap to `dw`×`dh`: area averaging when shrinking (no aliasing, any
/// factor), bicubic when enlarging either side ([`enlarge`]).
pub fn resize(src: PixmapRef<'_>, dw: u32, dh: u32) -> Option<Pixmap> {
    let (sw, sh) = (src.width(), src.height());
    if dw == 0 || dh == 0 {
        return None;
    }
    if (dw, dh) == (sw, sh) {
        return Some(src.to_owned());
    }
    if dw > sw || dh > sh {
        return enlarge(src, dw, dh);
    }
    let xt = area_taps(sw, dw);
    let yt = area_taps(sh, dh);
    let data = src.data();
    // Horizontal pass into f32 rows (sh × dw × 4).
    let mut mid = vec![0f32; (sh * dw * 4) as usize];
    for y in 0..sh as usize {
        let row = &data[y * sw as usize * 4..(y + 1) * sw as usize * 4];
        let out = &mut mid[y * dw as usize * 4..(y + 1) * dw as usize * 4];
        for (x, t) in xt.iter().enumerate() {
            let mut acc = [0f32; 4];
            for (k, w) in t.weights.iter().enumerate() {
                let p = &row[(t.start + k) * 4..(t.start + k) * 4 + 4];
                for c in 0..4 {
                    acc[c] += f32::from(p[c]) * w;
                }
            }
            out[x * 4..x * 4 + 4].copy_from_slice(&acc);
        }
    }
    let mut out = Pixmap::new(dw, dh)?;
    let od = out.data_mut();
    let stride = dw as usize * 4;
    for (y, t) in yt.iter().enumerate() {
        let dst = &mut od[y * stride..(y + 1) * stride];
        let mut acc = vec![0f32; stride];
        for (k, w) in t.weights.iter().enumerate() {
            let src_row = &mid[(t.start + k) * stride..(t.start + k + 1) * stride];
            for (a, s) in acc.iter_mut().zip(src_row) {
                *a += s * w;
            }
        }
        for (i, v) in acc.iter().enumerate() {
            dst[i] = v.round().clamp(0.0, 255.0) as u8;
        }
        // Keep premultiplied invariants (colour ≤ alpha) after rounding.
        for p in dst.chunks_exact_mut(4) {
            let a = p[3];
            for c in &mut p[..3] {
                *c = (*c).min(a);
            }
        }
    }
    Some(out)
}

/// One output sample's four bicubic source taps along an axis: the first index of each tap
/// (clamped to the image) and its weight.
struct CubicTaps {
    index: [usize; 4],
    weight: [f32; 4],
}

/// The bicubic taps mapping `src` samples onto `dst` samples. The filter is tiny-skia's
/// `FilterQuality::Bicubic` (Mitchell–Netravali, B = C = 1/3) sampled as its raster pipeline
/// samples a scaled pattern: at each output pixel's centre, mapped back through the scale,
/// with the four taps 1.5 and 0.5 pixels either side clamped to the edge.
fn cubic_taps(src: u32, dst: u32) -> Vec<CubicTaps> {
    let inverse = 1.0 / (dst as f32 / src as f32);
    // The last index, as a float just under the edge (exclusive → inclusive).
    let last = f32::from_bits((src as f32).to_bits() - 1);
    let near = |t: f32| ((-21.0 / 18.0 * t + 27.0 / 18.0) * t + 9.0 / 18.0) * t + 1.0 / 18.0;
    let far = |t: f32| t * t * (7.0 / 18.0 * t - 6.0 / 18.0);
    (0..dst)
        .map(|i| {
            let centre = (i as f32 + 0.5) * inverse;
            let f = (centre + 0.5).fract();
            let index =
                std::array::from_fn(|k| (centre - 1.5 + k as f32).clamp(0.0, last) as usize);
            CubicTaps {
                index,
                weight: [far(1.0 - f), near(1.0 - f), near(f), far(f)],
            }
        })
        .collect()
}

/// Bicubic resize of a premultiplied pixmap to `dw`×`dh`, in two separable passes (rows, then
/// columns, the columns' rows in parallel): the same samples as drawing it through tiny-skia's
/// bicubic pattern (within one level per channel, float rounding) at a small fraction of the
/// cost. Resolving a still background enlarges up to three plate-sized pictures; through
/// tiny-skia's per-pixel 16-tap float pipeline that took about 100 ms a scene.
fn enlarge(src: PixmapRef<'_>, dw: u32, dh: u32) -> Option<Pixmap> {
    use rayon::prelude::*;
    let (sw, sh) = (src.width() as usize, src.height() as usize);
    let xt = cubic_taps(sw as u32, dw);
    let yt = cubic_taps(sh as u32, dh);
    let stride = dw as usize * 4;
    // Rows pass, into unit floats: sh × dw × 4.
    let mut mid = vec![0f32; sh * stride];
    mid.par_chunks_exact_mut(stride)
        .zip(src.data().par_chunks_exact(sw * 4))
        .for_each(|(out, row)| {
            let unit: Vec<[f32; 4]> = row
                .chunks_exact(4)
                .map(|p| std::array::from_fn(|c| f32::from(p[c]) / 255.0))
                .collect();
            for (t, px) in xt.iter().zip(out.chunks_exact_mut(4)) {
                let mut acc = [0f32; 4];
                for (&x, w) in t.index.iter().zip(t.weight) {
                    for (a, s) in acc.iter_mut().zip(unit[x]) {
                        *a += w * s;
                    }
                }
                px.copy_from_slice(&acc);
            }
        });
    // Columns pass, straight into bytes.
    let mut out = Pixmap::new(dw, dh)?;
    out.data_mut()
        .par_chunks_exact_mut(stride)
        .zip(yt.par_iter())
        .for_each(|(dst, t)| {
            let rows = t.index.map(|y| &mid[y * stride..(y + 1) * stride]);
            let [w0, w1, w2, w3] = t.weight;
            for (x, d) in dst.iter_mut().enumerate() {
                let v = w0 * rows[0][x] + w1 * rows[1][x] + w2 * rows[2][x] + w3 * rows[3][x];
                // Rounded to the nearest level (`round` is a call on baseline x86-64).
                *d = (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
            }
            // The filter rings past the alpha at transparent edges: keep colour ≤ alpha.
            for p in dst.chunks_exact_mut(4) {
                let a = p[3];
                for c in &mut p[..3] {
                    *c = (*c).min(a);
                }
            }
        });
    Some(out)
}

/// Scales and centre-crops `src` so it exactly covers `w`×`h` (CSS `object-fit: cover`).
pub fn cover(src: PixmapRef<'_>, w: u32, h: u32) -> Option<Pixmap> {
    let (sw, sh) = (src.width() as f64, src.height() as f64);
    let scale = (w as f64 / sw).max(h as f64 / sh);
    let cw = ((w as f64 / scale).round() as u32).clamp(1, src.width());
    let ch = ((h as f64 / scale).round() as u32).clamp(1, src.height());
    let cx = (src.width() - cw) / 2;
    let cy = (src.height() - ch) / 2;
    let cropped = crop(src, cx, cy, cw, ch)?;
    resize(cropped.as_ref(), w, h)
}

/// Scales `src` to fit inside `w`×`h` keeping its aspect ratio (`contain`), centred on a
/// transparent pixmap of exactly `w`×`h`.
pub fn contain(src: PixmapRef<'_>, w: u32, h: u32) -> Option<Pixmap> {
    let scale = (w as f64 / src.width() as f64).min(h as f64 / src.height() as f64);
    let fw = ((src.width() as f64 * scale).round() as u32).clamp(1, w);
    let fh = ((src.height() as f64 * scale).round() as u32).clamp(1, h);
    let fitted = resize(src, fw, fh)?;
    let mut out = Pixmap::new(w, h)?;
    blit_copy(
        &mut out,
        fitted.as_ref(),
        ((w - fw) / 2) as i32,
        ((h - fh) / 2) as i32,
    );
    Some(out)
}

/// Copies a sub-rectangle into a new pixmap.
pub fn crop(src: PixmapRef<'_>, x: u32, y: u32, w: u32, h: u32) -> Option<Pixmap> {
    if x + w > src.width() || y + h > src.height() {
        return None;
    }
    let mut out = Pixmap::new(w, h)?;
    let sstride = src.width() as usize * 4;
    let dstride = w as usize * 4;
    let data = src.data();
    for row in 0..h as usize {
        let s = (y as usize + row) * sstride + x as usize * 4;
        out.data_mut()[row * dstride..(row + 1) * dstride].copy_from_slice(&data[s..s + dstride]);
    }
    Some(out)
}

/// Copies (no blending) `src` onto `dst` with its top-left at (`x`, `y`), clipped.
pub fn blit_copy(dst: &mut Pixmap, src: PixmapRef<'_>, x: i32, y: i32) {
    let (dw, dh) = (dst.width() as i32, dst.height() as i32);
    let (sw, sh) = (src.width() as i32, src.height() as i32);
    let x0 = x.max(0);
    let x1 = (x + sw).min(dw);
    if x0 >= x1 {
        return;
    }
    let data = src.data();
    let out = dst.data_mut();
    for dy in y.max(0)..(y + sh).min(dh) {
        let sy = dy - y;
        let s = (sy * sw + (x0 - x)) as usize * 4;
        let d = (dy * dw + x0) as usize * 4;
        let n = (x1 - x0) as usize * 4;
        out[d..d + n].copy_from_slice(&data[s..s + n]);
    }
}

/// A coverage mask grown by `r` pixels in every direction (square max filter), with `r` pixels
/// of padding added on each side. Used for caption outlines.
pub fn dilate(cov: &[u8], w: usize, h: usize, r: usize) -> (Vec<u8>, usize, usize) {
    let (ow, oh) = (w + 2 * r, h + 2 * r);
    let mut padded = vec![0u8; ow * oh];
    for y in 0..h {
        padded[(y + r) * ow + r..(y + r) * ow + r + w].copy_from_slice(&cov[y * w..(y + 1) * w]);
    }
    let mut tmp = vec![0u8; ow * oh];
    for y in 0..oh {
        for x in 0..ow {
            let lo = x.saturating_sub(r);
            let hi = (x + r).min(ow - 1);
            tmp[y * ow + x] = padded[y * ow + lo..=y * ow + hi]
                .iter()
                .copied()
                .max()
                .unwrap_or(0);
        }
    }
    let mut out = vec![0u8; ow * oh];
    for y in 0..oh {
        let lo = y.saturating_sub(r);
        let hi = (y + r).min(oh - 1);
        for x in 0..ow {
            out[y * ow + x] = (lo..=hi).map(|yy| tmp[yy * ow + x]).max().unwrap_or(0);
        }
    }
    (out, ow, oh)
}

/// A box blur of radius `r` (one pass each way), same size as the input.
pub fn box_blur(cov: &[u8], w: usize, h: usize, r: usize) -> Vec<u8> {
    let n = (2 * r + 1) as u32;
    let mut tmp = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            let lo = x.saturating_sub(r);
            let hi = (x + r).min(w - 1);
            let s: u32 = cov[y * w + lo..=y * w + hi]
                .iter()
                .map(|&v| u32::from(v))
                .sum();
            tmp[y * w + x] = (s / n) as u8;
        }
    }
    let mut out = vec![0u8; w * h];
    for y in 0..h {
        let lo = y.saturating_sub(r);
        let hi = (y + r).min(h - 1);
        for x in 0..w {
            let s: u32 = (lo..=hi).map(|yy| u32::from(tmp[yy * w + x])).sum();
            out[y * w + x] = (s / n) as u8;
        }
    }
    out
}

/// Paints `cov` (w×h) in a solid straight-alpha colour onto `dst` at (`x`, `y`), source-over.
pub fn paint_coverage(
    dst: &mut Pixmap,
    cov: &[u8],
    w: usize,
    h: usize,
    x: i32,
    y: i32,
    rgba: [u8; 4],
) {
    let (dw, dh) = (dst.width() as i32, dst.height() as i32);
    let out = dst.data_mut();
    for row in 0..h as i32 {
        let dy = y + row;
        if dy < 0 || dy >= dh {
            continue;
        }
        for col in 0..w as i32 {
            let dx = x + col;
            if dx < 0 || dx >= dw {
                continue;
            }
            let a = u32::from(cov[(row * w as i32 + col) as usize]) * u32::from(rgba[3]) / 255;
            if a == 0 {
                continue;
            }
            let p = &mut out[((dy * dw + dx) * 4) as usize..((dy * dw + dx) * 4 + 4) as usize];
            let inv = 255 - a;
            for c in 0..3 {
                let src = u32::from(rgba[c]) * a / 255;
                p[c] = (src + (u32::from(p[c]) * inv + 127) / 255).min(255) as u8;
            }
            p[3] = (a + (u32::from(p[3]) * inv + 127) / 255).min(255) as u8;
        }
    }
}

/// The largest difference between two byte runs, channel by channel (0 for empty runs): how
/// far a fast path strays from its reference, in tests.
#[cfg(test)]
pub(crate) fn worst_difference(a: &[u8], b: &[u8]) -> u8 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(w: u32, h: u32, rgba: [u8; 4]) -> Pixmap {
        from_straight_rgba(w, h, rgba.repeat((w * h) as usize)).unwrap()
    }

    #[test]
    fn area_downscale_preserves_flat_colour_and_averages() {
        let p = solid(720, 1280, [200, 100, 50, 255]);
        let small = resize(p.as_ref(), 280, 498).unwrap();
        assert!(
            small
                .data()
                .chunks_exact(4)
                .all(|px| px == [200, 100, 50, 255])
        );
        // Two columns black/white → one grey column.
        let mut bw = Pixmap::new(2, 1).unwrap();
        bw.data_mut()
            .copy_from_slice(&[0, 0, 0, 255, 255, 255, 255, 255]);
        let g = resize(bw.as_ref(), 1, 1).unwrap();
        assert_eq!(g.data(), &[128, 128, 128, 255]);
    }

    #[test]
    fn cover_and_contain_sizes() {
        let p = solid(400, 300, [10, 20, 30, 255]);
        let c = cover(p.as_ref(), 720, 1280).unwrap();
        assert_eq!((c.width(), c.height()), (720, 1280));
        let k = contain(p.as_ref(), 200, 200).unwrap();
        assert_eq!((k.width(), k.height()), (200, 200));
        assert_eq!(k.pixel(100, 0).unwrap().alpha(), 0);
        assert_eq!(k.pixel(100, 100).unwrap().alpha(), 255);
    }

    #[test]
    fn rejects_unknown_and_oversize_images() {
        assert!(decode_image(b"GIF89a....").is_err());
        assert!(check_dims(MAX_IMAGE_DIM + 1, 10).is_err());
        assert!(check_dims(0, 10).is_err());
        let png = solid(3, 2, [1, 2, 3, 255]).encode_png().unwrap();
        let back = decode_image(&png).unwrap();
        assert_eq!((back.width(), back.height()), (3, 2));
        assert!(decode_image(&png[..20]).is_err());
    }

    #[test]
    fn encoded_png_decodes_to_the_same_premultiplied_pixels() {
        // A translucent gradient: the encoder demultiplies, the decoder premultiplies again.
        let rgba: Vec<u8> = (0..64u32 * 48)
            .flat_map(|i| [(i % 251) as u8, 90, 200, (i % 256) as u8])
            .collect();
        let original = from_straight_rgba(64, 48, rgba).unwrap();
        let png = encode_png(original.as_ref()).unwrap();
        let back = decode_image(&png).unwrap();
        assert_eq!((back.width(), back.height()), (64, 48));
        for (a, b) in original.pixels().iter().zip(back.pixels()) {
            assert_eq!(a.alpha(), b.alpha());
            for (x, y) in [
                (a.red(), b.red()),
                (a.green(), b.green()),
                (a.blue(), b.blue()),
            ] {
                assert!(x.abs_diff(y) <= 1, "{a:?} came back as {b:?}");
            }
        }
    }

    #[test]
    fn jpeg_roundtrip_through_our_decoder() {
        let mut buf = Vec::new();
        let rgb: Vec<u8> = [90u8, 160, 220].repeat(16 * 8);
        jpeg_encoder::Encoder::new(&mut buf, 90)
            .encode(&rgb, 16, 8, jpeg_encoder::ColorType::Rgb)
            .unwrap();
        let p = decode_image(&buf).unwrap();
        assert_eq!((p.width(), p.height()), (16, 8));
        let px = p.pixel(8, 4).unwrap();
        assert!((i32::from(px.red()) - 90).abs() < 6 && px.alpha() == 255);
    }

    /// An opaque test picture with detail at every scale: gradients, a hard edge, noise.
    fn detailed(w: u32, h: u32) -> Pixmap {
        let mut state = 0x9E37_79B9_u32;
        let rgba = (0..w * h)
            .flat_map(|i| {
                let (x, y) = (i % w, i / w);
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let edge = if x * 3 > w { 230 } else { 20 };
                [
                    (x * 255 / w) as u8,
                    (y * 255 / h) as u8,
                    edge ^ (state as u8 & 15),
                    255,
                ]
            })
            .collect();
        from_straight_rgba(w, h, rgba).unwrap()
    }

    /// `src` drawn to `dw`×`dh` through tiny-skia's bicubic pattern: what `enlarge` replaces.
    fn tiny_skia_bicubic(src: PixmapRef<'_>, dw: u32, dh: u32) -> Pixmap {
        let mut out = Pixmap::new(dw, dh).unwrap();
        out.draw_pixmap(
            0,
            0,
            src,
            &tiny_skia::PixmapPaint {
                quality: tiny_skia::FilterQuality::Bicubic,
                ..tiny_skia::PixmapPaint::default()
            },
            tiny_skia::Transform::from_scale(
                dw as f32 / src.width() as f32,
                dh as f32 / src.height() as f32,
            ),
            None,
        );
        out
    }

    #[test]
    fn enlarging_samples_as_tiny_skias_bicubic_does() {
        // The plate sizes resolving enlarges to: a library picture to the plate, a soft copy's
        // 1/24 back up, a window; and one axis enlarged while the other shrinks.
        for ((sw, sh), (dw, dh)) in [
            ((360, 640), (792, 1408)),
            ((33, 58), (792, 1408)),
            ((360, 640), (550, 977)),
            ((97, 300), (401, 120)),
        ] {
            let src = detailed(sw, sh);
            let ours = resize(src.as_ref(), dw, dh).unwrap();
            let theirs = tiny_skia_bicubic(src.as_ref(), dw, dh);
            let worst = worst_difference(ours.data(), theirs.data());
            assert!(worst <= 1, "{sw}x{sh} → {dw}x{dh}: off by {worst}");
        }
    }

    #[test]
    fn enlarging_a_transparent_edge_keeps_colour_within_alpha() {
        let mut src = solid(8, 8, [250, 250, 250, 255]);
        for px in src.data_mut().chunks_exact_mut(4).step_by(2) {
            px.copy_from_slice(&[0, 0, 0, 0]);
        }
        let big = resize(src.as_ref(), 37, 29).unwrap();
        assert!(
            big.data()
                .chunks_exact(4)
                .all(|p| p[..3].iter().all(|&c| c <= p[3]))
        );
    }

    #[test]
    fn dilate_grows_mask() {
        let (d, w, h) = dilate(&[255], 1, 1, 2);
        assert_eq!((w, h), (5, 5));
        assert!(d.iter().all(|&v| v == 255));
        let b = box_blur(&d, 5, 5, 1);
        assert_eq!(b[12], 255);
        assert!(b[0] < 255);
    }
}
