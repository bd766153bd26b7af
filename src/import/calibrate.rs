//! Bytes per token, fitted from a thread's own recorded prompt growth.
//!
//! Between two consecutive requests of one model, the prompt grows by what
//! entered the context (tool results, user messages, attachments: measured
//! in bytes) plus the previous request's output that is sent back (in
//! tokens, as billed). So on every step where everything that entered was
//! measured, `bytes ÷ (Δprompt − output sent back)` is one observation of
//! the model's bytes per token on this user's own content.
//!
//! A step counts when: both requests ran on the same model, the prompt did
//! not shrink (no compaction or clearing), something measurable entered
//! (at least [`MIN_STEP_BYTES`] bytes, no image or document, whose tokens are
//! not a function of bytes) and the ratio is a plausible one (between
//! [`MIN_RATIO`] and [`MAX_RATIO`] bytes per token; outside it the prompt
//! changed by something the log does not show: a new system prompt, tools
//! added mid-session).
//!
//! Every step also adds a few tokens that no byte stands for (the framing
//! of messages and tool results). That overhead is the median growth of the
//! steps that carry almost nothing (under [`MIN_STEP_BYTES`]), and is taken
//! off every measured step before its ratio is formed.
//!
//! The fit is the pooled ratio `Σ bytes ÷ Σ tokens` (what the thread's cost
//! depends on), with the spread of the per-step ratios as p10, p50 and p90
//! (nearest rank on the sorted ratios).

use super::{write, Thread};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Fewest measured steps for a fit; below it the seed's band applies.
pub const MIN_STEPS: usize = 5;

/// Smallest addition, in bytes, that a step is measured on (a few bytes
/// are dominated by the message framing the log does not show).
pub const MIN_STEP_BYTES: u64 = 200;

/// Plausible bytes per token, lowest.
pub const MIN_RATIO: f64 = 0.8;

/// Plausible bytes per token, highest.
pub const MAX_RATIO: f64 = 12.0;

/// Fewest near-empty steps to measure the per-step overhead on.
pub const MIN_OVERHEAD_STEPS: usize = 3;

/// One thread's fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fit {
    /// Steps measured.
    pub steps: u64,
    /// Tokens every step adds besides its bytes (median of the near-empty steps).
    pub overhead: u64,
    /// Σ bytes ÷ Σ tokens over them.
    pub pooled: Decimal,
    /// 10th percentile of the per-step ratios (fewest bytes per token: most tokens).
    pub p10: Decimal,
    /// Median.
    pub p50: Decimal,
    /// 90th percentile.
    pub p90: Decimal,
}

/// One measured step: bytes that entered, tokens the prompt grew by for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observation {
    /// Bytes measured.
    pub bytes: u64,
    /// Tokens they took.
    pub tokens: u64,
}

/// The steps of `t` that can be measured: bytes that entered and the
/// prompt's growth less the output sent back (before the overhead is taken off).
pub fn observations(t: &Thread) -> Vec<Observation> {
    let mut added = vec![(0u64, false); t.requests.len()];
    for r in write::sent_results(t) {
        let k = r.carried_by.unwrap_or(0);
        if let Some(a) = added.get_mut(k) {
            a.0 = a.0.saturating_add(r.bytes);
            a.1 |= r.images > 0 || r.documents > 0;
        }
    }
    let mut out = Vec::new();
    for k in 1..t.requests.len() {
        let (prev, now) = (&t.requests[k - 1], &t.requests[k]);
        let (bytes, unmeasurable) = added[k];
        if prev.model != now.model || unmeasurable || now.compacted_before {
            continue;
        }
        let (resent, output_bytes) = write::sent_back(prev);
        let bytes = bytes.saturating_add(output_bytes);
        let Some(tokens) = now
            .usage
            .prompt()
            .checked_sub(prev.usage.prompt())
            .and_then(|d| d.checked_sub(resent))
        else {
            continue;
        };
        out.push(Observation { bytes, tokens });
    }
    out
}

/// The fit of some observations, when at least [`MIN_STEPS`] of them carry
/// [`MIN_STEP_BYTES`] or more with a plausible ratio.
pub fn fit(obs: &[Observation]) -> Option<Fit> {
    let mut small: Vec<u64> = obs
        .iter()
        .filter(|o| o.bytes < MIN_STEP_BYTES)
        .map(|o| o.tokens)
        .collect();
    small.sort_unstable();
    let overhead = if small.len() >= MIN_OVERHEAD_STEPS {
        small[(small.len() - 1) / 2]
    } else {
        0
    };
    let measured: Vec<Observation> = obs
        .iter()
        .filter(|o| o.bytes >= MIN_STEP_BYTES)
        .filter_map(|o| {
            let tokens = o.tokens.checked_sub(overhead).filter(|t| *t > 0)?;
            let ratio = o.bytes as f64 / tokens as f64;
            (MIN_RATIO..=MAX_RATIO)
                .contains(&ratio)
                .then_some(Observation {
                    bytes: o.bytes,
                    tokens,
                })
        })
        .collect();
    if measured.len() < MIN_STEPS {
        return None;
    }
    let bytes: u128 = measured.iter().map(|o| u128::from(o.bytes)).sum();
    let tokens: u128 = measured.iter().map(|o| u128::from(o.tokens)).sum();
    // Each ratio as an exact decimal, rounded to 4 places for the scenario.
    let ratio = |b: u128, t: u128| {
        let b = Decimal::from_i128_with_scale(i128::try_from(b).unwrap_or(i128::MAX), 0);
        let t = Decimal::from_i128_with_scale(i128::try_from(t).unwrap_or(i128::MAX), 0);
        b.checked_div(t).map(|r| r.round_dp(4).normalize())
    };
    let mut ratios: Vec<Decimal> = measured
        .iter()
        .filter_map(|o| ratio(u128::from(o.bytes), u128::from(o.tokens)))
        .collect();
    ratios.sort();
    let rank = |p: usize| ratios[((p * ratios.len()).div_ceil(100)).clamp(1, ratios.len()) - 1];
    Some(Fit {
        steps: measured.len() as u64,
        overhead,
        pooled: ratio(bytes, tokens)?,
        p10: rank(10),
        p50: rank(50),
        p90: rank(90),
    })
}

impl Fit {
    /// The band a scenario writes: `bytes_per_token` (lower bound of tokens:
    /// the p90 ratio, or the pooled one if larger), `tokenizer_uplift` (so
    /// that the upper bound is bytes ÷ p10, or ÷ pooled if smaller) and the
    /// estimate (pooled).
    pub fn band(&self) -> (Decimal, Decimal, Decimal) {
        let hi = self.p90.max(self.pooled);
        let lo = self.p10.min(self.pooled);
        let uplift = hi
            .checked_div(lo)
            .unwrap_or(Decimal::ONE)
            .round_dp_with_strategy(4, rust_decimal::RoundingStrategy::AwayFromZero)
            .max(Decimal::ONE)
            .normalize();
        (hi, uplift, self.pooled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{ContextKind, Request, ToolResult, Usage};

    fn request(model: &str, prompt: u64, output: u64) -> Request {
        Request {
            message_id: format!("m{prompt}"),
            timestamp: None,
            at_ms: None,
            model: model.into(),
            usage: Usage {
                cache_read: prompt,
                output,
                ..Usage::default()
            },
            hidden_output: 0,
            output_bytes: 0,
            compacted_before: false,
        }
    }

    fn result(bytes: u64, carried_by: usize) -> ToolResult {
        ToolResult {
            kind: ContextKind::Tool,
            tool: "Read".into(),
            bytes,
            images: 0,
            documents: 0,
            is_error: false,
            latency_ms: 0,
            carried_by: Some(carried_by),
            at_ms: None,
        }
    }

    #[test]
    fn a_step_is_its_bytes_over_the_growth_less_the_output_sent_back() {
        // Request 1 (prompt 1,000, output 50), then 3,000 bytes and request 2
        // at 2,050: 1,050 − 50 = 1,000 tokens, 3 bytes a token. Two results
        // of one request count once: 2,000 + 1,000 bytes.
        let t = Thread {
            agent: None,
            compaction: false,
            requests: vec![request("m", 1000, 50), request("m", 2050, 10)],
            results: vec![result(2000, 1), result(1000, 1)],
        };
        assert_eq!(
            observations(&t),
            vec![Observation {
                bytes: 3000,
                tokens: 1000
            }]
        );
    }

    #[test]
    fn steps_that_cannot_be_measured_are_left_out() {
        let t = Thread {
            agent: None,
            compaction: false,
            requests: vec![
                request("a", 1000, 0),
                request("b", 2000, 0), // model changed
                request("b", 500, 0),  // prompt shrank (compaction)
                request("b", 600, 0),  // 100 bytes in 100 tokens
                request("b", 700, 0),  // 5,000 bytes in 100 tokens
            ],
            results: vec![
                result(3000, 1),
                result(3000, 2),
                result(100, 3),
                result(5000, 4),
            ],
        };
        let obs = observations(&t);
        assert_eq!(
            obs,
            vec![
                Observation {
                    bytes: 100,
                    tokens: 100
                },
                Observation {
                    bytes: 5000,
                    tokens: 100
                }
            ]
        );
        // Neither makes a ratio: too few bytes, and 50 bytes a token is implausible.
        assert!(fit(&[obs.clone(), obs.clone(), obs].concat()).is_none());
    }

    #[test]
    fn the_fit_takes_the_framing_off_and_pools_bytes_and_tokens() {
        // Three near-empty steps grow by 40, 50 and 60 tokens: 50 a step of
        // framing. Five steps of 200 … 1,000 bytes grow by 150 each: 100
        // tokens of content, ratios 2, 3, 3, 4, 10. Pooled (200+300+300+400
        // +1,000) ÷ 500 = 4.4; p10 = 2 (rank 1), p50 = 3 (rank 3), p90 = 10.
        let mut obs: Vec<Observation> = [40, 50, 60]
            .iter()
            .map(|t| Observation {
                bytes: 10,
                tokens: *t,
            })
            .collect();
        obs.extend([200, 300, 300, 400, 1000].iter().map(|b| Observation {
            bytes: *b,
            tokens: 150,
        }));
        let f = fit(&obs).unwrap();
        assert_eq!(f.overhead, 50);
        assert_eq!(f.steps, 5);
        assert_eq!(f.pooled, Decimal::new(44, 1));
        assert_eq!(
            (f.p10, f.p50, f.p90),
            (Decimal::from(2), Decimal::from(3), Decimal::from(10))
        );
        // The band: lower bound at 10 bytes a token, upper at 2 (uplift 5).
        assert_eq!(
            f.band(),
            (Decimal::from(10), Decimal::from(5), Decimal::new(44, 1))
        );
        assert!(fit(&obs[..7]).is_none(), "four measured steps are too few");
    }
}
