//! Tells the test suite whether Chromium is installed, so the browser test is
//! reported as *ignored* (not as passed) on a machine without it.

use std::path::Path;

const CANDIDATES: [&str; 2] = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_chromium)");
    println!("cargo::rerun-if-env-changed=CHROMIUM");
    for c in CANDIDATES {
        println!("cargo::rerun-if-changed={c}");
    }
    let found = std::env::var_os("CHROMIUM").is_some_and(|p| Path::new(&p).exists())
        || CANDIDATES.iter().any(|c| Path::new(c).exists());
    if found {
        println!("cargo::rustc-cfg=has_chromium");
    }
}
