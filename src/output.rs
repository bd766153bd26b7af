//! The one place that writes files: atomically, and never over a file the
//! user owns without being asked.
//!
//! Every file of a run is rendered in memory first, then [`write_all`] checks
//! every target before writing any, and writes each to a temporary file in
//! the target's folder that is renamed into place. An interrupted run leaves
//! the previous file, never half of a new one.

use std::path::{Path, PathBuf};
use thiserror::Error;

/// Marker that identifies an HTML report written by tokencast.
pub const HTML_GENERATOR: &str = "<meta name=\"generator\" content=\"tokencast\">";

/// How to recognise a file tokencast wrote earlier (which it may replace).
#[derive(Debug, Clone)]
pub enum Owner {
    /// An HTML report carrying [`HTML_GENERATOR`].
    HtmlReport,
    /// A CSV file whose first line is this header.
    Csv(String),
}

/// One file to write.
#[derive(Debug, Clone)]
pub struct PlannedFile {
    /// Where.
    pub path: PathBuf,
    /// What.
    pub bytes: Vec<u8>,
    /// How to tell an earlier version of it.
    pub owner: Owner,
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
            OutputError::Io { .. } => "check that the folder exists and is writable",
        }
    }

    /// True when the user's arguments caused it (exit code 2).
    pub fn is_user_error(&self) -> bool {
        !matches!(self, OutputError::Io { .. })
    }
}

fn is_ours(path: &Path, owner: &Owner) -> bool {
    let Ok(existing) = std::fs::read(path) else {
        return false;
    };
    let text = String::from_utf8_lossy(&existing);
    match owner {
        Owner::HtmlReport => text.contains(HTML_GENERATOR),
        Owner::Csv(header) => text.lines().next() == Some(header.as_str()),
    }
}

/// Checks every target, then writes each atomically.
pub fn write_all(files: &[PlannedFile], force: bool) -> Result<(), OutputError> {
    for f in files {
        if f.path.is_dir() {
            return Err(OutputError::IsDirectory(f.path.clone()));
        }
        if f.path.exists() && !force && !is_ours(&f.path, &f.owner) {
            return Err(OutputError::NotOurs(f.path.clone()));
        }
    }
    for f in files {
        write_atomic(&f.path, &f.bytes)?;
    }
    Ok(())
}

/// Writes `bytes` to a temporary file beside `path`, then renames it into place.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    use std::io::Write;
    let io = |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tokencast-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    // A temporary file is private (0600); give the report the permissions of
    // the file it replaces, or the usual 0644 for a new one.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode());
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode)).map_err(io)?;
    }
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overwrite_a_foreign_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.html");
        std::fs::write(&path, "my notes").unwrap();
        let plan = [PlannedFile {
            path: path.clone(),
            bytes: b"new".to_vec(),
            owner: Owner::HtmlReport,
        }];
        assert!(matches!(
            write_all(&plan, false),
            Err(OutputError::NotOurs(_))
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "my notes");
        write_all(&plan, true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    }

    #[test]
    fn replaces_its_own_csv() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, "a,b\n1,2\n").unwrap();
        let plan = [PlannedFile {
            path: path.clone(),
            bytes: b"a,b\n3,4\n".to_vec(),
            owner: Owner::Csv("a,b".into()),
        }];
        write_all(&plan, false).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n3,4\n");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }
}
