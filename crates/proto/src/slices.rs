//! The Slices view's requests and answers (issue 32): calibration per group of a
//! grouped data set ([`SlicesAnswer`], the audit JSON's `groups` and `worst_group`
//! without each group's full audit) and the rows of one bin of a reliability
//! diagram, of the whole set or of one group ([`BrushAnswer`]).

use calibscope_core::binning::Binning;
use serde::{Deserialize, Serialize};

use crate::{Reading, Row};

/// What the Slices view asks: the groups of model `model` at `(binning, m)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlicesRequest {
    pub model: usize,
    pub binning: Binning,
    pub m: usize,
    /// Groups with fewer samples are too small for a statement.
    pub min_size: usize,
    /// Permutations of the test (0: no test).
    pub permutations: usize,
    pub seed: u64,
}

/// One group's row of the Slices table (the audit JSON's `groups.values[i]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SliceGroup {
    /// Its name (`values` joined by `" · "`).
    pub group: String,
    /// Its value in each grouping column.
    pub values: Vec<String>,
    pub n: usize,
    pub too_small: bool,
    pub accuracy: Option<f64>,
    /// ECE of the confidence reading at the request's `(binning, m)`.
    pub ece: Option<f64>,
    /// Smooth ECE of the confidence reading.
    pub smece: Option<f64>,
    pub csr: Option<f64>,
    pub p_risk: Option<f64>,
    /// The group's reliability table at `(binning, m)` (its small multiple).
    pub rows: Vec<Row>,
    /// Its verdict (the audit JSON's `groups.values[i].audit.verdict`): sent with
    /// the test, `None` before it or without a verdict.
    #[serde(default)]
    pub verdict: Option<GroupVerdict>,
}

/// A group's verdict: calibscope-audit's `verdict` object (the keys the page shows).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupVerdict {
    /// The sentence, e.g. "Overconfident: confidence exceeds accuracy by …".
    pub text: String,
    /// `no_evidence`, `overconfident`, `underconfident` or `miscalibrated_in_places`.
    pub kind: String,
    /// Mean confidence minus accuracy, and its bootstrap interval.
    pub d: Option<f64>,
    pub d_interval: [Option<f64>; 2],
    /// The cumulative-differences test's p-value.
    pub p: Option<f64>,
}

/// The answer of a [`SlicesRequest`] (the test comes in a second part).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SlicesAnswer {
    pub model: usize,
    pub binning: Option<Binning>,
    pub m: usize,
    pub min_size: usize,
    pub seed: u64,
    /// The grouping columns (empty: the data set is not grouped).
    pub columns: Vec<String>,
    pub groups: Vec<SliceGroup>,
    /// The worst eligible group (index into `groups`).
    pub worst: Option<usize>,
    /// Largest minus smallest ECE of the eligible groups.
    pub spread: Option<f64>,
    /// Whether the permutation test has run (`p_value`, `exceed`, `permutations`).
    pub tested: bool,
    pub p_value: Option<f64>,
    pub exceed: usize,
    pub permutations: usize,
    pub eligible_groups: usize,
}

/// What a brush asks: the rows of bin `bin` of a reliability diagram of model
/// `model` (of group `group`'s samples alone, or of every sample), a page of them or
/// all of them as CSV.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BrushRequest {
    pub model: usize,
    pub reading: Reading,
    pub binning: Binning,
    pub m: usize,
    pub bin: usize,
    #[serde(default)]
    pub group: Option<usize>,
    /// The first row of the page (in sample order).
    pub offset: usize,
    /// Rows per page.
    pub limit: usize,
    /// Answer every row of the bin as CSV text instead of a page.
    #[serde(default)]
    pub csv: bool,
}

/// One brushed sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BrushRow {
    /// Its sample number (1 = the first data row).
    pub row: usize,
    /// Its id, when the data set has an id column.
    pub id: Option<String>,
    pub label: String,
    pub prediction: String,
    /// The reading's forecast (the confidence for the confidence reading).
    pub forecast: f64,
    /// Its value in each grouping column.
    pub groups: Vec<String>,
}

/// The answer of a [`BrushRequest`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BrushAnswer {
    pub model: usize,
    pub reading: Option<Reading>,
    pub binning: Option<Binning>,
    pub m: usize,
    pub bin: usize,
    pub group: Option<usize>,
    /// Rows in the bin.
    pub total: usize,
    pub offset: usize,
    pub rows: Vec<BrushRow>,
    /// The grouping columns (the names of `BrushRow::groups`).
    pub group_columns: Vec<String>,
    pub has_id: bool,
    /// Every row of the bin as CSV (when asked for).
    pub csv: Option<String>,
}
