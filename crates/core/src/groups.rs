//! Calibration per group (issue 32): each group's ECE of the confidence reading at one
//! bin count and binning, the worst-calibrated group, and a seeded permutation test
//! of "the groups differ more than chance".
//!
//! With the confidence reading `(c_i, z_i)` (METRICS.md §1) and a group `g(i)` per
//! sample, group `G`'s ECE is the ECE of its own samples, `ECE_G = (1/n_G) Σ_B
//! |Σ_{i∈B} (z_i - c_i)|` over the bins of `G`'s samples alone (exactly the value an
//! audit of those rows gives). Groups with fewer than `min_size` samples are **too
//! small**: their ECE is reported, but they take no part in the worst group, the
//! spread or the test.
//!
//! * worst group: the eligible group (`n_G ≥ min_size`) of largest `ECE_G`; the
//!   first in group order on ties; none when no group is eligible.
//! * statistic: the spread `T = max_G ECE_G − min_G ECE_G` over the eligible groups;
//!   undefined (`None`) with fewer than two eligible groups.
//! * null hypothesis: group membership is exchangeable with the `(c_i, z_i)` pairs —
//!   the groups are samples of one calibration. Under it, reassigning the eligible
//!   groups' samples to the groups at random, sizes kept, gives `T` its null
//!   distribution; this also accounts for ECE's upward bias in small groups, which a
//!   fixed threshold would read as a difference.
//! * p-value: `(1 + #{b : T_b ≥ T}) / (1 + B)` over `B` permutations (never 0; the
//!   usual Monte Carlo permutation p-value, Phipson & Smyth 2010). `None` when `T` is
//!   undefined or `B = 0`.
//! * computation: each group's ECE for the worst group and the reported spread is
//!   its rows' [`SortedReading`] ECE (compensated sums); inside the test, the
//!   observed and each permuted spread are computed alike by one pass that adds
//!   `z_i − c_i` into its (group, bin) cell — a sample's equal-width bin depends on
//!   its confidence only, its equal-mass bin on its rank within its group, whose size
//!   a permutation keeps — so 1,000 permutations of 1M samples take seconds.
//! * determinism: permutation `b` is a Fisher–Yates shuffle of the eligible samples'
//!   group codes (in the order of their sorted confidences) driven by a SplitMix64
//!   generator seeded with the `b`-th output of the `seed`'s stream, so each
//!   permutation depends on `(seed, b)` alone and the result is the same on any
//!   number of threads.
//!
//! Empty input (no sample) gives no groups; one eligible group gives its ECE, the
//! worst group, and no statistic.

use crate::binning::{Binning, SortedReading};
use crate::bootstrap::splitmix64_at;
use crate::reading::Pairs;
use crate::split::SplitMix64;

/// Settings of [`group_calibration`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupSettings {
    /// Binning of the ECE.
    pub binning: Binning,
    /// Bin count of the ECE (at least 1).
    pub m: usize,
    /// Groups with fewer samples are too small for a statement.
    pub min_size: usize,
    /// Permutations `B` of the test (0: no test).
    pub permutations: usize,
    /// Seed of the permutations.
    pub seed: u64,
    /// Threads for the permutations (the result does not depend on it; 0 = 1).
    pub threads: usize,
}

/// The default smallest group (30 samples).
pub const DEFAULT_MIN_SIZE: usize = 30;
/// The default number of permutations.
pub const DEFAULT_PERMUTATIONS: usize = 1000;

impl Default for GroupSettings {
    fn default() -> Self {
        GroupSettings {
            binning: Binning::Width,
            m: 15,
            min_size: DEFAULT_MIN_SIZE,
            permutations: DEFAULT_PERMUTATIONS,
            seed: 0,
            threads: 1,
        }
    }
}

/// The groups' calibration (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupCalibration {
    /// Samples per group.
    pub n: Vec<usize>,
    /// ECE per group (`None` for a group without samples).
    pub ece: Vec<Option<f64>>,
    /// Whether each group has at least `min_size` samples.
    pub eligible: Vec<bool>,
    /// The worst eligible group.
    pub worst: Option<usize>,
    /// The spread `T` (max − min ECE over eligible groups).
    pub spread: Option<f64>,
    /// The permutation p-value.
    pub p_value: Option<f64>,
    /// Permutations whose spread reached `T`.
    pub exceed: usize,
    /// Permutations run.
    pub permutations: usize,
}

/// Each group's ECE from samples already in sorted order (`codes` their groups).
fn group_eces(
    sorted: &[f64],
    outcome: &[bool],
    codes: &[u32],
    n_groups: usize,
    binning: Binning,
    m: usize,
    buf: &mut [(Vec<f64>, Vec<bool>)],
) -> Vec<Option<f64>> {
    for b in buf.iter_mut() {
        b.0.clear();
        b.1.clear();
    }
    for ((&u, &o), &g) in sorted.iter().zip(outcome).zip(codes) {
        let b = &mut buf[g as usize];
        b.0.push(u);
        b.1.push(o);
    }
    (0..n_groups)
        .map(|g| {
            let (u, o) = &buf[g];
            if u.is_empty() {
                None
            } else {
                SortedReading::from_sorted(u.clone(), o)
                    .metrics(binning, m)
                    .ece
            }
        })
        .collect()
}

/// The test's per-permutation ECE of every group (see the module docs): the bins of
/// each sorted position (equal-width) or of each rank within a group (equal-mass)
/// are fixed, so one pass adds every sample into its (group, bin) cell.
struct FastEce {
    m: usize,
    /// Equal-width: each sorted position's bin.
    width_bin: Option<Vec<u32>>,
    /// Equal-mass: per group, each rank's bin.
    mass_bin: Vec<Vec<u32>>,
    n: Vec<usize>,
}

impl FastEce {
    fn new(sorted: &[f64], outcome: &[bool], n: &[usize], binning: Binning, m: usize) -> Self {
        let mut width_bin = None;
        let mut mass_bin = Vec::new();
        match binning {
            Binning::Width => {
                let mut bins = vec![0u32; sorted.len()];
                SortedReading::from_sorted(sorted.to_vec(), outcome).for_each_bin(
                    binning,
                    m,
                    |b| bins[b.start..b.end].fill(b.index as u32),
                );
                width_bin = Some(bins);
            }
            Binning::Mass => {
                for &ng in n {
                    let mut bins = vec![0u32; ng];
                    crate::binning::for_each_mass_bin(ng, m, |b, start, end| {
                        bins[start..end].fill(b as u32)
                    });
                    mass_bin.push(bins);
                }
            }
        }
        FastEce {
            m,
            width_bin,
            mass_bin,
            n: n.to_vec(),
        }
    }

    /// The spread of the eligible groups' ECE with samples (in sorted order) in groups `codes`.
    fn spread(
        &self,
        sorted: &[f64],
        outcome: &[bool],
        codes: &[u32],
        eligible: &[bool],
        sums: &mut Vec<f64>,
        rank: &mut Vec<usize>,
    ) -> Option<f64> {
        let groups = self.n.len();
        sums.clear();
        sums.resize(groups * self.m, 0.0);
        rank.clear();
        rank.resize(groups, 0);
        for (i, ((&u, &o), &g)) in sorted.iter().zip(outcome).zip(codes).enumerate() {
            let g = g as usize;
            let b = match &self.width_bin {
                Some(w) => w[i] as usize,
                None => {
                    let b = self.mass_bin[g][rank[g]] as usize;
                    rank[g] += 1;
                    b
                }
            };
            sums[g * self.m + b] += o as u8 as f64 - u;
        }
        let ece: Vec<Option<f64>> = (0..groups)
            .map(|g| {
                (self.n[g] > 0).then(|| {
                    sums[g * self.m..(g + 1) * self.m]
                        .iter()
                        .map(|s| s.abs())
                        .sum::<f64>()
                        / self.n[g] as f64
                })
            })
            .collect();
        spread(&ece, eligible)
    }
}

/// The spread of the eligible groups' ECE (None with fewer than two).
fn spread(ece: &[Option<f64>], eligible: &[bool]) -> Option<f64> {
    let vals: Vec<f64> = ece
        .iter()
        .zip(eligible)
        .filter_map(|(e, &ok)| if ok { *e } else { None })
        .collect();
    if vals.len() < 2 {
        return None;
    }
    let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
    Some(max - min)
}

/// Fisher–Yates shuffle of `codes` by permutation `b`'s generator.
fn shuffle(codes: &mut [u32], seed: u64, b: u64) {
    let mut rng = SplitMix64::new(splitmix64_at(seed, b));
    for i in (1..codes.len()).rev() {
        // a uniform index in 0..=i (multiply-shift, bias below 2^-32 for i < 2^32)
        let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
        codes.swap(i, j);
    }
}

/// The groups' calibration of the confidence reading `pairs` with sample groups
/// `codes` (each below `n_groups`); see the module docs. The permutation test runs
/// here on `s.threads` threads; [`group_calibration_untested`] and
/// [`PermutationTest`] run it in pieces (the same numbers).
pub fn group_calibration(
    pairs: &Pairs,
    codes: &[u32],
    n_groups: usize,
    s: &GroupSettings,
) -> GroupCalibration {
    let (mut out, test) = group_calibration_untested(pairs, codes, n_groups, s);
    let Some(test) = test else {
        return out;
    };
    let permutations = s.permutations;
    let threads = s.threads.clamp(1, permutations);
    let exceed = if threads == 1 {
        test.exceed_in(0..permutations)
    } else {
        let chunk = permutations.div_ceil(threads);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|w| {
                    let start = (w * chunk).min(permutations);
                    let end = ((w + 1) * chunk).min(permutations);
                    let test = &test;
                    scope.spawn(move || test.exceed_in(start..end))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        })
    };
    test.finish(&mut out, exceed);
    out
}

/// [`group_calibration`] without running the permutations: the groups' ECE, the
/// worst group and the spread, with the test to run (`None` when there is none: fewer
/// than two eligible groups, or no permutations asked for).
pub fn group_calibration_untested(
    pairs: &Pairs,
    codes: &[u32],
    n_groups: usize,
    s: &GroupSettings,
) -> (GroupCalibration, Option<PermutationTest>) {
    group_calibration_sorted(&SortedGroups::new(pairs, codes, n_groups), s)
}

/// A confidence reading sorted by forecast, with each sample's group: the one sort
/// that [`group_calibration_sorted`] needs, kept across bin counts and settings.
#[derive(Clone, Debug)]
pub struct SortedGroups {
    sorted: Vec<f64>,
    outcome: Vec<bool>,
    codes: Vec<u32>,
    /// Samples per group.
    n: Vec<usize>,
}

impl SortedGroups {
    /// Sorts `pairs` (samples in groups `codes`, each below `n_groups`).
    ///
    /// # Panics
    /// When `codes` and `pairs` differ in length, or a code is not below `n_groups`.
    pub fn new(pairs: &Pairs, codes: &[u32], n_groups: usize) -> SortedGroups {
        assert_eq!(pairs.len(), codes.len());
        let mut n = vec![0usize; n_groups];
        for &g in codes {
            n[g as usize] += 1;
        }
        let order = crate::auc::sort_order(&pairs.forecast);
        SortedGroups {
            sorted: crate::auc::gather(&pairs.forecast, &order),
            outcome: crate::auc::gather(&pairs.outcome, &order),
            codes: crate::auc::gather(codes, &order),
            n,
        }
    }
}

/// [`group_calibration_untested`] of a reading sorted once ([`SortedGroups`]): the
/// same numbers.
pub fn group_calibration_sorted(
    groups: &SortedGroups,
    s: &GroupSettings,
) -> (GroupCalibration, Option<PermutationTest>) {
    let (sorted, outcome, sorted_codes) = (&groups.sorted, &groups.outcome, &groups.codes);
    let n = groups.n.clone();
    let n_groups = n.len();
    let m = s.m.max(1);
    let eligible: Vec<bool> = n.iter().map(|&c| c >= s.min_size.max(1)).collect();
    let mut buf = vec![(Vec::new(), Vec::new()); n_groups];
    let ece = group_eces(
        sorted,
        outcome,
        sorted_codes,
        n_groups,
        s.binning,
        m,
        &mut buf,
    );
    let worst = (0..n_groups)
        .filter(|&g| eligible[g])
        .filter_map(|g| ece[g].map(|e| (g, e)))
        .fold(None::<(usize, f64)>, |best, (g, e)| match best {
            Some((_, b)) if b >= e => best,
            _ => Some((g, e)),
        })
        .map(|(g, _)| g);
    let t = spread(&ece, &eligible);
    let out = GroupCalibration {
        n,
        ece,
        eligible,
        worst,
        spread: t,
        p_value: None,
        exceed: 0,
        permutations: 0,
    };
    if t.is_none() || s.permutations == 0 {
        return (out, None);
    }
    // the eligible groups' samples, in sorted order
    let keep: Vec<usize> = (0..sorted.len())
        .filter(|&i| out.eligible[sorted_codes[i] as usize])
        .collect();
    let u: Vec<f64> = keep.iter().map(|&i| sorted[i]).collect();
    let o: Vec<bool> = keep.iter().map(|&i| outcome[i]).collect();
    let c: Vec<u32> = keep.iter().map(|&i| sorted_codes[i]).collect();
    let eligible = out.eligible.clone();
    let fast = FastEce::new(&u, &o, &out.n, s.binning, m);
    let t = fast
        .spread(&u, &o, &c, &eligible, &mut Vec::new(), &mut Vec::new())
        .expect("two eligible groups");
    let test = PermutationTest {
        fast,
        u,
        o,
        c,
        eligible,
        t,
        seed: s.seed,
        permutations: s.permutations,
    };
    (out, Some(test))
}

/// The permutation test of "the groups differ more than chance" (module docs),
/// ready to run: each permutation `b` is drawn from its own generator, so any ranges
/// of permutations, run in any order or on any thread, count the same.
pub struct PermutationTest {
    fast: FastEce,
    u: Vec<f64>,
    o: Vec<bool>,
    c: Vec<u32>,
    eligible: Vec<bool>,
    /// The observed spread.
    t: f64,
    seed: u64,
    permutations: usize,
}

impl PermutationTest {
    /// The permutations asked for.
    pub fn permutations(&self) -> usize {
        self.permutations
    }

    /// How many of the permutations `range` reach the observed spread.
    pub fn exceed_in(&self, range: std::ops::Range<usize>) -> usize {
        let (mut sums, mut rank) = (Vec::new(), Vec::new());
        let mut codes = self.c.clone();
        let mut exceed = 0;
        for b in range {
            codes.copy_from_slice(&self.c);
            shuffle(&mut codes, self.seed, b as u64);
            if self
                .fast
                .spread(
                    &self.u,
                    &self.o,
                    &codes,
                    &self.eligible,
                    &mut sums,
                    &mut rank,
                )
                .is_some_and(|tb| tb >= self.t)
            {
                exceed += 1;
            }
        }
        exceed
    }

    /// Writes the test's answer into `out` (`exceed`: the count over every
    /// permutation): p = (1 + exceed) / (1 + permutations).
    pub fn finish(&self, out: &mut GroupCalibration, exceed: usize) {
        out.exceed = exceed;
        out.permutations = self.permutations;
        out.p_value = Some((1 + exceed) as f64 / (1 + self.permutations) as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(rows: &[(f64, bool)]) -> Pairs {
        Pairs {
            forecast: rows.iter().map(|r| r.0).collect(),
            outcome: rows.iter().map(|r| r.1).collect(),
        }
    }

    /// The test run in pieces of any size counts what it counts in one run, on one
    /// thread or several, for groups that differ and groups that do not.
    #[test]
    fn a_test_run_in_pieces_counts_the_same() {
        let mut rng = SplitMix64::new(11);
        for shift in [0.0, 0.05] {
            let (mut rows, mut codes) = (Vec::new(), Vec::new());
            for i in 0..900 {
                let g = (i % 3) as u32;
                let c = 0.5 + 0.5 * rng.next_f64();
                let truth = if g == 1 { c - shift } else { c };
                rows.push((c, rng.next_f64() < truth));
                codes.push(g);
            }
            let p = pairs(&rows);
            for threads in [1, 3] {
                let s = GroupSettings {
                    permutations: 150,
                    seed: 9,
                    threads,
                    min_size: 10,
                    ..GroupSettings::default()
                };
                let whole = group_calibration(&p, &codes, 3, &s);
                let (mut out, test) = group_calibration_untested(&p, &codes, 3, &s);
                let test = test.expect("two eligible groups");
                let mut exceed = 0;
                let mut done = 0;
                for size in [1, 7, 50, 1000] {
                    let end = (done + size).min(test.permutations());
                    exceed += test.exceed_in(done..end);
                    done = end;
                }
                assert_eq!(done, 150);
                test.finish(&mut out, exceed);
                assert_eq!(out, whole, "shift {shift}, {threads} threads");
            }
        }
    }

    /// Two groups of one calibration and one overconfident group: the ECE of each
    /// group is its rows' ECE, the overconfident group is the worst, and the test
    /// finds the difference; the same on any number of threads.
    #[test]
    fn an_overconfident_group_is_found() {
        let mut rows = Vec::new();
        let mut codes = Vec::new();
        let mut rng = SplitMix64::new(5);
        for i in 0..3000 {
            let g = (i % 3) as u32;
            let c = 0.5 + 0.5 * rng.next_f64();
            let truth = if g == 2 { c - 0.25 } else { c };
            rows.push((c, rng.next_f64() < truth));
            codes.push(g);
        }
        let p = pairs(&rows);
        let s = GroupSettings {
            permutations: 200,
            seed: 3,
            ..GroupSettings::default()
        };
        let r = group_calibration(&p, &codes, 3, &s);
        assert_eq!(r.worst, Some(2));
        assert_eq!(r.n, [1000, 1000, 1000]);
        // each group's ECE is the ECE of its rows alone
        for g in 0..3 {
            let rows_g: Vec<(f64, bool)> = (0..3000)
                .filter(|&i| codes[i] == g as u32)
                .map(|i| rows[i])
                .collect();
            let alone = SortedReading::new(&pairs(&rows_g))
                .metrics(Binning::Width, 15)
                .ece;
            assert_eq!(r.ece[g], alone);
        }
        assert_eq!(r.p_value, Some(1.0 / 201.0));
        // the test's one-pass ECE is the groups' ECE (up to summation order)
        for binning in [Binning::Width, Binning::Mass] {
            let order = crate::auc::sort_order(&p.forecast);
            let (u, o, c) = (
                crate::auc::gather(&p.forecast, &order),
                crate::auc::gather(&p.outcome, &order),
                crate::auc::gather(&codes, &order),
            );
            let exact = group_calibration(
                &p,
                &codes,
                3,
                &GroupSettings {
                    binning,
                    permutations: 0,
                    ..s
                },
            );
            let fast = FastEce::new(&u, &o, &exact.n, binning, 15);
            let t = fast.spread(
                &u,
                &o,
                &c,
                &exact.eligible,
                &mut Vec::new(),
                &mut Vec::new(),
            );
            assert!(
                (t.unwrap() - exact.spread.unwrap()).abs() < 1e-12,
                "{binning:?}"
            );
        }
        let r4 = group_calibration(&p, &codes, 3, &GroupSettings { threads: 4, ..s });
        assert_eq!(r4, r);
    }

    /// Groups drawn from one calibration: the p-value is not small; a different seed
    /// gives a different but valid p-value.
    #[test]
    fn exchangeable_groups_are_not_told_apart() {
        let mut rng = SplitMix64::new(11);
        let mut rows = Vec::new();
        let mut codes = Vec::new();
        for i in 0..2000 {
            let c = rng.next_f64();
            rows.push((c, rng.next_f64() < c));
            codes.push((i % 4) as u32);
        }
        let s = GroupSettings {
            permutations: 199,
            ..GroupSettings::default()
        };
        let r = group_calibration(&pairs(&rows), &codes, 4, &s);
        let p = r.p_value.unwrap();
        assert!(p > 0.05, "p = {p}");
        assert!((1.0 / 200.0..=1.0).contains(&p));
    }

    /// Too-small groups are reported but take no part; one eligible group has no
    /// statistic; no sample at all has no group.
    #[test]
    fn small_single_and_empty_cases() {
        let rows = vec![(0.9, true); 40];
        let mut codes = vec![0u32; 40];
        codes[39] = 1;
        let r = group_calibration(&pairs(&rows), &codes, 2, &GroupSettings::default());
        assert_eq!(r.n, [39, 1]);
        assert_eq!(r.eligible, [true, false]);
        assert!(r.ece[1].is_some());
        assert_eq!(r.worst, Some(0));
        assert_eq!(r.spread, None);
        assert_eq!(r.p_value, None);
        let r = group_calibration(&Pairs::default(), &[], 0, &GroupSettings::default());
        assert!(r.n.is_empty() && r.worst.is_none() && r.p_value.is_none());
        // a group code without samples
        let r = group_calibration(&pairs(&rows[..2]), &[0, 0], 2, &GroupSettings::default());
        assert_eq!(r.ece[1], None);
    }
}
