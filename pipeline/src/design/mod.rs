//! Design jobs: the typography endpoint (and, later, image generation and B-roll search).
//! Uses `ingest`, `build`, `render` and `foundation`.

pub(crate) mod typography_jobs;
pub(crate) mod typography_request;

// The facade: what the crates above may name.
pub use typography_jobs::{Outcome, Typography};
pub use typography_request::{
    TypographyBody, TypographyRequest, TypographyResult, TypographyStatus, parse_wait,
};
