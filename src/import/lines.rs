//! JSONL lines from a file, one at a time, never holding a line longer than
//! a limit: an over-long line is skipped to its end and reported by number.

use std::io::{self, BufRead};

/// Longest line kept (a tool result of 64 MiB is far beyond any context).
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// One line read.
pub enum Line<'a> {
    /// The line's bytes, without its newline.
    Text(&'a [u8]),
    /// A line longer than the limit, skipped; its length in bytes.
    TooLong(u64),
}

/// Reads lines into one reused buffer.
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
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
            max,
            number: 0,
            bytes: 0,
        }
    }

    /// The next line with its 1-based number, or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, Line<'_>)>> {
        self.buf.clear();
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

/// The UTF-8 length of a JSON string literal once decoded (`raw` includes
/// its quotes and is valid JSON): escapes count as the bytes they stand for.
pub fn decoded_len(raw: &str) -> u64 {
    let b = raw.as_bytes();
    let (mut i, end) = (1usize, b.len().saturating_sub(1));
    let mut len = 0u64;
    while i < end {
        match memchr::memchr(b'\\', &b[i..end]) {
            None => {
                len += (end - i) as u64;
                break;
            }
            Some(j) => {
                len += j as u64;
                i += j + 1;
                if b.get(i) == Some(&b'u') {
                    let cp = hex4(&b[i + 1..]);
                    i += 5;
                    // A surrogate pair is one 4-byte character.
                    if (0xD800..0xDC00).contains(&cp)
                        && b.get(i) == Some(&b'\\')
                        && b.get(i + 1) == Some(&b'u')
                        && (0xDC00..0xE000).contains(&hex4(&b[i + 2..]))
                    {
                        len += 4;
                        i += 6;
                    } else {
                        len += match cp {
                            0..=0x7F => 1,
                            0x80..=0x7FF => 2,
                            _ => 3,
                        };
                    }
                } else {
                    len += 1;
                    i += 1;
                }
            }
        }
    }
    len
}

fn hex4(b: &[u8]) -> u32 {
    b.iter().take(4).fold(0, |acc, c| {
        acc * 16 + (*c as char).to_digit(16).unwrap_or(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn decoded_length_counts_what_escapes_stand_for() {
        for (raw, want) in [
            (r#""hello wörld""#, 12),
            (r#""hello w\u00f6rld""#, 12),
            (r#""a\nb\"c\\d""#, 7),
            (r#""\ud83d\ude00""#, 4),
            (r#""\u20ac""#, 3),
            (r#""""#, 0),
        ] {
            let decoded: String = serde_json::from_str(raw).unwrap();
            assert_eq!(decoded.len() as u64, want, "{raw}");
            assert_eq!(decoded_len(raw), want, "{raw}");
        }
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
}
