//! Context management what-ifs: compaction and clearing old tool results,
//! each tried over a range of settings against the plain run, with the
//! setting that costs least.
//!
//! The replays are the engine's ([`crate::engine::context`]). Without listed
//! settings, thresholds are [`GRID`] even steps from just above the compacted
//! prompt (u·P + S) to the plain run's largest prompt (upper bound) or the
//! model's context window, whichever is smaller, and
//! `keep_steps` are 0, 1, 2, 3, 4, 6, 8, 12, 16, … (each step about × 1.5)
//! up to N − 2 (at N − 1 nothing leaves: the plain run).

use crate::engine::context::{replays, Keep, Replay, Strategy, StrategyRun};
use crate::engine::Bounds;
use crate::scenario::{ContextCase, Scenario};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Settings a default grid tries per strategy.
pub const GRID: u64 = 16;

/// The prompt of each request (lower bound), thinned for charts: for long
/// runs, the smallest and the largest prompt of each stretch, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptLine {
    /// What was replayed.
    pub label: String,
    /// (request number from 1, prompt tokens, lower bound).
    pub points: Vec<(u64, u64)>,
}

/// The context-management what-if of one variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextManagement {
    /// The variant replayed.
    pub variant: String,
    /// S, the summary's tokens.
    pub summary_tokens: u64,
    /// The plain run.
    pub plain: StrategyRun,
    /// Compaction at each threshold, rising.
    pub compaction: Vec<StrategyRun>,
    /// Clearing at each keep, rising.
    pub clearing: Vec<StrategyRun>,
    /// Index into `compaction` of the cheapest (lower bound; the smaller setting on a tie).
    pub best_compaction: Option<usize>,
    /// Index into `clearing` of the cheapest.
    pub best_clearing: Option<usize>,
    /// Prompts per request: plain, best compaction, best clearing.
    pub lines: Vec<PromptLine>,
}

impl ContextManagement {
    /// The best run of each strategy, after the plain run.
    pub fn best(&self) -> Vec<&StrategyRun> {
        std::iter::once(&self.plain)
            .chain(self.best_compaction.map(|i| &self.compaction[i]))
            .chain(self.best_clearing.map(|i| &self.clearing[i]))
            .collect()
    }
}

/// How a strategy reads in tables and charts.
pub fn describe(s: &Strategy) -> String {
    match s {
        Strategy::Plain => "plain (every result stays)".into(),
        Strategy::Compact {
            threshold_tokens, ..
        } => format!(
            "compaction above {} tokens",
            crate::text::group_thousands(&threshold_tokens.to_string())
        ),
        Strategy::CompactAt { points } => format!("compaction at {} recorded points", points.len()),
        Strategy::Clear { keep_steps } => format!(
            "clearing results after {keep_steps} step{}",
            if *keep_steps == 1 { "" } else { "s" }
        ),
    }
}

/// The default thresholds: [`GRID`] even steps from `lo` (exclusive) to `hi`.
fn threshold_grid(lo: u64, hi: u64) -> Vec<u64> {
    if hi <= lo {
        return Vec::new();
    }
    let mut v: Vec<u64> = (1..=GRID)
        .map(|i| lo + ((u128::from(hi - lo) * u128::from(i)) / u128::from(GRID)) as u64)
        .collect();
    v.dedup();
    v
}

/// The default keeps: 0, 1, 2, 3, 4, 6, 8, 12, 16, … below `n − 1`.
fn keep_grid(n: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut k = 0u64;
    while k + 1 < n {
        v.push(k);
        k = match k {
            0..4 => k + 1,
            // 4, 6, 8, 12, 16, 24 ...: × 1.5, then × 4/3.
            k if k.is_power_of_two() => k + k / 2,
            k => k / 3 * 4,
        };
    }
    v
}

/// Keeps every point of short lines; of longer ones, each stretch's first,
/// smallest and largest prompt (in request order): the
/// [`Outline`](crate::engine::context::Outline) a replay keeps as it goes,
/// from a line held whole (the tests' reference).
#[cfg(test)]
fn thin(prompts: &[u64]) -> Vec<(u64, u64)> {
    use crate::engine::OUTLINE_POINTS;
    let all = |(i, p): (usize, &u64)| (i as u64 + 1, *p);
    if prompts.len() <= OUTLINE_POINTS {
        return prompts.iter().enumerate().map(all).collect();
    }
    let stretch = prompts.len().div_ceil(OUTLINE_POINTS / 3);
    let mut out = Vec::new();
    for (c, chunk) in prompts.chunks(stretch).enumerate() {
        let base = c * stretch;
        let lo = (0..chunk.len()).min_by_key(|i| chunk[*i]).unwrap_or(0);
        let hi = (0..chunk.len()).max_by_key(|i| chunk[*i]).unwrap_or(0);
        let mut idx = vec![0, lo, hi];
        idx.sort_unstable();
        idx.dedup();
        out.extend(
            idx.into_iter()
                .map(|i| (base as u64 + i as u64 + 1, chunk[i])),
        );
    }
    if let Some(last) = prompts.last() {
        if out.last().map(|p| p.0) != Some(prompts.len() as u64) {
            out.push((prompts.len() as u64, *last));
        }
    }
    out
}

fn cheapest(runs: &[StrategyRun]) -> Option<usize> {
    (0..runs.len()).min_by_key(|i| (runs[*i].cost.lower, runs[*i].cost.upper, *i))
}

/// The what-if for `case`, on `s`'s replays.
pub fn context_management(s: &Scenario, case: &ContextCase) -> ContextManagement {
    // Every replay of the case from the same sums.
    replays(s, case.variant, |replay| {
        context_management_by(s, case, replay)
    })
}

/// [`context_management`] with `replay` replaying the case's variant.
fn context_management_by(s: &Scenario, case: &ContextCase, replay: &Replay) -> ContextManagement {
    // The plain run's largest prompt bounds the compaction grid: taken
    // from its sums (no prompt kept, the closed form where it holds); the
    // plain run with its prompts is replayed beside the grid.
    let peak = replay(&[(Strategy::Plain, Keep::Nothing)])
        .remove(0)
        .peak_prompt;
    let floor = (Decimal::from(s.assumptions().prefix_tokens) * s.assumptions().tokenizer_uplift)
        .ceil()
        .to_u64()
        .unwrap_or(u64::MAX)
        .saturating_add(case.summary_tokens);
    let thresholds = if case.thresholds.is_empty() {
        let peak = peak.upper.ceil().to_u64().unwrap_or(0);
        // A compaction must fire before the prompt outgrows the window.
        let top = s
            .prices()
            .context_window_tokens
            .map_or(peak, |w| peak.min(w));
        threshold_grid(floor, top)
    } else {
        case.thresholds.clone()
    };
    // Keeps are counted in steps (requests), which an imported trace has
    // fewer of than results: counted in results, the grid listed keeps
    // past the last step, which never clear.
    let n = s.trace_facts().sizes.raw.len() as u64;
    let keeps = if case.keep_steps.is_empty() {
        keep_grid(n)
    } else {
        case.keep_steps.clone()
    };
    let compact = |t: u64| Strategy::Compact {
        threshold_tokens: t,
        summary_tokens: case.summary_tokens,
    };
    // The plain run first: walking every request to keep its prompts, it
    // is the longest job.
    let strategies: Vec<(Strategy, Keep)> = std::iter::once((Strategy::Plain, Keep::Outline))
        .chain(thresholds.iter().map(|t| (compact(*t), Keep::Nothing)))
        .chain(
            keeps
                .iter()
                .map(|k| (Strategy::Clear { keep_steps: *k }, Keep::Nothing)),
        )
        .collect();
    let mut runs = replay(&strategies);
    let clearing = runs.split_off(1 + thresholds.len());
    let compaction = runs.split_off(1);
    let mut plain = runs.remove(0);
    let plain_line = PromptLine {
        label: describe(&plain.strategy),
        points: std::mem::take(&mut plain.prompts_lower),
    };
    let best_compaction = cheapest(&compaction);
    let best_clearing = cheapest(&clearing);
    let drawn: Vec<(Strategy, Keep)> = best_compaction
        .map(|i| (compaction[i].strategy.clone(), Keep::Outline))
        .into_iter()
        .chain(best_clearing.map(|i| (clearing[i].strategy.clone(), Keep::Outline)))
        .collect();
    let lines = std::iter::once(plain_line)
        .chain(replay(&drawn).into_iter().map(|r| PromptLine {
            label: describe(&r.strategy),
            points: r.prompts_lower,
        }))
        .collect();
    ContextManagement {
        variant: s.variants()[case.variant].variant.name.clone(),
        summary_tokens: case.summary_tokens,
        plain,
        compaction,
        clearing,
        best_compaction,
        best_clearing,
        lines,
    }
}

/// The saving of `run` against the plain run (positive: cheaper).
pub fn saving(plain: &StrategyRun, run: &StrategyRun) -> Bounds {
    plain.cost - run.cost
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{Just, Strategy as _};

    #[test]
    fn grids() {
        assert_eq!(keep_grid(40), vec![0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32]);
        assert_eq!(keep_grid(2), vec![0]);
        assert_eq!(keep_grid(1), Vec::<u64>::new());
        assert_eq!(
            threshold_grid(100, 260),
            (1..=16).map(|i| 100 + i * 10).collect::<Vec<_>>()
        );
        assert_eq!(threshold_grid(100, 100), Vec::<u64>::new());
    }

    #[test]
    fn the_clearing_grid_counts_steps_and_each_of_its_keeps_clears_something() {
        // Six results: one a step (hand-written), or two a recorded request.
        let written = crate::engine::tests::scenario(&[(4000, 2000); 6], vec![]);
        let imported = crate::engine::tests::grouped(written.clone(), 2);
        let case = ContextCase {
            variant: 1,
            summary_tokens: 100,
            thresholds: Vec::new(),
            keep_steps: Vec::new(),
        };
        // A result entering before request k + 1 leaves before request
        // k + 2 + keep: a keep clears something below steps − 1.
        for (s, keeps) in [(&written, vec![0, 1, 2, 3, 4]), (&imported, vec![0, 1])] {
            let m = context_management(s, &case);
            let listed: Vec<u64> = m
                .clearing
                .iter()
                .map(|r| match r.strategy {
                    Strategy::Clear { keep_steps } => keep_steps,
                    _ => panic!("a clearing strategy"),
                })
                .collect();
            assert_eq!(listed, keeps);
            // (Cheaper or dearer: a clearing rewrites the cache after it.)
            for r in &m.clearing {
                assert_ne!(r.cost, m.plain.cost, "{:?}", r.strategy);
            }
        }
    }

    /// The outline a replay keeps of `line`, handed over a point at a time.
    fn outline(line: &[u64]) -> Vec<(u64, u64)> {
        let mut o = crate::engine::context::Outline::new(line.len() as u64);
        line.iter().for_each(|v| o.push(*v));
        o.finish()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Lengths around the point budget and its stretches, values with
        /// many equal neighbours (ties: the first smallest, the last
        /// largest) or few.
        #[test]
        fn an_outline_kept_as_the_points_come_is_the_outline_of_the_whole_line(
            line in proptest::prop_oneof![
                Just(0usize), Just(1), Just(2), Just(1999), Just(2000), Just(2001),
                Just(2666), Just(2667), Just(4000), Just(9001),
            ]
            .prop_flat_map(|len| {
                proptest::prop_oneof![Just(1u64), Just(3), Just(1_000_000)]
                    .prop_flat_map(move |spread| proptest::collection::vec(0..spread, len))
            })
        ) {
            proptest::prop_assert_eq!(outline(&line), thin(&line));
        }
    }

    #[test]
    fn every_point_is_kept_when_asked_for() {
        let mut every = crate::engine::context::Outline::every();
        (0..5000).for_each(|v| every.push(v));
        assert_eq!(
            every.finish(),
            (1..=5000).map(|k| (k, k - 1)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn thinning_keeps_the_extremes_of_each_stretch() {
        let short: Vec<u64> = (0..10).collect();
        assert_eq!(thin(&short).len(), 10);
        assert_eq!(outline(&short), thin(&short));
        // A saw: rises to 999 and drops, 3,000 times over.
        let saw: Vec<u64> = (0..3_000_000u64).map(|i| i % 1000).collect();
        let t = outline(&saw);
        assert_eq!(t, thin(&saw));
        assert!(t.len() <= crate::engine::OUTLINE_POINTS + 1);
        assert_eq!(t.iter().map(|p| p.1).max(), Some(999));
        assert_eq!(t.iter().map(|p| p.1).min(), Some(0));
        assert_eq!(t.last(), Some(&(3_000_000, 999)));
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
