//! The subcommands. Each reads its input with calibscope-io, computes with
//! calibscope-core and prints through calibscope-audit; nothing is computed here.

use crate::{AuditArgs, BinningArg, Form, Mapping, Method, RecalibrateArgs, SynthArgs};
use calibscope_audit::{
    audit_document_grouped, evaluation_after, fitted_params_json, markdown, parse_options,
    recalibrate_rows_with_intervals, recalibrated_csv, record_markdown, AuditOptions,
    Method as RecalMethod, RecalibrationSettings, Sections,
};
use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::recal::apply::{
    recalibrate as fit_all, recalibrate_temperature, FitScores, Recalibration, Undefined,
};
use calibscope_core::recal::prob_maps::{
    fit_prob_map, Bins, ProbFit, ProbMethod, DEFAULT_BINS, DEFAULT_FOLDS,
};
use calibscope_core::synth::{self, Distribution, Mode};
use calibscope_io::{Dataset, Options, ParseErrors};
use calibscope_share::MappingState;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Why a command failed.
pub enum Failure {
    /// The input could not be read or audited (exit code 1).
    Input(String),
    /// The command line asks for something impossible (exit code 2).
    Usage(String),
}

pub(crate) type Outcome = Result<(), Failure>;

fn io_failure(what: &str, e: std::io::Error) -> Failure {
    Failure::Input(format!("calibscope: {what}: {e}"))
}

impl Mapping {
    /// The mapping as the record and the links write it.
    pub(crate) fn state(&self) -> MappingState {
        let source = match (self.logits, self.probs) {
            (true, _) => Some("logits".to_string()),
            (_, true) => Some("probs".to_string()),
            _ => None,
        };
        MappingState {
            label: self.label.clone(),
            scores: self.scores.clone(),
            top_label: self.top_label.clone(),
            source,
            delimiter: self.delimiter.clone(),
            model_column: self.model_column.clone(),
            id_column: self.id_column.clone(),
            class_names: self.class_names.clone(),
            // (the grouping is --group's, recorded in the audits' `groups`)
            groups: Vec::new(),
            verbalised: self.verbalised.clone(),
            multilabel: self.multilabel.clone(),
        }
    }

    pub(crate) fn options(&self) -> Result<Options, Failure> {
        let options = parse_options(&self.state()).map_err(Failure::Usage)?;
        Ok(Options {
            max_file_bytes: self.max_file_size.unwrap_or(u64::MAX),
            max_cells: self.max_cells.unwrap_or(u64::MAX),
            ..options
        })
    }
}

/// Reads the inputs: files through calibscope-io (NumPy pairs grouped, several
/// files combined into a multi-model set), `-` from standard input.
pub(crate) fn read(files: &[PathBuf], options: &Options) -> Result<Dataset, ParseErrors> {
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

pub(crate) fn input_failure(errors: &ParseErrors) -> Failure {
    let mut message = errors.to_string();
    if errors.more > 0 {
        message.push_str(&format!("\n… and {} more errors", errors.more));
    }
    // a reading detection guessed: the flags of each mapping that would fit
    for c in errors.errors.iter().flat_map(|e| &e.candidates) {
        let r = calibscope_io::MappingRequest::from_mapping(&c.mapping);
        let mut flags = format!("--scores {}", r.scores.join(","));
        if !r.class_names.is_empty() {
            flags.push_str(&format!(" --class-names {}", r.class_names.join(",")));
        }
        message.push_str(&format!("\nto read {}: add {flags}", c.says));
    }
    Failure::Input(message)
}

impl crate::BootstrapArgs {
    /// The bootstrap settings on `threads` threads (0: every core).
    pub(crate) fn settings(&self, threads: usize) -> BootstrapSettings {
        BootstrapSettings {
            replicates: self.replicates,
            seed: self.seed,
            alpha: self.alpha,
            threads: match threads {
                0 => calibscope_core::bootstrap::default_threads(),
                t => t,
            },
        }
    }
}

pub(crate) fn binning(b: BinningArg) -> Binning {
    match b {
        BinningArg::Width => Binning::Width,
        BinningArg::Mass => Binning::Mass,
    }
}

pub(crate) fn check_bins(bins: &[usize]) -> Outcome {
    if bins.is_empty() || bins.contains(&0) {
        return Err(Failure::Usage(
            "--bins takes bin counts of at least 1, e.g. 15 or 5,20,100".into(),
        ));
    }
    Ok(())
}

pub(crate) fn write_stdout(text: &str) -> Outcome {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| io_failure("writing standard output", e))
}

/// The methods `audit --methods` asks for (names as in `recalibrate --method`), and
/// whether it asks for `all`; an unknown name is a usage error that lists the
/// choices (before any file is read).
fn asked_methods(names: &[String]) -> Result<(Vec<RecalMethod>, bool), Failure> {
    let mut methods = Vec::new();
    let mut all = false;
    for name in names {
        if name == "all" {
            all = true;
            continue;
        }
        let method = RecalMethod::from_name(&name.replace('-', "_"))
            .filter(|m| m.prob_method().is_some())
            .ok_or_else(|| {
                Failure::Usage(format!(
                    "--methods: {name:?} is not one of beta, histogram, venn-abers, vector, matrix, dirichlet, all (temperature scaling, Platt and isotonic are always fitted)"
                ))
            })?;
        methods.push(method);
    }
    Ok((methods, all))
}

/// The methods asked for, `all` being every one `k` classes allow, in the ledger's
/// order.
fn more_methods((asked, all): (Vec<RecalMethod>, bool), k: usize) -> Vec<RecalMethod> {
    RecalMethod::EVERY
        .into_iter()
        .filter(|m| asked.contains(m) || (all && RecalMethod::more_for(k).contains(m)))
        .collect()
}

pub fn audit(args: AuditArgs) -> Outcome {
    check_bins(&args.bins)?;
    if crate::bins_cmd::is_aggregate_file(&args.files) {
        return crate::bins_cmd::audit(&args);
    }
    crate::share::check_flips(&args.flips)?;
    if !(args.cal_fraction > 0.0 && args.cal_fraction < 1.0) {
        return Err(Failure::Usage(
            "--cal-fraction must lie strictly between 0 and 1".into(),
        ));
    }
    let mut options = Options {
        threads: args.threads,
        ..args.mapping.options()?
    };
    options.mapping.set_groups(&args.groups.columns);
    if args.exports() && args.files.iter().any(|f| f == Path::new("-")) {
        return Err(Failure::Usage(
            "--record and --html fingerprint their input files; standard input cannot be fingerprinted, give a file".into(),
        ));
    }
    let asked = asked_methods(&args.methods)?;
    let parsed = read(&args.files, &options);
    let k = parsed
        .as_ref()
        .ok()
        .and_then(|d| d.models.first())
        .map_or(0, |(_, set)| set.k);
    let audit_options = AuditOptions {
        m_values: args.bins.clone(),
        recalibration: (!args.no_recalibration).then_some(RecalibrationSettings {
            seed: args.split_seed,
            fraction: args.cal_fraction,
            platt_and_isotonic: !args.temperature_only,
            // read from the data by the audit (a ragged log's)
            class_positions_differ: false,
            more_methods: more_methods(asked, k),
        }),
        roc_max_n: 300,
    };
    let name = args.files[0].display().to_string();
    // the audit of the whole set and the recalibration section (and its ledgers) run
    // side by side on a machine with more than one core: the same document either way
    let sections = match args.threads {
        1 => Sections::Sequential,
        _ => Sections::available(),
    };
    let bootstrap = args.bootstrap.settings(args.threads);
    let group_settings = args.groups.settings(
        args.bins[0],
        binning(args.binning),
        args.bootstrap.seed,
        args.threads,
    );
    let doc = audit_document_grouped(
        &parsed,
        &name,
        &audit_options,
        sections,
        Some(&bootstrap),
        Some(&group_settings),
    );
    let quiet = args.exports() && !args.markdown;
    let record = match (&parsed, args.exports()) {
        (Ok(dataset), true) => {
            let record = crate::share::record(&args, audit_options, doc.clone(), dataset)?;
            let record = record.to_json();
            crate::share::write_exports(&args, &record)?;
            Some(record)
        }
        _ => None,
    };
    if args.json {
        let text = serde_json::to_string_pretty(&doc).expect("JSON of a Value");
        write_stdout(&(text + "\n"))?;
    } else if parsed.is_ok() && !quiet {
        let (m, binning) = (args.bins[0], binning(args.binning));
        // with a record, its ranking-flips section too
        let text = match &record {
            Some(record) => record_markdown(record, m, binning),
            None => markdown(&doc, m, binning),
        };
        write_stdout(&text)?;
    }
    match &parsed {
        Ok(_) => Ok(()),
        Err(errors) => Err(input_failure(errors)),
    }
}

/// Histogram binning's bins of `--bins` / `--folds`, checked against `--method`.
fn bins_of(args: &RecalibrateArgs) -> Result<Bins, Failure> {
    let histogram = args.method == Method::Histogram;
    if !histogram && (args.bins.is_some() || args.folds.is_some()) {
        return Err(Failure::Usage(
            "--bins and --folds apply to --method histogram only".into(),
        ));
    }
    let folds = args.folds.unwrap_or(DEFAULT_FOLDS);
    match args.bins.as_deref().map(str::trim) {
        None => {
            if args.folds.is_some() {
                return Err(Failure::Usage("--folds needs --bins auto".into()));
            }
            Ok(Bins::Fixed(DEFAULT_BINS))
        }
        Some("auto") if folds >= 2 => Ok(Bins::CrossFit { folds }),
        Some("auto") => Err(Failure::Usage(format!(
            "--folds {folds}: cross-fitting needs at least 2 folds"
        ))),
        Some(v) => match v.parse::<usize>() {
            Ok(m) if m >= 1 => {
                if args.folds.is_some() {
                    return Err(Failure::Usage("--folds needs --bins auto".into()));
                }
                Ok(Bins::Fixed(m))
            }
            _ => Err(Failure::Usage(format!(
                "--bins '{v}': give a whole number of bins, 1 or more, or 'auto'"
            ))),
        },
    }
}

/// The fitted map for people (the first lines of the ledger printed to stderr).
fn describe(run: &Recalibration, method: RecalMethod) -> Result<String, Undefined> {
    Ok(match method {
        RecalMethod::Temperature => {
            let t = run.temperature.as_ref().map_err(Clone::clone)?;
            format!(
                "temperature tau = {} ({} iterations of golden-section search)",
                t.fit.tau,
                t.fit.trace.last().map_or(0, |s| s.iteration)
            )
        }
        RecalMethod::Platt => {
            let p = run.platt.as_ref().map_err(Clone::clone)?;
            let params: Vec<String> = p
                .maps()?
                .iter()
                .map(|f| format!("(a = {}, b = {})", f.a, f.b))
                .collect();
            format!("Platt scaling {}", params.join(" "))
        }
        RecalMethod::Isotonic => {
            let p = run.isotonic.as_ref().map_err(Clone::clone)?;
            let knots: Vec<String> = p.maps()?.iter().map(|f| f.n_knots().to_string()).collect();
            format!("isotonic regression ({} knots)", knots.join(", "))
        }
        RecalMethod::Vector | RecalMethod::Matrix | RecalMethod::Dirichlet => {
            let p = method
                .prob_map(run)
                .expect("a joint map")
                .map_err(Clone::clone)?;
            let f = p.scaling.as_ref().expect("a joint map's fit");
            let how = p.odir_search.as_ref().map_or(String::new(), |s| {
                format!(
                    "; ODIR lambda = mu = {} chosen by {}-fold cross-validation on the calibration split",
                    s.chosen, s.folds
                )
            });
            format!(
                "{} of {} classes ({} L-BFGS iterations{}){how}",
                method.title(),
                f.k,
                f.iterations,
                if f.converged {
                    ""
                } else {
                    ", stopped at the iteration cap"
                }
            )
        }
        RecalMethod::Beta | RecalMethod::Histogram | RecalMethod::VennAbers => {
            let p = method
                .prob_map(run)
                .expect("a probability map")
                .map_err(Clone::clone)?;
            let fits: Vec<String> = p
                .fits
                .iter()
                .map(|f| match f {
                    ProbFit::Beta(f) => format!("(a = {}, b = {}, c = {})", f.a, f.b, f.c),
                    ProbFit::Histogram(f) => format!("{} bins", f.estimates.len()),
                    ProbFit::VennAbers(f) => format!("{} distinct scores", f.values.len()),
                })
                .collect();
            let how = match &p.cross_fit {
                Some(cf) => format!(
                    "; {} bins chosen by {}-fold cross-fitting on the calibration split",
                    cf.chosen, cf.folds
                ),
                None => p
                    .bins
                    .map_or(String::new(), |m| format!("; {m} bins asked")),
            };
            format!(
                "{} one-vs-rest on the class probabilities: {}{how}",
                match method {
                    RecalMethod::Beta => "beta calibration",
                    RecalMethod::Histogram => "histogram binning",
                    _ => "inductive Venn-Abers",
                },
                fits.join(" ")
            )
        }
    })
}

pub fn recalibrate(args: RecalibrateArgs) -> Outcome {
    if !(args.cal_fraction > 0.0 && args.cal_fraction < 1.0) {
        return Err(Failure::Usage(
            "--cal-fraction must lie strictly between 0 and 1".into(),
        ));
    }
    let bins = bins_of(&args)?;
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
    let undefined =
        |why: &dyn std::fmt::Display| Failure::Input(format!("calibscope recalibrate: {why}"));
    let method = match args.method {
        Method::Temperature => RecalMethod::Temperature,
        Method::Platt => RecalMethod::Platt,
        Method::Isotonic => RecalMethod::Isotonic,
        Method::Beta => RecalMethod::Beta,
        Method::Histogram => RecalMethod::Histogram,
        Method::VennAbers => RecalMethod::VennAbers,
        Method::Vector => RecalMethod::Vector,
        Method::Matrix => RecalMethod::Matrix,
        Method::Dirichlet => RecalMethod::Dirichlet,
    };
    // every map but temperature scaling reads class positions (one-vs-rest, or
    // mixing them: W x + b): with rows of different numbers of choices, a position
    // is not the same class across rows, and the padding choices would get
    // probability
    if method != RecalMethod::Temperature {
        if let Some(r) = &dataset.detection.ragged {
            return Err(Failure::Input(format!(
                "calibscope recalibrate: {} has questions with {} to {} choices; {} reads the class positions (choice 1, choice 2, …), which do not name the same choice across questions. Use --method temperature (it keeps each question's own choices), or give a file whose rows all have the same classes",
                args.file.display(),
                r.min,
                r.max,
                method.title()
            )));
        }
    }
    let run = match method {
        RecalMethod::Temperature | RecalMethod::Platt | RecalMethod::Isotonic => {
            fit_all(set, args.split_seed, args.cal_fraction)
        }
        _ => {
            let mut run = recalibrate_temperature(set, args.split_seed, args.cal_fraction);
            let kind = match method {
                RecalMethod::Beta => ProbMethod::Beta,
                RecalMethod::Histogram => ProbMethod::Histogram,
                RecalMethod::Vector => ProbMethod::Vector,
                RecalMethod::Matrix => ProbMethod::Matrix,
                RecalMethod::Dirichlet => ProbMethod::Dirichlet,
                _ => ProbMethod::VennAbers,
            };
            *run.prob_map_mut(kind) = fit_prob_map(set, &run.split, kind, bins);
            run
        }
    };
    let (recalibrated, intervals) =
        recalibrate_rows_with_intervals(set, &run, method).map_err(|e| undefined(&e))?;
    let after = evaluation_after(&run, method).map_err(|e| undefined(&e))?;
    let description = describe(&run, method).map_err(|e| undefined(&e))?;
    let csv = recalibrated_csv(
        &recalibrated,
        dataset.ids.as_ref(),
        &dataset.class_names,
        &run.split.calibration,
        intervals.as_deref(),
    );
    write_file_or_stdout(&args.out, &csv)?;
    if let Some(path) = &args.params {
        let settings = RecalibrationSettings {
            seed: args.split_seed,
            fraction: args.cal_fraction,
            ..RecalibrationSettings::default()
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
