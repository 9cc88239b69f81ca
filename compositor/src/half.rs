//! Half-size frames for the editor's preview clips: the compositor renders the product's
//! 720×1280 frame (preview equals final) and each 2×2 block becomes one pixel of a 360×640
//! frame, so the encoder handles a quarter of the pixels. The averaging is pixel work like the
//! rest of this crate's, and runs as often: once per preview frame.

use std::cell::RefCell;

use crate::FRAME_BYTES;
use crate::geom::{CANVAS_H, CANVAS_W};
use crate::media::FrameSource;

/// Half the product's width and height.
pub const HALF_W: u32 = CANVAS_W / 2;
pub const HALF_H: u32 = CANVAS_H / 2;
const FULL_W: usize = CANVAS_W as usize;

thread_local! {
    /// One full-size frame per rendering thread.
    static FULL: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `inner`'s frames at half size.
pub struct HalfSize<'a> {
    pub inner: &'a dyn FrameSource,
}

/// Averages each 2×2 block of the 720-wide RGBA `full` into `half` (360 wide).
pub fn halve(full: &[u8], half: &mut [u8]) {
    let (hw, hh) = (HALF_W as usize, HALF_H as usize);
    debug_assert_eq!(half.len(), hw * hh * 4);
    for y in 0..hh {
        let top = &full[(2 * y) * FULL_W * 4..(2 * y + 1) * FULL_W * 4];
        let bottom = &full[(2 * y + 1) * FULL_W * 4..(2 * y + 2) * FULL_W * 4];
        let out = &mut half[y * hw * 4..(y + 1) * hw * 4];
        for x in 0..hw {
            for c in 0..4 {
                let i = 8 * x + c;
                let sum = u16::from(top[i])
                    + u16::from(top[i + 4])
                    + u16::from(bottom[i])
                    + u16::from(bottom[i + 4]);
                out[4 * x + c] = ((sum + 2) / 4) as u8;
            }
        }
    }
}

impl FrameSource for HalfSize<'_> {
    fn frame_count(&self) -> u64 {
        self.inner.frame_count()
    }
    fn fps(&self) -> u32 {
        self.inner.fps()
    }
    fn render(&self, index: u64, rgba: &mut [u8]) {
        FULL.with(|cell| {
            let mut full = cell.borrow_mut();
            full.resize(FRAME_BYTES, 0);
            self.inner.render(index, &mut full);
            halve(&full, rgba);
        });
    }
    fn prepare(&self, first: u64, count: u64) {
        self.inner.prepare(first, count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_of_four_becomes_its_average() {
        let mut full = vec![0u8; FRAME_BYTES];
        // The top-left block: four different greys.
        for (i, v) in [
            (0usize, 10u8),
            (4, 20),
            (FULL_W * 4, 30),
            (FULL_W * 4 + 4, 40),
        ] {
            full[i..i + 4].copy_from_slice(&[v, v, v, 255]);
        }
        let mut half = vec![0u8; (HALF_W * HALF_H * 4) as usize];
        halve(&full, &mut half);
        assert_eq!(&half[..4], &[25, 25, 25, 255]);
        assert_eq!(&half[4..8], &[0, 0, 0, 0]);
    }
}
