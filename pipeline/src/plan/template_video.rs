//! `create_video` with `template`: an idea becomes the named template's script (see
//! [`Template::script`]), narrated verbatim, so the video follows the template's scenes.

use crate::plan::templates::Templates;
use foundation::error::{Code, Error, Result};
use foundation::model::{OutputType, Source};
use video::ingest::CreateVideoRequest;

/// Takes `req.template` (nothing to do without one): with source `idea`, the idea becomes the
/// template's script and the request a source-text request carrying it. An unknown template is
/// 400 `invalid_template`; other sources keep the template for validation to refuse.
pub fn fill_from_template(templates: &Templates, req: &mut CreateVideoRequest) -> Result<()> {
    let Some(id) = req.template.as_deref() else {
        return Ok(());
    };
    let t = templates.get(id).ok_or_else(|| {
        Error::new(
            Code::InvalidTemplate,
            "No template with this id exists; GET /v1/foundation_videos lists them.",
        )
        .param("template")
    })?;
    if req.source != Some(Source::Idea) {
        return Ok(());
    }
    if req.output_type == Some(OutputType::Text) {
        return Err(Error::new(
            Code::InvalidOutputType,
            "A template's script is ready to narrate: use `output_type` `scene` or `video` with a template.",
        )
        .param("output_type"));
    }
    let Some(idea) = req.idea_text.as_deref().filter(|i| !i.trim().is_empty()) else {
        return Ok(());
    };
    req.script_text = Some(t.script(idea));
    req.script_from_plan = true;
    req.source = Some(Source::Text);
    req.template = None;
    Ok(())
}
