//! What each chunk of forecast runs accumulates: exact sums and ranges of
//! every bound's cost, a sketch of each for its quantiles, and the counts over
//! budget ([`Acc`]), merged chunk by chunk in order.

use super::{BINS, PERCENTILES, SKETCH_ACCURACY};
use crate::document::forecast::Quantiles;
use rust_decimal::prelude::FromPrimitive;
use rust_decimal::Decimal;
use sketches_ddsketch::{Config, DDSketch};

/// The most bins a sketch keeps (past them its lowest keys fold together).
const SKETCH_BINS: u32 = 16_384;

/// The sketches' configuration: relative accuracy [`SKETCH_ACCURACY`], at
/// most [`SKETCH_BINS`] bins, values up to 10⁻⁹ counted as zero.
fn config() -> Config {
    Config::new(SKETCH_ACCURACY, SKETCH_BINS, 1e-9)
}

pub(super) fn sketch() -> DDSketch {
    DDSketch::new(config())
}

/// Everything one chunk accumulates; merged in chunk order.
pub(super) struct Acc {
    pub(super) cost: Vec<[DDSketch; 2]>,
    pub(super) context: [[DDSketch; 2]; 2],
    pub(super) fan: Vec<[DDSketch; 2]>,
    pub(super) over_budget: Vec<u64>,
    pub(super) over_window: [u64; 2],
    pub(super) hist: Vec<Vec<u64>>,
    pub(super) raw_bytes: u128,
    pub(super) results: u64,
    /// Exact sums of the cost numerators, per variant and bound (for the mean).
    pub(super) cost_sum: Vec<[i128; 2]>,
    /// Exact sums of the final context numerators, per content and bound.
    pub(super) context_sum: [[i128; 2]; 2],
    /// Exact smallest and largest cost numerators, per variant and bound.
    pub(super) cost_range: Vec<[(i128, i128); 2]>,
    /// Exact smallest and largest final context numerators, per content and bound.
    pub(super) context_range: [[(i128, i128); 2]; 2],
    /// Set when a drawn run, or a sum over runs, would leave exact
    /// arithmetic: the forecast is then an error, never a wrapped figure.
    pub(super) overflow: Option<String>,
    /// The sketches' keys of the values met so far (not merged: each
    /// accumulator learns its own).
    keys: Keys,
    /// Each sketch's samples counted by key and not yet handed to it, in
    /// the order of [`Pending::buffers`]: kept over every chunk the
    /// accumulator takes, and handed over once ([`Acc::settle`]), not at
    /// each chunk's end (a logarithm and an exponential per key a chunk
    /// met: a 1,000,000-run forecast's user time 1.18 → 1.15 s when its
    /// 122 chunks stopped handing their counts over).
    counted: Vec<KeyCounts>,
}

/// Runs whose samples wait in a [`Pending`] before they are counted.
pub(super) const BATCH: usize = 1024;

/// Samples on their way into an [`Acc`]'s sketches, one buffer per sketch
/// (the same shape), counted a batch at a time, sketch by sketch, into the
/// accumulator's counts ([`Acc::settle`] hands them to the sketches). A run
/// adds one sample to each of the 36 or so sketches in turn; added at once,
/// most of the time went to waiting on memory for each sketch's bins. A
/// batch is counted while its sketch's counts stay in cache.
pub(super) struct Pending {
    pub(super) cost: Vec<[Vec<f64>; 2]>,
    pub(super) context: [[Vec<f64>; 2]; 2],
    pub(super) fan: Vec<[Vec<f64>; 2]>,
}

impl Pending {
    pub(super) fn new(variants: usize, fan: usize) -> Pending {
        let two = || [Vec::with_capacity(BATCH), Vec::with_capacity(BATCH)];
        Pending {
            cost: (0..variants).map(|_| two()).collect(),
            context: [two(), two()],
            fan: (0..fan).map(|_| two()).collect(),
        }
    }

    /// Whether a batch of runs is waiting (every run adds to `context`).
    pub(super) fn full(&self) -> bool {
        self.context[0][0].len() >= BATCH
    }

    /// Every waiting buffer beside its sketch in `acc`, in one order.
    fn buffers<'a>(
        &'a mut self,
        acc: &'a mut Acc,
    ) -> (
        impl Iterator<Item = (&'a mut Vec<f64>, &'a mut DDSketch)>,
        &'a mut [KeyCounts],
        &'a mut Keys,
    ) {
        let pairs = self
            .cost
            .iter_mut()
            .zip(acc.cost.iter_mut())
            .chain(self.context.iter_mut().zip(acc.context.iter_mut()))
            .chain(self.fan.iter_mut().zip(acc.fan.iter_mut()))
            .flat_map(|(waiting, sketches)| waiting.iter_mut().zip(sketches.iter_mut()));
        (pairs, &mut acc.counted, &mut acc.keys)
    }

    /// Counts every waiting sample by its sketch's key; a sample the
    /// sketch does not key (10⁻⁹ or less, not finite), or past the counts'
    /// reach, goes into the sketch at once.
    pub(super) fn flush_into(&mut self, acc: &mut Acc) {
        let (pairs, counted, keys) = self.buffers(acc);
        for ((values, sketch), counts) in pairs.zip(counted.iter_mut()) {
            // The extremes in registers while the batch is counted.
            let (mut least, mut greatest) = (counts.least, counts.greatest);
            for v in values.drain(..) {
                if v > keys.least && v.is_finite() && counts.add(keys.key(v)) {
                    if v < least {
                        least = v;
                    }
                    if v > greatest {
                        greatest = v;
                    }
                } else {
                    sketch.add(v);
                }
            }
            (counts.least, counts.greatest) = (least, greatest);
        }
    }
}

/// Mantissa bits that pick a value's stretch in [`Keys`]: 2¹³ stretches per
/// power of two, each 1/24 of a key wide (a key spans a factor of
/// 1.002, a stretch 1.00008).
const STRETCH_BITS: u32 = 13;
/// A stretch not yet looked at.
const UNSEEN: i16 = i16::MIN;
/// A stretch that holds the start of a key: each of its values is keyed
/// by the sketch's logarithm.
const SPLIT: i16 = i16::MAX;

/// The sketches' index mapping (`⌊ln v ÷ ln γ⌋`) without a logarithm per
/// value. A positive double's exponent and top [`STRETCH_BITS`] mantissa
/// bits pick a stretch of values; a stretch whose first and last values
/// have the same key has that key throughout (the mapping never falls as
/// the value grows), and is looked up. About one stretch in 24 holds the
/// start of a key; its values are keyed by the mapping itself. Each
/// stretch is keyed when first met. A power of two spans about 347 keys,
/// so a stretch keeps its key as an `i16` past its power's first key: the
/// tables of the powers a forecast meets stay in cache.
struct Keys {
    config: Config,
    /// The least value the sketches key; at or below it, a value counts as zero.
    least: f64,
    /// Per binary exponent, the key of its least value, and each stretch's
    /// key past it ([`UNSEEN`], [`SPLIT`]).
    by_exponent: Vec<Option<(i32, Box<[i16]>)>>,
}

impl Keys {
    fn new() -> Keys {
        let config = config();
        Keys {
            least: config.min_possible(),
            config,
            by_exponent: vec![None; 1 << 11],
        }
    }

    /// The sketch's key of `v`, a finite value above [`Keys::least`].
    #[inline(always)]
    fn key(&mut self, v: f64) -> i32 {
        let bits = v.to_bits();
        let low_bits = 52 - STRETCH_BITS;
        let stretch = ((bits >> low_bits) & ((1 << STRETCH_BITS) - 1)) as usize;
        let config = &self.config;
        let (base, table) =
            self.by_exponent[(bits >> 52) as usize & 0x7ff].get_or_insert_with(|| {
                let power = f64::from_bits(bits & !((1 << 52) - 1));
                (
                    config.key(power),
                    vec![UNSEEN; 1 << STRETCH_BITS].into_boxed_slice(),
                )
            });
        match table[stretch] {
            SPLIT => config.key(v),
            UNSEEN => {
                let first = config.key(f64::from_bits(bits & !((1 << low_bits) - 1)));
                let last = config.key(f64::from_bits(bits | ((1 << low_bits) - 1)));
                table[stretch] = match i16::try_from(i64::from(first) - i64::from(*base)) {
                    Ok(past) if first == last && past != UNSEEN && past != SPLIT => past,
                    _ => SPLIT,
                };
                config.key(v)
            }
            past => *base + i32::from(past),
        }
    }
}

// A sketch's count of one key is at most the forecast's runs.
const _: () = assert!(crate::limits::MAX_RUNS <= u32::MAX as u64);

/// The most keys one [`KeyCounts`] spans: a sketch's bins.
const MOST_KEYS: i64 = SKETCH_BINS as i64;

/// One sketch's samples counted by key over a window of keys, with their
/// exact least and greatest value. Handed to the sketch as one
/// `add_with_count` per key ([`KeyCounts::hand_to`]), it leaves the
/// sketch as adding each sample would: a sketch's bins are counts by key
/// (the lowest folded together past its most bins, whatever the order),
/// and its least and greatest value are added as they are. Only the
/// sketch's running `sum`, which the forecast does not read, differs.
struct KeyCounts {
    /// The key of `counts[0]`.
    first: i32,
    /// At most a forecast's runs each ([`crate::limits::MAX_RUNS`]).
    counts: Vec<u32>,
    least: f64,
    greatest: f64,
}

impl KeyCounts {
    fn new() -> KeyCounts {
        KeyCounts {
            first: 0,
            counts: Vec::new(),
            least: f64::INFINITY,
            greatest: f64::NEG_INFINITY,
        }
    }

    /// Counts a sample of key `key` (the caller keeps the extremes); false
    /// when the window would span more than [`MOST_KEYS`] keys (the caller
    /// adds it to the sketch).
    #[inline(always)]
    fn add(&mut self, key: i32) -> bool {
        let at = i64::from(key) - i64::from(self.first);
        if at < 0 || at >= self.counts.len() as i64 {
            if !self.widen(key) {
                return false;
            }
            return self.add(key);
        }
        self.counts[at as usize] += 1;
        true
    }

    /// Widens the window to reach `key` (with room either side), if it
    /// then spans at most [`MOST_KEYS`] keys.
    #[cold]
    fn widen(&mut self, key: i32) -> bool {
        const ROOM: i64 = 64;
        let key = i64::from(key);
        if self.counts.is_empty() {
            self.first = (key - ROOM).max(i64::from(i32::MIN)) as i32;
            self.counts = vec![0; (key - i64::from(self.first) + ROOM + 1) as usize];
            return true;
        }
        let (first, end) = (
            i64::from(self.first),
            i64::from(self.first) + self.counts.len() as i64,
        );
        let (low, high) = (first.min(key), end.max(key + 1));
        if high - low > MOST_KEYS {
            return false;
        }
        // Room on the side that grew, within the most keys.
        let spare = MOST_KEYS - (high - low);
        let low = if key < first {
            (low - ROOM.min(spare)).max(i64::from(i32::MIN))
        } else {
            low
        };
        let high = if key >= end {
            high + ROOM.min(spare)
        } else {
            high
        };
        let mut counts = vec![0; (high - low) as usize];
        counts[(first - low) as usize..(end - low) as usize].copy_from_slice(&self.counts);
        self.first = low as i32;
        self.counts = counts;
        true
    }

    /// Hands every count to `sketch`, key by key, and empties the counts:
    /// the least and the greatest value as themselves, every other sample
    /// as its key's value in the sketch (of the same key).
    fn hand_to(&mut self, sketch: &mut DDSketch, keys: &mut Keys) {
        if self.counts.iter().all(|&n| n == 0) {
            return;
        }
        let (least, greatest) = (keys.key(self.least), keys.key(self.greatest));
        for (at, n) in self.counts.iter_mut().enumerate() {
            if *n == 0 {
                continue;
            }
            let key = self.first + at as i32;
            let mut rest = std::mem::take(n);
            if key == least {
                sketch.add(self.least);
                rest -= 1;
            }
            if key == greatest && rest > 0 {
                sketch.add(self.greatest);
                rest -= 1;
            }
            if rest > 0 {
                let value = keys.config.value(key).clamp(self.least, self.greatest);
                debug_assert_eq!(keys.config.key(value), key);
                sketch.add_with_count(value, u64::from(rest));
            }
        }
        self.least = f64::INFINITY;
        self.greatest = f64::NEG_INFINITY;
    }
}

/// `a += b`, or the reason it cannot be done exactly.
pub(super) fn add_exact(a: &mut i128, b: i128, overflow: &mut Option<String>) {
    match a.checked_add(b) {
        Some(v) => *a = v,
        None => {
            overflow.get_or_insert_with(|| {
                "a sum over the forecast's runs is beyond exact arithmetic (10^38)".to_string()
            });
        }
    }
}

pub(super) const EMPTY_RANGE: (i128, i128) = (i128::MAX, i128::MIN);

pub(super) fn widen(r: &mut (i128, i128), v: i128) {
    r.0 = r.0.min(v);
    r.1 = r.1.max(v);
}

impl Acc {
    pub(super) fn new(variants: usize, fan: usize) -> Acc {
        Acc {
            cost: (0..variants).map(|_| [sketch(), sketch()]).collect(),
            context: [[sketch(), sketch()], [sketch(), sketch()]],
            fan: (0..fan).map(|_| [sketch(), sketch()]).collect(),
            over_budget: vec![0; variants],
            over_window: [0; 2],
            hist: vec![vec![0; BINS + 1]; variants],
            raw_bytes: 0,
            results: 0,
            cost_sum: vec![[0; 2]; variants],
            context_sum: [[0; 2]; 2],
            cost_range: vec![[EMPTY_RANGE; 2]; variants],
            context_range: [[EMPTY_RANGE; 2]; 2],
            overflow: None,
            keys: Keys::new(),
            counted: (0..2 * (variants + 2 + fan))
                .map(|_| KeyCounts::new())
                .collect(),
        }
    }

    /// Hands every sample counted so far to its sketch: the sketches then
    /// hold every run taken (what [`Acc::merge`] and the summary read).
    pub(super) fn settle(&mut self) {
        let sketches = self
            .cost
            .iter_mut()
            .chain(self.context.iter_mut())
            .chain(self.fan.iter_mut())
            .flat_map(|pair| pair.iter_mut());
        for (sketch, counts) in sketches.zip(self.counted.iter_mut()) {
            counts.hand_to(sketch, &mut self.keys);
        }
    }

    /// Adds `o`'s runs (both settled first).
    pub(super) fn merge(&mut self, mut o: Acc) {
        self.settle();
        o.settle();
        let m = |a: &mut DDSketch, b: &DDSketch| {
            a.merge(b).expect("sketches share one configuration");
        };
        for (a, b) in self.cost.iter_mut().zip(&o.cost) {
            m(&mut a[0], &b[0]);
            m(&mut a[1], &b[1]);
        }
        for (a, b) in self.context.iter_mut().zip(&o.context) {
            m(&mut a[0], &b[0]);
            m(&mut a[1], &b[1]);
        }
        for (a, b) in self.fan.iter_mut().zip(&o.fan) {
            m(&mut a[0], &b[0]);
            m(&mut a[1], &b[1]);
        }
        for (a, b) in self.over_budget.iter_mut().zip(&o.over_budget) {
            *a += b;
        }
        for (a, b) in self.over_window.iter_mut().zip(&o.over_window) {
            *a += b;
        }
        for (a, b) in self.hist.iter_mut().zip(&o.hist) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        self.raw_bytes += o.raw_bytes;
        self.results += o.results;
        if self.overflow.is_none() {
            self.overflow.clone_from(&o.overflow);
        }
        for (a, b) in self.cost_sum.iter_mut().zip(&o.cost_sum) {
            add_exact(&mut a[0], b[0], &mut self.overflow);
            add_exact(&mut a[1], b[1], &mut self.overflow);
        }
        for (a, b) in self.context_sum.iter_mut().zip(&o.context_sum) {
            add_exact(&mut a[0], b[0], &mut self.overflow);
            add_exact(&mut a[1], b[1], &mut self.overflow);
        }
        for (a, b) in self
            .cost_range
            .iter_mut()
            .chain(self.context_range.iter_mut())
            .zip(o.cost_range.iter().chain(o.context_range.iter()))
        {
            for i in 0..2 {
                widen(&mut a[i], b[i].0);
                widen(&mut a[i], b[i].1);
            }
        }
    }
}

/// `n ÷ d` as a decimal: exact when both fit `rust_decimal`, else through `f64`.
pub(super) fn ratio(n: i128, d: i128) -> Decimal {
    match (
        Decimal::try_from_i128_with_scale(n, 0),
        Decimal::try_from_i128_with_scale(d, 0),
    ) {
        (Ok(n), Ok(d)) if !d.is_zero() => n.checked_div(d).unwrap_or_default(),
        _ => Decimal::from_f64(n as f64 / d as f64).unwrap_or_default(),
    }
}

/// A sketch's estimate as a decimal of ten significant digits.
pub(super) fn estimate(v: f64, divisor: i128) -> Decimal {
    Decimal::from_f64(v / divisor as f64)
        .and_then(|d| d.round_sf(10))
        .unwrap_or_default()
        .normalize()
}

/// Quantiles from a sketch, clamped to the exact extremes; the mean from an
/// exact integer sum (so nothing depends on the order chunks were merged in).
pub(super) fn quantiles(s: &DDSketch, sum: i128, range: (i128, i128), divisor: i128) -> Quantiles {
    let (min, max) = if range.0 <= range.1 { range } else { (0, 0) };
    let (lo, hi) = (ratio(min, divisor), ratio(max, divisor));
    let q = |p: f64| estimate(s.quantile(p).ok().flatten().unwrap_or(0.0), divisor).clamp(lo, hi);
    let count = i128::from(s.count().max(1) as u64);
    Quantiles {
        p50: q(PERCENTILES[0]),
        p90: q(PERCENTILES[1]),
        p99: q(PERCENTILES[2]),
        mean: ratio(sum, divisor.saturating_mul(count)).normalize(),
        min: lo.normalize(),
        max: hi.normalize(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Values at and about key starts: the start's neighbours in bits, and
    /// values across many powers of two.
    fn awkward(config: &Config, key: i32) -> Vec<f64> {
        let start = config.pow_gamma(key);
        let mut vs = vec![start, config.value(key)];
        for d in 1..=3u64 {
            vs.push(f64::from_bits(start.to_bits() + d));
            vs.push(f64::from_bits(start.to_bits() - d));
        }
        vs
    }

    #[test]
    fn a_looked_up_key_is_the_sketchs_own() {
        let mut keys = Keys::new();
        let config = config();
        // Twice over the same values: the first time keys the stretches,
        // the second looks them up.
        let values: Vec<f64> = (config.key(2e-9)..config.key(1e30))
            .step_by(7)
            .flat_map(|k| awkward(&config, k))
            .filter(|v| *v > keys.least)
            .collect();
        for _ in 0..2 {
            for &v in &values {
                assert_eq!(keys.key(v), config.key(v), "{v:e}");
            }
        }
        // Every key's value in the sketch keys back to it.
        for k in config.key(2e-9)..=config.key(f64::MAX) {
            let v = config.value(k);
            if v.is_finite() {
                assert_eq!(config.key(v), k);
            }
        }
    }

    /// The sketch of `values` added one at a time, and through a
    /// [`Pending`] in batches of `batch` (a chunk's end after every
    /// `chunk` values; the counts handed to the sketch after every third
    /// chunk from the second, and at the end).
    fn both_ways(values: &[f64], batch: usize, chunk: usize) -> (DDSketch, DDSketch) {
        let mut one = sketch();
        for &v in values {
            one.add(v);
        }
        let mut acc = Acc::new(1, 0);
        for (i, stretch) in values.chunks(chunk).enumerate() {
            let mut pending = Pending::new(1, 0);
            for part in stretch.chunks(batch) {
                pending.cost[0][0].extend_from_slice(part);
                pending.flush_into(&mut acc);
            }
            // Counts handed over after some chunks, kept over others.
            if i % 3 == 1 {
                acc.settle();
            }
        }
        acc.settle();
        let [counted, untouched] = &acc.cost[0];
        assert_eq!(untouched.count(), 0);
        (one, counted.clone())
    }

    fn same_sketch(one: &DDSketch, counted: &DDSketch) {
        assert_eq!(one.count(), counted.count());
        assert_eq!(one.min(), counted.min());
        assert_eq!(one.max(), counted.max());
        for i in 0..=500 {
            let q = f64::from(i) / 500.0;
            assert_eq!(
                one.quantile(q).unwrap(),
                counted.quantile(q).unwrap(),
                "q = {q}"
            );
        }
    }

    #[test]
    fn counted_samples_make_the_sketch_adding_them_makes() {
        // Zeros, values at the least, keys' starts, a lone extreme, and a
        // spread wider than a sketch's bins (folded at its low end).
        let config = config();
        let mut values = vec![0.0, 1e-9, 5e-10, 3.0, 3.0];
        values.extend((0..200).flat_map(|k| awkward(&config, 4000 + k * 3)));
        values.push(1e40);
        values.extend((0..50).map(|i| 1e-8 * f64::from(i + 1)));
        values.push(2.5);
        let (one, counted) = both_ways(&values, 16, 300);
        same_sketch(&one, &counted);
        // A single sample, and one key's samples only.
        for vs in [vec![7.25], vec![7.25, 7.2501, 7.25]] {
            let (one, counted) = both_ways(&vs, 2, 2);
            same_sketch(&one, &counted);
        }
    }

    #[test]
    fn accumulators_merged_unsettled_make_the_sketch_of_all_their_samples() {
        // Two accumulators with counts not yet handed over, merged (each
        // settled by the merge), and a third empty one merged in after.
        let values: Vec<f64> = (0..5000).map(|i| 1.0 + f64::from(i % 977) * 0.37).collect();
        let (first, second) = values.split_at(2000);
        let mut one = sketch();
        for &v in &values {
            one.add(v);
        }
        let counted = |vs: &[f64]| {
            let mut acc = Acc::new(1, 0);
            let mut pending = Pending::new(1, 0);
            pending.cost[0][0].extend_from_slice(vs);
            pending.flush_into(&mut acc);
            acc
        };
        let mut a = counted(first);
        assert_eq!(a.cost[0][0].count(), 0, "counts wait until settled");
        a.merge(counted(second));
        a.merge(Acc::new(1, 0));
        same_sketch(&one, &a.cost[0][0]);
        // Settling again hands nothing twice.
        a.settle();
        same_sketch(&one, &a.cost[0][0]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_samples_make_the_same_sketch(
            values in prop::collection::vec(
                prop_oneof![
                    4 => 1.0f64..1e6,
                    1 => 1e-12f64..1e-6,
                    1 => 1e6f64..1e30,
                    1 => Just(0.0),
                ],
                1..3000,
            ),
            batch in 1usize..600,
            chunk in 1usize..2000,
        ) {
            let (one, counted) = both_ways(&values, batch, chunk);
            same_sketch(&one, &counted);
        }
    }
}
