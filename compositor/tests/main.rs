//! `compositor`'s integration tests: each file beside this one is a module of this one test binary
//! (`cargo test -p compositor --test integration chunks::` runs one file's tests).

mod chunks;
mod clips;
mod golden;
mod invariants;
mod media;
mod svg2spec_hostile;
