//! A variant: one way of running the same trace (results raw or trimmed,
//! which cache tier, sync or batch).

pub use crate::pricing::{Cache, Mode};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which size of each tool result enters the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Content {
    /// The tool's response as returned.
    Raw,
    /// After the field whitelist and text cut.
    Trimmed,
}

/// A checked variant with its display name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// Display name, unique within a scenario.
    pub name: String,
    /// Raw or trimmed results.
    pub results: Content,
    /// Cache tier.
    pub cache: Cache,
    /// Sync or batch.
    pub mode: Mode,
    /// A service tier of the model (flex, priority, fast).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    /// A regional processing uplift of the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
}

impl fmt::Display for Content {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Content::Raw => "raw",
            Content::Trimmed => "trimmed",
        })
    }
}

impl Variant {
    /// The service tier and region, as the price book resolves them.
    pub fn options(&self) -> crate::pricing::Options<'_> {
        crate::pricing::Options {
            service: self.service.as_deref(),
            region: self.region.as_deref(),
        }
    }

    /// The name used when the scenario gives none: "raw, 5-min cache" (", batch").
    pub fn default_name(results: Content, cache: Cache, mode: Mode) -> String {
        let mut name = format!("{results}, {cache}");
        if mode == Mode::Batch {
            name.push_str(", batch");
        }
        name
    }
}
