//! Runs that have not happened: `[trace.generate]` describes a trace by
//! distributions instead of a file, so a planner can price an agent before
//! it exists ("40 results of 2–20 KB each").
//!
//! ```toml
//! [trace.generate]
//! seed = 7
//!
//! [[trace.generate.capabilities]]
//! capability = "docs/fetch"
//! calls = 40
//! raw_bytes = { from = 2000, to = 20000 }
//! trimmed_bytes = { from = 500, to = 4000 }
//! latency_ms = { from = 200, to = 1500 }
//! ```
//!
//! Each size is a whole number, or a range drawn uniformly with both ends
//! included. A trimmed size larger than its raw one is cut to it. The calls
//! of every capability are shuffled together (the order decides how long
//! each result stays in the context), from the seed alone: the same
//! description and seed give the same trace on every machine. The rows are
//! checked as a trace file's are, and `tokencast trace` writes them as one.

use super::trace::{RawCall, RowSite, TraceCall, TraceRow};
use crate::error::InputError;
use crate::input::SourceText;
use crate::limits::{MAX_NAME_CHARS, MAX_RESULT_BYTES, MAX_TRACE_ROWS};
use rand::{RngExt, SeedableRng};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// A size: a whole number, or a range drawn uniformly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Size {
    /// Always this.
    Fixed(u64),
    /// Uniform between `from` and `to`, both included.
    Between {
        /// The smallest.
        from: u64,
        /// The largest.
        to: u64,
    },
}

impl Size {
    fn bounds(self) -> (u64, u64) {
        match self {
            Size::Fixed(n) => (n, n),
            Size::Between { from, to } => (from, to),
        }
    }

    fn draw(self, rng: &mut rand_pcg::Pcg64) -> u64 {
        let (a, b) = self.bounds();
        if a == b {
            a
        } else {
            rng.random_range(a..=b)
        }
    }
}

/// One capability's calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capability {
    /// The tool capability, `docs/fetch`.
    pub capability: String,
    /// How many calls.
    pub calls: u64,
    /// Bytes of each response.
    pub raw_bytes: Size,
    /// Bytes after trimming [default: the raw bytes].
    #[serde(default)]
    pub trimmed_bytes: Option<Size>,
    /// Tool latency [default: 0].
    #[serde(default)]
    pub latency_ms: Option<Size>,
    /// Items in each response [default: 1].
    #[serde(default)]
    pub items: Option<u64>,
    /// What the data provider charges per call, USD [default: 0].
    #[serde(
        default,
        deserialize_with = "crate::input::optional_non_negative_decimal"
    )]
    pub charged_usd: Option<Decimal>,
}

/// `[trace.generate]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The seed [default: 1].
    #[serde(default = "one")]
    pub seed: u64,
    /// The capabilities and their calls.
    pub capabilities: Vec<Spanned<Capability>>,
}

fn one() -> u64 {
    1
}

impl Plan {
    /// Checks the description (in `src`, where it sits at `span`).
    pub(crate) fn check(
        &self,
        src: &SourceText,
        span: std::ops::Range<usize>,
    ) -> Result<(), InputError> {
        if self.capabilities.is_empty() {
            return Err(src
                .error_at("[trace.generate] has no capabilities", span, "here")
                .with_help(
                    "add [[trace.generate.capabilities]] with capability, calls and raw_bytes",
                ));
        }
        let mut total: u64 = 0;
        for c in &self.capabilities {
            let at = c.span();
            let c = c.get_ref();
            let bad = |what: String, help: &str| {
                Err(src
                    .error_at(what, at.clone(), "this capability")
                    .with_help(help.to_string()))
            };
            if c.capability.trim().is_empty() || c.capability.chars().count() > MAX_NAME_CHARS {
                return bad(
                    format!("a capability needs a name of 1 to {MAX_NAME_CHARS} characters"),
                    "name it as its tool calls it, e.g. docs/fetch",
                );
            }
            if c.calls == 0 {
                return bad(
                    format!("`{}` has calls = 0", c.capability),
                    "give at least one call",
                );
            }
            total = total.saturating_add(c.calls);
            for (field, size, max) in [
                ("raw_bytes", Some(c.raw_bytes), MAX_RESULT_BYTES),
                ("trimmed_bytes", c.trimmed_bytes, MAX_RESULT_BYTES),
                (
                    "latency_ms",
                    c.latency_ms,
                    crate::limits::MAX_GENERATED_LATENCY_MS,
                ),
            ] {
                let Some((a, b)) = size.map(Size::bounds) else {
                    continue;
                };
                if a > b {
                    return bad(
                        format!(
                            "`{}`: {field} runs from {a} to {b}, backwards",
                            c.capability
                        ),
                        "write the smaller end as `from`: { from = 2000, to = 20000 }",
                    );
                }
                if b > max {
                    return bad(
                        format!(
                            "`{}`: {field} goes to {b}, more than the {max} tokencast accepts",
                            c.capability
                        ),
                        "give sizes a real tool returns",
                    );
                }
            }
        }
        if total > MAX_TRACE_ROWS as u64 {
            return Err(src
                .error_at(
                    format!("[trace.generate] asks for {total} calls, more than the {MAX_TRACE_ROWS} rows a trace may have"),
                    span,
                    "here",
                )
                .with_help("describe fewer calls"));
        }
        Ok(())
    }

    /// The rows of the run, with `seed` (the plan's own when `None`): every
    /// capability's calls drawn, then shuffled together.
    pub fn rows(&self, seed: Option<u64>) -> Vec<TraceRow<String>> {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed.unwrap_or(self.seed));
        let mut rows: Vec<TraceRow<String>> = Vec::new();
        for c in &self.capabilities {
            let c = c.get_ref();
            for _ in 0..c.calls {
                let raw = c.raw_bytes.draw(&mut rng);
                let trimmed = c.trimmed_bytes.map_or(raw, |t| t.draw(&mut rng).min(raw));
                rows.push(TraceRow {
                    capability: c.capability.clone(),
                    status: 200,
                    items: c.items.unwrap_or(1),
                    raw_bytes: Some(raw),
                    trimmed_bytes: Some(trimmed),
                    latency_ms: c.latency_ms.map_or(0, |l| l.draw(&mut rng)),
                    charged_usd: c.charged_usd.unwrap_or_default(),
                    ..TraceRow::default()
                });
            }
        }
        // Fisher–Yates, from the same generator.
        for i in (1..rows.len()).rev() {
            let j = rng.random_range(0..=i);
            rows.swap(i, j);
        }
        for (i, r) in rows.iter_mut().enumerate() {
            r.call = u32::try_from(i + 1).ok();
        }
        rows
    }

    /// The checked calls of the run (`src` and `span` locate any error).
    pub(crate) fn calls(
        &self,
        src: &SourceText,
        span: std::ops::Range<usize>,
    ) -> Result<Vec<TraceCall>, InputError> {
        self.check(src, span.clone())?;
        self.rows(None)
            .into_iter()
            .enumerate()
            .map(|(i, r): (usize, RawCall)| {
                r.check(
                    i + 1,
                    &RowSite::Toml {
                        src,
                        span: span.clone(),
                    },
                )
            })
            .collect()
    }
}

impl Plan {
    /// Independent draws of the run, one after another (draw `i` with
    /// `seed + i`): what a forecast samples from, so it follows the
    /// distributions rather than one draw of them. `runs` draws, fewer when
    /// they would hold more than [`crate::limits::MAX_SAMPLE_ROWS`] calls (at least one).
    pub fn draws(&self, runs: u64, seed: u64) -> Vec<TraceCall> {
        let per_run: u64 = self.capabilities.iter().map(|c| c.get_ref().calls).sum();
        let runs = runs
            .min(crate::limits::MAX_SAMPLE_ROWS / per_run.max(1))
            .max(1);
        let src = SourceText {
            name: "[trace.generate]".into(),
            text: String::new(),
        };
        (0..runs)
            .flat_map(|i| self.rows(Some(seed.wrapping_add(i))))
            .enumerate()
            // Rows of a checked plan always pass; none is dropped.
            .filter_map(|(i, r)| {
                r.check(
                    i + 1,
                    &RowSite::Toml {
                        src: &src,
                        span: 0..0,
                    },
                )
                .ok()
            })
            .collect()
    }
}

/// A generated trace as CSV, in the trace file's columns.
pub fn csv(rows: &[TraceRow<String>]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        // Writing to memory cannot fail; a row is plain numbers and a name.
        let _ = w.serialize(r);
    }
    w.into_inner().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> Plan {
        #[derive(Deserialize)]
        struct Doc {
            generate: Plan,
        }
        toml::from_str::<Doc>(text).unwrap().generate
    }

    const FORTY: &str = r#"
[generate]
seed = 7
[[generate.capabilities]]
capability = "docs/fetch"
calls = 40
raw_bytes = { from = 2000, to = 20000 }
trimmed_bytes = { from = 500, to = 4000 }
latency_ms = 300
[[generate.capabilities]]
capability = "web/search"
calls = 10
raw_bytes = 1000
"#;

    #[test]
    fn the_rows_follow_the_description_and_the_seed() {
        let p = plan(FORTY);
        let rows = p.rows(None);
        assert_eq!(rows.len(), 50);
        let docs: Vec<_> = rows
            .iter()
            .filter(|r| r.capability == "docs/fetch")
            .collect();
        assert_eq!(docs.len(), 40);
        for r in &docs {
            let (raw, trimmed) = (r.raw_bytes.unwrap(), r.trimmed_bytes.unwrap());
            assert!((2000..=20000).contains(&raw), "{raw}");
            assert!(
                (500..=4000).contains(&trimmed) && trimmed <= raw,
                "{trimmed}"
            );
            assert_eq!(r.latency_ms, 300);
        }
        // A fixed size is that size, and trimmed defaults to raw.
        for r in rows.iter().filter(|r| r.capability == "web/search") {
            assert_eq!((r.raw_bytes, r.trimmed_bytes), (Some(1000), Some(1000)));
        }
        // Calls are numbered in order, the capabilities mixed.
        assert!(rows
            .iter()
            .enumerate()
            .all(|(i, r)| r.call == Some(i as u32 + 1)));
        assert!(rows[..40].iter().any(|r| r.capability == "web/search"));
        // Same seed, same rows; another seed, other rows.
        assert_eq!(p.rows(None), rows);
        assert_ne!(p.rows(Some(8)), rows);
        // The CSV reads back as a trace with the same calls.
        let text = String::from_utf8(csv(&rows)).unwrap();
        let back = super::super::trace::parse_csv(&SourceText {
            name: "g.csv".into(),
            text,
        })
        .unwrap();
        assert_eq!(back.len(), 50);
        assert_eq!(back[0].raw_bytes, rows[0].raw_bytes);
    }

    #[test]
    fn a_description_that_cannot_be_run_is_refused_where_it_is() {
        let src = SourceText {
            name: "s.toml".into(),
            text: FORTY.into(),
        };
        for (change, says) in [
            ("calls = 40", "calls = 0"),
            (
                "from = 2000, to = 20000",
                "runs from 20000 to 2000, backwards",
            ),
            ("latency_ms = 300", "more than the"),
        ] {
            let bad = FORTY.replace(
                change,
                match change {
                    "calls = 40" => "calls = 0",
                    "from = 2000, to = 20000" => "from = 20000, to = 2000",
                    _ => "latency_ms = 100000000000",
                },
            );
            let err = plan(&bad).check(&src, 0..1).unwrap_err().to_string();
            assert!(err.contains(says), "{err}");
        }
    }
}

#[cfg(test)]
mod draw_tests {
    use super::*;

    #[test]
    fn a_forecast_sample_stays_within_its_row_cap() {
        let plan = |calls: u64| Plan {
            seed: 1,
            capabilities: vec![Spanned::new(
                0..0,
                Capability {
                    capability: "c".into(),
                    calls,
                    raw_bytes: Size::Fixed(10),
                    trimmed_bytes: None,
                    latency_ms: None,
                    items: None,
                    charged_usd: None,
                },
            )],
        };
        // 1,000 draws of 48 calls fit; of 10,000 calls, 100 draws do; a run
        // larger than the cap is drawn once.
        assert_eq!(plan(48).draws(1000, 1).len(), 48_000);
        assert_eq!(plan(10_000).draws(1000, 1).len(), 1_000_000);
        assert_eq!(plan(2_000_000).draws(1000, 1).len(), 2_000_000);
    }
}
