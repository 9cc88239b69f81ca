//! The Checking media stage: images for a piece, one per part (a blog's sections, or the
//! post), searched by the part's keyword in the configured B-roll provider — the local
//! library, or the Pexels connector — never the same image twice. A library image is copied
//! into `data_dir/public/content/{topic}-{token}/` (kept with the data directory, like
//! typography files) and linked under `{origin_url}`; a stock image is linked where the
//! provider serves it. A provider that fails is logged and the library answers instead.

use foundation::config::Settings;
use foundation::document::MediaKind;
use foundation::model::PieceImage;
use foundation::{files, ids};
use video::build::{BrollItem, BrollProvider, Library, Query, Ratio};

/// One part of a piece to illustrate.
#[derive(Debug, Clone)]
pub struct Part {
    /// What the image is for (a heading, or the piece's title).
    pub label: String,
    /// The search keyword.
    pub keyword: String,
}

/// Images for `parts`, in order; a part nothing matches gets none.
pub fn pick(
    settings: &Settings,
    provider: &dyn BrollProvider,
    library: &Library,
    topic_id: &str,
    context: &str,
    parts: &[Part],
) -> Result<Vec<PieceImage>, String> {
    let folder = format!("content/{topic_id}-{}", ids::file_token());
    let mut used: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for part in parts {
        let q = Query {
            keyword: &part.keyword,
            context,
            kind: Some(MediaKind::Image),
            ratio: Ratio::Landscape,
            limit: 6,
        };
        let found = provider.search(&q).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "image search failed; the library answers instead");
            library.search(&q).unwrap_or_default()
        });
        let Some(item) = found.into_iter().find(|i| !used.contains(&i.id)) else {
            continue;
        };
        used.push(item.id.clone());
        let url = publish(settings, provider, &folder, out.len(), &item)?;
        out.push(PieceImage {
            url,
            title: item.title.clone(),
            source: item.source.clone(),
            for_part: part.label.clone(),
        });
    }
    Ok(out)
}

/// The public URL of `item`: a local file (a library file, or an illustration the provider
/// renders on first use) is copied under `folder`, a stock image linked.
fn publish(
    settings: &Settings,
    provider: &dyn BrollProvider,
    folder: &str,
    n: usize,
    item: &BrollItem,
) -> Result<String, String> {
    let Some(local) = &item.local else {
        return Ok(item.url.clone());
    };
    let ext = local.extension().and_then(|e| e.to_str()).unwrap_or("jpg");
    let name = format!("image-{}.{ext}", n + 1);
    let bytes = if local.exists() {
        std::fs::read(local).map_err(|e| format!("{}: {e}", local.display()))?
    } else {
        provider.download(item).map_err(|e| e.to_string())?
    };
    let path = settings.data_dir.join("public").join(folder).join(&name);
    files::write_atomic(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(format!("{}/{folder}/{name}", settings.origin_url))
}
