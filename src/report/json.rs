//! The canonical JSON of a document: its marker first, then every field,
//! exact decimals as strings, pretty-printed, ending with a newline.

use crate::document::{Document, Envelope};

/// The document as pretty JSON; the first key is `"generator": "tokencast"`.
pub fn render<T: Document>(doc: &T) -> Vec<u8> {
    let mut out =
        serde_json::to_vec_pretty(&Envelope::of(doc)).expect("a document always serializes");
    out.push(b'\n');
    out
}
