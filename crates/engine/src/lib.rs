//! The worker's engine, free of any browser type so it is tested natively: it turns
//! parsed files into a data set (pairing NumPy halves, combining several files into
//! a multi-model set), keeps each model's readings sorted once, and answers the
//! page's questions with tables and render-ready numbers only.

use calibscope_audit::{audit_json, binned_metrics_json, default_m_values, AuditOptions, FileInfo};
use calibscope_core::binning::{self, Binning, SortedReading};
use calibscope_core::reading::{self, ProbView};
use calibscope_core::reliability::{reliability_table_cached, IntervalCache, DEFAULT_ALPHA};
use calibscope_core::width::GriddedReading;
use calibscope_core::{Kind, PredictionSet};
use calibscope_io::{Dataset, Options, ParseErrors, Pick, ScoreColumns};
use serde_json::Value;

pub use calibscope_proto as proto;
use calibscope_proto::{
    CandidateItem, ErrorItem, FromWorker, GuessItem, Limits, MappingOverride, Metrics, Reading,
    Row, Summary,
};

pub mod aggregate;
pub mod beyond;
pub mod flips;
pub mod flips_noise;
pub mod labs;
pub mod labs_repro;
pub mod labs_tour;
pub mod recal;
pub mod record;
pub mod slices;

/// The fixtures' comparison rules (the audit tests' own code), for the fixture tests.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../audit/tests/support/compare.rs"]
mod compare;

/// Largest bin count of the slider (METRICS.md §2: `min(n, 2000)`).
pub const M_SLIDER_MAX: usize = 2000;

/// The overview's bin count.
pub const M_OVERVIEW: usize = 15;

/// Parser options for a mapping override and the page's limits, or what is wrong
/// with the mapping.
pub fn options(
    mapping: &MappingOverride,
    limits: Limits,
    size_hint: Option<u64>,
) -> Result<Options, String> {
    Ok(Options {
        mapping: mapping.to_mapping()?,
        size_hint,
        max_file_bytes: limits.max_file_bytes,
        max_cells: limits.max_cells,
        ..Options::default()
    })
}

/// Groups parsed files into one data set (NumPy halves paired, several files
/// combined): calibscope-io's [`calibscope_io::assemble`], the same as the CLI's.
pub use calibscope_io::assemble;

/// The protocol's error message for parse errors.
pub fn parse_error_message(id: u64, errors: &ParseErrors) -> FromWorker {
    let items: Vec<ErrorItem> = errors
        .errors
        .iter()
        .map(|e| ErrorItem {
            code: e.code.code().to_string(),
            file: e.file.clone(),
            row: e.location.row,
            line: e.location.line,
            column: e.location.column.clone(),
            model: e.location.model.clone(),
            message: e.message.clone(),
            candidates: e
                .candidates
                .iter()
                .map(|c| CandidateItem {
                    says: c.says.clone(),
                    mapping: MappingOverride::from_mapping(&c.mapping),
                })
                .collect(),
        })
        .collect();
    let first = errors.errors.first();
    FromWorker::Error {
        id,
        code: first
            .map_or("unknown_format", |e| e.code.code())
            .to_string(),
        message: first.map_or_else(
            || "the input could not be read".to_string(),
            |e| e.to_string(),
        ),
        errors: items,
        more: errors.more,
        detected: errors.dataset.as_deref().and_then(summarize),
        columns: errors.columns.clone(),
    }
}

/// An error of the worker itself.
pub fn worker_error(id: u64, code: &str, message: impl Into<String>) -> FromWorker {
    FromWorker::Error {
        id,
        code: code.to_string(),
        message: message.into(),
        errors: Vec::new(),
        more: 0,
        detected: None,
        columns: Vec::new(),
    }
}

/// What was read and how (also for a data set whose values break the contract).
pub fn summarize(d: &Dataset) -> Option<Summary> {
    let first = &d.models.first()?.1;
    let n = first.n();
    let m_overview = M_OVERVIEW.min(n).max(1);
    let mut m_values = default_m_values(n);
    if !m_values.contains(&m_overview) {
        m_values.push(m_overview);
        m_values.sort_unstable();
    }
    let map = &d.detection.mapping;
    let score_columns = match &map.scores {
        None => String::new(),
        Some(ScoreColumns::Column(c)) => c.clone(),
        Some(ScoreColumns::Matrix(cols)) => match cols.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [a, .., b] => format!("{a} … {b} ({} columns)", cols.len()),
        },
        Some(ScoreColumns::TopLabel {
            predicted,
            confidence,
        }) => format!("{predicted} (predicted), {confidence} (confidence)"),
    };
    let pick = |p: &Pick| match p {
        Pick::Column(c) => Some(c.clone()),
        _ => None,
    };
    // a multilabel table's columns: one label and one score column per label
    let multilabel = d.detection.multilabel.as_ref();
    let (label_column, score_columns) = match multilabel {
        Some(m) => {
            let list = |f: fn(&calibscope_io::LabelPair) -> &String| {
                m.pairs
                    .iter()
                    .map(|p| f(p).as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            (Some(list(|p| &p.label)), list(|p| &p.score))
        }
        None => (map.label.clone(), score_columns),
    };
    Some(Summary {
        name: d.name.clone(),
        files: d.files.clone(),
        format: d.format.name().to_string(),
        kind: first.kind(),
        source: first.source(),
        n: first.n(),
        k: first.k,
        columns: first.columns(),
        models: d.models.iter().map(|m| m.0.clone()).collect(),
        class_names: d.class_names.clone(),
        all_columns: d.detection.columns.clone(),
        ignored: d.detection.ignored.clone(),
        label_column,
        score_columns,
        model_column: pick(&map.model),
        id_column: pick(&map.id),
        guesses: d
            .detection
            .guesses
            .iter()
            .map(|g| GuessItem {
                about: g.about.clone(),
                chose: g.chose.clone(),
                why: g.why.clone(),
            })
            .collect(),
        group_columns: d.groups.as_ref().map_or(Vec::new(), |g| g.columns.clone()),
        classwise_unavailable: d.detection.ragged.as_ref().map(|r| r.why_no_classwise()),
        multilabel: multilabel.map(|m| m.labels.len()),
        m_overview,
        m_max: n.clamp(1, M_SLIDER_MAX),
        m_values,
    })
}

/// One reading sorted once, with its Brier score.
struct Indexed {
    /// Sorted, with the grid that finds a slider step's equal-width bins in O(m).
    sorted: GriddedReading,
    brier: Option<f64>,
}

impl Indexed {
    fn new(pairs: &reading::Pairs) -> Self {
        Indexed {
            sorted: GriddedReading::new(SortedReading::new(pairs)),
            brier: binning::brier(pairs),
        }
    }
}

/// One model and its readings (class readings are built on first use).
struct Model {
    name: String,
    set: PredictionSet,
    accuracy: Option<f64>,
    confidence: Indexed,
    classes: Vec<Option<Indexed>>,
}

/// A loaded data set.
pub struct Session {
    dataset: Dataset,
    models: Vec<Model>,
    summary: Summary,
    flips_cache: crate::flips::FlipsCache,
    /// The reliability tables' Clopper–Pearson intervals, kept between slider steps.
    intervals: IntervalCache,
    /// The last recalibration (the Recalibrate view), kept for its tables and files.
    recal: Option<recal::RecalState>,
    /// The audits of [`Session::audits`], made once (the second stage adds to them).
    audits: std::cell::OnceCell<Vec<Value>>,
    /// An opened aggregate's models (then `models` is empty).
    aggregate: Option<Box<aggregate::AggregateState>>,
    /// The Slices view's groups and the last brush's bin index.
    slices: slices::SlicesCache,
    /// The flips noise's replicates by bin count, kept between slider steps.
    noise_memory: flips_noise::NoiseMemory,
}

impl Session {
    /// Indexes every model's confidence reading.
    pub fn new(mut dataset: Dataset) -> Session {
        let summary = summarize(&dataset).unwrap_or_default();
        let models = std::mem::take(&mut dataset.models)
            .into_iter()
            .map(|(name, set)| {
                let top = reading::top_labels(&set);
                let pairs = top.pairs();
                // class readings exist for every set with probability vectors
                let k = if set.kind() == Kind::TopLabel {
                    0
                } else {
                    set.k
                };
                Model {
                    name,
                    accuracy: calibscope_core::truthful::accuracy(&top),
                    confidence: Indexed::new(&pairs),
                    classes: (0..k).map(|_| None).collect(),
                    set,
                }
            })
            .collect();
        Session {
            dataset,
            models,
            summary,
            flips_cache: Default::default(),
            intervals: IntervalCache::new(DEFAULT_ALPHA),
            recal: None,
            audits: Default::default(),
            aggregate: None,
            slices: Default::default(),
            noise_memory: Default::default(),
        }
    }

    /// Number of samples.
    pub fn n(&self) -> usize {
        self.models.first().map_or(0, |m| m.set.n())
    }

    /// The overview's bin count: 15, or n when fewer samples.
    pub fn m_overview(&self) -> usize {
        M_OVERVIEW.min(self.n()).max(1)
    }

    /// The audit's bin counts: the fixtures' defaults plus the overview's, within the
    /// slider's range (the defaults include `m = n`, which on a large set costs the
    /// audit seconds and is never shown: 1.8 s of a 1M-row audit in the worker).
    pub fn m_values(&self) -> Vec<usize> {
        let m_max = self.n().clamp(1, M_SLIDER_MAX);
        let mut m = default_m_values(self.n());
        m.retain(|&m| m <= m_max);
        let over = self.m_overview();
        if !m.contains(&over) {
            m.push(over);
            m.sort_unstable();
        }
        m
    }

    /// The models' prediction sets and the ranking-flips view's cache.
    pub(crate) fn flips_parts(&mut self) -> (Vec<&PredictionSet>, &mut crate::flips::FlipsCache) {
        let sets = self.models.iter().map(|m| &m.set).collect();
        (sets, &mut self.flips_cache)
    }

    /// What was read and how.
    pub fn summary(&self) -> Summary {
        self.summary.clone()
    }

    /// One `calibscope-audit/1` document per model (no recalibration: the overview
    /// does not show it, and it is the slow part).
    pub fn audits(&self) -> Vec<Value> {
        self.audits.get_or_init(|| self.make_audits()).clone()
    }

    fn make_audits(&self) -> Vec<Value> {
        let options = AuditOptions {
            m_values: self.m_values(),
            recalibration: None,
            roc_max_n: 0,
        };
        let single = self.models.len() == 1;
        self.models
            .iter()
            .map(|m| {
                let file = if single {
                    match self.dataset.files.as_slice() {
                        [one] => one.clone(),
                        _ => self.dataset.name.clone(),
                    }
                } else {
                    m.name.clone()
                };
                let info = FileInfo {
                    file,
                    files: if single && self.dataset.files.len() > 1 {
                        self.dataset.files.clone()
                    } else {
                        Vec::new()
                    },
                    format: self.dataset.format.name().to_string(),
                };
                let mut doc = audit_json(&m.set, &info, &options);
                calibscope_audit::mark_detection(
                    &mut doc,
                    &self.dataset.detection,
                    single.then_some(&m.set),
                );
                doc
            })
            .collect()
    }

    /// The [`FromWorker::Opened`] message of this session.
    pub fn opened(&self, id: u64) -> FromWorker {
        FromWorker::Opened {
            id,
            summary: self.summary(),
            audits: self.audits(),
            inputs: Vec::new(),
        }
    }

    /// Answers a [`crate::proto::ToWorker::Compute`]: the reliability table of
    /// `reading` of `model` at `(binning, m)` and its ECE family, or a
    /// `BAD_PARAMETERS` error.
    pub fn compute(
        &mut self,
        id: u64,
        gen: u64,
        model: usize,
        reading: Reading,
        binning: Binning,
        m: usize,
    ) -> FromWorker {
        let table = match &self.aggregate {
            Some(a) => a.table(model, reading, binning, m),
            None => self.table(model, reading, binning, m),
        };
        match table {
            Err(msg) => worker_error(id, proto::codes::BAD_PARAMETERS, msg),
            Ok((rows, metrics, nonempty_bins)) => FromWorker::Computed {
                id,
                gen,
                model,
                reading,
                binning,
                m,
                rows,
                metrics,
                nonempty_bins,
            },
        }
    }

    /// The table, ECE family and non-empty bins of `reading` of `model` at
    /// `(binning, m)` from the rows.
    fn table(
        &mut self,
        model: usize,
        reading: Reading,
        binning: Binning,
        m: usize,
    ) -> Result<TableAnswer, String> {
        if m == 0 || m > M_SLIDER_MAX.max(2 * self.n()) {
            return Err(format!("bin count {m} is outside 1..{}", M_SLIDER_MAX));
        }
        let n = self.n();
        let Some(md) = self.models.get_mut(model) else {
            return Err(format!("no model {model}"));
        };
        let (index, is_conf) = match reading {
            Reading::Confidence => (&md.confidence, true),
            Reading::Positive | Reading::Class(_) => {
                let r = match reading {
                    Reading::Positive if md.set.kind() == Kind::Binary => 1,
                    Reading::Positive => {
                        return Err("the positive-class reading needs binary data".into())
                    }
                    Reading::Class(r) => r,
                    Reading::Confidence => unreachable!(),
                };
                if r >= md.classes.len() {
                    return Err(format!("no class reading {r} (top-label data has none)"));
                }
                if md.classes[r].is_none() {
                    let view =
                        ProbView::new(&md.set).expect("class readings need a probability view");
                    md.classes[r] = Some(Indexed::new(&reading::class_pairs(&view, r)));
                }
                (md.classes[r].as_ref().expect("built above"), false)
            }
        };
        let accuracy = is_conf.then_some(md.accuracy);
        // bounded: a few MB (~50 B an interval) however long the slider is used
        if self.intervals.len() > INTERVALS_KEPT {
            self.intervals.clear();
        }
        Ok(table(index, binning, m, n, accuracy, &mut self.intervals))
    }
}

/// A reliability table's rows, its ECE family and its number of non-empty bins (the
/// body of a [`FromWorker::Computed`]).
pub(crate) type TableAnswer = (Vec<Row>, Metrics, usize);

/// The reliability table of `index` at `(binning, m)`, its ECE family (with
/// ConfCE^corr when `confidence_accuracy` gives the confidence reading's accuracy) and
/// the number of non-empty bins. `n` is the number of samples.
/// Clopper–Pearson intervals the session keeps at most (then it starts afresh).
const INTERVALS_KEPT: usize = 100_000;

fn table(
    index: &Indexed,
    binning: Binning,
    m: usize,
    n: usize,
    confidence_accuracy: Option<Option<f64>>,
    intervals: &mut IntervalCache,
) -> TableAnswer {
    let (rows, t) = reliability_table_cached(&index.sorted, binning, m, intervals);
    let corrected = confidence_accuracy
        .map(|accuracy| calibscope_core::truthful::confce_corrected(t.lince, n, accuracy));
    let metrics = binned_metrics_json(&t, index.brier, corrected)
        .into_iter()
        .map(|(k, v)| (k, v.as_f64()))
        .collect();
    (rows, metrics, t.nonempty_bins)
}

#[cfg(test)]
mod tests {
    use super::*;
    use calibscope_io::Parser;

    use calibscope_test_support::shared;

    fn parse(
        path: &std::path::Path,
        slice: usize,
    ) -> (String, Result<calibscope_io::Parsed, ParseErrors>) {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut p = Parser::new(name.clone(), Options::default());
        for chunk in bytes.chunks(slice) {
            if p.push(chunk).is_err() {
                break;
            }
        }
        (name, p.finish_any())
    }

    fn close(got: f64, want: f64) -> bool {
        (got - want).abs() <= 1e-10 + 1e-9 * want.abs()
    }

    #[test]
    fn compute_matches_the_fixture_tables() {
        let shared = shared();
        let dir = shared.join("fixtures/real");
        for (file, expected) in [
            (
                "digits_logreg_C1_logits.csv",
                "digits_logreg_C1_logits.expected.json",
            ),
            ("breast_cancer_rf_p.csv", "breast_cancer_rf_p.expected.json"),
        ] {
            let ds = assemble(vec![parse(&dir.join(file), 4096)], &Options::default()).unwrap();
            let want: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join(expected)).unwrap())
                    .unwrap();
            let mut s = Session::new(ds);
            for binning in Binning::ALL {
                for m in want["m_values"].as_array().unwrap() {
                    let m = m.as_u64().unwrap() as usize;
                    let FromWorker::Computed { metrics, rows, .. } =
                        s.compute(1, 1, 0, Reading::Confidence, binning, m)
                    else {
                        panic!("compute failed")
                    };
                    let binning = binning.name();
                    let e = &want["readings"]["confidence"][binning][m.to_string()];
                    for key in [
                        "ece",
                        "mce",
                        "rmsce",
                        "lince",
                        "cal",
                        "ref",
                        "res",
                        "confce_corr",
                    ] {
                        let (g, w) = (metrics[key], e[key].as_f64());
                        match (g, w) {
                            (Some(g), Some(w)) => {
                                assert!(close(g, w), "{file} {binning} {m} {key}: {g} vs {w}")
                            }
                            (g, w) => assert_eq!(g, w, "{file} {binning} {m} {key}"),
                        }
                    }
                    if m == 10 {
                        let table = want["reliability"]["confidence"][format!("{binning}_10")]
                            .as_array()
                            .unwrap();
                        assert_eq!(table.len(), rows.len());
                        for (row, w) in rows.iter().zip(table) {
                            assert_eq!(row.n as u64, w["n"].as_u64().unwrap());
                            assert!(close(row.acc, w["acc"].as_f64().unwrap()));
                            assert!(close(row.conf, w["conf"].as_f64().unwrap()));
                            assert!(close(row.cp_lower, w["cp_lower"].as_f64().unwrap()));
                            assert!(close(row.cp_upper, w["cp_upper"].as_f64().unwrap()));
                        }
                    }
                }
            }
            // the overview's audit equals the fixture where both have a value
            let audit = &s.audits()[0];
            for path in [
                "binning_free.accuracy",
                "binning_free.nll",
                "beyond_ece.csr",
                "readings.confidence.width.15.ece",
            ] {
                let get = |v: &Value| {
                    path.split('.')
                        .try_fold(v, |v, k| v.get(k))
                        .and_then(|v| v.as_f64())
                };
                assert!(
                    close(get(audit).unwrap(), get(&want).unwrap()),
                    "{file} {path}"
                );
            }
        }
    }

    #[test]
    fn pairs_and_multi_files_assemble() {
        let shared = shared();
        let dir = shared.join("fixtures/real");
        let files = vec![
            parse(&dir.join("breast_cancer_mlp.probs.npy"), 1000),
            parse(&dir.join("breast_cancer_mlp.labels.npy"), 1000),
        ];
        let ds = assemble(files, &Options::default()).unwrap();
        assert_eq!(ds.name, "breast_cancer_mlp");
        assert_eq!(ds.models.len(), 1);
        let files = vec![
            parse(&dir.join("breast_cancer_rf_p.csv"), 1 << 20),
            parse(&dir.join("breast_cancer_gnb_p.csv"), 1 << 20),
        ];
        let ds = assemble(files, &Options::default()).unwrap();
        assert_eq!(ds.models.len(), 2);
        let s = Session::new(ds);
        assert_eq!(
            s.summary().models,
            ["breast_cancer_rf_p", "breast_cancer_gnb_p"]
        );
        // a lone half is an error naming its partner
        let lone = vec![parse(&dir.join("breast_cancer_mlp.probs.npy"), 1000)];
        let err = assemble(lone, &Options::default()).unwrap_err();
        assert_eq!(err.errors[0].code, calibscope_io::ErrorCode::NpyNeedsPair);
    }

    #[test]
    fn value_errors_still_say_what_was_read() {
        let shared = shared();
        let p = shared.join("fixtures/edge/edge_invalid_rowsum_probs.csv");
        let err = assemble(vec![parse(&p, 7)], &Options::default()).unwrap_err();
        let FromWorker::Error {
            code,
            errors,
            detected,
            ..
        } = parse_error_message(3, &err)
        else {
            panic!("an error message")
        };
        assert_eq!(code, "row_sum");
        assert_eq!(
            errors.iter().map(|e| e.row).collect::<Vec<_>>(),
            [Some(1), Some(3)]
        );
        let detected = detected.expect("the table was read");
        assert_eq!((detected.n, detected.k), (4, 3));
        assert_eq!(detected.label_column.as_deref(), Some("label"));
    }

    #[test]
    fn bad_requests_are_errors_not_panics() {
        let shared = shared();
        let p = shared.join("fixtures/synthetic/syn_uniform_perfect_n2000_s1_toplabel.csv");
        let ds = assemble(vec![parse(&p, 1 << 16)], &Options::default()).unwrap();
        let mut s = Session::new(ds);
        let width = Binning::Width;
        for (model, reading, m) in [
            (0, Reading::Class(0), 10),
            (0, Reading::Positive, 10),
            (1, Reading::Confidence, 10),
            (0, Reading::Confidence, 0),
        ] {
            assert!(matches!(
                s.compute(1, 1, model, reading, width, m),
                FromWorker::Error { .. }
            ));
        }
        // an unknown binning or reading is refused when the request is decoded
        for bad in [r#""weird""#, r#""class:x""#] {
            let text = format!(
                r#"{{"compute":{{"id":1,"gen":1,"model":0,"reading":{bad},"binning":{bad},"m":10}}}}"#
            );
            assert!(
                serde_json::from_str::<proto::ToWorker>(&text).is_err(),
                "{text}"
            );
        }
        assert!(matches!(
            s.compute(1, 1, 0, Reading::Confidence, Binning::Mass, 2000),
            FromWorker::Computed { .. }
        ));
    }
}
