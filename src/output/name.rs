//! Names read from input that become part of a path, made safe in one place.
//!
//! A session id, an agent id or a log file's stem comes from content that
//! tokencast does not control (a log received from someone else is enough).
//! [`FileName`] is the only way such a name reaches a path: it has no
//! separator, no `.`/`..`, no absolute form, no reserved device name, no
//! leading dot (tokencast's own temporary and lock files start with one), no
//! control or invisible character, and at most [`crate::limits::MAX_FILE_NAME`] bytes. A
//! name that is not already of that form is made so lossily, and keeps a
//! short digest of the original after a `~` (a character a kept name never
//! has), so two different ids never share a folder. [`confined`] then proves
//! that a relative path of such names stays inside the output folder.
//!
//! [`display`] is the one escape for free text from input written into a
//! comment or shown on a terminal: control characters, line breaks and
//! bidirectional marks are escaped, and the text is shortened with a digest.

use std::path::{Component, Path, PathBuf};
pub use tokencast_core::text::{display, escape, short_digest, terminal, MAX_DISPLAY};

/// Names tokencast writes into an output folder itself; an input name equal
/// to one of them (ignoring case) is made lossy.
const OWN_NAMES: &[&str] = &[
    "prices.toml",
    "prices",
    "tokencast.lock",
    "imported.toml",
    "imported",
];

/// Device names Windows reserves, with or without an extension.
const RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// One path component made from input: safe on every file system, never
/// `.`/`..`, never one of tokencast's own names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileName(String);

impl FileName {
    /// `name` as it is, when it is already a safe file name.
    pub fn exact(name: &str) -> Option<FileName> {
        is_safe(name).then(|| FileName(name.to_string()))
    }

    /// `name` as a safe file name: as it is when it is one, else its safe
    /// characters (at most 40) followed by `~` and 8 hex digits of the
    /// SHA-256 of the original.
    pub fn from_untrusted(name: &str) -> FileName {
        if let Some(f) = FileName::exact(name) {
            return f;
        }
        let mut kept: String = name
            .chars()
            .map(|c| if is_safe_char(c) { c } else { '_' })
            .take(40)
            .collect();
        // No leading dot, and never an empty stem.
        while kept.starts_with('.') {
            kept.replace_range(..1, "_");
        }
        if kept.is_empty() {
            kept.push('_');
        }
        FileName(format!("{kept}~{}", short_digest(name)))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// This name with `suffix` appended (an extension such as `.csv`, or
    /// `-main`): still safe, since the suffix is tokencast's own.
    pub fn with_suffix(&self, suffix: &str) -> PathBuf {
        debug_assert!(suffix.chars().all(is_safe_char));
        PathBuf::from(format!("{}{suffix}", self.0))
    }
}

impl std::fmt::Display for FileName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<Path> for FileName {
    fn as_ref(&self) -> &Path {
        Path::new(&self.0)
    }
}

fn is_safe_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '@')
}

fn is_safe(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let stem = lower.split('.').next().unwrap_or("");
    !name.is_empty()
        && name.len() <= crate::limits::MAX_FILE_NAME
        && !name.starts_with('.')
        && !name.ends_with('.')
        && name.chars().all(is_safe_char)
        && !OWN_NAMES.contains(&lower.as_str())
        && !RESERVED.contains(&stem)
}

/// Why a path cannot be written inside an output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escape {
    /// The path as given.
    pub path: PathBuf,
    /// What is wrong with it.
    pub why: &'static str,
}

/// `root` joined with `rel`, proven to lie inside `root`: `rel` is relative,
/// made only of plain names (no `..`, no root, no prefix), and no folder or
/// file it names below `root` is a symbolic link (which could lead out).
pub fn confined(root: &Path, rel: &Path) -> Result<PathBuf, Escape> {
    let escape = |why| Escape {
        path: rel.to_path_buf(),
        why,
    };
    if rel.as_os_str().is_empty() {
        return Err(escape("the path is empty"));
    }
    let mut at = root.to_path_buf();
    // Below a component that is not there, nothing is (a new session's
    // folder and files are not each looked for).
    let mut there = true;
    for c in rel.components() {
        match c {
            Component::Normal(part) => {
                at.push(part);
                if there {
                    match std::fs::symlink_metadata(&at) {
                        Ok(m) if m.file_type().is_symlink() => {
                            return Err(escape("a symbolic link below the output folder"))
                        }
                        Ok(_) => {}
                        Err(_) => there = false,
                    }
                }
            }
            Component::CurDir => return Err(escape("a `.` component")),
            Component::ParentDir => return Err(escape("a `..` component")),
            Component::RootDir | Component::Prefix(_) => return Err(escape("an absolute path")),
        }
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_plain_session_id() {
        let id = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
        assert_eq!(FileName::from_untrusted(id).as_str(), id);
        assert_eq!(
            FileName::exact("agent-a1b2").unwrap().as_str(),
            "agent-a1b2"
        );
    }

    #[test]
    fn hostile_ids_become_one_plain_component() {
        for id in [
            "",
            ".",
            "..",
            "../../etc",
            "/etc/cron.d",
            "a/b",
            "a\\b",
            "prices.toml",
            "PRICES.TOML",
            "tokencast.lock",
            "con",
            "NUL.txt",
            ".hidden",
            "x\ny",
            "nul\0byte",
            "\u{1b}[31mred",
            "rtl\u{202e}txt.exe",
            "trailing.",
            &"x".repeat(300),
            &"é".repeat(10_000),
        ] {
            let f = FileName::from_untrusted(id);
            let p = Path::new(f.as_str());
            assert_eq!(p.components().count(), 1, "{id:?} -> {f}");
            assert!(
                matches!(p.components().next(), Some(Component::Normal(_))),
                "{id:?} -> {f}"
            );
            assert!(
                f.as_str().len() <= crate::limits::MAX_FILE_NAME,
                "{id:?} -> {f}"
            );
            assert!(!f.as_str().starts_with('.'), "{id:?} -> {f}");
            assert!(f.as_str().contains('~'), "{id:?} is not kept as it is");
            assert!(f.as_str().ends_with(&short_digest(id)));
        }
    }

    #[test]
    fn lossy_names_of_different_ids_differ() {
        let a = FileName::from_untrusted("a/b");
        let b = FileName::from_untrusted("a\\b");
        assert_eq!(a.as_str().len(), b.as_str().len());
        assert_ne!(a, b);
        // A kept name never has `~`, so no lossy name equals a kept one.
        assert!(FileName::exact(a.as_str()).is_none());
    }

    #[test]
    fn display_escapes_line_breaks_controls_and_bidi_marks() {
        assert_eq!(display("a\nb"), "a\\nb");
        assert_eq!(display("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(display("\u{1b}[0m"), "\\u{1b}[0m");
        let long = display(&"a".repeat(10_000));
        assert_eq!(long.chars().count(), MAX_DISPLAY - 12 + 1 + 1 + 8);
        assert!(long.ends_with(&short_digest(&"a".repeat(10_000))));
        assert!(!display("id\n[assumptions]").contains('\n'));
        assert_eq!(display("say \"é\""), "say \"é\"");
        assert_eq!(escape("\u{200b}\u{2066}"), "\\u{200b}\\u{2066}");
        assert_eq!(terminal("a\nb\u{1b}"), "a\nb\\u{1b}");
    }

    #[test]
    fn confined_refuses_every_way_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(
            confined(root, Path::new("s/main.csv")).unwrap(),
            root.join("s/main.csv")
        );
        for bad in ["", "../x", "s/../../x", "/etc/passwd", "./x"] {
            assert!(confined(root, Path::new(bad)).is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/tmp", root.join("link")).unwrap();
            let e = confined(root, Path::new("link/x.csv")).unwrap_err();
            assert_eq!(e.why, "a symbolic link below the output folder");
            // Deeper down, below a folder that is there.
            std::fs::create_dir(root.join("real")).unwrap();
            std::os::unix::fs::symlink("/tmp", root.join("real").join("in")).unwrap();
            let e = confined(root, Path::new("real/in/x.csv")).unwrap_err();
            assert_eq!(e.why, "a symbolic link below the output folder");
            // Below a folder not there yet nothing is looked for, and a
            // `..` further down is still refused.
            assert_eq!(
                confined(root, Path::new("new/deeper/x.csv")).unwrap(),
                root.join("new/deeper/x.csv")
            );
            let e = confined(root, Path::new("new/deeper/../../../x")).unwrap_err();
            assert_eq!(e.why, "a `..` component");
        }
    }
}
