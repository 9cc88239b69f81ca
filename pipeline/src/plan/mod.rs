//! The production plan: ideas and their scripts (`production_plan/add`, the plan list), the
//! roadmap of weekly production derived from the plan and the videos, the list of the
//! account's videos, `create_video` from a plan entry, and the template library. Uses `media`
//! (the template thumbnails), `ingest`, `build` and `foundation`.
//!
//! - `add_request.rs`: the typed add request and every rule of the spec
//! - `entry.rs`: the entry record (its own redb table), formats, phases, the entry reply
//! - `add.rs`: adding an entry in one transaction (`topic_exists`)
//! - `list.rs`: `GET /v1/production_plan` (ideas and topics)
//! - `roadmap.rs`: `GET /v1/roadmap` (weeks, slots, quota, streak)
//! - `videos.rs`: `GET /v1/videos`, and the account's jobs and their titles
//! - `topic_video.rs`: a plan entry's master script becomes a video
//! - `template_video.rs`: `create_video` with `template`: an idea becomes the template's script
//! - `query.rs`: the read endpoints' integer query values
//! - `templates.rs`: `GET /v1/foundation_videos`, the template library in `assets/templates`

pub mod add;
pub mod add_request;
pub mod entry;
pub mod list;
pub mod query;
pub mod roadmap;
pub mod template_video;
pub mod templates;
pub mod topic_video;
pub mod videos;
