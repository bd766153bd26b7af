//! Fuzzes what tokencast reads back from an output folder: any text as the
//! import manifest (`imported.toml`) and as the commit journal
//! (`.tokencast-journal.json`) that the next run finishes. Nothing outside
//! the folder may change, and nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokencast::import::manifest::Manifest;
use tokencast::output::journal;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(m) = Manifest::parse(text) {
            let _ = m.left_behind(&Manifest::of(Vec::new()));
        }
    }
    let base = std::env::temp_dir().join(format!("tokencast-fuzz-journal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let out = base.join("out");
    if std::fs::create_dir_all(out.join("s")).is_err() {
        return;
    }
    let outside = base.join("victim.toml");
    let files = [
        (outside.clone(), "# tokencast victim\n"),
        (out.join("s/main.toml"), "# tokencast old\n"),
        (out.join("s/.tokencast-a.tmp"), "# tokencast new\n"),
        (out.join(journal::JOURNAL_FILE), ""),
    ];
    for (p, text) in &files {
        let _ = std::fs::write(p, text);
    }
    let _ = std::fs::write(out.join(journal::JOURNAL_FILE), data);
    let _ = journal::recover(&out);
    assert_eq!(
        std::fs::read_to_string(&outside).ok().as_deref(),
        Some("# tokencast victim\n"),
        "a journal changed a file outside its folder"
    );
});
