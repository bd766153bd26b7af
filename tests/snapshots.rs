//! Snapshot tests: each renderer's output for the research scenario, so a
//! change in layout shows up in review. The figures themselves are asserted
//! against the seed in `reproduction.rs`; these guard the presentation.

mod common;
use common::tokencast;

fn run(args: &[&str]) -> String {
    let out = tokencast()
        .args(["simulate", "scenarios/research.toml", "--no-report"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn terminal_tables() {
    insta::assert_snapshot!(run(&["--requests"]));
}

#[test]
fn csv_variants_summary() {
    insta::assert_snapshot!(run(&["--format", "csv"]));
}

#[test]
fn json_document() {
    insta::assert_snapshot!(run(&["--format", "json"]));
}

#[test]
fn error_message_for_a_typo() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo.toml");
    std::fs::write(&path, "name = \"x\"\nquestoin = \"?\"\n").unwrap();
    let out = tokencast()
        .current_dir(dir.path())
        .args(["simulate", "typo.toml", "--no-report"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(String::from_utf8(out.stderr).unwrap());
}
