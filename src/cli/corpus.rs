//! Reading a corpus for `forecast`: each PATH is a kind of session. A
//! scenario file is one session; in a directory, each subdirectory holding
//! scenarios is one session (its threads summed, as `import` writes them),
//! and each scenario directly inside is a session of its own. TOML files
//! that are not scenarios (price books) are passed over.

use crate::analysis::corpus::{Recorded, SessionCost};
use crate::engine::{simulate, Bounds, SimulateOptions};
use crate::error::{AppError, InputError};
use crate::import::dataset::store::SessionCosts;
use crate::pricing::Currency;
use crate::scenario::{InputFile, PriceDate, Scenario};
use rayon::prelude::*;
use rust_decimal::Decimal;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A read corpus, with what the document needs besides the costs.
pub struct Loaded {
    /// Kinds, variants and session costs.
    pub recorded: Recorded,
    /// Variants some sessions lack, left out.
    pub left_out: Vec<String>,
    /// Every input file, once.
    pub inputs: Vec<InputFile>,
    /// The currency all scenarios share.
    pub currency: Currency,
    /// The first scenario's price date.
    pub price_date: Option<PriceDate>,
    /// Scenarios read.
    pub scenarios: usize,
    /// Imported sessions left out because a thread's model is unpriced: (session, model).
    pub unpriced: Vec<(String, String)>,
}

/// What `import` writes into a scenario whose model the book lacks.
const UNPRICED: &str = "# unpriced: `";

/// The model named by an imported scenario's "unpriced" comment.
fn unpriced_model(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with(UNPRICED))?;
    Some(line[UNPRICED.len()..].split('`').next()?.to_string())
}

/// One session under a PATH: its name, scenario files, and the model that
/// leaves it unpriced, if any.
type SessionFiles = (String, Vec<PathBuf>, Option<String>);

/// Cost per variant name.
type Costs = Vec<(String, Bounds)>;

/// A scenario and its cost per variant name.
type Replayed = (Scenario, Costs);

/// Whether `text` is a scenario (it has a trace and variants), not a price book.
fn is_scenario(text: &str) -> bool {
    text.parse::<toml::Table>()
        .is_ok_and(|t| t.contains_key("trace") && t.contains_key("variants"))
}

/// The sessions under one PATH: (session name, its scenario files).
fn sessions_of(path: &Path) -> Result<Vec<SessionFiles>, AppError> {
    if !path.is_dir() {
        if !path.exists() {
            return Err(
                InputError::new(format!("{}: no such file or directory", path.display()))
                    .with_help("give scenario files or directories of them")
                    .into(),
            );
        }
        return Ok(vec![(
            path.display().to_string(),
            vec![path.to_path_buf()],
            None,
        )]);
    }
    let mut groups: BTreeMap<String, (Vec<PathBuf>, Option<String>)> = BTreeMap::new();
    for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            InputError::new(format!("{}: {e}", path.display()))
                .with_help("check that the directory can be read")
        })?;
        let p = entry.path();
        if !entry.file_type().is_file() || p.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(p).map_err(|e| {
            InputError::new(format!("{}: {e}", p.display()))
                .with_help("check that the file can be read and is UTF-8")
        })?;
        if !is_scenario(&text) {
            continue;
        }
        let rel = p.strip_prefix(path).unwrap_or(p);
        let session = match rel.components().count() {
            1 => rel.display().to_string(),
            _ => rel
                .components()
                .next()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        let group = groups.entry(session).or_default();
        group.0.push(p.to_path_buf());
        if group.1.is_none() {
            group.1 = unpriced_model(&text);
        }
    }
    if groups.is_empty() {
        return Err(InputError::new(format!(
            "{}: no scenario files (TOML with a [trace] and [[variants]])",
            path.display()
        ))
        .with_help("point at scenario files, or at a directory `tokencast import --out` wrote")
        .into());
    }
    Ok(groups
        .into_iter()
        .map(|(name, (files, unpriced))| (name, files, unpriced))
        .collect())
}

/// Whether `path` is a dataset (a folder with `sessions/`, or a glob of them).
pub fn is_dataset(path: &Path) -> bool {
    use crate::import::dataset::store::Found;
    Found::is_dataset(path)
        || (!path.exists()
            && glob::glob(&path.to_string_lossy())
                .is_ok_and(|mut g| g.any(|p| p.is_ok_and(|p| Found::is_dataset(&p)))))
}

/// The kind's name: the file stem or the directory's name.
fn kind_name(path: &Path) -> String {
    let name = if path.is_dir() {
        path.canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
    } else {
        path.file_stem().map(|n| n.to_string_lossy().into_owned())
    };
    name.unwrap_or_else(|| path.display().to_string())
}

/// Everything the PATHs hold, before any replay: the kinds, the scenario
/// files of each session, and the sessions a dataset already priced.
#[derive(Default)]
struct Gathered {
    kinds: Vec<String>,
    /// (kind, session name, its scenario files).
    sessions: Vec<(usize, String, Vec<PathBuf>)>,
    /// Sessions left out: (session, its unpriced model).
    unpriced: Vec<(String, String)>,
    /// Sessions read from datasets, by kind.
    from_datasets: Vec<(usize, SessionCosts)>,
    /// The datasets' variant names (the five bands' columns).
    band_names: Option<[String; 5]>,
    /// The price books the datasets' imports used.
    dataset_inputs: Vec<InputFile>,
    dataset_date: Option<PriceDate>,
}

impl Gathered {
    /// One PATH as a new kind: a dataset's sessions or a folder's scenarios.
    fn add(&mut self, p: &PathBuf, paths: &[PathBuf]) -> Result<(), AppError> {
        crate::files::settled(p)?;
        let kind = kind_name(p);
        if let Some(i) = self.kinds.iter().position(|k| *k == kind) {
            return Err(InputError::new(format!(
                "{} and {} are both the kind `{kind}`",
                paths[i].display(),
                p.display()
            ))
            .with_help("each PATH is a kind of session named by its file stem or directory name; rename one")
            .into());
        }
        self.kinds.push(kind);
        if is_dataset(p) {
            return self.add_dataset(p);
        }
        let before = self.sessions.len();
        for (name, files, model) in sessions_of(p)? {
            match model {
                Some(m) => self.unpriced.push((name, m)),
                None => self.sessions.push((self.kinds.len() - 1, name, files)),
            }
        }
        if self.sessions.len() == before {
            return Err(InputError::new(format!(
                "{}: every session has a thread on a model the price book does not price",
                p.display()
            ))
            .with_help("add the models' prices to the book `import` wrote (prices.toml), or import with --prices")
            .into());
        }
        Ok(())
    }

    /// A dataset's sessions, their costs as its import replayed them.
    fn add_dataset(&mut self, p: &PathBuf) -> Result<(), AppError> {
        let costs = crate::import::dataset::store::costs(std::slice::from_ref(p))?;
        if costs.sessions.is_empty() {
            return Err(InputError::new(format!(
                "{}: no session of the dataset has a replayed thread on a priced model",
                p.display()
            ))
            .with_help("import sessions with tool results into it, with a price book that prices their models")
            .into());
        }
        self.band_names = Some(crate::import::dataset::tables::band_names(
            costs.compare_model.as_deref(),
        ));
        let kind = self.kinds.len() - 1;
        self.from_datasets
            .extend(costs.sessions.into_iter().map(|c| (kind, c)));
        self.unpriced.extend(costs.unpriced);
        self.dataset_inputs.extend(
            costs
                .books
                .into_iter()
                .map(|(name, sha256)| InputFile { name, sha256 }),
        );
        if self.dataset_date.is_none() {
            self.dataset_date = costs.price_date.map(|date| PriceDate {
                date,
                from: "the dataset's import".into(),
            });
        }
        Ok(())
    }

    /// The position of variant `n` among a dataset's five bands.
    fn band_of(&self, n: &str) -> Option<usize> {
        self.band_names
            .as_ref()
            .and_then(|b| b.iter().position(|x| x == n))
    }
}

/// Every scenario file replayed once, in parallel, in order.
fn replay_all(files: &[&PathBuf], today: jiff::civil::Date) -> Result<Vec<Replayed>, AppError> {
    // The sessions of an import name one price book: it is parsed once.
    let books = crate::files::Books::default();
    let replayed: Vec<Result<Replayed, InputError>> = files
        .par_iter()
        .map(|f| {
            let s = books.load(f, Some(today))?;
            let sim = simulate(&s, SimulateOptions::TOTALS);
            let costs = sim
                .variants
                .iter()
                .map(|v| (v.variant.variant.name.clone(), v.cost.total))
                .collect();
            Ok((s, costs))
        })
        .collect();
    let mut by_file = Vec::with_capacity(replayed.len());
    for r in replayed {
        by_file.push(r?);
    }
    Ok(by_file)
}

/// The one currency of every scenario (datasets hold US dollars).
fn one_currency(by_file: &[Replayed], with_datasets: bool) -> Result<Currency, AppError> {
    let first = by_file.first().map(|(s, _)| s);
    let currency = first.map_or_else(Currency::usd, |f| f.currency().clone());
    if let Some((s, _)) = by_file
        .iter()
        .find(|(s, _)| s.currency().code != currency.code)
    {
        return Err(InputError::new(format!(
            "scenario `{}` reports in {} and scenario `{}` in {}",
            first.map_or("", |f| f.name()),
            currency.code,
            s.name(),
            s.currency().code
        ))
        .with_help("forecast sessions priced in one currency")
        .into());
    }
    if with_datasets && currency.code != "USD" {
        return Err(InputError::new(format!(
            "the scenarios report in {} and a dataset's costs are in USD",
            currency.code
        ))
        .with_help("forecast sessions priced in one currency")
        .into());
    }
    Ok(currency)
}

/// The variants every scenario file and every dataset session has, in the
/// first one's order (a dataset's in its column order), and those left out.
fn shared_variants(
    by_file: &[Replayed],
    g: &Gathered,
) -> Result<(Vec<String>, Vec<String>), AppError> {
    let names: Vec<String> = match (by_file.first(), &g.band_names) {
        (Some((_, c)), _) => c.iter().map(|(n, _)| n.clone()).collect(),
        (None, Some(b)) => b.to_vec(),
        (None, None) => Vec::new(),
    };
    let mut all_names: std::collections::BTreeSet<String> = by_file
        .iter()
        .flat_map(|(_, c)| c.iter().map(|(n, _)| n.clone()))
        .collect();
    // Which of the five a dataset's every session has.
    let mut in_all = [true; 5];
    if let Some(b) = &g.band_names {
        let mut in_any = [false; 5];
        for (_, c) in &g.from_datasets {
            for (k, band) in c.bands.iter().enumerate() {
                in_all[k] &= band.is_some();
                in_any[k] |= band.is_some();
            }
        }
        all_names.extend(
            b.iter()
                .zip(in_any)
                .filter(|(_, x)| *x)
                .map(|(n, _)| n.clone()),
        );
    }
    let variants: Vec<String> = names
        .into_iter()
        .filter(|n| by_file.iter().all(|(_, c)| c.iter().any(|(m, _)| m == n)))
        .filter(|n| g.from_datasets.is_empty() || g.band_of(n).is_some_and(|k| in_all[k]))
        .collect();
    if variants.is_empty() {
        return Err(InputError::new(
            "no variant name is in every scenario, so the sessions cannot be compared",
        )
        .with_help("give the scenarios' variants the same names (imported sessions share theirs)")
        .into());
    }
    let left_out = all_names
        .into_iter()
        .filter(|n| !variants.contains(n))
        .collect();
    Ok((variants, left_out))
}

/// Each session's cost per variant: its scenario files' threads summed, or
/// the dataset's bands.
fn session_costs(g: Gathered, by_file: &[Replayed], variants: &[String]) -> Vec<SessionCost> {
    let mut at = 0;
    let mut recorded = Vec::with_capacity(g.sessions.len() + g.from_datasets.len());
    for (kind, name, files) in &g.sessions {
        let mut cost = vec![Bounds::exact(Decimal::ZERO); variants.len()];
        for (_, costs) in &by_file[at..at + files.len()] {
            for (slot, v) in cost.iter_mut().zip(variants) {
                let c = costs.iter().find(|(n, _)| n == v).map(|(_, c)| *c);
                *slot = *slot + c.unwrap_or_default();
            }
        }
        at += files.len();
        recorded.push(SessionCost {
            name: name.clone(),
            kind: *kind,
            cost,
        });
    }
    let bands: Vec<Option<usize>> = variants.iter().map(|v| g.band_of(v)).collect();
    for (kind, c) in g.from_datasets {
        let cost = bands
            .iter()
            .map(|k| {
                k.and_then(|k| c.bands[k])
                    .map_or(Bounds::exact(Decimal::ZERO), |(lower, upper)| Bounds {
                        lower,
                        upper,
                    })
            })
            .collect();
        recorded.push(SessionCost {
            name: c.name,
            kind,
            cost,
        });
    }
    recorded
}

/// Reads every path, replays every scenario once, and sums each session's
/// threads per variant.
pub fn load(paths: &[PathBuf], today: jiff::civil::Date) -> Result<Loaded, AppError> {
    let mut g = Gathered::default();
    for p in paths {
        g.add(p, paths)?;
    }
    let files: Vec<&PathBuf> = g.sessions.iter().flat_map(|s| &s.2).collect();
    let by_file = replay_all(&files, today)?;
    let currency = one_currency(&by_file, !g.from_datasets.is_empty())?;
    let (variants, left_out) = shared_variants(&by_file, &g)?;
    let mut inputs: Vec<InputFile> = by_file
        .iter()
        .flat_map(|(s, _)| s.inputs().iter().cloned())
        .chain(std::mem::take(&mut g.dataset_inputs))
        .collect();
    inputs.sort_by(|a, b| (&a.name, &a.sha256).cmp(&(&b.name, &b.sha256)));
    inputs.dedup();
    let price_date = match by_file.first() {
        Some((f, _)) => f.price_date().clone(),
        None => g.dataset_date.take(),
    };
    let (kinds, unpriced) = (
        std::mem::take(&mut g.kinds),
        std::mem::take(&mut g.unpriced),
    );
    let sessions = session_costs(g, &by_file, &variants);
    Ok(Loaded {
        currency,
        price_date,
        scenarios: by_file.len(),
        recorded: Recorded {
            kinds,
            variants,
            sessions,
        },
        left_out,
        inputs,
        unpriced,
    })
}

/// `--weights a=3,b=1`: a share for every kind, as exact decimals.
pub fn weights(text: &str, kinds: &[String]) -> Result<Vec<Decimal>, InputError> {
    let mut out: Vec<Option<Decimal>> = vec![None; kinds.len()];
    let list = || {
        kinds
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((name, share)) = part.split_once('=') else {
            return Err(
                InputError::new(format!("--weights: `{part}` is not KIND=SHARE"))
                    .with_help(format!("give every kind a share, e.g. {}", example(kinds))),
            );
        };
        let (name, share) = (name.trim(), share.trim());
        let Some(k) = kinds.iter().position(|k| k == name) else {
            return Err(
                InputError::new(format!("--weights: no kind is named `{name}`"))
                    .with_help(format!("the kinds are {}", list())),
            );
        };
        let value: Decimal = share
            .parse()
            .ok()
            .filter(|d: &Decimal| !d.is_sign_negative() && d.scale() <= 6)
            .ok_or_else(|| {
                InputError::new(format!("--weights: `{name}={share}` is not a share"))
                    .with_help("give a number of at least 0 with at most 6 decimals, e.g. 0.7 or 3")
            })?;
        if out[k].replace(value).is_some() {
            return Err(
                InputError::new(format!("--weights: `{name}` is given twice"))
                    .with_help("give each kind once"),
            );
        }
    }
    let missing: Vec<&String> = kinds
        .iter()
        .zip(&out)
        .filter(|(_, w)| w.is_none())
        .map(|(k, _)| k)
        .collect();
    if !missing.is_empty() {
        return Err(InputError::new(format!(
            "--weights: no share for {}",
            missing
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .with_help(format!(
            "give every kind a share (0 leaves one out), e.g. {}",
            example(kinds)
        )));
    }
    let shares: Vec<Decimal> = out.into_iter().map(|w| w.unwrap_or_default()).collect();
    if shares.iter().all(|w| w.is_zero()) {
        return Err(InputError::new("--weights: every share is 0")
            .with_help("give at least one kind a share above 0"));
    }
    Ok(shares)
}

fn example(kinds: &[String]) -> String {
    kinds
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{k}={}", i + 1))
        .collect::<Vec<_>>()
        .join(",")
}
