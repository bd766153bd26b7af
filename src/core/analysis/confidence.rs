//! Confidence that a pilot can support: distribution-free intervals for a
//! percentile from n independent runs (order statistics and the binomial
//! distribution; nothing assumed about the cost's distribution), and the
//! number of runs a one-sided bound needs.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, DiscreteCDF};
use statrs::statistics::{Data, OrderStatistics};

/// A percentile of recorded runs with its interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stated {
    /// Which percentile (50, 90, 99).
    pub percentile: u8,
    /// The estimate (statrs, R-8 interpolation).
    pub estimate: f64,
    /// Lower end of the interval: the l-th smallest run, when n allows one.
    pub lower: Option<Decimal>,
    /// Upper end: the u-th smallest run, when n allows one.
    pub upper: Option<Decimal>,
}

/// Runs needed so that the largest of them is above the `p` quantile with
/// probability `level` (p = 0.99, level = 0.95: 299).
pub fn runs_needed(p: f64, level: f64) -> u64 {
    ((1.0 - level).ln() / p.ln()).ceil() as u64
}

/// The rank (1-based) of a one-sided `level` upper bound for the `p`
/// quantile from `n` runs: the smallest r with P(X(r) ≥ ξp) ≥ level, that
/// is P(B ≤ r − 1) ≥ level for B ~ Binomial(n, p). `None` when n runs cannot
/// bound it (p = 0.99, level = 0.95: from 299 runs, where r = n).
pub fn upper_rank(n: u64, p: f64, level: f64) -> Option<u64> {
    if n == 0 {
        return None;
    }
    let b = Binomial::new(p, n).expect("0 < p < 1");
    first(n, |r| b.cdf(r - 1) >= level)
}

/// The smallest r in 1..=n for which `holds(r)`, where `holds` is false
/// and then true (a CDF crossing a level): a binary search, so a
/// million sessions cost twenty CDFs, not a million.
fn first(n: u64, holds: impl Fn(u64) -> bool) -> Option<u64> {
    let r = crate::search::partition_point(1, n + 1, holds);
    (r <= n).then_some(r)
}

/// The ranks (1-based) of a two-sided `level` interval for the `p` quantile
/// from `n` runs: the l-th and u-th smallest, with P(X(l) ≤ ξp ≤ X(u)) ≥
/// level. `None` on a side that n runs cannot bound.
pub fn ranks(n: u64, p: f64, level: f64) -> (Option<u64>, Option<u64>) {
    if n == 0 {
        return (None, None);
    }
    let b = Binomial::new(p, n).expect("0 < p < 1");
    let tail = (1.0 - level) / 2.0;
    // Equal tails first: the largest l with P(B ≤ l − 1) ≤ tail, the
    // smallest u with P(B ≤ u − 1) ≥ 1 − tail.
    let lower = match first(n, |l| b.cdf(l - 1) > tail) {
        Some(1) => None,
        Some(l) => Some(l - 1),
        None => Some(n),
    };
    let upper = first(n, |u| b.cdf(u - 1) >= 1.0 - tail);
    let (Some(l0), Some(u0)) = (lower, upper) else {
        return (lower, upper);
    };
    // Then, around them, the pair whose coverage P(B ≤ u − 1) − P(B ≤ l − 1)
    // is closest to `level` from above (discrete ranks overshoot otherwise).
    let cover = |l: u64, u: u64| b.cdf(u - 1) - b.cdf(l - 1);
    let mut best = (l0, u0, cover(l0, u0));
    for l in l0.saturating_sub(3).max(1)..=(l0 + 3).min(n) {
        for u in u0.saturating_sub(3).max(l + 1)..=(u0 + 3).min(n) {
            let c = cover(l, u);
            if c >= level && (c < best.2 || (c == best.2 && u - l < best.1 - best.0)) {
                best = (l, u, c);
            }
        }
    }
    (Some(best.0), Some(best.1))
}

/// The 50th, 90th and 99th percentiles of `values` with their `level` intervals.
pub fn state(values: &[Decimal], level: f64) -> Vec<Stated> {
    let mut sorted = values.to_vec();
    sorted.sort();
    let f: Vec<f64> = sorted
        .iter()
        .map(|d| rust_decimal::prelude::ToPrimitive::to_f64(d).unwrap_or(f64::MAX))
        .collect();
    let mut data = Data::new(f);
    [50u8, 90, 99]
        .into_iter()
        .map(|pc| {
            let (l, u) = ranks(sorted.len() as u64, f64::from(pc) / 100.0, level);
            Stated {
                percentile: pc,
                estimate: data.percentile(usize::from(pc)),
                lower: l.map(|r| sorted[r as usize - 1]),
                upper: u.map(|r| sorted[r as usize - 1]),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_search_finds_the_ranks_a_scan_finds() {
        for n in [1u64, 2, 5, 30, 59, 100, 299, 300, 1000, 4321] {
            for p in [0.5, 0.9, 0.99] {
                let b = Binomial::new(p, n).unwrap();
                let tail = 0.025;
                let scan_lower = (1..=n).take_while(|l| b.cdf(l - 1) <= tail).last();
                let scan_upper = (1..=n).find(|u| b.cdf(u - 1) >= 1.0 - tail);
                let scan_one = (1..=n).find(|r| b.cdf(r - 1) >= 0.95);
                assert_eq!(upper_rank(n, p, 0.95), scan_one, "n {n} p {p}");
                assert_eq!(
                    first(n, |l| b.cdf(l - 1) > tail)
                        .map_or(Some(n), |f| f.checked_sub(1).filter(|x| *x > 0)),
                    scan_lower,
                    "n {n} p {p}"
                );
                assert_eq!(first(n, |u| b.cdf(u - 1) >= 1.0 - tail), scan_upper);
            }
        }
    }
    use rand::{RngExt, SeedableRng};

    #[test]
    fn a_p99_budget_at_95_percent_needs_299_runs() {
        assert_eq!(runs_needed(0.99, 0.95), 299);
        assert_eq!(runs_needed(0.9, 0.95), 29);
    }

    #[test]
    fn a_one_sided_p99_bound_starts_at_299_runs() {
        // 1 − 0.99^298 = 0.9500 − : not yet; 1 − 0.99^299 = 0.9505: the largest run.
        assert_eq!(upper_rank(298, 0.99, 0.95), None);
        assert_eq!(upper_rank(299, 0.99, 0.95), Some(299));
        // The median of 10: P(B ≤ 7) = 0.9453, P(B ≤ 8) = 0.9893 → the 9th.
        assert_eq!(upper_rank(10, 0.5, 0.95), Some(9));
    }

    #[test]
    fn small_pilots_cannot_bound_high_percentiles() {
        // 20 runs: the p99 has no upper bound; the median has both.
        assert_eq!(ranks(20, 0.99, 0.95).1, None);
        let (l, u) = ranks(20, 0.5, 0.95);
        assert!(l.is_some() && u.is_some());
    }

    /// Nominal 95 % intervals cover the true percentile in 93–97 % of 1,000
    /// repetitions, on a known distribution (uniform on 0–1: ξp = p).
    #[test]
    fn intervals_cover_the_true_percentile_as_stated() {
        for (n, p) in [(200u64, 0.9), (100, 0.5), (1000, 0.99)] {
            let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
            let (l, u) = ranks(n, p, 0.95);
            let (l, u) = (l.unwrap() as usize, u.unwrap() as usize);
            let mut covered = 0;
            for _ in 0..1000 {
                let mut x: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..1.0)).collect();
                x.sort_by(|a, b| a.partial_cmp(b).unwrap());
                if x[l - 1] <= p && p <= x[u - 1] {
                    covered += 1;
                }
            }
            assert!(
                (930..=970).contains(&covered),
                "n {n}, p {p}: covered {covered} of 1,000"
            );
        }
    }
}
