//! An imported thread's scenario replayed against the import's price book:
//! its what-ifs, its cost on each compared model, and each `--variant`
//! (the import summary's figures, and an import page's, from one function).

use crate::document::import::{Band, Paired, WhatIfs};
use crate::engine::{simulate, SimulateOptions};
use crate::error::InputError;
use crate::input::SourceText;
use crate::pricing::{ModelPrices, PriceBook};
use crate::scenario::{CheckedTrace, Given, Scenario};

/// The price book every thread of an import is replayed against.
pub struct ReplayBook<'a> {
    /// Its text.
    pub src: &'a SourceText,
    /// Read.
    pub book: &'a PriceBook,
    /// Its name and digest, computed once.
    pub file: &'a crate::scenario::InputFile,
    /// The price date.
    pub today: jiff::civil::Date,
}

/// A thread's replay: its what-ifs, its cost on each compared model, and
/// each `--variant` beside the thread as recorded.
pub type Replayed = (WhatIfs, Vec<Option<Band>>, Vec<Option<Paired>>);

/// A thread's trace as [`replay`] takes it.
#[derive(Clone, Copy)]
pub enum ThreadTrace<'a> {
    /// The CSV text (a page's), read and checked by the replay.
    Csv(&'a [u8]),
    /// Already checked, by the name the scenario gives it (an import's,
    /// checked as it was written).
    Checked(&'a CheckedTrace),
}

/// Loads one thread's scenario (`name`.toml beside its trace `name`.csv)
/// as `simulate` would and replays it: its what-ifs, its cost on each of
/// the `compare` models (the "as recorded" replay on the thread's own
/// model), and each variant named in `custom` beside it as recorded.
pub fn replay(
    name: &str,
    toml: &str,
    trace: ThreadTrace,
    with: &ReplayBook,
    compare: &[ModelPrices],
    custom: &[&str],
) -> Result<Replayed, InputError> {
    let (book_src, book, book_file, today) = (with.src, with.book, with.file, with.today);
    let src = SourceText {
        name: format!("{name}.toml"),
        text: toml.to_string(),
    };
    let (text, checked) = match trace {
        ThreadTrace::Csv(csv) => {
            let text = SourceText {
                name: format!("{name}.csv"),
                text: String::from_utf8_lossy(csv).into_owned(),
            };
            (Some(text), None)
        }
        ThreadTrace::Checked(c) => (None, Some(c)),
    };
    // Both files it names are given, so nothing is read.
    let scenario = Scenario::check_with(
        &src,
        &crate::scenario::InMemory::default(),
        Some(today),
        Given {
            trace: text.as_ref(),
            book: Some((book_src, book)),
            book_file: Some(book_file),
            checked_trace: checked,
        },
    )?;
    let sim = simulate(&scenario, SimulateOptions::TOTALS);
    // The estimate: the same replay at the calibration's central bytes per
    // token with no uplift, its upper bound, which reads the cache as
    // recorded (the lower bound reads every cached prefix). Without a
    // calibration: halfway between the upper bound and the lower tokens
    // read as recorded (the replay without uplift), both reading the cache
    // at the fitted share.
    let central = scenario
        .central()
        .map(|c| simulate(&c, SimulateOptions::TOTALS));
    // Without a fitted share the lower tokens read as recorded are the
    // lower bound itself: Band::of's midpoint, with no second replay.
    let shared = scenario
        .variants()
        .iter()
        .any(|v| v.cache_hit_share.is_some());
    let floor = match central {
        Some(_) => None,
        None if !shared => None,
        None => scenario
            .without_uplift()
            .map(|c| simulate(&c, SimulateOptions::TOTALS)),
    };
    // The upper tokens at the recorded reads, where the upper bound reads
    // a fitted share's p10 instead: the other end of that midpoint.
    let recorded_reads = match floor {
        Some(_) => scenario
            .reading_cache_as_recorded()
            .map(|c| simulate(&c, SimulateOptions::TOTALS)),
        None => None,
    };
    let find = |sim: &crate::engine::Simulation, name: &dyn Fn(&str) -> bool| {
        sim.variants
            .iter()
            .find(|v| name(&v.variant.variant.name))
            .map(|v| v.cost.total)
    };
    let band = |name: &dyn Fn(&str) -> bool| {
        find(&sim, name).map(|b| {
            let estimate = match (&central, &floor) {
                (Some(c), _) => find(c, name).map(|c| c.upper),
                (None, Some(f)) => {
                    let upper = match &recorded_reads {
                        Some(r) => find(r, name).map(|r| r.upper),
                        None => Some(b.upper),
                    };
                    find(f, name)
                        .zip(upper)
                        .map(|(f, u)| ((f.upper + u) / rust_decimal::Decimal::TWO).normalize())
                }
                (None, None) => None,
            };
            Band::of(b, estimate)
        })
    };
    let as_recorded = band(&|n| n == "as recorded").unwrap_or_default();
    let on = |m: &ModelPrices| {
        let name = format!("on {}", m.model);
        band(&|n| n == name)
    };
    let on_models: Vec<Option<Band>> = compare
        .iter()
        .map(|m| {
            if m.model == scenario.prices().model {
                Some(as_recorded)
            } else {
                on(m)
            }
        })
        .collect();
    let custom = custom
        .iter()
        .map(|name| band(&|n| n == *name).map(|cost| Paired { cost, as_recorded }))
        .collect();
    Ok((
        WhatIfs {
            as_recorded,
            trimmed: band(&|n| n == "trimmed").unwrap_or_default(),
            other_tier: band(&|n| n == "other cache tier"),
            batch: band(&|n| n == "batch"),
            // A thread already on the first compared model costs there what
            // it costs as recorded, as in the ranking.
            other_model: on_models.first().copied().flatten(),
        },
        on_models,
        custom,
    ))
}
