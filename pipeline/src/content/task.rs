//! The `write` task of written-content jobs (the job core hands it over through
//! `assemble::Tasks`): each writer stage is entered when its work starts, so `details.status`
//! tells the truth about what the job is doing.

use crate::content::chat::{ChatContent, ChatError};
use crate::content::formats::{self, Draft};
use crate::content::markup;
use crate::content::media::{self, Part};
use crate::content::record::{ContentRecord, PieceRequest, SourceSummary, Work};
use crate::content::research::{self, Research};
use crate::content::source;
use foundation::config::Settings;
use foundation::error::Code;
use foundation::jobs::{Engine, JobFailure};
use foundation::model::{ContentPiece, ContentType, Job, WriterStage, WrittenResult};
use video::build::{Context, Providers, http};
use video::build::{WriterConfig, WriterKind};

/// Runs a written-content job.
pub fn write(engine: &Engine, ctx: &Context, job: &Job) -> Result<WrittenResult, JobFailure> {
    let record = ContentRecord::load(&engine.store, &job.topic_id)?
        .ok_or_else(|| JobFailure::internal("the content record is missing"))?;
    engine.set_writer_stage(
        &job.topic_id,
        WriterStage::Processing,
        "Preparing the writer",
    );
    let chat = chat_writer(&engine.settings, ctx);
    match &record.work {
        Work::Piece(req) => piece(engine, ctx, chat.as_ref(), &record, req),
        Work::Enhance(req) => {
            crate::content::enhance::run(engine, &job.topic_id, chat.as_ref(), req)
        }
    }
}

/// The chat connector when the writer is configured as `openai`.
pub(crate) fn chat_writer(settings: &Settings, ctx: &Context) -> Option<ChatContent> {
    let w = settings.section::<WriterConfig>();
    (w.provider == WriterKind::Openai).then(|| ChatContent {
        http: http(&ctx.fetcher, &ctx.runtime, w.timeout_secs),
        base_url: w.base_url.clone(),
        model: w.model.clone(),
        api_key: w.api_key.clone(),
    })
}

fn piece(
    engine: &Engine,
    ctx: &Context,
    chat: Option<&ChatContent>,
    record: &ContentRecord,
    req: &PieceRequest,
) -> Result<WrittenResult, JobFailure> {
    let topic = &record.topic_id;
    engine.set_writer_stage(topic, WriterStage::Researching, "Reading the source");
    let src = source::read(&req.input, &ctx.fetcher, &ctx.runtime)?;
    let research = research::analyse(&src, req.language);
    let mut record = record.clone();
    record.source = Some(SourceSummary {
        title: research.topic.clone(),
        url: src.url.clone(),
        words: research.words(),
    });
    engine.store.write(|tx| record.put(tx))?;

    engine.set_writer_stage(
        topic,
        WriterStage::DeepResearchCompleted,
        &format!("Writing the {} piece", req.content_type.as_str()),
    );
    let (draft, writer) = draft(chat, req.content_type, &research)?;

    engine.set_writer_stage(topic, WriterStage::CheckingMedia, "Picking images");
    let providers = Providers::from_settings(
        &engine.settings,
        &ctx.fetcher,
        &ctx.runtime,
        ctx.voice.clone(),
    )
    .map_err(|e| {
        JobFailure::new(
            Code::ContentWriteFailed,
            "The image providers are unavailable.",
        )
        .because(e)
    })?;
    let parts = parts_of(req.content_type, &draft, &research);
    // The piece's opening words widen the search when a keyword alone finds nothing.
    let opening: Vec<&str> = draft.markdown.split_whitespace().take(80).collect();
    let context = format!(
        "{} {} {}",
        research.topic,
        research.keywords.join(" "),
        opening.join(" ")
    );
    let images = media::pick(
        &engine.settings,
        providers.broll.as_ref(),
        &providers.library,
        topic,
        &context,
        &parts,
    )
    .map_err(JobFailure::internal)?;

    let markdown = if req.content_type == ContentType::Blog {
        illustrate(&draft.markdown, &images)
    } else {
        draft.markdown.clone()
    };
    let html = (req.content_type == ContentType::Blog).then(|| markup::to_html(&markdown));
    // Counted on the text itself: image lines are not words.
    let (word_count, characters) = (draft.words(), draft.characters());
    Ok(WrittenResult::Content(Box::new(ContentPiece {
        content_type: req.content_type,
        language: req.language,
        title: draft.title,
        word_count,
        characters,
        html,
        posts: draft.posts,
        markdown,
        images,
        writer: writer.into(),
        source_url: src.url,
    })))
}

/// The piece from the chat connector when one is configured (an answer that does not fit the
/// format is written offline instead), else from the embedded writer.
fn draft(
    chat: Option<&ChatContent>,
    kind: ContentType,
    r: &Research,
) -> Result<(Draft, &'static str), JobFailure> {
    let Some(chat) = chat else {
        return Ok((formats::write(kind, r), "extractive"));
    };
    match chat.write(kind, r) {
        Ok(d) => Ok((d, "openai")),
        Err(ChatError::Unfit(why)) => {
            tracing::warn!(%why, "the model's piece did not fit; writing it offline");
            Ok((formats::write(kind, r), "extractive"))
        }
        Err(e @ ChatError::Upstream(_)) => Err(JobFailure::new(
            Code::ContentWriteFailed,
            "The writing service could not write the piece.",
        )
        .because(e)),
    }
}

/// What to illustrate: a blog's title and first three sections, or the post.
fn parts_of(kind: ContentType, draft: &Draft, r: &Research) -> Vec<Part> {
    let keyword = |i: usize| r.keyword(i, &r.topic);
    let mut parts = vec![Part {
        label: draft.title.clone(),
        keyword: keyword(0),
    }];
    if kind == ContentType::Blog {
        let headings = draft
            .markdown
            .lines()
            .filter_map(|l| l.strip_prefix("## "))
            .take(3);
        for (i, h) in headings.enumerate() {
            parts.push(Part {
                label: h.trim().to_string(),
                keyword: format!("{} {h}", keyword(i + 1)),
            });
        }
    }
    parts
}

/// The blog's Markdown with each image under the heading it was picked for (the title's image
/// under the title).
fn illustrate(markdown: &str, images: &[foundation::model::PieceImage]) -> String {
    let mut out = String::new();
    for line in markdown.lines() {
        out.push_str(line);
        out.push('\n');
        let heading = line
            .strip_prefix("# ")
            .or_else(|| line.strip_prefix("## "))
            .map(str::trim);
        if let Some(h) = heading
            && let Some(img) = images.iter().find(|i| i.for_part == h)
        {
            let alt = img.title.replace(['[', ']'], "");
            out.push_str(&format!("\n![{alt}]({})\n", img.url));
        }
    }
    out
}
