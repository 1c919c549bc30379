//! The Slices view in the worker (issue 32): calibration per group, and the rows of
//! one bin of a reliability diagram (brushing).
//!
//! Per group, only what the view's table shows is computed: n, accuracy, CSR and
//! P_risk (calibscope-core's `risk_metrics` of the group's top labels, the group
//! audit's `beyond_ece`), smooth ECE (the group audit's `binning_free.smece`) and
//! the reliability table at the view's `(binning, m)`; the ECE, the worst group, the
//! spread and the seeded permutation test are calibscope-core's `group_calibration`,
//! the same call as the CLI's `audit --group`, so the numbers equal its
//! `groups` and `worst_group`. Each group's rows, sorted reading, smooth ECE and risk
//! metrics are made once per model; a change of `(binning, m)` recomputes the ECE
//! and the tables only.
//!
//! Brushing: the bins of a reading at `(binning, m)` are runs of its samples sorted by
//! forecast (stable: ties by sample order, as every table of calibscope bins them),
//! so each sample's bin is written once per `(reading, group, binning, m)`
//! ([`BinIndex`]); a page of a bin's rows, in sample order, is then one scan of that
//! index.

use calibscope_core::beyond::{risk_metrics, RiskMetrics};
use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::groups::{
    group_calibration_sorted, GroupCalibration, GroupSettings, PermutationTest, SortedGroups,
};
use calibscope_core::reading::{self, Pairs, ProbView, TopLabels};
use calibscope_core::reliability::{reliability_table, DEFAULT_ALPHA};
use calibscope_core::smece::smece;
use calibscope_core::Kind;
use calibscope_io::Ids;

use crate::proto::slices::{
    BrushAnswer, BrushRequest, BrushRow, GroupVerdict, SliceGroup, SlicesAnswer, SlicesRequest,
};
use crate::proto::{codes, FromWorker, Reading};
use crate::{worker_error, Session};

/// Most rows a brushed page holds.
pub const MAX_PAGE: usize = 1000;

/// One group's samples of one model, made once.
struct GroupData {
    /// Its samples, ascending.
    rows: Vec<u32>,
    /// Its confidence reading sorted by forecast (stable).
    sorted: SortedReading,
    /// Sorted position → index into `rows`.
    order: Vec<u32>,
    smece: Option<f64>,
    risk: RiskMetrics,
}

/// A reading of the whole set sorted by forecast (stable), for brushing.
struct WholeReading {
    pairs: Pairs,
    sorted: SortedReading,
    /// Sorted position → sample.
    order: Vec<u32>,
}

/// Each sample's bin (`u32::MAX`: not in the brushed set) at one
/// `(model, reading, group, binning, m)`.
struct BinIndex {
    key: (usize, Reading, Option<usize>, Binning, usize),
    /// Per sample of the set brushed (all samples, or the group's rows in order).
    bin: Vec<u32>,
}

/// What the Slices view keeps between requests (a [`Session`]'s).
#[derive(Default)]
pub struct SlicesCache {
    /// The model whose groups are made, its top labels and its groups.
    top: Option<(usize, TopLabels)>,
    groups: Vec<GroupData>,
    /// The confidences of the model of `top` sorted once with their groups (the
    /// groups' ECE at any bins, and the permutation test).
    sorted_groups: Option<SortedGroups>,
    /// The last whole-set reading brushed.
    whole: Option<((usize, Reading), WholeReading)>,
    index: Option<BinIndex>,
    /// The groups' verdicts of the model of `top` (they do not depend on the bins).
    pub(crate) verdicts: Option<Vec<Option<GroupVerdict>>>,
}

fn gather_top(top: &TopLabels, rows: &[u32]) -> TopLabels {
    TopLabels {
        predicted: calibscope_core::auc::gather(&top.predicted, rows),
        confidence: calibscope_core::auc::gather(&top.confidence, rows),
        correct: calibscope_core::auc::gather(&top.correct, rows),
    }
}

impl Session {
    /// The top labels and per-group data of `model` (made on first use).
    fn slices_model(&mut self, model: usize) {
        if self.slices.top.as_ref().is_some_and(|(m, _)| *m == model) {
            return;
        }
        let top = reading::top_labels(&self.models[model].set);
        let groups = self.dataset.groups.as_ref().map_or(Vec::new(), |g| {
            let mut rows = vec![Vec::new(); g.len()];
            for (i, &c) in g.codes.iter().enumerate() {
                rows[c as usize].push(i as u32);
            }
            rows.into_iter()
                .map(|rows| {
                    let t = gather_top(&top, &rows);
                    let order = calibscope_core::auc::sort_order(&t.confidence);
                    let sorted = SortedReading::from_sorted(
                        calibscope_core::auc::gather(&t.confidence, &order),
                        &calibscope_core::auc::gather(&t.correct, &order),
                    );
                    GroupData {
                        smece: smece(&t.confidence, &t.correct).map(|s| s.smece),
                        risk: risk_metrics(&t),
                        rows,
                        sorted,
                        order,
                    }
                })
                .collect()
        });
        self.slices.sorted_groups = self
            .dataset
            .groups
            .as_ref()
            .map(|g| SortedGroups::new(&top.pairs(), &g.codes, g.len()));
        self.slices.top = Some((model, top));
        self.slices.groups = groups;
        self.slices.index = None;
        self.slices.verdicts = None;
    }

    /// Answers a [`crate::proto::ToWorker::Slices`]: the groups' table (`tested`
    /// false) when `test` is false, else with the permutation test and each group's
    /// verdict, run here in one piece (the worker runs them in slices:
    /// [`Session::slices_start`]).
    pub fn slices(&mut self, id: u64, gen: u64, r: &SlicesRequest, test: bool) -> FromWorker {
        if !test {
            return match self.slices_table(r, false) {
                Ok(Some((answer, ..))) => FromWorker::Slices {
                    id,
                    gen,
                    complete: false,
                    answer,
                },
                Ok(None) => self.slices_ungrouped(id, gen, r),
                Err(msg) => worker_error(id, codes::BAD_PARAMETERS, msg),
            };
        }
        match self.slices_start(id, gen, r) {
            Ok(Some(job)) => self.slices_finish(job),
            Ok(None) => self.slices_ungrouped(id, gen, r),
            Err(msg) => worker_error(id, codes::BAD_PARAMETERS, msg),
        }
    }

    /// The answer for a data set without groups (complete: nothing to test).
    pub(crate) fn slices_ungrouped(&self, id: u64, gen: u64, r: &SlicesRequest) -> FromWorker {
        FromWorker::Slices {
            id,
            gen,
            complete: true,
            answer: SlicesAnswer {
                model: r.model,
                binning: Some(r.binning),
                m: r.m,
                min_size: r.min_size,
                seed: r.seed,
                ..SlicesAnswer::default()
            },
        }
    }

    /// The groups' table of `r` (untested), their calibration and, when `test`, the
    /// permutation test to run; `None` when the data set has no groups; `Err` for a
    /// request that cannot be answered.
    #[allow(clippy::type_complexity)]
    pub(crate) fn slices_table(
        &mut self,
        r: &SlicesRequest,
        test: bool,
    ) -> Result<Option<(SlicesAnswer, GroupCalibration, Option<PermutationTest>)>, String> {
        if r.model >= self.models.len() {
            return Err(format!("there is no model {}", r.model));
        }
        if r.m == 0 || r.m > crate::M_SLIDER_MAX.max(self.n()) {
            return Err(format!(
                "bin count {} is outside 1..{}",
                r.m,
                crate::M_SLIDER_MAX
            ));
        }
        self.slices_model(r.model);
        let Some(groups) = &self.dataset.groups else {
            return Ok(None);
        };
        let sorted_groups = self.slices.sorted_groups.as_ref().expect("made above");
        let settings = GroupSettings {
            binning: r.binning,
            m: r.m,
            min_size: r.min_size,
            permutations: if test { r.permutations } else { 0 },
            seed: r.seed,
            threads: 1,
        };
        let (cal, permutation_test) = group_calibration_sorted(sorted_groups, &settings);
        let answer = SlicesAnswer {
            model: r.model,
            binning: Some(r.binning),
            m: r.m,
            min_size: r.min_size,
            seed: r.seed,
            columns: groups.columns.clone(),
            groups: self
                .slices
                .groups
                .iter()
                .enumerate()
                .map(|(g, d)| SliceGroup {
                    group: groups.names[g].clone(),
                    values: groups.values[g].clone(),
                    n: d.rows.len(),
                    too_small: !cal.eligible[g],
                    accuracy: d.risk.acc,
                    ece: cal.ece[g],
                    smece: d.smece,
                    csr: d.risk.csr,
                    p_risk: d.risk.p_risk,
                    rows: reliability_table(&d.sorted, r.binning, r.m, DEFAULT_ALPHA),
                    verdict: None,
                })
                .collect(),
            worst: cal.worst,
            spread: cal.spread,
            eligible_groups: cal.eligible.iter().filter(|&&e| e).count(),
            ..SlicesAnswer::default()
        };
        Ok(Some((answer, cal, permutation_test)))
    }

    /// The whole set's reading `reading` of `model`, sorted (kept for the next brush).
    fn whole_reading(&mut self, model: usize, reading: Reading) -> Result<(), String> {
        if self
            .slices
            .whole
            .as_ref()
            .is_some_and(|(k, _)| *k == (model, reading))
        {
            return Ok(());
        }
        let set = &self.models[model].set;
        let class = |r: usize| -> Result<Pairs, String> {
            let view = ProbView::new(set)
                .ok_or("top-label data has no class readings: brush the confidence")?;
            if r >= set.k {
                return Err(format!("there is no class {r}"));
            }
            Ok(reading::class_pairs(&view, r))
        };
        let pairs = match reading {
            Reading::Confidence => reading::top_labels(set).pairs(),
            Reading::Positive if set.kind() == Kind::Binary => class(1)?,
            Reading::Positive => return Err("the positive-class reading needs binary data".into()),
            Reading::Class(r) => class(r)?,
        };
        let order = calibscope_core::auc::sort_order(&pairs.forecast);
        let sorted = SortedReading::from_sorted(
            calibscope_core::auc::gather(&pairs.forecast, &order),
            &calibscope_core::auc::gather(&pairs.outcome, &order),
        );
        self.slices.whole = Some((
            (model, reading),
            WholeReading {
                pairs,
                sorted,
                order,
            },
        ));
        Ok(())
    }

    /// Writes [`BinIndex`] for the request's set (kept for its next page).
    fn bin_index(&mut self, r: &BrushRequest) -> Result<(), String> {
        let key = (r.model, r.reading, r.group, r.binning, r.m);
        if self.slices.index.as_ref().is_some_and(|i| i.key == key) {
            return Ok(());
        }
        let (sorted, order, len) = match r.group {
            Some(g) => {
                if r.reading != Reading::Confidence {
                    return Err("a group's diagrams are of the confidence".into());
                }
                self.slices_model(r.model);
                let d = self
                    .slices
                    .groups
                    .get(g)
                    .ok_or_else(|| format!("there is no group {g}"))?;
                (&d.sorted, &d.order, d.rows.len())
            }
            None => {
                self.whole_reading(r.model, r.reading)?;
                let w = &self.slices.whole.as_ref().expect("made above").1;
                (&w.sorted, &w.order, w.order.len())
            }
        };
        let mut bin = vec![u32::MAX; len];
        sorted.for_each_bin(r.binning, r.m, |b| {
            for &i in &order[b.start..b.end] {
                bin[i as usize] = b.index as u32;
            }
        });
        self.slices.index = Some(BinIndex { key, bin });
        Ok(())
    }

    /// Answers a [`crate::proto::ToWorker::Brush`]: a page of the bin's rows in
    /// sample order, or all of them as CSV.
    pub fn brush(&mut self, id: u64, gen: u64, r: &BrushRequest) -> FromWorker {
        let bad = |msg: String| worker_error(id, codes::BAD_PARAMETERS, msg);
        if r.model >= self.models.len() {
            return bad(format!("there is no model {}", r.model));
        }
        if r.m == 0 || r.bin >= r.m {
            return bad(format!("bin {} of {} bins does not exist", r.bin, r.m));
        }
        self.slices_model(r.model);
        if let Err(e) = self.bin_index(r) {
            return bad(e);
        }
        let index = &self.slices.index.as_ref().expect("made above").bin;
        let target = r.bin as u32;
        // the sample of the k-th entry of the index
        let sample = |k: usize| match r.group {
            Some(g) => self.slices.groups[g].rows[k] as usize,
            None => k,
        };
        let total = index.iter().filter(|&&b| b == target).count();
        let hits = index
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == target)
            .map(|(k, _)| sample(k));
        let limit = r.limit.clamp(1, MAX_PAGE);
        let forecast = |i: usize| match (r.group, &self.slices.whole) {
            (None, Some((_, w))) => w.pairs.forecast[i],
            _ => self.slices.top.as_ref().expect("made").1.confidence[i],
        };
        let row = |i: usize| self.brush_row(i, forecast(i));
        let (rows, csv) = if r.csv {
            (Vec::new(), Some(self.brush_csv(hits.map(row), r.reading)))
        } else {
            (hits.skip(r.offset).take(limit).map(row).collect(), None)
        };
        FromWorker::Brushed {
            id,
            gen,
            answer: BrushAnswer {
                model: r.model,
                reading: Some(r.reading),
                binning: Some(r.binning),
                m: r.m,
                bin: r.bin,
                group: r.group,
                total,
                offset: r.offset,
                rows,
                group_columns: self
                    .dataset
                    .groups
                    .as_ref()
                    .map_or(Vec::new(), |g| g.columns.clone()),
                has_id: self.dataset.ids.is_some(),
                csv,
            },
        }
    }

    /// Sample `i`'s row.
    fn brush_row(&self, i: usize, forecast: f64) -> BrushRow {
        let names = &self.dataset.class_names;
        let name = |c: u32| {
            names
                .get(c as usize)
                .cloned()
                .unwrap_or_else(|| c.to_string())
        };
        let (model, top) = self.slices.top.as_ref().expect("made");
        BrushRow {
            row: i + 1,
            id: self.dataset.ids.as_ref().map(|ids| match ids {
                Ids::Int(v) => v[i].to_string(),
                Ids::Text(v) => v[i].clone(),
            }),
            label: name(self.models[*model].set.labels[i]),
            prediction: name(top.predicted[i]),
            forecast,
            groups: self
                .dataset
                .groups
                .as_ref()
                .map_or(Vec::new(), |g| g.values[g.codes[i] as usize].clone()),
        }
    }

    /// The rows as CSV: `row`, `id` (when there are ids), `label`, `prediction`, the
    /// reading's forecast (`confidence`, `p_positive` or `p_class_R`) and the
    /// grouping columns; numbers at full precision.
    fn brush_csv(&self, rows: impl Iterator<Item = BrushRow>, reading: Reading) -> String {
        use calibscope_audit::csv::field;
        let mut head = vec!["row".to_string()];
        if self.dataset.ids.is_some() {
            head.push("id".into());
        }
        head.push("label".into());
        head.push("prediction".into());
        head.push(match reading {
            Reading::Confidence => "confidence".into(),
            Reading::Positive => "p_positive".into(),
            Reading::Class(r) => format!("p_class_{r}"),
        });
        if let Some(g) = &self.dataset.groups {
            head.extend(g.columns.iter().cloned());
        }
        let mut out = head.iter().map(|h| field(h)).collect::<Vec<_>>().join(",");
        out.push('\n');
        for r in rows {
            let mut cells = vec![r.row.to_string()];
            if let Some(id) = &r.id {
                cells.push(field(id));
            }
            cells.push(field(&r.label));
            cells.push(field(&r.prediction));
            cells.push(format!("{}", r.forecast));
            cells.extend(r.groups.iter().map(|v| field(v)));
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
#[path = "slices_tests.rs"]
mod tests;

#[path = "slices_job.rs"]
mod job;
pub use job::SlicesJob;
