//! Fuzzes the dataset reader (`import dataset`, `forecast DATASET`): the
//! first byte picks a table (sessions, requests or tool results), the rest
//! is that table's Parquet file of one day; the other two tables hold a
//! valid file tokencast wrote. Both readers must answer with sessions or a
//! located error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokencast::error::InputError;
use tokencast::import::{dataset::store, Filter};

const TABLES: [(&str, &[u8]); 3] = [
    ("sessions", include_bytes!("../seeds/dataset/sessions.parquet")),
    ("requests", include_bytes!("../seeds/dataset/requests.parquet")),
    ("tool_results", include_bytes!("../seeds/dataset/tool_results.parquet")),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tokencast-fuzz-dataset-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (i, (table, seed)) in TABLES.iter().enumerate() {
        let day = dir.join(table).join("day=2026-03-01");
        if std::fs::create_dir_all(&day).is_err() {
            return;
        }
        let file = if usize::from(pick) % 3 == i { bytes } else { seed };
        if std::fs::write(day.join("host-0000000000000000.parquet"), file).is_err() {
            return;
        }
    }
    let _ = store::read(&[dir.clone()], &Filter::default(), |_sessions| {
        Ok::<(), InputError>(())
    });
    let _ = store::costs(&[dir]);
});
