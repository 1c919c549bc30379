use super::*;
use crate::synth::boosted_logits;

fn logit_set(n: usize, k: usize, seed: u64) -> PredictionSet {
    let (z, y) = boosted_logits(n, k, seed);
    PredictionSet {
        labels: y,
        scores: Scores::Matrix {
            values: Values::F32(z),
            k,
            source: Source::Logits,
        },
        k,
    }
}

fn probs(set: &PredictionSet) -> Vec<f64> {
    match &set.scores {
        Scores::Column {
            values: Values::F64(v),
            ..
        }
        | Scores::Matrix {
            values: Values::F64(v),
            ..
        } => v.clone(),
        other => panic!("probabilities expected, got {other:?}"),
    }
}

#[test]
fn binary_maps_equal_the_fits_on_the_calibration_probabilities() {
    let set = logit_set(2_000, 2, 7);
    let split = stratified_split(&set.labels, 2, 3, 0.5);
    let (u, cols) = class_probabilities(&set, &split.calibration);
    assert_eq!(cols, 1);
    let y: Vec<bool> = split
        .calibration
        .iter()
        .map(|&i| set.labels[i] == 1)
        .collect();
    let beta = fit_beta(&u, &y).unwrap();
    let hist = fit_histogram(&u, &y, 15).unwrap();
    let va = fit_venn_abers(&u, &y).unwrap();
    let (u_eval, _) = class_probabilities(&set, &split.evaluation);
    for (method, bins) in [
        (ProbMethod::Beta, Bins::Fixed(15)),
        (ProbMethod::Histogram, Bins::Fixed(15)),
        (ProbMethod::VennAbers, Bins::Fixed(15)),
    ] {
        let out = fit_prob_map(&set, &split, method, bins).unwrap();
        let p = probs(&out.after);
        assert_eq!(p.len(), split.evaluation.len());
        for (j, &x) in u_eval.iter().enumerate() {
            let want = match method {
                ProbMethod::Beta => beta.predict(x),
                ProbMethod::Histogram => hist.predict(x),
                ProbMethod::VennAbers => va.predict(x).p,
                other => unreachable!("{other:?} is not listed above"),
            };
            assert_eq!(p[j], want, "{method:?} row {j}");
        }
        assert_eq!(out.bins.is_some(), method == ProbMethod::Histogram);
        // every row, with Venn-Abers' intervals around the merged probability
        let all: Vec<usize> = (0..set.n()).collect();
        let applied = out.apply(&set, &all).unwrap();
        assert_eq!(applied.set.n(), set.n());
        match method {
            ProbMethod::VennAbers => {
                let iv = applied.intervals.unwrap();
                for (p, [lo, hi]) in probs(&applied.set).iter().zip(iv) {
                    assert!(lo <= *p && *p <= hi, "{lo} <= {p} <= {hi}");
                }
            }
            _ => assert!(applied.intervals.is_none()),
        }
    }
}

#[test]
fn multiclass_maps_are_one_vs_rest_on_softmax_then_renormalised() {
    let k = 4;
    let set = logit_set(3_000, k, 11);
    let split = stratified_split(&set.labels, k, 0, 0.5);
    let (u_cal, _) = class_probabilities(&set, &split.calibration);
    let (u_eval, _) = class_probabilities(&set, &split.evaluation);
    let out = fit_prob_map(&set, &split, ProbMethod::Histogram, Bins::Fixed(10)).unwrap();
    let p = probs(&out.after);
    // the naive oracle: a histogram per class on its softmax column, rows divided by their sums
    let fits: Vec<HistogramFit> = (0..k)
        .map(|r| {
            let x: Vec<f64> = (0..split.calibration.len())
                .map(|j| u_cal[j * k + r])
                .collect();
            let y: Vec<bool> = split
                .calibration
                .iter()
                .map(|&i| set.labels[i] as usize == r)
                .collect();
            fit_histogram(&x, &y, 10).unwrap()
        })
        .collect();
    for j in 0..split.evaluation.len() {
        let raw: Vec<f64> = (0..k).map(|r| fits[r].predict(u_eval[j * k + r])).collect();
        let sum: f64 = raw.iter().sum();
        for r in 0..k {
            let want = if sum == 0.0 { 0.25 } else { raw[r] / sum };
            assert!((p[j * k + r] - want).abs() < 1e-15, "row {j} class {r}");
        }
    }
    for method in [ProbMethod::Beta, ProbMethod::VennAbers] {
        let out = fit_prob_map(&set, &split, method, Bins::Fixed(15)).unwrap();
        assert_eq!(out.fits.len(), k);
        for row in probs(&out.after).chunks_exact(k) {
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }
}

#[test]
fn undefined_cases() {
    let set = logit_set(200, 2, 1);
    let empty = Split {
        calibration: Vec::new(),
        evaluation: (0..200).collect(),
    };
    for method in [
        ProbMethod::Beta,
        ProbMethod::Histogram,
        ProbMethod::VennAbers,
    ] {
        assert_eq!(
            fit_prob_map(&set, &empty, method, Bins::Fixed(15)),
            Err(Undefined::EmptyCalibrationSplit)
        );
    }
    // a calibration split of negatives only: beta is undefined, the others are 0 or 1
    let negatives: Vec<usize> = (0..200).filter(|&i| set.labels[i] == 0).collect();
    let one_class = Split {
        calibration: negatives,
        evaluation: (0..200).collect(),
    };
    assert_eq!(
        fit_prob_map(&set, &one_class, ProbMethod::Beta, Bins::Fixed(15)),
        Err(Undefined::MissingClass {
            class: 1,
            positive: true
        })
    );
    let h = fit_prob_map(&set, &one_class, ProbMethod::Histogram, Bins::Fixed(15)).unwrap();
    assert!(probs(&h.after).iter().all(|&p| p == 0.0));
    let top = PredictionSet {
        labels: vec![0, 1],
        scores: Scores::TopLabel {
            predicted: vec![0, 1],
            confidence: Values::F64(vec![0.6, 0.7]),
        },
        k: 2,
    };
    let split = stratified_split(&top.labels, 2, 0, 0.5);
    assert_eq!(
        fit_prob_map(&top, &split, ProbMethod::VennAbers, Bins::Fixed(15)),
        Err(Undefined::TopLabel)
    );
}

#[test]
fn folds_are_disjoint_covering_stratified_and_nested_in_the_split() {
    let set = logit_set(1_003, 3, 5);
    let split = stratified_split(&set.labels, 3, 9, 0.5);
    let cal = &split.calibration;
    let parts = folds(&set.labels, 3, cal, 0, 5);
    assert_eq!(parts.len(), 5);
    let mut seen = vec![0; cal.len()];
    for part in &parts {
        assert!(part.windows(2).all(|w| w[0] < w[1]), "ascending");
        for &j in part {
            seen[j] += 1;
        }
    }
    assert!(
        seen.iter().all(|&c| c == 1),
        "each calibration row in one fold"
    );
    for r in 0..3u32 {
        let counts: Vec<usize> = parts
            .iter()
            .map(|p| p.iter().filter(|&&j| set.labels[cal[j]] == r).count())
            .collect();
        let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(hi - lo <= 1, "class {r}: {counts:?}");
    }
    // the first j folds are the contract's split of the calibration labels at j / K
    let y: Vec<u32> = cal.iter().map(|&i| set.labels[i]).collect();
    let mut first_two: Vec<usize> = parts[0].iter().chain(&parts[1]).copied().collect();
    first_two.sort_unstable();
    assert_eq!(first_two, stratified_split(&y, 3, 0, 0.4).calibration);
    assert_eq!(parts, folds(&set.labels, 3, cal, 0, 5), "deterministic");
}

#[test]
fn cross_fitting_scores_each_candidate_by_held_out_brier_and_takes_the_lowest() {
    let set = logit_set(1_500, 2, 21);
    let split = stratified_split(&set.labels, 2, 0, 0.5);
    let (u, cols) = class_probabilities(&set, &split.calibration);
    let cf = choose_bins(&u, cols, &set.labels, &split, 5);
    assert_eq!(cf.folds, 5);
    assert_eq!(cf.scores.len(), BIN_CANDIDATES.len());
    // the naive oracle for one candidate: refit on the other folds, score the fold
    let parts = folds(&set.labels, 2, &split.calibration, 0, 5);
    let m = 20;
    let mut total = 0.0;
    for held in &parts {
        let train: Vec<usize> = (0..u.len()).filter(|j| !held.contains(j)).collect();
        let x: Vec<f64> = train.iter().map(|&j| u[j]).collect();
        let y: Vec<bool> = train
            .iter()
            .map(|&j| set.labels[split.calibration[j]] == 1)
            .collect();
        let fit = fit_histogram(&x, &y, m).unwrap();
        for &j in held {
            let t = f64::from(set.labels[split.calibration[j]]);
            total += (fit.predict(u[j]) - t).powi(2);
        }
    }
    let got = cf.scores.iter().find(|s| s.0 == m).unwrap().1;
    assert!((got - total / u.len() as f64).abs() < 1e-15);
    let best = cf.scores.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
    assert_eq!(cf.scores.iter().find(|s| s.1 == best).unwrap().0, cf.chosen);
    let out = fit_prob_map(
        &set,
        &split,
        ProbMethod::Histogram,
        Bins::CrossFit { folds: 5 },
    )
    .unwrap();
    assert_eq!(out.bins, Some(cf.chosen));
    assert_eq!(out.cross_fit, Some(cf));
}
