//! Design jobs: the typography endpoint (and, later, image generation and B-roll search).
//! Uses `ingest`, `build`, `render` and `foundation`.

pub mod typography_jobs;
pub mod typography_request;
