//! compositor
