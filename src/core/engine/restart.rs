//! The restart what-if's replays: the cost of starting over or resuming
//! before each request.

use super::*;

/// What one restart before request `before_request` costs each variant
/// (model cost only, lower and upper bound).
#[derive(Debug, Clone, PartialEq)]
pub struct RestartCost {
    /// The 1-based request the worker restarts before.
    pub before_request: u64,
    /// Per variant: the model cost of requests 1 … k−1, paid again when starting over.
    pub start_over: Vec<Bounds>,
    /// Per variant: what resuming adds, the cache having expired: request k
    /// writes its whole prefix instead of reading it. Without timing, the
    /// gaps are the tool latencies alone.
    pub resume: Vec<Bounds>,
}

/// One variant's restart pass: the sums of a pass without rules (shared by
/// the later variants with the same requests), or, for a variant the rules
/// apply to, its own priced walk. A variant sharing an earlier pass has none.
enum Pass {
    Plain(Box<crate::engine::replay::PlainRestarts>),
    Priced((Vec<(Bounds, Bounds)>, (Bounds, Bounds))),
}

/// Restart costs at chosen requests, and summed over every request but the first.
#[derive(Debug, Clone, PartialEq)]
pub struct Restarts {
    /// The chosen requests, in order.
    pub points: Vec<RestartCost>,
    /// Per variant: Σ start-over model cost over requests 2 … N+1.
    pub start_over_sum: Vec<Bounds>,
    /// Per variant: Σ resume cost over requests 2 … N+1.
    pub resume_sum: Vec<Bounds>,
}

/// Restart costs before each of `points` (1-based requests, ascending), and
/// summed over every request, for every variant, in two linear replays per
/// variant.
pub fn restarts(scenario: &Scenario, points: &[u64]) -> Restarts {
    let a = &scenario.assumptions();
    let sizes = &scenario.trace_facts().sizes;
    let raw = &sizes.raw;
    let mut keep = vec![false; raw.len() + 1];
    for &k in points {
        if let Some(slot) = keep.get_mut(ix(k).wrapping_sub(1)) {
            *slot = true;
        }
    }
    let rows = RowSet::Selected(keep);
    let own_gaps = sizes.gaps_ms(scenario.trace(), scenario.timing().as_ref());
    let untimed = Timing {
        model_ms_per_step: 0,
        pauses: Vec::new(),
    };
    let resume_gaps = own_gaps.unwrap_or_else(|| {
        sizes.timed(
            scenario.trace(),
            scenario.timing().as_ref().unwrap_or(&untimed),
        )
    });
    let scale = Scale::new(a);
    // A variant on a model of another tokenizer replays at its own band,
    // its facts computed beside the other variants'.
    let bands: Vec<_> = crate::par::map(scenario.variants(), |pv| {
        match scenario.assumptions_of(pv) {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(own) => Some((Scale::new(&own), scenario.trace_facts_at(&own))),
        }
    });
    let runs: Vec<Run> = scenario
        .variants()
        .iter()
        .zip(&bands)
        .map(|(pv, band)| {
            let (scale, sizes) = band
                .as_ref()
                .map_or((scale, sizes), |(s, f)| (*s, &f.sizes));
            let view = sizes.view(pv.variant.results, &pv.model);
            Run {
                scale,
                bytes: view.bytes,
                final_output: a.final_output_tokens,
                gaps_ms: own_gaps,
                outputs: sizes.outputs.as_ref(),
                compactions: view.compactions,
                exact: view.exact,
                hit_share: Run::share(pv.upper_hit_share()),
                turn_break: Run::share(pv.turn_break_share),
                warm_share: Run::share(pv.warm_prefix_share),
                survival: Run::share(pv.survived_expiry_share),
            }
        })
        .collect();
    // Where no rule applies, the sums do not depend on the prices, tier or
    // cache: variants whose requests are the same (raw and trimmed results
    // are two) share one pass, priced for each.
    let walked: Vec<bool> = runs
        .iter()
        .zip(scenario.variants())
        .map(|(run, pv)| run.rules_apply(pv.variant.cache, &pv.rates))
        .collect();
    let plain: Vec<Option<usize>> = (0..runs.len())
        .map(|v| {
            (!walked[v]).then(|| {
                (0..v)
                    .find(|&u| !walked[u] && runs[u].same_plain_restarts(&runs[v]))
                    .unwrap_or(v)
            })
        })
        .collect();
    // The passes side by side: each sum-only pass once, each variant the
    // rules apply to on its own.
    let passes = crate::par::map(0..runs.len(), |v| match plain[v] {
        Some(first) if first != v => None,
        Some(_) => Some(Pass::Plain(Box::new(runs[v].plain_restarts(&rows)))),
        None => {
            let pv = &scenario.variants()[v];
            Some(Pass::Priced(runs[v].restarts(
                pv.variant.cache,
                &pv.rates,
                &rows,
            )))
        }
    });
    let replays: Vec<_> = crate::par::map(0..runs.len(), |v| {
        let (pv, own) = (&scenario.variants()[v], &runs[v]);
        let (cache, rates) = (pv.variant.cache, &pv.rates);
        let priced;
        let (before, sums) = match &passes[v] {
            Some(Pass::Priced((before, sums))) => (before, *sums),
            _ => {
                let Some(Some(Pass::Plain(p))) = plain[v].map(|first| &passes[first]) else {
                    unreachable!("the first variant of a plain pass made it")
                };
                priced = own.price_restarts(p, cache, rates);
                (&priced.0, priced.1)
            }
        };
        let resumed = Run {
            gaps_ms: Some(resume_gaps),
            ..*own
        };
        // The resumed replay bills as the run's own when the run is timed
        // (the same gaps) or the gaps it adds reach nothing in the bill:
        // its replay is then the one just made.
        let resumed_own = (own_gaps.is_none() && own.gaps_reach_bill(cache, rates, resume_gaps))
            .then(|| resumed.restarts(cache, rates, &rows));
        let (extra, extra_sums) = resumed_own
            .as_ref()
            .map_or((before, sums), |(e, s)| (e, *s));
        let points: Vec<(Bounds, Bounds)> =
            before.iter().zip(extra).map(|(b, e)| (b.0, e.1)).collect();
        (points, sums.0, extra_sums.1)
    });
    let start_over_sum = replays.iter().map(|r| r.1).collect();
    let resume_sum = replays.iter().map(|r| r.2).collect();
    let per_variant: Vec<Vec<(Bounds, Bounds)>> = replays.into_iter().map(|r| r.0).collect();
    let kept: Vec<u64> = (0..=raw.len())
        .filter(|k| rows.has(*k))
        .map(|k| k as u64 + 1)
        .collect();
    Restarts {
        points: kept
            .iter()
            .enumerate()
            .map(|(p, &k)| RestartCost {
                before_request: k,
                start_over: per_variant.iter().map(|v| v[p].0).collect(),
                resume: per_variant.iter().map(|v| v[p].1).collect(),
            })
            .collect(),
        start_over_sum,
        resume_sum,
    }
}
