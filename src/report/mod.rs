//! Renderers: each turns one [`crate::engine::Simulation`] into bytes.
//!
//! None of them touches the filesystem; [`crate::output`] writes files.

pub mod csv;
pub mod html;
pub mod json;
pub mod tables;
pub mod terminal;
