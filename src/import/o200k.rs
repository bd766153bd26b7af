//! Exact token counts under OpenAI's `o200k_base` (the `bpe-openai` crate),
//! with each pre-token's count remembered: tool outputs repeat the same
//! words, paths and punctuation, and the byte-pair count of a piece is
//! most of the work.

use std::cell::RefCell;
use std::collections::HashMap;

/// Longest piece whose count is remembered (longer ones are rare and
/// seldom repeat).
const MAX_REMEMBERED_BYTES: usize = 32;

/// Most pieces remembered per thread before the memory starts over.
const MAX_REMEMBERED: usize = 1 << 16;

thread_local! {
    static PIECES: RefCell<HashMap<Box<str>, u32>> = RefCell::new(HashMap::new());
}

/// The tokens of `text` under `o200k_base`: exactly the crate's
/// `Tokenizer::count` (pre-tokenize, then count each piece).
pub fn count(text: &str) -> u64 {
    let t = bpe_openai::o200k_base();
    let text = t.normalize(text);
    PIECES.with(|memo| {
        let mut memo = memo.borrow_mut();
        let mut total = 0u64;
        for piece in t.split(text.as_str()) {
            if piece.len() > MAX_REMEMBERED_BYTES {
                total += t.bpe.count(piece.as_bytes()) as u64;
                continue;
            }
            if let Some(n) = memo.get(piece) {
                total += u64::from(*n);
                continue;
            }
            let n = t.bpe.count(piece.as_bytes());
            if memo.len() >= MAX_REMEMBERED {
                memo.clear();
            }
            memo.insert(piece.into(), u32::try_from(n).unwrap_or(u32::MAX));
            total += n as u64;
        }
        total
    })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_as_the_crate_does_twice_over() {
        let texts = [
            "hello world",
            "Exit code: 0\nWall time: 1.5 seconds\nOutput:\n M src/main.rs\n M src/lib.rs\n?? target/\n",
            "fn main() {\n    println!(\"héllo, wörld — 世界 🚀\");\n}\n",
            &"abcdefghij".repeat(50),
            "",
            "   \n\n\t\t  ",
        ];
        let t = bpe_openai::o200k_base();
        // The second pass reads every short piece from memory.
        for _ in 0..2 {
            for s in texts {
                assert_eq!(count(s), t.count(s) as u64, "{s:?}");
            }
        }
    }
}
