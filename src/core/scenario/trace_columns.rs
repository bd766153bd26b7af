//! The trace CSV read by column position: the fast path of
//! [`parse_csv`](super::trace::parse_csv).
//!
//! Deserializing every row through serde by header name costs a map lookup
//! per field and a `String` per text field, and most of a large trace's
//! loading time went there. The header is matched to [`TraceRow`]'s fields
//! once; each row is then read from its `csv::StringRecord` by position,
//! with integers, booleans and the fee parsed directly.
//!
//! The fast path accepts a subset of what the serde path accepts: a field
//! it does not read with certainty (a sign, a character other than a
//! printable ASCII one at either end once ASCII blanks are trimmed, anything
//! that is not a plain number, `true` or `false`) makes it give up
//! on that row, and the row is read by serde as before, with the same
//! located errors. So a row reads the same either way; a test checks it.

use super::trace::TraceRow;
use rust_decimal::Decimal;
use std::str::FromStr;

/// A column of the trace CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Call,
    Round,
    Capability,
    Params,
    Status,
    Items,
    RawBytes,
    TrimmedBytes,
    LatencyMs,
    ChargedUsd,
    Replayed,
    Images,
    Documents,
    Content,
    O200kTokens,
    Request,
    Timestamp,
    Model,
    RecordedInput,
    RecordedCacheWrite5m,
    RecordedCacheWrite1h,
    RecordedCacheRead,
    RecordedOutput,
    ResentOutput,
    HiddenOutput,
    DroppedOutput,
    UnmeasuredTokens,
    GapMs,
    Compacted,
    ClearedBefore,
    Note,
}

/// Every column by its header name: the fields of [`super::trace::TraceRow`].
const NAMES: [(&str, Col); 31] = [
    ("call", Col::Call),
    ("round", Col::Round),
    ("capability", Col::Capability),
    ("params", Col::Params),
    ("status", Col::Status),
    ("items", Col::Items),
    ("raw_bytes", Col::RawBytes),
    ("trimmed_bytes", Col::TrimmedBytes),
    ("latency_ms", Col::LatencyMs),
    ("charged_usd", Col::ChargedUsd),
    ("replayed", Col::Replayed),
    ("images", Col::Images),
    ("documents", Col::Documents),
    ("content", Col::Content),
    ("o200k_tokens", Col::O200kTokens),
    ("request", Col::Request),
    ("timestamp", Col::Timestamp),
    ("model", Col::Model),
    ("recorded_input", Col::RecordedInput),
    ("recorded_cache_write_5m", Col::RecordedCacheWrite5m),
    ("recorded_cache_write_1h", Col::RecordedCacheWrite1h),
    ("recorded_cache_read", Col::RecordedCacheRead),
    ("recorded_output", Col::RecordedOutput),
    ("resent_output", Col::ResentOutput),
    ("hidden_output", Col::HiddenOutput),
    ("dropped_output", Col::DroppedOutput),
    ("unmeasured_tokens", Col::UnmeasuredTokens),
    ("gap_ms", Col::GapMs),
    ("compacted", Col::Compacted),
    ("cleared_before", Col::ClearedBefore),
    ("note", Col::Note),
];

/// The columns of a header row, in order, when every one is a known
/// column named once (otherwise each row takes the serde path, which
/// names the unknown or repeated column).
#[derive(Debug)]
pub(crate) struct Columns(Vec<Col>);

impl Columns {
    pub(crate) fn of(headers: &csv::StringRecord) -> Option<Columns> {
        let mut cols = Vec::with_capacity(headers.len());
        for h in headers {
            let (_, col) = NAMES.iter().find(|(name, _)| *name == h)?;
            if cols.contains(col) {
                return None;
            }
            cols.push(*col);
        }
        Some(Columns(cols))
    }

    /// The row, when every field reads with certainty; `None` sends the row
    /// to the serde path.
    #[inline(always)]
    pub(crate) fn read<'r>(
        &self,
        rec: &'r csv::StringRecord,
        fees: &mut Fees,
    ) -> Option<TraceRow<&'r str>> {
        if rec.len() != self.0.len() {
            return None;
        }
        self.read_fields(rec.iter(), fees)
    }

    /// The row of a line that holds no quote and no carriage return, split
    /// at its commas: for such a line the `csv` crate's record is exactly
    /// these fields, so this reads as [`Self::read`] of its record does,
    /// without the record (the parallel reader's path; `line` without its
    /// line end).
    #[cfg(any(feature = "parallel", test))]
    #[inline(always)]
    pub(crate) fn read_line<'r>(
        &self,
        line: &'r str,
        fees: &mut Fees,
    ) -> Option<TraceRow<&'r str>> {
        // Fields are a few bytes long: a byte loop finds their commas
        // sooner than `str::split`'s searcher, which is built for long ones.
        let mut rest = Some(line);
        let mut fields = std::iter::from_fn(|| {
            let text = rest?;
            match text.bytes().position(|b| b == b',') {
                Some(comma) => {
                    rest = text.get(comma + 1..);
                    text.get(..comma)
                }
                None => rest.take(),
            }
        });
        let row = self.read_fields(fields.by_ref().take(self.0.len()), fees)?;
        // A line of more fields than the header's is not read here.
        fields.next().is_none().then_some(row)
    }

    /// The row of its fields, one for each column (fewer: `None`).
    #[inline(always)]
    fn read_fields<'r>(
        &self,
        mut fields: impl Iterator<Item = &'r str>,
        fees: &mut Fees,
    ) -> Option<TraceRow<&'r str>> {
        let mut r = TraceRow::default();
        for col in &self.0 {
            let field = fields.next()?.trim_ascii();
            // Other blanks (Unicode's, a vertical tab) the serde path trims:
            // leave such a field to it.
            let plain = |b: Option<&u8>| b.is_none_or(u8::is_ascii_graphic);
            if !plain(field.as_bytes().first()) || !plain(field.as_bytes().last()) {
                return None;
            }
            match col {
                Col::Call => r.call = optional(field)?,
                Col::Round => r.round = optional(field)?,
                Col::Capability => r.capability = field,
                Col::Params => r.params = field,
                Col::Status => r.status = number(field)?,
                Col::Items => r.items = number(field)?,
                Col::RawBytes => r.raw_bytes = optional(field)?,
                Col::TrimmedBytes => r.trimmed_bytes = optional(field)?,
                Col::LatencyMs => r.latency_ms = number(field)?,
                Col::ChargedUsd => r.charged_usd = fees.read(field)?,
                Col::Replayed => r.replayed = boolean(field)?,
                Col::Images => r.images = optional(field)?,
                Col::Documents => r.documents = optional(field)?,
                Col::Content => r.content = content(field)?,
                Col::O200kTokens => r.o200k_tokens = optional(field)?,
                Col::Request => r.request = optional(field)?,
                Col::Timestamp => r.timestamp = optional_text(field)?,
                Col::Model => r.model = optional_text(field)?,
                Col::RecordedInput => r.recorded_input = optional(field)?,
                Col::RecordedCacheWrite5m => r.recorded_cache_write_5m = optional(field)?,
                Col::RecordedCacheWrite1h => r.recorded_cache_write_1h = optional(field)?,
                Col::RecordedCacheRead => r.recorded_cache_read = optional(field)?,
                Col::RecordedOutput => r.recorded_output = optional(field)?,
                Col::ResentOutput => r.resent_output = optional(field)?,
                Col::HiddenOutput => r.hidden_output = optional(field)?,
                Col::DroppedOutput => r.dropped_output = optional(field)?,
                Col::UnmeasuredTokens => r.unmeasured_tokens = optional(field)?,
                Col::GapMs => r.gap_ms = optional(field)?,
                Col::ClearedBefore => r.cleared_before = optional(field)?,
                Col::Compacted => {
                    r.compacted = if field.is_empty() {
                        Some(None)
                    } else {
                        boolean(field).map(Some)
                    }?
                }
                Col::Note => r.note = field,
            }
        }
        Some(r)
    }
}

/// The fee last read, with its text: most rows of a trace repeat the fee
/// of the row before (a data tool charges the same for every call), and
/// the text compared is cheaper than an exact decimal parsed.
#[derive(Debug, Default)]
pub(crate) struct Fees {
    /// The last fee's text (its buffer reused from fee to fee).
    text: String,
    /// The last fee, `None` before the first.
    fee: Option<Decimal>,
}

impl Fees {
    #[inline]
    fn read(&mut self, field: &str) -> Option<Decimal> {
        match self.fee {
            Some(kept) if field == self.text => Some(kept),
            _ => {
                let read = fee(field)?;
                self.text.clear();
                self.text.push_str(field);
                self.fee = Some(read);
                Some(read)
            }
        }
    }
}

/// A plain unsigned number: ASCII digits only, within the type.
fn number<T: FromStr>(field: &str) -> Option<T> {
    // `parse` takes ASCII digits and a leading `+`, which the serde path's
    // reader may read otherwise: such a field is left to it.
    if field.as_bytes().first() == Some(&b'+') {
        return None;
    }
    field.parse().ok()
}

/// An optional number: empty is `None` (`Some(None)`), else [`number`].
fn optional<T: FromStr>(field: &str) -> Option<Option<T>> {
    if field.is_empty() {
        Some(None)
    } else {
        number(field).map(Some)
    }
}

/// A content kind, or empty (`Some(None)`).
fn content(field: &str) -> Option<Option<super::content::ContentKind>> {
    use super::content::ContentKind;
    match field {
        "" => Some(None),
        _ => ContentKind::ALL
            .into_iter()
            .find(|k| k.name() == field)
            .map(Some),
    }
}

fn optional_text(field: &str) -> Option<Option<&str>> {
    Some((!field.is_empty()).then_some(field))
}

fn boolean(field: &str) -> Option<bool> {
    match field {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The fee as [`crate::input::non_negative_decimal`] reads it: an exact
/// decimal, zero or more, normalized.
fn fee(field: &str) -> Option<Decimal> {
    if field == "0" {
        return Some(Decimal::ZERO);
    }
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    Decimal::from_str(field).ok().map(|d| d.normalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::trace::{RawCall, TRACE_HEADER};

    /// The serde path's reading of one row.
    fn by_serde(headers: &csv::StringRecord, row: &csv::StringRecord) -> Option<RawCall> {
        let mut row = row.clone();
        row.trim();
        row.deserialize(Some(headers)).ok()
    }

    fn record(fields: &[&str]) -> csv::StringRecord {
        csv::StringRecord::from(fields.to_vec())
    }

    #[test]
    fn every_row_the_fast_path_reads_reads_the_same_through_serde() {
        let headers = record(&TRACE_HEADER.split(',').collect::<Vec<_>>());
        let cols = Columns::of(&headers).expect("the written header is known");
        let base: Vec<&str> = vec![
            "7",
            "reddit/search",
            "200",
            "3",
            "4000",
            "1000",
            "12",
            "0.000792",
            "false",
            "",
            "",
            "code",
            "250",
            "2",
            "2026-03-01T10:00:08.000Z",
            "m",
            "10",
            "0",
            "0",
            "900",
            "50",
            "40",
            "",
            "",
            "",
            "5000",
            "",
            "",
            "",
        ];
        assert_eq!(base.len(), headers.len());
        // Each variation of one field: the fast path reads it as serde does,
        // or leaves the row to serde (never reads it differently).
        let variations: &[(usize, &[&str])] = &[
            (0, &["", " 7 ", "+7", "4294967296", "x"]),
            (1, &[" a/b ", "a/b\u{a0}", "\u{2003}a", "a\u{b}", "é", ""]),
            (2, &["200", " 200", "70000", "-1", "2e2"]),
            (4, &["", "0", "18446744073709551616", "1_000", " 5\t"]),
            (
                7,
                &[
                    "0", "0.0", "1.50", "-0", "-1", "1e-3", ".5", "1.2.3", "", "00.10",
                ],
            ),
            (8, &["true", "false", "TRUE", "1", ""]),
            (
                11,
                &["", "code", "output", "text", "Code", " text ", "prose"],
            ),
            (12, &["", "0", "42", "-3", "1.5"]),
            (14, &["", " 2026 ", "x\u{2028}"]),
            (24, &["", "0", "1200", "-5", "1.5"]),
            (26, &["", "true", "false", "yes"]),
            (27, &["", "0", "3", "-1", "1.5"]),
        ];
        let mut fast = 0;
        for (i, values) in variations {
            for v in *values {
                let mut fields = base.clone();
                fields[*i] = v;
                let row = record(&fields);
                let serde = by_serde(&headers, &row);
                if let Some(read) = cols.read(&row, &mut Fees::default()) {
                    fast += 1;
                    // Debug, not ==: 1.50 and 1.5 are equal decimals that print apart.
                    assert_eq!(
                        format!("{:?}", Some(read)),
                        format!("{serde:?}"),
                        "column {} = {v:?}",
                        &headers[*i]
                    );
                }
            }
        }
        // The plain values took the fast path.
        assert!(fast >= 20, "{fast}");
    }

    /// The `csv` crate's record of one line.
    fn csv_record(line: &str) -> csv::StringRecord {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes());
        let mut record = csv::StringRecord::new();
        assert!(reader.read_record(&mut record).expect("reads"), "{line:?}");
        record
    }

    #[test]
    fn a_line_split_at_its_commas_reads_as_its_csv_record() {
        let headers = record(&[
            "call",
            "capability",
            "status",
            "items",
            "latency_ms",
            "charged_usd",
            "note",
        ]);
        let cols = Columns::of(&headers).expect("known columns");
        let lines = [
            "1,web/search,200,3,12,0.000792,",
            "1,web/search,200,3,12,0.000792,a note",
            ",web/search,200,3,12,0.000792, spaced ",
            " 1 , web/search ,200,3,12,0.5,",
            "1,web/search\u{a0},200,3,12,0.5,",
            "1,é/ü,200,3,12,0.5,",
            // Fields too few, too many, or empty at either end.
            "1,web/search,200,3,12,0.5",
            "1,web/search,200,3,12,0.5,,",
            "1,web/search,200,3,12,0.5,x,y",
            ",,,,,,",
            "1,,200,3,12,0.5,",
            "1,web/search,abc,3,12,0.5,",
        ];
        let mut read = 0;
        for line in lines {
            let by_line = cols.read_line(line, &mut Fees::default());
            let record = csv_record(line);
            let by_record = cols.read(&record, &mut Fees::default());
            assert_eq!(format!("{by_line:?}"), format!("{by_record:?}"), "{line:?}");
            read += usize::from(by_line.is_some());
        }
        // Both ways read the plain lines, and leave the same ones alone.
        assert!((4..=8).contains(&read), "{read}");
    }

    #[test]
    fn a_fee_reads_the_same_whatever_fee_the_row_before_had() {
        let headers = record(&["capability", "status", "items", "latency_ms", "charged_usd"]);
        let cols = Columns::of(&headers).expect("known columns");
        let mut fees = Fees::default();
        // Each fee after each other one, through one reader's memory of
        // the last fee, as serde reads it alone.
        let fees_written = [
            "0.000792", "0.000792", "1.50", "0", "-1", "0.000792", "", "1.5", "x",
        ];
        for before in fees_written {
            for fee in fees_written {
                for f in [before, fee] {
                    let row = record(&["web/search", "200", "3", "12", f]);
                    let read = cols.read(&row, &mut fees).map(|r| r.charged_usd);
                    let serde = by_serde(&headers, &row).map(|r| r.charged_usd);
                    match read {
                        Some(d) => assert_eq!(
                            Some(d.to_string()),
                            serde.map(|s| s.to_string()),
                            "{f:?} after {before:?}"
                        ),
                        // Left to serde: a fee the fast path is not sure of.
                        None => assert!(["-1", "", "x"].contains(&f), "{f:?} after {before:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn an_unknown_or_repeated_column_leaves_every_row_to_serde() {
        assert!(Columns::of(&record(&["capability", "colour"])).is_none());
        assert!(Columns::of(&record(&["capability", "capability"])).is_none());
        assert!(Columns::of(&record(&["capability", "status"])).is_some());
    }
}
