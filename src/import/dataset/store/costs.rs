//! Each session's recorded and replayed costs read back from a dataset's
//! sessions table, for a forecast over sessions gathered on many machines.

use super::{bad, read_file, Found, Newness};
use crate::error::InputError;
use crate::import::dataset::columns::Data;
use crate::import::dataset::tables::{self, Cols};
use rust_decimal::Decimal;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One session's replayed costs, read from a sessions table.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionCosts {
    /// `machine/session` (and `#log file` for a session's second file).
    pub name: String,
    /// Per variant (see [`tables::band_names`]): lower and upper bound.
    pub bands: [Option<(Decimal, Decimal)>; 5],
}

/// What a forecast reads from datasets: sessions' costs, and those left out.
#[derive(Debug, Clone, Default)]
pub struct Costs {
    /// Sessions with replayed threads, all priced.
    pub sessions: Vec<SessionCosts>,
    /// Sessions left out for an unpriced thread: (name, model).
    pub unpriced: Vec<(String, String)>,
    /// The other model of the imports (variant `on <model>`).
    pub compare_model: Option<String>,
    /// Price books the files name: (name, SHA-256).
    pub books: BTreeSet<(String, String)>,
    /// Files read.
    pub files: usize,
    /// The day the imports priced at (the first file's).
    pub price_date: Option<jiff::civil::Date>,
}

/// The columns a forecast reads: keys, the last request, the replay.
pub(super) fn cost_columns() -> Vec<(&'static str, Data)> {
    let all = tables::schema(tables::SESSIONS);
    all.columns
        .into_iter()
        .filter(|(n, _)| {
            [
                tables::HOST,
                tables::SESSION,
                tables::LOG_FILE,
                tables::LAST,
                "tokencast.requests",
                "tokencast.replayed_threads",
                "tokencast.unpriced_thread_model",
            ]
            .contains(n)
                || (n.ends_with("_usd") && (n.contains(".lower") || n.contains(".upper")))
        })
        .collect()
}

/// One session row of a sessions file, as a forecast needs it.
pub(super) struct CostRow {
    /// Session id, NUL, machine, NUL, first log file: sorts as a folder of
    /// imported sessions is read (by session id).
    pub(super) key: String,
    pub(super) newness: Newness,
    /// Its replay's bounds, when it has replayed threads, all priced.
    pub(super) bands: Option<[Option<(Decimal, Decimal)>; 5]>,
    /// The unpriced model that leaves it out.
    pub(super) unpriced: Option<String>,
}

/// What one sessions file says about how its figures were made.
pub(super) struct FileFacts {
    pub(super) book: Option<(String, String)>,
    pub(super) compare_model: Option<String>,
    pub(super) price_date: Option<jiff::civil::Date>,
}

pub(super) fn cost_rows(
    p: &Path,
    want: &[(&'static str, Data)],
) -> Result<(Vec<CostRow>, FileFacts), InputError> {
    let (t, meta) = read_file(p, want, Some(tables::SESSIONS))?;
    let get = |k: &str| meta.iter().find(|(m, _)| m == k).map(|(_, v)| v.clone());
    let assumptions = get("tokencast.assumptions")
        .and_then(|a| serde_json::from_str::<serde_json::Value>(&a).ok());
    let field = |k: &str| {
        assumptions
            .as_ref()
            .and_then(|v| v.get(k).and_then(|m| m.as_str().map(str::to_string)))
    };
    let facts = FileFacts {
        book: get("tokencast.price_book").zip(get("tokencast.price_book.sha256")),
        compare_model: field("compare_model"),
        price_date: field("price_date").and_then(|d| d.parse().ok()),
    };
    let c = Cols(&t);
    // Each column found once (a million rows, seventeen columns).
    let (session, host, log) = (
        c.str(tables::SESSION),
        c.str(tables::HOST),
        c.str(tables::LOG_FILE),
    );
    let (threads, unpriced, last, requests) = (
        c.int("tokencast.replayed_threads"),
        c.str("tokencast.unpriced_thread_model"),
        c.int(tables::LAST),
        c.int("tokencast.requests"),
    );
    let bands = tables::band_columns(&c);
    let mut rows = Vec::with_capacity(t.rows());
    for i in 0..t.rows() {
        let at = |e| bad(p, e);
        let (Some(s), Some(h), Some(l)) = (session.get(i), host.get(i), log.get(i)) else {
            tables::key_of(&c, i).map_err(at)?;
            unreachable!("key_of fails on a null key column");
        };
        let (Some(n), Some(r)) = (
            threads[i].filter(|v| *v >= 0),
            requests[i].filter(|v| *v >= 0),
        ) else {
            c.count("tokencast.replayed_threads", i).map_err(at)?;
            c.count("tokencast.requests", i).map_err(at)?;
            unreachable!("count fails on a null or negative count");
        };
        let unpriced = unpriced.get(i).map(str::to_string);
        rows.push(CostRow {
            key: format!("{s}\0{h}\0{l}"),
            newness: (last[i], r as u64),
            bands: (n > 0 && unpriced.is_none()).then(|| bands.map(|(lo, up)| lo[i].zip(up[i]))),
            unpriced: unpriced.filter(|_| n > 0),
        });
    }
    Ok((rows, facts))
}

/// Reads the sessions tables under `paths` for a forecast: each session's
/// newest import once; memory grows with sessions, never with requests
/// (the request and result tables are not read). Files are read in
/// parallel and merged in path order.
pub fn costs(paths: &[PathBuf]) -> Result<Costs, InputError> {
    use rayon::prelude::*;
    let found = Found::of(paths)?;
    let want = cost_columns();
    let read: Vec<Result<(Vec<CostRow>, FileFacts), InputError>> = found.files[0]
        .par_iter()
        .map(|p| cost_rows(p, &want))
        .collect();
    let mut out = Costs::default();
    let mut models = BTreeSet::new();
    let mut all: Vec<(usize, CostRow)> = Vec::new();
    for (file, r) in read.into_iter().enumerate() {
        let (rows, facts) = r?;
        out.files += 1;
        out.books.extend(facts.book);
        models.extend(facts.compare_model);
        if out.price_date.is_none() {
            out.price_date = facts.price_date;
        }
        all.extend(rows.into_iter().map(|row| (file, row)));
    }
    if models.len() > 1 {
        return Err(InputError::new(format!(
            "the datasets were imported with different other models ({}), so their `on …` variants differ",
            models.into_iter().collect::<Vec<_>>().join(", ")
        ))
        .with_help("forecast datasets imported with the same --compare-model"));
    }
    out.compare_model = models.into_iter().next();
    // By key (session id first, as a folder of imported sessions is read);
    // of one key, the newest import first, then the first file given.
    all.par_sort_unstable_by(|(fa, a), (fb, b)| {
        a.key
            .cmp(&b.key)
            .then(b.newness.cmp(&a.newness))
            .then(fa.cmp(fb))
    });
    all.dedup_by(|(_, later), (_, kept)| later.key == kept.key);
    for (_, mut row) in all {
        let id = row.key.find('\0').unwrap_or(row.key.len());
        row.key.truncate(id);
        let name = row.key;
        match (row.bands, row.unpriced) {
            (Some(bands), _) => out.sessions.push(SessionCosts { name, bands }),
            (None, Some(m)) => out.unpriced.push((name, m)),
            (None, None) => {}
        }
    }
    Ok(out)
}
