//! `tokencast forecast` over a corpus: many recorded sessions (scenarios, or
//! directories of imported sessions), each replayed by the engine once.
//!
//! **Sampling.** A run is one whole recorded session, drawn by the mix:
//! by default every recorded session is equally likely (the recorded mix);
//! `--weights` gives each kind (each path on the command line) a share,
//! split evenly among its sessions. Whole sessions keep what a session is
//! (its length, its tools, its cache pattern) together; drawing calls
//! across sessions would mix a short lookup's results into a long research
//! run. The cost of a run is therefore one of the recorded sessions' costs.
//!
//! **Per run.** Percentiles are nearest-rank (the smallest session cost
//! whose cumulative share reaches p), exact decimals. Their 95 % intervals:
//! with the recorded mix, distribution-free order statistics
//! ([`super::confidence::ranks`]); with weights, a stratified percentile
//! bootstrap ([`BOOTSTRAP`] resamples of each kind's sessions). A p99
//! budget at 95 % confidence (one-sided) needs 299 independent runs; the
//! document says how many it has. Under weights it is the largest of the
//! drawn kinds' bounds, each at 1 − 5 % ÷ K, which holds for the mix.
//!
//! **Per day and month.** A day is `runs_per_day` runs, a month
//! `runs_per_day × working days a week × 52 ÷ 12` (rounded) runs, each drawn
//! independently. Their percentiles come from simulated days and months
//! (nearest rank, session costs summed exactly at 10⁻¹² of the currency),
//! found without keeping the periods, so memory does not grow with their
//! number (module `select`: the draws are made again, window by window);
//! their intervals from [`PERIOD_BOOTSTRAP`] stratified resamples of the
//! sessions, each simulating [`BOOT_DAYS`] days and [`BOOT_MONTHS`] months.
//!
//! Draws are split into chunks seeded from `--seed` and the chunk index, so
//! the same seed gives the same output on any number of threads.

use super::confidence;
pub use crate::document::corpus::{
    CorpusForecast, CorpusVariant, Estimate, KindShare, Percentile, PeriodCost, SessionCost,
};
use crate::engine::Bounds;
use crate::error::InputError;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rust_decimal::Decimal;
mod periods;
mod select;
use periods::{seed_of, Drawer, Periods};

/// Bootstrap resamples for the per-run intervals under weights.
pub const BOOTSTRAP: usize = 1000;
/// Bootstrap resamples for the per-day and per-month intervals.
pub const PERIOD_BOOTSTRAP: usize = 100;
/// Days each period resample simulates.
pub const BOOT_DAYS: u64 = 1000;
/// Months each period resample simulates.
pub const BOOT_MONTHS: u64 = 200;
/// Days per chunk of parallel, separately seeded work.
const CHUNK: u64 = 4096;
/// Percentiles reported.
pub const PERCENTILES: [u8; 3] = [50, 90, 99];
/// Confidence of every interval.
pub const LEVEL: f64 = 0.95;
/// Session costs are summed as integers of this many decimals.
const SCALE: u32 = 12;

/// The corpus: kinds, the variants every session has, and the sessions.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Recorded {
    /// Kind names (one per path given).
    pub kinds: Vec<String>,
    /// Variant names, in the first session's order.
    pub variants: Vec<String>,
    /// Sessions.
    pub sessions: Vec<SessionCost>,
}

/// A corpus as a forecast's document tells of it: the sessions' costs,
/// and where they came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Corpus {
    /// Kinds, variants and session costs.
    pub recorded: Recorded,
    /// Variants some sessions lack, left out.
    pub left_out: Vec<String>,
    /// The currency every session is priced in.
    pub currency: crate::pricing::Currency,
    /// The first scenario's price date.
    pub price_date: Option<crate::scenario::PriceDate>,
    /// Every input file, once.
    pub inputs: Vec<crate::scenario::InputFile>,
    /// Sessions left out, and why.
    pub sessions_left_out: Vec<String>,
}

impl Corpus {
    /// The forecast of `spec` over the corpus, its document complete.
    pub fn forecast(&self, spec: &CorpusSpec) -> CorpusForecast {
        let title = self.recorded.kinds.join(" + ");
        let mut doc = forecast(&self.recorded, spec, title, self.left_out.clone());
        doc.currency = self.currency.clone();
        doc.price_date = self.price_date.clone();
        doc.inputs = self.inputs.clone();
        doc.sessions_left_out = self.sessions_left_out.clone();
        doc
    }
}

/// What to forecast.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CorpusSpec {
    /// Share per kind (any non-negative numbers; normalised); `None`: the recorded mix.
    pub weights: Option<Vec<Decimal>>,
    /// Runs a day: the team's, or each person's when `team_size` is more
    /// than one.
    pub runs_per_day: u64,
    /// People who each start `runs_per_day` runs a day: a day is
    /// [`CorpusSpec::runs_a_day`] runs.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub team_size: u64,
    /// Working days a week (1–7).
    pub working_days_per_week: u64,
    /// Simulated days (months: a tenth as many).
    pub days: u64,
    /// Seed.
    pub seed: u64,
}

impl CorpusSpec {
    /// A forecast of `days` days of `runs_per_day` runs on
    /// `working_days_per_week` days a week from `seed`, in the recorded mix;
    /// or what is out of range, named by the command line's option.
    pub fn checked(
        days: u64,
        runs_per_day: u64,
        working_days_per_week: u64,
        seed: u64,
    ) -> Result<CorpusSpec, InputError> {
        use crate::limits::{MAX_CORPUS_RUNS_PER_DAY, MAX_RUNS, MAX_SESSION_DRAWS};
        if days == 0 || days > MAX_RUNS {
            return Err(InputError::new(format!("--runs {days} days"))
                .with_help(format!("simulate 1 to {MAX_RUNS} days, e.g. --runs 100000")));
        }
        if runs_per_day == 0 || runs_per_day > MAX_CORPUS_RUNS_PER_DAY {
            return Err(InputError::new(format!("--runs-per-day {runs_per_day}"))
                .with_help(format!("give 1 to {MAX_CORPUS_RUNS_PER_DAY} runs a day")));
        }
        if !(1..=7).contains(&working_days_per_week) {
            return Err(
                InputError::new(format!("--working-days {working_days_per_week}"))
                    .with_help("give the days a week the agent runs, 1 to 7"),
            );
        }
        let spec = CorpusSpec {
            weights: None,
            runs_per_day,
            team_size: 1,
            working_days_per_week,
            days,
            seed,
        };
        let draws = spec.draws();
        if draws > MAX_SESSION_DRAWS {
            return Err(InputError::new(format!(
                "--runs {days} days of {runs_per_day} runs, their months and resamples are {draws} session draws, more than {MAX_SESSION_DRAWS}"
            ))
            .with_help("simulate fewer days (--runs); percentiles of days settle within a few thousand"));
        }
        Ok(spec)
    }

    /// The spec with `team_size` people each starting its runs a day, or
    /// what is out of range, named by the command line's option.
    pub fn with_team(self, team_size: u64) -> Result<CorpusSpec, InputError> {
        use crate::limits::MAX_CORPUS_RUNS_PER_DAY;
        let total = self.runs_per_day.checked_mul(team_size);
        if team_size == 0 || total.is_none_or(|t| t > MAX_CORPUS_RUNS_PER_DAY) {
            return Err(InputError::new(format!(
                "--team-size {team_size} (of {} runs a day each)",
                self.runs_per_day
            ))
            .with_help(format!(
                "give 1 or more people, whose runs a day together are at most {MAX_CORPUS_RUNS_PER_DAY}"
            )));
        }
        let (days, runs) = (self.days, total.unwrap_or(0));
        let spec = CorpusSpec { team_size, ..self };
        let draws = spec.draws();
        if draws > crate::limits::MAX_SESSION_DRAWS {
            return Err(InputError::new(format!(
                "--runs {days} days of {runs} runs, their months and resamples are {draws} session draws, more than {}",
                crate::limits::MAX_SESSION_DRAWS
            ))
            .with_help("simulate fewer days (--runs); percentiles of days settle within a few thousand"));
        }
        Ok(spec)
    }

    /// The runs a day the forecast draws: each person's times the team's size.
    pub fn runs_a_day(&self) -> u64 {
        self.runs_per_day.saturating_mul(self.team_size)
    }

    /// Runs in a month: runs a day × working days × 52 ÷ 12, rounded.
    pub fn runs_per_month(&self) -> u64 {
        let runs = u128::from(self.runs_a_day()) * u128::from(self.working_days_per_week) * 52;
        ((runs + 6) / 12) as u64
    }

    /// Simulated months.
    pub fn months(&self) -> u64 {
        (self.days / 10).max(1)
    }

    /// Sessions drawn in all, per forecast (days, months and their resamples).
    pub fn draws(&self) -> u64 {
        let (d, m) = (self.runs_a_day(), self.runs_per_month());
        let main = self.days.saturating_mul(d) + self.months().saturating_mul(m);
        let boot = (PERIOD_BOOTSTRAP as u64).saturating_mul(BOOT_DAYS * d + BOOT_MONTHS * m);
        main.saturating_add(boot)
    }
}

/// How sessions are drawn: the sessions of each kind, each kind's share
/// (as exact decimals) and each session's weight.
struct Mix {
    per_kind: Vec<u64>,
    kind_share: Vec<Decimal>,
    weight: Vec<Decimal>,
}

impl Mix {
    fn of(rec: &Recorded, spec: &CorpusSpec) -> Mix {
        let n = rec.sessions.len();
        let per_kind: Vec<u64> = (0..rec.kinds.len())
            .map(|k| rec.sessions.iter().filter(|s| s.kind == k).count() as u64)
            .collect();
        let kind_share: Vec<Decimal> = match &spec.weights {
            Some(w) => {
                let total: Decimal = w.iter().sum();
                w.iter().map(|x| *x / total).collect()
            }
            None => per_kind
                .iter()
                .map(|c| Decimal::from(*c) / Decimal::from(n as u64))
                .collect(),
        };
        let weight: Vec<Decimal> = rec
            .sessions
            .iter()
            .map(|s| kind_share[s.kind] / Decimal::from(per_kind[s.kind]))
            .collect();
        Mix {
            per_kind,
            kind_share,
            weight,
        }
    }

    /// Each kind's sessions, recorded share and drawn share.
    fn kinds(&self, rec: &Recorded) -> Vec<KindShare> {
        let n = Decimal::from(rec.sessions.len() as u64);
        rec.kinds
            .iter()
            .enumerate()
            .map(|(k, name)| KindShare {
                kind: name.clone(),
                sessions: self.per_kind[k],
                recorded_share: (Decimal::from(self.per_kind[k]) / n)
                    .round_dp(4)
                    .normalize(),
                share: self.kind_share[k].round_dp(4).normalize(),
            })
            .collect()
    }
}

/// Variant `v` per run: its mean and percentiles, its most expensive
/// session, and the p99 budget.
fn run_of(
    rec: &Recorded,
    spec: &CorpusSpec,
    mix: &Mix,
    v: usize,
) -> (PeriodCost, Bounds, Option<Decimal>) {
    let costs: [Vec<Decimal>; 2] = [0, 1].map(|b| {
        rec.sessions
            .iter()
            .map(|s| {
                if b == 0 {
                    s.cost[v].lower
                } else {
                    s.cost[v].upper
                }
            })
            .collect()
    });
    let shares: Vec<Decimal> = match &spec.weights {
        Some(w) => w.clone(),
        None => mix.per_kind.iter().map(|c| Decimal::from(*c)).collect(),
    };
    let mean = Bounds {
        lower: mix_mean(&costs[0], rec, &mix.per_kind, &shares),
        upper: mix_mean(&costs[1], rec, &mix.per_kind, &shares),
    };
    let (lo, _) = per_run(&costs[0], &mix.weight, rec, spec);
    let (hi, budget) = per_run(&costs[1], &mix.weight, rec, spec);
    let max = Bounds {
        lower: costs[0].iter().copied().max().unwrap_or_default(),
        upper: costs[1].iter().copied().max().unwrap_or_default(),
    };
    (
        PeriodCost {
            runs: 1,
            mean,
            percentiles: zip_percentiles(lo, hi),
        },
        max,
        budget,
    )
}

/// How sessions are drawn and how percentiles are stated, in words.
fn sampling_and_method(spec: &CorpusSpec, n: usize) -> (String, String) {
    let sampling = format!(
        "whole sessions: a run is one of the {n} recorded sessions, drawn {}",
        if spec.weights.is_some() {
            "by the --weights share of its kind, split evenly among the kind's sessions"
        } else {
            "with equal chance (the recorded mix)"
        }
    );
    let method = format!(
        "percentiles are nearest-rank; 95 % intervals per run: {}; per day and month: {PERIOD_BOOTSTRAP} stratified bootstrap resamples of the sessions, {BOOT_DAYS} days and {BOOT_MONTHS} months each",
        if spec.weights.is_some() {
            format!("{BOOTSTRAP} stratified bootstrap resamples of the sessions (percentile method)")
        } else {
            "distribution-free order statistics".to_string()
        }
    );
    (sampling, method)
}

/// The forecast. `weights`, when given, has one entry per kind.
pub fn forecast(
    rec: &Recorded,
    spec: &CorpusSpec,
    title: String,
    left_out: Vec<String>,
) -> CorpusForecast {
    let n = rec.sessions.len();
    let mix = Mix::of(rec, spec);
    let draw = Drawer::new(&mix.weight);
    // Each variant's per-run figures on their own (sorting a million
    // sessions' costs twice each), in parallel.
    let runs: Vec<(PeriodCost, Bounds, Option<Decimal>)> =
        crate::par::map(0..rec.variants.len(), |v| run_of(rec, spec, &mix, v));
    let means: Vec<Bounds> = runs.iter().map(|r| r.0.mean).collect();
    let periods = Periods::new(rec, &mix.weight, &draw, spec.seed);
    let days = periods.period(spec.runs_a_day(), spec.days, BOOT_DAYS, &means, 1);
    let months = periods.period(spec.runs_per_month(), spec.months(), BOOT_MONTHS, &means, 2);
    let variants = rec
        .variants
        .iter()
        .zip(runs)
        .zip(days.into_iter().zip(months))
        .map(
            |((name, (run, max, p99_budget)), (day, month))| CorpusVariant {
                name: name.clone(),
                run,
                p99_budget,
                max,
                day,
                month,
            },
        )
        .collect();
    let (sampling, method) = sampling_and_method(spec, n);
    let mut doc = CorpusForecast {
        answer: None,
        title,
        currency: Default::default(),
        price_date: None,
        sampling,
        method,
        sessions: n as u64,
        kinds: mix.kinds(rec),
        weighted: spec.weights.is_some(),
        level: LEVEL,
        needed_for_p99: confidence::runs_needed(0.99, LEVEL),
        needed_per_kind_for_p99: spec.weights.is_some().then(|| needed_per_kind(rec, spec)),
        variants_left_out: left_out,
        sessions_left_out: Vec::new(),
        runs_per_day: spec.runs_a_day(),
        working_days_per_week: spec.working_days_per_week,
        days: spec.days,
        months: spec.months(),
        seed: spec.seed,
        variants,
        recorded: rec.sessions.clone(),
        inputs: Vec::new(),
    };
    doc.answer = crate::document::answer::CorpusAnswer::of(&doc);
    doc
}

fn zip_percentiles(lo: Vec<Estimate>, hi: Vec<Estimate>) -> Vec<Percentile> {
    PERCENTILES
        .iter()
        .zip(lo.into_iter().zip(hi))
        .map(|(p, (lower, upper))| Percentile {
            percentile: *p,
            lower,
            upper,
        })
        .collect()
}

/// The mix's mean, with one division per kind (Σ share × kind sum ÷ kind
/// count), so that it is exact whenever each kind's mean is.
fn mix_mean(costs: &[Decimal], rec: &Recorded, per_kind: &[u64], shares: &[Decimal]) -> Decimal {
    let total: Decimal = shares.iter().sum();
    (0..rec.kinds.len())
        .filter(|k| per_kind[*k] > 0 && !shares[*k].is_zero())
        .map(|k| {
            let sum: Decimal = rec
                .sessions
                .iter()
                .zip(costs)
                .filter(|(s, _)| s.kind == k)
                .map(|(_, c)| *c)
                .sum();
            sum * shares[k] / (Decimal::from(per_kind[k]) * total)
        })
        .sum::<Decimal>()
        .normalize()
}

/// The nearest-rank `p` quantile of `values` under `weight`: the smallest
/// value whose cumulative weight reaches p × the total.
pub fn quantile(values: &[Decimal], weight: &[Decimal], p: u8) -> Decimal {
    quantiles(values, &ascending(values), weight, [p])[0]
}

/// The indices of `values`, smallest value first (ties: by index). Values
/// are compared as integers at their largest scale where every value
/// holds it exactly (a million sessions sort in milliseconds), else as
/// decimals.
pub fn ascending(values: &[Decimal]) -> Vec<usize> {
    let scale = values.iter().map(|d| d.scale()).max().unwrap_or(0);
    // m × 10^(scale − its scale): exact, or None where i128 cannot hold it.
    let keys: Option<Vec<i128>> = values
        .iter()
        .map(|d| {
            10i128
                .checked_pow(scale - d.scale())
                .and_then(|f| d.mantissa().checked_mul(f))
        })
        .collect();
    let mut order: Vec<usize> = (0..values.len()).collect();
    match keys {
        Some(k) => order.sort_unstable_by_key(|i| (k[*i], *i)),
        None => order.sort_by(|a, b| values[*a].cmp(&values[*b]).then(a.cmp(b))),
    }
    order
}

/// [`quantile`] at each of `ps`, from the order [`ascending`] gave.
fn quantiles<const N: usize>(
    values: &[Decimal],
    order: &[usize],
    weight: &[Decimal],
    ps: [u8; N],
) -> [Decimal; N] {
    let positive = || order.iter().copied().filter(|i| weight[*i] > Decimal::ZERO);
    let total: Decimal = positive().map(|i| weight[i]).sum();
    let targets = ps.map(|p| total * Decimal::from(p) / Decimal::ONE_HUNDRED);
    let last = positive().next_back().map_or(Decimal::ZERO, |i| values[i]);
    let mut out = [last; N];
    let mut found = [false; N];
    // One walk for every p: the first value whose cumulative weight reaches each target.
    let mut cum = Decimal::ZERO;
    let mut left = N;
    for i in positive() {
        if left == 0 {
            break;
        }
        cum += weight[i];
        for (k, t) in targets.iter().enumerate() {
            if !found[k] && cum >= *t {
                found[k] = true;
                out[k] = values[i];
                left -= 1;
            }
        }
    }
    out
}

/// Per-run percentiles of one bound, with their intervals, and the
/// one-sided p99 budget bound.
fn per_run(
    costs: &[Decimal],
    weight: &[Decimal],
    rec: &Recorded,
    spec: &CorpusSpec,
) -> (Vec<Estimate>, Option<Decimal>) {
    let order = ascending(costs);
    let values: Vec<Estimate> = quantiles(costs, &order, weight, PERCENTILES)
        .into_iter()
        .map(|value| Estimate {
            value,
            low: None,
            high: None,
        })
        .collect();
    if spec.weights.is_none() {
        let sorted: Vec<Decimal> = order.iter().map(|i| costs[*i]).collect();
        let n = sorted.len() as u64;
        let budget = confidence::upper_rank(n, 0.99, LEVEL).map(|r| sorted[r as usize - 1]);
        let stated = values
            .into_iter()
            .zip(PERCENTILES)
            .map(|(mut e, p)| {
                let (l, u) = confidence::ranks(n, f64::from(p) / 100.0, LEVEL);
                e.low = l.map(|r| sorted[r as usize - 1]);
                e.high = u.map(|r| sorted[r as usize - 1]);
                e
            })
            .collect();
        return (stated, budget);
    }
    // Stratified bootstrap: each resample redraws every kind's sessions.
    let by_kind: Vec<Vec<usize>> = (0..rec.kinds.len())
        .map(|k| {
            (0..rec.sessions.len())
                .filter(|i| rec.sessions[*i].kind == k)
                .collect()
        })
        .collect();
    let estimates: Vec<[Decimal; 3]> = crate::par::map(0..BOOTSTRAP, |b| {
        let mut rng = Pcg64Mcg::seed_from_u64(seed_of(spec.seed, 1, b as u64));
        let idx = resample(&by_kind, &mut rng);
        let c: Vec<Decimal> = idx.iter().map(|i| costs[*i]).collect();
        let w: Vec<Decimal> = idx.iter().map(|i| weight[*i]).collect();
        quantiles(&c, &ascending(&c), &w, PERCENTILES)
    });
    let budget = mixture_p99_bound(costs, rec, spec);
    let stated = values
        .into_iter()
        .enumerate()
        .map(|(j, mut e)| {
            let mut col: Vec<Decimal> = estimates.iter().map(|x| x[j]).collect();
            col.sort();
            let (lo, hi) = interval_of(&col);
            e.low = Some(lo);
            e.high = Some(hi);
            e
        })
        .collect();
    (stated, budget)
}

/// Kinds drawn under the weights (share above 0).
fn drawn_kinds(rec: &Recorded, spec: &CorpusSpec) -> Vec<usize> {
    (0..rec.kinds.len())
        .filter(|k| spec.weights.as_ref().is_none_or(|w| !w[*k].is_zero()))
        .collect()
}

/// Runs each drawn kind needs for the weighted p99 budget: a one-sided
/// bound at 1 − 5 % ÷ K for each of the K drawn kinds.
pub fn needed_per_kind(rec: &Recorded, spec: &CorpusSpec) -> u64 {
    let k = drawn_kinds(rec, spec).len().max(1) as f64;
    confidence::runs_needed(0.99, 1.0 - (1.0 - LEVEL) / k)
}

/// A one-sided bound for the p99 of a weighted mix: the mix's p99 is at
/// most the largest of its kinds' p99s (F = Σ w F_k reaches 0.99 where
/// every F_k does), and each kind's one-sided bound at 1 − 5 % ÷ K holds
/// for all K kinds at once with at least 95 % (Bonferroni).
fn mixture_p99_bound(costs: &[Decimal], rec: &Recorded, spec: &CorpusSpec) -> Option<Decimal> {
    let kinds = drawn_kinds(rec, spec);
    let level = 1.0 - (1.0 - LEVEL) / kinds.len().max(1) as f64;
    kinds
        .iter()
        .map(|k| {
            let mut c: Vec<Decimal> = rec
                .sessions
                .iter()
                .zip(costs)
                .filter(|(s, _)| s.kind == *k)
                .map(|(_, c)| *c)
                .collect();
            c.sort();
            confidence::upper_rank(c.len() as u64, 0.99, level).map(|r| c[r as usize - 1])
        })
        .collect::<Option<Vec<Decimal>>>()?
        .into_iter()
        .max()
}

/// The 2.5th and 97.5th nearest-rank percentiles of sorted estimates.
fn interval_of<T: Copy>(sorted: &[T]) -> (T, T) {
    let n = sorted.len();
    let at = |q: f64| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
    let tail = (1.0 - LEVEL) / 2.0;
    (at(tail), at(1.0 - tail))
}

/// Session indices of one stratified resample (each kind keeps its count).
fn resample(by_kind: &[Vec<usize>], rng: &mut Pcg64Mcg) -> Vec<usize> {
    let mut out = Vec::with_capacity(by_kind.iter().map(Vec::len).sum());
    for ids in by_kind {
        let n = ids.len();
        match (ids.first(), ids.last()) {
            // A kind's sessions are usually one run of indices: the draw is
            // the index, without a random read of the list.
            (Some(&first), Some(&last)) if last - first + 1 == n => {
                out.extend((0..n).map(|_| first + rng.random_range(0..n)));
            }
            _ => out.extend((0..n).map(|_| ids[rng.random_range(0..n)])),
        }
    }
    out
}

#[cfg(test)]
mod tests;

fn one() -> u64 {
    1
}

fn is_one(v: &u64) -> bool {
    *v == 1
}
