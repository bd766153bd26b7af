//! The `tokencast` binary: parse, run, print, exit.

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;
use tokencast::cli::{run, Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(outcome) => {
            let _ = std::io::stdout().write_all(&outcome.stdout);
            for note in outcome.notes {
                eprintln!("{note}");
            }
            for gate in &outcome.gates_crossed {
                eprintln!("{gate}");
            }
            // The process ends here: what the command left is not freed
            // piece by piece (see `Leftovers`).
            std::mem::forget(outcome.leftovers);
            if outcome.gates_crossed.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(tokencast::cli::gate::GATE_EXIT_CODE)
            }
        }
        Err(e) => {
            eprintln!("{}", e.render());
            ExitCode::from(e.exit_code())
        }
    }
}

/// jemalloc rather than glibc's allocator: an import's threads free what
/// others allocated (each session's records, files and dataset rows), and
/// glibc's arenas serialize those frees on their locks. The import of
/// 2,866 small sessions takes 15 % less time, 1 GB of logs 10 % less, at
/// about the same peak (`benches/HISTORY.md`, 2026-12-07 11:05).
#[cfg(all(target_os = "linux", feature = "jemalloc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read once as it starts (`_RJEM_MALLOC_CONF` in the
/// environment overrides them): an arena per CPU rather than four a CPU,
/// which keeps an import's peak where glibc's was (84 MB rather than
/// 100 MB for 1 GB of logs) at the same speed. A NUL-terminated C string,
/// which jemalloc looks up by this name.
#[cfg(all(target_os = "linux", feature = "jemalloc"))]
#[export_name = "_rjem_malloc_conf"]
static MALLOC_CONF: &[u8; 20] = b"percpu_arena:percpu\0";
