//! The subcommands. Each reads its input with calibscope-io, computes with
//! calibscope-core and prints through calibscope-audit; nothing is computed here.

use crate::{AuditArgs, BinningArg, FlipsArgs, Form, Mapping, Method, RecalibrateArgs, SynthArgs};
use calibscope_audit::{
    audit_document, evaluation_after, fitted_params_json, markdown, recalibrate_rows,
    recalibrated_csv, sweep_json, AuditOptions, Method as RecalMethod, RecalibrationSettings,
};
use calibscope_core::binning::Binning;
use calibscope_core::rank::ranking_sweep;
use calibscope_core::recal::apply::{recalibrate as fit_all, FitScores};
use calibscope_core::sweep::{sweep, ModelIndex, SweepMetric};
use calibscope_core::synth::{self, Distribution, Mode};
use calibscope_io::{ColumnMapping, Dataset, Options, ParseErrors, Pick, ScoreColumns, Source};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Why a command failed.
pub enum Failure {
    /// The input could not be read or audited (exit code 1).
    Input(String),
    /// The command line asks for something impossible (exit code 2).
    Usage(String),
}

type Outcome = Result<(), Failure>;

fn io_failure(what: &str, e: std::io::Error) -> Failure {
    Failure::Input(format!("calibscope: {what}: {e}"))
}

impl Mapping {
    fn options(&self) -> Result<Options, Failure> {
        let pick = |v: &Option<String>| match v.as_deref() {
            None => Pick::Auto,
            Some("none") => Pick::Absent,
            Some(c) => Pick::Column(c.to_string()),
        };
        let delimiter = match self.delimiter.as_deref() {
            None => None,
            Some("tab" | "\\t") => Some(b'\t'),
            Some(d) if d.len() == 1 => Some(d.as_bytes()[0]),
            Some(d) => {
                return Err(Failure::Usage(format!(
                    "--delimiter takes one character or 'tab', not '{d}'"
                )))
            }
        };
        let scores = match (self.scores.as_slice(), self.top_label.as_slice()) {
            ([], []) => None,
            ([one], []) => Some(ScoreColumns::Column(one.clone())),
            (many, []) => Some(ScoreColumns::Matrix(many.to_vec())),
            ([], [predicted, confidence]) => Some(ScoreColumns::TopLabel {
                predicted: predicted.clone(),
                confidence: confidence.clone(),
            }),
            _ => {
                return Err(Failure::Usage(
                    "--top-label takes two columns: the predicted class and its confidence, e.g. --top-label yhat,conf".into(),
                ))
            }
        };
        let source = match (self.logits, self.probs) {
            (true, _) => Some(Source::Logits),
            (_, true) => Some(Source::Probs),
            _ => None,
        };
        Ok(Options {
            mapping: ColumnMapping {
                delimiter,
                label: self.label.clone(),
                scores,
                source,
                class_names: (!self.class_names.is_empty()).then(|| self.class_names.clone()),
                model: pick(&self.model_column),
                id: pick(&self.id_column),
            },
            ..Options::default()
        })
    }
}

/// Reads the inputs: files through calibscope-io (NumPy pairs grouped, several
/// files combined into a multi-model set), `-` from standard input.
fn read(files: &[PathBuf], options: &Options) -> Result<Dataset, ParseErrors> {
    if files.len() == 1 && files[0] == Path::new("-") {
        let mut parser = calibscope_io::Parser::new("stdin", options.clone());
        let mut buf = vec![0u8; 8 << 20];
        let mut stdin = std::io::stdin().lock();
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if parser.push(&buf[..n]).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    eprintln!("calibscope: reading standard input: {e}");
                    break;
                }
            }
        }
        return parser.finish();
    }
    calibscope_io::open_paths(files, options)
}

fn input_failure(errors: &ParseErrors) -> Failure {
    let mut message = errors.to_string();
    if errors.more > 0 {
        message.push_str(&format!("\n… and {} more errors", errors.more));
    }
    Failure::Input(message)
}

fn binning(b: BinningArg) -> Binning {
    match b {
        BinningArg::Width => Binning::Width,
        BinningArg::Mass => Binning::Mass,
    }
}

fn check_bins(bins: &[usize]) -> Outcome {
    if bins.is_empty() || bins.contains(&0) {
        return Err(Failure::Usage(
            "--bins takes bin counts of at least 1, e.g. 15 or 5,20,100".into(),
        ));
    }
    Ok(())
}

fn write_stdout(text: &str) -> Outcome {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| io_failure("writing standard output", e))
}

pub fn audit(args: AuditArgs) -> Outcome {
    check_bins(&args.bins)?;
    if !(args.cal_fraction > 0.0 && args.cal_fraction < 1.0) {
        return Err(Failure::Usage(
            "--cal-fraction must lie strictly between 0 and 1".into(),
        ));
    }
    let options = args.mapping.options()?;
    let parsed = read(&args.files, &options);
    let audit_options = AuditOptions {
        m_values: args.bins.clone(),
        recalibration: (!args.no_recalibration).then_some(RecalibrationSettings {
            seed: args.split_seed,
            fraction: args.cal_fraction,
        }),
        roc_max_n: 300,
    };
    let name = args.files[0].display().to_string();
    let doc = audit_document(&parsed, &name, &audit_options);
    if args.json {
        let text = serde_json::to_string_pretty(&doc).expect("JSON of a Value");
        write_stdout(&(text + "\n"))?;
    } else if parsed.is_ok() {
        write_stdout(&markdown(&doc, args.bins[0], binning(args.binning)))?;
    }
    match &parsed {
        Ok(_) => Ok(()),
        Err(errors) => Err(input_failure(errors)),
    }
}

pub fn recalibrate(args: RecalibrateArgs) -> Outcome {
    if !(args.cal_fraction > 0.0 && args.cal_fraction < 1.0) {
        return Err(Failure::Usage(
            "--cal-fraction must lie strictly between 0 and 1".into(),
        ));
    }
    let options = args.mapping.options()?;
    let dataset =
        read(std::slice::from_ref(&args.file), &options).map_err(|e| input_failure(&e))?;
    if dataset.models.len() != 1 {
        return Err(Failure::Input(format!(
            "calibscope recalibrate: {} holds {} models; recalibrate one model at a time",
            args.file.display(),
            dataset.models.len()
        )));
    }
    let set = &dataset.models[0].1;
    if FitScores::of(set).is_none() {
        return Err(Failure::Input("calibscope recalibrate: top-label input (predicted class + confidence) has no scores to recalibrate; give probabilities or logits".into()));
    }
    let run = fit_all(set, args.split_seed, args.cal_fraction);
    let undefined =
        |why: &dyn std::fmt::Display| Failure::Input(format!("calibscope recalibrate: {why}"));
    let method = match args.method {
        Method::Temperature => RecalMethod::Temperature,
        Method::Platt => RecalMethod::Platt,
        Method::Isotonic => RecalMethod::Isotonic,
    };
    let recalibrated = recalibrate_rows(set, &run, method).map_err(|e| undefined(&e))?;
    let after = evaluation_after(&run, method).map_err(|e| undefined(&e))?;
    let description = match method {
        RecalMethod::Temperature => {
            let t = run.temperature.as_ref().map_err(|e| undefined(e))?;
            format!(
                "temperature tau = {} ({} iterations of golden-section search)",
                t.fit.tau,
                t.fit.trace.len()
            )
        }
        RecalMethod::Platt => {
            let p = run.platt.as_ref().map_err(|e| undefined(e))?;
            let params: Vec<String> = p
                .maps()
                .map_err(|e| undefined(&e))?
                .iter()
                .map(|f| format!("(a = {}, b = {})", f.a, f.b))
                .collect();
            format!("Platt scaling {}", params.join(" "))
        }
        RecalMethod::Isotonic => {
            let p = run.isotonic.as_ref().map_err(|e| undefined(e))?;
            let knots: Vec<String> = p
                .maps()
                .map_err(|e| undefined(&e))?
                .iter()
                .map(|f| f.n_knots().to_string())
                .collect();
            format!("isotonic regression ({} knots)", knots.join(", "))
        }
    };
    let csv = recalibrated_csv(
        &recalibrated,
        dataset.ids.as_ref(),
        &dataset.class_names,
        &run.split.calibration,
    );
    write_file_or_stdout(&args.out, &csv)?;
    if let Some(path) = &args.params {
        let settings = RecalibrationSettings {
            seed: args.split_seed,
            fraction: args.cal_fraction,
        };
        let params = fitted_params_json(set, &run, method, &settings, env!("CARGO_PKG_VERSION"));
        let text = serde_json::to_string_pretty(&params).expect("JSON of a Value") + "\n";
        write_file_or_stdout(path, &text)?;
    }
    let before = calibscope_audit::ledger_json(&run.before);
    let after = calibscope_audit::ledger_json(after);
    let mut ledger = format!(
        "{description}\nfitted on {} calibration rows; measured on {} evaluation rows (seed {}, f = {})\n\n| metric | before | after |\n|---|---|---|\n",
        run.split.calibration.len(),
        run.split.evaluation.len(),
        args.split_seed,
        args.cal_fraction
    );
    if let (Some(b), Some(a)) = (before.as_object(), after.as_object()) {
        for (key, value) in b {
            ledger.push_str(&format!(
                "| {key} | {value} | {} |\n",
                a.get(key).unwrap_or(&serde_json::Value::Null)
            ));
        }
    }
    if run.exact_zero_one_probabilities && method == RecalMethod::Temperature {
        ledger.push_str("\nwarning: probability input holds exact 0s or 1s; their logits are the clip value ln(1e-15), so temperature scaling of these rows is ill-posed\n");
    }
    eprint!("{ledger}");
    Ok(())
}

/// Writes `text` to `path`, or to standard output for `-`.
fn write_file_or_stdout(path: &Path, text: &str) -> Outcome {
    if path == Path::new("-") {
        write_stdout(text)
    } else {
        std::fs::write(path, text).map_err(|e| io_failure(&path.display().to_string(), e))
    }
}

pub fn flips(args: FlipsArgs) -> Outcome {
    check_bins(&args.bins)?;
    let metric = SweepMetric::from_name(&args.metric).ok_or_else(|| {
        Failure::Usage(format!(
            "unknown --metric '{}'; choose one of confece, confce, confce_corr, lince_cw, cwece, rmsce_conf",
            args.metric
        ))
    })?;
    let options = args.mapping.options()?;
    let dataset = read(&args.files, &options).map_err(|e| input_failure(&e))?;
    let models: Vec<ModelIndex> = dataset
        .models
        .iter()
        .map(|(_, set)| ModelIndex::new(set, metric.is_classwise()))
        .collect();
    let names: Vec<&str> = dataset.models.iter().map(|(n, _)| n.as_str()).collect();
    let values = sweep(&models, metric, binning(args.binning), &args.bins);
    let values: Option<Vec<Vec<f64>>> = values
        .into_iter()
        .map(|row| row.into_iter().collect())
        .collect();
    let Some(values) = values else {
        return Err(Failure::Input(format!(
            "calibscope flips: {} needs full probability vectors; top-label input has only the confidence reading (use confece, confce, confce_corr or rmsce_conf)",
            metric.name()
        )));
    };
    let error: Vec<f64> = models
        .iter()
        .map(|m| m.error().unwrap_or(f64::NAN))
        .collect();
    if args.json {
        let doc = sweep_json(&values, &error, &args.bins, &names);
        return write_stdout(&(serde_json::to_string_pretty(&doc).expect("JSON") + "\n"));
    }
    let result = ranking_sweep(&values, &error);
    let mut out = format!(
        "{} of {} models on {} samples ({} binning); rank 1 = smallest\n\n| model | error |",
        metric.name(),
        names.len(),
        dataset.n(),
        binning(args.binning).name()
    );
    for m in &args.bins {
        out.push_str(&format!(" m = {m} |"));
    }
    out.push_str(&format!("\n|---|---|{}\n", "---|".repeat(args.bins.len())));
    for (i, name) in names.iter().enumerate() {
        out.push_str(&format!("| {name} | {:.4} |", error[i]));
        for (j, _) in args.bins.iter().enumerate() {
            out.push_str(&format!(" {} ({:.4e}) |", result.ranks[j][i], values[j][i]));
        }
        out.push('\n');
    }
    let show = |v: Option<f64>| v.map_or("undefined".to_string(), |x| format!("{x:.4}"));
    out.push_str("\nSpearman between bin counts (flips in brackets)\n\n| m |");
    for m in &args.bins {
        out.push_str(&format!(" {m} |"));
    }
    out.push_str(&format!("\n|---|{}\n", "---|".repeat(args.bins.len())));
    for (a, ma) in args.bins.iter().enumerate() {
        out.push_str(&format!("| {ma} |"));
        for b in 0..args.bins.len() {
            out.push_str(&format!(
                " {} ({}) |",
                show(result.spearman[a][b]),
                result.flips[a][b]
            ));
        }
        out.push('\n');
    }
    out.push_str("\nSpearman against classification error:");
    for (j, m) in args.bins.iter().enumerate() {
        out.push_str(&format!(" m = {m}: {};", show(result.spearman_vs_error[j])));
    }
    out.push('\n');
    for ((a, b), pairs) in &result.flip_pairs {
        let list: Vec<String> = pairs
            .iter()
            .map(|&(i, j)| format!("{} ↔ {}", names[i], names[j]))
            .collect();
        out.push_str(&format!(
            "flips between m = {} and m = {}: {}\n",
            args.bins[*a],
            args.bins[*b],
            list.join(", ")
        ));
    }
    write_stdout(&out)
}

pub fn synth(args: SynthArgs) -> Outcome {
    let dist = Distribution::from_name(&args.dist)
        .ok_or_else(|| Failure::Usage(format!("unknown --dist '{}'", args.dist)))?;
    let mode = Mode::from_name(&args.mode)
        .ok_or_else(|| Failure::Usage(format!("unknown --mode '{}'", args.mode)))?;
    let s = synth::generate(dist, mode, args.n, args.seed);
    let mut out = String::with_capacity(args.n * 24);
    match args.form {
        Form::Toplabel => {
            out.push_str("label,yhat,conf\n");
            for i in 0..args.n {
                out.push_str(&format!(
                    "{},{},{}\n",
                    s.labels[i], s.predicted[i], s.confidence[i]
                ));
            }
        }
        Form::Binary => {
            out.push_str("label,p\n");
            for (y, p) in s.labels.iter().zip(synth::to_binary_p(&s)) {
                out.push_str(&format!("{y},{p}\n"));
            }
        }
    }
    match &args.out {
        Some(path) => {
            std::fs::write(path, out).map_err(|e| io_failure(&path.display().to_string(), e))
        }
        None => write_stdout(&out),
    }
}
