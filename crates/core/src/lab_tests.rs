use super::*;

fn design(n: usize, binning: Binning, m: usize, reps: usize, seed: u64) -> Design {
    Design {
        n,
        binning,
        m,
        reps,
        seed,
    }
}

const P: [f64; 3] = [0.5, 1.0 / 3.0, 1.0 / 6.0];

/// `|got - want| <= 4 se` (plus a hair for se = 0).
fn within(got: McMean, want: f64, what: &str) {
    assert!(
        (got.mean - want).abs() <= 4.0 * got.se + 1e-12,
        "{what}: simulated {} ± {} vs analytic {want}",
        got.mean,
        got.se
    );
}

#[test]
fn source_example_numbers() {
    // seed 000: honest q(1-q) = 0.25, 1-q² = 0.75; uniform 2/9 and 8/9
    let n = 100;
    let h = expected(top_report(&P, Strategy::Honest).unwrap(), n, 1.0).unwrap();
    let u = expected(top_report(&P, Strategy::Uniform).unwrap(), n, 1.0).unwrap();
    assert!((h.confce * n as f64 - 0.25).abs() < 1e-12);
    assert!((h.confce_corr * n as f64 - 0.75).abs() < 1e-12);
    assert!((u.confce * n as f64 - 2.0 / 9.0).abs() < 1e-12);
    assert!((u.confce_corr * n as f64 - 8.0 / 9.0).abs() < 1e-12);
    assert!(u.confce < h.confce && h.confce_corr < u.confce_corr);
}

#[test]
fn reports_and_errors() {
    let t = top_report(&P, Strategy::Temperature(0.5)).unwrap();
    // (1/2)² / ((1/2)² + (1/3)² + (1/6)²) = 0.25 / (14/36)
    assert!((t.confidence - 0.25 / (14.0 / 36.0)).abs() < 1e-12);
    assert_eq!(t.q, 0.5);
    let c = top_report(&P, Strategy::Coarse(3)).unwrap();
    assert!((c.confidence - 2.0 / 3.0).abs() < 1e-12);
    assert!(top_report(&[0.5, 0.6], Strategy::Honest).is_err());
    assert!(top_report(&[1.0], Strategy::Honest).is_err());
    assert!(top_report(&P, Strategy::Temperature(0.0)).is_err());
    assert!(top_report(&P, Strategy::Coarse(0)).is_err());
    assert!(expected(t, 0, 1.0).is_none());
}

#[test]
fn tied_share_matches_bin_sizes() {
    assert_eq!(tied_bin_share(Binning::Width, 10, 4), 1.0);
    // 10 samples in 4 equal-mass bins: sizes 3, 2, 3, 2
    let want = (9.0 + 4.0 + 9.0 + 4.0) / 100.0;
    assert!((tied_bin_share(Binning::Mass, 10, 4) - want).abs() < 1e-15);
    assert!((tied_bin_share(Binning::Mass, 5, 5) - 0.2).abs() < 1e-15);
    assert_eq!(tied_bin_share(Binning::Mass, 0, 5), 0.0);
}

#[test]
fn analytic_expectations_match_simulation() {
    let strategies = [
        Strategy::Honest,
        Strategy::Uniform,
        Strategy::Temperature(0.5),
        Strategy::Temperature(2.0),
        Strategy::Coarse(4),
    ];
    for (binning, n, m) in [(Binning::Width, 50, 10), (Binning::Mass, 60, 7)] {
        let mut calls = 0;
        let sims = simulate_truth(&P, &strategies, design(n, binning, m, 4000, 11), |_| {
            calls += 1
        })
        .unwrap();
        assert_eq!(calls, 4000);
        let share = tied_bin_share(binning, n, m);
        for (s, sim) in strategies.iter().zip(&sims) {
            let e = expected(top_report(&P, *s).unwrap(), n, share).unwrap();
            within(sim.confce, e.confce, &format!("{s:?} {binning:?} ConfCE"));
            within(
                sim.confce_corr,
                e.confce_corr,
                &format!("{s:?} {binning:?} corr"),
            );
        }
    }
    // another posterior, four classes
    let p4 = [0.4, 0.3, 0.2, 0.1];
    let sims = simulate_truth(
        &p4,
        &[Strategy::Honest, Strategy::Uniform],
        design(30, Binning::Width, 1, 4000, 5),
        |_| {},
    )
    .unwrap();
    for (s, sim) in [Strategy::Honest, Strategy::Uniform].iter().zip(&sims) {
        let e = expected(top_report(&p4, *s).unwrap(), 30, 1.0).unwrap();
        within(sim.confce, e.confce, "k=4 ConfCE");
        within(sim.confce_corr, e.confce_corr, "k=4 corr");
    }
    assert!(simulate_truth(&P, &strategies, design(0, Binning::Width, 1, 10, 1), |_| {}).is_err());
}

#[test]
fn exact_conditioning_rates() {
    let (t, c) = exact_conditioning(1).unwrap();
    assert_eq!(t, 1.0 / 3.0);
    assert!((c - 0.5).abs() < 1e-12);
    let (_, c2) = exact_conditioning(2).unwrap();
    assert!((c2 - 0.25).abs() < 1e-12); // |S/2 - 1/2|: 1/2 w.p. 1/2
    for n in [100usize, 10_000] {
        let (_, c) = exact_conditioning(n).unwrap();
        let approx = (1.0 / (2.0 * std::f64::consts::PI * n as f64)).sqrt();
        assert!((c / approx - 1.0).abs() < 0.02, "{n}: {c} vs {approx}");
    }
    for n in [5usize, 200] {
        let (t, c) = exact_conditioning(n).unwrap();
        let sim = simulate_exact_conditioning(n, 10, 3000, 9).unwrap();
        within(sim.truthful, t, "truthful ECE");
        within(sim.constant, c, "constant ECE");
    }
    assert!(exact_conditioning(0).is_none());
    // binning the truthful forecaster: between the two, falling like sqrt(m/n)
    let small = simulate_exact_conditioning(1000, 10, 200, 3).unwrap();
    let large = simulate_exact_conditioning(16_000, 10, 200, 3).unwrap();
    assert!(small.binned.mean < small.truthful.mean && small.binned.mean > small.constant.mean);
    let ratio = small.binned.mean / large.binned.mean;
    assert!((ratio - 4.0).abs() < 0.6, "sqrt(16) = 4, got {ratio}");
    assert!(simulate_exact_conditioning(10, 0, 5, 1).is_none());
}

#[test]
fn perfect_cells_are_calibrated_on_average() {
    let s = cell_summary(Distribution::Uniform, Mode::Perfect, 10_000, 100, 1, |_| {}).unwrap();
    assert_eq!(s.reps, 100);
    assert!((s.csr.mean - 1.0).abs() <= 3.0 * s.csr.se, "{:?}", s.csr);
    assert!((s.cwa.mean - 2.0 / 3.0).abs() < 0.01);
    // against the paper's row (different random numbers, so loosely)
    let paper = paper_row(Distribution::Uniform, 10_000).unwrap();
    assert!((s.acc.mean - paper.values[0]).abs() < 0.01);
    assert!((s.sigma_csr.mean - paper.values[4]).abs() < 0.005);
    assert!(s.p_risk.mean > 0.2 && s.p_risk.mean < 0.8);
    // overconfident data: CSR above 1, mostly beyond 3σ
    let o = cell_summary(
        Distribution::Uniform,
        Mode::OverconfHalf,
        1000,
        20,
        1,
        |_| {},
    )
    .unwrap();
    assert!(o.csr.mean > 1.5 && o.beyond_3sigma > 0.9);
    assert!(cell_summary(Distribution::Bell, Mode::Perfect, 0, 5, 1, |_| {}).is_none());
    assert_eq!(PAPER_TABLE5.iter().filter(|r| r.n == 100).count(), 10);
}

#[test]
fn counterexample_has_tiny_ece_and_large_csr() {
    use crate::beyond::RiskAccumulator;
    for (n, lambda, p) in [(100usize, 5.0, 0.7), (1000, 50.0, 0.3), (2, 1.0, 0.0)] {
        let c = counterexample(n, lambda, p).unwrap();
        assert_eq!(c.confidence.len(), n);
        let sorted = SortedReading::from_parts(&c.confidence, &c.correct);
        for m in [1, 10, 15, 100] {
            let ece = sorted.metrics(Binning::Width, m).ece.unwrap();
            assert!(ece < 1.0 / n as f64, "{n} {m}: {ece}");
        }
        let mut acc = RiskAccumulator::default();
        for (&x, &z) in c.confidence.iter().zip(&c.correct) {
            acc.add(x, z);
        }
        assert!(acc.finish().csr.unwrap() > lambda);
    }
    assert!(counterexample(1, 2.0, 0.5).is_err());
    assert!(counterexample(10, -1.0, 0.5).is_err());
    assert!(counterexample(10, 1.0, 1.0).is_err());
    assert!(counterexample(1_000_000, 1e3, 0.5).is_err());
}
