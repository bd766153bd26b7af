//! A thread's scenario TOML, built as a `toml_edit` document: every value
//! serialized, every comment its decoration, each line of log text made safe
//! for a comment; the variants its models can price, and a note for those they
//! cannot.

use super::{compare_cache, fitted, fmt_seconds, quoted, short, short_name, Fitted, ScenarioSpec};
use crate::import::Thread;
use crate::output::name::display;
use crate::pricing::{Cache, ModelPrices};
use tokencast_core::scenario::content::ContentKind;

/// The scenario TOML of one thread, built as a `toml_edit` document (its
/// text is the document's `to_string`; a live page's what-if is written into
/// the document itself, [`tokencast_web::with_import_variant_in`]): every
/// value is serialized by it (a name from the log can never end a string or
/// start a table), and the comments are its decoration, each line made
/// safe for a comment by [`display`].
pub fn scenario_doc(t: &Thread, spec: &ScenarioSpec) -> toml_edit::DocumentMut {
    let f = fitted(t);
    // The first request's model: the replay starts there, and with
    // `recorded_models` each later request pays its own.
    let model = t.requests.first().map_or("unknown", |r| r.model.as_str());
    let mut doc = toml_edit::DocumentMut::new();
    header(&mut doc, t, spec, model);
    doc.insert("assumptions", toml_edit::Item::Table(assumptions(&f, spec)));
    doc.insert("timing", toml_edit::Item::Table(timing(&f)));
    let mut v = VariantWriter::new(spec, &f);
    v.standard(f.one_hour);
    v.compared(model);
    v.combined(model);
    doc.insert("variants", toml_edit::Item::ArrayOfTables(v.variants));
    if !v.left_out.is_empty() {
        doc.set_trailing(format!("\n{}", comments(&v.left_out)));
    }
    doc
}

/// Whether `prices` are a provider's that caches every prefix on its own
/// (OpenAI, Google: no write premium). Such a cache misses part of the
/// prefix; an explicit one (Anthropic) reads all of it until it expires or
/// changes, which the replay follows.
fn caches_automatically(prices: Option<&ModelPrices>) -> bool {
    prices.is_some_and(|m| m.cache_write_5m.is_some_and(|w| w == m.input))
}

/// The share of the previous prompt a thread on an automatic cache read
/// from it as recorded, with its p10, which its scenario's replay reads
/// (`cache_hit_share`, `cache_hit_share_p10`); none on an explicit cache.
pub fn fitted_hit_share(
    t: &Thread,
    lifetime_ms: i64,
    prices: Option<&ModelPrices>,
) -> Option<crate::import::calibrate::HitShare> {
    if !caches_automatically(prices) {
        return None;
    }
    crate::import::calibrate::hit_share(t, lifetime_ms)
}

/// A scenario written by [`scenario_doc`] with its `[trace] file` set to
/// `file` (a resumed session's threads are renamed), comments kept.
pub fn with_trace_file(toml: &str, file: &str) -> String {
    match toml.parse::<toml_edit::DocumentMut>() {
        Ok(mut doc) => {
            doc["trace"]["file"] = toml_edit::value(file);
            doc.to_string()
        }
        // Not reached: the text is one this module wrote.
        Err(_) => toml.to_string(),
    }
}

/// Lines as TOML comments, one `# ` line each.
pub(super) fn comments(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("# {}\n", one_line(l)))
        .collect()
}

/// A comment's text on one line whatever its callers passed: a line break
/// would end the comment and let the rest be read as TOML.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// A number as its literal, kept exactly as written.
pub(super) fn number(literal: impl std::fmt::Display) -> toml_edit::Value {
    let text = literal.to_string();
    text.parse::<toml_edit::Value>()
        .unwrap_or_else(|_| toml_edit::Value::from(text))
}

/// `value` with a comment after it on its line.
pub(super) fn noted(value: impl Into<toml_edit::Value>, note: &str) -> toml_edit::Item {
    let mut v: toml_edit::Value = value.into();
    v.decor_mut().set_suffix(format!("   # {}", one_line(note)));
    toml_edit::Item::Value(v)
}

/// The comments, the scenario's name, question, model, price book and trace.
pub(super) fn header(
    doc: &mut toml_edit::DocumentMut,
    t: &Thread,
    spec: &ScenarioSpec,
    model: &str,
) {
    let s = spec.session;
    let mut lines = vec![
        format!(
            "tokencast scenario, imported by `tokencast import {}` from session {} ({}).",
            spec.source,
            display(&s.id),
            display(&t.name())
        ),
        "Sizes, counts, tool and model names and timestamps only; no text of the logs.".into(),
        format!("{}.", spec.trim.describe()),
    ];
    if spec.prices.is_none() {
        lines.push(format!(
            "unpriced: `{}` is not in the price book; give its prices there to simulate.",
            display(model)
        ));
    }
    doc.insert(
        "name",
        toml_edit::value(format!("{}-{}", short(&s.id), short_name(&t.name()))),
    );
    if let Some(mut k) = doc.key_mut("name") {
        k.leaf_decor_mut().set_prefix(comments(&lines));
    }
    doc.insert(
        "question",
        toml_edit::value(format!(
            "What did {} of session {} cost as recorded, and raw or trimmed, on either cache tier, in batch?",
            short_name(&t.name()),
            short(&s.id)
        )),
    );
    doc.insert("model", toml_edit::value(model));
    doc.insert("prices", toml_edit::value(spec.prices_path));
    let mut trace = toml_edit::Table::new();
    trace.insert("file", toml_edit::value(spec.trace_file));
    doc.insert("trace", toml_edit::Item::Table(trace));
}

/// `[assumptions]`: the fitted prefix and output, and the calibration's band.
pub(super) fn assumptions(f: &Fitted, spec: &ScenarioSpec) -> toml_edit::Table {
    let mut a = toml_edit::Table::new();
    a.insert(
        "prefix_tokens",
        noted(
            number(f.prefix_tokens),
            "the first request's recorded prompt (measured: not uplifted)",
        ),
    );
    a.insert("prefix_measured", toml_edit::value(true));
    a.insert(
        "prefix_cached_tokens",
        noted(
            number(f.prefix_cached_tokens),
            "of it, read from a cache an earlier session wrote",
        ),
    );
    a.insert(
        "output_tokens_per_step",
        noted(
            number(f.output_tokens_per_step),
            "recorded output, spread over the steps (the trace gives each request's own)",
        ),
    );
    a.insert(
        "final_output_tokens",
        noted(number(f.final_output_tokens), "the last request's output"),
    );
    let band_note = match &spec.calibration {
        Some((c, from)) => {
            let (lower, uplift, estimate) = c.band();
            a.insert("bytes_per_token", toml_edit::Item::Value(number(lower)));
            a.insert("tokenizer_uplift", toml_edit::Item::Value(number(uplift)));
            a.insert(
                "estimate_bytes_per_token",
                toml_edit::Item::Value(number(estimate)),
            );
            a.insert(
                "step_overhead_tokens",
                toml_edit::Item::Value(number(c.overhead)),
            );
            vec![
                format!("Bytes per token from {}.", display(from)),
                format!("Fitted from recorded prompt growth on {} measured steps:", c.steps),
                format!(
                    "pooled {}, per step p10 {} / p50 {} / p90 {}, after {} tokens of framing a step. The band",
                    c.pooled, c.p10, c.p50, c.p90, c.overhead
                ),
                "runs from p90 (fewest tokens) to p10 (most tokens); the estimate is the pooled fit.".into(),
            ]
        }
        None => {
            a.insert("bytes_per_token", toml_edit::Item::Value(number(4)));
            a.insert("tokenizer_uplift", toml_edit::Item::Value(number("1.3")));
            vec![format!(
                "Too few measured steps to fit bytes per token ({} needed): the seed's band, ÷4 … ×1.3.",
                crate::import::calibrate::MIN_STEPS
            )]
        }
    };
    if let Some(mut k) = a.key_mut("bytes_per_token") {
        k.leaf_decor_mut().set_prefix(comments(&band_note));
    }
    if let Some((c, _)) = &spec.calibration {
        if let Some(w) = c.weights() {
            let mut t = toml_edit::InlineTable::new();
            for kind in ContentKind::ALL {
                t.insert(kind.name(), number(w.of(kind)));
            }
            a.insert(
                "content_weights",
                toml_edit::Item::Value(toml_edit::Value::InlineTable(t)),
            );
            if let Some(mut k) = a.key_mut("content_weights") {
                k.leaf_decor_mut().set_prefix(comments(&kinds_note(c)));
            }
        }
    }
    a.insert("runs_per_day", toml_edit::Item::Value(number(1)));
    a
}

/// Where the content weights come from: each kind's own fit.
fn kinds_note(c: &crate::import::calibrate::Fit) -> Vec<String> {
    let names = ["code (file contents)", "other tool output", "text"];
    let per_kind: Vec<String> = ContentKind::ALL
        .iter()
        .zip(&c.kinds)
        .map(|(kind, k)| match k.pooled() {
            Some(r) => format!(
                "{} {r} (p10 {} / p50 {} / p90 {}) on {} steps",
                names[kind.index()],
                k.p10,
                k.p50,
                k.p90,
                k.steps
            ),
            None => format!(
                "{}: {} steps, too few (the pooled fit applies)",
                names[kind.index()],
                k.steps
            ),
        })
        .collect();
    vec![
        "Bytes per token per content kind, on the steps whose bytes are nine tenths of one kind:"
            .into(),
        format!("{}.", per_kind.join("; ")),
        "A byte of each kind counts as its weight in bytes of the band (pooled ÷ the kind's fit),"
            .into(),
        "scaled so that the thread's own mix of kinds keeps the pooled fit.".into(),
    ]
}

/// `[timing]`: the median model time per step.
pub(super) fn timing(f: &Fitted) -> toml_edit::Table {
    let mut t = toml_edit::Table::new();
    t.insert(
        "model_seconds_per_step",
        noted(
            number(fmt_seconds(f.model_ms_per_step)),
            "median time from a result to the request carrying it",
        ),
    );
    t
}

/// A key of a variant, its value and an optional comment.
pub(super) type Extra = (&'static str, toml_edit::Value, Option<String>);

/// Builds a thread's `[[variants]]`: what its models price decides which.
pub(super) struct VariantWriter<'s> {
    pub(super) spec: &'s ScenarioSpec<'s>,
    /// What every variant on the thread's own models adds: each request on
    /// its own model, the recorded cache hit share and turn breaks.
    pub(super) own: Vec<Extra>,
    /// The recorded tier where priced, else `none`.
    pub(super) main_cache: &'static str,
    pub(super) variants: toml_edit::ArrayOfTables,
    /// Comments for the variants this thread's models cannot price.
    pub(super) left_out: Vec<String>,
}

impl<'s> VariantWriter<'s> {
    pub(super) fn new(spec: &'s ScenarioSpec<'s>, f: &Fitted) -> Self {
        let p = spec.prices;
        let automatic = caches_automatically(p);
        let mut own: Vec<Extra> = Vec::new();
        if !spec.others.is_empty() {
            own.push((
                "recorded_models",
                true.into(),
                Some("each request on the model that served it".into()),
            ));
        }
        if let Some(h) = spec.hit_share {
            own.push((
                "cache_hit_share",
                number(h.share),
                Some(format!("of the previous prompt and response, read from the cache as recorded on {} steps (the estimate; the lower bound reads it all)", h.steps)),
            ));
            if let Some(p10) = h.p10.filter(|p| *p < h.share) {
                own.push((
                    "cache_hit_share_p10",
                    number(p10),
                    Some("the share less 1.2816 standard errors (misses come in lumps): the upper bound reads this".into()),
                ));
            }
        }
        // Explicit caches lose the prefix past reasoning that a new turn drops
        // as often as the log shows; automatic ones keep every prefix.
        if let Some((share, b, from)) = spec
            .turn_breaks
            .as_ref()
            .filter(|_| !automatic)
            .and_then(|(b, from)| Some((b.share()?, b, from)))
            // No break in any new turn: nothing to write (a share is above 0).
            .filter(|(share, _, _)| !share.is_zero())
        {
            own.push((
                "turn_break_share",
                number(share),
                Some(format!(
                    "of {} new turns on a model that drops earlier thinking, {} rewrote the cache from the prefix ({})",
                    b.turns,
                    b.breaks,
                    display(from)
                )),
            ));
        }
        // Expiries after which the warm prefix was gone, as often as the
        // thread shows (without the key every expiry reads it).
        if let Some(share) = spec.warm_expiries.share() {
            own.push((
                "warm_prefix_share",
                number(share),
                Some(format!(
                    "of {} cache expiries, {} still read the prefix an earlier run left warm (this thread's recorded cache reads)",
                    spec.warm_expiries.expiries - spec.warm_expiries.survived,
                    spec.warm_expiries.warm
                )),
            ));
        }
        // Expiries the cache outlived, as often as the thread shows
        // (without the key none does).
        if let Some(share) = spec.warm_expiries.survived_share() {
            own.push((
                "survived_expiry_share",
                number(share),
                Some(format!(
                    "of {} gaps longer than the cache lifetime, {} still read the whole previous prompt (this thread's recorded cache reads)",
                    spec.warm_expiries.expiries, spec.warm_expiries.survived
                )),
            ));
        }
        // A page's what-if on the thread's own models keeps these keys.
        debug_assert!(own
            .iter()
            .all(|(k, _, _)| crate::scenario::combined::OWN_MODEL_KEYS.contains(k)));
        let mut w = VariantWriter {
            spec,
            own,
            main_cache: "none",
            variants: toml_edit::ArrayOfTables::new(),
            left_out: Vec::new(),
        };
        let tier = if f.one_hour { "1h" } else { "5m" };
        if w.tier_priced(tier) {
            w.main_cache = tier;
        }
        w
    }

    /// Whether the thread's model and every other model it ran on have a price.
    pub(super) fn has(&self, get: fn(&ModelPrices) -> bool) -> bool {
        self.spec.prices.is_some_and(get) && self.spec.others.iter().all(get)
    }

    /// Whether they price the cache tier `c` (reads and its writes).
    pub(super) fn tier_priced(&self, c: &str) -> bool {
        self.has(|m| m.cache_read.is_some())
            && match c {
                "1h" => self.has(|m| m.cache_write_1h.is_some()),
                _ => self.has(|m| m.cache_write_5m.is_some()),
            }
    }

    pub(super) fn batch_priced(&self) -> bool {
        self.has(|m| m.batch_input.is_some() && m.batch_output.is_some())
    }

    pub(super) fn variant(&mut self, name: &str, results: &str, cache: &str, extras: Vec<Extra>) {
        let mut v = toml_edit::Table::new();
        v.insert("name", toml_edit::value(name));
        v.insert("results", toml_edit::value(results));
        v.insert("cache", toml_edit::value(cache));
        for (key, value, note) in extras {
            let item = match note {
                Some(n) => noted(value, &n),
                None => toml_edit::Item::Value(value),
            };
            v.insert(key, item);
        }
        self.variants.push(v);
    }

    /// As recorded, trimmed, on the other tier and in batch, where priced.
    /// Names stay the same whatever the tier, so that `forecast` can match
    /// the variants of many imported sessions; each variant's `cache` says it.
    pub(super) fn standard(&mut self, one_hour: bool) {
        let own = self.own.clone();
        let main = self.main_cache;
        self.variant("as recorded", "raw", main, own.clone());
        self.variant("trimmed", "trimmed", main, own.clone());
        let other = if one_hour { "5m" } else { "1h" };
        if self.tier_priced(other) {
            self.variant("other cache tier", "raw", other, own.clone());
        }
        if self.batch_priced() {
            let mut extras: Vec<Extra> = vec![("mode", "batch".into(), None)];
            extras.extend(own);
            self.variant("batch", "raw", main, extras);
        }
    }

    /// One variant on each compared model the thread is not already on.
    pub(super) fn compared(&mut self, model: &str) {
        for c in self.spec.compare.iter().filter(|c| c.model != model) {
            let (cache, why) = compare_cache(self.main_cache, c);
            let why = why.map(|w| format!("{} {w}", display(&c.model)));
            self.variant(
                &format!("on {}", c.model),
                "raw",
                cache,
                vec![("model", c.model.as_str().into(), why)],
            );
        }
    }

    /// The user's `--variant`s; one the thread's own models cannot price is
    /// left out with a comment saying why. A variant that names the one
    /// model the thread ran on stays on it, as one that names none.
    pub(super) fn combined(&mut self, model: &str) {
        for (v, on) in self.spec.variants {
            let on = on.as_ref().filter(|m| {
                !crate::scenario::combined::stays_on(&m.model, model, self.spec.others.len())
            });
            let results = match v.results {
                crate::scenario::Content::Raw => "raw",
                crate::scenario::Content::Trimmed => "trimmed",
            };
            let mut extras: Vec<Extra> = Vec::new();
            if v.mode == crate::pricing::Mode::Batch {
                extras.push(("mode", "batch".into(), None));
            }
            if let Some(s) = &v.service {
                extras.push(("service", s.as_str().into(), None));
            }
            let cache = match on {
                // Checked against the book up front: its tier as asked, or the
                // recorded one as that model offers it.
                Some(m) => {
                    extras.push(("model", m.model.as_str().into(), None));
                    v.cache_on(self.main_cache, Some(m))
                }
                // On the thread's own models: a tier or mode they lack is noted,
                // and the variant left out of this thread.
                None => {
                    let want = v.cache.map_or(self.main_cache, Cache::key);
                    let batch_ok = v.mode == crate::pricing::Mode::Sync || self.batch_priced();
                    if (want != "none" && !self.tier_priced(want)) || !batch_ok {
                        self.left_out.push(format!(
                            "variant {} left out: this thread's models have no {} prices",
                            quoted(&v.name),
                            if batch_ok { want } else { "batch" }
                        ));
                        continue;
                    }
                    extras.extend(self.own.clone());
                    want
                }
            };
            self.variant(&v.name, results, cache, extras);
        }
    }
}
