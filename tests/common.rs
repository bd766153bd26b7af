//! Helpers shared by the CLI tests.
#![allow(dead_code)]

use rust_decimal::{Decimal, RoundingStrategy};
use std::str::FromStr;

/// The tokencast binary, run from the crate root.
pub fn tokencast() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tokencast"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// Runs `cmd`, which must succeed (its stderr is the failure's message).
pub fn succeeded(cmd: &mut assert_cmd::Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `simulate` on the research scenario and parses the JSON document.
pub fn research_json() -> serde_json::Value {
    let out = succeeded(tokencast().args([
        "simulate",
        "scenarios/research.toml",
        "--format",
        "json",
        "--no-report",
    ]));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A JSON decimal string as a Decimal.
pub fn dec(v: &serde_json::Value) -> Decimal {
    Decimal::from_str(
        v.as_str()
            .unwrap_or_else(|| panic!("not a decimal string: {v}")),
    )
    .unwrap()
}

/// Rounded half away from zero to `dp` places, as the seed displays figures.
pub fn shown(v: &serde_json::Value, dp: u32) -> String {
    let rounded = dec(v).round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero);
    // Rounded first, so the width only pads zeros.
    format!("{:.*}", dp as usize, rounded)
}

/// The variant with this name.
pub fn variant<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variant {name}"))
}

/// The context profile for "raw" or "trimmed".
pub fn profile<'a>(doc: &'a serde_json::Value, results: &str) -> &'a serde_json::Value {
    doc["context"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["results"] == results)
        .unwrap()
}

/// Copies a folder tree (files made writable), e.g. `scenarios/` into a sandbox.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
            let mut perms = std::fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&target, perms).unwrap();
        }
    }
}

/// Runs `cmd`, which must succeed (its stderr shown otherwise), and parses
/// its stdout as JSON.
pub fn json_of(cmd: &mut assert_cmd::Command) -> serde_json::Value {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A live page's `data-figure` values (JSON Pointer → `data-value`) are
/// the command line's JSON document's, character for character; `what`
/// names the setting in a failure. At least `min` figures are marked.
pub fn assert_figures(
    figures: &serde_json::Value,
    json: &serde_json::Value,
    what: &str,
    min: usize,
) {
    let figures = figures.as_object().unwrap();
    assert!(
        figures.len() >= min,
        "{what}: only {} figures are marked",
        figures.len()
    );
    for (ptr, value) in figures {
        let want = match json.pointer(ptr) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => panic!("{ptr} is not in the document"),
        };
        assert_eq!(value.as_str(), Some(want.as_str()), "{what}: {ptr}");
    }
}

/// `scenarios/research.toml` with its price book and trace paths made
/// absolute, so a copy can live in any folder.
pub fn research_absolute() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    std::fs::read_to_string(root.join("research.toml"))
        .unwrap()
        .replace(
            "prices/anthropic.toml",
            &root.join("prices/anthropic.toml").display().to_string(),
        )
        .replace(
            "traces/research-trace.csv",
            &root.join("traces/research-trace.csv").display().to_string(),
        )
}

/// Asserts that `needle` (text planted in a fixture's logs) is in none of
/// `outputs` and in no file under `dir`.
pub fn assert_nowhere(needle: &str, outputs: &[Vec<u8>], dir: &std::path::Path) {
    let mut all: Vec<(String, Vec<u8>)> = outputs
        .iter()
        .enumerate()
        .map(|(i, o)| (format!("output {i}"), o.clone()))
        .collect();
    for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if e.file_type().is_file() {
            all.push((
                e.path().display().to_string(),
                std::fs::read(e.path()).unwrap(),
            ));
        }
    }
    assert!(
        all.len() > outputs.len(),
        "no files written under {}",
        dir.display()
    );
    for (name, bytes) in &all {
        assert!(
            !String::from_utf8_lossy(bytes).contains(needle),
            "{name} holds {needle} text from the logs"
        );
    }
}

/// `import claude-code logs --out out --no-report --format json` (and
/// `extra`) run in `dir`: the summary document.
pub fn import_logs(dir: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "import",
        "claude-code",
        "logs",
        "--out",
        "out",
        "--no-report",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    json_of(tokencast().current_dir(dir).args(&args))
}

/// `simulate SCENARIO --format json --no-report` run in `dir`.
pub fn simulate_json(dir: &std::path::Path, scenario: &str) -> serde_json::Value {
    json_of(tokencast().current_dir(dir).args([
        "simulate",
        scenario,
        "--format",
        "json",
        "--no-report",
    ]))
}

/// A writable copy of a folder of the repository (`scenarios`,
/// `tests/fixtures/rules`, …), removed when dropped: the one sandbox the
/// CLI tests run in.
pub fn sandbox(rel: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel),
        dir.path(),
    );
    dir
}

/// Replaces the first `from` in the file `rel` of `dir` with `to`; the
/// test fails if `from` is not there (an edit that does nothing would let
/// the test pass without testing anything).
pub fn edit(dir: &std::path::Path, rel: &str, from: &str, to: &str) {
    let p = dir.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{from} not in {rel}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

/// Runs tokencast in `dir` (at most a minute); returns its exit code and stderr.
pub fn run_in(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out = tokencast()
        .current_dir(dir)
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
