//! A large trace CSV read on every thread of the pool.
//!
//! When no field is quoted (no `"` anywhere after the header), a record is
//! exactly a line. The line starts are found once, and the rows are read
//! side by side straight into their places in one vector: each of the
//! pool's jobs takes a stretch of consecutive rows, moves its own `csv`
//! reader to the first one's line and reads on from there. Every row is
//! read and checked exactly as the one-thread reader reads it (the same
//! fast path, the same serde fallback, the same checks) and gets the same
//! row number. Anything this reader is not sure of (a row that does not
//! read or check, a blank line) makes it give up, and the caller reads the
//! whole file again on one thread, which says what is wrong and where: an
//! error is always the one-thread reader's.
//!
//! When the rows hold no carriage return either, a line's record is its
//! text split at the commas (the CSV grammar has nothing else left), so a
//! row is read from its line's fields directly
//! ([`Columns::read_line`]); a row that does not read so takes the `csv`
//! reader's path above, which reads it as the one-thread reader does.

use super::{by_name, Gathered, Names, RowSite, TraceCall};
use crate::input::SourceText;
use crate::scenario::trace_columns::{Columns, Fees};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Traces with fewer bytes of rows than this are read on one thread.
const FROM_BYTES: usize = 4 << 20;

/// Rows a job of the pool reads at least (one seek each).
const ROWS_A_JOB: usize = 16 << 10;

/// The rows of `src` from byte `body` (the first byte after the header
/// row), or `None` when they are to be read on one thread.
pub(super) fn rows(
    src: &SourceText,
    headers: &csv::StringRecord,
    columns: &Columns,
    body: usize,
) -> Option<Vec<TraceCall>> {
    if src.text.len().saturating_sub(body) < FROM_BYTES {
        return None;
    }
    let mut calls = Vec::new();
    extend(src, headers, columns, body, &mut calls, None).then_some(calls)
}

/// Reads the rows of `src` from byte `body` onto the end of `calls`, their
/// numbers going on from the rows `calls` holds (a trace read a block at a
/// time: each block's lines are the rows after the last block's). `false`
/// when they are to be read on one thread (`calls` may then hold some).
/// The rows read are counted into `gathered`, when given, as they are read
/// (while they are in the cache).
pub(super) fn extend(
    src: &SourceText,
    headers: &csv::StringRecord,
    columns: &Columns,
    body: usize,
    calls: &mut Vec<TraceCall>,
    gathered: Option<&mut Gathered>,
) -> bool {
    let Some(text) = src.text.get(body..).map(str::as_bytes) else {
        return false;
    };
    // Line starts are kept as 4-byte offsets (an input file is at most
    // 1 GiB; a larger text is read on one thread).
    let Ok(end) = u32::try_from(text.len()) else {
        return false;
    };
    // One look for a quote (not read here) or a carriage return (then
    // rows take the csv path): the rest is searched only past a return.
    let split = match memchr::memchr2(b'"', b'\r', text) {
        None => true,
        Some(at) if text[at] == b'"' => return false,
        Some(at) => {
            if memchr::memchr(b'"', &text[at..]).is_some() {
                return false;
            }
            false
        }
    };
    // Where each line starts, and where the last one ends.
    let mut starts: Vec<u32> = Vec::with_capacity(text.len() / 32);
    starts.push(0);
    // Every offset is below `end`, itself a u32.
    starts.extend(memchr::memchr_iter(b'\n', text).map(|i| (i + 1) as u32));
    if starts.last() == Some(&end) {
        starts.pop();
    }
    let rows = starts.len();
    if rows == 0 {
        return true;
    }
    if calls.len().saturating_add(rows) > crate::limits::MAX_TRACE_ROWS {
        return false;
    }
    let line = Line {
        src,
        headers,
        columns,
        body,
        starts: &starts,
        before: calls.len(),
        split,
    };
    // What a row that fails is replaced by until the file is read again.
    let Some(stand_in) = line.read(&mut Reader::new(text), 0) else {
        return false;
    };
    let failed = AtomicBool::new(false);
    // What each job's reader gathered, handed in as the reader is dropped.
    let partials = Mutex::new(Vec::new());
    calls.par_extend((0..rows).into_par_iter().with_min_len(ROWS_A_JOB).map_init(
        || Gathering {
            reader: Reader::new(text),
            gathered: gathered.is_some().then(Gathered::default),
            into: &partials,
        },
        |job, i| {
            let call = line.read(&mut job.reader, i).unwrap_or_else(|| {
                failed.store(true, Ordering::Relaxed);
                stand_in.clone()
            });
            if let Some(g) = &mut job.gathered {
                g.add(&call);
            }
            call
        },
    ));
    // The sums and the set of models are the same in any order.
    let Ok(partials) = partials.into_inner() else {
        return false;
    };
    if let Some(gathered) = gathered {
        for partial in partials {
            gathered.merge(partial);
        }
    }
    !failed.load(Ordering::Relaxed)
}

/// A job's reader and what it has gathered of its rows, handed into
/// `into` when the job is done (nothing, when the caller gathers nothing).
struct Gathering<'t, 'p> {
    reader: Reader<'t>,
    gathered: Option<Gathered>,
    into: &'p Mutex<Vec<Gathered>>,
}

impl Drop for Gathering<'_, '_> {
    fn drop(&mut self) {
        // A poisoned lock (a job panicked) has its panic carried on by the
        // pool: the rows are not kept.
        if let (Some(gathered), Ok(mut all)) = (self.gathered.take(), self.into.lock()) {
            all.push(gathered);
        }
    }
}

/// A `csv` reader over the rows and the row it reads next.
struct Reader<'t> {
    csv: csv::Reader<std::io::Cursor<&'t [u8]>>,
    next: Option<usize>,
    record: csv::StringRecord,
    names: Names,
    fees: Fees,
}

impl<'t> Reader<'t> {
    fn new(text: &'t [u8]) -> Reader<'t> {
        Reader {
            csv: csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(std::io::Cursor::new(text)),
            next: None,
            record: csv::StringRecord::new(),
            names: Names::default(),
            fees: Fees::default(),
        }
    }
}

/// What reading a row needs besides its reader.
struct Line<'a> {
    src: &'a SourceText,
    headers: &'a csv::StringRecord,
    columns: &'a Columns,
    body: usize,
    starts: &'a [u32],
    /// The rows before the text's first line (blocks read before it).
    before: usize,
    /// No row holds a carriage return: a line's fields are its text split
    /// at the commas.
    split: bool,
}

impl Line<'_> {
    /// Row `i` (0-based) read and checked; `None` when it does not read or
    /// check, or its line holds no record.
    fn read(&self, reader: &mut Reader, i: usize) -> Option<TraceCall> {
        let at = usize::try_from(*self.starts.get(i)?).ok()?;
        let (row, start) = (self.before + i + 1, self.body + at);
        // A blank line (which the `csv` reader skips, and, just after a
        // seek, reports the next record as starting on) or one that starts
        // with a line end of its own.
        if matches!(
            self.src.text.as_bytes().get(start),
            None | Some(b'\n' | b'\r')
        ) {
            return None;
        }
        let site = RowSite::Csv {
            src: self.src,
            start,
            headers: self.headers,
        };
        if self.split {
            if let Some(raw) = self
                .line_text(i, start)
                .and_then(|line| self.columns.read_line(line, &mut reader.fees))
            {
                reader.next = None;
                return raw.check_naming(row, &site, &mut reader.names).ok();
            }
        }
        if reader.next != Some(i) {
            let mut pos = csv::Position::new();
            pos.set_byte(u64::try_from(at).ok()?);
            reader.csv.seek(pos).ok()?;
        }
        reader.next = None;
        if !reader.csv.read_record(&mut reader.record).ok()? {
            return None;
        }
        // A blank line is skipped by the reader: the record read must
        // start on this row's own line.
        if reader.record.position()?.byte() != u64::try_from(at).ok()? {
            return None;
        }
        reader.next = Some(i + 1);
        let names = &mut reader.names;
        match self.columns.read(&reader.record, &mut reader.fees) {
            Some(raw) => raw.check_naming(row, &site, names).ok(),
            None => by_name(self.src, &reader.record, self.headers, row, start)
                .ok()?
                .check_naming(row, &site, names)
                .ok(),
        }
    }

    /// The text of row `i`'s line, which starts at byte `start` of the
    /// source, without its line end.
    fn line_text(&self, i: usize, start: usize) -> Option<&str> {
        let end = match self.starts.get(i + 1) {
            // The byte before the next line's start is this line's `\n`.
            Some(&next) => self.body + usize::try_from(next).ok()? - 1,
            None => self.src.text.len(),
        };
        let line = self.src.text.get(start..end)?;
        Some(line.strip_suffix('\n').unwrap_or(line))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{read_rows, Threads, TRACE_HEADER};
    use super::FROM_BYTES;
    use crate::input::SourceText;

    /// A trace of `rows` rows over `FROM_BYTES`, in the written header's
    /// columns: three capabilities, errors and replays among the results,
    /// imported columns on every seventh row, a request per two rows.
    pub(in crate::scenario::trace) fn big_trace(
        rows: usize,
        row_of: impl Fn(usize) -> Option<String>,
    ) -> SourceText {
        let mut text = format!("{TRACE_HEADER}\n");
        for i in 0..rows {
            if let Some(line) = row_of(i) {
                text.push_str(&line);
                continue;
            }
            let cap = ["web/search", "docs/fetch", "reddit/search"][i % 3];
            let status = if i % 11 == 5 { 503 } else { 200 };
            let replayed = i % 13 == 7;
            let usage = if i % 7 == 0 {
                "2026-03-01T10:00:08.000Z,claude-sonnet-4-5,10,0,0,900,50,40,,,,5000,"
            } else {
                ",,,,,,,,,,,,"
            };
            let kind = ["", "code", "text", "output"][i % 4];
            text.push_str(&format!(
                "{},{cap},{status},{},{},{},{},0.000{},{replayed},,,{kind},,{},{usage},,\n",
                i + 1,
                i % 9,
                1000 + i * 7 % 5000,
                300 + i % 700,
                i % 2000,
                i % 10,
                i / 2 + 1,
            ));
        }
        assert!(text.len() > FROM_BYTES + 1000, "{}", text.len());
        SourceText {
            name: "big.csv".into(),
            text,
        }
    }

    const ROWS: usize = 60_000;

    #[test]
    fn a_large_trace_reads_the_same_on_every_thread_as_on_one() {
        let src = big_trace(ROWS, |_| None);
        let one = read_rows(&src, Threads::One).expect("reads");
        let all = read_rows(&src, Threads::All).expect("reads");
        assert_eq!(one.len(), ROWS);
        assert_eq!(one, all);
        assert_eq!(all[ROWS - 1].row, u32::try_from(ROWS).unwrap());
        assert!(all[7].recorded().is_some() && all[8].recorded().is_none());
        // It was read by the parallel reader (not handed back to one thread).
        let columns = crate::scenario::trace_columns::Columns::of(&headers(&src)).unwrap();
        let body = src.text.find('\n').unwrap() + 1;
        assert_eq!(super::rows(&src, &headers(&src), &columns, body), Some(one));
    }

    fn headers(src: &SourceText) -> csv::StringRecord {
        csv::Reader::from_reader(src.text.as_bytes())
            .headers()
            .unwrap()
            .clone()
    }

    #[test]
    fn rows_it_is_not_sure_of_read_as_on_one_thread() {
        // A Unicode blank (serde's path), a blank line, Windows line ends
        // and no end on the last line.
        let base = big_trace(ROWS, |_| None).text;
        let unicode = base.replacen(",docs/fetch,", ",docs/fetch\u{a0},", 1);
        let blank = base
            .replacen("\n", "\n\n", 40_000)
            .replacen("\n\n", "\n", 39_999);
        // A blank line where the first job of the pool starts.
        let blank_first = base.replacen('\n', "\n\n", 1);
        let crlf = base.replace('\n', "\r\n");
        let no_end = base.trim_end().to_string();
        for (what, text) in [
            ("unicode", unicode),
            ("blank", blank),
            ("blank first", blank_first.clone()),
            (
                "blank first, Windows line ends",
                blank_first.replace('\n', "\r\n"),
            ),
            ("crlf", crlf),
            ("no end", no_end),
        ] {
            let src = SourceText {
                name: "big.csv".into(),
                text,
            };
            let one = read_rows(&src, Threads::One).expect(what);
            assert_eq!(one.len(), ROWS, "{what}");
            assert_eq!(read_rows(&src, Threads::All).expect(what), one, "{what}");
        }
    }

    #[test]
    fn a_bad_row_deep_in_a_large_trace_is_named_as_on_one_thread() {
        for bad in [
            "50001,web/search,200,1,900,1200,5,0,false,,,,,1,,,,,,,,,,,,,,,\n",
            "50001,web/search,abc,1,900,100,5,0,false,,,,,1,,,,,,,,,,,,,,,\n",
            "50001,web/search,200,1,900,100,5,0,false,,,prose,,1,,,,,,,,,,,,,,,\n",
            "50001,web/search,200\n",
        ] {
            let src = big_trace(ROWS, |i| (i == 50_000).then(|| bad.to_string()));
            let one = read_rows(&src, Threads::One).unwrap_err().to_string();
            let all = read_rows(&src, Threads::All).unwrap_err().to_string();
            assert!(one.contains("50001") || one.contains("50002"), "{one}");
            assert_eq!(all, one);
        }
    }
}
