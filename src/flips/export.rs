//! Exports of the ranking-flips view: the ranking table and the Spearman matrices as
//! CSV (saved by `crate::shared::download`).

use crate::proto::flips::{FlipsMatrices, FlipsRanking};
use crate::shared::numfmt::data_value;

pub use crate::shared::download::{download_png, download_text};

use calibscope_audit::csv;

/// The ranking table as CSV: one row per model.
pub fn ranking_csv(r: &FlipsRanking, names: &[String]) -> String {
    let mut out = format!(
        "model,rank_m{m},value_m{m},rank_m{mr},value_m{mr},rank_change,flipped\n",
        m = r.m,
        mr = r.m_ref
    );
    for (i, name) in names.iter().enumerate() {
        let flipped = r.flip_pairs.iter().any(|&(a, b)| a == i || b == i);
        let rank = |v: &[f64]| data_value(v.get(i).copied());
        let value = |v: &[Option<f64>]| data_value(v.get(i).copied().flatten());
        out.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            csv::label(name),
            rank(&r.ranks),
            value(&r.values),
            rank(&r.ranks_ref),
            value(&r.values_ref),
            rank(&r.rank_change),
            flipped
        ));
    }
    out
}

/// Every metric's Spearman and flip matrix as CSV (long form: one row per pair of
/// bin counts), then each metric's Spearman against the classification error.
pub fn matrices_csv(x: &FlipsMatrices) -> String {
    let mut out = String::from("metric,binning,m_a,m_b,spearman,flips\n");
    for mm in &x.metrics {
        for (a, ma) in x.bins.iter().enumerate() {
            for (b, mb) in x.bins.iter().enumerate() {
                let rho = mm.spearman.get(a).and_then(|r| r.get(b)).copied().flatten();
                let flips = mm
                    .flips
                    .get(a)
                    .and_then(|r| r.get(b))
                    .map_or(String::new(), |f| f.to_string());
                out.push_str(&format!(
                    "{},{},{ma},{mb},{},{flips}\n",
                    mm.metric,
                    x.binning.name(),
                    data_value(rho)
                ));
            }
        }
    }
    out.push_str("\nmetric,binning,m,spearman_vs_error\n");
    for mm in &x.metrics {
        for (j, m) in x.bins.iter().enumerate() {
            let v = mm.spearman_vs_error.get(j).copied().flatten();
            out.push_str(&format!(
                "{},{},{m},{}\n",
                mm.metric,
                x.binning.name(),
                data_value(v)
            ));
        }
    }
    out
}
