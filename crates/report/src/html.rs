//! HTML pieces: escaping, numbers with their `data-metric` / `data-value`, tables.

use calibscope_audit::summary::{fmt, fmt_rank, lookup, Cell, Table};
use serde_json::Value;

/// The page being written.
#[derive(Default)]
pub struct Out(pub String);

impl Out {
    /// Appends markup that is already safe.
    pub fn raw(&mut self, s: &str) {
        self.0.push_str(s);
    }
}

/// Text as HTML text or attribute value: `& < > " '` escaped.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A number with its path and full-precision value (`null` and "undefined" when
/// the audit has none).
pub fn num(path: &str, v: &Value) -> String {
    if v.is_number() {
        format!(
            "<span class=\"num\" data-metric=\"{}\" data-value=\"{}\">{}</span>",
            esc(path),
            v,
            esc(&fmt(v))
        )
    } else {
        format!(
            "<span class=\"num undefined\" data-metric=\"{}\" data-value=\"null\">undefined</span>",
            esc(path)
        )
    }
}

/// A rank or rank change with its path and exact value (shown as `3`, `3.5`, `-1`).
pub fn rank(path: &str, v: &Value) -> String {
    if v.is_number() {
        format!(
            "<span class=\"num\" data-metric=\"{}\" data-value=\"{}\">{}</span>",
            esc(path),
            v,
            esc(&fmt_rank(v))
        )
    } else {
        num(path, v)
    }
}

/// Cells as markup, their numbers read from `doc`.
pub fn cells(doc: &Value, cells: &[Cell]) -> String {
    cells
        .iter()
        .map(|cell| match cell {
            Cell::Text(s) => esc(s),
            Cell::Num(path) => num(&path.join("."), lookup(doc, path)),
            Cell::Rank(path) => rank(&path.join("."), lookup(doc, path)),
        })
        .collect()
}

/// A summary table, its numbers read from `doc`.
pub fn table(o: &mut Out, doc: &Value, t: &Table) {
    // wide tables scroll on their own on narrow screens
    o.raw("<div class=\"scroll\" tabindex=\"0\">\n<table>\n");
    if !t.title.is_empty() {
        o.raw(&format!("<caption>{}</caption>\n", esc(&t.title)));
    }
    o.raw("<thead><tr>");
    for h in &t.headers {
        o.raw(&format!("<th scope=\"col\">{}</th>", esc(h)));
    }
    o.raw("</tr></thead>\n<tbody>\n");
    for line in &t.lines {
        let class = if line.class.is_empty() {
            String::new()
        } else {
            format!(" class=\"{}\"", esc(line.class))
        };
        o.raw(&format!(
            "<tr{class}><th scope=\"row\">{}</th>",
            esc(&line.label)
        ));
        for column in &line.columns {
            o.raw(&format!("<td>{}</td>", cells(doc, column)));
        }
        o.raw("</tr>\n");
    }
    o.raw("</tbody>\n</table>\n</div>\n");
}
