//! Days and months drawn from the sessions: each period's cost summed from
//! drawn sessions, with bootstrap intervals of its percentiles ([`Periods`]),
//! and the seeded draws behind them ([`Drawer`]).

use super::{interval_of, resample, Recorded, CHUNK, PERCENTILES, PERIOD_BOOTSTRAP, SCALE};
use crate::document::corpus::{Estimate, Percentile, PeriodCost};
use crate::engine::Bounds;
use rand::distr::weighted::WeightedIndex;
use rand::distr::Distribution;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

pub(super) fn seed_of(seed: u64, stream: u64, index: u64) -> u64 {
    seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03)
        ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Draws a session index by the mix.
pub(super) struct Drawer {
    pub(super) index: Option<WeightedIndex<f64>>,
    pub(super) n: usize,
}

impl Drawer {
    pub(super) fn new(weight: &[Decimal]) -> Drawer {
        let equal = weight.windows(2).all(|w| w[0] == w[1]);
        Drawer {
            index: (!equal).then(|| {
                WeightedIndex::new(weight.iter().map(|w| w.to_f64().unwrap_or(0.0)))
                    .expect("weights are checked: non-negative, some positive")
            }),
            n: weight.len(),
        }
    }

    pub(super) fn draw(&self, rng: &mut Pcg64Mcg) -> usize {
        match &self.index {
            Some(w) => w.sample(rng),
            None => rng.random_range(0..self.n),
        }
    }
}

/// Session costs as integers of [`SCALE`] decimals: per session, each
/// variant's lower and upper bound (columns 2v and 2v + 1).
pub(super) struct Periods<'a> {
    pub(super) units: Vec<i128>,
    pub(super) cols: usize,
    pub(super) weight: &'a [Decimal],
    pub(super) draw: &'a Drawer,
    pub(super) by_kind: Vec<Vec<usize>>,
    pub(super) seed: u64,
}

pub(super) fn to_units(d: Decimal) -> i128 {
    let r = d.round_dp(SCALE);
    r.mantissa() * 10i128.pow(SCALE - r.scale())
}

pub(super) fn from_units(u: i128) -> Decimal {
    Decimal::try_from_i128_with_scale(u, SCALE)
        .unwrap_or(Decimal::MAX)
        .normalize()
}

/// The 0-based position of the nearest-rank `p` percentile of `n` sorted
/// values: the ⌈p·n ÷ 100⌉-th (at least the first).
pub(super) fn nearest_rank(n: u64, p: u8) -> u64 {
    ((u128::from(p) * u128::from(n)).div_ceil(100) as u64).clamp(1, n) - 1
}

impl<'a> Periods<'a> {
    pub(super) fn new(
        rec: &Recorded,
        weight: &'a [Decimal],
        draw: &'a Drawer,
        seed: u64,
    ) -> Periods<'a> {
        let cols = rec.variants.len() * 2;
        let units = rec
            .sessions
            .iter()
            .flat_map(|s| {
                s.cost
                    .iter()
                    .flat_map(|b| [to_units(b.lower), to_units(b.upper)])
            })
            .collect();
        Periods {
            units,
            cols,
            weight,
            draw,
            by_kind: (0..rec.kinds.len())
                .map(|k| {
                    (0..rec.sessions.len())
                        .filter(|i| rec.sessions[*i].kind == k)
                        .collect()
                })
                .collect(),
            seed,
        }
    }

    /// The nearest-rank [`PERCENTILES`] of each column's totals over
    /// `count` periods of `runs` runs, exactly, in memory that does not
    /// grow with `count` ([`select`](super::select)).
    pub(super) fn simulate(
        &self,
        runs: u64,
        count: u64,
        stream: u64,
        drawer: &Drawer,
        ids: Option<&[usize]>,
    ) -> Vec<[i128; 3]> {
        let cols = self.cols;
        // Row-major: period j's column x at j × cols + x.
        let chunk = |c: u64| {
            let mut rng = Pcg64Mcg::seed_from_u64(seed_of(self.seed, stream, c));
            let size = CHUNK.min(count - c * CHUNK) as usize;
            let mut out = vec![0i128; size * cols];
            for row in out.chunks_mut(cols) {
                for _ in 0..runs {
                    let mut i = drawer.draw(&mut rng);
                    if let Some(ids) = ids {
                        i = ids[i];
                    }
                    let s = &self.units[i * cols..(i + 1) * cols];
                    for (t, v) in row.iter_mut().zip(s) {
                        *t += v;
                    }
                }
            }
            out
        };
        // A period of `runs` runs costs between `runs` times the cheapest
        // session and `runs` times the dearest.
        let times = i128::from(runs);
        let bounds: Vec<(i128, i128)> = (0..cols)
            .map(|x| {
                let col = self.units.iter().skip(x).step_by(cols);
                let (lo, hi) = (col.clone().min(), col.max());
                (
                    lo.map_or(0, |v| v.saturating_mul(times)),
                    hi.map_or(0, |v| v.saturating_mul(times)),
                )
            })
            .collect();
        let ranks = PERCENTILES.map(|p| nearest_rank(count, p));
        super::select::order_statistics(
            cols,
            count,
            count.div_ceil(CHUNK),
            &bounds,
            &ranks,
            super::select::COLLECT,
            chunk,
        )
        .into_iter()
        .map(|v| [v[0], v[1], v[2]])
        .collect()
    }

    /// Periods of `runs` runs, per variant: `count` simulated for the
    /// estimates, [`PERIOD_BOOTSTRAP`] resamples of `boot` each for the intervals.
    pub(super) fn period(
        &self,
        runs: u64,
        count: u64,
        boot: u64,
        means: &[Bounds],
        stream: u64,
    ) -> Vec<PeriodCost> {
        let main = self.simulate(runs, count, stream * 1000, self.draw, None);
        // The resamples side by side: each is seeded by its index.
        let boots: Vec<Vec<[i128; 3]>> = crate::par::map(0..PERIOD_BOOTSTRAP, |b| {
            let b = b as u64; // lossless: usize is at most 64 bits
            let mut rng = Pcg64Mcg::seed_from_u64(seed_of(self.seed, stream * 1000 + 1, b));
            let ids = &resample(&self.by_kind, &mut rng);
            // A stratified resample keeps every kind, so its weights are
            // all equal exactly when the sessions' are.
            let drawer = match self.draw.index {
                None => Drawer {
                    index: None,
                    n: ids.len(),
                },
                Some(_) => {
                    let w: Vec<Decimal> = ids.iter().map(|i| self.weight[*i]).collect();
                    Drawer::new(&w)
                }
            };
            self.simulate(runs, boot, stream * 1000 + 2 + b, &drawer, Some(ids))
        });
        means
            .iter()
            .enumerate()
            .map(|(v, mean)| {
                let percentiles = PERCENTILES
                    .iter()
                    .enumerate()
                    .map(|(j, p)| {
                        let est = |x: usize| {
                            let mut col: Vec<i128> = boots.iter().map(|b| b[x][j]).collect();
                            col.sort_unstable();
                            let (lo, hi) = interval_of(&col);
                            Estimate {
                                value: from_units(main[x][j]),
                                low: Some(from_units(lo)),
                                high: Some(from_units(hi)),
                            }
                        };
                        Percentile {
                            percentile: *p,
                            lower: est(2 * v),
                            upper: est(2 * v + 1),
                        }
                    })
                    .collect();
                PeriodCost {
                    runs,
                    mean: *mean * Decimal::from(runs),
                    percentiles,
                }
            })
            .collect()
    }
}
