//! A video's contact sheet: every scene's middle frame in one labelled PNG
//! (`compositor::contact_sheet`), resolved from the document exactly as the MP4 is, for a
//! person checking the look of a video (`reelsmith render --contact-sheet`).

use compositor::resolve::caption_fonts;

use crate::render::plan::{plan_for, resolve_dropping_bad_overlays};
use foundation::config::Settings;
use foundation::document::VideoDocument;
use foundation::jobs::JobFailure;

/// The contact sheet of `doc` (whose files are in its video folder) as PNG bytes.
pub fn contact_sheet(settings: &Settings, doc: &VideoDocument) -> Result<Vec<u8>, JobFailure> {
    let dir = settings.video_dir(&doc.topic_id);
    let mut plan = plan_for(settings, doc, &dir);
    let fonts = caption_fonts(&plan.fonts_dir).map_err(JobFailure::internal)?;
    let video = resolve_dropping_bad_overlays(&doc.topic_id, &mut plan, 0)?;
    Ok(compositor::contact_sheet::contact_sheet(&video, &fonts))
}
