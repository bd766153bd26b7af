//! Free text read from input, made safe to show: escapes for terminals,
//! comments and messages, and a short digest that names cut text.
//!
//! Names and ids from logs are untrusted. Whatever a log says is shown only
//! through [`display`] (or [`terminal`] for table cells), so it cannot move
//! the cursor, reorder a line, start a new line in a TOML comment or run on
//! for pages.

use sha2::{Digest, Sha256};

/// The longest free text from input that is shown or written in a comment,
/// in characters, before it is shortened with a digest.
pub const MAX_DISPLAY: usize = 120;

/// 8 hex digits of the SHA-256 of `s`.
pub fn short_digest(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Free text from input, safe to show on a terminal or write in a comment:
/// control characters, line breaks and bidirectional or invisible marks are
/// escaped (`\n`, `\u{202e}`), and text longer than [`MAX_DISPLAY`]
/// characters is cut and ends with `…~` and its digest.
pub fn display(s: &str) -> String {
    let escaped = escape(s);
    if escaped.chars().count() <= MAX_DISPLAY {
        return escaped;
    }
    let cut: String = escaped.chars().take(MAX_DISPLAY - 12).collect();
    format!("{cut}…~{}", short_digest(s))
}

/// `s` with every control character (line breaks included), bidirectional
/// mark and invisible format character written as `\n` or `\u{202e}`;
/// everything else, quotes and accents included, as it is.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || is_invisible(c) {
            out.extend(c.escape_debug());
            // `escape_debug` leaves some format characters as they are.
            if out.ends_with(c) {
                out.pop();
                out.extend(c.escape_unicode());
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Bidirectional controls, zero-width and other invisible format characters.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

/// Terminal text from input: as [`escape`], but line breaks kept (a table
/// cell may span lines); nothing can move the cursor or reorder a line.
pub fn terminal(s: &str) -> String {
    s.split('\n').map(escape).collect::<Vec<_>>().join("\n")
}

/// A decimal number written with `,` between each three digits of its
/// whole part: `1234567.5` → `1,234,567.5`. The one grouping every table,
/// chart and label uses.
pub fn group_thousands(s: &str) -> String {
    let (int_part, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s, None),
    };
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in int_part.chars().enumerate() {
        if i > 0 && (int_part.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}
