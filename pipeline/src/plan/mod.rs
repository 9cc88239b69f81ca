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

pub(crate) mod add;
pub(crate) mod add_request;
pub(crate) mod entry;
pub(crate) mod list;
pub(crate) mod query;
pub(crate) mod roadmap;
pub(crate) mod template_video;
pub(crate) mod templates;
pub(crate) mod topic_video;
pub(crate) mod videos;

// The facade: what the crates above may name.
pub use add::{add as add_to_plan, template_of};
pub use add_request::AddPlanRequest;
pub use entry::PlanEntryReply;
pub use list::{PlanQuery, ProductionPlan, list as production_plan};
pub use query::Query;
pub use roadmap::{MAX_WEEKLY_QUOTA, Roadmap, RoadmapQuery, roadmap};
pub use template_video::fill_from_template;
pub use templates::{TemplateList, TemplateQuery, Templates};
pub use topic_video::fill_from_plan;
pub use videos::{VideoList, VideosQuery, list as video_list};
