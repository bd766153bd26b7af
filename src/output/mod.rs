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
mod staging;
use staging::durable;
pub use staging::Staging;

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
                "give a path with no file on the way (--csv and --out take folders), or move the file away"
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
        // `--out notes.txt/out` is the user's mistake, not the file system's.
        missing_folders(dir).map_err(|parent| OutputError::ParentIsFile {
            path: dir.to_path_buf(),
            parent,
        })?;
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

/// The folders of `dir` and of its parents that are not there, deepest
/// first, up to the first that is; that one's path when it is not a folder
/// (a file where a folder must be).
fn missing_folders(dir: &Path) -> Result<Vec<PathBuf>, PathBuf> {
    let mut missing = Vec::new();
    for a in dir.ancestors().filter(|a| !a.as_os_str().is_empty()) {
        match std::fs::metadata(a) {
            Ok(m) if m.is_dir() => break,
            Ok(_) => return Err(a.to_path_buf()),
            Err(_) => missing.push(a.to_path_buf()),
        }
    }
    Ok(missing)
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
    missing_folders(&folder_of(target)).map_err(|parent| OutputError::ParentIsFile {
        path: f.path.clone(),
        parent,
    })?;
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

#[cfg(test)]
mod tests;
