//! The black-box suite: each file beside this one is a module of one test binary, so the
//! suite is compiled and linked once (`cargo test -p reelsmith --test blackbox editing::`
//! runs one file's tests). Every test starts its own daemon on 127.0.0.1:0 with a temporary
//! data directory, so the modules share nothing but the process.

mod account;
mod api_foundation;
mod architecture;
mod channel_groups;
mod chaos;
mod contact_sheet;
mod content;
mod edge;
mod editing;
mod editor;
mod failures;
mod farm;
mod farm_scale;
mod lifecycle;
mod limits;
mod media;
mod media_corpus;
mod media_search;
mod notify;
mod observability;
mod openapi;
mod openapi_fuzz;
mod plan;
mod publish;
mod render;
mod scenes;
mod sdk;
mod sound;
mod typography;
mod webhook_log;
mod wire;
