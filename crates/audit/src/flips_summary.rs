//! The tables of a record's ranking-flips section (`tables.flips`, written by
//! [`crate::flips_section`]), defined once as paths into the record: the HTML
//! report shows them with their `data-metric` paths, the Markdown summary as text,
//! the CSV exports as files.

use crate::summary::{Cell, Line, Table};
use serde_json::Value;

/// The ranked metrics with their names in METRICS.md (the flips view's choices).
pub const RANKED_METRIC_LABELS: [(&str, &str); 9] = [
    ("confece", "ConfECE (ℓ1, the usual ECE)"),
    ("confce", "ConfCE (squared)"),
    ("confce_corr", "ConfCE^corr (truthful)"),
    ("lince_cw", "LinCE^cw (truthful, classwise)"),
    ("cwece", "cwECE (classwise ℓ1)"),
    ("rmsce_conf", "RMSCE (confidence)"),
    ("error", "classification error (reference)"),
    ("brier_over_k", "Brier/k (proper loss of LinCE^cw)"),
    ("l_conf", "l_conf (proper loss of ConfCE^corr)"),
];

/// What the ranking-flips section shows, in a sentence (the app's view and the
/// report open with it).
pub const FLIPS_NOTE: &str = "How the ranking of your models by a calibration error changes with the number of bins alone. Binned ECE is not truthful, so its ranking can flip with the bin count; whether the truthful errors (the corrected ConfCE^corr, the classwise LinCE^cw) hold better on your models is counted below.";

/// The source paper of the truthful calibration errors, as cited on screen.
pub const PAPER: &str =
    "“Truthful Calibration Errors for Multi-Class Prediction” (NeurIPS 2026, arXiv 2510.06388)";

/// What the source paper did, in a sentence (its setting, before its numbers).
pub const PAPER_SETTING: &str = "temperature-scales nine CIFAR-100 models (MobileNetV3-Small 0.5/0.75/1.0 and ResNet-10t/18/34/50/101/152) on 5,000 validation images, bins the 5,000 test images by quantiles (its table marks the ConfECE rows “fix”, the others “qua”) at m = 2000, 20 and 5, and reports Spearman correlations within one architecture’s training trajectory (MobileNetV3) and across the nine architectures, mean ± spread:";

/// The source paper's CIFAR-100 Spearman correlations: metric, what is correlated,
/// within one architecture's trajectory, across architectures (as printed).
pub const PAPER_SPEARMAN: [(&str, &str, &str, &str); 18] = [
    (
        "confece",
        "error vs m = 2000",
        "0.972 ± 0.002",
        "0.974 ± 0.002",
    ),
    (
        "confece",
        "error vs m = 20",
        "−0.009 ± 0.033",
        "0.654 ± 0.018",
    ),
    (
        "confece",
        "error vs m = 5",
        "−0.277 ± 0.030",
        "0.604 ± 0.020",
    ),
    (
        "confece",
        "m = 2000 vs m = 5",
        "−0.285 ± 0.030",
        "0.624 ± 0.020",
    ),
    (
        "confce",
        "error vs m = 2000",
        "0.966 ± 0.002",
        "0.976 ± 0.002",
    ),
    (
        "confce",
        "error vs m = 20",
        "0.045 ± 0.033",
        "0.639 ± 0.019",
    ),
    (
        "confce",
        "error vs m = 5",
        "−0.121 ± 0.032",
        "0.582 ± 0.021",
    ),
    (
        "confce",
        "m = 2000 vs m = 5",
        "−0.115 ± 0.032",
        "0.608 ± 0.020",
    ),
    (
        "confce_corr",
        "error vs m = 2000",
        "0.998 ± 0.000",
        "0.999 ± 0.000",
    ),
    (
        "confce_corr",
        "error vs m = 20",
        "0.691 ± 0.017",
        "0.891 ± 0.007",
    ),
    (
        "confce_corr",
        "error vs m = 5",
        "0.272 ± 0.031",
        "0.753 ± 0.014",
    ),
    (
        "confce_corr",
        "m = 2000 vs m = 20",
        "0.695 ± 0.017",
        "0.895 ± 0.006",
    ),
    (
        "confce_corr",
        "m = 20 vs m = 5",
        "0.642 ± 0.020",
        "0.884 ± 0.007",
    ),
    (
        "lince_cw",
        "error vs m = 2000",
        "0.994 ± 0.000",
        "0.992 ± 0.000",
    ),
    (
        "lince_cw",
        "error vs m = 20",
        "0.887 ± 0.007",
        "0.875 ± 0.008",
    ),
    (
        "lince_cw",
        "error vs m = 5",
        "0.884 ± 0.007",
        "0.873 ± 0.008",
    ),
    (
        "lince_cw",
        "m = 2000 vs m = 20",
        "0.899 ± 0.006",
        "0.910 ± 0.006",
    ),
    (
        "lince_cw",
        "m = 20 vs m = 5",
        "0.997 ± 0.000",
        "0.997 ± 0.000",
    ),
];

/// The source paper's conclusion in its own numbers (from [`PAPER_SPEARMAN`]).
pub const PAPER_CLAIM: &str = "It reports that ConfECE’s ranking reverses with the bin count (Spearman −0.285 between m = 2000 and m = 5 within a trajectory, 0.624 across architectures) and that LinCE^cw’s holds (0.997 ± 0.000 between m = 20 and m = 5, within and across); for ConfCE^corr it reports 0.642 within and 0.884 across between m = 20 and m = 5.";

/// The label of a ranked metric (its name when unknown).
pub fn metric_label(metric: &str) -> &str {
    RANKED_METRIC_LABELS
        .iter()
        .find(|(k, _)| *k == metric)
        .map_or(metric, |(_, l)| l)
}

/// The path `tables.flips.<rest>` as segments (`rest` dotted; map keys such as
/// `450|5` hold no dots).
pub fn flips_path(rest: &str) -> Vec<String> {
    ["tables", "flips"]
        .into_iter()
        .chain(rest.split('.'))
        .map(String::from)
        .collect()
}

/// The settings of a section: `(metric, binning, m, m_ref, bins)`.
pub fn settings(section: &Value) -> (String, String, usize, usize, Vec<usize>) {
    let s = &section["settings"];
    let text = |k: &str| s[k].as_str().unwrap_or("").to_string();
    let int = |v: &Value| v.as_u64().unwrap_or(0) as usize;
    let bins = s["bins"]
        .as_array()
        .into_iter()
        .flatten()
        .map(int)
        .collect();
    (
        text("metric"),
        text("binning"),
        int(&s["m"]),
        int(&s["m_ref"]),
        bins,
    )
}

/// The models of a section, in input order.
pub fn models(section: &Value) -> Vec<String> {
    section["models"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v.as_str().unwrap_or("").to_string())
        .collect()
}

/// The settings in words, the bin counts as numbers: `ConfECE (…), equal-mass bins,
/// m = 5 against the reference m = 2000; Spearman matrices over m = 5, 20, 2000`.
pub fn settings_cells(section: &Value) -> Vec<Cell> {
    let (metric, binning, _, _, bins) = settings(section);
    let binning = if binning == "width" {
        "equal-width"
    } else {
        "equal-mass"
    };
    let mut cells = vec![
        Cell::Text(format!("{}, {binning} bins, m = ", metric_label(&metric))),
        Cell::Num(flips_path("settings.m")),
        Cell::text(" against the reference m = "),
        Cell::Num(flips_path("settings.m_ref")),
        Cell::text("; Spearman matrices over m = "),
    ];
    for j in 0..bins.len() {
        if j > 0 {
            cells.push(Cell::text(", "));
        }
        cells.push(Cell::Num(flips_path(&format!("settings.bins.{j}"))));
    }
    if section["temperature"].is_object() {
        cells.push(Cell::text(
            "; every model temperature-scaled first, τ fitted on ",
        ));
        cells.push(Cell::Num(flips_path("temperature.n_calibration")));
        cells.push(Cell::text(" samples (τ = "));
        for (i, name) in models(section).iter().enumerate() {
            if i > 0 {
                cells.push(Cell::text(", "));
            }
            cells.push(Cell::Text(format!("{name} ")));
            cells.push(Cell::Num(flips_path(&format!("temperature.tau.{i}"))));
        }
        cells.push(Cell::text("), every number on the other "));
        cells.push(Cell::Num(flips_path("temperature.n_evaluation")));
    }
    cells
}

/// The key of the ranking's flip pairs (`m_ref|m`) and the pairs as model names.
pub fn flip_pairs(section: &Value) -> (String, Vec<(String, String)>) {
    let (_, _, m, m_ref, _) = settings(section);
    let key = format!("{m_ref}|{m}");
    let pairs = section["ranking"]["flip_pairs"][&key]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let name = |i: usize| p[i].as_str().unwrap_or("").to_string();
            (name(0), name(1))
        })
        .collect();
    (key, pairs)
}

/// The arrow of a rank change (positive: moved up).
fn arrow(change: f64) -> &'static str {
    if change > 0.0 {
        "▲ "
    } else if change < 0.0 {
        "▼ "
    } else {
        "= "
    }
}

/// The ranking at m against the reference, best rank at m first: rank and value at
/// m and at the reference, the rank change (▲ up, ▼ down) and the classification
/// error; models in a flipped pair carry the class `flipped`. `Err`: why there is
/// no ranking.
pub fn ranking(section: &Value) -> Result<Table, String> {
    let r = &section["ranking"];
    if let Some(why) = r["unavailable"].as_str() {
        return Err(why.to_string());
    }
    let (_, _, m, m_ref, _) = settings(section);
    let names = models(section);
    let (_, pairs) = flip_pairs(section);
    let rank_at = |at: usize, i: usize| r["ranks"][at.to_string()][i].as_f64();
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i| rank_at(m, i).unwrap_or(f64::INFINITY);
        key(a).total_cmp(&key(b))
    });
    let lines = order
        .into_iter()
        .map(|i| {
            let name = &names[i];
            let flipped = pairs.iter().any(|(a, b)| a == name || b == name);
            let change = r["rank_change"][i].as_f64().unwrap_or(0.0);
            let at = |rest: String| vec![Cell::Num(flips_path(&rest))];
            let rank = |at: usize| vec![Cell::Rank(flips_path(&format!("ranking.ranks.{at}.{i}")))];
            Line {
                label: name.clone(),
                columns: vec![
                    rank(m),
                    at(format!("ranking.values.{m}.{i}")),
                    rank(m_ref),
                    at(format!("ranking.values.{m_ref}.{i}")),
                    vec![
                        Cell::text(arrow(change)),
                        Cell::Rank(flips_path(&format!("ranking.rank_change.{i}"))),
                    ],
                    at(format!("error.{i}")),
                    vec![Cell::text(if flipped { "flipped" } else { "" })],
                ],
                class: if flipped { "flipped" } else { "" },
            }
        })
        .collect();
    Ok(Table {
        title: format!("Ranking at m = {m} against the reference m = {m_ref}"),
        headers: vec![
            "model".into(),
            format!("rank at m = {m}"),
            format!("value at m = {m}"),
            format!("rank at m = {m_ref}"),
            format!("value at m = {m_ref}"),
            "change (▲ up)".into(),
            "classification error".into(),
            "flip".into(),
        ],
        lines,
    })
}

/// What the cells of a Spearman matrix hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixCells {
    /// ρ between the rankings at two bin counts, then the flips in brackets.
    SpearmanAndFlips,
    /// ρ only.
    Spearman,
    /// The flips only.
    Flips,
}

/// The Spearman matrix of one ranked metric over the section's bin counts, with
/// the Spearman ρ against the classification error as the last row. `Err`: why the
/// metric cannot be ranked.
pub fn matrix(section: &Value, metric: &str, cells: MatrixCells) -> Result<Table, String> {
    let x = &section["matrices"][metric];
    if let Some(why) = x["unavailable"].as_str() {
        return Err(why.to_string());
    }
    let (_, _, _, _, bins) = settings(section);
    let at = |rest: String| Cell::Num(flips_path(&format!("matrices.{metric}.{rest}")));
    let mut lines: Vec<Line> = bins
        .iter()
        .enumerate()
        .map(|(a, ma)| Line {
            label: ma.to_string(),
            columns: (0..bins.len())
                .map(|c| {
                    let rho = at(format!("spearman.{a}.{c}"));
                    let flips = at(format!("flips.{a}.{c}"));
                    match cells {
                        MatrixCells::SpearmanAndFlips => {
                            vec![rho, Cell::text(" ("), flips, Cell::text(")")]
                        }
                        MatrixCells::Spearman => vec![rho],
                        MatrixCells::Flips => vec![flips],
                    }
                })
                .collect(),
            ..Line::default()
        })
        .collect();
    if cells != MatrixCells::Flips {
        lines.push(Line {
            label: "ρ vs error".into(),
            columns: bins
                .iter()
                .map(|m| vec![at(format!("spearman_vs_error.{m}"))])
                .collect(),
            class: "vs-error",
        });
    }
    let mut headers = vec!["m".to_string()];
    headers.extend(bins.iter().map(|m| m.to_string()));
    Ok(Table {
        title: metric_label(metric).to_string(),
        headers,
        lines,
    })
}

/// The metrics of the section's matrices, in the order of [`RANKED_METRIC_LABELS`].
pub fn matrix_metrics(section: &Value) -> Vec<&'static str> {
    RANKED_METRIC_LABELS
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| section["matrices"].get(*k).is_some())
        .collect()
}

/// The ranking in a sentence: the number of flips between the reference and m,
/// the Spearman ρ between the two rankings and against the classification error.
pub fn ranking_sentence(section: &Value) -> Vec<Cell> {
    let (_, _, m, m_ref, _) = settings(section);
    let num = |rest: String| Cell::Num(flips_path(&format!("ranking.{rest}")));
    let mut cells = vec![
        num("flips.0.1".into()),
        Cell::Text(format!(
            " flips between m = {m_ref} and m = {m}; Spearman ρ between the two rankings "
        )),
        num("spearman.0.1".into()),
        Cell::text(", against the classification error "),
        num(format!("spearman_vs_error.{m}")),
        Cell::Text(format!(" at m = {m} and ")),
        num(format!("spearman_vs_error.{m_ref}")),
        Cell::Text(format!(" at m = {m_ref}.")),
    ];
    if models(section).len() < 3 {
        cells.push(Cell::text(
            " (Spearman ρ is undefined with fewer than 3 models.)",
        ));
    }
    cells
}
