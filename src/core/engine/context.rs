//! Context management: the run replayed with compaction or with old tool
//! results cleared, against the plain run.
//!
//! Request k (k = 0..N) of the plain run carries the prefix P, k outputs of
//! o tokens and the k results before it; it reads the previous prompt from
//! the cache and writes the rest (seed 003).
//!
//! - **Compaction** at threshold Θ with a summary of S tokens: when request
//!   k's prompt would be above Θ (strictly), one summarisation request is
//!   sent first. It carries that whole prompt (reading the previous prompt
//!   from the cache, as any request) and answers with S output tokens. The
//!   history is then the summary: request k carries P + S, reads only the
//!   unchanged prefix P from the cache (the cache restarts after it) and
//!   writes S. Later requests grow from there, and compact again when they
//!   pass Θ. `CompactAt` compacts before given requests instead (the points
//!   an imported session recorded), each with its own summary size.
//! - **Clearing** with `keep` = K: a result stays in the context for the K
//!   requests after the one that first carries it, then leaves (a
//!   placeholder of no tokens replaces it). Request j thus carries results
//!   j−K..j. When result j−K−1 leaves, the prompt stops being an extension
//!   of the previous one at that result: request j reads P and the outputs
//!   before it (`P + (j−K−1)·o`) from the cache and writes everything after.
//!
//! Each bound (bytes ÷ b, × u) is replayed on its own, so compaction points
//! can differ between the bounds. Every rule of the plain replay applies
//! (tiers by prompt, minimum cacheable length, expiry, storage); the
//! summarisation request follows its gap, and the compacted request follows
//! the summary at once.

use super::replay::{Request, Run, Scale, Sequence, Sums};
use super::Bounds;
use crate::engine::ix;
use crate::scenario::{PricedVariant, Scenario};
use serde::{Deserialize, Serialize};

mod closed;

/// A way of keeping the context small.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "strategy", rename_all = "snake_case")]
pub enum Strategy {
    /// Nothing: every result stays.
    Plain,
    /// Summarise the history into `summary_tokens` when a prompt passes `threshold_tokens`.
    Compact {
        /// Θ, prompt tokens.
        threshold_tokens: u64,
        /// S, the summary's tokens.
        summary_tokens: u64,
    },
    /// Compact before the given requests (1-based request numbers, rising),
    /// each into its own summary size.
    CompactAt {
        /// (request number, summary tokens).
        points: Vec<(u64, u64)>,
    },
    /// Results leave the context `keep_steps` requests after they first appear.
    Clear {
        /// K.
        keep_steps: u64,
    },
}

/// What one strategy's replay cost and caused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrategyRun {
    /// The strategy.
    pub strategy: Strategy,
    /// Model cost (input, cache, output; no tool fees).
    pub cost: Bounds,
    /// Cache writes, tokens.
    pub cache_write_tokens: Bounds,
    /// Cache writes, money.
    pub cache_write_cost: Bounds,
    /// Requests sent, per bound (summarisation requests included).
    pub requests: [u64; 2],
    /// Compactions, or requests whose prefix a clearing broke, per bound.
    pub events: [u64; 2],
    /// The largest prompt, tokens.
    pub peak_prompt: Bounds,
    /// Requests' prompts, lower bound, in whole tokens (rounded down), as
    /// (request number from 1, prompt), when asked for ([`Keep`]): every
    /// request's, or an [`Outline`] of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts_lower: Vec<(u64, u64)>,
}

/// Which prompts (lower bound) a strategy's replay keeps, for a chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// None.
    Nothing,
    /// Every request's.
    Every,
    /// An [`Outline`]: all of a short run's, a long one's in about
    /// [`OUTLINE_POINTS`](crate::engine::OUTLINE_POINTS) points, without
    /// holding each request's (80 MB at 10,000,000 requests).
    Outline,
}

/// The outline of a line of `len` points handed over one at a time: every
/// point of a line of at most [`OUTLINE_POINTS`](crate::engine::OUTLINE_POINTS),
/// else, of each stretch of `len` ÷ (`OUTLINE_POINTS` ÷ 3) points (rounded
/// up), the first, the smallest (the first of equals) and the largest (the
/// last of equals), in order, and the line's last point.
pub struct Outline {
    len: u64,
    /// Points a stretch (`u64::MAX`: every point is kept).
    stretch: u64,
    /// Points handed over so far.
    seen: u64,
    /// Points still to come in the stretch being read.
    left: u64,
    /// The stretch being read: (number, value) of its first, smallest and
    /// largest point.
    open: Option<[(u64, u64); 3]>,
    last: Option<(u64, u64)>,
    points: Vec<(u64, u64)>,
}

impl Outline {
    /// The outline of a line of `len` points.
    pub fn new(len: u64) -> Outline {
        let most = crate::engine::OUTLINE_POINTS as u64;
        let stretch = if len <= most {
            u64::MAX
        } else {
            len.div_ceil(most / 3)
        };
        Outline {
            len,
            stretch,
            seen: 0,
            left: stretch,
            open: None,
            last: None,
            points: Vec::new(),
        }
    }

    /// Every point of a line, however long.
    pub fn every() -> Outline {
        Outline {
            stretch: u64::MAX,
            left: u64::MAX,
            ..Outline::new(0)
        }
    }

    /// Hands over the next point's value.
    #[inline(always)]
    pub fn push(&mut self, value: u64) {
        self.seen += 1;
        let p = (self.seen, value);
        self.last = Some(p);
        if self.stretch == u64::MAX {
            self.points.push(p);
            return;
        }
        match &mut self.open {
            None => self.open = Some([p; 3]),
            Some([_, lo, hi]) => {
                if value < lo.1 {
                    *lo = p;
                }
                if value >= hi.1 {
                    *hi = p;
                }
            }
        }
        self.left -= 1;
        if self.left == 0 {
            self.close();
            self.left = self.stretch;
        }
    }

    /// Ends the stretch being read.
    fn close(&mut self) {
        if let Some(mut three) = self.open.take() {
            three.sort_unstable_by_key(|p| p.0);
            for (i, p) in three.iter().enumerate() {
                if i == 0 || three[i - 1].0 != p.0 {
                    self.points.push(*p);
                }
            }
        }
    }

    /// The points kept (`len` of them handed over, or the outline of those
    /// that were).
    pub fn finish(mut self) -> Vec<(u64, u64)> {
        debug_assert!(self.stretch == u64::MAX || self.seen == self.len);
        self.close();
        if let Some(last) = self.last {
            if self.points.last() != Some(&last) {
                self.points.push(last);
            }
        }
        self.points
    }
}

/// Replays `variant` of `scenario` under each strategy, keeping per
/// strategy the prompts [`Keep`] says (for charts).
pub fn replay(
    scenario: &Scenario,
    variant: usize,
    strategies: &[(Strategy, Keep)],
) -> Vec<StrategyRun> {
    replays(scenario, variant, |replay| replay(strategies))
}

/// A [`replay`] of one variant: strategies in, their runs out.
pub type Replay<'a> = dyn Fn(&[(Strategy, Keep)]) -> Vec<StrategyRun> + 'a;

/// Hands `f` a [`replay`] of `variant` of `scenario` that replays from
/// sums computed once however often it is called (each is as large as the
/// trace).
pub fn replays<T>(scenario: &Scenario, variant: usize, f: impl FnOnce(&Replay) -> T) -> T {
    replays_by(scenario, variant, Billing::Sums, f)
}

/// How a strategy's requests are billed ([`replay`]: the fastest that
/// applies; the others are there to be compared with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Billing {
    /// Every request through every rule of [`Sequence`].
    EachRequest,
    /// Where the plain rules apply ([`Sequence::is_plain`]), each request's
    /// prompt, read and output summed ([`PlainTotals`]). (What
    /// [`Billing::Sums`] falls back on; asked for by itself in tests.)
    #[cfg(test)]
    PlainTotals,
    /// Where the plain rules apply, a clearing's or a compaction's totals
    /// from running sums ([`closed`]) when the run allows them, else
    /// [`Billing::PlainTotals`].
    Sums,
}

/// [`replay`], billed as `billing` says.
#[cfg(test)]
fn replay_by(
    scenario: &Scenario,
    variant: usize,
    strategies: &[(Strategy, Keep)],
    billing: Billing,
) -> Vec<StrategyRun> {
    replays_by(scenario, variant, billing, |replay| replay(strategies))
}

/// [`replays`], billed as `billing` says.
fn replays_by<T>(
    scenario: &Scenario,
    variant: usize,
    billing: Billing,
    f: impl FnOnce(&Replay) -> T,
) -> T {
    let pv = &scenario.variants()[variant];
    // A variant on a model of another tokenizer, at its own band.
    let a = scenario.assumptions_of(pv);
    let facts = scenario.trace_facts_at(&a);
    let sizes = &facts.sizes;
    let bytes = sizes.of_results(pv.variant.results);
    let gaps = sizes.gaps_ms(scenario.trace(), scenario.timing().as_ref());
    // Strategies replay the run as if nothing had been compacted, and by
    // the results' bytes (clearing takes results out by their size), even
    // where the trace counts their tokens: no compactions, no exact counts.
    let run = Run {
        gaps_ms: gaps,
        outputs: sizes.outputs.as_ref(),
        warm_share: Run::share(pv.warm_prefix_share),
        survival: Run::share(pv.survived_expiry_share),
        ..Run::new(
            Scale::new(&a),
            bytes,
            scenario.assumptions().final_output_tokens,
        )
    };
    let sums = RunSums::of(&run);
    f(&|strategies: &[(Strategy, Keep)]| {
        crate::par::map(strategies, |(s, keep)| {
            one(&run, &sums, pv, s, *keep, billing)
        })
    })
}

/// The prompt of each of the run's own requests (k = 0..N; summarisation
/// requests left out) under `strategy`, as exact token counts.
pub fn request_prompts(scenario: &Scenario, variant: usize, strategy: &Strategy) -> Vec<Bounds> {
    let pv = &scenario.variants()[variant];
    let a = scenario.assumptions_of(pv);
    let facts = scenario.trace_facts_at(&a);
    let sizes = &facts.sizes;
    // As in [`replay`]: no compactions, no exact counts.
    let run = Run {
        outputs: sizes.outputs.as_ref(),
        ..Run::new(
            Scale::new(&a),
            sizes.of_results(pv.variant.results),
            scenario.assumptions().final_output_tokens,
        )
    };
    let sums = RunSums::of(&run);
    let [lower, upper] = [0, 1].map(|bound| {
        let mut prompts = Vec::new();
        Requests::new(&run, &sums, bound, strategy).each(&mut With(|r: Request| {
            if !r.added {
                prompts.push(r.prompt);
            }
        }));
        prompts
    });
    lower
        .into_iter()
        .zip(upper)
        .map(|(l, u)| run.scale.tokens_of([l, u]))
        .collect()
}

fn one(
    run: &Run,
    run_sums: &RunSums,
    pv: &PricedVariant,
    strategy: &Strategy,
    keep: Keep,
    billing: Billing,
) -> StrategyRun {
    let mut sums = [Sums::default(); 2];
    let mut requests = [0u64; 2];
    let mut events = [0u64; 2];
    let mut peak = [0i128; 2];
    let den = run.scale.denominators();
    let mut prompts = match keep {
        Keep::Nothing => None,
        Keep::Every => Some(Outline::every()),
        Keep::Outline => Some(Outline::new(
            Requests::new(run, run_sums, 0, strategy).count(),
        )),
    };
    for bound in 0..2 {
        let reqs = Requests::new(run, run_sums, bound, strategy);
        let sequence = Sequence::new(run, bound, pv.variant.cache, &pv.rates);
        let kept = prompts.as_mut().filter(|_| bound == 0).map(|p| (p, den[0]));
        let plain = billing != Billing::EachRequest && sequence.is_plain();
        // Prompts kept one by one need each request.
        let closed = (plain && billing == Billing::Sums && kept.is_none())
            .then(|| reqs.closed())
            .flatten();
        let (count, top) = if let Some(t) = closed {
            sums[bound] = sequence.plain(t.prompts, t.reads, t.output);
            (t.count, t.top)
        } else if plain {
            let mut billed = Billed::new(kept, PlainTotals::default());
            reqs.each(&mut billed);
            let t = &billed.bill;
            sums[bound] = sequence.plain(t.prompts, t.reads, t.output);
            (billed.count, billed.top)
        } else {
            let mut billed = Billed::new(kept, sequence);
            reqs.each(&mut billed);
            sums[bound] = billed.bill.finish().0;
            (billed.count, billed.top)
        };
        requests[bound] = count;
        peak[bound] = top;
        events[bound] = match strategy {
            Strategy::Plain => 0,
            Strategy::Clear { keep_steps } => reqs.cleared(*keep_steps),
            // Each compaction adds one summarisation request.
            Strategy::Compact { .. } | Strategy::CompactAt { .. } => count - (reqs.n() + 1),
        };
    }
    let priced = run.priced(sums, &pv.rates);
    let tokens = |n: [i128; 2]| run.scale.tokens_of(n);
    StrategyRun {
        strategy: strategy.clone(),
        cost: priced.uncached_input
            + priced.cache_write
            + priced.cache_read
            + priced.output
            + priced.storage,
        cache_write_tokens: tokens([sums[0].written(), sums[1].written()]),
        cache_write_cost: priced.cache_write,
        requests,
        events,
        peak_prompt: tokens(peak),
        prompts_lower: prompts.map(Outline::finish).unwrap_or_default(),
    }
}

/// What every strategy of a run replays from, computed once: per bound and
/// per request k = 0..=N, the numerator of the output sent back and the
/// unmeasured tokens up to it, out(k), and of the bytes of results 1..=k,
/// cum(k), with D(k) = out(k) + cum(k). Both bounds' come from one pair of
/// running sums, of the tokens and of the bytes ([`closed::Running`]: each
/// term is the difference of two neighbours, times the bound's factor of
/// [`Scale::numerator_out`]'s line), as large as the trace however many
/// strategies replay it. A prompt holding the output of requests `from..k`
/// and the results `first + 1..=k` is the prefix plus D(k) − D(from) +
/// cum(from) − cum(first). The running sums give a clearing's or
/// compaction's totals over a stretch of requests at once ([`closed`]).
struct RunSums {
    prefix: [i128; 2],
    /// Per bound, the numerators of an output token and of a byte.
    per: [(i128, i128); 2],
    /// Per bound, out(0).
    out0: [i128; 2],
    running: closed::Running,
    /// Per bound, whether the prefix is not negative and out and cum never
    /// fall: every prompt then extends the one before it until a strategy
    /// takes something out (where [`closed`]'s sums hold).
    monotone: [bool; 2],
    /// The results (1-based) of no bytes, rising.
    empty: Vec<u64>,
    /// The output every request 0..=N is billed for, in whole tokens.
    billed: u128,
}

impl RunSums {
    /// The sums of `run`.
    fn of(run: &Run) -> RunSums {
        let n = run.bytes.len();
        let lines = [run.scale.line_of(0), run.scale.line_of(1)];
        let mut running = closed::Running::with_capacity(n + 1);
        let (mut c, mut rising, mut last, mut first) = (0u128, true, 0u128, 0u128);
        for k in 0..=n {
            if k > 0 {
                c += u128::from(run.bytes[k - 1]);
            }
            let o = run.resent(k as u64) + run.unmeasured(k as u64);
            if k == 0 {
                first = o;
            } else {
                rising &= last <= o;
            }
            last = o;
            // `limits::replay_fits` keeps every prompt's numerator, and so
            // each of its terms and their sums, far below 2^127.
            running.push(o.cast_signed(), c.cast_signed());
        }
        RunSums {
            prefix: lines.map(|l| l[0]),
            per: lines.map(|l| (l[1], l[2])),
            out0: lines.map(|l| first.cast_signed() * l[1]),
            running,
            monotone: lines.map(|l| rising && l.iter().all(|x| *x >= 0)),
            empty: (1..=n as u64)
                .filter(|g| run.bytes[ix(g - 1)] == 0)
                .collect(),
            billed: (0..=n as u64).map(|k| u128::from(run.billed(k))).sum(),
        }
    }

    /// Bound `b`'s out, cum and D from the running sums.
    fn bound(&self, b: usize) -> closed::Bound<'_> {
        let (per_out, per_byte) = self.per[b];
        self.running.bound(per_out, per_byte)
    }
}

/// What takes a strategy's requests, in order: a trait rather than a
/// closure, so that its method, marked to be inlined, is compiled into each
/// strategy's loop. A closure that bills a request is too large for the
/// compiler to inline on its own; as a call per request, the
/// 1,000,000-row context-management plan took 1.41 s instead of 1.26 s.
trait Take {
    fn take(&mut self, r: Request);
}

/// A closure as a [`Take`].
struct With<F>(F);

impl<F: FnMut(Request)> Take for With<F> {
    #[inline(always)]
    fn take(&mut self, r: Request) {
        (self.0)(r)
    }
}

/// What bills a strategy's requests for one bound, in order.
trait Bill {
    fn bill(&mut self, r: &Request);
}

/// Every rule of the plain replay.
impl Bill for Sequence<'_> {
    #[inline(always)]
    fn bill(&mut self, r: &Request) {
        self.push(r);
    }
}

/// The totals [`Sequence::plain`] turns into a bound's sums where every
/// request is billed by the plain rules ([`Sequence::is_plain`]): no trip
/// through rules that cannot apply (the grid replays every request about
/// 60 times per bound).
#[derive(Default)]
struct PlainTotals {
    /// The previous prompt (none before the first request).
    prev: Option<i128>,
    /// Every prompt, what the requests after the first read, and the
    /// output in whole tokens.
    prompts: i128,
    reads: i128,
    output: u128,
}

impl Bill for PlainTotals {
    #[inline(always)]
    fn bill(&mut self, r: &Request) {
        // What [`Sequence::push`] reads under these rules.
        if let Some(p) = self.prev {
            self.reads += p.min(r.keep).min(r.prompt).max(0);
        }
        self.prev = Some(r.prompt);
        self.prompts += r.prompt;
        self.output += u128::from(r.output);
    }
}

/// One bound's replay of a strategy: its requests billed, counted, the
/// largest prompt, and (when kept) each prompt in whole tokens.
struct Billed<'a, B> {
    count: u64,
    top: i128,
    /// Where each prompt goes, and the numerator of a token.
    prompts: Option<(&'a mut Outline, i128)>,
    bill: B,
}

impl<'a, B: Bill> Billed<'a, B> {
    fn new(prompts: Option<(&'a mut Outline, i128)>, bill: B) -> Self {
        Billed {
            count: 0,
            top: 0,
            prompts,
            bill,
        }
    }
}

impl<B: Bill> Take for Billed<'_, B> {
    #[inline(always)]
    fn take(&mut self, r: Request) {
        self.count += 1;
        self.top = self.top.max(r.prompt);
        if let Some((prompts, den)) = &mut self.prompts {
            prompts.push(whole_tokens(r.prompt, *den));
        }
        self.bill.bill(&r);
    }
}

/// The whole tokens (rounded down) of the numerator `num` over `den`,
/// `u64::MAX` past it. A prompt and a token's numerator fit 64 bits in
/// any run of a size a trace can have, and a 64-bit division takes a
/// fraction of a 128-bit one's time (one per request a chart draws).
#[inline(always)]
fn whole_tokens(num: i128, den: i128) -> u64 {
    match (u64::try_from(num), u64::try_from(den)) {
        (Ok(n), Ok(d)) if d > 0 => n / d,
        _ => u64::try_from(num / den).unwrap_or(u64::MAX),
    }
}

/// The requests of one strategy for one bound.
struct Requests<'a> {
    run: &'a Run<'a>,
    bound: usize,
    strategy: &'a Strategy,
    sums: &'a RunSums,
}

impl<'a> Requests<'a> {
    fn new(
        run: &'a Run<'a>,
        sums: &'a RunSums,
        bound: usize,
        strategy: &'a Strategy,
    ) -> Requests<'a> {
        Requests {
            run,
            bound,
            strategy,
            sums,
        }
    }

    fn n(&self) -> u64 {
        self.run.bytes.len() as u64
    }

    /// Request k's prompt numerator holding the results `from_result + 1
    /// ..= k`, and the output of requests `from..k` sent back and the
    /// unmeasured tokens that entered with them (`from` = 0: all of it).
    #[inline(always)]
    fn num(&self, from: u64, k: u64, from_result: u64) -> i128 {
        let r = self.sums.bound(self.bound);
        self.sums.prefix[self.bound] + (r.d(k) - r.d(from)) + (r.cum(from) - r.cum(from_result))
    }

    /// The numerator of the prefix and the output before request k, with
    /// no result.
    #[inline(always)]
    fn without_results(&self, k: u64) -> i128 {
        let (s, b) = (self.sums, self.bound);
        let r = s.bound(b);
        s.prefix[b] + (r.d(k) - r.cum(k)) - s.out0[b]
    }

    fn output(&self, k: u64) -> u64 {
        self.run.billed(k)
    }

    fn gap(&self, k: u64) -> u64 {
        self.run.gaps_ms.map_or(0, |g| g.get(ix(k)).unwrap_or(0))
    }

    /// Results that leave the context under `Clear { keep_steps }` while
    /// something still follows them: the requests whose prefix breaks.
    fn cleared(&self, keep: u64) -> u64 {
        let last = self.n().saturating_sub(keep.saturating_add(1));
        last - self.sums.empty.partition_point(|g| *g <= last) as u64
    }

    /// How many requests the strategy sends (summarisation requests
    /// included): from the running sums where they hold, else counted.
    fn count(&self) -> u64 {
        match self.strategy {
            Strategy::Plain | Strategy::Clear { .. } => self.n() + 1,
            Strategy::Compact { .. } | Strategy::CompactAt { .. } => match self.closed() {
                Some(t) => t.count,
                None => {
                    let mut count = 0u64;
                    self.each(&mut With(|_: Request| count += 1));
                    count
                }
            },
        }
    }

    /// Hands the strategy's requests to `f`, in order. Each strategy is its
    /// own loop, with `f`'s [`Take::take`] inlined into it: no iterator
    /// state and no call per request.
    #[inline(always)]
    fn each(&self, f: &mut impl Take) {
        match self.strategy {
            Strategy::Plain => self.plain(f),
            Strategy::Clear { keep_steps } => self.clear(*keep_steps, f),
            Strategy::Compact {
                threshold_tokens,
                summary_tokens,
            } => {
                let theta = self.run.scale.tokens(*threshold_tokens)[self.bound];
                self.compact(|_, prompt| (prompt > theta).then_some(*summary_tokens), f)
            }
            Strategy::CompactAt { points } => self.compact(
                |k, _| points.iter().find(|(at, _)| *at == k + 1).map(|(_, s)| *s),
                f,
            ),
        }
    }

    #[inline(always)]
    fn plain(&self, f: &mut impl Take) {
        for k in 0..=self.n() {
            let prompt = self.num(0, k, 0);
            f.take(Request {
                prompt,
                keep: prompt,
                output: self.output(k),
                gap_ms: self.gap(k),
                added: false,
            });
        }
    }

    #[inline(always)]
    fn clear(&self, keep: u64, f: &mut impl Take) {
        for j in 0..=self.n() {
            // Results j−K..=j are present (1-based; result i is first carried by request i).
            let first = j.saturating_sub(keep).max(1);
            let prompt = self.num(0, j, first - 1);
            // Result j−K−1 leaves now: the prefix breaks where it stood.
            let keep_num = match j.checked_sub(keep.saturating_add(1)) {
                Some(gone) if gone >= 1 && self.run.bytes[ix(gone - 1)] > 0 => {
                    self.without_results(gone)
                }
                _ => prompt,
            };
            f.take(Request {
                prompt,
                keep: keep_num,
                output: self.output(j),
                gap_ms: self.gap(j),
                added: false,
            });
        }
    }

    /// Compaction: `when(k, prompt)` gives the summary size when request k
    /// (0-based) compacts before it is sent: a summarisation request, then
    /// the request itself on the prefix and the summary.
    #[inline(always)]
    fn compact(&self, when: impl Fn(u64, i128) -> Option<u64>, f: &mut impl Take) {
        let mut base_step = 0u64;
        let mut summary = 0i128;
        let den = self.run.scale.denominators()[self.bound];
        let prefix = self.without_results(0);
        for k in 0..=self.n() {
            let prompt = self.num(base_step, k, base_step) + summary;
            match when(k, prompt).filter(|_| k > 0) {
                None => f.take(Request {
                    prompt,
                    keep: prompt,
                    output: self.output(k),
                    gap_ms: self.gap(k),
                    added: false,
                }),
                Some(s) => {
                    base_step = k;
                    summary = i128::from(s) * den;
                    f.take(Request {
                        prompt,
                        keep: prompt,
                        output: s,
                        gap_ms: self.gap(k),
                        added: true,
                    });
                    f.take(Request {
                        prompt: prefix + summary,
                        keep: prefix,
                        output: self.output(k),
                        gap_ms: 0,
                        added: false,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Timing;
    use rust_decimal::Decimal;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn whole_tokens_are_the_128_bit_quotient_rounded_down_or_the_largest() {
        let big = i128::from(u64::MAX);
        let nums = [
            0,
            1,
            5,
            9,
            10,
            11,
            999_999,
            big - 1,
            big,
            big + 1,
            big * 7,
            -1,
            -9,
            -10,
            -11,
            i128::MIN,
            i128::MAX,
        ];
        for num in nums {
            for den in [1, 2, 3, 10, 1_000_000, big, big + 1, i128::MAX] {
                let want = u64::try_from(num / den).unwrap_or(u64::MAX);
                assert_eq!(whole_tokens(num, den), want, "{num} / {den}");
            }
        }
    }

    /// P = 100, o = 10, final 20, b = 4, u = 1.5; four results of 400 bytes
    /// (100 tokens, lower). Prices per million: write 10, read 0.2, output 40.
    /// Plain prompts (lower): 100, 210, 320, 430, 540.
    fn four() -> Scenario {
        super::super::tests::scenario(&[(400, 400); 4], vec![])
    }

    fn cached(s: &Scenario, strategy: Strategy) -> StrategyRun {
        replay(s, 1, &[(strategy, Keep::Every)]).remove(0)
    }

    /// The prompts a run kept, without their request numbers.
    fn values(r: &StrategyRun) -> Vec<u64> {
        r.prompts_lower.iter().map(|p| p.1).collect()
    }

    fn compact(threshold: u64) -> Strategy {
        Strategy::Compact {
            threshold_tokens: threshold,
            summary_tokens: 50,
        }
    }

    /// Whether `variant` of `s` is billed by the plain rules.
    fn plain_rules(s: &Scenario, variant: usize) -> bool {
        let pv = &s.variants()[variant];
        let facts = s.trace_facts();
        let run = Run::new(
            Scale::new(s.assumptions()),
            facts.sizes.of_results(pv.variant.results),
            s.assumptions().final_output_tokens,
        );
        Sequence::new(&run, 0, pv.variant.cache, &pv.rates).is_plain()
    }

    #[test]
    fn the_plain_rules_billing_sums_what_every_request_through_the_rules_sums() {
        // Traces of 1 to 40 results, a fifth of them empty (a cleared empty
        // result breaks no prefix), every strategy at several settings, on
        // the uncached and the cached variant: the same runs either way.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m.max(1)
        };
        // Each with and without its prompts kept (kept, every request is
        // billed; not kept, a clearing or compaction sums its totals).
        let mut strategies = vec![
            (Strategy::Plain, Keep::Every),
            (Strategy::Plain, Keep::Outline),
            (Strategy::Plain, Keep::Nothing),
        ];
        for keep_steps in [0, 1, 2, 3, 5, 8, 39, 40, 41, 100, 1500, 4000, u64::MAX] {
            for kept in [Keep::Every, Keep::Outline, Keep::Nothing] {
                strategies.push((Strategy::Clear { keep_steps }, kept));
            }
        }
        // Θ from below the prefix (every request after the first compacts,
        // and again after its summary) to above every prompt.
        for threshold_tokens in [0, 99, 100, 149, 150, 151, 300, 700, 2000, 100_000] {
            for summary_tokens in [0, 50, 400] {
                for kept in [Keep::Every, Keep::Outline, Keep::Nothing] {
                    strategies.push((
                        Strategy::Compact {
                            threshold_tokens,
                            summary_tokens,
                        },
                        kept,
                    ));
                }
            }
        }
        strategies.push((
            Strategy::CompactAt {
                points: vec![(3, 40), (7, 80)],
            },
            Keep::Outline,
        ));
        // The last rounds are longer than the blocks a clearing's largest
        // prompt is looked for in, with every few thousand results one far
        // larger (the largest prompt is then not near the end).
        for round in 0..64 {
            let len = if round < 60 {
                next(40)
            } else {
                3000 + next(2000)
            };
            let results: Vec<(u64, u64)> = (0..=len)
                .map(|_| {
                    let raw = match next(3000) {
                        0 => 2_000_000,
                        r if r % 5 == 0 => 0,
                        _ => next(3000),
                    };
                    (raw, raw / 3)
                })
                .collect();
            let s = super::super::tests::scenario(&results, vec![]);
            for variant in 0..s.variants().len() {
                assert!(
                    plain_rules(&s, variant),
                    "round {round}: the plain rules apply"
                );
                let each = replay_by(&s, variant, &strategies, Billing::EachRequest);
                // An outline kept as the requests go is the outline of
                // every prompt, kept whole beside it (a run of more than
                // OUTLINE_POINTS requests in the last rounds).
                for (i, run) in each.iter().enumerate().skip(1) {
                    if strategies[i].1 == Keep::Outline && strategies[i - 1].1 == Keep::Every {
                        let every = &each[i - 1].prompts_lower;
                        let mut outline = Outline::new(every.len() as u64);
                        every.iter().for_each(|p| outline.push(p.1));
                        assert_eq!(run.prompts_lower, outline.finish(), "round {round}");
                        assert!(run.prompts_lower.len() <= crate::engine::OUTLINE_POINTS + 1);
                    }
                }
                for billing in [Billing::PlainTotals, Billing::Sums] {
                    assert_eq!(
                        replay_by(&s, variant, &strategies, billing),
                        each,
                        "round {round}, variant {variant}, {billing:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn plain_run_matches_the_engine() {
        // Writes 100 + 4 × 110 = 540, reads 1,060, output 60:
        // 540 × 10 + 1,060 × 0.2 + 60 × 40 = 8,012 per million.
        let s = four();
        let r = cached(&s, Strategy::Plain);
        assert_eq!(r.cost.lower, d("0.008012"));
        assert_eq!(values(&r), vec![100, 210, 320, 430, 540]);
        assert_eq!(r.cache_write_tokens.lower, d("540"));
        let sim = crate::engine::simulate(&s, crate::engine::SimulateOptions::TOTALS);
        let c = &sim.variants[1].cost;
        let model = c.input + c.output + c.cache_storage;
        assert_eq!(r.cost, model);
    }

    #[test]
    fn compaction_at_the_threshold_does_not_compact() {
        // Θ = 320: request 2's prompt is 320, not above; request 3's 430 is.
        // Summary request: 430 in, 50 out. Request 3: P + S = 150, reads P.
        // Request 4: 150 + 10 + 100 = 260.
        let r = cached(&four(), compact(320));
        assert_eq!(values(&r), vec![100, 210, 320, 430, 150, 260]);
        assert_eq!(r.events[0], 1);
        assert_eq!(r.requests[0], 6);
        // Writes 100 + 110 + 110 + 110 + 50 + 110 = 590; reads 0 + 100 +
        // 210 + 320 + 100 + 150 = 880; output 10 × 3 + 50 + 10 + 20 = 110.
        assert_eq!(r.cache_write_tokens.lower, d("590"));
        assert_eq!(r.cost.lower, d("0.010476")); // 5,900 + 176 + 4,400
        assert_eq!(r.peak_prompt.lower, d("430"));
        // One token above the threshold: the same run.
        let above = cached(&four(), compact(321));
        assert_eq!(above.prompts_lower, r.prompts_lower);
        assert_eq!(above.cost, r.cost);
    }

    #[test]
    fn compaction_one_token_below_compacts_earlier_and_twice() {
        // Θ = 319: request 2 (320) compacts to 150; request 3 is 260;
        // request 4 would be 150 + 20 + 200 = 370 and compacts again.
        let r = cached(&four(), compact(319));
        assert_eq!(values(&r), vec![100, 210, 320, 150, 260, 370, 150]);
        assert_eq!(r.events[0], 2);
        // Writes 100 + 110 + 110 + 50 + 110 + 110 + 50 = 640; reads 0 + 100
        // + 210 + 100 + 150 + 260 + 100 = 920; output 10 + 10 + 50 + 10 + 10
        // + 50 + 20 = 160.
        assert_eq!(r.cache_write_tokens.lower, d("640"));
        assert_eq!(r.cost.lower, d("0.012984")); // 6,400 + 184 + 6,400
    }

    #[test]
    fn compaction_upper_bound_uses_its_own_prompts() {
        // Upper prompts: 150, 1.5 × 200 + 10 = 310, 1.5 × 300 + 20 = 470.
        // With Θ = 400 the upper bound compacts at k = 2 (to 150 + 50 = 200),
        // then 1.5 × 200 + 10 + 50 = 360, then 1.5 × 300 + 20 + 50 = 520
        // compacts again. The lower bound compacts once, at k = 3 (430).
        let r = cached(&four(), compact(400));
        assert_eq!(r.events, [1, 2]);
        assert_eq!(r.peak_prompt.upper, d("520"));
        assert_eq!(r.peak_prompt.lower, d("430"));
    }

    #[test]
    fn clearing_keeps_a_result_for_k_requests() {
        // K = 1: request j carries results j−1..j; results 1 and 2 leave at
        // requests 3 and 4, which read P + 10 and P + 20 from the cache.
        // Prompts 100, 210, 320, 330, 340; writes 100 + 110 + 110 + 220 + 220
        // = 760; reads 0 + 100 + 210 + 110 + 120 = 540; output 60.
        let r = cached(&four(), Strategy::Clear { keep_steps: 1 });
        assert_eq!(values(&r), vec![100, 210, 320, 330, 340]);
        assert_eq!(r.events[0], 2);
        assert_eq!(r.cache_write_tokens.lower, d("760"));
        assert_eq!(r.cost.lower, d("0.010108")); // 7,600 + 108 + 2,400
                                                 // K = 2 (one step more): only result 1 leaves, at request 4 (440,
                                                 // reading 110): writes 100 + 110 + 110 + 110 + 330 = 760, reads 740.
        let r = cached(&four(), Strategy::Clear { keep_steps: 2 });
        assert_eq!(values(&r), vec![100, 210, 320, 430, 440]);
        assert_eq!(r.events[0], 1);
        assert_eq!(r.cost.lower, d("0.010148")); // 7,600 + 148 + 2,400
                                                 // K = 0 (one step less): each result is carried once. Prompts 100,
                                                 // 210, 220, 230, 240; writes 100 + 4 × 110 = 540; reads 0 + 100 +
                                                 // 110 + 120 + 130 = 460.
        let r = cached(&four(), Strategy::Clear { keep_steps: 0 });
        assert_eq!(values(&r), vec![100, 210, 220, 230, 240]);
        assert_eq!(r.events[0], 3);
        assert_eq!(r.cost.lower, d("0.007892")); // 5,400 + 92 + 2,400
                                                 // K at least N − 1: nothing leaves, the plain run.
        let r = cached(&four(), Strategy::Clear { keep_steps: 3 });
        assert_eq!(r.cost, cached(&four(), Strategy::Plain).cost);
    }

    #[test]
    fn compact_at_recorded_points() {
        // Compacting before request 4 (1-based: the fourth request, k = 3)
        // into 50 tokens is Θ = 320's run (lower bound).
        let r = cached(
            &four(),
            Strategy::CompactAt {
                points: vec![(4, 50)],
            },
        );
        assert_eq!(r.cost.lower, cached(&four(), compact(320)).cost.lower);
        assert_eq!(r.events, [1, 1]);
    }

    #[test]
    fn plain_run_matches_the_engine_with_expiry() {
        // Gaps of 1 s of tool time + 400 s of model time: every request
        // after the first finds a 5-minute cache expired.
        let mut s = four();
        *s.timing_mut() = Some(Timing {
            model_ms_per_step: 400_000,
            pauses: Vec::new(),
        });
        let r = cached(&s, Strategy::Plain);
        let sim = crate::engine::simulate(&s, crate::engine::SimulateOptions::TOTALS);
        let c = &sim.variants[1].cost;
        assert_eq!(r.cost, c.input + c.output + c.cache_storage);
        assert_eq!(sim.variants[1].expiries, 4);
    }

    #[test]
    fn a_prefix_other_runs_keep_warm_is_read_first_and_after_each_expiry() {
        // 60 of the 100-token prefix are cached by other runs. Every request
        // after the first finds this run's cache expired (400 s), yet reads
        // the 60: writes 40 + 150 + 260 + 370 + 480 = 1,300, reads 5 × 60 =
        // 300, output 60: 1,300 × 10 + 300 × 0.2 + 60 × 40 = 15,460 per
        // million. The engine's replay agrees.
        let mut s = four();
        s.assumptions_mut().prefix_cached_tokens = 60;
        *s.timing_mut() = Some(Timing {
            model_ms_per_step: 400_000,
            pauses: Vec::new(),
        });
        let r = cached(&s, Strategy::Plain);
        assert_eq!(r.cost.lower, d("0.01546"));
        assert_eq!(r.cache_write_tokens.lower, d("1300"));
        let sim = crate::engine::simulate(&s, crate::engine::SimulateOptions::TOTALS);
        let c = &sim.variants[1].cost;
        assert_eq!(r.cost, c.input + c.output + c.cache_storage);
    }

    #[test]
    fn a_cache_that_outlives_an_expiry_is_read_whole_in_the_what_ifs_too() {
        // As above, but the cache survives half of the expiries: each
        // request after the first reads half of the previous prompt (100,
        // 210, 320, 430) and half of the warm 60 (30): 80, 135, 190, 245
        // of prompts 210, 320, 430, 540. Reads 60 + 650 = 710, writes
        // 40 + 1,500 − 650 = 890; 890 × 10 + 710 × 0.2 + 60 × 40 = 11,442
        // per million. The engine's replay agrees.
        let mut s = four();
        s.assumptions_mut().prefix_cached_tokens = 60;
        *s.timing_mut() = Some(Timing {
            model_ms_per_step: 400_000,
            pauses: Vec::new(),
        });
        for pv in s.variants_mut() {
            pv.survived_expiry_share = Some(d("0.5"));
        }
        let r = cached(&s, Strategy::Plain);
        assert_eq!(r.cache_write_tokens.lower, d("890"));
        assert_eq!(r.cost.lower, d("0.011442"));
        let sim = crate::engine::simulate(&s, crate::engine::SimulateOptions::TOTALS);
        let c = &sim.variants[1].cost;
        assert_eq!(r.cost, c.input + c.output + c.cache_storage);
    }
}
