//! Names from logs are untrusted (issue 25): a session or agent id that is a
//! path, a reserved name, a TOML fragment or 10,000 characters long never
//! writes outside `--out`, never injects a setting into a written scenario,
//! and never stops the rest of the import.

mod common;
use common::{import_logs, json_of, simulate_json, tokencast};
use std::fs;
use std::path::{Path, PathBuf};

/// One Claude Code session of two requests and one tool result, with
/// `session` as its `sessionId` and `model` as its model; `n` makes its
/// message ids its own.
fn claude_log(n: usize, session: &str, model: &str) -> String {
    let line = |v: serde_json::Value| format!("{v}\n");
    let usage = serde_json::json!({
        "input_tokens": 10, "cache_creation_input_tokens": 1000,
        "cache_read_input_tokens": 2000, "output_tokens": 5,
        "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 0}
    });
    [
        line(serde_json::json!({
            "type": "assistant", "sessionId": session, "version": "2.1.39",
            "timestamp": "2026-03-01T10:00:00.000Z", "requestId": format!("r1-{n}"),
            "message": {"model": model, "id": format!("m1-{n}"), "role": "assistant",
                "content": [{"type": "tool_use", "id": format!("t1-{n}"), "name": "Read", "input": {}}],
                "usage": usage}
        })),
        line(serde_json::json!({
            "type": "user", "sessionId": session, "version": "2.1.39",
            "timestamp": "2026-03-01T10:00:01.000Z",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("t1-{n}"), "content": "x".repeat(400)}]}
        })),
        line(serde_json::json!({
            "type": "assistant", "sessionId": session, "version": "2.1.39",
            "timestamp": "2026-03-01T10:00:03.000Z", "requestId": format!("r2-{n}"),
            "message": {"model": model, "id": format!("m2-{n}"), "role": "assistant",
                "content": [{"type": "text", "text": "done"}],
                "usage": usage}
        })),
    ]
    .concat()
}

/// Every regular file under `root`, relative to it.
fn files_under(root: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(root).unwrap().to_path_buf())
        .collect()
}

const HOSTILE: &[&str] = &[
    "../../escaped",
    "/tmp/tokencast-absolute-escape",
    "a/b",
    "",
    ".",
    "..",
    "prices.toml",
    "con",
    "x\ncurrency = { code = \"EUR\", per_usd = \"1000\" }\n",
    "quote\"and]bracket#hash",
    "nul\0esc\u{1b}[31m",
    "rtl\u{202e}lmth.exe",
];

#[test]
fn hostile_session_ids_write_only_inside_out_and_every_session_is_imported() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    fs::create_dir_all(&logs).unwrap();
    let long = "L".repeat(10_000);
    let mut ids: Vec<&str> = HOSTILE.to_vec();
    ids.push(&long);
    for (i, id) in ids.iter().enumerate() {
        fs::write(
            logs.join(format!("s{i}.jsonl")),
            claude_log(i, id, "claude-sonnet-4-5"),
        )
        .unwrap();
    }
    let doc = import_logs(dir.path(), &[]);
    assert_eq!(doc["sessions"].as_array().unwrap().len(), ids.len());
    // Nothing outside `out/` but the logs themselves.
    for f in files_under(dir.path()) {
        assert!(
            f.starts_with("out") || f.starts_with("logs"),
            "written outside --out: {}",
            f.display()
        );
    }
    assert!(!Path::new("/tmp/tokencast-absolute-escape").exists());
    // One folder a session, each with its scenario and trace, plus the book.
    let out = dir.path().join("out");
    let scenarios: Vec<PathBuf> = files_under(&out)
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "toml") && f.components().count() == 2)
        .collect();
    assert_eq!(scenarios.len(), ids.len(), "{scenarios:?}");
    assert!(out.join("prices.toml").is_file());
    for s in &scenarios {
        let text = fs::read_to_string(out.join(s)).unwrap();
        // The injected line stays inside a comment or a string.
        assert!(
            !text.lines().any(|l| l.starts_with("currency")),
            "{}:\n{text}",
            s.display()
        );
        // Comments show the id escaped; strings hold it through the serializer.
        for line in text.lines().filter(|l| l.starts_with('#')) {
            assert!(
                !line.contains('\u{202e}') && !line.contains('\u{1b}'),
                "{line}"
            );
        }
        assert!(!text.contains('\u{1b}') && !text.contains('\0'));
        let v: toml::Table = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(v["name"].as_str().is_some_and(|n| n.ends_with("-main")));
        // Each scenario simulates in US dollars, as the log was priced.
        let sim = simulate_json(&out, s.to_str().unwrap());
        // (the document names a currency only when it is not the dollar).
        assert!(
            sim.get("currency").is_none(),
            "{}: {}",
            s.display(),
            sim["currency"]
        );
        assert!(sim["variants"].as_array().is_some_and(|v| !v.is_empty()));
    }
}

#[test]
fn hostile_model_names_give_scenarios_that_load() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    fs::create_dir_all(&logs).unwrap();
    let models = ["m\n[assumptions]\nruns_per_day = 9", "m]\"#", "m\u{202e}"];
    for (i, model) in models.iter().enumerate() {
        fs::write(
            logs.join(format!("s{i}.jsonl")),
            claude_log(i, &format!("session-{i}"), model),
        )
        .unwrap();
    }
    tokencast()
        .current_dir(dir.path())
        .args([
            "import",
            "claude-code",
            "logs",
            "--out",
            "out",
            "--no-report",
        ])
        .assert()
        .success();
    for (i, model) in models.iter().enumerate() {
        let path = dir.path().join(format!("out/session-{i}/main.toml"));
        let text = fs::read_to_string(&path).unwrap();
        // Valid TOML whose model is the name as logged, inside a string,
        // and whose assumptions are the import's own.
        let v: toml::Table = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(v["model"].as_str(), Some(*model));
        assert_eq!(v["assumptions"]["runs_per_day"].as_integer(), Some(1));
        // Comments escape what they show.
        for line in text.lines().filter(|l| l.starts_with('#')) {
            assert!(!line.contains('\u{202e}'), "{line}");
        }
    }
}

#[cfg(unix)]
#[test]
fn links_to_folders_are_not_walked_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    let elsewhere = dir.path().join("elsewhere/proj");
    fs::create_dir_all(&logs).unwrap();
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(
        logs.join("a.jsonl"),
        claude_log(0, "session-a", "claude-sonnet-4-5"),
    )
    .unwrap();
    fs::write(
        elsewhere.join("b.jsonl"),
        claude_log(1, "session-b", "claude-sonnet-4-5"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.path().join("logs/linked")).unwrap();
    // A loop: a link back to the top of the walk.
    std::os::unix::fs::symlink(dir.path().join("logs"), logs.join("loop")).unwrap();
    let import = |extra: &[&str]| {
        let mut args = vec![
            "import",
            "claude-code",
            "logs",
            "--no-report",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        json_of(tokencast().current_dir(dir.path()).args(&args))
    };
    let doc = import(&[]);
    assert_eq!(doc["sessions"].as_array().unwrap().len(), 1);
    let problems = doc["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["what"].as_str().unwrap().contains("not followed")),
        "{problems:?}"
    );
    let doc = import(&["--follow-links"]);
    assert_eq!(doc["sessions"].as_array().unwrap().len(), 2);
    let problems = doc["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["what"].as_str().unwrap().contains("link loop")),
        "{problems:?}"
    );
}

#[test]
fn a_value_past_a_limit_is_capped_for_its_line_and_the_thread_is_kept() {
    // Usage of 2^63 − 1 output tokens on the last response, 3 years after
    // the first: the line is reported with its file and line, the count is
    // capped at 10^9, the gap at a year, and the thread is still replayed.
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    fs::create_dir_all(&logs).unwrap();
    let text = claude_log(0, "session-big", "claude-sonnet-4-5").replacen(
        "2026-03-01T10:00:03.000Z",
        "2029-03-01T10:00:03.000Z",
        1,
    );
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[2] = lines[2].replace(
        "\"output_tokens\":5",
        "\"output_tokens\":9223372036854775807",
    );
    fs::write(logs.join("s.jsonl"), lines.join("\n") + "\n").unwrap();
    let doc = import_logs(dir.path(), &[]);
    let problems = doc["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["line"] == 3 && p["what"].as_str().unwrap().contains("capped")),
        "{problems:?}"
    );
    let s = &doc["sessions"][0];
    assert_eq!(s["usage"]["output"], 5 + 1_000_000_000u64);
    assert!(s["what_if"].is_object(), "the thread is replayed");
    let csv = fs::read_to_string(dir.path().join("out/session-big/main.csv")).unwrap();
    assert!(
        csv.contains(&format!(",{},", 366u64 * 24 * 3_600_000)),
        "{csv}"
    );
}
