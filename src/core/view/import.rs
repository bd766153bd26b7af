//! The import's tables that a live import page redraws: each combined
//! what-if (`import --variant`, or the page's own) over the threads that
//! could take it.

use super::format::Scale;
use super::table::{col, Cell, DataTable};
use crate::document::import::VariantTotal;
use crate::text::display;

/// Each variant's cost over the threads that could take it, beside the same
/// threads as recorded; each figure marked with its place in the import's
/// `--format json` document (`/variants/{row}/…`).
pub fn variants(id: &'static str, title: &str, variants: &[VariantTotal]) -> DataTable {
    DataTable {
        id,
        title: title.into(),
        columns: vec![
            col("variant", "variant").at("/variants/{row}/variant/name"),
            col("usd_estimate", "estimate").at("/variants/{row}/cost/estimate"),
            col("usd_lower", "lower").at("/variants/{row}/cost/lower"),
            col("usd_upper", "upper").at("/variants/{row}/cost/upper"),
            col("as_recorded_usd_estimate", "as recorded")
                .at("/variants/{row}/as_recorded/estimate"),
            col("versus_as_recorded", "vs as recorded").at("/variants/{row}/versus_as_recorded"),
            col("sessions", "sessions").at("/variants/{row}/sessions"),
        ],
        rows: variants
            .iter()
            .map(|v| {
                vec![
                    Cell::Text(display(&v.variant.name)),
                    Cell::Usd(v.cost.estimate, Scale::Request),
                    Cell::Usd(v.cost.lower, Scale::Request),
                    Cell::Usd(v.cost.upper, Scale::Request),
                    Cell::Usd(v.as_recorded.estimate, Scale::Request),
                    v.versus_as_recorded
                        .map_or(Cell::Missing("n/a"), Cell::Share),
                    Cell::Int(v.sessions),
                ]
            })
            .collect(),
    }
}

/// The title of the `--variant`s' table.
pub const GIVEN: &str = "Your variants (--variant), each over the threads that could take it (USD)";

/// The title of a live page's own what-if.
pub const PAGE: &str =
    "Your what-if, over every replayed thread that could take it (USD); change it above";
