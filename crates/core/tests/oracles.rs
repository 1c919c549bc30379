//! Fast routines against naive oracles on small random inputs, and the identities
//! of the contract (METRICS.md §2–5).

use calibscope_core::auc::{auc, weighted_auc, SortedColumn};
use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::binning::{mass_bin_start, width_bin, Binning, SortedReading};
use calibscope_core::rank::{average_ranks, spearman};
use calibscope_core::{PredictionSet, Scores, Source, Values};
use proptest::prelude::*;

/// Forecasts drawn from a coarse grid (many ties, values on bin edges) or continuous.
fn forecasts(max: usize) -> impl Strategy<Value = Vec<f64>> {
    prop_oneof![
        prop::collection::vec((0u32..=20).prop_map(|v| v as f64 / 20.0), 1..max),
        prop::collection::vec(0.0f64..=1.0, 1..max),
    ]
}

fn pairs(max: usize) -> impl Strategy<Value = (Vec<f64>, Vec<bool>)> {
    forecasts(max).prop_flat_map(|u| {
        let n = u.len();
        (Just(u), prop::collection::vec(any::<bool>(), n))
    })
}

/// Naive Mann–Whitney over all pairs.
fn naive_auc(s: &[f64], y: &[bool], w: Option<&[f64]>) -> Option<f64> {
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..s.len() {
        for j in 0..s.len() {
            if y[i] && !y[j] {
                let wij = w.map_or(1.0, |w| w[i] * w[j]);
                let sij = if s[i] > s[j] {
                    1.0
                } else if s[i] == s[j] {
                    0.5
                } else {
                    0.0
                };
                num += wij * sij;
                den += wij;
            }
        }
    }
    (den > 0.0).then(|| num / den)
}

/// Naive binning: assign each sample its bin directly, O(n·m).
fn naive_bins(u: &[f64], binning: Binning, m: usize) -> Vec<usize> {
    match binning {
        Binning::Width => u.iter().map(|&x| width_bin(x, m)).collect(),
        Binning::Mass => {
            let mut order: Vec<usize> = (0..u.len()).collect();
            order.sort_by(|&a, &b| u[a].partial_cmp(&u[b]).unwrap().then(a.cmp(&b)));
            let mut bins = vec![0; u.len()];
            for (j, &i) in order.iter().enumerate() {
                bins[i] = j * m / u.len();
            }
            bins
        }
    }
}

/// Naive ECE / LinCE / CAL / REF / MCE from per-sample bin assignments.
fn naive_metrics(u: &[f64], o: &[bool], binning: Binning, m: usize) -> (f64, f64, f64, f64, f64) {
    let bins = naive_bins(u, binning, m);
    let n = u.len() as f64;
    let (mut ece, mut lince, mut cal, mut refinement, mut mce) = (0.0, 0.0, 0.0, 0.0, 0.0f64);
    for b in 0..m {
        let members: Vec<usize> = (0..u.len()).filter(|&i| bins[i] == b).collect();
        if members.is_empty() {
            continue;
        }
        let nb = members.len() as f64;
        let su: f64 = members.iter().map(|&i| u[i]).sum();
        let so: f64 = members.iter().map(|&i| o[i] as u8 as f64).sum();
        ece += (so - su).abs() / n;
        lince += (su - so).powi(2) / (n * n);
        let (conf, acc) = (su / nb, so / nb);
        cal += nb / n * (conf - acc).powi(2);
        refinement += nb / n * acc * (1.0 - acc);
        mce = mce.max((acc - conf).abs());
    }
    (ece, lince, cal, refinement, mce)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 + 1e-10 * b.abs()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn auc_equals_naive((u, y) in pairs(60)) {
        let fast = auc(&SortedColumn::new(&u, &y, &vec![1.0; u.len()]));
        let slow = naive_auc(&u, &y, None);
        prop_assert_eq!(fast.is_some(), slow.is_some());
        if let (Some(a), Some(b)) = (fast, slow) { prop_assert!(close(a, b), "{a} vs {b}"); }
    }

    #[test]
    fn weighted_auc_equals_naive((u, y) in pairs(60), seed in any::<u64>()) {
        let w: Vec<f64> = (0..u.len()).map(|i| ((seed.wrapping_mul(i as u64 + 7)) % 97) as f64 / 97.0 + 0.01).collect();
        let fast = weighted_auc(&SortedColumn::new(&u, &y, &w));
        let slow = naive_auc(&u, &y, Some(&w));
        prop_assert_eq!(fast.is_some(), slow.is_some());
        if let (Some(a), Some(b)) = (fast, slow) { prop_assert!(close(a, b), "{a} vs {b}"); }
    }

    #[test]
    fn binned_metrics_equal_naive((u, o) in pairs(80), m in 1usize..200, mass in any::<bool>()) {
        let binning = if mass { Binning::Mass } else { Binning::Width };
        let index = SortedReading::from_parts(&u, &o);
        let t = index.metrics(binning, m);
        let (ece, lince, cal, refinement, mce) = naive_metrics(&u, &o, binning, m);
        prop_assert!(close(t.ece.unwrap(), ece));
        prop_assert!(close(t.lince.unwrap(), lince));
        prop_assert!(close(t.cal.unwrap(), cal));
        prop_assert!(close(t.refinement.unwrap(), refinement));
        prop_assert!(close(t.mce.unwrap(), mce));
    }

    #[test]
    fn equal_mass_sizes_differ_by_at_most_one(n in 1usize..500, m in 1usize..600) {
        let sizes: Vec<usize> = (0..m).map(|b| mass_bin_start(b + 1, n, m) - mass_bin_start(b, n, m)).collect();
        prop_assert_eq!(sizes.iter().sum::<usize>(), n);
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        prop_assert!(hi - lo <= 1);
        // position j goes to bin floor(j m / n)
        for b in 0..m {
            for j in mass_bin_start(b, n, m)..mass_bin_start(b + 1, n, m) {
                prop_assert_eq!(j * m / n, b);
            }
        }
    }

    #[test]
    fn brier_decomposition_is_exact((u, o) in pairs(80), m in 1usize..50, mass in any::<bool>()) {
        let binning = if mass { Binning::Mass } else { Binning::Width };
        let t = SortedReading::from_parts(&u, &o).metrics(binning, m);
        let brier = calibscope_core::binning::brier(&calibscope_core::reading::Pairs { forecast: u.clone(), outcome: o.clone() });
        let res = t.res(brier).unwrap();
        prop_assert!(close(t.cal.unwrap() + t.refinement.unwrap() + res, brier.unwrap()));
        // RES vanishes when every bin holds one forecast value
        let distinct = SortedReading::from_parts(&u, &o).metrics(Binning::Mass, u.len());
        prop_assert!(distinct.res(brier).unwrap().abs() < 1e-12);
    }

    #[test]
    fn spearman_equals_naive(x in prop::collection::vec(0u8..6, 3..12), y in prop::collection::vec(0u8..6, 3..12)) {
        let n = x.len().min(y.len());
        let x: Vec<f64> = x[..n].iter().map(|&v| v as f64).collect();
        let y: Vec<f64> = y[..n].iter().map(|&v| v as f64).collect();
        // naive average ranks: 1 + #smaller + (#equal - 1) / 2
        let naive_rank = |v: &[f64]| -> Vec<f64> { v.iter().map(|&a| {
            let smaller = v.iter().filter(|&&b| b < a).count() as f64;
            let equal = v.iter().filter(|&&b| b == a).count() as f64;
            1.0 + smaller + (equal - 1.0) / 2.0 }).collect() };
        prop_assert_eq!(average_ranks(&x), naive_rank(&x));
        let (rx, ry) = (naive_rank(&x), naive_rank(&y));
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (mx, my) = (mean(&rx), mean(&ry));
        let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
        let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
        let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
        let naive = (vx > 0.0 && vy > 0.0).then(|| cov / (vx * vy).sqrt());
        let fast = spearman(&x, &y);
        prop_assert_eq!(fast.is_some(), naive.is_some());
        if let (Some(a), Some(b)) = (fast, naive) { prop_assert!(close(a, b)); }
    }

    #[test]
    fn binning_free_metrics_are_permutation_invariant(rows in prop::collection::vec((prop::collection::vec(-4.0f64..4.0, 3), 0u32..3), 2..40), rot in 0usize..40) {
        let build = |rows: &[(Vec<f64>, u32)]| PredictionSet {
            labels: rows.iter().map(|r| r.1).collect(),
            scores: Scores::Matrix { values: Values::F64(rows.iter().flat_map(|r| r.0.clone()).collect()), k: 3, source: Source::Logits },
            k: 3,
        };
        let mut rotated = rows.clone();
        rotated.rotate_left(rot % rows.len());
        let settings = AuditSettings::default();
        let (a, b) = (Audit::compute(&build(&rows), &settings), Audit::compute(&build(&rotated), &settings));
        let same = |x: Option<f64>, y: Option<f64>| match (x, y) { (Some(x), Some(y)) => close(x, y), (None, None) => true, _ => false };
        prop_assert!(same(a.nll, b.nll));
        prop_assert!(same(a.brier_multiclass, b.brier_multiclass));
        prop_assert!(same(a.accuracy, b.accuracy));
        prop_assert!(same(a.auc_macro(), b.auc_macro()));
        prop_assert!(same(a.cwauc_macro(), b.cwauc_macro()));
        prop_assert!(same(a.risk.csr, b.risk.csr));
        prop_assert!(same(a.risk.cwa, b.risk.cwa));
        prop_assert!(same(a.l_conf, b.l_conf));
    }

    #[test]
    fn confidence_weighted_accuracy_identity(rows in prop::collection::vec((prop::collection::vec(0.01f64..1.0, 4), 0u32..4), 1..60)) {
        // sum_r cwAcc^(r) = (k - 2) + 2 cwA
        let k = 4;
        let mut values = Vec::new();
        for (r, _) in &rows { let s: f64 = r.iter().sum(); values.extend(r.iter().map(|v| v / s)); }
        let set = PredictionSet { labels: rows.iter().map(|r| r.1).collect(), scores: Scores::Matrix { values: Values::F64(values), k, source: Source::Probs }, k };
        let audit = Audit::compute(&set, &AuditSettings::default());
        let sum: f64 = audit.confusion.iter().map(|(cw, _)| cw.accuracy().unwrap()).sum();
        prop_assert!(close(sum, (k as f64 - 2.0) + 2.0 * audit.risk.cwa.unwrap()));
    }
}

/// METRICS.md §2's worked case: equal-width edges with the tolerance.
#[test]
fn width_bins_put_rounded_decimals_where_a_person_expects() {
    assert_eq!(width_bin(0.7 + 0.1, 10), 8);
    assert_eq!(width_bin(0.1 + 0.2, 10), 3);
    assert_eq!(width_bin(0.49999999999999994, 2), 1);
    assert_eq!(width_bin(0.0, 15), 0);
    assert_eq!(width_bin(1.0, 15), 14);
    assert_eq!(width_bin(0.29f32 as f64, 100), 29);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// The sweep index gives the same numbers as the full audit at every m.
    #[test]
    fn sweep_index_matches_the_audit(rows in prop::collection::vec((prop::collection::vec(-3.0f64..3.0, 3), 0u32..3), 1..50), m in 1usize..120) {
        use calibscope_core::sweep::{ModelIndex, SweepMetric};
        let set = PredictionSet {
            labels: rows.iter().map(|r| r.1).collect(),
            scores: Scores::Matrix { values: Values::F64(rows.iter().flat_map(|r| r.0.clone()).collect()), k: 3, source: Source::Logits },
            k: 3,
        };
        let audit = Audit::compute(&set, &AuditSettings { m_values: vec![m], ..AuditSettings::default() });
        let index = ModelIndex::new(&set, true);
        for binning in Binning::ALL {
            let conf = audit.confidence.at(binning, m).unwrap();
            let cw = audit.classwise(binning, m).unwrap();
            let expect = [
                (SweepMetric::ConfEce, conf.ece), (SweepMetric::ConfCe, conf.lince),
                (SweepMetric::RmsceConf, conf.rmsce), (SweepMetric::ConfCeCorr, audit.confce_corr(binning, m)),
                (SweepMetric::LinceCw, cw.lince_cw), (SweepMetric::CwEce, cw.cwece),
            ];
            for (metric, value) in expect {
                prop_assert!(close(index.metric(metric, binning, m).unwrap(), value.unwrap()), "{metric:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(30))]

    /// The equal-width curve over m = 1..=M (one pass over the edges) is, bit for bit,
    /// each m's value computed alone, for every metric; forecasts snap to a coarse
    /// grid so many fall on bin edges.
    #[test]
    fn width_curve_equals_each_count(rows in prop::collection::vec((prop::collection::vec(-3.0f64..3.0, 3), 0u32..3), 1..60), snap in prop::sample::select(vec![0.0f64, 0.5, 0.1, 0.02]), max_m in 16usize..90) {
        use calibscope_core::sweep::{sweep, ModelIndex, SweepMetric};
        let mut values = Vec::new();
        for (r, _) in &rows {
            let e: Vec<f64> = r.iter().map(|v| v.exp()).collect();
            let s: f64 = e.iter().sum();
            values.extend(e.iter().map(|v| if snap > 0.0 { ((v / s) / snap).round() * snap } else { v / s }));
        }
        let set = PredictionSet {
            labels: rows.iter().map(|r| r.1).collect(),
            scores: Scores::Matrix { values: Values::F64(values), k: 3, source: Source::Probs },
            k: 3,
        };
        let models = [ModelIndex::new(&set, true)];
        let m_values: Vec<usize> = (1..=max_m).collect();
        for metric in SweepMetric::ALL {
            let curve = sweep(&models, metric, Binning::Width, &m_values);
            for (j, &m) in m_values.iter().enumerate() {
                let alone = models[0].metric(metric, Binning::Width, m);
                prop_assert_eq!(curve[j][0].map(f64::to_bits), alone.map(f64::to_bits), "{:?} m = {}", metric, m);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// METRICS.md §6: after temperature scaling every row's argmax and the accuracy
    /// are unchanged, the fitted calibration NLL is not above NLL(τ = 1), and for
    /// binary input the order of the scores and their AUC are unchanged.
    #[test]
    fn temperature_invariants_hold(rows in prop::collection::vec((prop::collection::vec(-6.0f64..6.0, 3), 0u32..3), 8..80), binary in any::<bool>()) {
        use calibscope_core::recal::apply::recalibrate;
        let set = if binary {
            PredictionSet {
                labels: rows.iter().map(|r| r.1 % 2).collect(),
                scores: Scores::Column { values: Values::F64(rows.iter().map(|r| r.0[0]).collect()), source: Source::Logits },
                k: 2,
            }
        } else {
            PredictionSet {
                labels: rows.iter().map(|r| r.1).collect(),
                scores: Scores::Matrix { values: Values::F64(rows.iter().flat_map(|r| r.0.clone()).collect()), k: 3, source: Source::Logits },
                k: 3,
            }
        };
        let run = recalibrate(&set, 7, 0.5);
        if let Ok(t) = run.temperature {
            prop_assert!(t.invariants.nll_cal_not_above_tau1);
            prop_assert!(t.fit.tau >= 0.05 && t.fit.tau <= 20.0);
            // away from exact ties and saturation the argmax cannot move
            prop_assert!(t.invariants.argmax_identical);
            prop_assert!(t.invariants.accuracy_identical);
            if binary {
                prop_assert_eq!(t.invariants.score_order_identical, Some(true));
                prop_assert_eq!(t.invariants.score_auc_identical, Some(true));
            }
        }
    }
}
