//! modify_scene branches B (`remotion.upload_overlay`), M (`remotion.add_element`) and
//! O (`overlay.text_edit`): the overlay-design half of scene editing. The scene-editing module
//! finds the scene, holds the per-video lock, persists the document, bumps the spec version and
//! publishes `scene_modified`; this module changes the spec and its files.
//!
//! Files live in the scene's public folder (`data_dir/public/{doc.public_folder()}`): the spec
//! `{voice_file}_spec.json` and its payloads. Every write uses fresh payload names
//! (`{voice_file}_{token}_…`) and replaces the spec last, atomically, so a failure at any step
//! leaves the document and the current spec untouched (new files written so far are removed).
//!
//! The values arrive parsed ([`OverlayEdit`], read by `overlay_request` with the request), so
//! what is left here are the checks that need the document and the files.
//!
//! - B: a URL (string or `{url}`) is downloaded through the guarded fetcher. A path ending in
//!   `.svg`/`.svgz` (case-insensitive) or an SVG content type goes through svg2spec (the SVG is
//!   kept beside the spec as its `source_svg`); anything else through the raster classifier.
//!   Re-enables an overlay that was `none`. 502 `download_failed`, 422 `svg2spec_failed`.
//! - M: adds one element (text, stat, label, callout, image; a bare string is text) at a
//!   `position` or a `rect` (`coordinate_space` `preview` by default, or `canvas`), text set as
//!   outlines by the `typography` crate; returns its new `layout_id`.
//! - O: edits the text (`lines`) and/or `fill` of one `data-wc-object` of an svg2spec spec and
//!   converts again; 422 `no_svg_overlay_source` for other specs; the poster copy rules come
//!   back as `applied.warnings`, never as errors.

use std::path::{Path, PathBuf};
use std::time::Duration;

use compositor::geom::CanvasRect;
use compositor::plan::Animation;
use compositor::spec::{
    ObjectKind, OverlaySpec, SpecGroup, SpecObject, SpecPayload, SpecSource, TemporalPolicy,
};
use compositor::svg2spec::{self, Svg2specError, TextEditError};
use serde::Serialize;
use typography::design::{FontSet, Rgb, poster_warnings};

use crate::edit::overlay_applied::{
    AddElementApplied, OverlayObjectOut, RasterPlacement, TextEditApplied, UploadOverlayApplied,
};
use crate::edit::overlay_request::{
    AddElement, Element, OverlayEdit, TextEdit, VALUE_PARAM, bad_value,
};
use foundation::config::Settings;
use foundation::document::{VideoDocument, spec_file_name};
use foundation::error::{Code, Error};
use foundation::fetch::Fetcher;
use foundation::ids;

/// What branch B/M/O edits need besides the document.
pub struct OverlayEditContext<'a> {
    pub settings: &'a Settings,
    pub fetcher: &'a Fetcher,
    /// For the downloads of branch B (callers run on a blocking thread).
    pub runtime: &'a tokio::runtime::Handle,
}

/// Largest overlay download.
const MAX_DOWNLOAD: u64 = 25 * 1024 * 1024;
/// Download time limit.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(30);

/// What one B/M/O field did (it goes under its field name in `applied`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum OverlayApplied {
    Upload(UploadOverlayApplied),
    AddElement(AddElementApplied),
    TextEdit(TextEditApplied),
}

/// Applies one parsed B/M/O value to scene `index` of `doc` and returns what the branch did.
/// On error nothing in `doc` or on disk has changed.
pub fn apply(
    ctx: &OverlayEditContext<'_>,
    doc: &mut VideoDocument,
    index: usize,
    edit: &OverlayEdit,
) -> Result<OverlayApplied, Error> {
    if index >= doc.segments.len() {
        return Err(Error::new(Code::SceneNotFound, "No such scene."));
    }
    match edit {
        OverlayEdit::Upload { url } => {
            upload_overlay(ctx, doc, index, url).map(OverlayApplied::Upload)
        }
        OverlayEdit::AddElement(e) => {
            add_element(ctx, doc, index, e).map(OverlayApplied::AddElement)
        }
        OverlayEdit::TextEdit(t) => text_edit(ctx, doc, index, t).map(OverlayApplied::TextEdit),
    }
}

/// The scene's public folder.
fn scene_dir(ctx: &OverlayEditContext<'_>, doc: &VideoDocument) -> PathBuf {
    ctx.settings
        .data_dir
        .join("public")
        .join(doc.public_folder())
}

fn read_spec(dir: &Path, voice_file: &str) -> Result<Option<OverlaySpec>, Error> {
    let path = dir.join(spec_file_name(voice_file));
    video::render::read_spec(&path).map_err(|e| Error::internal(format!("{}: {e}", path.display())))
}

/// Files of one edit: payloads first (fresh names), the spec last; removed again on failure.
struct Staging {
    dir: PathBuf,
    written: Vec<PathBuf>,
    done: bool,
}

impl Staging {
    fn new(dir: PathBuf) -> Staging {
        Staging {
            dir,
            written: Vec::new(),
            done: false,
        }
    }

    fn write_file(&mut self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        let path = self.dir.join(name);
        foundation::files::write_atomic(&path, bytes).map_err(Error::internal)?;
        self.written.push(path);
        Ok(())
    }

    /// Validates and writes the spec (atomically replacing the old one); the edit is committed.
    fn commit(mut self, voice_file: &str, spec: &OverlaySpec) -> Result<(), Error> {
        spec.validate()
            .map_err(|e| Error::internal(format!("generated spec invalid: {e}")))?;
        let bytes = serde_json::to_vec_pretty(spec).map_err(Error::internal)?;
        foundation::files::write_atomic(&self.dir.join(spec_file_name(voice_file)), &bytes)
            .map_err(Error::internal)?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            for p in &self.written {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

fn fonts_dir(ctx: &OverlayEditContext<'_>) -> PathBuf {
    ctx.settings.assets_dir.join("fonts")
}

fn svg_options(ctx: &OverlayEditContext<'_>, prefix: &str) -> svg2spec::Options {
    svg2spec::Options {
        fontdb: svg2spec::font_db(&fonts_dir(ctx)),
        limits: svg2spec::Limits::default(),
        file_prefix: prefix.to_string(),
    }
}

/// The reason a client reads: our own words for every refusal, never a library's message
/// (the XML parser's and the image decoder's text go to the log as the cause).
fn public_reason(e: &Svg2specError) -> String {
    match e {
        Svg2specError::Parse(_) => "the SVG is not well-formed XML".into(),
        Svg2specError::Image(_) => "an image in it could not be decoded".into(),
        other => other.to_string(),
    }
}

fn svg2spec_failed(e: Svg2specError) -> Error {
    Error::new(
        Code::Svg2specFailed,
        format!(
            "The SVG overlay could not be converted: {}.",
            public_reason(&e)
        ),
    )
    .param(VALUE_PARAM)
    .because(e)
}

fn download(ctx: &OverlayEditContext<'_>, url: &str) -> Result<foundation::fetch::Response, Error> {
    let max = ctx
        .settings
        .fetch
        .max_bytes
        .unwrap_or(MAX_DOWNLOAD)
        .min(MAX_DOWNLOAD);
    // Our own public files (the editor's uploads) are read where they lie.
    if let Some(path) = foundation::public::PublicFiles::new(ctx.settings).local_file(url)
        && let Ok(final_url) = url::Url::parse(url)
    {
        let body = std::fs::read(&path).map_err(|e| {
            Error::internal("public file unreadable").because(format!("{}: {e}", path.display()))
        })?;
        return Ok(foundation::fetch::Response {
            status: 200,
            content_type: None,
            body,
            final_url,
        });
    }
    ctx.runtime
        .block_on(ctx.fetcher.get(url, max, DOWNLOAD_TIMEOUT))
        .map_err(|e| {
            Error::new(
                Code::DownloadFailed,
                format!("The overlay could not be downloaded: {}.", e.public()),
            )
            .param(VALUE_PARAM)
            .because(e)
        })
}

/// A raster payload decoded within the media limits (`foundation::media_check`) before it is placed:
/// 422 `media_decode_failed` otherwise.
fn checked_image(url: &str, bytes: &[u8], what: &str) -> Result<(), Error> {
    foundation::media_check::check_image_at(url, bytes)
        .map(drop)
        .map_err(|r| r.error(Code::MediaDecodeFailed, what, VALUE_PARAM))
}

/// Whether a URL's path names an SVG (`.svg`/`.svgz`, case-insensitive).
fn is_svg_url(url: &str) -> bool {
    let path = url
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    path.ends_with(".svg") || path.ends_with(".svgz")
}

/// B: upload an overlay.
fn upload_overlay(
    ctx: &OverlayEditContext<'_>,
    doc: &mut VideoDocument,
    index: usize,
    url: &str,
) -> Result<UploadOverlayApplied, Error> {
    let resp = download(ctx, url)?;
    let voice_file = doc.segments[index].voice_file.clone();
    let prefix = format!("{voice_file}_{}_", ids::file_token());
    let dir = scene_dir(ctx, doc);
    let mut staging = Staging::new(dir);
    let svg = is_svg_url(url)
        || is_svg_url(resp.final_url.as_str())
        || resp
            .content_type
            .as_deref()
            .is_some_and(|t| t.to_ascii_lowercase().contains("svg"));
    let was_disabled = doc.segments[index].overlay_disabled();
    let (spec, (source, classification, background)) = if svg {
        let converted =
            svg2spec::convert(&resp.body, &svg_options(ctx, &prefix)).map_err(svg2spec_failed)?;
        let mut spec = converted.spec;
        for (name, bytes) in &converted.files {
            staging.write_file(name, bytes)?;
        }
        let source = format!("{prefix}source.svg");
        staging.write_file(&source, converted.source.as_bytes())?;
        spec.source_svg = Some(source);
        let background = spec.background.is_some();
        (spec, (SpecSource::Svg2spec, None, background))
    } else {
        checked_image(url, &resp.body, "The overlay image")?;
        let placed = svg2spec::place_raster(&resp.body).map_err(|e| {
            Error::new(
                Code::MediaDecodeFailed,
                format!(
                    "The overlay image could not be used: {}.",
                    public_reason(&e)
                ),
            )
            .param(VALUE_PARAM)
            .because(e)
        })?;
        let file = format!("{prefix}upload.png");
        staging.write_file(&file, &placed.png)?;
        let mut spec = OverlaySpec::new(SpecSource::Raster);
        spec.groups.push(SpecGroup {
            id: "upload".into(),
            rect: placed.rect,
            temporal_policy: TemporalPolicy::Scene,
            objects: vec![SpecObject {
                layout_id: "upload".into(),
                kind: ObjectKind::Image,
                text: None,
                rect: placed.rect,
                z: 0,
                animation: if placed.full_frame {
                    Animation::Fade
                } else {
                    Animation::Pop
                },
                start: 0.0,
                end: None,
                payload: SpecPayload::Png { file },
            }],
        });
        let class = if placed.full_frame {
            RasterPlacement::FullFrame
        } else {
            RasterPlacement::Graphic
        };
        (spec, (SpecSource::Raster, Some(class), false))
    };
    staging.commit(&voice_file, &spec)?;
    // Re-enable (the dispatcher replaces this token with the new version).
    doc.segments[index].remotion_spec = ids::file_token();
    Ok(UploadOverlayApplied {
        source,
        classification,
        objects: OverlayObjectOut::all(&spec),
        background,
        url: url.to_string(),
        re_enabled: was_disabled,
        remotion_spec_file: spec_file_name(&voice_file),
    })
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An element's SVG: its text set as outlines to fill `rect` (kind-specific styling).
fn element_svg(fonts: &FontSet, kind: ObjectKind, text: &str, rect: CanvasRect) -> String {
    let (w, h) = (
        rect.w.round().max(1.0) as f32,
        rect.h.round().max(1.0) as f32,
    );
    let accent = Rgb(255, 200, 61);
    let (bg, fill, pad) = match kind {
        ObjectKind::Label => (Some((accent, h.min(w) * 0.25)), Rgb::INK, 0.12),
        ObjectKind::Callout => (Some((Rgb::WHITE, 24.0)), Rgb::INK, 0.1),
        ObjectKind::Stat => (None, accent, 0.04),
        _ => (None, Rgb::WHITE, 0.04),
    };
    let list = if kind == ObjectKind::Stat {
        &fonts.heavy
    } else {
        &fonts.bold
    };
    let inner_w = w * (1.0 - 2.0 * pad);
    let inner_h = h * (1.0 - 2.0 * pad);
    // The largest size at which the wrapped text fits the inner box.
    let mut px = inner_h.min(220.0);
    let (lines, font) = loop {
        let font = typography::pick_font(list, text).expect("fonts loaded");
        let lines = typography::break_lines(font, text, px, inner_w);
        let lh = font.line_metrics(px).line_height();
        let fits = lines.iter().all(|l| font.measure(l, px) <= inner_w)
            && lh * lines.len() as f32 <= inner_h;
        if fits || px <= 10.0 {
            break (lines, font);
        }
        px *= 0.92;
    };
    let m = font.line_metrics(px);
    let block = m.line_height() * lines.len() as f32;
    let mut y = (h - block) / 2.0 + m.ascent;
    let mut d = String::new();
    for l in &lines {
        let layout = typography::layout_line(font, l, px);
        let x = (w - layout.width) / 2.0;
        d.push_str(&typography::outline::outline_line(font, &layout, x, y).d);
        y += m.line_height();
    }
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">"
    );
    if let Some((c, r)) = bg {
        s.push_str(&format!(
            "<rect width=\"{w}\" height=\"{h}\" rx=\"{r}\" fill=\"{}\"/>",
            c.hex()
        ));
    }
    let stroke = if bg.is_none() {
        format!(
            " stroke=\"#000000\" stroke-opacity=\"0.35\" stroke-width=\"{:.1}\" stroke-linejoin=\"round\" paint-order=\"stroke\"",
            (px * 0.05).max(1.5)
        )
    } else {
        String::new()
    };
    s.push_str(&format!(
        "<path d=\"{}\" fill=\"{}\"{stroke}/></svg>",
        xml_escape(&d),
        fill.hex()
    ));
    s
}

/// M: add one element.
fn add_element(
    ctx: &OverlayEditContext<'_>,
    doc: &mut VideoDocument,
    index: usize,
    element: &AddElement,
) -> Result<AddElementApplied, Error> {
    if doc.segments[index].overlay_disabled() {
        return Err(Error::new(
            Code::RemotionSpecDisabled,
            "This scene's overlay is disabled (`none`); upload an overlay to re-enable it first.",
        )
        .param("fields"));
    }
    let (kind, rect) = (element.element.kind(), element.rect());
    let voice_file = doc.segments[index].voice_file.clone();
    let dir = scene_dir(ctx, doc);
    let mut spec =
        read_spec(&dir, &voice_file)?.unwrap_or_else(|| OverlaySpec::new(SpecSource::Generated));
    let mut n = spec.object_count() + 1;
    let layout_id = loop {
        let id = format!("el-{n}");
        if spec.objects().all(|o| o.layout_id != id) {
            break id;
        }
        n += 1;
    };
    let prefix = format!("{voice_file}_{}_", ids::file_token());
    let mut staging = Staging::new(dir);
    let (payload, text) = match &element.element {
        Element::Image { url } => {
            let resp = download(ctx, url)?;
            checked_image(url, &resp.body, "The image")?;
            let png = svg2spec::raster_to_png(&resp.body).map_err(|e| {
                Error::new(
                    Code::MediaDecodeFailed,
                    format!("The image could not be used: {}.", public_reason(&e)),
                )
                .param(VALUE_PARAM)
                .because(e)
            })?;
            let file = format!("{prefix}{layout_id}.png");
            staging.write_file(&file, &png)?;
            (SpecPayload::Png { file }, None)
        }
        Element::Text { text, .. } => {
            let fonts = FontSet::from_dir(&fonts_dir(ctx)).map_err(Error::internal)?;
            let svg = element_svg(&fonts, kind, text, rect);
            let file = format!("{prefix}{layout_id}.svg");
            staging.write_file(&file, svg.as_bytes())?;
            (SpecPayload::Svg { file }, Some(text.clone()))
        }
    };
    let z = spec.objects().map(|o| o.z).max().map_or(0, |z| z + 1);
    let object = SpecObject {
        layout_id: layout_id.clone(),
        kind,
        text,
        rect,
        z,
        animation: Animation::Pop,
        start: 0.0,
        end: None,
        payload,
    };
    match spec.groups.iter_mut().find(|g| g.id == "added") {
        Some(g) => {
            let (x0, y0) = (g.rect.x.min(rect.x), g.rect.y.min(rect.y));
            let x1 = (g.rect.x + g.rect.w).max(rect.x + rect.w);
            let y1 = (g.rect.y + g.rect.h).max(rect.y + rect.h);
            g.rect = CanvasRect::new(x0, y0, x1 - x0, y1 - y0);
            g.objects.push(object);
        }
        None => spec.groups.push(SpecGroup {
            id: "added".into(),
            rect,
            temporal_policy: TemporalPolicy::Scene,
            objects: vec![object],
        }),
    }
    staging.commit(&voice_file, &spec)?;
    if doc.segments[index].remotion_spec.is_empty() {
        doc.segments[index].remotion_spec = ids::file_token();
    }
    Ok(AddElementApplied {
        rect_canvas: rect,
        rect: rect.to_preview(),
        layout_id,
        kind,
        coordinate_space: element.space,
    })
}

/// O: edit the text of an svg2spec overlay.
fn text_edit(
    ctx: &OverlayEditContext<'_>,
    doc: &mut VideoDocument,
    index: usize,
    edit: &TextEdit,
) -> Result<TextEditApplied, Error> {
    let (wc_object, lines) = (edit.wc_object.as_str(), &edit.lines);
    let fill = edit.fill.map(|f| f.hex());
    let voice_file = doc.segments[index].voice_file.clone();
    let dir = scene_dir(ctx, doc);
    let no_source = || {
        Error::new(
            Code::NoSvgOverlaySource,
            "Text edits need an overlay uploaded as SVG (svg2spec); this scene's overlay has none.",
        )
        .param("fields")
    };
    let old = match read_spec(&dir, &voice_file)? {
        Some(s) if s.source == SpecSource::Svg2spec && !doc.segments[index].overlay_disabled() => s,
        _ => return Err(no_source()),
    };
    let source_name = old.source_svg.clone().ok_or_else(no_source)?;
    let source = std::fs::read_to_string(dir.join(&source_name)).map_err(|_| no_source())?;
    let edited = svg2spec::edit_text(
        &source,
        wc_object,
        lines.as_deref(),
        fill.as_deref(),
        &svg2spec::Limits::default(),
    )
    .map_err(|e| match e {
        TextEditError::Svg(e) => svg2spec_failed(e),
        e => bad_value(format!("{e}.")),
    })?;
    let prefix = format!("{voice_file}_{}_", ids::file_token());
    let converted = svg2spec::convert(edited.as_bytes(), &svg_options(ctx, &prefix))
        .map_err(svg2spec_failed)?;
    let mut spec = converted.spec;
    // Keep the layout edits made since the upload for every object but the edited one.
    for o in spec.groups.iter_mut().flat_map(|g| g.objects.iter_mut()) {
        if o.layout_id == wc_object {
            continue;
        }
        if let Some(prev) = old.objects().find(|p| p.layout_id == o.layout_id) {
            o.rect = prev.rect;
            o.z = prev.z;
            o.animation = prev.animation;
            o.start = prev.start;
            o.end = prev.end;
        }
    }
    let mut staging = Staging::new(dir);
    for (name, bytes) in &converted.files {
        staging.write_file(name, bytes)?;
    }
    let source_file = format!("{prefix}source.svg");
    staging.write_file(&source_file, edited.as_bytes())?;
    spec.source_svg = Some(source_file);
    staging.commit(&voice_file, &spec)?;
    let warnings = lines.as_deref().map(poster_warnings).unwrap_or_default();
    let text = spec
        .objects()
        .find(|o| o.layout_id == wc_object)
        .and_then(|o| o.text.clone());
    Ok(TextEditApplied {
        wc_object: wc_object.to_string(),
        lines: lines.clone(),
        fill,
        text,
        warnings,
        objects: OverlayObjectOut::all(&spec),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::config::Config;
    use foundation::document::Segment;
    use serde_json::{Value, json};
    use std::sync::Arc;

    struct Env {
        _dir: tempfile::TempDir,
        settings: Settings,
        fetcher: Fetcher,
        rt: tokio::runtime::Runtime,
        server: foundation::testserver::Server,
    }

    const SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 720 1280">
<rect width="720" height="1280" fill="#203040" opacity="0.5"/>
<g data-wc-object="headline" data-wc-kind="text" data-wc-anim="slide-up"><text x="60" y="300" font-size="80" font-family="Inter" fill="#ffffff">Old copy</text></g>
<g data-wc-object="bar" data-wc-kind="bar"><rect x="100" y="700" width="120" height="200" fill="#ffcc00"/></g>
</svg>"##;

    fn png(w: u32, h: u32, opaque: bool) -> Vec<u8> {
        let mut pm = tiny_skia::Pixmap::new(w, h).unwrap();
        if opaque {
            pm.fill(tiny_skia::Color::from_rgba8(10, 120, 200, 255));
        } else {
            pm.fill_rect(
                tiny_skia::Rect::from_xywh(
                    w as f32 / 4.0,
                    h as f32 / 4.0,
                    w as f32 / 2.0,
                    h as f32 / 8.0,
                )
                .unwrap(),
                &tiny_skia::Paint::default(),
                tiny_skia::Transform::identity(),
                None,
            );
        }
        pm.encode_png().unwrap()
    }

    fn env() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let photo = png(360, 640, true);
        let graphic = png(360, 640, false);
        let server = foundation::testserver::start(move |r| match r.path() {
            "/overlay.SVG" => (200, "image/svg+xml".into(), SVG.as_bytes().to_vec()),
            "/broken.svg" => (200, "image/svg+xml".into(), b"<svg".to_vec()),
            "/photo.png" => (200, "image/png".into(), photo.clone()),
            "/graphic.png" => (200, "image/png".into(), graphic.clone()),
            _ => (404, "text/plain".into(), b"no".to_vec()),
        });
        let config = Config {
            data_dir: dir.path().to_path_buf(),
            assets_dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets"),
            fetch: foundation::config::FetchConfig {
                allow: vec![server.addr.clone()],
                ..Default::default()
            },
            ..Config::default()
        };
        let settings = config.finish("127.0.0.1:9".parse().unwrap()).unwrap();
        let fetcher = Fetcher::new(&settings.fetch.allow, "test");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        Env {
            _dir: dir,
            settings,
            fetcher,
            rt,
            server,
        }
    }

    /// The module's `apply` with its typed result as the JSON the reply carries, so the tests
    /// read the wire shape.
    fn apply(
        ctx: &OverlayEditContext<'_>,
        doc: &mut VideoDocument,
        index: usize,
        field: &str,
        value: &Value,
    ) -> Result<Value, Error> {
        let edit = read(field, value)?;
        super::apply(ctx, doc, index, &edit)
            .map(|a| serde_json::to_value(a).expect("applied serialises"))
    }

    /// The B, M or O value `value` of `field`, read as a request's is.
    fn read(field: &str, value: &Value) -> Result<OverlayEdit, Error> {
        use crate::edit::overlay_request::{self as request, OverlayField as F};
        let field = [F::UploadOverlay, F::AddElement, F::TextEdit]
            .into_iter()
            .find(|f| f.as_str() == field)
            .expect("an overlay field");
        let refused = |_| request::shape_refused(field);
        let value = value.clone();
        match field {
            F::UploadOverlay => request::upload(&serde_json::from_value(value).map_err(refused)?),
            F::AddElement => request::add_element(serde_json::from_value(value).map_err(refused)?)
                .map(OverlayEdit::AddElement),
            F::TextEdit => request::text_edit(serde_json::from_value(value).map_err(refused)?)
                .map(OverlayEdit::TextEdit),
        }
    }

    fn doc() -> VideoDocument {
        serde_json::from_value(json!({
            "topic_id": "wcTEST", "title": "t", "language": "en", "faceless": false,
            "script": "", "segments": [], "public_key": "abc"
        }))
        .map(|mut d: VideoDocument| {
            d.segments.push(Segment {
                voice_file: "vf1".into(),
                remotion_spec: "none".into(),
                ..Default::default()
            });
            d
        })
        .unwrap()
    }

    impl Env {
        fn ctx(&self) -> OverlayEditContext<'_> {
            OverlayEditContext {
                settings: &self.settings,
                fetcher: &self.fetcher,
                runtime: self.rt.handle(),
            }
        }
        fn spec(&self, doc: &VideoDocument) -> Option<OverlaySpec> {
            read_spec(&scene_dir(&self.ctx(), doc), "vf1").unwrap()
        }
        fn files(&self, doc: &VideoDocument) -> usize {
            std::fs::read_dir(scene_dir(&self.ctx(), doc)).map_or(0, |d| d.count())
        }
    }

    #[test]
    fn upload_svg_then_edit_its_text() {
        let e = env();
        let mut d = doc();
        let url = format!("{}/overlay.SVG", e.server.url());
        let applied = apply(
            &e.ctx(),
            &mut d,
            0,
            "remotion.upload_overlay",
            &json!({ "url": url }),
        )
        .unwrap();
        assert_eq!(applied["source"], "svg2spec");
        assert_eq!(applied["re_enabled"], true);
        assert_ne!(d.segments[0].remotion_spec, "none");
        let spec = e.spec(&d).unwrap();
        assert_eq!(spec.source, SpecSource::Svg2spec);
        assert_eq!(spec.object_count(), 2);
        assert!(spec.background.is_some() && spec.source_svg.is_some());
        let bar = spec.objects().find(|o| o.layout_id == "bar").unwrap();
        assert_eq!(bar.rect, CanvasRect::new(100.0, 700.0, 120.0, 200.0));

        // O: new copy comes back with poster-rule warnings, never an error.
        let applied = apply(
            &e.ctx(),
            &mut d,
            0,
            "overlay.text_edit",
            &json!({ "wc_object": "headline", "lines": ["five words are too many", "ok"], "fill": "#FF0000" }),
        )
        .unwrap();
        let w = applied["warnings"].as_array().unwrap();
        assert!(
            w.iter().any(|w| w.as_str().unwrap().contains("5 words")),
            "{applied}"
        );
        assert!(
            w.iter().any(|w| w.as_str().unwrap().contains("uppercase")),
            "{applied}"
        );
        assert_eq!(applied["text"], "five words are too many ok");
        let spec = e.spec(&d).unwrap();
        assert_eq!(spec.source, SpecSource::Svg2spec);
        let src = std::fs::read_to_string(
            scene_dir(&e.ctx(), &d).join(spec.source_svg.as_ref().unwrap()),
        )
        .unwrap();
        assert!(src.contains("#FF0000") && src.contains("five words"));
        // Unknown object: a clean 400 and nothing changes.
        let before = std::fs::read(scene_dir(&e.ctx(), &d).join("vf1_spec.json")).unwrap();
        let n = e.files(&d);
        let err = apply(
            &e.ctx(),
            &mut d,
            0,
            "overlay.text_edit",
            &json!({ "wc_object": "nope", "lines": ["X"] }),
        )
        .unwrap_err();
        assert_eq!(err.code, Code::InvalidValue);
        assert_eq!(
            before,
            std::fs::read(scene_dir(&e.ctx(), &d).join("vf1_spec.json")).unwrap()
        );
        assert_eq!(n, e.files(&d));
    }

    #[test]
    fn raster_uploads_are_classified() {
        let e = env();
        let mut d = doc();
        let a = apply(
            &e.ctx(),
            &mut d,
            0,
            "remotion.upload_overlay",
            &json!(format!("{}/photo.png", e.server.url())),
        )
        .unwrap();
        assert_eq!(a["classification"], "full_frame");
        let spec = e.spec(&d).unwrap();
        assert_eq!(spec.source, SpecSource::Raster);
        assert_eq!(
            spec.objects().next().unwrap().rect,
            CanvasRect::new(0.0, 0.0, 720.0, 1280.0)
        );
        let a = apply(
            &e.ctx(),
            &mut d,
            0,
            "remotion.upload_overlay",
            &json!(format!("{}/graphic.png", e.server.url())),
        )
        .unwrap();
        assert_eq!(a["classification"], "graphic");
        let r = e.spec(&d).unwrap().objects().next().unwrap().rect;
        assert_eq!(r, CanvasRect::new(180.0, 320.0, 360.0, 160.0));
        // O on a raster spec: 422 no_svg_overlay_source.
        let err = apply(
            &e.ctx(),
            &mut d,
            0,
            "overlay.text_edit",
            &json!({ "wc_object": "upload", "lines": ["A"] }),
        )
        .unwrap_err();
        assert_eq!(err.code, Code::NoSvgOverlaySource);
    }

    #[test]
    fn failures_change_nothing() {
        let e = env();
        let mut d = doc();
        let err = apply(
            &e.ctx(),
            &mut d,
            0,
            "remotion.upload_overlay",
            &json!(format!("{}/missing.svg", e.server.url())),
        )
        .unwrap_err();
        assert_eq!(err.code, Code::DownloadFailed);
        let err = apply(
            &e.ctx(),
            &mut d,
            0,
            "remotion.upload_overlay",
            &json!(format!("{}/broken.svg", e.server.url())),
        )
        .unwrap_err();
        assert_eq!(err.code, Code::Svg2specFailed);
        // Our own sentence goes out; the XML parser's words stay in the logged cause.
        assert!(
            err.message.contains("not well-formed XML"),
            "{}",
            err.message
        );
        assert!(
            err.cause
                .as_deref()
                .is_some_and(|c| c.contains("could not be parsed")),
            "{:?}",
            err.cause
        );
        let err = apply(&e.ctx(), &mut d, 0, "remotion.upload_overlay", &json!(42)).unwrap_err();
        assert_eq!(err.code, Code::InvalidValue);
        assert_eq!(d.segments[0].remotion_spec, "none");
        assert_eq!(e.files(&d), 0);
        // M on a disabled overlay.
        let err = apply(&e.ctx(), &mut d, 0, "remotion.add_element", &json!("Hi")).unwrap_err();
        assert_eq!(err.code, Code::RemotionSpecDisabled);
        // O without any spec.
        let err = apply(
            &e.ctx(),
            &mut d,
            0,
            "overlay.text_edit",
            &json!({ "wc_object": "x", "lines": ["A"] }),
        )
        .unwrap_err();
        assert_eq!(err.code, Code::NoSvgOverlaySource);
    }

    #[test]
    fn add_elements_at_positions_and_rects() {
        let e = env();
        let mut d = doc();
        d.segments[0].remotion_spec = String::new();
        let a = apply(
            &e.ctx(),
            &mut d,
            0,
            "remotion.add_element",
            &json!("Bare string is text"),
        )
        .unwrap();
        assert_eq!(a["layout_id"], "el-1");
        assert_eq!(a["kind"], "text");
        let a = apply(
            &e.ctx(),
            &mut d,
            0,
            "remotion.add_element",
            &json!({ "kind": "stat", "text": "42%", "rect": { "x": 28, "y": 49.8, "w": 112, "h": 60 } }),
        )
        .unwrap();
        assert_eq!(a["layout_id"], "el-2");
        assert_eq!(a["coordinate_space"], "preview");
        let c = &a["rect_canvas"];
        assert!(
            (c["x"].as_f64().unwrap() - 72.0).abs() < 1e-6
                && (c["y"].as_f64().unwrap() - 128.0).abs() < 1e-6,
            "{a}"
        );
        let a = apply(
            &e.ctx(),
            &mut d,
            0,
            "remotion.add_element",
            &json!({ "kind": "label", "text": "NEW", "position": "top" }),
        )
        .unwrap();
        assert_eq!(a["rect_canvas"]["y"], 160.0);
        let a = apply(&e.ctx(), &mut d, 0, "remotion.add_element", &json!({ "kind": "image", "url": format!("{}/graphic.png", e.server.url()), "rect": {"x": 0, "y": 0, "w": 360, "h": 640}, "coordinate_space": "canvas" })).unwrap();
        assert_eq!(a["layout_id"], "el-4");
        let spec = e.spec(&d).unwrap();
        assert_eq!(spec.object_count(), 4);
        let zs: Vec<i32> = spec.objects().map(|o| o.z).collect();
        assert_eq!(zs, vec![0, 1, 2, 3]);
        // Text payloads are outlines, never <text>.
        let first = spec.objects().next().unwrap();
        let svg =
            std::fs::read_to_string(scene_dir(&e.ctx(), &d).join(first.payload.file())).unwrap();
        assert!(svg.contains("<path") && !svg.contains("<text"));
        for bad in [
            json!({"kind": "video", "text": "x"}),
            json!({"position": "middle", "text": "x"}),
            json!({"text": ""}),
            json!({"text": "x", "rect": {"x": 0, "y": 0, "w": 0, "h": 5}}),
        ] {
            let err = apply(&e.ctx(), &mut d, 0, "remotion.add_element", &bad).unwrap_err();
            assert_eq!(err.code, Code::InvalidValue, "{bad}");
        }
        assert_eq!(e.spec(&d).unwrap().object_count(), 4);
        let _ = Arc::new(());
    }

    /// The wire JSON of each branch's `applied`, written out as the reply has always carried it.
    #[test]
    fn overlay_applied_json() {
        let e = env();
        let mut d = doc();
        let url = format!("{}/photo.png", e.server.url());
        let a = apply(&e.ctx(), &mut d, 0, "remotion.upload_overlay", &json!(url)).unwrap();
        let full = json!({ "x": 0.0, "y": 0.0, "w": 720.0, "h": 1280.0 });
        let preview = json!({ "x": 0.0, "y": 0.0, "w": 280.0, "h": 498.0 });
        assert_eq!(
            a,
            json!({
                "source": "raster",
                "classification": "full_frame",
                "objects": [{
                    "rect_canvas": full, "rect": preview, "layout_id": "upload",
                    "kind": "image", "text": null, "animation": "fade",
                }],
                "background": false,
                "url": url,
                "re_enabled": true,
                "remotion_spec_file": "vf1_spec.json",
            })
        );
        let a = apply(&e.ctx(), &mut d, 0, "remotion.add_element", &json!("Hi")).unwrap();
        assert_eq!(
            a,
            json!({
                "rect_canvas": { "x": 60.0, "y": 500.0, "w": 600.0, "h": 260.0 },
                "rect": { "x": 23.333333333333332, "y": 194.53125,
                          "w": 233.33333333333331, "h": 101.15625 },
                "layout_id": "el-2",
                "kind": "text",
                "coordinate_space": "preview",
            })
        );
        let url = format!("{}/overlay.SVG", e.server.url());
        let a = apply(
            &e.ctx(),
            &mut d,
            0,
            "remotion.upload_overlay",
            &json!({ "url": url }),
        );
        let objects = json!([
            {
                "rect_canvas": { "x": 64.0, "y": 241.0, "w": 330.0, "h": 76.0 },
                "rect": { "x": 24.888888888888886, "y": 93.7640625,
                          "w": 128.33333333333331, "h": 29.56875 },
                "layout_id": "headline", "kind": "text", "text": "Old copy",
                "animation": "slide-up",
            },
            {
                "rect_canvas": { "x": 100.0, "y": 700.0, "w": 120.0, "h": 200.0 },
                "rect": { "x": 38.888888888888886, "y": 272.34375,
                          "w": 46.666666666666664, "h": 77.8125 },
                "layout_id": "bar", "kind": "bar", "text": null, "animation": "fade",
            },
        ]);
        assert_eq!(
            a.unwrap(),
            json!({
                "source": "svg2spec",
                "objects": objects,
                "background": true,
                "url": url,
                "re_enabled": false,
                "remotion_spec_file": "vf1_spec.json",
            })
        );
        let fill = json!({ "wc_object": "headline", "fill": "#00FF00" });
        let a = apply(&e.ctx(), &mut d, 0, "overlay.text_edit", &fill).unwrap();
        assert_eq!(
            a,
            json!({
                "wc_object": "headline",
                "lines": null,
                "fill": "#00FF00",
                "text": "Old copy",
                "warnings": [],
                "objects": objects,
            })
        );
    }
}
