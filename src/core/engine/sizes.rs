//! The sizes a replay runs on: a trace's tool results grouped into steps
//! (one per result, or one per recorded request), with each step's output,
//! gap, tool time, compactions and model.

use super::*;
use crate::scenario::content::{units, ContentWeights};

/// The tool results that enter the context, and the steps they form: the
/// context that enters before each request after the first, raw and
/// trimmed. A hand-written trace has one step per result; an imported one
/// (every row names its `request`) has one step per recorded request, which
/// may follow several results, or only a user message or attachment.
pub(crate) struct Sizes {
    /// The rows (0-based) whose body enters the context, in order (a
    /// trace holds at most [`MAX_TRACE_ROWS`](crate::limits::MAX_TRACE_ROWS)
    /// rows, so four bytes each: see [`Sizes::result_rows`]).
    result_rows: Vec<u32>,
    /// How many of them carry an exact `o200k_tokens` count.
    pub(crate) counted_results: u64,
    /// Per step, bytes raw and trimmed, in the units of the content
    /// weights the sizes were computed with (bytes without weights; see
    /// [`Assumptions::units`]).
    pub(crate) raw: Vec<u64>,
    pub(crate) trimmed: Vec<u64>,
    /// Bytes of every result, raw and trimmed (not weighed).
    pub(crate) bytes: [u64; 2],
    /// The step each result belongs to (0-based).
    pub(crate) step_of: StepOf,
    /// The call number of each step's last result, in an imported trace
    /// (in a hand-written one, the call of the step's own row: see
    /// [`Sizes::call`]; nothing kept, 80 MB at 10,000,000 rows).
    calls: Vec<Option<u32>>,
    /// Each request's output, when the trace records it.
    pub(crate) outputs: Option<StepOutputs>,
    /// The recorded gap before each request (index 0: the first), when the
    /// trace records it.
    pub(crate) gaps: Option<Vec<u64>>,
    /// Per step, the tool latency since the previous request (every row's,
    /// errors and replays included): an imported trace's, kept as its steps
    /// are made; a hand-written one's, summed from its rows when first asked
    /// ([`Sizes::tool_ms`]: a plain replay never asks, 80 MB at 10,000,000
    /// rows).
    tool_ms: std::sync::OnceLock<Vec<u64>>,
    /// Rows the client cleared from the context (imported traces): the
    /// step each entered with, the step before whose request it left, its
    /// units raw and trimmed, and whether it carries an exact count.
    clears: Vec<Clear>,
    /// Recorded compactions, when the trace marks any: for raw and for
    /// trimmed results.
    pub(crate) compactions: Option<[Compactions; 2]>,
    /// The recorded model of each request 0..=N (imported traces; the
    /// first request's is not in the trace).
    pub(crate) models: Vec<Option<String>>,
    /// When rows carry `o200k_tokens`: what a model of that tokenizer
    /// replays instead.
    pub(crate) counted: Option<Counted>,
}

/// The step each tool result belongs to: in a hand-written trace (every
/// result a step of its own) the result's own number, so nothing is kept
/// (80 MB at 10,000,000 results); in an imported one, one index a result.
pub(crate) enum StepOf {
    /// Result j is step j, for the first `.0` results.
    Own(usize),
    /// Result j is step `.0[j]`.
    Grouped(Vec<usize>),
}

impl StepOf {
    /// The step of result `j` (0-based), if there is such a result.
    pub(crate) fn get(&self, j: usize) -> Option<usize> {
        match self {
            StepOf::Own(n) => (j < *n).then_some(j),
            StepOf::Grouped(steps) => steps.get(j).copied(),
        }
    }

    /// The step of result `j`, which is one of the results.
    pub(crate) fn of(&self, j: usize) -> usize {
        match self {
            StepOf::Own(_) => j,
            StepOf::Grouped(steps) => steps[j],
        }
    }
}

/// A row cleared from the context before a later request (see [`Sizes`]).
#[derive(Clone, Copy)]
struct Clear {
    /// The step it entered with.
    entered: usize,
    /// The step before whose request it left.
    left: usize,
    /// Its units, raw and trimmed.
    units: [u64; 2],
    /// It carries an exact `o200k_tokens` count.
    counted: bool,
}

/// The steps of a trace whose rows carry exact `o200k_tokens` counts, as a
/// model of that tokenizer sees them: the counted rows' bytes taken out of
/// each step, and their tokens entering as exact tokens (in both bounds),
/// cumulated per request like unmeasured tokens. A trimmed result counts
/// only when trimming left it whole; one trimmed smaller goes by its bytes.
pub(crate) struct Counted {
    /// Per step, bytes (in units) of the rows not counted: raw and trimmed.
    bytes: [Vec<u64>; 2],
    /// Per request 0..=N, exact tokens that entered up to and including
    /// it (unmeasured and counted): raw and trimmed.
    exact: [Vec<u128>; 2],
    /// Recorded compactions over the uncounted bytes.
    compactions: Option<[Compactions; 2]>,
}

/// What one variant replays: each step's bytes, the exact tokens entered
/// per request when the trace counts them for its model, and the recorded
/// compactions over those bytes.
#[derive(Clone, Copy)]
pub(crate) struct View<'s> {
    pub(crate) bytes: &'s [u64],
    pub(crate) exact: Option<&'s [u128]>,
    pub(crate) compactions: Option<&'s Compactions>,
}

/// A row's 0-based index as [`Sizes`] keeps it: every trace is refused past
/// [`MAX_TRACE_ROWS`](crate::limits::MAX_TRACE_ROWS) rows when it is read
/// or generated, and no change adds rows, so it fits.
fn row_index(i: usize) -> u32 {
    const _: () = assert!(crate::limits::MAX_TRACE_ROWS <= u32::MAX as usize);
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl Sizes {
    /// The call number of step `k`'s last result; `trace` is the trace
    /// the sizes are of.
    pub(crate) fn call(&self, trace: &[TraceCall], k: usize) -> Option<u32> {
        match self.step_of {
            StepOf::Own(_) => trace[self.result_rows[k] as usize].call,
            StepOf::Grouped(_) => self.calls[k],
        }
    }

    /// How many tool results enter the context.
    pub(crate) fn results(&self) -> usize {
        self.result_rows.len()
    }

    /// The results' rows (0-based), in order, each with its own number `j`.
    pub(crate) fn result_rows(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.result_rows
            .iter()
            .enumerate()
            .map(|(j, &i)| (j, i as usize))
    }

    /// The steps of `trace`, their bytes in the units of `weights`.
    pub(crate) fn of(trace: &[TraceCall], weights: Option<&ContentWeights>) -> Sizes {
        let per_byte = weights.map(ContentWeights::per_byte);
        let per_byte = per_byte.as_ref();
        // Steps are recorded requests when every result names one (the
        // first that does not ends the look: a hand-written trace at once).
        let mut results = trace.iter().filter(|c| c.enters_context()).peekable();
        let grouped = results.peek().is_some() && results.all(|c| c.request().is_some());
        // One result a row at most: the vectors are not copied as they grow.
        let cap = trace.len();
        let mut sizes = Sizes {
            raw: Vec::with_capacity(cap),
            trimmed: Vec::with_capacity(cap),
            bytes: [0, 0],
            step_of: if grouped {
                StepOf::Grouped(Vec::with_capacity(cap))
            } else {
                StepOf::Own(0)
            },
            calls: Vec::with_capacity(if grouped { cap } else { 0 }),
            outputs: None,
            gaps: None,
            tool_ms: std::sync::OnceLock::new(),
            compactions: None,
            clears: Vec::new(),
            models: Vec::new(),
            counted_results: 0,
            result_rows: Vec::with_capacity(cap),
            counted: None,
        };
        // The first row of each step, for its output and gap (an imported
        // trace's steps only: a hand-written one has nothing recorded).
        let mut firsts: Vec<&TraceCall> = Vec::new();
        // Rows cleared from the context: step, request cleared before, units.
        let mut cleared: Vec<(usize, u64, [u64; 2], bool)> = Vec::new();
        let mut last_request = None;
        // An imported trace's tool time per step (a hand-written one's is
        // summed from the rows when asked).
        let mut tool_ms: Vec<u64> = Vec::with_capacity(if grouped { cap } else { 0 });
        // The latency of every row since the last result (errors and
        // replays included), added to the next result's step.
        let mut pending = 0u64;
        for (i, c) in trace.iter().enumerate() {
            pending = pending.saturating_add(c.latency_ms);
            if !c.enters_context() {
                continue;
            }
            sizes.result_rows.push(row_index(i));
            sizes.counted_results += u64::from(c.o200k_tokens().is_some());
            let new_step = !grouped || c.request() != last_request;
            last_request = c.request();
            let (raw, trimmed) = (c.raw_bytes.unwrap_or(0), c.trimmed_bytes.unwrap_or(0));
            sizes.bytes = [
                sizes.bytes[0].saturating_add(raw),
                sizes.bytes[1].saturating_add(trimmed),
            ];
            let raw_units = units(per_byte, raw, || c.content_kind());
            let trimmed_units = units(per_byte, trimmed, || c.content_kind());
            // A step's first result opens it; a later one adds to it.
            if new_step {
                sizes.raw.push(raw_units);
                sizes.trimmed.push(trimmed_units);
                if grouped {
                    sizes.calls.push(c.call);
                    tool_ms.push(pending);
                    firsts.push(c);
                }
            } else if let Some(k) = sizes.raw.len().checked_sub(1) {
                sizes.raw[k] = sizes.raw[k].saturating_add(raw_units);
                sizes.trimmed[k] = sizes.trimmed[k].saturating_add(trimmed_units);
                sizes.calls[k] = c.call.or(sizes.calls[k]);
                tool_ms[k] = tool_ms[k].saturating_add(pending);
            }
            let k = sizes.raw.len() - 1;
            pending = 0;
            match &mut sizes.step_of {
                StepOf::Own(n) => *n += 1,
                StepOf::Grouped(steps) => steps.push(k),
            }
            if let (true, Some(before)) = (grouped, c.cleared_before()) {
                cleared.push((
                    k,
                    before,
                    [raw_units, trimmed_units],
                    c.o200k_tokens().is_some(),
                ));
            }
        }
        if grouped {
            // The step whose request a row was cleared before (a request
            // number no step has clears nothing).
            sizes.clears = cleared
                .into_iter()
                .filter_map(|(entered, before, units, counted)| {
                    let left = firsts.iter().position(|f| f.request() == Some(before))?;
                    (left > entered).then_some(Clear {
                        entered,
                        left,
                        units,
                        counted,
                    })
                })
                .collect();
            sizes.clears.sort_by_key(|c| c.left);
            sizes.recorded_steps(&firsts);
            sizes.tool_ms = std::sync::OnceLock::from(tool_ms);
        }
        if sizes.counted_results > 0 {
            let results: Vec<&TraceCall> = trace.iter().filter(|c| c.enters_context()).collect();
            sizes.counted = Some(sizes.counted_steps(&results, &firsts, per_byte));
        }
        sizes
    }

    /// What an imported trace records per request (from each step's first
    /// row): the output billed and sent back, the gaps, the models, and the
    /// compactions.
    fn recorded_steps(&mut self, firsts: &[&TraceCall]) {
        if firsts.iter().all(|c| c.resent_output().is_some()) {
            self.outputs = Some(step_outputs(firsts));
        }
        if firsts.iter().all(|c| c.gap_ms().is_some()) {
            let mut gaps = Vec::with_capacity(firsts.len() + 1);
            gaps.push(0);
            gaps.extend(firsts.iter().map(|c| c.gap_ms().unwrap_or(0)));
            self.gaps = Some(gaps);
        }
        self.models.push(None);
        self.models.extend(
            firsts
                .iter()
                .map(|c| c.recorded().and_then(|r| r.model.clone())),
        );
        if firsts.iter().any(|c| c.compacted()) || !self.clears.is_empty() {
            self.compactions = Some([
                compactions(firsts, &self.raw, &self.clears, 0, false),
                compactions(firsts, &self.trimmed, &self.clears, 1, false),
            ]);
        }
    }

    /// The steps again for a model of the counts' tokenizer (see [`Counted`]).
    fn counted_steps(
        &self,
        results: &[&TraceCall],
        firsts: &[&TraceCall],
        per_byte: Option<&[u64; 3]>,
    ) -> Counted {
        let mut bytes = [self.raw.clone(), self.trimmed.clone()];
        let mut entered = [vec![0u128; self.raw.len()], vec![0u128; self.raw.len()]];
        for (j, c) in results.iter().enumerate() {
            let k = self.step_of.of(j);
            let Some(t) = c.o200k_tokens() else { continue };
            let raw = c.raw_bytes.unwrap_or(0);
            let trimmed = c.trimmed_bytes.unwrap_or(0);
            for (i, b) in [raw, trimmed].into_iter().enumerate() {
                if i == 1 && b != raw {
                    continue;
                }
                bytes[i][k] = bytes[i][k].saturating_sub(units(per_byte, b, || c.content_kind()));
                entered[i][k] += u128::from(t);
            }
        }
        let unmeasured = self.outputs.as_ref().map(|o| o.unmeasured.as_slice());
        let exact = entered.map(|per_step| {
            let mut cum = Vec::with_capacity(per_step.len() + 1);
            cum.push(unmeasured.map_or(0, |u| u[0]));
            let mut total = 0u128;
            for (k, t) in per_step.iter().enumerate() {
                total += t;
                cum.push(total + unmeasured.and_then(|u| u.get(k + 1)).copied().unwrap_or(0));
            }
            cum
        });
        let compactions = self.compactions.as_ref().map(|_| {
            [
                compactions(firsts, &bytes[0], &self.clears, 0, true),
                compactions(firsts, &bytes[1], &self.clears, 1, true),
            ]
        });
        Counted {
            bytes,
            exact,
            compactions,
        }
    }

    /// What a variant of `results` on `model` replays: the trace's counts
    /// when `model` tokenizes as they were counted, else bytes.
    pub(crate) fn view(&self, results: Content, model: &str) -> View<'_> {
        let i = match results {
            Content::Raw => 0,
            Content::Trimmed => 1,
        };
        match &self.counted {
            Some(c) if crate::pricing::tokenizer::counts_o200k(model) => View {
                bytes: &c.bytes[i],
                exact: Some(&c.exact[i]),
                compactions: c.compactions.as_ref().map(|c| &c[i]),
            },
            _ => View {
                bytes: self.of_results(results),
                exact: None,
                compactions: self.compactions_of(results),
            },
        }
    }

    pub(crate) fn of_results(&self, results: Content) -> &[u64] {
        match results {
            Content::Raw => &self.raw,
            Content::Trimmed => &self.trimmed,
        }
    }

    /// For a variant that prices each request on its recorded model: the
    /// index of each request's rates (0: the variant's own; i: `by_model[i−1]`).
    pub(crate) fn model_index(&self, pv: &PricedVariant) -> Option<Vec<u16>> {
        if pv.by_model.is_empty() || self.models.is_empty() {
            return None;
        }
        Some(
            self.models
                .iter()
                .map(|m| {
                    m.as_deref()
                        .and_then(|m| pv.by_model.iter().position(|b| b.model == m))
                        .map_or(0, |i| u16::try_from(i + 1).unwrap_or(u16::MAX))
                })
                .collect(),
        )
    }

    /// The recorded compactions for `results`.
    pub(crate) fn compactions_of(&self, results: Content) -> Option<&Compactions> {
        self.compactions.as_ref().map(|c| match results {
            Content::Raw => &c[0],
            Content::Trimmed => &c[1],
        })
    }

    /// The gap before each request: as recorded, else from the scenario's
    /// timing. `trace` is the trace the sizes are of.
    pub(crate) fn gaps_ms<'s>(
        &'s self,
        trace: &[TraceCall],
        timing: Option<&'s Timing>,
    ) -> Option<Gaps<'s>> {
        match &self.gaps {
            Some(recorded) => Some(Gaps::Listed(recorded)),
            None => timing.map(|t| self.timed(trace, t)),
        }
    }

    /// The gap before each request from `timing`: each step's tool
    /// latency, the model's time per step and the pauses.
    pub(crate) fn timed<'s>(&'s self, trace: &[TraceCall], timing: &'s Timing) -> Gaps<'s> {
        Gaps::Timed {
            tool_ms: self.tool_ms(trace),
            timing,
        }
    }

    /// Per step, the tool latency since the previous request: every row's
    /// after the previous step's last result, up to its own (errors and
    /// replays included). `trace` is the trace the sizes are of.
    pub(crate) fn tool_ms(&self, trace: &[TraceCall]) -> &[u64] {
        // An imported trace's were kept as its steps were made.
        self.tool_ms.get_or_init(|| {
            let mut sums = Vec::with_capacity(self.result_rows.len());
            let mut from = 0usize;
            for &row in &self.result_rows {
                let to = row as usize + 1;
                let rows = trace.get(from..to).unwrap_or_default();
                sums.push(
                    rows.iter()
                        .fold(0u64, |t, c| t.saturating_add(c.latency_ms)),
                );
                from = to;
            }
            sums
        })
    }
}

/// Each request's output billed, the output sent back in each prompt (less
/// what a finished turn dropped), where reasoning was dropped, and the
/// unmeasured tokens that entered, cumulated.
fn step_outputs(firsts: &[&TraceCall]) -> StepOutputs {
    let mut resent = Vec::with_capacity(firsts.len() + 1);
    resent.push(0u128);
    let mut total = 0u128;
    let mut billed = Vec::with_capacity(firsts.len());
    let mut drops = Vec::with_capacity(firsts.len() + 1);
    drops.push(false);
    let mut unmeasured = Vec::with_capacity(firsts.len() + 1);
    unmeasured.push(0u128);
    for c in firsts {
        let u = unmeasured.last().copied().unwrap_or(0);
        unmeasured.push(u + u128::from(c.unmeasured_tokens().unwrap_or(0)));
        drops.push(c.dropped_output().is_some());
        let r = c.resent_output().unwrap_or(0);
        // What a finished turn drops was sent back before it.
        total = (total + u128::from(r)).saturating_sub(u128::from(c.dropped_output().unwrap_or(0)));
        resent.push(total);
        billed.push(r.saturating_add(c.hidden_output().unwrap_or(0)));
    }
    StepOutputs {
        billed,
        resent,
        drops,
        unmeasured,
    }
}

/// Where the context was compacted, for steps of `bytes`: step k precedes
/// request k+1, and at a compaction everything before it is gone. A row
/// cleared before step k's request leaves too (its units, of bound column
/// `i`), unless a compaction since it entered took it already; with
/// `uncounted`, only rows without an exact count (the others' tokens are
/// counted apart and stay).
fn compactions(
    firsts: &[&TraceCall],
    bytes: &[u64],
    clears: &[Clear],
    i: usize,
    uncounted: bool,
) -> Compactions {
    let n = firsts.len();
    let mut c = Compactions {
        bytes: vec![0; n + 1],
        since: vec![0; n + 1],
        at: vec![false; n + 1],
    };
    let (mut cum, mut base, mut since) = (0u128, 0u128, 0u64);
    // Units cleared since the last compaction; `clears` is by step left.
    let (mut gone, mut next) = (0u128, 0usize);
    for (k, first) in firsts.iter().enumerate() {
        if first.compacted() {
            base = cum;
            since = k as u64 + 1;
            c.at[k + 1] = true;
            gone = 0;
        }
        while let Some(cl) = clears.get(next).filter(|cl| cl.left <= k) {
            next += 1;
            // Rows from the compaction's own step on are still there.
            let there = since == 0 || cl.entered as u64 + 1 >= since;
            if cl.left == k && there && !(uncounted && cl.counted) {
                gone += u128::from(cl.units[i]);
            }
        }
        cum += u128::from(bytes[k]);
        c.bytes[k + 1] = base + gone;
        c.since[k + 1] = since;
    }
    c
}
