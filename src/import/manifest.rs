//! What an import wrote into its output folder, so that the next import
//! into the same folder replaces that set: files it wrote before and does
//! not write again are removed (a second import with `--since` leaves no
//! session of the first behind for `forecast` to count). Files it did not
//! write, and files whose marker is not tokencast's, are never touched.

use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};

/// The manifest's name inside the output folder (a name no session can take:
/// see [`crate::output::name`]).
pub const MANIFEST_FILE: &str = "imported.toml";

/// Its first line (its marker).
pub const MANIFEST_HEADER: &str = "# tokencast import manifest";

/// The files an import wrote, relative to the output folder.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Relative paths, sorted.
    pub files: Vec<String>,
}

impl Manifest {
    /// The manifest of `files` (relative paths).
    pub fn of(files: impl IntoIterator<Item = PathBuf>) -> Manifest {
        let mut files: Vec<String> = files
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        files.sort();
        files.dedup();
        Manifest { files }
    }

    /// The file's text: marker, then TOML.
    pub fn to_toml(&self) -> String {
        format!(
            "{MANIFEST_HEADER}: the files the last `tokencast import` wrote here; the next import\n# into this folder removes those it does not write again.\n{}",
            toml::to_string(self).expect("a manifest always serializes")
        )
    }

    /// The manifest in `text`, when it is tokencast's; paths that are not
    /// plain relative names are dropped (a manifest is input too).
    pub fn parse(text: &str) -> Option<Manifest> {
        if !text.starts_with(MANIFEST_HEADER) {
            return None;
        }
        let m: Manifest = toml::from_str(text).ok()?;
        Some(Manifest {
            files: m
                .files
                .into_iter()
                .filter(|f| {
                    let p = Path::new(f);
                    !f.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)))
                })
                .collect(),
        })
    }

    /// The files of `self` that `next` does not hold.
    pub fn left_behind(&self, next: &Manifest) -> Vec<String> {
        self.files
            .iter()
            .filter(|f| next.files.binary_search(f).is_err())
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_import_leaves_behind_only_what_it_no_longer_writes() {
        let old = Manifest::of(
            ["a/main.csv", "a/main.toml", "b/main.csv", "prices.toml"].map(PathBuf::from),
        );
        let new = Manifest::of(["b/main.csv", "prices.toml"].map(PathBuf::from));
        assert_eq!(old.left_behind(&new), vec!["a/main.csv", "a/main.toml"]);
        assert_eq!(Manifest::parse(&old.to_toml()), Some(old));
    }

    #[test]
    fn a_hostile_manifest_cannot_name_a_file_outside() {
        let text =
            format!("{MANIFEST_HEADER}\nfiles = [\"../x\", \"/etc/passwd\", \"ok/a.csv\", \"\"]\n");
        assert_eq!(Manifest::parse(&text).unwrap().files, vec!["ok/a.csv"]);
        assert_eq!(Manifest::parse("files = []"), None, "not tokencast's");
    }
}
