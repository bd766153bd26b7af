//! Result documents: one per command, built once and complete.
//!
//! A document holds every figure its renderers show, so a renderer only lays
//! out what it is given and never computes. Each is `Serialize +
//! Deserialize`: its JSON is the canonical result (exact decimals as
//! strings), and [`load`] reads one back typed, which is how `diff` compares
//! saved results (as `infracost diff` does).
//!
//! - `simulate` builds a [`SimulationDoc`] (the engine's replay, the what-ifs, the comparison);
//! - each opens with its answer ([`answer`]), chosen from its own figures;
//! - `sweep` a [`Sweep`], `forecast` a [`Forecast`] (one scenario) or a
//!   [`CorpusForecast`] (many sessions), `diff` a [`DiffDoc`].

pub mod answer;
pub mod corpus;
pub mod diff;
pub mod forecast;
pub mod import;
pub mod load;
pub mod simulation;
pub mod sweep;

pub use corpus::CorpusForecast;
pub use diff::DiffDoc;
pub use forecast::Forecast;
pub use import::ImportDoc;
pub use simulation::{Comparison, Contents, SimulationDoc};
pub use sweep::Sweep;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The marker every JSON document carries as its first key: `"generator": "tokencast"`.
pub const GENERATOR: &str = "tokencast";

/// A command's result document.
pub trait Document: Serialize + DeserializeOwned {
    /// The document's kind, written as `"document"` in its JSON: `simulation`, `sweep`, …
    const KIND: &'static str;
}

impl Document for SimulationDoc {
    const KIND: &'static str = "simulation";
}

impl Document for Sweep {
    const KIND: &'static str = "sweep";
}

impl Document for Forecast {
    const KIND: &'static str = "forecast";
}

impl Document for CorpusForecast {
    const KIND: &'static str = "corpus-forecast";
}

impl Document for DiffDoc {
    const KIND: &'static str = "diff";
}

/// A document with its marker, as written to JSON.
#[derive(Serialize)]
pub struct Envelope<'a, T: Document> {
    /// Always [`GENERATOR`].
    pub generator: &'static str,
    /// [`Document::KIND`].
    pub document: &'static str,
    /// The document's own fields.
    #[serde(flatten)]
    pub body: &'a T,
}

impl<'a, T: Document> Envelope<'a, T> {
    /// Wraps `body` with its marker.
    pub fn of(body: &'a T) -> Self {
        Envelope {
            generator: GENERATOR,
            document: T::KIND,
            body,
        }
    }
}
