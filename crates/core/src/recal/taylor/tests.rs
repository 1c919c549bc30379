//! The windows against the direct kernels.

mod polynomials {
    use super::super::cumulant::cumulant_polynomials;

    #[test]
    fn cumulants_of_a_bernoulli() {
        let p = cumulant_polynomials();
        assert_eq!(p[2], vec![0.0, 1.0]); // w
        assert_eq!(p[3], vec![0.0, 1.0]); // q w
        assert_eq!(p[4], vec![0.0, 1.0, -6.0]); // w (1 - 6 w)
        assert_eq!(p[5], vec![0.0, 1.0, -12.0]); // q w (1 - 12 w)
        assert_eq!(p[6], vec![0.0, 1.0, -30.0, 120.0]);
    }
}

mod windows {
    use super::super::*;
    use crate::recal::kernel::{binary_sums, multiclass_sums};

    /// A deterministic pseudo-random stream in [0, 1).
    fn stream(seed: u64) -> impl FnMut() -> f64 {
        let mut x = seed;
        move || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    /// Asserts the window within `tol` (relative) of the direct kernel at `points + 1`
    /// evenly spaced `beta` in `[lo, hi]`; returns the worst relative difference.
    #[allow(clippy::too_many_arguments)]
    fn check_window<T: crate::data::Real>(
        w: &Window,
        z: &[T],
        k: usize,
        stats: &RowStats<'_>,
        (lo, hi): (f64, f64),
        points: usize,
        tol: f64,
        what: &str,
    ) -> f64 {
        let mut worst: f64 = 0.0;
        for i in 0..=points {
            let beta = lo + (hi - lo) * i as f64 / points as f64;
            let direct = multiclass_sums(z, k, stats, [LOG2_E * beta])[0];
            let got = w.log_sum(beta);
            worst = worst.max(rel(got, direct));
            assert!(
                rel(got, direct) < tol,
                "{what}, beta {beta}: {got} vs {direct}"
            );
        }
        worst
    }

    #[test]
    fn multiclass_window_matches_the_direct_sum() {
        let mut worst: f64 = 0.0;
        let mut u = stream(3);
        let (n, k) = (300, 12);
        let mut z: Vec<f64> = (0..n * k).map(|_| 8.0 * (u() - 0.5)).collect();
        // a few extreme rows: huge spreads (dropped terms), ties, a confident row
        z[5 * k + 3] = -400.0;
        z[6 * k + 1] = z[6 * k];
        z[7 * k] = 90.0;
        let mut max = vec![];
        let mut argmax = vec![];
        for row in z.chunks(k) {
            let (mut m, mut a) = (f64::NEG_INFINITY, 0);
            for (j, &v) in row.iter().enumerate() {
                if v > m {
                    (m, a) = (v, j);
                }
            }
            max.push(m);
            argmax.push(a as u32);
        }
        let x_max = z
            .chunks(k)
            .zip(&max)
            .map(|(row, m)| m - row.iter().fold(f64::INFINITY, |a, &v| a.min(v)))
            .fold(0.0, f64::max);
        let stats = RowStats {
            rows: None,
            n,
            max,
            argmax,
        };
        for (lo, hi) in [(0.5, 0.505), (1.0, 1.0399), (0.1, 0.10399), (19.0, 19.759)] {
            let w = multiclass_window(&z, k, &stats, x_max, lo, hi).expect("narrow enough");
            let found = check_window(&w, &z, k, &stats, (lo, hi), 20, 4e-16, "built");
            worst = worst.max(found);
        }
        // re-centred windows: narrower brackets inside, lower orders
        let mut w = multiclass_window(&z, k, &stats, x_max, 1.0, 1.0399).unwrap();
        let (mut lo, mut hi) = (1.0, 1.0399);
        for step in 0..12 {
            // shrink towards a point off-centre, as the golden-section bracket does
            let target = 1.0 + 0.0399 * 0.7;
            (lo, hi) = (lo + 0.4 * (target - lo), hi - 0.4 * (hi - target));
            w.recenter(lo, hi);
            let what = format!("step {step}");
            let found = check_window(&w, &z, k, &stats, (lo, hi), 10, 4e-16, &what);
            worst = worst.max(found);
        }
        eprintln!("multiclass window: worst relative difference {worst:e}");
        assert_eq!(
            multiclass_window(&z, k, &stats, x_max, 1.0, 1.1).unwrap_err(),
            NoWindow::NotYet
        );
    }

    /// Logits of a moderate range (no dropped terms): the window is built wider, with
    /// a lower order, and once `x_max h <= 1/4` re-centring turns it into one series
    /// (`log_series.rs`); every stage agrees with the direct kernel.
    #[test]
    fn multiclass_series_matches_the_direct_sum() {
        let mut u = stream(9);
        let (n, k) = (400, 30);
        let mut z: Vec<f32> = (0..n * k).map(|_| (9.0 * (u() - 0.5)) as f32).collect();
        z[3 * k + 2] = z[3 * k + 5]; // a tie
        let (mut max, mut argmax, mut x_max) = (vec![], vec![], 0.0f64);
        for row in z.chunks(k) {
            let (mut m, mut a, mut lo) = (f64::NEG_INFINITY, 0, f64::INFINITY);
            for (j, &v) in row.iter().enumerate() {
                if f64::from(v) > m {
                    (m, a) = (f64::from(v), j);
                }
                lo = lo.min(f64::from(v));
            }
            max.push(m);
            argmax.push(a as u32);
            x_max = x_max.max(m - lo);
        }
        let stats = RowStats {
            rows: None,
            n,
            max,
            argmax,
        };
        // x_max ~ 9: built at a relative width the 50 / beta_lo rule would refuse
        let (mut lo, mut hi) = (0.6, 0.6 + 0.9 / x_max);
        let mut w = multiclass_window(&z, k, &stats, x_max, lo, hi).expect("x_max h <= 1");
        let mut became_series = false;
        let mut worst: f64 = 0.0;
        for step in 0..40 {
            let what = format!("step {step}");
            let found = check_window(&w, &z, k, &stats, (lo, hi), 10, 1e-15, &what);
            worst = worst.max(found);
            let target = 0.6 + 0.37 / x_max;
            (lo, hi) = (lo + 0.38 * (target - lo), hi - 0.38 * (hi - target));
            w.recenter(lo, hi);
            became_series |= matches!(w.kind, Kind::Binary { .. });
        }
        eprintln!("multiclass series: worst relative difference {worst:e}");
        assert!(became_series, "the window never became one series");
    }

    #[test]
    fn binary_window_matches_the_direct_sum() {
        let mut worst: f64 = 0.0;
        let mut u = stream(5);
        let mut a: Vec<f64> = (0..1000).map(|_| 12.0 * u() * u()).collect();
        a[10] = 0.0;
        a[11] = 3000.0; // irrelevant: variation dropped, value kept
        let a_max_rel = 12.0;
        for (lo, hi) in [(0.9, 0.93), (1.0, 1.0416), (10.0, 10.05), (0.05, 0.06)] {
            let direct0 = binary_sums(&a, [LOG2_E * lo])[0];
            let est = direct0 / a.len() as f64;
            let w = binary_window(&a, 3000.0, 0.0, lo, hi, est);
            let w = match w {
                Ok(w) => w,
                Err(e) => panic!(
                    "[{lo}, {hi}]: {e:?} (a h = {})",
                    a_max_rel * (hi - lo) / 2.0
                ),
            };
            for i in 0..=20 {
                let beta = lo + (hi - lo) * i as f64 / 20.0;
                let direct = binary_sums(&a, [LOG2_E * beta])[0];
                let got = w.log_sum(beta);
                worst = worst.max(rel(got, direct));
                assert!(rel(got, direct) < 4e-16, "beta {beta}: {got} vs {direct}");
            }
        }
        eprintln!("binary window: worst relative difference {worst:e}");
    }
}
