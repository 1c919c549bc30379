//! The §8 point values of a model (everything but the bootstrap), computed in
//! parts: [`PendingPoints::step`] runs one part (the sorting of the confidence
//! reading, or one estimator on one reading), so the worker, which has one thread,
//! can answer the page between parts. On 4.75M rows the parts together take ~2.3 s
//! natively; as one call they kept the page's first diagram waiting that long.

use crate::num;
use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::bootstrap::BootReading;
use calibscope_core::calibration_tests::{
    cumulative_test, hosmer_lemeshow, spiegelhalter, HL_GROUPS,
};
use calibscope_core::estimators::{caldist, ece_l2_debiased, ece_sweep};
use calibscope_core::reading::{class_pairs, top_labels, Pairs, ProbView};
use calibscope_core::smece::smece;
use calibscope_core::{Kind, PredictionSet};
use serde_json::{json, Map, Value};

/// One part of a reading's point values: adds its keys to the reading's map.
type PointPart = fn(&Pairs, &SortedReading, &[usize], &mut Map<String, Value>);

/// The parts of a reading's point values: `d`, smECE and its bandwidth; CalDist;
/// ECE_sweep; the three tests; per binning and `m` the debiased L2 error (under
/// `<binning>.<m>.ece_l2_debiased`, merged into the reading's tables by the caller).
const POINT_PARTS: [PointPart; 5] = [
    |pairs, _, _, out| {
        let (u, o) = (&pairs.forecast, &pairs.outcome);
        let n = u.len();
        let d = (n > 0).then(|| {
            let gap: calibscope_core::sum::Sum =
                u.iter().zip(o).map(|(&x, &y)| x - y as u8 as f64).collect();
            gap.value() / n as f64
        });
        out.insert("d".into(), num(d));
        let smooth = smece(u, o);
        out.insert("smece".into(), num(smooth.as_ref().map(|s| s.smece)));
        out.insert("smece_sigma".into(), num(smooth.as_ref().map(|s| s.sigma)));
    },
    |pairs, _, _, out| {
        out.insert(
            "caldist".into(),
            num(caldist(&pairs.forecast, &pairs.outcome)),
        );
    },
    |_, sorted, _, out| {
        out.insert(
            "ece_sweep".into(),
            ece_sweep(sorted).map_or(
                Value::Null,
                |s| json!({"b": s.b, "ece": num(Some(s.ece)), "rmsce": num(Some(s.rmsce))}),
            ),
        );
    },
    |pairs, sorted, _, out| {
        let sp = spiegelhalter(&pairs.forecast, &pairs.outcome);
        let hl = hosmer_lemeshow(sorted, HL_GROUPS);
        let cu = cumulative_test(sorted);
        out.insert(
            "tests".into(),
            json!({
                "spiegelhalter": sp.map_or(Value::Null, |t| json!({"z": num(Some(t.z)), "p": num(Some(t.p))})),
                "hosmer_lemeshow": hl.map_or(Value::Null, |t| json!({"h": num(Some(t.h)), "p": num(Some(t.p)), "groups": t.groups})),
                "cumulative": cu.map_or(Value::Null, |t| json!({"ks": num(Some(t.ks)), "kuiper": num(Some(t.kuiper)), "p_ks": num(Some(t.p_ks))})),
            }),
        );
    },
    |_, sorted, m_values, out| {
        for binning in Binning::ALL {
            let per_m: Map<String, Value> = m_values
                .iter()
                .map(|&m| {
                    (
                        m.to_string(),
                        json!({"ece_l2_debiased": num(ece_l2_debiased(sorted, binning, m))}),
                    )
                })
                .collect();
            out.insert(binning.name().into(), Value::Object(per_m));
        }
    },
];

/// §8 of one model before its bootstrap: the point values and what the verdict
/// needs besides `d`'s interval.
pub(crate) struct ModelPoints {
    pub(super) confidence: Map<String, Value>,
    pub(super) positive: Option<Map<String, Value>>,
    /// The cumulative-differences test's p-value on the confidence reading.
    pub(super) p_ks: Option<f64>,
    pub(super) n: usize,
}

/// A reading whose point values are being computed.
struct ReadingInProgress {
    pairs: Pairs,
    values: Map<String, Value>,
}

/// One step of [`PendingPoints`].
#[derive(Clone, Copy)]
enum Part {
    /// Sorting and indexing the confidence reading ([`BootReading`]).
    Index,
    /// One of [`POINT_PARTS`] on the confidence reading.
    Confidence(PointPart),
    /// The cumulative-differences test's p-value, for the verdict.
    PKs,
    /// Sorting the positive reading of a binary set.
    PositiveSort,
    /// One of [`POINT_PARTS`] on the positive reading.
    Positive(PointPart),
}

/// The point values of one model, computed a part at a time: the confidence
/// reading's index ([`BootReading`], which the bootstrap reuses), its
/// [`POINT_PARTS`], the cumulative test's p-value for the verdict, then for a
/// binary set the positive reading's sorting and its parts.
pub(crate) struct PendingPoints {
    confidence: ReadingInProgress,
    reading: Option<BootReading>,
    p_ks: Option<f64>,
    positive: Option<(ReadingInProgress, Option<SortedReading>)>,
    m_values: Vec<usize>,
    n: usize,
    /// The parts not run yet, in order.
    plan: std::collections::VecDeque<Part>,
}

impl PendingPoints {
    /// The parts of `set`'s point values at bin counts `m_values`, none run yet
    /// (building the readings' pairs is all this does).
    pub(crate) fn new(set: &PredictionSet, m_values: &[usize]) -> PendingPoints {
        let positive = (set.kind() == Kind::Binary).then(|| {
            let view = ProbView::new(set).expect("a binary set has probability vectors");
            let pairs = class_pairs(&view, 1);
            (
                ReadingInProgress {
                    pairs,
                    values: Map::new(),
                },
                None,
            )
        });
        let mut plan = std::collections::VecDeque::from([Part::Index]);
        plan.extend(POINT_PARTS.map(Part::Confidence));
        plan.push_back(Part::PKs);
        if positive.is_some() {
            plan.push_back(Part::PositiveSort);
            plan.extend(POINT_PARTS.map(Part::Positive));
        }
        PendingPoints {
            confidence: ReadingInProgress {
                pairs: top_labels(set).pairs(),
                values: Map::new(),
            },
            reading: None,
            p_ks: None,
            positive,
            m_values: m_values.to_vec(),
            n: set.n(),
            plan,
        }
    }

    /// Whether the model has no sample (its bootstrap runs no replicate).
    pub(crate) fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether every part has run.
    pub(crate) fn is_done(&self) -> bool {
        self.plan.is_empty()
    }

    /// Runs the next part; `false` when none was left.
    pub(crate) fn step(&mut self) -> bool {
        let Some(part) = self.plan.pop_front() else {
            return false;
        };
        let m = &self.m_values;
        let index = "the index is the first part";
        match part {
            Part::Index => {
                let pairs = &self.confidence.pairs;
                self.reading = Some(BootReading::new(&pairs.forecast, &pairs.outcome));
            }
            Part::Confidence(run) => {
                let sorted = self.reading.as_ref().expect(index).sorted();
                let c = &mut self.confidence;
                run(&c.pairs, sorted, m, &mut c.values);
            }
            Part::PKs => {
                let sorted = self.reading.as_ref().expect(index).sorted();
                self.p_ks = cumulative_test(sorted).map(|c| c.p_ks);
            }
            Part::PositiveSort => {
                let (p, sorted) = self.positive.as_mut().expect("planned for a binary set");
                *sorted = Some(SortedReading::new(&p.pairs));
            }
            Part::Positive(run) => {
                let (p, sorted) = self.positive.as_mut().expect("planned for a binary set");
                let sorted = sorted.as_ref().expect("sorted before its parts");
                run(&p.pairs, sorted, m, &mut p.values);
            }
        }
        true
    }

    /// Runs the parts left and returns the point values with the confidence
    /// reading's index.
    pub(crate) fn run(mut self) -> (ModelPoints, BootReading) {
        while self.step() {}
        let points = ModelPoints {
            confidence: self.confidence.values,
            positive: self.positive.map(|(p, _)| p.values),
            p_ks: self.p_ks,
            n: self.n,
        };
        (points, self.reading.expect("built by the first part"))
    }
}
