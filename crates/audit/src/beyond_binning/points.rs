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
    /// Parts run so far.
    done: usize,
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
            done: 0,
        }
    }

    /// Whether the model has no sample (its bootstrap runs no replicate).
    pub(crate) fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Parts in all.
    fn parts(&self) -> usize {
        let confidence = 2 + POINT_PARTS.len();
        let positive = self.positive.as_ref().map_or(0, |_| 1 + POINT_PARTS.len());
        confidence + positive
    }

    /// Whether every part has run.
    pub(crate) fn is_done(&self) -> bool {
        self.done >= self.parts()
    }

    /// Runs the next part; `false` when none was left.
    pub(crate) fn step(&mut self) -> bool {
        if self.is_done() {
            return false;
        }
        let m = &self.m_values;
        let parts = POINT_PARTS.len();
        match self.done {
            0 => {
                let pairs = &self.confidence.pairs;
                self.reading = Some(BootReading::new(&pairs.forecast, &pairs.outcome));
            }
            i if i <= parts => {
                let sorted = self.reading.as_ref().expect("built first").sorted();
                let c = &mut self.confidence;
                POINT_PARTS[i - 1](&c.pairs, sorted, m, &mut c.values);
            }
            i if i == parts + 1 => {
                let sorted = self.reading.as_ref().expect("built first").sorted();
                self.p_ks = cumulative_test(sorted).map(|c| c.p_ks);
            }
            i => {
                let (p, sorted) = self.positive.as_mut().expect("counted in parts()");
                match i - parts - 2 {
                    0 => *sorted = Some(SortedReading::new(&p.pairs)),
                    k => {
                        let sorted = sorted.as_ref().expect("sorted first");
                        POINT_PARTS[k - 1](&p.pairs, sorted, m, &mut p.values);
                    }
                }
            }
        }
        self.done += 1;
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
