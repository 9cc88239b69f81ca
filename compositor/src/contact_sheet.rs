//! Contact sheets: one PNG per video with a frame of every scene in a grid, each tile labelled
//! with its scene number and length, for a person checking a video's look at a glance
//! (`reelsmith render --contact-sheet`). Tiles come from the same renderer as the MP4
//! ([`View::Full`]), downscaled with the stills' area filter.

use crate::frame::{FRAME_BYTES, View};
use crate::geom::{CANVAS_H, CANVAS_W};
use crate::raster;
use crate::resolve::ResolvedVideo;
use tiny_skia::{Color, IntSize, Pixmap, PixmapPaint, Transform};
use typography::Font;

/// Where in a scene its tile is taken, as a fraction of its duration: the middle, when
/// overlays have settled and a caption is showing.
pub const TILE_SEEK_FRACTION: f64 = 0.5;
/// Tile size: a third of the canvas.
pub const TILE_W: u32 = CANVAS_W / 3;
/// Tile height (the canvas's 9:16 at [`TILE_W`]).
pub const TILE_H: u32 = (CANVAS_H * TILE_W).div_ceil(CANVAS_W);
/// Tiles per row at most.
pub const COLUMNS: usize = 4;
/// Space around and between tiles.
const GAP: u32 = 16;
/// The label strip above each tile.
const LABEL_H: u32 = 34;
/// Label text size.
const LABEL_PX: f32 = 20.0;

/// Sheet size for `scenes` tiles: `(width, height)`.
pub fn sheet_size(scenes: usize) -> (u32, u32) {
    let cols = scenes.clamp(1, COLUMNS) as u32;
    let rows = scenes.max(1).div_ceil(COLUMNS) as u32;
    (
        GAP + cols * (TILE_W + GAP),
        GAP + rows * (LABEL_H + TILE_H + GAP),
    )
}

/// The top-left of scene `index`'s tile (below its label).
pub fn tile_origin(index: usize) -> (u32, u32) {
    let (col, row) = ((index % COLUMNS) as u32, (index / COLUMNS) as u32);
    (
        GAP + col * (TILE_W + GAP),
        GAP + row * (LABEL_H + TILE_H + GAP) + LABEL_H,
    )
}

/// The contact sheet of `video` as PNG bytes; labels are set in `fonts` (the caption fonts,
/// `crate::resolve::caption_fonts`). Clip decoders the tiles opened are released after.
pub fn contact_sheet(video: &ResolvedVideo, fonts: &[Font]) -> Vec<u8> {
    let n = video.scene_count();
    let (w, h) = sheet_size(n);
    let mut sheet = Pixmap::new(w, h).expect("non-zero size");
    sheet.fill(Color::from_rgba8(18, 18, 22, 255));
    let mut frame = vec![0u8; FRAME_BYTES];
    for scene in 0..n {
        let duration = video.scene_duration(scene).unwrap_or(0.0);
        let t = duration * TILE_SEEK_FRACTION;
        video.prefetch_scene(scene, t);
        video.render_scene(scene, t, View::Full, &mut frame);
        let full = Pixmap::from_vec(
            std::mem::take(&mut frame),
            IntSize::from_wh(CANVAS_W, CANVAS_H).expect("constant"),
        )
        .expect("length matches");
        let tile = raster::resize(full.as_ref(), TILE_W, TILE_H).expect("constant size");
        frame = full.take();
        let (x, y) = tile_origin(scene);
        sheet.draw_pixmap(
            x as i32,
            y as i32,
            tile.as_ref(),
            &PixmapPaint::default(),
            Transform::identity(),
            None,
        );
        label(
            &mut sheet,
            fonts,
            (x, y),
            &format!("{}  ·  {duration:.1} s", scene + 1),
        );
    }
    video.release_media();
    raster::encode_png(sheet.as_ref()).expect("in-memory PNG encoding cannot fail")
}

/// `text` in light grey in the strip above the tile at `(x, y)`.
fn label(sheet: &mut Pixmap, fonts: &[Font], (x, y): (u32, u32), text: &str) {
    let Some(font) = typography::pick_font(fonts, text) else {
        return;
    };
    let line = typography::layout_line(font, text, LABEL_PX);
    let cov = typography::rasterize_line(font, &line);
    let baseline = y as i32 - (LABEL_H as i32 - LABEL_PX as i32) / 2;
    raster::paint_coverage(
        sheet,
        &cov.data,
        cov.width as usize,
        cov.height as usize,
        x as i32 + cov.left,
        baseline + cov.top,
        [230, 230, 236, 255],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sheet_grows_by_rows_of_four() {
        assert_eq!(
            sheet_size(1),
            (GAP + TILE_W + GAP, GAP + LABEL_H + TILE_H + GAP)
        );
        assert_eq!(sheet_size(4).0, sheet_size(9).0);
        assert_eq!(sheet_size(5).1, sheet_size(8).1);
        assert!(sheet_size(9).1 > sheet_size(8).1);
        let (w, h) = sheet_size(9);
        let (x, y) = tile_origin(8);
        assert!(x + TILE_W <= w && y + TILE_H <= h, "the last tile fits");
        assert_eq!(TILE_H, 427);
    }
}
