use super::*;
use crate::synth::boosted_logits;

fn data(n: usize, k: usize, seed: u64) -> (Vec<f64>, Vec<u32>) {
    let (z, y) = boosted_logits(n, k, seed);
    (z.iter().map(|&v| f64::from(v)).collect(), y)
}

/// The gradient equals central finite differences of the objective, for every map,
/// with and without ODIR.
#[test]
fn gradient_is_the_objective_s_derivative() {
    let (x, y) = data(300, 4, 3);
    for kind in [
        ScalingKind::Vector,
        ScalingKind::Matrix,
        ScalingKind::Dirichlet,
    ] {
        let odir = Odir {
            lambda: 0.7,
            mu: 0.3,
        };
        let o = Objective::new(kind, 4, &x, &y, odir);
        // a point away from the identity
        let p: Vec<f64> = o
            .identity()
            .iter()
            .enumerate()
            .map(|(i, v)| v + 0.1 * ((i * 7 % 5) as f64 - 2.0))
            .collect();
        let (_, g) = o.evaluate(&p);
        for i in 0..p.len() {
            let h = 1e-6;
            let mut a = p.clone();
            let mut b = p.clone();
            a[i] += h;
            b[i] -= h;
            let fd = (o.evaluate(&a).0 - o.evaluate(&b).0) / (2.0 * h);
            assert!((fd - g[i]).abs() < 1e-7, "{kind:?} {i}: {fd} vs {}", g[i]);
        }
    }
}

/// At the fit the gradient vanishes, the objective is below the identity's, and
/// the map is the softmax of `W x + b` with the last row of `[W | b]` zero.
#[test]
fn fits_reach_a_stationary_point_below_the_identity() {
    let (x, y) = data(2_000, 5, 11);
    for kind in [
        ScalingKind::Vector,
        ScalingKind::Matrix,
        ScalingKind::Dirichlet,
    ] {
        let odir = Odir {
            lambda: 0.1,
            mu: 0.1,
        };
        let fit = fit_scaling(kind, 5, &x, &y, odir, None, FINAL).unwrap();
        assert!(fit.converged, "{kind:?}");
        let used = if kind == ScalingKind::Dirichlet {
            odir
        } else {
            Odir {
                lambda: 0.0,
                mu: 0.0,
            }
        };
        assert_eq!(fit.odir, used);
        let o = Objective::new(kind, 5, &x, &y, used);
        let (c, g) = o.evaluate(&parameters(&fit));
        assert!(
            g.iter().map(|v| v * v).sum::<f64>().sqrt() < 1e-7,
            "{kind:?}"
        );
        assert!(c <= o.evaluate(&o.identity()).0);
        assert_eq!(c, fit.objective);
        assert_eq!(fit.b[4], 0.0);
        if kind != ScalingKind::Vector {
            assert!(fit.w[20..25].iter().all(|&v| v == 0.0));
        }
        let mut q = [0.0; 5];
        fit.predict(&x[..5], &mut q);
        let mut s = [0.0; 5];
        fit.scores(&x[..5], &mut s);
        let e: Vec<f64> = s.iter().map(|v| v.exp()).collect();
        let t: f64 = e.iter().sum();
        for j in 0..5 {
            assert!((q[j] - e[j] / t).abs() < 1e-15);
        }
    }
}

/// Matrix scaling can express vector scaling, so its optimum is not worse; a huge
/// ODIR strength pushes Dirichlet's off-diagonal entries and intercepts to 0.
#[test]
fn nesting_and_strong_regularisation() {
    let (x, y) = data(1_500, 4, 5);
    let none = Odir {
        lambda: 0.0,
        mu: 0.0,
    };
    let v = fit_scaling(ScalingKind::Vector, 4, &x, &y, none, None, FINAL).unwrap();
    let m = fit_scaling(ScalingKind::Matrix, 4, &x, &y, none, None, FINAL).unwrap();
    assert!(m.objective <= v.objective + 1e-12);
    // the penalty is on the reference form (last row of [W | b] zero): stronger ODIR
    // makes that form closer to diagonal, intercepts closer to 0
    let off = |s: f64| {
        let odir = Odir { lambda: s, mu: s };
        let d = fit_scaling(ScalingKind::Dirichlet, 4, &x, &y, odir, None, FINAL).unwrap();
        assert!(d.converged, "{s}");
        let w: f64 = (0..16)
            .filter(|i| i / 4 != i % 4)
            .map(|i| d.w[i] * d.w[i])
            .sum();
        (w, d.b.iter().map(|v| v * v).sum::<f64>())
    };
    let (w_weak, b_weak) = off(0.01);
    let (w_strong, b_strong) = off(100.0);
    assert!(w_strong < w_weak / 10.0, "{w_strong} vs {w_weak}");
    assert!(b_strong < b_weak, "{b_strong} vs {b_weak}");
}

/// Undefined: fewer than 3 classes, no rows, a class without rows, a NaN input.
#[test]
fn undefined_cases() {
    let none = Odir {
        lambda: 0.0,
        mu: 0.0,
    };
    let fit = |k: usize, x: &[f64], y: &[u32]| {
        fit_scaling(ScalingKind::Matrix, k, x, y, none, None, FINAL)
    };
    assert!(fit(2, &[0.0, 1.0, 1.0, 0.0], &[0, 1]).is_none());
    assert!(fit(3, &[], &[]).is_none());
    assert!(fit(3, &[0.0, 1.0, 2.0, 2.0, 1.0, 0.0], &[0, 1]).is_none());
    let x = [0.0, 1.0, 2.0, 2.0, 1.0, 0.0, f64::NAN, 0.0, 0.0];
    assert!(fit(3, &x, &[0, 1, 2]).is_none());
    let (x, y) = data(200, 3, 1);
    let f = fit(3, &x, &y).unwrap();
    let mut out = [0.0; 3];
    f.predict(&[f64::NAN, 0.0, 0.0], &mut out);
    assert!(out.iter().all(|v| v.is_nan()));
}

/// The objective sums fixed chunks of rows in order: one thread or three give the
/// same bits, on more rows than one chunk holds.
#[test]
fn the_objective_does_not_depend_on_the_thread_count() {
    let (x, y) = data(5 * CHUNK_ROWS + 17, 6, 2);
    for kind in [
        ScalingKind::Vector,
        ScalingKind::Matrix,
        ScalingKind::Dirichlet,
    ] {
        let odir = Odir {
            lambda: 0.3,
            mu: 0.2,
        };
        let one = Objective::new(kind, 6, &x, &y, odir).with_threads(1);
        let three = Objective::new(kind, 6, &x, &y, odir).with_threads(3);
        let p: Vec<f64> = one
            .identity()
            .iter()
            .enumerate()
            .map(|(i, v)| v + 0.05 * ((i * 3 % 7) as f64 - 3.0))
            .collect();
        let (c1, g1) = one.evaluate(&p);
        let (c3, g3) = three.evaluate(&p);
        assert_eq!(c1.to_bits(), c3.to_bits(), "{kind:?}");
        assert!(same_bits(&g1, &g3), "{kind:?}");
    }
}

/// The pass compiled for AVX2 (where the processor has it) gives the bits of the
/// plain one: the same operations in the same order, no fused multiply-add.
#[test]
fn the_avx2_pass_gives_the_plain_pass_s_bits() {
    let (x, y) = data(700, 7, 8);
    let k = 7;
    let w: Vec<f64> = (0..k * k)
        .map(|i| ((i * 5 % 11) as f64 - 5.0) / 7.0)
        .collect();
    let wt: Vec<f64> = (0..k * k).map(|i| w[(i % k) * k + i / k]).collect();
    let b: Vec<f64> = (0..k).map(|j| j as f64 / 10.0).collect();
    for kind in [ScalingKind::Vector, ScalingKind::Matrix] {
        let pass = RowPass {
            kind,
            k,
            w: &w,
            wt: &wt,
            b: &b,
        };
        let (a, p) = (pass.run(&x, &y), pass.run_plain(&x, &y));
        assert_same_bits(&a, &p, &format!("{kind:?}"));
    }
}

/// The blocked pass (four rows per block) gives the bits of the pass row by row,
/// on row counts that leave a tail of every length.
#[test]
fn the_blocked_pass_gives_the_row_by_row_bits() {
    let k = 5;
    let w: Vec<f64> = (0..k * k)
        .map(|i| ((i * 7 % 13) as f64 - 6.0) / 9.0)
        .collect();
    let wt: Vec<f64> = (0..k * k).map(|i| w[(i % k) * k + i / k]).collect();
    let b: Vec<f64> = (0..k).map(|j| j as f64 / 7.0 - 0.3).collect();
    for n in [1, 4, 9, 30, 103] {
        let (x, y) = data(n, k, n as u64);
        for kind in [ScalingKind::Matrix, ScalingKind::Dirichlet] {
            let pass = RowPass {
                kind,
                k,
                w: &w,
                wt: &wt,
                b: &b,
            };
            let blocked = pass.run_plain(&x, &y);
            let mut rows = Partial {
                nll: 0.0,
                gw: vec![0.0; k * k],
                gb: vec![0.0; k],
            };
            pass.rows(&x, &y, &mut rows);
            assert_same_bits(&blocked, &rows, &format!("{kind:?} n = {n}"));
        }
    }
}

/// Whether two slices hold the same floats, bit for bit.
fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(u, v)| u.to_bits() == v.to_bits())
}

/// Two partial sums of the row pass are the same, bit for bit.
fn assert_same_bits(a: &Partial, b: &Partial, what: &str) {
    assert_eq!(a.nll.to_bits(), b.nll.to_bits(), "nll, {what}");
    assert!(same_bits(&a.gw, &b.gw), "weight gradient, {what}");
    assert!(same_bits(&a.gb, &b.gb), "bias gradient, {what}");
}
