//! Temperature-scaling fit on generated data (single thread).
//!
//! `cargo bench -p calibscope-core --bench temperature`
//!
//! Targets: 100k x 100 f32 logits <= 1 s, 1M binary scores <= 150 ms, with the
//! contract's golden-section procedure (80 iterations, both probes each iteration).

use calibscope_core::recal::{
    kernel, BinaryNll, GoldenProcedure, MulticlassNll, TemperatureObjective, TemperatureOptions,
};
use calibscope_core::split::stratified_split;
use calibscope_core::synth;
use divan::{black_box, Bencher};
use std::sync::OnceLock;

fn main() {
    eprintln!("FMA kernel: {}", kernel::uses_fma());
    if std::env::var_os("CPU_TIME").is_some() {
        cpu_time_report();
        return;
    }
    divan::main();
}

/// This thread's CPU time in seconds (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`):
/// unlike wall time, not inflated by other processes on a shared machine.
#[cfg(target_os = "linux")]
fn thread_cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer; the libc symbol is linked by std on Linux.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu_seconds() -> f64 {
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Minimum CPU time of `reps` runs of `f`.
fn min_cpu(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = thread_cpu_seconds();
            f();
            thread_cpu_seconds() - t
        })
        .fold(f64::INFINITY, f64::min)
}

/// Other shapes (`CPU_TIME=shapes`).
fn shapes_report() {
    let contract = TemperatureOptions::default();
    let direct = TemperatureOptions {
        expansion: false,
        screening: false,
        ..contract
    };
    for (n, k) in [
        (1_000_000, 10),
        (10_000, 1000),
        (200_000, 3),
        (1_000_000, 2),
    ] {
        let (z, y) = synth::boosted_logits(n, k, 13);
        for (what, opts) in [("contract", &contract), ("contract, direct", &direct)] {
            let t = min_cpu(2, || {
                black_box(MulticlassNll::new(&z, k, &y, None).unwrap().fit(opts));
            });
            eprintln!("multiclass {n} x {k} f32: fit ({what}) {:>9.1} ms", t * 1e3);
        }
    }
    // binary with outliers: 1 % of the scores at +-200
    let (s, yb) = binary();
    let mut s = s.clone();
    for v in s.iter_mut().step_by(100) {
        *v = v.signum() * 200.0;
    }
    for (what, opts) in [("contract", &contract), ("contract, direct", &direct)] {
        let t = min_cpu(3, || {
            black_box(BinaryNll::new(&s, yb, None).unwrap().fit(opts));
        });
        eprintln!("binary 1M, 1 % outliers: fit ({what}) {:>9.1} ms", t * 1e3);
    }
}

/// `CPU_TIME=1 cargo bench -p calibscope-core --bench temperature`: thread CPU times.
fn cpu_time_report() {
    if std::env::var("CPU_TIME").as_deref() == Ok("shapes") {
        return shapes_report();
    }
    let (z, y, rows) = multiclass();
    let (s, yb) = binary();
    let contract = TemperatureOptions::default();
    let report = |what: &str, secs: f64| eprintln!("{what:<44} {:>9.1} ms", secs * 1e3);
    let m = MulticlassNll::new(z, K, y, Some(rows)).unwrap();
    report(
        "multiclass 100k x 100 f32: one NLL",
        min_cpu(5, || {
            black_box(m.nll(1.3));
        }),
    );
    report(
        "multiclass 100k x 100 f32: two NLL (one pass)",
        min_cpu(5, || {
            let mut out = [0.0; 2];
            m.nll_many(&[1.3, 1.4], &mut out);
            black_box(out);
        }),
    );
    report(
        "multiclass 100k x 100 f32: fit (contract)",
        min_cpu(3, || {
            black_box(
                MulticlassNll::new(z, K, y, Some(rows))
                    .unwrap()
                    .fit(&contract),
            );
        }),
    );
    let direct = TemperatureOptions {
        expansion: false,
        screening: false,
        ..contract
    };
    report(
        "multiclass 100k x 100 f32: fit (contract, direct)",
        min_cpu(3, || {
            black_box(
                MulticlassNll::new(z, K, y, Some(rows))
                    .unwrap()
                    .fit(&direct),
            );
        }),
    );
    report(
        "multiclass 100k x 100 f32: fit (reuse 1e-9)",
        min_cpu(3, || {
            black_box(MulticlassNll::new(z, K, y, Some(rows)).unwrap().fit(&REUSE));
        }),
    );
    let b = BinaryNll::new(s, yb, None).unwrap();
    report(
        "binary 1M: one NLL",
        min_cpu(10, || {
            black_box(b.nll(1.3));
        }),
    );
    report(
        "binary 1M: two NLL (one pass)",
        min_cpu(10, || {
            let mut out = [0.0; 2];
            b.nll_many(&[1.3, 1.4], &mut out);
            black_box(out);
        }),
    );
    report(
        "binary 1M: fit (contract)",
        min_cpu(5, || {
            black_box(BinaryNll::new(s, yb, None).unwrap().fit(&contract));
        }),
    );
    report(
        "binary 1M: fit (contract, direct)",
        min_cpu(5, || {
            black_box(BinaryNll::new(s, yb, None).unwrap().fit(&direct));
        }),
    );
    report(
        "binary 1M: fit (reuse 1e-9)",
        min_cpu(5, || {
            black_box(BinaryNll::new(s, yb, None).unwrap().fit(&REUSE));
        }),
    );
    // the worker's fit (Recalibrate view): the calibration half of the
    // contract's split (f = 0.5, seed 0)
    let y32: Vec<u32> = yb.iter().map(|&v| v as u32).collect();
    let cal_b = stratified_split(&y32, 2, 0, 0.5).calibration;
    report(
        "binary 1M: fit on the f = 0.5 split (contract)",
        min_cpu(5, || {
            black_box(BinaryNll::new(s, yb, Some(&cal_b)).unwrap().fit(&contract));
        }),
    );
    let cal_m = stratified_split(y, K, 0, 0.5).calibration;
    report(
        "multiclass 100k x 100 f32: fit on the f = 0.5 split (contract)",
        min_cpu(3, || {
            black_box(
                MulticlassNll::new(z, K, y, Some(&cal_m))
                    .unwrap()
                    .fit(&contract),
            );
        }),
    );
}

const N_MULTI: usize = 100_000;
const K: usize = 100;
const N_BINARY: usize = 1_000_000;

/// Overconfident logits: noise N(0, 3^2) per class, the true class boosted by 6 (most
/// rows right, tau* ~ 1.4), stored as f32.
fn multiclass() -> &'static (Vec<f32>, Vec<u32>, Vec<usize>) {
    static DATA: OnceLock<(Vec<f32>, Vec<u32>, Vec<usize>)> = OnceLock::new();
    DATA.get_or_init(|| {
        let (z, y) = synth::boosted_logits(N_MULTI, K, 7);
        let rows = (0..N_MULTI).collect();
        (z, y, rows)
    })
}

/// Binary logits `s = 4 (2y - 1) + N(0, 3^2)`.
fn binary() -> &'static (Vec<f64>, Vec<u8>) {
    static DATA: OnceLock<(Vec<f64>, Vec<u8>)> = OnceLock::new();
    DATA.get_or_init(|| synth::separated_logits(N_BINARY, 11))
}

const REUSE: TemperatureOptions = TemperatureOptions {
    lo: 0.05,
    hi: 20.0,
    procedure: GoldenProcedure::REUSE_1E9,
    expansion: true,
    screening: true,
};

#[divan::bench(sample_count = 5, sample_size = 1)]
fn multiclass_100k_x_100_f32_fit_contract(bencher: Bencher) {
    let (z, y, rows) = multiclass();
    bencher.bench(|| {
        let obj = MulticlassNll::new(z, K, y, Some(rows)).unwrap();
        black_box(obj.fit(&TemperatureOptions::default()))
    });
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn multiclass_100k_x_100_f32_fit_reuse(bencher: Bencher) {
    let (z, y, rows) = multiclass();
    bencher.bench(|| {
        let obj = MulticlassNll::new(z, K, y, Some(rows)).unwrap();
        black_box(obj.fit(&REUSE))
    });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn multiclass_100k_x_100_f32_one_nll(bencher: Bencher) {
    let (z, y, rows) = multiclass();
    let obj = MulticlassNll::new(z, K, y, Some(rows)).unwrap();
    bencher.bench(|| black_box(obj.nll(black_box(1.3))));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn multiclass_100k_x_100_f32_two_nll(bencher: Bencher) {
    let (z, y, rows) = multiclass();
    let obj = MulticlassNll::new(z, K, y, Some(rows)).unwrap();
    let mut out = [0.0; 2];
    bencher.bench_local(|| obj.nll_many(black_box(&[1.3, 1.4]), &mut out));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn binary_1m_fit_contract(bencher: Bencher) {
    let (s, y) = binary();
    bencher.bench(|| {
        let obj = BinaryNll::new(s, y, None).unwrap();
        black_box(obj.fit(&TemperatureOptions::default()))
    });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn binary_1m_fit_reuse(bencher: Bencher) {
    let (s, y) = binary();
    bencher.bench(|| {
        let obj = BinaryNll::new(s, y, None).unwrap();
        black_box(obj.fit(&REUSE))
    });
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn binary_1m_one_nll(bencher: Bencher) {
    let (s, y) = binary();
    let obj = BinaryNll::new(s, y, None).unwrap();
    bencher.bench(|| black_box(obj.nll(black_box(1.3))));
}

/// Prints the fits' evaluation counts (not timed).
#[divan::bench(sample_count = 1, sample_size = 1)]
fn report_evaluations() {
    let (z, y, rows) = multiclass();
    let obj = MulticlassNll::new(z, K, y, Some(rows)).unwrap();
    let fit = obj.fit(&TemperatureOptions::default());
    eprintln!(
        "multiclass: tau {} nll {} -> {}, {} evaluations",
        fit.tau, fit.nll_tau1, fit.nll_tau, fit.evaluations
    );
    let (s, y) = binary();
    let obj = BinaryNll::new(s, y, None).unwrap();
    let fit = obj.fit(&TemperatureOptions::default());
    eprintln!(
        "binary: tau {} nll {} -> {}, {} evaluations",
        fit.tau, fit.nll_tau1, fit.nll_tau, fit.evaluations
    );
}
