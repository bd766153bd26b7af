//! A large trace CSV read a block at a time, never held whole.
//!
//! The file comes in blocks of whole lines ([`Files::blocks`]): while one
//! block's rows are read on every thread of the pool ([`in_parallel`]'s
//! reader, its rows numbered on from the blocks before), the next block is
//! read and the last one goes into the file's digest. The memory is the
//! rows and two blocks, not the rows and the file (a 10,000,000-row trace's
//! 626 MB of text). Anything the block reader is not sure of (a header the
//! fast path does not know, a quote, a carriage return, a blank line, a row
//! that does not check, text that is not UTF-8, a line longer than a block,
//! a file that changed size while it was read) makes it give up, and the
//! caller reads the file whole, which says what is wrong and where: an
//! error is always the whole-file reader's.
//!
//! [`Files::blocks`]: crate::scenario::Files::blocks
//! [`in_parallel`]: super::in_parallel

use super::{in_parallel, missing_column, Gathered, TraceCall};
use crate::input::SourceText;
use crate::scenario::trace_columns::Columns;
use crate::scenario::{Blocks, InputFile};
use sha2::{Digest, Sha256};

/// Bytes read a block at a time.
pub(crate) const BLOCK: usize = 16 << 20;

/// The trace CSV in `blocks` (of `block` bytes each): its name and digest
/// beside its rows, read and checked, and their sums and models gathered as
/// they were read; `None` when it is to be read whole.
pub(crate) fn read_csv_blocks(
    mut blocks: Box<dyn Blocks + '_>,
    block: usize,
) -> Option<(InputFile, Vec<TraceCall>, Gathered)> {
    let name = blocks.name().to_string();
    let size = blocks.size();
    let mut digest = Sha256::new();
    let mut read: u64 = 0;
    // The first block is a sixteenth of the others and each next one twice
    // the last, up to `block`: no row is read until the first block is in,
    // and the pool would otherwise wait for a whole block.
    let mut want = (block / 16).max(1);
    // Each buffer holds a block and the start of a line before it (at
    // most a block): room for both from the start, so neither is grown,
    // which copies the whole of the old one into fresh pages unless the
    // allocator remaps it.
    let room = block.saturating_mul(2);
    let mut buf = Vec::with_capacity(room);
    read += fill(&mut *blocks, &mut buf, want)?;
    // The header row, as the whole-file reader reads it (more of the file
    // until its line ends, unless it is longer than a block).
    let header_end = loop {
        if let Some(at) = memchr::memchr(b'\n', &buf) {
            break at + 1;
        }
        let more = fill(&mut *blocks, &mut buf, want)?;
        if more == 0 || buf.len() > block {
            return None;
        }
        read += more;
    };
    let header = std::str::from_utf8(&buf[..header_end]).ok()?;
    // A quoted header may hold a line end; a file of Windows line ends
    // is read on one thread anyway ([`in_parallel`] gives it up).
    if header.contains(['"', '\r']) {
        return None;
    }
    let mut headers = csv::ReaderBuilder::new()
        .from_reader(header.as_bytes())
        .headers()
        .ok()?
        .clone();
    headers.trim();
    if missing_column(&headers).is_some() {
        return None;
    }
    let columns = Columns::of(&headers)?;
    digest.update(&buf[..header_end]);
    buf.drain(..header_end);
    let mut calls = Vec::new();
    let mut gathered = Gathered::default();
    let mut next: Vec<u8> = Vec::with_capacity(room);
    let mut at_end = false;
    loop {
        // `buf` holds whole lines and the start of the next one; at the
        // end of the file, its last line (which may have no line end).
        let cut = match memchr::memrchr(b'\n', &buf) {
            _ if at_end => buf.len(),
            Some(last) => last + 1,
            // No whole line yet: more of the file, unless the line is
            // longer than a block.
            None if buf.len() > block => return None,
            None => {
                let more = fill(&mut *blocks, &mut buf, want)?;
                read += more;
                at_end = more == 0;
                continue;
            }
        };
        next.clear();
        next.extend_from_slice(&buf[cut..]);
        want = want.saturating_mul(2).min(block);
        buf.truncate(cut);
        let src = SourceText {
            name: name.clone(),
            text: String::from_utf8(std::mem::take(&mut buf)).ok()?,
        };
        // The next block is read, and this one digested, while its rows
        // are read.
        let (more, ok) = crate::par::join(
            || {
                digest.update(src.text.as_bytes());
                if at_end {
                    Some(0)
                } else {
                    fill(&mut *blocks, &mut next, want)
                }
            },
            || in_parallel::extend(&src, &headers, &columns, 0, &mut calls, Some(&mut gathered)),
        );
        if !ok {
            return None;
        }
        if calls.capacity() == calls.len() {
            reserve_for_the_rest(&mut calls, read, size);
        }
        read += more?;
        buf = std::mem::replace(&mut next, src.text.into_bytes());
        if at_end {
            break;
        }
        at_end = more == Some(0);
        if at_end && buf.is_empty() {
            break;
        }
    }
    // The file read is the file opened.
    (read == size).then(|| {
        let digest = digest.finalize();
        (
            crate::scenario::input_file_of(&name, &digest),
            calls,
            gathered,
        )
    })
}

/// Room in `calls` for the rows of a file of `size` bytes, `read` of them
/// read: as many more as the rows so far a byte, and a sixteenth more.
/// Growing a vector of millions of rows by doubling copies them, and the
/// copy's pages are fresh ones; room asked for once is only address space
/// until a row is written into it.
fn reserve_for_the_rest<T>(calls: &mut Vec<T>, read: u64, size: u64) {
    let rest = size.saturating_sub(read);
    if read == 0 || rest == 0 {
        return;
    }
    // In 128 bits, where bytes below 2⁶⁴ times rows below 2⁶⁴ fit.
    let more = u128::from(rest) * calls.len() as u128 / u128::from(read);
    let more = more.saturating_add(more / 16);
    let cap = crate::limits::MAX_TRACE_ROWS.saturating_sub(calls.len());
    calls.reserve(usize::try_from(more).map_or(cap, |m| m.min(cap)));
}

/// Reads up to `block` more bytes of `blocks` onto `buf`: how many.
fn fill(blocks: &mut dyn Blocks, buf: &mut Vec<u8>, block: usize) -> Option<u64> {
    let n = blocks.read_into(buf, block).ok()?;
    u64::try_from(n).ok()
}

#[cfg(test)]
mod tests {
    use super::{read_csv_blocks, reserve_for_the_rest, Blocks};
    use crate::input::SourceText;
    use crate::scenario::trace::in_parallel::tests::big_trace;
    use crate::scenario::trace::read_csv;

    /// A file in memory, given at most `chunk` bytes a read (fewer than
    /// asked, as a disk may give them), which says it has `size` bytes.
    struct Given {
        text: Vec<u8>,
        at: usize,
        chunk: usize,
        size: u64,
    }

    impl Blocks for Given {
        fn name(&self) -> &str {
            "traces/big.csv"
        }
        fn size(&self) -> u64 {
            self.size
        }
        fn read_into(&mut self, buf: &mut Vec<u8>, max: usize) -> std::io::Result<usize> {
            let n = max.min(self.chunk).min(self.text.len() - self.at);
            buf.extend_from_slice(&self.text[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn given(text: &[u8], chunk: usize) -> Box<Given> {
        Box::new(Given {
            text: text.to_vec(),
            at: 0,
            chunk,
            size: text.len() as u64,
        })
    }

    const ROWS: usize = 60_000;

    #[test]
    fn a_trace_read_in_blocks_reads_as_the_whole_file() {
        let base = big_trace(ROWS, |_| None).text;
        let texts = [
            ("as written", base.clone()),
            ("no end on the last line", base.trim_end().to_string()),
            (
                "one row",
                base.lines().take(2).collect::<Vec<_>>().join("\n"),
            ),
        ];
        for (what, text) in texts {
            let src = SourceText {
                name: "traces/big.csv".into(),
                text,
            };
            let (file, whole) = read_csv(&src);
            let whole = whole.expect(what);
            // Blocks of a few rows, of many, and larger than the file;
            // reads of the whole block asked for, or of less.
            for (block, chunk) in [
                (4096, 4096),
                (65_536, 1000),
                (1 << 20, 1 << 20),
                (16 << 20, 300_000),
            ] {
                let read = read_csv_blocks(given(src.text.as_bytes(), chunk), block);
                let (f, calls, gathered) =
                    read.unwrap_or_else(|| panic!("{what}, blocks of {block}"));
                assert_eq!(f, file, "{what}, blocks of {block}");
                assert_eq!(calls.len(), whole.len(), "{what}, blocks of {block}");
                assert!(calls == whole, "{what}, blocks of {block}");
                // The sums gathered while reading are those of the rows read.
                let trace = super::super::Trace::new(whole.clone());
                assert_eq!(gathered.sums, trace.sums(), "{what}, blocks of {block}");
                let models: Vec<&str> = gathered.models.iter().map(String::as_str).collect();
                assert_eq!(models, ["claude-sonnet-4-5"], "{what}, blocks of {block}");
            }
        }
    }

    #[test]
    fn anything_the_block_reader_is_not_sure_of_is_left_to_the_whole_file_reader() {
        let base = big_trace(ROWS, |_| None).text;
        let deep = |line: &str| big_trace(ROWS, |i| (i == 50_000).then(|| line.to_string())).text;
        let mut not_utf8 = base.clone().into_bytes();
        let at = not_utf8.len() - 100;
        not_utf8[at] = 0xff;
        let cases: Vec<(&str, Vec<u8>, u64)> = vec![
            (
                "a bad row",
                deep("50001,web/search,abc,1,900,100,5,0,false,,,,,1,,,,,,,,,,,,,,,\n").into(),
                0,
            ),
            ("a blank line", deep("\n").into(), 0),
            (
                "a quoted field",
                deep("50001,\"web/search\",200,1,900,100,5,0,false,,,,,1,,,,,,,,,,,,,,,\n").into(),
                0,
            ),
            (
                "an unknown column",
                base.replacen("note", "notes", 1).into(),
                0,
            ),
            (
                "no `status` column",
                base.replacen("status", "state", 1).into(),
                0,
            ),
            (
                "a quoted header",
                base.replacen("note", "\"note\"", 1).into(),
                0,
            ),
            ("not UTF-8", not_utf8, 0),
            (
                "a line longer than a block",
                deep(&format!("{}\n", "x".repeat(70_000))).into(),
                0,
            ),
            ("Windows line ends", base.replace('\n', "\r\n").into(), 0),
            ("a file that grew", base.clone().into(), 1),
            ("a file that shrank", base.clone().into(), u64::MAX),
        ];
        for (what, text, off) in cases {
            let mut g = given(&text, 65_536);
            g.size = g.size.wrapping_add(off);
            assert!(read_csv_blocks(g, 65_536).is_none(), "{what}");
        }
        // The same text, unchanged, reads.
        assert!(read_csv_blocks(given(base.as_bytes(), 65_536), 65_536).is_some());
    }

    #[test]
    fn room_for_the_rest_of_the_file_is_asked_for_once() {
        // 100 rows in the first 1,000 bytes of 10,000: 900 more rows, and
        // a sixteenth more (956), beside the 100.
        let mut calls = vec![0u8; 100];
        reserve_for_the_rest(&mut calls, 1_000, 10_000);
        assert!(calls.capacity() >= 1_056, "{}", calls.capacity());
        assert!(calls.capacity() < 2 * 1_056, "{}", calls.capacity());
        // Nothing read, or nothing left: no estimate.
        let mut calls = vec![0u8; 100];
        reserve_for_the_rest(&mut calls, 0, 10_000);
        reserve_for_the_rest(&mut calls, 10_000, 10_000);
        assert_eq!(calls.capacity(), 100);
        // Never room for more rows than a trace may hold.
        let max = crate::limits::MAX_TRACE_ROWS;
        let mut calls = vec![0u8; 10];
        reserve_for_the_rest(&mut calls, 1, u64::MAX);
        assert!(calls.capacity() >= max && calls.capacity() < 2 * max);
    }
}
