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
pub use crate::document::import::Unmeasured;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
pub use tokencast_core::scenario::calibration::{
    family, Calibration, FamilyFit, Fit, CALIBRATION_HEADER,
};

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
    steps(t)
        .into_iter()
        .filter(|s| !s.compacted && !s.summarized)
        .map(|s| s.observation)
        .collect()
}

/// A step of [`steps`]: the request it precedes and what was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    /// The request it precedes.
    k: usize,
    /// A recorded compaction came before the request: `observation.tokens`
    /// is then the request's whole prompt.
    compacted: bool,
    /// The previous output went back as the bytes of its logged content,
    /// thinking among them: Claude logs a summary of long thinking, so its
    /// bytes do not measure its tokens (no observation of bytes per token).
    summarized: bool,
    observation: Observation,
}

/// Every step of `t` whose additions were all measured (one model, no
/// image or document), with the prompt's growth less the output sent back,
/// or, after a recorded compaction on the first request's model, the whole
/// prompt.
fn steps(t: &Thread) -> Vec<Step> {
    let mut added = vec![(0u64, false); t.requests.len()];
    for r in write::sent_results(t) {
        let k = r.carried_by.unwrap_or(0);
        if let Some(a) = added.get_mut(k) {
            a.0 = a.0.saturating_add(r.bytes);
            a.1 |= r.images > 0 || r.documents > 0;
        }
    }
    let mut out = Vec::new();
    let sent = write::sent_back(t);
    for (k, ((pair, &(bytes, unmeasurable)), s)) in t
        .requests
        .windows(2)
        .zip(&added[1..])
        .zip(&sent[1..])
        .enumerate()
        .map(|(i, x)| (i + 1, x))
    {
        let (prev, now) = (&pair[0], &pair[1]);
        // A compaction's prompt is compared with the first prompt, whose
        // model it must share; any other step with the previous prompt.
        let model = if now.compacted_before {
            &t.requests[0].model
        } else {
            &prev.model
        };
        if *model != now.model || unmeasurable {
            continue;
        }
        let bytes = bytes.saturating_add(s.bytes);
        if now.compacted_before {
            out.push(Step {
                k,
                compacted: true,
                summarized: false,
                observation: Observation {
                    bytes,
                    tokens: now.usage.prompt(),
                },
            });
            continue;
        }
        let Some(tokens) = now
            .usage
            .prompt()
            .saturating_add(s.dropped)
            .checked_sub(prev.usage.prompt())
            .and_then(|d| d.checked_sub(s.tokens))
        else {
            continue;
        };
        out.push(Step {
            k,
            compacted: false,
            summarized: s.bytes > 0 && prev.thinking_bytes > 0,
            observation: Observation { bytes, tokens },
        });
    }
    out
}

/// Per request of `t` (index 0: none), the tokens that entered before it
/// which the log does not let anyone measure, taken from the recorded
/// prompt: where the prompt grew by more than [`UNMEASURED_MIN_TOKENS`]
/// beyond what `fit` expects of what entered, and by more than that again
/// (an output whose logged count is a streaming snapshot under a long
/// thinking block, whose logged text is a summary; tool results on lines
/// the log lost), or, after a recorded compaction, the part of the prompt
/// that neither the first prompt nor what entered explains (context the
/// client restored: recently read files, the plan). Steps after a change
/// of model, or that carry an image or a document, keep none; nor does a
/// step whose previous prompt lies more than a tenth below the largest
/// since the last compaction: a thread that interleaves a second, smaller
/// context (Codex side tasks) climbs back to the first one there, which is
/// no new content.
pub fn unmeasured_tokens(t: &Thread, fit: &Fit) -> Vec<u64> {
    let mut out = vec![0u64; t.requests.len()];
    let first = t.requests.first().map_or(0, |r| r.usage.prompt());
    // Per request, whether its prompt lies a tenth below the largest before.
    let mut below = vec![false; t.requests.len()];
    let mut top = 0u64;
    for (k, r) in t.requests.iter().enumerate() {
        if r.compacted_before {
            top = 0;
        }
        let p = r.usage.prompt();
        below[k] = u128::from(p) * 10 < u128::from(top) * 9;
        top = top.max(p);
    }
    for s in steps(t).into_iter().filter(|s| !below[s.k - 1]) {
        let o = s.observation;
        let of_bytes = Decimal::from(o.bytes)
            .checked_div(fit.pooled)
            .unwrap_or_default()
            .round()
            .try_into()
            .unwrap_or(u64::MAX);
        // A compaction's prompt is the prefix and what entered (no framing).
        let (expected, base) = if s.compacted {
            (of_bytes, first)
        } else {
            (of_bytes.saturating_add(fit.overhead), 0)
        };
        let extra = o.tokens.saturating_sub(base.saturating_add(expected));
        if extra > UNMEASURED_MIN_TOKENS && extra > expected {
            out[s.k] = extra;
        }
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
            thinking_bytes: 0,
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
    fn reasoning_is_sent_back_within_a_turn_and_dropped_after_it() {
        // Request 0 (prompt 1,000) bills 100 output, 60 of it reasoning; a
        // tool result of 400 bytes follows and request 1 is at 1,200: all
        // 100 output went back, so 100 tokens for the 400 bytes. Request 1
        // bills 50 (30 reasoning); a user message of 800 bytes follows and
        // request 2 is at 1,220: 20 visible output came back, request 1's
        // 30 of reasoning did not, and request 0's 60 that had gone back
        // left the context: 1,220 + 60 − 1,200 − 20 = 60 tokens.
        let with = |prompt: u64, output: u64, hidden: u64| Request {
            hidden_output: hidden,
            ..request("m", prompt, output)
        };
        let t = Thread {
            agent: None,
            compaction: false,
            requests: vec![with(1000, 100, 60), with(1200, 50, 30), with(1220, 10, 0)],
            results: vec![
                result(400, 1),
                ToolResult {
                    kind: ContextKind::User,
                    ..result(800, 2)
                },
            ],
        };
        let sent = write::sent_back(&t);
        assert_eq!(
            sent[1],
            write::SentBack {
                tokens: 100,
                ..write::SentBack::default()
            }
        );
        assert_eq!(
            sent[2],
            write::SentBack {
                tokens: 20,
                hidden: 30,
                dropped: 60,
                bytes: 0
            }
        );
        assert_eq!(
            observations(&t),
            vec![
                Observation {
                    bytes: 400,
                    tokens: 100
                },
                Observation {
                    bytes: 800,
                    tokens: 60
                }
            ]
        );
    }

    #[test]
    fn claudes_earlier_thinking_leaves_at_a_new_turn_and_often_breaks_the_cache() {
        // Sonnet 4.5, every request a second apart. Request 0 (prompt
        // 20,000) bills 300 output over 1,200 bytes of content, 400 of them
        // thinking: 300 × 400 ÷ 1,200 = 100 tokens of thinking. Request 1
        // (after a tool result) bills 90 over 450 bytes, 150 thinking: 30.
        // A user message then starts a new turn: request 2's prompt carries
        // request 1's 60 visible tokens, not its 30 of thinking, and drops
        // request 0's 100 that had gone back.
        let thinking =
            |ms: i64, prompt: u64, read: u64, output: u64, bytes: u64, thought: u64| Request {
                at_ms: Some(ms),
                output_bytes: bytes,
                thinking_bytes: thought,
                usage: Usage {
                    cache_read: read,
                    cache_write_5m: prompt - read,
                    output,
                    ..Usage::default()
                },
                ..request("claude-sonnet-4-5-20250929", prompt, output)
            };
        let t = Thread {
            agent: None,
            compaction: false,
            requests: vec![
                thinking(0, 20_000, 0, 300, 1200, 400),
                thinking(1000, 30_000, 20_000, 90, 450, 150),
                // Read back to 20,600, less than halfway to 30,000 from 20,000:
                // the cache broke.
                thinking(2000, 30_500, 20_600, 10, 50, 0),
                thinking(3000, 31_000, 30_500, 10, 50, 0),
            ],
            results: vec![
                result(30_000, 1),
                ToolResult {
                    kind: ContextKind::User,
                    ..result(800, 2)
                },
                result(1_000, 3),
            ],
        };
        assert_eq!(t.requests[0].reasoning_tokens(), 100);
        assert_eq!(t.requests[1].reasoning_tokens(), 30);
        let sent = write::sent_back(&t);
        assert_eq!(
            sent[2],
            write::SentBack {
                tokens: 60,
                hidden: 30,
                dropped: 100,
                bytes: 0
            }
        );
        // One new turn dropped thinking, and it broke the cache.
        let b = TurnBreaks::of(&t, 300_000);
        assert_eq!(
            b,
            TurnBreaks {
                turns: 1,
                breaks: 1
            }
        );
        assert_eq!(b.share(), Some(Decimal::ONE));
        // Past the cache lifetime the turn is an expiry, not a break.
        assert_eq!(TurnBreaks::of(&t, 500), TurnBreaks::default());
        // Opus 4.6 keeps earlier thinking: nothing is dropped, no turn counts.
        let mut kept = t.clone();
        for r in &mut kept.requests {
            r.model = "claude-opus-4-6".into();
        }
        assert_eq!(kept.requests[0].reasoning_tokens(), 0);
        assert_eq!(write::sent_back(&kept)[2].dropped, 0);
        assert_eq!(TurnBreaks::of(&kept, 300_000), TurnBreaks::default());
    }

    #[test]
    fn which_claude_models_strip_earlier_thinking() {
        use crate::import::strips_earlier_thinking as strips;
        for m in [
            "claude-sonnet-4-5-20250929",
            "claude-haiku-4-5-20251001",
            "claude-opus-4-1-20250805",
            "claude-opus-4-20250514",
            "claude-sonnet-4-20250514",
            "claude-3-7-sonnet-20250219",
            "claude-3-opus-20240229",
        ] {
            assert!(strips(m), "{m}");
        }
        for m in [
            "claude-opus-4-5-20251101",
            "claude-opus-4-6",
            "claude-sonnet-4-6",
            "claude-opus-5",
            "gpt-5-codex",
            "claude",
        ] {
            assert!(!strips(m), "{m}");
        }
    }

    #[test]
    fn the_cache_hit_share_is_what_was_read_of_the_previous_prompt() {
        // Prompts 2,000, 3,000 and 4,000, a second apart; requests 2 and 3
        // read 1,500 and 2,500: (1,500 + 2,500) ÷ (2,000 + 3,000) = 0.8.
        let at = |ms: i64, prompt: u64, read: u64| Request {
            at_ms: Some(ms),
            usage: Usage {
                input: prompt - read,
                cache_read: read,
                ..Usage::default()
            },
            ..request("m", 0, 0)
        };
        let mut t = Thread {
            agent: None,
            compaction: false,
            requests: vec![at(0, 2000, 0), at(1000, 3000, 1500), at(2000, 4000, 2500)],
            results: vec![],
        };
        assert_eq!(cache_hit_share(&t, 300_000), Some(Decimal::new(8, 1)));
        // A step after the lifetime is expiry, replayed apart: left out.
        t.requests[2].at_ms = Some(1000 + 300_001);
        assert_eq!(cache_hit_share(&t, 300_000), Some(Decimal::new(75, 2)));
    }

    #[test]
    fn growth_the_log_does_not_show_is_counted_with_its_size() {
        // At 4 bytes a token and 10 of framing, 4,000 bytes should take
        // 1,010 tokens. Request 1 grew 4,010 from 10,000: 3,000 it does not
        // explain. Request 2 grew 1,500: within what entered. Request 3
        // follows a compaction whose summary is 2,000 bytes: the first
        // prompt and 500 tokens make 10,500 of its 14,500, and 4,000 are
        // what the client restored.
        let fit = Fit {
            steps: 5,
            overhead: 10,
            pooled: Decimal::from(4),
            p10: Decimal::from(3),
            p50: Decimal::from(4),
            p90: Decimal::from(5),
        };
        let mut compacted = request("m", 14_500, 0);
        compacted.compacted_before = true;
        let t = Thread {
            agent: None,
            compaction: false,
            requests: vec![
                request("m", 10_000, 0),
                request("m", 14_010, 0),
                request("m", 15_510, 0),
                compacted,
            ],
            results: vec![
                result(4000, 1),
                result(4000, 2),
                ToolResult {
                    kind: ContextKind::User,
                    ..result(2000, 3)
                },
            ],
        };
        let per_request = unmeasured_tokens(&t, &fit);
        assert_eq!(per_request, vec![0, 3000, 0, 4000]);
        assert_eq!(
            Unmeasured::of(&per_request),
            Unmeasured {
                steps: 2,
                tokens: 7000
            }
        );
        // The compacted step is no observation of bytes per token.
        assert_eq!(observations(&t).len(), 2);
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

/// Smallest unexplained growth of one step counted in [`Unmeasured`].
pub const UNMEASURED_MIN_TOKENS: u64 = 1000;

/// The share of the previous prompt that the thread's requests read from
/// the cache, as recorded: `Σ read ÷ Σ previous prompt` over the steps on
/// one model, within `lifetime_ms` of the previous request (expiry is
/// replayed apart), not after a compaction, after a prompt of at least
/// 1,024 tokens. Rounded down to 4 decimals; `None` when no step counts or
/// every prefix was read whole.
pub fn cache_hit_share(t: &Thread, lifetime_ms: i64) -> Option<Decimal> {
    let (mut read, mut cached) = (0u128, 0u128);
    for w in t.requests.windows(2) {
        let (prev, now) = (&w[0], &w[1]);
        let within = matches!((prev.at_ms, now.at_ms), (Some(a), Some(b)) if b - a <= lifetime_ms);
        if prev.model != now.model || now.compacted_before || !within || prev.usage.prompt() < 1024
        {
            continue;
        }
        cached += u128::from(prev.usage.prompt());
        read += u128::from(now.usage.cache_read.min(prev.usage.prompt()));
    }
    if cached == 0 || read >= cached {
        return None;
    }
    let share = Decimal::from_i128_with_scale(i128::try_from(read).ok()?, 0).checked_div(
        Decimal::from_i128_with_scale(i128::try_from(cached).ok()?, 0),
    )?;
    Some(
        share
            .round_dp_with_strategy(4, rust_decimal::RoundingStrategy::ToZero)
            .normalize(),
    )
}

/// New turns that drop reasoning sent back earlier (Claude's thinking
/// before Opus 4.5, OpenAI's reasoning: see [`write::sent_back`]), and of
/// them the ones after which the recorded cache read fell back to about
/// the first prompt. Dropping content far back in the prompt changes it
/// there; an explicit cache often finds no entry after that point and
/// writes the whole turn again, while a request of the client's own that
/// the log does not keep sometimes warms the changed prefix first. Which
/// of the two happens cannot be told from the log, so the share is fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnBreaks {
    /// New turns that dropped earlier reasoning, on the previous request's
    /// model, within the cache lifetime, not after a compaction, after a
    /// prompt longer than the first.
    pub turns: u64,
    /// Of them, those that read less than halfway from the first prompt to
    /// the previous one.
    pub breaks: u64,
}

impl TurnBreaks {
    /// Counted over `t`, with the cache lifetime `lifetime_ms`.
    pub fn of(t: &Thread, lifetime_ms: i64) -> TurnBreaks {
        let sent = write::sent_back(t);
        let first = t.requests.first().map_or(0, |r| r.usage.prompt());
        let mut out = TurnBreaks::default();
        for (k, w) in t.requests.windows(2).enumerate().map(|(i, w)| (i + 1, w)) {
            let (prev, now) = (&w[0], &w[1]);
            let within =
                matches!((prev.at_ms, now.at_ms), (Some(a), Some(b)) if b - a <= lifetime_ms);
            let p = prev.usage.prompt();
            if sent[k].dropped == 0
                || prev.model != now.model
                || now.compacted_before
                || !within
                || p <= first
            {
                continue;
            }
            out.turns += 1;
            if now.usage.cache_read < first + (p - first) / 2 {
                out.breaks += 1;
            }
        }
        out
    }

    /// Both summed.
    pub fn plus(self, o: TurnBreaks) -> TurnBreaks {
        TurnBreaks {
            turns: self.turns.saturating_add(o.turns),
            breaks: self.breaks.saturating_add(o.breaks),
        }
    }

    /// `breaks ÷ turns`, rounded to 4 decimals; `None` without a turn.
    pub fn share(self) -> Option<Decimal> {
        let share =
            Decimal::from(self.breaks.min(self.turns)).checked_div(Decimal::from(self.turns))?;
        Some(share.round_dp(4).normalize())
    }
}

// ── A calibration saved from one set of sessions, applied to another ──────

/// A family's new turns and breaks, as saved.
impl From<&FamilyFit> for TurnBreaks {
    fn from(f: &FamilyFit) -> TurnBreaks {
        TurnBreaks {
            turns: f.turns,
            breaks: f.turn_breaks,
        }
    }
}

/// The calibration that fits every family of `obs` that has enough measured steps.
/// `breaks` gives each family's new turns ([`TurnBreaks`]).
pub fn calibration_of(
    obs: &std::collections::BTreeMap<String, Vec<Observation>>,
    breaks: &std::collections::BTreeMap<String, TurnBreaks>,
) -> Calibration {
    let families = obs
        .iter()
        .filter_map(|(f, o)| {
            let fit = fit(o)?;
            let (bytes, tokens) = measured_sums(o, fit.overhead);
            let b = breaks.get(f).copied().unwrap_or_default();
            Some((
                f.clone(),
                FamilyFit {
                    steps: fit.steps,
                    bytes,
                    tokens,
                    overhead: fit.overhead,
                    p10: fit.p10,
                    p50: fit.p50,
                    p90: fit.p90,
                    turns: b.turns,
                    turn_breaks: b.breaks,
                },
            ))
        })
        .collect();
    Calibration { families }
}

/// Σ bytes and Σ tokens (less `overhead`) of the steps a fit measures.
fn measured_sums(obs: &[Observation], overhead: u64) -> (u64, u64) {
    obs.iter()
        .filter(|o| o.bytes >= MIN_STEP_BYTES)
        .filter_map(|o| {
            let t = o.tokens.checked_sub(overhead).filter(|t| *t > 0)?;
            (MIN_RATIO..=MAX_RATIO)
                .contains(&(o.bytes as f64 / t as f64))
                .then_some((o.bytes, t))
        })
        .fold((0, 0), |(b, t), (ob, ot)| {
            (b.saturating_add(ob), t.saturating_add(ot))
        })
}

#[cfg(test)]
mod saved_tests {
    use super::*;

    #[test]
    fn a_family_drops_the_date() {
        assert_eq!(family("claude-sonnet-4-5-20250929"), "claude-sonnet-4-5");
        assert_eq!(family("claude-opus-4-6"), "claude-opus-4-6");
        assert_eq!(family("gpt-5-codex"), "gpt-5-codex");
    }

    #[test]
    fn merged_calibrations_pool_their_sums() {
        let one = |bytes, tokens, steps, p10: i64, p90: i64| FamilyFit {
            steps,
            bytes,
            tokens,
            overhead: 10,
            p10: Decimal::from(p10),
            p50: Decimal::from(p10),
            p90: Decimal::from(p90),
            turns: 4,
            turn_breaks: 1,
        };
        let a = Calibration {
            families: [("m".to_string(), one(3000, 1000, 10, 2, 4))].into(),
        };
        let b = Calibration {
            families: [("m".to_string(), one(1000, 1000, 30, 1, 2))].into(),
        };
        let m = Calibration::merge(&[a, b]);
        let f = m.fit_for("m-20260101").unwrap();
        // 4,000 bytes over 2,000 tokens; p10 (2×10 + 1×30)/40 = 1.25,
        // p90 (4×10 + 2×30)/40 = 2.5.
        assert_eq!(f.pooled, Decimal::from(2));
        assert_eq!((f.p10, f.p90), (Decimal::new(125, 2), Decimal::new(25, 1)));
        assert_eq!(f.steps, 40);
        let text = m.to_toml();
        assert!(text.starts_with(CALIBRATION_HEADER));
        let src = crate::input::SourceText {
            name: "c.toml".into(),
            text,
        };
        assert_eq!(Calibration::parse(&src).unwrap(), m);
    }

    #[test]
    fn a_family_name_past_the_limit_is_refused() {
        let fit = "steps = 1\nbytes = 1\ntokens = 1\noverhead = 0\np10 = \"1\"\np50 = \"1\"\np90 = \"1\"\n";
        for (n, ok) in [(200, true), (201, false)] {
            let src = crate::input::SourceText {
                name: "c.toml".into(),
                text: format!("[families.{}]\n{fit}", "f".repeat(n)),
            };
            let got = Calibration::parse(&src);
            assert_eq!(got.is_ok(), ok, "{n} characters");
            if let Err(e) = got {
                assert!(e.message().contains("longer than 200 characters"));
            }
        }
    }
}
