//! Unit tests of the parent module.

use super::staging::{set_aside, stage, undo};
use super::*;

#[test]
fn a_folder_in_use_is_refused_and_released() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let held = FolderLock::take(&out).unwrap();
    assert!(matches!(FolderLock::take(&out), Err(OutputError::Busy(_))));
    drop(held);
    // Released, and the folder it made is gone again (it stayed empty).
    assert!(!out.exists());
    let again = FolderLock::take(&out).unwrap();
    std::fs::write(out.join("kept"), "x").unwrap();
    drop(again);
    assert!(out.join("kept").exists() && !out.join(LOCK_FILE).exists());
}

#[test]
fn an_output_folder_under_a_file_is_the_users_mistake() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "mine").unwrap();
    for out in [
        file.clone(),
        file.join("out"),
        file.join("out").join("deeper"),
    ] {
        let Err(e) = FolderLock::take(&out) else {
            panic!("{}: taken", out.display());
        };
        assert!(
            matches!(&e, OutputError::ParentIsFile { parent, .. } if *parent == file),
            "{}: {e:?}",
            out.display()
        );
        assert!(e.is_user_error());
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

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
fn undo_puts_back_what_a_failed_set_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("a.csv");
    let new = dir.path().join("b.csv");
    std::fs::write(&old, "a,b\nold\n").unwrap();
    // The first target was replaced and the second created before a
    // later rename failed.
    let new_old = stage(&old, b"a,b\nnew\n", None).unwrap();
    let aside = set_aside(&old, journal::aside_of(new_old.path())).unwrap();
    new_old.persist(&old).unwrap();
    stage(&new, b"x\n", None).unwrap().persist(&new).unwrap();
    undo(vec![(old.clone(), aside), (new.clone(), None)]);
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "a,b\nold\n");
    assert!(!new.exists());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary file left behind");
}

#[test]
fn json_is_ours_only_with_the_generator_key_first() {
    assert!(Marker::Json.found_in(b"{\n  \"generator\": \"tokencast\",\n  \"document\": \"diff\"}"));
    assert!(!Marker::Json.found_in(b"{\"my\": \"notes\"}"));
    assert!(!Marker::Json.found_in(b"{\n  \"notes\": \"generator: tokencast\"}"));
}

#[test]
fn text_and_csv_markers() {
    assert!(Marker::Text.found_in(b"tokencast 0.1.0 \xc2\xb7 diff a.json \xe2\x86\x92 b.json\n"));
    assert!(!Marker::Text.found_in(b"my notes about tokencast\n"));
    assert!(Marker::Csv("a,b".into()).found_in(b"a,b\r\n1,2\r\n"));
    assert!(!Marker::Csv("a,b".into()).found_in(b"a,b,c\n"));
    // A trace an earlier version imported is still the import's own.
    let earlier = format!("{}\n", crate::scenario::trace::EARLIER_TRACE_HEADERS[0]);
    assert!(Marker::Trace.found_in(earlier.as_bytes()));
    let now = format!("{}\r\n1,", crate::scenario::trace::TRACE_HEADER);
    assert!(Marker::Trace.found_in(now.as_bytes()));
    assert!(!Marker::Trace.found_in(b"call,capability\n"));
}

#[test]
fn a_file_that_already_holds_the_bytes_is_left_in_place_and_others_are_replaced() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let (same, changed) = (dir.path().join("same.csv"), dir.path().join("changed.csv"));
    std::fs::write(&same, "a,b\n1,2\n").unwrap();
    std::fs::write(&changed, "a,b\n1,2\n").unwrap();
    let inode = |p: &Path| std::fs::metadata(p).unwrap().ino();
    let (same_before, changed_before) = (inode(&same), inode(&changed));
    let file = |path: &Path, bytes: &str| PlannedFile {
        path: path.to_path_buf(),
        bytes: bytes.as_bytes().to_vec(),
        marker: Marker::Csv("a,b".into()),
    };
    let mut staging = Staging::new(false);
    staging.stage(&file(&same, "a,b\n1,2\n")).unwrap();
    // Same length, other bytes: replaced.
    staging.stage(&file(&changed, "a,b\n3,4\n")).unwrap();
    assert_eq!(staging.len(), 1, "only the changed file is staged");
    staging.commit().unwrap();
    assert_eq!(
        inode(&same),
        same_before,
        "the unchanged file was not rewritten"
    );
    assert_ne!(inode(&changed), changed_before);
    assert_eq!(std::fs::read_to_string(&same).unwrap(), "a,b\n1,2\n");
    assert_eq!(std::fs::read_to_string(&changed).unwrap(), "a,b\n3,4\n");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 2, "no temporary file left behind");
}

#[test]
fn files_in_a_folder_the_set_made_are_staged_unchecked_and_land_as_any_other() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // A folder that was there is checked file by file: another tool's
    // file in it is refused, as before.
    let old = dir.path().join("old");
    std::fs::create_dir(&old).unwrap();
    std::fs::write(old.join("theirs.csv"), "x,y\n").unwrap();
    let mut staging = Staging::new(false);
    assert!(matches!(
        staging.stage(&csv_at(old.join("theirs.csv"), "a,b\n1,2\n")),
        Err(OutputError::NotOurs(_))
    ));
    staging
        .stage(&csv_at(old.join("mine.csv"), "a,b\n1,2\n"))
        .unwrap();
    assert!(!staging.fresh.contains(&old));
    // A folder the set made (and the folders made above it) holds only
    // what the set stages: the files of the folder it made for them are
    // new, the same name twice included (the later file wins).
    let new = dir.path().join("made").join("session");
    staging
        .stage(&csv_at(new.join("main.csv"), "a,b\n1,2\n"))
        .unwrap();
    assert!(staging.fresh.contains(&new));
    assert!(!staging.fresh.contains(&dir.path().join("made")));
    staging
        .stage(&csv_at(new.join("agent.csv"), "a,b\n3,4\n"))
        .unwrap();
    staging
        .stage(&csv_at(new.join("main.csv"), "a,b\n5,6\n"))
        .unwrap();
    assert_eq!(staging.len(), 4);
    staging.commit().unwrap();
    for (path, bytes) in [
        (old.join("mine.csv"), "a,b\n1,2\n"),
        (new.join("agent.csv"), "a,b\n3,4\n"),
        (new.join("main.csv"), "a,b\n5,6\n"),
    ] {
        assert_eq!(std::fs::read_to_string(&path).unwrap(), bytes);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644, "{}", path.display());
    }
    assert_eq!(
        std::fs::read_to_string(old.join("theirs.csv")).unwrap(),
        "x,y\n"
    );
    let left = |d: &Path| std::fs::read_dir(d).unwrap().count();
    assert_eq!(
        (left(&old), left(&new)),
        (2, 2),
        "no temporary file left behind"
    );
}

#[test]
fn stagings_of_other_folders_merged_are_one_set_and_leave_nothing_when_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // Two stagings (two threads) into two new folders of a new folder:
    // the second finds the parent the first made (it is made once), and
    // the set made of both is all their files, committed together.
    let make = |out: &Path, raced: bool| {
        let (mut first, mut second) = (Staging::new(false), Staging::new(false));
        first
            .stage(&csv_at(out.join("s1").join("main.csv"), "a,b\n1,2\n"))
            .unwrap();
        second
            .stage(&csv_at(out.join("s2").join("main.csv"), "a,b\n3,4\n"))
            .unwrap();
        second
            .stage(&csv_at(out.join("s2").join("agent.csv"), "a,b\n5,6\n"))
            .unwrap();
        assert_eq!(first.created, [out.to_path_buf(), out.join("s1")]);
        assert_eq!(second.created, [out.join("s2")]);
        if raced {
            // Both found the parent missing, and both made it.
            second.created.insert(0, out.to_path_buf());
        }
        second.merge(first);
        second
    };
    let set = make(&out, true);
    assert_eq!(set.len(), 3);
    assert_eq!(set.created, [out.clone(), out.join("s2"), out.join("s1")]);
    set.commit().unwrap();
    for (path, bytes) in [
        (out.join("s1").join("main.csv"), "a,b\n1,2\n"),
        (out.join("s2").join("main.csv"), "a,b\n3,4\n"),
        (out.join("s2").join("agent.csv"), "a,b\n5,6\n"),
    ] {
        assert_eq!(std::fs::read_to_string(&path).unwrap(), bytes);
    }
    let names = |d: &Path| -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&out.join("s2")), ["agent.csv", "main.csv"]);
    // Dropped without a commit: every temporary file and every folder
    // either made is gone, the parent last (it was the first's, merged
    // into the second's: parents first).
    let other = dir.path().join("other");
    let set = make(&other, false);
    assert_eq!(
        set.created,
        [other.clone(), other.join("s2"), other.join("s1")]
    );
    drop(set);
    assert!(!other.exists(), "nothing left behind");
    assert_eq!(names(dir.path()), ["out"]);
}

#[test]
fn a_large_set_is_renamed_a_folder_at_a_time_and_put_back_whole_when_a_rename_fails() {
    use super::staging::RENAMES_SIDE_BY_SIDE_FROM;
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old");
    std::fs::create_dir(&old).unwrap();
    for k in 0..10 {
        std::fs::write(old.join(format!("{k}.csv")), "a,b\nold\n").unwrap();
    }
    // Ten files replacing the set's own, two new files in each of forty
    // new folders, and the first new folder's `main.csv` named twice.
    let set = |made: &Path, version: &str| {
        let mut staging = Staging::new(false);
        for k in 0..10 {
            let f = csv_at(old.join(format!("{k}.csv")), &format!("a,b\n{version}\n"));
            staging.stage(&f).unwrap();
        }
        for i in 0..40 {
            for name in ["main.csv", "agent.csv"] {
                let f = csv_at(made.join(format!("s{i}")).join(name), "a,b\n1,2\n");
                staging.stage(&f).unwrap();
            }
        }
        let f = csv_at(made.join("s0").join("main.csv"), "a,b\nlater\n");
        staging.stage(&f).unwrap();
        assert!(
            staging.len() >= RENAMES_SIDE_BY_SIDE_FROM,
            "the folders side by side"
        );
        staging
    };
    let csv = |p: PathBuf| std::fs::read_to_string(p).unwrap();
    let count = |d: &Path| std::fs::read_dir(d).unwrap().count();
    let made = dir.path().join("made");
    set(&made, "new").commit().unwrap();
    assert_eq!(csv(old.join("7.csv")), "a,b\nnew\n");
    assert_eq!(csv(made.join("s0").join("main.csv")), "a,b\nlater\n");
    assert_eq!(csv(made.join("s39").join("agent.csv")), "a,b\n1,2\n");
    assert_eq!(
        count(&old),
        10,
        "no temporary or set-aside file left behind"
    );
    assert_eq!(count(&made.join("s0")), 2);
    // A target that became a folder after it was staged: that rename
    // fails, and every folder's renames are put back.
    let other = dir.path().join("other");
    let staging = set(&other, "newer");
    std::fs::create_dir_all(other.join("s20").join("main.csv").join("x")).unwrap();
    assert!(matches!(staging.commit(), Err(OutputError::Io { .. })));
    for k in 0..10 {
        assert_eq!(csv(old.join(format!("{k}.csv"))), "a,b\nnew\n");
    }
    assert_eq!(count(&old), 10, "the old files back, nothing else left");
    assert_eq!(count(&other), 1, "only the folder in the way is left");
    assert_eq!(count(&other.join("s20")), 1);
}

#[test]
fn a_file_where_a_new_folder_must_be_is_refused_and_nothing_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "mine").unwrap();
    let mut staging = Staging::new(false);
    let e = staging
        .stage(&csv_at(file.join("s1").join("main.csv"), "a,b\n1,2\n"))
        .unwrap_err();
    assert!(
        matches!(&e, OutputError::ParentIsFile { parent, .. } if *parent == file),
        "{e:?}"
    );
    assert!(staging.created.is_empty() && staging.fresh.is_empty());
    // A new folder's first file is new, as its others are: nothing is
    // checked or set aside there.
    let new = dir.path().join("made").join("s1");
    staging
        .stage(&csv_at(new.join("main.csv"), "a,b\n1,2\n"))
        .unwrap();
    assert!(staging.fresh.contains(&new));
    assert_eq!(staging.created, [dir.path().join("made"), new.clone()]);
    staging.commit().unwrap();
    assert_eq!(
        std::fs::read_to_string(new.join("main.csv")).unwrap(),
        "a,b\n1,2\n"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

/// A CSV file of header `a,b` at `path`.
fn csv_at(path: PathBuf, bytes: &str) -> PlannedFile {
    PlannedFile {
        path,
        bytes: bytes.as_bytes().to_vec(),
        marker: Marker::Csv("a,b".into()),
    }
}
