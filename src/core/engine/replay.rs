//! The replay itself: one linear pass per variant over exact integer sums.
//!
//! Tokens are rationals with a fixed denominator: with `b = mb / 10^sb` and
//! `u = mu / 10^su`, request k's input is
//!
//! - lower: `NL_k / mb`, with `NL_k = (P + k·o)·mb + cum_k·10^sb`;
//! - upper: `NU_k / (mb·10^su)`, with `NU_k = mu·(P·mb + cum_k·10^sb) + k·o·mb·10^su`,
//!
//! where `cum_k` is the bytes of the results before request k+1. Every rule
//! (cache writes and reads, expiry, the minimum cacheable length, the
//! long-context tier) only adds numerators into sums per price, so a replay is
//! linear, exact, and needs one decimal division per sum at the end.

use super::bounds::Bounds;
use super::RowSet;
use crate::engine::ix;
use crate::pricing::{Rates, PER_MILLION};
use crate::scenario::Cache;
use rust_decimal::Decimal;
mod rules;
mod tally;
use rules::{Billed, Rules};
pub(crate) use tally::{Added, Counts, IntegerRates, Priced, Scale, Sums, Tally, TIERS};

/// The gap before each request in milliseconds (index 0: the first
/// request): listed, or each step's tool time plus the model's time per
/// step and any pause, worked out as it is read (a list is 80 MB at
/// 10,000,000 requests, and every timed replay of a what-if made one).
#[derive(Clone, Copy)]
pub(crate) enum Gaps<'a> {
    /// One a request.
    Listed(&'a [u64]),
    /// From the tool time before each request after the first
    /// ([`Timing::gaps_into`](crate::scenario::Timing::gaps_into)'s gaps).
    Timed {
        tool_ms: &'a [u64],
        timing: &'a crate::scenario::Timing,
    },
}

impl<'a> Gaps<'a> {
    /// The gap before request `k` (0-based), if there is such a request.
    #[inline(always)]
    pub(crate) fn get(&self, k: usize) -> Option<u64> {
        match self {
            Gaps::Listed(gaps) => gaps.get(k).copied(),
            Gaps::Timed { tool_ms, timing } => {
                let tool = match k.checked_sub(1) {
                    None => None,
                    Some(step) => Some(*tool_ms.get(step)?),
                };
                Some(timing.gap_before(k, tool))
            }
        }
    }

    /// The gaps in order.
    pub(crate) fn iter(self) -> impl Iterator<Item = u64> + 'a {
        let n = match self {
            Gaps::Listed(gaps) => gaps.len(),
            Gaps::Timed { tool_ms, .. } => tool_ms.len() + 1,
        };
        (0..n).map_while(move |k| self.get(k))
    }
}

/// The inputs of one replay: the result sizes in order and, when timing is
/// known, the gap before each request in milliseconds.
pub(crate) struct Run<'a> {
    pub scale: Scale,
    pub bytes: &'a [u64],
    pub final_output: u64,
    pub gaps_ms: Option<Gaps<'a>>,
    /// Each request's own output, when the trace records it; otherwise
    /// every request but the last emits `o`, all of it sent back.
    pub outputs: Option<&'a StepOutputs>,
    /// Recorded compactions, when the trace marks any.
    pub compactions: Option<&'a Compactions>,
    /// Per request 0..=N, exact tokens that entered up to and including it
    /// (the trace's counts for this model, and unmeasured tokens), in place
    /// of `outputs.unmeasured`.
    pub exact: Option<&'a [u128]>,
    /// Share of the previous prompt a request reads from the cache (all of
    /// it when `None`), as mantissa and power of ten.
    pub hit_share: Option<(i128, i128)>,
    /// Share of the requests that drop earlier reasoning (a new turn, see
    /// [`StepOutputs::drops`]) after which the cache holds only the prefix,
    /// as mantissa and power of ten; the others read what is left of the
    /// previous prompt. `None`: none break.
    pub turn_break: Option<(i128, i128)>,
    /// The share of expiries after which the warm prefix is still read, as
    /// [`Run::share`] gives it (`None`: all of them).
    pub warm_share: Option<(i128, i128)>,
    /// The share of expiries after which the whole previous prompt is still
    /// read, as [`Run::share`] gives it (`None`: none).
    pub survival: Option<(i128, i128)>,
}

impl<'a> Run<'a> {
    /// A run of `bytes` at `scale` with nothing else recorded or fitted: no
    /// gaps, step outputs, compactions or exact counts, every share `None`.
    /// Callers set what they have with `Run { field, ..Run::new(…) }`.
    pub(crate) fn new(scale: Scale, bytes: &'a [u64], final_output: u64) -> Run<'a> {
        Run {
            scale,
            bytes,
            final_output,
            gaps_ms: None,
            outputs: None,
            compactions: None,
            exact: None,
            hit_share: None,
            turn_break: None,
            warm_share: None,
            survival: None,
        }
    }
}

/// The cache's lifetime (milliseconds) and the gaps before a run's
/// requests, where a gap after the first request outlives the cache
/// ([`Run::expiring`]).
type Expiring<'g> = Option<(u64, Gaps<'g>)>;

/// A replay's sums where they follow from its input totals
/// ([`Run::plain_sums`]): all of them in the base tier, so that a cost is a
/// line in them ([`IntegerRates::plain_numerators`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlainSums {
    /// Every request's prompt, in numerators per bound.
    pub sum: [i128; 2],
    /// Of `sum`, what the cache writes (it reads the rest); `None` without
    /// a cache (all of it uncached).
    pub write: Option<[i128; 2]>,
    /// The output, in numerators per bound.
    pub output: [i128; 2],
    /// Requests after a gap that outlived the cache.
    pub expiries: u64,
}

impl PlainSums {
    /// The same sums by price class and tier.
    pub(crate) fn sums(&self) -> [Sums; 2] {
        let mut sums = [Sums::default(); 2];
        for (i, s) in sums.iter_mut().enumerate() {
            s.output[0] = self.output[i];
            match self.write {
                Some(w) => {
                    s.write[0] = w[i];
                    s.read[0] = self.sum[i] - w[i];
                }
                None => s.uncached[0] = self.sum[i],
            }
        }
        sums
    }
}

/// What each request of a recorded run emitted (imported traces): request
/// k (0-based, k < N) is billed `billed[k]` output tokens, of which the
/// prompts after it carry the part sent back; `resent[k]` is the total sent
/// back in request k's prompt.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct StepOutputs {
    /// Per request 0..N−1 (the last request's is the final answer).
    pub billed: Vec<u64>,
    /// Per request 0..=N: earlier output in its prompt (`resent[0]` = 0).
    pub resent: Vec<u128>,
    /// Per request 0..=N: its prompt drops reasoning sent back earlier in
    /// the turn before it (a user message started a new turn), so it is no
    /// longer the previous prompt plus what entered.
    pub drops: Vec<bool>,
    /// Per request 0..=N: tokens that entered up to and including it which
    /// the log does not let anyone measure (`unmeasured[0]` = 0).
    pub unmeasured: Vec<u128>,
}

/// Where a recorded run's context was compacted (imported traces): request
/// k's prompt holds the prefix, the bytes entered since `bytes[k]` and the
/// output sent back since `resent[k]`; at a compaction both move up to the
/// request, and the cache keeps only the prefix.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Compactions {
    /// Per request 0..=N: bytes entered before the last compaction.
    pub bytes: Vec<u128>,
    /// Per request 0..=N: the request the last compaction came before (0:
    /// none); output of requests before it is no longer sent back.
    pub since: Vec<u64>,
    /// Per request 0..=N: compacted right before it.
    pub at: Vec<bool>,
}

impl Run<'_> {
    /// Output tokens sent back in request k's prompt.
    pub(crate) fn resent(&self, k: u64) -> u128 {
        let framing = u128::from(k) * self.scale.overhead;
        framing
            + match self.outputs {
                Some(o) => o.resent[ix(k)],
                None => u128::from(k) * self.scale.o.unsigned_abs(),
            }
    }

    /// Output tokens request k is billed for.
    pub(crate) fn billed(&self, k: u64) -> u64 {
        if k >= self.bytes.len() as u64 {
            return self.final_output;
        }
        match self.outputs {
            Some(o) => o.billed[ix(k)],
            None => u64::try_from(self.scale.o).unwrap_or(u64::MAX),
        }
    }

    /// Unmeasured tokens that entered up to and including request k.
    pub(crate) fn unmeasured(&self, k: u64) -> u128 {
        match self.exact {
            Some(e) => e.get(ix(k)).copied().unwrap_or(0),
            None => self
                .outputs
                .and_then(|o| o.unmeasured.get(ix(k)).copied())
                .unwrap_or(0),
        }
    }

    /// Numerators of request k's input, `cum` bytes of context before it
    /// (less what a recorded compaction removed). Unmeasured tokens count
    /// as tokens, like the output sent back; a compaction keeps those that
    /// entered with it (what it restored) and after. Inlined into each
    /// replay loop: called once a request, and as a call it took 8 % of
    /// the every-what-if run.
    #[inline(always)]
    pub(crate) fn numerators(&self, k: u64, cum: u128) -> [i128; 2] {
        match self.compactions {
            Some(c) => {
                let k = ix(k);
                let since = c.since[k];
                let kept = self.unmeasured(k as u64)
                    - since.checked_sub(1).map_or(0, |s| self.unmeasured(s));
                self.scale.numerators_out(
                    self.resent(k as u64) - self.resent(since) + kept,
                    cum - c.bytes[k],
                )
            }
            None => self
                .scale
                .numerators_out(self.resent(k) + self.unmeasured(k), cum),
        }
    }

    /// What a request reads of a cached prefix of `p` (numerator units).
    fn hit(&self, p: i128) -> i128 {
        match self.hit_share {
            Some((m, d)) => p * m / d,
            None => p,
        }
    }

    /// The share as [`Run::hit_share`] holds it.
    pub(crate) fn share(h: Option<Decimal>) -> Option<(i128, i128)> {
        h.map(|h| {
            let h = h.normalize();
            (h.mantissa(), 10i128.pow(h.scale()))
        })
    }

    /// Of the warm prefix `w` (numerators), what an expired request still
    /// reads: its share of expiries, in expectation (all without one).
    fn still_warm(&self, w: i128) -> i128 {
        match self.warm_share {
            Some((m, d)) => w * m / d,
            None => w,
        }
    }

    /// What an expired request reads, in expectation: of the `survived`
    /// read (what it would have read had the cache not expired), the share
    /// of expiries the cache survived; of the `warm` read (the prefix other
    /// runs keep warm, if any), the rest. `None` when it reads nothing.
    fn after_expiry(&self, survived: i128, warm: Option<i128>) -> Option<i128> {
        match self.survival {
            Some((m, d)) => Some(survived * m / d + warm.unwrap_or(0) * (d - m) / d),
            None => warm,
        }
    }

    /// Whether request k's prompt drops earlier reasoning.
    fn drops(&self, k: u64) -> bool {
        self.outputs
            .is_some_and(|o| o.drops.get(ix(k)).copied().unwrap_or(false))
    }

    /// The output sent back in request k's prompt since request k−1's, per
    /// bound (numerators), when the run has a fitted cache hit share: a
    /// provider that caches every prefix on its own (OpenAI) keeps the
    /// response it generated with the prompt, so the next request may read
    /// it too. 0 without a share, and for the first request.
    fn sent(&self, k: u64, dens: [i128; 2]) -> [i128; 2] {
        if k == 0 || self.hit_share.is_none() {
            return [0, 0];
        }
        let t = self.resent(k).saturating_sub(self.resent(k - 1));
        let t = i128::try_from(t).unwrap_or(i128::MAX);
        dens.map(|d| t.saturating_mul(d))
    }

    /// What is left cached for a request that drops earlier reasoning, of a
    /// shared prefix `p` (numerator units): the prefix, and of the rest the
    /// share that does not break.
    fn after_drop(&self, p: i128, prefix: i128) -> i128 {
        match self.turn_break {
            Some((m, d)) if p > prefix => prefix + (p - prefix) * (d - m) / d,
            _ => p,
        }
    }

    /// Whether request k follows a recorded compaction.
    fn compacted(&self, k: u64) -> bool {
        self.compactions.is_some_and(|c| c.at[ix(k)])
    }

    /// Output billed over the whole run.
    pub(crate) fn total_output(&self) -> i128 {
        match self.outputs {
            Some(o) => {
                o.billed.iter().map(|b| i128::from(*b)).sum::<i128>()
                    + i128::from(self.final_output)
            }
            None => {
                i128::from(self.bytes.len() as u64) * self.scale.o + i128::from(self.final_output)
            }
        }
    }

    /// Replays every request under `rates` with cache tier `cache`.
    /// `per_request`, when given, receives each request's model cost.
    pub(crate) fn price(
        &self,
        cache: Cache,
        rates: &Rates,
        per_request: Option<(&RowSet, &mut Vec<Bounds>)>,
    ) -> Priced {
        let tally = self.tally(cache, rates, per_request);
        let mut priced = self.usd(tally.sums, rates);
        priced.counts = tally.counts;
        priced
    }

    /// Σ of every request's input numerators, and the last request's.
    pub(crate) fn totals(&self) -> ([i128; 2], [i128; 2]) {
        if self.is_uniform() {
            return self.uniform_totals();
        }
        let mut cum: u128 = 0;
        let mut sum = self.numerators(0, 0);
        let mut last = sum;
        for (k, b) in self.bytes.iter().enumerate() {
            cum += u128::from(*b);
            last = self.numerators(k as u64 + 1, cum);
            sum = [sum[0] + last[0], sum[1] + last[1]];
        }
        (sum, last)
    }

    /// Whether every step sends back the same output (no step outputs,
    /// compactions or exact counts): [`Run::totals`] is then a closed form.
    pub(crate) fn is_uniform(&self) -> bool {
        self.outputs.is_none() && self.compactions.is_none() && self.exact.is_none()
    }

    /// The first request (1-based) whose input numerators' upper bound is
    /// past `limit`, if any: the requests are walked only up to it.
    pub(crate) fn first_past(&self, limit: i128) -> Option<u64> {
        let mut cum: u128 = 0;
        for k in 0..=self.bytes.len() {
            if k > 0 {
                cum += u128::from(self.bytes[k - 1]);
            }
            if self.numerators(k as u64, cum)[1] > limit {
                return Some(k as u64 + 1);
            }
        }
        None
    }

    /// [`Run::totals`] of a run where every step sends back the same output
    /// (no step outputs, compactions or exact counts): request k's
    /// numerator is a line in k and the bytes before it, so the sum over
    /// requests 0..=N is that line at ΣK = N(N+1)/2 and Σ cum, with one
    /// multiplication per term instead of two per request (the forecast
    /// replays a million drawn runs).
    fn uniform_totals(&self) -> ([i128; 2], [i128; 2]) {
        let n = self.bytes.len() as u128;
        let (mut cum, mut sum_cum): (u128, u128) = (0, 0);
        for b in self.bytes {
            cum += u128::from(*b);
            sum_cum += cum;
        }
        let per_step = self.scale.o.unsigned_abs() + self.scale.overhead;
        let last = self.scale.numerators_out(n * per_step, cum);
        // Σ over k = 0..=N of k·per_step, and of the prefix N+1 times.
        let out = n * (n + 1) / 2 * per_step;
        let sum = [0, 1].map(|b| {
            let [prefix, per_out, per_byte] = self.scale.line[b];
            prefix * (n + 1).cast_signed()
                + out.cast_signed() * per_out
                + sum_cum.cast_signed() * per_byte
        });
        (sum, last)
    }

    /// The replay's exact token sums per price class (numerators, see [`Scale`]).
    ///
    /// When no rule applies ([`Run::rules_apply`]), the sums follow from the
    /// input totals alone: writes are the last request's input, reads the
    /// rest. When the only one is a gap that outlives the cache and nothing
    /// of the cache survives it, the writes also hold the prompt right
    /// before each such gap. Otherwise every request is walked through the
    /// rules. `totals`, when given, must be [`Run::totals`] of this run.
    pub(crate) fn tally(
        &self,
        cache: Cache,
        rates: &Rates,
        per_request: Option<(&RowSet, &mut Vec<Bounds>)>,
    ) -> Tally {
        self.tally_with(cache, rates, per_request, None)
    }

    /// [`Run::tally`] with the input totals already known (shared by variants).
    pub(crate) fn tally_with(
        &self,
        cache: Cache,
        rates: &Rates,
        per_request: Option<(&RowSet, &mut Vec<Bounds>)>,
        totals: Option<([i128; 2], [i128; 2])>,
    ) -> Tally {
        if let Some((p, expiring)) = self.plain_sums_expiring(cache, rates, totals) {
            if let Some((rows, out)) = per_request {
                self.kept_costs(p.write.is_some(), rates, rows, out, expiring);
            }
            return Tally {
                sums: p.sums(),
                counts: Counts {
                    expiries: p.expiries,
                    ..Counts::default()
                },
            };
        }
        self.walked(cache, rates, per_request)
    }

    /// [`Run::tally_with`] through every request and rule, for a run whose
    /// sums do not follow from its totals ([`Run::plain_sums`] is `None`).
    pub(crate) fn walked(
        &self,
        cache: Cache,
        rates: &Rates,
        per_request: Option<(&RowSet, &mut Vec<Bounds>)>,
    ) -> Tally {
        let (keep, mut out) = match per_request {
            Some((rows, out)) => (Some(rows), Some(out)),
            None => (None, None),
        };
        let wants = |k: usize| keep.is_some_and(|rows| rows.has(k));
        let counts = self.walk(cache, rates, &wants, |step| {
            if let Some(rows) = out.as_mut() {
                rows.push(self.model(step.delta(), rates));
            }
        });
        Tally {
            sums: counts.0,
            counts: counts.1,
        }
    }

    /// The sums of [`Run::tally_with`] where they follow from the input
    /// totals (`totals`, when given, must be [`Run::totals`] of this run):
    /// without a rule ([`Run::rules_apply`]), or where the only one is a
    /// gap that outlives the cache and nothing of the cache survives it.
    /// `None` where every request is to be walked through the rules.
    pub(crate) fn plain_sums(
        &self,
        cache: Cache,
        rates: &Rates,
        totals: Option<([i128; 2], [i128; 2])>,
    ) -> Option<PlainSums> {
        self.plain_sums_expiring(cache, rates, totals)
            .map(|(p, _)| p)
    }

    /// [`Run::plain_sums`], with the cache's lifetime and the gaps when a
    /// gap outlives it ([`Run::kept_costs`] reads them): the gaps are
    /// looked through once.
    fn plain_sums_expiring(
        &self,
        cache: Cache,
        rates: &Rates,
        totals: Option<([i128; 2], [i128; 2])>,
    ) -> Option<(PlainSums, Expiring<'_>)> {
        if self.rules_besides_expiry(cache, rates) {
            return None;
        }
        let expiring = self.expiring(cache, rates);
        if expiring.is_some() && self.survival.is_some() {
            return None;
        }
        let (sum, last) = totals.unwrap_or_else(|| self.totals());
        let (write, expiries) = match expiring {
            Some((life, gaps)) => self.stretch_writes(life, gaps, last),
            None => (last, 0),
        };
        let (out, dens) = (self.total_output(), self.scale.denominators());
        let sums = PlainSums {
            sum,
            write: rates.caches(cache).then_some(write),
            output: [out * dens[0], out * dens[1]],
            expiries,
        };
        Some((sums, expiring))
    }

    /// Whether any rule beyond the plain ones bills this run under `cache`
    /// and `rates`: long-context tiers, or, with a cache, a minimum
    /// cacheable length, a gap that outlives the cache, compactions, a
    /// fitted hit share, dropped reasoning, a warm prefix or storage. Where
    /// none does, request k writes past what request k − 1 left cached and
    /// reads the rest (or, without a cache, is all uncached), in the base
    /// tier. (A gap within the cache's lifetime bills nothing but storage.)
    pub(crate) fn rules_apply(&self, cache: Cache, rates: &Rates) -> bool {
        self.rules_besides_expiry(cache, rates) || self.expiring(cache, rates).is_some()
    }

    /// [`Run::rules_apply`] but for a gap that outlives the cache.
    fn rules_besides_expiry(&self, cache: Cache, rates: &Rates) -> bool {
        let caches = rates.caches(cache);
        !rates.long_context.is_empty()
            || (caches
                && (rates.min_cacheable_tokens.is_some()
                    || self.compactions.is_some()
                    || self.hit_share.is_some()
                    || self.outputs.is_some_and(|o| o.drops.contains(&true))
                    || self.scale.cached > 0
                    || rates.cache_storage_per_hour.is_some()))
    }

    /// The cache's lifetime (milliseconds) and the gaps before the
    /// requests, when `cache` caches at `rates` and a gap after the first
    /// request outlives it.
    fn expiring(&self, cache: Cache, rates: &Rates) -> Expiring<'_> {
        let life = rates.lifetime_ms(cache).filter(|_| rates.caches(cache))?;
        let gaps = self.gaps_ms?;
        gaps.iter()
            .skip(1)
            .any(|g| g > life)
            .then_some((life, gaps))
    }

    /// Where the only rule is a gap that outlives the cache (lifetime
    /// `life`, `gaps` before each request) and nothing of the cache
    /// survives it: a request after such a gap writes its whole prompt, and
    /// every other request reads the previous prompt and writes the rest.
    /// So each stretch between expiries writes the prompt of its last
    /// request: the last request's (`last`) and each one's right before an
    /// expiry. Returns those writes per bound and the expiries.
    fn stretch_writes(&self, life: u64, gaps: Gaps<'_>, last: [i128; 2]) -> ([i128; 2], u64) {
        let (mut write, mut expiries, mut cum) = (last, 0u64, 0u128);
        for (k, (gap, b)) in gaps.iter().skip(1).zip(self.bytes).enumerate() {
            // `cum` holds the bytes before request k; `gap` comes before
            // request k + 1.
            if gap > life {
                let p = self.numerators(k as u64, cum);
                write = [write[0] + p[0], write[1] + p[1]];
                expiries += 1;
            }
            cum += u128::from(*b);
        }
        (write, expiries)
    }

    /// Each kept request's model cost, in order, where no rule applies
    /// ([`Run::tally_with`]): request k's prompt is written past what
    /// request k − 1's left cached and reads the rest (or, without a cache,
    /// is all uncached), all of it in the base tier; where the only rule is
    /// a gap that outlives the cache (`expiring`: its lifetime and the
    /// gaps), a request after such a gap writes its whole prompt. Only the
    /// kept requests' prompts are computed; the others only add their bytes.
    fn kept_costs(
        &self,
        caches: bool,
        rates: &Rates,
        rows: &RowSet,
        out: &mut Vec<Bounds>,
        expiring: Expiring,
    ) {
        if !rows.any() {
            return;
        }
        let mut cum: u128 = 0;
        for k in 0..=self.bytes.len() {
            let before = cum;
            if k > 0 {
                cum += u128::from(self.bytes[k - 1]);
            }
            if !rows.has(k) {
                continue;
            }
            let num = self.numerators(k as u64, cum);
            let expired =
                expiring.is_some_and(|(life, gaps)| gaps.get(k).is_some_and(|g| g > life));
            let prev = (caches && k > 0 && !expired).then(|| self.numerators(k as u64 - 1, before));
            let added = self.plain_added(k as u64, prev, num, caches);
            let mut delta = [Sums::default(); 2];
            for i in 0..2 {
                delta[i].add_times(&added[i], 1);
            }
            out.push(self.model(delta, rates));
        }
    }

    /// What request `k` (prompt numerators `num`) adds to each bound's sums
    /// under the plain rules, all in the base tier: without a cache its
    /// prompt is uncached; with one, it reads what the previous request's
    /// prompt left cached (`prev`, never more than its own prompt; none for
    /// the first request, or without a cache) and writes the rest. The
    /// restart what-if and each kept request's cost both bill so.
    #[inline(always)]
    fn plain_added(
        &self,
        k: u64,
        prev: Option<[i128; 2]>,
        num: [i128; 2],
        caches: bool,
    ) -> [Added; 2] {
        let dens = self.scale.denominators();
        let output = i128::from(self.billed(k));
        let added = |i: usize| {
            let read = prev.map_or(0, |p| p[i].min(num[i]));
            Added {
                tier: 0,
                uncached: if caches { 0 } else { num[i] },
                write: if caches { num[i] - read } else { 0 },
                read,
                output: output * dens[i],
                storage: 0,
            }
        };
        // Both bounds written out: `[0, 1].map` was left a call per
        // request (a sixth of the restart what-if's time).
        [added(0), added(1)]
    }

    /// For each kept request k: the model cost of every request before it
    /// (what starting over pays again), and what a cache expiry right before
    /// it adds (what resuming after a restart pays): request k then writes
    /// its whole prefix instead of reading the previous one, and later
    /// requests are unchanged. Also both summed over every request but the
    /// first, exactly (integer sums, one conversion). One pass.
    pub(crate) fn restarts(
        &self,
        cache: Cache,
        rates: &Rates,
        rows: &RowSet,
    ) -> (Vec<(Bounds, Bounds)>, (Bounds, Bounds)) {
        if self.rules_apply(cache, rates) {
            self.restarts_walked(cache, rates, rows)
        } else {
            self.price_restarts(&self.plain_restarts(rows), cache, rates)
        }
    }

    /// Whether `other`'s [`Run::plain_restarts`] are this run's: the same
    /// requests, scale, outputs, compactions and exact counts (the sums do
    /// not depend on the prices, the cache tier or the fitted shares).
    pub(crate) fn same_plain_restarts(&self, other: &Run) -> bool {
        fn same<T: ?Sized>(a: Option<&T>, b: Option<&T>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                (None, None) => true,
                _ => false,
            }
        }
        self.scale == other.scale
            && std::ptr::eq(self.bytes, other.bytes)
            && self.final_output == other.final_output
            && same(self.outputs, other.outputs)
            && same(self.compactions, other.compactions)
            && same(self.exact, other.exact)
    }

    /// The token sums of [`Run::restarts`] where no rule applies
    /// ([`Run::rules_apply`]), before pricing, as a cached replay counts
    /// them: each request writes its prompt past the previous one and reads
    /// the rest, summed as it goes, without the walk through every rule. A
    /// replay without a cache is the same pass with every written or read
    /// token uncached ([`Run::price_restarts`]), so variants that differ in
    /// prices, tier or cache alone share one pass.
    pub(crate) fn plain_restarts(&self, rows: &RowSet) -> PlainRestarts {
        let n = self.bytes.len();
        let mut points = Vec::new();
        // The sums after the requests so far, and Σ of them over requests
        // 0..n (what starting over before each of requests 1..=N pays).
        let (mut after, mut all_before, mut all_extra) = (
            [Sums::default(); 2],
            [Sums::default(); 2],
            [Sums::default(); 2],
        );
        let mut prev: Option<[i128; 2]> = None;
        let mut cum: u128 = 0;
        for k in 0..=n {
            if k > 0 {
                cum += u128::from(self.bytes[k - 1]);
            }
            let num = self.numerators(k as u64, cum);
            let added = self.plain_added(k as u64, prev, num, true);
            if k >= 1 && rows.has(k) {
                // An expiry before request k: it writes what it would read.
                let mut extra = [Sums::default(); 2];
                for i in 0..2 {
                    extra[i].write[0] = added[i].read;
                    extra[i].read[0] = -added[i].read;
                }
                points.push((after, extra));
            }
            for i in 0..2 {
                let s = &mut after[i];
                s.add_times(&added[i], 1);
                all_extra[i].write[0] += added[i].read;
                all_extra[i].read[0] -= added[i].read;
                if k < n {
                    let t = &mut all_before[i];
                    t.output[0] += s.output[0];
                    t.uncached[0] += s.uncached[0];
                    t.write[0] += s.write[0];
                    t.read[0] += s.read[0];
                }
            }
            prev = Some(num);
        }
        PlainRestarts {
            points,
            all_before,
            all_extra,
        }
    }

    /// [`Run::plain_restarts`] (of this run, or of one
    /// [`Run::same_plain_restarts`]) priced for `cache` at `rates`: as
    /// counted where the cache writes, all of it uncached where it does not
    /// (an expiry then adds nothing).
    pub(crate) fn price_restarts(
        &self,
        p: &PlainRestarts,
        cache: Cache,
        rates: &Rates,
    ) -> (Vec<(Bounds, Bounds)>, (Bounds, Bounds)) {
        let caches = rates.caches(cache);
        let billed = |s: [Sums; 2]| {
            let s = if caches {
                s
            } else {
                s.map(|s| s.uncached_instead())
            };
            self.model(s, rates)
        };
        let out = p
            .points
            .iter()
            .map(|(after, extra)| (billed(*after), billed(*extra)))
            .collect();
        (out, (billed(p.all_before), billed(p.all_extra)))
    }

    /// [`Run::restarts`], walking every request through every rule.
    fn restarts_walked(
        &self,
        cache: Cache,
        rates: &Rates,
        rows: &RowSet,
    ) -> (Vec<(Bounds, Bounds)>, (Bounds, Bounds)) {
        let mut out = Vec::new();
        let (mut all_before, mut all_extra) = ([Sums::default(); 2], [Sums::default(); 2]);
        let n = self.bytes.len();
        // Only the kept requests copy their sums; the totals are summed in
        // place from every request's: what starting over before request
        // k ≥ 1 pays is the sums after request k − 1.
        let wants = |k: usize| k >= 1 && rows.has(k);
        self.walk_each(
            cache,
            rates,
            None,
            &wants,
            |step| {
                out.push((
                    self.model(step.before, rates),
                    self.model(step.expiry_extra(), rates),
                ))
            },
            |k, added, read| {
                // Σ over k < n of the sums after request k: request j's
                // addition counts in n − j of them.
                let times = i128::try_from(n.saturating_sub(k)).unwrap_or(0);
                for i in 0..2 {
                    if times > 0 {
                        all_before[i].add_times(&added[i], times);
                    }
                    if let (1.., Some((tier, p))) = (k, read[i]) {
                        all_extra[i].write[tier] += p;
                        all_extra[i].read[tier] -= p;
                    }
                }
            },
        );
        let totals = (self.model(all_before, rates), self.model(all_extra, rates));
        (out, totals)
    }

    /// Whether this run, replayed with `gaps` (milliseconds before each
    /// request) in place of its own, would bill anything differently under
    /// the rules of `cache`: a gap after the first request outlives the
    /// cache, or the cache is billed by the hour (storage follows every
    /// gap). Where neither holds, the gaps reach nothing in the bill.
    pub(crate) fn gaps_reach_bill(&self, cache: Cache, rates: &Rates, gaps: Gaps<'_>) -> bool {
        let rules = Rules::new(&self.scale, cache, rates);
        rules.stores
            || rules
                .lifetime
                .is_some_and(|life| gaps.iter().skip(1).any(|g| g > life))
    }

    /// The model cost of some sums, per bound.
    fn model(&self, sums: [Sums; 2], rates: &Rates) -> Bounds {
        let p = self.usd(sums, rates);
        p.uncached_input + p.cache_write + p.cache_read + p.output + p.storage
    }

    /// Replays every request under the rules and calls `at` for each request
    /// index `wants` keeps, with the sums before and after it.
    fn walk(
        &self,
        cache: Cache,
        rates: &Rates,
        wants: &dyn Fn(usize) -> bool,
        at: impl FnMut(&Step),
    ) -> ([Sums; 2], Counts) {
        self.walk_only(cache, rates, None, wants, at)
    }

    /// Prices a run whose requests ran on several models (a recorded
    /// session): request k on `rates[models[k]]`. Each model's requests are
    /// replayed under its own rules, and a change of model breaks the cache
    /// (the other model has no copy of the prefix). `per_request` receives
    /// every kept request's cost, in order.
    pub(crate) fn price_by_model(
        &self,
        cache: Cache,
        rates: &[&Rates],
        models: &[u16],
        mut per_request: Option<(&RowSet, &mut Vec<Bounds>)>,
    ) -> Priced {
        let mut total = Priced::default();
        let mut rows: Vec<(usize, Bounds)> = Vec::new();
        for (m, r) in rates.iter().enumerate() {
            let m = u16::try_from(m).unwrap_or(u16::MAX);
            if !models.contains(&m) {
                continue;
            }
            let keep = per_request.as_ref().map(|p| p.0);
            let wants = |k: usize| keep.is_some_and(|rows| rows.has(k));
            let (sums, counts) = self.walk_only(cache, r, Some((models, m)), &wants, |step| {
                rows.push((step.k, self.model(step.delta(), r)));
            });
            let p = self.usd(sums, r);
            total.uncached_input = total.uncached_input + p.uncached_input;
            total.cache_write = total.cache_write + p.cache_write;
            total.cache_read = total.cache_read + p.cache_read;
            total.output = total.output + p.output;
            total.storage = total.storage + p.storage;
            total.counts.expiries += counts.expiries;
            total.counts.uncacheable += counts.uncacheable;
            total.counts.long_context += counts.long_context;
        }
        if let Some((_, out)) = per_request.as_mut() {
            rows.sort_by_key(|r| r.0);
            out.extend(rows.into_iter().map(|r| r.1));
        }
        total
    }

    /// [`Run::walk`] over the requests `only` keeps (`models[k] == m`): the
    /// others add nothing and leave the cache cold for the next one kept.
    fn walk_only(
        &self,
        cache: Cache,
        rates: &Rates,
        only: Option<(&[u16], u16)>,
        wants: &dyn Fn(usize) -> bool,
        at: impl FnMut(&Step),
    ) -> ([Sums; 2], Counts) {
        self.walk_each(cache, rates, only, wants, at, |_, _, _| {})
    }

    /// [`Run::walk_only`], and `each` sees every request billed: its index,
    /// what it added to the sums of each bound and what it read from the
    /// cache.
    fn walk_each(
        &self,
        cache: Cache,
        rates: &Rates,
        only: Option<(&[u16], u16)>,
        wants: &dyn Fn(usize) -> bool,
        mut at: impl FnMut(&Step),
        mut each: impl FnMut(usize, &[Added; 2], &[Option<(usize, i128)>; 2]),
    ) -> ([Sums; 2], Counts) {
        let n = self.bytes.len() as u64;
        let rules = Rules::new(&self.scale, cache, rates);
        let mut sums = [Sums::default(); 2];
        // What an earlier run left in the cache for the first request.
        let mut prev: [Option<i128>; 2] = self.scale.warm();
        let mut counts = Counts::default();
        let mut cum: u128 = 0;
        for k in 0..=n {
            if k > 0 {
                cum += u128::from(self.bytes[ix(k - 1)]);
            }
            if only.is_some_and(|(models, m)| models.get(ix(k)) != Some(&m)) {
                prev = [None, None];
                continue;
            }
            let gap = match (k, self.gaps_ms) {
                (1.., Some(gaps)) => gaps.get(ix(k)).unwrap_or(0),
                _ => 0,
            };
            let req = Billed {
                last: k == n,
                num: self.numerators(k, cum),
                out: self.billed(k),
                gap,
                expired: matches!((k, rules.lifetime), (1.., Some(life)) if self.gaps_ms.is_some() && gap > life),
                compacted: self.compacted(k),
                drops: self.drops(k),
                sent: self.sent(k, rules.dens),
            };
            // Copied only for a kept request (a large copy).
            let before = if wants(ix(k)) { Some(sums) } else { None };
            let mut read_now = [None; 2];
            let mut added = [Added::default(); 2];
            for i in 0..2 {
                (read_now[i], added[i]) = self.bill(&rules, &req, i, &mut prev[i], &mut counts);
                sums[i].add_one(&added[i]);
            }
            each(ix(k), &added, &read_now);
            if let Some(before) = before {
                at(&Step {
                    k: ix(k),
                    before,
                    after: sums,
                    read: read_now,
                });
            }
        }
        (sums, counts)
    }

    /// Bills one request for bound `i`: its output, and its prompt
    /// uncached, or written and read against what the previous request
    /// (`prev`) left in the cache; the cache's storage since then. Returns
    /// the tier and tokens read from the cache, if any, and what it adds to
    /// the bound's sums. Counts (on the lower bound) uncacheable requests,
    /// expiries and long-context requests.
    #[inline(always)]
    fn bill(
        &self,
        rules: &Rules,
        req: &Billed,
        i: usize,
        prev: &mut Option<i128>,
        counts: &mut Counts,
    ) -> (Option<(usize, i128)>, Added) {
        let num = req.num[i];
        let tier = rules.thresholds.iter().filter(|t| num > t[i]).count();
        let mut read_now = None;
        let mut added = Added {
            tier,
            ..Added::default()
        };
        // An explicit cache is stored from one request to the next, for at
        // most its lifetime.
        if let (true, Some(p), Some(life)) = (rules.stores, *prev, rules.lifetime) {
            added.storage += p * i128::from(req.gap.min(life));
        }
        added.output += i128::from(req.out) * rules.dens[i];
        let cacheable = rules.min.is_none_or(|m| num >= m[i]);
        if !rules.caches || !cacheable {
            added.uncached += num;
            *prev = None;
            if i == 0 && rules.caches {
                counts.uncacheable += 1;
            }
        } else {
            // After a compaction only the prefix is still cached; after a
            // new turn that drops earlier reasoning, the prefix and what did
            // not break; never more than the prompt itself.
            let prefix = rules.prefix[i];
            let shared = prev
                .map(|p| {
                    if req.compacted {
                        p.min(prefix)
                    } else if req.drops {
                        self.after_drop(p, prefix)
                    } else {
                        p + req.sent[i]
                    }
                })
                .map(|p| if i == 0 { p } else { self.hit(p) }.min(num));
            // After an expiry, the part of the prefix that other runs keep
            // cached (a recorded session's first request read it) is still
            // there, as recorded sessions mostly read it after a long gap;
            // `warm_share` says how often, where a thread showed otherwise.
            // Where a thread showed its cache outliving some expiries,
            // `survival` reads the whole prompt as often.
            let shared = match shared {
                Some(p) if req.expired => {
                    let w = rules.warm[i].map(|w| {
                        let w = self.still_warm(w);
                        if i == 0 { w } else { self.hit(w) }.min(num)
                    });
                    self.after_expiry(p, w)
                }
                shared => shared,
            };
            match shared {
                Some(p) => {
                    added.write += num - p;
                    added.read += p;
                    read_now = Some((tier, p));
                }
                None => added.write += num,
            }
            if i == 0 && req.expired && prev.is_some() {
                counts.expiries += 1;
            }
            *prev = Some(num);
        }
        if i == 0 && tier > 0 {
            counts.long_context += 1;
        }
        // After the final answer the cache lives out its lifetime.
        if let (true, true, Some(p), Some(life)) = (rules.stores, req.last, *prev, rules.lifetime) {
            added.storage += p * i128::from(life);
        }
        (read_now, added)
    }

    /// The money of per-bound sums (see [`Run::sequence`]).
    pub(crate) fn priced(&self, sums: [Sums; 2], rates: &Rates) -> Priced {
        self.usd(sums, rates)
    }

    fn usd(&self, sums: [Sums; 2], rates: &Rates) -> Priced {
        let dens = self.scale.denominators();
        let at: [crate::pricing::ClassRates; TIERS] = std::array::from_fn(|t| rates.at(t));
        let money = |get: fn(&Sums) -> [i128; TIERS], price: [Decimal; TIERS]| {
            let one = |i: usize| {
                let s = get(&sums[i]);
                let scaled: Decimal = (0..TIERS)
                    .filter(|t| s[*t] != 0)
                    .map(|t| Decimal::from_i128_with_scale(s[t], 0) * price[t])
                    .sum();
                (scaled / Decimal::from_i128_with_scale(dens[i], 0) / PER_MILLION).normalize()
            };
            Bounds {
                lower: one(0),
                upper: one(1),
            }
        };
        let storage_price = rates.cache_storage_per_hour.unwrap_or_default();
        let stored = |i: usize| {
            if sums[i].storage == 0 {
                return Decimal::ZERO;
            }
            (Decimal::from_i128_with_scale(sums[i].storage, 0) * storage_price
                / Decimal::from_i128_with_scale(dens[i], 0)
                / Decimal::from(3_600_000u32)
                / PER_MILLION)
                .normalize()
        };
        Priced {
            uncached_input: money(|s| s.uncached, at.map(|c| c.input)),
            cache_write: money(|s| s.write, at.map(|c| c.cache_write)),
            cache_read: money(|s| s.read, at.map(|c| c.cache_read)),
            output: money(|s| s.output, at.map(|c| c.output)),
            storage: Bounds {
                lower: stored(0),
                upper: stored(1),
            },
            counts: Counts::default(),
        }
    }
}

/// Replays, for one bound (0 lower, 1 upper), an arbitrary sequence of
/// requests pushed one at a time under the same rules as [`Run::tally`]:
/// each request's long-context tier, the minimum cacheable length, expiry
/// after the cache lifetime, storage. A request reads from the cache the
/// part of its prompt that is still the previous prompt's prefix (`keep`)
/// and writes the rest. The plain run (`keep` = the previous prompt) gives
/// exactly [`Run::tally`]'s sums. Pushed, not pulled from an iterator, so
/// that each strategy's loop inlines the billing of its requests.
pub(crate) struct Sequence<'r> {
    run: &'r Run<'r>,
    den: i128,
    caches: bool,
    lifetime: Option<u64>,
    min: Option<i128>,
    thresholds: Vec<i128>,
    stores: bool,
    timed: bool,
    warm: Option<i128>,
    s: Sums,
    counts: Counts,
    prev: Option<i128>,
    first: bool,
}

impl<'r> Sequence<'r> {
    pub(crate) fn new(run: &'r Run<'r>, bound: usize, cache: Cache, rates: &Rates) -> Self {
        let caches = rates.caches(cache);
        let warm = run.scale.warm()[bound];
        Sequence {
            run,
            den: run.scale.denominators()[bound],
            caches,
            lifetime: rates.lifetime_ms(cache),
            min: rates
                .min_cacheable_tokens
                .map(|t| run.scale.tokens(t)[bound]),
            thresholds: rates
                .long_context
                .iter()
                .map(|lc| run.scale.tokens(lc.threshold_tokens)[bound])
                .collect(),
            stores: caches && rates.cache_storage_per_hour.is_some(),
            timed: run.gaps_ms.is_some(),
            warm,
            s: Sums::default(),
            counts: Counts::default(),
            prev: warm,
            first: true,
        }
    }

    /// Bills the next request.
    #[inline(always)]
    pub(crate) fn push(&mut self, r: &Request) {
        let (s, counts, run) = (&mut self.s, &mut self.counts, self.run);
        let tier = self.thresholds.iter().filter(|t| r.prompt > **t).count();
        let expired =
            matches!(self.lifetime, Some(life) if self.timed && !self.first && r.gap_ms > life);
        if let (true, Some(p), Some(life)) = (self.stores, self.prev, self.lifetime) {
            s.storage += p * i128::from(r.gap_ms.min(life));
        }
        s.output[tier] += i128::from(r.output) * self.den;
        if !self.caches || self.min.is_some_and(|m| r.prompt < m) {
            s.uncached[tier] += r.prompt;
            self.prev = None;
            if self.caches {
                counts.uncacheable += 1;
            }
        } else {
            // As in [`Run::tally`]: the first request and one after an
            // expiry read the prefix other runs keep warm, and the whole
            // prompt after the share of expiries the cache survived.
            let reads = |p: i128| p.min(r.keep).min(r.prompt).max(0);
            let read = match (self.prev, self.warm) {
                (Some(p), w) if expired => {
                    run.after_expiry(reads(p), w.map(|w| reads(run.still_warm(w))))
                }
                (p, _) => p.map(reads),
            };
            match read {
                Some(read) => {
                    s.write[tier] += r.prompt - read;
                    s.read[tier] += read;
                }
                None => s.write[tier] += r.prompt,
            }
            if expired && self.prev.is_some() {
                counts.expiries += 1;
            }
            self.prev = Some(r.prompt);
        }
        if tier > 0 {
            counts.long_context += 1;
        }
        self.first = false;
    }

    /// Whether every request is billed by the plain rules: no long-context
    /// tier, no minimum cacheable length, no timing (so no expiry), no
    /// storage and nothing cached before the first request. A request's
    /// bill then depends on its prompt, its output and, after the first,
    /// what it reads: the least of the previous prompt, the prefix it
    /// keeps and its own prompt ([`Sequence::plain`]).
    pub(crate) fn is_plain(&self) -> bool {
        self.thresholds.is_empty()
            && self.min.is_none()
            && !self.timed
            && !self.stores
            && self.warm.is_none()
    }

    /// What [`Sequence::push`] sums for requests billed by the plain rules
    /// ([`Sequence::is_plain`]), from their totals: the prompts, what the
    /// requests after the first read, and the output in whole tokens. No
    /// request under these rules is counted ([`Counts`] stay zero).
    pub(crate) fn plain(&self, prompts: i128, reads: i128, output: u128) -> Sums {
        let mut s = Sums::default();
        s.output[0] = output.cast_signed() * self.den;
        if self.caches {
            s.write[0] = prompts - reads;
            s.read[0] = reads;
        } else {
            s.uncached[0] = prompts;
        }
        s
    }

    /// The sums and counts of every request pushed; after the last, the
    /// cache lives out its lifetime in storage.
    pub(crate) fn finish(mut self) -> (Sums, Counts) {
        if let (true, Some(p), Some(life)) = (self.stores, self.prev, self.lifetime) {
            self.s.storage += p * i128::from(life);
        }
        (self.s, self.counts)
    }
}

/// One request of a [`Run::sequence`], for one bound (token numerators).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Request {
    /// The prompt.
    pub prompt: i128,
    /// How much of the prompt is still the previous prompt's prefix.
    pub keep: i128,
    /// Output tokens (whole tokens, not a numerator).
    pub output: u64,
    /// Milliseconds since the previous request.
    pub gap_ms: u64,
    /// A summarisation request a strategy added (not one of the run's own).
    pub added: bool,
}

/// One kept request of a replay: the sums before and after it, and the
/// prefix it read from the cache (per bound: tier and tokens), if any.
struct Step {
    k: usize,
    before: [Sums; 2],
    after: [Sums; 2],
    read: [Option<(usize, i128)>; 2],
}

/// The token sums of a run's restarts where no rule applies, before they
/// are priced ([`Run::plain_restarts`]).
#[derive(Debug, Clone)]
pub(crate) struct PlainRestarts {
    /// Per kept request k: the sums after the requests before it (what
    /// starting over pays again), and what an expiry right before it adds.
    points: Vec<([Sums; 2], [Sums; 2])>,
    /// Σ over requests 0..N of the sums after each.
    all_before: [Sums; 2],
    /// Σ over every request of what an expiry right before it adds.
    all_extra: [Sums; 2],
}

#[cfg(test)]
impl Run<'_> {
    /// [`Run::restarts`] through the walk, whatever the rules: the
    /// reference the restarts without rules are checked against.
    pub(crate) fn walked_restarts(
        &self,
        cache: Cache,
        rates: &Rates,
        rows: &RowSet,
    ) -> (Vec<(Bounds, Bounds)>, (Bounds, Bounds)) {
        self.restarts_walked(cache, rates, rows)
    }

    /// Every request's model cost through the request-by-request walk: the
    /// reference [`Run::kept_costs`] is checked against.
    pub(crate) fn walked_costs(&self, cache: Cache, rates: &Rates) -> Vec<Bounds> {
        let mut out = Vec::new();
        self.walk(cache, rates, &|_| true, |step| {
            out.push(self.model(step.delta(), rates));
        });
        out
    }
}

impl Step {
    /// What this request added.
    fn delta(&self) -> [Sums; 2] {
        [
            self.after[0].minus(&self.before[0]),
            self.after[1].minus(&self.before[1]),
        ]
    }

    /// What an expired cache would add: the prefix read is written instead.
    fn expiry_extra(&self) -> [Sums; 2] {
        let mut out = [Sums::default(); 2];
        for (i, r) in self.read.iter().enumerate() {
            if let Some((tier, p)) = r {
                out[i].write[*tier] = *p;
                out[i].read[*tier] = -p;
            }
        }
        out
    }
}
