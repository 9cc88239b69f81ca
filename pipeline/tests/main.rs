//! `pipeline`'s integration tests: each file beside this one is a module of this one test binary
//! (`cargo test -p pipeline --test integration copy_corpus::` runs one file's tests).

mod copy_corpus;
mod incremental;
mod layout_corpus;
