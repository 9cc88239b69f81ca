//! `typography`'s integration tests: each file beside this one is a module of this one test binary
//! (`cargo test -p typography --test integration band::` runs one file's tests).

mod band;
mod golden;
