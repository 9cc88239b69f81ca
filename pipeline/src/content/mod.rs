//! Written content: `create_content` (a blog post, Facebook post, X thread or LinkedIn post from
//! a URL, an idea or pasted text), `enhance_script` (a tighter script with the same meaning) and
//! `collect_ideas` (video ideas for an industry). Uses `notify`, `design`, `ingest`, `build`,
//! `render` and `foundation`.
//!
//! A piece is a job like a video: `foundation::jobs` queues it (task `write`), walks its writer stages
//! and fires its webhooks; [`task`] does the work, one stage per step:
//!
//! | stage | work | file |
//! |---|---|---|
//! | Processing | the record and the writer are loaded | [`task`] |
//! | Researching | the source is read: a URL fetched through the SSRF guard and its main text extracted | [`source`] |
//! | Deep research completed | the text is analysed (key points, keywords, outline); the piece is written | [`research`], [`formats`] or [`chat`] |
//! | Checking media | images are picked for the piece | [`media`] |
//! | Completed | the piece is stored on the job and `video.completed` fires | `foundation::jobs` |

pub(crate) mod chat;
pub(crate) mod enhance;
pub(crate) mod formats;
pub(crate) mod ideas;
pub(crate) mod markup;
pub(crate) mod media;
pub(crate) mod phrases;
pub(crate) mod record;
pub(crate) mod request;
pub(crate) mod research;
pub(crate) mod source;
pub(crate) mod task;

// The facade: what the crates above may name.
pub use enhance::{EnhanceScriptRequest, validate as validate_enhance};
pub use ideas::{CollectIdeasRequest, IdeaFormat, IdeaList, answer as answer_ideas};
pub use markup::text_to_html;
pub use record::{ContentRecord, Work};
pub use request::{CreateContentRequest, validate as validate_content};
