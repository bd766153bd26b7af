//! What a variant buys: a prompt-cache tier and a sync or batch mode.
//!
//! These decide which prices apply, so they belong to the pricing layer; the
//! scenario format reads them and re-exports them.

use serde::{Deserialize, Serialize};
use std::fmt;

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

impl Cache {
    /// Every tier, in the order they are listed to users.
    pub const ALL: [Cache; 3] = [Cache::None, Cache::FiveMinutes, Cache::OneHour];

    /// How long a cache entry lives without being read, in milliseconds.
    pub fn lifetime_ms(self) -> Option<u64> {
        match self {
            Cache::None => None,
            Cache::FiveMinutes => Some(5 * 60 * 1000),
            Cache::OneHour => Some(60 * 60 * 1000),
        }
    }

    /// The tier as written in scenarios, on the command line and in CSV: `none`, `5m`, `1h`.
    pub fn key(self) -> &'static str {
        match self {
            Cache::None => "none",
            Cache::FiveMinutes => "5m",
            Cache::OneHour => "1h",
        }
    }

    /// The tier written as [`Cache::key`], if it is one.
    pub fn from_key(key: &str) -> Option<Cache> {
        Cache::ALL.into_iter().find(|c| c.key() == key)
    }

    /// The tier's name for people: "5-minute", "1-hour" (or "no cache").
    pub fn lifetime_name(self) -> &'static str {
        match self {
            Cache::None => "no cache",
            Cache::FiveMinutes => "5-minute",
            Cache::OneHour => "1-hour",
        }
    }
}

impl Mode {
    /// The mode as written in scenarios: `sync`, `batch`.
    pub fn key(self) -> &'static str {
        match self {
            Mode::Sync => "sync",
            Mode::Batch => "batch",
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_match_serde() {
        for c in Cache::ALL {
            assert_eq!(Cache::from_key(c.key()), Some(c));
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.key())
            );
        }
        assert_eq!(Cache::from_key("10m"), None);
    }
}
