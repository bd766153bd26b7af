//! Checking the what-if sections of a scenario (plan, context
//! management, timing, retry, cache lifetime, effort) and its assumptions.

use super::check::Book;
use super::raw::*;
use super::*;
use toml::Spanned;

/// `[plan]`: 1–7 working days a week, growth up to 100 % a month.
pub(super) fn check_plan(src: &SourceText, p: Spanned<RawPlan>) -> Result<Plan, InputError> {
    let span = p.span();
    let p = p.into_inner();
    let days = p.working_days_per_week.unwrap_or(7);
    if !(1..=7).contains(&days) {
        return Err(src
            .error_at(
                format!("plan: working_days_per_week = {days}"),
                span,
                "plan",
            )
            .with_help("give the days a week the agent runs, 1 to 7"));
    }
    let growth = p.monthly_growth.unwrap_or_default();
    if growth > Decimal::ONE || growth.scale() > 6 {
        return Err(src
            .error_at(format!("plan: monthly_growth = {growth}"), span, "plan")
            .with_help("give the monthly growth as a share with at most 6 decimals, e.g. \"0.05\" for 5 %, at most 1"));
    }
    if p.budget_per_month
        .is_some_and(|b| b > Decimal::from(1_000_000_000_000u64))
    {
        return Err(src
            .error_at("plan: budget_per_month is above a trillion", span, "plan")
            .with_help("give the monthly budget in the scenario's currency"));
    }
    Ok(Plan {
        working_days_per_week: days,
        monthly_growth: growth,
        budget_per_month: p.budget_per_month,
    })
}

/// `[context_management]`: a known variant (default: the first that
/// caches, else the first), a summary that fits well below every
/// threshold, and at most [`MAX_CONTEXT_POINTS`] settings of each kind.
pub(super) fn check_context(
    src: &SourceText,
    c: Spanned<RawContext>,
    variants: &[PricedVariant],
    a: &Assumptions,
) -> Result<ContextCase, InputError> {
    let span = c.span();
    let c = c.into_inner();
    let here = |msg: String, help: String| {
        src.error_at(msg, span.clone(), "context_management")
            .with_help(help)
    };
    let names = || {
        variants
            .iter()
            .map(|v| format!("`{}`", v.variant.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let variant = match &c.variant {
        Some(name) => variants
            .iter()
            .position(|v| &v.variant.name == name)
            .ok_or_else(|| {
                here(
                    format!("context_management: no variant is named `{name}`"),
                    format!("name one of {}", names()),
                )
            })?,
        None => variants
            .iter()
            .position(|v| v.variant.cache != Cache::None)
            .unwrap_or(0),
    };
    if c.summary_tokens == 0 || c.summary_tokens > 10_000_000 {
        return Err(here(
            format!("context_management: summary_tokens = {}", c.summary_tokens),
            "give the tokens a compaction's summary takes, from 1 to 10,000,000 (Claude Code's summaries are a few thousand)".into(),
        ));
    }
    // The compacted prompt, upper bound: u·P + S, in whole tokens rounded up.
    let floor = (Decimal::from(a.prefix_tokens) * a.tokenizer_uplift).ceil()
        + Decimal::from(c.summary_tokens);
    let thresholds = c.thresholds.unwrap_or_default();
    if let Some(t) = thresholds.iter().find(|t| Decimal::from(**t) <= floor) {
        return Err(here(
            format!(
                "context_management: threshold {t} is not above the compacted prompt, {floor} tokens (prefix × uplift + summary_tokens)"
            ),
            "give thresholds above the prefix and the summary, or a smaller summary_tokens".into(),
        ));
    }
    let keep_steps = c.keep_steps.unwrap_or_default();
    if let Some(k) = keep_steps.iter().find(|k| **k > 10_000_000) {
        return Err(here(
            format!("context_management: keep_steps {k}"),
            "give the requests a result stays, from 0 to 10,000,000".into(),
        ));
    }
    for (what, n) in [
        ("thresholds", thresholds.len()),
        ("keep_steps", keep_steps.len()),
    ] {
        if n > MAX_CONTEXT_POINTS {
            return Err(here(
                format!("context_management: {n} {what}"),
                format!("list at most {MAX_CONTEXT_POINTS}"),
            ));
        }
    }
    let sorted = |mut v: Vec<u64>| {
        v.sort_unstable();
        v.dedup();
        v
    };
    Ok(ContextCase {
        variant,
        summary_tokens: c.summary_tokens,
        thresholds: sorted(thresholds),
        keep_steps: sorted(keep_steps),
    })
}

pub(super) fn check_timing(src: &SourceText, t: RawTiming) -> Result<Timing, InputError> {
    Ok(Timing {
        model_ms_per_step: to_ms(
            t.model_seconds_per_step,
            src,
            "timing.model_seconds_per_step",
        )?,
        pauses: t
            .pauses
            .into_iter()
            .map(|p| {
                Ok(Pause {
                    before_request: p.before_request,
                    ms: to_ms(p.seconds, src, "timing.pauses.seconds")?,
                })
            })
            .collect::<Result<_, InputError>>()?,
    })
}

pub(super) fn check_retry(
    src: &SourceText,
    book: &Book<'_>,
    r: Spanned<RawRetry>,
) -> Result<RetryCase, InputError> {
    let span = r.span();
    let r = r.into_inner();
    let baseline = book.model(src, &r.baseline.model, "retry model")?;
    let candidate = book.model(src, &r.candidate.model, "retry model")?;
    let (Some(attempts), Some(accepted)) = (r.baseline.attempts, r.baseline.accepted) else {
        return Err(src
            .error_at(
                "the retry baseline needs `attempts` and `accepted`",
                span,
                "retry",
            )
            .with_help(
                "e.g. baseline = { model = \"claude-fable-5-1\", attempts = 20, accepted = 20 }",
            ));
    };
    if attempts > MAX_ATTEMPTS
        || r.input_tokens_per_attempt > limits::MAX_TOKENS
        || r.output_tokens_per_attempt > limits::MAX_TOKENS
    {
        return Err(src
            .error_at(
                format!(
                    "retry: {attempts} attempts of {} input and {} output tokens is beyond what tokencast accepts",
                    r.input_tokens_per_attempt, r.output_tokens_per_attempt
                ),
                span,
                "retry",
            )
            .with_help(format!(
                "at most {MAX_ATTEMPTS} attempts and {} tokens per attempt",
                limits::MAX_TOKENS
            )));
    }
    if accepted == 0 || attempts < accepted {
        return Err(src
            .error_at(
                format!("retry baseline: {accepted} accepted answers from {attempts} attempts"),
                span,
                "retry",
            )
            .with_help("accepted must be at least 1 and at most attempts"));
    }
    Ok(RetryCase {
        input_tokens_per_attempt: r.input_tokens_per_attempt,
        output_tokens_per_attempt: r.output_tokens_per_attempt,
        baseline,
        baseline_attempts: attempts,
        accepted,
        candidate,
    })
}

pub(super) fn check_lifetime(src: &SourceText, l: RawLifetime) -> Result<LifetimeCase, InputError> {
    let span = l.sweep_model_seconds.span();
    let r = l.sweep_model_seconds.into_inner();
    check_range(src, span, r.from, r.to, r.step)?;
    Ok(LifetimeCase {
        model_ms_per_step: to_ms(
            l.model_seconds_per_step,
            src,
            "cache_lifetime.model_seconds_per_step",
        )?,
        sweep_seconds: (r.from, r.to, r.step),
    })
}

/// Effort presets sorted by tokens, then name.
pub(super) fn effort_presets(
    src: &SourceText,
    raw: Option<RawEffort>,
) -> Result<Vec<(String, u64)>, InputError> {
    let mut presets: Vec<(String, u64)> = raw
        .map(|e| e.presets.into_iter().collect())
        .unwrap_or_default();
    let at = |message: String, help: &str| {
        src.error_at_key("presets", message, "effort presets")
            .with_help(help)
    };
    if presets.len() > crate::limits::MAX_EFFORT_PRESETS {
        return Err(at(
            format!(
                "{}: effort.presets lists {} presets, more than {}",
                src.name,
                presets.len(),
                crate::limits::MAX_EFFORT_PRESETS
            ),
            "each preset is a replay of its own: keep the few a planner compares (low, medium, high)",
        ));
    }
    if let Some((name, _)) = presets
        .iter()
        .find(|(n, _)| !crate::limits::text_fits(n, crate::limits::MAX_NAME_CHARS))
    {
        return Err(at(
            format!(
                "{}: an effort preset's name is longer than {} characters ({} bytes)",
                src.name,
                crate::limits::MAX_NAME_CHARS,
                name.len()
            ),
            "name presets briefly, e.g. low, medium, high",
        ));
    }
    presets.sort_by_key(|(name, tokens)| (*tokens, name.clone()));
    Ok(presets)
}

/// Keeps every exact sum of the replay within `rust_decimal`'s 96 bits.
pub(super) fn check_assumptions(
    src: &SourceText,
    files: &dyn Files,
    a: RawAssumptions,
    model: &str,
    inputs: &mut Vec<InputFile>,
) -> Result<(Assumptions, FamilyFits), InputError> {
    // Located at the key's line when it can be found.
    let problem = |p: String, help: &str| {
        let key = p.split([' ', '=']).next().unwrap_or("");
        src.error_at_key(
            key,
            format!("{}: assumptions.{p}", src.name),
            "out of range",
        )
        .with_help(help)
    };
    let band = match &a.calibration {
        Some(path) => {
            let (band, file) = calibrated(src, files, path, &a, model)?;
            inputs.push(input_file(&file));
            band
        }
        None => {
            let missing = |key: &str| {
                InputError::new(format!("{}: [assumptions] has no `{key}`", src.name)).with_help(
                    "give bytes_per_token and tokenizer_uplift (the seed's band: 4 and 1.3), or name a saved calibration: calibration = \"FILE\" (`tokencast import … --save-calibration FILE`)",
                )
            };
            Band {
                bytes_per_token: a
                    .bytes_per_token
                    .ok_or_else(|| missing("bytes_per_token"))?,
                tokenizer_uplift: a
                    .tokenizer_uplift
                    .ok_or_else(|| missing("tokenizer_uplift"))?,
                estimate: a.estimate_bytes_per_token,
                step_overhead_tokens: a.step_overhead_tokens.unwrap_or(0),
                content_weights: None,
                calibration: None,
                family_fits: Vec::new(),
            }
        }
    };
    for (field, v) in [
        ("prefix_tokens", a.prefix_tokens),
        ("output_tokens_per_step", a.output_tokens_per_step),
        ("final_output_tokens", a.final_output_tokens),
        ("step_overhead_tokens", band.step_overhead_tokens),
    ] {
        limits::tokens(field, v)
            .map_err(|p| problem(p, "token counts per request are at most in the millions"))?;
    }
    limits::runs_per_day(a.runs_per_day)
        .map_err(|p| problem(p, "a projection needs at most a billion runs a day"))?;
    let team_size = a.team_size.unwrap_or(1);
    limits::team_size(team_size, a.runs_per_day).map_err(|p| {
        problem(
            p,
            "give the people who each start runs_per_day runs a day: 1 or more, the team's runs a day at most a billion",
        )
    })?;
    for (field, v) in [
        ("bytes_per_token", band.bytes_per_token),
        ("tokenizer_uplift", band.tokenizer_uplift),
        (
            "estimate_bytes_per_token",
            band.estimate.unwrap_or(Decimal::ONE),
        ),
    ] {
        limits::factor(field, v).map_err(|p| {
            problem(
                p,
                "use at most six decimals and a value of at most 1000, e.g. 4 or 1.3",
            )
        })?;
    }
    // Written weights are checked where they are written; a calibration's
    // are within the limits by construction.
    let content_weights = match &a.content_weights {
        Some(w) => {
            let v = *w.get_ref();
            v.check().map_err(|p| {
                src.error_at(format!("{}: assumptions.{p}", src.name), w.span(), "out of range")
                    .with_help("give each kind's weight (code, output, text) from 0.01 to 10 with at most two decimals, e.g. { code = 0.95, output = 1.1, text = 1 }")
            })?;
            Some(v)
        }
        None => band.content_weights,
    };
    let assumptions = Assumptions {
        prefix_tokens: a.prefix_tokens,
        output_tokens_per_step: a.output_tokens_per_step,
        final_output_tokens: a.final_output_tokens,
        bytes_per_token: band.bytes_per_token,
        tokenizer_uplift: band.tokenizer_uplift,
        runs_per_day: a.runs_per_day,
        team_size,
        prefix_measured: a.prefix_measured,
        prefix_cached_tokens: a.prefix_cached_tokens.min(a.prefix_tokens),
        step_overhead_tokens: band.step_overhead_tokens,
        estimate_bytes_per_token: band.estimate,
        // Set by the scenario's check, which applies it to the trace.
        trim: Default::default(),
        calibration: band.calibration,
        content_weights,
    };
    Ok((assumptions, band.family_fits))
}

/// Every family's fit of `saved` (the file at `path`), each a band a
/// variant on that family's model may replay at: within the limits of a
/// band written by hand, else a located error (a file written by hand or
/// crafted must not reach the replay's exact arithmetic).
fn family_fits(
    src: &SourceText,
    path: &Spanned<String>,
    file: &SourceText,
    saved: &super::calibration::Calibration,
) -> Result<FamilyFits, InputError> {
    let mut out = Vec::new();
    for f in saved.families.keys() {
        let Some(fit) = saved.fit_for(f) else {
            continue;
        };
        let (b, u, e) = fit.band();
        let checked = [
            ("bytes_per_token", b),
            ("tokenizer_uplift", u),
            ("estimate_bytes_per_token", e),
        ]
        .into_iter()
        .try_for_each(|(key, v)| limits::factor(key, v))
        .and_then(|()| limits::tokens("overhead", fit.overhead));
        if let Err(p) = checked {
            return Err(src
                .error_at(
                    format!(
                        "{}: the calibration `{}`, family `{}`: {p}",
                        src.name,
                        crate::text::display(&file.name),
                        crate::text::display(f)
                    ),
                    path.span(),
                    "calibration path",
                )
                .with_help(
                    "write the file again with `tokencast import … --save-calibration FILE`",
                ));
        }
        out.push((f.clone(), fit));
    }
    Ok(out)
}

/// Every family's fit of a calibration, by family.
pub(super) type FamilyFits = Vec<(String, super::calibration::Fit)>;

pub(super) fn check_range(
    src: &SourceText,
    span: std::ops::Range<usize>,
    from: u64,
    to: u64,
    step: u64,
) -> Result<(), InputError> {
    let problem = if step == 0 {
        Some("the step is zero".to_string())
    } else if to < from {
        Some(format!("the range is reversed: from {from} to {to}"))
    } else if (to - from) / step + 1 > MAX_RANGE_POINTS {
        Some(format!(
            "the range has {} points, more than {MAX_RANGE_POINTS}",
            (to - from) / step + 1
        ))
    } else {
        None
    };
    match problem {
        Some(p) => Err(src
            .error_at(format!("invalid sweep range: {p}"), span, "range")
            .with_help(
                "write { from = 0, to = 300, step = 20 } with from ≤ to and a step above zero",
            )),
        None => Ok(()),
    }
}

/// Seconds as whole milliseconds; finer precision is an error, not a silent rounding.
pub(super) fn to_ms(seconds: Decimal, src: &SourceText, field: &str) -> Result<u64, InputError> {
    let ms = seconds
        .checked_mul(Decimal::from(1000))
        .filter(|ms| ms.fract().is_zero() && *ms <= Decimal::from(u32::MAX));
    ms.and_then(crate::input::whole).ok_or_else(|| {
        InputError::new(format!(
            "{}: `{field}` = {seconds} is not a whole number of milliseconds up to {} s",
            src.name,
            u32::MAX / 1000
        ))
        .with_help("give seconds with at most three decimals, e.g. 2.5")
    })
}

/// How the scenario turns bytes into tokens: written in it, or from a
/// saved calibration.
struct Band {
    bytes_per_token: Decimal,
    tokenizer_uplift: Decimal,
    estimate: Option<Decimal>,
    step_overhead_tokens: u64,
    content_weights: Option<crate::scenario::content::ContentWeights>,
    calibration: Option<CalibrationUse>,
    /// Every family's fit in the calibration (variants on models of
    /// another tokenizer take theirs).
    family_fits: FamilyFits,
}

/// The band of the calibration at `path` for `model`'s family, and the
/// file it was read from. A value written beside the calibration is kept
/// in its place (as a reader of a live page who changes bytes per token
/// keeps the rest of the calibration), and said to be.
fn calibrated(
    src: &SourceText,
    files: &dyn Files,
    path: &Spanned<String>,
    a: &RawAssumptions,
    model: &str,
) -> Result<(Band, SourceText), InputError> {
    let file = files.read(path.get_ref(), "calibration").map_err(|e| {
        src.error_at(e.message().to_string(), path.span(), "calibration path")
            .with_help(e.help_text().unwrap_or("check the path"))
    })?;
    let saved = super::calibration::Calibration::parse(&file)?;
    let family = super::calibration::family(model);
    let Some(fit) = saved.fit_for(model) else {
        let has: Vec<&str> = saved.families.keys().map(String::as_str).collect();
        return Err(src
            .error_at(
                format!(
                    "{}: the calibration `{}` has no fit for the model's family `{}`",
                    src.name,
                    crate::text::display(&file.name),
                    crate::text::display(&family)
                ),
                path.span(),
                "no fit for this model",
            )
            .with_help(if has.is_empty() {
                "the file holds no family; save one from logs of this model with `tokencast import … --save-calibration FILE`".to_string()
            } else {
                format!(
                    "it has {}; name a calibration saved from logs of this model, or write bytes_per_token and tokenizer_uplift instead",
                    has.iter()
                        .map(|f| format!("`{}`", crate::text::display(f)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }));
    };
    let (bytes_per_token, tokenizer_uplift, estimate) = fit.band();
    let written: Vec<String> = [
        ("bytes_per_token", a.bytes_per_token.is_some()),
        ("tokenizer_uplift", a.tokenizer_uplift.is_some()),
        (
            "estimate_bytes_per_token",
            a.estimate_bytes_per_token.is_some(),
        ),
        ("step_overhead_tokens", a.step_overhead_tokens.is_some()),
        ("content_weights", a.content_weights.is_some()),
    ]
    .into_iter()
    .filter(|(_, given)| *given)
    .map(|(key, _)| key.to_string())
    .collect();
    Ok((
        Band {
            bytes_per_token: a.bytes_per_token.unwrap_or(bytes_per_token),
            tokenizer_uplift: a.tokenizer_uplift.unwrap_or(tokenizer_uplift),
            estimate: a.estimate_bytes_per_token.or(Some(estimate)),
            step_overhead_tokens: a.step_overhead_tokens.unwrap_or(fit.overhead),
            content_weights: fit.weights(),
            family_fits: family_fits(src, path, &file, &saved)?,
            calibration: Some(CalibrationUse {
                file: path.get_ref().clone(),
                family,
                steps: fit.steps,
                written,
            }),
        },
        file,
    ))
}
