//! Calibration per group in the report (a grouped audit: `groups` and `worst_group`
//! in the audit document): the per-group table, the worst group and the test of
//! "the groups differ more than chance", and one small reliability diagram per group
//! drawn from the record's `tables.groups` (per model under
//! `tables.models.<name>.groups`), all on the same axes.

use crate::html::{cells, esc, table, Out};
use calibscope_audit::groups::{statements, table as groups_table};
use calibscope_audit::summary::lookup;
use calibscope_core::binning::Binning;
use serde_json::Value;

/// The width the per-group diagrams are drawn at, in SVG units (the charts' least).
pub const GROUP_CHART_W: u32 = calibscope_charts::frame::MIN_W;

/// One reliability diagram (SVG) per group of the document's groups under
/// `prefix`, at the groups' bin count and binning, from the record's `tables`:
/// `(index in groups.values, svg)`, for each group whose rows the tables hold.
pub fn charts(doc: &Value, tables: &Value, prefix: &[&str]) -> Vec<(usize, String)> {
    let settings = lookup(
        doc,
        &calibscope_audit::groups::under(prefix, "groups.settings"),
    );
    let (Some(binning), Some(m)) = (
        settings["binning"].as_str().and_then(Binning::from_name),
        settings["m"].as_u64(),
    ) else {
        return Vec::new();
    };
    let key = format!("{}_{m}", binning.name());
    let values = lookup(
        tables,
        &calibscope_audit::groups::under(prefix, "groups.values"),
    );
    values
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, g)| {
            let rows = g["reliability"]["confidence"].get(&key)?;
            let opt = calibscope_charts::Options {
                width: GROUP_CHART_W,
                ..calibscope_charts::Options::default()
            };
            let bins = crate::bins_of(rows, binning);
            Some((i, calibscope_charts::reliability_with(&bins, &opt).svg))
        })
        .collect()
}

/// The section of the document's groups under `prefix` (nothing without groups).
pub fn section(o: &mut Out, doc: &Value, tables: &Value, prefix: &[&str]) {
    let Some(t) = groups_table(doc, prefix) else {
        return;
    };
    let g = lookup(doc, &calibscope_audit::groups::under(prefix, "groups"));
    let s = &g["settings"];
    let h = if prefix.is_empty() { "h2" } else { "h3" };
    o.raw(&format!(
        "<section class=\"groups\">\n<{h}>Calibration per group</{h}>\n<p>Each group's rows are audited alone, as if they were a file of their own. A model can be calibrated on average and miscalibrated for one group. Groups of fewer than {} samples are listed but take no part in the worst group or the test: their numbers are too uncertain for a statement.</p>\n",
        esc(&s["min_size"].to_string())
    ));
    table(o, doc, &t);
    for sentence in statements(doc, prefix) {
        o.raw(&format!("<p>{}</p>\n", cells(doc, &sentence)));
    }
    let charts = charts(doc, tables, prefix);
    if charts.is_empty() {
        o.raw("<p class=\"notice\">This record holds no per-group reliability rows (it was made before they were recorded), so no per-group diagrams are drawn.</p>\n");
    } else {
        o.raw(&format!(
            "<p>Accuracy against confidence in each group, {} {} bins, on the same axes; the strip counts the samples per bin.</p>\n<div class=\"figures small\">\n",
            esc(&s["m"].to_string()),
            esc(s["binning"].as_str().map_or("", |b| {
                if b == "mass" {
                    "equal-mass"
                } else {
                    "equal-width"
                }
            }))
        ));
        let values = g["values"].as_array().cloned().unwrap_or_default();
        for (i, svg) in charts {
            let v = &values.get(i).cloned().unwrap_or(Value::Null);
            let name = t.lines.get(i).map_or("", |l| l.label.as_str());
            let base = calibscope_audit::groups::under(prefix, &format!("groups.values.{i}"));
            let n = crate::html::num(&format!("{}.n", base.join(".")), &v["n"]);
            let sentence = v["audit"]["verdict"]["text"]
                .as_str()
                .map(|text| {
                    format!(
                        "<p class=\"verdict\" data-field=\"{}.audit.verdict.text\">{}</p>\n",
                        esc(&base.join(".")),
                        esc(text)
                    )
                })
                .unwrap_or_default();
            o.raw(&format!(
                "<figure>\n<figcaption><strong>{}</strong>, n = {n}</figcaption>\n{svg}\n{sentence}</figure>\n",
                esc(name)
            ));
        }
        o.raw("</div>\n");
    }
    o.raw("</section>\n");
}
