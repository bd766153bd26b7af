//! A scenario's trim rule (`[assumptions] trim`): the trimmed variants keep
//! at most so many bytes, or such a share, of each result, in place of the
//! trace's `trimmed_bytes`.

mod common;
use common::{edit, run_in, sandbox, simulate_json};

const BAND: &str = "tokenizer_uplift = 1.25\n";

/// The fixture with its trace's trimmed sizes replaced by `sizes` (in the
/// order of its four results with bytes: 8,000, 20,000, 20,000 and 400 raw).
fn trimmed_by_hand(sizes: [u64; 4]) -> tempfile::TempDir {
    let dir = sandbox("tests/fixtures");
    for (from, to) in [
        ("trimmed_bytes = 2000", sizes[0]),
        ("trimmed_bytes = 4000", sizes[1]),
        ("trimmed_bytes = 4000", sizes[2]),
        ("trimmed_bytes = 400", sizes[3]),
    ] {
        edit(
            dir.path(),
            "tiny.toml",
            from,
            &format!("trimmed_bytes = {to} "),
        );
    }
    dir
}

fn with_rule(rule: &str) -> tempfile::TempDir {
    let dir = sandbox("tests/fixtures");
    edit(
        dir.path(),
        "tiny.toml",
        BAND,
        &format!("{BAND}trim = {rule}\n"),
    );
    dir
}

#[test]
fn a_trim_rule_replaces_the_traces_trimmed_sizes() {
    // 4,096 bytes kept: min(raw, 4,096) of 8,000, 20,000, 20,000, 400.
    let rule = simulate_json(with_rule("4096").path(), "tiny.toml");
    let hand = simulate_json(trimmed_by_hand([4096, 4096, 4096, 400]).path(), "tiny.toml");
    assert_eq!(rule["assumptions"]["trim"], "4096");
    assert_eq!(rule["variants"], hand["variants"]);
    assert_eq!(rule["comparison"], hand["comparison"]);
    // And it differs from the trace's own trimmed sizes.
    let own = simulate_json(sandbox("tests/fixtures").path(), "tiny.toml");
    assert_ne!(rule["variants"], own["variants"]);

    // A quarter kept: 2,000, 5,000, 5,000 and 100 bytes.
    let rule = simulate_json(with_rule("\"25%\"").path(), "tiny.toml");
    let hand = simulate_json(trimmed_by_hand([2000, 5000, 5000, 100]).path(), "tiny.toml");
    assert_eq!(rule["assumptions"]["trim"], "25%");
    assert_eq!(rule["variants"], hand["variants"]);

    // An empty rule is no rule.
    let none = simulate_json(with_rule("\"\"").path(), "tiny.toml");
    assert_eq!(none["variants"], own["variants"]);
    assert_eq!(none["assumptions"].get("trim"), None);
}

#[test]
fn the_rule_is_said_where_the_figures_are() {
    let dir = with_rule("4096");
    let page = dir.path().join("tiny.html");
    let (code, err) = run_in(
        dir.path(),
        &["simulate", "tiny.toml", "--report", "tiny.html"],
    );
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(page).unwrap();
    assert!(
        html.contains(
            "<dt>trimmed results</dt><dd>at most 4,096 bytes of each result (trim = 4096)</dd>"
        ),
        "the page's key assumptions name the rule"
    );
    assert!(html.contains(r#"data-param="assumptions.trim" data-original="4096""#));
}

#[test]
fn a_rule_that_is_not_one_is_a_located_error() {
    for rule in ["\"4 KB\"", "\"101%\"", "-5", "40.5"] {
        let dir = with_rule(rule);
        let (code, err) = run_in(dir.path(), &["simulate", "tiny.toml", "--no-report"]);
        assert_eq!(code, Some(2), "{rule}: {err}");
        assert!(
            err.contains("tiny.toml: assumptions.trim: ")
                && err.contains("tiny.toml:63:8")
                && err.contains("trim = 4096 keeps at most 4,096 bytes"),
            "{rule}: {err}"
        );
    }
}
