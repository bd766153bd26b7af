//! Two things the crate needs from outside its own source:
//! - whether Chromium is installed, so the browser test is reported as
//!   *ignored* (not as passed) on a machine without it;
//! - the page's engine: `src/web` built for `wasm32-wasip1` (a target
//!   `rust-toolchain.toml` names), gzipped and base64-encoded into
//!   `OUT_DIR/engine.wasm.gz.b64`. When it cannot be built (no wasm target),
//!   the pages are made without it, as still pictures, and cargo says why.
//!   It is WASI, not `wasm32-unknown-unknown`, because plotters measures
//!   text through the browser's DOM on the latter; on WASI it estimates
//!   text as it does natively, so the page's charts are the command line's.

use base64::Engine as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const CANDIDATES: [&str; 2] = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_chromium)");
    println!("cargo::rerun-if-env-changed=CHROMIUM");
    // A missing file would make cargo run this script (and build the crate)
    // on every command; its folder changes when Chromium is installed.
    for c in CANDIDATES {
        let watched = Path::new(c);
        match watched.parent() {
            Some(dir) if !watched.exists() => println!("cargo::rerun-if-changed={}", dir.display()),
            _ => println!("cargo::rerun-if-changed={c}"),
        }
    }
    let found = std::env::var_os("CHROMIUM").is_some_and(|p| Path::new(&p).exists())
        || CANDIDATES.iter().any(|c| Path::new(c).exists());
    if found {
        println!("cargo::rustc-cfg=has_chromium");
    }
    firefox();
    duckdb();
    web_engine();
}

/// Sets `has_firefox` when Firefox ESR (or `$FIREFOX`) is there: the live
/// page is tested in it too.
fn firefox() {
    const FIREFOX: &str = "/usr/bin/firefox-esr";
    println!("cargo::rustc-check-cfg=cfg(has_firefox)");
    println!("cargo::rerun-if-env-changed=FIREFOX");
    let watched = Path::new(FIREFOX);
    match watched.parent() {
        Some(dir) if !watched.exists() => println!("cargo::rerun-if-changed={}", dir.display()),
        _ => println!("cargo::rerun-if-changed={FIREFOX}"),
    }
    let found =
        std::env::var_os("FIREFOX").is_some_and(|p| Path::new(&p).exists()) || watched.exists();
    if found {
        println!("cargo::rustc-cfg=has_firefox");
    }
}

/// Sets `has_duckdb` when `python3` can import DuckDB's Python package
/// (installed by `.ci/run`): the dataset test reads the dataset with it.
fn duckdb() {
    println!("cargo::rustc-check-cfg=cfg(has_duckdb)");
    println!("cargo::rerun-if-env-changed=TOKENCAST_PYTHON");
    let python = std::env::var("TOKENCAST_PYTHON").unwrap_or_else(|_| "python3".into());
    let found = Command::new(&python)
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        println!("cargo::rustc-cfg=has_duckdb");
    }
}

/// Builds the page's engine with the cargo that runs this script, into its
/// own target folder (so it never waits on this build's lock), and writes it
/// for `include_str!`; or writes nothing and sets `no_web_engine`.
fn web_engine() {
    println!("cargo::rustc-check-cfg=cfg(no_web_engine)");
    for watched in ["src/core", "src/charts", "src/web", "Cargo.lock"] {
        println!("cargo::rerun-if-changed={watched}");
    }
    println!("cargo::rerun-if-env-changed=TOKENCAST_NO_WEB_ENGINE");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let target = out.join("engine.wasm.gz.b64");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| manifest.join("target"), PathBuf::from)
        .join("web-engine");
    let built = match std::env::var_os("TOKENCAST_NO_WEB_ENGINE") {
        Some(_) => Err("TOKENCAST_NO_WEB_ENGINE is set".to_string()),
        None => build_engine(&manifest, &dir),
    };
    match built.and_then(|wasm| encode(&wasm)) {
        Ok(b64) => std::fs::write(&target, b64).expect("OUT_DIR is writable"),
        Err(why) => {
            println!("cargo::warning=pages are made without their engine (still pictures): {why}");
            println!("cargo::rustc-cfg=no_web_engine");
            std::fs::write(&target, "").expect("OUT_DIR is writable");
        }
    }
}

/// The page engine's target (see the module's note).
const WASM_TARGET: &str = "wasm32-wasip1";

/// Adds the engine's target when rustup manages this toolchain and lacks
/// it: `rust-toolchain.toml` names it, but rustup fetches a toolchain file's
/// targets only when it installs the toolchain, so a machine that already
/// had stable would otherwise build pages without their engine.
fn ensure_target() {
    let Some(toolchain) = std::env::var_os("RUSTUP_TOOLCHAIN") else {
        return;
    };
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(sysroot) = Command::new(rustc).args(["--print", "sysroot"]).output() else {
        return;
    };
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    if sysroot.join("lib/rustlib").join(WASM_TARGET).exists() {
        return;
    }
    let added = Command::new("rustup")
        .args(["target", "add", WASM_TARGET, "--toolchain"])
        .arg(&toolchain)
        .output();
    if added.is_ok_and(|o| o.status.success()) {
        println!(
            "cargo::warning=added the target {WASM_TARGET} that rust-toolchain.toml names (rustup target add), for the page's engine"
        );
    }
}

fn build_engine(manifest: &Path, dir: &Path) -> Result<Vec<u8>, String> {
    ensure_target();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(manifest)
        .args([
            "build",
            "--locked",
            "-p",
            "tokencast-web",
            "--profile",
            "web",
        ])
        .args(["--target", WASM_TARGET, "--target-dir"])
        .arg(dir);
    // This build's flags and wrappers (clippy's driver, host-only flags) are
    // not the engine's.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
    ] {
        cmd.env_remove(var);
    }
    let run = cmd
        .output()
        .map_err(|e| format!("cargo could not be started: {e}"))?;
    if !run.status.success() {
        let err = String::from_utf8_lossy(&run.stderr);
        let last: Vec<&str> = err.lines().rev().take(6).collect();
        return Err(format!(
            "building src/web for {WASM_TARGET} failed (is the target installed? `rustup target add {WASM_TARGET}`): {}",
            last.into_iter().rev().collect::<Vec<_>>().join(" | ")
        ));
    }
    let wasm = dir.join(WASM_TARGET).join("web/tokencast_web.wasm");
    std::fs::read(&wasm).map_err(|e| format!("{} could not be read: {e}", wasm.display()))
}

/// gzip (the browser's `DecompressionStream` opens it), then base64.
fn encode(wasm: &[u8]) -> Result<String, String> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(wasm).map_err(|e| e.to_string())?;
    let gz = gz.finish().map_err(|e| e.to_string())?;
    Ok(base64::engine::general_purpose::STANDARD.encode(gz))
}
