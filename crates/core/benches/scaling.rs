//! The multiclass linear maps (vector / matrix scaling, Dirichlet calibration) at
//! scale: one evaluation of the objective and its gradient (the unit of every
//! L-BFGS step), a whole matrix-scaling fit, and Dirichlet calibration with its
//! ODIR search (5 folds × 5 strengths, then the final fit), on seeded overconfident
//! logits.
//!
//! `cargo bench -p calibscope-core --bench scaling`

use calibscope_core::recal::scaling::{fit_scaling, Objective, Odir, ScalingKind, FINAL};
use calibscope_core::recal::scaling_map::choose_odir;
use calibscope_core::split::stratified_split;
use calibscope_core::synth::boosted_logits;
use divan::{black_box, Bencher};

fn main() {
    divan::main();
}

fn data(n: usize, k: usize) -> (Vec<f64>, Vec<u32>) {
    let (z, y) = boosted_logits(n, k, 7);
    (z.iter().map(|&v| f64::from(v)).collect(), y)
}

const ODIR: Odir = Odir {
    lambda: 0.1,
    mu: 0.1,
};

/// One objective-and-gradient evaluation, 50k rows × 100 classes (the calibration
/// half of 100k × 100).
#[divan::bench(sample_count = 5)]
fn objective_50k_x100(bencher: Bencher) {
    let (x, y) = data(50_000, 100);
    let o = Objective::new(ScalingKind::Dirichlet, 100, &x, &y, ODIR);
    let mut p = o.identity();
    bencher.bench_local(|| {
        // a new point each time (the objective caches its last one)
        p[0] += 1e-9;
        black_box(o.evaluate(black_box(&p)).0)
    });
}

/// A matrix-scaling fit (final stopping rule), 10k × 10.
#[divan::bench(sample_count = 3)]
fn matrix_fit_10k_x10(bencher: Bencher) {
    let (x, y) = data(10_000, 10);
    bencher.bench(|| fit_scaling(ScalingKind::Matrix, 10, &x, &y, ODIR, None, FINAL).unwrap());
}

/// Dirichlet calibration's ODIR search and final fit, 10k × 10 (`ln p` stands in
/// for the logits: the cost does not depend on what the inputs mean).
#[divan::bench(sample_count = 3)]
fn dirichlet_search_and_fit_10k_x10(bencher: Bencher) {
    let (x, y) = data(10_000, 10);
    let split = stratified_split(&y, 10, 0, 0.999_999);
    let x_cal: Vec<f64> = split
        .calibration
        .iter()
        .flat_map(|&i| x[i * 10..(i + 1) * 10].iter().copied())
        .collect();
    let y_cal: Vec<u32> = split.calibration.iter().map(|&i| y[i]).collect();
    bencher.bench(|| {
        let search = choose_odir(&x_cal, 10, &y, &split, 5);
        let odir = Odir {
            lambda: search.chosen,
            mu: search.chosen,
        };
        fit_scaling(
            ScalingKind::Dirichlet,
            10,
            &x_cal,
            &y_cal,
            odir,
            None,
            FINAL,
        )
        .unwrap()
    });
}
