//! Terminal tables (comfy-table) that fit the terminal: a table as written,
//! or turned sideways; long tables show their first and last rows.
//!
//! When the columns do not fit the width, the table is split into parts
//! that each repeat the leading label columns, so every part reads on its
//! own instead of wrapping into noise.

use super::table::{Cell, DataTable};
use crate::report::Fmt;
use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, ContentArrangement, Table};
use unicode_width::UnicodeWidthStr;

/// Width used when the output is not a terminal and `COLUMNS` is not set.
pub const DEFAULT_WIDTH: usize = 120;

/// Narrowest width tables are laid out for.
pub const MIN_WIDTH: usize = 40;

/// Tables longer than this show their first and last [`EDGE_ROWS`] rows.
pub const MAX_ROWS: usize = 40;

/// Rows shown at each end of a long table.
pub const EDGE_ROWS: usize = 20;

/// One cell as laid out: its text and whether it is a number (right-aligned).
#[derive(Debug, Clone)]
struct Text {
    text: String,
    numeric: bool,
}

impl Text {
    /// A cell as the terminal shows it: text from input (session ids,
    /// names) has its control characters and bidirectional marks escaped,
    /// so nothing in a log can move the cursor or reorder a line.
    fn of(fmt: &Fmt, c: &Cell) -> Text {
        Text {
            text: crate::output::name::terminal(&c.display(fmt)),
            numeric: c.is_numeric(),
        }
    }

    fn label(s: &str) -> Text {
        Text {
            text: crate::output::name::terminal(s),
            numeric: false,
        }
    }
}

/// A grid of text: header and rows, with `fixed` leading label columns.
struct Grid {
    header: Vec<Text>,
    rows: Vec<Vec<Text>>,
    fixed: usize,
}

impl Grid {
    /// Column widths as printed (content + padding + border).
    fn widths(&self) -> Vec<usize> {
        (0..self.header.len())
            .map(|i| {
                std::iter::once(&self.header[i])
                    .chain(self.rows.iter().map(|r| &r[i]))
                    .map(|t| t.text.width())
                    .max()
                    .unwrap_or(0)
                    + 3
            })
            .collect()
    }

    /// Groups of the non-label columns whose table fits `width`.
    fn parts(&self, width: usize) -> Vec<Vec<usize>> {
        let widths = self.widths();
        let fixed: usize = widths[..self.fixed].iter().sum::<usize>() + 1;
        let mut parts: Vec<Vec<usize>> = Vec::new();
        let mut used = fixed;
        for (i, w) in widths.iter().enumerate().skip(self.fixed) {
            match parts.last_mut() {
                Some(part) if used + w <= width => {
                    part.push(i);
                    used += w;
                }
                _ => {
                    parts.push(vec![i]);
                    used = fixed + w;
                }
            }
        }
        if parts.is_empty() {
            parts.push(Vec::new());
        }
        parts
    }

    fn render(&self, title: &str, width: usize) -> String {
        let width = width.max(MIN_WIDTH);
        let parts = self.parts(width);
        let mut out = String::new();
        for (p, cols) in parts.iter().enumerate() {
            let cols: Vec<usize> = (0..self.fixed).chain(cols.iter().copied()).collect();
            let mut t = Table::new();
            t.load_style(UTF8_FULL_CONDENSED)
                .set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(width as u16);
            t.set_header(cols.iter().map(|&i| self.header[i].text.clone()));
            for row in &self.rows {
                t.add_row(cols.iter().map(|&i| {
                    let c = comfy_table::Cell::new(&row[i].text);
                    if row[i].numeric {
                        c.set_alignment(CellAlignment::Right)
                    } else {
                        c
                    }
                }));
            }
            if parts.len() > 1 {
                out.push_str(&format!("{title} (part {} of {})\n", p + 1, parts.len()));
            } else {
                out.push_str(&format!("{title}\n"));
            }
            out.push_str(&format!("{t}\n"));
        }
        out
    }
}

/// The rows to show: all, or the first and last [`EDGE_ROWS`] with a count
/// of those left out.
fn shown(rows: &[Vec<Cell>]) -> (Vec<&Vec<Cell>>, Option<usize>) {
    if rows.len() <= MAX_ROWS {
        return (rows.iter().collect(), None);
    }
    let hidden = rows.len() - 2 * EDGE_ROWS;
    let kept = rows[..EDGE_ROWS]
        .iter()
        .chain(&rows[rows.len() - EDGE_ROWS..])
        .collect();
    (kept, Some(hidden))
}

/// A table as written, `width` columns wide at most: header row, then rows
/// (the first and last of a long table). A table too wide is split into
/// parts, each repeating the first column.
pub fn plain_table(fmt: &Fmt, t: &DataTable, width: usize) -> String {
    keyed_table(fmt, t, 1, width)
}

/// [`plain_table`] whose first `keys` columns together name a row (a
/// sweep's axes, a variant and a period): every part repeats them all.
pub fn keyed_table(fmt: &Fmt, t: &DataTable, keys: usize, width: usize) -> String {
    let (rows, hidden) = shown(&t.rows);
    let mut body: Vec<Vec<Text>> = rows
        .iter()
        .map(|r| r.iter().map(|c| Text::of(fmt, c)).collect())
        .collect();
    if let Some(n) = hidden {
        let mut gap = vec![Text::label("⋮"); t.columns.len()];
        gap[0] = Text::label(&format!("⋮ {n} rows"));
        body.insert(EDGE_ROWS, gap);
    }
    let grid = Grid {
        header: t
            .columns
            .iter()
            .map(|c| Text::label(&c.label_in(fmt)))
            .collect(),
        rows: body,
        fixed: keys.clamp(1, t.columns.len().max(1)).min(t.columns.len()),
    };
    let mut out = grid.render(&fmt.in_code(&t.title), width);
    if let Some(n) = hidden {
        out.push_str(&format!(
            "{n} of {} rows not shown; the CSV export (--csv DIR) has every row.\n",
            t.rows.len()
        ));
    }
    out
}

/// A one-row-per-variant table turned sideways, `width` columns wide at
/// most: variants become columns. `skip` leading columns are identity
/// columns (the first is the header).
pub fn transposed(fmt: &Fmt, t: &DataTable, skip: usize, width: usize) -> String {
    let mut header = vec![Text::label("")];
    header.extend(t.rows.iter().map(|r| Text::label(&r[0].display(fmt))));
    let rows = t
        .columns
        .iter()
        .enumerate()
        .skip(skip)
        .map(|(i, c)| {
            let mut row = vec![Text::label(&c.label_in(fmt))];
            row.extend(t.rows.iter().map(|r| Text::of(fmt, &r[i])));
            row
        })
        .collect();
    Grid {
        header,
        rows,
        fixed: 1,
    }
    .render(&fmt.in_code(&t.title), width)
}

/// Wraps every line of `text` that is not part of a table to `width`
/// columns; a `- ` list item keeps its hanging indent.
pub fn wrap_prose(text: &str, width: usize) -> String {
    let width = width.max(MIN_WIDTH);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let is_table = body.starts_with(['┌', '│', '╞', '├', '└']);
        if is_table || body.width() <= width {
            out.push_str(line);
            continue;
        }
        let indent = if body.starts_with("- ") { "  " } else { "" };
        let options = textwrap::Options::new(width).subsequent_indent(indent);
        for wrapped in textwrap::wrap(body, options) {
            out.push_str(&wrapped);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::col;

    fn wide(columns: usize, rows: usize) -> DataTable {
        DataTable {
            id: "t",
            title: "T".into(),
            columns: (0..columns)
                .map(|i| col(format!("c{i}"), format!("column number {i}")))
                .collect(),
            rows: (0..rows)
                .map(|r| (0..columns).map(|c| Cell::Int((r * c) as u64)).collect())
                .collect(),
        }
    }

    fn widest_line(s: &str) -> usize {
        s.lines().map(UnicodeWidthStr::width).max().unwrap_or(0)
    }

    #[test]
    fn tables_fit_80_120_and_200_columns() {
        let fmt = &Fmt::usd();
        for width in [80, 120, 200] {
            let t = wide(12, 3);
            let plain = plain_table(fmt, &t, width);
            assert!(widest_line(&plain) <= width, "{width}:\n{plain}");
            let sideways = transposed(fmt, &t, 1, width);
            assert!(widest_line(&sideways) <= width, "{width}:\n{sideways}");
        }
        // At 80 columns twelve 18-character columns need several parts, each
        // repeating the label column.
        let plain = plain_table(fmt, &wide(12, 3), 80);
        assert!(plain.contains("(part 1 of"), "{plain}");
        assert_eq!(
            plain.matches("column number 0").count(),
            plain.matches("(part ").count()
        );
    }

    #[test]
    fn wide_characters_count_as_two_columns() {
        // Twelve columns of eight CJK characters: 16 terminal columns each,
        // though 8 characters. Measured by characters they would fit 80
        // columns in fewer parts and overflow the terminal.
        let fmt = &Fmt::usd();
        let t = DataTable {
            id: "t",
            title: "T".into(),
            columns: (0..12)
                .map(|i| col(format!("c{i}"), format!("c{i}")))
                .collect(),
            rows: vec![(0..12)
                .map(|_| Cell::Text("数据数据数据数据".into()))
                .collect()],
        };
        let out = plain_table(fmt, &t, 80);
        assert!(widest_line(&out) <= 80, "{out}");
        // No cell is wrapped: every line with the text holds all of it.
        assert!(
            out.lines()
                .filter(|l| l.contains('数'))
                .all(|l| l.contains("数据数据数据数据")),
            "{out}"
        );
    }

    #[test]
    fn prose_wraps_with_a_hanging_indent_and_tables_stay() {
        let text = format!("- {}\n│ {} │\n", "word ".repeat(30), "x".repeat(70));
        let out = wrap_prose(&text, 40);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("- word") && lines[0].width() <= 40);
        assert!(lines[1].starts_with("  word"), "{out}");
        assert!(out.contains(&"x".repeat(70)), "table lines are not wrapped");
    }

    #[test]
    fn long_tables_show_their_first_and_last_rows() {
        let fmt = &Fmt::usd();
        let t = wide(2, 100);
        let out = plain_table(fmt, &t, 120);
        assert!(out.contains("⋮ 60 rows"), "{out}");
        assert!(out.contains("60 of 100 rows not shown"));
        // Column 1 holds the row number: rows 0–19 and 80–99 are shown.
        for shown in [" 0 │", " 19 │", " 80 │", " 99 │"] {
            assert!(out.contains(shown), "{shown}: {out}");
        }
        for hidden in [" 20 │", " 50 │", " 79 │"] {
            assert!(!out.contains(hidden), "{hidden}: {out}");
        }
    }
}
