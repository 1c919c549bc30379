//! The two forms of an aggregate: JSON (`calibscope aggregate`'s output) and the
//! column table an engine's GROUP BY returns (written as CSV), one row per
//! `(model, reading, class, cell)`. Both read back to the same [`Aggregate`].
//!
//! Table columns (every row carries all of them; README, "Aggregates"):
//!
//! | column | meaning |
//! |---|---|
//! | `format` | `calibscope-bins/1` (how `calibscope audit` recognises the table) |
//! | `model`, `kind`, `k` | model name; `binary`/`multiclass`/`toplabel`; classes |
//! | `reading`, `class` | `confidence` (class `-1`) or `class` (class `r`) |
//! | `cell` | `width_bin(u, 65536)` |
//! | `n`, `sum_u`, `sum_o`, `sum_sq`, `min_u`, `max_u` | the cell's count, `Σu`, `Σo`, `Σ(u-o)²`, min and max `u` |
//! | `nll`, `brier_mc` | confidence rows: the rows' `Σ` NLL terms and `Σ_r (p^(r) - 1[y=r])²` (empty for top-label input) |
//! | `csr_wrong`, `csr_odds`, `cw_weight`, `cw_correct` | confidence rows: `Σ_{z=0} 1/(1-c)`, `Σ c/(1-c)`, `Σ c`, `Σ c z` (clipped `c`) |
//! | `tp`, `fp`, `fn`, `cw_tp`, `cw_fp`, `cw_fn` | class-`r` rows: counted and `c`-weighted `Σ 1[ŷ=y=r]`, `Σ 1[ŷ=r≠y]`, `Σ 1[ŷ≠y=r]` |
//!
//! The global sums are spread over the rows (each row holds its cell's part; summed
//! over a reading's rows they give the model's), so a GROUP BY computes them in the
//! same pass and the rows of shards concatenate: reading a table sums duplicate
//! keys ([`Aggregate::merge`]).

use crate::{
    Aggregate, Cell, ClassConfusion, Globals, ModelAggregate, ReadingKey, CLASS_LIMIT, FORMAT, GRID,
};
use calibscope_core::beyond::RiskSums;
use calibscope_core::Kind;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The table's columns, in the order `calibscope sql` selects them.
pub const COLUMNS: [&str; 25] = [
    "format",
    "model",
    "kind",
    "k",
    "reading",
    "class",
    "cell",
    "n",
    "sum_u",
    "sum_o",
    "sum_sq",
    "min_u",
    "max_u",
    "nll",
    "brier_mc",
    "csr_wrong",
    "csr_odds",
    "cw_weight",
    "cw_correct",
    "tp",
    "fp",
    "fn",
    "cw_tp",
    "cw_fp",
    "cw_fn",
];

/// The columns of the unbinned global sums (from `nll` to the end of [`COLUMNS`]):
/// `calibscope sql` selects each as a `SUM` over the model's rows.
pub fn global_sums() -> &'static [&'static str] {
    let first = COLUMNS
        .iter()
        .position(|c| *c == "nll")
        .unwrap_or(COLUMNS.len());
    &COLUMNS[first..]
}

/// `binary`, `multiclass` or `toplabel`.
pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Binary => "binary",
        Kind::Multiclass => "multiclass",
        Kind::TopLabel => "toplabel",
    }
}

fn kind_of(name: &str) -> Option<Kind> {
    match name {
        "binary" => Some(Kind::Binary),
        "multiclass" => Some(Kind::Multiclass),
        "toplabel" | "top-label" => Some(Kind::TopLabel),
        _ => None,
    }
}

/// Whether `bytes` (the start of a file suffices) hold an aggregate, as JSON or as a
/// table: the format name appears in the first 4 KiB with a `format` key or column.
pub fn is_aggregate(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    text.contains(FORMAT) && text.contains("format")
}

/// Reads an aggregate from JSON or from a CSV table (detected from the first byte).
pub fn parse(bytes: &[u8]) -> Result<Aggregate, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
    match text.trim_start().as_bytes().first() {
        Some(b'{') => from_json(text),
        _ => from_csv(text),
    }
}

/// The JSON form.
pub fn to_json(agg: &Aggregate) -> Value {
    let models: Vec<Value> = agg
        .models
        .values()
        .map(|m| {
            let g = &m.globals;
            let readings: Vec<Value> = m
                .readings
                .iter()
                .map(|(key, cells)| {
                    let (reading, class) = key_names(*key);
                    let rows: Vec<Value> = cells
                        .iter()
                        .map(|(c, x)| json!([c, x.n, x.sum_u, x.sum_o, x.sum_sq, x.min_u, x.max_u]))
                        .collect();
                    json!({"reading": reading, "class": class, "cells": rows})
                })
                .collect();
            let confusion: Vec<Value> = g
                .confusion
                .iter()
                .map(|c| json!({"counts": c.counts, "weighted": c.weighted}))
                .collect();
            json!({
                "model": m.model,
                "kind": kind_name(m.kind),
                "k": m.k,
                "globals": {
                    "n": g.risk.n,
                    "correct": g.risk.correct,
                    "csr_wrong": g.risk.wrong_ratio,
                    "csr_odds": g.risk.odds,
                    "cw_weight": g.risk.weight,
                    "cw_correct": g.risk.weighted_correct,
                    "nll": g.nll,
                    "brier_mc": g.brier_multiclass,
                    "confusion": confusion,
                },
                "readings": readings,
            })
        })
        .collect();
    json!({
        "format": FORMAT,
        "grid": GRID,
        "class_limit": CLASS_LIMIT,
        "cell_columns": ["cell", "n", "sum_u", "sum_o", "sum_sq", "min_u", "max_u"],
        "models": models,
    })
}

fn key_names(key: ReadingKey) -> (&'static str, i64) {
    match key {
        ReadingKey::Confidence => ("confidence", -1),
        ReadingKey::Class(r) => ("class", r as i64),
    }
}

fn key_of(reading: &str, class: i64, at: &str) -> Result<ReadingKey, String> {
    match (reading, class) {
        ("confidence", _) => Ok(ReadingKey::Confidence),
        ("class", r) if r >= 0 && r <= u32::MAX as i64 => Ok(ReadingKey::Class(r as u32)),
        _ => Err(format!(
            "{at}: reading '{reading}' class {class}: expected 'confidence' or 'class' with a class of at least 0"
        )),
    }
}

/// The JSON form as read: typed, so the cells are parsed straight into their
/// tuples (no `Value` tree of the whole file: an aggregate of 10 models with every
/// cell filled is ~150 MB of JSON).
#[derive(serde::Deserialize)]
struct JsonDoc {
    format: Option<String>,
    grid: Option<u64>,
    models: Vec<JsonModel>,
}

#[derive(serde::Deserialize)]
struct JsonModel {
    model: String,
    kind: String,
    k: usize,
    globals: JsonGlobals,
    readings: Vec<JsonReading>,
}

#[derive(serde::Deserialize)]
struct JsonGlobals {
    n: u64,
    correct: u64,
    csr_wrong: f64,
    csr_odds: f64,
    cw_weight: f64,
    cw_correct: f64,
    nll: Option<f64>,
    brier_mc: Option<f64>,
    #[serde(default)]
    confusion: Vec<JsonConfusion>,
}

#[derive(serde::Deserialize)]
struct JsonConfusion {
    counts: [u64; 3],
    weighted: [f64; 3],
}

/// `[cell, n, Σu, Σo, Σ(u-o)², min u, max u]`.
type JsonCell = (u32, u64, f64, u64, f64, f64, f64);

#[derive(serde::Deserialize)]
struct JsonReading {
    reading: String,
    #[serde(default = "no_class")]
    class: i64,
    cells: Vec<JsonCell>,
}

fn no_class() -> i64 {
    -1
}

fn from_json(text: &str) -> Result<Aggregate, String> {
    // the format first, so that another document is named as such
    if !text.contains(FORMAT) {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("JSON: {e}"))?;
        check_header(v.get("format").and_then(Value::as_str), "JSON key 'format'")?;
    }
    let doc: JsonDoc = serde_json::from_str(text).map_err(|e| format!("JSON: {e}"))?;
    check_header(doc.format.as_deref(), "JSON key 'format'")?;
    if let Some(g) = doc.grid {
        if g != GRID as u64 {
            return Err(format!("JSON key 'grid' is {g}; this version reads {GRID}"));
        }
    }
    let mut agg = Aggregate::new();
    for (i, m) in doc.models.into_iter().enumerate() {
        let at = format!("models[{i}]");
        let kind = kind_of(&m.kind).ok_or(format!("{at}: unknown kind '{}'", m.kind))?;
        let g = m.globals;
        let mut model = ModelAggregate::new(&m.model, kind, m.k);
        model.globals = Globals {
            nll: g.nll,
            brier_multiclass: g.brier_mc,
            risk: RiskSums {
                n: g.n,
                correct: g.correct,
                wrong_ratio: g.csr_wrong,
                odds: g.csr_odds,
                weighted_correct: g.cw_correct,
                weight: g.cw_weight,
            },
            confusion: g
                .confusion
                .into_iter()
                .map(|c| ClassConfusion {
                    counts: c.counts,
                    weighted: c.weighted,
                })
                .collect(),
        };
        for (j, r) in m.readings.into_iter().enumerate() {
            let at = format!("{at}.readings[{j}]");
            let key = key_of(&r.reading, r.class, &at)?;
            let cells = model.readings.entry(key).or_default();
            for (c, n, sum_u, sum_o, sum_sq, min_u, max_u) in r.cells {
                check_cell(c, &at)?;
                let cell = Cell {
                    n,
                    sum_u,
                    sum_o,
                    sum_sq,
                    min_u,
                    max_u,
                };
                cells
                    .entry(c)
                    .and_modify(|x| x.merge(&cell))
                    .or_insert(cell);
            }
        }
        match agg.models.get_mut(&m.model) {
            Some(mine) => mine.merge(&model)?,
            None => {
                agg.models.insert(m.model, model);
            }
        }
    }
    Ok(agg)
}

fn check_header(format: Option<&str>, at: &str) -> Result<(), String> {
    match format {
        Some(FORMAT) => Ok(()),
        Some(other) => Err(format!("{at} is '{other}'; this version reads '{FORMAT}'")),
        None => Err(format!("{at} missing: not a {FORMAT} aggregate")),
    }
}

fn check_cell(c: u32, at: &str) -> Result<(), String> {
    if c >= GRID {
        return Err(format!("{at}: cell {c} outside the grid 0..{GRID}"));
    }
    Ok(())
}

/// The table form as CSV (header + one line per cell; the global sums on each
/// reading's first row, zero on the others).
pub fn to_csv(agg: &Aggregate) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for m in agg.models.values() {
        let g = &m.globals;
        for (key, cells) in &m.readings {
            let (reading, class) = key_names(*key);
            for (i, (c, x)) in cells.iter().enumerate() {
                let first = i == 0;
                let opt = |v: Option<f64>| match (m.kind, first) {
                    (Kind::TopLabel, _) => String::new(),
                    (_, true) => v.unwrap_or(0.0).to_string(),
                    _ => "0".into(),
                };
                let z = |v: f64| if first { v.to_string() } else { "0".into() };
                let (conf_globals, class_globals) = match key {
                    ReadingKey::Confidence => (
                        [
                            opt(g.nll),
                            opt(g.brier_multiclass),
                            z(g.risk.wrong_ratio),
                            z(g.risk.odds),
                            z(g.risk.weight),
                            z(g.risk.weighted_correct),
                        ],
                        vec!["0".to_string(); 6],
                    ),
                    ReadingKey::Class(r) => {
                        let cc = g.confusion.get(*r as usize).copied().unwrap_or_default();
                        let zi = |v: u64| if first { v.to_string() } else { "0".into() };
                        (
                            [
                                opt(Some(0.0)),
                                opt(Some(0.0)),
                                "0".into(),
                                "0".into(),
                                "0".into(),
                                "0".into(),
                            ],
                            vec![
                                zi(cc.counts[0]),
                                zi(cc.counts[1]),
                                zi(cc.counts[2]),
                                z(cc.weighted[0]),
                                z(cc.weighted[1]),
                                z(cc.weighted[2]),
                            ],
                        )
                    }
                };
                let fields: Vec<String> = [
                    FORMAT.to_string(),
                    csv_quote(&m.model),
                    kind_name(m.kind).into(),
                    m.k.to_string(),
                    reading.into(),
                    class.to_string(),
                    c.to_string(),
                    x.n.to_string(),
                    x.sum_u.to_string(),
                    x.sum_o.to_string(),
                    x.sum_sq.to_string(),
                    x.min_u.to_string(),
                    x.max_u.to_string(),
                ]
                .into_iter()
                .chain(conf_globals)
                .chain(class_globals)
                .collect();
                out.push_str(&fields.join(","));
                out.push('\n');
            }
        }
    }
    out
}

fn csv_quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Splits one CSV line (RFC 4180 quotes; a field holds no newline).
fn split_line(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(ch) = chars.next() {
        match (ch, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            _ => field.push(ch),
        }
    }
    out.push(field);
    out
}

/// The aggregate of a table (CSV as an engine writes it: header line, columns in any
/// order and case, integers or decimals, empty fields for NULL). Rows with the same
/// key add up.
fn from_csv(text: &str) -> Result<Aggregate, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or("empty table")?;
    let names: Vec<String> = split_line(header.trim_start_matches('\u{feff}'))
        .iter()
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    let mut index = [0usize; 25];
    for (j, col) in COLUMNS.iter().enumerate() {
        index[j] = names.iter().position(|n| n == col).ok_or(format!(
            "line 1: no column '{col}' (an aggregate table has the columns {})",
            COLUMNS.join(", ")
        ))?;
    }
    let mut models: BTreeMap<String, ModelAggregate> = BTreeMap::new();
    for (i, line) in lines {
        let at = format!("line {}", i + 1);
        let f = split_line(line);
        let get = |j: usize| -> &str { f.get(index[j]).map_or("", |s| s.trim()) };
        let num = |j: usize| -> Result<f64, String> {
            let s = get(j);
            if s.is_empty() {
                return Ok(0.0);
            }
            s.parse::<f64>()
                .map_err(|_| format!("{at}: column '{}': '{s}' is not a number", COLUMNS[j]))
        };
        let int = |j: usize| -> Result<u64, String> {
            let v = num(j)?;
            if v < 0.0 || v.fract() != 0.0 || v > 9.007_199_254_740_992e15 {
                return Err(format!(
                    "{at}: column '{}': {v} is not a whole count",
                    COLUMNS[j]
                ));
            }
            Ok(v as u64)
        };
        check_header(Some(get(0)), &format!("{at}: column 'format'"))?;
        let name = get(1).to_string();
        let kind = kind_of(get(2)).ok_or(format!("{at}: kind '{}' unknown", get(2)))?;
        let k = int(3)? as usize;
        let class = num(5)?;
        let key = key_of(get(4), class as i64, &at)?;
        let c = int(6)?;
        if c >= GRID as u64 {
            return Err(format!("{at}: cell {c} outside the grid 0..{GRID}"));
        }
        let cell = Cell {
            n: int(7)?,
            sum_u: num(8)?,
            sum_o: int(9)?,
            sum_sq: num(10)?,
            min_u: num(11)?,
            max_u: num(12)?,
        };
        let mut shard = ModelAggregate::new(&name, kind, k);
        shard
            .readings
            .entry(key)
            .or_default()
            .insert(c as u32, cell);
        match key {
            ReadingKey::Confidence => {
                let g = &mut shard.globals;
                if kind != Kind::TopLabel {
                    g.nll = Some(num(13)?);
                    g.brier_multiclass = Some(num(14)?);
                }
                g.risk = RiskSums {
                    n: cell.n,
                    correct: cell.sum_o,
                    wrong_ratio: num(15)?,
                    odds: num(16)?,
                    weight: num(17)?,
                    weighted_correct: num(18)?,
                };
            }
            ReadingKey::Class(r) => {
                let mut confusion = vec![ClassConfusion::default(); r as usize + 1];
                confusion[r as usize] = ClassConfusion {
                    counts: [int(19)?, int(20)?, int(21)?],
                    weighted: [num(22)?, num(23)?, num(24)?],
                };
                shard.globals.confusion = confusion;
            }
        }
        match models.get_mut(&name) {
            Some(m) => m.merge(&shard).map_err(|e| format!("{at}: {e}"))?,
            None => {
                models.insert(name, shard);
            }
        }
    }
    if models.is_empty() {
        return Err("the table has a header but no rows".into());
    }
    Ok(Aggregate { models })
}
