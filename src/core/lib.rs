//! tokencast's engine: what an LLM agent's tool calls will cost, as a pure
//! function of the scenario's text.
//!
//! The pipeline is validate → simulate → document:
//! - [`scenario`] checks a scenario's text, its price book and its trace into
//!   a [`scenario::Scenario`] that can only be made by checking; the files a
//!   scenario names come through [`scenario::Files`], so the caller decides
//!   where they are read from (a folder on disk, a web page's memory);
//! - [`pricing`] holds the price book and resolves each variant's rates;
//! - [`engine`] replays the trace through every variant;
//! - [`analysis`] runs the what-ifs, sweeps and forecasts on the replay;
//! - [`document`] holds every result document, each with its JSON marker and
//!   loader, for the renderers.
//!
//! Nothing here reads a file, writes to a terminal or asks the clock (the
//! price date is given), so the crate builds for `wasm32-unknown-unknown`.
//! With the default `parallel` feature the heavy loops run on rayon's pool
//! (see [`par`]); without it they run in order with the same results.

// Errors carry their source text for located messages; they are the cold path.
#![allow(clippy::result_large_err)]

pub mod analysis;
pub mod document;
pub mod engine;
pub mod error;
pub mod hashing;
pub mod input;
pub mod limits;
pub mod par;
pub mod pricing;
pub mod scenario;
mod search;
pub mod text;
pub mod view;
