//! The backtest: a trace that carries the provider's recorded usage (an
//! imported session) compared with the engine's replay of it.
//!
//! - Per request that carried tool results: the recorded prompt next to the
//!   engine's prompt band (bytes ÷ b … × u), and the recorded cost next to
//!   the engine's cost of that request, at the same price book.
//! - Bytes per token fitted from the recorded growth of the prompt between
//!   consecutive requests (minus the previous response, which is sent back
//!   as input) against the tool-result bytes added, with its spread.
//! - Cache breaks: a request that reads less from the cache than the
//!   previous request had cached; expiry (the gap exceeded the tier's
//!   lifetime) or a changed prefix, and what it cost against a cache read.

use crate::engine::{Bounds, Simulation};
use crate::pricing::{Cache, Mode, ModelPrices, PER_MILLION};
use crate::scenario::trace::Recorded;
use crate::scenario::Scenario;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use statrs::statistics::{Data, OrderStatistics};

/// The comparison of one variant with what was recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Backtest {
    /// The variant compared: the scenario's first (as recorded).
    pub variant: String,
    /// Requests that carried tool results, in order.
    pub requests: Vec<BacktestRow>,
    /// Σ recorded prompt tokens of those requests.
    pub recorded_prompt: u64,
    /// Σ simulated prompt tokens.
    pub simulated_prompt: Bounds,
    /// Σ recorded cost (requests on unpriced models excluded).
    pub recorded_cost: Decimal,
    /// Σ simulated cost of the same requests (model cost).
    pub simulated_cost: Bounds,
    /// Requests whose recorded model the book does not price.
    pub unpriced_requests: u64,
    /// Share (0–1) of requests whose recorded prompt lies in the simulated band.
    pub in_band: Decimal,
    /// Bytes per token fitted from the recorded growth, if any step grew.
    pub fit: Option<Fit>,
    /// Where the recorded cache broke.
    pub breaks: Vec<CacheBreak>,
    /// What writing again cost more than reading, summed over the breaks.
    #[serde(default)]
    pub breaks_extra_cost: Decimal,
    /// The recorded compactions replayed by the engine, if the session had any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<CompactionCheck>,
}

/// A session's recorded compactions, replayed: the engine's compaction at
/// the recorded points against the plain replay and the recorded prompts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactionCheck {
    /// The compactions found.
    pub points: Vec<CompactionPoint>,
    /// Σ recorded prompt over the requests that carried results.
    pub recorded_prompt: u64,
    /// Σ prompt of the plain replay (no compaction).
    pub plain_prompt: Bounds,
    /// Σ prompt of the replay that compacts at the recorded points.
    pub compacted_prompt: Bounds,
    /// Share (0–1) of requests whose recorded prompt lies in the compacted replay's band.
    pub in_band: Decimal,
    /// Compacted replay minus recorded, as a share of recorded (lower, upper).
    pub difference: Bounds,
    /// Plain replay minus recorded, as a share of recorded.
    pub plain_difference: Bounds,
    /// The same three sums over the requests from the first compaction on,
    /// where the replays differ.
    pub after: CompactionSums,
}

/// Prompt sums over some requests: recorded, plain replay, compacted replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactionSums {
    /// Requests summed.
    pub requests: u64,
    /// Σ recorded prompt.
    pub recorded: u64,
    /// Σ plain replay.
    pub plain: Bounds,
    /// Σ compacted replay.
    pub compacted: Bounds,
    /// Compacted replay minus recorded, as a share of recorded.
    pub difference: Bounds,
    /// Plain replay minus recorded, as a share of recorded.
    pub plain_difference: Bounds,
}

/// One recorded compaction: the prompt fell to less than half of the one before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactionPoint {
    /// The first request after it, as recorded.
    pub request: u64,
    /// Tool results carried by then.
    pub results: u64,
    /// Recorded prompt of the request before.
    pub prompt_before: u64,
    /// Recorded prompt of this request.
    pub prompt_after: u64,
    /// The summary the replay uses: this prompt minus the prefix P.
    pub summary_tokens: u64,
}

/// One request that carried tool results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BacktestRow {
    /// The request's number in its thread, as recorded.
    pub request: u64,
    /// Tool results carried so far (the engine's request index).
    pub results: u64,
    /// Recorded prompt (input + cache writes + reads).
    pub recorded_prompt: u64,
    /// The engine's prompt.
    pub simulated_prompt: Bounds,
    /// Recorded cost, if its model is priced.
    pub recorded_cost: Option<Decimal>,
    /// The engine's cost of this request.
    pub simulated_cost: Option<Bounds>,
}

/// Bytes per token from the recorded prompt growth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// Σ bytes added ÷ Σ tokens the prompt grew by (steps that grew).
    pub bytes_per_token: Decimal,
    /// Per-step ratios: 10th, 50th and 90th percentile (statrs, R-8).
    pub p10: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Steps used.
    pub steps: u64,
    /// Steps left out: the prompt shrank (compaction, clearing) or no bytes were added.
    pub skipped_steps: u64,
}

/// A request that read less from the cache than was cached before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheBreak {
    /// The request, as recorded.
    pub request: u64,
    /// Seconds since the previous request, if both have timestamps.
    pub gap_seconds: Option<u64>,
    /// `expiry` (the gap exceeded the tier's lifetime), `compaction` (the
    /// prompt fell below half the previous one) or `prefix changed`.
    pub cause: String,
    /// Tokens the previous request had cached that this one did not read.
    pub tokens: u64,
    /// What writing them again cost beyond reading them, if priced.
    pub extra_cost: Option<Decimal>,
}

/// The backtest of a scenario whose trace records usage; `None` without any.
/// `prices_of` looks up a recorded model's prices in the scenario's book.
pub fn backtest(
    s: &Scenario,
    sim: &Simulation,
    prices_of: &dyn Fn(&str) -> Option<ModelPrices>,
) -> Option<Backtest> {
    let v = sim.variants.first()?;
    // A trace with nothing recorded (the seed's format) has nothing to check.
    if !s.records_usage() {
        return None;
    }
    let results: Vec<&crate::scenario::TraceCall> =
        s.trace().iter().filter(|c| c.enters_context()).collect();
    let raw = v.variant.variant.results == crate::scenario::Content::Raw;
    let groups = groups(&results, raw);
    // The engine's own prompt of each request, as it replayed it (measured
    // prefix, each request's output, compactions, framing): the backtest
    // checks the replay, it does not compute one of its own.
    let profile = sim.profile(v.variant.variant.results);
    let prompt_of = |step: u64| {
        profile
            .per_request
            .iter()
            .find(|r| r.request == step + 1)
            .map(|r| r.input)
    };
    // Request costs are per request only when every row was kept.
    let costs_whole = v.request_costs.len() as u64 == profile.requests;
    let model_prices = &v.variant.prices;
    let mut rows = Vec::with_capacity(groups.len());
    let mut unpriced = 0u64;
    for g in &groups {
        let r = g.recorded;
        let priced = r
            .model
            .as_deref()
            .map_or_else(|| Some(model_prices.clone()), prices_of)
            .and_then(|m| m.cost_of(&r.usage).ok());
        if priced.is_none() {
            unpriced += 1;
        }
        rows.push(BacktestRow {
            request: g.request,
            results: g.results,
            recorded_prompt: r.prompt(),
            simulated_prompt: prompt_of(g.step).unwrap_or_default(),
            recorded_cost: priced,
            simulated_cost: costs_whole
                .then(|| v.request_costs.get(g.step as usize).copied())
                .flatten(),
        });
    }
    let n = rows.len().max(1);
    let in_band = rows
        .iter()
        .filter(|r| {
            let x = Decimal::from(r.recorded_prompt);
            r.simulated_prompt.lower <= x && x <= r.simulated_prompt.upper
        })
        .count();
    let with_costs: Vec<&BacktestRow> = rows
        .iter()
        .filter(|r| r.recorded_cost.is_some() && r.simulated_cost.is_some())
        .collect();
    let mut b = Backtest {
        variant: v.variant.variant.name.clone(),
        recorded_prompt: rows.iter().map(|r| r.recorded_prompt).sum(),
        simulated_prompt: rows.iter().map(|r| r.simulated_prompt).sum(),
        recorded_cost: with_costs.iter().filter_map(|r| r.recorded_cost).sum(),
        simulated_cost: with_costs.iter().filter_map(|r| r.simulated_cost).sum(),
        unpriced_requests: unpriced,
        in_band: Decimal::from(in_band as u64) / Decimal::from(n as u64),
        fit: fit(&groups),
        breaks_extra_cost: Decimal::ZERO,
        breaks: breaks(&groups, model_prices, prices_of),
        compaction: compaction(s, &groups, &rows),
        requests: rows,
    };
    b.breaks_extra_cost = b.breaks.iter().filter_map(|x| x.extra_cost).sum();
    Some(b)
}

/// One recorded request of the trace, with what entered before it.
struct Group<'a> {
    /// Its number in the thread.
    request: u64,
    /// Results carried so far, this request's included.
    results: u64,
    /// Bytes that entered since the previous request (each row once).
    added: u64,
    /// Output of the previous request sent back with it, when the trace says.
    resent: Option<u64>,
    /// Earlier output taken out of the context before it.
    dropped: u64,
    /// The engine's request for it (0-based: steps before it).
    step: u64,
    /// What the provider reported.
    recorded: &'a Recorded,
}

/// The recorded requests of a trace, in order: a row with recorded usage
/// opens a request; the rows after it, up to the next, are its own.
fn groups<'a>(results: &[&'a crate::scenario::TraceCall], raw: bool) -> Vec<Group<'a>> {
    let grouped = results.iter().all(|c| c.request().is_some());
    let mut out: Vec<Group> = Vec::new();
    let mut steps = 0u64;
    let mut before = 0u64;
    let mut last_request = None;
    for (j, c) in results.iter().enumerate() {
        let bytes = if raw { c.raw_bytes } else { c.trimmed_bytes }.unwrap_or(0);
        // A hand-written trace: one request per row; imported: per request.
        if !grouped || c.request() != last_request {
            steps += 1;
        }
        last_request = c.request();
        match (&c.recorded(), out.last_mut()) {
            (Some(r), _) => {
                out.push(Group {
                    request: r.request,
                    results: j as u64 + 1,
                    added: before + bytes,
                    resent: c.resent_output(),
                    dropped: c.dropped_output().unwrap_or(0),
                    step: steps,
                    recorded: r,
                });
                before = 0;
            }
            (None, Some(g)) if grouped => {
                // A further row of the same request.
                g.results = j as u64 + 1;
                g.added += bytes;
            }
            _ => before += bytes,
        }
    }
    out
}

/// A recorded prompt below half the previous one is a compaction (clearing
/// a few results shrinks it less). The engine then compacts before the same
/// request into a summary that makes its prompt the recorded one, and the
/// requests after show how well the replay follows the session from there.
fn compaction(s: &Scenario, groups: &[Group], rows: &[BacktestRow]) -> Option<CompactionCheck> {
    let p = s.assumptions().prefix_tokens;
    let points: Vec<(CompactionPoint, u64)> = groups
        .windows(2)
        .filter(|w| w[1].recorded.prompt() * 2 < w[0].recorded.prompt())
        .map(|w| {
            (
                CompactionPoint {
                    request: w[1].request,
                    results: w[1].results,
                    prompt_before: w[0].recorded.prompt(),
                    prompt_after: w[1].recorded.prompt(),
                    summary_tokens: w[1].recorded.prompt().saturating_sub(p).max(1),
                },
                w[1].step,
            )
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    let strategy = crate::engine::context::Strategy::CompactAt {
        // The engine's request k (0-based, k steps before it) is request k + 1.
        points: points
            .iter()
            .map(|(c, step)| (step + 1, c.summary_tokens))
            .collect(),
    };
    let prompts = crate::engine::context::request_prompts(s, 0, &strategy);
    let compacted: Vec<Bounds> = groups
        .iter()
        .map(|g| prompts.get(g.step as usize).copied().unwrap_or_default())
        .collect();
    let points: Vec<CompactionPoint> = points.into_iter().map(|(c, _)| c).collect();
    let recorded: u64 = rows.iter().map(|r| r.recorded_prompt).sum();
    let in_band = rows
        .iter()
        .zip(&compacted)
        .filter(|(r, c)| {
            let x = Decimal::from(r.recorded_prompt);
            c.lower <= x && x <= c.upper
        })
        .count();
    let plain: Bounds = rows.iter().map(|r| r.simulated_prompt).sum();
    let compacted_sum: Bounds = compacted.iter().copied().sum();
    let share = |b: Bounds, of: u64| {
        let rec = Decimal::from(of.max(1));
        Bounds {
            lower: ((b.lower - rec) / rec).round_dp(4),
            upper: ((b.upper - rec) / rec).round_dp(4),
        }
    };
    let first = points[0].results;
    let later: Vec<usize> = (0..rows.len())
        .filter(|i| rows[*i].results >= first)
        .collect();
    let after = {
        let recorded: u64 = later.iter().map(|i| rows[*i].recorded_prompt).sum();
        let plain: Bounds = later.iter().map(|i| rows[*i].simulated_prompt).sum();
        let compacted: Bounds = later.iter().map(|i| compacted[*i]).sum();
        CompactionSums {
            requests: later.len() as u64,
            recorded,
            plain,
            compacted,
            difference: share(compacted, recorded),
            plain_difference: share(plain, recorded),
        }
    };
    let share = |b: Bounds| share(b, recorded);
    Some(CompactionCheck {
        after,
        points,
        recorded_prompt: recorded,
        plain_prompt: plain,
        compacted_prompt: compacted_sum,
        in_band: Decimal::from(in_band as u64) / Decimal::from(rows.len().max(1) as u64),
        difference: share(compacted_sum),
        plain_difference: share(plain),
    })
}

fn fit(groups: &[Group]) -> Option<Fit> {
    let (mut bytes, mut tokens) = (0u64, 0u64);
    let mut ratios = Vec::new();
    let mut skipped = 0u64;
    for w in groups.windows(2) {
        let (prev, cur) = (w[0].recorded, w[1].recorded);
        let added = w[1].added;
        let resent = w[1].resent.unwrap_or(prev.usage.output);
        let grew = cur
            .prompt()
            .saturating_add(w[1].dropped)
            .checked_sub(prev.prompt())
            .and_then(|g| g.checked_sub(resent));
        match grew {
            Some(g) if g > 0 && added > 0 => {
                bytes += added;
                tokens += g;
                ratios.push(added as f64 / g as f64);
            }
            _ => skipped += 1,
        }
    }
    if tokens == 0 {
        return None;
    }
    let mut data = Data::new(ratios);
    Some(Fit {
        bytes_per_token: (Decimal::from(bytes) / Decimal::from(tokens)).round_dp(4),
        p10: data.percentile(10),
        p50: data.percentile(50),
        p90: data.percentile(90),
        steps: data.len() as u64,
        skipped_steps: skipped,
    })
}

fn breaks(
    groups: &[Group],
    fallback: &ModelPrices,
    prices_of: &dyn Fn(&str) -> Option<ModelPrices>,
) -> Vec<CacheBreak> {
    let ms = |r: &Recorded| r.timestamp.as_deref().and_then(crate::input::epoch_ms);
    groups
        .windows(2)
        .filter_map(|w| {
            let (prev, cur) = (w[0].recorded, w[1].recorded);
            let (p, c) = (&prev.usage, &cur.usage);
            let cached = p.cache_read + p.cache_write_5m + p.cache_write_1h;
            if c.cache_read >= cached {
                return None;
            }
            let tokens = cached - c.cache_read;
            let gap_ms = match (ms(prev), ms(cur)) {
                (Some(a), Some(b)) if b >= a => Some((b - a) as u64),
                _ => None,
            };
            let tier = if p.cache_write_1h > p.cache_write_5m {
                Cache::OneHour
            } else {
                Cache::FiveMinutes
            };
            let prices = cur
                .model
                .as_deref()
                .map_or_else(|| Some(fallback.clone()), prices_of);
            let rates = prices.as_ref().and_then(|m| m.rates(tier, Mode::Sync).ok());
            // The model's own lifetime where its book gives one.
            let lifetime = rates
                .as_ref()
                .map_or(tier.lifetime_ms(), |r| r.lifetime_ms(tier));
            let expired = gap_ms.is_some_and(|g| g > lifetime.unwrap_or(u64::MAX));
            let name = if lifetime == tier.lifetime_ms() {
                tier.lifetime_name().to_string()
            } else {
                format!("{}-minute", lifetime.unwrap_or(0) / 60_000)
            };
            let extra_cost = rates.map(|r| {
                let c = r.at(r.tier_of(Decimal::from(cur.prompt())));
                (Decimal::from(tokens) * (c.cache_write - c.cache_read) / PER_MILLION).normalize()
            });
            Some(CacheBreak {
                request: w[1].request,
                gap_seconds: gap_ms.map(|g| g / 1000),
                cause: if expired {
                    format!("expiry (gap over the {name} lifetime)")
                } else if cur.prompt() * 2 < prev.prompt() {
                    "compaction (the prompt fell below half)".into()
                } else {
                    "prefix changed".into()
                },
                tokens,
                extra_cost,
            })
        })
        .collect()
}
