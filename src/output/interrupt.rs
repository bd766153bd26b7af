//! Ctrl-C in every command: nothing half-written is left behind.
//!
//! The handler is the process's (a signal is): while no set of files is
//! being written, Ctrl-C ends the run at once (exit code 130; nothing was
//! written yet). While a set is being staged or renamed into place, it only
//! raises the flag: the writer stops at its next file, every temporary file
//! is removed and the run exits with 130; a set already renaming finishes
//! whole, so the folder holds all the old files or all the new ones.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static WRITING: AtomicUsize = AtomicUsize::new(0);

/// The message a run interrupted before it wrote anything ends with.
pub const NOTHING_WRITTEN: &str = "error: interrupted: nothing was written";

/// Installs the handler (once; later calls keep the first).
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        if WRITING.load(Ordering::SeqCst) == 0 {
            eprintln!("{NOTHING_WRITTEN}");
            std::process::exit(130);
        }
    });
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The flag itself, for work that polls it (the forecast).
pub fn flag() -> &'static AtomicBool {
    &INTERRUPTED
}

/// A set of files being written: while one lives, Ctrl-C waits for it.
#[derive(Debug)]
pub struct Writing(());

impl Writing {
    /// Marks a write as under way.
    pub fn begin() -> Writing {
        WRITING.fetch_add(1, Ordering::SeqCst);
        Writing(())
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        WRITING.fetch_sub(1, Ordering::SeqCst);
    }
}
