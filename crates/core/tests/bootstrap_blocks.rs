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

/// Every value a replicate's block index gives, as bits: `d`, and per binning and
/// bin count each bin's positions, successes and forecast sum.
fn replicate_bits(idx: &calibscope_core::bootstrap::BlockIndex<'_>, n: usize) -> Vec<u64> {
    let mut out = vec![idx.mean_gap().map_or(u64::MAX, f64::to_bits)];
    for binning in Binning::ALL {
        for m in [1usize, 2, 3, 15, 100, n, 2 * n + 1] {
            idx.for_each_bin(binning, m, |b| {
                out.extend([
                    b.index as u64,
                    b.start as u64,
                    b.end as u64,
                    b.successes,
                    b.sum_forecast.to_bits(),
                ])
            });
        }
    }
    out
}

/// The block sums the bootstrap takes while laying out a replicate pair's counts are
/// bit for bit those taken afresh from the replicate's counts (counted here from the
/// contract's draws), for either slot of a pair and an unpaired last replicate; and a
/// range of replicates gives the same values whatever its start, length and the
/// thread count; a second reading on the same rows (paired) gets its own sums.
#[test]
fn laid_out_block_sums_equal_fresh_ones_bit_for_bit() {
    use calibscope_core::bootstrap::{bootstrap_map_range, draw, Resampled};
    for (n, seed) in [
        (1usize, 11u64),
        (255, 12),
        (257, 13),
        (3000, 14),
        (20_001, 15),
    ] {
        let (u, o) = data(n, seed);
        let reading = BootReading::new(&u, &o);
        let flipped: Vec<f64> = u.iter().map(|&x| 1.0 - x).collect();
        let second = BootReading::new(&flipped, &o);
        let fresh: Vec<Vec<u64>> = (0..7usize)
            .map(|r| {
                let mut per_row = vec![0u32; n];
                for j in 0..n {
                    per_row[draw(seed, r as u64, j as u64, n)] += 1;
                }
                let mut out = Vec::new();
                for reading in [&reading, &second] {
                    let sorted: Vec<u32> = (0..n).map(|p| per_row[reading.row_at(p)]).collect();
                    out.extend(replicate_bits(
                        &Resampled::new(reading, &sorted).block_index(),
                        n,
                    ));
                }
                out
            })
            .collect();
        let bits = |s: &[Resampled<'_>]| {
            let mut out = replicate_bits(&s[0].block_index(), n);
            out.extend(replicate_bits(&s[1].block_index(), n));
            out
        };
        for range in [0..7usize, 1..6, 3..4, 2..7] {
            let got =
                bootstrap_map_range(&[&reading, &second], seed, range.clone(), |_, s| bits(s));
            assert_eq!(got, fresh[range.clone()].to_vec(), "n {n} range {range:?}");
        }
        for threads in [1usize, 2, 3] {
            let settings = BootstrapSettings {
                replicates: 7,
                seed,
                alpha: 0.05,
                threads,
            };
            let got = bootstrap_map(&[&reading, &second], &settings, |_, s| bits(s));
            assert_eq!(got, fresh, "n {n} threads {threads}");
        }
    }
}
