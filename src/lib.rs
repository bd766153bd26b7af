//! tokencast: what an LLM agent's tool calls will cost, before the invoice does.
//!
//! The engine is its own crate, [`tokencast_core`] (under `src/core/`): it
//! checks scenarios, prices and replays them and runs the what-ifs, with no
//! I/O, and builds for WebAssembly. Its modules are re-exported here under
//! their names, so `tokencast::engine` is the engine. This crate adds what
//! touches the world:
//! - [`files`] reads a scenario and the files it names from disk;
//! - [`import`] reads agent logs into scenarios;
//! - [`report`] renders a document as a terminal table, CSV, JSON or HTML,
//!   each a pure function returning bytes;
//! - [`output`] is the one place that writes files, atomically;
//! - [`cli`] parses the command line and runs one command.

// Errors carry their source text for located messages; they are the cold path.
#![allow(clippy::result_large_err)]

pub use tokencast_core::{analysis, document, engine, input, limits, pricing, scenario, text};

pub mod cli;
pub mod error;
pub mod files;
pub mod import;
pub mod output;
pub mod report;
