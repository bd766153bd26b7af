//! tokencast: what an LLM agent's tool calls will cost, before the invoice does.
//!
//! The pipeline is load → validate → simulate → render:
//! - [`scenario`] reads a scenario file, its price book and its trace into a
//!   checked [`scenario::Scenario`];
//! - [`pricing`] holds the price book and resolves each variant's rates;
//! - [`engine`] replays the trace through every variant (pure, no I/O);
//! - [`report`] renders one [`engine::Simulation`] as a terminal table, CSV,
//!   JSON or HTML, each a pure function returning bytes;
//! - [`output`] is the one place that writes files, atomically.

// Errors carry their source text for located messages; they are the cold path.
#![allow(clippy::result_large_err)]

pub mod analysis;
pub mod cli;
pub mod document;
pub mod engine;
pub mod error;
pub mod import;
pub mod input;
pub mod output;
pub mod pricing;
pub mod report;
pub mod scenario;
