//! Hashing of names read from files (capability names, one lookup per trace
//! row): foldhash, at a fraction of SipHash's cost per lookup.
//!
//! foldhash's own `RandomState` seeds itself once from the clock, which the
//! engine never asks (and which the live page's WASI shim does not offer:
//! the page's engine would not load). Each map here takes its seed from the
//! standard library's random keys instead, so names read from a log cannot
//! be chosen to collide.

use std::hash::BuildHasher;

/// The hasher builder of a map or set keyed by names read from a file.
pub type NameHasher = foldhash::fast::SeedableRandomState;

/// A [`NameHasher`] with a seed of its own.
pub fn name_hasher() -> NameHasher {
    let seed = std::hash::RandomState::new().hash_one(0u64);
    foldhash::fast::SeedableRandomState::with_seed(seed, foldhash::SharedSeed::global_fixed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_map_has_its_own_seed_and_one_name_one_hash() {
        let (a, b) = (name_hasher(), name_hasher());
        assert_ne!(a.hash_one("reddit/search"), b.hash_one("reddit/search"));
        assert_eq!(a.hash_one("reddit/search"), a.hash_one("reddit/search"));
    }
}
