//! Every bound tokencast puts on its input, in one place, so a value is
//! accepted or refused the same way wherever it is written (a scenario, a
//! sweep axis, a forecast option, an imported log).
//!
//! How they bound each other. Money is `rust_decimal` (96 bits, about
//! 7.9 × 10²⁸); the forecast sums costs as `i128` at 12 decimals (about
//! 1.7 × 10³⁸, so 1.7 × 10²⁶ units of currency).
//! - **One replay** is the check that matters: Σ over the N + 1 requests of
//!   the upper-bound input numerator, times the dearest rate, at most
//!   [`MAX_REPLAY_MAGNITUDE`] = 10²⁵ ([`replay_fits`]): a factor of 7,900
//!   below the decimals for the exact intermediates. The money they become
//!   (rates are per million tokens) is at most 10¹⁹, which the forecast
//!   holds at 12 decimals as 10³¹, far inside `i128`.
//!   Every scenario runs it when checked, and so does every change to one
//!   (`Scenario::with`): each sweep point, what-if and forecast run.
//! - The inputs of that product are bounded first, so it is never computed
//!   out of range: tokens ([`MAX_TOKENS`] = 10⁹ a request), result sizes
//!   ([`MAX_RESULT_BYTES`] = 10¹⁰ B), trace rows ([`MAX_TRACE_ROWS`] = 10⁷),
//!   prices ([`MAX_PRICE`] = 10⁶ a million tokens, [`MAX_PRICE_DECIMALS`] =
//!   12, the forecast's scale), factors ([`MAX_FACTOR`] = 1,000 with
//!   [`MAX_FACTOR_DECIMALS`] = 6, the exact denominators).
//! - **Ledgers**: a fee ([`MAX_FEE_USD`] = 10⁶) times the rows (10⁷) stays
//!   below 10¹³. **Per day**: a run's cost (at most 10¹⁹) times
//!   [`MAX_RUNS_PER_DAY`] = 10⁹ is at most 10²⁸, inside the decimals.
//! - **Forecasts** bound their work rather than their sums (each drawn run
//!   is checked for size): [`MAX_RUNS`] runs, [`MAX_DRAWS`] runs × calls,
//!   [`MAX_CALLS`] calls a run; over a corpus, [`MAX_CORPUS_RUNS_PER_DAY`]
//!   and [`MAX_SESSION_DRAWS`] sessions drawn in all.
//! - **Sweeps** bound their work the same way: at most [`MAX_SWEEP_POINTS`]
//!   points, and [`MAX_SWEEP_STEPS`] replayed steps in all, checked from
//!   the axes before the first point is replayed.
//! - **Reading**: an input file is at most [`MAX_INPUT_BYTES`] (1 GiB); sizes
//!   of what is shown ([`MAX_CURVE_POINTS`], [`MAX_CONTEXT_POINTS`],
//!   [`MAX_RANGE_POINTS`]) keep documents and pages small.

// Sizes, token counts and money are converted only where the conversion is
// checked (`try_from`, `to_u64`) or proven in range; CI denies silent casts.
#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss
)]

use rust_decimal::Decimal;

/// Largest token count an assumption may hold (far above any context window).
pub const MAX_TOKENS: u64 = 1_000_000_000;

/// Most decimals of bytes per token and of the tokenizer uplift.
pub const MAX_FACTOR_DECIMALS: u32 = 6;

/// Most points a sweep may have, whatever `--max-points` asks (each point
/// is a replay and a column of the document).
pub const MAX_SWEEP_POINTS: usize = 100_000;

/// Most replayed steps a sweep may do in all: its replays (its points, less
/// those that differ only in runs per day, which share one) × the variants ×
/// the steps of a point's run (the trace's results or a calls axis's
/// largest value, plus the final answer). At the development machine's
/// ~2 × 10⁸ steps a second (two cores) that is under half a minute of
/// work, refused before any is done.
pub const MAX_SWEEP_STEPS: u64 = 4_000_000_000;

/// Largest bytes per token or tokenizer uplift.
pub const MAX_FACTOR: u64 = 1000;

/// Largest runs per day (the per-day cost is the cost of a run × this).
pub const MAX_RUNS_PER_DAY: u64 = 1_000_000_000;

/// Largest fee of one response, USD.
pub const MAX_FEE_USD: u64 = 1_000_000;

/// The longest gap between two recorded requests, in milliseconds (a year).
pub const MAX_GAP_MS: u64 = 366 * 24 * 3_600_000;

/// Longest automatic-cache lifetime a price book may give a model, minutes
/// (a day: the longest retention a provider offers).
pub const MAX_CACHE_LIFETIME_MINUTES: u64 = 24 * 60;

/// The most rows a trace may have.
pub const MAX_TRACE_ROWS: usize = 10_000_000;

/// Most attempts the retry what-if accepts.
pub const MAX_ATTEMPTS: u64 = 1_000_000_000;

/// Most points a sweep range may have.
pub const MAX_RANGE_POINTS: u64 = 10_000;

/// Largest input file tokencast reads (a ten-million-row trace is about 0.6 GB).
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Largest price, USD per million tokens (a million times today's dearest).
pub const MAX_PRICE: u64 = 1_000_000;

/// Most decimals of a price (a millionth of a cent per million tokens);
/// the forecast keeps costs as exact integers at this scale.
pub const MAX_PRICE_DECIMALS: u32 = 12;

/// Largest response size accepted for one row (10 GB).
pub const MAX_RESULT_BYTES: u64 = 10_000_000_000;

/// Most thresholds or keep steps a scenario may list.
pub const MAX_CONTEXT_POINTS: usize = 64;

/// Most effort presets a scenario may list (each is a replay of its own).
pub const MAX_EFFORT_PRESETS: usize = 64;

/// Longest name read from a file the user wrote: a scenario, variant,
/// preset, capability or model name, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// Longest free text read from a file the user wrote (a question, a note,
/// a call's parameters), and longest string a saved document may hold, in
/// characters.
pub const MAX_TEXT_CHARS: usize = 2_000;

/// Whether `s` has at most `max` characters (counted only when its bytes
/// could be more).
pub fn text_fits(s: &str, max: usize) -> bool {
    s.len() <= max || s.chars().count() <= max
}

/// Most points of the retry curve: every attempt count up to this many, else
/// this many evenly spaced (the break-even point and the one after it, and
/// the baseline's attempts, are always among them).
pub const MAX_CURVE_POINTS: u64 = 500;

/// Most long-context thresholds one model may have (LiteLLM's largest
/// family has three: 128k, 200k and 272k).
pub const MAX_LONG_TIERS: usize = 3;

/// Largest multiplier of a service tier or a region.
pub const MAX_MULTIPLIER: u64 = 100;

/// Most runs a forecast draws.
pub const MAX_RUNS: u64 = 10_000_000;

/// Most tool results a forecast draws in all (runs × calls).
pub const MAX_DRAWS: u64 = 200_000_000;

/// Most runs a day a corpus forecast draws.
pub const MAX_CORPUS_RUNS_PER_DAY: u64 = 100_000;

/// Most session draws a corpus forecast makes (days, months and their resamples).
pub const MAX_SESSION_DRAWS: u64 = 2_000_000_000;

/// Most tool calls a swept or forecast run may have (as many as a trace
/// may have rows).
pub const MAX_CALLS: u64 = 10_000_000;

/// The largest exact intermediate a replay may reach: Σ of the input token
/// numerators (tokens × the fixed denominator of b and u) × the dearest rate.
/// `rust_decimal` holds 7.9 × 10²⁸ and the forecast's integer costs carry 12
/// more decimal digits in an `i128` (1.7 × 10³⁸), so 10²⁵ leaves both a margin
/// of more than a thousand.
pub const MAX_REPLAY_MAGNITUDE: f64 = 1e25;

/// Longest name an `import --variant` may have, in characters: it becomes a
/// variant of every written scenario and a column of the import's tables.
pub const MAX_VARIANT_NAME_CHARS: usize = 100;

/// Most calls a forecast's sample of a described run (`[trace.generate]`)
/// holds: its memory.
pub const MAX_SAMPLE_ROWS: u64 = 1_000_000;

/// Longest latency a generated call may have (one day).
pub const MAX_GENERATED_LATENCY_MS: u64 = 86_400_000;

/// Longest log line an importer keeps, in bytes (a tool result of 64 MiB is
/// far beyond any context); a longer line is a located problem.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The longest file name tokencast makes from input, in bytes (well under
/// every file system's 255).
pub const MAX_FILE_NAME: usize = 64;

/// The largest write journal read back (a million entries of ~200 bytes).
pub const MAX_JOURNAL_BYTES: u64 = 256 * 1024 * 1024;

/// A page carries its engine's inputs up to this size (scenario, price book
/// and trace together); a larger run's page is a still picture. Below
/// [`MAX_INPUT_BYTES`], so a page never carries a file the CLI would refuse.
pub const MAX_LIVE_INPUT_BYTES: usize = 16 << 20;

/// Checks runs per day.
pub fn runs_per_day(v: u64) -> Result<(), String> {
    if v > MAX_RUNS_PER_DAY {
        return Err(format!(
            "runs_per_day = {v} is more than {MAX_RUNS_PER_DAY}"
        ));
    }
    Ok(())
}

/// Checks a team's size: at least one person, and the team's runs a day
/// (`runs_per_day` each) within [`MAX_RUNS_PER_DAY`].
pub fn team_size(v: u64, runs_per_day: u64) -> Result<(), String> {
    if v == 0 {
        return Err("team_size = 0: a team has at least one person".into());
    }
    match runs_per_day.checked_mul(v) {
        Some(t) if t <= MAX_RUNS_PER_DAY => Ok(()),
        _ => Err(format!(
            "team_size = {v} makes {runs_per_day} × {v} runs a day, more than {MAX_RUNS_PER_DAY}"
        )),
    }
}

/// What one replay will compute at most, for [`replay_fits`].
#[derive(Debug, Clone, Copy)]
pub struct ReplaySize {
    /// P, tokens.
    pub prefix: u64,
    /// o, tokens per step (the largest any what-if uses).
    pub per_step: u64,
    /// F, tokens.
    pub final_output: u64,
    /// b.
    pub bytes_per_token: Decimal,
    /// u.
    pub uplift: Decimal,
    /// N, tool results.
    pub results: u64,
    /// Bytes of all results together (raw).
    pub bytes: u128,
    /// The dearest rate any variant pays, USD per million tokens.
    pub max_rate: Decimal,
}

/// How large a replay's exact sums grow: the sum over N + 1 requests of
/// the upper-bound input numerator, times the dearest rate. Estimated in
/// `f64` (it only compares magnitudes).
#[allow(clippy::cast_precision_loss)] // an estimate of magnitude, by design
pub fn magnitude(r: &ReplaySize) -> f64 {
    use rust_decimal::prelude::ToPrimitive;
    let b = r.bytes_per_token.normalize();
    let u = r.uplift.normalize();
    let (mb, pb) = (
        b.mantissa() as f64,
        10f64.powi(i32::try_from(b.scale()).unwrap_or(i32::MAX)),
    );
    let (mu, pu) = (
        u.mantissa() as f64,
        10f64.powi(i32::try_from(u.scale()).unwrap_or(i32::MAX)),
    );
    let n = r.results as f64;
    let last = mu * (r.prefix as f64 * mb + r.bytes as f64 * pb)
        + n * (r.per_step as f64).max(r.final_output as f64) * mb * pu;
    (n + 1.0) * last * r.max_rate.to_f64().unwrap_or(f64::MAX).max(1.0)
}

/// Whether a replay of this size stays within exact decimals: its
/// [`magnitude`] at most [`MAX_REPLAY_MAGNITUDE`].
pub fn replay_fits(r: &ReplaySize) -> Result<(), String> {
    let magnitude = magnitude(r);
    if magnitude.is_finite() && magnitude <= MAX_REPLAY_MAGNITUDE {
        return Ok(());
    }
    Err(format!(
        "a run of {} tool results ({} bytes) with a prefix of {} tokens at up to {} USD per million tokens is beyond exact decimal arithmetic (10^25 for token numerators × rate; it would reach about {magnitude:.1e})",
        r.results, r.bytes, r.prefix, r.max_rate
    ))
}

/// Checks a token count (`prefix_tokens`, `output_tokens_per_step`, `final_output_tokens`).
pub fn tokens(field: &str, v: u64) -> Result<(), String> {
    if v > MAX_TOKENS {
        return Err(format!("{field} = {v} is more than {MAX_TOKENS} tokens"));
    }
    Ok(())
}

/// Checks bytes per token or the tokenizer uplift: above zero, at most
/// [`MAX_FACTOR_DECIMALS`] decimals and at most [`MAX_FACTOR`], so every
/// exact sum of the replay stays within `rust_decimal`'s 96 bits.
pub fn factor(field: &str, v: Decimal) -> Result<(), String> {
    if v <= Decimal::ZERO {
        return Err(format!("{field} must be above zero, not {v}"));
    }
    if field.ends_with("tokenizer_uplift") && v < Decimal::ONE {
        return Err(format!(
            "tokenizer_uplift = {v} is below 1: the upper bound would fall below the lower"
        ));
    }
    if v.normalize().scale() > MAX_FACTOR_DECIMALS || v > Decimal::from(MAX_FACTOR) {
        return Err(format!(
            "{field} = {v} is outside what tokencast accepts: at most {MAX_FACTOR_DECIMALS} decimals and at most {MAX_FACTOR}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_edges() {
        assert!(factor("b", Decimal::from(1000)).is_ok());
        assert!(factor("b", Decimal::from(1001)).is_err());
        assert!(factor("b", Decimal::new(1_000_001, 6)).is_ok());
        assert!(factor("b", Decimal::new(10_000_001, 7)).is_err());
        assert!(factor("b", Decimal::ZERO).is_err());
    }

    #[test]
    fn uplift_below_one_is_refused() {
        assert!(factor("tokenizer_uplift", Decimal::new(99, 2)).is_err());
        assert!(factor("tokenizer_uplift", Decimal::ONE).is_ok());
        assert!(factor("bytes_per_token", Decimal::new(5, 1)).is_ok());
    }

    #[test]
    fn replay_size_edges() {
        let size = |results: u64, prefix: u64, max_rate: i64| ReplaySize {
            prefix,
            per_step: 500,
            final_output: 2000,
            bytes_per_token: Decimal::from(4),
            uplift: Decimal::new(13, 1),
            results,
            bytes: u128::from(results) * 50_000,
            max_rate: Decimal::from(max_rate),
        };
        // A million results of 50 KB at $40/M: about 3e19, far inside.
        assert!(replay_fits(&size(1_000_000, 3000, 40)).is_ok());
        // Ten million results after a billion-token prefix at a million
        // dollars per million tokens: about 2e25, beyond 1e25.
        assert!(replay_fits(&size(10_000_000, 1_000_000_000, 1_000_000)).is_err());
    }

    #[test]
    fn token_edges() {
        assert!(tokens("p", MAX_TOKENS).is_ok());
        assert!(tokens("p", MAX_TOKENS + 1).is_err());
    }
}
