//! Clopper–Pearson bounds against 60-digit references (`tests/refs/`, made by
//! `make_beta_quantile_refs.py` with mpmath): the shapes of reliability bins, from one
//! sample to 20,000, at alpha 0.05, 0.10 and 0.01.

use calibscope_core::special::clopper_pearson;
use serde_json::Value;

/// How many representable doubles lie between two non-negative finite values.
fn ulps(a: f64, b: f64) -> u64 {
    a.to_bits().abs_diff(b.to_bits())
}

#[test]
fn clopper_pearson_matches_60_digit_references() {
    let text = include_str!("refs/beta_quantile_refs.json");
    let refs: Value = serde_json::from_str(text).unwrap();
    let cases = refs["cases"].as_array().unwrap();
    assert!(cases.len() > 200, "{} cases", cases.len());
    // The error allowed grows with the bin's size: a quantile's relative error is the
    // noise of `ln I_x(a, b)` (~ max(a, b) eps in the tails, the conditioning of
    // `x^a (1-x)^b`) over its slope; a few ulps for small bins.
    let allowed = |n: u64| (n / 4).max(8);
    let mut worst = (0.0, String::new());
    for c in cases {
        let x = c["x"].as_u64().unwrap();
        let n = c["n"].as_u64().unwrap();
        let alpha = c["alpha"].as_f64().unwrap();
        // the references are printed with 20 digits: parsing rounds them correctly
        let want_lo: f64 = c["lower"].as_str().unwrap().parse().unwrap();
        let want_hi: f64 = c["upper"].as_str().unwrap().parse().unwrap();
        let (lo, hi) = clopper_pearson(x, n, alpha).unwrap();
        for (got, want, side) in [(lo, want_lo, "lower"), (hi, want_hi, "upper")] {
            let d = ulps(got, want);
            assert!(
                d <= allowed(n),
                "{x}/{n} alpha {alpha} {side}: {got:e} vs {want:e}, {d} ulps apart"
            );
            let share = d as f64 / allowed(n) as f64;
            if share > worst.0 {
                worst = (share, format!("{x}/{n} alpha {alpha} {side}: {d} ulps"));
            }
        }
    }
    eprintln!(
        "closest to the bound: {} ({:.0} % of it)",
        worst.1,
        100.0 * worst.0
    );
}
