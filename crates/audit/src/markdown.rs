//! A Markdown summary of an audit document (the CLI's default output and
//! `--markdown`): read from the `calibscope-audit/1` JSON, so it shows exactly the
//! numbers of the JSON.

use calibscope_core::binning::Binning;
use serde_json::Value;
use std::fmt::Write;

/// A number for people: 4 significant digits, `undefined` for null.
fn fmt(v: &Value) -> String {
    match v.as_f64() {
        None => "undefined".into(),
        Some(0.0) => "0".into(),
        Some(x) if x.abs() >= 1e5 || x.abs() < 1e-3 => format!("{x:.3e}"),
        Some(x) => {
            let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
            format!("{x:.digits$}")
        }
    }
}

fn get<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(v, |v, k| match k.parse::<usize>() {
        Ok(i) if v.is_array() => &v[i],
        _ => &v[k],
    })
}

/// The summary of an audit, input-error or multi-model document.
pub fn markdown(doc: &Value, m: usize, binning: Binning) -> String {
    let mut out = String::new();
    let file = doc["file"].as_str().unwrap_or("input");
    if doc["input_error"] == Value::Bool(true) {
        let _ = writeln!(out, "# {file}: the input cannot be audited\n");
        for e in doc["errors"].as_array().into_iter().flatten() {
            let _ = writeln!(out, "- {}", e["message"].as_str().unwrap_or("error"));
        }
        if let Some(more) = doc["more_errors"].as_u64().filter(|&m| m > 0) {
            let _ = writeln!(out, "- … and {more} more");
        }
        return out;
    }
    if doc.get("models").is_some() {
        return multi(doc, m, file);
    }
    let input = &doc["input"];
    let _ = writeln!(
        out,
        "# Calibration audit of {file}\n\n{} input ({}), n = {}, k = {}\n",
        input["kind"].as_str().unwrap_or(""),
        input["source"].as_str().unwrap_or(""),
        input["n"],
        input["k"]
    );
    let ms = m.to_string();
    let conf = |b: &str, key: &str| fmt(get(doc, &format!("readings.confidence.{b}.{ms}.{key}")));
    let rows: Vec<(String, String)> = vec![
        ("accuracy".into(), fmt(get(doc, "binning_free.accuracy"))),
        (
            format!("ECE (top-label, {m} equal-width bins)"),
            conf("width", "ece"),
        ),
        (
            format!("ECE (top-label, {m} equal-mass bins)"),
            conf("mass", "ece"),
        ),
        (
            format!("MCE (top-label, {m} equal-width bins)"),
            conf("width", "mce"),
        ),
        (
            "Brier (top-label) = CAL + REF + RES".into(),
            format!(
                "{} = {} + {} + {}",
                conf("width", "brier"),
                conf("width", "cal"),
                conf("width", "ref"),
                conf("width", "res")
            ),
        ),
        ("NLL".into(), fmt(get(doc, "binning_free.nll"))),
        (
            "AUC (macro one-vs-rest)".into(),
            fmt(get(doc, "binning_free.auc_macro")),
        ),
        (
            format!("LinCE^cw ({m} equal-mass bins)"),
            fmt(get(doc, &format!("readings.classwise.mass.{ms}.lince_cw"))),
        ),
        (
            format!("ConfCE^corr ({m} equal-mass bins)"),
            conf("mass", "confce_corr"),
        ),
        (
            "CSR ± σ".into(),
            format!(
                "{} ± {}",
                fmt(get(doc, "beyond_ece.csr")),
                fmt(get(doc, "beyond_ece.sigma_csr"))
            ),
        ),
        (
            "P_risk (overconfidence risk)".into(),
            fmt(get(doc, "beyond_ece.p_risk")),
        ),
        (
            "cwA (gain)".into(),
            format!(
                "{} ({})",
                fmt(get(doc, "beyond_ece.cwa")),
                fmt(get(doc, "beyond_ece.gain"))
            ),
        ),
        (
            "cwAUC".into(),
            fmt(if get(doc, "cwauc.class1").is_null() {
                get(doc, "cwauc.macro")
            } else {
                get(doc, "cwauc.class1")
            }),
        ),
    ];
    let _ = writeln!(out, "| metric | value |\n|---|---|");
    for (name, value) in rows {
        let _ = writeln!(out, "| {name} | {value} |");
    }
    if get(doc, "beyond_ece.p_risk")
        .as_f64()
        .is_some_and(|p| p > 0.95)
    {
        let _ = writeln!(
            out,
            "\n**Overconfidence risk**: P_risk > 0.95 — the wrong answers carry more confidence than a calibrated model's would."
        );
    }
    let (title, lower, upper) = match binning {
        Binning::Width => ("equal-width", "lower_edge", "upper_edge"),
        Binning::Mass => ("equal-mass", "u_min", "u_max"),
    };
    let _ = writeln!(out, "\n## Reliability table (top-label, 10 {title} bins)\n");
    let _ = writeln!(out, "| bin | forecasts | count | conf | acc | gap | 95% interval |\n|---|---|---|---|---|---|---|");
    let table = format!("reliability.confidence.{}_10", binning.name());
    for row in get(doc, &table).as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "| {} | {} – {} | {} | {} | {} | {} | [{}, {}] |",
            row["bin"],
            fmt(&row[lower]),
            fmt(&row[upper]),
            row["n"],
            fmt(&row["conf"]),
            fmt(&row["acc"]),
            fmt(&row["gap"]),
            fmt(&row["cp_lower"]),
            fmt(&row["cp_upper"])
        );
    }
    if let Some(recal) = doc.get("recalibration") {
        recalibration(&mut out, recal);
    }
    out
}

fn recalibration(out: &mut String, recal: &Value) {
    let split = &recal["split"];
    let _ = writeln!(
        out,
        "\n## Recalibration (fit on {} calibration rows, measured on {} evaluation rows; seed {}, f = {})\n",
        split["n_cal"], split["n_eval"], split["seed"], split["f"]
    );
    let tau = &recal["temperature"]["tau"];
    if !tau.is_null() {
        let _ = writeln!(
            out,
            "τ = {} — {}\n",
            fmt(tau),
            recal["temperature"]["verdict"].as_str().unwrap_or("")
        );
    }
    let columns = [
        ("before", &recal["before"]),
        ("temperature", &recal["temperature"]["after"]),
        ("Platt", &recal["platt"]["after"]),
        ("isotonic", &recal["isotonic"]["after"]),
    ];
    let _ = writeln!(
        out,
        "| metric | before | temperature | Platt | isotonic |\n|---|---|---|---|---|"
    );
    for key in [
        "accuracy",
        "ece_conf_width_15",
        "nll",
        "brier_multiclass",
        "confce_corr_mass_15",
        "lince_cw_mass_15",
        "csr",
        "p_risk",
        "cwa",
    ] {
        let cells: Vec<String> = columns.iter().map(|(_, c)| fmt(&c[key])).collect();
        let _ = writeln!(out, "| {key} | {} |", cells.join(" | "));
    }
    for w in recal["warnings"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "\n**Warning**: {}", w.as_str().unwrap_or(""));
    }
}

fn multi(doc: &Value, m: usize, file: &str) -> String {
    let mut out = String::new();
    let input = &doc["input"];
    let _ = writeln!(
        out,
        "# Calibration audit of {file}: {} models on the same {} samples\n",
        input["models"].as_array().map_or(0, Vec::len),
        input["n"]
    );
    let _ = writeln!(
        out,
        "| model | accuracy | NLL | Brier | ConfECE (width, {m}) | ConfCE^corr (mass, {m}) | LinCE^cw (mass, {m}) | CSR | P_risk | cwA |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for name in input["models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let model = &doc["models"][name];
        let bf = &model["binning_free"];
        let metric = |key: &str, b: &str| fmt(&model["metrics"][key][b][m.to_string()]);
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            fmt(&bf["accuracy"]),
            fmt(&bf["nll"]),
            fmt(&bf["brier_multiclass"]),
            metric("confece", "width"),
            metric("confce_corr", "mass"),
            metric("lince_cw", "mass"),
            fmt(&bf["csr"]),
            fmt(&bf["p_risk"]),
            fmt(&bf["cwa"])
        );
    }
    out
}
