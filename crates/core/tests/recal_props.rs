//! Properties of the recalibration fits (proptest).

use calibscope_core::recal::{
    fit_isotonic, fit_platt, golden_section, golden_section_reuse, BinaryNll, MulticlassNll,
    PlattStatus, TemperatureObjective, TemperatureOptions,
};
use proptest::prelude::*;

/// Naive pool-adjacent-violators, O(n^2): one block per distinct score (equal scores
/// pooled), then merge the first adjacent pair whose left value exceeds the right one
/// until none does. Returns (distinct scores, value per distinct score).
fn naive_pav(scores: &[f64], labels: &[bool]) -> (Vec<f64>, Vec<f64>) {
    let mut pairs: Vec<(f64, bool)> = scores.iter().copied().zip(labels.iter().copied()).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    // blocks: (first knot, knots, positives, count)
    let mut xs = Vec::new();
    let mut blocks: Vec<(usize, u64, u64)> = Vec::new();
    for (s, y) in pairs {
        if xs.last() == Some(&s) {
            let b = blocks.last_mut().unwrap();
            b.1 += y as u64;
            b.2 += 1;
        } else {
            xs.push(s);
            blocks.push((1, y as u64, 1));
        }
    }
    loop {
        let violation = (0..blocks.len().saturating_sub(1)).find(|&i| {
            let (l, r) = (blocks[i], blocks[i + 1]);
            (l.1 as u128) * (r.2 as u128) > (r.1 as u128) * (l.2 as u128)
        });
        let Some(i) = violation else { break };
        let r = blocks.remove(i + 1);
        let l = &mut blocks[i];
        *l = (l.0 + r.0, l.1 + r.1, l.2 + r.2);
    }
    let mut values = Vec::new();
    for (knots, pos, count) in blocks {
        values.extend(std::iter::repeat_n(pos as f64 / count as f64, knots));
    }
    (xs, values)
}

fn scores_and_labels(max_len: usize) -> impl Strategy<Value = (Vec<f64>, Vec<bool>)> {
    (1..max_len).prop_flat_map(|n| {
        (
            // few distinct values, so that ties and pooling happen
            prop::collection::vec((-6i32..6).prop_map(|v| v as f64 * 0.5), n),
            prop::collection::vec(any::<bool>(), n),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn golden_section_finds_the_minimum_of_a_convex_quadratic(
        m in 0.06f64..19.9,
        c in 0.01f64..100.0,
        d in -10.0f64..10.0,
    ) {
        let f = |x: f64| c * (x - m) * (x - m) + d;
        // beyond ~sqrt(eps |d| / c) of m, f is flat to rounding: comparisons are noise
        let tol = 1e-9 * m + 10.0 * (f64::EPSILON * d.abs().max(1e-300) / c).sqrt();
        let g = golden_section(f, 0.05, 20.0, 80);
        prop_assert!((g.x - m).abs() <= tol, "x {} m {} tol {}", g.x, m, tol);
        prop_assert!(g.lo <= g.x && g.x <= g.hi);
        prop_assert!(g.trace.last().unwrap().width < 1e-12);
        prop_assert_eq!(g.at_bracket_end, (m - 0.05).abs() <= 1e-6 || (20.0 - m).abs() <= 1e-6);
        let best = g.trace.last().unwrap();
        prop_assert!(best.best_f <= f(0.05) && best.best_f <= f(20.0));
        let r = golden_section_reuse(f, 0.05, 20.0, 1e-9, 200);
        prop_assert!((r.x - m).abs() <= tol + 1e-9 * m, "reuse x {} m {}", r.x, m);
    }

    #[test]
    fn golden_section_ends_at_the_bracket_end_for_outside_minima(m in -10.0f64..0.05, up in any::<bool>()) {
        let m = if up { 40.0 - m } else { m };
        let g = golden_section(|x| (x - m) * (x - m), 0.05, 20.0, 80);
        prop_assert!(g.at_bracket_end);
        let end = if up { 20.0 } else { 0.05 };
        prop_assert!((g.x - end).abs() < 1e-12, "x {}", g.x);
    }

    #[test]
    fn platt_is_undefined_with_a_single_class((s, _) in scores_and_labels(40), positive in any::<bool>()) {
        let labels = vec![positive; s.len()];
        prop_assert!(fit_platt(&s, &labels).is_none());
    }

    #[test]
    fn platt_reaches_a_stationary_point((s, y) in scores_and_labels(60)) {
        prop_assume!(y.iter().any(|&v| v) && y.iter().any(|&v| !v));
        let fit = fit_platt(&s, &y).unwrap();
        if s.iter().all(|&v| v == s[0]) {
            prop_assert_eq!(fit.status, PlattStatus::ConstantScores);
            prop_assert_eq!(fit.a, 0.0);
        } else {
            prop_assert_eq!(fit.status, PlattStatus::Converged);
        }
        // no nearby point is better (up to rounding of the objective)
        let (np, nn) = (y.iter().filter(|&&v| v).count() as f64, y.iter().filter(|&&v| !v).count() as f64);
        let (tp, tn) = ((np + 1.0) / (np + 2.0), 1.0 / (nn + 2.0));
        let nll = |a: f64, b: f64| {
            let sp = |x: f64| x.max(0.0) + (-x.abs()).exp().ln_1p();
            s.iter().zip(&y).map(|(&v, &yy)| {
                let t = if yy { tp } else { tn };
                let f = a * v + b;
                t * sp(-f) + (1.0 - t) * sp(f)
            }).sum::<f64>() / s.len() as f64
        };
        let here = nll(fit.a, fit.b);
        prop_assert!((here - fit.nll_cal).abs() <= 1e-14 * here.max(1.0));
        for (da, db) in [(1e-4, 0.0), (-1e-4, 0.0), (0.0, 1e-4), (0.0, -1e-4)] {
            prop_assert!(nll(fit.a + da, fit.b + db) >= here - 1e-15);
        }
    }

    #[test]
    fn isotonic_matches_naive_pav_and_is_monotone((s, y) in scores_and_labels(50), queries in prop::collection::vec(-4.0f64..4.0, 1..40)) {
        let fit = fit_isotonic(&s, &y).unwrap();
        let (xs, values) = naive_pav(&s, &y);
        let (kx, ky) = fit.knots();
        prop_assert_eq!(kx, &xs[..]);
        prop_assert_eq!(ky, &values[..]);
        let mut distinct = values.clone();
        distinct.dedup();
        prop_assert_eq!(fit.distinct_values(), distinct.len());
        // knot values are exactly non-decreasing, and each knot predicts its value
        prop_assert!(ky.windows(2).all(|w| w[0] <= w[1]));
        for (&x, &v) in kx.iter().zip(ky) {
            prop_assert_eq!(fit.predict(x), v);
        }
        // between knots np.interp's slope * (x - x_j) + y_j can round one ulp past
        // y_{j+1}: monotone up to a few ulps
        let mut q = queries.clone();
        q.sort_by(f64::total_cmp);
        let p: Vec<f64> = q.iter().map(|&x| fit.predict(x)).collect();
        for w in p.windows(2) {
            prop_assert!(w[1] >= w[0] - 4.0 * f64::EPSILON, "{} then {}", w[0], w[1]);
        }
        prop_assert!(p.iter().all(|&v| (0.0..=1.0).contains(&v)));
    }

    #[test]
    fn temperature_window_and_direct_fits_agree(
        s in prop::collection::vec(-8.0f64..8.0, 2..300),
        flip in prop::collection::vec(any::<bool>(), 300),
    ) {
        // labels agreeing with the score's sign, flipped now and then
        let y: Vec<bool> = s.iter().zip(&flip).map(|(&v, &f)| (v > 0.0) ^ f).collect();
        let obj = BinaryNll::new(&s, &y, None).unwrap();
        let with = obj.fit(&TemperatureOptions::default());
        let without = obj.fit(&TemperatureOptions { expansion: false, screening: false, ..Default::default() });
        prop_assert!(with.nll_tau <= with.nll_tau1 * (1.0 + 1e-15));
        let dn = (with.nll_tau - without.nll_tau).abs();
        prop_assert!(dn <= 1e-13 * without.nll_tau.max(1e-300), "{} vs {}", with.nll_tau, without.nll_tau);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Screening (`f32` values with an error bound, see `recal/screen.rs`) changes the
    /// cost of the search, never a decision: the same tau bit for bit and the same
    /// trace (exact best values) as the search without it, on binary scores and on
    /// multiclass logits read along the rows (k >= 16).
    #[test]
    fn screening_never_changes_the_fit(
        scale in 0.05f64..40.0,
        shift in -3.0f64..3.0,
        k in prop::sample::select(vec![2usize, 16, 23, 40]),
        raw in prop::collection::vec(-1.0f64..1.0, 40 * 120),
        n in 1usize..120,
        coin in prop::collection::vec(0u32..1000, 120),
    ) {
        let off = TemperatureOptions { screening: false, ..Default::default() };
        let on = TemperatureOptions::default();
        if k == 2 {
            let s: Vec<f64> = raw[..n].iter().map(|v| scale * v + shift).collect();
            let y: Vec<bool> = s.iter().zip(&coin).map(|(&v, &c)| (v > 0.0) ^ (c % 5 == 0)).collect();
            let obj = BinaryNll::new(&s, &y, None).unwrap();
            let (a, b) = (obj.fit(&on), obj.fit(&off));
            prop_assert_eq!(a.tau.to_bits(), b.tau.to_bits());
            prop_assert_eq!(a.trace, b.trace);
            prop_assert_eq!(a.nll_tau.to_bits(), b.nll_tau.to_bits());
        } else {
            let z: Vec<f32> = raw[..n * k].iter().map(|v| (scale * v) as f32).collect();
            let y: Vec<u32> = (0..n)
                .map(|i| {
                    let row = &z[i * k..i * k + k];
                    let top = (0..k).fold(0, |a, j| if row[j] > row[a] { j } else { a });
                    if coin[i] % 4 == 0 { coin[i] % k as u32 } else { top as u32 }
                })
                .collect();
            let obj = MulticlassNll::new(&z, k, &y, None).unwrap();
            let (a, b) = (obj.fit(&on), obj.fit(&off));
            prop_assert_eq!(a.tau.to_bits(), b.tau.to_bits());
            prop_assert_eq!(a.trace, b.trace);
        }
    }
}
