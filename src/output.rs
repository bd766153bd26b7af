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
    /// Terminal text whose first line starts with `tokencast `.
    Text,
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
            Marker::Text => text.starts_with(TEXT_GENERATOR),
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

fn is_ours(path: &Path, marker: &Marker) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(MARKER_WINDOW).read_to_end(&mut head).is_err() {
        return false;
    }
    marker.found_in(&head)
}

/// Checks every target, then writes each atomically.
pub fn write_all(files: &[PlannedFile], force: bool) -> Result<(), OutputError> {
    for f in files {
        if f.path.is_dir() {
            return Err(OutputError::IsDirectory(f.path.clone()));
        }
        if f.path.exists() && !force && !is_ours(&f.path, &f.marker) {
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
            marker: Marker::Html,
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
            marker: Marker::Csv("a,b".into()),
        }];
        write_all(&plan, false).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n3,4\n");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn json_is_ours_only_with_the_generator_key_first() {
        assert!(
            Marker::Json.found_in(b"{\n  \"generator\": \"tokencast\",\n  \"document\": \"diff\"}")
        );
        assert!(!Marker::Json.found_in(b"{\"my\": \"notes\"}"));
        assert!(!Marker::Json.found_in(b"{\n  \"notes\": \"generator: tokencast\"}"));
    }

    #[test]
    fn text_and_csv_markers() {
        assert!(
            Marker::Text.found_in(b"tokencast 0.1.0 \xc2\xb7 diff a.json \xe2\x86\x92 b.json\n")
        );
        assert!(!Marker::Text.found_in(b"my notes about tokencast\n"));
        assert!(Marker::Csv("a,b".into()).found_in(b"a,b\r\n1,2\r\n"));
        assert!(!Marker::Csv("a,b".into()).found_in(b"a,b,c\n"));
    }
}
