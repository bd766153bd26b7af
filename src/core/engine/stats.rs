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
/// rows for each list. Past [`COUNT_FROM`] of them they are counted
/// instead: each below [`SLOTS`] ms (65 s) in a slot of its own, the
/// rest listed. A million-row trace's latencies no longer take fresh
/// memory a row (80 MB at 10,000,000 rows, the lists of the medians of
/// every capability and of the calls with data), and each median is read
/// from the counts rather than selected from the list.
enum Millis {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
    /// The count of each millisecond below [`SLOTS`] (a trace holds at
    /// most [`MAX_TRACE_ROWS`](crate::limits::MAX_TRACE_ROWS) rows, so a
    /// count fits in 32 bits), and every other value.
    Counted {
        counts: Vec<u32>,
        over: Vec<u64>,
    },
}

/// Values a list of [`Millis`] holds before they are counted.
const COUNT_FROM: usize = 1 << 16;

/// Milliseconds below this are counted in a slot each (256 kB of counts).
const SLOTS: usize = 1 << 16;

const _: () = assert!(crate::limits::MAX_TRACE_ROWS <= u32::MAX as usize);

impl Default for Millis {
    fn default() -> Millis {
        Millis::Narrow(Vec::new())
    }
}

impl Millis {
    fn push(&mut self, ms: u64) {
        match self {
            Millis::Narrow(v) if v.len() >= COUNT_FROM => {
                *self = Millis::counted(v.iter().map(|&m| u64::from(m)));
                self.push(ms);
            }
            Millis::Wide(v) if v.len() >= COUNT_FROM => {
                *self = Millis::counted(v.iter().copied());
                self.push(ms);
            }
            Millis::Narrow(v) => match u32::try_from(ms) {
                Ok(narrow) => v.push(narrow),
                Err(_) => {
                    let mut wide: Vec<u64> = v.iter().map(|&m| u64::from(m)).collect();
                    wide.push(ms);
                    *self = Millis::Wide(wide);
                }
            },
            Millis::Wide(v) => v.push(ms),
            Millis::Counted { counts, over } => match usize::try_from(ms) {
                // At most MAX_TRACE_ROWS values are pushed: no count overflows.
                Ok(slot) if slot < SLOTS => counts[slot] += 1,
                _ => over.push(ms),
            },
        }
    }

    /// The values counted ([`Millis::Counted`]).
    fn counted(values: impl Iterator<Item = u64>) -> Millis {
        let mut counted = Millis::Counted {
            counts: vec![0; SLOTS],
            over: Vec::new(),
        };
        values.for_each(|v| counted.push(v));
        counted
    }

    /// Their median, as [`median`] gives it.
    fn median(self) -> f64 {
        match self {
            Millis::Narrow(v) => median_in_place(v),
            Millis::Wide(v) => median_in_place(v),
            Millis::Counted { counts, over } => median_of_counts(&counts, over),
        }
    }
}

/// [`median`] of the values `counts` counts (slot `i`: value `i`) and of
/// `over` (each at least [`SLOTS`]): the same order statistics, read from
/// the counts, so the same mean of the middle two.
#[allow(clippy::cast_precision_loss)] // milliseconds, capped at a year: well below 2^52
fn median_of_counts(counts: &[u32], mut over: Vec<u64>) -> f64 {
    let counted: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let n = counted + over.len() as u64;
    // The value of 0-based rank `rank` (below `n`): the counted values
    // are the smaller ones.
    let mut at = |rank: u64| -> f64 {
        if rank < counted {
            let mut below = 0u64;
            for (slot, &c) in counts.iter().enumerate() {
                below += u64::from(c);
                if rank < below {
                    return slot as f64;
                }
            }
        }
        let past = usize::try_from(rank - counted).unwrap_or(usize::MAX);
        *over.select_nth_unstable(past).1 as f64
    };
    match n {
        0 => 0.0,
        n if n % 2 == 1 => at(n / 2),
        _ => (at(n / 2 - 1) + at(n / 2)) / 2.0,
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

    /// Past `COUNT_FROM` values the latencies are counted, and the medians
    /// are those of the values listed: every value below the slots, some
    /// above (past 2^32 too), or all above; an odd and an even count.
    #[test]
    fn counted_medians_are_the_listed_medians() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let slots = SLOTS as u64;
        for n in [COUNT_FROM + 1, COUNT_FROM + 2, 3 * COUNT_FROM + 7] {
            for (low, high) in [
                (0, 20),
                (1_000, 16_000),
                (0, 2 * slots),
                (slots - 3, slots + 3),
                (0, 1 << 40),
                (slots, 1 << 33),
            ] {
                let values: Vec<u64> = (0..n).map(|_| rng.random_range(low..=high)).collect();
                let mut kept = Millis::default();
                values.iter().for_each(|&v| kept.push(v));
                assert!(matches!(kept, Millis::Counted { .. }), "{n} values");
                // The list's median, itself checked against statrs above.
                let want = median(values.iter().copied());
                assert_eq!(
                    kept.median().to_bits(),
                    want.to_bits(),
                    "{n} values in {low}..={high}"
                );
            }
        }
        // Hand-worked: 65,536 values of 5 ms and one of 70,000 ms: the
        // median of 65,537 values is the 32,769th, 5.
        let fives = |over: usize| {
            let mut kept = Millis::default();
            (0..COUNT_FROM).for_each(|_| kept.push(5));
            (0..over).for_each(|_| kept.push(70_000));
            kept.median()
        };
        assert_eq!(fives(1), 5.0);
        // With one more of 70,000: the mean of the 32,769th and 32,770th of 65,538, 5 and 5.
        assert_eq!(fives(2), 5.0);
        // 65,536 of 70,000 ms: the 65,536th and 65,537th of 131,072, 5 and 70,000.
        assert_eq!(fives(COUNT_FROM), (5.0 + 70_000.0) / 2.0);
    }
}
