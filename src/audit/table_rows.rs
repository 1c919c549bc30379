//! The reliability table's rows as markup and as CSV.
//!
//! The explorer puts the rows in view into the page as one HTML string (one
//! `innerHTML`, parsed by the browser at once) rather than as a few hundred reactive
//! nodes built one call at a time: at m = 2000 a slider step rebuilds every row in
//! view, and building them node by node cost several milliseconds of the step
//! (BENCHMARKS.md). Every number carries `data-metric` (its path
//! in the audit JSON) and `data-value` (full precision), as `widgets::num_view` writes.

use crate::proto::Row;
use crate::shared::numfmt::{count, data_value, display};
use calibscope_core::binning::Binning;
use calibscope_report::esc;
use std::fmt::Write;

/// The names of a row's edges in the audit JSON: `lower_edge`/`upper_edge` for
/// equal-width bins, `u_min`/`u_max` for equal-mass bins.
pub fn edge_keys(binning: Binning) -> (&'static str, &'static str) {
    if binning == Binning::Width {
        ("lower_edge", "upper_edge")
    } else {
        ("u_min", "u_max")
    }
}

/// The `<tr>` elements of `rows`, the rows `first..` of the table whose rows' paths
/// start with `base` (e.g. `reliability.confidence.width_2000`), for a table of
/// `binning` (`width` or `mass`). Row `i` is `aria-rowindex = i + 2` (the header is
/// row 1). Names in `base` are escaped.
pub fn rows_html(base: &str, first: usize, rows: &[Row], binning: Binning) -> String {
    let (lo_key, hi_key) = edge_keys(binning);
    let base = esc(base);
    let mut out = String::with_capacity(rows.len() * 1400);
    for (j, r) in rows.iter().enumerate() {
        let i = first + j;
        let num = |out: &mut String, key: &str, value: String, shown: String| {
            let _ = write!(
                out,
                "<span class=\"num\" data-metric=\"{base}.{i}.{key}\" data-value=\"{}\">{}</span>",
                esc(&value),
                esc(&shown)
            );
        };
        let f = |v: f64| (data_value(Some(v)), display(Some(v)));
        let _ = write!(out, "<tr aria-rowindex=\"{}\"><td>", i + 2);
        num(&mut out, "bin", r.bin.to_string(), r.bin.to_string());
        out.push_str("</td><td class=\"range\">");
        let (v, s) = f(r.lower);
        num(&mut out, lo_key, v, s);
        out.push_str(" – ");
        let (v, s) = f(r.upper);
        num(&mut out, hi_key, v, s);
        out.push_str("</td><td>");
        num(&mut out, "n", r.n.to_string(), count(r.n as u64));
        for (key, x) in [("conf", r.conf), ("acc", r.acc), ("gap", r.gap)] {
            out.push_str("</td><td>");
            let (v, s) = f(x);
            num(&mut out, key, v, s);
        }
        out.push_str("</td><td class=\"interval\">[");
        let (v, s) = f(r.cp_lower);
        num(&mut out, "cp_lower", v, s);
        out.push_str(", ");
        let (v, s) = f(r.cp_upper);
        num(&mut out, "cp_upper", v, s);
        out.push_str("]</td></tr>");
    }
    out
}

/// The whole table as CSV (every row, full precision), as "Copy as CSV" gives it.
pub fn csv(rows: &[Row], binning: Binning) -> String {
    let (lo, hi) = edge_keys(binning);
    let mut out = format!("bin,{lo},{hi},n,conf,acc,gap,successes,cp_lower,cp_upper\n");
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            r.bin,
            data_value(Some(r.lower)),
            data_value(Some(r.upper)),
            r.n,
            data_value(Some(r.conf)),
            data_value(Some(r.acc)),
            data_value(Some(r.gap)),
            r.successes,
            data_value(Some(r.cp_lower)),
            data_value(Some(r.cp_upper))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(bin: usize) -> Row {
        Row {
            bin,
            n: 12345,
            conf: 0.1 + bin as f64 / 7.0,
            acc: 1.0 / 3.0,
            gap: 1.0 / 3.0 - (0.1 + bin as f64 / 7.0),
            successes: 4115,
            cp_lower: 0.3251234567890123,
            cp_upper: 0.34123456789,
            lower: bin as f64 / 2000.0,
            upper: (bin + 1) as f64 / 2000.0,
        }
    }

    /// `(data-metric, data-value, shown text)` of every number in `html`.
    fn numbers(html: &str) -> Vec<(String, String, String)> {
        html.split("<span class=\"num\" ")
            .skip(1)
            .map(|s| {
                let attr = |name: &str| {
                    let at = s.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                    s[at..at + s[at..].find('"').unwrap()].to_string()
                };
                let text = &s[s.find('>').unwrap() + 1..s.find("</span>").unwrap()];
                (attr("data-metric"), attr("data-value"), text.to_string())
            })
            .collect()
    }

    #[test]
    fn every_number_carries_its_path_and_full_value() {
        let rows: Vec<Row> = (40..43).map(row).collect();
        let html = rows_html(
            "reliability.confidence.width_2000",
            40,
            &rows,
            Binning::Width,
        );
        assert_eq!(html.matches("<tr ").count(), 3);
        assert!(html.starts_with("<tr aria-rowindex=\"42\">"));
        let nums = numbers(&html);
        assert_eq!(nums.len(), 3 * 9);
        for (j, r) in rows.iter().enumerate() {
            let i = 40 + j;
            let want = [
                ("bin", r.bin as f64),
                ("lower_edge", r.lower),
                ("upper_edge", r.upper),
                ("n", r.n as f64),
                ("conf", r.conf),
                ("acc", r.acc),
                ("gap", r.gap),
                ("cp_lower", r.cp_lower),
                ("cp_upper", r.cp_upper),
            ];
            for (k, (key, v)) in want.iter().enumerate() {
                let (metric, value, shown) = &nums[j * 9 + k];
                assert_eq!(
                    metric,
                    &format!("reliability.confidence.width_2000.{i}.{key}")
                );
                // full precision: the value reads back to the same f64
                assert_eq!(value.parse::<f64>().unwrap(), *v, "{metric}");
                if *key == "n" {
                    assert_eq!(shown, &count(r.n as u64));
                } else if *key != "bin" {
                    assert_eq!(shown, &display(Some(*v)));
                }
            }
        }
    }

    #[test]
    fn equal_mass_rows_name_their_forecast_range_and_names_are_escaped() {
        let html = rows_html(
            "models.a\"<b>&.reliability.x.mass_5",
            0,
            &[row(0)],
            Binning::Mass,
        );
        let nums = numbers(&html);
        assert_eq!(
            nums[1].0,
            "models.a&quot;&lt;b&gt;&amp;.reliability.x.mass_5.0.u_min"
        );
        assert_eq!(
            nums[2].0,
            "models.a&quot;&lt;b&gt;&amp;.reliability.x.mass_5.0.u_max"
        );
        assert!(!html.contains("a\"<b>"));
        assert_eq!(rows_html("x", 0, &[], Binning::Mass), "");
    }

    #[test]
    fn the_csv_has_every_row_at_full_precision() {
        let rows: Vec<Row> = (0..2000).map(row).collect();
        let csv = csv(&rows, Binning::Mass);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "bin,u_min,u_max,n,conf,acc,gap,successes,cp_lower,cp_upper"
        );
        assert_eq!(lines.len(), 2001);
        for (line, r) in lines[1..].iter().zip(&rows) {
            let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
            let want = [
                r.bin as f64,
                r.lower,
                r.upper,
                r.n as f64,
                r.conf,
                r.acc,
                r.gap,
                r.successes as f64,
                r.cp_lower,
                r.cp_upper,
            ];
            assert_eq!(f, want);
        }
    }
}
