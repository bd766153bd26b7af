//! `tokencast forecast`: longer runs drawn from the recorded distributions.
//!
//! A recorded run is one sample. The forecast draws R runs of N tool results:
//! for each result a capability (by the recorded mix), a number of items (from
//! that capability's recorded calls), and bytes per item, raw and trimmed
//! (as a pair, from one recorded call with results). `--method lognormal`
//! instead fits a log-normal per capability by maximum likelihood (the mean
//! and the population standard deviation of the logarithms) to items and to
//! bytes per item, with the recorded share of empty responses kept.
//!
//! Every run is replayed with the engine's own integer arithmetic
//! ([`crate::engine`]'s replay); costs are exact integers until they enter the
//! statistics. Percentiles stream into DDSketch quantile sketches (relative
//! accuracy 0.1 %, rank ⌊q·(n−1)⌋, clamped to the exact minimum and maximum),
//! so memory does not grow with R. Runs are split into fixed chunks, each with
//! its own seed derived from `--seed`, and merged in chunk order: the same
//! seed gives the same output on any number of threads.

pub use crate::document::forecast::{
    Bound, CapabilityFit, ContextForecast, FanPoint, FanQuantiles, Fit, Forecast, Method,
    Quantiles, VariantForecast,
};
use crate::engine::replay::{IntegerRates, PlainSums, Run, Scale, Tally};
use crate::error::InputError;
use crate::scenario::content::units as units_of;
use crate::scenario::{Content, Scenario, TraceCall};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use sketches_ddsketch::DDSketch;
use statrs::distribution::LogNormal;
use std::sync::atomic::{AtomicBool, Ordering};
mod accumulate;
use accumulate::{add_exact, estimate, quantiles, widen, Acc, Pending};

/// Runs per chunk: the unit of parallel work and of seeding.
pub const CHUNK: u64 = 8192;
/// Relative accuracy of the quantile sketches.
pub const SKETCH_ACCURACY: f64 = 0.001;
/// Histogram bins per variant.
pub const BINS: usize = 40;
/// Percentiles reported.
pub const PERCENTILES: [f64; 3] = [0.50, 0.90, 0.99];
/// Points of the context fan (numbers of calls).
pub const FAN_POINTS: u64 = 10;

/// Draws of a `[trace.generate]` run a forecast samples from: 1,000 draws
/// of the described run, from the forecast's seed.
pub const PLANNED_DRAWS: u64 = 1000;

/// What to forecast.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ForecastSpec {
    /// Tool results per run (N).
    pub calls: u64,
    /// Runs (R).
    pub runs: u64,
    /// Seed.
    pub seed: u64,
    /// Sampling method.
    pub method: Method,
    /// A budget per run in USD, if given.
    pub budget: Option<Decimal>,
}

/// Why a forecast did not finish.
#[derive(Debug)]
pub enum ForecastError {
    /// Bad parameters or data.
    Input(InputError),
    /// Ctrl-C.
    Interrupted,
}

/// The sampler a forecast of `s` draws from: its trace's calls, or for a
/// run described by distributions, [`PLANNED_DRAWS`] draws of it. The flag
/// says whether it was drawn.
pub fn sampler_for(s: &Scenario, spec: &ForecastSpec) -> Result<(Sampler, bool), InputError> {
    let planned = s.plan().map(|p| p.draws(PLANNED_DRAWS, spec.seed));
    let sampler = Sampler::new(planned.as_deref().unwrap_or(s.trace()), spec.method)?;
    Ok((sampler, planned.is_some()))
}

impl From<InputError> for ForecastError {
    fn from(e: InputError) -> Self {
        ForecastError::Input(e)
    }
}

/// One recorded call, reduced to what sampling needs.
#[derive(Debug, Clone, Copy)]
struct Recorded {
    items: u64,
    raw: u64,
    trimmed: u64,
    latency_ms: u64,
    /// `items`, `raw` and `trimmed` as `f64` (the same values the casts in
    /// a draw give): a bootstrap draw scales by them, and an unsigned
    /// 64-bit integer takes six instructions to convert (a third of a
    /// draw's time when each draw converted four).
    as_f64: [f64; 3],
}

impl Recorded {
    fn new(items: u64, raw: u64, trimmed: u64, latency_ms: u64) -> Recorded {
        Recorded {
            items,
            raw,
            trimmed,
            latency_ms,
            as_f64: [items as f64, raw as f64, trimmed as f64],
        }
    }
}

impl Fit {
    fn of(values: impl Iterator<Item = f64>) -> Option<Fit> {
        let logs: Vec<f64> = values.filter(|v| *v > 0.0).map(f64::ln).collect();
        if logs.is_empty() {
            return None;
        }
        let n = logs.len() as f64;
        let mu = logs.iter().sum::<f64>() / n;
        let var = logs.iter().map(|l| (l - mu).powi(2)).sum::<f64>() / n;
        Some(Fit {
            mu,
            sigma: var.sqrt(),
        })
    }

    fn sample(&self, rng: &mut Pcg64Mcg) -> f64 {
        if self.sigma <= 0.0 {
            return self.mu.exp();
        }
        match LogNormal::new(self.mu, self.sigma) {
            Ok(d) => rand::distr::Distribution::sample(&d, rng),
            Err(_) => self.mu.exp(),
        }
    }
}

/// One capability's recorded data and fits.
#[derive(Debug, Clone)]
struct Capability {
    name: String,
    /// What its results hold (its first recorded result's kind), for a
    /// scenario that weighs its content.
    kind: crate::scenario::content::ContentKind,
    calls: Vec<Recorded>,
    with_items: Vec<Recorded>,
    empty: Vec<Recorded>,
    items: Option<Fit>,
    raw_per_item: Option<Fit>,
    trimmed_per_item: Option<Fit>,
    latency: Option<Fit>,
    /// Every bootstrap draw's sizes, raw and trimmed, by the drawn call and
    /// the drawn call with results (`calls.len()` × `with_items.len()`
    /// pairs, the call's index first), when there are at most
    /// [`PAIRS_AT_MOST`]: a draw looks its sizes up instead of scaling
    /// (two divisions and their rounding, half a draw's time).
    pairs: Option<Box<[(u64, u64)]>>,
}

/// The most pairs a capability's [`Capability::pairs`] table holds (1 MB):
/// a trace's capabilities, or a planned run's [`PLANNED_DRAWS`], have
/// fewer; an imported corpus's busiest tools may not, and are scaled at
/// each draw.
const PAIRS_AT_MOST: usize = 1 << 16;

/// The most pairs the tables of a sampler's capabilities hold together
/// (4 MB), in the capabilities' order: past it, a capability is scaled at
/// each draw.
const ALL_PAIRS_AT_MOST: usize = 1 << 18;

/// A bootstrap draw's sizes, raw and trimmed: the drawn `call`'s items
/// times the bytes per item of the drawn call with results, `per`.
#[inline(always)]
fn scaled(call: &Recorded, per: &Recorded) -> (u64, u64) {
    let ([items, _, _], [per_items, raw, trimmed]) = (call.as_f64, per.as_f64);
    let raw = round_u64(items * raw / per_items);
    let trimmed = round_u64(items * trimmed / per_items);
    (raw, trimmed.min(raw))
}

/// `rng.random_range(0..len)`, the same draw, inlined: `random_range`
/// checks the range at its caller's place, which keeps it from being
/// inlined (a call each draw, three a drawn result). `len` is at least 1
/// here (a sampler has results, a capability calls, a drawn call with
/// items a call with results to scale by).
#[inline(always)]
fn index(rng: &mut Pcg64Mcg, len: usize) -> usize {
    use rand::distr::uniform::{SampleUniform, UniformSampler};
    <usize as SampleUniform>::Sampler::sample_single(0, len, rng).unwrap_or(0)
}

/// The recorded distributions of a scenario's trace.
#[derive(Debug, Clone)]
pub struct Sampler {
    caps: Vec<Capability>,
    /// Capability index of every recorded result: drawing uniformly gives the mix.
    mix: Vec<usize>,
    method: Method,
}

impl Sampler {
    /// Builds the distributions from the trace's successful, non-replayed calls.
    pub fn new(trace: &[TraceCall], method: Method) -> Result<Sampler, InputError> {
        let mut caps: Vec<Capability> = Vec::new();
        let mut mix = Vec::new();
        for c in trace.iter().filter(|c| c.enters_context()) {
            let r = Recorded::new(
                c.items,
                c.raw_bytes.unwrap_or(0),
                c.trimmed_bytes.unwrap_or(0),
                c.latency_ms,
            );
            let i = match caps.iter().position(|k| *k.name == *c.capability) {
                Some(i) => i,
                None => {
                    caps.push(Capability {
                        name: c.capability.to_string(),
                        kind: c.content_kind(),
                        calls: Vec::new(),
                        with_items: Vec::new(),
                        empty: Vec::new(),
                        items: None,
                        raw_per_item: None,
                        trimmed_per_item: None,
                        latency: None,
                        pairs: None,
                    });
                    caps.len() - 1
                }
            };
            caps[i].calls.push(r);
            if r.items > 0 {
                caps[i].with_items.push(r);
            } else {
                caps[i].empty.push(r);
            }
            mix.push(i);
        }
        let mut pairs_left = ALL_PAIRS_AT_MOST;
        for cap in &mut caps {
            let per =
                |get: fn(&Recorded) -> u64| move |r: &Recorded| get(r) as f64 / r.items as f64;
            cap.items = Fit::of(cap.with_items.iter().map(|r| r.items as f64));
            cap.raw_per_item = Fit::of(cap.with_items.iter().map(per(|r| r.raw)));
            cap.trimmed_per_item = Fit::of(cap.with_items.iter().map(per(|r| r.trimmed)));
            cap.latency = Fit::of(cap.calls.iter().map(|r| r.latency_ms as f64));
            let pairs = cap.calls.len().saturating_mul(cap.with_items.len());
            if method == Method::Bootstrap && pairs <= PAIRS_AT_MOST.min(pairs_left) {
                pairs_left -= pairs;
                let with_items = &cap.with_items;
                cap.pairs = Some(
                    cap.calls
                        .iter()
                        .flat_map(|call| with_items.iter().map(move |per| scaled(call, per)))
                        .collect(),
                );
            }
        }
        if mix.is_empty() {
            return Err(
                InputError::new("the trace has no successful call to draw from").with_help(
                    "a forecast needs at least one row with a 2xx status and replayed = false",
                ),
            );
        }
        Ok(Sampler { caps, mix, method })
    }

    /// The recorded capabilities, in order of first appearance.
    pub fn capabilities(&self) -> impl Iterator<Item = &str> {
        self.caps.iter().map(|c| c.name.as_str())
    }

    /// Restricts the mix to the named capabilities (all of them when none is
    /// named). Names must be among [`Sampler::capabilities`].
    pub fn only(mut self, names: &[String]) -> Sampler {
        if names.is_empty() {
            return self;
        }
        let keep: Vec<usize> = names
            .iter()
            .filter_map(|n| self.caps.iter().position(|c| &c.name == n))
            .collect();
        self.mix.retain(|i| keep.contains(i));
        self
    }

    /// The fits, for the report.
    pub fn fits(&self) -> Vec<CapabilityFit> {
        self.caps
            .iter()
            .enumerate()
            .filter(|(i, _)| self.mix.contains(i))
            .map(|(i, c)| CapabilityFit {
                capability: c.name.clone(),
                share: self.mix.iter().filter(|m| **m == i).count() as f64 / self.mix.len() as f64,
                calls: c.calls.len() as u64,
                items: c.items,
                raw_bytes_per_item: c.raw_per_item,
                trimmed_bytes_per_item: c.trimmed_per_item,
            })
            .collect()
    }

    /// Draws one tool result: (raw bytes, trimmed bytes, latency ms).
    pub fn draw(&self, rng: &mut Pcg64Mcg) -> (u64, u64, u64) {
        let (raw, trimmed, latency, _) = self.draw_kind(rng);
        (raw, trimmed, latency)
    }

    /// [`Sampler::draw`], with the kind of content the drawn result holds.
    #[inline]
    pub fn draw_kind(
        &self,
        rng: &mut Pcg64Mcg,
    ) -> (u64, u64, u64, crate::scenario::content::ContentKind) {
        let cap = &self.caps[self.mix[index(rng, self.mix.len())]];
        let (raw, trimmed, latency) = Self::draw_of(cap, self.method, rng);
        (raw, trimmed, latency, cap.kind)
    }

    #[inline(always)]
    fn draw_of(cap: &Capability, method: Method, rng: &mut Pcg64Mcg) -> (u64, u64, u64) {
        match method {
            Method::Bootstrap => {
                let i = index(rng, cap.calls.len());
                let call = &cap.calls[i];
                if call.items == 0 || cap.with_items.is_empty() {
                    return (call.raw, call.trimmed, call.latency_ms);
                }
                let j = index(rng, cap.with_items.len());
                let (raw, trimmed) = match &cap.pairs {
                    Some(pairs) => pairs[i * cap.with_items.len() + j],
                    None => scaled(call, &cap.with_items[j]),
                };
                (raw, trimmed, call.latency_ms)
            }
            Method::Lognormal => {
                let latency = cap.latency.map_or(0.0, |f| f.sample(rng)).round() as u64;
                let empty_share = cap.empty.len() as f64 / cap.calls.len() as f64;
                if cap.with_items.is_empty() || rng.random::<f64>() < empty_share {
                    let e = cap.empty[rng.random_range(0..cap.empty.len())];
                    return (e.raw, e.trimmed, latency);
                }
                let items = cap.items.map_or(1.0, |f| f.sample(rng)).round().max(1.0);
                let raw = (items * cap.raw_per_item.map_or(0.0, |f| f.sample(rng))).round();
                let trimmed = (items * cap.trimmed_per_item.map_or(0.0, |f| f.sample(rng))).round();
                (raw as u64, (trimmed as u64).min(raw as u64), latency)
            }
        }
    }
}

/// A variant's histogram in lower-bound numerator units: where its first
/// bin starts, where its last ends, and the bins one unit spans (0 when the
/// edges coincide: every run is past the top).
struct BinScale {
    low: f64,
    top: f64,
    per_numerator: f64,
}

/// A drawn run's distinct tallies, one slot each, and the walked ones
/// (kept apart: a walked tally is large, and most runs have none).
#[derive(Default)]
struct Tallies {
    slots: Vec<Slot>,
    walked: Vec<Tally>,
}

/// One distinct tally of a drawn run.
#[derive(Clone, Copy)]
enum Slot {
    /// Its sums, which follow from the run's totals.
    Plain(PlainSums),
    /// The place of its tally in [`Tallies::walked`].
    Walked(usize),
}

/// A run's input numerator sums ([`Run::totals`]).
type Totals = ([i128; 2], [i128; 2]);

/// Prepared, read-only state shared by every chunk.
struct Plan<'a> {
    s: &'a Scenario,
    sampler: &'a Sampler,
    spec: &'a ForecastSpec,
    scale: Scale,
    /// The scenario's band (first) and each other one a variant replays at,
    /// with the assumptions it comes from.
    bands: Vec<(Scale, crate::scenario::Assumptions)>,
    /// The band of each variant.
    variant_band: Vec<usize>,
    /// For each variant, the first variant whose replay counts the same
    /// tokens (same band, results, cache and cache rules: only the prices
    /// differ, as for batch): its tally is taken once per drawn run.
    same_tally: Vec<usize>,
    /// For each variant, its tally's place among the distinct ones.
    tally_slot: Vec<usize>,
    rates: Vec<Option<IntegerRates>>,
    /// The scale's lower-bound tokens per numerator (one over its
    /// denominator): a multiplication per sample where there was a division
    /// (with the bins below, 6 % of a 1,000,000-run forecast's time).
    tokens_per_numerator: f64,
    /// Per variant, its histogram's edges in lower-bound numerator units,
    /// fixed with the bins (see [`Plan::bin`]); empty until then.
    bin_scale: Vec<BinScale>,
    fan_at: Vec<u64>,
    budget_num: Vec<[Option<i128>; 2]>,
    window_num: Option<[i128; 2]>,
    edges: Vec<f64>,
    /// The scenario's replay size (prefix, output, b, u, dearest rate); each
    /// drawn run is checked with its own results and bytes.
    size: crate::limits::ReplaySize,
}

impl Plan<'_> {
    fn chunk(&self, index: u64, count: u64) -> Acc {
        let mut acc = Acc::new(self.s.variants().len(), self.fan_at.len());
        self.chunk_into(&mut acc, index, count);
        acc.settle();
        acc
    }

    /// Adds the `count` runs of chunk `index` (seeded by it) to `acc`.
    fn chunk_into(&self, acc: &mut Acc, index: u64, count: u64) {
        let variants = &self.s.variants();
        let mut rng = Pcg64Mcg::seed_from_u64(
            self.spec.seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        let n = self.spec.calls as usize;
        let (mut raw, mut trimmed, mut latency) = (vec![0u64; n], vec![0u64; n], vec![0u64; n]);
        // A band that weighs its content replays each result's bytes in
        // the units of its kind ([`crate::scenario::Assumptions::units`]).
        // Each band's weights in hundredths, computed once.
        let per_byte: Vec<Option<[u64; 3]>> = self
            .bands
            .iter()
            .map(|(_, a)| a.weights().map(|w| w.per_byte()))
            .collect();
        let any_weighed = per_byte.iter().any(Option::is_some);
        let mut units: Vec<[Vec<u64>; 2]> = per_byte
            .iter()
            .map(|p| match p {
                Some(_) => [vec![0u64; n], vec![0u64; n]],
                None => [Vec::new(), Vec::new()],
            })
            .collect();
        let mut totals = Vec::with_capacity(self.bands.len());
        let mut tallies = Tallies::default();
        let mut gaps = vec![0u64; n + 1];
        let mut pending = Pending::new(variants.len(), self.fan_at.len());
        // The most bytes of a drawn run found to fit so far.
        let mut fits_to: Option<u128> = None;
        for _ in 0..count {
            if pending.full() {
                pending.flush_into(acc);
            }
            for i in 0..n {
                let (r, t, l, kind) = self.sampler.draw_kind(&mut rng);
                raw[i] = r;
                trimmed[i] = t;
                latency[i] = l;
                if any_weighed {
                    for (per, u) in per_byte.iter().zip(units.iter_mut()) {
                        if let Some(p) = per {
                            u[0][i] = units_of(Some(p), r, || kind);
                            u[1][i] = units_of(Some(p), t, || kind);
                        }
                    }
                }
                acc.raw_bytes += u128::from(r);
            }
            acc.results += n as u64;
            let input = |b: usize| -> [&[u64]; 2] {
                if per_byte[b].is_some() {
                    [&units[b][0], &units[b][1]]
                } else {
                    [&raw, &trimmed]
                }
            };
            // The run as drawn must stay within exact arithmetic, as the
            // recorded trace and every sweep point must (at the band that
            // counts the most units).
            let drawn = crate::limits::ReplaySize {
                results: n as u64,
                bytes: (0..self.bands.len())
                    .map(|b| {
                        let [r, t] = input(b);
                        r.iter()
                            .zip(t)
                            .map(|(r, t)| u128::from(*r.max(t)))
                            .sum::<u128>()
                    })
                    .max()
                    .unwrap_or(0),
                ..self.size
            };
            // A run of at most the bytes of one that fits fits too (the
            // magnitude grows with the bytes): checked only past them.
            if fits_to.is_none_or(|b| drawn.bytes > b) {
                if let Err(why) = crate::limits::replay_fits(&drawn) {
                    acc.overflow.get_or_insert(why);
                    break;
                }
                fits_to = Some(drawn.bytes);
            }
            if let Some(t) = &self.s.timing() {
                t.gaps_into(latency.iter().copied(), &mut gaps);
            }
            self.add_context(acc, &mut pending, input(0));
            let final_output = self.s.assumptions().final_output_tokens;
            let gaps_ms = self
                .s
                .timing()
                .as_ref()
                .map(|_| crate::engine::replay::Gaps::Listed(&gaps));
            let run = |b: usize, bytes| Run {
                gaps_ms,
                ..Run::new(self.bands[b].0, bytes, final_output)
            };
            // One band (the usual case) needs no list of runs.
            if self.bands.len() == 1 {
                let [r, t] = input(0);
                let runs = [[run(0, r), run(0, t)]];
                self.add_costs(acc, &mut pending, &runs, &mut totals, &mut tallies);
            } else {
                let runs: Vec<[Run; 2]> = (0..self.bands.len())
                    .map(|b| input(b).map(|bytes| run(b, bytes)))
                    .collect();
                self.add_costs(acc, &mut pending, &runs, &mut totals, &mut tallies);
            }
        }
        // The chunk's last samples counted; the counts stay in `acc`.
        pending.flush_into(acc);
    }
}

impl Plan<'_> {
    /// One drawn run's context after its last call and at the fan points,
    /// for raw and trimmed results (index 0 and 1).
    #[inline(always)]
    fn add_context(&self, acc: &mut Acc, pending: &mut Pending, results: [&[u64]; 2]) {
        let n = self.spec.calls;
        for (c, bytes) in results.into_iter().enumerate() {
            let mut cum: u128 = 0;
            let mut next = 0;
            for (k, b) in bytes.iter().enumerate() {
                cum += u128::from(*b);
                if next < self.fan_at.len() && self.fan_at[next] == k as u64 + 1 {
                    let num = self.scale.numerators(k as u64 + 1, cum);
                    pending.fan[next][c].push(to_f64(num[0]) * self.tokens_per_numerator);
                    next += 1;
                }
            }
            let num = self.scale.numerators(n, cum);
            pending.context[c][0].push(to_f64(num[0]));
            pending.context[c][1].push(to_f64(num[1]));
            add_exact(&mut acc.context_sum[c][0], num[0], &mut acc.overflow);
            add_exact(&mut acc.context_sum[c][1], num[1], &mut acc.overflow);
            widen(&mut acc.context_range[c][0], num[0]);
            widen(&mut acc.context_range[c][1], num[1]);
            if let Some(w) = self.window_num {
                if num[1] > w[1] {
                    acc.over_window[c] += 1;
                }
            }
        }
    }

    /// One drawn run's cost on every variant (raw or trimmed replay), its
    /// bound sums and ranges, the runs over budget and the histogram bin.
    #[inline(always)]
    fn add_costs(
        &self,
        acc: &mut Acc,
        pending: &mut Pending,
        runs: &[[Run; 2]],
        totals: &mut Vec<[Totals; 2]>,
        tallies: &mut Tallies,
    ) {
        totals.clear();
        totals.extend(runs.iter().map(|r| [r[0].totals(), r[1].totals()]));
        // One tally per distinct replay (a slot each, in variant order):
        // its sums from the totals where they follow from them, else walked.
        tallies.slots.clear();
        tallies.walked.clear();
        for (v, pv) in self.s.variants().iter().enumerate() {
            if self.same_tally[v] == v {
                let c = usize::from(pv.variant.results == Content::Trimmed);
                let (b, cache) = (self.variant_band[v], pv.variant.cache);
                let run = &runs[b][c];
                let slot = match run.plain_sums(cache, &pv.rates, Some(totals[b][c])) {
                    Some(p) => Slot::Plain(p),
                    None => {
                        tallies.walked.push(run.walked(cache, &pv.rates, None));
                        Slot::Walked(tallies.walked.len() - 1)
                    }
                };
                tallies.slots.push(slot);
            }
        }
        for v in 0..self.s.variants().len() {
            let ir = self.rates[v].as_ref().expect("checked when planning");
            let cost = match tallies.slots[self.tally_slot[v]] {
                Slot::Plain(p) => ir.plain_numerators(&p),
                Slot::Walked(w) => ir.numerators(&tallies.walked[w]),
            };
            let lower = to_f64(cost[0]);
            pending.cost[v][0].push(lower);
            pending.cost[v][1].push(to_f64(cost[1]));
            add_exact(&mut acc.cost_sum[v][0], cost[0], &mut acc.overflow);
            add_exact(&mut acc.cost_sum[v][1], cost[1], &mut acc.overflow);
            widen(&mut acc.cost_range[v][0], cost[0]);
            widen(&mut acc.cost_range[v][1], cost[1]);
            if let Some(limit) = self.budget_num[v][1] {
                if cost[1] > limit {
                    acc.over_budget[v] += 1;
                }
            }
            acc.hist[v][self.bin(v, lower)] += 1;
        }
    }

    /// The histogram bin of a run whose lower-bound cost on variant `v` is
    /// `lower` (numerator units; the last bin past the top edge). The
    /// edges are in dollars; the bin is found in numerator units, with one
    /// multiplication, as the run loop runs it once per variant and run.
    #[inline(always)]
    fn bin(&self, v: usize, lower: f64) -> usize {
        self.bin_scale.get(v).map_or(BINS, |b| {
            if lower > b.top || b.per_numerator <= 0.0 {
                BINS
            } else {
                (((lower - b.low) * b.per_numerator) as usize).min(BINS - 1)
            }
        })
    }
}

/// Runs the forecast. `progress` is told how many runs finished; `cancel`
/// stops it between chunks. The spec is checked (runs and calls at least 1,
/// calls at most [`super::sweep::MAX_CALLS`]).
pub fn run(
    s: &Scenario,
    spec: &ForecastSpec,
    sampler: &Sampler,
    cancel: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Forecast, ForecastError> {
    let mut plan = Plan::new(s, spec, sampler)?;
    plan.fix_bins(progress);
    let total = plan.run_chunks(cancel, progress);
    match total {
        Some(t) if !cancel.load(Ordering::Relaxed) => match &t.overflow {
            Some(why) => Err(ForecastError::Input(
                InputError::new(format!("forecast of {} calls a run: {why}", spec.calls))
                    .with_help("forecast fewer calls a run (--calls) or fewer runs (--runs); a run this large has no exact cost"),
            )),
            None => Ok(plan.summarise(&t)),
        },
        _ => Err(ForecastError::Interrupted),
    }
}

impl<'a> Plan<'a> {
    /// Integer rates, budget and context-window numerators, fan points.
    fn new(
        s: &'a Scenario,
        spec: &'a ForecastSpec,
        sampler: &'a Sampler,
    ) -> Result<Plan<'a>, InputError> {
        let scale = Scale::new(s.assumptions());
        // The scenario's band, then each other one a variant replays at (a
        // model of another tokenizer).
        let mut bands = vec![(scale, s.assumptions().clone())];
        let variant_band: Vec<usize> = s
            .variants()
            .iter()
            .map(|pv| match s.assumptions_of(pv) {
                std::borrow::Cow::Borrowed(_) => 0,
                std::borrow::Cow::Owned(a) => {
                    bands.iter().position(|(_, b)| *b == a).unwrap_or_else(|| {
                        bands.push((Scale::new(&a), a));
                        bands.len() - 1
                    })
                }
            })
            .collect();
        let rates: Vec<Option<IntegerRates>> = s
            .variants()
            .iter()
            .zip(&variant_band)
            .map(|(v, &b)| IntegerRates::new(&bands[b].0, &v.rates))
            .collect();
        if let Some(i) = rates.iter().position(Option::is_none) {
            let v = &s.variants()[i];
            if v.rates.cache_storage_per_hour.is_some() {
                return Err(InputError::new(format!(
                    "variant `{}` caches on `{}`, whose price book entry bills cache storage by the hour; the forecast does not sample request timing, so it cannot price storage",
                    v.variant.name, v.model
                ))
                .with_help("run `tokencast simulate` for this variant, or forecast it with cache = \"none\""));
            }
            return Err(InputError::new(format!(
                "variant `{}` has a rate with more than 12 decimals; the forecast keeps costs as exact integers",
                s.variants()[i].variant.name
            ))
            .with_help("round the price book's prices to at most 12 decimals"));
        }
        let budget_num = rates
            .iter()
            .map(|r| {
                let div = r.as_ref().expect("checked").divisor();
                spec.budget.map_or([None, None], |b| {
                    [0, 1].map(|i| {
                        b.checked_mul(Decimal::from_i128_with_scale(div[i], 0))
                            .and_then(|n| n.floor().to_i128())
                    })
                })
            })
            .collect();
        let window_num = s.prices().context_window_tokens.map(|w| {
            let d = scale.denominators();
            [i128::from(w) * d[0], i128::from(w) * d[1]]
        });
        let same_tally = same_tallies(s.variants(), &variant_band);
        let firsts: Vec<usize> = (0..same_tally.len())
            .filter(|&v| same_tally[v] == v)
            .collect();
        let tally_slot = same_tally
            .iter()
            .map(|first| {
                firsts
                    .iter()
                    .position(|f| f == first)
                    .expect("a first is its own")
            })
            .collect();
        let mut fan_at: Vec<u64> = (1..=FAN_POINTS)
            .map(|i| (i * spec.calls).div_ceil(FAN_POINTS))
            .collect();
        fan_at.dedup();
        Ok(Plan {
            size: s.replay_size(),
            s,
            sampler,
            spec,
            scale,
            bands,
            variant_band,
            same_tally,
            tally_slot,
            rates,
            tokens_per_numerator: 1.0 / to_f64(scale.denominators()[0]),
            bin_scale: Vec::new(),
            fan_at,
            budget_num,
            window_num,
            edges: Vec::new(),
        })
    }

    fn chunks(&self) -> u64 {
        self.spec.runs.div_ceil(CHUNK)
    }

    fn size(&self, i: u64) -> u64 {
        CHUNK.min(self.spec.runs - i * CHUNK)
    }

    fn divisor(&self, v: usize) -> [i128; 2] {
        self.rates[v]
            .as_ref()
            .expect("checked when planning")
            .divisor()
    }

    /// Runs the first chunk alone to fix the histogram ranges (0.75 × its
    /// smallest cost to 1.25 × its largest; anything below lands in the first
    /// bin, anything above in the overflow count), so the bins do not depend
    /// on the number of threads.
    fn fix_bins(&mut self, progress: &(dyn Fn(u64) + Sync)) {
        let first = self.chunk(0, self.size(0));
        progress(self.size(0));
        self.edges = first
            .cost
            .iter()
            .enumerate()
            .flat_map(|(v, sk)| {
                let div = self.divisor(v)[0] as f64;
                let top = sk[0].max().unwrap_or(0.0) / div * 1.25;
                let top = if top > 0.0 { top } else { 1.0 };
                let lo = sk[0].min().unwrap_or(0.0) / div * 0.75;
                (0..=BINS).map(move |i| lo + (top - lo) * i as f64 / BINS as f64)
            })
            .collect();
        self.bin_scale = (0..self.s.variants().len())
            .map(|v| {
                let div = to_f64(self.divisor(v)[0]);
                let edges = self.edges_of(v);
                let (lo, top) = (edges[0], edges[BINS]);
                BinScale {
                    low: lo * div,
                    top: top * div,
                    per_numerator: if top > lo {
                        BINS as f64 / ((top - lo) * div)
                    } else {
                        0.0
                    },
                }
            })
            .collect();
    }

    /// Variant `v`'s histogram edges (in dollars, `BINS + 1` of them) in
    /// [`Plan::edges`], which holds every variant's one after another.
    fn edges_of(&self, v: usize) -> &[f64] {
        &self.edges[v * (BINS + 1)..(v + 1) * (BINS + 1)]
    }

    /// Every chunk (chunk 0 again, now with the bins fixed), in parallel.
    /// Every aggregate is an integer count or sum (the sketches' bins too),
    /// so adding runs to one accumulator per stretch of chunks a thread
    /// takes, rather than to a fresh one per chunk whose sketches grow from
    /// nothing again, gives the same result; the first overflow in chunk
    /// order is the one reported.
    fn run_chunks(&self, cancel: &AtomicBool, progress: &(dyn Fn(u64) + Sync)) -> Option<Acc> {
        crate::par::fold_reduce(
            0..self.chunks(),
            || Some(Acc::new(self.s.variants().len(), self.fan_at.len())),
            |acc, i| {
                let mut acc = acc?;
                if cancel.load(Ordering::Relaxed) {
                    return None;
                }
                self.chunk_into(&mut acc, i, self.size(i));
                if i > 0 {
                    progress(self.size(i));
                }
                Some(acc)
            },
            |a, b| match (a, b) {
                (Some(mut a), Some(b)) => {
                    a.merge(b);
                    Some(a)
                }
                _ => None,
            },
        )
        .map(|mut total| {
            total.settle();
            total
        })
    }

    /// The forecast document from the merged accumulator.
    fn summarise(&self, total: &Acc) -> Forecast {
        let (s, spec) = (self.s, self.spec);
        let variants = self.variant_forecasts(total);
        let context = self.context_forecasts(total);
        let fan = self.fan(total);
        let mut doc = Forecast {
            answer: None,
            planned: false,
            currency: self.s.currency().clone(),
            price_date: self.s.price_date().clone(),
            scenario: s.name().clone(),
            inputs: s.inputs().clone(),
            calls: spec.calls,
            runs: spec.runs,
            seed: spec.seed,
            method: spec.method,
            percentile_method: format!(
                "DDSketch quantile sketches, relative accuracy {}%: rank floor(q·(n−1)), clamped to the exact minimum and maximum",
                SKETCH_ACCURACY * 100.0
            ),
            sessions_for_p99_budget: crate::analysis::confidence::runs_needed(0.99, 0.95),
            budget: spec.budget,
            over_budget_bound: Bound::Upper,
            context_window: s.prices().context_window_tokens,
            capabilities: self.sampler.fits(),
            variants,
            context,
            fan,
            mean_raw_bytes_per_result: (total.raw_bytes as f64) / (total.results.max(1) as f64),
        };
        doc.answer = crate::document::answer::ForecastAnswer::of(&doc);
        doc
    }
}

impl Plan<'_> {
    /// Each variant's cost per run: lower and upper quantiles, the share
    /// over budget, the histogram.
    fn variant_forecasts(&self, total: &Acc) -> Vec<VariantForecast> {
        let spec = self.spec;
        self.s
            .variants()
            .iter()
            .enumerate()
            .map(|(v, pv)| {
                let div = self.divisor(v);
                let q = |b: usize| {
                    quantiles(
                        &total.cost[v][b],
                        total.cost_sum[v][b],
                        total.cost_range[v][b],
                        div[b],
                    )
                };
                let (lower, upper) = (q(0), q(1));
                VariantForecast {
                    name: pv.variant.name.clone(),
                    recommended_budget: upper.p99,
                    cost_lower: lower,
                    cost_upper: upper,
                    over_budget: spec.budget.map(|_| share(total.over_budget[v], spec.runs)),
                    histogram_edges: self.edges_of(v).to_vec(),
                    histogram_counts: total.hist[v].clone(),
                }
            })
            .collect()
    }

    /// The context after the last call, raw and trimmed: quantiles per
    /// bound and the share over the context window.
    fn context_forecasts(&self, total: &Acc) -> Vec<ContextForecast> {
        let dens = self.scale.denominators();
        [Content::Raw, Content::Trimmed]
            .into_iter()
            .enumerate()
            .map(|(c, results)| {
                let q = |b: usize| {
                    quantiles(
                        &total.context[c][b],
                        total.context_sum[c][b],
                        total.context_range[c][b],
                        dens[b],
                    )
                };
                ContextForecast {
                    results,
                    lower: q(0),
                    upper: q(1),
                    over_context_window: self
                        .window_num
                        .map(|_| share(total.over_window[c], self.spec.runs)),
                }
            })
            .collect()
    }

    /// The context's p10–p99 (lower bound) at each fan point.
    fn fan(&self, total: &Acc) -> Vec<FanPoint> {
        let q = |sk: &DDSketch| {
            let [p10, p50, p90, p99] = [0.10, 0.50, 0.90, 0.99].map(|p| {
                let v = sk
                    .quantile(p)
                    .ok()
                    .flatten()
                    .unwrap_or(0.0)
                    .clamp(sk.min().unwrap_or(0.0), sk.max().unwrap_or(0.0));
                estimate(v, 1)
            });
            FanQuantiles { p10, p50, p90, p99 }
        };
        self.fan_at
            .iter()
            .enumerate()
            .map(|(i, &calls)| FanPoint {
                calls,
                raw: q(&total.fan[i][0]),
                trimmed: q(&total.fan[i][1]),
            })
            .collect()
    }
}

/// `x.round() as u64` for a size drawn from counts (never negative, never
/// NaN), without the C library's `round` (a call per draw on a CPU
/// baseline without SSE4.1): the whole part by truncation, plus one where
/// the rest is at least a half (exact: `x − ⌊x⌋` of a float is a float).
/// Below 2^63 through `i64` (one instruction each way, the same values as
/// through `u64`); above, it saturates at `u64::MAX` as the cast does.
#[inline(always)]
fn round_u64(x: f64) -> u64 {
    const TWO_TO_63: f64 = 9_223_372_036_854_775_808.0;
    if (0.0..TWO_TO_63).contains(&x) {
        let whole = x as i64;
        // `whole` < 2^63 − 1 here (a float below 2^63 is at most 2^63 − 1024).
        return (whole + i64::from(x - whole as f64 >= 0.5)) as u64;
    }
    let whole = x as u64;
    if x - whole as f64 >= 0.5 {
        whole.saturating_add(1)
    } else {
        whole
    }
}

/// `x` as the nearest `f64`: through `i64` where it fits (one instruction,
/// the same rounding), else through the `i128` conversion.
#[inline(always)]
fn to_f64(x: i128) -> f64 {
    match i64::try_from(x) {
        // Opaque to the optimiser, which otherwise folds the narrowing
        // back into the `i128` conversion (a library call per value).
        Ok(small) => std::hint::black_box(small) as f64,
        Err(_) => x as f64,
    }
}

/// For each variant, the first one (itself if none before it) that replays
/// the same tokens: same band and results, same cache, and the same cache
/// rules (whether it caches, minimum cacheable prompt, lifetime, long-context
/// thresholds, storage). Such variants differ only in their prices, so one
/// tally serves them all ([`crate::engine`]'s replay reads nothing else of
/// the rates).
fn same_tallies(variants: &[crate::scenario::PricedVariant], band: &[usize]) -> Vec<usize> {
    let key = |v: usize| {
        let pv = &variants[v];
        let r = &pv.rates;
        (
            band[v],
            pv.variant.results == Content::Trimmed,
            pv.variant.cache,
            r.cache_write.is_some(),
            r.min_cacheable_tokens,
            r.lifetime_ms(pv.variant.cache),
            r.long_context
                .iter()
                .map(|l| l.threshold_tokens)
                .collect::<Vec<u64>>(),
            r.cache_storage_per_hour.is_some(),
        )
    };
    (0..variants.len())
        .map(|v| (0..v).find(|&u| key(u) == key(v)).unwrap_or(v))
        .collect()
}

fn share(count: u64, runs: u64) -> Decimal {
    (Decimal::from(count) / Decimal::from(runs.max(1))).normalize()
}

#[cfg(test)]
mod tests;
