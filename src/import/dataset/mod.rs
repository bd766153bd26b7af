//! The team dataset: what an import read, as Parquet files that merge
//! across machines and that DuckDB, Spark or ClickHouse read as they are.
//!
//! ```text
//! DATASET/sessions/day=YYYY-MM-DD/host-<hash of the machine id>.parquet
//! DATASET/requests/day=…/host-….parquet
//! DATASET/tool_results/day=…/host-….parquet
//! ```
//!
//! A session's rows sit in the partition of the UTC day it started, in its
//! machine's file, so a machine only ever writes its own files: two
//! machines writing into one shared folder never touch the same file, and
//! each file is written whole and renamed into place. Importing a session
//! again replaces its rows (key: machine, session id, first log file) in
//! that file, unless the file holds a newer import of it (a later last
//! request), which is kept.
//!
//! - [`columns`]: a table as named columns, to and from Parquet;
//! - [`tables`]: the three tables' columns, and sessions made again from them;
//! - [`store`]: writing into a dataset folder, and reading folders, files and globs.

pub mod columns;
pub mod store;
pub mod tables;

use sha2::{Digest, Sha256};

/// The dataset layout's version, in every file's metadata.
pub const LAYOUT: &str = "1";

/// Metadata key marking a file as a tokencast dataset file (its value: [`LAYOUT`]).
pub const MARK: &str = "tokencast.dataset";

/// What every file records about how its figures were made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The price book's name.
    pub price_book: String,
    /// Its SHA-256.
    pub price_book_sha256: String,
    /// The import's assumptions, as JSON (trim rule, other model,
    /// calibration, price date).
    pub assumptions: String,
}

impl Provenance {
    /// The footer's key-value pairs for a file of `table`.
    pub fn metadata(&self, table: &str) -> Vec<(String, String)> {
        vec![
            (MARK.into(), LAYOUT.into()),
            ("tokencast.table".into(), table.into()),
            ("tokencast.version".into(), env!("CARGO_PKG_VERSION").into()),
            ("tokencast.price_book".into(), self.price_book.clone()),
            (
                "tokencast.price_book.sha256".into(),
                self.price_book_sha256.clone(),
            ),
            ("tokencast.assumptions".into(), self.assumptions.clone()),
        ]
    }
}

/// Replaces user, machine and project names with a salted hash: the same
/// salt gives the same hash on every machine (so a team's rows still merge),
/// and without the salt the names cannot be guessed from a list of them.
#[derive(Clone)]
pub struct Anonymiser {
    salt: String,
}

impl Anonymiser {
    /// The environment variable holding the team's salt.
    pub const SALT_VAR: &'static str = "TOKENCAST_SALT";

    /// An anonymiser with `salt` (at least 16 characters).
    pub fn new(salt: String) -> Option<Anonymiser> {
        (salt.chars().count() >= 16).then_some(Anonymiser { salt })
    }

    /// `anon-` and 16 hex digits of SHA-256(salt, NUL, name).
    pub fn hide(&self, name: &str) -> String {
        let mut h = Sha256::new();
        h.update(self.salt.as_bytes());
        h.update([0]);
        h.update(name.as_bytes());
        format!("anon-{}", &hex(&h.finalize())[..16])
    }
}

/// The file a machine's rows go to: `host-` and 16 hex digits of
/// SHA-256(machine id), so any id (a path, a dot, 300 characters) is a
/// safe file name and two ids never share a file.
pub fn host_file(machine: &str) -> String {
    format!(
        "host-{}.parquet",
        &hex(&Sha256::digest(machine.as_bytes()))[..16]
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_hide_behind_a_salted_hash_that_every_machine_shares() {
        assert!(Anonymiser::new("short".into()).is_none());
        let a = Anonymiser::new("team-salt-0123456789".into()).unwrap();
        let b = Anonymiser::new("team-salt-0123456789".into()).unwrap();
        let other = Anonymiser::new("another-salt-0123456789".into()).unwrap();
        assert_eq!(a.hide("alice"), b.hide("alice"));
        assert_ne!(a.hide("alice"), other.hide("alice"));
        assert_ne!(a.hide("alice"), a.hide("bob"));
        let h = a.hide("alice");
        assert!(h.starts_with("anon-") && h.len() == 21 && !h.contains("alice"));
        // SHA-256("team-salt-0123456789\0alice"), first 8 bytes, by hand:
        let mut d = Sha256::new();
        d.update(b"team-salt-0123456789\0alice");
        assert_eq!(h, format!("anon-{}", &hex(&d.finalize())[..16]));
    }

    #[test]
    fn every_machine_id_is_a_safe_file_name() {
        for id in ["../../etc", "/abs", ".", "", "a/b", &"x".repeat(300)] {
            let f = host_file(id);
            assert!(f.starts_with("host-") && f.ends_with(".parquet") && f.len() == 29);
            assert!(!f.contains('/'));
        }
        assert_ne!(host_file("a/b"), host_file("a_b"));
    }
}
