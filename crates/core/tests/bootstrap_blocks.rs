//! The bootstrap's block index (`Resampled::block_index`) gives the same bins as
//! `Resampled::for_each_bin` (same positions and success counts, forecast sums equal
//! up to summation order) for both binnings at any bin count, and the same `d`.

use calibscope_core::binning::{Bin, Binning};
use calibscope_core::bootstrap::{bootstrap_map, BootReading, BootstrapSettings};
use calibscope_core::split::SplitMix64;

fn data(n: usize, seed: u64) -> (Vec<f64>, Vec<bool>) {
    let mut g = SplitMix64::new(seed);
    let u: Vec<f64> = (0..n)
        .map(|i| {
            // ties and edge values too
            if i % 7 == 0 {
                0.5
            } else if i % 11 == 0 {
                1.0
            } else {
                g.next_f64()
            }
        })
        .collect();
    let o = u.iter().map(|&x| g.next_f64() < x * 0.9).collect();
    (u, o)
}

#[test]
fn block_bins_equal_direct_bins() {
    for (n, seed) in [
        (1usize, 1u64),
        (2, 2),
        (255, 3),
        (256, 4),
        (257, 5),
        (3000, 6),
        (20_000, 7),
    ] {
        let (u, o) = data(n, seed);
        let reading = BootReading::new(&u, &o);
        let settings = BootstrapSettings {
            replicates: 6,
            seed,
            alpha: 0.05,
            threads: 1,
        };
        let checked = bootstrap_map(&[&reading], &settings, |_, s| {
            let idx = s[0].block_index();
            assert_eq!(idx.len(), n);
            let (a, b) = (idx.mean_gap().unwrap(), s[0].mean_gap().unwrap());
            assert!((a - b).abs() < 1e-12, "n {n}: d {a} vs {b}");
            for binning in Binning::ALL {
                for m in [1usize, 2, 3, 15, 100, n, 2 * n + 1] {
                    let mut direct: Vec<Bin> = Vec::new();
                    s[0].for_each_bin(binning, m, |b| direct.push(b));
                    let mut blocks: Vec<Bin> = Vec::new();
                    idx.for_each_bin(binning, m, |b| blocks.push(b));
                    assert_eq!(direct.len(), blocks.len(), "n {n} {binning:?} m {m}");
                    for (x, y) in direct.iter().zip(&blocks) {
                        assert_eq!(
                            (x.index, x.start, x.end, x.successes),
                            (y.index, y.start, y.end, y.successes)
                        );
                        let tol = 1e-12 * x.sum_forecast.abs().max(1.0);
                        assert!(
                            (x.sum_forecast - y.sum_forecast).abs() <= tol,
                            "n {n} {binning:?} m {m}"
                        );
                    }
                    let (p, q) = (s[0].binned(binning, m), idx.binned(binning, m));
                    assert_eq!(p.nonempty_bins, q.nonempty_bins);
                    assert!((p.ece.unwrap() - q.ece.unwrap()).abs() < 1e-12);
                }
            }
            1
        });
        assert_eq!(checked.len(), 6);
    }
}
