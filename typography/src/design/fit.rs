//! Step 3, fit: the largest size at which every object — text and decorations, with the real
//! ink of stacked Vietnamese diacritics — fits the band y 128–960 (posters with the narrator
//! shown: the lower band 640–960) and x 24–696, then the block centred in its band. Copy that
//! cannot fit even at the smallest size loses its last lines (marked with `…`).

use super::copy::CopyLines;
use super::layout::{Deco, Line, MARGIN, Setup, arrange, extents};
use super::{CANVAS_W, NARRATOR_BAND_TOP, Role, SAFE_BOTTOM, SAFE_TOP};
use crate::{break_lines, pick_font};

/// The vertical band a design keeps to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Band {
    pub top: f32,
    pub bottom: f32,
}

impl Band {
    /// The band for `role`: posters leave the upper part to the narrator when it is shown.
    pub fn of(role: Role, show_narrator: bool) -> Band {
        let top = if role.is_poster() && show_narrator {
            NARRATOR_BAND_TOP
        } else {
            SAFE_TOP
        };
        Band {
            top,
            bottom: SAFE_BOTTOM,
        }
    }

    fn height(self) -> f32 {
        self.bottom - self.top
    }
}

/// Lines and decorations placed on the canvas.
pub(super) struct Fitted {
    pub lines: Vec<Line>,
    pub decos: Vec<Deco>,
    /// Whether copy was cut to fit.
    pub truncated: bool,
}

/// Fits `copy` into `band`; `None` when not even one line fits.
pub(super) fn fit(setup: &Setup<'_>, copy: &CopyLines, band: Band) -> Option<Fitted> {
    let (max_px, min_px) = match setup.role {
        Role::Typography => (104.0f32, 26.0f32),
        _ => (168.0, 22.0),
    };
    let (mut lines, mut decos, truncated) =
        match largest_fit(setup, copy, band.height(), max_px, min_px) {
            Some((lines, decos)) => (lines, decos, false),
            None => {
                let (lines, decos) = cut_to_fit(setup, copy, band.height(), min_px)?;
                (lines, decos, true)
            }
        };
    // Centre the block in its band.
    let e = extents(&lines, &decos);
    let dy = (band.top + (band.height() - e.height()) / 2.0 - e.y0).round();
    for l in &mut lines {
        l.baseline += dy;
    }
    for d in &mut decos {
        d.rect.y0 += dy;
        d.rect.y1 += dy;
    }
    Some(Fitted {
        lines,
        decos,
        truncated,
    })
}

/// Typography lines wrapped to the room at `px`; poster lines stay as written.
fn wrap(setup: &Setup<'_>, px: f32, head: &[String]) -> Vec<String> {
    if setup.role.is_poster() {
        return head.to_vec();
    }
    let font = &setup.fonts.bold;
    let room = CANVAS_W - 2.0 * MARGIN - 40.0;
    head.iter()
        .flat_map(|piece| {
            let f = pick_font(font, piece).expect("non-empty list");
            break_lines(f, piece, px, room - 2.0 * (px * 0.22))
        })
        .collect()
}

/// The largest size (in steps of 2 px from `max_px` down to `min_px`) at which some candidate
/// fits `band_h`; the earliest candidate wins a tie.
fn largest_fit(
    setup: &Setup<'_>,
    copy: &CopyLines,
    band_h: f32,
    max_px: f32,
    min_px: f32,
) -> Option<(Vec<Line>, Vec<Deco>)> {
    let mut fitted: Option<(f32, Vec<Line>, Vec<Deco>)> = None;
    for candidate in &copy.candidates() {
        let mut px = max_px;
        while px >= min_px && fitted.as_ref().is_none_or(|f| px > f.0) {
            let set = wrap(setup, px, candidate);
            if let Some((lines, decos)) = arrange(setup, &set, &copy.contacts, px) {
                let e = extents(&lines, &decos);
                if e.height() <= band_h {
                    fitted = Some((px, lines, decos));
                    break;
                }
            }
            px -= 2.0;
        }
    }
    fitted.map(|(_, lines, decos)| (lines, decos))
}

/// Too much copy even at the smallest size: keeps the first lines that fit, the last of them
/// ending in `…`.
fn cut_to_fit(
    setup: &Setup<'_>,
    copy: &CopyLines,
    band_h: f32,
    px: f32,
) -> Option<(Vec<Line>, Vec<Deco>)> {
    let mut set = wrap(setup, px, &copy.head);
    while !set.is_empty() {
        set.pop();
        if let Some(last) = set.last_mut() {
            let cut = last.trim_end_matches(|c: char| !c.is_alphanumeric());
            *last = format!("{cut}…");
        }
        if let Some((lines, decos)) = arrange(setup, &set, &copy.contacts, px)
            && extents(&lines, &decos).height() <= band_h
        {
            return Some((lines, decos));
        }
    }
    None
}
