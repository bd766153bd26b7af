//! A table as named columns, and its Parquet file: written with the
//! `parquet` crate's column writers (no Arrow: the build stays small) and
//! read back column by column, by name.
//!
//! Every column is `OPTIONAL` (a null is a value the log did not have), one
//! of five kinds: 64-bit integers, booleans, UTF-8 strings, timestamps (UTC,
//! milliseconds) and exact decimals (`DECIMAL(38, 18)`, a 16-byte
//! two's-complement integer of attodollars: money is never a float).

use bytes::Bytes;
use parquet::basic::{
    Compression, DecimalType, LogicalType, Repetition, TimeUnit, TimestampType, Type as Physical,
};
use parquet::column::reader::ColumnReader;
use parquet::column::writer::ColumnWriter;
use parquet::data_type::{ByteArray, FixedLenByteArray};
use parquet::file::metadata::{KeyValue, ParquetMetaData};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, Type};
use rust_decimal::Decimal;
use std::sync::Arc;

/// String columns whose values are mostly distinct (no dictionary).
const UNIQUE_STRINGS: [&str; 4] = [
    "gen_ai.response.id",
    "tokencast.timestamp_text",
    "tokencast.carried_by_response_id",
    "tokencast.started_text",
];

/// Decimal places of every money column.
pub const SCALE: u32 = 18;
/// Digits of every money column.
pub const PRECISION: i32 = 38;

/// One column's values.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// `INT64`.
    Int(Vec<Option<i64>>),
    /// `BOOLEAN`.
    Bool(Vec<Option<bool>>),
    /// `BYTE_ARRAY (STRING)`.
    Str(Strs),
    /// `INT64 (TIMESTAMP(MILLIS, true))`.
    Time(Vec<Option<i64>>),
    /// `FIXED_LEN_BYTE_ARRAY(16) (DECIMAL(38, 18))`.
    Money(Vec<Option<Decimal>>),
}

/// A string column as one buffer: each row's end in it, and whether the
/// row has a value. A row costs no allocation of its own when it is built,
/// read from Parquet or written to it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Strs {
    text: String,
    ends: Vec<usize>,
    present: Vec<bool>,
}

impl Strs {
    /// Rows.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Adds a row.
    pub fn push(&mut self, v: Option<&str>) {
        if let Some(v) = v {
            self.text.push_str(v);
        }
        self.ends.push(self.text.len());
        self.present.push(v.is_some());
    }

    /// Row `i`'s value.
    pub fn get(&self, i: usize) -> Option<&str> {
        if !self.present[i] {
            return None;
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.text[start..self.ends[i]])
    }

    /// Every row's value, in order.
    pub fn iter(&self) -> impl Iterator<Item = Option<&str>> + Clone {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Adds `other`'s rows after these.
    pub fn append(&mut self, other: &Strs) {
        let base = self.text.len();
        self.text.push_str(&other.text);
        self.ends.extend(other.ends.iter().map(|e| e + base));
        self.present.extend_from_slice(&other.present);
    }
}

impl<'a> FromIterator<Option<&'a str>> for Strs {
    fn from_iter<I: IntoIterator<Item = Option<&'a str>>>(iter: I) -> Strs {
        let mut out = Strs::default();
        for v in iter {
            out.push(v);
        }
        out
    }
}

impl Data {
    /// Makes room for `rows` more rows (and, for strings, `text` more bytes).
    fn reserve(&mut self, rows: usize, text: usize) {
        match self {
            Data::Int(v) | Data::Time(v) => v.reserve_exact(rows),
            Data::Bool(v) => v.reserve_exact(rows),
            Data::Str(s) => {
                s.text.reserve_exact(text);
                s.ends.reserve_exact(rows);
                s.present.reserve_exact(rows);
            }
            Data::Money(v) => v.reserve_exact(rows),
        }
    }

    /// Bytes of text (strings; 0 for other kinds).
    fn text_len(&self) -> usize {
        match self {
            Data::Str(s) => s.text.len(),
            _ => 0,
        }
    }

    /// Rows.
    pub fn len(&self) -> usize {
        match self {
            Data::Int(v) | Data::Time(v) => v.len(),
            Data::Bool(v) => v.len(),
            Data::Str(v) => v.len(),
            Data::Money(v) => v.len(),
        }
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The same kind, empty.
    pub fn empty_like(&self) -> Data {
        match self {
            Data::Int(_) => Data::Int(Vec::new()),
            Data::Time(_) => Data::Time(Vec::new()),
            Data::Bool(_) => Data::Bool(Vec::new()),
            Data::Str(_) => Data::Str(Strs::default()),
            Data::Money(_) => Data::Money(Vec::new()),
        }
    }

    /// Appends row `i` of `other` (of the same kind).
    pub fn push_from(&mut self, other: &Data, i: usize) {
        match (self, other) {
            (Data::Int(a), Data::Int(b)) | (Data::Time(a), Data::Time(b)) => a.push(b[i]),
            (Data::Bool(a), Data::Bool(b)) => a.push(b[i]),
            (Data::Str(a), Data::Str(b)) => a.push(b.get(i)),
            (Data::Money(a), Data::Money(b)) => a.push(b[i]),
            _ => unreachable!("columns of one table have one kind each"),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Data::Int(_) => "INT64",
            Data::Time(_) => "TIMESTAMP",
            Data::Bool(_) => "BOOLEAN",
            Data::Str(_) => "STRING",
            Data::Money(_) => "DECIMAL(38,18)",
        }
    }
}

/// A table: named columns of equal length.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// In schema order.
    pub columns: Vec<(&'static str, Data)>,
}

/// Rows as built, a table at a time (a session's rows, as they come), put
/// together into one table only when they are written, with room for all
/// of them made once: appended as they came, every column's vector grew
/// by doubling and was copied each time (about a fifth of the dataset writer's
/// time on an import of small sessions).
#[derive(Debug, Default)]
pub struct Pieces(Vec<Table>);

impl Pieces {
    /// Rows in all the pieces.
    pub fn rows(&self) -> usize {
        self.0.iter().map(Table::rows).sum()
    }

    /// Adds `t`'s rows after the others (a table without rows adds none).
    pub fn push(&mut self, t: Table) {
        if t.rows() > 0 {
            self.0.push(t);
        }
    }

    /// The rows in one table, in order (none: a table without columns).
    pub fn into_table(self) -> Table {
        let mut pieces = self.0.into_iter();
        let Some(mut t) = pieces.next() else {
            return Table::default();
        };
        let rest: Vec<Table> = pieces.collect();
        for (c, (_, d)) in t.columns.iter_mut().enumerate() {
            let of = |p: &Table| p.columns.get(c).map(|(_, d)| (d.len(), d.text_len()));
            let (rows, text) = rest
                .iter()
                .filter_map(of)
                .fold((0, 0), |(r, b), (pr, pb)| (r + pr, b + pb));
            d.reserve(rows, text);
        }
        for p in rest {
            t.append(p);
        }
        t
    }
}

/// Why a Parquet file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ColumnsError {
    /// The `parquet` crate's error.
    #[error("{0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// The file's metadata describes data that is not in the file.
    #[error("{0}")]
    Layout(String),
    /// A column this table needs is missing or of another kind.
    #[error("column `{name}`: {why}")]
    Column {
        /// The column.
        name: &'static str,
        /// What is wrong.
        why: String,
    },
}

impl Table {
    /// Rows (of the first column).
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, d)| d.len())
    }

    /// The column named `name`.
    pub fn get(&self, name: &str) -> Option<&Data> {
        self.columns
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| d)
    }

    /// The same columns, without rows.
    pub fn empty_like(&self) -> Table {
        Table {
            columns: self
                .columns
                .iter()
                .map(|(n, d)| (*n, d.empty_like()))
                .collect(),
        }
    }

    /// Appends every row of `other`, which has the same columns (or none:
    /// an empty table takes `other`'s).
    pub fn append(&mut self, other: Table) {
        if self.columns.is_empty() {
            *self = other;
            return;
        }
        if other.columns.is_empty() {
            return;
        }
        for ((_, a), (_, b)) in self.columns.iter_mut().zip(other.columns) {
            match (a, b) {
                (Data::Int(a), Data::Int(b)) | (Data::Time(a), Data::Time(b)) => a.extend(b),
                (Data::Bool(a), Data::Bool(b)) => a.extend(b),
                (Data::Str(a), Data::Str(b)) => a.append(&b),
                (Data::Money(a), Data::Money(b)) => a.extend(b),
                _ => unreachable!("columns of one table have one kind each"),
            }
        }
    }

    /// Appends row `i` of `other`, which has the same columns.
    pub fn push_row(&mut self, other: &Table, i: usize) {
        for ((_, a), (_, b)) in self.columns.iter_mut().zip(&other.columns) {
            a.push_from(b, i);
        }
    }

    /// The Parquet file: one row group, Snappy pages, `metadata` as the
    /// footer's key-value pairs. The same table gives the same bytes.
    pub fn to_parquet(&self, metadata: &[(String, String)]) -> Result<Vec<u8>, ColumnsError> {
        let mut out = Vec::new();
        let mut writer = self.writer(&mut out, metadata)?;
        self.write_group(&mut writer)?;
        writer.close()?;
        Ok(out)
    }

    /// A part of a table held in memory until its file is written: a file
    /// of its rows without metadata, whose row group
    /// [`Table::to_parquet_after`] copies into the file as it is (or
    /// [`Table::from_parquet`] reads back).
    pub fn to_part(&self) -> Result<Vec<u8>, ColumnsError> {
        self.to_parquet(&[])
    }

    /// The Parquet file of `parts` ([`Table::to_part`]s of tables with these
    /// columns, in order) and then these rows: each part's row group copied
    /// into the file as it was encoded (nothing decoded or encoded again),
    /// then these rows as one more row group when there are any (or no
    /// part). A part of other columns is an error.
    pub fn to_parquet_after(
        &self,
        parts: Vec<Vec<u8>>,
        metadata: &[(String, String)],
    ) -> Result<Vec<u8>, ColumnsError> {
        use parquet::column::writer::ColumnCloseResult;
        use parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
        let mut out = Vec::new();
        let mut writer = self.writer(&mut out, metadata)?;
        let any_part = !parts.is_empty();
        for part in parts {
            let bytes = Bytes::from(part);
            // With its offset index (each page's place), moved with the
            // chunk as the file's other row group has its own.
            let meta = ParquetMetaDataReader::new()
                .with_page_index_policy(PageIndexPolicy::Optional)
                .parse_and_finish(&bytes)?;
            check_chunks(&meta, bytes.len())?;
            let same = meta.file_metadata().schema_descr().root_schema()
                == writer.schema_descr().root_schema();
            if !same {
                return Err(ColumnsError::Layout(
                    "a part of the table has other columns than the table".into(),
                ));
            }
            let pages = meta.page_index();
            for (g, rg) in meta.row_groups().iter().enumerate() {
                let mut group = writer.next_row_group()?;
                for (c, column) in rg.columns().iter().enumerate() {
                    group.append_column(
                        &bytes,
                        ColumnCloseResult {
                            bytes_written: u64::try_from(column.compressed_size()).unwrap_or(0),
                            rows_written: u64::try_from(rg.num_rows()).unwrap_or(0),
                            metadata: column.clone(),
                            bloom_filter: None,
                            column_index: None,
                            offset_index: pages.and_then(|p| p.offset_index(g, c)).cloned(),
                        },
                    )?;
                }
                group.close()?;
            }
        }
        if self.rows() > 0 || !any_part {
            self.write_group(&mut writer)?;
        }
        writer.close()?;
        Ok(out)
    }

    /// A file writer of this table's columns into `out`: Snappy pages,
    /// column-chunk statistics, `metadata` as the footer's key-value pairs.
    fn writer<'o>(
        &self,
        out: &'o mut Vec<u8>,
        metadata: &[(String, String)],
    ) -> Result<SerializedFileWriter<&'o mut Vec<u8>>, ColumnsError> {
        let fields = self
            .columns
            .iter()
            .map(|(name, data)| field(name, data).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()?;
        let schema = Arc::new(
            Type::group_type_builder("tokencast")
                .with_fields(fields)
                .build()?,
        );
        let mut props = WriterProperties::builder();
        for (name, data) in &self.columns {
            if matches!(data, Data::Str(_)) && !UNIQUE_STRINGS.contains(name) {
                props = props
                    .set_column_dictionary_enabled(ColumnPath::new(vec![name.to_string()]), true);
            }
        }
        let props = props
            .set_created_by(format!("tokencast {}", env!("CARGO_PKG_VERSION")))
            .set_compression(Compression::SNAPPY)
            // Column-chunk statistics only: each row group is small, and
            // page statistics double a footer every reader decodes.
            .set_statistics_enabled(EnabledStatistics::Chunk)
            // Dictionaries for the strings that repeat (keys, models, tools),
            // not for ids, times and figures, which rarely do.
            .set_dictionary_enabled(false)
            .set_key_value_metadata(Some(
                metadata
                    .iter()
                    .map(|(k, v)| KeyValue::new(k.clone(), v.clone()))
                    .collect(),
            ))
            .build();
        Ok(SerializedFileWriter::new(out, schema, Arc::new(props))?)
    }

    /// This table's rows as one row group of `writer` (made by [`Table::writer`]).
    fn write_group(
        &self,
        writer: &mut SerializedFileWriter<&mut Vec<u8>>,
    ) -> Result<(), ColumnsError> {
        let mut group = writer.next_row_group()?;
        let mut columns = self.columns.iter();
        while let Some(mut col) = group.next_column()? {
            let (_, data) = columns.next().expect("one writer per column of the schema");
            write_column(col.untyped(), data)?;
            col.close()?;
        }
        group.close()?;
        Ok(())
    }

    /// Reads the columns `want` names (each with its kind, from an empty
    /// [`Data`]) from a Parquet file, with its key-value metadata.
    pub fn from_parquet(
        bytes: Bytes,
        want: &[(&'static str, Data)],
    ) -> Result<(Table, Vec<(String, String)>), ColumnsError> {
        let size = bytes.len();
        let reader = SerializedFileReader::new(bytes)?;
        let meta = reader.metadata();
        check_chunks(meta, size)?;
        let kv = meta
            .file_metadata()
            .key_value_metadata()
            .map(|kv| {
                kv.iter()
                    .map(|k| (k.key.clone(), k.value.clone().unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default();
        let schema = meta.file_metadata().schema_descr();
        let mut table = Table {
            columns: want.iter().map(|(n, d)| (*n, d.empty_like())).collect(),
        };
        let at: Vec<Option<usize>> = want
            .iter()
            .map(|(n, _)| (0..schema.num_columns()).find(|&i| schema.column(i).name() == *n))
            .collect();
        for g in 0..meta.num_row_groups() {
            let group = reader.get_row_group(g)?;
            let group_rows = usize::try_from(meta.row_group(g).num_rows()).unwrap_or(0);
            for ((name, data), i) in table.columns.iter_mut().zip(&at) {
                let before = data.len();
                match i {
                    Some(i) => {
                        check_pages(g, name, group.get_column_page_reader(*i)?)?;
                        read_column(name, group.get_column_reader(*i)?, group_rows, data)?
                    }
                    // A column an older file lacks is null throughout.
                    None => pad_nulls(data, group_rows),
                }
                if data.len() != before + group_rows {
                    return Err(ColumnsError::Column {
                        name,
                        why: format!(
                            "has {} values in a row group of {group_rows} rows",
                            data.len() - before
                        ),
                    });
                }
            }
        }
        Ok((table, kv))
    }
}

/// Refuses a file whose metadata places a column chunk outside the file
/// (a negative offset or size makes the `parquet` crate panic): every
/// chunk must start at or after byte 4 (the magic) and end inside the file.
fn check_chunks(meta: &ParquetMetaData, size: usize) -> Result<(), ColumnsError> {
    let size = i64::try_from(size).unwrap_or(i64::MAX);
    for (g, group) in meta.row_groups().iter().enumerate() {
        if group.num_rows() < 0 {
            return Err(ColumnsError::Layout(format!(
                "row group {g} says it has {} rows; a count is never negative",
                group.num_rows()
            )));
        }
        for chunk in group.columns() {
            let start = chunk
                .dictionary_page_offset()
                .unwrap_or_else(|| chunk.data_page_offset());
            let len = chunk.compressed_size();
            let inside =
                start >= 4 && len >= 0 && start.checked_add(len).is_some_and(|end| end <= size);
            if !inside {
                // The name is the file's text: quoted, escaped and cut short.
                let name: String = chunk.column_path().string().chars().take(64).collect();
                return Err(ColumnsError::Layout(format!(
                    "row group {g}, column {name:?} says its data starts at byte {start} and runs \
                     {len} bytes, outside the file's {size} bytes; the file is damaged or was not \
                     written whole"
                )));
            }
        }
    }
    Ok(())
}

/// Refuses a column chunk whose data pages are dictionary-encoded with no
/// dictionary page before them (the `parquet` crate's decoder panics on
/// one). Reading the page headers decodes no value.
fn check_pages(
    g: usize,
    name: &str,
    pages: Box<dyn parquet::column::page::PageReader>,
) -> Result<(), ColumnsError> {
    use parquet::basic::Encoding;
    use parquet::column::page::Page;
    let mut dictionary = false;
    for page in pages {
        let encoding = match page? {
            Page::DictionaryPage { .. } => {
                dictionary = true;
                continue;
            }
            Page::DataPage { encoding, .. } | Page::DataPageV2 { encoding, .. } => encoding,
        };
        if matches!(
            encoding,
            Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
        ) && !dictionary
        {
            return Err(ColumnsError::Layout(format!(
                "row group {g}, column {name:?}: a data page refers to a dictionary the \
                 column does not have; the file is damaged or was not written whole"
            )));
        }
    }
    Ok(())
}

fn field(name: &str, data: &Data) -> Result<Type, ColumnsError> {
    let b = |p| Type::primitive_type_builder(name, p).with_repetition(Repetition::OPTIONAL);
    Ok(match data {
        Data::Int(_) => b(Physical::INT64).build()?,
        Data::Bool(_) => b(Physical::BOOLEAN).build()?,
        Data::Str(_) => b(Physical::BYTE_ARRAY)
            .with_logical_type(Some(LogicalType::String))
            .build()?,
        Data::Time(_) => b(Physical::INT64)
            .with_logical_type(Some(LogicalType::Timestamp(TimestampType {
                is_adjusted_to_u_t_c: true,
                unit: TimeUnit::MILLIS,
            })))
            .build()?,
        Data::Money(_) => b(Physical::FIXED_LEN_BYTE_ARRAY)
            .with_length(16)
            .with_logical_type(Some(LogicalType::Decimal(DecimalType {
                scale: SCALE as i32,
                precision: PRECISION,
            })))
            .with_precision(PRECISION)
            .with_scale(SCALE as i32)
            .build()?,
    })
}

/// Definition levels and the non-null values.
fn split<T: Clone>(v: &[Option<T>]) -> (Vec<i16>, Vec<T>) {
    let defs = v.iter().map(|x| i16::from(x.is_some())).collect();
    (defs, v.iter().flatten().cloned().collect())
}

/// A money value as `DECIMAL(38, 18)`'s 16 big-endian bytes. A value with
/// more than 18 decimal places (none a price book makes) is rounded to 18.
pub fn money_bytes(d: Decimal) -> [u8; 16] {
    let mut d = d.round_dp(SCALE);
    d.rescale(SCALE);
    d.mantissa().to_be_bytes()
}

/// The inverse of [`money_bytes`].
pub fn money_of(b: &[u8]) -> Option<Decimal> {
    let raw: [u8; 16] = b.try_into().ok()?;
    Decimal::try_from_i128_with_scale(i128::from_be_bytes(raw), SCALE)
        .ok()
        .map(|d| d.normalize())
}

fn write_column(w: &mut ColumnWriter<'_>, data: &Data) -> Result<(), ColumnsError> {
    match (w, data) {
        (ColumnWriter::Int64ColumnWriter(w), Data::Int(v) | Data::Time(v)) => {
            let (defs, vals) = split(v);
            w.write_batch(&vals, Some(&defs), None)?;
        }
        (ColumnWriter::BoolColumnWriter(w), Data::Bool(v)) => {
            let (defs, vals) = split(v);
            w.write_batch(&vals, Some(&defs), None)?;
        }
        (ColumnWriter::ByteArrayColumnWriter(w), Data::Str(v)) => {
            let defs: Vec<i16> = v.iter().map(|x| i16::from(x.is_some())).collect();
            let vals: Vec<ByteArray> = slices(v.iter().flatten().map(str::as_bytes))
                .map(ByteArray::from)
                .collect();
            w.write_batch(&vals, Some(&defs), None)?;
        }
        (ColumnWriter::FixedLenByteArrayColumnWriter(w), Data::Money(v)) => {
            let defs: Vec<i16> = v.iter().map(|x| i16::from(x.is_some())).collect();
            let money: Vec<[u8; 16]> = v.iter().flatten().map(|d| money_bytes(*d)).collect();
            let vals: Vec<FixedLenByteArray> = slices(money.iter().map(|m| &m[..]))
                .map(|b| FixedLenByteArray::from(ByteArray::from(b)))
                .collect();
            w.write_batch(&vals, Some(&defs), None)?;
        }
        _ => unreachable!("the schema is made from the data"),
    }
    Ok(())
}

/// Each of `values` as a slice of one shared buffer: one allocation for a
/// column's values, not one for each.
fn slices<'a>(values: impl Iterator<Item = &'a [u8]> + Clone) -> impl Iterator<Item = Bytes> {
    let mut buf = Vec::with_capacity(values.clone().map(<[u8]>::len).sum());
    let mut ends = Vec::new();
    for v in values {
        buf.extend_from_slice(v);
        ends.push(buf.len());
    }
    let buf = Bytes::from(buf);
    let mut start = 0;
    ends.into_iter().map(move |end| {
        let s = buf.slice(start..end);
        start = end;
        s
    })
}

fn pad_nulls(data: &mut Data, n: usize) {
    match data {
        Data::Int(v) | Data::Time(v) => v.extend(std::iter::repeat_n(None, n)),
        Data::Bool(v) => v.extend(std::iter::repeat_n(None, n)),
        Data::Str(v) => (0..n).for_each(|_| v.push(None)),
        Data::Money(v) => v.extend(std::iter::repeat_n(None, n)),
    }
}

/// Values and definition levels back into one `Option` per row.
fn zip_defs<T, U>(defs: &[i16], vals: Vec<T>, f: impl Fn(T) -> Option<U>) -> Vec<Option<U>> {
    let mut vals = vals.into_iter();
    defs.iter()
        .map(|d| {
            if *d > 0 {
                vals.next().and_then(&f)
            } else {
                None
            }
        })
        .collect()
}

fn read_column(
    name: &'static str,
    reader: ColumnReader,
    rows: usize,
    data: &mut Data,
) -> Result<(), ColumnsError> {
    let expected = data.kind();
    let wrong = |found: &str| ColumnsError::Column {
        name,
        why: format!("holds {found}, where {expected} was expected"),
    };
    let mut defs = Vec::with_capacity(rows);
    match (reader, &mut *data) {
        (ColumnReader::Int64ColumnReader(mut r), Data::Int(out) | Data::Time(out)) => {
            let mut vals = Vec::with_capacity(rows);
            r.read_records(rows, Some(&mut defs), None, &mut vals)?;
            out.extend(zip_defs(&defs, vals, Some));
        }
        (ColumnReader::BoolColumnReader(mut r), Data::Bool(out)) => {
            let mut vals = Vec::with_capacity(rows);
            r.read_records(rows, Some(&mut defs), None, &mut vals)?;
            out.extend(zip_defs(&defs, vals, Some));
        }
        (ColumnReader::ByteArrayColumnReader(mut r), Data::Str(out)) => {
            let mut vals = Vec::with_capacity(rows);
            r.read_records(rows, Some(&mut defs), None, &mut vals)?;
            let mut vals = vals.iter();
            for d in &defs {
                // A value that is not UTF-8 reads as null.
                let v = if *d > 0 { vals.next() } else { None };
                out.push(v.and_then(|b| std::str::from_utf8(b.data()).ok()));
            }
        }
        (ColumnReader::FixedLenByteArrayColumnReader(mut r), Data::Money(out)) => {
            let mut vals = Vec::with_capacity(rows);
            r.read_records(rows, Some(&mut defs), None, &mut vals)?;
            out.extend(zip_defs(&defs, vals, |b: FixedLenByteArray| {
                money_of(b.data())
            }));
        }
        (ColumnReader::Int64ColumnReader(_), _) => return Err(wrong("64-bit integers")),
        (ColumnReader::BoolColumnReader(_), _) => return Err(wrong("booleans")),
        (ColumnReader::ByteArrayColumnReader(_), _) => return Err(wrong("strings")),
        (ColumnReader::FixedLenByteArrayColumnReader(_), _) => {
            return Err(wrong("fixed-length bytes"))
        }
        _ => return Err(wrong("another physical type")),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
