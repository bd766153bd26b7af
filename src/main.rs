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
