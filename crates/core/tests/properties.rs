//! Property tests of the special functions and the stratified split.

use calibscope_core::special::{beta_cdf, beta_quantile, clopper_pearson, normal_cdf};
use calibscope_core::split::stratified_split;
use proptest::prelude::*;

proptest! {
    #[test]
    fn split_is_a_stratified_partition(
        labels in prop::collection::vec(0u32..6, 0..300),
        k in 1usize..8,
        seed in any::<u64>(),
        fraction in 0.0f64..=1.0,
    ) {
        let s = stratified_split(&labels, k, seed, fraction);
        // Both ascending, disjoint, covering 0..n.
        prop_assert!(s.calibration.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(s.evaluation.windows(2).all(|w| w[0] < w[1]));
        let mut all: Vec<usize> = s.calibration.iter().chain(&s.evaluation).copied().collect();
        all.sort_unstable();
        prop_assert_eq!(all, (0..labels.len()).collect::<Vec<_>>());
        // Per class: floor(len * f) to calibration.
        for r in 0..6u32 {
            let len = labels.iter().filter(|&&y| y == r).count();
            let cal = s.calibration.iter().filter(|&&i| labels[i] == r).count();
            prop_assert_eq!(cal, (len as f64 * fraction).floor() as usize);
        }
        // Deterministic.
        prop_assert_eq!(&s, &stratified_split(&labels, k, seed, fraction));
    }

    #[test]
    fn split_of_a_class_does_not_depend_on_later_classes(
        labels in prop::collection::vec(0u32..3, 1..100),
        seed in any::<u64>(),
    ) {
        // One generator continues across classes in ascending order: appending samples
        // of a new, higher class leaves the earlier classes' split unchanged.
        let s = stratified_split(&labels, 3, seed, 0.5);
        let mut more = labels.clone();
        more.extend([7, 7, 7, 7]);
        let t = stratified_split(&more, 3, seed, 0.5);
        let n = labels.len();
        prop_assert_eq!(
            s.calibration,
            t.calibration.iter().copied().filter(|&i| i < n).collect::<Vec<_>>()
        );
    }

    #[test]
    fn clopper_pearson_brackets_and_is_monotone(
        n in 1u64..3000,
        x_frac in 0.0f64..=1.0,
        alpha in 0.001f64..0.5,
    ) {
        let x = ((n as f64) * x_frac).round() as u64;
        let (lo, hi) = clopper_pearson(x, n, alpha).unwrap();
        let phat = x as f64 / n as f64;
        prop_assert!(0.0 <= lo && lo <= phat && phat <= hi && hi <= 1.0, "{lo} {phat} {hi}");
        if x < n {
            let (lo2, hi2) = clopper_pearson(x + 1, n, alpha).unwrap();
            prop_assert!(lo <= lo2 && hi <= hi2);
        }
        // A wider level (smaller alpha) gives a wider interval.
        let (lo3, hi3) = clopper_pearson(x, n, alpha / 2.0).unwrap();
        prop_assert!(lo3 <= lo && hi <= hi3);
        // The defining equations.
        if x > 0 {
            let p = beta_cdf(lo, x as f64, (n - x + 1) as f64);
            prop_assert!((p - alpha / 2.0).abs() <= 1e-12 + 1e-9 * alpha, "{p} vs {}", alpha / 2.0);
        }
    }

    #[test]
    fn beta_quantile_inverts_the_cdf(
        la in -1.0f64..3.0,
        lb in -1.0f64..3.0,
        p in 1e-9f64..1.0,
    ) {
        let (a, b) = (10f64.powf(la), 10f64.powf(lb));
        let x = beta_quantile(p, a, b);
        prop_assert!((0.0..=1.0).contains(&x));
        if x > 0.0 && x < 1.0 {
            // x is within a few ulps of the true quantile: I_x brackets p there (up to
            // the CDF's own rounding). Near 1 the ulp of x, not the solver, limits how
            // close I_x can get to p, hence the bracket instead of |I_x - p|.
            let tol = 1e-13 + 1e-10 * p.min(1.0 - p);
            let (below, above) = (x * (1.0 - 4.0 * f64::EPSILON), (x * (1.0 + 4.0 * f64::EPSILON)).min(1.0));
            let (lo, hi) = (beta_cdf(below, a, b), beta_cdf(above, a, b));
            prop_assert!(lo <= p + tol && hi >= p - tol, "I({x}; {a}, {b}) in [{lo}, {hi}] vs {p}");
        }
        let x2 = beta_quantile((p * 1.001).min(1.0), a, b);
        prop_assert!(x2 >= x);
    }

    #[test]
    fn normal_cdf_is_monotone_and_symmetric(z in -40.0f64..40.0, dz in 0.0f64..1.0) {
        let (p, q) = (normal_cdf(z), normal_cdf(z + dz));
        prop_assert!((0.0..=1.0).contains(&p) && p <= q);
        prop_assert!((normal_cdf(z) + normal_cdf(-z) - 1.0).abs() <= 2e-16);
    }
}
