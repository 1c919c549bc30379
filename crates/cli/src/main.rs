//! `calibscope`: audit the calibration of a classifier's confidences from a terminal
//! or a pipeline. The same core, readers and audit document as the web app.
//!
//! Exit codes: 0 success, 1 input error (messages on stderr; with `--json` the
//! input-error document on stdout), 2 usage error.

mod bins_cmd;
mod commands;
mod flips;
mod groups;
mod share;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// Audit the calibration of a classifier's confidences.
#[derive(Parser, Debug)]
#[command(name = "calibscope", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The full audit of one or more prediction files (several files, or one
    /// long-format file with a `model` column, make a multi-model audit).
    Audit(AuditArgs),
    /// Fit a recalibration map on the calibration split and write the recalibrated
    /// predictions of every row.
    Recalibrate(RecalibrateArgs),
    /// Rank several models by a binned metric at several bin counts: ranks, flips and
    /// Spearman correlations.
    Flips(FlipsArgs),
    /// Write a synthetic prediction file (METRICS.md §7 generators).
    Synth(SynthArgs),
    /// Recompute an audit record (`audit --record`) from its data files and compare
    /// every value: ✓ identical, ✗ differs or missing (exit code 1); in a record of an
    /// earlier metric contract, Δ a value moved only by a definition change (verified).
    Verify(VerifyArgs),
    /// Print the one-pass GROUP BY query that computes the aggregate
    /// (calibscope-bins/1) of a table in an engine; `calibscope audit` opens its result.
    Sql(bins_cmd::SqlArgs),
    /// Build the aggregate (calibscope-bins/1) of prediction files in one pass, memory
    /// independent of the rows; `calibscope audit` opens it.
    Aggregate(bins_cmd::AggregateArgs),
    /// Read or write a permalink fragment (`#a1=…`): print the view a link holds as
    /// JSON, or the link of a view (JSON) or of a record's settings.
    Link(LinkArgs),
}

/// How to read the input's columns (every flag overrides detection).
#[derive(Args, Debug, Clone, Default)]
struct Mapping {
    /// The score columns hold logits.
    #[arg(long, conflicts_with = "probs")]
    logits: bool,
    /// The score columns hold probabilities.
    #[arg(long)]
    probs: bool,
    /// The label column.
    #[arg(long, value_name = "COLUMN")]
    label: Option<String>,
    /// The field delimiter of text tables (e.g. ',' ';' or 'tab').
    #[arg(long, value_name = "CHAR")]
    delimiter: Option<String>,
    /// The model column of a long-format file ('none': the file holds one model).
    #[arg(long, value_name = "COLUMN")]
    model_column: Option<String>,
    /// The sample id column ('none': no id column).
    #[arg(long, value_name = "COLUMN")]
    id_column: Option<String>,
    /// The score columns: one binary column (P(y=1) or a logit) or k columns in
    /// class order, e.g. --scores p or --scores cat,dog,bird.
    #[arg(
        long,
        value_name = "COLUMNS",
        value_delimiter = ',',
        conflicts_with = "top_label"
    )]
    scores: Vec<String>,
    /// Top-label input: the predicted-class and confidence columns, e.g. --top-label yhat,conf.
    #[arg(long, value_name = "PRED,CONF", value_delimiter = ',', num_args = 1)]
    top_label: Vec<String>,
    /// Verbalised confidence: the stated-confidence column (a fraction, a percent
    /// or "85%"; empty or NaN: the model abstained) and the correctness column
    /// (0/1, true/false), whatever their names, e.g. --verbalised stated,graded.
    /// Tables whose columns are named confidence and correct are read so without it.
    #[arg(
        long,
        value_name = "CONF,CORRECT",
        value_delimiter = ',',
        num_args = 1,
        conflicts_with_all = ["scores", "top_label", "label", "class_names"]
    )]
    verbalised: Vec<String>,
    /// Multilabel table: each label's 0/1 column and its score column, joined by
    /// ':', e.g. --multilabel has_cat:p_cat,has_dog:p_dog. Every (row, label) pair
    /// is one binary prediction: the audit pools them, and each label is a group
    /// (`label`). Tables whose columns pair up by name (toxic,p_toxic,…; y_0,p_0,…)
    /// are read so without it.
    #[arg(
        long,
        value_name = "LABEL:SCORE,...",
        value_delimiter = ',',
        num_args = 1,
        conflicts_with_all = ["scores", "top_label", "label", "class_names", "verbalised"]
    )]
    multilabel: Vec<String>,
    /// Class names in class order (default: the suffixes of p_<class> columns).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    class_names: Vec<String>,
    /// Refuse files larger than this (bytes, or with a unit: 500MB, 2GB); default: no limit.
    #[arg(long, value_name = "SIZE", value_parser = calibscope_io::limits::parse_size)]
    max_file_size: Option<u64>,
    /// Refuse data with more values (rows × score columns) than this; default: no limit.
    #[arg(long, value_name = "N")]
    max_cells: Option<u64>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BinningArg {
    Width,
    Mass,
}

#[derive(Args, Debug)]
struct AuditArgs {
    /// Prediction files (CSV/TSV/JSON/.npy/.npz/Parquet/Arrow IPC; `-` reads standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Bin counts of the ECE-family tables, e.g. 15 or 1,2,5,10,15,20,100.
    #[arg(long, default_value = "15", value_delimiter = ',')]
    bins: Vec<usize>,
    /// Binning of the summary's reliability table.
    #[arg(long, value_enum, default_value = "width")]
    binning: BinningArg,
    /// Print the calibscope-audit/1 JSON document.
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// Print the Markdown summary (the default).
    #[arg(long)]
    markdown: bool,
    /// Skip the recalibration section.
    #[arg(long)]
    no_recalibration: bool,
    /// Recalibration section with temperature scaling only (Platt and isotonic are
    /// reported as not asked for): the work of a temperature-scaling pipeline, and
    /// much faster on many classes.
    #[arg(long, conflicts_with = "no_recalibration")]
    temperature_only: bool,
    /// Also fit these recalibration methods on the same split, beside temperature
    /// scaling, Platt and isotonic: beta, histogram (its bin count by 5-fold
    /// cross-fitting), venn-abers, vector, matrix, dirichlet (the last three need
    /// three classes or more), or all (every one the data allows, as the page's
    /// Recalibrate view). The section then also compares every method on the
    /// evaluation split (best by NLL, ECE and risk, within noise or not).
    #[arg(long, value_delimiter = ',', value_name = "METHODS",
          conflicts_with_all = ["no_recalibration", "temperature_only"])]
    methods: Vec<String>,
    /// Also write the calibscope-record/1 audit record (file fingerprints, settings,
    /// every number) to FILE; `calibscope verify` re-checks it.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Also write a self-contained HTML report to FILE (no script, no external request).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Also write every table as CSV into DIR (created when missing): the overview,
    /// the reliability tables, the recalibration ledger, every number (numbers.csv).
    #[arg(long, value_name = "DIR")]
    csv: Option<PathBuf>,
    /// Also write the report's charts as SVG files into DIR (created when missing).
    #[arg(long, value_name = "DIR")]
    svg: Option<PathBuf>,
    /// Seed of the stratified calibration/evaluation split.
    #[arg(long, default_value_t = 0)]
    split_seed: u64,
    /// Fraction of each class in the calibration split.
    #[arg(long, default_value_t = 0.5)]
    cal_fraction: f64,
    /// Threads: 1 reads and computes on one thread; 0 (the default) uses every core:
    /// large CSV files are parsed in parallel and the audit's independent sections (the
    /// whole set's audit, the recalibration section, its ledgers; several models) run
    /// side by side; N > 1 parses with N threads and runs sections side by side. The
    /// output is the same whatever the number.
    #[arg(long, default_value_t = 0, value_name = "N")]
    threads: usize,
    #[command(flatten)]
    bootstrap: BootstrapArgs,
    #[command(flatten)]
    flips: FlipsRecordArgs,
    #[command(flatten)]
    mapping: Mapping,
    #[command(flatten)]
    groups: groups::GroupArgs,
}

/// The seeded paired bootstrap of the binning-free section (METRICS.md §8.5): the
/// intervals of the confidence reading's metrics and the verdict.
#[derive(Args, Debug, Clone, Copy)]
struct BootstrapArgs {
    /// Bootstrap replicates B for the intervals and the verdict (0: point values only,
    /// no intervals and no verdict).
    #[arg(long = "bootstrap", default_value_t = 1000, value_name = "B",
          value_parser = parse_replicates)]
    replicates: usize,
    /// Seed of the bootstrap's draws (the same seed gives the same intervals).
    #[arg(long, default_value_t = 0, value_name = "S")]
    seed: u64,
    /// Intervals at level 1 - A, and the verdict's test at level A (0 < A < 1).
    #[arg(long, default_value_t = 0.05, value_name = "A", value_parser = parse_alpha)]
    alpha: f64,
}

/// `--alpha`: a number strictly between 0 and 1.
fn parse_alpha(text: &str) -> Result<f64, String> {
    let a: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number; give a level such as 0.05"))?;
    if a > 0.0 && a < 1.0 {
        Ok(a)
    } else {
        Err(format!(
            "{text} is not strictly between 0 and 1 (0.05 gives 95 % intervals)"
        ))
    }
}

/// `--bootstrap`: a whole number of replicates up to the audit's limit.
fn parse_replicates(text: &str) -> Result<usize, String> {
    let b: usize = text
        .parse()
        .map_err(|_| format!("'{text}' is not a whole number of replicates (e.g. 1000)"))?;
    let max = calibscope_audit::beyond_binning::MAX_REPLICATES;
    if b > max {
        return Err(format!("{b} replicates: at most {max}"));
    }
    Ok(b)
}

/// The ranking-flips section of a record of two or more models (the app's "Ranking
/// flips" view; defaults: the view's controls at start).
#[derive(Args, Debug)]
struct FlipsRecordArgs {
    /// The record's ranking-flips metric (as `flips --metric`, one metric).
    #[arg(long, default_value = "confece", value_name = "METRIC")]
    flips_metric: String,
    /// The binning of the record's ranking-flips section.
    #[arg(long, value_enum, default_value = "mass", value_name = "BINNING")]
    flips_binning: BinningArg,
    /// The bin count ranked against the reference (at least 1; clipped to min(n, 2000)).
    #[arg(long, default_value_t = 5, value_name = "M")]
    flips_m: usize,
    /// The pinned reference bin count (at least 1; clipped to min(n, 2000)).
    #[arg(long, default_value_t = 2000, value_name = "M")]
    flips_ref: usize,
    /// The bin counts of the Spearman matrices (at least 1; clipped to n, sorted).
    #[arg(
        long,
        default_value = "5,20,2000",
        value_delimiter = ',',
        value_name = "M,..."
    )]
    flips_bins: Vec<usize>,
    /// Temperature-scale each model first in the record's ranking-flips section (as
    /// `flips --temperature-first`).
    #[arg(long)]
    flips_temperature_first: bool,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    /// The record (calibscope-record/1 JSON), or an HTML report holding one.
    record: PathBuf,
    /// The data files the record was made from, in the same order.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print only the values that differ, those moved by a definition change, and
    /// the summary.
    #[arg(long)]
    failures_only: bool,
}

#[derive(Args, Debug)]
#[group(required = true, multiple = false)]
struct LinkArgs {
    /// A link or its fragment (`https://…/#a1=…`, `#a1=…` or `a1=…`): print its view.
    fragment: Option<String>,
    /// A view as JSON (fields as in the link; missing ones take their defaults):
    /// print its fragment.
    #[arg(long, value_name = "FILE")]
    from_json: Option<PathBuf>,
    /// A record (calibscope-record/1, or an HTML report): print the fragment of its
    /// settings, which names its input files by name, size and SHA-256.
    #[arg(long, value_name = "FILE")]
    from_record: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq)]
enum Method {
    Temperature,
    Platt,
    Isotonic,
    /// Beta calibration (Kull et al. 2017), one-vs-rest on the class probabilities.
    Beta,
    /// Histogram binning on equal-mass bins (`--bins`), one-vs-rest.
    Histogram,
    /// Inductive Venn–Abers: the merged probability, and `p_lower`/`p_upper`.
    VennAbers,
    /// Vector scaling (Guo et al. 2017) on the logits; three classes or more.
    Vector,
    /// Matrix scaling (Guo et al. 2017) on the logits; three classes or more.
    Matrix,
    /// Dirichlet calibration with ODIR (Kull et al. 2019) on ln p, its strength by
    /// 5-fold cross-validation on the calibration split; three classes or more.
    Dirichlet,
}

#[derive(Args, Debug)]
struct RecalibrateArgs {
    /// The prediction file (`-` reads standard input).
    file: PathBuf,
    /// The recalibration method.
    #[arg(long, value_enum)]
    method: Method,
    /// Seed of the stratified calibration/evaluation split.
    #[arg(long, default_value_t = 0)]
    split_seed: u64,
    /// Fraction of each class in the calibration split.
    #[arg(long, default_value_t = 0.5)]
    cal_fraction: f64,
    /// Histogram binning's bin count (equal-mass bins), or `auto`: chosen among 2,
    /// 5, 10, 15, 20, 30, 50, 75, 100 by K-fold cross-fitting on the calibration split
    /// (held-out Brier score). `--method histogram` only.
    #[arg(long, value_name = "N|auto")]
    bins: Option<String>,
    /// Folds of `--bins auto`'s cross-fitting (at least 2).
    #[arg(long, value_name = "K")]
    folds: Option<usize>,
    /// Where to write the recalibrated predictions (CSV; `-` for standard output).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Where to write the fitted parameters (JSON: method, tau / (a, b) / isotonic
    /// knots, split seed and fraction, version; `-` for standard output).
    #[arg(long, value_name = "FILE")]
    params: Option<PathBuf>,
    #[command(flatten)]
    mapping: Mapping,
}

#[derive(Args, Debug)]
struct FlipsArgs {
    /// Prediction files of several models on the same samples, or one long-format file.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The ranked metric: confece, confce, confce_corr, lince_cw, cwece, rmsce_conf,
    /// the binning-free references error, brier_over_k, l_conf, or `all` (every one,
    /// as the app's Spearman matrices side by side).
    #[arg(long, default_value = "confce_corr")]
    metric: String,
    /// The binning.
    #[arg(long, value_enum, default_value = "mass")]
    binning: BinningArg,
    /// Bin counts compared (clipped to n, sorted, as in the app).
    #[arg(long, default_value = "5,20,2000", value_delimiter = ',')]
    bins: Vec<usize>,
    /// Temperature-scale each model first (seed 000's protocol): fit τ per model on
    /// the stratified calibration split (seed 0, fraction 0.5, as the Recalibrate
    /// view), then rank every model on the evaluation split (the same rows for all).
    #[arg(long)]
    temperature_first: bool,
    /// Print JSON (ranks, spearman, flips, flip_pairs, spearman_vs_error, and the
    /// bootstrap's `noise`: each pair's order share and whether a flip is within noise).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    bootstrap: BootstrapArgs,
    #[command(flatten)]
    mapping: Mapping,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq)]
enum Form {
    Binary,
    Toplabel,
}

#[derive(Args, Debug)]
struct SynthArgs {
    /// Confidence distribution: uniform, skew_high, skew_low, bimodal, tight_hi,
    /// tight_lo, normal, log_uniform_low, log_uniform_high, bell.
    #[arg(long)]
    dist: String,
    /// Calibration mode: random_0.5, perfect, underconf_linear, underconf_sqrt,
    /// random_over_c, overconf_sqrt, overconf_half, random_under_c.
    #[arg(long)]
    mode: String,
    /// Number of samples.
    #[arg(short = 'n', long, default_value_t = 10_000)]
    n: usize,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// `binary` writes `label,p`; `toplabel` writes `label,yhat,conf`.
    #[arg(long, value_enum, default_value = "toplabel")]
    form: Form,
    /// Output file (default: standard output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Audit(a) => commands::audit(a),
        Command::Recalibrate(a) => commands::recalibrate(a),
        Command::Flips(a) => flips::flips(a),
        Command::Synth(a) => commands::synth(a),
        Command::Verify(a) => share::verify_command(a),
        Command::Link(a) => share::link_command(a),
        Command::Sql(a) => bins_cmd::sql(a),
        Command::Aggregate(a) => bins_cmd::aggregate(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(commands::Failure::Input(message)) => {
            eprintln!("{message}");
            ExitCode::from(1)
        }
        Err(commands::Failure::Usage(message)) => {
            eprintln!("calibscope: {message}");
            ExitCode::from(2)
        }
    }
}
