//! JSONL lines from a file, one at a time, never holding a line longer than
//! a limit: an over-long line is skipped to its end and reported by number.

use super::{Import, Problem};
use std::io::{self, BufRead};
use std::path::Path;

/// One line read.
pub enum Line<'a> {
    /// The line's bytes, without its newline.
    Text(&'a [u8]),
    /// A line longer than the limit, skipped; its length in bytes.
    TooLong(u64),
}

/// Reads lines: a line that lies whole in the reader's buffer is lent
/// from there, one that crosses its end is gathered into a reused buffer.
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    /// Bytes of the reader's buffer lent as the last line, consumed before
    /// the next is read.
    lent: usize,
    max: usize,
    /// Lines read so far (the number of the last one returned).
    pub number: u64,
    /// Bytes read so far.
    pub bytes: u64,
}

impl<R: BufRead> Lines<R> {
    /// Lines of `reader`, at most `max` bytes each.
    pub fn new(reader: R, max: usize) -> Self {
        Lines {
            reader,
            buf: Vec::new(),
            lent: 0,
            max,
            number: 0,
            bytes: 0,
        }
    }

    /// The next line with its 1-based number, or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, Line<'_>)>> {
        self.reader.consume(std::mem::take(&mut self.lent));
        self.buf.clear();
        // The usual case: the whole line is in the reader's buffer.
        let max = self.max;
        let whole = memchr::memchr(b'\n', self.reader.fill_buf()?).filter(|&i| i <= max);
        if let Some(i) = whole {
            // The buffer is not empty, so this returns it again unread.
            let chunk = self.reader.fill_buf()?;
            self.lent = i + 1;
            self.number += 1;
            self.bytes += self.lent as u64;
            let mut line = &chunk[..i];
            while let [rest @ .., b'\r'] = line {
                line = rest;
            }
            return Ok(Some((self.number, Line::Text(line))));
        }
        let mut len: u64 = 0;
        let mut too_long = false;
        loop {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                if len == 0 {
                    return Ok(None);
                }
                break;
            }
            let (take, done) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            len += take as u64;
            if !too_long {
                if self.buf.len() + take > self.max + 1 {
                    too_long = true;
                    self.buf.clear();
                    self.buf.shrink_to(1 << 16);
                } else {
                    self.buf.extend_from_slice(&chunk[..take]);
                }
            }
            self.reader.consume(take);
            if done {
                break;
            }
        }
        self.number += 1;
        self.bytes += len;
        if too_long {
            return Ok(Some((self.number, Line::TooLong(len))));
        }
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        Ok(Some((self.number, Line::Text(&self.buf))))
    }
}

impl Import {
    /// Lists a problem of `file` at `line` (0: the file as a whole).
    pub fn problem(&mut self, file: &str, line: u64, what: impl Into<String>) {
        self.problems.push(Problem {
            file: file.to_string(),
            line,
            what: what.into(),
        });
    }

    /// Adds the counts of a file read on its own (`file`): the files, lines
    /// and bytes read, the lines lost and those counting rules removed. Its
    /// problems are the caller's to place among the others.
    pub fn add_counts(&mut self, file: &Import) {
        self.files += file.files;
        self.lines += file.lines;
        self.bytes += file.bytes;
        self.lost_lines += file.lost_lines;
        self.skipped.repeated_lines += file.skipped.repeated_lines;
        self.skipped.other_lines += file.skipped.other_lines;
    }

    /// Lists a problem of `file` at `line` that lost the line's content
    /// (see [`Import::lost_lines`]).
    pub fn lost(&mut self, file: &str, line: u64, what: impl Into<String>) {
        self.lost_lines += 1;
        self.problem(file, line, what);
    }

    /// `usage` read at `file`'s line `line`, every count capped at
    /// [`crate::limits::MAX_TOKENS`]; a cap is listed as a problem of that
    /// line, and the rest of the thread is kept.
    pub fn capped(&mut self, file: &str, line: u64, usage: super::Usage) -> super::Usage {
        let (usage, over) = usage.capped(crate::limits::MAX_TOKENS);
        if over {
            self.problem(
                file,
                line,
                format!(
                    "a usage count above {} tokens; capped there for this line",
                    crate::limits::MAX_TOKENS
                ),
            );
        }
        usage
    }
}

/// Reads the JSONL file at `path` (called `name` in problems) and hands
/// every non-blank line to `each` with its number. A file that cannot be
/// opened, an over-long line and a read that stops become problems; the
/// lines and bytes read are added to `stats`. False if the file could not
/// be opened.
pub fn each_line(
    path: &Path,
    name: &str,
    stats: &mut Import,
    each: impl FnMut(u64, &[u8], &mut Import),
) -> bool {
    read_lines(
        path,
        name,
        stats,
        crate::limits::MAX_LINE_BYTES,
        &mut InTurn(each),
    )
}

/// [`each_line`] with the lines read on the pool: `read` takes each
/// non-blank line (on any thread, a chunk of lines at a time) and `each`
/// what it made of them, in line order, with the problems of lines too long
/// or of a read that stops in their place among them. A file of a few long
/// lines (an OpenTelemetry export a line, a session or more each) is then
/// read on every core, not one.
pub fn each_line_on_pool<T: Send>(
    path: &Path,
    name: &str,
    stats: &mut Import,
    read: impl Fn(&[u8]) -> T + Sync,
    each: impl FnMut(u64, T, &mut Import),
) -> bool {
    let mut chunks = InChunks {
        read,
        each,
        text: Vec::new(),
        lines: Vec::new(),
    };
    let opened = read_lines(
        path,
        name,
        stats,
        crate::limits::MAX_LINE_BYTES,
        &mut chunks,
    );
    chunks.settle(stats);
    opened
}

/// Bytes of lines gathered before they are read on the pool.
const CHUNK_BYTES: usize = 8 << 20;

/// Lines gathered before they are read on the pool.
const CHUNK_LINES: usize = 1024;

/// Where [`read_lines`] hands the lines it reads.
trait Sink {
    /// A non-blank line.
    fn line(&mut self, n: u64, text: &[u8], stats: &mut Import);
    /// Every line so far taken in, before a problem of the file is listed.
    fn settle(&mut self, _stats: &mut Import) {}
}

/// Each line taken as it comes.
struct InTurn<F>(F);

impl<F: FnMut(u64, &[u8], &mut Import)> Sink for InTurn<F> {
    fn line(&mut self, n: u64, text: &[u8], stats: &mut Import) {
        (self.0)(n, text, stats);
    }
}

/// Lines gathered, read together on the pool, then taken in order.
struct InChunks<R, E> {
    read: R,
    each: E,
    text: Vec<u8>,
    /// Each line's number and where it lies in `text`.
    lines: Vec<(u64, std::ops::Range<usize>)>,
}

impl<T: Send, R: Fn(&[u8]) -> T + Sync, E: FnMut(u64, T, &mut Import)> Sink for InChunks<R, E> {
    fn line(&mut self, n: u64, text: &[u8], stats: &mut Import) {
        let at = self.text.len();
        self.text.extend_from_slice(text);
        self.lines.push((n, at..self.text.len()));
        if self.text.len() >= CHUNK_BYTES || self.lines.len() >= CHUNK_LINES {
            self.settle(stats);
        }
    }

    fn settle(&mut self, stats: &mut Import) {
        use rayon::prelude::*;
        let (text, read) = (&self.text, &self.read);
        let made: Vec<T> = self
            .lines
            .par_iter()
            .map(|(_, at)| read(&text[at.clone()]))
            .collect();
        for ((n, _), t) in self.lines.drain(..).zip(made) {
            (self.each)(n, t, stats);
        }
        self.text.clear();
    }
}

/// The reading loop of [`each_line`] and [`each_line_on_pool`], with lines
/// of at most `max` bytes.
fn read_lines(
    path: &Path,
    name: &str,
    stats: &mut Import,
    max: usize,
    sink: &mut impl Sink,
) -> bool {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            stats.problem(name, 0, format!("cannot be read: {}", e.kind()));
            return false;
        }
    };
    let mut lines = Lines::new(io::BufReader::with_capacity(1 << 20, file), max);
    loop {
        match lines.next_line() {
            Ok(Some((n, Line::Text(t)))) => {
                if !t.iter().all(u8::is_ascii_whitespace) {
                    sink.line(n, t, stats);
                }
            }
            Ok(Some((n, Line::TooLong(len)))) => {
                sink.settle(stats);
                stats.lost(
                    name,
                    n,
                    format!(
                        "line of {len} bytes is longer than {} MiB; skipped",
                        max >> 20
                    ),
                );
            }
            Ok(None) => break,
            Err(e) => {
                sink.settle(stats);
                stats.lost(
                    name,
                    lines.number + 1,
                    format!("reading stopped: {}", e.kind()),
                );
                break;
            }
        }
    }
    stats.lines += lines.number;
    stats.bytes += lines.bytes;
    true
}

/// `text` as a string when it is UTF-8 throughout, checked in one pass
/// (`simdutf8`); `None` when it is not.
///
/// A line read from a string is read by serde_json without checking each
/// string and raw value it takes again (its `SliceRead` checks every one,
/// and a tool result's text was checked there before it was measured):
/// 4–5 % of the import's CPU on real Claude Code logs. A line that is not
/// UTF-8 is read from its bytes as before, so it fails or succeeds as it
/// did: a bad byte past the last field the reader needs still leaves the
/// line read, and one where it reads is reported at its column.
pub fn utf8(text: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(text).ok()
}

/// A line's JSON read as `T`: from the string when the line is UTF-8 (see
/// [`utf8`]), else from its bytes.
pub fn from_json_line<'a, T: serde::Deserialize<'a>>(text: &'a [u8]) -> serde_json::Result<T> {
    seed_json_line(text, std::marker::PhantomData::<T>)
}

/// A line's JSON read by `seed` (a reader that keeps what it reads where
/// the caller says), with nothing after it but blanks, as
/// [`from_json_line`] reads it: from the string when the line is UTF-8,
/// else from its bytes.
pub fn seed_json_line<'a, S: serde::de::DeserializeSeed<'a>>(
    text: &'a [u8],
    seed: S,
) -> serde_json::Result<S::Value> {
    fn whole<'a, R: serde_json::de::Read<'a>, S: serde::de::DeserializeSeed<'a>>(
        mut de: serde_json::Deserializer<R>,
        seed: S,
    ) -> serde_json::Result<S::Value> {
        let value = seed.deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    }
    match utf8(text) {
        Some(s) => whole(serde_json::Deserializer::from_str(s), seed),
        None => whole(serde_json::Deserializer::from_slice(text), seed),
    }
}

/// Why a line is not the JSON it should be, without any of its text.
pub fn not_json(text: &[u8], e: &serde_json::Error, expected: &str) -> String {
    match std::str::from_utf8(text) {
        Err(u) => format!("not UTF-8 (invalid byte at column {})", u.valid_up_to() + 1),
        Ok(_) if e.is_eof() => "truncated JSON".into(),
        Ok(_) => format!("not {expected} at column {}", e.column()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_line_reads_the_same_from_its_text_as_from_its_bytes() {
        #[derive(serde::Deserialize)]
        struct Rec<'a> {
            #[serde(borrow)]
            name: std::borrow::Cow<'a, str>,
            #[serde(borrow)]
            body: &'a serde_json::value::RawValue,
        }
        let seen = |r: serde_json::Result<Rec>| match r {
            Ok(r) => format!("ok {} {}", r.name, r.body.get()),
            Err(e) => format!("{:?} at {}", e.classify(), e.column()),
        };
        let mut bad = br#"{"name":"a","body":""#.to_vec();
        bad.extend_from_slice(&[0xe2, 0x82, b'"', b'}']);
        let lines: [&[u8]; 5] = [
            r#"{"name":"é\u00e9\n","body":{"x":["ü",1.5e3]}}"#.as_bytes(),
            br#"{"name":"a","body":[1,2"#,
            br#"{"name":"a\x","body":1}"#,
            br#"{"name":"a","body":1} 2"#,
            &bad,
        ];
        for line in lines {
            assert_eq!(
                seen(from_json_line(line)),
                seen(serde_json::from_slice(line)),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(
            seen(from_json_line(lines[0])),
            "ok éé\n {\"x\":[\"ü\",1.5e3]}"
        );
        // Not UTF-8: read from the bytes, and refused as before.
        assert!(utf8(&bad).is_none());
        assert!(!seen(from_json_line(&bad)).starts_with("ok"));
    }

    #[test]
    fn a_seed_reads_a_line_the_same_from_its_text_as_from_its_bytes() {
        /// Keeps every number of an array where it is told, as the OTLP
        /// reader keeps its spans.
        struct Numbers<'v>(&'v mut Vec<u64>);
        impl<'de> serde::de::DeserializeSeed<'de> for Numbers<'_> {
            type Value = ();
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
                for n in <Vec<u64> as serde::Deserialize>::deserialize(d)? {
                    self.0.push(n);
                }
                Ok(())
            }
        }
        let by_bytes = |line: &[u8]| {
            let mut kept = Vec::new();
            let mut de = serde_json::Deserializer::from_slice(line);
            let r = serde::de::DeserializeSeed::deserialize(Numbers(&mut kept), &mut de)
                .and_then(|()| de.end());
            (r.map_err(|e| (e.classify(), e.column())), kept)
        };
        let by_line = |line: &[u8]| {
            let mut kept = Vec::new();
            let r = seed_json_line(line, Numbers(&mut kept));
            (r.map_err(|e| (e.classify(), e.column())), kept)
        };
        let mut bad = b"[1, 2, \"".to_vec();
        bad.extend_from_slice(&[0xff, b'"', b']']);
        let lines: [&[u8]; 5] = [
            b"[1, 2, 3] ",
            b"[1, 2, 3] 4",
            b"[1, 2",
            br#"[1, "\u00e9"]"#,
            &bad,
        ];
        for line in lines {
            assert_eq!(
                by_line(line),
                by_bytes(line),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(by_line(lines[0]), (Ok(()), vec![1, 2, 3]));
        // Text after the value: the line is refused where the text begins.
        assert_eq!(by_line(lines[1]).0.unwrap_err().1, 11);
    }

    #[test]
    fn lines_read_on_the_pool_are_taken_as_lines_read_in_turn() {
        // Over two chunks of lines, with blank lines, lines too long (and
        // one at the very end) and lines the reader reports as problems:
        // the same lines, values and problems, in the same order.
        let mut text = String::new();
        for i in 0..2 * CHUNK_LINES + 7 {
            match i % 97 {
                5 => text.push_str("   \n"),
                11 => text.push_str(&format!("{}\n", "y".repeat(3 << 20))),
                23 => text.push_str(&format!("bad {i}\n")),
                _ => text.push_str(&format!("line {i}\r\n")),
            }
        }
        text.push_str(&"z".repeat(3 << 20));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, &text).unwrap();
        let read = |t: &[u8]| String::from_utf8(t.to_vec()).map(|s| s.len());
        let take =
            |seen: &mut Vec<(u64, usize)>, n: u64, r: Result<usize, _>, stats: &mut Import| match r
            {
                Ok(len) if len >= 4 => seen.push((n, len)),
                _ => stats.problem("log.jsonl", n, "not a line"),
            };
        let (mut in_turn, mut turn_stats) = (Vec::new(), Import::default());
        let mut each = InTurn(|n, t: &[u8], stats: &mut Import| {
            let r: Result<usize, ()> = if t.starts_with(b"bad") {
                Err(())
            } else {
                Ok(read(t).unwrap())
            };
            take(&mut in_turn, n, r, stats)
        });
        assert!(read_lines(
            &path,
            "log.jsonl",
            &mut turn_stats,
            2 << 20,
            &mut each
        ));
        let (mut on_pool, mut pool_stats) = (Vec::new(), Import::default());
        let mut chunks = InChunks {
            read: |t: &[u8]| {
                if t.starts_with(b"bad") {
                    Err(())
                } else {
                    Ok(read(t).unwrap())
                }
            },
            each: |n, r, stats: &mut Import| take(&mut on_pool, n, r, stats),
            text: Vec::new(),
            lines: Vec::new(),
        };
        assert!(read_lines(
            &path,
            "log.jsonl",
            &mut pool_stats,
            2 << 20,
            &mut chunks
        ));
        chunks.settle(&mut pool_stats);
        drop(chunks);
        let problems = |s: &Import| {
            s.problems
                .iter()
                .map(|p| (p.line, p.what.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(on_pool, in_turn);
        assert_eq!(problems(&pool_stats), problems(&turn_stats));
        assert_eq!(
            (pool_stats.lines, pool_stats.bytes, pool_stats.lost_lines),
            (turn_stats.lines, turn_stats.bytes, turn_stats.lost_lines)
        );
        // What the file holds: 2,056 lines, 23 too long (the last one
        // too), 22 blank, 21 reported by the reader.
        assert_eq!(turn_stats.lines, 2 * CHUNK_LINES as u64 + 8);
        assert_eq!(turn_stats.lost_lines, 23);
        assert_eq!(turn_stats.problems.len(), 23 + 21);
        assert_eq!(in_turn.len(), 2 * CHUNK_LINES + 7 - 22 - 21 - 22);
        assert_eq!(
            problems(&turn_stats).last().unwrap().0,
            2 * CHUNK_LINES as u64 + 8
        );
    }

    #[test]
    fn long_lines_are_skipped_and_counted() {
        let text = format!("a\n{}\nb\r\nc", "x".repeat(50));
        let mut l = Lines::new(io::BufReader::with_capacity(8, text.as_bytes()), 10);
        let mut seen = Vec::new();
        while let Some((_, line)) = l.next_line().unwrap() {
            seen.push(match line {
                Line::Text(t) => String::from_utf8(t.to_vec()).unwrap(),
                Line::TooLong(n) => format!("long {n}"),
            });
        }
        assert_eq!(seen, ["a", "long 51", "b", "c"]);
        assert_eq!(l.number, 4);
        assert_eq!(l.bytes, text.len() as u64);
    }

    #[test]
    fn a_line_across_the_buffers_end_reads_as_one_lent_from_it() {
        // A 4-byte buffer: "abcdef" crosses its end (gathered), "xy" and
        // "z" lie in it (lent); "\r\r" before a newline is cut as before.
        let text = "abcdef\nxy\r\r\nz\n\n";
        let mut l = Lines::new(io::BufReader::with_capacity(4, text.as_bytes()), 100);
        let mut seen = Vec::new();
        while let Some((n, line)) = l.next_line().unwrap() {
            match line {
                Line::Text(t) => seen.push((n, String::from_utf8(t.to_vec()).unwrap())),
                Line::TooLong(_) => panic!("no line is too long"),
            }
        }
        let want = [(1, "abcdef"), (2, "xy"), (3, "z"), (4, "")];
        assert_eq!(seen, want.map(|(n, t)| (n, t.to_string())));
        assert_eq!(l.bytes, text.len() as u64);
    }
}
