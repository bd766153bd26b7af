//! A scenario's trace as every changed copy of the scenario shares it,
//! with what is computed from its rows alone, computed once.
//!
//! A what-if or a sweep point is a changed copy of the scenario; most
//! changes leave the trace alone, so the copies hold the same trace (one
//! `Arc`) and each replay would otherwise count the same ledger, statistics
//! and sizes again over every row. The first to ask computes them; a change
//! that rewrites rows ([`Trace::calls_mut`]) forgets them. The sizes count
//! bytes in the units of the content weights they were asked with; a copy
//! that weighs the content otherwise gets facts of its own.

use super::TraceCall;
use crate::engine::{stats::ledger_and_capabilities, CapabilityStats, Ledger, Sizes};
use crate::scenario::content::ContentWeights;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The rows of a trace and the facts of them asked for so far.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Trace {
    calls: Vec<TraceCall>,
    #[serde(skip)]
    sums: OnceLock<Sums>,
    #[serde(skip)]
    facts: OnceLock<Facts>,
}

/// The sums the replay-size check reads (every scenario is checked; one
/// pass over the rows).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Sums {
    /// Rows whose body enters the context.
    pub(crate) results: u64,
    /// Their bytes, the larger of raw and trimmed each.
    pub(crate) bytes: u128,
    /// The most output any request sends back or is billed for.
    pub(crate) output: u64,
    /// Results whose request's usage the trace records (imported traces).
    pub(crate) recorded: u64,
}

/// What a replay reads besides the scenario: the steps it runs on, the
/// data tools' ledger and the statistics per capability (computed only
/// when a scenario is replayed).
pub(crate) struct Facts {
    pub(crate) sizes: Sizes,
    pub(crate) ledger: Ledger,
    pub(crate) capabilities: Vec<CapabilityStats>,
    /// The content weights the sizes count in.
    weights: Option<ContentWeights>,
}

/// The facts a replay reads: those the trace keeps, or, for weights other
/// than the ones they were computed with, its own.
pub(crate) enum FactsRef<'a> {
    Shared(&'a Facts),
    Own(Box<Facts>),
}

impl std::ops::Deref for FactsRef<'_> {
    type Target = Facts;
    fn deref(&self) -> &Facts {
        match self {
            FactsRef::Shared(f) => f,
            FactsRef::Own(f) => f,
        }
    }
}

impl Trace {
    pub(crate) fn new(calls: Vec<TraceCall>) -> Trace {
        Trace {
            calls,
            sums: OnceLock::new(),
            facts: OnceLock::new(),
        }
    }

    /// The trace of `calls`, its replay-size sums computed, and the models
    /// its recorded requests name (each once, in order), in one pass over
    /// the rows.
    /// `gathered`, when given, are those of `calls`, gathered as they were
    /// read: the rows are not read again.
    pub(crate) fn with_recorded_models(
        calls: Vec<TraceCall>,
        gathered: Option<Gathered>,
    ) -> (Trace, Vec<String>) {
        let (sums, models) = match gathered {
            Some(g) => (g.sums, g.models.into_iter().collect()),
            None => {
                let (sums, models) = Sums::and_models(&calls);
                (sums, models.into_iter().map(str::to_string).collect())
            }
        };
        let trace = Trace::new(calls);
        trace.sums.get_or_init(|| sums);
        (trace, models)
    }

    /// The rows.
    pub fn calls(&self) -> &Vec<TraceCall> {
        &self.calls
    }

    /// The rows, to change: what was computed from them is forgotten.
    pub(crate) fn calls_mut(&mut self) -> &mut Vec<TraceCall> {
        self.sums = OnceLock::new();
        self.facts = OnceLock::new();
        &mut self.calls
    }

    /// The replay-size sums of the rows, computed on the first call.
    pub(crate) fn sums(&self) -> Sums {
        *self.sums.get_or_init(|| Sums::of(&self.calls))
    }

    /// The replay facts of the rows with the sizes in the units of
    /// `weights`, computed on the first call (and again, unkept, for
    /// weights other than the first caller's).
    pub(crate) fn facts(&self, weights: Option<&ContentWeights>) -> FactsRef<'_> {
        let kept = self.facts.get_or_init(|| Facts::of(&self.calls, weights));
        if kept.weights.as_ref() == weights {
            FactsRef::Shared(kept)
        } else {
            FactsRef::Own(Box::new(Facts::of(&self.calls, weights)))
        }
    }
}

impl Sums {
    /// One pass over the rows, on every thread of the pool (a stretch
    /// each; the sums and the largest are the same in any order).
    fn of(calls: &[TraceCall]) -> Sums {
        Sums::and_models(calls).0
    }

    /// [`Sums::of`], and in the same pass the models the rows' recorded
    /// requests name (each once).
    fn and_models(calls: &[TraceCall]) -> (Sums, BTreeSet<&str>) {
        crate::par::fold_reduce(
            calls,
            || (Sums::default(), BTreeSet::new()),
            |(mut sums, mut models), c| {
                if let Some(m) = sums.add(c) {
                    models.insert(m);
                }
                (sums, models)
            },
            |(a, mut models), (b, more)| {
                models.extend(more);
                (a.and(b), models)
            },
        )
    }

    /// Counts row `c` in: the model its recorded request names, if any.
    pub(crate) fn add<'c>(&mut self, c: &'c TraceCall) -> Option<&'c str> {
        let recorded = c.recorded();
        self.output = self.output.max(
            c.resent_output()
                .unwrap_or(0)
                .saturating_add(c.hidden_output().unwrap_or(0)),
        );
        if c.enters_context() {
            let size = c.raw_bytes.unwrap_or(0).max(c.trimmed_bytes.unwrap_or(0));
            self.results += 1;
            self.bytes += u128::from(size);
            self.recorded += u64::from(recorded.is_some());
        }
        recorded.and_then(|r| r.model.as_deref())
    }

    /// The sums of two stretches of rows.
    pub(crate) fn and(self, b: Sums) -> Sums {
        Sums {
            results: self.results + b.results,
            bytes: self.bytes + b.bytes,
            output: self.output.max(b.output),
            recorded: self.recorded + b.recorded,
        }
    }
}

/// The sums of rows and the models they name, gathered as the rows are
/// read (the rows are then not read again for them).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Gathered {
    pub(crate) sums: Sums,
    pub(crate) models: BTreeSet<String>,
}

/// (Only the pool's readers gather as they read.)
#[cfg(feature = "parallel")]
impl Gathered {
    /// Counts row `c` in.
    pub(crate) fn add(&mut self, c: &TraceCall) {
        if let Some(m) = self.sums.add(c) {
            if !self.models.contains(m) {
                self.models.insert(m.to_string());
            }
        }
    }

    /// Counts the rows `more` gathered in.
    pub(crate) fn merge(&mut self, more: Gathered) {
        self.sums = self.sums.and(more.sums);
        self.models.extend(more.models);
    }
}

impl Facts {
    fn of(calls: &[TraceCall], weights: Option<&ContentWeights>) -> Facts {
        let (sizes, (ledger, capabilities)) = crate::par::join(
            || Sizes::of(calls, weights),
            || ledger_and_capabilities(calls),
        );
        Facts {
            sizes,
            ledger,
            capabilities,
            weights: weights.copied(),
        }
    }
}

/// The facts by their size (the steps are as long as the trace).
impl std::fmt::Debug for Facts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Facts")
            .field("steps", &self.sizes.raw.len())
            .field("capabilities", &self.capabilities.len())
            .finish_non_exhaustive()
    }
}

/// A copy computes its facts again: the rows are what is shared, through
/// the `Arc` a scenario holds them in.
impl Clone for Trace {
    fn clone(&self) -> Trace {
        Trace::new(self.calls.clone())
    }
}

/// Two traces are equal when their rows are.
impl PartialEq for Trace {
    fn eq(&self, other: &Trace) -> bool {
        self.calls == other.calls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(row: usize, raw: u64, status: u16) -> TraceCall {
        let mut c = crate::engine::tests::call(row, raw, raw / 2);
        c.status = status;
        c.imported_mut().hidden_output = Some(7);
        c
    }

    /// A row as [`call`], its request's usage recorded.
    fn recorded(row: usize, raw: u64, status: u16) -> TraceCall {
        let mut c = call(row, raw, status);
        c.imported_mut().recorded = Some(crate::scenario::trace::Recorded::default());
        c
    }

    #[test]
    fn facts_are_of_the_rows_and_forgotten_when_they_change() {
        let mut trace = Trace::new(vec![call(1, 100, 200), call(2, 40, 503), call(3, 60, 200)]);
        let sums = trace.sums();
        assert_eq!((sums.results, sums.bytes, sums.output), (2, 160, 7));
        assert_eq!(sums.recorded, 0);
        // Usage recorded with an error (no result) is not a result's.
        let with_usage = Trace::new(vec![
            recorded(1, 100, 200),
            recorded(2, 40, 503),
            call(3, 60, 200),
        ]);
        assert_eq!(with_usage.sums().recorded, 1);
        let facts = trace.facts(None);
        assert_eq!(facts.ledger.errors, 1);
        assert_eq!(facts.capabilities[0].raw_bytes, 160);
        trace.calls_mut()[0].raw_bytes = Some(1000);
        let sums = trace.sums();
        assert_eq!((sums.results, sums.bytes), (2, 1060));
        assert_eq!(trace.facts(None).capabilities[0].raw_bytes, 1060);
        // A clone has rows only; equal traces are equal rows.
        let copy = trace.clone();
        assert!(copy.facts.get().is_none() && copy.sums.get().is_none());
        assert_eq!(copy, trace);
    }
}
