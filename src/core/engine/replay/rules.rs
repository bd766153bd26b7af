//! What a walk's prices and cache tier fix for every request ([`Rules`]), and
//! the facts of one request it bills ([`Billed`]).

use super::tally::Scale;
use crate::pricing::Rates;
use crate::scenario::Cache;

/// What a walk's prices and cache tier fix for every request: denominators,
/// whether and how long the cache keeps a prompt, the minimum cacheable
/// length, the long-context thresholds, whether storage is billed, and the
/// prefix's numerators.
pub(super) struct Rules {
    pub(super) dens: [i128; 2],
    pub(super) caches: bool,
    pub(super) lifetime: Option<u64>,
    pub(super) min: Option<[i128; 2]>,
    pub(super) thresholds: Vec<[i128; 2]>,
    pub(super) stores: bool,
    pub(super) prefix: [i128; 2],
    /// Per bound, the prefix that earlier runs keep cached (see
    /// [`Scale::warm`]): read at the first request and after an expiry.
    pub(super) warm: [Option<i128>; 2],
}

impl Rules {
    pub(super) fn new(scale: &Scale, cache: Cache, rates: &Rates) -> Rules {
        let caches = rates.caches(cache);
        Rules {
            dens: scale.denominators(),
            caches,
            lifetime: rates.lifetime_ms(cache),
            min: rates.min_cacheable_tokens.map(|t| scale.tokens(t)),
            thresholds: rates
                .long_context
                .iter()
                .map(|lc| scale.tokens(lc.threshold_tokens))
                .collect(),
            stores: caches && rates.cache_storage_per_hour.is_some(),
            prefix: scale.numerators_out(0, 0),
            warm: scale.warm(),
        }
    }
}

/// One request of a walk: whether it is the last, its prompt's numerators
/// per bound, its output, the gap before it, what happened to the cache, and
/// the output sent back that a provider may have cached with the previous prompt.
pub(super) struct Billed {
    pub(super) last: bool,
    pub(super) num: [i128; 2],
    pub(super) out: u64,
    pub(super) gap: u64,
    pub(super) expired: bool,
    pub(super) compacted: bool,
    pub(super) drops: bool,
    /// Per bound, the previous request's output sent back in this prompt
    /// (numerators), where the provider caches a response with its prompt
    /// (a fitted cache hit share); 0 otherwise.
    pub(super) sent: [i128; 2],
}
