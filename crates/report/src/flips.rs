//! The report's "Ranking flips" section (records of two or more models hold
//! `tables.flips`): the settings, the ranking at m against the reference with its
//! flips, and the Spearman matrices of every ranked metric with their Spearman
//! against the classification error. Every number carries its record path
//! (`tables.flips.…`) in `data-metric`.

use crate::html::{cells, esc, table, Out};
use calibscope_audit::flips_summary::{self as fs, MatrixCells};
use serde_json::Value;

/// The section, when the record has one.
pub fn section(o: &mut Out, record: &Value) {
    let s = &record["tables"]["flips"];
    if !s.is_object() {
        return;
    }
    o.raw("<section id=\"flips\">\n<h2>Ranking flips</h2>\n");
    o.raw(&format!(
        "<p>{} Each model gets its rank (1 = smallest error) at two bin counts; a flip is a pair of models whose order reverses.</p>\n",
        esc(fs::FLIPS_NOTE)
    ));
    o.raw(&format!(
        "<p class=\"settings-line\">{}.</p>\n",
        cells(record, &fs::settings_cells(s))
    ));
    match fs::ranking(s) {
        Err(why) => o.raw(&format!(
            "<p class=\"notice\">No ranking: {}.</p>\n",
            esc(&why)
        )),
        Ok(t) => {
            o.raw(&format!(
                "<p class=\"flip-summary\">{}</p>\n",
                cells(record, &fs::ranking_sentence(s))
            ));
            o.raw("<div class=\"ranking\">\n");
            table(o, record, &t);
            o.raw("</div>\n");
            pairs(o, s);
        }
    }
    o.raw("<h3>Spearman between bin counts, every metric</h3>\n<p>Each cell: the Spearman ρ between the rankings at two bin counts, the flips in brackets; the last row: ρ against the classification error.</p>\n<div class=\"matrices\">\n");
    for metric in fs::matrix_metrics(s) {
        o.raw(&format!(
            "<div class=\"matrix\" data-matrix=\"{}\">\n",
            esc(metric)
        ));
        match fs::matrix(s, metric, MatrixCells::SpearmanAndFlips) {
            Ok(t) => table(o, record, &t),
            Err(why) => o.raw(&format!(
                "<p class=\"notice\"><strong>{}</strong>: not computable: {}.</p>\n",
                esc(fs::metric_label(metric)),
                esc(&why)
            )),
        }
        o.raw("</div>\n");
    }
    o.raw("</div>\n</section>\n");
}

/// The pairs whose order reversed, each with its record path.
fn pairs(o: &mut Out, s: &Value) {
    let (key, pairs) = fs::flip_pairs(s);
    if pairs.is_empty() {
        return;
    }
    o.raw("<p>Pairs whose order reversed:</p>\n<ul class=\"flip-pairs\">\n");
    for (j, (a, b)) in pairs.iter().enumerate() {
        let value = serde_json::json!([a, b]).to_string();
        o.raw(&format!(
            "<li class=\"flipped\" data-metric=\"tables.flips.ranking.flip_pairs.{}.{j}\" data-value=\"{}\">{} ↔ {}{}</li>\n",
            esc(&key),
            esc(&value),
            esc(a),
            esc(b),
            noise_note(s, &key, a, b)
        ));
    }
    o.raw("</ul>\n");
}

/// For a flipped pair of the ranking (`key` = `m_ref|m`), what the record's noise
/// section says of it: within noise or not, with the share of paired bootstrap
/// replicates keeping the pair's order at each bin count; empty without a noise section.
fn noise_note(s: &Value, key: &str, a: &str, b: &str) -> String {
    let Some((m1, m2)) = key.split_once('|') else {
        return String::new();
    };
    let flips = &s["noise"]["flips"];
    // the noise section keys its flips by the sorted bin counts
    let (noise_key, swapped) = if flips.get(key).is_some() {
        (key.to_string(), false)
    } else {
        (format!("{m2}|{m1}"), true)
    };
    let Some(list) = flips[&noise_key].as_array() else {
        return String::new();
    };
    let Some((i, flip)) = list.iter().enumerate().find(|(_, f)| {
        let p = &f["pair"];
        (p[0] == a && p[1] == b) || (p[0] == b && p[1] == a)
    }) else {
        return String::new();
    };
    let share = |k: usize| {
        let k = if swapped { 1 - k } else { k };
        flip["shares"][k]
            .as_f64()
            .map_or("undefined".to_string(), |v| format!("{:.1} %", v * 100.0))
    };
    let within = flip["within_noise"] == Value::Bool(true);
    format!(
        " — <span data-metric=\"tables.flips.noise.flips.{}.{i}.within_noise\" data-value=\"{within}\">{}</span>: the order holds in {} of the paired bootstrap replicates at m = {m1} and {} at m = {m2}",
        esc(&noise_key),
        if within { "within noise" } else { "beyond noise" },
        share(0),
        share(1),
    )
}
