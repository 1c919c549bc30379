//! The worker protocol: every message between the page and the worker, as JSON.
//!
//! The page posts `{json: "<ToWorker as JSON>", files: [File, ...]}` (the `File`
//! handles travel next to the JSON, never their bytes); the worker answers with a
//! `FromWorker` as a JSON string, or as `{json, rows}` when it carries a table
//! ([`FromWorker::to_wire`]: the rows as bytes), on the `BroadcastChannel` of
//! [`ANSWER_CHANNEL_PREFIX`]. The first message of a worker is always
//! [`FromWorker::Ready`] with [`PROTOCOL`]; the page refuses a worker that speaks
//! another version.
//!
//! Both enums, and the labs' and the flips view's requests and answers inside them,
//! are externally tagged (`{"open": {"id": 3}}`): serde reads such a message in one
//! pass, where an internally tagged one (`{"type": "open", ...}`) is first buffered
//! whole into serde's `Content` tree, which costs time on large answers and code:
//! ~12 KB gzipped for these two enums, and 15 KB for the labs' and flips' four.
//!
//! Every request carries an `id`, echoed by its answers. Computations carry a
//! generation `gen`: the page keeps only the answer of its latest generation (a
//! slider that moved on drops what it asked before). Errors carry a stable `code`
//! ([`codes`] and calibscope-io's `ErrorCode::code`) that the page maps to text.

use std::collections::BTreeMap;

use calibscope_audit::Method;
use calibscope_core::binning::Binning;
use calibscope_core::{Kind, Source};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

pub mod flips;
pub mod labs;
pub mod packed;
pub mod recal;
pub mod slices;

pub use recal::RecalView;

/// The message a worker posts when its allocator fails (wasm32's 4 GiB are used up),
/// just before the module aborts: a [`FromWorker::Panic`] written out in advance,
/// because nothing can be allocated to serialise one at that moment.
pub const OUT_OF_MEMORY: &str = r#"{"panic":{"message":"out of memory: the worker could not allocate more memory (a browser tab has about 4 GB for it), so this data set is too large for the page. Lower the limits under “Limits” to have such files refused up front, or audit the file with the calibscope command-line tool."}}"#;

/// The start of the name of the `BroadcastChannel` a worker answers on (the page
/// gives each worker its own name, `WorkerOptions.name`). Chromium holds messages
/// posted to the page (a worker's `postMessage`, `MessagePort`s) after a key press or
/// a click until the frame that follows it is drawn (its `DeferRendererTasksAfterInput`
/// scheduling), so an answer that was ready within ~2 ms reached the page ~12–15 ms
/// later and showed a frame later still; a `BroadcastChannel`'s messages are not held
/// (measured on Chromium 156, BENCHMARKS.md). Answers on it keep
/// their order; the page listens on both, and a worker without the channel posts.
pub const ANSWER_CHANNEL_PREFIX: &str = "calibscope-answers-";

/// Version of this protocol; bumped on any incompatible change.
pub const PROTOCOL: u32 = 5;

/// Stable error codes of the worker itself (parse errors use calibscope-io's codes).
pub mod codes {
    /// The request could not be decoded.
    pub const BAD_REQUEST: &str = "bad_request";
    /// A computation was asked before any data set was opened.
    pub const NO_DATASET: &str = "no_dataset";
    /// A file could not be read by the browser.
    pub const READ_FAILED: &str = "read_failed";
    /// A model, reading or bin count that the data set does not have.
    pub const BAD_PARAMETERS: &str = "bad_parameters";
    /// A column mapping that cannot be used (e.g. a two-character delimiter).
    pub const BAD_MAPPING: &str = "bad_mapping";
    /// The worker panicked (a bug): the page offers to restart it.
    pub const PANIC: &str = "panic";
}

/// How the page may correct what detection chose (empty fields: detect): the same
/// type as the CLI's mapping flags, [`calibscope_io::MappingRequest`].
pub type MappingOverride = calibscope_io::MappingRequest;

/// The size limits of a read (calibscope-io's `max_file_bytes` and `max_cells`): a
/// file or a data set over them is refused with a clear error before its memory is
/// reserved. The defaults keep a tab well inside wasm32's 4 GiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    pub max_file_bytes: u64,
    pub max_cells: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 2_000_000_000,
            max_cells: 200_000_000,
        }
    }
}

/// A message to the worker (short-lived: serialised at once, so the size difference
/// of the variants does not matter).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToWorker {
    /// Read the files posted with this message (replaces the current data set).
    Open {
        id: u64,
        #[serde(default)]
        mapping: MappingOverride,
        #[serde(default)]
        limits: Limits,
    },
    /// Stop reading the files of request `id`.
    Cancel { id: u64 },
    /// Make the worker panic (tests of the crash path).
    DebugPanic { id: u64 },
    /// Make the worker run out of memory (tests of the out-of-memory path).
    DebugOutOfMemory { id: u64 },
    /// The reliability table and ECE family of one reading at `(binning, m)`.
    Compute {
        id: u64,
        gen: u64,
        model: usize,
        reading: Reading,
        binning: Binning,
        m: usize,
    },
    /// A question of the ranking-flips view (its own generations per kind).
    Flips {
        id: u64,
        gen: u64,
        request: flips::FlipsRequest,
    },
    /// Split model `model` (SplitMix64 `seed`, calibration `fraction`), fit temperature,
    /// Platt and isotonic on the calibration split and measure them on the evaluation
    /// split (the Recalibrate view).
    Recalibrate {
        id: u64,
        gen: u64,
        model: usize,
        seed: u64,
        fraction: f64,
    },
    /// The reliability tables of the last recalibration's evaluation split, before and
    /// after each method, at `(binning, m)`.
    RecalTables {
        id: u64,
        gen: u64,
        binning: Binning,
        m: usize,
    },
    /// The last recalibration's files for `method`: recalibrated predictions (CSV)
    /// and fitted parameters (JSON).
    RecalExport { id: u64, method: Method },
    /// Fit the multiclass maps (vector scaling, matrix scaling, Dirichlet
    /// calibration with its ODIR search) on the split of the recalibration of
    /// generation `gen` (which must be complete); answered by
    /// [`FromWorker::LabProgress`] messages (fits done of all) and one
    /// [`FromWorker::Recalibrated`] holding them, or `Cancelled` (a newer fit, a
    /// new data set, or a cancel).
    RecalMulticlass { id: u64, gen: u64 },
    /// A computation of the Learn tour or a lab ([`crate::labs`]); answered by
    /// [`FromWorker::LabProgress`] messages and one [`FromWorker::LabResult`] or error.
    Lab { id: u64, request: labs::LabRequest },
    /// The `calibscope-record/1` of the open data set, with the page's settings and
    /// the opened files' fingerprints.
    Record {
        id: u64,
        settings: calibscope_share::ViewState,
        inputs: Vec<calibscope_share::FileRef>,
        /// The ranking-flips view's controls: the record's `tables.flips` section
        /// (data sets of two or more models).
        #[serde(default)]
        flips: Option<calibscope_audit::FlipsSettings>,
    },
    /// Verify a record: among the posted files, the record (JSON or an HTML report
    /// holding one) and the data files it was made from.
    Verify { id: u64 },
    /// The audit's second stage on the open data set: the binning-free estimators,
    /// the calibration tests, the seeded paired bootstrap's intervals and the
    /// verdicts; answered by [`FromWorker::LabProgress`] messages (replicates done)
    /// and one [`FromWorker::Bootstrapped`], or `Cancelled`.
    Bootstrap {
        id: u64,
        /// Replicates (1000 by default; 0: the point values without intervals).
        replicates: usize,
        seed: u64,
        /// Intervals at level `1 - alpha`.
        alpha: f64,
    },
    /// The binning-free diagrams' data of model `model`'s confidence reading (the
    /// smooth reliability curve and the cumulative differences); answered by
    /// [`FromWorker::Diagrams`].
    Diagrams { id: u64, model: usize },
    /// Calibration per group (the Slices view); answered by two
    /// [`FromWorker::Slices`]: the table, then the permutation test.
    Slices {
        id: u64,
        gen: u64,
        request: slices::SlicesRequest,
    },
    /// The rows of one bin (brushing); answered by [`FromWorker::Brushed`].
    Brush {
        id: u64,
        gen: u64,
        request: slices::BrushRequest,
    },
    /// The ranking-flips view's flips against noise (a paired bootstrap run in
    /// slices); answered by [`FromWorker::LabProgress`] messages (replicates done) and
    /// one [`FromWorker::FlipsNoise`], or `Cancelled`.
    FlipsNoise {
        id: u64,
        request: flips::FlipsNoiseRequest,
    },
}

/// How a recorded value compares with its recomputation (calibscope-audit's
/// `record::Status` without its values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    /// The same value.
    Identical,
    /// Equal up to floating-point rounding: verified.
    Rounding,
    /// Moved only because a definition of the metric contract changed since the
    /// record was written: verified (the item's `note` says which).
    Definition,
    /// Different values.
    Differs,
    /// In the record, not in the recomputation.
    Missing,
    /// In the recomputation, not in the record.
    Extra,
}

impl CheckStatus {
    /// The protocol name (`identical`, `rounding`, …; the page's `data-status`).
    pub fn name(self) -> &'static str {
        match self {
            CheckStatus::Identical => "identical",
            CheckStatus::Rounding => "rounding",
            CheckStatus::Definition => "definition",
            CheckStatus::Differs => "differs",
            CheckStatus::Missing => "missing",
            CheckStatus::Extra => "extra",
        }
    }

    /// Identical, equal up to rounding or moved only by a definition change.
    pub fn verified(self) -> bool {
        matches!(
            self,
            CheckStatus::Identical | CheckStatus::Rounding | CheckStatus::Definition
        )
    }
}

/// One compared value of a verified record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckItem {
    pub path: String,
    pub status: CheckStatus,
    /// The recorded value as compact JSON text (`None`: not in the record).
    pub recorded: Option<String>,
    /// The recomputed value as compact JSON text (`None`: not recomputed).
    pub recomputed: Option<String>,
    /// The sentence of a `definition` check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One reliability table of the Recalibrate view: the evaluation split before
/// (`set = "before"`) or after a method.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecalTable {
    /// `before`, `temperature`, `platt` or `isotonic`.
    pub set: String,
    pub rows: Vec<Row>,
    /// ECE family (as [`FromWorker::Computed`]'s `metrics`).
    pub metrics: Metrics,
    pub nonempty_bins: usize,
    /// Why this method is undefined (then no rows).
    #[serde(default)]
    pub undefined: Option<String>,
}

/// An ECE family by the audit JSON's names (`ece`, `mce`, `rmsce`, `lince`, `brier`,
/// `cal`, `ref`, `res`; + `confce`, `confce_corr`, `confece` for the confidence
/// reading); `None` where undefined.
pub type Metrics = BTreeMap<String, Option<f64>>;

/// One error, located.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorItem {
    pub code: String,
    pub file: String,
    #[serde(default)]
    pub row: Option<u64>,
    #[serde(default)]
    pub line: Option<u64>,
    #[serde(default)]
    pub column: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    pub message: String,
    /// Mappings that would read the file as the message asks ("did you mean ...?").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<CandidateItem>,
}

/// A mapping offered in answer to a reading the labels contradict.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CandidateItem {
    /// What it reads (`10 classes p0, p1, p2, …, p9`).
    pub says: String,
    pub mapping: MappingOverride,
}

/// A choice detection made.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GuessItem {
    pub about: String,
    pub chose: String,
    pub why: String,
}

/// What was read and how the columns were taken.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Data set name (file stem, pair stem or combined name).
    pub name: String,
    pub files: Vec<String>,
    /// `csv`, `csv-long`, `json`, `npy`, `npy-pair`, `npz`, `multi-file`.
    pub format: String,
    pub kind: Kind,
    pub source: Source,
    pub n: usize,
    pub k: usize,
    pub columns: usize,
    pub models: Vec<String>,
    pub class_names: Vec<String>,
    /// Columns as found, in file order.
    pub all_columns: Vec<String>,
    pub ignored: Vec<String>,
    pub label_column: Option<String>,
    /// The score columns, as a person reads them (`p_0..p_9`, `logit`, ...).
    pub score_columns: String,
    pub model_column: Option<String>,
    pub id_column: Option<String>,
    pub guesses: Vec<GuessItem>,
    /// The grouping columns (empty: not grouped).
    #[serde(default)]
    pub group_columns: Vec<String>,
    /// Why the classwise readings are not offered (rows with different numbers of
    /// choices: an lm-evaluation-harness log of a task like ARC), else `None`.
    #[serde(default)]
    pub classwise_unavailable: Option<String>,
    /// A multilabel table's number of labels (each row is that many binary
    /// predictions; `n` counts the pairs), else `None`.
    #[serde(default)]
    pub multilabel: Option<usize>,
    /// The bin count of the overview's ECE family.
    pub m_overview: usize,
    /// The slider's largest bin count, `min(n, 2000)`.
    pub m_max: usize,
    /// The audit's bin counts.
    pub m_values: Vec<usize>,
}

impl Default for Summary {
    /// The summary of a data set without models (binary probabilities, no rows).
    fn default() -> Summary {
        Summary {
            name: String::new(),
            files: Vec::new(),
            format: String::new(),
            kind: Kind::Binary,
            source: Source::Probs,
            n: 0,
            k: 0,
            columns: 0,
            models: Vec::new(),
            class_names: Vec::new(),
            all_columns: Vec::new(),
            ignored: Vec::new(),
            label_column: None,
            score_columns: String::new(),
            model_column: None,
            id_column: None,
            guesses: Vec::new(),
            group_columns: Vec::new(),
            classwise_unavailable: None,
            multilabel: None,
            m_overview: 0,
            m_max: 0,
            m_values: Vec::new(),
        }
    }
}

/// One non-empty bin of a reliability table: calibscope-core's row (`lower`/`upper`
/// are the audit JSON's `lower_edge`/`upper_edge` for equal-width, `u_min`/`u_max`
/// for equal-mass).
pub use calibscope_core::reliability::ReliabilityRow as Row;

/// A message from the worker (short-lived: serialised at once, so the size
/// difference of the variants does not matter).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromWorker {
    /// The handshake: first message of every worker.
    Ready { proto: u32, build: String },
    /// Reading progress of request `id`.
    Progress {
        id: u64,
        file: String,
        file_index: usize,
        files: usize,
        bytes_read: u64,
        bytes_total: u64,
    },
    /// A data set was read: its summary and one audit (`calibscope-audit/1`) per model.
    Opened {
        id: u64,
        summary: Summary,
        audits: Vec<Value>,
        /// Each file's name, size and SHA-256, hashed while it was read.
        #[serde(default)]
        inputs: Vec<calibscope_share::FileRef>,
    },
    /// The answer to [`ToWorker::Compute`].
    Computed {
        id: u64,
        gen: u64,
        model: usize,
        reading: Reading,
        binning: Binning,
        m: usize,
        /// Not in the JSON: the rows travel beside it as bytes ([`FromWorker::to_wire`]).
        #[serde(skip)]
        rows: Vec<Row>,
        /// ECE family at `(binning, m)`: `ece, mce, rmsce, lince, brier, cal, ref, res`
        /// (+ `confce, confce_corr, confece` for the confidence reading); `null` when
        /// undefined.
        metrics: Metrics,
        nonempty_bins: usize,
    },
    /// The answer to [`ToWorker::Flips`].
    Flips {
        id: u64,
        gen: u64,
        answer: flips::FlipsAnswer,
    },
    /// The answer to [`ToWorker::Recalibrate`]: the audit JSON's `recalibration`
    /// section (`section`, as in the fixtures: a part of the calibscope-audit/1
    /// document, which has its own versioned schema) and what the view draws
    /// ([`RecalView`]: class counts of the split, the tau curve, every method's
    /// probability checks and fitted maps).
    Recalibrated {
        id: u64,
        gen: u64,
        model: usize,
        seed: u64,
        fraction: f64,
        /// False for the first part (split and temperature scaling; Platt and
        /// isotonic "not computed yet"); the second part follows with the same id.
        #[serde(default)]
        complete: bool,
        section: Value,
        view: RecalView,
    },
    /// The answer to [`ToWorker::RecalTables`] (read on the evaluation split:
    /// `positive` for binary input, else `confidence`).
    RecalTables {
        id: u64,
        gen: u64,
        binning: Binning,
        m: usize,
        reading: Reading,
        tables: Vec<RecalTable>,
    },
    /// The answer to [`ToWorker::RecalExport`].
    RecalExport {
        id: u64,
        method: Method,
        /// Suggested file name stem (`<data set>_<method>`).
        stem: String,
        csv: String,
        params: String,
    },
    /// Progress of lab request `id`: `done` of `total` repetitions.
    LabProgress { id: u64, done: usize, total: usize },
    /// The answer to [`ToWorker::Lab`].
    LabResult { id: u64, answer: labs::LabAnswer },
    /// The answer to [`ToWorker::Record`]: the record's JSON text, as it is
    /// downloaded (pretty-printed, ending in a newline).
    Record { id: u64, record: String },
    /// The answer to [`ToWorker::Bootstrap`]: the `Opened` audits (one per model)
    /// with the values of the second stage in place.
    Bootstrapped { id: u64, audits: Vec<Value> },
    /// The answer to [`ToWorker::Diagrams`]: calibscope-audit's
    /// `beyond_binning::diagram_tables` of the model (`{"confidence": {"smooth",
    /// "cumulative"}}`, as a record's `tables.binning_free`).
    Diagrams {
        id: u64,
        model: usize,
        tables: Value,
    },
    /// The answer to [`ToWorker::Slices`] (`complete`: with the test).
    Slices {
        id: u64,
        gen: u64,
        complete: bool,
        answer: slices::SlicesAnswer,
    },
    /// The answer to [`ToWorker::Brush`].
    Brushed {
        id: u64,
        gen: u64,
        answer: slices::BrushAnswer,
    },
    /// The answer to [`ToWorker::Verify`].
    Verified {
        id: u64,
        /// The record's file name and who wrote it.
        record_file: String,
        producer: String,
        checks: Vec<CheckItem>,
        /// Recorded tables that are not recomputed (named, not compared).
        notes: Vec<String>,
    },
    /// The answer to [`ToWorker::FlipsNoise`].
    FlipsNoise { id: u64, answer: flips::FlipsNoise },
    /// Request `id` was cancelled.
    Cancelled { id: u64 },
    /// Request `id` failed.
    Error {
        id: u64,
        code: String,
        message: String,
        #[serde(default)]
        errors: Vec<ErrorItem>,
        #[serde(default)]
        more: usize,
        /// What was read, when the file could be read but its values break the
        /// contract (so the mapping panel can offer a correction).
        #[serde(default)]
        detected: Option<Summary>,
        /// The columns of a header that could not be mapped (so the mapping panel
        /// can offer them).
        #[serde(default)]
        columns: Vec<String>,
    },
    /// The worker panicked; it cannot be used any more.
    Panic { message: String },
}

impl FromWorker {
    /// The request this message is about (`None`: the handshake, a panic). The page
    /// routes every message to the one that asked by it.
    pub fn id(&self) -> Option<u64> {
        match self {
            FromWorker::Ready { .. } | FromWorker::Panic { .. } => None,
            FromWorker::Progress { id, .. }
            | FromWorker::Opened { id, .. }
            | FromWorker::Computed { id, .. }
            | FromWorker::Flips { id, .. }
            | FromWorker::Recalibrated { id, .. }
            | FromWorker::RecalTables { id, .. }
            | FromWorker::RecalExport { id, .. }
            | FromWorker::LabProgress { id, .. }
            | FromWorker::LabResult { id, .. }
            | FromWorker::Record { id, .. }
            | FromWorker::Verified { id, .. }
            | FromWorker::Bootstrapped { id, .. }
            | FromWorker::Diagrams { id, .. }
            | FromWorker::FlipsNoise { id, .. }
            | FromWorker::Slices { id, .. }
            | FromWorker::Brushed { id, .. }
            | FromWorker::Cancelled { id }
            | FromWorker::Error { id, .. } => Some(*id),
        }
    }

    /// The JSON text of this message (without the rows of a
    /// [`FromWorker::Computed`]: see [`FromWorker::to_wire`]).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("protocol messages serialise")
    }

    /// The message as it travels: its JSON text and, for a [`FromWorker::Computed`]
    /// with rows, the rows packed as bytes ([`crate::packed`]), which the worker posts
    /// beside the text. At m = 2000 the rows are ~140 KB; as bytes they are copied
    /// once each way, where JSON (or base64 in it) had them encoded in the worker,
    /// converted between UTF-16 and UTF-8 on both sides and decoded on the page.
    pub fn to_wire(&self) -> (String, Option<Vec<u8>>) {
        let bytes = match self {
            FromWorker::Computed { rows, .. } if !rows.is_empty() => Some(packed::pack(rows)),
            _ => None,
        };
        (self.to_json(), bytes)
    }

    /// The message of [`FromWorker::to_wire`]'s parts. Errors: the text is not a
    /// message, or the bytes are not whole rows, or they came with a message that has
    /// no rows.
    pub fn from_wire(json: &str, rows: Option<&[u8]>) -> Result<FromWorker, String> {
        let mut msg: FromWorker = serde_json::from_str(json).map_err(|e| e.to_string())?;
        if let Some(bytes) = rows {
            let FromWorker::Computed { rows, .. } = &mut msg else {
                return Err("rows beside a message that has none".into());
            };
            *rows = packed::unpack(bytes).ok_or("packed rows: not a whole number of rows")?;
        }
        Ok(msg)
    }
}

/// A reading of a model; on the wire by its name (`confidence`, `positive`,
/// `class:R`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reading {
    Confidence,
    Positive,
    Class(usize),
}

impl Reading {
    /// Parses `confidence`, `positive`, `class:R`.
    pub fn parse(s: &str) -> Option<Reading> {
        match s {
            "confidence" => Some(Reading::Confidence),
            "positive" => Some(Reading::Positive),
            _ => s.strip_prefix("class:")?.parse().ok().map(Reading::Class),
        }
    }

    /// The protocol name.
    pub fn name(self) -> String {
        match self {
            Reading::Confidence => "confidence".into(),
            Reading::Positive => "positive".into(),
            Reading::Class(r) => format!("class:{r}"),
        }
    }
}

impl Serialize for Reading {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Reading {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Reading, D::Error> {
        let name = String::deserialize(d)?;
        Reading::parse(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown reading {name:?} (confidence, positive or class:R)"
            ))
        })
    }
}

#[cfg(test)]
mod tests;
