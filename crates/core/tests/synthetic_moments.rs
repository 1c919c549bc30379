//! The generators of METRICS.md §7 against their population values
//! (`shared/fixtures/vectors/synthetic_moments.json`): for each of the 80
//! (distribution, mode) pairs, 100k draws; the sample means of the confidence and of
//! the correctness, and cwA = sum c z / sum c, must lie within 5 standard errors
//! (estimated from the sample; a delta-method SE for the ratio cwA).
//!
//! CSR = (1/n) sum_{z=0} 1/(1 - clip(c)) is checked only where its summand has a
//! finite variance without the clip: distributions whose density vanishes at c = 1
//! fast enough (Skew Low = Beta(0.5, 3), Bell = Beta(5, 5)) or with support away from
//! 1 (Tight Lo). Everywhere else the variance of 1/(1 - c) is infinite (Uniform,
//! Normal, Tight Hi, Skew High, Bimodal, Log-Uniform High: density > 0 or -> inf at
//! c = 1) or finite only through the 1e-6 bound of Log-Uniform Low (SD ~ 300 per
//! sample), so a sample mean of 100k draws is no reliable test of the limit there.

use calibscope_core::sum::Sum;
use calibscope_core::synth::{generate, Distribution, Mode};
use serde_json::Value;

use calibscope_test_support::shared;

const N: usize = 100_000;
const Z: f64 = 5.0;

/// Mean and standard error of the mean of `values`.
fn mean_se(values: impl Iterator<Item = f64> + Clone, n: usize) -> (f64, f64) {
    let nf = n as f64;
    let mean = values.clone().collect::<Sum>().value() / nf;
    let ss = values
        .map(|v| (v - mean) * (v - mean))
        .collect::<Sum>()
        .value();
    (mean, (ss / (nf - 1.0) / nf).sqrt())
}

fn check(what: &str, case: &str, got: f64, se: f64, want: f64) {
    // A floor for degenerate samples (SE 0, e.g. a constant correctness).
    let tol = Z * se + 1e-12;
    assert!(
        (got - want).abs() <= tol,
        "{case}: {what} = {got} vs population {want} (|diff| = {:.3e} > {Z} SE = {tol:.3e})",
        (got - want).abs()
    );
}

#[test]
fn moments_match_population_values() {
    let path = shared().join("fixtures/vectors/synthetic_moments.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 80);
    let mut seen = std::collections::HashSet::new();
    for (i, c) in cases.iter().enumerate() {
        let dist = Distribution::from_name(c["distribution"].as_str().unwrap()).unwrap();
        let mode = Mode::from_name(c["mode"].as_str().unwrap()).unwrap();
        assert!(seen.insert((dist, mode)), "duplicate case {c}");
        let name = format!("{}/{}", dist.name(), mode.name());
        let s = generate(dist, mode, N, 1000 + i as u64);
        let conf = &s.confidence;
        let z: Vec<f64> = s
            .labels
            .iter()
            .zip(&s.predicted)
            .map(|(y, p)| f64::from(u8::from(y == p)))
            .collect();

        let (mc, se_c) = mean_se(conf.iter().copied(), N);
        check(
            "mean conf",
            &name,
            mc,
            se_c,
            c["mean_conf"].as_f64().unwrap(),
        );

        let (acc, se_acc) = mean_se(z.iter().copied(), N);
        check(
            "accuracy",
            &name,
            acc,
            se_acc,
            c["expected_accuracy"].as_f64().unwrap(),
        );

        // cwA = mean(c z) / mean(c); delta method: SE^2 = Var(c z - R c) / (n mean(c)^2).
        let cz: Sum = conf.iter().zip(&z).map(|(c, z)| c * z).collect();
        let r = cz.value() / (mc * N as f64);
        let (_, se_resid) = mean_se(conf.iter().zip(&z).map(|(c, z)| c * z - r * c), N);
        check(
            "cwA",
            &name,
            r,
            se_resid / mc,
            c["cwa_limit"].as_f64().unwrap(),
        );

        if matches!(
            dist,
            Distribution::SkewLow | Distribution::Bell | Distribution::TightLo
        ) {
            let terms = conf
                .iter()
                .zip(&z)
                .map(|(&c, &z)| (1.0 - z) / (1.0 - c.clamp(1e-8, 1.0 - 1e-8)));
            let (csr, se) = mean_se(terms, N);
            check(
                "CSR",
                &name,
                csr,
                se,
                c["csr_limit_clipped"].as_f64().unwrap(),
            );
        }
    }
    assert_eq!(seen.len(), 80);
}
