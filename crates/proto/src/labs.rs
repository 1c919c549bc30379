//! The Learn tour's and the labs' questions and answers (the worker's
//! `calibscope_engine::labs::run` answers them with the core).

use calibscope_core::binning::Binning;
use calibscope_core::lab::{self, McMean};
use serde::{Deserialize, Serialize};

use crate::Row;

/// A lab computation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabRequest {
    /// Seed 000's three-class example: expectations and simulation per strategy.
    Truth {
        p_star: Vec<f64>,
        temperature: f64,
        grid: u32,
        n: usize,
        m: usize,
        binning: Binning,
        reps: usize,
        seed: u64,
    },
    /// The exact-conditioning example at each `n` of `ns` (and the truthful
    /// forecaster binned with `m` equal-width bins).
    ExactConditioning {
        ns: Vec<usize>,
        m: usize,
        reps: usize,
        seed: u64,
    },
    /// One run of a synthetic generator cell (METRICS.md §7).
    Generate {
        dist: String,
        mode: String,
        n: usize,
        m: usize,
        seed: u64,
    },
    /// Table 5 style summary of a cell over repetitions.
    Repeat {
        dist: String,
        mode: String,
        n: usize,
        reps: usize,
        seed: u64,
    },
    /// The summary for every distribution of one mode (Table 5's layout).
    RepeatTable {
        mode: String,
        n: usize,
        reps: usize,
        seed: u64,
    },
    /// The paper's Tables 5, 8 and 9, every cell beside ours (100 repetitions per
    /// row, repetition `r` seeded with `seed + r`).
    Reproduce { seed: u64 },
    /// ECE < 1/N and CSR > Λ.
    Counterexample {
        n: usize,
        lambda: f64,
        p: f64,
        m: usize,
    },
    /// The tour's rain forecaster: calibrated probabilities bent by `sharpness`
    /// (`sigmoid(sharpness · logit p)`), or the constant base rate.
    Forecaster {
        n: usize,
        m: usize,
        sharpness: f64,
        base_rate: bool,
        reps: usize,
        seed: u64,
    },
    /// A Clopper–Pearson interval.
    Interval { successes: u64, n: u64, alpha: f64 },
}

/// A Monte-Carlo mean and its standard error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Mc {
    pub mean: f64,
    pub se: f64,
}

impl From<McMean> for Mc {
    fn from(m: McMean) -> Mc {
        Mc {
            mean: m.mean,
            se: m.se,
        }
    }
}

/// One strategy of the truthfulness lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthRow {
    /// `honest`, `uniform`, `temperature`, `coarse` (the `data-metric` key).
    pub key: String,
    pub confidence: f64,
    pub q: f64,
    pub expected_confce: f64,
    pub expected_confce_corr: f64,
    pub sim_confce: Mc,
    pub sim_confce_corr: Mc,
}

/// One `n` of the exact-conditioning plot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EcPoint {
    pub n: usize,
    pub truthful: f64,
    pub constant: f64,
    pub sim_truthful: Mc,
    pub sim_constant: Mc,
    /// The truthful forecaster with `m` equal-width bins (simulated).
    pub sim_binned: Mc,
}

/// CSR, σ, P_risk, cwA, gain and accuracy (`None`: undefined): the core's own type,
/// which serialises under the same field names.
pub use calibscope_core::beyond::RiskMetrics as Risk;

/// A point of the ROC (`fpr`, `tpr`) and cwROC (`cw_fpr`, `cw_tpr`) curves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RocXY {
    pub fpr: f64,
    pub tpr: f64,
    pub cw_fpr: f64,
    pub cw_tpr: f64,
}

/// Table 5 style summary (fractions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary5 {
    pub reps: usize,
    pub acc: Mc,
    pub cwa: Mc,
    pub gain: Mc,
    pub csr: Mc,
    pub sigma_csr: Mc,
    pub beyond_1sigma: f64,
    pub beyond_3sigma: f64,
    pub p_risk: Mc,
}

/// One distribution of [`LabAnswer::RepeatTable`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// The distribution's id.
    pub dist: String,
    pub summary: Summary5,
    /// Table 5's row, when the paper prints one (Perfect, N = 100 or 10,000).
    pub paper: Option<[f64; 8]>,
}

impl From<lab::CellSummary> for Summary5 {
    fn from(s: lab::CellSummary) -> Summary5 {
        Summary5 {
            reps: s.reps,
            acc: s.acc.into(),
            cwa: s.cwa.into(),
            gain: s.gain.into(),
            csr: s.csr.into(),
            sigma_csr: s.sigma_csr.into(),
            beyond_1sigma: s.beyond_1sigma,
            beyond_3sigma: s.beyond_3sigma,
            p_risk: s.p_risk.into(),
        }
    }
}

/// The fitted temperature and the invariance checks of the tour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TempFit {
    pub tau: f64,
    pub nll_before: f64,
    pub nll_after: f64,
    pub auc_before: Option<f64>,
    pub auc_after: Option<f64>,
    pub order_identical: bool,
    pub acc_before: f64,
    pub acc_after: f64,
    pub ece_after: Option<f64>,
}

/// A lab's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabAnswer {
    Truth {
        rows: Vec<TruthRow>,
        /// `Σ_B (n_B/n)²`.
        share: f64,
        reps: usize,
    },
    ExactConditioning {
        points: Vec<EcPoint>,
    },
    Generate {
        hist: Vec<u64>,
        rows: Vec<Row>,
        ece: Option<f64>,
        risk: Risk,
        auc: Option<f64>,
        cwauc: Option<f64>,
        roc: Vec<RocXY>,
    },
    Repeat {
        summary: Summary5,
        /// Table 5's Perfect row for this cell, when the paper prints one.
        paper: Option<[f64; 8]>,
    },
    RepeatTable {
        /// One row per distribution, in the contract's order.
        rows: Vec<TableRow>,
    },
    Reproduce {
        seed: u64,
        reps: usize,
        rows: Vec<ReproRow>,
    },
    Counterexample {
        n: usize,
        delta: f64,
        flat: f64,
        ece: Option<f64>,
        risk: Risk,
        rows: Vec<Row>,
    },
    Forecaster {
        rows: Vec<Row>,
        /// The top-label (confidence) reading's table.
        top_rows: Vec<Row>,
        ece: Option<f64>,
        top_ece: Option<f64>,
        brier: Option<f64>,
        cal: Option<f64>,
        refinement: Option<f64>,
        res: Option<f64>,
        /// ECE over `reps` fresh data sets (when `reps > 1`).
        ece_reps: Option<Mc>,
        temperature: Option<TempFit>,
    },
    Interval {
        lower: f64,
        upper: f64,
    },
}

/// One number behind a reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvidenceItem {
    /// `data-metric` key (`law_mean`, `largest_run`, ...).
    pub key: String,
    /// What it is.
    pub label: String,
    pub value: f64,
}

/// Why a cell cannot be judged, with its evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellReason {
    /// `unclipped`, `heavy_tail` or `rare_runs`.
    pub key: String,
    /// The verdict's words (`cannot agree`, `not judged`).
    pub label: String,
    /// The reason in plain words.
    pub text: String,
    pub evidence: Vec<EvidenceItem>,
}

/// One cell: the paper's value, ours, the standard error of their difference and
/// the verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReproCell {
    pub paper: f64,
    pub ours: f64,
    pub se: f64,
    /// `|ours − paper| / SE` (`None` when SE is 0 and the values differ).
    pub z: Option<f64>,
    /// `agrees`, `off`, or the reason's label.
    pub verdict: String,
    pub reason: Option<CellReason>,
}

/// One reproduced row of the paper.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReproRow {
    /// 5, 8 or 9.
    pub table: u8,
    pub n: usize,
    /// Distribution and mode ids.
    pub dist: String,
    pub mode: String,
    /// The eight cells, in `lab_repro::COLUMNS` order.
    pub cells: Vec<ReproCell>,
}
