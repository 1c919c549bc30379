//! What an aggregate gives, and how exactly (issue 31).
//!
//! **Binned metrics** at `(binning, m)`: the cells are put, whole, into the bins of
//! the binning. A cell whose samples all belong to one bin is placed exactly:
//! equal-width, when `width_bin(min u, m) = width_bin(max u, m)` (`width_bin` is
//! monotone, so every sample between lies in that bin too; always true when `m`
//! divides `G`, since then every cell lies inside one bin); equal-mass, when the
//! cell's sorted positions `s .. s + n_c - 1` fall in one bin. When every cell is
//! placed exactly, the bins are the in-memory audit's bins and every value (ECE, MCE,
//! RMSCE, LinCE, CAL, REF, RES, ConfCE^corr, Clopper–Pearson rows) is **exact**: it
//! comes from the core's own [`BinnedAccumulator`], up to the rounding of the cells'
//! sums (1e-12 relative in the tests).
//!
//! Otherwise a straddling cell is put whole in the bin of its smallest forecast
//! (width) or first position (mass), and only the ECE is given, with a **bound**.
//! Derivation: with `r_i = u_i - o_i`, the true ECE is `(1/n) Σ_B |A_B + D_B|` where
//! `A_B` is the residual sum of the bin as assigned and `D_B` the net residual of the
//! samples that belong elsewhere; each such sample leaves one bin and enters another,
//! so `Σ_B |D_B| <= 2 Σ_moved |r_i|`, and `| |A + D| - |A| | <= |D|` gives
//! `|ECE_true - ECE_assigned| <= (2/n) Σ_straddling Σ_{i∈cell} |r_i|`. Per cell
//! `Σ |r_i| = Σ_{o=0} u + Σ_{o=1} (1 - u) = Σu + Σo - 2 Σ_{o=1} u
//! <= Σu + Σo - 2 (Σo) min u`. The bound is that sum, over the straddling cells.
//!
//! **AUC** of class `r` (Mann–Whitney) from its cells: pairs in different cells are
//! ordered by the cells; pairs within a cell count `1/2`, which is exact when the
//! cell's forecasts are all equal (`min u = max u`, a tie) and otherwise off by at
//! most `1/2` per pair: bound `Σ_cells pos_c neg_c / (2 P N)` over the cells with
//! `min u < max u`. The macro AUC's bound is the mean of the classes' bounds.
//!
//! **Exact from the global sums**: n, accuracy, NLL, multiclass Brier (and `/k`),
//! each reading's Brier, `l_conf`, CSR, σ_CSR, z-score, P_risk, cwA, gain, the
//! counted and confidence-weighted confusion tables.
//!
//! **Unavailable** from an aggregate, with the reason: temperature/Platt/isotonic
//! fitting (they fit a map to each row's scores), cwAUC (needs each sample's
//! confidence weight beside its class score), smECE and the bootstrap (need the
//! forecasts, not cells; not computed in this version).

use crate::{Cell, ModelAggregate, ReadingKey, GRID};
use calibscope_core::audit::{Audit, ClassReport, ReadingReport};
use calibscope_core::beyond::{ConfusionAccumulator, RiskAccumulator};
use calibscope_core::binning::{width_bin, Bin, BinSource, BinnedMetrics, Binning};
use calibscope_core::reliability::{reliability_table, ReliabilityRow};
use calibscope_core::sum::Sum;
use calibscope_core::{Kind, Source};
use std::collections::BTreeMap;

/// One value of an aggregate's audit: its path in the audit document
/// (`calibscope audit --json`), and `bound = None` when exact, else the largest
/// possible distance to the in-memory value.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// Path, e.g. `readings.confidence.width.16.ece`.
    pub path: String,
    /// The value (`None`: undefined, as in the audit).
    pub value: Option<f64>,
    /// `None`: exact; `Some(b)`: `|value - true| <= b`.
    pub bound: Option<f64>,
}

/// What an aggregate cannot give, and why.
pub const UNAVAILABLE: [(&str, &str); 4] = [
    ("recalibration (temperature, Platt, isotonic)", "fitting a map needs each row's scores; an aggregate keeps sums over cells"),
    ("cwAUC", "needs each sample's confidence weight beside its class score; the cells keep them apart"),
    ("the verdict, smECE and the bootstrap intervals", "the calibration test and smECE follow the individual forecasts and the bootstrap resamples them; not computed from cells in this version"),
    ("ranking flips across models", "computed from the models' binned metrics by the multi-model audit, not yet from aggregates"),
];

/// One reading's cells in order, with each cell's first sorted position.
pub struct GridReading {
    cells: Vec<(u32, Cell)>,
    starts: Vec<u64>,
    n: u64,
}

/// The bins of one binning built from whole cells.
pub struct Placed {
    /// The non-empty bins (positions count the samples of the cells placed in them).
    pub bins: Vec<Bin>,
    /// `Σ_straddling Σ_{i∈cell} |u_i - o_i|` (bounded as in the module docs): 0
    /// when every cell lies in one bin.
    pub moved: f64,
    /// Cells whose samples belong to more than one bin: 0 when the bins are exact.
    pub straddling: usize,
}

impl GridReading {
    /// The reading's cells (a map is already in cell order).
    pub fn new(cells: &BTreeMap<u32, Cell>) -> Self {
        let mut starts = Vec::with_capacity(cells.len());
        let mut n = 0;
        for c in cells.values() {
            starts.push(n);
            n += c.n;
        }
        GridReading {
            cells: cells.iter().map(|(k, v)| (*k, *v)).collect(),
            starts,
            n,
        }
    }

    /// The bins of `binning` with `m` bins, cells placed whole (see [`Placed`]).
    pub fn place(&self, binning: Binning, m: usize) -> Placed {
        let mut bins: Vec<Bin> = Vec::new();
        let mut moved = 0.0;
        let mut straddling = 0;
        let mut current: Option<(usize, u64, Sum, u64)> = None; // (index, start, Σu, Σo)
        let mut pos = 0u64;
        let n = self.n as u128;
        let mass_bin = |p: u64| ((p as u128 * m as u128) / n) as usize;
        for ((_, c), &start) in self.cells.iter().zip(&self.starts) {
            let (first, last) = match binning {
                Binning::Width => (width_bin(c.min_u, m), width_bin(c.max_u, m)),
                Binning::Mass => (mass_bin(start), mass_bin(start + c.n - 1)),
            };
            if first != last {
                straddling += 1;
                let sum_o = c.sum_o as f64;
                moved += (c.sum_u + sum_o - 2.0 * sum_o * c.min_u).max(0.0);
            }
            match &mut current {
                Some((b, _, su, so)) if *b == first => {
                    su.add(c.sum_u);
                    *so += c.sum_o;
                }
                _ => {
                    if let Some(done) = current.take() {
                        bins.push(bin_of(done, pos));
                    }
                    let mut su = Sum::new();
                    su.add(c.sum_u);
                    current = Some((first, pos, su, c.sum_o));
                }
            }
            pos += c.n;
        }
        if let Some(done) = current {
            bins.push(bin_of(done, pos));
        }
        Placed {
            bins,
            moved,
            straddling,
        }
    }

    /// Mann–Whitney AUC of the reading's forecasts against its outcomes and its
    /// bound (0: exact); `None` without a positive or a negative.
    pub fn auc(&self) -> Option<(f64, f64)> {
        let pos: u64 = self.cells.iter().map(|(_, c)| c.sum_o).sum();
        let neg = self.n - pos;
        if pos == 0 || neg == 0 {
            return None;
        }
        let (mut wins, mut ambiguous) = (0.0f64, 0.0f64);
        let mut neg_below = 0u64;
        for (_, c) in &self.cells {
            let (p, q) = (c.sum_o, c.n - c.sum_o);
            // each count < 2^53 and each product exact below 2^53
            wins += p as f64 * neg_below as f64 + 0.5 * (p as f64 * q as f64);
            if c.min_u < c.max_u {
                ambiguous += p as f64 * q as f64;
            }
            neg_below += q;
        }
        let pairs = pos as f64 * neg as f64;
        Some((wins / pairs, 0.5 * ambiguous / pairs))
    }

    /// Samples in the reading.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The reading's Brier score `Σ (u - o)² / n` (`None` when empty): exact.
    pub fn brier(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_sq() / self.n as f64)
    }

    /// The reliability table and binned metrics at `(binning, m)` from the cells
    /// placed whole ([`GridReading::place`]), Clopper–Pearson at level `1 - alpha`,
    /// and `None` when every value is exact, else the ECE's bound (the other values
    /// of a bounded table are not given: only its ECE is within a known distance).
    pub fn table(
        &self,
        binning: Binning,
        m: usize,
        alpha: f64,
    ) -> (Vec<ReliabilityRow>, BinnedMetrics, Option<f64>) {
        let placed = self.place(binning, m);
        let source = PlacedSource {
            grid: self,
            bins: &placed.bins,
        };
        let bound = (placed.straddling > 0).then(|| 2.0 * placed.moved / self.n.max(1) as f64);
        (
            reliability_table(&source, binning, m, alpha),
            source.binned_metrics(binning, m),
            bound,
        )
    }

    /// `Σ (u - o)²` over the reading.
    fn sum_sq(&self) -> f64 {
        self.cells
            .iter()
            .map(|(_, c)| c.sum_sq)
            .collect::<Sum>()
            .value()
    }
}

fn bin_of((index, start, su, so): (usize, u64, Sum, u64), end: u64) -> Bin {
    Bin {
        index,
        start: start as usize,
        end: end as usize,
        sum_forecast: su.value(),
        successes: so,
    }
}

/// A [`BinSource`] over the placed bins of one `(binning, m)`, for the core's
/// reliability tables (the smallest and largest forecast of a bin: its cells').
struct PlacedSource<'a> {
    grid: &'a GridReading,
    bins: &'a [Bin],
}

impl BinSource for PlacedSource<'_> {
    fn samples(&self) -> usize {
        self.grid.n as usize
    }
    fn visit_bins(&self, _binning: Binning, _m: usize, visit: &mut dyn FnMut(Bin)) {
        self.bins.iter().for_each(|b| visit(*b));
    }
    fn forecast_range(&self, bin: &Bin) -> (f64, f64) {
        let g = self.grid;
        let lo = g.starts.partition_point(|&s| s < bin.start as u64);
        let hi = g.starts.partition_point(|&s| s < bin.end as u64);
        g.cells[lo..hi]
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (_, c)| {
                (a.min(c.min_u), b.max(c.max_u))
            })
    }
}

/// One reading's tables: the core's metrics over the placed bins, and per
/// `(binning, m)` `None` (every value exact) or `Some(b)` (only the ECE, within `b`).
struct ReadingTables {
    report: ReadingReport,
    bounds: Vec<(Binning, usize, Option<f64>)>,
}

fn reading_tables(
    grid: &GridReading,
    m_values: &[usize],
    reliability_m: Option<usize>,
    alpha: f64,
) -> ReadingTables {
    let n = grid.n as usize;
    let mut tables = Vec::new();
    let mut bounds = Vec::new();
    let mut reliability = Vec::new();
    for binning in Binning::ALL {
        for &m in m_values {
            let placed = grid.place(binning, m);
            let source = PlacedSource {
                grid,
                bins: &placed.bins,
            };
            tables.push((binning, m, source.binned_metrics(binning, m)));
            let exact = placed.straddling == 0;
            bounds.push((
                binning,
                m,
                (!exact).then(|| 2.0 * placed.moved / n.max(1) as f64),
            ));
            if reliability_m == Some(m) && exact {
                reliability.push((binning, reliability_table(&source, binning, m, alpha)));
            }
        }
    }
    ReadingTables {
        report: ReadingReport {
            brier: (n > 0).then(|| grid.sum_sq() / n as f64),
            tables,
            reliability,
        },
        bounds,
    }
}

/// The audit of one model's aggregate: the core's [`Audit`] assembled from the
/// aggregate (its binned tables over placed bins; cwAUC and the ROC absent), with
/// each binned table's ECE bound and each class's AUC bound.
pub struct AggregateAudit {
    /// The core's audit structure, filled from the aggregate.
    pub audit: Audit,
    /// Per `(reading, binning, m)`: `None` when the whole table is exact, else the
    /// ECE's bound (the other values of the table are not given).
    pub bounds: BTreeMap<(ReadingKey, Binning, usize), Option<f64>>,
    /// Per class: the AUC bound (0: exact).
    pub auc_bounds: Vec<Option<f64>>,
    /// The bin counts asked for.
    pub m_values: Vec<usize>,
}

/// Audits one model's aggregate at the bin counts `m_values` (each ≥ 1), with
/// reliability tables at `reliability_m` (when exact) and Clopper–Pearson level
/// `1 - alpha`.
pub fn audit(
    model: &ModelAggregate,
    m_values: &[usize],
    reliability_m: usize,
    alpha: f64,
) -> AggregateAudit {
    let g = &model.globals;
    let n = g.risk.n;
    let mut bounds = BTreeMap::new();
    let mut tables_of = |key: ReadingKey, reliability: Option<usize>| {
        let empty = BTreeMap::new();
        let grid = GridReading::new(model.readings.get(&key).unwrap_or(&empty));
        let t = reading_tables(&grid, m_values, reliability, alpha);
        for (b, m, bound) in t.bounds {
            bounds.insert((key, b, m), bound);
        }
        (t.report, grid)
    };
    let (confidence, conf_grid) = tables_of(ReadingKey::Confidence, Some(reliability_m));
    let mut classes = Vec::new();
    let mut auc_bounds = Vec::new();
    if model.has_classes() {
        for r in 0..model.k {
            let (reading, grid) = tables_of(ReadingKey::Class(r as u32), None);
            let auc = grid.auc();
            auc_bounds.push(auc.map(|a| a.1));
            classes.push(ClassReport {
                reading,
                auc: auc.map(|a| a.0),
                cwauc: None,
            });
        }
    }
    let risk = RiskAccumulator::from_sums(&g.risk).finish();
    let confusion = if g.confusion.is_empty() {
        Vec::new()
    } else {
        let cw: Vec<[f64; 3]> = g.confusion.iter().map(|c| c.weighted).collect();
        let counts: Vec<[u64; 3]> = g.confusion.iter().map(|c| c.counts).collect();
        ConfusionAccumulator::from_sums(&cw, &counts, g.risk.weight, n).finish()
    };
    let nf = n as f64;
    let audit = Audit {
        n: n as usize,
        k: model.k,
        kind: model.kind,
        source: match model.kind {
            Kind::TopLabel => Source::TopLabel,
            _ => Source::Probs,
        },
        columns: 0,
        accuracy: risk.acc,
        l_conf: calibscope_core::truthful::l_conf_from_sums(n, g.risk.correct, conf_grid.sum_sq()),
        nll: g.nll.filter(|_| n > 0).map(|s| s / nf),
        brier_multiclass: g.brier_multiclass.filter(|_| n > 0).map(|s| s / nf),
        confidence,
        classes,
        risk,
        confusion,
        roc_class1: None,
    };
    AggregateAudit {
        audit,
        bounds,
        auc_bounds,
        m_values: m_values.to_vec(),
    }
}

fn table_values(
    out: &mut Vec<Value>,
    prefix: &str,
    t: &BinnedMetrics,
    brier: Option<f64>,
    bound: Option<f64>,
    conf: Option<(Option<f64>, Option<f64>)>,
) {
    let exact = bound.is_none();
    let mut push = |name: &str, value: Option<f64>| {
        out.push(Value {
            path: format!("{prefix}.{name}"),
            value,
            bound: bound.filter(|&b| b > 0.0),
        })
    };
    push("ece", t.ece);
    if let Some((confece, _)) = conf {
        push("confece", confece);
    }
    if !exact {
        return;
    }
    push("mce", t.mce);
    push("rmsce", t.rmsce);
    push("lince", t.lince);
    push("cal", t.cal);
    push("ref", t.refinement);
    push("res", t.res(brier));
    push("brier", brier);
    push("nonempty_bins", Some(t.nonempty_bins as f64));
    if let Some((_, corr)) = conf {
        push("confce", t.lince);
        push("confce_corr", corr);
    }
}

impl AggregateAudit {
    /// Every value the aggregate gives, by its audit-document path, exact or bounded.
    pub fn values(&self) -> Vec<Value> {
        let a = &self.audit;
        let mut out = Vec::new();
        let exact = |path: &str, value: Option<f64>| Value {
            path: path.into(),
            value,
            bound: None,
        };
        out.push(exact("input.n", Some(a.n as f64)));
        out.push(exact("input.k", Some(a.k as f64)));
        out.push(exact("binning_free.accuracy", a.accuracy));
        out.push(exact("binning_free.l_conf", a.l_conf));
        if a.kind != Kind::TopLabel {
            out.push(exact("binning_free.nll", a.nll));
            out.push(exact("binning_free.brier_multiclass", a.brier_multiclass));
            out.push(exact(
                "binning_free.brier_over_k",
                a.brier_multiclass.map(|b| b / a.k as f64),
            ));
        }
        let r = &a.risk;
        for (name, v) in [
            ("acc", r.acc),
            ("csr", r.csr),
            ("sigma_csr", r.sigma_csr),
            ("zscore", r.zscore),
            ("p_risk", r.p_risk),
            ("cwa", r.cwa),
            ("gain", r.gain),
        ] {
            out.push(exact(&format!("beyond_ece.{name}"), v));
        }
        out.push(exact("readings.confidence.brier", a.confidence.brier));
        let bound = |key: ReadingKey, b: Binning, m: usize| {
            self.bounds
                .get(&(key, b, m))
                .copied()
                .unwrap_or(Some(f64::INFINITY))
        };
        for (b, m, t) in &a.confidence.tables {
            let prefix = format!("readings.confidence.{}.{m}", b.name());
            let conf = Some((t.ece, a.confce_corr(*b, *m)));
            table_values(
                &mut out,
                &prefix,
                t,
                a.confidence.brier,
                bound(ReadingKey::Confidence, *b, *m),
                conf,
            );
        }
        if let Some(pos) = a.positive() {
            out.push(exact("binning_free.brier_positive", pos.brier));
            out.push(exact("readings.positive.brier", pos.brier));
            for (b, m, t) in &pos.tables {
                let prefix = format!("readings.positive.{}.{m}", b.name());
                table_values(
                    &mut out,
                    &prefix,
                    t,
                    pos.brier,
                    bound(ReadingKey::Class(1), *b, *m),
                    None,
                );
            }
        }
        if !a.classes.is_empty() {
            for (b, m, _) in &a.confidence.tables {
                let per: Vec<Option<f64>> = (0..a.k)
                    .map(|r| bound(ReadingKey::Class(r as u32), *b, *m))
                    .collect();
                let all_exact = per.iter().all(Option::is_none);
                let mean_bound = per.iter().map(|x| x.unwrap_or(0.0)).sum::<f64>() / a.k as f64;
                let Some(cw) = a.classwise(*b, *m) else {
                    continue;
                };
                let prefix = format!("readings.classwise.{}.{m}", b.name());
                out.push(Value {
                    path: format!("{prefix}.cwece"),
                    value: cw.cwece,
                    bound: (mean_bound > 0.0).then_some(mean_bound),
                });
                if all_exact {
                    for (name, v) in [
                        ("lince_cw", cw.lince_cw),
                        ("cwmce_mean", cw.cwmce_mean),
                        ("cwrmsce_mean", cw.cwrmsce_mean),
                        ("brier_sum", cw.brier_sum),
                        ("cal_sum", cw.cal_sum),
                        ("ref_sum", cw.ref_sum),
                        ("res_sum", cw.res_sum),
                    ] {
                        out.push(exact(&format!("{prefix}.{name}"), v));
                    }
                }
            }
            let mut defined = Vec::new();
            for (r, (c, bnd)) in a.classes.iter().zip(&self.auc_bounds).enumerate() {
                out.push(Value {
                    path: format!("binning_free.auc_per_class[{r}]"),
                    value: c.auc,
                    bound: bnd.filter(|&x| x > 0.0),
                });
                if let Some(x) = bnd {
                    defined.push(*x);
                }
            }
            let mean_bound = defined.iter().sum::<f64>() / defined.len().max(1) as f64;
            out.push(Value {
                path: "binning_free.auc_macro".into(),
                value: a.auc_macro(),
                bound: (mean_bound > 0.0).then_some(mean_bound),
            });
            if a.kind == Kind::Binary {
                out.push(Value {
                    path: "binning_free.auc".into(),
                    value: a.classes[1].auc,
                    bound: self.auc_bounds[1].filter(|&x| x > 0.0),
                });
            }
            for (r, (cw, counts)) in a.confusion.iter().enumerate() {
                for (form, t) in [("cw", cw), ("counts", counts)] {
                    let prefix = format!("cw_confusion[{r}].{form}");
                    for (name, v) in [
                        ("tp", Some(t.tp)),
                        ("fp", Some(t.fp)),
                        ("fn", Some(t.fn_)),
                        ("tn", Some(t.tn)),
                        ("precision", t.precision()),
                        ("recall", t.recall()),
                        ("f1", t.f1()),
                        ("mcc", t.mcc()),
                        ("accuracy", t.accuracy()),
                    ] {
                        out.push(exact(&format!("{prefix}.{name}"), v));
                    }
                }
            }
        }
        out
    }

    /// The confidence reading's reliability rows (exact bins only): `(binning, rows)`.
    pub fn reliability(&self) -> &[(Binning, Vec<ReliabilityRow>)] {
        &self.audit.confidence.reliability
    }
}

/// Whether `m` divides the grid, so every equal-width table at `m` is exact whatever
/// the data.
pub fn divides_grid(m: usize) -> bool {
    m > 0 && (GRID as usize) % m == 0
}
