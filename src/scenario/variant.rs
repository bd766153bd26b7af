//! A variant: one way of running the same trace (results raw or trimmed,
//! which cache tier, sync or batch).

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

/// Prompt-cache tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
pub enum Cache {
    /// No caching: every request pays full input price for everything.
    #[serde(rename = "none")]
    None,
    /// Automatic caching with the 5-minute lifetime.
    #[serde(rename = "5m")]
    FiveMinutes,
    /// Automatic caching with the 1-hour lifetime.
    #[serde(rename = "1h")]
    OneHour,
}

/// Synchronous requests or the batch API.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Deserialize, Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Ordinary requests.
    #[default]
    Sync,
    /// The batch API's prices.
    Batch,
}

/// A checked variant with its display name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Variant {
    /// Display name, unique within a scenario.
    pub name: String,
    /// Raw or trimmed results.
    pub results: Content,
    /// Cache tier.
    pub cache: Cache,
    /// Sync or batch.
    pub mode: Mode,
}

impl Cache {
    /// How long a cache entry lives without being read, in milliseconds.
    pub fn lifetime_ms(self) -> Option<u64> {
        match self {
            Cache::None => None,
            Cache::FiveMinutes => Some(5 * 60 * 1000),
            Cache::OneHour => Some(60 * 60 * 1000),
        }
    }
}

impl fmt::Display for Content {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Content::Raw => "raw",
            Content::Trimmed => "trimmed",
        })
    }
}

impl fmt::Display for Cache {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Cache::None => "no cache",
            Cache::FiveMinutes => "5-min cache",
            Cache::OneHour => "1-hour cache",
        })
    }
}

impl Variant {
    /// The name used when the scenario gives none: "raw, 5-min cache" (", batch").
    pub fn default_name(results: Content, cache: Cache, mode: Mode) -> String {
        let mut name = format!("{results}, {cache}");
        if mode == Mode::Batch {
            name.push_str(", batch");
        }
        name
    }
}
