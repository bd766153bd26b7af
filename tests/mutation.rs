//! A CLI-level mutation test: the research scenario, its price book, its
//! trace, a saved result and the command-line arguments, each mutated a few
//! hundred times with a fixed seed, through the real binary. Any panic, abort,
//! hang or exit code other than 0 and 2 fails the test, naming the mutation
//! (the seed makes it reproducible).

mod common;
use common::tokencast;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::fs;
use std::path::Path;
use std::time::Duration;

/// Values that have broken parsers before: signs, extremes, exponents, empty
/// strings, odd bytes, a long run of text.
const MAGIC: [&str; 16] = [
    "-1",
    "0",
    "18446744073709551616",
    "79228162514264337593543950335",
    "0.0000000000000000000000000001",
    "1e309",
    "nan",
    "\"\"",
    "\"-5\"",
    "[",
    "{}",
    "=",
    ",,,,",
    "\u{ff}\u{fe}",
    "\"9999999999999999999999999\"",
    "true",
];

/// One mutation of `input`: a byte flipped, a range deleted or repeated, a
/// magic value written over a number, or the text cut short.
fn mutate(input: &[u8], rng: &mut Pcg64Mcg) -> (Vec<u8>, String) {
    let mut out = input.to_vec();
    let at = rng.random_range(0..out.len().max(1));
    match rng.random_range(0..6) {
        0 => {
            let b = rng.random_range(0..=255u8);
            if let Some(x) = out.get_mut(at) {
                *x = b;
            }
            (out, format!("byte {at} set to {b}"))
        }
        1 => {
            let end = (at + rng.random_range(1..64)).min(out.len());
            out.drain(at..end);
            (out, format!("bytes {at}..{end} deleted"))
        }
        2 => {
            let end = (at + rng.random_range(1..200)).min(out.len());
            let piece = out[at..end].to_vec();
            let times = rng.random_range(2..50);
            for _ in 0..times {
                out.splice(end..end, piece.iter().copied());
            }
            (out, format!("bytes {at}..{end} repeated {times} times"))
        }
        3 | 4 => {
            // Over the next number (or at the position when there is none).
            let start = out[at..]
                .iter()
                .position(u8::is_ascii_digit)
                .map_or(at, |i| at + i);
            let end = out[start..]
                .iter()
                .position(|b| !b.is_ascii_digit() && *b != b'.')
                .map_or(out.len(), |i| start + i);
            let magic = MAGIC[rng.random_range(0..MAGIC.len())];
            out.splice(start..end, magic.bytes());
            (out, format!("bytes {start}..{end} replaced by {magic:?}"))
        }
        _ => {
            out.truncate(at);
            (out, format!("cut at byte {at}"))
        }
    }
}

/// Runs the binary; panics with `what` when it crashes, hangs or exits with
/// a code other than 0 and 2.
fn survives(dir: &Path, args: &[String], what: &str) {
    let out = tokencast()
        .current_dir(dir)
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 2)) && !err.contains("panicked"),
        "{what}: `tokencast {}` ended with {:?}:\n{}",
        args.join(" "),
        out.status.code(),
        err.chars().take(2000).collect::<String>()
    );
}

/// `runs` mutations of `file` (relative to a copy of `scenarios/`), each run
/// through `args`.
fn mutate_file(file: &str, args: &[&str], runs: usize, seed: u64) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&root, dir.path());
    let original = fs::read(root.join(file)).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    for i in 0..runs {
        let (bytes, what) = mutate(&original, &mut rng);
        fs::write(dir.path().join(file), &bytes).unwrap();
        survives(
            dir.path(),
            &args,
            &format!("{file}, seed {seed}, run {i}: {what}"),
        );
    }
}

const SIMULATE: [&str; 5] = [
    "simulate",
    "research.toml",
    "--no-report",
    "--format",
    "json",
];

#[test]
fn mutated_scenarios_never_crash() {
    mutate_file("research.toml", &SIMULATE, 120, 1);
}

#[test]
fn mutated_price_books_never_crash() {
    mutate_file("prices/anthropic.toml", &SIMULATE, 80, 2);
}

#[test]
fn mutated_traces_never_crash() {
    mutate_file("traces/research-trace.csv", &SIMULATE, 120, 3);
}

#[test]
fn mutated_saved_results_never_crash() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&root, dir.path());
    let out = tokencast()
        .current_dir(dir.path())
        .args(SIMULATE)
        .output()
        .unwrap();
    fs::write(dir.path().join("saved.json"), &out.stdout).unwrap();
    drop(dir);
    // The saved result sits beside the scenario it came from.
    let dir2 = tempfile::tempdir().unwrap();
    common::copy_dir(&root, dir2.path());
    fs::write(dir2.path().join("saved.json"), &out.stdout).unwrap();
    let original = out.stdout;
    let mut rng = Pcg64Mcg::seed_from_u64(4);
    for i in 0..80 {
        let (bytes, what) = mutate(&original, &mut rng);
        fs::write(dir2.path().join("saved.json"), &bytes).unwrap();
        let format = ["table", "json", "html"][i % 3];
        let args: Vec<String> = ["diff", "saved.json", "research.toml", "--format", format]
            .iter()
            .map(|a| a.to_string())
            .collect();
        survives(
            dir2.path(),
            &args,
            &format!("saved.json, seed 4, run {i}: {what}"),
        );
    }
}

#[test]
fn mutated_arguments_never_crash() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&root, dir.path());
    let commands: [&[&str]; 3] = [
        &[
            "sweep",
            "research.toml",
            "--vary",
            "output_tokens_per_step=0..1000:500",
            "--no-report",
        ],
        &[
            "forecast",
            "research.toml",
            "--calls",
            "4",
            "--runs",
            "64",
            "--budget",
            "2.5",
            "--no-report",
        ],
        &[
            "sweep",
            "research.toml",
            "--vary",
            "trim_ratio=0.1..0.3:0.1",
            "--vary",
            "cache=none,5m",
            "--no-report",
        ],
    ];
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    for i in 0..90 {
        let base = commands[i % commands.len()];
        let mut args: Vec<String> = base.iter().map(|a| a.to_string()).collect();
        // Mutate one argument after the scenario (never the command itself).
        let k = rng.random_range(2..args.len());
        let (bytes, what) = mutate(args[k].as_bytes(), &mut rng);
        args[k] = String::from_utf8_lossy(&bytes).into_owned();
        survives(
            dir.path(),
            &args,
            &format!("arguments, seed 5, run {i}: argument {k} {what}"),
        );
    }
}
