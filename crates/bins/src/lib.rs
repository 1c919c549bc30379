//! `calibscope-bins/1`: the aggregate of a prediction set on a fine grid of the
//! forecast, from which most of the audit follows without the rows (issue 31).
//!
//! Per model and per reading (the confidence reading; each class `r` of a set with
//! `k <= CLASS_LIMIT` classes, class 1 being the positive-class reading of a binary
//! set), the forecasts `u` fall into `G = GRID` cells, cell `= width_bin(u, G)` (the
//! contract's equal-width rule with its `1e-7` edge tolerance, `u = 1` in the last
//! cell). Each non-empty cell keeps `n`, `Σu`, `Σo`, `Σ(u-o)²`, `min u` and `max u`.
//! Beside the cells, per model, the sums that are not binned: `Σ` NLL terms,
//! `Σ_i Σ_r (p_i^(r) - 1[y_i = r])²`, CSR's `Σ_{z=0} 1/(1-c)` and `Σ c/(1-c)`, cwA's
//! `Σ c z` and `Σ c` (clipped `c`), and per class the counted and confidence-weighted
//! `tp`, `fp`, `fn`.
//!
//! Every quantity is a sum (or a min/max) over rows, so aggregates of shards merge
//! ([`Aggregate::merge`]): counts exactly, sums to rounding (each cell's sums are
//! compensated while building; merging adds the f64 values).
//!
//! Modules: [`table`] (JSON and the engine's column table), [`metrics`] (what an
//! aggregate gives, exact or bounded), [`sql`] (the query for an engine).

use calibscope_core::beyond::{clip_confidence, RiskAccumulator, RiskSums};
use calibscope_core::binning::width_bin;
use calibscope_core::reading::{self, ProbView};
use calibscope_core::sum::Sum;
use calibscope_core::{Kind, PredictionSet};
use std::collections::BTreeMap;

pub mod metrics;
pub mod sql;
pub mod table;

/// The format name written in every aggregate (JSON `format`, table column `format`).
pub const FORMAT: &str = "calibscope-bins/1";

/// Cells of the forecast grid, `G = 2^16`: every equal-width bin count `m` dividing
/// `G` (1, 2, 4, …, 65536) is exact from the cells.
pub const GRID: u32 = 1 << 16;

/// The largest class count with per-class readings (each class reading costs up to
/// `G` cells per model). Above it the aggregate keeps the confidence reading and the
/// global sums only (no classwise metrics, AUC or confusion tables).
pub const CLASS_LIMIT: usize = 16;

/// Which reading a set of cells belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReadingKey {
    /// The top-label confidence `(c, z)`.
    Confidence,
    /// Class `r`'s one-vs-rest `(p^(r), 1[y = r])`.
    Class(u32),
}

/// One non-empty cell of the grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Samples in the cell.
    pub n: u64,
    /// `Σ u`.
    pub sum_u: f64,
    /// `Σ o` (an integer count).
    pub sum_o: u64,
    /// `Σ (u - o)²`.
    pub sum_sq: f64,
    /// Smallest forecast.
    pub min_u: f64,
    /// Largest forecast.
    pub max_u: f64,
}

impl Cell {
    /// Adds `other` (the same cell of another shard).
    pub fn merge(&mut self, other: &Cell) {
        self.n += other.n;
        self.sum_u += other.sum_u;
        self.sum_o += other.sum_o;
        self.sum_sq += other.sum_sq;
        self.min_u = self.min_u.min(other.min_u);
        self.max_u = self.max_u.max(other.max_u);
    }
}

/// Per class `r`: counted and confidence-weighted (clipped `c`) `[tp, fp, fn]`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClassConfusion {
    /// `[Σ 1[ŷ=y=r], Σ 1[ŷ=r≠y], Σ 1[ŷ≠y=r]]`.
    pub counts: [u64; 3],
    /// The same sums weighted by `c`.
    pub weighted: [f64; 3],
}

/// The sums that are not binned.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Globals {
    /// `Σ` NLL terms (`None`: top-label input).
    pub nll: Option<f64>,
    /// `Σ_i Σ_r (p_i^(r) - 1[y_i = r])²` (`None`: top-label input).
    pub brier_multiclass: Option<f64>,
    /// CSR, σ and cwA sums of the confidence reading.
    pub risk: RiskSums,
    /// Per class, when `k <= CLASS_LIMIT` and the input has probability vectors.
    pub confusion: Vec<ClassConfusion>,
}

/// One model's aggregate.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelAggregate {
    /// The model's name.
    pub model: String,
    /// Binary, multiclass or top-label.
    pub kind: Kind,
    /// Number of classes.
    pub k: usize,
    /// The readings' non-empty cells, by cell index.
    pub readings: BTreeMap<ReadingKey, BTreeMap<u32, Cell>>,
    /// The sums that are not binned.
    pub globals: Globals,
}

impl ModelAggregate {
    /// An empty aggregate of a model.
    pub fn new(model: &str, kind: Kind, k: usize) -> Self {
        ModelAggregate {
            model: model.to_string(),
            kind,
            k,
            readings: BTreeMap::new(),
            globals: Globals::default(),
        }
    }

    /// Number of samples (of the confidence reading).
    pub fn n(&self) -> u64 {
        self.globals.risk.n
    }

    /// Whether this model has per-class readings.
    pub fn has_classes(&self) -> bool {
        self.kind != Kind::TopLabel && self.k <= CLASS_LIMIT
    }

    /// Adds `other` (the same model on other rows). Errors when kind or k differ.
    pub fn merge(&mut self, other: &ModelAggregate) -> Result<(), String> {
        if self.kind == Kind::TopLabel && other.kind == Kind::TopLabel {
            // a top-label shard's k is its largest class seen, plus one
            self.k = self.k.max(other.k);
        } else if self.kind != other.kind || self.k != other.k {
            return Err(format!(
                "model '{}': a shard is {} with k = {}, another {} with k = {}",
                self.model,
                self.kind.name(),
                self.k,
                other.kind.name(),
                other.k
            ));
        }
        for (key, cells) in &other.readings {
            let mine = self.readings.entry(*key).or_default();
            for (c, cell) in cells {
                mine.entry(*c)
                    .and_modify(|m| m.merge(cell))
                    .or_insert(*cell);
            }
        }
        let (g, o) = (&mut self.globals, &other.globals);
        let add_opt = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, None) => a,
            (None, b) => b,
        };
        g.nll = add_opt(g.nll, o.nll);
        g.brier_multiclass = add_opt(g.brier_multiclass, o.brier_multiclass);
        g.risk = RiskSums {
            n: g.risk.n + o.risk.n,
            correct: g.risk.correct + o.risk.correct,
            wrong_ratio: g.risk.wrong_ratio + o.risk.wrong_ratio,
            odds: g.risk.odds + o.risk.odds,
            weighted_correct: g.risk.weighted_correct + o.risk.weighted_correct,
            weight: g.risk.weight + o.risk.weight,
        };
        if g.confusion.len() < o.confusion.len() {
            g.confusion
                .resize(o.confusion.len(), ClassConfusion::default());
        }
        for (a, b) in g.confusion.iter_mut().zip(&o.confusion) {
            for j in 0..3 {
                a.counts[j] += b.counts[j];
                a.weighted[j] += b.weighted[j];
            }
        }
        Ok(())
    }
}

/// The aggregate of one or more models.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Aggregate {
    /// Models by name.
    pub models: BTreeMap<String, ModelAggregate>,
}

impl Aggregate {
    /// An empty aggregate.
    pub fn new() -> Self {
        Aggregate::default()
    }

    /// Adds `other` (other rows of the same models, or other models).
    pub fn merge(&mut self, other: &Aggregate) -> Result<(), String> {
        for (name, m) in &other.models {
            match self.models.get_mut(name) {
                Some(mine) => mine.merge(m)?,
                None => {
                    self.models.insert(name.clone(), m.clone());
                }
            }
        }
        Ok(())
    }

    /// Adds the rows of `set` (a valid prediction set, see
    /// [`PredictionSet::validate`]) as model `model`.
    pub fn add_set(&mut self, model: &str, set: &PredictionSet) -> Result<(), String> {
        let one = aggregate_set(model, set);
        let mut shard = Aggregate::new();
        shard.models.insert(model.to_string(), one);
        self.merge(&shard)
    }
}

/// One cell while building: count, compensated `Σu`, `Σo`, compensated `Σ(u-o)²`,
/// min and max.
#[derive(Clone, Copy)]
struct Acc {
    n: u64,
    sum_u: Sum,
    sum_o: u64,
    sum_sq: Sum,
    min_u: f64,
    max_u: f64,
}

const EMPTY: Acc = Acc {
    n: 0,
    sum_u: Sum::new(),
    sum_o: 0,
    sum_sq: Sum::new(),
    min_u: f64::INFINITY,
    max_u: f64::NEG_INFINITY,
};

/// Cells of one reading while building: dense over the grid (64 bytes a cell, 4 MiB
/// a reading), so adding a sample is an index and six additions.
struct CellBuilder {
    cells: Vec<Acc>,
}

impl CellBuilder {
    fn new() -> Self {
        CellBuilder {
            cells: vec![EMPTY; GRID as usize],
        }
    }

    #[inline]
    fn add(&mut self, u: f64, o: bool) {
        let e = &mut self.cells[width_bin(u, GRID as usize)];
        let of = o as u8 as f64;
        e.n += 1;
        e.sum_u.add(u);
        e.sum_o += o as u64;
        e.sum_sq.add((u - of) * (u - of));
        e.min_u = e.min_u.min(u);
        e.max_u = e.max_u.max(u);
    }

    fn add_all(&mut self, pairs: &reading::Pairs) {
        for (&u, &o) in pairs.forecast.iter().zip(&pairs.outcome) {
            self.add(u, o);
        }
    }

    fn finish(&self) -> BTreeMap<u32, Cell> {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, a)| a.n > 0)
            .map(|(c, a)| {
                (
                    c as u32,
                    Cell {
                        n: a.n,
                        sum_u: a.sum_u.value(),
                        sum_o: a.sum_o,
                        sum_sq: a.sum_sq.value(),
                        min_u: a.min_u,
                        max_u: a.max_u,
                    },
                )
            })
            .collect()
    }
}

/// Builds one model's aggregate from prediction sets given one after the other (the
/// chunks of a file, or shards): memory independent of the rows, the sums
/// compensated across chunks.
pub struct ModelBuilder {
    model: String,
    kind: Kind,
    k: usize,
    readings: BTreeMap<ReadingKey, CellBuilder>,
    nll: Option<Sum>,
    brier: Option<Sum>,
    risk: RiskAccumulator,
    cw: Vec<[Sum; 3]>,
    counts: Vec<[u64; 3]>,
}

impl ModelBuilder {
    /// A builder for model `model` of the kind and class count of `first` (its
    /// rows are not added yet).
    pub fn new(model: &str, first: &PredictionSet) -> Self {
        let (kind, k) = (first.kind(), first.k);
        let probs = kind != Kind::TopLabel;
        let with_classes = probs && k <= CLASS_LIMIT;
        let mut readings = BTreeMap::new();
        readings.insert(ReadingKey::Confidence, CellBuilder::new());
        if with_classes {
            for r in 0..k {
                readings.insert(ReadingKey::Class(r as u32), CellBuilder::new());
            }
        }
        ModelBuilder {
            model: model.to_string(),
            kind,
            k,
            readings,
            nll: probs.then(Sum::new),
            brier: probs.then(Sum::new),
            risk: RiskAccumulator::default(),
            cw: vec![[Sum::new(); 3]; if with_classes { k } else { 0 }],
            counts: vec![[0u64; 3]; if with_classes { k } else { 0 }],
        }
    }

    /// Adds the rows of `set` (valid, see [`PredictionSet::validate`]): the readings
    /// through the core's reading functions, the NLL through
    /// [`calibscope_core::audit::nll`]. Errors when its kind or class count differs
    /// from the first set's.
    pub fn add(&mut self, set: &PredictionSet) -> Result<(), String> {
        if self.kind == Kind::TopLabel && set.kind() == Kind::TopLabel {
            // a top-label set's k is its largest class seen, plus one
            self.k = self.k.max(set.k);
        } else if set.kind() != self.kind || set.k != self.k {
            return Err(format!(
                "model '{}': rows read as {} with k = {} after rows read as {} with k = {} (give the mapping flags, e.g. --logits or --probs, so every chunk is read alike)",
                self.model,
                set.kind().name(),
                set.k,
                self.kind.name(),
                self.k
            ));
        }
        let view = ProbView::new(set);
        let top = match &view {
            Some(v) => reading::top_labels_of(v),
            None => reading::top_labels(set),
        };
        let conf = self
            .readings
            .get_mut(&ReadingKey::Confidence)
            .expect("made in new");
        for (&c, &z) in top.confidence.iter().zip(&top.correct) {
            conf.add(c, z);
            self.risk.add(c, z);
        }
        let Some(view) = view else {
            return Ok(());
        };
        if let (Some(nll), Some(mean)) = (&mut self.nll, calibscope_core::audit::nll(set)) {
            nll.add(mean * set.n() as f64);
        }
        let brier = self.brier.as_mut().expect("probability input");
        for r in 0..self.k {
            let pairs = reading::class_pairs(&view, r);
            for (&u, &o) in pairs.forecast.iter().zip(&pairs.outcome) {
                let of = o as u8 as f64;
                brier.add((u - of) * (u - of));
            }
            if let Some(cells) = self.readings.get_mut(&ReadingKey::Class(r as u32)) {
                cells.add_all(&pairs);
            }
        }
        let k = self.cw.len();
        if k > 0 {
            for ((&yhat, &c), &y) in top.predicted.iter().zip(&top.confidence).zip(&set.labels) {
                let w = clip_confidence(c);
                let (yhat, y) = (yhat as usize, y as usize);
                if yhat == y {
                    self.cw[y][0].add(w);
                    self.counts[y][0] += 1;
                } else {
                    if yhat < k {
                        self.cw[yhat][1].add(w);
                        self.counts[yhat][1] += 1;
                    }
                    self.cw[y][2].add(w);
                    self.counts[y][2] += 1;
                }
            }
        }
        Ok(())
    }

    /// The model's aggregate.
    pub fn finish(&self) -> ModelAggregate {
        ModelAggregate {
            model: self.model.clone(),
            kind: self.kind,
            k: self.k,
            readings: self
                .readings
                .iter()
                .map(|(key, b)| (*key, b.finish()))
                .collect(),
            globals: Globals {
                nll: self.nll.map(|s| s.value()),
                brier_multiclass: self.brier.map(|s| s.value()),
                risk: self.risk.sums(),
                confusion: self
                    .cw
                    .iter()
                    .zip(&self.counts)
                    .map(|(w, c)| ClassConfusion {
                        counts: *c,
                        weighted: w.map(|s| s.value()),
                    })
                    .collect(),
            },
        }
    }
}

/// The aggregate of `set` (valid) as model `model`.
pub fn aggregate_set(model: &str, set: &PredictionSet) -> ModelAggregate {
    let mut b = ModelBuilder::new(model, set);
    b.add(set).expect("the set's own kind");
    b.finish()
}
