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

/// The JSON document's shape: every key, with each value's type (an
/// array by its first element). Its figures are checked against the seed in
/// `reproduction.rs`; a snapshot of them would only be accepted again.
#[test]
fn json_document_shape() {
    fn shape(v: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match v {
            Value::Object(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
            }
            Value::Array(a) => Value::Array(a.first().map(shape).into_iter().collect()),
            Value::String(_) => "string".into(),
            Value::Number(_) => "number".into(),
            Value::Bool(_) => "bool".into(),
            Value::Null => "null".into(),
        }
    }
    let doc: serde_json::Value = serde_json::from_str(&run(&["--format", "json"])).unwrap();
    assert_eq!(doc["document"], "simulation");
    insta::assert_snapshot!(serde_json::to_string_pretty(&shape(&doc)).unwrap());
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
