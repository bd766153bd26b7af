//! The one place that writes files: atomically, and never over a file the
//! user owns without being asked.
//!
//! Every file of a run is rendered in memory first, then [`write_all`] checks
//! every target before writing any, and writes each to a temporary file in
//! the target's folder that is renamed into place. An interrupted run leaves
//! the previous file, never half of a new one.

pub mod interrupt;
pub mod journal;
pub mod name;

use std::path::{Path, PathBuf};
use thiserror::Error;

/// Marker that identifies an HTML report written by tokencast.
pub const HTML_GENERATOR: &str = "<meta name=\"generator\" content=\"tokencast\">";

/// How JSON written by tokencast begins: its marker is the first key.
pub const JSON_GENERATOR: &str = "{\n  \"generator\": \"tokencast\",";

/// How terminal text written to a file by tokencast begins.
pub const TEXT_GENERATOR: &str = "tokencast ";

/// The marker by which tokencast recognises a file it wrote earlier (which it
/// may replace). Ownership is read from this marker, never guessed from a
/// file's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marker {
    /// An HTML page carrying [`HTML_GENERATOR`] in its head.
    Html,
    /// A JSON document whose first key is `"generator": "tokencast"`.
    Json,
    /// A CSV export whose header row is exactly this one (CSV has no place
    /// for anything else: the header of each table is its marker).
    Csv(String),
    /// An imported trace whose header row is one tokencast writes or wrote
    /// ([`TRACE_HEADER`](crate::scenario::trace::TRACE_HEADER), or one of
    /// the [`EARLIER_TRACE_HEADERS`](crate::scenario::trace::EARLIER_TRACE_HEADERS)).
    Trace,
    /// Terminal text whose first line starts with `tokencast `.
    Text,
    /// A TOML price book whose first line starts with `# tokencast `.
    Toml,
    /// A Parquet file whose footer's metadata has the key
    /// `tokencast.dataset` (a dataset file; see [`crate::import::dataset`]).
    Parquet,
}

/// Bytes read from an existing file to look for a marker.
const MARKER_WINDOW: u64 = 64 * 1024;

impl Marker {
    /// True when `head`, the start of an existing file, carries this marker.
    pub fn found_in(&self, head: &[u8]) -> bool {
        let text = String::from_utf8_lossy(head);
        match self {
            Marker::Html => text.contains(HTML_GENERATOR),
            Marker::Json => text.starts_with(JSON_GENERATOR),
            Marker::Csv(header) => text
                .split('\n')
                .next()
                .is_some_and(|l| l.trim_end_matches('\r') == header),
            Marker::Trace => text.split('\n').next().is_some_and(|l| {
                let l = l.trim_end_matches('\r');
                l == crate::scenario::trace::TRACE_HEADER
                    || crate::scenario::trace::EARLIER_TRACE_HEADERS.contains(&l)
            }),
            Marker::Text => text.starts_with(TEXT_GENERATOR),
            Marker::Toml => text.starts_with("# tokencast "),
            // Parquet's metadata is at the end: see `is_ours`.
            Marker::Parquet => false,
        }
    }
}

/// One file to write.
#[derive(Debug, Clone)]
pub struct PlannedFile {
    /// Where.
    pub path: PathBuf,
    /// What.
    pub bytes: Vec<u8>,
    /// How to tell an earlier version of it.
    pub marker: Marker,
}

/// Why files could not be written.
#[derive(Debug, Error)]
pub enum OutputError {
    /// The target exists and was not written by tokencast.
    #[error("refusing to overwrite `{0}`: it exists and was not written by tokencast")]
    NotOurs(PathBuf),
    /// The target is a directory.
    #[error("cannot write `{0}`: it is a directory")]
    IsDirectory(PathBuf),
    /// The target is a pipe, socket or device.
    #[error("cannot write `{0}`: it is not a regular file (a pipe, socket or device)")]
    NotRegular(PathBuf),
    /// A folder on the way is a file.
    #[error("cannot write `{path}`: `{parent}` is a file, not a folder")]
    ParentIsFile {
        /// The target.
        path: PathBuf,
        /// The part of its path that is a file.
        parent: PathBuf,
    },
    /// Ctrl-C while the set was being written: nothing of it was kept.
    #[error("interrupted: nothing was written")]
    Interrupted,
    /// Another tokencast holds the output folder.
    #[error("`{0}` is in use by another tokencast run (it holds `{0}/.tokencast.lock`)")]
    Busy(PathBuf),
    /// A journal in the output folder that tokencast would not follow.
    #[error("`{path}` is not a journal tokencast can finish: {why}")]
    BadJournal {
        /// The journal.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The filesystem failed.
    #[error("cannot write `{path}`: {source}")]
    Io {
        /// The target.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl OutputError {
    /// What the user can do about it.
    pub fn help(&self) -> &'static str {
        match self {
            OutputError::NotOurs(_) => "choose another path, or pass --force to replace it",
            OutputError::IsDirectory(_) => "give a file path, not a folder",
            OutputError::NotRegular(_) => "give the path of a regular file",
            OutputError::ParentIsFile { .. } => {
                "give a folder path (for --csv), or remove the file"
            }
            OutputError::Io { .. } => {
                "check that the folder exists and is writable; nothing was changed"
            }
            OutputError::Interrupted => "run the command again",
            OutputError::Busy(_) => {
                "wait for the other run to finish, or give another --out; nothing was changed"
            }
            OutputError::BadJournal { .. } => {
                "tokencast writes it only while it commits a set; if no tokencast wrote this one, remove it (nothing was changed)"
            }
        }
    }

    /// True when the user's arguments caused it (exit code 2).
    pub fn is_user_error(&self) -> bool {
        !matches!(self, OutputError::Io { .. })
    }
}

/// The lock file that marks an output folder in use (a name no input can
/// take: see [`name::FileName`]).
pub const LOCK_FILE: &str = ".tokencast.lock";

/// An output folder held by this run: one tokencast at a time writes a set
/// into it. The lock is the operating system's (released when the process
/// ends, even on a crash); the file goes when the lock is dropped, and so
/// does the folder if this lock made it and it is still empty.
pub struct FolderLock {
    path: PathBuf,
    _file: std::fs::File,
    made: Option<PathBuf>,
    finished: usize,
}

impl FolderLock {
    /// Takes `dir` (made if missing), or says another run holds it. A set
    /// a killed run left committed in `dir` is finished first (see
    /// [`journal`]).
    pub fn take(dir: &Path) -> Result<FolderLock, OutputError> {
        if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
            return Err(OutputError::ParentIsFile {
                path: dir.join(LOCK_FILE),
                parent: dir.to_path_buf(),
            });
        }
        let made = (!dir.exists()).then(|| dir.to_path_buf());
        let io = |source| OutputError::Io {
            path: dir.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let path = dir.join(LOCK_FILE);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {
                let mut lock = FolderLock {
                    path,
                    _file: file,
                    made,
                    finished: 0,
                };
                lock.finished = journal::recover(dir)?;
                Ok(lock)
            }
            Err(std::fs::TryLockError::WouldBlock) => Err(OutputError::Busy(dir.to_path_buf())),
            Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
        }
    }
}

impl FolderLock {
    /// Files of a killed run's committed set that taking the folder put in
    /// place or removed (0 when there was none).
    pub fn finished(&self) -> usize {
        self.finished
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        if let Some(dir) = &self.made {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Removes `path` when it is a regular file carrying `marker` (tokencast's
/// own), then its folder if that is left empty; true when it was removed.
/// Anything else is left as it is.
pub fn remove_owned(path: &Path, marker: &Marker) -> bool {
    let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
    if !regular || !is_ours(path, marker) || std::fs::remove_file(path).is_err() {
        return false;
    }
    if let Some(dir) = path.parent() {
        // Only an empty folder goes.
        let _ = std::fs::remove_dir(dir);
    }
    true
}

fn is_ours(path: &Path, marker: &Marker) -> bool {
    use std::io::Read;
    if *marker == Marker::Parquet {
        return parquet_is_ours(path);
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(MARKER_WINDOW).read_to_end(&mut head).is_err() {
        return false;
    }
    marker.found_in(&head)
}

/// True when `path` ends as a Parquet file does (footer length, `PAR1`)
/// and its footer names the key `tokencast.dataset`.
fn parquet_is_ours(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut tail = [0u8; 8];
    if f.seek(SeekFrom::End(-8)).is_err()
        || f.read_exact(&mut tail).is_err()
        || &tail[4..] != b"PAR1"
    {
        return false;
    }
    let len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if len > 64 * 1024 * 1024 || f.seek(SeekFrom::End(-8 - len as i64)).is_err() {
        return false;
    }
    let mut footer = Vec::new();
    if f.take(len).read_to_end(&mut footer).is_err() {
        return false;
    }
    memchr::memmem::find(&footer, crate::import::dataset::MARK.as_bytes()).is_some()
}

/// Where writing `path` lands: through a symbolic link to the file it names
/// (the link stays a link), else `path` itself.
fn landing(path: &Path) -> PathBuf {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return path.to_path_buf();
    };
    if !meta.file_type().is_symlink() {
        return path.to_path_buf();
    }
    match std::fs::canonicalize(path) {
        Ok(target) => target,
        // A dangling link: write the file it names, relative to the link's folder.
        Err(_) => match std::fs::read_link(path) {
            Ok(target) if target.is_relative() => path
                .parent()
                .map_or(target.clone(), |dir| dir.join(&target)),
            Ok(target) => target,
            Err(_) => path.to_path_buf(),
        },
    }
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Checks one target: not a folder or a device, no file where a folder must
/// be, and tokencast's own unless `force`.
fn check(f: &PlannedFile, target: &Path, force: bool) -> Result<(), OutputError> {
    for dir in folder_of(target).ancestors() {
        if dir.as_os_str().is_empty() {
            continue;
        }
        if let Ok(meta) = std::fs::metadata(dir) {
            if !meta.is_dir() {
                return Err(OutputError::ParentIsFile {
                    path: f.path.clone(),
                    parent: dir.to_path_buf(),
                });
            }
            break;
        }
    }
    match std::fs::metadata(target) {
        Ok(m) if m.is_dir() => Err(OutputError::IsDirectory(f.path.clone())),
        Ok(m) if !m.is_file() => Err(OutputError::NotRegular(f.path.clone())),
        Ok(_) if !force && !is_ours(target, &f.marker) => Err(OutputError::NotOurs(f.path.clone())),
        _ => Ok(()),
    }
}

/// Temporary files of tokencast's own older than this are left over from
/// an interrupted run, and the next run in that folder removes them.
pub const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes `.tokencast-*.tmp` files older than [`STALE_TEMP_AGE`] from `dir`;
/// returns how many.
pub fn remove_stale_temps(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(".tokencast-")
                && name.ends_with(".tmp")
                && e.metadata().is_ok_and(|m| {
                    m.is_file()
                        && m.modified().is_ok_and(|t| {
                            now.duration_since(t).is_ok_and(|age| age >= STALE_TEMP_AGE)
                        })
                })
        })
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// What [`write_all`] did besides writing.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Written {
    /// Stale temporary files of an earlier, interrupted run that were removed.
    pub stale_removed: usize,
    /// Files of tokencast's own the set removed ([`Staging::remove_on_commit`]).
    pub removed: usize,
}

/// Checks every target, writes every file to a temporary file beside its
/// target, and only then renames them all into place: the set is written
/// whole or not at all. If a rename fails, the files already replaced are
/// put back. A target that is a symbolic link is written through (the link
/// stays a link).
pub fn write_all(files: &[PlannedFile], force: bool) -> Result<Written, OutputError> {
    let targets: Vec<PathBuf> = files.iter().map(|f| landing(&f.path)).collect();
    for (f, target) in files.iter().zip(&targets) {
        check(f, target, force)?;
    }
    let mut staging = Staging::new(force);
    for f in files {
        staging.stage(f)?;
    }
    staging.commit()
}

/// A set of files written as [`write_all`] writes them, one at a time: each
/// is checked and written to a temporary file beside its target when it is
/// staged (so its bytes need not stay in memory), and [`Staging::commit`]
/// renames them all into place. Dropping a staging without committing
/// removes every temporary file: nothing is left behind.
pub struct Staging {
    force: bool,
    folders: std::collections::HashSet<PathBuf>,
    /// Folders this staging created, parents first (removed if it is dropped).
    created: Vec<PathBuf>,
    staged: Vec<(tempfile::TempPath, PathBuf)>,
    /// The folder whose part of the set is journaled ([`Staging::journal_in`]).
    root: Option<PathBuf>,
    /// Files under `root` the set removes, relative to it.
    removals: Vec<String>,
    written: Written,
    /// Dropped last: Ctrl-C waits until the temporary files are gone.
    _writing: interrupt::Writing,
}

impl Drop for Staging {
    /// Without a commit: every temporary file goes, then the folders
    /// created for them (when empty), so nothing is left behind.
    fn drop(&mut self) {
        self.staged.clear();
        for dir in self.created.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

impl Staging {
    /// An empty set; `force` replaces files tokencast did not write.
    pub fn new(force: bool) -> Staging {
        Staging {
            force,
            folders: std::collections::HashSet::new(),
            created: Vec::new(),
            staged: Vec::new(),
            root: None,
            removals: Vec::new(),
            written: Written::default(),
            _writing: interrupt::Writing::begin(),
        }
    }

    /// Checks `f`'s target and writes its bytes to a temporary file beside it.
    pub fn stage(&mut self, f: &PlannedFile) -> Result<(), OutputError> {
        let target = self.prepare(f)?;
        let tmp = stage(&target, &f.bytes)?;
        self.staged.push((tmp.into_temp_path(), target));
        Ok(())
    }

    /// Checks `f` and makes its folder: where it lands.
    fn prepare(&mut self, f: &PlannedFile) -> Result<PathBuf, OutputError> {
        if interrupt::interrupted() {
            return Err(OutputError::Interrupted);
        }
        let target = landing(&f.path);
        check(f, &target, self.force)?;
        let dir = folder_of(&target);
        if self.folders.insert(dir.clone()) {
            let missing: Vec<PathBuf> = dir
                .ancestors()
                .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
                .map(Path::to_path_buf)
                .collect();
            // A folder made now holds no stale temporary file.
            let existed = missing.is_empty();
            self.created.extend(missing.into_iter().rev());
            std::fs::create_dir_all(&dir).map_err(|source| OutputError::Io {
                path: dir.clone(),
                source,
            })?;
            if existed {
                self.written.stale_removed += remove_stale_temps(&dir);
            }
        }
        Ok(target)
    }

    /// Files staged so far.
    pub fn len(&self) -> usize {
        self.staged.len()
    }

    /// True when nothing is staged.
    pub fn is_empty(&self) -> bool {
        self.staged.is_empty()
    }

    /// Makes the part of the set under `root` (the folder this run holds)
    /// whole across a kill: it is committed through a journal (see
    /// [`journal`]); files outside `root` are each replaced whole after it.
    pub fn journal_in(&mut self, root: PathBuf) {
        self.root = Some(root);
    }

    /// Removes `rel`, a file of tokencast's own under the journaled folder,
    /// in the same commit (a file without tokencast's marker is kept).
    pub fn remove_on_commit(&mut self, rel: String) {
        self.removals.push(rel);
    }

    /// Renames every staged file into place, keeping each old file aside
    /// until all are in; on a failure the files already replaced are put back.
    pub fn commit(self) -> Result<Written, OutputError> {
        self.commit_until(usize::MAX)
    }

    /// [`Staging::commit`], stopping dead after `stop` renames of the
    /// journaled part as a kill would (every file left where it is).
    fn commit_until(mut self, stop: usize) -> Result<Written, OutputError> {
        if interrupt::interrupted() {
            return Err(OutputError::Interrupted);
        }
        let staged = std::mem::take(&mut self.staged);
        let io = |(path, source): (PathBuf, std::io::Error)| OutputError::Io { path, source };
        // The temporary files lie beside their targets: their folders name
        // every file system the set is on.
        let mut folders: std::collections::BTreeSet<PathBuf> = staged
            .iter()
            .map(|(_, target)| folder_of(target).to_path_buf())
            .collect();
        folders.extend(self.root.clone());
        let dirs: Vec<&Path> = folders.iter().map(PathBuf::as_path).collect();
        // Temporary files are named by absolute paths: so is everything
        // compared with the journaled folder.
        let root = match &self.root {
            Some(r) => Some(std::path::absolute(r).map_err(|e| io((r.clone(), e)))?),
            None => None,
        };
        let below =
            |root: &Path, p: &Path| std::path::absolute(p).ok().and_then(|p| relative(root, &p));
        let (inside, outside): (Vec<_>, Vec<_>) = staged.into_iter().partition(|(t, target)| {
            root.as_ref()
                .is_some_and(|r| below(r, target).is_some() && below(r, t).is_some())
        });
        // The new bytes reach the disk before any old file is replaced …
        #[cfg(not(target_os = "linux"))]
        let durable_set = || {
            let temps: Vec<&Path> = inside
                .iter()
                .chain(&outside)
                .map(|(t, _)| t.as_ref())
                .collect();
            durable(&temps).map_err(io)
        };
        #[cfg(target_os = "linux")]
        let durable_set = || durable(&dirs).map_err(io);
        match &root {
            Some(root) if !inside.is_empty() || !self.removals.is_empty() => {
                let plan = journal::Journal {
                    generator: "tokencast".into(),
                    files: inside
                        .iter()
                        .filter_map(|(t, target)| {
                            Some(journal::Entry {
                                temp: below(root, t)?,
                                target: below(root, target)?,
                            })
                        })
                        .collect(),
                    remove: std::mem::take(&mut self.removals),
                };
                // Once the journal is in place the set is committed.
                plan.write(root, durable_set)?;
                if !Staging::rename_all(inside, stop).inspect_err(|_| {
                    let _ = journal::finish(root);
                })? {
                    // Killed: the journal, the temporary files, the folders stay.
                    std::mem::forget(self);
                    return Ok(Written::default());
                }
                for rel in &plan.remove {
                    if let Ok(p) = name::confined(root, Path::new(rel)) {
                        let marker = journal::removal_marker(rel);
                        self.written.removed += usize::from(remove_owned(&p, &marker));
                    }
                }
                durable(&dirs).map_err(io)?;
                journal::finish(root)?;
            }
            _ => durable_set()?,
        }
        let result = Staging::rename_all(outside, usize::MAX).map(|_| ());
        // … and the renames (and any new folders) once all are in.
        if result.is_ok() {
            durable(&dirs).map_err(io)?;
        }
        if result.is_ok() {
            // Keep the folders: they now hold the files.
            self.created.clear();
        }
        result.map(|()| std::mem::take(&mut self.written))
    }

    /// Renames each file into place; true when all were, false when it
    /// stopped after `stop` of them (leaving the rest as a kill would).
    fn rename_all(
        staged: Vec<(tempfile::TempPath, PathBuf)>,
        stop: usize,
    ) -> Result<bool, OutputError> {
        let mut done: Vec<(PathBuf, Option<tempfile::TempPath>)> = Vec::new();
        let mut left = staged.into_iter();
        while let Some((tmp, target)) = left.next() {
            if done.len() == stop {
                for (old, _) in done.into_iter().filter_map(|(_, a)| a.map(|a| (a, ()))) {
                    let _ = old.keep();
                }
                let _ = tmp.keep();
                left.for_each(|(t, _)| {
                    let _ = t.keep();
                });
                return Ok(false);
            }
            let aside = match set_aside(&target, journal::aside_of(&tmp)) {
                Ok(a) => a,
                Err(e) => {
                    undo(done);
                    return Err(e);
                }
            };
            if let Err(e) = tmp.persist(&target) {
                if let Some(old) = aside {
                    let _ = std::fs::rename(&old, &target);
                    let _ = old.keep();
                }
                undo(done);
                return Err(OutputError::Io {
                    path: target.clone(),
                    source: e.error,
                });
            }
            done.push((target, aside));
        }
        if done.len() == stop {
            // Killed after the last rename, before the removals.
            done.into_iter().for_each(|(_, a)| {
                let _ = a.map(tempfile::TempPath::keep);
            });
            return Ok(false);
        }
        // The old files set aside are dropped, so deleted.
        Ok(true)
    }
}

/// `path` relative to `root` as journal text, when it lies below it.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    (!rel.as_os_str().is_empty())
        .then(|| rel.to_str().map(str::to_string))
        .flatten()
}

/// Moves an existing target aside, to `aside` (a temporary name beside
/// it: [`journal::aside_of`] its new file's, so a recovery knows it too).
fn set_aside(target: &Path, aside: PathBuf) -> Result<Option<tempfile::TempPath>, OutputError> {
    if !target.exists() {
        return Ok(None);
    }
    let io = |source| OutputError::Io {
        path: target.to_path_buf(),
        source,
    };
    std::fs::rename(target, &aside).map_err(io)?;
    Ok(Some(tempfile::TempPath::try_from_path(aside).map_err(io)?))
}

/// Puts back the files replaced so far (newest first).
fn undo(done: Vec<(PathBuf, Option<tempfile::TempPath>)>) {
    for (target, aside) in done.into_iter().rev() {
        match aside {
            Some(old) => {
                if std::fs::rename(&old, &target).is_ok() {
                    let _ = old.keep();
                }
            }
            None => {
                let _ = std::fs::remove_file(&target);
            }
        }
    }
}

/// Makes what is at `paths` (files, or folders after renames into them)
/// durable with as few syncs as the platform allows: on Linux one
/// `syncfs` per file system they lie on (a set of files is one or two
/// syncs, not one per file, which on slow disks was most of an import's
/// time); elsewhere one fsync per path.
fn durable(paths: &[&Path]) -> Result<(), (PathBuf, std::io::Error)> {
    fn at(p: &Path) -> impl FnOnce(std::io::Error) -> (PathBuf, std::io::Error) + '_ {
        move |e| (p.to_path_buf(), e)
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        let mut seen = std::collections::BTreeSet::new();
        for p in paths {
            // A stat per path; a file is opened only for a new file system.
            if seen.insert(std::fs::metadata(p).map_err(at(p))?.dev()) {
                let f = std::fs::File::open(p).map_err(at(p))?;
                rustix::fs::syncfs(&f).map_err(|e| at(p)(e.into()))?;
            }
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        for p in paths {
            // Windows cannot open a folder to sync it; its renames are
            // journaled by the file system.
            if cfg!(windows) && p.is_dir() {
                continue;
            }
            std::fs::File::open(p)
                .and_then(|f| f.sync_all())
                .map_err(at(p))?;
        }
        Ok(())
    }
}

/// Writes `bytes` to a temporary file beside `target`, with the permissions
/// of the file it will replace (or 0644); [`durable`] syncs the set.
fn stage(target: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, OutputError> {
    use std::io::Write;
    let io = |source| OutputError::Io {
        path: target.to_path_buf(),
        source,
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".tokencast-")
        .suffix(".tmp")
        .tempfile_in(folder_of(target))
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(target).map_or(0o644, |m| m.permissions().mode());
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode)).map_err(io)?;
    }

    Ok(tmp)
}

#[cfg(test)]
mod tests;
