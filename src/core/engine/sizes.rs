//! The sizes a replay runs on: a trace's tool results grouped into steps
//! (one per result, or one per recorded request), with each step's output,
//! gap, tool time, compactions and model.

use super::*;

/// The tool results that enter the context, and the steps they form: the
/// context that enters before each request after the first, raw and
/// trimmed. A hand-written trace has one step per result; an imported one
/// (every row names its `request`) has one step per recorded request, which
/// may follow several results, or only a user message or attachment.
pub(crate) struct Sizes<'a> {
    pub(crate) results: Vec<&'a TraceCall>,
    /// Per step, bytes raw and trimmed.
    pub(crate) raw: Vec<u64>,
    pub(crate) trimmed: Vec<u64>,
    /// The step each result belongs to (0-based).
    pub(crate) step_of: Vec<usize>,
    /// The call number of each step's last result.
    pub(crate) calls: Vec<Option<u32>>,
    /// Each request's output, when the trace records it.
    pub(crate) outputs: Option<StepOutputs>,
    /// The recorded gap before each request (index 0: the first), when the
    /// trace records it.
    pub(crate) gaps: Option<Vec<u64>>,
    /// Per step, the tool latency since the previous request (every row's,
    /// errors and replays included).
    pub(crate) tool_ms: Vec<u64>,
    /// Recorded compactions, when the trace marks any: for raw and for
    /// trimmed results.
    pub(crate) compactions: Option<[Compactions; 2]>,
    /// The recorded model of each request 0..=N (imported traces; the
    /// first request's is not in the trace).
    pub(crate) models: Vec<Option<&'a str>>,
}

impl<'a> Sizes<'a> {
    pub(crate) fn of(trace: &'a [TraceCall]) -> Sizes<'a> {
        let results: Vec<&TraceCall> = trace.iter().filter(|c| c.enters_context()).collect();
        let grouped = !results.is_empty() && results.iter().all(|c| c.request.is_some());
        let mut sizes = Sizes {
            raw: Vec::with_capacity(results.len()),
            trimmed: Vec::with_capacity(results.len()),
            step_of: Vec::with_capacity(results.len()),
            calls: Vec::with_capacity(results.len()),
            outputs: None,
            gaps: None,
            tool_ms: Vec::with_capacity(results.len()),
            compactions: None,
            models: Vec::new(),
            results: Vec::new(),
        };
        // Latency of every row since the last result, per result.
        let mut latency = Vec::with_capacity(results.len());
        let mut pending = 0u64;
        for c in trace {
            pending = pending.saturating_add(c.latency_ms);
            if c.enters_context() {
                latency.push(pending);
                pending = 0;
            }
        }
        // The first row of each step, for its output and gap.
        let mut firsts: Vec<&TraceCall> = Vec::new();
        let mut last_request = None;
        for (c, ms) in results.iter().zip(latency) {
            let new_step = !grouped || c.request != last_request;
            last_request = c.request;
            if new_step {
                sizes.raw.push(0);
                sizes.trimmed.push(0);
                sizes.calls.push(None);
                sizes.tool_ms.push(0);
                firsts.push(c);
            }
            let k = sizes.raw.len() - 1;
            sizes.tool_ms[k] = sizes.tool_ms[k].saturating_add(ms);
            sizes.raw[k] = sizes.raw[k].saturating_add(c.raw_bytes.unwrap_or(0));
            sizes.trimmed[k] = sizes.trimmed[k].saturating_add(c.trimmed_bytes.unwrap_or(0));
            sizes.calls[k] = c.call.or(sizes.calls[k]);
            sizes.step_of.push(k);
        }
        if grouped {
            sizes.recorded_steps(&firsts);
        }
        sizes.results = results;
        sizes
    }

    /// What an imported trace records per request (from each step's first
    /// row): the output billed and sent back, the gaps, the models, and the
    /// compactions.
    fn recorded_steps(&mut self, firsts: &[&'a TraceCall]) {
        if firsts.iter().all(|c| c.resent_output.is_some()) {
            self.outputs = Some(step_outputs(firsts));
        }
        if firsts.iter().all(|c| c.gap_ms.is_some()) {
            let mut gaps = Vec::with_capacity(firsts.len() + 1);
            gaps.push(0);
            gaps.extend(firsts.iter().map(|c| c.gap_ms.unwrap_or(0)));
            self.gaps = Some(gaps);
        }
        self.models.push(None);
        self.models.extend(
            firsts
                .iter()
                .map(|c| c.recorded.as_ref().and_then(|r| r.model.as_deref())),
        );
        if firsts.iter().any(|c| c.compacted) {
            self.compactions = Some([
                compactions(firsts, &self.raw),
                compactions(firsts, &self.trimmed),
            ]);
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
                    m.and_then(|m| pv.by_model.iter().position(|b| b.model == m))
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

    /// The gap before each request: as recorded, else from the scenario's timing.
    pub(crate) fn gaps_ms(&self, timing: Option<&Timing>) -> Option<Vec<u64>> {
        self.gaps.clone().or_else(|| timing.map(|t| self.timed(t)))
    }

    /// The gap before each request from `timing`: each step's tool
    /// latency, the model's time per step and the pauses.
    pub(crate) fn timed(&self, timing: &Timing) -> Vec<u64> {
        let mut gaps = Vec::with_capacity(self.tool_ms.len() + 1);
        timing.gaps_into(self.tool_ms.iter().copied(), &mut gaps);
        gaps
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
        unmeasured.push(u + u128::from(c.unmeasured_tokens.unwrap_or(0)));
        drops.push(c.dropped_output.is_some_and(|d| d > 0));
        let r = c.resent_output.unwrap_or(0);
        // What a finished turn drops was sent back before it.
        total = (total + u128::from(r)).saturating_sub(u128::from(c.dropped_output.unwrap_or(0)));
        resent.push(total);
        billed.push(r.saturating_add(c.hidden_output.unwrap_or(0)));
    }
    StepOutputs {
        billed,
        resent,
        drops,
        unmeasured,
    }
}

/// Where the context was compacted, for steps of `bytes`: step k precedes
/// request k+1, and at a compaction everything before it is gone.
fn compactions(firsts: &[&TraceCall], bytes: &[u64]) -> Compactions {
    let n = firsts.len();
    let mut c = Compactions {
        bytes: vec![0; n + 1],
        since: vec![0; n + 1],
        at: vec![false; n + 1],
    };
    let (mut cum, mut base, mut since) = (0u128, 0u128, 0u64);
    for (k, first) in firsts.iter().enumerate() {
        if first.compacted {
            base = cum;
            since = k as u64 + 1;
            c.at[k + 1] = true;
        }
        cum += u128::from(bytes[k]);
        c.bytes[k + 1] = base;
        c.since[k + 1] = since;
    }
    c
}
