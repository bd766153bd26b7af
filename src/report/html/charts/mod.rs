//! The pages' charts: every result document's are drawn by the
//! `tokencast-charts` crate (shared with the engine a page carries); the
//! import summary's, which need the import's own types, are here.

pub mod import;

pub use tokencast_charts::*;
