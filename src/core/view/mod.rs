//! What the renderers share: the formatting context ([`Fmt`]), the table
//! model every format lays out ([`table`]), and a page's content as plain
//! display text ([`page`], [`simulation`]).
//!
//! It is here, in the engine crate, so the command line and the engine built
//! for a web page round and word every figure with the same code.

pub mod corpus;
pub mod forecast;
pub mod format;
pub mod import;
pub mod page;
pub mod simulation;
pub mod table;

pub use format::Fmt;
