//! The view state: everything that defines what a calibscope view shows. Every
//! field has a default (a link names only what differs from it) and unknown fields
//! are ignored, so links stay readable when fields are added.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The app's views (the navigation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ViewId {
    #[default]
    Audit,
    Flips,
    Recalibrate,
    Learn,
    LabTruth,
    LabBeyond,
    /// Calibration per group (named last: links made before it stay as they were).
    Slices,
}

/// The binning of the binned metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BinningId {
    #[default]
    Width,
    Mass,
}

/// The recalibration method shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MethodId {
    #[default]
    Temperature,
    Platt,
    Isotonic,
    Beta,
    Histogram,
    #[serde(rename = "venn_abers")]
    VennAbers,
    Vector,
    Matrix,
    Dirichlet,
}

/// The colour theme.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

/// A user file, identified by its fingerprint (the data itself stays with the user).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileRef {
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the bytes, lowercase hex (see [`crate::sha256_hex`]).
    pub sha256: String,
}

/// A file carried inside the link (only when the user chose "include data in link").
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct EmbeddedFile {
    pub name: String,
    /// The bytes as text when they are UTF-8 (compresses well inside the link).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The bytes as standard base64 otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
}

/// Where the data of the view comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DataSource {
    /// No data (the app's start page).
    #[default]
    None,
    /// A bundled example, by its id.
    Example { id: String },
    /// User files, to be dropped again and checked against their fingerprints.
    Files { files: Vec<FileRef> },
    /// Data embedded in the link.
    Embedded { files: Vec<EmbeddedFile> },
}

/// How the input's columns were read (every `None` / empty field: detected): the
/// one mapping type of calibscope, shared with the CLI's flags and the app's panel.
pub use calibscope_io::MappingRequest as MappingState;

/// The [`ViewState::lab`] key of the Recalibrate view's switch "fit vector, matrix
/// and Dirichlet scaling" (`true` when asked for): a link fits them again, and a
/// record of the view carries them.
pub const RECAL_MULTICLASS: &str = "recal-multiclass";

impl ViewState {
    /// Whether the Recalibrate view's multiclass maps are asked for.
    pub fn recal_multiclass(&self) -> bool {
        self.lab.get(RECAL_MULTICLASS) == Some(&Value::Bool(true))
    }
}

/// Everything that defines a view. `ViewState::default()` is the app's start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ViewState {
    pub view: ViewId,
    /// Index of the model (multi-model inputs), in input order.
    pub model: usize,
    /// `confidence`, `classwise`, ... (the audit JSON's `readings` keys).
    pub reading: String,
    pub binning: BinningId,
    /// The bin count of the explorer.
    pub m: usize,
    /// A pinned reference bin count to compare against.
    pub pinned_m: Option<usize>,
    /// The metric family ranked by the flips view (`confce_corr`, `confece`, ...).
    pub metric: String,
    /// The bin counts compared by Spearman correlation in the flips view.
    pub spearman_bins: Vec<usize>,
    /// Seed of the stratified calibration/evaluation split.
    pub split_seed: u64,
    /// Fraction of each class in the calibration split.
    pub cal_fraction: f64,
    pub method: MethodId,
    /// Settings of the lab views (name → JSON value; new settings need no new version),
    /// and switches of other views kept here for the same reason
    /// ([`RECAL_MULTICLASS`]).
    pub lab: BTreeMap<String, Value>,
    pub theme: Theme,
    pub data: DataSource,
    pub mapping: MappingState,
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            view: ViewId::Audit,
            model: 0,
            reading: "confidence".into(),
            binning: BinningId::Width,
            m: 15,
            pinned_m: None,
            metric: "confce_corr".into(),
            spearman_bins: vec![5, 20, 2000],
            split_seed: 0,
            cal_fraction: 0.5,
            method: MethodId::Temperature,
            lab: BTreeMap::new(),
            theme: Theme::System,
            data: DataSource::None,
            mapping: MappingState::default(),
        }
    }
}

impl EmbeddedFile {
    /// Wraps bytes: as text when they are UTF-8, as base64 otherwise.
    pub fn new(name: &str, bytes: &[u8]) -> Self {
        use base64::Engine;
        match std::str::from_utf8(bytes) {
            Ok(text) => EmbeddedFile {
                name: name.into(),
                text: Some(text.into()),
                base64: None,
            },
            Err(_) => EmbeddedFile {
                name: name.into(),
                text: None,
                base64: Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
            },
        }
    }

    /// The bytes, or why they cannot be read.
    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        use base64::Engine;
        match (&self.text, &self.base64) {
            (Some(t), None) => Ok(t.as_bytes().to_vec()),
            (None, Some(b)) => base64::engine::general_purpose::STANDARD
                .decode(b)
                .map_err(|e| format!("the embedded file {} is not valid base64: {e}", self.name)),
            _ => Err(format!(
                "the embedded file {} must carry exactly one of text or base64",
                self.name
            )),
        }
    }
}
