//! A set of files under one folder made whole across a kill.
//!
//! Renaming many files cannot be one atomic step, so a set that must be
//! whole (an import's scenarios, traces, price book and manifest under
//! `--out`) is committed as databases commit a transaction, with a
//! roll-forward journal:
//!
//! 1. every new file is written to a temporary file beside its target
//!    ([`super::Staging`]);
//! 2. the journal, naming each temporary file, its target and the files
//!    the set removes, is written beside them and renamed into place as
//!    `ROOT/.tokencast-journal.json` once the temporary files are durable:
//!    from that moment the new set exists on disk;
//! 3. the temporary files are renamed over their targets and the removed
//!    files are removed;
//! 4. once that is durable, the journal is removed.
//!
//! A kill before step 2 leaves every old file as it was (the temporary
//! files are removed by the next run). A kill after it leaves the journal,
//! and the next tokencast that takes the folder ([`super::FolderLock`], as
//! every import does) or reads from it ([`settle`], as `simulate` and
//! `forecast` do) first finishes steps 3 and 4: every file is then the new
//! one. No reader of tokencast's ever sees half of a set.
//!
//! The journal is input like any other file in the folder: an entry is
//! followed only when each of its paths is a plain relative path inside the
//! folder (no `..`, no absolute path, no symbolic link on the way), the
//! temporary file is one of tokencast's (`.tokencast-*.tmp`) beside its
//! target, and a removed file carries tokencast's marker. Anything else is
//! a located error and nothing is changed.

use super::{name::confined, Marker, OutputError};
use crate::limits::MAX_JOURNAL_BYTES;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The journal's file name in the folder it makes whole.
pub const JOURNAL_FILE: &str = ".tokencast-journal.json";

/// What a commit will do, paths relative to the folder.
#[derive(Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Journal {
    /// Always `"tokencast"`: whose journal this is.
    pub generator: String,
    /// Each new file: the temporary file renamed over its target.
    pub files: Vec<Entry>,
    /// Files of tokencast's own that the set no longer holds (a trace by
    /// its `.csv` extension, any other by the TOML marker).
    pub remove: Vec<String>,
}

/// One new file of the set.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The temporary file holding the new bytes.
    pub temp: String,
    /// Where it goes.
    pub target: String,
}

/// The marker a removed file must carry, from its name.
pub fn removal_marker(rel: &str) -> Marker {
    if rel.ends_with(".csv") {
        Marker::Trace
    } else if rel.ends_with(".parquet") {
        Marker::Parquet
    } else {
        Marker::Toml
    }
}

impl Journal {
    /// Writes the journal into `root`: to a temporary file, made durable
    /// with the set's temporary files by `durable`, then renamed into
    /// place and the folder synced. From then on the set is committed.
    pub fn write(
        &self,
        root: &Path,
        durable: impl FnOnce() -> Result<(), OutputError>,
    ) -> Result<(), OutputError> {
        use std::io::Write;
        let path = root.join(JOURNAL_FILE);
        let io = |source| OutputError::Io {
            path: path.clone(),
            source,
        };
        let bytes = serde_json::to_vec(self).map_err(|e| io(std::io::Error::other(e)))?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".tokencast-")
            .suffix(".tmp")
            .tempfile_in(root)
            .map_err(io)?;
        tmp.write_all(&bytes).map_err(io)?;
        durable()?;
        tmp.persist(&path).map_err(|e| io(e.error))?;
        sync_folder(root).map_err(io)
    }
}

/// Syncs a folder, so that renames into it are durable.
fn sync_folder(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Removes the journal of a set that is now whole on disk.
pub fn finish(root: &Path) -> Result<(), OutputError> {
    let path = root.join(JOURNAL_FILE);
    std::fs::remove_file(&path).map_err(|source| OutputError::Io { path, source })
}

/// Why a journal was not followed.
fn not_ours(root: &Path, why: impl std::fmt::Display) -> OutputError {
    OutputError::BadJournal {
        path: root.join(JOURNAL_FILE),
        why: why.to_string(),
    }
}

/// A temporary file's name as tokencast makes them.
fn is_temp_name(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(".tokencast-") && n.ends_with(".tmp"))
}

/// Where the file a new one replaces waits until the set is in:
/// `.tokencast-X.tmp` becomes `.tokencast-X.old.tmp`.
pub fn aside_of(temp: &Path) -> PathBuf {
    let name = temp.file_name().map_or_else(Default::default, |n| {
        let n = n.to_string_lossy();
        format!("{}.old.tmp", n.strip_suffix(".tmp").unwrap_or(&n))
    });
    temp.with_file_name(name)
}

/// Finishes the set a killed run left committed in `root`, if any; returns
/// how many files it put in place or removed. The caller holds the folder
/// (no other tokencast is writing it).
pub fn recover(root: &Path) -> Result<usize, OutputError> {
    use std::io::Read;
    let path = root.join(JOURNAL_FILE);
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return Ok(0);
    };
    if !meta.file_type().is_file() {
        return Err(not_ours(root, "it is not a regular file"));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| {
            f.take(crate::limits::MAX_JOURNAL_BYTES + 1)
                .read_to_end(&mut bytes)
        })
        .map_err(|source| OutputError::Io {
            path: path.clone(),
            source,
        })?;
    if bytes.len() as u64 > crate::limits::MAX_JOURNAL_BYTES {
        return Err(not_ours(
            root,
            format!("it is larger than {MAX_JOURNAL_BYTES} bytes"),
        ));
    }
    let journal: Journal = serde_json::from_slice(&bytes).map_err(|e| {
        not_ours(
            root,
            format!("line {}, column {}: {e}", e.line(), e.column()),
        )
    })?;
    if journal.generator != "tokencast" {
        return Err(not_ours(root, "its generator is not tokencast"));
    }
    // Every path is checked before anything is changed.
    let inside = |rel: &str| {
        confined(root, Path::new(rel)).map_err(|e| not_ours(root, format!("`{rel}`: {}", e.why)))
    };
    let mut moves: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(journal.files.len());
    for e in &journal.files {
        let (temp, target) = (inside(&e.temp)?, inside(&e.target)?);
        if !is_temp_name(&temp) || temp.parent() != target.parent() || is_temp_name(&target) {
            return Err(not_ours(
                root,
                format!(
                    "`{}` is not a temporary file of tokencast's beside `{}`",
                    e.temp, e.target
                ),
            ));
        }
        moves.push((temp, target));
    }
    let removals = journal
        .remove
        .iter()
        .map(|rel| Ok((inside(rel)?, removal_marker(rel))))
        .collect::<Result<Vec<_>, OutputError>>()?;
    let mut done = 0;
    for (temp, target) in moves {
        let aside = aside_of(&temp);
        // A temporary file that is gone was renamed before the kill.
        if std::fs::symlink_metadata(&temp).is_ok_and(|m| m.file_type().is_file()) {
            std::fs::rename(&temp, &target).map_err(|source| OutputError::Io {
                path: target.clone(),
                source,
            })?;
            done += 1;
        }
        if std::fs::symlink_metadata(&aside).is_ok_and(|m| m.file_type().is_file()) {
            let _ = std::fs::remove_file(&aside);
        }
    }
    for (p, marker) in removals {
        done += usize::from(super::remove_owned(&p, &marker));
    }
    super::durable(&[root]).map_err(|(path, source)| OutputError::Io { path, source })?;
    finish(root)?;
    Ok(done)
}

/// Before reading from `dir`, finishes a set a killed import left there
/// (taking the folder for the moment it needs). A folder another tokencast
/// is writing is left to it.
pub fn settle(dir: &Path) -> Result<usize, OutputError> {
    if std::fs::symlink_metadata(dir.join(JOURNAL_FILE)).is_err() {
        return Ok(0);
    }
    match super::FolderLock::take(dir) {
        Ok(lock) => Ok(lock.finished()),
        Err(OutputError::Busy(_)) => Ok(0),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal(files: &[(&str, &str)], remove: &[&str]) -> Journal {
        Journal {
            generator: "tokencast".into(),
            files: files
                .iter()
                .map(|(t, g)| Entry {
                    temp: (*t).into(),
                    target: (*g).into(),
                })
                .collect(),
            remove: remove.iter().map(|r| (*r).to_string()).collect(),
        }
    }

    #[test]
    fn a_journal_that_leaves_the_folder_is_refused_and_nothing_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        std::fs::create_dir_all(&root).unwrap();
        let outside = dir.path().join("victim.txt");
        std::fs::write(&outside, "mine").unwrap();
        std::fs::write(root.join(".tokencast-a.tmp"), "evil").unwrap();
        for bad in [
            journal(&[(".tokencast-a.tmp", "../victim.txt")], &[]),
            journal(&[(".tokencast-a.tmp", "/tmp/victim.txt")], &[]),
            journal(&[("notes.txt", "main.toml")], &[]),
            journal(&[], &["../victim.txt"]),
        ] {
            std::fs::write(root.join(JOURNAL_FILE), serde_json::to_vec(&bad).unwrap()).unwrap();
            assert!(matches!(
                recover(&root),
                Err(OutputError::BadJournal { .. })
            ));
            assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine");
            assert!(root.join(".tokencast-a.tmp").exists());
        }
        std::fs::write(root.join(JOURNAL_FILE), "{not json").unwrap();
        let e = recover(&root).unwrap_err().to_string();
        assert!(e.contains("line 1, column 2"), "{e}");
    }

    /// The folder an earlier import wrote: two files it replaces and one
    /// it no longer writes.
    fn old_set(root: &Path) {
        std::fs::create_dir_all(root.join("s1")).unwrap();
        std::fs::write(root.join("prices.toml"), "# tokencast old book\n").unwrap();
        std::fs::write(root.join("s1/main.toml"), "# tokencast old s1\n").unwrap();
        std::fs::write(root.join("gone.toml"), "# tokencast old gone\n").unwrap();
        std::fs::write(root.join("mine.txt"), "the user's").unwrap();
    }

    /// The new set staged, journaled in `root`, removing `gone.toml`.
    fn new_set(root: &Path) -> super::super::Staging {
        let mut st = super::super::Staging::new(false);
        for (rel, text) in [
            ("prices.toml", "# tokencast new book\n"),
            ("s1/main.toml", "# tokencast new s1\n"),
            ("s2/main.toml", "# tokencast new s2\n"),
        ] {
            st.stage(&super::super::PlannedFile {
                path: root.join(rel),
                bytes: text.as_bytes().to_vec(),
                marker: Marker::Toml,
            })
            .unwrap();
        }
        st.journal_in(root.to_path_buf());
        st.remove_on_commit("gone.toml".into());
        st
    }

    /// Every file under `root` but the user's, by relative path.
    fn state(root: &Path) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for dir in [root.to_path_buf(), root.join("s1"), root.join("s2")] {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if e.path().is_file() && e.file_name() != "mine.txt" {
                    let rel = e.path().strip_prefix(root).unwrap().display().to_string();
                    v.push((rel, std::fs::read_to_string(e.path()).unwrap()));
                }
            }
        }
        v.sort();
        v
    }

    fn all_new() -> Vec<(String, String)> {
        [
            ("prices.toml", "# tokencast new book\n"),
            ("s1/main.toml", "# tokencast new s1\n"),
            ("s2/main.toml", "# tokencast new s2\n"),
        ]
        .iter()
        .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
        .collect()
    }

    #[test]
    fn a_kill_at_any_rename_leaves_a_set_the_next_run_finishes_whole() {
        for stop in 0..=3 {
            // `--out` as users give it: relative to the working folder
            // (temporary files have absolute names all the same).
            let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
            std::fs::create_dir_all(&target).unwrap();
            let dir = tempfile::tempdir_in(&target).unwrap();
            let cwd = std::env::current_dir().unwrap();
            let root = dir
                .path()
                .strip_prefix(&cwd)
                .unwrap_or(dir.path())
                .join("out");
            old_set(&root);
            new_set(&root).commit_until(stop).unwrap();
            assert!(root.join(JOURNAL_FILE).exists(), "killed after {stop}");
            // The next tokencast to take the folder finishes the set first.
            let lock = super::super::FolderLock::take(&root).unwrap();
            assert!(lock.finished() >= 1, "killed after {stop}");
            drop(lock);
            assert_eq!(state(&root), all_new(), "killed after {stop}");
            assert_eq!(
                std::fs::read_to_string(root.join("mine.txt")).unwrap(),
                "the user's"
            );
        }
    }

    #[test]
    fn a_kill_before_the_journal_leaves_every_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        old_set(&root);
        let before = state(&root);
        // Killed while staging: the temporary files stay, nothing else moved.
        std::mem::forget(new_set(&root));
        let lock = super::super::FolderLock::take(&root).unwrap();
        assert_eq!(lock.finished(), 0);
        drop(lock);
        let now: Vec<_> = state(&root)
            .into_iter()
            .filter(|(rel, _)| !rel.contains(".tokencast-"))
            .collect();
        assert_eq!(now, before);
    }

    #[test]
    fn a_whole_commit_leaves_no_journal() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        old_set(&root);
        let w = new_set(&root).commit().unwrap();
        assert_eq!(w.removed, 1);
        assert_eq!(state(&root), all_new());
        // A reader finds nothing to finish.
        assert_eq!(settle(&root).unwrap(), 0);
    }

    #[test]
    fn a_foreign_file_named_for_removal_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("notes.toml"), "my notes").unwrap();
        std::fs::write(root.join("old.toml"), "# tokencast scenario\n").unwrap();
        let j = journal(&[], &["notes.toml", "old.toml"]);
        std::fs::write(root.join(JOURNAL_FILE), serde_json::to_vec(&j).unwrap()).unwrap();
        assert_eq!(recover(root).unwrap(), 1);
        assert!(root.join("notes.toml").exists() && !root.join("old.toml").exists());
        assert!(!root.join(JOURNAL_FILE).exists());
    }
}
