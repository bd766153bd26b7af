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
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}", e.render());
            ExitCode::from(e.exit_code())
        }
    }
}
