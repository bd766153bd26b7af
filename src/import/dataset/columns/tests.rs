//! Unit tests of the parent module.

use super::*;
use parquet::file::metadata::{
    ColumnChunkMetaDataBuilder, ParquetMetaDataReader, ParquetMetaDataWriter,
};

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn sample() -> Table {
    Table {
        columns: vec![
            ("n", Data::Int(vec![Some(1), None, Some(-7)])),
            ("b", Data::Bool(vec![None, Some(true), Some(false)])),
            (
                "s",
                Data::Str([Some("a.b"), Some(""), None].into_iter().collect()),
            ),
            (
                "t",
                Data::Time(vec![Some(1_764_633_600_000), None, Some(0)]),
            ),
            (
                "usd",
                Data::Money(vec![Some(d("0.000000375")), Some(d("-12.5")), None]),
            ),
        ],
    }
}

#[test]
fn a_string_column_keeps_each_row_apart_across_appends() {
    let mut a: Strs = [Some("Read"), None, Some("")].into_iter().collect();
    let b: Strs = [Some("é→x"), Some("Bash"), None].into_iter().collect();
    a.append(&b);
    let rows: Vec<Option<&str>> = a.iter().collect();
    assert_eq!(
        rows,
        [
            Some("Read"),
            None,
            Some(""),
            Some("é→x"),
            Some("Bash"),
            None
        ]
    );
    assert_eq!(a.len(), 6);
    // Through a Parquet file and back, nulls and empty strings apart.
    let t = Table {
        columns: vec![("s", Data::Str(a.clone()))],
    };
    let bytes = t.to_parquet(&[]).unwrap();
    let (back, _) =
        Table::from_parquet(Bytes::from(bytes), &[("s", Data::Str(Strs::default()))]).unwrap();
    assert_eq!(back.columns[0].1, Data::Str(a));
}

#[test]
fn a_table_reads_back_as_written_with_its_metadata() {
    let t = sample();
    let meta = vec![("tokencast.table".to_string(), "x".to_string())];
    let bytes = t.to_parquet(&meta).unwrap();
    assert_eq!(&bytes[..4], b"PAR1");
    assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
    let want: Vec<(&'static str, Data)> = t
        .columns
        .iter()
        .map(|(n, d)| (*n, d.empty_like()))
        .collect();
    let (back, kv) = Table::from_parquet(Bytes::from(bytes.clone()), &want).unwrap();
    assert_eq!(back, t);
    assert!(kv.contains(&meta[0]));
    // The same table gives the same bytes.
    assert_eq!(t.to_parquet(&meta).unwrap(), bytes);
}

/// `sample()` written, with its first column chunk's metadata changed
/// by `edit` and the footer written again.
fn with_chunk(edit: impl Fn(ColumnChunkMetaDataBuilder) -> ColumnChunkMetaDataBuilder) -> Bytes {
    let bytes = Bytes::from(sample().to_parquet(&[]).unwrap());
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&bytes)
        .unwrap();
    let footer = u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap());
    let body = bytes.len() - 8 - footer as usize;
    let group = meta.row_group(0).clone();
    let mut columns = group.columns().to_vec();
    columns[0] = edit(columns[0].clone().into_builder()).build().unwrap();
    let group = group
        .into_builder()
        .set_column_metadata(columns)
        .build()
        .unwrap();
    let meta = meta.into_builder().set_row_groups(vec![group]).build();
    let mut out = bytes[..body].to_vec();
    ParquetMetaDataWriter::new(&mut out, &meta)
        .finish()
        .unwrap();
    Bytes::from(out)
}

#[test]
fn a_chunk_placed_outside_the_file_is_an_error_not_a_panic() {
    let want: Vec<(&'static str, Data)> = sample()
        .columns
        .iter()
        .map(|(n, d)| (*n, d.empty_like()))
        .collect();
    // The footer rewrite alone keeps the file readable.
    let same = with_chunk(|c| c);
    assert_eq!(Table::from_parquet(same, &want).unwrap().0, sample());
    // A negative offset (the parquet crate asserts on it) and a size
    // running past the end are both refused with the column named.
    for bad in [
        with_chunk(|c| c.set_data_page_offset(-5).set_dictionary_page_offset(None)),
        with_chunk(|c| c.set_total_compressed_size(1 << 40)),
        with_chunk(|c| c.set_total_compressed_size(-1)),
    ] {
        let err = Table::from_parquet(bad, &want).unwrap_err().to_string();
        assert!(
            err.contains("column \"n\"") && err.contains("outside the file"),
            "{err}"
        );
    }
}

#[test]
fn money_is_an_exact_decimal_of_eighteen_places() {
    // 0.000000375 at scale 18 is the integer 375,000,000,000.
    assert_eq!(
        i128::from_be_bytes(money_bytes(d("0.000000375"))),
        375_000_000_000
    );
    assert_eq!(
        i128::from_be_bytes(money_bytes(d("-1"))),
        -1_000_000_000_000_000_000
    );
    assert_eq!(money_of(&money_bytes(d("41819.75"))), Some(d("41819.75")));
}

#[test]
fn a_missing_column_reads_as_nulls_and_a_wrong_kind_is_an_error() {
    let bytes = sample().to_parquet(&[]).unwrap();
    let (t, _) = Table::from_parquet(
        Bytes::from(bytes.clone()),
        &[("absent", Data::Int(Vec::new()))],
    )
    .unwrap();
    assert_eq!(t.get("absent"), Some(&Data::Int(vec![None, None, None])));
    let e = Table::from_parquet(Bytes::from(bytes), &[("s", Data::Int(Vec::new()))]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "column `s`: holds strings, where INT64 was expected"
    );
}

#[test]
fn parts_are_copied_into_a_file_as_row_groups_before_the_rows_held() {
    // Two parts of the sample's rows, then one more row held as built.
    let parts = vec![sample().to_part().unwrap(), sample().to_part().unwrap()];
    let mut held = sample().empty_like();
    held.push_row(&sample(), 2);
    let meta = [("k".to_string(), "v".to_string())];
    let bytes = held.to_parquet_after(parts.clone(), &meta).unwrap();
    let want = sample().columns;
    let (back, kv) = Table::from_parquet(Bytes::from(bytes.clone()), &want).unwrap();
    let mut all = sample();
    all.append(sample());
    all.push_row(&sample(), 2);
    assert_eq!(back, all);
    assert_eq!(kv, meta);
    let file = ParquetMetaDataReader::new()
        .parse_and_finish(&Bytes::from(bytes))
        .unwrap();
    assert_eq!(file.num_row_groups(), 3);
    assert_eq!(
        file.row_groups()
            .iter()
            .map(|g| g.num_rows())
            .collect::<Vec<_>>(),
        [3, 3, 1]
    );
    // Every copied chunk keeps its statistics and its offset index, whose
    // pages are where the chunk now is.
    assert!(file
        .row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .all(|c| c.statistics().is_some() && c.offset_index_offset().is_some()));
    let bytes = Bytes::from(held.to_parquet_after(parts.clone(), &meta).unwrap());
    let indexed = ParquetMetaDataReader::new()
        .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Required)
        .parse_and_finish(&bytes)
        .unwrap();
    let pages = indexed.page_index().unwrap();
    for (g, rg) in indexed.row_groups().iter().enumerate() {
        for (c, column) in rg.columns().iter().enumerate() {
            let first = &pages.offset_index(g, c).unwrap().page_locations()[0];
            let start = column
                .dictionary_page_offset()
                .unwrap_or_else(|| column.data_page_offset());
            assert!(first.offset >= start, "row group {g}, column {c}");
            assert!(
                first.offset < start + column.compressed_size(),
                "row group {g}, column {c}"
            );
        }
    }
    // No row held: the parts alone. No part: the rows held, as to_parquet.
    let only_parts = sample()
        .empty_like()
        .to_parquet_after(parts, &meta)
        .unwrap();
    let (back, _) = Table::from_parquet(Bytes::from(only_parts), &want).unwrap();
    let mut two = sample();
    two.append(sample());
    assert_eq!(back, two);
    assert_eq!(
        sample().to_parquet_after(Vec::new(), &meta).unwrap(),
        sample().to_parquet(&meta).unwrap()
    );
}

#[test]
fn a_part_of_other_columns_is_refused() {
    let other = Table {
        columns: vec![("n", Data::Int(vec![Some(1)]))],
    };
    let err = sample()
        .to_parquet_after(vec![other.to_part().unwrap()], &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("other columns than the table"), "{err}");
}

#[test]
fn pieces_put_together_hold_every_row_in_order_with_room_made_once() {
    let other = Table {
        columns: vec![
            ("n", Data::Int(vec![Some(40)])),
            ("b", Data::Bool(vec![Some(true)])),
            ("s", Data::Str([Some("é→x")].into_iter().collect())),
            ("t", Data::Time(vec![None])),
            ("usd", Data::Money(vec![Some(d("2"))])),
        ],
    };
    let mut pieces = Pieces::default();
    pieces.push(sample());
    pieces.push(sample().empty_like());
    pieces.push(other.clone());
    pieces.push(sample());
    assert_eq!(pieces.rows(), 7);
    let t = pieces.into_table();
    assert_eq!(t.rows(), 7);
    // Row by row: the first piece, the second (the piece without rows
    // added none), the third.
    let want = [sample(), other, sample()];
    let mut at = 0;
    for piece in &want {
        for i in 0..piece.rows() {
            for ((name, got), (_, w)) in t.columns.iter().zip(&piece.columns) {
                let mut one = w.empty_like();
                one.push_from(w, i);
                let mut mine = got.empty_like();
                mine.push_from(got, at);
                assert_eq!(mine, one, "column {name}, row {at}");
            }
            at += 1;
        }
    }
    // Room for the rows was made once, to the row: no vector grew past them.
    for (name, data) in &t.columns {
        let (len, cap) = match data {
            Data::Int(v) | Data::Time(v) => (v.len(), v.capacity()),
            Data::Bool(v) => (v.len(), v.capacity()),
            Data::Money(v) => (v.len(), v.capacity()),
            Data::Str(s) => (s.ends.len(), s.ends.capacity()),
        };
        assert_eq!(cap, len, "column {name}");
    }
    assert_eq!(Pieces::default().into_table(), Table::default());
}
