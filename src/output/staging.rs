//! A set of files staged beside their targets, then renamed into place
//! together: what was there is set aside and put back if any rename fails, and
//! the set is made durable once.

use super::{
    check, folder_of, interrupt, journal, landing, missing_folders, name, remove_owned,
    remove_stale_temps, OutputError, PlannedFile, Written,
};
use std::path::{Path, PathBuf};

/// A set of files written as [`write_all`](super::write_all) writes them, one at a time: each
/// is checked and written to a temporary file beside its target when it is
/// staged (so its bytes need not stay in memory), and [`Staging::commit`]
/// renames them all into place. Dropping a staging without committing
/// removes every temporary file: nothing is left behind.
pub struct Staging {
    pub(super) force: bool,
    pub(super) folders: std::collections::HashSet<PathBuf>,
    /// Folders this set created (a target in one is new).
    pub(super) fresh: std::collections::HashSet<PathBuf>,
    /// Folders this staging created, parents first (removed if it is dropped).
    pub(super) created: Vec<PathBuf>,
    pub(super) staged: Vec<(tempfile::TempPath, PathBuf)>,
    /// The folder whose part of the set is journaled ([`Staging::journal_in`]).
    pub(super) root: Option<PathBuf>,
    /// Files under `root` the set removes, relative to it.
    pub(super) removals: Vec<String>,
    pub(super) written: Written,
    /// The working folder when the set began, which relative targets'
    /// temporary files are named from (none: it could not be read).
    pub(super) cwd: Option<PathBuf>,
    /// Dropped last: Ctrl-C waits until the temporary files are gone.
    pub(super) _writing: interrupt::Writing,
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
            fresh: std::collections::HashSet::new(),
            created: Vec::new(),
            staged: Vec::new(),
            root: None,
            removals: Vec::new(),
            written: Written::default(),
            cwd: std::env::current_dir().ok(),
            _writing: interrupt::Writing::begin(),
        }
    }

    /// Checks `f`'s target and writes its bytes to a temporary file beside it.
    /// A target that already holds exactly these bytes (a re-import of
    /// sessions that did not change) is left in place: it is already what
    /// the set says, and rewriting it would cost a file, two renames and a
    /// deletion for nothing.
    pub fn stage(&mut self, f: &PlannedFile) -> Result<(), OutputError> {
        let (target, fresh) = self.prepare(f)?;
        if !fresh && holds(&target, &f.bytes) {
            return Ok(());
        }
        let mode = if fresh { Some(NEW_FILE_MODE) } else { None };
        let folder = folder_of(&target);
        let folder = match &self.cwd {
            Some(cwd) if folder.is_relative() => cwd.join(folder),
            _ => folder,
        };
        let tmp = stage_in(&folder, &target, &f.bytes, mode)?;
        self.staged.push((tmp.into_temp_path(), target));
        Ok(())
    }

    /// Checks `f` and makes its folder: where it lands, and whether that
    /// folder is one this set created (its first file checked it empty:
    /// an import's thousands of session folders are not looked through
    /// again for each file, which took most of their staging's calls).
    pub(super) fn prepare(&mut self, f: &PlannedFile) -> Result<(PathBuf, bool), OutputError> {
        if interrupt::interrupted() {
            return Err(OutputError::Interrupted);
        }
        if f.path.parent().is_some_and(|d| self.fresh.contains(d)) {
            // A folder made by this set holds only the files it staged,
            // under temporary names until the commit: a target there is
            // new (named twice, the later file replaces the earlier at the
            // commit, as anywhere).
            return Ok((f.path.clone(), true));
        }
        let dir = folder_of(&f.path);
        if !self.folders.contains(&dir) {
            // A folder not there yet holds no file to check or to set
            // aside: it is made now, its files new (an import's thousands
            // of session folders were each looked for three times, and
            // their first files twice more).
            let missing = missing_folders(&dir).map_err(|parent| OutputError::ParentIsFile {
                path: f.path.clone(),
                parent,
            })?;
            if !missing.is_empty() {
                self.folders.insert(dir.clone());
                self.created.extend(missing.into_iter().rev());
                std::fs::create_dir_all(&dir).map_err(|source| OutputError::Io {
                    path: dir.clone(),
                    source,
                })?;
                self.fresh.insert(dir);
                return Ok((f.path.clone(), true));
            }
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
            } else {
                self.fresh.insert(dir.clone());
            }
        }
        Ok((target, false))
    }

    /// Starts writing the files staged so far to the disk, on a thread
    /// of its own, not waited for: while the rest of the set is made, the
    /// disk writes what [`Staging::commit`] would otherwise wait for (on
    /// Linux one `syncfs` of the file system of the first staged file; an
    /// import's sessions are most of its bytes). The commit still makes the
    /// whole set durable itself; an error here is the commit's to find.
    pub fn start_writing_back(&self) {
        #[cfg(target_os = "linux")]
        if let Some((tmp, _)) = self.staged.first() {
            if let Ok(f) = std::fs::File::open(folder_of(tmp)) {
                // (A thread that cannot be made leaves it all to the commit.)
                let _ = std::thread::Builder::new().spawn(move || rustix::fs::syncfs(&f));
            }
        }
    }

    /// Takes in the files `other` staged into other folders (on another
    /// thread): one set, committed together, `other`'s after this one's.
    /// A folder both made (a parent of theirs, made at once by each) is
    /// made once, and the folders stay ordered parents first.
    pub fn merge(&mut self, mut other: Staging) {
        self.folders.extend(std::mem::take(&mut other.folders));
        self.fresh.extend(std::mem::take(&mut other.fresh));
        let mine: std::collections::HashSet<PathBuf> = self.created.iter().cloned().collect();
        let theirs = std::mem::take(&mut other.created);
        self.created
            .extend(theirs.into_iter().filter(|d| !mine.contains(d)));
        // A stable sort: each staging's own folders keep their order.
        self.created.sort_by_key(|d| d.components().count());
        self.staged.append(&mut other.staged);
        self.removals.append(&mut other.removals);
        self.root = self.root.take().or(other.root.take());
        self.written.stale_removed += other.written.stale_removed;
        self.written.removed += other.written.removed;
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
    pub(super) fn commit_until(mut self, stop: usize) -> Result<Written, OutputError> {
        if interrupt::interrupted() {
            return Err(OutputError::Interrupted);
        }
        let staged = std::mem::take(&mut self.staged);
        let io = |(path, source): (PathBuf, std::io::Error)| OutputError::Io { path, source };
        // The temporary files lie beside their targets: their folders name
        // every file system the set is on. A folder this set made is on its
        // parent's, so the first folder up that it did not make stands for
        // it (an import's thousands of session folders are not each looked
        // at again to be synced).
        let made: std::collections::HashSet<&Path> =
            self.created.iter().map(PathBuf::as_path).collect();
        let mut folders: std::collections::BTreeSet<PathBuf> = staged
            .iter()
            .map(|(_, target)| {
                let mut dir = folder_of(target);
                while made.contains(dir.as_path()) {
                    match dir.parent() {
                        Some(up) if !up.as_os_str().is_empty() => dir = up.to_path_buf(),
                        _ => break,
                    }
                }
                dir
            })
            .collect();
        drop(made);
        folders.extend(self.root.clone());
        let dirs: Vec<&Path> = folders.iter().map(PathBuf::as_path).collect();
        // Temporary files are named by absolute paths: so is everything
        // compared with the journaled folder.
        let root = match &self.root {
            Some(r) => Some(std::path::absolute(r).map_err(|e| io((r.clone(), e)))?),
            None => None,
        };
        // The working folder the temporary files were named from, not
        // asked for again per file (each relative path's `absolute` would).
        let cwd = self.cwd.clone();
        let below = |root: &Path, p: &Path| {
            match &cwd {
                Some(cwd) if p.is_relative() => std::path::absolute(cwd.join(p)),
                _ => std::path::absolute(p),
            }
            .ok()
            .and_then(|p| relative(root, &p))
        };
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
                if !Staging::rename_all(inside, stop, &self.fresh).inspect_err(|_| {
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
        let result = Staging::rename_all(outside, usize::MAX, &self.fresh).map(|_| ());
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
    /// stopped after `stop` of them (leaving the rest as a kill would). A
    /// target in a folder of `fresh` (made by this set, holding only its
    /// files) has nothing to set aside: it is not looked for.
    ///
    /// A set of many files is renamed a folder at a time, the folders side
    /// by side (each folder's files in their order, so that a target named
    /// twice ends up with the later file): an import's thousands of renames
    /// were half its commit, on one core. A failed rename puts back every
    /// folder's renames.
    pub(super) fn rename_all(
        staged: Vec<(tempfile::TempPath, PathBuf)>,
        stop: usize,
        fresh: &std::collections::HashSet<PathBuf>,
    ) -> Result<bool, OutputError> {
        use rayon::prelude::*;
        if stop != usize::MAX || staged.len() < RENAMES_SIDE_BY_SIDE_FROM {
            let (done, renamed) = rename_in_order(staged, stop, fresh);
            return match renamed {
                Renamed::All => Ok(true),
                Renamed::Stopped => Ok(false),
                Renamed::Failed(e) => {
                    undo(done);
                    Err(e)
                }
            };
        }
        let mut folder_at: std::collections::HashMap<PathBuf, usize> = Default::default();
        let mut folders: Vec<Vec<(tempfile::TempPath, PathBuf)>> = Vec::new();
        for (tmp, target) in staged {
            let i = *folder_at.entry(folder_of(&target)).or_insert_with(|| {
                folders.push(Vec::new());
                folders.len() - 1
            });
            folders[i].push((tmp, target));
        }
        let renamed: Vec<(Vec<Done>, Renamed)> = folders
            .into_par_iter()
            .map(|files| rename_in_order(files, usize::MAX, fresh))
            .collect();
        let mut failed = None;
        let mut done = Vec::with_capacity(renamed.len());
        for (d, r) in renamed {
            done.push(d);
            if let Renamed::Failed(e) = r {
                failed.get_or_insert(e);
            }
        }
        match failed {
            // The old files set aside are dropped, so deleted.
            None => Ok(true),
            Some(e) => {
                done.into_iter().rev().for_each(undo);
                Err(e)
            }
        }
    }
}

/// Files in a set from which [`Staging::rename_all`] renames a folder at a
/// time, the folders side by side.
pub(super) const RENAMES_SIDE_BY_SIDE_FROM: usize = 64;

/// A file renamed into place, with the old file set aside (none where the
/// target was new).
type Done = (PathBuf, Option<tempfile::TempPath>);

/// How [`rename_in_order`] ended.
enum Renamed {
    All,
    /// Stopped dead, as a kill would stop it.
    Stopped,
    /// A rename failed (the old file of its target put back).
    Failed(OutputError),
}

/// Renames `staged` into place in order, stopping dead after `stop` of
/// them; what was renamed is returned for [`undo`] (nothing when stopped:
/// everything is left where it is).
fn rename_in_order(
    staged: Vec<(tempfile::TempPath, PathBuf)>,
    stop: usize,
    fresh: &std::collections::HashSet<PathBuf>,
) -> (Vec<Done>, Renamed) {
    let mut done: Vec<Done> = Vec::new();
    let mut left = staged.into_iter();
    while let Some((tmp, target)) = left.next() {
        if done.len() == stop {
            for (_, aside) in done {
                let _ = aside.map(tempfile::TempPath::keep);
            }
            let _ = tmp.keep();
            left.for_each(|(t, _)| {
                let _ = t.keep();
            });
            return (Vec::new(), Renamed::Stopped);
        }
        let made_here = target.parent().is_some_and(|d| fresh.contains(d));
        let set = if made_here {
            Ok(None)
        } else {
            set_aside(&target, journal::aside_of(&tmp))
        };
        let aside = match set {
            Ok(a) => a,
            Err(e) => return (done, Renamed::Failed(e)),
        };
        if let Err(e) = tmp.persist(&target) {
            if let Some(old) = aside {
                let _ = std::fs::rename(&old, &target);
                let _ = old.keep();
            }
            let e = OutputError::Io {
                path: target,
                source: e.error,
            };
            return (done, Renamed::Failed(e));
        }
        done.push((target, aside));
    }
    if done.len() == stop {
        // Killed after the last rename, before the removals.
        for (_, aside) in done {
            let _ = aside.map(tempfile::TempPath::keep);
        }
        return (Vec::new(), Renamed::Stopped);
    }
    (done, Renamed::All)
}

/// Whether the regular file at `path` holds exactly `bytes` (read only
/// when its length matches).
fn holds(path: &Path, bytes: &[u8]) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() && m.len() == bytes.len() as u64 => {
            std::fs::read(path).is_ok_and(|held| held == bytes)
        }
        _ => false,
    }
}

/// `path` relative to `root` as journal text, when it lies below it.
pub(super) fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    (!rel.as_os_str().is_empty())
        .then(|| rel.to_str().map(str::to_string))
        .flatten()
}

/// Moves an existing target aside, to `aside` (a temporary name beside
/// it: [`journal::aside_of`] its new file's, so a recovery knows it too).
pub(super) fn set_aside(
    target: &Path,
    aside: PathBuf,
) -> Result<Option<tempfile::TempPath>, OutputError> {
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
pub(super) fn undo(done: Vec<(PathBuf, Option<tempfile::TempPath>)>) {
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
pub(super) fn durable(paths: &[&Path]) -> Result<(), (PathBuf, std::io::Error)> {
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

/// The permissions of a file that replaces none (Unix).
const NEW_FILE_MODE: u32 = 0o644;

/// Writes `bytes` to a temporary file beside `target`, with the permissions
/// `mode`, else those of the file it will replace (or 0644); [`durable`]
/// syncs the set.
#[cfg(test)]
pub(super) fn stage(
    target: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<tempfile::NamedTempFile, OutputError> {
    stage_in(&folder_of(target), target, bytes, mode)
}

/// [`stage`] into `folder`, the target's folder (named from the root:
/// otherwise each temporary file asks the system for the working folder).
fn stage_in(
    folder: &Path,
    target: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<tempfile::NamedTempFile, OutputError> {
    use std::io::Write;
    let io = |source| OutputError::Io {
        path: target.to_path_buf(),
        source,
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".tokencast-")
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = mode.unwrap_or_else(|| {
            std::fs::metadata(target).map_or(NEW_FILE_MODE, |m| m.permissions().mode())
        });
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io)?;
    }
    #[cfg(not(unix))]
    let _ = mode;

    Ok(tmp)
}
