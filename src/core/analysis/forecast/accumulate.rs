//! What each chunk of forecast runs accumulates: exact sums and ranges of
//! every bound's cost, a sketch of each for its quantiles, and the counts over
//! budget ([`Acc`]), merged chunk by chunk in order.

use super::{BINS, PERCENTILES, SKETCH_ACCURACY};
use crate::document::forecast::Quantiles;
use rust_decimal::prelude::FromPrimitive;
use rust_decimal::Decimal;
use sketches_ddsketch::{Config, DDSketch};

pub(super) fn sketch() -> DDSketch {
    DDSketch::new(Config::new(SKETCH_ACCURACY, 16_384, 1e-9))
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
}

/// Runs whose samples wait in a [`Pending`] before they go into the sketches.
pub(super) const BATCH: usize = 1024;

/// Samples on their way into an [`Acc`]'s sketches, one buffer per sketch
/// (the same shape), added a batch at a time, sketch by sketch. A run adds
/// one sample to each of the 36 or so sketches in turn; added at once, most
/// of the time went to waiting on memory for each sketch's bins. A batch
/// goes in while its sketch's bins stay in cache. Each sketch takes its
/// samples in the order they came, so it is the sketch adding them one at
/// a time gives.
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

    /// Adds every waiting sample to its sketch in `acc`.
    pub(super) fn flush_into(&mut self, acc: &mut Acc) {
        let pairs = self
            .cost
            .iter_mut()
            .zip(acc.cost.iter_mut())
            .chain(self.context.iter_mut().zip(acc.context.iter_mut()))
            .chain(self.fan.iter_mut().zip(acc.fan.iter_mut()));
        for (waiting, sketches) in pairs {
            for (values, sketch) in waiting.iter_mut().zip(sketches.iter_mut()) {
                for v in values.drain(..) {
                    sketch.add(v);
                }
            }
        }
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
        }
    }

    pub(super) fn merge(&mut self, o: &Acc) {
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
