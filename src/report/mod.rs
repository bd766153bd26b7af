//! Renderers: each result document as terminal tables, CSV, JSON and HTML.
//!
//! Every document implements [`Render`] (as hyperfine's exporters implement
//! one trait): each method is a pure function of the document that returns
//! text or bytes, and only lays out what the document holds. None of them
//! touches the filesystem; [`crate::output`] writes files.
//!
//! - [`table`]: the table model all formats share; [`terminal`], [`csv`],
//!   [`json`] and [`html`] lay it out;
//! - [`simulation`], [`sweep`], [`forecast`], [`diff`]: each command's
//!   tables, terminal layout and page.

pub mod corpus;
pub mod csv;
pub mod diff;
pub mod forecast;
pub mod html;
pub mod import;
pub mod json;
pub mod simulation;
pub mod sweep;
pub mod terminal;

// The formatting context and the table model live in the engine crate, so a
// page's engine built for the web words figures with the same code.
pub use tokencast_core::view::{format, table};

use crate::document::Document;
use crate::pricing::Currency;
use crate::scenario::PriceDate;
pub use format::Fmt;
use table::DataTable;

/// What the terminal output includes, and how wide it may be.
#[derive(Debug, Clone, Copy)]
pub struct TerminalOptions {
    /// Also print the per-request table (`simulate --requests`).
    pub requests: bool,
    /// Columns available (tables wider than this are split into parts).
    pub width: usize,
    /// Print only the answer (`simulate --brief`).
    pub brief: bool,
    /// Print every column of tables that have a compact form (`import --wide`).
    pub wide: bool,
}

impl Default for TerminalOptions {
    fn default() -> Self {
        TerminalOptions {
            requests: false,
            width: terminal::DEFAULT_WIDTH,
            brief: false,
            wide: false,
        }
    }
}

/// Options that change an HTML page.
#[derive(Debug, Clone, Default)]
pub struct HtmlOptions {
    /// A generation time to print in the footer (the renderer never reads the clock).
    pub timestamp: Option<String>,
    /// What a simulation page needs to carry its own engine, so its reader
    /// can change the assumptions; without it the page is a still picture.
    pub live: Option<Live>,
    /// Why a simulation page has no engine, when its maker knows (its
    /// inputs are too large to carry).
    pub still: Option<String>,
}

/// A page's own engine's inputs: the request it answers when nothing is
/// changed (the scenario's text and every file it names), and the controls
/// the reader changes it with.
#[derive(Debug, Clone)]
pub struct Live {
    /// The scenario, its files and its price date.
    pub request: tokencast_web::Request,
    /// The controls, at the scenario's values
    /// ([`html::controls::controls`], [`html::controls::scenario_controls`]).
    pub controls: Vec<html::ControlGroup>,
    /// What the page shows of the engine's unchanged answer that its
    /// document does not hold (an import page's what-if table).
    pub blocks: Vec<tokencast_core::view::page::Block>,
}

/// A renderer failed: a template or chart bug, never the user's input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RenderError(pub String);

impl From<tera::Error> for RenderError {
    fn from(e: tera::Error) -> Self {
        RenderError(e.to_string())
    }
}

/// One renderer interface for every result document.
///
/// Implementors write the `draw_*` methods, each a pure function of the
/// document and the [`Fmt`] it is given; callers use the provided ones,
/// which draw in the document's own [`Render::currency`] and price date.
pub trait Render: Document {
    /// The currency the document's amounts are in.
    fn currency(&self) -> Currency {
        Currency::usd()
    }
    /// The date that chose the document's prices, when it mattered.
    fn price_date(&self) -> Option<PriceDate> {
        None
    }
    /// The formatting context the document is drawn in by default.
    fn fmt(&self) -> Fmt {
        Fmt::new(self.currency(), self.price_date())
    }
    /// Terminal tables and sentences.
    fn draw_terminal(&self, f: &Fmt, opts: &TerminalOptions) -> String;
    /// Every table of the document, in report order; by default the one
    /// [`Render::draw_csv_table`].
    fn draw_tables(&self, f: &Fmt) -> Vec<DataTable> {
        vec![self.draw_csv_table(f)]
    }
    /// The table `--format csv` prints.
    fn draw_csv_table(&self, f: &Fmt) -> DataTable;
    /// A self-contained HTML page.
    fn draw_html(&self, f: &Fmt, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError>;

    /// Terminal tables and sentences; a full report ends with the rounding
    /// rule its money follows ([`format::ROUNDING_RULE`]), stated once.
    fn terminal(&self, opts: &TerminalOptions) -> String {
        let mut s = self.draw_terminal(&self.fmt(), opts);
        if !opts.brief {
            if !s.ends_with("\n\n") {
                s.push('\n');
            }
            s.push_str(&terminal::wrap_prose(format::ROUNDING_RULE, opts.width));
            s.push('\n');
        }
        s
    }
    /// Every table (`--csv DIR` writes one file each).
    fn tables(&self) -> Vec<DataTable> {
        self.draw_tables(&self.fmt())
    }
    /// The table `--format csv` prints.
    fn csv_table(&self) -> DataTable {
        self.draw_csv_table(&self.fmt())
    }
    /// A self-contained HTML page.
    fn html(&self, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        self.draw_html(&self.fmt(), opts)
    }
    /// The canonical JSON document, with its marker.
    fn json(&self) -> Vec<u8> {
        json::render(self)
    }
    /// [`Render::csv_table`] as CSV bytes.
    fn csv(&self) -> Vec<u8> {
        csv::render(&self.csv_table(), &self.fmt())
    }
}
