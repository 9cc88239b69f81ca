//! `GET /v1/foundation_videos`: the template library in `{assets_dir}/templates/templates.json`.
//! Each template is a scene structure with a format (VE, QA, POV, CS, MB), a script skeleton
//! (one line per scene, with its scene type) and a look; its thumbnail is designed once by the
//! embedded image designer (`media::images::Designer`: a library photo with the title set by
//! the typography crate) and kept under `public/templates/`.
//!
//! Filtering: `industry` (default the account's) matches case-insensitively, and `general`
//! templates match every industry; `sub_industry` narrows to templates of that sub-industry or
//! of none. 20 per page.

use std::path::Path;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::media::images::Designer;
use crate::plan::entry::ScriptFormat;
use crate::plan::list::{MAX_PAGE, PAGE_SIZE};
use crate::plan::query::{self, Query};
use foundation::config::Settings;
use foundation::error::{Code, Error, Result};
use foundation::model::Account;
use video::build::{cap_words, narrate};

/// Templates for every industry.
pub(crate) const GENERAL_INDUSTRY: &str = "general";
/// The public folder of template thumbnails (never swept).
const THUMB_FOLDER: &str = "templates";
/// Thumbnails match the editor's 280×498 preview.
const THUMB_SIZE: (u32, u32) = (280, 498);

#[derive(Debug, Deserialize)]
struct TemplateFile {
    templates: Vec<Template>,
}

/// One scene of a template's skeleton.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct TemplateScene {
    /// HOOK, STAT, KEY POINT, DATA, FACT or CALL TO ACTION.
    #[serde(rename = "type")]
    pub scene_type: String,
    /// The line to adapt; `[brackets]` mark what to fill in.
    pub text: String,
}

/// A video template.
#[derive(Debug, Clone, Deserialize)]
pub struct Template {
    pub id: String,
    pub title: String,
    pub description: String,
    pub industry: String,
    #[serde(default)]
    pub sub_industry: Option<String>,
    pub format: ScriptFormat,
    pub look: String,
    pub scenes: Vec<TemplateScene>,
}

/// The most words of the idea's own material a template script carries.
const MATERIAL_WORDS: usize = 120;

impl Template {
    /// The template's script for an idea: its scenes in order, each line with its `[brackets]`
    /// dropped (placeholders are phrased to be spoken as they stand), and the idea's own
    /// material (`material`, narrated to at most [`MATERIAL_WORDS`] words) after the first
    /// scene, so the video keeps the template's structure and speaks about the idea.
    pub fn script(&self, material: &str) -> String {
        let mut parts: Vec<String> = self.scenes.iter().map(|s| spoken(&s.text)).collect();
        let material = cap_words(&narrate(material, MATERIAL_WORDS), MATERIAL_WORDS);
        if !material.trim().is_empty() {
            parts.insert(1.min(parts.len()), material);
        }
        parts.join(" ")
    }
}

/// A skeleton line as narration: brackets dropped, spaces collapsed, closing punctuation.
fn spoken(line: &str) -> String {
    let text: String = line.chars().filter(|c| !matches!(c, '[' | ']')).collect();
    let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if !text.ends_with(['.', '!', '?', '…', '"']) {
        text.push('.');
    }
    text
}

/// A listed template: `{id, title, description, thumbnail_url, industry, group}` and its
/// skeleton.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TemplateItem {
    pub id: String,
    pub title: String,
    pub description: String,
    pub thumbnail_url: String,
    pub industry: String,
    pub sub_industry: Option<String>,
    /// The template's format.
    pub group: ScriptFormat,
    pub look: String,
    pub scenes: Vec<TemplateScene>,
}

/// `{object: list, data[], total, page}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TemplateList {
    #[schema(example = "list")]
    pub object: &'static str,
    pub data: Vec<TemplateItem>,
    /// Templates matching the filters, over every page.
    pub total: usize,
    pub page: usize,
}

/// The query: `industry`, `sub_industry`, `page`.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateQuery {
    pub industry: Option<String>,
    pub sub_industry: Option<String>,
    pub page: usize,
}

impl TemplateQuery {
    pub fn read(q: &Query) -> Result<TemplateQuery> {
        let page = query::integer(q, "page", Code::InvalidPage, 0..=MAX_PAGE)?;
        let text = |k: &str| {
            q.get(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        Ok(TemplateQuery {
            industry: text("industry"),
            sub_industry: text("sub_industry"),
            page: page.unwrap_or(0) as usize,
        })
    }
}

/// The template library.
pub struct Templates {
    templates: Vec<Template>,
    designer: Designer,
}

impl Templates {
    /// Loads `{assets_dir}/templates/templates.json` (none: an empty library).
    pub fn load(assets_dir: &Path) -> std::result::Result<Templates, String> {
        let path = assets_dir.join("templates").join("templates.json");
        let templates = match std::fs::read_to_string(&path) {
            Ok(text) => {
                serde_json::from_str::<TemplateFile>(&text)
                    .map_err(|e| format!("{}: {e}", path.display()))?
                    .templates
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        if let Some(t) = templates.iter().find(|t| !is_id(&t.id)) {
            return Err(format!(
                "template id {:?} must be lowercase letters, digits and -",
                t.id
            ));
        }
        Ok(Templates {
            templates,
            designer: Designer::load(assets_dir)?,
        })
    }

    /// The template `id`, if any.
    pub fn get(&self, id: &str) -> Option<&Template> {
        self.templates.iter().find(|t| t.id == id)
    }

    /// One page of the templates for `account` (blocking: thumbnails are designed on first use).
    pub fn list(
        &self,
        settings: &Settings,
        account: &Account,
        q: &TemplateQuery,
    ) -> Result<TemplateList> {
        let industry = q.industry.clone().or_else(|| account.industry.clone());
        let matching: Vec<&Template> = self
            .templates
            .iter()
            .filter(|t| admits(t, industry.as_deref(), q.sub_industry.as_deref()))
            .collect();
        let data = matching
            .iter()
            .skip(q.page * PAGE_SIZE)
            .take(PAGE_SIZE)
            .map(|t| self.item(settings, t))
            .collect::<Result<Vec<_>>>()?;
        Ok(TemplateList {
            object: "list",
            data,
            total: matching.len(),
            page: q.page,
        })
    }

    fn item(&self, settings: &Settings, t: &Template) -> Result<TemplateItem> {
        let rel = format!("{THUMB_FOLDER}/{}.png", t.id);
        let path = settings.public_dir().join(&rel);
        if !path.exists() {
            let (w, h) = THUMB_SIZE;
            let png = self.designer.design(&t.title, w, h, 1).map_err(|e| {
                Error::new(Code::ReadFailed, "The template library could not be read.").because(e)
            })?;
            foundation::files::write_atomic(&path, &png).map_err(Error::internal)?;
        }
        Ok(TemplateItem {
            id: t.id.clone(),
            title: t.title.clone(),
            description: t.description.clone(),
            thumbnail_url: format!("{}/{rel}", settings.origin_url),
            industry: t.industry.clone(),
            sub_industry: t.sub_industry.clone(),
            group: t.format,
            look: t.look.clone(),
            scenes: t.scenes.clone(),
        })
    }
}

fn is_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn admits(t: &Template, industry: Option<&str>, sub: Option<&str>) -> bool {
    let industry_ok = industry.is_none_or(|i| {
        t.industry.eq_ignore_ascii_case(i) || t.industry.eq_ignore_ascii_case(GENERAL_INDUSTRY)
    });
    let sub_ok = sub.is_none_or(|s| {
        t.sub_industry
            .as_deref()
            .is_none_or(|ts| ts.eq_ignore_ascii_case(s))
    });
    industry_ok && sub_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library() -> Templates {
        Templates::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets")).unwrap()
    }

    #[test]
    fn the_shipped_library_covers_every_format() {
        let lib = library();
        for f in [
            ScriptFormat::Ve,
            ScriptFormat::Qa,
            ScriptFormat::Pov,
            ScriptFormat::Cs,
            ScriptFormat::Mb,
        ] {
            assert!(lib.templates.iter().any(|t| t.format == f), "{f:?}");
        }
        assert!(lib.templates.iter().all(|t| !t.scenes.is_empty()));
    }

    #[test]
    fn a_template_script_keeps_the_skeleton_in_order_with_the_idea_after_the_hook() {
        let lib = library();
        let t = lib.get("ve-solar-savings").unwrap();
        let script = t.script("Solar panels in Texas pay back in six years for most homes.");
        assert!(!script.contains('[') && !script.contains(']'), "{script}");
        let hook = script.find("Most homeowners guess their solar savings wrong.");
        let idea = script.find("Solar panels in Texas pay back in six years");
        let stat = script.find("Your typical yearly saving on an average roof.");
        let cta = script.find("Book a free roof check.");
        assert!(hook < idea && idea < stat && stat < cta, "{script}");
        assert!(hook.is_some() && cta.is_some(), "{script}");
    }

    #[test]
    fn industry_and_sub_industry_filter_with_general_templates_everywhere() {
        let lib = library();
        let ids = |i: Option<&str>, s: Option<&str>| -> Vec<String> {
            lib.templates
                .iter()
                .filter(|t| admits(t, i, s))
                .map(|t| t.id.clone())
                .collect()
        };
        let solar = ids(Some("Solar"), None);
        assert!(solar.contains(&"ve-solar-savings".to_string()));
        assert!(solar.contains(&"cs-general-client-win".to_string()));
        assert!(!solar.contains(&"qa-dental-whitening".to_string()));
        let commercial = ids(Some("solar"), Some("commercial"));
        assert!(commercial.contains(&"cs-solar-business".to_string()));
        assert!(!commercial.contains(&"ve-solar-savings".to_string()));
        assert!(
            commercial.contains(&"mb-solar-cloudy".to_string()),
            "no sub-industry: kept"
        );
    }
}
