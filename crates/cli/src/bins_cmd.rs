//! `calibscope sql`, `calibscope aggregate`, and `calibscope audit` of an aggregate
//! (issue 31): the query for an engine, the same aggregate built from files in
//! memory independent of the row count, and the values an aggregate gives, each
//! marked exact or bounded. Everything is computed by calibscope-bins.

use crate::commands::{check_bins, input_failure, write_stdout, Failure, Outcome};
use crate::{AuditArgs, Mapping};
use calibscope_bins::metrics::{audit as aggregate_audit, UNAVAILABLE};
use calibscope_bins::sql::{query, Dialect, QuerySpec, Scores};
use calibscope_bins::table::{is_aggregate, parse, to_csv, to_json};
use calibscope_bins::{Aggregate, ModelBuilder};
use calibscope_core::{PredictionSet, Source};
use clap::Args;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// `calibscope sql`: the aggregation query of a table for an engine.
#[derive(Args, Debug)]
pub struct SqlArgs {
    /// The engine: duckdb, postgres, datafusion, spark, bigquery or trino.
    #[arg(long)]
    dialect: String,
    /// The table, as the engine names it (e.g. preds, db.schema.preds, or DuckDB's
    /// read_parquet('preds/*.parquet')).
    #[arg(long, value_name = "NAME")]
    table: String,
    /// The label column (integer class indices 0..k-1).
    #[arg(long, value_name = "COLUMN")]
    label: Option<String>,
    /// A sample file shaped like the table (e.g. its first rows as CSV): the label,
    /// score and model columns and logits/probabilities as `calibscope audit`
    /// detects them there; flags given override it.
    #[arg(long, value_name = "FILE")]
    like: Option<PathBuf>,
    /// The score columns: one binary column (P(y=1) or a logit) or one per class in
    /// class order; or one list column with --classes K.
    #[arg(
        long,
        value_name = "COLUMNS",
        value_delimiter = ',',
        conflicts_with = "top_label"
    )]
    scores: Vec<String>,
    /// The number of values of the list column given by --scores.
    #[arg(long, value_name = "K")]
    classes: Option<usize>,
    /// Top-label input: the predicted-class and confidence columns.
    #[arg(long, value_name = "PRED,CONF", value_delimiter = ',', num_args = 1)]
    top_label: Vec<String>,
    /// The scores are logits (turned into probabilities in SQL: max-subtracted
    /// softmax, or the sigmoid of one column).
    #[arg(long, conflicts_with = "probs")]
    logits: bool,
    /// The scores are probabilities (the default).
    #[arg(long)]
    probs: bool,
    /// The model column of a long-format table (one aggregate per model).
    #[arg(long, value_name = "COLUMN")]
    model_column: Option<String>,
    /// The model's name without a model column (default: the table name).
    #[arg(long, value_name = "NAME")]
    model_name: Option<String>,
}

/// `calibscope aggregate`: the aggregate of prediction files.
#[derive(Args, Debug)]
pub struct AggregateArgs {
    /// Prediction files or directories of shards (CSV/TSV are read in chunks of a
    /// million rows, so memory does not grow with the rows; other formats whole).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the aggregate to FILE (default: standard output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the column table (CSV) an engine's query returns, instead of JSON.
    #[arg(long)]
    csv: bool,
    #[command(flatten)]
    mapping: Mapping,
}

/// `calibscope sql`.
pub fn sql(args: SqlArgs) -> Outcome {
    let dialect = Dialect::from_name(&args.dialect).ok_or_else(|| {
        Failure::Usage(format!(
            "--dialect {}: one of duckdb, postgres, datafusion, spark, bigquery, trino",
            args.dialect
        ))
    })?;
    let mut args = args;
    if let Some(sample) = args.like.clone() {
        like(&mut args, &sample)?;
    }
    let label = args
        .label
        .clone()
        .ok_or_else(|| Failure::Usage("give --label COLUMN (or --like a sample file)".into()))?;
    let scores = match (&args.top_label[..], &args.scores[..], args.classes) {
        ([pred, conf], [], None) => Scores::TopLabel(pred.clone(), conf.clone()),
        ([], [list], Some(k)) => Scores::List(list.clone(), k),
        ([], cols, None) if !cols.is_empty() => Scores::Columns(cols.to_vec()),
        _ => {
            return Err(Failure::Usage(
                "give --scores COLUMNS (one binary column, or one per class), --scores LIST --classes K (a list column of K values), or --top-label PRED,CONF".into(),
            ))
        }
    };
    let spec = QuerySpec {
        dialect,
        table: args.table.clone(),
        label,
        scores,
        logits: args.logits,
        model_column: args.model_column.clone(),
        model_name: args
            .model_name
            .clone()
            .unwrap_or_else(|| args.table.clone()),
    };
    let text = query(&spec).map_err(Failure::Usage)?;
    write_stdout(&text)
}

/// Fills the mapping flags not given from calibscope-io's detection on `sample`.
fn like(args: &mut SqlArgs, sample: &Path) -> Outcome {
    use calibscope_io::{Pick, ScoreColumns};
    let ds = calibscope_io::open_paths(&[sample.to_path_buf()], &calibscope_io::Options::default())
        .map_err(|e| input_failure(&e))?;
    let m = &ds.detection.mapping;
    if args.label.is_none() {
        args.label = m.label.clone();
    }
    if args.scores.is_empty() && args.top_label.is_empty() {
        match &m.scores {
            Some(ScoreColumns::Column(c)) => args.scores = vec![c.clone()],
            Some(ScoreColumns::Matrix(cols)) => args.scores = cols.clone(),
            Some(ScoreColumns::TopLabel {
                predicted,
                confidence,
            }) => args.top_label = vec![predicted.clone(), confidence.clone()],
            None => {}
        }
    }
    if !args.logits && !args.probs {
        args.logits = m.source == Some(Source::Logits);
    }
    if args.model_column.is_none() {
        match &m.model {
            Pick::Column(c) => args.model_column = Some(c.clone()),
            _ => {
                if args.model_name.is_none() {
                    args.model_name = ds.models.first().map(|(name, _)| name.clone());
                }
            }
        }
    }
    Ok(())
}

/// Rows per chunk of a text file (bounded memory: the chunk's columns).
const CHUNK_ROWS: usize = 1 << 20;

/// The files to read: directories expand to their files (sorted), recursively.
fn expand(files: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    for f in files {
        if f.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(f)
                .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", f.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            out.extend(expand(&entries)?);
        } else {
            out.push(f.clone());
        }
    }
    Ok(out)
}

/// Per model: the builder and the source of its first rows.
type Builders = BTreeMap<String, (ModelBuilder, Source)>;

fn add_dataset(builders: &mut Builders, ds: &calibscope_io::Dataset, at: &str) -> Outcome {
    for (name, set) in &ds.models {
        check_valid(set, at)?;
        let (builder, source) = builders
            .entry(name.clone())
            .or_insert_with(|| (ModelBuilder::new(name, set), set.source()));
        if set.source() != *source {
            return Err(Failure::Input(format!(
                "calibscope: {at}: model '{name}' read as {} after {} (give --logits or --probs so every chunk is read alike)",
                set.source().name(),
                source.name()
            )));
        }
        builder
            .add(set)
            .map_err(|e| Failure::Input(format!("calibscope: {at}: {e}")))?;
    }
    Ok(())
}

fn check_valid(set: &PredictionSet, at: &str) -> Outcome {
    let errors = set.validate();
    match errors.first() {
        None => Ok(()),
        Some(e) => Err(Failure::Input(format!(
            "calibscope: {at}: {} invalid rows, first: {e:?}",
            errors.len()
        ))),
    }
}

/// A text table (CSV/TSV, not compressed) read in chunks of [`CHUNK_ROWS`] rows,
/// each parsed by calibscope-io with the header prepended.
fn add_text_file(
    builders: &mut Builders,
    path: &Path,
    options: &calibscope_io::Options,
) -> Outcome {
    let name = path.to_string_lossy().to_string();
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::Input(format!("calibscope: {name}: {e}")))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut header = Vec::new();
    reader
        .read_until(b'\n', &mut header)
        .map_err(|e| Failure::Input(format!("calibscope: {name}: {e}")))?;
    let mut chunk = header.clone();
    let (mut rows, mut first_row) = (0usize, 1usize);
    let mut line = Vec::new();
    loop {
        line.clear();
        let got = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| Failure::Input(format!("calibscope: {name}: {e}")))?;
        if got > 0 && line.iter().any(|b| !b.is_ascii_whitespace()) {
            chunk.extend_from_slice(&line);
            rows += 1;
        }
        if (got == 0 && rows > 0) || rows == CHUNK_ROWS {
            let at = format!("{name} (data rows {first_row}..{})", first_row + rows - 1);
            let ds = calibscope_io::parse_bytes(&name, &chunk, options)
                .map_err(|e| prefix(input_failure(&e), &at))?;
            add_dataset(builders, &ds, &at)?;
            first_row += rows;
            rows = 0;
            chunk.truncate(header.len());
        }
        if got == 0 {
            return Ok(());
        }
    }
}

fn prefix(f: Failure, at: &str) -> Failure {
    match f {
        Failure::Input(m) => Failure::Input(format!("calibscope: {at}:\n{m}")),
        other => other,
    }
}

fn is_text_table(path: &Path) -> bool {
    let name = path.to_string_lossy().to_ascii_lowercase();
    name.ends_with(".csv") || name.ends_with(".tsv") || name.ends_with(".txt")
}

/// `calibscope aggregate`.
pub fn aggregate(args: AggregateArgs) -> Outcome {
    // each model is summed on its own: its rows need not be the other models'
    let options = calibscope_io::Options {
        unaligned_models: true,
        ..args.mapping.options()?
    };
    let files = expand(&args.files)?;
    let mut builders = Builders::new();
    for path in &files {
        if is_text_table(path) {
            add_text_file(&mut builders, path, &options)?;
        } else {
            // other formats (NumPy, JSON, compressed) are read whole
            let ds = calibscope_io::open_paths(std::slice::from_ref(path), &options)
                .map_err(|e| input_failure(&e))?;
            add_dataset(&mut builders, &ds, &path.display().to_string())?;
        }
    }
    let mut agg = Aggregate::new();
    for (name, (b, _)) in builders {
        agg.models.insert(name, b.finish());
    }
    let text = match args.csv {
        true => to_csv(&agg),
        false => serde_json::to_string(&to_json(&agg)).expect("JSON of a Value") + "\n",
    };
    match &args.out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", path.display()))),
        None => write_stdout(&text),
    }
}

/// Whether `audit` was given one aggregate (JSON or table), recognised from its
/// first bytes.
pub fn is_aggregate_file(files: &[PathBuf]) -> bool {
    let [path] = files else { return false };
    // a table an engine wrote as Parquet or Arrow IPC: its columns say so
    if let Some(names) = calibscope_io::column_names(path) {
        return ["format", "model", "reading", "cell", "n"]
            .iter()
            .all(|c| names.iter().any(|n| n == c));
    }
    let mut head = vec![0u8; 4096];
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let n = f.read(&mut head).unwrap_or(0);
    is_aggregate(&head[..n])
}

/// `calibscope audit AGGREGATE`: every value the aggregate gives, exact or bounded,
/// and what it cannot give.
pub fn audit(args: &AuditArgs) -> Outcome {
    check_bins(&args.bins)?;
    let path = &args.files[0];
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", path.display())))?;
    let bytes = if calibscope_io::column_names(path).is_some() {
        let name = path.display().to_string();
        calibscope_io::table_as_csv(&name, bytes)
            .map_err(|e| Failure::Input(e.to_string()))?
            .into_bytes()
    } else {
        bytes
    };
    let agg = parse(&bytes)
        .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", path.display())))?;
    let mut models = Vec::new();
    let mut text = format!(
        "# {} — aggregate ({})\n\nValues marked exact equal the audit of the rows; ± b: within b of it.\n",
        path.display(),
        calibscope_bins::FORMAT
    );
    for m in agg.models.values() {
        let a = aggregate_audit(m, &args.bins, args.bins[0], args.bootstrap.alpha);
        let values = a.values();
        text.push_str(&format!(
            "\n## {} ({}, k = {}, n = {})\n\n| value | | |\n|---|---|---|\n",
            m.model,
            calibscope_bins::table::kind_name(m.kind),
            m.k,
            m.n()
        ));
        for v in &values {
            let shown = v.value.map_or("undefined".to_string(), |x| x.to_string());
            let how = v.bound.map_or("exact".to_string(), |b| format!("± {b:e}"));
            text.push_str(&format!("| {} | {shown} | {how} |\n", v.path));
        }
        models.push(json!({
            "model": m.model,
            "kind": calibscope_bins::table::kind_name(m.kind),
            "k": m.k,
            "n": m.n(),
            "values": values.iter().map(|v| json!({
                "path": v.path, "value": v.value, "exact": v.bound.is_none(), "bound": v.bound,
            })).collect::<Vec<_>>(),
        }));
    }
    text.push_str("\nNot available from an aggregate:\n");
    for (what, why) in UNAVAILABLE {
        text.push_str(&format!("- {what}: {why}\n"));
    }
    if args.json {
        let doc = json!({
            "format": "calibscope-bins-audit/1",
            "file": path.display().to_string(),
            "m_values": args.bins,
            "models": models,
            "unavailable": UNAVAILABLE.iter().map(|(w, r)| json!({"what": w, "reason": r})).collect::<Vec<_>>(),
        });
        write_stdout(&(serde_json::to_string_pretty(&doc).expect("JSON") + "\n"))
    } else {
        write_stdout(&text)
    }
}
