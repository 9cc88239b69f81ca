//! typography
