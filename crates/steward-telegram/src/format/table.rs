//! A Markdown table laid out as plain text for a `<pre>` block: columns padded to a common
//! width and aligned as the table's delimiter row says, a dashed line under the header. Owns
//! the layout and its size bound; does not own the events (`render.rs` collects the cells) or
//! escaping.

use pulldown_cmark::Alignment;

/// A cell wider than this is not padded to: one long cell must not widen every row.
const MAX_COLUMN_WIDTH: usize = 40;
/// Above this many padded characters the table is written unpadded (cells joined by " | ",
/// trailing empty cells dropped), so a hostile table of a thousand columns by a thousand
/// short rows cannot turn a few kilobytes of Markdown into megabytes of spaces.
const MAX_PADDED_CHARS: usize = 32 * 1024;

/// The cells of one table as `render.rs` collects them.
#[derive(Debug, Default)]
pub(super) struct TableCells {
    pub(super) aligns: Vec<Alignment>,
    pub(super) rows: Vec<Vec<String>>,
    pub(super) header_rows: usize,
    pub(super) row: Vec<String>,
    pub(super) cell: String,
}

impl TableCells {
    pub(super) fn new(aligns: Vec<Alignment>) -> Self {
        Self {
            aligns,
            ..Self::default()
        }
    }

    pub(super) fn end_cell(&mut self) {
        let cell = std::mem::take(&mut self.cell);
        self.row.push(cell.trim().to_owned());
    }

    pub(super) fn end_row(&mut self, header: bool) {
        let row = std::mem::take(&mut self.row);
        self.rows.push(row);
        if header {
            self.header_rows = self.rows.len();
        }
    }
}

/// The table as lines of plain (unescaped) text, without a trailing newline.
pub(super) fn layout(table: &TableCells) -> String {
    let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for row in &table.rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count().min(MAX_COLUMN_WIDTH));
        }
    }
    let line_width: usize = widths.iter().map(|w| w + 3).sum();
    let padded = table.rows.len().saturating_mul(line_width) <= MAX_PADDED_CHARS;
    let mut lines: Vec<String> = Vec::with_capacity(table.rows.len() + 1);
    for (index, row) in table.rows.iter().enumerate() {
        if padded {
            lines.push(padded_row(row, &widths, &table.aligns));
        } else {
            lines.push(unpadded_row(row));
        }
        if index + 1 == table.header_rows {
            lines.push(separator(&widths, padded));
        }
    }
    lines.join("\n")
}

fn padded_row(row: &[String], widths: &[usize], aligns: &[Alignment]) -> String {
    let mut cells = Vec::with_capacity(widths.len());
    for (column, width) in widths.iter().enumerate() {
        let cell = row.get(column).map(String::as_str).unwrap_or("");
        let gap = width.saturating_sub(cell.chars().count());
        let (left, right) = match aligns.get(column) {
            Some(Alignment::Right) => (gap, 0),
            Some(Alignment::Center) => (gap / 2, gap - gap / 2),
            _ => (0, gap),
        };
        cells.push(format!("{}{cell}{}", " ".repeat(left), " ".repeat(right)));
    }
    cells.join(" | ").trim_end().to_owned()
}

fn unpadded_row(row: &[String]) -> String {
    let used = row
        .iter()
        .rposition(|cell| !cell.is_empty())
        .map_or(0, |i| i + 1);
    row.get(..used).unwrap_or_default().join(" | ")
}

fn separator(widths: &[usize], padded: bool) -> String {
    if !padded {
        return "---".to_owned();
    }
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat((*w).max(1))).collect();
    dashes.join("-+-")
}
