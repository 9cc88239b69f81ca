//! Media for one scene's swap: B-roll search (`search_broll`). Uses `ingest`, `build`, `render`
//! and `core`.

pub mod search;
