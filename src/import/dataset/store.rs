//! A dataset folder: the files an import adds to it (each machine's own
//! file of a day, merged with what that file held), and the sessions and
//! session costs read back from folders, files and globs of them.

use super::columns::{ColumnsError, Data, Pieces, Table};
use super::tables::{self, Cols, Key, Replayed, Rows, SessionInfo, Threads};
use super::{host_file, Anonymiser, Provenance, MARK};
use crate::document::import::SessionRow;
use crate::error::InputError;
use crate::import::{Filter, Import, Origin, Session};
use bytes::Bytes;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
mod costs;
pub use costs::{costs, Costs, SessionCosts};

/// The partition folder of a session: `day=YYYY-MM-DD` of its start (UTC).
pub fn day_of(started: Option<&str>) -> String {
    match started {
        Some(t)
            if t.len() >= 10
                && t.is_char_boundary(10)
                && crate::input::date(&t[..10]).is_some() =>
        {
            format!("day={}", &t[..10])
        }
        _ => "day=unknown".into(),
    }
}

/// The folder of an import's output (`--out`) that holds its sessions as
/// a dataset, so that the folder can be added to a team's dataset after its
/// logs are gone (`tokencast import dataset OUT --dataset TEAM`).
pub const FOLDER_ROWS: &str = "dataset";

/// A file to write: its path and bytes.
pub type FileBytes = (PathBuf, Vec<u8>);

/// Files already encoded, by their path below a dataset's root.
pub type Encoded = HashMap<PathBuf, Vec<u8>>;

/// Where and how [`Writer::files`] writes.
struct At<'a> {
    root: &'a Path,
    provenance: &'a Provenance,
    merge: bool,
    encoded: &'a Encoded,
}

/// The files of one machine's day under each table's folder: the dataset
/// root and `day=…/host-….parquet`.
type GroupId = (PathBuf, String);

/// A session row's candidate: key, newness, file group, file index, row.
type Candidate = (Key, Newness, GroupId, usize, usize);

/// Sessions added by one import, grouped by day and machine, to be merged
/// into the dataset's files at the end.
pub struct Writer {
    root: PathBuf,
    provenance: Provenance,
    rows: RowMaker,
    groups: BTreeMap<(String, String), Group>,
    /// Whether the files under `root` are merged with (a shared dataset),
    /// or written as this import's rows alone (an import folder's copy).
    merge: bool,
    /// Rows held in the groups' tables as built (not yet packed).
    held: usize,
    /// Rows held as built above which the largest groups pack theirs
    /// ([`PACK_AT_ROWS`]).
    pack_at: usize,
}

/// Rows held as built (every column a vector of values, 16 bytes an
/// integer: about 560 bytes a request row) before the groups pack them into
/// Parquet parts, about 10 times smaller (the 1 GB bench corpus's 143,000
/// rows take 8.1 MB packed, in 354 parts). Held whole, the rows grew an
/// import's memory by about 80 MB per GB of logs.
pub const PACK_AT_ROWS: usize = 10_000;

/// How a writer builds a session's rows: the origin of sessions read from
/// logs, the anonymiser, the source's name. Apart from the writer, so the
/// rows are built in parallel while the writer takes the sessions before.
#[derive(Clone)]
pub struct RowMaker {
    origin: Origin,
    anonymiser: Option<Anonymiser>,
    source: String,
}

impl RowMaker {
    /// A session's rows, as its writer pushes them: names hidden when it
    /// anonymises, the key and newness that decide which import of a
    /// session a file keeps.
    pub fn rows_of(&self, s: &Session, row: &SessionRow, rep: &Replayed) -> SessionRows {
        let mut o = s.origin.clone().unwrap_or_else(|| self.origin.clone());
        let mut shown = std::borrow::Cow::Borrowed(s);
        if let Some(a) = &self.anonymiser {
            o = Origin {
                machine: a.hide(&o.machine),
                user: o.user.as_deref().map(|u| a.hide(u)),
                source: o.source.clone(),
            };
            let mut hidden = s.clone();
            hidden.project = a.hide(&s.project);
            // Log file names hold the project's folder name.
            hidden.files = s.files.iter().map(|f| a.hide(f)).collect();
            hidden.origin = None;
            shown = std::borrow::Cow::Owned(hidden);
        }
        let key = (
            o.machine.clone(),
            s.id.clone(),
            shown.files.first().cloned().unwrap_or_default(),
        );
        let newness = (
            s.requests().filter_map(|r| r.at_ms).max(),
            s.requests().count() as u64,
        );
        let mut row = row.clone();
        row.project = shown.project.clone();
        let mut rows = Rows::default();
        // A session read from a dataset keeps the source it came from.
        let source = o.source.as_deref().unwrap_or(&self.source);
        rows.add(&o, &shown, &row, rep, source);
        SessionRows {
            day: day_of(row.started.as_deref()),
            key,
            newness,
            tables: [
                rows.sessions.finish(),
                rows.requests.finish(),
                rows.results.finish(),
            ],
        }
    }
}

#[derive(Default)]
struct Group {
    /// Sessions, requests, results: the rows packed so far, as Parquet
    /// parts in order, then the rows as built since.
    packed: [Vec<Vec<u8>>; 3],
    tables: [Pieces; 3],
    /// Each session's key and how new it is.
    keys: Vec<(Key, Newness)>,
}

impl Group {
    /// Rows held as built (not yet packed), in the three tables.
    fn held(&self) -> usize {
        self.tables.iter().map(Pieces::rows).sum()
    }

    /// Packs the rows as built into a Parquet part per table.
    fn pack(&mut self) -> Result<(), ColumnsError> {
        for (parts, t) in self.packed.iter_mut().zip(&mut self.tables) {
            if t.rows() > 0 {
                parts.push(std::mem::take(t).into_table().to_part()?);
            }
        }
        Ok(())
    }

    /// Whether table `i` holds rows (packed or as built).
    fn has_rows(&self, i: usize) -> bool {
        !self.packed[i].is_empty() || self.tables[i].rows() > 0
    }

    /// Table `i`'s file of its rows alone: the packed parts' row groups as
    /// they were encoded, then the rows as built (nothing read back).
    fn file_of(
        &mut self,
        i: usize,
        table: &str,
        metadata: &[(String, String)],
    ) -> Result<Vec<u8>, ColumnsError> {
        let fresh = std::mem::take(&mut self.tables[i]).into_table();
        // Every part held rows: the rows as built may be none (no columns).
        let fresh = if fresh.rows() > 0 {
            fresh
        } else {
            tables::schema(table)
        };
        fresh.to_parquet_after(std::mem::take(&mut self.packed[i]), metadata)
    }

    /// Table `i`'s rows in order: the packed parts, then the rows as built.
    fn take_rows(&mut self, i: usize, table: &str) -> Result<Table, ColumnsError> {
        let fresh = std::mem::take(&mut self.tables[i]).into_table();
        if self.packed[i].is_empty() {
            return Ok(fresh);
        }
        let schema = tables::schema(table);
        let mut t = schema.empty_like();
        for part in std::mem::take(&mut self.packed[i]) {
            let (rows, _) = Table::from_parquet(Bytes::from(part), &schema.columns)?;
            t.append(rows);
        }
        t.append(fresh);
        Ok(t)
    }
}

/// One session's rows in the three tables, with where they go.
#[derive(Clone)]
pub struct SessionRows {
    day: String,
    key: Key,
    newness: Newness,
    tables: [Table; 3],
}

/// What [`Writer::files`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Merged {
    /// Sessions written.
    pub sessions: u64,
    /// Sessions the dataset held and this import replaced.
    pub replaced: u64,
    /// Sessions whose newer import the dataset already held (kept).
    pub kept_newer: u64,
    /// Files written.
    pub files: u64,
}

impl Writer {
    /// A writer into `root`; sessions without an origin of their own (read
    /// from logs, not from a dataset) are `origin`'s.
    pub fn new(
        root: PathBuf,
        provenance: Provenance,
        origin: Origin,
        anonymiser: Option<Anonymiser>,
        source: &str,
    ) -> Writer {
        Writer {
            root,
            provenance,
            rows: RowMaker {
                origin,
                anonymiser,
                source: source.to_string(),
            },
            groups: BTreeMap::new(),
            merge: true,
            held: 0,
            pack_at: PACK_AT_ROWS,
        }
    }

    /// A writer of this import's rows alone into `root`: what its files
    /// held is not read, and sessions not imported again are not kept (an
    /// import folder's own copy of its sessions, [`FOLDER_ROWS`]).
    pub fn alone(root: PathBuf, provenance: Provenance, origin: Origin, source: &str) -> Writer {
        Writer {
            merge: false,
            ..Writer::new(root, provenance, origin, None, source)
        }
    }

    /// Whether names are replaced by a hash (`--anonymise`).
    pub fn anonymises(&self) -> bool {
        self.rows.anonymiser.is_some()
    }

    /// What this writer's rows are built with: sessions are built in
    /// parallel ([`RowMaker::rows_of`]) and [`Writer::push`]ed in order,
    /// while the writer may be on a thread of its own.
    pub fn row_maker(&self) -> &RowMaker {
        &self.rows
    }

    /// A session's rows ([`RowMaker::rows_of`] of this writer's).
    pub fn rows_of(&self, s: &Session, row: &SessionRow, rep: &Replayed) -> SessionRows {
        self.rows.rows_of(s, row, rep)
    }

    /// Adds a session's rows to its machine's day. Past
    /// [`PACK_AT_ROWS`] rows held as built, the largest groups pack theirs.
    pub fn push(&mut self, r: SessionRows) -> Result<(), InputError> {
        let g = self.groups.entry((r.day, r.key.0.clone())).or_default();
        g.keys.push((r.key, r.newness));
        for (t, new) in g.tables.iter_mut().zip(r.tables) {
            self.held += new.rows();
            t.push(new);
        }
        if self.held > self.pack_at {
            self.pack_largest()?;
        }
        Ok(())
    }

    /// Packs the groups holding the most rows first, until at most half
    /// the [`PACK_AT_ROWS`] budget is held as built. Sessions arrive
    /// interleaved across days, so packing every group each time made many
    /// parts of a few hundred rows (622 of them, 256 under 100 rows, 11.3 MB
    /// on the 1 GB bench corpus), each costing a footer and a writer per
    /// column to make and to read back; packing the largest groups made 354
    /// parts of 8.1 MB.
    fn pack_largest(&mut self) -> Result<(), InputError> {
        let mut groups: Vec<&mut Group> =
            self.groups.values_mut().filter(|g| g.held() > 0).collect();
        // Largest first; a stable sort keeps equal ones in the map's order.
        groups.sort_by_key(|g| std::cmp::Reverse(g.held()));
        for g in groups {
            if self.held <= self.pack_at / 2 {
                break;
            }
            self.held -= g.held();
            g.pack().map_err(|e| {
                InputError::new(format!("the dataset's rows could not be packed: {e}"))
                    .with_help("this is a bug in tokencast; please report it with the command")
            })?;
        }
        Ok(())
    }

    /// Packs the rows held as built once more than `rows` are (a test
    /// packs after every session).
    #[cfg(test)]
    pub fn pack_at(mut self, rows: usize) -> Writer {
        self.pack_at = rows;
        self
    }

    /// The machines whose files this import writes.
    pub fn machines(&self) -> BTreeSet<&str> {
        self.groups.keys().map(|(_, m)| m.as_str()).collect()
    }

    /// The folder whose lock a writer of `machine`'s files holds.
    pub fn lock_dir(&self, machine: &str) -> PathBuf {
        self.root
            .join(".tokencast-locks")
            .join(host_file(machine).trim_end_matches(".parquet"))
    }

    /// Every file to write (path, bytes): each day's file of each machine,
    /// holding what it held except the sessions this import replaces.
    pub fn files(self) -> Result<(Vec<FileBytes>, Merged), InputError> {
        self.files_reusing(&Encoded::new())
    }

    /// [`Writer::files`], taking a file whose rows are this import's alone
    /// from `encoded` (by its path below the root) where another writer of
    /// the same rows and provenance encoded it (the folder's copy, for the
    /// team's dataset).
    pub fn files_reusing(self, encoded: &Encoded) -> Result<(Vec<FileBytes>, Merged), InputError> {
        use rayon::prelude::*;
        let groups: Vec<((String, String), Group)> = self.groups.into_iter().collect();
        let (root, provenance, merge) = (&self.root, &self.provenance, self.merge);
        let at = At {
            root,
            provenance,
            merge,
            encoded,
        };
        // Each machine's day on its own, in parallel; results in order.
        let done: Vec<Result<(Vec<FileBytes>, Merged), InputError>> = groups
            .into_par_iter()
            .map(|((day, machine), g)| group_files(&at, &day, &machine, g))
            .collect();
        let mut out = Vec::new();
        let mut merged = Merged::default();
        for d in done {
            let (files, m) = d?;
            out.extend(files);
            merged.sessions += m.sessions;
            merged.replaced += m.replaced;
            merged.kept_newer += m.kept_newer;
            merged.files += m.files;
        }
        Ok((out, merged))
    }
}

/// One machine's files of one day: what they held (when `merge`), without
/// the sessions this import replaces, and this import's rows, without the
/// sessions the files hold a newer import of.
fn group_files(
    at: &At,
    day: &str,
    machine: &str,
    mut g: Group,
) -> Result<(Vec<FileBytes>, Merged), InputError> {
    let mut merged = Merged::default();
    let file = host_file(machine);
    let rel = |table: &str| Path::new(table).join(day).join(&file);
    let path = |table: &str| at.root.join(rel(table));
    let held_in = |table: &str| match at.merge {
        true => read_if_exists(&path(table), table),
        false => Ok(None),
    };
    // What the machine's file of the day holds: each session's newness.
    let existing = held_in(tables::SESSIONS)?;
    let mut held: HashMap<Key, Newness> = HashMap::new();
    if let Some((t, p)) = &existing {
        let c = Cols(t);
        for i in 0..t.rows() {
            let k = tables::key_of(&c, i).map_err(|e| bad(p, e))?;
            held.insert(k, newness(&c, i).map_err(|e| bad(p, e))?);
        }
    }
    // A newer import already there is kept; this one's rows are dropped.
    let mut keep_old: BTreeSet<Key> = BTreeSet::new();
    let mut new_keys: BTreeSet<Key> = BTreeSet::new();
    for (k, last) in &g.keys {
        match held.get(k) {
            Some(old) if *old > *last => {
                merged.kept_newer += 1;
                keep_old.insert(k.clone());
            }
            Some(_) => {
                merged.replaced += 1;
                new_keys.insert(k.clone());
            }
            None => {
                new_keys.insert(k.clone());
            }
        }
    }
    merged.sessions += new_keys.len() as u64;
    let mut out = Vec::new();
    for (i, table) in tables::TABLES.into_iter().enumerate() {
        let target = path(table);
        let old = match table {
            tables::SESSIONS => existing.as_ref().map(|(t, _)| t.clone()),
            _ => held_in(table)?.map(|(t, _)| t),
        };
        // A day this machine has not written before: this import's rows
        // alone, encoded once for both writers of them.
        if old.is_none() && keep_old.is_empty() && g.has_rows(i) {
            let bytes = match at.encoded.get(&rel(table)) {
                Some(bytes) => bytes.clone(),
                None => g
                    .file_of(i, table, &at.provenance.metadata(table))
                    .map_err(|e| unreadable(&target, &e))?,
            };
            out.push((target, bytes));
            merged.files += 1;
            continue;
        }
        let fresh = g.take_rows(i, table).map_err(|e| unreadable(&target, &e))?;
        let mut t = tables::schema(table);
        if let Some(old) = &old {
            for i in kept_rows(old, &new_keys, &target)? {
                t.push_row(old, i);
            }
        }
        if fresh.rows() > 0 {
            for i in kept_rows(&fresh, &keep_old, &target)? {
                t.push_row(&fresh, i);
            }
        }
        let bytes = t
            .to_parquet(&at.provenance.metadata(table))
            .map_err(|e| unreadable(&target, &e))?;
        out.push((target, bytes));
        merged.files += 1;
    }
    Ok((out, merged))
}

/// The rows of `t` whose key `drop` does not hold, decided once for each
/// run of rows of one session (a session's rows are written together).
fn kept_rows(t: &Table, drop: &BTreeSet<Key>, path: &Path) -> Result<Vec<usize>, InputError> {
    let c = Cols(t);
    let (h, s, l) = (
        c.str(tables::HOST),
        c.str(tables::SESSION),
        c.str(tables::LOG_FILE),
    );
    let mut out = Vec::with_capacity(t.rows());
    let mut run: Option<(usize, bool)> = None;
    for i in 0..t.rows() {
        let keep = match run {
            Some((j, keep))
                if h.get(i) == h.get(j) && s.get(i) == s.get(j) && l.get(i) == l.get(j) =>
            {
                keep
            }
            _ => {
                let k = tables::key_of(&c, i).map_err(|e| bad(path, e))?;
                let keep = !drop.contains(&k);
                run = Some((i, keep));
                keep
            }
        };
        if keep {
            out.push(i);
        }
    }
    Ok(out)
}

/// How new an import of a session is: its last request, then its number
/// of requests (a log only grows).
type Newness = (Option<i64>, u64);

fn newness(c: &Cols, i: usize) -> Result<Newness, tables::BadValue> {
    Ok((c.int(tables::LAST)[i], c.count("tokencast.requests", i)?))
}

fn bad(path: &Path, e: tables::BadValue) -> InputError {
    InputError::new(format!("{}: {e}", path.display()))
        .with_help("a dataset file holds the rows tokencast wrote; write it again with `tokencast import … --dataset`")
}

fn unreadable(path: &Path, e: &ColumnsError) -> InputError {
    InputError::new(format!(
        "{}: not a readable tokencast dataset file: {e}",
        path.display()
    ))
    .with_help(
        "point at a folder `tokencast import … --dataset DIR` wrote, or at its .parquet files",
    )
}

/// A table file read with the table's whole schema, when it exists.
fn read_if_exists(path: &Path, table: &str) -> Result<Option<(Table, PathBuf)>, InputError> {
    if !path.exists() {
        return Ok(None);
    }
    let (t, _) = read_file(path, &tables::schema(table).columns, Some(table))?;
    Ok(Some((t, path.to_path_buf())))
}

/// Reads the columns `want` of one file, checking that it is a dataset
/// file (of `table`, when given).
fn read_file(
    path: &Path,
    want: &[(&'static str, Data)],
    table: Option<&str>,
) -> Result<(Table, Vec<(String, String)>), InputError> {
    let bytes = std::fs::read(path).map_err(|e| {
        InputError::new(format!("{}: {e}", path.display()))
            .with_help("check that the dataset file exists and can be read")
    })?;
    let (t, meta) =
        Table::from_parquet(Bytes::from(bytes), want).map_err(|e| unreadable(path, &e))?;
    let get = |k: &str| meta.iter().find(|(m, _)| m == k).map(|(_, v)| v.as_str());
    if get(MARK).is_none() {
        return Err(InputError::new(format!(
            "{}: a Parquet file, but not one tokencast wrote (its metadata has no `{MARK}`)",
            path.display()
        ))
        .with_help("point at a folder `tokencast import … --dataset DIR` wrote"));
    }
    if let (Some(want), Some(found)) = (table, get("tokencast.table")) {
        if want != found {
            return Err(InputError::new(format!(
                "{}: holds the table `{found}` where `{want}` was expected",
                path.display()
            ))
            .with_help("keep each table's files in its own folder, as tokencast wrote them"));
        }
    }
    Ok((t, meta))
}

/// The dataset files under the paths given: folders (walked for
/// `.parquet` files), files, and glob patterns of either; by table.
#[derive(Debug, Default, Clone)]
pub struct Found {
    /// Per table (index in [`tables::TABLES`]), the files in path order.
    pub files: [Vec<PathBuf>; 3],
}

impl Found {
    /// Lists the files, each table by its folder (`sessions/`, `requests/`,
    /// `tool_results/`).
    pub fn of(paths: &[PathBuf]) -> Result<Found, InputError> {
        let mut out = Found::default();
        let mut seen = BTreeSet::new();
        for p in paths {
            let expanded: Vec<PathBuf> = if p.exists() {
                vec![p.clone()]
            } else {
                let pattern = p.to_string_lossy();
                let matched: Vec<PathBuf> = glob::glob(&pattern)
                    .map_err(|e| {
                        InputError::new(format!("{pattern}: not a glob pattern: {e}"))
                            .with_help("give dataset folders, .parquet files, or a pattern such as 'team/*/dataset'")
                    })?
                    .flatten()
                    .collect();
                if matched.is_empty() {
                    return Err(InputError::new(format!(
                        "{}: no such file or directory, and no path matches it",
                        p.display()
                    ))
                    .with_help("give dataset folders, .parquet files, or a glob of them"));
                }
                matched
            };
            for e in expanded {
                let files: Vec<PathBuf> = if e.is_dir() {
                    walkdir::WalkDir::new(&e)
                        .sort_by_file_name()
                        .into_iter()
                        .flatten()
                        .filter(|f| f.file_type().is_file())
                        .map(|f| f.into_path())
                        .filter(|f| f.extension().is_some_and(|x| x == "parquet"))
                        .collect()
                } else {
                    vec![e.clone()]
                };
                for f in files {
                    let table = f
                        .ancestors()
                        .skip(1)
                        .take(2)
                        .filter_map(|a| a.file_name())
                        .find_map(|n| tables::TABLES.iter().position(|t| n == *t));
                    if let Some(i) = table {
                        if seen.insert(f.clone()) {
                            out.files[i].push(f);
                        }
                    }
                }
            }
        }
        if out.files[0].is_empty() {
            return Err(InputError::new(format!(
                "{}: no dataset files (sessions/day=…/*.parquet)",
                paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .with_help("point at a folder `tokencast import … --dataset DIR` wrote, or at an import's folder, which keeps its sessions' rows in OUT/dataset (a folder without them was written by an earlier tokencast: import its logs again)"));
        }
        Ok(out)
    }

    /// Whether `path` looks like a dataset folder (it has `sessions/`).
    pub fn is_dataset(path: &Path) -> bool {
        path.join(tables::SESSIONS).is_dir()
    }
}

/// The files of one machine's day: the same relative name under each table.
fn group_of(path: &Path) -> GroupId {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let day = path.parent();
    let day_name = day
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let root = day
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    (root, format!("{day_name}/{file}"))
}

/// For each session key, the file group holding its newest import.
fn choose(rows: Vec<Candidate>) -> HashMap<Key, (GroupId, usize, usize)> {
    let mut best: HashMap<Key, (Newness, GroupId, usize, usize)> = HashMap::new();
    for (k, last, group, file, row) in rows {
        match best.get(&k) {
            Some((l, ..)) if *l >= last => {}
            _ => {
                best.insert(k, (last, group, file, row));
            }
        }
    }
    best.into_iter()
        .map(|(k, (_, g, f, r))| (k, (g, f, r)))
        .collect()
}

/// Reads the sessions of the datasets under `paths` (each session's newest
/// import once, whatever number of datasets hold it), handing those that
/// pass `filter` to `each`, in order of start, machine and id.
pub fn read<E>(
    paths: &[PathBuf],
    filter: &Filter,
    mut each: impl FnMut(Vec<Session>) -> Result<(), E> + Send,
) -> Result<Import, E>
where
    E: From<InputError> + Send,
{
    let found = Found::of(paths)?;
    let mut import = Import {
        source: "dataset".into(),
        ..Import::default()
    };
    let count = |p: &Path, rows: usize, import: &mut Import| {
        import.files += 1;
        import.lines += rows as u64;
        import.bytes += crate::import::file_len(p);
    };
    let schema = tables::schema(tables::SESSIONS);
    let mut session_tables = Vec::new();
    let mut candidates = Vec::new();
    for (fi, p) in found.files[0].iter().enumerate() {
        let (t, _) = read_file(p, &schema.columns, Some(tables::SESSIONS))?;
        count(p, t.rows(), &mut import);
        let c = Cols(&t);
        for i in 0..t.rows() {
            let k = tables::key_of(&c, i).map_err(|e| bad(p, e))?;
            let new = newness(&c, i).map_err(|e| bad(p, e))?;
            candidates.push((k, new, group_of(p), fi, i));
        }
        session_tables.push(t);
    }
    let chosen = choose(candidates);
    let mut threads: HashMap<Key, Threads> = HashMap::new();
    for (ti, table) in [tables::REQUESTS, tables::RESULTS].into_iter().enumerate() {
        let schema = tables::schema(table);
        for p in &found.files[ti + 1] {
            let (t, _) = read_file(p, &schema.columns, Some(table))?;
            count(p, t.rows(), &mut import);
            let group = group_of(p);
            let c = Cols(&t);
            for i in 0..t.rows() {
                let k = tables::key_of(&c, i).map_err(|e| bad(p, e))?;
                if chosen.get(&k).is_none_or(|(g, ..)| *g != group) {
                    continue;
                }
                let th = threads.entry(k).or_default();
                match table {
                    tables::REQUESTS => th.add_request(&c, i),
                    _ => th.add_result(&c, i),
                }
                .map_err(|e| bad(p, e))?;
            }
        }
    }
    let mut sessions: Vec<(Option<String>, Key, Session)> = Vec::with_capacity(chosen.len());
    for (k, (_, fi, row)) in chosen {
        let c = Cols(&session_tables[fi]);
        let info: SessionInfo =
            tables::session_info(&c, row).map_err(|e| bad(&found.files[0][fi], e))?;
        let started = c.str("tokencast.started_text").get(row).map(str::to_string);
        let th = threads.remove(&k).unwrap_or_default();
        let s = tables::session_of(&k.1, info, th);
        if filter.keeps(&s) {
            sessions.push((started, k, s));
        }
    }
    sessions.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let mut batch = Vec::new();
    for (_, _, s) in sessions {
        batch.push(s);
        if batch.len() == 32 {
            each(std::mem::take(&mut batch))?;
        }
    }
    if !batch.is_empty() {
        each(batch)?;
    }
    Ok(import)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{ContextKind, Request, Thread, ToolResult, Usage};

    /// Session `n` of `day`: three requests and two results.
    fn session(n: u64, day: &str) -> (Session, SessionRow) {
        let request = |k: u64| Request {
            message_id: format!("s{n}-m{k}"),
            model: "claude-sonnet-4-5".into(),
            timestamp: Some(format!("{day}T10:00:0{k}.000Z")),
            usage: Usage {
                input: 10 * n + k,
                cache_read: 1000 * k,
                output: 7,
                ..Usage::default()
            },
            ..Request::default()
        };
        let result = |k: usize| ToolResult {
            bytes: 400 + n,
            carried_by: Some(k),
            ..ToolResult::context(ContextKind::Tool, Default::default(), None)
        };
        let s = Session {
            id: format!("session-{n}"),
            project: "p".into(),
            files: vec![format!("session-{n}.jsonl")],
            threads: vec![Thread {
                agent: None,
                compaction: false,
                requests: (0..3).map(request).collect(),
                results: vec![result(1), result(2)],
            }],
            compactions: 0,
            origin: None,
        };
        let mut row = crate::document::import::empty_row();
        row.session = s.id.clone();
        row.started = Some(format!("{day}T10:00:00.000Z"));
        (s, row)
    }

    fn writer() -> Writer {
        let provenance = Provenance {
            price_book: "book".into(),
            price_book_sha256: "0".repeat(64),
            assumptions: "{}".into(),
        };
        let origin = Origin {
            machine: "m".into(),
            user: None,
            source: None,
        };
        Writer::alone(PathBuf::from("out"), provenance, origin, "claude-code")
    }

    #[test]
    fn rows_packed_as_they_come_write_the_same_files_as_rows_held_whole() {
        // Five sessions over two days, pushed into a writer that holds
        // every row as built and into one that packs after each session.
        let mut whole = writer();
        let mut packed = writer().pack_at(0);
        for n in 0..5 {
            let day = if n % 2 == 0 {
                "2026-11-01"
            } else {
                "2026-11-02"
            };
            let (s, row) = session(n, day);
            let replayed = Replayed::default();
            whole.push(whole.rows_of(&s, &row, &replayed)).unwrap();
            packed.push(packed.rows_of(&s, &row, &replayed)).unwrap();
        }
        // The packing writer holds its rows packed: 3 sessions of the first
        // day, one part per table each.
        let first = &packed.groups[&("day=2026-11-01".to_string(), "m".to_string())];
        assert_eq!(first.packed.each_ref().map(Vec::len), [3, 3, 3]);
        assert_eq!(first.tables.iter().map(Pieces::rows).sum::<usize>(), 0);
        // A sixth session of the first day, held as built after its parts.
        packed.pack_at = usize::MAX;
        let (s, row) = session(5, "2026-11-01");
        let replayed = Replayed::default();
        whole.push(whole.rows_of(&s, &row, &replayed)).unwrap();
        packed.push(packed.rows_of(&s, &row, &replayed)).unwrap();
        let first = &packed.groups[&("day=2026-11-01".to_string(), "m".to_string())];
        assert!(first.tables.iter().all(|t| t.rows() > 0));
        assert_eq!(
            whole
                .groups
                .values()
                .map(|g| g.packed[0].len())
                .sum::<usize>(),
            0
        );
        // Two days of three tables; the same files' rows and metadata, the
        // packed parts copied into them as row groups of their own (the
        // first day's three, then its rows as built).
        let (a, ma) = whole.files().unwrap();
        let (b, mb) = packed.files().unwrap();
        assert_eq!(a.len(), 6);
        assert_eq!((ma.sessions, ma.files), (6, 6));
        assert_eq!(ma, mb);
        assert_eq!(same_rows(&a, &b), [1, 1, 1, 1, 1, 1, 4, 4, 4, 2, 2, 2]);
    }

    /// Checks that `a` and `b` are the same files (paths, in order) with
    /// the same rows and footer metadata, whatever their row groups; gives
    /// each file's row groups, `a`'s then `b`'s.
    fn same_rows(a: &[FileBytes], b: &[FileBytes]) -> Vec<usize> {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        assert_eq!(
            a.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            b.iter().map(|(p, _)| p).collect::<Vec<_>>()
        );
        let read = |(path, bytes): &FileBytes| {
            let table = path
                .components()
                .nth(1)
                .unwrap()
                .as_os_str()
                .to_str()
                .unwrap();
            let (t, kv) =
                Table::from_parquet(Bytes::from(bytes.clone()), &tables::schema(table).columns)
                    .unwrap();
            let groups = SerializedFileReader::new(Bytes::from(bytes.clone()))
                .unwrap()
                .metadata()
                .num_row_groups();
            (t, kv, groups)
        };
        let mut groups = Vec::new();
        for (fa, fb) in a.iter().zip(b) {
            let (ta, kva, ga) = read(fa);
            let (tb, kvb, gb) = read(fb);
            assert!(ta.rows() > 0, "{}", fa.0.display());
            assert_eq!(ta, tb, "{}", fa.0.display());
            assert_eq!(kva, kvb, "{}", fa.0.display());
            groups.push((ga, gb));
        }
        let (ga, gb): (Vec<usize>, Vec<usize>) = groups.into_iter().unzip();
        ga.into_iter().chain(gb).collect()
    }

    #[test]
    fn past_the_budget_the_largest_groups_pack_until_half_of_it_is_held() {
        // Three days of three, two and one sessions, the budget between
        // five and six sessions' rows: the sixth session passes it, the
        // first day (three sessions) packs and still more than half is held,
        // the second day (two) packs, and the third day's one session stays
        // as built.
        let days = [
            "2026-11-01",
            "2026-11-01",
            "2026-11-01",
            "2026-11-02",
            "2026-11-02",
            "2026-11-03",
        ];
        let replayed = Replayed::default();
        let per: usize = {
            let w = writer();
            let (s, row) = session(0, days[0]);
            w.rows_of(&s, &row, &replayed)
                .tables
                .iter()
                .map(Table::rows)
                .sum()
        };
        let mut whole = writer();
        let mut packed = writer().pack_at(5 * per + per / 2);
        for (n, day) in days.iter().enumerate() {
            let (s, row) = session(n as u64, day);
            whole.push(whole.rows_of(&s, &row, &replayed)).unwrap();
            packed.push(packed.rows_of(&s, &row, &replayed)).unwrap();
        }
        let group = |day: &str| &packed.groups[&(format!("day={day}"), "m".to_string())];
        for (day, parts, held) in [
            ("2026-11-01", [1, 1, 1], 0),
            ("2026-11-02", [1, 1, 1], 0),
            ("2026-11-03", [0, 0, 0], per),
        ] {
            assert_eq!(group(day).packed.each_ref().map(Vec::len), parts, "{day}");
            assert_eq!(group(day).held(), held, "{day}");
        }
        assert_eq!(packed.held, per);
        // The same files' rows and metadata as the rows held whole: a packed
        // day's file holds its part, the third day's its rows as built.
        let (a, ma) = whole.files().unwrap();
        let (b, mb) = packed.files().unwrap();
        assert_eq!(a.len(), 9);
        assert_eq!(ma, mb);
        assert_eq!(same_rows(&a, &b), [1; 18]);
    }
}
