//! The team dataset (`import … --dataset DIR`, `import dataset`, `forecast
//! DATASET`): exact figures per request, model and session, each session
//! once however often and from however many machines it is imported, the
//! same sessions back, names hidden on request, no text from the logs, and
//! DuckDB reading the same totals.

mod common;

use common::{dec, tokencast};
use rust_decimal::Decimal;
use std::path::{Path, PathBuf};
use tokencast::import::dataset::columns::{Data, Table};
use tokencast::import::dataset::tables;

const S1: &str = "11111111-aaaa-4aaa-8aaa-111111111111";
const S3: &str = "33333333-cccc-4ccc-8ccc-333333333333";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code")
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// Runs tokencast in `dir`; panics unless it exits 0; returns stdout and stderr.
fn run(dir: &Path, args: &[&str]) -> (String, String) {
    let out = tokencast().current_dir(dir).args(args).output().unwrap();
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{args:?}: {e}");
    (o, e)
}

/// Imports the fixtures into `dataset` as `machine`; the JSON summary.
fn import(dir: &Path, dataset: &str, machine: &str, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec!["--dataset", dataset];
    args.extend(extra);
    import_into(dir, "out", machine, &args)
}

/// Imports the fixtures into the folder `out` as `machine` (user alice),
/// with `extra`; the JSON summary and what was said on stderr.
fn import_into(
    dir: &Path,
    out: &str,
    machine: &str,
    extra: &[&str],
) -> (serde_json::Value, String) {
    let fx = fixtures();
    let mut args = vec![
        "import",
        "claude-code",
        fx.to_str().unwrap(),
        "--out",
        out,
        "--no-report",
        "--format",
        "json",
        "--machine",
        machine,
        "--user",
        "alice",
    ];
    args.extend(extra);
    let (o, e) = run(dir, &args);
    (serde_json::from_str(&o).unwrap(), e)
}

/// `import dataset ds --out again` in `dir`: its JSON summary.
fn read_back(dir: &Path) -> serde_json::Value {
    let (o, _) = run(
        dir,
        &[
            "import",
            "dataset",
            "ds",
            "--out",
            "again",
            "--no-report",
            "--format",
            "json",
        ],
    );
    serde_json::from_str(&o).unwrap()
}

/// Every file of one table in a dataset, read whole.
fn read_table(root: &Path, table: &str) -> Vec<(PathBuf, Table)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(root.join(table)).sort_by_file_name() {
        let e = e.unwrap();
        if e.path().extension().is_some_and(|x| x == "parquet") {
            let bytes = std::fs::read(e.path()).unwrap();
            let (t, _) = Table::from_parquet(bytes.into(), &tables::schema(table).columns).unwrap();
            out.push((e.path().to_path_buf(), t));
        }
    }
    out
}

fn strings(t: &Table, col: &str) -> Vec<Option<String>> {
    match t.get(col).unwrap() {
        Data::Str(v) => v.iter().map(|s| s.map(str::to_string)).collect(),
        other => panic!("{col} is {other:?}"),
    }
}

fn money<'a>(t: &'a Table, col: &str) -> &'a [Option<Decimal>] {
    match t.get(col).unwrap() {
        Data::Money(v) => v,
        other => panic!("{col} is {other:?}"),
    }
}

/// Every file's bytes, by path relative to the dataset.
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "parquet"))
        .map(|e| {
            (
                e.path().strip_prefix(root).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn each_request_is_a_row_with_its_exact_cost_and_the_tables_sum_to_the_import() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, note) = import(dir.path(), "ds", "laptop-1", &[]);
    assert!(
        note.contains("added 4 session(s) to the dataset ds"),
        "{note}"
    );
    let requests = read_table(&dir.path().join("ds"), tables::REQUESTS);
    let mut by_id: std::collections::BTreeMap<String, Option<Decimal>> = Default::default();
    let mut by_model: std::collections::BTreeMap<String, Decimal> = Default::default();
    for (path, t) in &requests {
        // Partitioned by the day the session started, one file per machine.
        let day = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy();
        assert!(day.starts_with("day=20"), "{day}");
        for i in 0..t.rows() {
            let id = strings(t, "gen_ai.response.id")[i].clone().unwrap();
            let model = strings(t, "gen_ai.response.model")[i].clone().unwrap();
            let cost = money(t, "tokencast.cost_usd")[i];
            assert_eq!(strings(t, "host.id")[i].as_deref(), Some("laptop-1"));
            by_id.insert(id, cost);
            if let Some(c) = cost {
                *by_model.entry(model).or_default() += c;
            }
        }
    }
    // claude-sonnet-4-5 (LiteLLM 1.110.2): input 3, 5m write 3.75, 1h write 6,
    // read 0.3, output 15 per million; haiku 4.5: 1, 1.25, 2, 0.1, 5.
    // msg_1: 10×3 + 1,000×6 + 2,000×0.3 + 120×15 = 8,430 per million.
    assert_eq!(by_id["msg_1"], Some(d("0.00843")));
    // msg_3: 3×3 + 50×3.75 + 6,650×0.3 + 30×15 = 2,641.5.
    assert_eq!(by_id["msg_3"], Some(d("0.0026415")));
    // msg_sub2 (haiku): 3 + 120×1.25 + 800×0.1 + 15×5 = 308.
    assert_eq!(by_id["msg_sub2"], Some(d("0.000308")));
    // An unpriced model's requests carry no cost, never $0.
    assert!(by_id.values().filter(|c| c.is_none()).count() == 2);
    // Per model: sonnet 8,430 + 2,640 + 2,641.5 + 6,684 (session 1) + 8,262 + 6,012
    // + 837 + 1,212 (session 3); haiku 1,153 + 308 + 14.
    assert_eq!(by_model["claude-sonnet-4-5"], d("0.0367185"));
    assert_eq!(by_model["claude-haiku-4-5"], d("0.001475"));
    // The sessions table sums to the import's own total.
    let sessions = read_table(&dir.path().join("ds"), tables::SESSIONS);
    for (_, t) in &sessions {
        assert!(strings(t, "user.id")
            .iter()
            .all(|u| u.as_deref() == Some("alice")));
    }
    let total: Decimal = sessions
        .iter()
        .flat_map(|(_, t)| money(t, "tokencast.cost_usd").iter().flatten().copied())
        .sum();
    assert_eq!(total, dec(&doc["totals"]["recorded_cost"]));
    assert_eq!(total, d("0.0218565") + d("0.016337"));
}

#[test]
fn a_dataset_reads_back_as_the_import_and_forecasts_as_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, _) = import(dir.path(), "ds", "laptop-1", &[]);
    let back = read_back(dir.path());
    for k in ["sessions", "days", "totals", "unpriced", "confidence"] {
        assert_eq!(doc[k], back[k], "{k}");
    }
    assert_eq!(back["source"], "dataset");
    // The scenarios it writes are the import's, but for the command named.
    let a = std::fs::read_to_string(dir.path().join("out").join(S1).join("main.toml")).unwrap();
    let b = std::fs::read_to_string(dir.path().join("again").join(S1).join("main.toml")).unwrap();
    assert_eq!(
        a.replace("import claude-code", "import dataset"),
        b,
        "the same scenario"
    );
    // A forecast over the dataset is the forecast over the imported folder.
    let forecast = |path: &str| {
        let (o, _) = run(
            dir.path(),
            &[
                "forecast",
                path,
                "--format",
                "json",
                "--no-report",
                "--runs",
                "2000",
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&o).unwrap();
        normalised(&v["variants"])
    };
    assert_eq!(forecast("out"), forecast("ds"));
}

/// Decimal strings with their trailing zeros dropped (a dataset's money has
/// one scale; the engine's keeps the scale of its arithmetic).
fn normalised(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::String(s) => match s.parse::<Decimal>() {
            Ok(x) => serde_json::Value::String(x.normalize().to_string()),
            Err(_) => v.clone(),
        },
        serde_json::Value::Array(a) => a.iter().map(normalised).collect(),
        serde_json::Value::Object(o) => o
            .iter()
            .map(|(k, x)| (k.clone(), normalised(x)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        _ => v.clone(),
    }
}

#[test]
fn importing_again_replaces_each_session_and_an_older_copy_never_replaces_a_newer() {
    let dir = tempfile::tempdir().unwrap();
    import(dir.path(), "ds", "laptop-1", &[]);
    let first = snapshot(&dir.path().join("ds"));
    assert_eq!(first.len(), 9, "three tables, three days");
    let (_, note) = import(dir.path(), "ds", "laptop-1", &[]);
    assert!(
        note.contains("4 of them replaced an earlier import"),
        "{note}"
    );
    assert_eq!(
        snapshot(&dir.path().join("ds")),
        first,
        "the same bytes, no row twice"
    );
    // An older copy of session 1's main log, its later requests not yet logged.
    let old = dir.path().join("old/proj-a");
    std::fs::create_dir_all(&old).unwrap();
    let name = format!("{S1}.jsonl");
    let text = std::fs::read(fixtures().join("proj-a").join(&name)).unwrap();
    // The summary line and the first four events: msg_2 and msg_3 come later.
    let lines: Vec<&[u8]> = text.split(|b| *b == b'\n').take(5).collect();
    assert!(!String::from_utf8_lossy(&lines.concat()).contains("msg_3"));
    std::fs::write(old.join(&name), lines.join(&b'\n')).unwrap();
    std::fs::create_dir_all(old.join(S1)).unwrap();
    common::copy_dir(&fixtures().join("proj-a").join(S1), &old.join(S1));
    let out = tokencast()
        .current_dir(dir.path())
        .args([
            "import",
            "claude-code",
            "old",
            "--out",
            "out2",
            "--no-report",
        ])
        .args([
            "--dataset",
            "ds",
            "--machine",
            "laptop-1",
            "--user",
            "alice",
        ])
        .output()
        .unwrap();
    let note = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{note}");
    assert!(
        note.contains("1 session(s) were left as they were"),
        "{note}"
    );
    assert_eq!(snapshot(&dir.path().join("ds")), first);
}

#[test]
fn ten_machines_write_one_dataset_at_once_and_its_totals_are_the_sum() {
    let dir = tempfile::tempdir().unwrap();
    let (one, _) = import(dir.path(), "single", "m0", &[]);
    let per_machine = dec(&one["totals"]["recorded_cost"]);
    let requests = one["totals"]["requests"].as_u64().unwrap();
    // Ten machines import into one shared folder at the same time …
    let children: Vec<std::process::Child> = (0..10)
        .map(|m| {
            std::process::Command::new(env!("CARGO_BIN_EXE_tokencast"))
                .current_dir(dir.path())
                .args(["import", "claude-code"])
                .arg(fixtures())
                .args([
                    "--out",
                    &format!("out{m}"),
                    "--no-report",
                    "--format",
                    "json",
                ])
                .args(["--dataset", "team", "--machine", &format!("m{m}")])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // … and each into a dataset of its own, merged afterwards through a glob.
    for m in 0..10 {
        import(dir.path(), &format!("machines/m{m}"), &format!("m{m}"), &[]);
    }
    run(
        dir.path(),
        &[
            "import",
            "dataset",
            "machines/*",
            "--out",
            "merged-out",
            "--no-report",
            "--dataset",
            "merged",
        ],
    );
    for ds in ["team", "merged"] {
        let (o, _) = run(
            dir.path(),
            &[
                "import",
                "dataset",
                ds,
                "--out",
                &format!("{ds}-out"),
                "--no-report",
                "--format",
                "json",
            ],
        );
        let doc: serde_json::Value = serde_json::from_str(&o).unwrap();
        assert_eq!(
            dec(&doc["totals"]["recorded_cost"]),
            per_machine * Decimal::from(10),
            "{ds}"
        );
        assert_eq!(
            doc["totals"]["requests"].as_u64(),
            Some(requests * 10),
            "{ds}"
        );
        let hosts: std::collections::BTreeSet<String> =
            read_table(&dir.path().join(ds), tables::SESSIONS)
                .iter()
                .flat_map(|(_, t)| strings(t, "host.id").into_iter().flatten())
                .collect();
        assert_eq!(hosts.len(), 10, "{ds}");
        // Merged rows keep the source their sessions were first imported from.
        for (_, t) in read_table(&dir.path().join(ds), tables::SESSIONS) {
            assert!(strings(&t, "tokencast.source")
                .iter()
                .all(|s| s.as_deref() == Some("claude-code")));
        }
    }
    // Merging the merged dataset with the machines' own counts no session twice.
    let (o, _) = run(
        dir.path(),
        &[
            "import",
            "dataset",
            "merged",
            "machines/*",
            "--out",
            "x",
            "--no-report",
            "--format",
            "json",
        ],
    );
    let doc: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(
        dec(&doc["totals"]["recorded_cost"]),
        per_machine * Decimal::from(10)
    );
}

#[test]
fn names_hide_behind_the_teams_salted_hash_and_no_table_holds_log_text() {
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures();
    let args = |ds: &str| {
        vec![
            "import".to_string(),
            "claude-code".into(),
            fx.display().to_string(),
            "--out".into(),
            "out".into(),
            "--no-report".into(),
            "--dataset".into(),
            ds.into(),
            "--machine".into(),
            "alices-laptop".into(),
            "--user".into(),
            "alice".into(),
            "--anonymise".into(),
        ]
    };
    // Without the salt: a clear error, exit 2, nothing written.
    let out = tokencast()
        .current_dir(dir.path())
        .env_remove("TOKENCAST_SALT")
        .args(args("ds"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("$TOKENCAST_SALT is unset"), "{err}");
    assert!(!dir.path().join("ds").exists());
    for ds in ["ds", "ds2"] {
        let out = tokencast()
            .current_dir(dir.path())
            .env("TOKENCAST_SALT", "a-team-secret-of-some-length")
            .args(args(ds))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut every_string = Vec::new();
    for table in tables::TABLES {
        for (_, t) in read_table(&dir.path().join("ds"), table) {
            for (name, data) in &t.columns {
                if let Data::Str(v) = data {
                    every_string.extend(v.iter().flatten().map(|s| (*name, s.to_string())));
                }
            }
        }
    }
    for (col, v) in &every_string {
        // The fixtures' prompts, tool inputs and results all hold SECRET.
        assert!(!v.contains("SECRET"), "{col}: {v}");
        for name in ["alice", "proj-a", "proj-b"] {
            assert!(!v.contains(name), "{col} shows {name}: {v}");
        }
        if ["host.id", "user.id", "tokencast.project"].contains(col) {
            assert!(v.starts_with("anon-"), "{col}: {v}");
        }
    }
    // One salt, one hash: two imports hide a name alike, so they merge.
    assert_eq!(
        snapshot(&dir.path().join("ds")),
        snapshot(&dir.path().join("ds2"))
    );
}

#[test]
fn bad_datasets_are_refused_with_where_and_what_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let fail = |args: &[&str], want: &str| {
        let out = tokencast()
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    };
    fail(
        &["import", "dataset", "nowhere", "--out", "o", "--no-report"],
        "nowhere: no such file or directory, and no path matches it",
    );
    // A Parquet file of someone else's, where a table's file goes.
    import(dir.path(), "ds", "laptop-1", &[]);
    let victim = walkdir::WalkDir::new(dir.path().join("ds/sessions"))
        .into_iter()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "parquet"))
        .unwrap()
        .into_path();
    let foreign = Table {
        columns: vec![("x", Data::Int(vec![Some(1)]))],
    }
    .to_parquet(&[])
    .unwrap();
    std::fs::write(&victim, &foreign).unwrap();
    fail(
        &["import", "dataset", "ds", "--out", "o", "--no-report"],
        "a Parquet file, but not one tokencast wrote",
    );
    fail(
        &["forecast", "ds", "--no-report"],
        "not one tokencast wrote",
    );
    // An import never replaces it: the file stays as its owner left it.
    let out = tokencast()
        .current_dir(dir.path())
        .args(["import", "claude-code"])
        .arg(fixtures())
        .args([
            "--out",
            "o2",
            "--no-report",
            "--dataset",
            "ds",
            "--machine",
            "laptop-1",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&victim).unwrap(), foreign);
    assert!(!dir.path().join("o2").exists(), "no partial output");
    // Not Parquet at all.
    std::fs::write(&victim, b"not parquet").unwrap();
    fail(
        &["import", "dataset", "ds", "--out", "o", "--no-report"],
        "not a readable tokencast dataset file",
    );
}

#[test]
#[cfg_attr(
    not(has_duckdb),
    ignore = "DuckDB's Python package not found: python3 -m pip install duckdb (.ci/run does), then rebuild"
)]
fn duckdb_reads_the_dataset_and_sums_to_tokencasts_totals() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, _) = import(dir.path(), "ds", "laptop-1", &[]);
    let python = std::env::var("TOKENCAST_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = std::process::Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dataset_totals.py"))
        .arg(dir.path().join("ds"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let n = |v: &serde_json::Value| v.as_str().unwrap().parse::<Decimal>().unwrap().normalize();
    // Per day: tokencast's days table.
    let days = doc["days"].as_array().unwrap();
    assert_eq!(got["per_day"].as_array().unwrap().len(), days.len());
    for (row, day) in got["per_day"].as_array().unwrap().iter().zip(days) {
        assert_eq!(row[0], day["day"]);
        // A day with nothing priced is NULL in both, never 0.
        if day["recorded_cost"].is_null() {
            assert_eq!(row[2], "None", "{row}");
        } else {
            assert_eq!(n(&row[2]), dec(&day["recorded_cost"]).normalize(), "{row}");
        }
    }
    // Per model, by hand (see the first test): sonnet 36,718.5 and haiku
    // 1,475 per million; the unpriced model's sum is NULL, never 0.
    let models = &got["per_model"];
    assert_eq!(models[0][0], "claude-haiku-4-5");
    assert_eq!(n(&models[0][2]), d("0.001475"));
    assert_eq!(models[1][0], "claude-sonnet-4-5");
    assert_eq!(n(&models[1][2]), d("0.0367185"));
    assert_eq!(models[2][2], "None");
    // Per session: the import's sessions, exactly, with the replay's upper bound.
    for s in doc["sessions"].as_array().unwrap() {
        let row = got["per_session"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r[0] == s["session"])
            .unwrap();
        assert_eq!(row[1].as_str().unwrap(), s["requests"].to_string());
        match s["recorded_cost"].is_null() {
            true => assert_eq!(row[2], "None"),
            false => assert_eq!(n(&row[2]), dec(&s["recorded_cost"]).normalize()),
        }
        match s["what_if"].is_null() {
            true => assert_eq!(row[3], "None"),
            false => assert_eq!(
                n(&row[3]),
                dec(&s["what_if"]["as_recorded"]["upper"]).normalize()
            ),
        }
    }
    let s1 = got["per_session"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == S1)
        .unwrap();
    assert_eq!(n(&s1[2]), d("0.0218565"));
    let s3 = got["per_session"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == S3)
        .unwrap();
    assert_eq!(n(&s3[2]), d("0.016337"), "two log files, one session");
    // Tool results: their bytes sum to the import's result bytes.
    let bytes: u64 = got["tool_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[1].as_str().unwrap().parse::<u64>().unwrap())
        .sum();
    let want: u64 = doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["result_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(bytes, want);
}

#[test]
fn a_codex_datasets_counted_tokens_read_back_into_the_same_trace() {
    // Codex outputs are counted with o200k_base at import; the dataset
    // keeps the counts, so a session read back from it replays the same
    // trace, counts and all.
    let dir = tempfile::tempdir().unwrap();
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex/sessions");
    run(
        dir.path(),
        &[
            "import",
            "codex",
            fx.to_str().unwrap(),
            "--out",
            "out",
            "--no-report",
            "--dataset",
            "ds",
            "--machine",
            "m1",
        ],
    );
    run(
        dir.path(),
        &["import", "dataset", "ds", "--out", "again", "--no-report"],
    );
    let rows = read_table(&dir.path().join("ds"), "tool_results");
    let counted: Vec<i64> = rows
        .iter()
        .flat_map(|(_, t)| match t.get("tokencast.o200k_tokens") {
            Some(Data::Int(v)) => v.iter().flatten().copied().collect::<Vec<_>>(),
            _ => Vec::new(),
        })
        .collect();
    // The shell output "SECRET-OUTPUT ö" and the patch tool's 300 × "x".
    let o200k = bpe_openai::o200k_base();
    let mut want = vec![
        o200k.count("SECRET-OUTPUT ö") as i64,
        o200k.count(&"x".repeat(300)) as i64,
    ];
    want.sort();
    let mut got = counted.clone();
    got.sort();
    assert_eq!(got, want);
    let trace = |root: &str| {
        let dir = dir.path().join(root);
        let session = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir())
            .unwrap();
        std::fs::read_to_string(session.join("main.csv")).unwrap()
    };
    assert_eq!(trace("out"), trace("again"));
}

/// Imports the fixtures into the folder `out` alone (no `--dataset`).
fn import_folder(dir: &Path, out: &str, extra: &[&str]) -> serde_json::Value {
    import_into(dir, out, "laptop-1", extra).0
}

/// Every table of a dataset, the rows of all its files in path order.
fn tables_of(root: &Path) -> Vec<Vec<(PathBuf, Table)>> {
    tables::TABLES
        .iter()
        .map(|t| {
            read_table(root, t)
                .into_iter()
                .map(|(p, t)| (p.strip_prefix(root).unwrap().to_path_buf(), t))
                .collect()
        })
        .collect()
}

/// An import folder holds its sessions as a dataset (`OUT/dataset`), so it
/// joins a team's dataset after its logs are gone, row for row what the
/// import with `--dataset` would have written.
#[test]
fn an_import_folder_joins_a_dataset_as_its_logs_would() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_folder(dir.path(), "folder", &[]);
    let (direct, _) = import(dir.path(), "direct", "laptop-1", &[]);
    assert_eq!(doc["totals"], direct["totals"]);
    // The logs are gone; the folder is all there is.
    let (back, err) = run(
        dir.path(),
        &[
            "import",
            "dataset",
            "folder",
            "--dataset",
            "team",
            "--out",
            "again",
            "--no-report",
            "--format",
            "json",
        ],
    );
    assert!(
        err.contains("added 4 session(s) to the dataset team"),
        "{err}"
    );
    let back: serde_json::Value = serde_json::from_str(&back).unwrap();
    for k in ["sessions", "days", "totals", "unpriced"] {
        assert_eq!(doc[k], back[k], "{k}");
    }
    let (team, direct) = (
        tables_of(&dir.path().join("team")),
        tables_of(&dir.path().join("direct")),
    );
    assert_eq!(team[0].len(), 3, "three days of sessions");
    for (i, name) in tables::TABLES.iter().enumerate() {
        assert_eq!(team[i], direct[i], "{name}: the same files and rows");
    }
    // The folder's copy is the folder's files: a later import into it that
    // keeps one session leaves that session's rows alone.
    import_folder(dir.path(), "folder", &["--session", S1]);
    let kept = tables_of(&dir.path().join("folder").join("dataset"));
    let sessions: Vec<Option<String>> = kept[0]
        .iter()
        .flat_map(|(_, t)| strings(t, tables::SESSION))
        .collect();
    assert_eq!(sessions, vec![Some(S1.to_string())]);
    assert!(kept.iter().all(|files| files.len() == 1), "one day left");
}

/// A folder an earlier tokencast wrote holds no rows: refused, saying so.
#[test]
fn an_import_folder_without_its_rows_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    import_folder(dir.path(), "folder", &[]);
    std::fs::remove_dir_all(dir.path().join("folder").join("dataset")).unwrap();
    let out = tokencast()
        .current_dir(dir.path())
        .args([
            "import",
            "dataset",
            "folder",
            "--dataset",
            "team",
            "--no-report",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("folder: no dataset files") && err.contains("import its logs again"),
        "{err}"
    );
    assert!(!dir.path().join("team").exists(), "nothing written");
}

/// `log` as session `sid`'s Claude Code log under `dir/logs`, imported into
/// `dir/out` with its rows in the dataset `dir/ds`: the JSON summary.
fn import_log_with_dataset(dir: &Path, sid: &str, log: &str) -> serde_json::Value {
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::fs::write(dir.join(format!("logs/{sid}.jsonl")), log).unwrap();
    let (o, _) = run(
        dir,
        &[
            "import",
            "claude-code",
            "logs",
            "--out",
            "out",
            "--dataset",
            "ds",
            "--no-report",
            "--format",
            "json",
        ],
    );
    serde_json::from_str(&o).unwrap()
}

#[test]
fn a_fast_mode_request_keeps_its_tier_and_region_apart_from_the_model_id() {
    // Two requests on claude-opus-4-8: the first standard, the second in
    // fast mode in the US region (priced × 2 × 1.1 by the bundled book).
    let sid = "55555555-eeee-4eee-8eee-555555555555";
    let line = |v: serde_json::Value| format!("{v}\n");
    let usage = |w: u64, extra: serde_json::Value| {
        let mut u = serde_json::json!({"input_tokens": 10, "cache_creation_input_tokens": w,
            "cache_read_input_tokens": 0, "output_tokens": 20});
        u.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        u
    };
    let log = [
        line(serde_json::json!({"type": "assistant", "sessionId": sid, "timestamp": "2026-11-20T10:00:01.000Z",
            "message": {"model": "claude-opus-4-8", "id": "m1", "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}],
                "usage": usage(4000, serde_json::json!({"speed": "standard"}))}})),
        line(serde_json::json!({"type": "user", "sessionId": sid, "timestamp": "2026-11-20T10:00:02.000Z",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}})),
        line(serde_json::json!({"type": "assistant", "sessionId": sid, "timestamp": "2026-11-20T10:00:03.000Z",
            "message": {"model": "claude-opus-4-8", "id": "m2", "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "usage": usage(4100, serde_json::json!({"speed": "fast", "inference_geo": "us"}))}})),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let doc = import_log_with_dataset(dir.path(), sid, &log);
    // (10 × 5 + 4,000 × 6.25 + 20 × 25) + (10 × 5 + 4,100 × 6.25 + 20 × 25) × 2.2
    // = 25,550 + 57,585 per million.
    assert_eq!(dec(&doc["sessions"][0]["recorded_cost"]), d("0.083135"));
    let requests = read_table(&dir.path().join("ds"), tables::REQUESTS);
    let t = &requests[0].1;
    let some = |v: &str| Some(v.to_string());
    assert_eq!(
        strings(t, "gen_ai.response.model"),
        vec![some("claude-opus-4-8"), some("claude-opus-4-8")]
    );
    assert_eq!(
        strings(t, "tokencast.service_tier"),
        vec![None, some("fast")]
    );
    assert_eq!(strings(t, "tokencast.region"), vec![None, some("us")]);
    // Read back, the request is priced as it was at import.
    assert_eq!(read_back(dir.path())["sessions"], doc["sessions"]);
}

#[test]
fn a_request_served_by_a_cloud_names_it_as_the_provider() {
    // Claude on Bedrock answers with Anthropic's model id and a message id
    // of its own (msg_bdrk_…); a Bedrock model id names the cloud too.
    let sid = "66666666-ffff-4fff-8fff-666666666666";
    let line = |v: serde_json::Value| format!("{v}\n");
    let answer = |id: &str, model: &str, at: &str| {
        line(
            serde_json::json!({"type": "assistant", "sessionId": sid, "timestamp": at,
            "message": {"model": model, "id": id, "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": 10, "cache_creation_input_tokens": 2000,
                    "cache_read_input_tokens": 0, "output_tokens": 20}}}),
        )
    };
    let log = [
        answer(
            "msg_bdrk_01A",
            "claude-sonnet-4-5-20250929",
            "2026-11-20T10:00:01.000Z",
        ),
        answer(
            "msg_01B",
            "claude-sonnet-4-5-20250929",
            "2026-11-20T10:00:02.000Z",
        ),
        answer(
            "msg_01C",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "2026-11-20T10:00:03.000Z",
        ),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    import_log_with_dataset(dir.path(), sid, &log);
    let requests = read_table(&dir.path().join("ds"), tables::REQUESTS);
    let some = |v: &str| Some(v.to_string());
    assert_eq!(
        strings(&requests[0].1, "gen_ai.provider.name"),
        vec![some("aws.bedrock"), some("anthropic"), some("aws.bedrock")]
    );
}
