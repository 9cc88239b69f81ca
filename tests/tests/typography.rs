//! Black-box tests (placeholder until this family lands; see ARCHITECTURE.md).
