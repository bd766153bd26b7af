//! Per-capability statistics and the data-fee ledger, from the trace alone.
//!
//! Medians use statrs; with an even count they are the mean of the two middle
//! values (the seed's convention: 5.6 s for reddit/search's six calls).

use crate::scenario::TraceCall;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// What one capability's successful responses looked like.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapabilityStats {
    /// Capability name.
    pub capability: String,
    /// Successful, non-replayed responses.
    pub calls: u64,
    /// Results returned in total.
    pub items: u64,
    /// Raw bytes in total.
    pub raw_bytes: u64,
    /// Trimmed bytes in total.
    pub trimmed_bytes: u64,
    /// Mean raw bytes per call.
    pub mean_raw_bytes: Decimal,
    /// Mean trimmed bytes per call.
    pub mean_trimmed_bytes: Decimal,
    /// Raw bytes per result item (total ÷ items; none when no items).
    pub raw_bytes_per_item: Option<Decimal>,
    /// Trimmed bytes per result item.
    pub trimmed_bytes_per_item: Option<Decimal>,
    /// Share of raw bytes the trim removes (0–1).
    pub cut_share: Decimal,
    /// Median latency in milliseconds.
    pub median_latency_ms: f64,
}

/// The data tools' ledger and the statistics per capability, in one pass
/// over the trace (each is a scan of every row; one scan reads the rows
/// from memory once). The capabilities come in order of first appearance.
pub fn ledger_and_capabilities(trace: &[TraceCall]) -> (Ledger, Vec<CapabilityStats>) {
    /// One capability's sums so far.
    struct Group<'t> {
        name: &'t str,
        calls: u64,
        items: u64,
        raw: u64,
        trimmed: u64,
        latency: Millis,
    }
    let mut l = Ledger {
        requests: trace.len() as u64,
        charged: 0,
        uncharged: 0,
        replays_skipped: 0,
        errors: 0,
        total_usd: Decimal::ZERO,
        median_latency_with_data_ms: 0.0,
    };
    let mut with_data = Millis::default();
    let mut index: std::collections::HashMap<&str, usize, crate::hashing::NameHasher> =
        std::collections::HashMap::with_hasher(crate::hashing::name_hasher());
    let mut groups: Vec<Group> = Vec::new();
    let mut last = 0;
    for c in trace {
        if c.replayed {
            l.replays_skipped += 1;
        } else if c.charged_usd > Decimal::ZERO {
            l.charged += 1;
            l.total_usd += c.charged_usd;
        } else if c.charged_usd.is_zero() {
            l.uncharged += 1;
        }
        if !(200..300).contains(&c.status) {
            l.errors += 1;
        }
        if !c.enters_context() {
            continue;
        }
        if c.items > 0 {
            with_data.push(c.latency_ms);
        }
        let name: &str = &c.capability;
        // Runs of one capability are common: its group is asked first.
        if groups.get(last).is_none_or(|g| g.name != name) {
            last = *index.entry(name).or_insert_with(|| {
                groups.push(Group {
                    name,
                    calls: 0,
                    items: 0,
                    raw: 0,
                    trimmed: 0,
                    latency: Millis::default(),
                });
                groups.len() - 1
            });
        }
        let g = &mut groups[last];
        g.calls += 1;
        g.items += c.items;
        g.raw += c.raw_bytes.unwrap_or(0);
        g.trimmed += c.trimmed_bytes.unwrap_or(0);
        g.latency.push(c.latency_ms);
    }
    // The medians, each a selection over up to every row, side by side.
    let latencies: Vec<Millis> = groups
        .iter_mut()
        .map(|g| std::mem::take(&mut g.latency))
        .collect();
    let (with_data, medians) = crate::par::join(
        || with_data.median(),
        || crate::par::map(latencies, Millis::median),
    );
    l.median_latency_with_data_ms = with_data;
    let capabilities = groups
        .into_iter()
        .zip(medians)
        .map(|(g, median_latency_ms)| {
            let (n, items, raw, trimmed) = (g.calls, g.items, g.raw, g.trimmed);
            let per = |total: u64, count: u64| {
                (count > 0).then(|| Decimal::from(total) / Decimal::from(count))
            };
            CapabilityStats {
                capability: g.name.to_string(),
                calls: n,
                items,
                raw_bytes: raw,
                trimmed_bytes: trimmed,
                mean_raw_bytes: per(raw, n).unwrap_or_default(),
                mean_trimmed_bytes: per(trimmed, n).unwrap_or_default(),
                raw_bytes_per_item: per(raw, items),
                trimmed_bytes_per_item: per(trimmed, items),
                cut_share: if raw == 0 {
                    Decimal::ZERO
                } else {
                    Decimal::ONE - Decimal::from(trimmed) / Decimal::from(raw)
                },
                median_latency_ms,
            }
        })
        .collect();
    (l, capabilities)
}

/// Whole milliseconds kept for a median, four bytes each while every one
/// fits in 32 bits (a latency past 2^32 ms, 49.7 days, widens them all to
/// eight): the rows' latencies are held beside the rows and the steps'
/// sizes while the trace's facts are computed, 40 MB less at 10,000,000
/// rows for each list.
enum Millis {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Default for Millis {
    fn default() -> Millis {
        Millis::Narrow(Vec::new())
    }
}

impl Millis {
    fn push(&mut self, ms: u64) {
        match self {
            Millis::Narrow(v) => match u32::try_from(ms) {
                Ok(narrow) => v.push(narrow),
                Err(_) => {
                    let mut wide: Vec<u64> = v.iter().map(|&m| u64::from(m)).collect();
                    wide.push(ms);
                    *self = Millis::Wide(wide);
                }
            },
            Millis::Wide(v) => v.push(ms),
        }
    }

    /// Their median, as [`median`] gives it.
    fn median(self) -> f64 {
        match self {
            Millis::Narrow(v) => median_in_place(v),
            Millis::Wide(v) => median_in_place(v),
        }
    }
}

/// [`median`] of `v`, selected in place: the same order statistics of the
/// same values (whole milliseconds below 2^53 are exact as `f64`, and order
/// as their integers do), so the same mean of the middle two.
#[allow(clippy::cast_precision_loss)] // milliseconds, capped at a year: well below 2^52
fn median_in_place<T: Ord + Copy + Into<u64>>(mut v: Vec<T>) -> f64 {
    let (n, k) = (v.len(), v.len() / 2);
    let mut at = |rank: usize| (*v.select_nth_unstable(rank).1).into() as f64;
    match n {
        0 => 0.0,
        n if n % 2 == 1 => at(k),
        _ => (at(k - 1) + at(k)) / 2.0,
    }
}

/// Median of whole milliseconds (mean of the middle two for an even count;
/// statrs's `OrderStatistics::median` of the same values as `f64`).
pub fn median(values: impl Iterator<Item = u64>) -> f64 {
    median_in_place(values.collect::<Vec<u64>>())
}

/// The data tools' bill: charged responses only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// Requests recorded.
    pub requests: u64,
    /// Responses that were charged (fee > 0, not a replay).
    pub charged: u64,
    /// Non-replayed responses that cost nothing (errors, zero results).
    pub uncharged: u64,
    /// Idempotent replays skipped: they echo the first billing block.
    pub replays_skipped: u64,
    /// Error responses (non-2xx), kept in the ledger.
    pub errors: u64,
    /// Sum of `charged_usd` over charged responses.
    pub total_usd: Decimal,
    /// Median latency of successful, non-replayed calls that returned data, ms.
    pub median_latency_with_data_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use statrs::statistics::{Data, OrderStatistics};

    /// statrs's median of the values as `f64`: what the medians were.
    #[allow(clippy::cast_precision_loss)]
    fn statrs_median(values: &[u64]) -> f64 {
        if values.is_empty() {
            return 0.0;
        }
        OrderStatistics::median(&mut Data::new(
            values.iter().map(|&v| v as f64).collect::<Vec<f64>>(),
        ))
    }

    #[test]
    fn medians_are_statrs_medians_narrow_or_wide() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        for n in (0..40).chain([99, 100, 1001]) {
            for spread in [3u64, 1_000, u64::from(u32::MAX), 366 * 24 * 3_600_000] {
                let values: Vec<u64> = (0..n).map(|_| rng.random_range(0..=spread)).collect();
                let mut kept = Millis::default();
                values.iter().for_each(|&v| kept.push(v));
                let widened = matches!(kept, Millis::Wide(_));
                assert_eq!(widened, values.iter().any(|&v| v > u64::from(u32::MAX)));
                let want = statrs_median(&values);
                assert_eq!(
                    kept.median().to_bits(),
                    want.to_bits(),
                    "{n} values to {spread}"
                );
                assert_eq!(median(values.into_iter()).to_bits(), want.to_bits());
            }
        }
        // Widened after narrow values, in order: 1, 2, 2^32, 3 → (2 + 3) / 2.
        let mut kept = Millis::default();
        [1, 2, 1 << 32, 3].into_iter().for_each(|v| kept.push(v));
        assert_eq!(kept.median(), 2.5);
    }
}
