//! Column mapping: what each column of a table (CSV header, JSON keys, `.npy` fields,
//! `.npz` members) means. Detection produces a [`ColumnMapping`]; a caller can pass one
//! (partly filled) to override any choice. The web app's mapping dialog and the CLI's
//! flags use this same type.

use calibscope_core::Source;

/// How to pick an optional column (model, id).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Pick {
    /// Detect by name.
    #[default]
    Auto,
    /// There is no such column (even if one has a recognised name).
    Absent,
    /// This column (name, case-insensitive).
    Column(String),
}

/// Which columns hold the scores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScoreColumns {
    /// One binary column: `P(y=1)` (probs) or a logit `s` (logits).
    Column(String),
    /// k columns, in class order (probabilities or logits). For `.npz` / `.npy`
    /// vector fields and JSON array values, one name of a 2-D array.
    Matrix(Vec<String>),
    /// Predicted class and its confidence.
    TopLabel {
        /// Predicted class column.
        predicted: String,
        /// Confidence column.
        confidence: String,
    },
}

/// A column mapping. Every `None` / [`Pick::Auto`] field is detected; the
/// [`crate::Detection`] of a parse holds the complete mapping that was used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnMapping {
    /// Field delimiter of text tables (`b','`, `b'\t'`, `b';'`, ...); `None`: sniffed
    /// from the header line.
    pub delimiter: Option<u8>,
    /// The label column.
    pub label: Option<String>,
    /// The score columns.
    pub scores: Option<ScoreColumns>,
    /// What the score columns hold: `Probs` or `Logits` (ignored for top-label).
    /// Overrides detection, e.g. the CLI's `--logits`.
    pub source: Option<Source>,
    /// Class names in class order; default: the suffixes of `p_<class>` columns.
    pub class_names: Option<Vec<String>>,
    /// The model column (long format).
    pub model: Pick,
    /// The sample id column.
    pub id: Pick,
    /// Grouping columns (issue 32): columns the mapping does not otherwise use whose
    /// values split the samples into groups (several: the cells of their
    /// intersection; see [`crate::Groups`]). Never detected in tables; empty: none,
    /// or the file's own grouping (an lm-evaluation-harness log's subject or task).
    pub groups: Vec<String>,
    /// No grouping at all, not even the file's own (set by a grouping named `none`;
    /// see [`ColumnMapping::set_groups`]).
    pub ungrouped: bool,
    /// Verbalised confidence (a stated-confidence column and a correctness column;
    /// see [`crate::verbal`]) read from these columns, whatever their names. `None`:
    /// detected from the header's names.
    pub verbal: Option<VerbalColumns>,
    /// A multilabel table (see [`crate::multilabel`]) read from these label/score
    /// column pairs, whatever their names. `None`: detected from the header's names.
    pub multilabel: Option<Vec<LabelPair>>,
}

/// One label of a multilabel table: its 0/1 column and its score column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelPair {
    /// The column saying whether the row has the label (`0`/`1`, `true`/`false`).
    pub label: String,
    /// The column of the model's probability (or logit) for the label.
    pub score: String,
}

/// The two columns of a verbalised-confidence table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerbalColumns {
    /// The stated confidence of each answer (fraction or percent; empty or NaN: the
    /// model abstained).
    pub confidence: String,
    /// Whether the answer was correct (`0`/`1`, `true`/`false`).
    pub correct: String,
}

impl ColumnMapping {
    /// Whether the mapping sets nothing but the grouping (so the columns' roles
    /// are detected, e.g. a verbalised-confidence table).
    pub(crate) fn only_grouping(&self) -> bool {
        *self
            == ColumnMapping {
                groups: self.groups.clone(),
                ungrouped: self.ungrouped,
                ..ColumnMapping::default()
            }
    }

    /// Sets the grouping from the names a person gave (`--group`, the page's form):
    /// trimmed, empty names dropped; the single name `none` (any case) turns every
    /// grouping off, including an lm-evaluation-harness log's automatic one.
    pub fn set_groups(&mut self, names: &[String]) {
        let names: Vec<String> = names
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        self.ungrouped = matches!(names.as_slice(), [one] if one.eq_ignore_ascii_case("none"));
        self.groups = if self.ungrouped { Vec::new() } else { names };
    }

    /// The grouping as a person gives it (what [`ColumnMapping::set_groups`] turns
    /// back into this mapping's): the column names, or `["none"]`.
    pub fn group_names(&self) -> Vec<String> {
        if self.ungrouped {
            vec!["none".to_string()]
        } else {
            self.groups.clone()
        }
    }
}

/// One choice detection made that a person may want to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guess {
    /// What was decided (`"scores"`, `"source"`, `"label"`, `"delimiter"`, ...).
    pub about: String,
    /// What was chosen.
    pub chose: String,
    /// Why.
    pub why: String,
}

/// What a parse took each column to be.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detection {
    /// The complete mapping used (pass it back, edited, to override).
    pub mapping: ColumnMapping,
    /// The columns (header, keys, fields or members) as found, in file order.
    pub columns: Vec<String>,
    /// Columns that were not used.
    pub ignored: Vec<String>,
    /// Choices between plausible readings, with reasons.
    pub guesses: Vec<Guess>,
    /// Set when the rows have different numbers of choices (an lm-evaluation-harness
    /// log of a task like ARC): the score matrix is padded (see [`Ragged`]).
    pub ragged: Option<Ragged>,
    /// Set for a verbalised-confidence table: its abstentions
    /// ([`crate::verbal::Selective`]).
    pub selective: Option<crate::verbal::Selective>,
    /// Set for a multilabel table: its labels and their columns
    /// ([`crate::multilabel::Multilabel`]).
    pub multilabel: Option<crate::multilabel::Multilabel>,
}

/// Rows with different numbers of choices, held in one `n × k_max` logit matrix:
/// row `i`'s choices are its first `choices[i]` columns; the others hold the
/// padding logit `max_j z_ij − RAGGED_GAP`, whose softmax weight is exactly 0 in
/// `f64` at every temperature of the contract's bracket (`exp(−100000 / 20)`
/// underflows to 0), so the top label, NLL, Brier, CSR and temperature scaling are
/// those of each row's own choices. Readings of one class position across rows
/// ("choice 3") have no meaning when rows differ in their choices: the audit says so
/// instead of giving them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ragged {
    /// Each row's number of choices.
    pub choices: Vec<u32>,
    /// The fewest choices of a row.
    pub min: u32,
    /// The most choices of a row (the matrix's width).
    pub max: u32,
}

/// How far below a ragged row's largest logit its padding logits lie (see
/// [`Ragged`]).
pub const RAGGED_GAP: f64 = 100_000.0;

impl Ragged {
    /// The sentence the audit gives instead of the classwise readings.
    pub fn why_no_classwise(&self) -> String {
        format!(
            "Classwise readings are not available: {}. The confidence reading, NLL, Brier score, CSR and temperature scaling use each question's own choices; the recalibration maps fitted per choice position (Platt, isotonic and the others) are left out.",
            self.why_positions_differ()
        )
    }

    /// Why a choice position names no class across rows (the clause every message
    /// about it shares).
    pub fn why_positions_differ(&self) -> String {
        format!(
            "the questions have between {} and {} choices, so a choice position (\"choice {}\") is not the same class from one question to the next",
            self.min, self.max, self.max
        )
    }
}

impl Detection {
    pub(crate) fn guess(&mut self, about: &str, chose: impl Into<String>, why: impl Into<String>) {
        self.guesses.push(Guess {
            about: about.to_string(),
            chose: chose.into(),
            why: why.into(),
        });
    }
}

pub(crate) fn norm(name: &str) -> String {
    name.trim().to_ascii_lowercase()
}

pub(crate) const LABEL_NAMES: &[&str] = &[
    "label",
    "labels",
    "y",
    "y_true",
    "target",
    "targets",
    "true",
    "class",
    "true_label",
];
pub(crate) const MODEL_NAMES: &[&str] = &["model", "model_name"];
pub(crate) const ID_NAMES: &[&str] = &["id", "ids", "sample_id", "idx"];
pub(crate) const PRED_NAMES: &[&str] = &[
    "yhat",
    "y_hat",
    "pred",
    "preds",
    "y_pred",
    "prediction",
    "predicted",
];
pub(crate) const CONF_NAMES: &[&str] = &["conf", "confidence"];
const BIN_PROB_NAMES: &[&str] = &[
    "p",
    "prob",
    "probs",
    "proba",
    "probas",
    "probability",
    "probabilities",
    "p1",
    "y_prob",
];
const BIN_LOGIT_NAMES: &[&str] = &["logit", "logits", "s"];
const BIN_AUTO_NAMES: &[&str] = &["score", "scores"];
/// Names of vector-valued columns (2-D npz members, `.npy` sub-array fields, JSON
/// array values).
const VEC_PROB_NAMES: &[&str] = &[
    "p",
    "prob",
    "probs",
    "proba",
    "probas",
    "probabilities",
    "predict_proba",
    "y_prob",
];
const VEC_LOGIT_NAMES: &[&str] = &["logit", "logits", "z", "scores", "score"];
const PROB_PREFIXES: &[&str] = &["p_", "prob_", "proba_", "probs_", "probability_", "pred_"];
/// Prefixes followed directly by a class index (`p0..p9`, `proba0`), as people name
/// `predict_proba` columns by hand.
const PROB_DIGIT_PREFIXES: &[&str] = &["proba", "prob", "pred", "p"];
const LOGIT_PREFIXES: &[&str] = &["logit_", "logits_", "z_"];

/// The source a vector-valued column's name implies.
pub(crate) fn vector_source(name: &str) -> Option<Source> {
    let n = norm(name);
    if VEC_PROB_NAMES.contains(&n.as_str()) {
        Some(Source::Probs)
    } else if VEC_LOGIT_NAMES.contains(&n.as_str()) {
        Some(Source::Logits)
    } else {
        None
    }
}

/// pandas' index column as `to_csv` writes it (an empty header) or as it comes
/// back from `read_csv(...).to_csv` (`Unnamed: 0`).
pub(crate) fn is_index_name(name: &str) -> bool {
    let n = norm(name);
    n.is_empty()
        || n.strip_prefix("unnamed: ")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// A column as seen by the planner: its name and its width (1 for a scalar column,
/// k for a vector-valued one).
#[derive(Clone, Debug)]
pub(crate) struct Col {
    pub name: String,
    pub width: usize,
}

/// Source of the score columns, possibly to be decided from the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SourceChoice {
    Known(Source),
    /// `score`: probabilities when every value is in [0, 1], else logits.
    Auto,
}

/// The resolved plan: indices into the column list.
#[derive(Clone, Debug)]
pub(crate) enum PlanScores {
    /// One scalar column.
    Column { col: usize, source: SourceChoice },
    /// k scalar columns in class order.
    Matrix { cols: Vec<usize>, source: Source },
    /// One vector-valued column of width k.
    Vector { col: usize, source: Source },
    /// Predicted class and confidence columns.
    TopLabel { pred: usize, conf: usize },
}

#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub label: usize,
    pub scores: PlanScores,
    pub model: Option<usize>,
    pub id: Option<usize>,
    /// The grouping columns, in the mapping's order.
    pub groups: Vec<usize>,
    /// Class names, in class order (empty: indices `0..k`).
    pub class_names: Vec<String>,
    pub detection: Detection,
    /// The score columns (and class names) were detected, not given by the mapping:
    /// errors they explain are summarised as one question ([`crate::ParseError::candidates`]).
    pub guessed: bool,
    /// The score columns are class-name columns (headers taken as class names
    /// because nothing else named scores).
    pub class_columns: bool,
    /// The models need not list the same samples ([`crate::Options::unaligned_models`]).
    pub unaligned_models: bool,
}

/// A planning failure: code + message (+ column).
#[derive(Clone, Debug)]
pub(crate) struct PlanError {
    pub code: crate::ErrorCode,
    pub message: String,
    pub column: Option<String>,
}

mod plan;
pub(crate) use plan::{order_family, plan, short_list, split_prefix};
