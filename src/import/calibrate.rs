//! Bytes per token, fitted from a thread's own recorded prompt growth.
//!
//! Between two consecutive requests of one model, the prompt grows by what
//! entered the context (tool results, user messages, attachments: measured
//! in bytes) plus the previous request's output that is sent back (in
//! tokens, as billed). So on every step where everything that entered was
//! measured, `bytes ÷ (Δprompt − output sent back)` is one observation of
//! the model's bytes per token on this user's own content.
//!
//! A step counts when: both requests ran on the same model, no line of the
//! log between them was lost (truncated, redacted, unreadable), the prompt did
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

use super::{write, Request, Thread};
pub use crate::document::import::Unmeasured;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
pub use tokencast_core::scenario::calibration::{
    family, Calibration, FamilyFit, Fit, KindFit, CALIBRATION_HEADER,
};
use tokencast_core::scenario::content::ContentKind;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Observation {
    /// Bytes measured (of what was not counted).
    pub bytes: u64,
    /// Tokens they took: the growth less what was counted.
    pub tokens: u64,
    /// Bytes of the results whose tokens the log let tokencast count
    /// (`o200k_tokens`), and those tokens: an exact ratio of the family.
    pub counted_bytes: u64,
    /// The tokens counted.
    pub counted_tokens: u64,
    /// Of `bytes`, those of each content kind ([`ContentKind::ALL`] order).
    pub kinds: [u64; 3],
}

/// The steps of `t` that can be measured: bytes that entered and the
/// prompt's growth less the output sent back (before the overhead is taken off).
pub fn observations(t: &Thread) -> Vec<Observation> {
    steps(t)
        .into_iter()
        .filter(|s| !s.compacted && !s.summarized && !s.lost)
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
    /// The log lost lines before the request
    /// ([`Request::lost_lines_before`]): what entered was not all measured.
    lost: bool,
    observation: Observation,
}

/// Every step of `t` whose additions were all measured (one model, no
/// image or document), with the prompt's growth less the output sent back,
/// or, after a recorded compaction on the first request's model, the whole
/// prompt.
fn steps(t: &Thread) -> Vec<Step> {
    // Per request: bytes not counted, an image or document among them,
    // the bytes and tokens counted, and the bytes not counted by kind.
    let mut added = vec![(0u64, false, 0u64, 0u64, [0u64; 3]); t.requests.len()];
    for r in write::sent_results(t) {
        let k = r.carried_by.unwrap_or(0);
        if let Some(a) = added.get_mut(k) {
            match r.o200k_tokens {
                Some(n) => {
                    a.2 = a.2.saturating_add(r.bytes);
                    a.3 = a.3.saturating_add(n);
                }
                None => {
                    a.0 = a.0.saturating_add(r.bytes);
                    let kind = r.content_kind().index();
                    a.4[kind] = a.4[kind].saturating_add(r.bytes);
                }
            }
            a.1 |= r.images > 0 || r.documents > 0;
        }
    }
    let mut out = Vec::new();
    let sent = write::sent_back(t);
    for (k, ((pair, &(bytes, unmeasurable, counted_bytes, counted_tokens, mut kinds)), s)) in t
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
        // Output sent back as its logged content is text.
        let text = ContentKind::Text.index();
        kinds[text] = kinds[text].saturating_add(s.bytes);
        if now.compacted_before {
            out.push(Step {
                k,
                compacted: true,
                summarized: false,
                lost: now.lost_lines_before > 0,
                observation: Observation {
                    bytes,
                    tokens: now.usage.prompt().saturating_sub(counted_tokens),
                    counted_bytes,
                    counted_tokens,
                    kinds,
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
            .and_then(|d| d.checked_sub(counted_tokens))
        else {
            continue;
        };
        out.push(Step {
            k,
            compacted: false,
            summarized: s.bytes > 0 && prev.thinking_bytes > 0,
            lost: now.lost_lines_before > 0,
            observation: Observation {
                bytes,
                tokens,
                counted_bytes,
                counted_tokens,
                kinds,
            },
        });
    }
    out
}

/// Whether the model was sent the tool outputs of `alt` as recorded
/// rather than what the thread counts for them: `alt` gives, per result
/// index, the tokens of its text as recorded, more than the
/// `o200k_tokens` counted (a Codex shell output wrapped in JSON, against
/// the output it wraps). On the measured steps that carry such outputs and
/// nothing uncounted, the prompt's growth beyond what was counted, less
/// the thread's framing per step (the median of that growth on its other
/// counted steps), is set against the extra tokens of the text as
/// recorded: it was sent when the growth covers more than half of them.
pub fn sent_as_recorded(t: &Thread, alt: &[(usize, u64)]) -> bool {
    let mut extra = vec![0u64; t.requests.len()];
    for &(i, n) in alt {
        let Some(r) = t.results.get(i) else { continue };
        if let (Some(k), Some(counted)) = (r.carried_by, r.o200k_tokens) {
            if let Some(e) = extra.get_mut(k) {
                *e = e.saturating_add(n.saturating_sub(counted));
            }
        }
    }
    let counted: Vec<(usize, u64)> = steps(t)
        .into_iter()
        .filter(|s| !s.compacted && !s.summarized && !s.lost && s.observation.bytes == 0)
        .map(|s| (s.k, s.observation.tokens))
        .collect();
    let mut plain: Vec<u64> = counted
        .iter()
        .filter(|(k, _)| extra[*k] == 0)
        .map(|(_, g)| *g)
        .collect();
    plain.sort_unstable();
    let framing = plain.get(plain.len() / 2).copied().unwrap_or(0);
    let (grew, wrapped) =
        counted
            .iter()
            .filter(|(k, _)| extra[*k] > 0)
            .fold((0u64, 0u64), |(g, e), (k, tokens)| {
                (
                    g.saturating_add(tokens.saturating_sub(framing)),
                    e.saturating_add(extra[*k]),
                )
            });
    wrapped > 0 && grew.saturating_mul(2) > wrapped
}

/// Per request of `t` (index 0: none), the tokens that entered before it
/// which the log does not let anyone measure, taken from the recorded
/// prompt: where the prompt grew by more than [`UNMEASURED_MIN_TOKENS`]
/// beyond what `fit` expects of what entered, and by more than that again
/// (an output whose logged count is a streaming snapshot under a long
/// thinking block, whose logged text is a summary), all of the growth
/// beyond that expectation where the log lost lines before the request
/// ([`Request::lost_lines_before`]: a truncated or redacted tool result, a
/// response that could not be read), or, after a recorded compaction, the part of the prompt
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
        // After lines the log lost, all the growth beyond what was measured
        // is theirs; elsewhere only growth too large to be the fit's spread.
        if extra > 0 && (s.lost || (extra > UNMEASURED_MIN_TOKENS && extra > expected)) {
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
    let measured = measured(obs, overhead);
    if measured.len() < MIN_STEPS {
        return None;
    }
    let (bytes, tokens) = sums(&measured);
    let (p10, p50, p90) = spread(&measured)?;
    Some(Fit {
        steps: measured.len() as u64,
        overhead,
        pooled: ratio(bytes, tokens)?,
        p10,
        p50,
        p90,
        kinds: kind_fits(&measured),
    })
}

/// Σ bytes and Σ tokens of some observations.
fn sums(obs: &[Observation]) -> (u128, u128) {
    obs.iter().fold((0, 0), |(b, t), o| {
        (b + u128::from(o.bytes), t + u128::from(o.tokens))
    })
}

/// `bytes ÷ tokens` as an exact decimal rounded to 4 places (for the scenario).
fn ratio(b: u128, t: u128) -> Option<Decimal> {
    let b = Decimal::from_i128_with_scale(i128::try_from(b).unwrap_or(i128::MAX), 0);
    let t = Decimal::from_i128_with_scale(i128::try_from(t).unwrap_or(i128::MAX), 0);
    b.checked_div(t).map(|r| r.round_dp(4).normalize())
}

/// p10, p50 and p90 of the per-step ratios (nearest rank); `None` without a step.
fn spread(obs: &[Observation]) -> Option<(Decimal, Decimal, Decimal)> {
    let mut ratios: Vec<Decimal> = obs
        .iter()
        .filter_map(|o| ratio(u128::from(o.bytes), u128::from(o.tokens)))
        .collect();
    if ratios.is_empty() {
        return None;
    }
    ratios.sort();
    let rank = |p: usize| ratios[((p * ratios.len()).div_ceil(100)).clamp(1, ratios.len()) - 1];
    Some((rank(10), rank(50), rank(90)))
}

/// Per content kind, its own fit on the measured steps whose bytes are at
/// least nine tenths of that kind, and its bytes over all of them.
fn kind_fits(measured: &[Observation]) -> [KindFit; 3] {
    ContentKind::ALL.map(|kind| {
        let i = kind.index();
        let own: Vec<Observation> = measured
            .iter()
            .filter(|o| o.kinds[i] > 0 && u128::from(o.kinds[i]) * 10 >= u128::from(o.bytes) * 9)
            .copied()
            .collect();
        let (bytes, tokens) = sums(&own);
        let (p10, p50, p90) = spread(&own).unwrap_or_default();
        KindFit {
            steps: own.len() as u64,
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
            tokens: u64::try_from(tokens).unwrap_or(u64::MAX),
            p10,
            p50,
            p90,
            mix: measured
                .iter()
                .fold(0u64, |m, o| m.saturating_add(o.kinds[i])),
        }
    })
}

/// Smallest unexplained growth of one step counted in [`Unmeasured`].
pub const UNMEASURED_MIN_TOKENS: u64 = 1000;

/// A thread's cache hit share ([`hit_share`]) with its p10.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitShare {
    /// `Σ read ÷ Σ cached`, rounded down to 4 decimals.
    pub share: Decimal,
    /// The share less 1.2816 standard errors (its 10th percentile under
    /// the normal approximation), rounded down to 4 decimals, at least 0:
    /// what the upper bound reads. `None` with fewer than two steps.
    pub p10: Option<Decimal>,
    /// The steps the share is measured on.
    pub steps: u64,
}

/// z of the normal distribution's 10th percentile (its 90th, negated).
const Z_P10: f64 = 1.2816;

/// The share of what the previous request left in the cache that the
/// thread's requests read from it, as recorded: `Σ read ÷ Σ (previous
/// prompt + the response it generated, sent back)` over the steps on one
/// model, within `lifetime_ms` of the previous request (expiry is replayed
/// apart), not after a compaction, after a prompt of at least 1,024
/// tokens. A provider that caches every prefix on its own (OpenAI) keeps
/// the response it generated with the prompt: on the Codex corpus the read
/// runs 1–12 k tokens into the output sent back at about half the requests
/// after a long one. Rounded down to 4 decimals; `None` when no step counts.
///
/// A request whose prompt lies a tenth below the largest since the last
/// compaction is a side request (Codex's side tasks: a second, smaller
/// context that caches apart) and is left out; the request after it is
/// compared with the main context it continues, not with the side one.
/// Counting the side request's small read against the main prompt would
/// take the main context's whole prefix as missed, and the replay would
/// spread that miss over every request.
///
/// With its sampling error. Misses come in lumps: a
/// request reads its whole prefix or writes most of it again, so the share
/// of a few hundred steps moves by a point or more between sessions alike,
/// and the cost with it (a point of the share of a long session's cached
/// tokens is several per cent of its bill). The standard error is the ratio
/// estimator's: `√(n ÷ (n − 1) × Σ (readᵢ − share × cachedᵢ)²) ÷ Σ cached`.
pub fn hit_share(t: &Thread, lifetime_ms: i64) -> Option<HitShare> {
    let mut steps: Vec<(u64, u64)> = Vec::new();
    let (mut read, mut cached) = (0u128, 0u128);
    let sent = write::sent_back(t);
    // The last request of the main context (and its index), and the
    // largest prompt since the last compaction.
    let mut main: Option<(usize, &Request)> = None;
    let mut top = 0u64;
    for (k, now) in t.requests.iter().enumerate() {
        if now.compacted_before {
            top = 0;
        }
        let p = now.usage.prompt();
        if u128::from(p) * 10 < u128::from(top) * 9 {
            continue;
        }
        top = top.max(p);
        let Some((j, prev)) = main.replace((k, now)) else {
            continue;
        };
        let within = gap_ms(prev, now).is_some_and(|g| g <= lifetime_ms);
        if prev.model != now.model || now.compacted_before || !within || prev.usage.prompt() < 1024
        {
            continue;
        }
        // What the previous request left cached: its prompt and the
        // response it generated, sent back here (unless a new turn
        // dropped reasoning, or a side request came between).
        let back = sent
            .get(k)
            .filter(|s| j + 1 == k && s.dropped == 0)
            .map_or(0, |s| s.tokens);
        let left = prev.usage.prompt().saturating_add(back);
        let got = now.usage.cache_read.min(left);
        cached += u128::from(left);
        read += u128::from(got);
        steps.push((got, left));
    }
    if cached == 0 {
        return None;
    }
    let down = |d: Decimal| {
        d.round_dp_with_strategy(4, rust_decimal::RoundingStrategy::ToZero)
            .normalize()
    };
    let share = down(
        Decimal::from_i128_with_scale(i128::try_from(read).ok()?, 0).checked_div(
            Decimal::from_i128_with_scale(i128::try_from(cached).ok()?, 0),
        )?,
    );
    let n = steps.len();
    let p10 = (n >= 2).then(|| {
        // A statistic, not money: f64 is exact enough for the 4 decimals kept.
        let ratio = read as f64 / cached as f64;
        let squares: f64 = steps
            .iter()
            .map(|&(r, c)| (r as f64 - ratio * c as f64).powi(2))
            .sum();
        let se = (squares * n as f64 / (n - 1) as f64).sqrt() / cached as f64;
        let low = Decimal::from_f64_retain(ratio - Z_P10 * se).unwrap_or(Decimal::ZERO);
        down(low.max(Decimal::ZERO)).min(share)
    });
    Some(HitShare {
        share,
        p10,
        steps: n as u64,
    })
}

/// The milliseconds from `prev` to `now`, where the log timed both.
fn gap_ms(prev: &crate::import::Request, now: &crate::import::Request) -> Option<i64> {
    Some(now.at_ms?.saturating_sub(prev.at_ms?))
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
            let within = gap_ms(prev, now).is_some_and(|g| g <= lifetime_ms);
            let p = prev.usage.prompt();
            if (sent[k].dropped == 0 && !sent[k].new_turn)
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

/// A thread's cache expiries (a request more than the cache lifetime after
/// the previous one, on its model, not after a compaction), and what the
/// request after each read:
/// - the whole previous prompt (at least nine tenths of it): the provider
///   kept the cache beyond its lifetime (OpenAI's automatic cache lasts
///   "5 to 10 minutes, up to an hour"; a Codex rollout read its whole
///   prompt again after 3.3 hours);
/// - else, where the first request read a prefix an earlier run had left
///   warm, that prefix again (at least nine tenths of that first read):
///   another session of the same client often keeps it warm, and
///   sometimes none does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WarmExpiries {
    /// Expiries.
    pub expiries: u64,
    /// Of them, those after which the whole previous prompt was read.
    pub survived: u64,
    /// The first request read a warm prefix.
    pub warm_first: bool,
    /// Of the expiries the cache did not survive, those that read the warm
    /// prefix again.
    pub warm: u64,
}

impl WarmExpiries {
    /// Counted over `t`, with the cache lifetime `lifetime_ms`.
    pub fn of(t: &Thread, lifetime_ms: i64) -> WarmExpiries {
        let first = t.requests.first().map_or(0, |r| r.usage.cache_read);
        let mut out = WarmExpiries {
            warm_first: first > 0,
            ..WarmExpiries::default()
        };
        let at_least_most = |read: u64, of: u64| u128::from(read) * 10 >= u128::from(of) * 9;
        for w in t.requests.windows(2) {
            let (prev, now) = (&w[0], &w[1]);
            let expired = gap_ms(prev, now).is_some_and(|g| g > lifetime_ms);
            if !expired || prev.model != now.model || now.compacted_before {
                continue;
            }
            out.expiries += 1;
            let read = now.usage.cache_read;
            if read > 0 && at_least_most(read, prev.usage.prompt()) {
                out.survived += 1;
            } else if first > 0 && at_least_most(read, first) {
                out.warm += 1;
            }
        }
        out
    }

    /// `warm ÷ (expiries − survived)`, rounded to 4 decimals, where the
    /// first request read a warm prefix and some expiry the cache did not
    /// survive did not read it again; `None` when every one did (the
    /// replay's rule without a share), or there was none.
    pub fn share(self) -> Option<Decimal> {
        let lost = self.expiries - self.survived;
        (self.warm_first && self.warm < lost).then(|| {
            (Decimal::from(self.warm) / Decimal::from(lost))
                .round_dp(4)
                .normalize()
        })
    }

    /// `survived ÷ expiries`, rounded to 4 decimals, where the cache
    /// survived some expiry; `None` otherwise (the replay's rule without a
    /// share: none survive).
    pub fn survived_share(self) -> Option<Decimal> {
        (self.survived > 0).then(|| {
            (Decimal::from(self.survived) / Decimal::from(self.expiries))
                .round_dp(4)
                .normalize()
        })
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
                    kinds: FamilyFit::kinds_of(&fit.kinds),
                },
            ))
        })
        .collect();
    Calibration { families }
}

/// The steps a fit measures, as bytes and tokens: each step's growth less
/// `overhead` for its bytes not counted, where there are at least
/// [`MIN_STEP_BYTES`] of them with a plausible ratio; and the counted
/// results of each step, exactly, where they hold as many bytes.
fn measured(obs: &[Observation], overhead: u64) -> Vec<Observation> {
    let plausible = |bytes: u64, tokens: u64, kinds: [u64; 3]| {
        (bytes >= MIN_STEP_BYTES
            && tokens > 0
            && (MIN_RATIO..=MAX_RATIO).contains(&(bytes as f64 / tokens as f64)))
        .then_some(Observation {
            bytes,
            tokens,
            kinds,
            ..Observation::default()
        })
    };
    obs.iter()
        .flat_map(|o| {
            [
                o.tokens
                    .checked_sub(overhead)
                    .and_then(|t| plausible(o.bytes, t, o.kinds)),
                // Counted results are of no kind: their tokens are exact.
                plausible(o.counted_bytes, o.counted_tokens, [0; 3]),
            ]
        })
        .flatten()
        .collect()
}

/// Σ bytes and Σ tokens (less `overhead`) of the steps a fit measures.
fn measured_sums(obs: &[Observation], overhead: u64) -> (u64, u64) {
    measured(obs, overhead).iter().fold((0, 0), |(b, t), o| {
        (b.saturating_add(o.bytes), t.saturating_add(o.tokens))
    })
}

#[cfg(test)]
mod saved_tests;
#[cfg(test)]
mod tests;
