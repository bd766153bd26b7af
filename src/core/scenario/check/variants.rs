//! Checking the variants against the price book: each variant's model,
//! cache tier, mode and service priced, and the rates of the models a
//! recorded trace names.

use super::{check_option, Book};
use crate::scenario::raw::*;
use crate::scenario::*;
use toml::Spanned;

/// Names each variant, refuses duplicates, and resolves its rates.
pub(super) fn check_variants(
    src: &SourceText,
    book: &Book<'_>,
    prices: &ModelPrices,
    raw: Spanned<Vec<Spanned<RawVariant>>>,
    trace: &[TraceCall],
) -> Result<Vec<PricedVariant>, InputError> {
    let span = raw.span();
    let raw = raw.into_inner();
    if raw.is_empty() {
        return Err(src
            .error_at("no variants to compare", span, "empty list")
            .with_help("add [[variants]] tables with results, cache and mode"));
    }
    let mut variants: Vec<PricedVariant> = Vec::with_capacity(raw.len());
    for spanned in raw {
        let v = check_variant(src, book, prices, spanned, trace, &variants)?;
        variants.push(v);
    }
    Ok(variants)
}

/// One variant: its model, service and region, a unique name, its shares,
/// and its rates (each request's own model's too, with `recorded_models`).
fn check_variant(
    src: &SourceText,
    book: &Book<'_>,
    prices: &ModelPrices,
    spanned: Spanned<RawVariant>,
    trace: &[TraceCall],
    earlier: &[PricedVariant],
) -> Result<PricedVariant, InputError> {
    let span = spanned.span();
    let rv = spanned.into_inner();
    let own = match &rv.model {
        Some(m) if m.get_ref() != &prices.model => Some(book.model(src, m, "variant model")?),
        _ => None,
    };
    let model = own.as_ref().unwrap_or(prices);
    let model_id = &model.model;
    let service = check_option(
        src,
        rv.service.as_ref(),
        model,
        "service tier",
        model.services.keys(),
    )?;
    let region = check_option(
        src,
        rv.region.as_ref(),
        model,
        "region",
        model.regions.keys(),
    )?;
    let name = rv.name.clone().unwrap_or_else(|| {
        let mut n = Variant::default_name(rv.results, rv.cache, rv.mode);
        for extra in [&service, &region].into_iter().flatten() {
            n.push_str(&format!(", {extra}"));
        }
        if own.is_some() {
            n.push_str(&format!(", {model_id}"));
        }
        n
    });
    check_name(src, &name, span.clone(), earlier)?;
    check_shares(src, &rv, &name, span.clone())?;
    let variant = Variant {
        name: name.clone(),
        results: rv.results,
        cache: rv.cache,
        mode: rv.mode,
        service,
        region,
    };
    let mut priced = PricedVariant::new(variant, model).map_err(|MissingPrices(missing)| {
        src.error_at(
            format!(
                "variant `{name}` needs {} for `{model_id}`, which the price book does not give",
                missing.join(" and ")
            ),
            span.clone(),
            "needs unknown prices",
        )
        .with_help(format!(
            "add {} to [models.{model_id}] in `{}` (with its source), or choose another cache tier or mode",
            missing.join(", "),
            book.src.name
        ))
    })?;
    if rv.recorded_models {
        priced.by_model = recorded_model_rates(src, book, &priced, trace, span.clone())?;
    }
    priced.cache_hit_share = rv.cache_hit_share.map(|h| h.normalize());
    priced.cache_hit_share_p10 = rv.cache_hit_share_p10.map(|h| h.normalize());
    priced.turn_break_share = rv.turn_break_share.map(|h| h.normalize());
    priced.warm_prefix_share = rv.warm_prefix_share.map(|h| h.normalize());
    priced.survived_expiry_share = rv.survived_expiry_share.map(|h| h.normalize());
    Ok(priced)
}

/// A variant's name within its length and unlike every earlier one's.
fn check_name(
    src: &SourceText,
    name: &str,
    span: std::ops::Range<usize>,
    earlier: &[PricedVariant],
) -> Result<(), InputError> {
    if !limits::text_fits(name, limits::MAX_NAME_CHARS) {
        return Err(src
            .error_at(
                format!(
                    "a variant's name is longer than {} characters",
                    limits::MAX_NAME_CHARS
                ),
                span,
                "this variant",
            )
            .with_help("give the variant a short name, e.g. name = \"raw, 5-min cache\""));
    }
    if earlier.iter().any(|v| v.variant.name == name) {
        return Err(src
            .error_at(
                format!("two variants are named `{name}`"),
                span,
                "duplicate",
            )
            .with_help("give each variant a different `name`"));
    }
    Ok(())
}

/// The recorded cache hit (and its p10), turn break, warm prefix and
/// survived expiry shares: at most 1, at most 4 decimals; a p10 only
/// beside a cache hit share, and not above it.
fn check_shares(
    src: &SourceText,
    rv: &RawVariant,
    name: &str,
    span: std::ops::Range<usize>,
) -> Result<(), InputError> {
    for (key, share) in [
        ("cache_hit_share", rv.cache_hit_share),
        ("cache_hit_share_p10", rv.cache_hit_share_p10),
        ("turn_break_share", rv.turn_break_share),
        ("warm_prefix_share", rv.warm_prefix_share),
        ("survived_expiry_share", rv.survived_expiry_share),
    ] {
        if let Some(h) = share.filter(|h| *h > Decimal::ONE || h.normalize().scale() > 4) {
            return Err(src
                .error_at(
                    format!("variant `{name}`: {key} = {h} is not a share of at most 1 with at most 4 decimals"),
                    span,
                    key,
                )
                .with_help("write a share between 0 and 1, e.g. 0.9"));
        }
    }
    if let Some(p10) = rv.cache_hit_share_p10 {
        let problem = match rv.cache_hit_share {
            None => Some("without a cache_hit_share".to_string()),
            Some(h) if p10 > h => Some(format!("above its cache_hit_share = {h}")),
            Some(_) => None,
        };
        if let Some(problem) = problem {
            return Err(src
                .error_at(
                    format!("variant `{name}`: cache_hit_share_p10 = {p10} is {problem}"),
                    span,
                    "cache_hit_share_p10",
                )
                .with_help("cache_hit_share_p10 is the share the upper bound reads: write it beside a cache_hit_share, at most that share (e.g. 0.9 and 0.88)"));
        }
    }
    Ok(())
}

/// The rates of every model other than the variant's that the trace
/// records a request on, under the variant's cache tier and mode.
pub(super) fn recorded_model_rates(
    src: &SourceText,
    book: &Book<'_>,
    pv: &PricedVariant,
    trace: &[TraceCall],
    span: std::ops::Range<usize>,
) -> Result<Vec<ModelRates>, InputError> {
    let models: std::collections::BTreeSet<&str> = trace
        .iter()
        .filter_map(|c| c.recorded()?.model.as_deref())
        .filter(|m| *m != pv.model)
        .collect();
    let mut out = Vec::new();
    for m in models {
        let shown = crate::text::display(m);
        let prices = book.price_of(m).ok_or_else(|| {
            src.error_at(
                format!(
                    "variant `{}` prices each request on its recorded model, and the price book has no `{shown}`",
                    pv.variant.name
                ),
                span.clone(),
                "recorded_models = true",
            )
            .with_help(format!("add [models.\"{shown}\"] to the price book, or drop `recorded_models`"))
        })?;
        let rates = prices
            .rates_with(pv.variant.cache, pv.variant.mode, pv.variant.options())
            .map_err(|MissingPrices(missing)| {
                src.error_at(
                    format!(
                        "variant `{}` needs {} for the recorded model `{shown}`, which the price book does not give",
                        pv.variant.name,
                        missing.join(" and ")
                    ),
                    span.clone(),
                    "recorded_models = true",
                )
                .with_help("give those prices in the book, or choose another cache tier or mode")
            })?;
        out.push(ModelRates {
            model: m.to_string(),
            prices,
            rates,
        });
    }
    Ok(out)
}
