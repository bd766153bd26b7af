//! The floor a trace read is measured against: the csv crate reading the
//! same file as `ByteRecord`s and summing the `raw_bytes` column (what a
//! replay needs at the least), with no checking and no row kept.
//!
//!   cargo run --release --example csv_floor -- TRACE.csv

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: csv_floor TRACE.csv")?;
    let mut reader = csv::Reader::from_path(&path)?;
    let col = reader
        .byte_headers()?
        .iter()
        .position(|h| h == b"raw_bytes")
        .ok_or("no raw_bytes column")?;
    let mut record = csv::ByteRecord::new();
    let (mut rows, mut sum) = (0u64, 0u128);
    while reader.read_byte_record(&mut record)? {
        let field = std::str::from_utf8(&record[col])?;
        sum += u128::from(field.trim().parse::<u64>().unwrap_or(0));
        rows += 1;
    }
    println!("{rows} rows, {sum} raw bytes");
    Ok(())
}
