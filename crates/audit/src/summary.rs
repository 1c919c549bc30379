//! The summary's tables, defined once as paths into the `calibscope-audit/1`
//! document: the Markdown summary prints them as text, the HTML report as numbers
//! carrying their `data-metric` path and full-precision `data-value`.

use calibscope_core::binning::Binning;
use serde_json::Value;

/// A piece of a table cell: fixed text, or the number at a path of the document.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    /// The path's segments (model names may hold dots).
    Num(Vec<String>),
    /// A rank or rank change at a path, shown as its exact decimal (`3`, `3.5`, `-1`).
    Rank(Vec<String>),
}

impl Cell {
    /// The number at a dotted path.
    pub fn num(path: &str) -> Cell {
        Cell::Num(path.split('.').map(String::from).collect())
    }
    /// The number at a dotted path under `prefix` (segments kept whole).
    pub fn num_in(prefix: &[&str], path: &str) -> Cell {
        let mut p: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
        p.extend(path.split('.').map(String::from));
        Cell::Num(p)
    }
    pub fn text(t: &str) -> Cell {
        Cell::Text(t.to_string())
    }
    /// The path of a number cell (`None` for text).
    pub fn path(&self) -> Option<&[String]> {
        match self {
            Cell::Text(_) => None,
            Cell::Num(p) | Cell::Rank(p) => Some(p),
        }
    }
    /// The cell as text for people, its number read from `doc`.
    pub fn show(&self, doc: &Value) -> String {
        match self {
            Cell::Text(t) => t.clone(),
            Cell::Num(p) => fmt(lookup(doc, p)),
            Cell::Rank(p) => fmt_rank(lookup(doc, p)),
        }
    }
}

/// A table row: its label and its columns, each made of cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    pub label: String,
    pub columns: Vec<Vec<Cell>>,
    /// The row's class in the HTML report (empty for none), e.g. `flipped`.
    pub class: &'static str,
}

/// A table: a title, its column headers (the label column's first) and rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub title: String,
    pub headers: Vec<String>,
    pub lines: Vec<Line>,
}

/// The value at a path of segments (`Null` when absent): object members by name,
/// array elements by decimal index.
pub fn lookup<'a>(doc: &'a Value, path: &[String]) -> &'a Value {
    get(doc, path.iter().map(String::as_str)).unwrap_or(&Value::Null)
}

/// The value at a dotted path (`models.0.confidence.ece`), as `data-metric`
/// attributes name it; `None` when absent.
pub fn get_dotted<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    get(doc, path.split('.'))
}

/// Walks `segments` down from `doc`: object members by name, array elements by
/// decimal index; `None` at the first segment that does not exist.
fn get<'a, 's>(doc: &'a Value, segments: impl IntoIterator<Item = &'s str>) -> Option<&'a Value> {
    segments.into_iter().try_fold(doc, |v, k| match v {
        Value::Object(o) => o.get(k),
        Value::Array(a) => a.get(k.parse::<usize>().ok()?),
        _ => None,
    })
}

/// A rank for people: its shortest exact decimal (`3`, `3.5`, `-1`), `undefined`
/// for null.
pub fn fmt_rank(v: &Value) -> String {
    v.as_f64()
        .map_or_else(|| "undefined".into(), |x| x.to_string())
}

/// A number for people, by the one formatter of the page, its charts and the
/// reports ([`calibscope_charts::numfmt`]): whole counts grouped by thin spaces
/// (`12 345`), other numbers to four significant digits with no e-notation between
/// 1e-4 and 1e6 (`< 1e-4` below, `5.901 million` above), `undefined` for null. The
/// full precision stays in the JSON, the `data-value` of the report and the CSV.
pub fn fmt(v: &Value) -> String {
    match v.as_u64() {
        Some(n) => calibscope_charts::numfmt::count(n),
        None => calibscope_charts::numfmt::display(v.as_f64()),
    }
}

fn line(label: impl Into<String>, cells: Vec<Cell>) -> Line {
    Line {
        label: label.into(),
        columns: vec![cells],
        ..Line::default()
    }
}

/// The overview of a single-model audit at `m` bins.
pub fn overview(doc: &Value, m: usize) -> Table {
    use Cell as C;
    let conf = |b: &str, key: &str| C::num(&format!("readings.confidence.{b}.{m}.{key}"));
    let cwauc = if doc["cwauc"]["class1"].is_null() {
        "cwauc.macro"
    } else {
        "cwauc.class1"
    };
    let lines = vec![
        line("accuracy", vec![C::num("binning_free.accuracy")]),
        line(
            format!("ECE (top-label, {m} equal-width bins)"),
            vec![conf("width", "ece")],
        ),
        line(
            format!("ECE (top-label, {m} equal-mass bins)"),
            vec![conf("mass", "ece")],
        ),
        line(
            format!("MCE (top-label, {m} equal-width bins)"),
            vec![conf("width", "mce")],
        ),
        line(
            "Brier (top-label) = CAL + REF + RES",
            vec![
                conf("width", "brier"),
                C::text(" = "),
                conf("width", "cal"),
                C::text(" + "),
                conf("width", "ref"),
                C::text(" + "),
                conf("width", "res"),
            ],
        ),
        line("NLL", vec![C::num("binning_free.nll")]),
        line(
            "AUC (macro one-vs-rest)",
            vec![C::num("binning_free.auc_macro")],
        ),
        line(
            format!("LinCE^cw ({m} equal-mass bins)"),
            vec![C::num(&format!("readings.classwise.mass.{m}.lince_cw"))],
        ),
        line(
            format!("ConfCE^corr ({m} equal-mass bins)"),
            vec![conf("mass", "confce_corr")],
        ),
        line(
            "CSR ± σ",
            vec![
                C::num("beyond_ece.csr"),
                C::text(" ± "),
                C::num("beyond_ece.sigma_csr"),
            ],
        ),
        line(
            "P_risk (overconfidence risk)",
            vec![C::num("beyond_ece.p_risk")],
        ),
        line(
            "cwA (gain)",
            vec![
                C::num("beyond_ece.cwa"),
                C::text(" ("),
                C::num("beyond_ece.gain"),
                C::text(")"),
            ],
        ),
        line("cwAUC", vec![C::num(cwauc)]),
    ];
    // rows with different numbers of choices: the classwise values are not in the
    // document (the input says why), so their lines go, not shown as undefined
    let lines = if doc["input"]["classwise_unavailable"].is_string() {
        lines
            .into_iter()
            .filter(|l| {
                l.columns.iter().flatten().all(|c| {
                    c.path()
                        .is_none_or(|p| get(doc, p.iter().map(String::as_str)).is_some())
                })
            })
            .collect()
    } else {
        lines
    };
    Table {
        title: String::new(),
        headers: vec!["metric".into(), "value".into()],
        lines,
    }
}

/// Whether the document flags overconfidence (P_risk > 0.95).
pub fn overconfident(doc: &Value) -> bool {
    doc["beyond_ece"]["p_risk"]
        .as_f64()
        .is_some_and(|p| p > 0.95)
}

/// The reliability table at `path` (e.g. `reliability.confidence.width_10`) of `doc`.
pub fn reliability(doc: &Value, prefix: &[&str], path: &str, binning: Binning) -> Table {
    let (lower, upper) = match binning {
        Binning::Width => ("lower_edge", "upper_edge"),
        Binning::Mass => ("u_min", "u_max"),
    };
    let mut base: Vec<&str> = prefix.to_vec();
    base.extend(path.split('.'));
    let rows = lookup(doc, &base.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let lines = rows
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, row)| {
            let at = |key: &str| Cell::num_in(&base, &format!("{i}.{key}"));
            Line {
                label: row["bin"].to_string(),
                columns: vec![
                    vec![at(lower), Cell::text(" – "), at(upper)],
                    vec![at("n")],
                    vec![at("conf")],
                    vec![at("acc")],
                    vec![at("gap")],
                    vec![
                        Cell::text("["),
                        at("cp_lower"),
                        Cell::text(", "),
                        at("cp_upper"),
                        Cell::text("]"),
                    ],
                ],
                ..Line::default()
            }
        })
        .collect();
    Table {
        title: format!(
            "Reliability table (top-label, {} {} bins)",
            path.rsplit('_').next().unwrap_or(""),
            match binning {
                Binning::Width => "equal-width",
                Binning::Mass => "equal-mass",
            }
        ),
        headers: [
            "bin",
            "forecasts",
            "count",
            "conf",
            "acc",
            "gap",
            "95% interval",
        ]
        .map(String::from)
        .to_vec(),
        lines,
    }
}

/// The recalibration ledger of `doc` (a single-model document; its section under
/// `prefix`): before and after each method, on the evaluation split — the rows and
/// columns of [`crate::ledger`], as the page shows them.
pub fn recalibration(doc: &Value, prefix: &[&str]) -> Table {
    let binary = doc["input"]["kind"].as_str() == Some("binary");
    let mut base: Vec<&str> = prefix.to_vec();
    base.push("recalibration");
    let sets = crate::ledger::sets(lookup(
        doc,
        &base.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    ));
    let lines = crate::ledger::rows(binary)
        .iter()
        .map(|r| Line {
            label: r.label.to_string(),
            columns: sets
                .iter()
                .map(|(set, _)| vec![Cell::num_in(&base, &crate::ledger::path(set, r.key))])
                .collect(),
            ..Line::default()
        })
        .collect();
    let mut headers = vec!["metric".to_string()];
    headers.extend(sets.into_iter().map(|(_, title)| title));
    Table {
        title: "Before and after each method, on the evaluation split".into(),
        headers,
        lines,
    }
}

/// The recalibration section's "best by" comparison of `doc` (a web page's record:
/// every method on the same evaluation rows, the paired bootstrap's share of the
/// best against the runner-up), or `None` when the section has none.
pub fn recalibration_best(doc: &Value, prefix: &[&str]) -> Option<Table> {
    let mut base: Vec<&str> = prefix.to_vec();
    base.extend(["recalibration", "comparison"]);
    let c = lookup(doc, &base.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    if c.is_null() {
        return None;
    }
    let lines = [
        ("nll", "NLL"),
        ("ece", "ECE (15 equal-width bins)"),
        ("risk", "P_risk"),
    ]
    .iter()
    .map(|(key, label)| {
        let e = &c[key];
        let best = e["best"].as_str().unwrap_or("undefined");
        let within = e["within_noise"].as_bool().unwrap_or(true);
        Line {
            label: format!("best by {label}"),
            columns: vec![
                vec![Cell::text(best)],
                vec![Cell::num_in(&base, &format!("{key}.points.{best}"))],
                vec![Cell::text(e["runner_up"].as_str().unwrap_or("none"))],
                vec![Cell::num_in(&base, &format!("{key}.share"))],
                vec![Cell::text(if within {
                    "within noise"
                } else {
                    "beyond noise"
                })],
            ],
            ..Line::default()
        }
    })
    .collect();
    Some(Table {
        title: format!(
            "Best method on the evaluation split ({} paired bootstrap resamples)",
            c["replicates"]
        ),
        headers: [
            "criterion",
            "best",
            "its value",
            "runner-up",
            "share ahead",
            "verdict",
        ]
        .map(String::from)
        .to_vec(),
        lines,
    })
}

/// The models of a multi-model document, in input order.
pub fn model_names(doc: &Value) -> Vec<String> {
    doc["input"]["models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
}

/// One row per model of a multi-model document at `m` bins.
pub fn models(doc: &Value, m: usize) -> Table {
    let lines = model_names(doc)
        .iter()
        .map(|name| {
            let model = ["models", name.as_str()];
            let bf = |key: &str| vec![Cell::num_in(&model, &format!("binning_free.{key}"))];
            let metric =
                |key: &str, b: &str| vec![Cell::num_in(&model, &format!("metrics.{key}.{b}.{m}"))];
            Line {
                label: name.clone(),
                columns: vec![
                    bf("accuracy"),
                    bf("nll"),
                    bf("brier_multiclass"),
                    metric("confece", "width"),
                    metric("confce_corr", "mass"),
                    metric("lince_cw", "mass"),
                    bf("csr"),
                    bf("p_risk"),
                    bf("cwa"),
                ],
                ..Line::default()
            }
        })
        .collect();
    let headers = [
        "model".to_string(),
        "accuracy".into(),
        "NLL".into(),
        "Brier".into(),
        format!("ConfECE (width, {m})"),
        format!("ConfCE^corr (mass, {m})"),
        format!("LinCE^cw (mass, {m})"),
        "CSR".into(),
        "P_risk".into(),
        "cwA".into(),
    ];
    Table {
        title: String::new(),
        headers: headers.to_vec(),
        lines,
    }
}
