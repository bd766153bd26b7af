//! Checking a scenario: its raw tables, its price book and its trace into
//! a [`Scenario`], with a located error for the first thing that is wrong.
//! The what-if sections are checked in [`super::check_what_if`].

use super::check_what_if::*;
use super::raw::*;
use super::trim::Trim;
use super::*;
use jiff::civil::Date;
use toml::Spanned;
mod variants;
use variants::check_variants;

impl Scenario {
    /// Checks the scenario `src`, reading the files it names through
    /// `files`. `today` is the price date when the scenario
    /// sets none; without it, a book with dated entries needs the
    /// scenario's `date`.
    pub fn check(
        src: &SourceText,
        files: &dyn Files,
        today: Option<Date>,
    ) -> Result<Scenario, InputError> {
        Scenario::check_with(src, files, today, Given::default())
    }

    /// [`Scenario::check`] with some of the files already in memory (an
    /// import checks the scenarios it is about to write). The parts are
    /// checked in the order the file reads, so the first error is the
    /// first thing wrong: currency, date, price book, model, trace, trim,
    /// fees, variants, timing, what-ifs, assumptions, names.
    pub fn check_with(
        src: &SourceText,
        files: &dyn Files,
        today: Option<Date>,
        given: Given,
    ) -> Result<Scenario, InputError> {
        let raw: RawScenario = src.parse_toml("scenario")?;
        let mut inputs = vec![input_file(src)];
        let currency = raw
            .currency
            .map(|c| check_currency(src, c))
            .transpose()?
            .unwrap_or_default();
        let date = check_date(src, raw.date.as_ref())?;
        let mut book = Book::load(src, files, &raw.prices, given.book)?;
        book.date = date.or(today);
        book.rate = currency.per_usd;
        inputs.push(
            given
                .book_file
                .cloned()
                .unwrap_or_else(|| input_file(&book.src)),
        );
        let prices = book.model(src, &raw.model, "model")?;
        let plan = raw
            .trace
            .get_ref()
            .generate
            .as_ref()
            .map(|p| p.get_ref().clone());
        let trace_text = given.trace;
        let (trace, gathered) = load_trace(
            src,
            files,
            raw.trace,
            &mut inputs,
            trace_text,
            given.checked_trace,
        )?;
        let trim = check_trim(src, raw.assumptions.trim.as_ref())?;
        // Trimming rewrites the trimmed sizes the sums count: they are
        // counted again then.
        let gathered = gathered.filter(|_| trim == Trim::None);
        let trace = in_currency_and_trimmed(trace, &currency, trim);
        let (trace, models) = super::trace::Trace::with_recorded_models(trace, gathered);
        let tool_fees = check_tool_fees(src, &book, trace.calls(), raw.tool_fees)?;
        let recorded_prices = recorded_prices(models, &book);
        let variants = check_variants(src, &book, &prices, raw.variants, trace.calls())?;
        let timing = raw.timing.map(|t| check_timing(src, t)).transpose()?;
        let mut what_if = WhatIfs {
            retry: raw.retry.map(|r| check_retry(src, &book, r)).transpose()?,
            cache_lifetime: raw
                .cache_lifetime
                .map(|l| check_lifetime(src, l))
                .transpose()?,
            effort: effort_presets(src, raw.effort)?,
            restart: raw.restart.map(|r| r.idempotency_keys),
            plan: raw
                .plan
                .map(|p| check_plan(src, p))
                .transpose()?
                .unwrap_or_default(),
            context: None,
        };
        let (mut assumptions, family_fits) =
            check_assumptions(src, files, raw.assumptions, &prices.model, &mut inputs)?;
        assumptions.trim = trim;
        if let Some(c) = raw.context_management {
            what_if.context = Some(check_context(src, c, &variants, &assumptions)?);
        }
        check_names(src, &raw.name, &raw.question)?;
        let scenario = Scenario {
            name: raw.name,
            question: raw.question,
            prices,
            assumptions,
            timing,
            what_if,
            variants,
            trace: std::sync::Arc::new(trace),
            plan,
            tool_fees,
            currency,
            price_date: price_date(date, &book),
            recorded_prices,
            inputs,
            family_fits,
            band_view: super::BandView::Bounds,
        };
        limits::replay_fits(&scenario.replay_size()).map_err(|p| {
            InputError::new(format!("{}: {p}", src.name)).with_help(
                "lower the prefix, the output per step, the prices or the trace's sizes; realistic runs are many orders of magnitude below this",
            )
        })?;
        Ok(scenario)
    }

    /// One SHA-256 over every input file, for the report's footer.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.inputs)
    }

    /// The largest replay this scenario asks for (its what-ifs included),
    /// for [`limits::replay_fits`].
    pub fn replay_size(&self) -> limits::ReplaySize {
        // The scenario's band and each variant's of another tokenizer: the
        // one that reaches furthest.
        let own = self.replay_size_with(&self.assumptions);
        self.variants
            .iter()
            .filter(|pv| self.band_of(pv).is_some())
            .map(|pv| self.replay_size_with(&self.assumptions_of(pv)))
            .fold(own, |a, b| {
                if limits::magnitude(&b) > limits::magnitude(&a) {
                    b
                } else {
                    a
                }
            })
    }

    /// [`Scenario::replay_size`] at the band of `a`.
    fn replay_size_with(&self, a: &Assumptions) -> limits::ReplaySize {
        let max_rate = self
            .variants
            .iter()
            .flat_map(|v| v.rates.all())
            .max()
            .unwrap_or_default();
        let trace::Sums {
            results,
            bytes,
            output,
            ..
        } = self.trace.sums();
        limits::ReplaySize {
            prefix: a.prefix_tokens,
            per_step: self
                .what_if
                .effort
                .iter()
                .map(|(_, t)| *t)
                .fold(a.output_tokens_per_step.max(output), u64::max)
                .saturating_add(a.step_overhead_tokens),
            final_output: a.final_output_tokens,
            // A weighed replay counts hundredths of weighted bytes.
            bytes_per_token: a.unit_bytes_per_token(),
            uplift: a.tokenizer_uplift,
            results,
            bytes: bytes.saturating_mul(u128::from(
                a.weights()
                    .map_or(1, super::content::ContentWeights::max_hundredths),
            )),
            max_rate,
        }
    }
}

/// The scenario's price book, read and parsed, with its text for messages,
/// the date that chooses dated entries, and the currency rate.
pub(super) struct Book<'g> {
    /// Borrowed when the caller gives the book in memory (an import loads
    /// one scenario per thread against the same book).
    src: std::borrow::Cow<'g, SourceText>,
    book: std::borrow::Cow<'g, PriceBook>,
    date: Option<Date>,
    rate: Decimal,
    /// Whether a dated entry was chosen by the date.
    used_default: std::cell::Cell<bool>,
}

impl<'g> Book<'g> {
    pub(super) fn load(
        src: &SourceText,
        files: &dyn Files,
        path: &Spanned<String>,
        given: Option<(&'g SourceText, &'g PriceBook)>,
    ) -> Result<Book<'g>, InputError> {
        if let Some((text, book)) = given {
            return Ok(Book {
                src: std::borrow::Cow::Borrowed(text),
                book: std::borrow::Cow::Borrowed(book),
                date: None,
                rate: Decimal::ONE,
                used_default: std::cell::Cell::new(false),
            });
        }
        let book_src = files.read(path.get_ref(), "price book").map_err(|e| {
            src.error_at(e.message().to_string(), path.span(), "price book path")
                .with_help(e.help_text().unwrap_or("check the path"))
        })?;
        let book = PriceBook::parse(&book_src)?;
        Ok(Book {
            src: std::borrow::Cow::Owned(book_src),
            book: std::borrow::Cow::Owned(book),
            date: None,
            rate: Decimal::ONE,
            used_default: std::cell::Cell::new(false),
        })
    }

    /// The prices of the model named at `id` in force on the date,
    /// converted to the scenario's currency, or an error pointing at it.
    pub(super) fn model(
        &self,
        src: &SourceText,
        id: &Spanned<String>,
        what: &str,
    ) -> Result<ModelPrices, InputError> {
        let model_id = id.get_ref();
        let listed = crate::pricing::PricedModel::parse(model_id).id;
        let dated =
            self.book.is_dated(listed) || self.book.is_dated(crate::pricing::undated(listed));
        let date = match (self.date, dated) {
            (Some(d), _) => d,
            (None, false) => Date::MAX,
            (None, true) => {
                return Err(src
                    .error_at(
                        format!("{what} `{model_id}` has dated prices in `{}`, and the scenario sets no date", self.src.name),
                        id.span(),
                        "which prices?",
                    )
                    .with_help("add date = \"YYYY-MM-DD\" to the scenario: the entry in force that day is used"));
            }
        };
        if dated {
            self.used_default.set(true);
        }
        match self.book.priced_on(model_id, date) {
            Ok(m) => Ok(if self.rate == Decimal::ONE {
                m
            } else {
                m.converted(self.rate)
            }),
            Err(NotPriced::Lacks(what_not)) => Err(src
                .error_at(
                    format!("{what} `{model_id}`: the price book `{}` gives no {what_not}", self.src.name),
                    id.span(),
                    "not priced",
                )
                .with_help(missing_option_help(model_id))),
            Err(NotPriced::NotYet(first)) => Err(src
                .error_at(
                    format!("{what} `{model_id}` has no price in force on {date}: its first entry starts on {first}"),
                    id.span(),
                    "not priced yet",
                )
                .with_help(format!("set the scenario's date to {first} or later, or add an earlier entry to `{}`", self.src.name))),
            Err(NotPriced::Unknown) => {
                let mut help = did_you_mean(model_id, self.book.model_ids(), "The price book has");
                if closest(model_id, self.book.model_ids()).is_none() {
                    help.push_str(&format!("; add a [models.{model_id}] table to it"));
                }
                Err(src
                    .error_at(
                        format!(
                            "{what} `{model_id}` is not in the price book `{}`",
                            self.src.name
                        ),
                        id.span(),
                        "unknown model",
                    )
                    .with_help(help))
            }
        }
    }
}

/// What to add to a price book whose entry lacks the service tier or region
/// `model_id` names ([`crate::pricing::PricedModel`]).
fn missing_option_help(model_id: &str) -> String {
    let p = crate::pricing::PricedModel::parse(model_id);
    let key = toml::Value::String(p.id.to_string());
    let tier = p
        .options
        .service
        .map(|t| format!("[models.{key}.services.{t}] multiplier = \"…\""));
    let region = p
        .options
        .region
        .map(|r| format!("[models.{key}.regions] {r} = \"…\""));
    let add: Vec<String> = tier.into_iter().chain(region).collect();
    format!(
        "add {} to the price book, from the provider's prices, or name the model without it (`{}`)",
        add.join(" and "),
        crate::text::display(p.id)
    )
}

/// A variant's `service` or `region`: a name the model's entry defines.
pub(super) fn check_option<'a>(
    src: &SourceText,
    given: Option<&Spanned<String>>,
    model: &ModelPrices,
    what: &str,
    known: impl Iterator<Item = &'a String> + Clone,
) -> Result<Option<String>, InputError> {
    let Some(g) = given else { return Ok(None) };
    let name = g.get_ref();
    if known.clone().any(|k| k == name) {
        return Ok(Some(name.clone()));
    }
    let list: Vec<&str> = known.map(String::as_str).collect();
    let help = if list.is_empty() {
        format!(
            "`{}` defines no {what}; add one to its price book entry, or remove this line",
            model.model
        )
    } else {
        did_you_mean(name, list, &format!("`{}` has", model.model))
    };
    Err(src
        .error_at(
            format!("{what} `{name}` is not defined for `{}`", model.model),
            g.span(),
            format!("unknown {what}"),
        )
        .with_help(help))
}

impl Book<'_> {
    /// A model's prices in force, converted, if the book has them.
    pub(super) fn price_of(&self, id: &str) -> Option<ModelPrices> {
        let date = self.date.unwrap_or(Date::MAX);
        let m = self.book.priced_on(id, date).ok()?;
        Some(if self.rate == Decimal::ONE {
            m
        } else {
            m.converted(self.rate)
        })
    }
}

/// `date = "YYYY-MM-DD"`: the day whose prices apply.
pub(super) fn check_date(
    src: &SourceText,
    d: Option<&Spanned<String>>,
) -> Result<Option<Date>, InputError> {
    let Some(d) = d else { return Ok(None) };
    match crate::input::date(d.get_ref()) {
        Some(day) => Ok(Some(day)),
        None => Err(src
            .error_at(
                format!("date \"{}\" is not a date", d.get_ref()),
                d.span(),
                "not YYYY-MM-DD",
            )
            .with_help(
                "write the day whose prices apply as YYYY-MM-DD, e.g. date = \"2026-11-30\"",
            )),
    }
}

/// `[currency]`: an ISO 4217 code, a positive rate per USD and its date.
pub(super) fn check_currency(
    src: &SourceText,
    c: Spanned<RawCurrency>,
) -> Result<Currency, InputError> {
    let span = c.span();
    let c = c.into_inner();
    let bad = |msg: String, help: &str| {
        Err(src
            .error_at(msg, span.clone(), "currency")
            .with_help(help.to_string()))
    };
    if c.code.len() != 3 || !c.code.bytes().all(|b| b.is_ascii_uppercase()) {
        return bad(
            format!("currency code \"{}\" is not three capital letters", c.code),
            "write an ISO 4217 code such as \"EUR\", \"GBP\" or \"JPY\"",
        );
    }
    let rate = c.per_usd.normalize();
    if rate > Decimal::from(1_000_000) || rate.scale() > 6 {
        return bad(
            format!("per_usd = {rate} is outside what tokencast accepts"),
            "give units of the currency per US dollar, above 0, at most 1,000,000, with at most 6 decimals (e.g. \"0.92\")",
        );
    }
    if !is_date(&c.rate_date) {
        return bad(
            format!("rate_date \"{}\" is not a date", c.rate_date),
            "write the day the rate was read as YYYY-MM-DD; tokencast never fetches live rates",
        );
    }
    if c.code == "USD" && rate != Decimal::ONE {
        return bad(
            format!("USD at {rate} per USD"),
            "US dollars convert at 1; leave [currency] out to report in USD",
        );
    }
    Ok(Currency {
        code: c.code,
        per_usd: rate,
        rate_date: c.rate_date,
    })
}

/// `[tool_fees]`: each capability of the trace named, each fee in the book.
pub(super) fn check_tool_fees(
    src: &SourceText,
    book: &Book<'_>,
    trace: &[TraceCall],
    raw: std::collections::BTreeMap<String, Spanned<String>>,
) -> Result<Vec<ToolFee>, InputError> {
    let mut out: Vec<ToolFee> = Vec::new();
    for (capability, fee) in raw {
        let span = fee.span();
        let name = fee.into_inner();
        if !trace.iter().any(|c| *c.capability == *capability) {
            let mut caps: Vec<&str> = trace.iter().map(|c| &*c.capability).collect();
            caps.sort_unstable();
            caps.dedup();
            return Err(src
                .error_at(
                    format!("tool_fees: capability `{capability}` is not in the trace"),
                    span,
                    "unknown capability",
                )
                .with_help(did_you_mean(&capability, caps, "The trace has")));
        }
        let Some(f) = book.book.fee(&name) else {
            return Err(src
                .error_at(
                    format!(
                        "tool_fees: fee `{name}` is not in the price book `{}`",
                        book.src.name
                    ),
                    span,
                    "unknown fee",
                )
                .with_help(format!(
                    "{}; a fee is a [fees.<name>] table with unit, price, source and read_on",
                    did_you_mean(&name, book.book.fee_names(), "The price book has")
                )));
        };
        match out.iter_mut().find(|t| t.fee.name == name) {
            Some(t) => t.capabilities.push(capability),
            None => out.push(ToolFee {
                fee: f.converted(book.rate),
                capabilities: vec![capability],
            }),
        }
    }
    Ok(out)
}

/// Reads the trace from its CSV file or the inline rows; it must have a
/// result. Beside the rows, their sums and models when the reader gathered
/// them as it read.
pub(super) fn load_trace(
    src: &SourceText,
    files: &dyn Files,
    raw: Spanned<RawTrace>,
    inputs: &mut Vec<InputFile>,
    given: Option<&SourceText>,
    checked: Option<&CheckedTrace>,
) -> Result<(Vec<TraceCall>, Option<trace::Gathered>), InputError> {
    let span = raw.span();
    let raw = raw.into_inner();
    if let Some(plan) = raw.generate {
        if raw.file.is_some() || raw.calls.is_some() {
            return Err(src
                .error_at(
                    "the trace has [trace.generate] and also `file` or inline `calls`",
                    plan.span(),
                    "one of these",
                )
                .with_help("describe the run by distributions, or give its rows, not both"));
        }
        let at = plan.span();
        return Ok((plan.get_ref().calls(src, at)?, None));
    }
    let trace = match (raw.file, raw.calls) {
        (Some(file), None) if checked.is_some_and(|c| c.rel == *file.get_ref()) => {
            let c = checked.expect("checked");
            inputs.push(c.file.clone());
            c.calls.clone()
        }
        (Some(_), None) if given.is_some() => {
            let trace_src = given.expect("checked");
            let (file, calls) = trace::read_csv(trace_src);
            inputs.push(file);
            calls?
        }
        (Some(file), None) => {
            #[cfg(feature = "parallel")]
            if let Some((file, calls, gathered)) = files
                .blocks(file.get_ref(), "trace file")
                .and_then(|blocks| trace::read_csv_blocks(blocks, trace::BLOCK))
            {
                inputs.push(file);
                return Ok((trace_with_a_result(src, span, calls)?, Some(gathered)));
            }
            let trace_src = files.read(file.get_ref(), "trace file").map_err(|e| {
                src.error_at(e.message().to_string(), file.span(), "trace file path")
                    .with_help(e.help_text().unwrap_or("check the path"))
            })?;
            let (file, calls) = trace::read_csv(&trace_src);
            inputs.push(file);
            calls?
        }
        (None, Some(calls)) => trace::check_inline(src, calls)?,
        (Some(file), Some(_)) => {
            return Err(src
                .error_at(
                    "the trace has both `file` and inline `calls`",
                    file.span(),
                    "one of these",
                )
                .with_help("keep either `file = \"…csv\"` or the [[trace.calls]] rows, not both"))
        }
        (None, None) => {
            return Err(src
                .error_at("the trace has no calls", span, "empty trace")
                .with_help("set `file = \"traces/run.csv\"` or add [[trace.calls]] rows"))
        }
    };
    Ok((trace_with_a_result(src, span, trace)?, None))
}

/// The trace, when one of its rows has a result.
fn trace_with_a_result(
    src: &SourceText,
    span: std::ops::Range<usize>,
    trace: Vec<TraceCall>,
) -> Result<Vec<TraceCall>, InputError> {
    if !trace.iter().any(TraceCall::enters_context) {
        let what = if trace.is_empty() {
            "the trace is empty".to_string()
        } else {
            "no call in the trace returned a successful, non-replayed result".to_string()
        };
        return Err(src
            .error_at(what, span, "trace")
            .with_help("a trace needs at least one row with a 2xx status and replayed = false"));
    }
    Ok(trace)
}

/// The error for a top-level text value over its limit, at its key.
pub(super) fn too_long(src: &SourceText, key: &str, max: usize) -> InputError {
    src.error_at_key(
        key,
        format!("{}: `{key}` is longer than {max} characters", src.name),
        "too long",
    )
    .with_help(format!("shorten `{key}` to at most {max} characters"))
}

/// The scenario's trim rule, or a located error saying how to write one.
fn check_trim(src: &SourceText, t: Option<&Spanned<RawTrim>>) -> Result<Trim, InputError> {
    let Some(t) = t else {
        return Ok(Trim::None);
    };
    let rule = match t.get_ref() {
        RawTrim::Bytes(n) => u64::try_from(*n)
            .map(Trim::KeepBytes)
            .map_err(|_| format!("{n} bytes: a size kept is 0 or more")),
        RawTrim::Fraction(x) => Err(format!("{x}: bytes kept are a whole number")),
        RawTrim::Text(s) => Trim::try_from(s.clone()),
    };
    rule.map_err(|why| {
        src.error_at(
            format!("{}: assumptions.trim: {why}", src.name),
            t.span(),
            "trim rule",
        )
        .with_help("trim = 4096 keeps at most 4,096 bytes of each result, trim = \"25%\" a quarter; leave it out to use the trace's trimmed_bytes")
    })
}

/// The trace's fees in the scenario's currency, and each result's trimmed
/// size by the scenario's trim rule (when it has one).
fn in_currency_and_trimmed(
    mut trace: Vec<TraceCall>,
    currency: &Currency,
    trim: Trim,
) -> Vec<TraceCall> {
    if !currency.is_usd() {
        for c in &mut trace {
            c.charged_usd = (c.charged_usd * currency.per_usd).normalize();
        }
    }
    if trim != Trim::None {
        for c in &mut trace {
            if let Some(raw) = c.raw_bytes {
                c.trimmed_bytes = Some(trim.apply(raw));
            }
        }
    }
    trace
}

/// The prices of every model the trace's recorded requests name, where the
/// book has them.
fn recorded_prices(
    models: Vec<String>,
    book: &Book,
) -> std::collections::BTreeMap<String, ModelPrices> {
    models
        .into_iter()
        .filter_map(|m| {
            let prices = book.price_of(&m)?;
            Some((m, prices))
        })
        .collect()
}

/// A name, and the name and question within their lengths.
fn check_names(src: &SourceText, name: &str, question: &str) -> Result<(), InputError> {
    if name.trim().is_empty() {
        return Err(InputError::new(format!("{}: `name` is empty", src.name))
            .with_help("give the scenario a short name, e.g. name = \"research\""));
    }
    for (key, text, max) in [
        ("name", name, limits::MAX_NAME_CHARS),
        ("question", question, limits::MAX_TEXT_CHARS),
    ] {
        if !limits::text_fits(text, max) {
            return Err(too_long(src, key, max));
        }
    }
    Ok(())
}

/// Where the price date came from: the scenario's `date`, or today when a
/// dated entry was chosen by it.
fn price_date(date: Option<Date>, book: &Book) -> Option<PriceDate> {
    match (date, book.used_default.get()) {
        (Some(d), _) => Some(PriceDate {
            date: d,
            from: "scenario".into(),
        }),
        (None, true) => book.date.map(|d| PriceDate {
            date: d,
            from: "today".into(),
        }),
        (None, false) => None,
    }
}
